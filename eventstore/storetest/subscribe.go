package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"relayer/eventstore"
)

func subscribeCases() []testCase {
	return []testCase{
		{name: "a subscription catches up and then follows new events", run: testSubscribeFollows},
		{name: "a subscription from a middle position starts right after it", run: testSubscribeMiddle},
		{name: "a subscription from the head yields only new events", run: testSubscribeFromHead},
		{name: "a subscription ends with the context's error when the context is cancelled", run: testSubscribeCancel},
		{name: "a subscription stops when the consumer breaks", run: testSubscribeBreak},
	}
}

// SubscribeUntil collects what st.SubscribeAll(after) yields, up to and with the record for
// which done says true, failing t on an error or after ten seconds.
func SubscribeUntil(t *testing.T, st eventstore.Store, after eventstore.Position, done func(eventstore.Record) bool) []eventstore.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var out []eventstore.Record
	for r, err := range st.SubscribeAll(ctx, after) {
		if err != nil {
			t.Fatalf("subscription, after %d records: %v", len(out), err)
		}
		if out = append(out, r); done(r) {
			break
		}
	}
	return out
}

// subscriber runs SubscribeAll in a goroutine and hands over what it yields.
type subscriber struct {
	recs   chan eventstore.Record
	errs   chan error
	ended  chan struct{}
	cancel context.CancelFunc
}

func subscribe(ctx context.Context, st eventstore.Store, after eventstore.Position) *subscriber {
	ctx, cancel := context.WithCancel(ctx)
	sub := &subscriber{recs: make(chan eventstore.Record, 1024), errs: make(chan error, 16), ended: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(sub.ended)
		for r, err := range st.SubscribeAll(ctx, after) {
			if err != nil {
				select {
				case sub.errs <- err:
				default:
				}
				continue
			}
			select {
			case sub.recs <- r:
			case <-ctx.Done():
				// Keep iterating: the subscription must notice ctx itself and end.
			}
		}
	}()
	return sub
}

// next waits for n records.
func (sub *subscriber) next(t *testing.T, n int, timeout time.Duration) []eventstore.Record {
	t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var out []eventstore.Record
	for len(out) < n {
		select {
		case r := <-sub.recs:
			out = append(out, r)
		case err := <-sub.errs:
			t.Fatalf("invariant: a live subscription yields events, not errors; after %d of %d it yielded %v", len(out), n, err)
		case <-sub.ended:
			// Drain what arrived before the end.
			select {
			case r := <-sub.recs:
				out = append(out, r)
				continue
			default:
			}
			t.Fatalf("invariant: a subscription does not end on its own; it ended after %d of %d events", len(out), n)
		case <-timer.C:
			t.Fatalf("invariant: a subscriber sees new events; it saw %d of %d within %s", len(out), n, timeout)
		}
	}
	return out
}

// quiet asserts that nothing more arrives for a short while.
func (sub *subscriber) quiet(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case r := <-sub.recs:
		t.Fatalf("invariant: a subscription yields each event once; it yielded %s@%d (position %d) again or out of nowhere", r.Stream, r.Version, r.Position)
	case err := <-sub.errs:
		t.Fatalf("invariant: a live subscription yields events, not errors; got %v", err)
	case <-time.After(d):
	}
}

func testSubscribeFollows(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	mustAppend(t, ctx, st, "a", eventstore.NoStream, events("e", 0, 3)...)
	sub := subscribe(ctx, st, 0)
	defer sub.cancel()
	first := sub.next(t, 3, s.features.Timeout)
	checkStream(t, first, "a", 0)
	for i := range 5 {
		pos := mustAppend(t, ctx, st, "b", eventstore.Version(i)-1, event("e", i))
		got := sub.next(t, 1, s.features.Timeout)
		if got[0].Position != pos || got[0].Stream != "b" || got[0].Version != eventstore.Version(i) {
			t.Fatalf("invariant: a caught-up subscriber sees each new event as committed; got %s@%d at %d, want b@%d at %d",
				got[0].Stream, got[0].Version, got[0].Position, i, pos)
		}
	}
	mustAppend(t, ctx, st, "a", 2, events("e", 3, 4)...)
	more := sub.next(t, 4, s.features.Timeout)
	checkStream(t, more, "a", 3)
	sub.quiet(t, 100*time.Millisecond)
}

func testSubscribeMiddle(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	var positions []eventstore.Position
	for i := range 10 {
		positions = append(positions, mustAppend(t, ctx, st, fmt.Sprintf("s-%d", i), eventstore.NoStream, event("e", i)))
	}
	sub := subscribe(ctx, st, positions[4])
	defer sub.cancel()
	got := sub.next(t, 5, s.features.Timeout)
	for i, r := range got {
		if r.Position != positions[5+i] {
			t.Fatalf("invariant: a subscription after a position yields exactly the later events, in order; record %d is at %d, want %d", i, r.Position, positions[5+i])
		}
	}
	pos := mustAppend(t, ctx, st, "late", eventstore.NoStream, event("e", 10))
	if r := sub.next(t, 1, s.features.Timeout)[0]; r.Position != pos {
		t.Fatalf("invariant: after catching up, a subscription follows new events; got position %d, want %d", r.Position, pos)
	}
	sub.quiet(t, 100*time.Millisecond)
}

func testSubscribeFromHead(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	h := mustAppend(t, ctx, st, "old", eventstore.NoStream, events("e", 0, 5)...)
	sub := subscribe(ctx, st, h)
	defer sub.cancel()
	sub.quiet(t, 100*time.Millisecond)
	pos := mustAppend(t, ctx, st, "new", eventstore.NoStream, event("e", 5))
	if r := sub.next(t, 1, s.features.Timeout)[0]; r.Position != pos || r.Stream != "new" {
		t.Fatalf("invariant: a subscription from the head yields the next event; got %s at %d, want new at %d", r.Stream, r.Position, pos)
	}
}

func testSubscribeCancel(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	mustAppend(t, ctx, st, "a", eventstore.NoStream, events("e", 0, 2)...)
	subCtx, cancel := context.WithCancel(ctx)
	type result struct {
		recs int
		errs []error
	}
	done := make(chan result, 1)
	caughtUp := make(chan struct{})
	go func() {
		var res result
		for _, err := range st.SubscribeAll(subCtx, 0) {
			if err != nil {
				res.errs = append(res.errs, err)
				continue
			}
			res.recs++
			if res.recs == 2 {
				close(caughtUp)
			}
		}
		done <- res
	}()
	select {
	case <-caughtUp:
	case <-time.After(s.features.Timeout):
		t.Fatal("invariant: a subscription catches up; it did not yield the 2 stored events")
	}
	cancel()
	select {
	case res := <-done:
		if len(res.errs) != 1 || !errors.Is(res.errs[0], context.Canceled) {
			t.Fatalf("invariant: a subscription whose context ends yields the context's error once and ends; it yielded %v", res.errs)
		}
	case <-time.After(s.features.Timeout):
		t.Fatal("invariant: a subscription ends when its context is cancelled; it is still running")
	}
}

func testSubscribeBreak(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	mustAppend(t, ctx, st, "a", eventstore.NoStream, events("e", 0, 3)...)
	for range 20 {
		n := 0
		for _, err := range st.SubscribeAll(ctx, 0) {
			if err != nil {
				t.Fatalf("subscribe: %v", err)
			}
			n++
			if n == 2 {
				break
			}
		}
	}
	// A caught-up subscription must stop too when the consumer breaks on the first new event.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for r, err := range st.SubscribeAll(ctx, 3) {
			if err != nil || r.Stream == "b" {
				break
			}
		}
	}()
	time.Sleep(20 * time.Millisecond)
	mustAppend(t, ctx, st, "b", eventstore.NoStream, event("e", 3))
	select {
	case <-done:
	case <-time.After(s.features.Timeout):
		t.Fatal("invariant: a subscription stops when the consumer breaks; it is still running")
	}
	if recs := collect(t, "read all", st.ReadAll(ctx, 0)); len(recs) != 4 {
		t.Fatalf("the store works after broken subscriptions: ReadAll yielded %d, want 4", len(recs))
	}
}
