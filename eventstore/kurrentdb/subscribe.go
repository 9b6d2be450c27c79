package kurrentdb

import (
	"context"
	"errors"
	"iter"
	"time"

	"github.com/EventStore/EventStore-Client-Go/v4/esdb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"relayer/eventstore"
	"relayer/workers/upstream"
)

// SubscribeAll implements eventstore.Store with the client's catch-up subscription to $all,
// from the position after maps to, under the server-side filter of the store's streams (see
// doc.go). The server sends what is stored, then what is committed, in commit order; the events
// removed from their streams that $all still holds are passed over, as ReadAll passes over
// them, by what the subscription learnt of the removals within the last refreshRemovals.
//
// Should the server drop the subscription (a restart, a lost connection), SubscribeAll logs it
// and subscribes again after resubscribe's wait (RetryInterval doubling while it keeps failing,
// jittered), from the last event it received: nothing is skipped or repeated. An error the
// server would give again (access denied, a request it does not know) is yielded instead; a
// caller that goes on iterating gets the same retry. Besides ctx's error, SubscribeAll ends by
// yielding an error matching eventstore.ErrClosed when the store is closed. An event that cannot
// be read back yields a *eventstore.RecordError wrapping eventstore.ErrCorruptRecord.
func (s *Store) SubscribeAll(ctx context.Context, after eventstore.Position) iter.Seq2[eventstore.Record, error] {
	return func(yield func(eventstore.Record, error) bool) {
		ctx, stop := s.opContext(ctx)
		defer stop()
		const what = "subscribe"
		var from *esdb.Position // the last event of $all received, nil for none
		var rm *removals        // which events below the removal horizon were removed
		resolved := false
		last := after // the Position of the last event yielded
		retry := s.resubscribe()
		failures := 0 // in a row, since the last event received
		timer := time.NewTimer(0)
		<-timer.C
		defer timer.Stop()
		for {
			var err error
			if !resolved {
				from, err = s.startAfter(ctx, after)
				resolved = err == nil
			}
			if err == nil && (rm == nil || time.Since(rm.read) > refreshRemovals) {
				rm, err = s.removals(ctx)
			}
			stopped := false
			if err == nil {
				handled := from // the last event of $all dealt with
				var lookup error
				err = s.follow(ctx, &from, func(e *esdb.RecordedEvent) bool {
					failures = 0
					p := e.Position
					if !s.names.ours(e.StreamID, e.EventType) {
						handled = &p
						return true
					}
					gone := false
					if pos, ok := positionOf(p.Commit); ok {
						if time.Since(rm.read) > refreshRemovals {
							lookup = rm.refresh(ctx)
						}
						if lookup == nil {
							gone, lookup = rm.removed(ctx, e, pos)
						}
						if lookup != nil {
							return false // subscribe again from the event before
						}
					}
					handled = &p
					if gone {
						return true
					}
					rec, rerr := s.decode(e)
					if rerr == nil {
						if rec.Position <= last {
							return true // never yield an event twice, whatever the server sends
						}
						last = rec.Position
					}
					if !yield(rec, rerr) {
						stopped = true
						return false
					}
					return true
				})
				if lookup != nil {
					from, err = handled, lookup
				}
			}
			failures++
			wait := retry.Delay(failures, nil)
			switch {
			case stopped:
				return
			case ctx.Err() != nil || errors.Is(err, eventstore.ErrClosed):
				yield(eventstore.Record{}, s.readErr(ctx, what, err))
				return
			case permanent(err):
				if !yield(eventstore.Record{}, s.readErr(ctx, what, err)) {
					return
				}
			default:
				s.cfg.Logger.Warn("kurrentdb: the subscription to $all was dropped; subscribing again",
					"store", s.where, "after", last, "retry_in", wait, "error", s.secrets.ScrubString(err.Error()))
			}
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				yield(eventstore.Record{}, s.readErr(ctx, what, ctx.Err()))
				return
			}
		}
	}
}

// resubscribe is the wait before subscribing again after failures in a row: RetryInterval
// doubling up to maxRetryBackoff times it, full jitter (docs/RETRIES.md).
func (s *Store) resubscribe() upstream.Backoff {
	return upstream.Backoff{Base: s.cfg.RetryInterval, Max: maxRetryBackoff * s.cfg.RetryInterval}
}

// received is one event of a subscription, or the error that ended it.
type received struct {
	e   *esdb.RecordedEvent
	err error
}

// follow subscribes to $all after *from (from its start when nil) and hands fn the events the
// server sends, on the caller's goroutine, moving *from to each, until fn returns false (nil),
// ctx ends (ctx's error), the server drops the subscription (its error) or subscribing gets
// stuck in the client (errStuck). The subscription runs on a goroutine of its own, as reads do
// (see read).
func (s *Store) follow(ctx context.Context, from **esdb.Position, fn func(*esdb.RecordedEvent) bool) error {
	g, err := s.admit()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := esdb.SubscribeToAllOptions{From: esdb.Start{}, Filter: s.names.filter()}
	if *from != nil {
		opts.From = **from
	}
	items := make(chan received, readAhead)
	go func() {
		defer g.done()
		defer close(items)
		send := func(r received) bool { return sendUnlessDone(ctx, items, r) }
		// Only subscribing waits for the client's state machine; receiving does not.
		g.enter()
		sub, err := g.client.SubscribeToAll(ctx, opts)
		g.leave()
		if err != nil {
			send(received{err: err})
			return
		}
		defer sub.Close()
		for {
			ev := sub.Recv()
			switch {
			case ev.EventAppeared != nil:
				if !send(received{e: ev.EventAppeared.OriginalEvent()}) {
					return
				}
			case ev.SubscriptionDropped != nil:
				err := ev.SubscriptionDropped.Error
				if err == nil {
					err = errors.New("the server ended the subscription")
				}
				send(received{err: err})
				return
			}
			// Checkpoints, caught-up and fell-behind notices say nothing the events do not.
		}
	}()
	for {
		select {
		case r, ok := <-items:
			switch {
			case !ok:
				return errors.New("the subscription ended")
			case r.err != nil:
				s.renew(g.client, r.err)
				return r.err
			}
			p := r.e.Position
			if *from != nil && !before(**from, p) {
				continue // at or before an event received already
			}
			*from = &p
			if !fn(r.e) {
				return nil
			}
		case <-g.stuck:
			return errStuck
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// permanent reports whether the server would give err again to the same subscription, so that
// the caller must hear of it, rather than a dropped connection that subscribing again mends.
func permanent(err error) bool {
	if code, ok := clientCode(err); ok {
		switch code {
		case esdb.ErrorCodeUnauthenticated, esdb.ErrorCodeAccessDenied, esdb.ErrorCodeUnsupportedFeature,
			esdb.ErrorCodeParsing, esdb.ErrorCodeInternalClient:
			return true
		}
	}
	switch status.Code(err) {
	case codes.Unauthenticated, codes.PermissionDenied, codes.InvalidArgument, codes.Unimplemented,
		codes.FailedPrecondition, codes.OutOfRange:
		return true
	}
	return false
}
