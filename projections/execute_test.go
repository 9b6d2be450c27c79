package projections

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

// newExecutor is an Executor over a new SQLite store (openStore).
func newExecutor(t *testing.T) (*Executor, eventstore.Store) {
	t.Helper()
	store := openStore(t)
	return &Executor{Store: store, Codec: NewCodec()}, store
}

// newAcceptedJob is newExecutor with job id accepted (acceptCmd) in its store.
func newAcceptedJob(t *testing.T) (*Executor, eventstore.Store, domain.JobID) {
	t.Helper()
	x, store := newExecutor(t)
	id := domain.NewJobID()
	if _, err := x.Execute(context.Background(), id, acceptCmd(id), eventstore.Metadata{}); err != nil {
		t.Fatal(err)
	}
	return x, store, id
}

var execT0 = time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)

func acceptCmd(id domain.JobID) domain.Accept {
	req := domain.Request{PublicDecrypt: &domain.PublicDecryptRequest{
		CiphertextHandles: []string{"0x7e5700000000000000000000000000000000000000000000000005390000abcd"}, ExtraData: "0x00"}}
	return domain.Accept{At: domain.At{At: execT0}, JobID: id, Request: req, ContentHash: domain.ContentHash(req)}
}

// streamTypes lists the event types stored in a job's stream.
func streamTypes(t *testing.T, store eventstore.Store, id domain.JobID) []string {
	t.Helper()
	var types []string
	for rec, err := range store.ReadStream(context.Background(), id.Stream(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, rec.Type)
	}
	return types
}

func TestExecuteAppendsTheDecidedEventsWithTheStreamsExpectedVersion(t *testing.T) {
	x, store := newExecutor(t)
	ctx := context.Background()
	id := domain.NewJobID()
	md := eventstore.Metadata{CorrelationID: "corr-1"}
	out, err := x.Execute(ctx, id, acceptCmd(id), md)
	if err != nil || out.State.Status != domain.Queued || len(out.Events) != 1 || out.Position == 0 {
		t.Fatalf("accept: %+v, %v", out, err)
	}
	out, err = x.Execute(ctx, id, domain.StartReadiness{At: domain.At{At: execT0.Add(time.Second)}}, md)
	if err != nil || out.State.Events != 2 || !out.State.ReadinessStarted {
		t.Fatalf("start readiness: %+v, %v", out.State, err)
	}
	loaded, err := x.Load(ctx, id)
	if err != nil || loaded.Events != 2 || loaded.Status != domain.Queued {
		t.Fatalf("load: %+v, %v", loaded, err)
	}
	for rec, err := range store.ReadStream(ctx, id.Stream(), 0) {
		if err != nil || rec.Metadata.CorrelationID != "corr-1" {
			t.Fatalf("record %+v, %v: the metadata was not stored", rec, err)
		}
	}
}

func TestARejectedCommandAppendsNothingAndReturnsTheDomainsError(t *testing.T) {
	x, store, id := newAcceptedJob(t)
	ctx := context.Background()
	_, err := x.Execute(ctx, id, domain.TimeOutResponse{At: domain.At{At: execT0}}, eventstore.Metadata{})
	if !errors.Is(err, domain.ErrIllegalTransition) {
		t.Fatalf("err = %v, want ErrIllegalTransition", err)
	}
	if got := streamTypes(t, store, id); len(got) != 1 {
		t.Fatalf("stream holds %v after a rejected command", got)
	}
}

func TestAcceptOnAnExistingJobIsRejectedAndAppendsNothing(t *testing.T) {
	x, store, id := newAcceptedJob(t)
	ctx := context.Background()
	out, err := x.Execute(ctx, id, acceptCmd(id), eventstore.Metadata{})
	if !errors.Is(err, domain.ErrAlreadyAccepted) {
		t.Fatalf("err = %v, want ErrAlreadyAccepted", err)
	}
	if out.State.Status != domain.Queued || out.State.Events != 1 {
		t.Fatalf("the rejection reports state %+v, want the existing job", out.State)
	}
	if got := streamTypes(t, store, id); len(got) != 1 {
		t.Fatalf("stream holds %v", got)
	}
}

func TestConcurrentIdenticalCommandsTakeEffectOnce(t *testing.T) {
	x, store := newExecutor(t)
	ctx := context.Background()
	id := domain.NewJobID()
	const n = 20
	run := func(cmd domain.Command) (wins int, errs []error) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				_, err := x.Execute(ctx, id, cmd, eventstore.Metadata{})
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					wins++
				} else {
					errs = append(errs, err)
				}
			})
		}
		wg.Wait()
		return wins, errs
	}
	// Twenty identical Accepts: one job; twenty identical readiness passes: one transition. The
	// losers lose the version race, re-decide on the winner's state, and are rejected by the rules.
	wins, errs := run(acceptCmd(id))
	for _, err := range errs {
		if !errors.Is(err, domain.ErrAlreadyAccepted) {
			t.Fatalf("a losing Accept failed with %v, want ErrAlreadyAccepted", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d Accepts took effect, want 1", wins)
	}
	wins, errs = run(domain.PassReadiness{At: domain.At{At: execT0.Add(time.Second)}})
	for _, err := range errs {
		if !errors.Is(err, domain.ErrIllegalTransition) {
			t.Fatalf("a losing pass failed with %v, want ErrIllegalTransition", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d readiness passes took effect, want 1", wins)
	}
	if got := streamTypes(t, store, id); len(got) != 2 || got[0] != "RequestAccepted" || got[1] != "ReadinessPassed" {
		t.Fatalf("stream holds %v", got)
	}
}
