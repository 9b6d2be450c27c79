package storetest

import (
	"fmt"
	"sync"
	"testing"

	"relayer/eventstore"
)

func sharedCases() []testCase {
	return []testCase{
		{name: "expected versions hold across two stores on one location", run: testSharedVersions},
		{name: "concurrent appends through two stores on one location keep versions gapless", run: testSharedConcurrentAny},
		{name: "a subscriber sees events appended through another store on the same location", run: testSharedSubscribe},
		{name: "a subscriber sees every event of processes appending at once, each once and in ReadAll's order", run: testProcessesUnderSubscriber, serial: true},
	}
}

// pair opens two stores on one new location.
func (s *suite) pair(t *testing.T) (eventstore.Store, eventstore.Store) {
	t.Helper()
	if !s.features.SharedLocation {
		t.Skip("the backend does not promise SharedLocation")
	}
	a, loc := s.freshAt(t)
	return a, s.reopen(t, loc)
}

func testSharedVersions(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	a, b := s.pair(t)
	mustAppend(t, ctx, a, "s", eventstore.NoStream, event("e", 0))
	_, err := b.Append(ctx, "s", eventstore.NoStream, event("e", 1))
	wrongVersion(t, err, "s", eventstore.NoStream, 0)
	// Alternate: each store must see the version the other one just wrote, even for a
	// stream it wrote itself before (a cached version would be stale).
	for v := eventstore.Version(0); v < 10; v++ {
		st, other := a, b
		if v%2 == 0 {
			st, other = b, a
		}
		mustAppend(t, ctx, st, "s", v, event("e", int(v)+1))
		_, err := other.Append(ctx, "s", v, event("e", -1))
		wrongVersion(t, err, "s", v, v+1)
	}
	for _, st := range []eventstore.Store{a, b} {
		recs := collect(t, "read s", st.ReadStream(ctx, "s", 0))
		if len(recs) != 11 {
			t.Fatalf("invariant: both stores on one location see all 11 events of s; got %d", len(recs))
		}
		checkStream(t, recs, "s", 0)
	}
}

func testSharedConcurrentAny(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	a, b := s.pair(t)
	const perStore, appendsEach = 8, 5
	var wg sync.WaitGroup
	for i, st := range []eventstore.Store{a, b} {
		for g := range perStore {
			wg.Go(func() {
				for k := range appendsEach {
					if _, err := st.Append(ctx, "shared", eventstore.Any, events("e", ((i*perStore+g)*appendsEach+k)*10, 2)...); err != nil {
						t.Errorf("append through store %d: %v", i, err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	recs := collect(t, "read shared", a.ReadStream(ctx, "shared", 0))
	if want := 2 * perStore * appendsEach * 2; len(recs) != want {
		t.Fatalf("invariant: appends through two stores on one location are all kept; want %d events, got %d", want, len(recs))
	}
	checkStream(t, recs, "shared", 0)
	all := collect(t, "read all", b.ReadAll(ctx, 0))
	checkOrder(t, "ReadAll", all)
}

func testSharedSubscribe(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	a, b := s.pair(t)
	sub := subscribe(ctx, a, 0)
	defer sub.cancel()
	var want []eventstore.Position
	for i := range 5 {
		want = append(want, mustAppend(t, ctx, b, fmt.Sprintf("s-%d", i), eventstore.NoStream, events("e", i, 2)...))
	}
	got := sub.next(t, 10, s.features.Timeout)
	checkSubscription(t, got, 10)
	for i, pos := range want {
		if got[2*i+1].Position != pos {
			t.Fatalf("invariant: a subscriber sees the other store's events at their positions; event %d is at %d, want %d", 2*i+1, got[2*i+1].Position, pos)
		}
	}
}
