package storetest

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"relayer/eventstore"
)

func guardCases() []testCase {
	return []testCase{
		{name: "a guarded append succeeds while its guard holds and fails, writing nothing, once the guard stream moved", run: testGuardHolds},
		{name: "invalid guards are rejected", run: testGuardInvalid},
		{name: "no guarded append commits after the append that moved its guard", run: testGuardFences},
		{name: "a guard at NoStream on an existing stream never holds, whatever the batch guessed", run: testGuardOnAnExistingStreamAtNoStream},
	}
}

// guarded is the store as a GuardedAppender, or skips the test.
func guarded(t *testing.T, st eventstore.Store) eventstore.GuardedAppender {
	t.Helper()
	return offers[eventstore.GuardedAppender](t, st, "offer AppendGuarded")
}

func testGuardHolds(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	ga := guarded(t, st)
	lease := eventstore.Guard{Stream: "lease-a", Version: eventstore.NoStream}
	if _, err := ga.AppendGuarded(ctx, lease, "work", eventstore.NoStream, event("done", 1)); err != nil {
		t.Fatalf("guard on a missing stream at NoStream: %v", err)
	}
	mustAppend(t, ctx, st, "lease-a", eventstore.NoStream, event("acquired", 2))
	_, err := ga.AppendGuarded(ctx, lease, "work", 0, event("done", 3))
	var ge *eventstore.GuardError
	if !errors.As(err, &ge) || !errors.Is(err, eventstore.ErrGuard) {
		t.Fatalf("invariant: a guard that moved refuses the append; got %v", err)
	}
	if ge.Stream != "work" || ge.Guard != lease || ge.Actual != 0 {
		t.Fatalf("the guard error: %+v", ge)
	}
	lease.Version = 0
	// The guarded append's own expectation is checked too: a stale one fails as Append would.
	if _, err := ga.AppendGuarded(ctx, lease, "work", 5, event("done", 4)); !errors.Is(err, eventstore.ErrWrongExpectedVersion) {
		t.Fatalf("a stale expected version under a guard that holds: %v", err)
	}
	if _, err := ga.AppendGuarded(ctx, lease, "work", 0, event("done", 5)); err != nil {
		t.Fatalf("guard at the lease's version: %v", err)
	}
	var got []int
	for _, r := range collect(t, "read work", st.ReadStream(ctx, "work", 0)) {
		got = append(got, numberOf(r.Data))
	}
	if fmt.Sprint(got) != "[1 5]" {
		t.Fatalf("invariant: refused guarded appends write nothing; stream holds %v, want [1 5]", got)
	}
}

func testGuardInvalid(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	ga := guarded(t, st)
	for _, g := range []eventstore.Guard{
		{Stream: "", Version: 0},
		{Stream: "work", Version: 0}, // the stream appended to
		{Stream: "lease", Version: eventstore.Any},
	} {
		if _, err := ga.AppendGuarded(ctx, g, "work", eventstore.Any, event("e", 1)); !errors.Is(err, eventstore.ErrInvalidEvent) {
			t.Fatalf("guard %+v: got %v, want ErrInvalidEvent", g, err)
		}
	}
	if head, err := st.Head(ctx); err != nil || head != 0 {
		t.Fatalf("invalid guards wrote something: head %d, %v", head, err)
	}
}

// testGuardFences races guarded appends against the append that moves their guard: every guarded
// append that succeeded must have committed before it, every one after it must have failed.
func testGuardFences(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	ga := guarded(t, st)
	mustAppend(t, ctx, st, "lease", eventstore.NoStream, event("acquired", 0))
	g := eventstore.Guard{Stream: "lease", Version: 0}
	const writers, each = 8, 40
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		accepted []eventstore.Position
		refused  int
	)
	start := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			<-start
			for k := range each {
				pos, err := ga.AppendGuarded(ctx, g, fmt.Sprintf("w%d", w), eventstore.Any, event("e", k))
				mu.Lock()
				switch {
				case err == nil:
					accepted = append(accepted, pos)
				case errors.Is(err, eventstore.ErrGuard):
					refused++
				default:
					mu.Unlock()
					t.Errorf("writer %d: %v", w, err)
					return
				}
				mu.Unlock()
			}
		})
	}
	close(start)
	taken := mustAppend(t, ctx, st, "lease", 0, event("taken", 1))
	wg.Wait()
	for _, p := range accepted {
		if p > taken {
			t.Fatalf("invariant: nothing guarded by the old lease commits after the lease moved; an append at %d, the move at %d", p, taken)
		}
	}
	if refused == 0 {
		t.Logf("every guarded append committed before the move (%d); the race did not interleave this run", len(accepted))
	}
	n := 0
	for r := range st.ReadAll(ctx, taken) {
		if r.Stream != "lease" {
			n++
		}
	}
	if n != 0 {
		t.Fatalf("invariant: %d guarded events after the lease moved", n)
	}
}

// testGuardOnAnExistingStreamAtNoStream races appends that expect a stream to be new (and are
// refused by their own guard) against appends guarded by that same stream at NoStream, on a
// store reopened so that it has no cached version of any stream: the streams exist, so every
// guarded append must be refused, whatever a batch assumed about a stream before it.
func testGuardOnAnExistingStreamAtNoStream(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st, loc := s.freshAt(t)
	const n = 300
	for i := range n {
		mustAppend(t, ctx, st, fmt.Sprintf("s%d", i), eventstore.NoStream, event("e", i))
	}
	mustAppend(t, ctx, st, "g", eventstore.NoStream, events("e", 0, 2)...) // g at version 1
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = s.reopen(t, loc)
	ga := guarded(t, st)
	var wg sync.WaitGroup
	var accepted atomic.Int64
	start := make(chan struct{})
	for i := range n {
		stream := fmt.Sprintf("s%d", i)
		wg.Go(func() { // expects stream to be new, under a stale guard: refused
			<-start
			_, _ = ga.AppendGuarded(ctx, eventstore.Guard{Stream: "g", Version: 0}, stream, eventstore.NoStream, event("e", 0))
		})
		wg.Go(func() { // guarded by stream at NoStream: it exists, so this must be refused
			<-start
			_, err := ga.AppendGuarded(ctx, eventstore.Guard{Stream: stream, Version: eventstore.NoStream}, "t"+stream, eventstore.Any, event("e", 0))
			switch {
			case err == nil:
				accepted.Add(1)
			case !errors.Is(err, eventstore.ErrGuard):
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	if k := accepted.Load(); k != 0 {
		t.Fatalf("invariant: a guard holds only at the stream's real version; %d of %d appends guarded by an existing stream at NoStream were accepted", k, n)
	}
}
