// Package kurrentdb is the eventstore backend on KurrentDB (formerly EventStoreDB), through the
// gRPC client github.com/EventStore/EventStore-Client-Go/v4 (v4.2.0). It owns the translation
// between eventstore's terms and KurrentDB's and must never hide a difference between them: what
// KurrentDB cannot do as the contract says is refused or reported, not approximated. It holds no
// process-wide state; each Store has its own client.
//
// KurrentDB already is an event store: streams with optimistic concurrency, one global log
// ($all) in commit order, catch-up subscriptions. The store adds no tables, no locks and no
// writer of its own; every call is one or a few calls of the client.
//
// # Versions and expected versions
//
// A stream's revision is the event's Version: both are 0-based and gapless. An append expecting
// NoStream, Any or version n sends the client's NoStream, Any or StreamRevision(n). The client
// reports a conflict as an *esdb.Error with code ErrorCodeWrongExpectedVersion whose inner
// error's message is "wrong expected version: expecting '<e>' but got '<c>'", where c is the
// stream's revision at the conflict or "no_stream" (client.go of v4.2.0; the server sends it in
// the append's answer). Append turns it into an *eventstore.WrongExpectedVersionError whose
// Actual is that revision, or NoStream. Should a later client word the message otherwise,
// Append reads the stream's last revision instead to fill Actual, which may then be newer than
// the revision that conflicted.
//
// # Positions
//
// The global order is $all's, whose events KurrentDB places by commit position: the byte offset
// in its transaction log at which the event's record starts. Commit positions increase in commit
// order but are not contiguous, and the first event of a log could be at 0, so
//
//	Position = commit position + 1
//
// keeps the order, keeps 0 for "before everything", and gives the first event 1 or more. Every
// append of this store writes each event as its own committed record (no explicit transaction),
// for which KurrentDB reports the same prepare and commit position, so a Position p > 0 maps
// back to the exact $all position {Commit: p-1, Prepare: p-1} of its event. Append returns the
// position of its last event: the append's answer carries that event's commit position
// (KurrentDB's WriteEvents answers with the commit position of the transaction's last record,
// the position $all shows for it).
//
// ReadAll(after) and SubscribeAll(after) start after the event at {after-1, after-1}. A forward
// read of $all from a position is inclusive (it starts at the event there), a subscription from
// a position is exclusive (it starts after it); so a read asks one more event than a page and
// drops the one at its start, a subscription starts at that position as it is. Both hold for
// positions the store gave out. A position it did not (one inside an event of $all, which the
// server refuses to read from as an invalid position, one between two events, one past the end)
// is found out by a probe read of one event there, and the read starts after the last event
// whose Position is at most after, found reading $all backwards from its end.
//
// A stream read reports the events' $all positions only on servers of EventStoreDB 22.6 or
// later (and every KurrentDB); on older ones it reports none, and ReadStream yields a
// *eventstore.RecordError for each event.
//
// # Records
//
// An event is stored with content type JSON, the event's type as KurrentDB's event type, its
// data as the event's data, a new random UUID as its id, and user metadata, a JSON object:
//
//	{"$correlationId": "...", "$causationId": "...", "schemaVersion": 1, "recordedAt": "..."}
//
// $correlationId and $causationId are the keys KurrentDB itself understands (its
// $by_correlation_id projection reads the first); they are left out when empty. schemaVersion
// and recordedAt are this store's. Event ids are random (uuid.New), never derived from the
// append: KurrentDB takes an append whose event ids it has just written for a retry of that
// append and writes nothing (idempotent writes), so ids derived from an append's stream and
// version would make two different appends look alike.
//
// Recorded-at: a recorded-at the caller gives is kept in the user metadata (RFC 3339 with
// nanoseconds, UTC) and is authoritative. A zero recorded-at is left out, and the event's
// recorded-at is then the server's created time, which KurrentDB stamps when it writes the
// event: the time of its commit, by the server's clock, in 100ns ticks, read back in UTC.
//
// Append refuses, as invalid events, stream names and event types that start with "$"
// (KurrentDB's system streams and events, which ReadAll and SubscribeAll never yield), names,
// types and ids that are not UTF-8, and recorded-at times outside the years 1 to 9999.
//
// # Stream prefix: several stores on one server
//
// KurrentDB has one $all per server, holding every stream, the system's among them. A Store
// reads and writes only the streams under Config.StreamPrefix: the prefix is prepended to every
// stream name it writes or reads and taken off the names it yields. ReadAll, SubscribeAll and
// Head skip the events of other streams and every system event (a "$" stream or a "$" type), so
// a store with a fresh prefix sees an empty log on a busy server. That is how the conformance
// suite gives each case an empty store on one server, and how relayers of several deployments
// can share one server.
//
// Subscriptions filter on the server: the client's stream-prefix filter with a prefix, its
// system-event-type filter (ExcludeSystemEventsFilter) without one. Reads cannot: the client
// (v4.2.0) has no filter for ReadAll, so ReadAll reads the whole of $all after its starting
// position and drops what is not the store's, and Head reads $all backwards from its end to the
// store's last event, or to where the Store's previous Head read from (it remembers the head it
// found below that), whichever comes first. So ReadAll costs the events of $all after its
// starting position, the neighbours' and the system's included, and Head the events since the
// previous Head (health checks and metrics call it often); the first Head of a Store on a fresh
// prefix reads the whole log. A Store also remembers where its events begin: a ReadAll from the
// start of $all notes the last event it read below the store's first, and later ones from the
// start (or from a position below that event) start there, so only the first reads the events
// below the store's first, which on a busy server are most of $all.
//
// # Subscriptions
//
// SubscribeAll is the client's catch-up subscription to $all: the server sends the stored
// events after the start, then the events as they commit, in commit order, and never skips one
// (KurrentDB writes $all with a single writer, so commit order and position order agree). When
// the server drops the subscription (a restart, a lost connection), SubscribeAll subscribes
// again from the last event it received, after RetryInterval (doubling, up to 32 times, while it
// keeps failing, with jitter: upstream.Backoff), and logs it; it skips any event at or before the
// last one it yielded, so it never repeats one either. Errors the server would give again (access denied, unauthenticated,
// a request it does not know) are yielded to the caller.
//
// # The client's failure modes this package works around
//
// Read in the client's impl.go (v4.2.0), and each checked by a test against the fake server:
//
//   - A call waits for the client's connection state machine without a context, both to get a
//     connection and, after an Unavailable error, to tell it to reconnect; while it looks for the
//     server (discovery), nothing ends that wait. Every call runs on a goroutine of its own, and
//     the caller stops waiting when its context ends.
//   - When discovery fails (10 attempts by default: a few seconds when the server refuses
//     connections), the client stops for good: later calls fail with ErrorCodeConnectionClosed
//     before sending anything, and calls that were already waiting for it wait forever. The
//     store makes a new client on ErrorCodeConnectionClosed (and makes the call again once:
//     nothing was sent), and a guard takes any call that stays inside the client longer than
//     discovery can last (computed from the connection string's settings; about two minutes
//     by default) for stuck: it is released with an error, and the client replaced. A replaced
//     client, or one a call is stuck in, is never closed: closing it panics the goroutines
//     blocked sending to it. That leaks at most a goroutine per stuck call and a connection
//     per replaced client, after an outage.
//   - The client's read panics on an answer it does not know; the panic becomes the read's
//     error.
//   - The client logs every cancelled call as an error; its lines go to Config.Logger at debug
//     level, scrubbed of the password. The store logs a dropped subscription and a replaced
//     client at warning level.
//
// # Removal and pruning
//
// The store is an eventstore.Remover and an eventstore.Pruner through KurrentDB's own means, read
// in KurrentDB's documentation ("Deleting streams and events": a stream read checks the stream's
// metadata, $all bypasses it; truncate-before; soft and hard deletes; a scavenge keeps a stream's
// last event) and in the client's (v4.2.0) DeleteStream, TombstoneStream and SetTruncateBefore:
//
//   - RemoveStreams tombstones each stream (a hard delete), expecting the revision of the last
//     event it checked was at or below the bound (and below the store's head, so the log's last
//     event stays): an append that reached the stream since wins, and the stream is kept. The
//     client reports a tombstone's wrong expected revision as an unclassified error, so a
//     failed tombstone is told from a lost race by reading the stream again. A soft delete
//     would let a later append bring the stream back, its revisions going on from the removed
//     ones; the relayer never gives a retired job's id again (a JobsRetired names it), so such
//     an append can only be a mistake, and a tombstone refuses it: Append returns ErrRemoved.
//     That is the one difference from the other backends, where the name starts a new stream.
//     The tombstone stays in $all for good, a record of a few dozen bytes per removed stream,
//     as a soft delete's metadata record would.
//   - PruneStreams sets the stream's truncate-before ($tb in its metadata, which it writes
//     expecting the metadata's revision and keeping its other settings). A truncate-before
//     removes every event below it whatever its type, so it is set at the first event that must
//     stay: the stream's last, one above the bound, or one no Prune of the stream names by
//     version and type. A Prune with Types prunes no event past the first of another type (the
//     relayer's retention stream is pruned up to its first JobsRetired, which stays, and no
//     further); several Prunes of one stream prune the union of what they name. $maxCount or
//     $maxAge would drop events the archive may not hold yet; a truncate-before drops only what
//     the caller named.
//
// KurrentDB has no transaction over several streams: a call removes or prunes its streams one
// after the other, and on an error those done stay done; calling again finishes the work (both
// are idempotent).
//
// Stream reads no longer yield what was removed, at once. $all does, until a scavenge drops
// it, and a scavenge keeps some of it for good (each stream's last event, the chunk being
// written). So the store keeps a removal horizon: a position at or below which events may have
// been removed, raised before anything is removed, in the metadata of the stream "$removed"
// under the prefix (which no append can write: Append refuses names starting with "$"). ReadAll
// reads it when it starts and SubscribeAll at most once a second; an event of the store at or
// below it is yielded only if its stream still holds it, that is, if its revision is at least
// the first one a read of its stream yields, which the reader learns with one stream read per
// stream (remembering up to 4,096). Above the horizon no stream is read, so a store that never
// removed anything pays one read per ReadAll, subscribers following the log's end one a second
// at most; a rebuild from
// the live store reads each stream below the horizon once more; a replay of an archive joined
// to the live store (archive.Joined) reads the live store only above the archive's horizon,
// above every removed event. A reader that began before a removal may still yield events the
// removal removes (ReadAll: removed after it read the horizon; SubscribeAll: within the second),
// as it would have, had it read them sooner. Only the store's own removals raise the horizon:
// events another client deletes or truncates (from the admin UI, say) stay in ReadAll until a
// scavenge drops them. After a scavenge, a read from the position of an event it dropped
// starts at the next event, as from any position the store did not give out.
//
// The space comes back only after a scavenge, which the store never starts (the client has no
// call for it): an operator starts one from the admin UI or with POST /admin/scavenge on the
// server's HTTP port. All of this was checked against fakeServer's reading of KurrentDB only,
// never against a real server.
//
// # Durability and Close
//
// Append returns once the server acknowledged the append, which KurrentDB does after the events
// are written to its log and flushed (and, in a cluster, replicated to a majority). When ctx
// ends first, Append cannot know whether the events were stored and returns ctx's error. Close
// lets the appends under way finish, ends reads and subscriptions (they yield ErrClosed), waits
// for the calls under way (up to 30s, then it returns an error and the connection closes once
// they end) and closes the connection; later calls fail with ErrClosed.
//
// # Access
//
// The server's user needs to read and write the store's streams and to read $all, which
// KurrentDB keeps, as a system stream, for $admins by default. To remove and prune, it also
// needs to delete the store's streams and to write their metadata; and, without a prefix, every
// reader needs to read (a remover to write) the metadata of the system stream $removed (see
// Removal and pruning).
//
// # Secrets
//
// The password the connection string holds never appears in an error the store returns or a
// line it logs: errors and the client's log lines are scrubbed of it (in its plain and
// URL-escaped forms, found even in a string that does not parse), and messages name the server
// by scheme, user and hosts only.
package kurrentdb
