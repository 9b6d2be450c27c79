package projections

import (
	"context"
	"slices"
	"testing"

	"relayer/domain"
	"relayer/eventstore"
)

// transitionsFrom reads store's log after position after with a Transitions reader resolving
// jobs met mid-life with before.
func transitionsFrom(t *testing.T, store eventstore.Store, after eventstore.Position, before Before) []Transition {
	t.Helper()
	tr := NewTransitions(NewCodec(), before)
	var out []Transition
	for rec, err := range store.ReadAll(context.Background(), after) {
		if err != nil {
			t.Fatal(err)
		}
		msg, ok, err := tr.Next(context.Background(), rec)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			out = append(out, msg)
		}
	}
	return out
}

func TestAReaderStartingMidLogWithTheJobsHistoriesSaysTheSameTransitionsAsOneFromTheStart(t *testing.T) {
	store := openStore(t)
	ctx := context.Background()
	if err := appendConcurrently(ctx, store, generate(7, genOptions{jobs: 300, active: 60, unfinished: 0.2}), 4, nil); err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, store)
	whole := transitionsFrom(t, store, 0, HistoryBefore(store, NewCodec()))
	for _, tr := range whole {
		if tr.Kind == "unknown" || (tr.EventType != "RequestAccepted") != (tr.From != "") {
			t.Fatalf("from the start: %+v, want a kind, and a from status unless it is an acceptance", tr)
		}
	}
	mid := recs[len(recs)/2].Position
	tail := transitionsFrom(t, store, mid, HistoryBefore(store, NewCodec()))
	i := slices.IndexFunc(whole, func(tr Transition) bool { return tr.Position > uint64(mid) })
	if !slices.Equal(whole[i:], tail) {
		t.Fatalf("from position %d: %d transitions, the whole log's reader had %d after it, or they differ", mid, len(tail), len(whole[i:]))
	}

	// Without a resolver, a job met mid-life has no from status and no kind.
	blind := transitionsFrom(t, store, mid, nil)
	if len(blind) != len(tail) {
		t.Fatalf("without a resolver: %d transitions, want %d", len(blind), len(tail))
	}
	missing := 0
	for _, tr := range blind {
		if tr.EventType != "RequestAccepted" && tr.From == "" {
			missing++
		}
	}
	if missing == 0 {
		t.Error("no job was met mid-life: the test does not test the resolver")
	}
}

func TestRecordsOfOtherStreamsAndEventsThatChangeNoStatusAreNoTransitions(t *testing.T) {
	tr := NewTransitions(NewCodec(), nil)
	for _, rec := range []eventstore.Record{
		{Stream: domain.ConfigStream, Type: "ConfigChanged", Data: []byte(`{}`), Position: 1},
		{Stream: "checkpoint-x", Type: "CheckpointAdvanced", Data: []byte(`{}`), Position: 2},
	} {
		if _, ok, err := tr.Next(context.Background(), rec); ok || err != nil {
			t.Errorf("%s: ok %v, err %v", rec.Stream, ok, err)
		}
	}
	h := newHarness(t, Config{})
	id := h.accept(domain.UserDecrypt, 0)
	recs, _ := h.records(id, domain.StartReadiness{At: h.at(1)})
	if _, ok, err := tr.Next(context.Background(), recs[0]); ok || err != nil {
		t.Errorf("ReadinessCheckStarted: ok %v, err %v", ok, err)
	}
	bad := eventstore.Record{Stream: id.Stream(), Version: 9, Type: "NoSuchEvent", Data: []byte(`{}`), Position: 9}
	if _, _, err := tr.Next(context.Background(), bad); err == nil {
		t.Error("an event this build cannot decode passed as no transition")
	}
}
