package projections

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/eventstore/sqlite"
)

func TestASetResumedAtACheckpointEqualsOneThatAppliedEverything(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	store := openStore(t)
	appends := generate(21, genOptions{jobs: 400, active: 100, unfinished: 0.3, sameHash: 0.05})
	half := len(appends) / 2
	if err := appendConcurrently(ctx, store, appends[:half], 8, nil); err != nil {
		t.Fatal(err)
	}
	first := readAll(t, store)

	// One Set applies the first N events by hand, another catches up on them from the store.
	byHand := foldRecords(t, first, nil)
	caughtUp, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := caughtUp.CatchUp(ctx, store); err != nil {
		t.Fatal(err)
	}
	n := first[len(first)-1].Position
	if byHand.Position() != n || caughtUp.Position() != n {
		t.Fatalf("checkpoints %d and %d, want %d", byHand.Position(), caughtUp.Position(), n)
	}
	sameSnapshots(t, "Apply vs CatchUp", snapshot(t, byHand), snapshot(t, caughtUp))

	// Both resume from their checkpoint as the rest is appended: one follows it live, the other
	// catches up afterwards.
	runCtx, stop := context.WithCancel(ctx)
	runErr := make(chan error, 1)
	go func() { runErr <- byHand.Run(runCtx, store) }()
	if err := appendConcurrently(ctx, store, appends[half:], 8, nil); err != nil {
		t.Fatal(err)
	}
	waitForHead(t, ctx, store, byHand)
	stop()
	if err := <-runErr; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v", err)
	}
	if err := caughtUp.CatchUp(ctx, store); err != nil {
		t.Fatal(err)
	}
	all, _, err := Rebuild(ctx, store, Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := snapshot(t, all)
	sameSnapshots(t, "resumed live vs rebuilt", want, snapshot(t, byHand))
	sameSnapshots(t, "resumed catch-up vs rebuilt", want, snapshot(t, caughtUp))
}

func TestARunStoppedAnywhereResumesWhereItStopped(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	store := openStore(t)
	appends := generate(22, genOptions{jobs: 300, active: 100, unfinished: 0.2})
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	// Stop and restart the Set every few appends while the history is written.
	var runCtx context.Context
	var stop context.CancelFunc
	runErr := make(chan error, 1)
	start := func() {
		runCtx, stop = context.WithCancel(ctx)
		go func() { runErr <- s.Run(runCtx, store) }()
		// WaitFor on a stopped Set reports why it stopped: let the new Run get under way first.
		waitRunning(s)
	}
	start()
	restarts := 0
	for i := 0; i < len(appends); i += 97 {
		if err := appendConcurrently(ctx, store, appends[i:min(i+97, len(appends))], 4, nil); err != nil {
			t.Fatal(err)
		}
		stop()
		if err := <-runErr; !errors.Is(err, context.Canceled) {
			t.Fatalf("Run returned %v", err)
		}
		restarts++
		start()
	}
	waitForHead(t, ctx, store, s)
	stop()
	<-runErr
	all, _, err := Rebuild(ctx, store, Config{})
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshots(t, "restarted vs rebuilt", snapshot(t, all), snapshot(t, s))
	t.Logf("%d restarts", restarts)
}

func TestASecondRunOnTheSameSetIsRefused(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := openStore(t)
	s, _ := New(Config{})
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, store) }()
	waitRunning(s)
	if err := s.Run(ctx, store); !errors.Is(err, ErrRunning) {
		t.Fatalf("a second Run returned %v, want ErrRunning", err)
	}
	if err := s.CatchUp(ctx, store); !errors.Is(err, ErrRunning) {
		t.Fatalf("CatchUp during Run returned %v, want ErrRunning", err)
	}
	cancel()
	<-done
}

// waitRunning returns once a Run of s is under way.
func waitRunning(s *Set) {
	for running := false; !running; time.Sleep(time.Millisecond) {
		s.runMu.Lock()
		running = s.running
		s.runMu.Unlock()
	}
}

// appendRaw appends one stored event as given, bypassing the codec.
func appendRaw(t *testing.T, store eventstore.Store, stream string, expected eventstore.Version, typ, data string) eventstore.Position {
	t.Helper()
	pos, err := store.Append(context.Background(), stream, expected, eventstore.Event{Type: typ, SchemaVersion: 1, Data: []byte(data)})
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

func TestABadRecordStopsRunAndRebuildWithAnErrorNamingIt(t *testing.T) {
	for _, c := range []struct {
		name, typ, data string
		want            error
	}{
		{"a corrupt record", "ReadinessPassed", `{"jobId":5}`, eventstore.ErrCorruptRecord},
		{"an unknown event type", "Teleported", `{}`, eventstore.ErrUnknownEventType},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			store := openStore(t)
			appends := generate(23, genOptions{jobs: 20, active: 5})
			if err := appendConcurrently(ctx, store, appends, 2, nil); err != nil {
				t.Fatal(err)
			}
			live, _ := New(Config{})
			runErr := make(chan error, 1)
			go func() { runErr <- live.Run(ctx, store) }()

			// A record of another stream, even of a type nobody knows, is skipped.
			appendRaw(t, store, "config", eventstore.NoStream, "ConfigChanged", `{"param":"x"}`)
			good := appendRaw(t, store, "config", 0, "ConfigChanged", `{"param":"y"}`)
			if err := live.WaitFor(ctx, good); err != nil {
				t.Fatal(err)
			}

			id := domain.NewJobID()
			recs, _ := (&harness{t: t, codec: NewCodec(), states: map[domain.JobID]domain.State{}}).records(id,
				domain.Accept{At: domain.At{At: time.Now()}, JobID: id, ContentHash: "aa", Request: domain.Request{InputProof: &domain.InputProofRequest{}}})
			appendRaw(t, store, id.Stream(), eventstore.NoStream, recs[0].Type, string(recs[0].Data))
			bad := appendRaw(t, store, id.Stream(), 0, c.typ, c.data)

			check := func(what string, err error) {
				t.Helper()
				var re *eventstore.RecordError
				if !errors.Is(err, c.want) || !errors.As(err, &re) || re.Stream != id.Stream() || re.Version != 1 || re.Position != bad {
					t.Fatalf("%s returned %v, want %v naming %s@1 at position %d", what, err, c.want, id.Stream(), bad)
				}
			}
			select {
			case err := <-runErr:
				check("Run", err)
			case <-ctx.Done():
				t.Fatal("Run did not stop on the bad record")
			}
			if live.Position() != bad-1 {
				t.Fatalf("the live Set stopped at %d, want %d: every event before the bad one", live.Position(), bad-1)
			}
			if err := live.WaitFor(ctx, bad); err == nil || !errors.Is(err, c.want) {
				t.Fatalf("WaitFor past the bad record returned %v, want the reason Run stopped", err)
			}
			for _, full := range []bool{false, true} {
				s, _, err := Rebuild(ctx, store, Config{FullDecode: full})
				check("Rebuild", err)
				if s.Position() != bad-1 {
					t.Fatalf("the rebuild stopped at %d, want %d", s.Position(), bad-1)
				}
			}
		})
	}
}

// The store checks data when it is appended and not again on reads, so data damaged in the file
// afterwards reaches the projections: their decoder stops a rebuild on it, naming the record, in
// a request's stream and in the streams the read models skip.
func TestDataDamagedAfterItsAppendStopsARebuildWithAnErrorNamingIt(t *testing.T) {
	for _, stream := range []string{"request", "config"} {
		t.Run(stream, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			path := filepath.Join(t.TempDir(), "events.db")
			store, err := sqlite.Open(path, sqlite.Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			if err := appendConcurrently(ctx, store, generate(29, genOptions{jobs: 10, active: 3}), 2, nil); err != nil {
				t.Fatal(err)
			}
			bad := appendRaw(t, store, "config", eventstore.NoStream, "ConfigChanged", `{"param":"x"}`)
			if stream == "request" {
				id := domain.NewJobID()
				recs, _ := (&harness{t: t, codec: NewCodec(), states: map[domain.JobID]domain.State{}}).records(id,
					domain.Accept{At: domain.At{At: time.Now()}, JobID: id, ContentHash: "aa", Request: domain.Request{InputProof: &domain.InputProofRequest{}}})
				bad = appendRaw(t, store, id.Stream(), eventstore.NoStream, recs[0].Type, string(recs[0].Data))
			}
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.ExecContext(ctx, `UPDATE events SET data = CAST('{"jobId":' AS BLOB) WHERE position = ?`, int64(bad)); err != nil {
				t.Fatal(err)
			}
			for _, full := range []bool{false, true} {
				s, _, err := Rebuild(ctx, store, Config{FullDecode: full})
				var re *eventstore.RecordError
				if !errors.Is(err, eventstore.ErrCorruptRecord) || !errors.As(err, &re) || re.Position != bad || re.Version != 0 {
					t.Fatalf("Rebuild (full decode %v) returned %v, want a *eventstore.RecordError wrapping ErrCorruptRecord for position %d", full, err, bad)
				}
				if s.Position() != bad-1 {
					t.Fatalf("the rebuild stopped at %d, want %d", s.Position(), bad-1)
				}
			}
		})
	}
}
