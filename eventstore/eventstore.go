// Package eventstore defines the append-only event log that is the relayer's truth: streams of
// events, each appended with the version the writer expects the stream to be at, and one global
// order across all streams that readers and subscribers follow.
//
// The package owns the contract (Store, and what a store may offer besides: BatchAppender,
// GuardedAppender, SpaceReporter, StreamVersioner), the record and position types, the typed
// errors, the codec that turns typed events into stored ones and back, and Update, the one "load,
// decide, append with the expected version" path of the small streams (the runtime
// configuration, checkpoints, cursors, leases). It knows nothing of the relayer's domain and must
// never import it; backends live in sub-packages (eventstore/sqlite, ...) and all pass the
// conformance suite in eventstore/storetest.
package eventstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"
)

// Version is the 0-based version of an event within its stream: the first event of a stream has
// version 0, and versions are gapless. As an expected version in Append, the constants NoStream
// and Any have special meanings.
type Version int64

const (
	// NoStream, as the expected version, requires that the stream has no events yet.
	NoStream Version = -1
	// Any, as the expected version, appends whatever the stream's current version is.
	Any Version = -2
)

func (v Version) String() string {
	switch v {
	case NoStream:
		return "no-stream"
	case Any:
		return "any"
	default:
		return fmt.Sprintf("%d", int64(v))
	}
}

// Position is an event's place in the global order of the whole store. The first event ever
// appended has position 1; position 0 means "before everything", so reading after 0 reads the
// whole log. Positions increase in commit order but need not be contiguous.
type Position uint64

// Metadata travels with every event: who caused it and when it was recorded.
type Metadata struct {
	// CorrelationID ties together every event caused, directly or not, by one outside request.
	CorrelationID string `json:"correlationId,omitempty"`
	// CausationID is the id of the message or event that directly caused this one.
	CausationID string `json:"causationId,omitempty"`
	// RecordedAt is when the store committed the event. Append sets it when it is zero.
	RecordedAt time.Time `json:"recordedAt"`
}

// Event is an event about to be appended: its type, the schema version of its data, the data as
// JSON and its metadata. Build one with a Codec.
type Event struct {
	Type          string
	SchemaVersion int
	Data          json.RawMessage
	Metadata      Metadata
}

// Record is an event as stored: the event plus where it lives. Its Data may be shared with
// the other readers of the same store (a store's subscriptions may share one copy of an event
// its writer just committed): a reader reads it and never writes to it.
type Record struct {
	Stream        string
	Version       Version
	Position      Position
	Type          string
	SchemaVersion int
	Data          json.RawMessage
	Metadata      Metadata
}

// Store is the event log. Implementations are safe for concurrent use.
//
// An event's data is checked to be JSON once, when it is appended (ValidateAppend). Reads do not
// check it again: a record that cannot be read back (a value of the wrong type, a field out of
// range) yields a *RecordError wrapping ErrCorruptRecord, but data damaged after its append is
// yielded as it is stored. A reader that parses the data (Codec.Decode, the projections'
// decoder) reports data that does not parse as a *RecordError wrapping ErrCorruptRecord; one
// that passes it on unparsed checks it with CheckData.
type Store interface {
	// Append adds events to the end of stream, atomically, if the stream is at the expected
	// version (or expected is Any). It returns the global position of the last appended event.
	// On a version conflict it returns an error that matches ErrWrongExpectedVersion and can be
	// unwrapped to a *WrongExpectedVersionError. When Append returns without error the events
	// are durable.
	Append(ctx context.Context, stream string, expected Version, events ...Event) (Position, error)

	// ReadStream yields the events of stream from version from (inclusive), in version order.
	// A stream with no events yields nothing (it is not an error).
	ReadStream(ctx context.Context, stream string, from Version) iter.Seq2[Record, error]

	// ReadAll yields every event whose position is greater than after, in global order, up to
	// the last event committed when the read reached it, then stops.
	ReadAll(ctx context.Context, after Position) iter.Seq2[Record, error]

	// SubscribeAll is ReadAll that does not stop: after catching up it waits for new events and
	// yields them as they are committed, in global order, never skipping one. It ends when ctx
	// is done (yielding ctx's error) or when the caller stops iterating.
	SubscribeAll(ctx context.Context, after Position) iter.Seq2[Record, error]

	// Head returns the position of the last committed event (0 when the store is empty).
	Head(ctx context.Context) (Position, error)

	// Close releases the store. Appends in progress complete or fail; later calls fail with
	// ErrClosed.
	Close() error
}

var (
	// ErrWrongExpectedVersion reports that a stream was not at the version an append expected.
	ErrWrongExpectedVersion = errors.New("wrong expected version")
	// ErrClosed reports a call on a closed store.
	ErrClosed = errors.New("event store closed")
	// ErrInvalidEvent reports an event that cannot be stored (empty type, invalid JSON, ...).
	ErrInvalidEvent = errors.New("invalid event")
	// ErrCorruptRecord reports a stored event that cannot be read back as it was written.
	ErrCorruptRecord = errors.New("corrupt record")
	// ErrUnknownEventType reports a stored event whose type the codec does not know.
	ErrUnknownEventType = errors.New("unknown event type")
	// ErrUnknownSchemaVersion reports a stored event whose schema version the codec cannot read.
	ErrUnknownSchemaVersion = errors.New("unknown schema version")
	// ErrStorageFull reports an append that failed, and stored nothing, because the store's disk
	// (or its quota) is full. It passes once space returns: callers wait and try again rather
	// than give up.
	ErrStorageFull = errors.New("storage full")
)

// WrongExpectedVersionError carries the versions of a failed append. Actual is NoStream when the
// stream has no events.
type WrongExpectedVersionError struct {
	Stream   string
	Expected Version
	Actual   Version
}

func (e *WrongExpectedVersionError) Error() string {
	return fmt.Sprintf("append to %s: expected version %s, stream is at %s", e.Stream, e.Expected, e.Actual)
}

// Is makes errors.Is(err, ErrWrongExpectedVersion) true.
func (e *WrongExpectedVersionError) Is(target error) bool { return target == ErrWrongExpectedVersion }

// RecordError names the stored event that could not be read or decoded.
type RecordError struct {
	Stream   string
	Version  Version
	Position Position
	Err      error
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("event %s@%d (position %d): %v", e.Stream, e.Version, e.Position, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// CorruptRecord returns a *RecordError naming r that wraps ErrCorruptRecord and says what is wrong
// with the stored event: its problems, joined by "; ". A backend's reader gives it for an event
// it cannot read back as it was written, with the record as far as it could be read.
func CorruptRecord(r Record, problems ...string) error {
	return &RecordError{Stream: r.Stream, Version: r.Version, Position: r.Position,
		Err: fmt.Errorf("%w: %s", ErrCorruptRecord, strings.Join(problems, "; "))}
}

// StreamAppend is one stream's part of a BatchAppender call: what one Append would take.
type StreamAppend struct {
	Stream   string
	Expected Version
	Events   []Event
}

// BatchAppender is what a store may offer besides Store: several appends, to any streams, in
// one call, whose events take global positions in the order the appends are given (other
// writers' events may come between them). Each append is checked and applied on its own, as
// Append would apply it, so one may fail while the others succeed: AppendBatch returns one
// position and one error per append. Copying a log between stores (relayer migrate) uses it to
// keep the global order without a round trip per stream.
type BatchAppender interface {
	AppendBatch(ctx context.Context, appends []StreamAppend) ([]Position, []error)
}

// Space is how much room a store takes and has left.
type Space struct {
	// Size is the bytes the store takes (a SQLite store: its file and write-ahead log; a
	// PostgreSQL store: its events table with indexes).
	Size int64
	// Free is the bytes left for it to grow into (the filesystem's, for an unprivileged
	// writer), or -1 when the store cannot tell (a database server's disk).
	Free int64
}

// SpaceReporter is implemented by stores that can tell their size and the room left, for the
// metrics an operator alerts on before a disk fills (see ErrStorageFull).
type SpaceReporter interface {
	Space(ctx context.Context) (Space, error)
}

// Guard is a condition an append may be made under: Stream is at exactly Version when the append
// is applied, in the same transaction. A lease uses it as a fencing token: its holder appends
// under the guard of the lease stream at the version its acquisition left, so that once another
// process has taken the lease (appended to the lease stream), nothing the deposed holder still
// tries is recorded. The event log is the lock.
type Guard struct {
	Stream  string
	Version Version
}

// GuardedAppender is what a store may offer besides Store: an append that takes effect only
// while its guard holds. The guard is checked with the append, after the appends committed
// before it (and those before it in the same batch); a guard that does not hold fails the
// append with a *GuardError and writes nothing.
type GuardedAppender interface {
	AppendGuarded(ctx context.Context, guard Guard, stream string, expected Version, events ...Event) (Position, error)
}

// ErrGuard reports an append refused because its guard stream had moved.
var ErrGuard = errors.New("guard does not hold")

// GuardError carries the versions of a refused guarded append. Actual is NoStream when the
// guard stream has no events.
type GuardError struct {
	Stream string // the stream appended to
	Guard  Guard
	Actual Version
}

func (e *GuardError) Error() string {
	return fmt.Sprintf("append to %s: guard %s expected at version %s, it is at %s", e.Stream, e.Guard.Stream, e.Guard.Version, e.Actual)
}

// Is makes errors.Is(err, ErrGuard) true.
func (e *GuardError) Is(target error) bool { return target == ErrGuard }

// CheckGuard is the guard rule every backend applies: nil when the guard stream, at actual, holds.
func CheckGuard(stream string, g Guard, actual Version) error {
	if actual != g.Version {
		return &GuardError{Stream: stream, Guard: g, Actual: actual}
	}
	return nil
}

// ValidateGuard checks a guard before any backend work: a named stream other than the one
// appended to, at a version (a guard cannot be Any).
func ValidateGuard(stream string, g Guard) error {
	switch {
	case g.Stream == "":
		return fmt.Errorf("%w: guard of the append to %s names no stream", ErrInvalidEvent, stream)
	case g.Stream == stream:
		return fmt.Errorf("%w: append to %s is guarded by its own stream", ErrInvalidEvent, stream)
	case g.Version < NoStream:
		return fmt.Errorf("%w: guard %s at %d: want a version or NoStream", ErrInvalidEvent, g.Stream, int64(g.Version))
	}
	return nil
}

// CheckExpected is the rule every backend applies: it returns nil when a stream whose current
// version is actual (NoStream when empty) may take an append that expects expected.
func CheckExpected(stream string, expected, actual Version) error {
	switch {
	case expected == Any:
		return nil
	case expected == actual:
		return nil
	default:
		return &WrongExpectedVersionError{Stream: stream, Expected: expected, Actual: actual}
	}
}

// CheckData returns a *RecordError wrapping ErrCorruptRecord when r's data is not JSON, and nil
// otherwise. The store checked the data when it was appended; a reader that passes a record's
// data on without parsing it (an audit view, a JSON export, an archive) calls CheckData, so that
// data damaged since is reported as the readers that parse it report it.
func CheckData(r Record) error {
	if validJSON(r.Data) {
		return nil
	}
	return CorruptRecord(r, "data is not valid JSON")
}

// ValidateAppend checks the arguments of an append before any backend work: a non-empty stream
// name, a meaningful expected version, at least one event, each with a type and valid JSON data.
func ValidateAppend(stream string, expected Version, events []Event) error {
	if stream == "" {
		return fmt.Errorf("%w: empty stream name", ErrInvalidEvent)
	}
	if expected < Any {
		return fmt.Errorf("%w: expected version %d is not a version, NoStream or Any", ErrInvalidEvent, int64(expected))
	}
	if len(events) == 0 {
		return fmt.Errorf("%w: append to %s with no events", ErrInvalidEvent, stream)
	}
	for i, e := range events {
		if e.Type == "" {
			return fmt.Errorf("%w: event %d for %s has no type", ErrInvalidEvent, i, stream)
		}
		if e.SchemaVersion < 1 {
			return fmt.Errorf("%w: event %d (%s) for %s has schema version %d, want 1 or more", ErrInvalidEvent, i, e.Type, stream, e.SchemaVersion)
		}
		if !validJSON(e.Data) {
			return fmt.Errorf("%w: event %d (%s) for %s has invalid JSON data", ErrInvalidEvent, i, e.Type, stream)
		}
	}
	return nil
}

// Removal is what a RemoveStreams call removed.
type Removal struct {
	// Streams are the streams removed, in the order given.
	Streams []string
	// Events is how many events left the store with them.
	Events int64
}

// Remover is what a store may offer besides Store: removing whole streams that can no longer
// change, once an archive holds their events (the retention of DESIGN section 4's log).
//
// RemoveStreams removes each named stream whose every event has a position at or below upTo,
// and leaves the others as they are: a stream that took an event above upTo since its caller
// looked is kept, so a removal never loses an event the caller did not see. The stream holding
// the log's last event is never removed, so a position is never given twice. Names that have no
// events are skipped. Removing is idempotent: a removed stream's name is simply not there the
// next time. The events that remain keep their positions and versions; ReadAll and SubscribeAll
// pass over the gaps.
//
// A removed stream's name should not be used again: a new append to it starts a new stream at
// version 0, which readers in other processes that have the store open may not see until they
// reopen it (they may keep the old stream's number).
type Remover interface {
	RemoveStreams(ctx context.Context, streams []string, upTo Position) (Removal, error)
}

// Prune names superseded events of one stream for PruneStreams: those with a version below
// Before whose type is one of Types (any type when Types is empty).
type Prune struct {
	Stream string
	Before Version
	Types  []string
}

// Pruner is what a store may offer besides Store: removing the superseded events of the
// housekeeping streams whose state is their latest events (a checkpoint, a block cursor, a
// lease's renewals, the archiver's horizon), once an archive holds them, so that a relayer
// that only keeps house (an idle one saving its block cursor) does not grow its live store.
//
// PruneStreams removes, for each Prune, the events of its stream that it names and whose
// position is at or below upTo. A stream's last event is never removed, so its version, and the
// expected version of its next append, stay what they were; nor is the log's last event, so a
// position is never given twice. Streams that have no events are skipped. Removing is
// idempotent, and returns how many events it removed. The events that remain keep their
// positions and versions: a pruned stream's versions have gaps, which ReadStream passes over
// (reading it from version 0 yields its first remaining event), as ReadAll and SubscribeAll
// pass over the gaps in the positions.
type Pruner interface {
	PruneStreams(ctx context.Context, prunes []Prune, upTo Position) (int64, error)
}

// ValidatePrunes checks the arguments of a PruneStreams before any backend work: each names a
// stream, and a version to prune below that is not negative.
func ValidatePrunes(prunes []Prune) error {
	for i, p := range prunes {
		switch {
		case p.Stream == "":
			return fmt.Errorf("%w: prune %d names no stream", ErrInvalidEvent, i)
		case p.Before < 0:
			return fmt.Errorf("%w: prune of %s below version %d: want 0 or more", ErrInvalidEvent, p.Stream, int64(p.Before))
		}
		for _, t := range p.Types {
			if t == "" {
				return fmt.Errorf("%w: prune of %s names an empty event type", ErrInvalidEvent, p.Stream)
			}
		}
	}
	return nil
}
