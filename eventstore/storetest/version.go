package storetest

import (
	"testing"

	"relayer/eventstore"
)

// onlyStore hides whatever a store offers besides eventstore.Store.
type onlyStore struct{ eventstore.Store }

// testLastVersion checks eventstore.LastVersion on the store (its own query, where it offers
// StreamVersioner) and on the store seen through Store alone (the search by reads), for streams of
// every length around the search's powers of two.
func testLastVersion(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	lengths := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 100}
	for _, n := range lengths {
		if n > 0 {
			mustAppend(t, ctx, st, "v", eventstore.Any, events("e", 0, n)...)
		}
	}
	total := 0
	for _, n := range lengths {
		total += n
	}
	mustAppend(t, ctx, st, "w", eventstore.NoStream, event("e", 0))
	for _, view := range []eventstore.Store{st, onlyStore{st}} {
		for stream, want := range map[string]eventstore.Version{"v": eventstore.Version(total - 1), "w": 0, "none": eventstore.NoStream} {
			got, err := eventstore.LastVersion(ctx, view, stream)
			if err != nil || got != want {
				t.Fatalf("LastVersion(%s) through %T: %d, %v; want %d", stream, view, got, err, want)
			}
		}
	}
	// Every prefix length, by the search, on a stream grown one event at a time.
	for n := range 40 {
		if got, err := eventstore.LastVersion(ctx, onlyStore{st}, "grow"); err != nil || got != eventstore.Version(n-1) {
			t.Fatalf("a stream of %d events: LastVersion %d, %v", n, got, err)
		}
		mustAppend(t, ctx, st, "grow", eventstore.Any, event("e", n))
	}
}
