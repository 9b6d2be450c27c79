package archiver

import (
	"context"
	"testing"
	"time"

	"relayer/domain/webhook"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers"
	"relayer/workers/delivery"
)

// No job is retired before every webhook endpoint not deleted, a disabled one too, has received
// its transitions: the followers read the live store only, so a retired job's transitions were
// lost for an endpoint disabled or behind (found by an outside probe: an endpoint enabled again
// got nothing of the jobs retired meanwhile). Once the endpoint's checkpoint passes them, or the
// endpoint is deleted, they are retired.
func TestNoJobIsRetiredBeforeEveryWebhookEndpointHasReceivedIt(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	codec := projections.NewCodec()
	appendHook := func(e eventstore.Typed) {
		t.Helper()
		ev, err := codec.Encode(e, eventstore.Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.store.Append(ctx, webhook.Stream, eventstore.Any, ev); err != nil {
			t.Fatal(err)
		}
	}
	// Registered before the jobs (after position 0), then disabled: it has received nothing.
	const id = "0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11"
	appendHook(webhook.Registered{ID: id, URL: "https://hooks.example.com/x", Secret: "v1.x.y", Who: "admin-1", At: base})
	appendHook(webhook.Disabled{ID: id, Reason: "receiver migration", Who: "admin-1", At: base})
	f.makeJobs(300)
	head, err := f.store.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}

	f.setClock(base.Add(2 * time.Hour)) // every ended input proof and user decrypt is past its window
	newArchiver := func() *Archiver {
		a, err := New(Config{Retention: policy()}, Deps{Store: f.store, Projections: f.set, Archive: f.arch, Now: f.clock,
			Followers: func(ctx context.Context) (eventstore.Position, string, bool, error) {
				return delivery.Slowest(ctx, f.store)
			}})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	retired := func() int {
		n := 0
		for _, j := range f.ended {
			if f.set.Retired(j) {
				n++
			}
		}
		return n
	}
	a := newArchiver()
	if err := drain(ctx, a); err != nil {
		t.Fatal(err)
	}
	f.caughtUp()
	if n := retired(); n != 0 {
		t.Fatalf("%d jobs retired while a disabled endpoint had received none of their transitions", n)
	}
	heldBefore := gauge(t, a.m.held)
	if heldBefore < float64(head)/2 {
		t.Fatalf("relayer_retention_held_back_positions %v, want about the %d positions held back", heldBefore, head)
	}

	// The endpoint, enabled again, delivers up to the log's head (its checkpoint is saved there):
	// the jobs are retired.
	cp, err := workers.LoadCheckpoint(ctx, f.store, delivery.CheckpointPrefix+id, workers.CheckpointConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Advance(ctx, head); err != nil {
		t.Fatal(err)
	}
	if err := cp.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	a = newArchiver()
	if err := drain(ctx, a); err != nil {
		t.Fatal(err)
	}
	f.caughtUp()
	if n := retired(); n == 0 {
		t.Fatal("no job retired once the endpoint had received every transition")
	}
	// What the endpoint has not received since (the archiver's own events) may still be held.
	if g := gauge(t, a.m.held); g > 10 {
		t.Fatalf("relayer_retention_held_back_positions %v after the endpoint caught up, want the few positions past its checkpoint at most", g)
	}
}
