package kurrentdb

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/EventStore/EventStore-Client-Go/v4/esdb"

	"relayer/eventstore"
)

// This file holds the translations between eventstore's terms and KurrentDB's, as pure
// functions; doc.go states them in prose.

// noPosition is what the server sends as the $all position of an event it did not read from
// $all and could not place there: -1 as an unsigned number. Servers before EventStoreDB 22.6 do
// so for every event of a stream read.
const noPosition = math.MaxUint64

// positionOf maps a commit position in $all to a Position: the commit position plus one, so that
// an event at commit position 0 has Position 1 and Position 0 keeps meaning "before everything".
// ok is false for a commit position the server did not report (noPosition) or that no Position
// can hold.
func positionOf(commit uint64) (pos eventstore.Position, ok bool) {
	if commit >= math.MaxInt64 {
		return 0, false
	}
	return eventstore.Position(commit + 1), true
}

// serverPositionOf is the inverse of positionOf, for a Position above 0: the $all position of the
// event at that Position, had it been written by this store (every append of this store writes
// events whose prepare position equals their commit position; see doc.go).
func serverPositionOf(pos eventstore.Position) esdb.Position {
	c := uint64(pos) - 1
	return esdb.Position{Commit: c, Prepare: c}
}

// before reports whether $all position a comes before b: by commit position, then by prepare
// position, as the server orders them.
func before(a, b esdb.Position) bool {
	return a.Commit < b.Commit || (a.Commit == b.Commit && a.Prepare < b.Prepare)
}

// expectedRevision maps an expected version to the client's: NoStream and Any to the client's
// NoStream and Any, a version n to StreamRevision n (a stream's revision is its version).
func expectedRevision(v eventstore.Version) esdb.ExpectedRevision {
	switch v {
	case eventstore.NoStream:
		return esdb.NoStream{}
	case eventstore.Any:
		return esdb.Any{}
	default:
		return esdb.Revision(uint64(v))
	}
}

// wrongVersionMessage matches the message the client (v4.2.0, client.go) puts inside its
// wrong-expected-version error, built as
//
//	fmt.Errorf("wrong expected version: expecting '%s' but got '%s'", expected, current)
//
// where current is "no_stream" or the stream's revision in decimal.
var wrongVersionMessage = regexp.MustCompile(`^wrong expected version: expecting '[^']*' but got '([^']*)'$`)

// conflict reports whether err is the client's wrong-expected-version error (an *esdb.Error with
// code ErrorCodeWrongExpectedVersion) and, when its message names it, the stream's actual
// version (known false when it does not).
func conflict(err error) (isConflict bool, actual eventstore.Version, known bool) {
	var e *esdb.Error
	if !errors.As(err, &e) || e.Code() != esdb.ErrorCodeWrongExpectedVersion {
		return false, 0, false
	}
	if e.Err() == nil {
		return true, 0, false
	}
	actual, known = actualVersion(e.Err().Error())
	return true, actual, known
}

// actualVersion reads the stream's actual version out of the message of the client's
// wrong-expected-version error.
func actualVersion(msg string) (eventstore.Version, bool) {
	m := wrongVersionMessage.FindStringSubmatch(msg)
	if m == nil {
		return 0, false
	}
	if m[1] == "no_stream" {
		return eventstore.NoStream, true
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return eventstore.Version(n), true
}

// clientCode returns the client's error code for err, when err is or wraps an *esdb.Error.
func clientCode(err error) (esdb.ErrorCode, bool) {
	var e *esdb.Error
	if !errors.As(err, &e) {
		return 0, false
	}
	return e.Code(), true
}

// userMetadata is an event's user metadata as this store writes it: JSON whose $correlationId
// and $causationId KurrentDB itself understands (its $by_correlation_id projection and the
// projections' linkTo keep them), and two keys of this store's own.
type userMetadata struct {
	CorrelationID string `json:"$correlationId,omitempty"`
	CausationID   string `json:"$causationId,omitempty"`
	SchemaVersion int    `json:"schemaVersion"`
	// RecordedAt is a recorded-at the caller gave, RFC 3339 with nanoseconds, in UTC. It is
	// absent when the caller left recorded-at zero: then the server's commit time is the
	// event's recorded-at.
	RecordedAt string `json:"recordedAt,omitempty"`
}

// encodeMetadata returns an event's user metadata.
func encodeMetadata(e eventstore.Event) ([]byte, error) {
	m := userMetadata{
		CorrelationID: e.Metadata.CorrelationID,
		CausationID:   e.Metadata.CausationID,
		SchemaVersion: e.SchemaVersion,
	}
	if !e.Metadata.RecordedAt.IsZero() {
		m.RecordedAt = e.Metadata.RecordedAt.UTC().Format(time.RFC3339Nano)
	}
	return json.Marshal(m)
}

// decodeMetadata reads user metadata back into an event's schema version and metadata; created
// is the server's commit time, the recorded-at of an event appended without one.
func decodeMetadata(raw []byte, created time.Time) (schemaVersion int, md eventstore.Metadata, err error) {
	var m userMetadata
	if err := json.Unmarshal(raw, &m); err != nil {
		return 0, md, fmt.Errorf("user metadata is not this store's JSON: %v", err)
	}
	if m.SchemaVersion < 1 {
		return 0, md, fmt.Errorf("user metadata has schema version %d, want 1 or more", m.SchemaVersion)
	}
	md = eventstore.Metadata{CorrelationID: m.CorrelationID, CausationID: m.CausationID, RecordedAt: created.UTC()}
	if m.RecordedAt != "" {
		if md.RecordedAt, err = time.Parse(time.RFC3339Nano, m.RecordedAt); err != nil {
			return 0, md, fmt.Errorf("user metadata has recorded-at %q, not RFC 3339: %v", m.RecordedAt, err)
		}
	}
	return m.SchemaVersion, md, nil
}

// validateEvents rejects, as invalid events, what KurrentDB would not keep as given or would
// take for its own: names and ids that are not UTF-8 (gRPC carries them as strings; JSON would
// replace the bad bytes), stream names and event types starting with "$" (KurrentDB's mark of
// system streams and events, which ReadAll and SubscribeAll never yield), and recorded-at times
// outside the years 1 to 9999 that RFC 3339 writes.
func validateEvents(stream string, events []eventstore.Event) error {
	if err := validateName(stream); err != nil {
		return err
	}
	for i, e := range events {
		switch {
		case !utf8.ValidString(e.Type):
			return fmt.Errorf("%w: event %d for %s has type %+q, not UTF-8", eventstore.ErrInvalidEvent, i, stream, e.Type)
		case strings.HasPrefix(e.Type, "$"):
			return fmt.Errorf("%w: event %d for %s has type %q, which starts with $ as KurrentDB's system events do", eventstore.ErrInvalidEvent, i, stream, e.Type)
		case !utf8.ValidString(e.Metadata.CorrelationID) || !utf8.ValidString(e.Metadata.CausationID):
			return fmt.Errorf("%w: event %d (%s) for %s has a correlation or causation id that is not UTF-8", eventstore.ErrInvalidEvent, i, e.Type, stream)
		case !e.Metadata.RecordedAt.IsZero() && (e.Metadata.RecordedAt.UTC().Year() < 1 || e.Metadata.RecordedAt.UTC().Year() > 9999):
			return fmt.Errorf("%w: event %d (%s) for %s has recorded-at %s, outside the years 1 to 9999", eventstore.ErrInvalidEvent, i, e.Type, stream, e.Metadata.RecordedAt)
		}
	}
	return nil
}

// validateName rejects, as invalid, a stream name that no append of the store can have written:
// an empty one, one that is not UTF-8, one that starts with "$" (without a prefix, a name of
// KurrentDB's own system streams).
func validateName(stream string) error {
	switch {
	case stream == "":
		return fmt.Errorf("%w: empty stream name", eventstore.ErrInvalidEvent)
	case !utf8.ValidString(stream):
		return fmt.Errorf("%w: stream name %+q is not UTF-8", eventstore.ErrInvalidEvent, stream)
	case strings.HasPrefix(stream, "$"):
		return fmt.Errorf("%w: stream name %q starts with $, which KurrentDB keeps for system streams", eventstore.ErrInvalidEvent, stream)
	}
	return nil
}

// isSystem reports whether an event is KurrentDB's own: its stream or its type starts with "$".
func isSystem(stream, eventType string) bool {
	return strings.HasPrefix(stream, "$") || strings.HasPrefix(eventType, "$")
}

// names turns the store's stream names into KurrentDB's and back, by Config.StreamPrefix.
type names struct{ prefix string }

// full is the name of stream in KurrentDB.
func (n names) full(stream string) string { return n.prefix + stream }

// local is the store's name of a KurrentDB stream; ok is false for a stream outside the store.
func (n names) local(full string) (stream string, ok bool) {
	return strings.CutPrefix(full, n.prefix)
}

// ours reports whether an event of $all belongs to the store: a stream under the prefix, and
// not a system event.
func (n names) ours(full, eventType string) bool {
	return strings.HasPrefix(full, n.prefix) && !isSystem(full, eventType)
}

// filter is the server-side filter of the store's subscriptions to $all: the streams under the
// prefix (a prefix never starts with "$", so system streams fall outside it), or, without a
// prefix, the client's filter of system event types. It lets through a superset of what ours
// accepts (a "$" event in a stream under the prefix, a non-"$" event in a system stream); ours
// decides.
func (n names) filter() *esdb.SubscriptionFilter {
	if n.prefix == "" {
		return esdb.ExcludeSystemEventsFilter()
	}
	return &esdb.SubscriptionFilter{Type: esdb.StreamFilterType, Prefixes: []string{n.prefix}}
}
