package kurrentdb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/EventStore/EventStore-Client-Go/v4/esdb"

	"relayer/eventstore"
)

var (
	_ eventstore.Remover = (*Store)(nil)
	_ eventstore.Pruner  = (*Store)(nil)
)

// ErrRemoved reports an append to a stream RemoveStreams removed: KurrentDB keeps its tombstone,
// and the name cannot be used again.
var ErrRemoved = errors.New("the stream was removed and its name cannot be used again")

// RemoveStreams implements eventstore.Remover with KurrentDB's tombstone (a hard delete): each
// stream whose last event is at or below upTo, and is not the store's last event, is tombstoned
// expecting the revision of that last event, so that an append that reached the stream since
// wins and the stream is kept. KurrentDB has no transaction over several streams: the streams
// are removed one after the other, and on an error those removed before it stay removed (the
// Removal returned with the error names them); calling again finishes the work.
//
// Before it removes a stream, it raises the store's removal horizon to the bound it removes
// below, which ReadAll and SubscribeAll check the events of $all against (see doc.go).
func (s *Store) RemoveStreams(ctx context.Context, streams []string, upTo eventstore.Position) (eventstore.Removal, error) {
	const what = "remove streams"
	for _, name := range streams {
		if err := validateName(name); err != nil {
			return eventstore.Removal{}, fmt.Errorf("%s: %w", what, err)
		}
	}
	var out eventstore.Removal
	if len(streams) == 0 {
		return out, nil
	}
	ctx, stop := s.opContext(ctx)
	defer stop()
	head, err := s.Head(ctx)
	if err != nil {
		return out, fmt.Errorf("%s: %w", what, err)
	}
	if head <= 1 {
		return out, nil // no event, or only the log's last
	}
	limit := min(upTo, head-1) // the log's last event stays
	raised := false            // whether the removal horizon is at limit
	seen := map[string]bool{}
	for _, name := range streams {
		if seen[name] {
			continue
		}
		seen[name] = true
		n, err := s.removeStream(ctx, name, limit, &raised)
		if err != nil {
			return out, s.readErr(ctx, what+": "+name, err)
		}
		if n > 0 {
			out.Streams = append(out.Streams, name)
			out.Events += n
		}
	}
	return out, nil
}

// removeStream tombstones stream if its last event is at or below limit, and returns how many
// events left with it (0 when it was kept or had none). Before the first tombstone of a call, it
// raises the removal horizon to limit.
func (s *Store) removeStream(ctx context.Context, stream string, limit eventstore.Position, raised *bool) (int64, error) {
	sp, err := s.span(ctx, stream)
	if err != nil || !sp.exists || sp.lastPos > limit {
		return 0, err
	}
	if !*raised {
		if err := s.raiseHorizon(ctx, limit); err != nil {
			return 0, err
		}
		*raised = true
	}
	full := s.names.full(stream)
	_, _, err = await(ctx, s, func(c *esdb.Client) (*esdb.DeleteResult, error) {
		return c.TombstoneStream(ctx, full, esdb.TombstoneStreamOptions{ExpectedRevision: esdb.Revision(sp.last)})
	})
	if err == nil {
		return int64(sp.last-sp.first) + 1, nil
	}
	if ctx.Err() != nil || errors.Is(err, eventstore.ErrClosed) {
		return 0, err
	}
	// The client (v4.2.0) reports a tombstone's wrong expected revision as an unclassified
	// error: read the stream again to tell a race lost from a failure.
	now, rerr := s.span(ctx, stream)
	switch {
	case rerr != nil:
		return 0, fmt.Errorf("%w (and reading the stream again failed: %v)", err, rerr)
	case !now.exists:
		return 0, nil // removed meanwhile by another caller
	case now.last != sp.last:
		return 0, nil // it took an event since: kept
	}
	return 0, err
}

// span is what a stream read shows of a stream: its first and last remaining revisions and the
// position of its last event; exists is false for a stream with no events to read (never
// written, removed, or soft-deleted).
type span struct {
	exists      bool
	first, last uint64
	lastPos     eventstore.Position
}

func (s *Store) span(ctx context.Context, stream string) (span, error) {
	var sp span
	full := s.names.full(stream)
	var bad error
	err := s.read(ctx, func(ctx context.Context, c *esdb.Client) (*esdb.ReadStream, error) {
		return c.ReadStream(ctx, full, esdb.ReadStreamOptions{Direction: esdb.Backwards, From: esdb.End{}}, 1)
	}, func(ev *esdb.ResolvedEvent) bool {
		e := ev.OriginalEvent()
		pos, ok := positionOf(e.Position.Commit)
		if !ok {
			bad = fmt.Errorf("the server did not report the position in $all of %s@%d (this store needs EventStoreDB 22.6 or later)", stream, e.EventNumber)
		}
		sp.exists, sp.last, sp.lastPos = true, e.EventNumber, pos
		return false
	})
	switch {
	case isGone(err):
		return span{}, nil
	case err != nil:
		return span{}, err
	case bad != nil:
		return span{}, bad
	case !sp.exists:
		return sp, nil
	}
	first, err := s.firstLive(ctx, full)
	if err != nil {
		return span{}, err
	}
	if first == gone {
		return span{}, nil // removed between the two reads
	}
	sp.first = first
	return sp, nil
}

// gone is firstLive's answer for a stream that has no event to read.
const gone = math.MaxUint64

// firstLive returns the revision of the first event a read of the KurrentDB stream full yields:
// the server skips the events below its truncate-before. It returns gone when the stream has
// none (never written, soft-deleted or tombstoned).
func (s *Store) firstLive(ctx context.Context, full string) (uint64, error) {
	first := uint64(gone)
	err := s.read(ctx, func(ctx context.Context, c *esdb.Client) (*esdb.ReadStream, error) {
		return c.ReadStream(ctx, full, esdb.ReadStreamOptions{Direction: esdb.Forwards, From: esdb.Start{}}, 1)
	}, func(ev *esdb.ResolvedEvent) bool {
		first = ev.OriginalEvent().EventNumber
		return false
	})
	if isGone(err) {
		return gone, nil
	}
	return first, err
}

// PruneStreams implements eventstore.Pruner with KurrentDB's truncate-before: each stream's
// metadata gets a $tb at the first event to keep, written expecting the metadata's revision. A
// truncate-before removes every event below it whatever its type, so the events pruned are those
// from the stream's first remaining event up to the first one that must stay: its last event,
// one above upTo, or one that no Prune of the stream names (by version and type). A Prune whose
// Types leave an event of another type below Before therefore prunes only the events before
// that one: fewer than the contract allows, never one it does not name. Several Prunes of one
// stream name the union of their events, as applying them one after the other would.
//
// The streams are pruned one after the other; on an error, those pruned before it stay pruned,
// and calling again finishes the work.
func (s *Store) PruneStreams(ctx context.Context, prunes []eventstore.Prune, upTo eventstore.Position) (int64, error) {
	const what = "prune streams"
	if err := eventstore.ValidatePrunes(prunes); err != nil {
		return 0, err
	}
	for _, p := range prunes {
		if err := validateName(p.Stream); err != nil {
			return 0, fmt.Errorf("%s: %w", what, err)
		}
	}
	if len(prunes) == 0 {
		return 0, nil
	}
	ctx, stop := s.opContext(ctx)
	defer stop()
	var order []string
	byStream := map[string][]eventstore.Prune{}
	for _, p := range prunes {
		if _, ok := byStream[p.Stream]; !ok {
			order = append(order, p.Stream)
		}
		byStream[p.Stream] = append(byStream[p.Stream], p)
	}
	var n int64
	raised := eventstore.Position(0) // the removal horizon this call made sure of
	for _, stream := range order {
		k, err := s.pruneStream(ctx, stream, byStream[stream], upTo, &raised)
		if err != nil {
			return n, s.readErr(ctx, what+": "+stream, err)
		}
		n += k
	}
	return n, nil
}

// named reports whether one of prunes names the event at version v of type typ.
func named(prunes []eventstore.Prune, v uint64, typ string) bool {
	return slices.ContainsFunc(prunes, func(p eventstore.Prune) bool {
		return v < uint64(p.Before) && (len(p.Types) == 0 || slices.Contains(p.Types, typ))
	})
}

// pruneStream truncates one stream before its first event to keep and returns how many events
// that removed.
//
// Before it writes the truncate-before, it raises the store's removal horizon to the position of
// the last event it prunes, unless *raised already covers it.
func (s *Store) pruneStream(ctx context.Context, stream string, prunes []eventstore.Prune, upTo eventstore.Position, raised *eventstore.Position) (int64, error) {
	sp, err := s.span(ctx, stream)
	if err != nil || !sp.exists || sp.first >= sp.last {
		return 0, err
	}
	full := s.names.full(stream)
	keep := sp.first            // the first event to keep
	var top eventstore.Position // the position of the last event to prune
	for keep < sp.last {
		n, stop := uint64(0), false
		page := uint64(min(s.cfg.PageSize, int(sp.last-keep)))
		err := s.read(ctx, func(ctx context.Context, c *esdb.Client) (*esdb.ReadStream, error) {
			return c.ReadStream(ctx, full, esdb.ReadStreamOptions{Direction: esdb.Forwards, From: esdb.Revision(keep)}, page)
		}, func(ev *esdb.ResolvedEvent) bool {
			n++
			e := ev.OriginalEvent()
			pos, ok := positionOf(e.Position.Commit)
			if e.EventNumber >= sp.last || !ok || pos > upTo || !named(prunes, e.EventNumber, e.EventType) {
				keep, stop = e.EventNumber, true
				return false
			}
			keep, top = e.EventNumber+1, pos
			return true
		})
		if isGone(err) {
			return 0, nil // removed meanwhile
		}
		if err != nil {
			return 0, err
		}
		if stop || n < page {
			break
		}
	}
	if keep <= sp.first {
		return 0, nil
	}
	meta, expected, err := s.readMetadata(ctx, full)
	if err != nil {
		return 0, err
	}
	if tb := meta.TruncateBefore(); tb != nil && *tb >= keep {
		return 0, nil // another pruner got there first
	}
	if top > *raised {
		if err := s.raiseHorizon(ctx, top); err != nil {
			return 0, err
		}
		*raised = top
	}
	meta.SetTruncateBefore(keep)
	if err := s.writeMetadata(ctx, full, meta, expected); err != nil {
		return 0, err
	}
	return int64(keep - sp.first), nil
}

// readMetadata reads the metadata of the KurrentDB stream full, and the expected revision to
// write it back with (NoStream when it has none).
func (s *Store) readMetadata(ctx context.Context, full string) (*esdb.StreamMetadata, esdb.ExpectedRevision, error) {
	var raw []byte
	var expected esdb.ExpectedRevision = esdb.NoStream{}
	err := s.read(ctx, func(ctx context.Context, c *esdb.Client) (*esdb.ReadStream, error) {
		return c.ReadStream(ctx, "$$"+full, esdb.ReadStreamOptions{Direction: esdb.Backwards, From: esdb.End{}}, 1)
	}, func(ev *esdb.ResolvedEvent) bool {
		e := ev.OriginalEvent()
		raw, expected = e.Data, esdb.Revision(e.EventNumber)
		return false
	})
	if err != nil && !isNotFound(err) {
		return nil, nil, fmt.Errorf("read the metadata of %s: %w", full, err)
	}
	if raw == nil {
		return &esdb.StreamMetadata{}, expected, nil
	}
	meta, err := esdb.StreamMetadataFromJson(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("the metadata of %s is not KurrentDB's stream metadata: %w", full, err)
	}
	return meta, expected, nil
}

func (s *Store) writeMetadata(ctx context.Context, full string, meta *esdb.StreamMetadata, expected esdb.ExpectedRevision) error {
	_, _, err := await(ctx, s, func(c *esdb.Client) (*esdb.WriteResult, error) {
		return c.SetStreamMetadata(ctx, full, esdb.AppendToStreamOptions{ExpectedRevision: expected}, *meta)
	})
	if isConflict, _, _ := conflict(err); isConflict {
		return fmt.Errorf("the metadata of %s changed while it was written (another pruner?); prune again: %w", full, err)
	}
	return err
}

// horizonStream is the stream whose metadata holds the store's removal horizon: no event of the
// store at a higher position was ever removed. Append refuses its name (it starts with "$"), so
// it never holds events; only its metadata stream is written.
const horizonStream = "$removed"

// horizonKey is the custom property of horizonStream's metadata that holds the horizon, a
// Position in decimal (a JSON number would lose precision above 2^53).
const horizonKey = "removedUpTo"

// horizon reads the store's removal horizon: 0 when nothing was ever removed.
func (s *Store) horizon(ctx context.Context) (eventstore.Position, error) {
	meta, _, err := s.readMetadata(ctx, s.names.full(horizonStream))
	if err != nil {
		return 0, err
	}
	return horizonOf(meta)
}

func horizonOf(meta *esdb.StreamMetadata) (eventstore.Position, error) {
	v, ok := meta.CustomProperty(horizonKey).(string)
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the store's removal horizon %q is not a position", v)
	}
	return eventstore.Position(n), nil
}

// raiseHorizon makes the store's removal horizon at least upTo, before anything below it is
// removed, so that readers check the events up to it.
func (s *Store) raiseHorizon(ctx context.Context, upTo eventstore.Position) error {
	full := s.names.full(horizonStream)
	for attempt := 0; ; attempt++ {
		meta, expected, err := s.readMetadata(ctx, full)
		if err != nil {
			return err
		}
		h, err := horizonOf(meta)
		if err != nil {
			return err
		}
		if h >= upTo {
			return nil
		}
		meta.AddCustomProperty(horizonKey, strconv.FormatUint(uint64(upTo), 10))
		err = s.writeMetadata(ctx, full, meta, expected)
		if err == nil || attempt == 2 {
			return err
		}
	}
}

func isGone(err error) bool {
	code, ok := clientCode(err)
	return ok && (code == esdb.ErrorCodeResourceNotFound || code == esdb.ErrorCodeStreamDeleted)
}

// removedCache bounds how many streams a reader of $all remembers the first remaining event of.
const removedCache = 4096

// refreshRemovals is how long a subscription trusts what it learnt of the removals before it
// reads the horizon again and forgets the streams it looked at.
const refreshRemovals = time.Second

// removals tells a reader of $all which events of the store were removed from their streams
// but are still in $all: KurrentDB's $all bypasses the streams' metadata, so it keeps yielding
// truncated and deleted events until a scavenge drops them, and a scavenge keeps some (a
// stream's last event, the events of the chunk being written). An event above the horizon was
// never removed; one at or below it was removed if a read of its stream no longer yields it,
// that is, if its revision is below the first one the stream read yields. A reader learns that
// revision once per stream it meets below the horizon.
type removals struct {
	s       *Store
	horizon eventstore.Position
	read    time.Time
	first   map[string]uint64 // by KurrentDB stream name
}

func (s *Store) removals(ctx context.Context) (*removals, error) {
	r := &removals{s: s}
	return r, r.refresh(ctx)
}

// refresh reads the horizon again and forgets the streams looked at.
func (r *removals) refresh(ctx context.Context) error {
	h, err := r.s.horizon(ctx)
	if err != nil {
		return fmt.Errorf("read the removal horizon: %w", err)
	}
	r.horizon, r.read, r.first = h, time.Now(), map[string]uint64{}
	return nil
}

// removed reports whether e, an event of the store at Position pos, was removed. A stream the
// reader has looked at is judged by what it learnt at any position: a stream removed while the
// read was under way may hold events above the horizon the reader read when it began, and a
// reader that found the stream's first events gone skips its later ones too, so that it yields
// a stream's first events or none of them, never its last without its first.
func (r *removals) removed(ctx context.Context, e *esdb.RecordedEvent, pos eventstore.Position) (bool, error) {
	first, ok := r.first[e.StreamID]
	if !ok && pos > r.horizon {
		return false, nil
	}
	if !ok {
		var err error
		if first, err = r.s.firstLive(ctx, e.StreamID); err != nil {
			return false, fmt.Errorf("read the first event of %s: %w", e.StreamID, err)
		}
		if len(r.first) >= removedCache {
			clear(r.first)
		}
		r.first[e.StreamID] = first
	}
	return e.EventNumber < first, nil
}
