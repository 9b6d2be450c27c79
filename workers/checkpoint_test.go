package workers

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"relayer/eventstore"
	"relayer/projections/projectionstest"
)

func TestCheckpointSavesAreThrottledByCountAndByInterval(t *testing.T) {
	ctx := context.Background()
	s := projectionstest.OpenStore(t)
	cp, err := LoadCheckpoint(ctx, s, "throttle", CheckpointConfig{Every: 3, Interval: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cp.now = func() time.Time { return now }
	cp.lastSave = now
	if cp.Saved() != 0 {
		t.Fatalf("a new consumer starts at %d, want 0", cp.Saved())
	}
	for p := eventstore.Position(1); p <= 7; p++ {
		if err := cp.Advance(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if cp.Saves() != 2 || cp.Saved() != 6 || cp.Pending() != 7 {
		t.Fatalf("after 7 advances every 3: %d saves, saved %d, pending %d; want 2, 6, 7", cp.Saves(), cp.Saved(), cp.Pending())
	}
	if cp.Due() {
		t.Fatal("one advance and no time passed: a save should not be due")
	}
	now = now.Add(time.Minute)
	if !cp.Due() {
		t.Fatal("a minute passed with progress pending: a save should be due")
	}
	if err := cp.Advance(ctx, 8); err != nil {
		t.Fatal(err)
	}
	if cp.Saves() != 3 || cp.Saved() != 8 {
		t.Fatalf("after the interval: %d saves at %d, want 3 at 8", cp.Saves(), cp.Saved())
	}
	// Nothing pending: Flush and Due are no-ops; old positions are ignored.
	if err := cp.Advance(ctx, 5); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Hour)
	if cp.Due() {
		t.Fatal("nothing pending: no save should be due")
	}
	if err := cp.Flush(ctx); err != nil || cp.Saves() != 3 {
		t.Fatalf("flush with nothing pending: err %v, %d saves; want nil, 3", err, cp.Saves())
	}

	again, err := LoadCheckpoint(ctx, s, "throttle", CheckpointConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Saved() != 8 {
		t.Fatalf("reloaded checkpoint at %d, want 8", again.Saved())
	}
	n := 0
	for r, err := range s.ReadStream(ctx, CheckpointStream("throttle"), 0) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Type != "CheckpointAdvanced" {
			t.Errorf("checkpoint stream holds a %s", r.Type)
		}
		n++
	}
	if n != 3 {
		t.Fatalf("checkpoint stream holds %d events, want 3", n)
	}
}

func TestASecondInstanceSavingTheSameCheckpointGetsAVersionConflict(t *testing.T) {
	ctx := context.Background()
	s := projectionstest.OpenStore(t)
	cfg := CheckpointConfig{Every: 1}
	a, err := LoadCheckpoint(ctx, s, "shared", cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadCheckpoint(ctx, s, "shared", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Advance(ctx, 10); err != nil {
		t.Fatal(err)
	}
	err = b.Advance(ctx, 4)
	if !errors.Is(err, ErrCheckpointConflict) || !errors.Is(err, eventstore.ErrWrongExpectedVersion) {
		t.Fatalf("second instance saved with %v, want a checkpoint conflict", err)
	}
	if err := a.Advance(ctx, 11); err != nil {
		t.Fatalf("the first instance keeps its checkpoint: %v", err)
	}
	c, err := LoadCheckpoint(ctx, s, "shared", cfg)
	if err != nil || c.Saved() != 11 {
		t.Fatalf("reload: %v at %d, want 11", err, c.Saved())
	}
}

func TestAStuckMarkIsSavedAtOnceKeptByLaterSavesAndReadBackUntilCleared(t *testing.T) {
	ctx := context.Background()
	s := projectionstest.OpenStore(t)
	cfg := CheckpointConfig{Every: 1}
	cp, err := LoadCheckpoint(ctx, s, "stuck", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Advance(ctx, 4); err != nil {
		t.Fatal(err)
	}
	since := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// Saved although the position has not moved.
	if err := cp.MarkStuck(ctx, since); err != nil || cp.Saves() != 2 {
		t.Fatalf("MarkStuck: %v, %d saves; want nil, 2", err, cp.Saves())
	}
	if err := cp.MarkStuck(ctx, since); err != nil || cp.Saves() != 2 {
		t.Fatalf("the same mark again: %v, %d saves; want nil and no save", err, cp.Saves())
	}
	again, err := LoadCheckpoint(ctx, s, "stuck", cfg)
	if err != nil || !again.StuckSince().Equal(since) || again.Saved() != 4 {
		t.Fatalf("reloaded: %v, stuck since %s at %d; want %s at 4", err, again.StuckSince(), again.Saved(), since)
	}
	// A later save keeps the mark; clearing it saves at once, and the save says nothing of it.
	if err := again.Advance(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if c, _ := LoadCheckpoint(ctx, s, "stuck", cfg); !c.StuckSince().Equal(since) {
		t.Fatalf("after an advance the mark is %s, want %s", c.StuckSince(), since)
	}
	// A save that fails leaves the mark set, unsaved, for the next save (found by a review: the
	// streak's start was then never saved).
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if err := again.MarkStuck(ended, time.Time{}); err == nil || !again.StuckSince().IsZero() || again.StuckSaved() {
		t.Fatalf("a failed MarkStuck: %v, mark %s, saved %v; want an error, the mark cleared in memory, not saved", err, again.StuckSince(), again.StuckSaved())
	}
	if c, _ := LoadCheckpoint(ctx, s, "stuck", cfg); !c.StuckSince().Equal(since) {
		t.Fatalf("after a failed clear the saved mark is %s, want %s still", c.StuckSince(), since)
	}
	if err := again.Flush(ctx); err != nil || !again.StuckSaved() {
		t.Fatalf("the next save: %v, saved %v", err, again.StuckSaved())
	}
	if c, _ := LoadCheckpoint(ctx, s, "stuck", cfg); !c.StuckSince().IsZero() || c.Saved() != 5 {
		t.Fatalf("cleared: stuck since %s at %d, want none at 5", c.StuckSince(), c.Saved())
	}
	var last eventstore.Record
	for r, err := range s.ReadStream(ctx, CheckpointStream("stuck"), 0) {
		if err != nil {
			t.Fatal(err)
		}
		last = r
	}
	if strings.Contains(string(last.Data), "stuckSince") {
		t.Fatalf("a save without a mark is written as the builds before the mark wrote it; got %s", last.Data)
	}
}

func TestCheckpointNamesAndConfigAreChecked(t *testing.T) {
	s := projectionstest.OpenStore(t)
	if _, err := LoadCheckpoint(context.Background(), s, "", CheckpointConfig{}); err == nil {
		t.Error("an empty consumer name loaded")
	}
	if _, err := LoadCheckpoint(context.Background(), s, "x", CheckpointConfig{Every: -1}); err == nil {
		t.Error("a negative Every loaded")
	}
	if !IsCheckpointStream(CheckpointStream("x")) || IsCheckpointStream("request-x") {
		t.Error("checkpoint stream names are not recognised")
	}
}
