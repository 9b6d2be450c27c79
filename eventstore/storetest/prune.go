package storetest

import (
	"errors"
	"math"
	"slices"
	"testing"

	"relayer/eventstore"
)

func pruneCases() []testCase {
	return []testCase{
		{name: "pruning removes a stream's superseded events and keeps its last, its version and the others", run: testPruneKeepsTheLast},
		{name: "pruning stops at the bound, the version and the types named", run: testPruneBounds},
		{name: "the log's last event is never pruned, so no position is given twice", run: testPruneKeepsHead},
		{name: "pruning again removes nothing", run: testPruneIdempotent},
		{name: "a prune that names no stream is refused", run: testPruneInvalid},
	}
}

// pruner is the store as a Pruner, or skips the test.
func pruner(t *testing.T, st eventstore.Store) eventstore.Pruner {
	t.Helper()
	return offers[eventstore.Pruner](t, st, "prune streams")
}

// pruneLog appends five events to "cursor" ("saved" and, at version 2, "other"), each followed
// by one of "job", and returns their positions.
func pruneLog(t *testing.T, s *suite) (eventstore.Store, []eventstore.Position, []eventstore.Position) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	var cursor, job []eventstore.Position
	for v := range 5 {
		typ := "saved"
		if v == 2 {
			typ = "other"
		}
		cursor = append(cursor, mustAppend(t, ctx, st, "cursor", eventstore.Version(v-1), event(typ, v)))
		job = append(job, mustAppend(t, ctx, st, "job", eventstore.Version(v-1), event("e", v)))
	}
	return st, cursor, job
}

func versionsOf(t *testing.T, st eventstore.Store, stream string) []eventstore.Version {
	t.Helper()
	var out []eventstore.Version
	for _, r := range collect(t, "read "+stream, st.ReadStream(t.Context(), stream, 0)) {
		out = append(out, r.Version)
	}
	return out
}

func testPruneKeepsTheLast(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st, cursor, job := pruneLog(t, s)
	before := collect(t, "read all", st.ReadAll(ctx, 0))
	n, err := pruner(t, st).PruneStreams(ctx, []eventstore.Prune{{Stream: "cursor", Before: math.MaxInt64}, {Stream: "never-written", Before: 3}}, job[4])
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Fatalf("pruned %d events, want cursor's first 4", n)
	}
	if got := versionsOf(t, st, "cursor"); !slices.Equal(got, []eventstore.Version{4}) {
		t.Fatalf("cursor holds versions %v, want [4]", got)
	}
	if v, err := eventstore.LastVersion(ctx, st, "cursor"); err != nil || v != 4 {
		t.Fatalf("cursor is at version %s (%v), want 4", v, err)
	}
	var want []eventstore.Record
	for _, r := range before {
		if r.Stream != "cursor" || r.Position == cursor[4] {
			want = append(want, r)
		}
	}
	after := collect(t, "read all", st.ReadAll(ctx, 0))
	if len(after) != len(want) {
		t.Fatalf("read %d records after pruning, want %d", len(after), len(want))
	}
	for i := range want {
		if after[i].Stream != want[i].Stream || after[i].Version != want[i].Version || after[i].Position != want[i].Position {
			t.Errorf("record %d is %s@%d at %d, want %s@%d at %d", i, after[i].Stream, after[i].Version, after[i].Position,
				want[i].Stream, want[i].Version, want[i].Position)
		}
	}
	// The stream goes on from its version: an append expecting it succeeds, a stale one fails.
	mustAppend(t, ctx, st, "cursor", 4, event("saved", 5))
	if _, err := st.Append(ctx, "cursor", 3, event("saved", 6)); !errors.Is(err, eventstore.ErrWrongExpectedVersion) {
		t.Fatalf("an append expecting version 3 of the pruned stream: %v, want a version conflict", err)
	}
	if got := versionsOf(t, st, "cursor"); !slices.Equal(got, []eventstore.Version{4, 5}) {
		t.Fatalf("cursor holds versions %v, want [4 5]", got)
	}
}

func testPruneBounds(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st, cursor, _ := pruneLog(t, s)
	p := pruner(t, st)
	// Bound at cursor's version 3: version 4 is above it; only "saved" events; below version 3.
	n, err := p.PruneStreams(ctx, []eventstore.Prune{{Stream: "cursor", Before: 3, Types: []string{"saved"}}}, cursor[3])
	if err != nil {
		t.Fatal(err)
	}
	if got := versionsOf(t, st, "cursor"); n != 2 || !slices.Equal(got, []eventstore.Version{2, 3, 4}) {
		t.Fatalf("pruned %d, cursor holds versions %v; want 2 pruned, [2 3 4] kept", n, got)
	}
	// Every type, below a version past the stream's end, bounded by position: the last event and
	// those above the bound stay.
	if n, err = p.PruneStreams(ctx, []eventstore.Prune{{Stream: "cursor", Before: 100}}, cursor[3]); err != nil {
		t.Fatal(err)
	}
	if got := versionsOf(t, st, "cursor"); n != 2 || !slices.Equal(got, []eventstore.Version{4}) {
		t.Fatalf("pruned %d, cursor holds versions %v; want 2 pruned, [4] kept", n, got)
	}
	if got := versionsOf(t, st, "job"); len(got) != 5 {
		t.Fatalf("job holds versions %v, want its 5", got)
	}
}

func testPruneKeepsHead(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st, cursor, job := pruneLog(t, s)
	if _, err := pruner(t, st).PruneStreams(ctx, []eventstore.Prune{{Stream: "job", Before: math.MaxInt64}}, job[4]); err != nil {
		t.Fatal(err)
	}
	if h, err := st.Head(ctx); err != nil || h != job[4] {
		t.Fatalf("head %d (%v), want %d", h, err, job[4])
	}
	if p := mustAppend(t, ctx, st, "after", eventstore.NoStream, event("e", 0)); p <= job[4] {
		t.Errorf("the next append took position %d, not after %d", p, job[4])
	}
	if got := versionsOf(t, st, "cursor"); len(got) != len(cursor) {
		t.Errorf("cursor holds versions %v, want all 5", got)
	}
}

func testPruneIdempotent(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st, _, job := pruneLog(t, s)
	p := pruner(t, st)
	prunes := []eventstore.Prune{{Stream: "cursor", Before: math.MaxInt64}}
	if _, err := p.PruneStreams(ctx, prunes, job[4]); err != nil {
		t.Fatal(err)
	}
	if n, err := p.PruneStreams(ctx, prunes, job[4]); err != nil || n != 0 {
		t.Fatalf("second prune: %d events, %v; want nothing", n, err)
	}
}

func testPruneInvalid(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st, _, job := pruneLog(t, s)
	p := pruner(t, st)
	for _, bad := range [][]eventstore.Prune{{{Before: 1}}, {{Stream: "cursor", Before: -1}}, {{Stream: "cursor", Before: 1, Types: []string{""}}}} {
		if _, err := p.PruneStreams(ctx, bad, job[4]); !errors.Is(err, eventstore.ErrInvalidEvent) {
			t.Errorf("prune %+v: %v, want ErrInvalidEvent", bad, err)
		}
	}
	if got := versionsOf(t, st, "cursor"); len(got) != 5 {
		t.Fatalf("refused prunes changed cursor: versions %v", got)
	}
}
