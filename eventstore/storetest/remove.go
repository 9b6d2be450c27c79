package storetest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"testing"

	"relayer/eventstore"
)

func removeCases() []testCase {
	return []testCase{
		{name: "removed streams leave the log, the others keep their positions and versions", run: testRemoveKeepsTheRest},
		{name: "a stream with an event above the bound is kept whole", run: testRemoveKeepsNewerStreams},
		{name: "the log's last event is never removed, so no position is given twice", run: testRemoveKeepsHead},
		{name: "removing again removes nothing and names nothing", run: testRemoveIdempotent},
		{name: "a subscriber from before a removal still sees every later event once", run: testRemoveSubscriber},
		{name: "a store's size stops growing once old streams are removed", run: testRemoveReclaimsSpace},
	}
}

// remover is the store as a Remover, or skips the test.
func remover(t *testing.T, st eventstore.Store) eventstore.Remover {
	t.Helper()
	return offers[eventstore.Remover](t, st, "remove streams")
}

// removalLog appends three events to each of streams a, b, c interleaved, then one to "tail".
func removalLog(t *testing.T, s *suite) (eventstore.Store, map[string][]eventstore.Position) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	pos := map[string][]eventstore.Position{}
	for v := range 3 {
		for _, name := range []string{"rm-a", "rm-b", "rm-c"} {
			p := mustAppend(t, ctx, st, name, eventstore.Version(v-1), event("e", v))
			pos[name] = append(pos[name], p)
		}
	}
	pos["tail"] = []eventstore.Position{mustAppend(t, ctx, st, "tail", eventstore.NoStream, event("e", 0))}
	return st, pos
}

func testRemoveKeepsTheRest(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st, pos := removalLog(t, s)
	before := collect(t, "read all", st.ReadAll(ctx, 0))
	got, err := remover(t, st).RemoveStreams(ctx, []string{"rm-a", "rm-c", "never-written"}, pos["rm-c"][2])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Streams, []string{"rm-a", "rm-c"}) || got.Events != 6 {
		t.Fatalf("removed %v (%d events), want rm-a and rm-c (6 events)", got.Streams, got.Events)
	}
	var want []eventstore.Record
	for _, r := range before {
		if r.Stream != "rm-a" && r.Stream != "rm-c" {
			want = append(want, r)
		}
	}
	after := collect(t, "read all", st.ReadAll(ctx, 0))
	if len(after) != len(want) {
		t.Fatalf("read %d records after the removal, want %d", len(after), len(want))
	}
	for i := range want {
		if after[i].Stream != want[i].Stream || after[i].Version != want[i].Version || after[i].Position != want[i].Position {
			t.Errorf("record %d is %s@%d at %d, want %s@%d at %d", i, after[i].Stream, after[i].Version, after[i].Position,
				want[i].Stream, want[i].Version, want[i].Position)
		}
	}
	if n := len(collect(t, "read rm-a", st.ReadStream(ctx, "rm-a", 0))); n != 0 {
		t.Errorf("rm-a still yields %d events", n)
	}
	if v, err := eventstore.LastVersion(ctx, st, "rm-c"); err != nil || v != eventstore.NoStream {
		t.Errorf("rm-c is at version %s (%v), want no stream", v, err)
	}
	if n := len(collect(t, "read rm-b", st.ReadStream(ctx, "rm-b", 0))); n != 3 {
		t.Errorf("rm-b yields %d events, want its 3", n)
	}
	if h, err := st.Head(ctx); err != nil || h != pos["tail"][0] {
		t.Errorf("head %d (%v), want %d", h, err, pos["tail"][0])
	}
	// Later appends take later positions.
	if p := mustAppend(t, ctx, st, "tail", 0, event("e", 1)); p <= pos["tail"][0] {
		t.Errorf("an append after the removal took position %d, not after %d", p, pos["tail"][0])
	}
}

func testRemoveKeepsNewerStreams(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st, pos := removalLog(t, s)
	// rm-b's last event is above the bound: it stays, with all its events.
	got, err := remover(t, st).RemoveStreams(ctx, []string{"rm-a", "rm-b"}, pos["rm-a"][2])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Streams, []string{"rm-a"}) {
		t.Fatalf("removed %v, want rm-a only", got.Streams)
	}
	if n := len(collect(t, "read rm-b", st.ReadStream(ctx, "rm-b", 0))); n != 3 {
		t.Errorf("rm-b yields %d events, want its 3", n)
	}
}

func testRemoveKeepsHead(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st, pos := removalLog(t, s)
	got, err := remover(t, st).RemoveStreams(ctx, []string{"tail", "rm-a"}, pos["tail"][0])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Streams, []string{"rm-a"}) {
		t.Fatalf("removed %v, want rm-a only (tail holds the last event)", got.Streams)
	}
	p := mustAppend(t, ctx, st, "after", eventstore.NoStream, event("e", 0))
	if p <= pos["tail"][0] {
		t.Errorf("the next append took position %d, not after %d", p, pos["tail"][0])
	}
}

func testRemoveIdempotent(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st, pos := removalLog(t, s)
	r := remover(t, st)
	if _, err := r.RemoveStreams(ctx, []string{"rm-a"}, pos["rm-c"][2]); err != nil {
		t.Fatal(err)
	}
	got, err := r.RemoveStreams(ctx, []string{"rm-a"}, pos["rm-c"][2])
	if err != nil || len(got.Streams) != 0 || got.Events != 0 {
		t.Fatalf("second removal: %+v, %v; want nothing", got, err)
	}
}

func testRemoveSubscriber(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st, pos := removalLog(t, s)
	pull, stop := iter.Pull2(st.SubscribeAll(ctx, 0))
	defer stop()
	next := func() (eventstore.Record, error) {
		r, err, ok := pull()
		if !ok {
			return r, fmt.Errorf("the subscription ended")
		}
		return r, err
	}
	first, err := next()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := remover(t, st).RemoveStreams(ctx, []string{"rm-b"}, pos["rm-c"][2]); err != nil {
		t.Fatal(err)
	}
	late := mustAppend(t, ctx, st, "late", eventstore.NoStream, event("e", 0))
	seen := []eventstore.Position{first.Position}
	for seen[len(seen)-1] != late {
		r, err := next()
		if err != nil {
			t.Fatal(err)
		}
		if r.Position <= seen[len(seen)-1] {
			t.Fatalf("position %d after %d", r.Position, seen[len(seen)-1])
		}
		seen = append(seen, r.Position)
	}
	for _, name := range []string{"rm-a", "rm-c", "tail"} {
		for _, p := range pos[name] {
			if !slices.Contains(seen, p) {
				t.Errorf("the subscriber skipped %s's event at %d", name, p)
			}
		}
	}
}

func testRemoveReclaimsSpace(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	r := remover(t, st)
	sr := offers[eventstore.SpaceReporter](t, st, "report its space")
	// Rounds of big events, each round's streams removed before the next: the store's size
	// after the last round stays near its size after the first.
	const rounds, perRound, size = 6, 8, 64 << 10
	var sizes []int64
	for round := range rounds {
		var names []string
		var last eventstore.Position
		for i := range perRound {
			b := make([]byte, size/2)
			_, _ = rand.Read(b)
			name := fmt.Sprintf("big-%d-%d", round, i)
			names = append(names, name)
			last = mustAppend(t, ctx, st, name, eventstore.NoStream,
				eventstore.Event{Type: "big", SchemaVersion: 1, Data: json.RawMessage(`"` + hex.EncodeToString(b) + `"`)})
		}
		mustAppend(t, ctx, st, "marker", eventstore.Any, event("m", round))
		if _, err := r.RemoveStreams(ctx, names, last); err != nil {
			t.Fatal(err)
		}
		sp, err := sr.Space(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, sp.Size)
	}
	// A write-ahead log may hold a round's pages until a checkpoint: allow two rounds' worth.
	if grow := sizes[rounds-1] - sizes[0]; grow > 2*perRound*size {
		t.Errorf("sizes %v: grew by %d bytes while every round was removed", sizes, grow)
	}
}
