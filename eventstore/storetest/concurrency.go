package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"relayer/eventstore"
)

func concurrencyCases() []testCase {
	return []testCase{
		{name: "concurrent appends expecting the same version have exactly one winner per version", run: testOneWinner, serial: true},
		{name: "concurrent appends expecting Any are all kept with gapless versions", run: testConcurrentAny, serial: true},
		{name: "subscribers from 0 and from a middle position see every event of concurrent writers once and in order", run: testSubscriberFollowsWriters, serial: true},
	}
}

const (
	racers = 50 // goroutines racing for one version
	rounds = 12 // versions they race for
)

func testOneWinner(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	const stream = "contended"
	winners := make([]int, 0, rounds)
	for round := range rounds {
		expected := eventstore.Version(round) - 1 // NoStream, then 0, 1, ...
		start := make(chan struct{})
		results := make([]error, racers)
		var wg sync.WaitGroup
		for g := range racers {
			wg.Go(func() {
				<-start
				_, results[g] = st.Append(ctx, stream, expected, event("claim", round*1000+g))
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for g, err := range results {
			if err == nil {
				if winner >= 0 {
					t.Fatalf("invariant: one version has one winner; in round %d (expecting %s) racers %d and %d both succeeded", round, expected, winner, g)
				}
				winner = g
				continue
			}
			var wev *eventstore.WrongExpectedVersionError
			if !errors.As(err, &wev) {
				t.Fatalf("invariant: a racer that loses gets a version conflict; racer %d in round %d got %v", g, round, err)
			}
			if wev.Expected != expected || wev.Actual != expected+1 {
				t.Fatalf("invariant: a loser sees the winner's version; racer %d in round %d got expected %s actual %s, want %s and %d",
					g, round, wev.Expected, wev.Actual, expected, round)
			}
		}
		if winner < 0 {
			t.Fatalf("invariant: a contended version has a winner; nobody won round %d (expecting %s)", round, expected)
		}
		winners = append(winners, winner)
	}
	recs := collect(t, "read "+stream, st.ReadStream(ctx, stream, 0))
	if len(recs) != rounds {
		t.Fatalf("invariant: %d rounds of racing leave exactly %d events; got %d", rounds, rounds, len(recs))
	}
	checkStream(t, recs, stream, 0)
	for round, r := range recs {
		if want := round*1000 + winners[round]; numberOf(r.Data) != want {
			t.Fatalf("invariant: version %d holds the winner's event; it holds %d, the winner appended %d", round, numberOf(r.Data), want)
		}
	}
}

func testConcurrentAny(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	const stream = "shared"
	const perWriter = 4
	var wg sync.WaitGroup
	for g := range racers {
		wg.Go(func() {
			for k := range perWriter {
				n := 1 + (g+k)%2
				if _, err := st.Append(ctx, stream, eventstore.Any, events("e", (g*perWriter+k)*10, n)...); err != nil {
					t.Errorf("invariant: an append expecting Any succeeds under contention; writer %d got %v", g, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	recs := collect(t, "read "+stream, st.ReadStream(ctx, stream, 0))
	want := 0
	for g := range racers {
		for k := range perWriter {
			want += 1 + (g+k)%2
		}
	}
	if len(recs) != want {
		t.Fatalf("invariant: every append expecting Any is kept; want %d events, got %d", want, len(recs))
	}
	checkStream(t, recs, stream, 0)
	seen := map[int]bool{}
	for i, r := range recs {
		n := numberOf(r.Data)
		if seen[n] {
			t.Fatalf("invariant: no event is stored twice; event %d appears again at version %d", n, r.Version)
		}
		seen[n] = true
		// The events of one append are contiguous: event n+1 follows event n of the same append.
		if n%10 == 1 && (i == 0 || numberOf(recs[i-1].Data) != n-1) {
			t.Fatalf("invariant: the events of one append are stored together; event %d does not follow %d", n, n-1)
		}
	}
}

// writerAck is what a writer learned from one successful append.
type writerAck struct {
	stream string
	last   eventstore.Version
	pos    eventstore.Position
}

func testSubscriberFollowsWriters(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	const writers = 50
	const appendsEach = 4
	const prefix = 20 // events stored before the writers start
	const middle = 10 // the second subscriber starts after the 10th of them

	var prefixPos []eventstore.Position
	for i := range prefix {
		prefixPos = append(prefixPos, mustAppend(t, ctx, st, "prefix", eventstore.Version(i)-1, event("e", i)))
	}
	total := prefix
	for g := range writers {
		for k := range appendsEach {
			total += 1 + (g+k)%3
		}
	}

	fromStart := followAll(ctx, st, 0, total)
	fromMiddle := followAll(ctx, st, prefixPos[middle-1], total-middle)

	acks := make(chan writerAck, writers*appendsEach)
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			stream := fmt.Sprintf("writer-%02d", g)
			v := eventstore.NoStream
			for k := range appendsEach {
				n := 1 + (g+k)%3
				pos, err := st.Append(ctx, stream, v, events("e", int(v)+1, n)...)
				if err != nil {
					t.Errorf("append to %s expecting %s: %v", stream, v, err)
					return
				}
				v += eventstore.Version(n)
				acks <- writerAck{stream, v, pos}
			}
		})
	}
	wg.Wait()
	close(acks)
	if t.Failed() {
		return
	}

	res := <-fromStart
	if res.err != nil {
		t.Fatalf("invariant: a subscriber sees every committed event; it ended after %d of %d with %v", len(res.recs), total, res.err)
	}
	checkSubscription(t, res.recs, total)
	byPos := map[eventstore.Position]eventstore.Record{}
	for _, r := range res.recs {
		byPos[r.Position] = r
	}
	for a := range acks {
		r, ok := byPos[a.pos]
		if !ok || r.Stream != a.stream || r.Version != a.last {
			t.Fatalf("invariant: the subscriber sees each acknowledged event at its position; %s@%d at %d was acknowledged but the subscriber has %v there",
				a.stream, a.last, a.pos, r)
		}
	}
	// The subscription and ReadAll agree.
	all := collect(t, "read all", st.ReadAll(ctx, 0))
	if len(all) != len(res.recs) {
		t.Fatalf("invariant: a subscription yields what ReadAll yields; %d against %d", len(res.recs), len(all))
	}
	for i := range all {
		if all[i].Position != res.recs[i].Position || all[i].Stream != res.recs[i].Stream || all[i].Version != res.recs[i].Version {
			t.Fatalf("invariant: a subscription yields what ReadAll yields, in the same order; record %d differs", i)
		}
	}
	// The subscriber from the middle saw exactly the events after its position.
	mid := <-fromMiddle
	if mid.err != nil {
		t.Fatalf("invariant: a subscriber from a middle position sees every later event; it ended after %d of %d with %v", len(mid.recs), total-middle, mid.err)
	}
	if len(mid.recs) != total-middle {
		t.Fatalf("invariant: a subscriber from a middle position sees every later event once; want %d, got %d", total-middle, len(mid.recs))
	}
	for i, r := range mid.recs {
		if w := res.recs[middle+i]; r.Position != w.Position || r.Stream != w.Stream || r.Version != w.Version {
			t.Fatalf("invariant: a subscriber from a middle position sees the same events as one from 0, after that position; record %d is %s@%d at %d, want %s@%d at %d",
				i, r.Stream, r.Version, r.Position, w.Stream, w.Version, w.Position)
		}
	}
}

// checkSubscription asserts that recs hold want events, each once, in strictly increasing
// position, with every stream's versions arriving gapless and in order.
func checkSubscription(t *testing.T, recs []eventstore.Record, want int) {
	t.Helper()
	if len(recs) != want {
		t.Fatalf("invariant: a subscriber sees every event exactly once; want %d, got %d", want, len(recs))
	}
	checkOrder(t, "SubscribeAll", recs)
	next := map[string]eventstore.Version{}
	for _, r := range recs {
		if r.Version != next[r.Stream] {
			t.Fatalf("invariant: a subscriber sees each stream's versions in order, none skipped or repeated; %s@%d arrived when %d was due", r.Stream, r.Version, next[r.Stream])
		}
		next[r.Stream] = r.Version + 1
	}
}
