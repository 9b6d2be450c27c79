package kurrentdb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/EventStore/EventStore-Client-Go/v4/esdb"

	"relayer/eventstore"
)

// readAhead is how many events a read's goroutine may receive while the caller is still busy
// with earlier ones.
const readAhead = 64

// readCall starts one read of the client: a stream read or an $all read.
type readCall func(ctx context.Context, c *esdb.Client) (*esdb.ReadStream, error)

// item is one event of a read, or the error that ended it.
type item struct {
	ev  *esdb.ResolvedEvent
	err error
}

// read makes one read call and hands its events to fn, in order, on the caller's goroutine,
// until the read ends (nil), fn returns false (nil), ctx ends (ctx's error) or the read fails.
// The call runs on a goroutine of its own, up to readAhead events ahead of fn, under a guard
// (see client.go). A read that fails on a client that stopped, or gets stuck in one, before any
// event, is made again on a new one.
func (s *Store) read(ctx context.Context, call readCall, fn func(*esdb.ResolvedEvent) bool) error {
	for attempt := 0; ; attempt++ {
		delivered, client, err := s.readOnce(ctx, call, fn)
		if err != nil && delivered == 0 && attempt == 0 && client != nil && (errors.Is(err, errStuck) || s.renew(client, err)) {
			continue
		}
		return err
	}
}

func (s *Store) readOnce(ctx context.Context, call readCall, fn func(*esdb.ResolvedEvent) bool) (delivered int, client *esdb.Client, err error) {
	g, err := s.admit()
	if err != nil {
		return 0, nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	items := make(chan item, readAhead)
	go func() {
		defer g.done()
		defer close(items)
		send := func(it item) bool { return sendUnlessDone(ctx, items, it) }
		// The client's Recv panics on an answer it does not know; make that the read's error.
		defer func() {
			if p := recover(); p != nil {
				send(item{err: fmt.Errorf("the client failed on the server's answer: %v", p)})
			}
		}()
		g.enter()
		rs, err := call(ctx, g.client)
		g.leave()
		if err != nil {
			send(item{err: err})
			return
		}
		defer rs.Close()
		for {
			g.enter()
			ev, err := rs.Recv()
			g.leave()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					send(item{err: err})
				}
				return
			}
			if !send(item{ev: ev}) {
				return
			}
		}
	}()
	for {
		select {
		case it, ok := <-items:
			switch {
			case !ok:
				return delivered, g.client, nil
			case it.err != nil:
				return delivered, g.client, it.err
			}
			delivered++
			if !fn(it.ev) {
				return delivered, g.client, nil
			}
		case <-g.stuck:
			return delivered, g.client, errStuck
		case <-ctx.Done():
			return delivered, g.client, ctx.Err()
		}
	}
}

// sendUnlessDone sends v on ch unless ctx ends first, and reports whether it sent it: how the
// goroutine of a read or a subscription hands its caller what the server sent.
func sendUnlessDone[T any](ctx context.Context, ch chan<- T, v T) bool {
	select {
	case ch <- v:
		return true
	case <-ctx.Done():
		return false
	}
}

// readAll is a read of $all from a position (inclusive forwards; backwards, the events before
// it).
func readAll(dir esdb.Direction, from esdb.AllPosition, count uint64) readCall {
	return func(ctx context.Context, c *esdb.Client) (*esdb.ReadStream, error) {
		return c.ReadAll(ctx, esdb.ReadAllOptions{Direction: dir, From: from}, count)
	}
}

func isNotFound(err error) bool {
	code, ok := clientCode(err)
	return ok && code == esdb.ErrorCodeResourceNotFound
}

// lastEvent returns the $all position of the last event of the server, whoever wrote it; ok is
// false when $all is empty.
func (s *Store) lastEvent(ctx context.Context) (last esdb.Position, ok bool, err error) {
	err = s.read(ctx, readAll(esdb.Backwards, esdb.End{}, 1), func(ev *esdb.ResolvedEvent) bool {
		last, ok = ev.OriginalEvent().Position, true
		return false
	})
	return last, ok, err
}

// firstBackwardPage is the size of a backward scan's first page: Head, its main user, most
// often finds what it looks for among the last few events. Pages double from there, up to
// Config.PageSize.
const firstBackwardPage = 16

// scanBackwards hands fn the events of $all from the last one back to the first, a page at a
// time, until fn returns false.
func (s *Store) scanBackwards(ctx context.Context, fn func(*esdb.RecordedEvent) bool) error {
	var from esdb.AllPosition = esdb.End{}
	var last *esdb.Position
	size := min(s.cfg.PageSize, firstBackwardPage)
	for {
		// A backward read from an event's position starts below it; one more than a page
		// makes progress even if a server started at the event itself.
		count := uint64(size) + 1
		n, stopped := uint64(0), false
		err := s.read(ctx, readAll(esdb.Backwards, from, count), func(ev *esdb.ResolvedEvent) bool {
			n++
			e := ev.OriginalEvent()
			if last != nil && !before(e.Position, *last) {
				return true
			}
			p := e.Position
			last = &p
			if !fn(e) {
				stopped = true
				return false
			}
			return true
		})
		if err != nil || stopped || n < count || last == nil {
			return err
		}
		from = *last
		size = min(2*size, s.cfg.PageSize)
	}
}

// startAfter returns the $all position a read or subscription starts after (exclusively) to
// yield exactly the events whose Position is greater than after; nil means from the start of
// $all. A Position the store gave out maps back to its event's exact position (one probe read
// confirms it). Any other (inside an event of $all, between two, past the end) has no event
// there, and the server refuses a read from inside an event: the read starts after the last
// event below it instead, found reading $all backwards from its end, which costs a read of the
// events after it.
func (s *Store) startAfter(ctx context.Context, after eventstore.Position) (*esdb.Position, error) {
	if after == 0 {
		return nil, nil
	}
	x := serverPositionOf(after)
	hit := false
	err := s.read(ctx, readAll(esdb.Forwards, x, 1), func(ev *esdb.ResolvedEvent) bool {
		hit = ev.OriginalEvent().Position == x
		return false
	})
	if err == nil && hit {
		return &x, nil
	}
	if err != nil && (ctx.Err() != nil || errors.Is(err, eventstore.ErrClosed)) {
		return nil, err
	}
	var found *esdb.Position
	err = s.scanBackwards(ctx, func(e *esdb.RecordedEvent) bool {
		if e.Position.Commit < uint64(after) { // its Position, commit+1, is at most after
			p := e.Position
			found = &p
			return false
		}
		return true
	})
	return found, err
}

// ReadStream implements eventstore.Store. An event that cannot be read back yields a
// *eventstore.RecordError wrapping eventstore.ErrCorruptRecord; the caller may stop or go on.
func (s *Store) ReadStream(ctx context.Context, stream string, from eventstore.Version) iter.Seq2[eventstore.Record, error] {
	return func(yield func(eventstore.Record, error) bool) {
		ctx, stop := s.opContext(ctx)
		defer stop()
		what := "read stream " + stream
		next := uint64(max(from, 0))
		full := s.names.full(stream)
		page := uint64(s.cfg.PageSize)
		for {
			n, stopped := uint64(0), false
			err := s.read(ctx, func(ctx context.Context, c *esdb.Client) (*esdb.ReadStream, error) {
				return c.ReadStream(ctx, full, esdb.ReadStreamOptions{Direction: esdb.Forwards, From: esdb.Revision(next)}, page)
			}, func(ev *esdb.ResolvedEvent) bool {
				n++
				e := ev.OriginalEvent()
				next = e.EventNumber + 1
				return s.pass(e, yield, &stopped)
			})
			switch {
			case stopped:
				return
			case isGone(err):
				return // a stream with no events: never written, or removed
			case err != nil:
				yield(eventstore.Record{}, s.readErr(ctx, what, err))
				return
			case n < page:
				return
			}
		}
	}
}

// ReadAll implements eventstore.Store. It reads $all up to its last event as it was when the
// read started, skipping the events of other prefixes and the system's, and the events removed
// from their streams that $all still holds (see doc.go); those below the store's first it reads
// once per Store (see readFloor). An event that cannot be read back yields a
// *eventstore.RecordError wrapping eventstore.ErrCorruptRecord; the caller may stop or go on.
func (s *Store) ReadAll(ctx context.Context, after eventstore.Position) iter.Seq2[eventstore.Record, error] {
	return func(yield func(eventstore.Record, error) bool) {
		ctx, stop := s.opContext(ctx)
		defer stop()
		const what = "read all"
		fail := func(err error) { yield(eventstore.Record{}, s.readErr(ctx, what, err)) }
		end, ok, err := s.lastEvent(ctx)
		if err != nil {
			fail(err)
			return
		}
		if !ok {
			return // an empty server
		}
		rm, err := s.removals(ctx)
		if err != nil {
			fail(err)
			return
		}
		// A read from below the floor starts at it: the store's events are all after it.
		var from *esdb.Position
		floor := s.readFloor()
		atFloor := floor != nil && uint64(after) <= floor.Commit
		if atFloor {
			from = floor
		} else if from, err = s.startAfter(ctx, after); err != nil {
			fail(err)
			return
		}
		// A read from the start of $all or from the floor raises the floor to the last event
		// it reads before the store's first (below).
		learning := atFloor || from == nil
		var below *esdb.Position
		defer func() {
			if below != nil {
				s.raiseFloor(*below)
			}
		}()
		for from == nil || before(*from, end) {
			var start esdb.AllPosition = esdb.Start{}
			count := uint64(s.cfg.PageSize)
			if from != nil {
				start = *from
				count++ // a forward read from an event's position starts at that event
			}
			n, stopped := uint64(0), false
			var lookup error
			err := s.read(ctx, readAll(esdb.Forwards, start, count), func(ev *esdb.ResolvedEvent) bool {
				n++
				e := ev.OriginalEvent()
				switch {
				case from != nil && !before(*from, e.Position):
					return true // the event the page starts at, or one before it
				case before(end, e.Position):
					stopped = true // committed after the read started
					return false
				}
				p := e.Position
				from = &p
				if !s.names.ours(e.StreamID, e.EventType) {
					if learning {
						below = &p
					}
					return true
				}
				learning = false
				if pos, ok := positionOf(p.Commit); ok {
					gone, err := rm.removed(ctx, e, pos)
					if err != nil {
						lookup = err
						return false
					}
					if gone {
						return true
					}
				}
				return s.pass(e, yield, &stopped)
			})
			switch {
			case stopped:
				return
			case lookup != nil:
				fail(lookup)
				return
			case err != nil:
				fail(err)
				return
			case n < count:
				return
			}
		}
	}
}

// readFloor returns the $all position of an event at or before which the store has no event,
// nil until a ReadAll found one. ReadAll learns it reading $all from its start, as the last
// event before the store's first, and later reads of the store's events from the start begin
// there, instead of reading the events of other prefixes below the store's first each time
// (the client has no filter for reads; see doc.go). It holds for good: $all only grows at its
// end, so no event written later goes below it.
func (s *Store) readFloor() *esdb.Position {
	s.floorMu.Lock()
	defer s.floorMu.Unlock()
	return s.floor
}

// raiseFloor records that the store has no event at or before p.
func (s *Store) raiseFloor(p esdb.Position) {
	s.floorMu.Lock()
	defer s.floorMu.Unlock()
	if s.floor == nil || before(*s.floor, p) {
		s.floor = &p
	}
}

// pass decodes e and yields it, reporting whether the caller wants more; when it does not, pass
// sets *stopped.
func (s *Store) pass(e *esdb.RecordedEvent, yield func(eventstore.Record, error) bool, stopped *bool) bool {
	rec, err := s.decode(e)
	if !yield(rec, err) {
		*stopped = true
		return false
	}
	return true
}

// decode turns an event of the store into a Record. An event that cannot be read back as the
// store writes them gives a *eventstore.RecordError wrapping eventstore.ErrCorruptRecord, with
// the record as far as it could be read. The data of a JSON event is not checked to be JSON
// again: it was when it was appended (see eventstore.Store).
func (s *Store) decode(e *esdb.RecordedEvent) (eventstore.Record, error) {
	stream, _ := s.names.local(e.StreamID)
	rec := eventstore.Record{
		Stream:  stream,
		Version: eventstore.Version(e.EventNumber),
		Type:    e.EventType,
		Data:    json.RawMessage(e.Data),
	}
	var problems []string
	if pos, ok := positionOf(e.Position.Commit); ok {
		rec.Position = pos
	} else {
		problems = append(problems, "the server did not report its position in $all (servers before EventStoreDB 22.6 do not on stream reads; this store needs 22.6 or later)")
	}
	if e.ContentType != "application/json" {
		problems = append(problems, fmt.Sprintf("its content type is %q, want application/json", e.ContentType))
	}
	if sv, md, err := decodeMetadata(e.UserMetadata, e.CreatedDate); err != nil {
		problems = append(problems, err.Error())
	} else {
		rec.SchemaVersion, rec.Metadata = sv, md
	}
	if len(problems) > 0 {
		return rec, eventstore.CorruptRecord(rec, problems...)
	}
	return rec, nil
}
