package main

import (
	"context"
	"errors"
	"io"
	"iter"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/eventstore/sqlite"
	"relayer/projections"
)

// flakyStore is the real SQLite store whose first reads of the whole log fail after a few
// records, as a busy or failing disk would.
type flakyStore struct {
	eventstore.Store
	failures atomic.Int32 // reads left to fail
}

var errDiskBusy = errors.New("disk I/O error (injected)")

func (f *flakyStore) fail(seq iter.Seq2[eventstore.Record, error]) iter.Seq2[eventstore.Record, error] {
	if f.failures.Add(-1) < 0 {
		return seq
	}
	return func(yield func(eventstore.Record, error) bool) {
		n := 0
		for rec, err := range seq {
			if n == 3 {
				yield(eventstore.Record{}, errDiskBusy)
				return
			}
			n++
			if !yield(rec, err) {
				return
			}
		}
	}
}

func (f *flakyStore) ReadAll(ctx context.Context, after eventstore.Position) iter.Seq2[eventstore.Record, error] {
	return f.fail(f.Store.ReadAll(ctx, after))
}

func (f *flakyStore) SubscribeAll(ctx context.Context, after eventstore.Position) iter.Seq2[eventstore.Record, error] {
	return f.fail(f.Store.SubscribeAll(ctx, after))
}

func TestTheProjectionsOfServeSurviveTransientReadErrorsAndStopOnACorruptRecord(t *testing.T) {
	dir := t.TempDir()
	store, err := sqlite.Open(filepath.Join(dir, "relayer.db"), sqlite.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	x := &projections.Executor{Store: store, Codec: projections.NewCodec()}
	var head eventstore.Position
	for i := range 20 {
		id := domain.NewJobID()
		req := domain.Request{PublicDecrypt: &domain.PublicDecryptRequest{CiphertextHandles: []string{demoHandleN(i)}, ExtraData: "0x00"}}
		out, err := x.Execute(context.Background(), id, domain.Accept{At: domain.At{At: time.Unix(1_800_000_000, 0)}, JobID: id, Request: req, ContentHash: domain.ContentHash(req)}, eventstore.Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		head = out.Position
	}
	flaky := &flakyStore{Store: store}
	flaky.failures.Store(3)
	set, err := projections.New(projections.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- followLog(ctx, set, flaky, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	// Between a failed read and the restart, WaitFor reports why the Set stopped; after the
	// restarts it reaches the head.
	deadline := time.Now().Add(10 * time.Second)
	for set.Position() < head {
		if time.Now().After(deadline) {
			t.Fatalf("the projections did not get past three failed reads: at %d of %d", set.Position(), head)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if flaky.failures.Load() >= 0 {
		t.Fatalf("only %d of the 3 injected failures happened", 3-flaky.failures.Load())
	}
	if set.Jobs() != 20 {
		t.Fatalf("%d jobs, want 20", set.Jobs())
	}

	// A record the projections cannot decode stops them for good, naming the record.
	if _, err := store.Append(context.Background(), domain.JobID{1}.Stream(), eventstore.NoStream,
		eventstore.Event{Type: "NoSuchEvent", SchemaVersion: 1, Data: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var re *eventstore.RecordError
		if !errors.As(err, &re) {
			t.Fatalf("followLog ended with %v, want a RecordError", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("followLog went on past a record it cannot decode")
	}
	cancel()
}

// demoHandleN is a distinct development handle for each n.
func demoHandleN(n int) string {
	return "0x" + "7e57000000000000000000000000000000000000000000000539" + "0000" + string("0123456789abcdef"[n/16%16]) + string("0123456789abcdef"[n%16]) + "00000000"[:6]
}
