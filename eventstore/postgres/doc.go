// Package postgres is the eventstore backend on PostgreSQL (pgx v5, a pgxpool for reads).
//
// A store lives in one PostgreSQL schema (Config.Schema, else the URL's search_path, else
// "eventstore"), which Open creates and migrates: a versioned list of steps, applied in one
// transaction under an advisory lock on the schema's name, so that stores starting at once
// cannot race. Every statement names the schema, so any number of stores, in one process or
// many, live side by side in one database. The package holds no process-wide state.
//
// Each Store has three kinds of connection: one write connection, owned by a writer goroutine
// that commits the appends waiting for it together, in one transaction (group commit, as the
// sqlite store does); one connection that LISTENs for other processes' commits; and a pool of
// Config.MaxReaders connections for reads. No read holds a connection while its caller works
// through a page.
//
// # Global order: positions under a lock held until commit
//
// The classic lost event of PostgreSQL event stores: positions taken from a sequence are
// handed out when a transaction inserts, not when it commits. Transaction A takes position 10,
// B takes 11 and commits first; a subscriber reads up to 11 and moves on; A commits, and its
// event appears below where every subscriber already is. Nothing ever reads it.
//
// This store takes positions under a lock held until commit. Every append transaction first
// takes pg_advisory_xact_lock(class, oid of the events table), the store's append lock; under
// it, it reads the head (max(position)) and the versions of its streams, and gives its events
// head+1, head+2, .... The lock is released only after the commit is flushed and visible, so
// positions are gapless and follow commit order, across processes: when a reader sees position
// p, every position below p is committed and visible too. ReadAll reads up to the head it
// found; a subscriber reads from the last position it yielded up to the head, waits, and
// repeats; neither can skip an event. The conformance suite's case of several processes
// appending under a subscriber, with random pauses between taking positions and committing
// (the hooks of this package's tests), checks it: a variant taking positions from a sequence
// without the lock loses 150 to 250 of its 1200 events there in every run (16 to 55 without the
// pauses).
//
// The lock serializes appends, so the writer makes each turn of it count: one transaction
// carries every append waiting (up to Config.MaxBatch), each checked against its own expected
// version as the appends before it in the batch leave its stream. It costs two round trips:
// BEGIN, the lock and the reads in one pipeline, then the insert (one statement over arrays),
// pg_notify and COMMIT in the next. Under the lock the versions read are
// exact, so expected-version checks are atomic however many stores append; the UNIQUE (stream,
// version) index stays as a backstop, and its violation (a writer that ignores the lock) is a
// version conflict too. The writer can also guess the head and the versions and send BEGIN,
// the lock, an insert that holds only while they are what it guessed, pg_notify and COMMIT in
// one pipeline (a wrong guess inserts nothing and the batch takes the two round trips).
//
// The other remedy records each row's transaction id (xid8, pg_current_xact_id()) and lets
// readers read only below pg_snapshot_xmin(pg_current_snapshot()), as
// eugene-khyst/postgresql-event-sourcing does; writers then need no lock. It was measured and
// not taken (BenchmarkAppend64, 64 appenders, events of about 300 bytes, PostgreSQL 15 and the
// client on one 2-core machine, synchronous_commit on):
//
//   - this store: 45k to 53k events/s, about 50 appends a transaction; through two stores on
//     one schema (their writers take turns at the lock) 34k to 43k;
//   - the same writer without the lock, positions from a sequence (the write side of the xid8
//     design with group commit): about 50k with one store, 45k to 49k with two: the lock costs
//     nothing measurable for one writer and about 16% for two on this machine;
//   - the xid8 design as usually built, one transaction per append over a pool (16 or 64
//     connections): 12k to 13k events/s.
//
// And the horizon costs readers what the lock does not: any transaction that is still open
// anywhere in the cluster, in any database, holds every reader below its transaction id, so a
// slow transaction of another program stalls every subscriber, and a store cannot even read
// back its own committed append (Head, ReadAll) while an older transaction is in flight. Its
// order is (xid, sequence), not a single number that grows in the order readers see, which
// eventstore.Position must be. The lock's price is that appends from all processes take turns;
// with group commit that is one flush for a batch of appends.
//
// # Durability
//
// Append returns once its transaction committed with synchronous_commit on: the write session
// turns it back on if the database or role turned it off (stronger settings are kept). The
// session's idle_in_transaction_session_timeout (10s) bounds how long a frozen process can
// hold the append lock. Should the connection fail during COMMIT, Append cannot know whether
// the events were stored and says so in its error.
//
// # Subscriptions
//
// Every append transaction sends pg_notify on a channel named after the events table's oid;
// the notification goes out only if the transaction commits. Each Store's listener connection
// LISTENs to it (pgx WaitForNotification) and wakes the store's subscribers; appends through the
// store itself wake them directly. A notification is only a wake-up: a subscriber reads the log
// from where it is, so notifications that come late, merge or get lost lose nothing. Should the
// listening connection fail, the listener logs it, wakes the subscribers and connects again
// every PollInterval; caught-up subscribers also read the log every PollInterval on their own.
//
// # Records
//
// Events keep their type, schema version and data (a json column: the server checks it and
// keeps the text byte for byte). Metadata round-trips as in the sqlite store: empty ids are
// NULL, recorded-at is Unix nanoseconds in a bigint, so any time in the years 1678 to 2262
// comes back exactly, in UTC; a zero recorded-at becomes the server's statement time, which
// therefore never decreases along positions (unless the server's clock steps back). What
// PostgreSQL text cannot hold (NUL bytes, invalid UTF-8) is an invalid event.
//
// # Secrets
//
// The password the connection string holds, or the environment supplies, never appears in an
// error the store returns or a line it logs: errors are scrubbed of it (in its plain and
// URL-escaped forms) at every exit, and a connection string that cannot be parsed is not
// quoted at all.
package postgres
