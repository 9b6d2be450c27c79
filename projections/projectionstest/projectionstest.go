// Package projectionstest is the projections layer's test harness, shared by every package's
// tests instead of a copy in each: a log, its read models running over it, the Executor that
// appends to it, and a clock for the commands' times. Only tests import it.
package projectionstest

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/eventstore/sqlite"
	"relayer/projections"
)

// Harness is a log and its read models for one test.
type Harness struct {
	Store eventstore.Store
	Set   *projections.Set
	Exec  *projections.Executor
	Clock *Clock
}

// New opens a new SQLite log in the test's temporary directory and runs read models over it
// (On); the store is closed when the test ends.
func New(tb testing.TB, cfg projections.Config) *Harness {
	tb.Helper()
	return On(tb, OpenStore(tb), cfg)
}

// OpenStore opens a new SQLite log in the test's temporary directory, closed when the test ends.
func OpenStore(tb testing.TB) *sqlite.Store {
	tb.Helper()
	store, err := sqlite.Open(filepath.Join(tb.TempDir(), "events.db"), sqlite.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = store.Close() })
	return store
}

// ReadLog is every record of store's log, in order.
func ReadLog(tb testing.TB, store eventstore.Store) []eventstore.Record {
	tb.Helper()
	var recs []eventstore.Record
	for r, err := range store.ReadAll(context.Background(), 0) {
		if err != nil {
			tb.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}

// On runs read models configured by cfg over store until the test ends, when they are stopped
// and a failure of theirs (other than the stop) fails the test. The clock starts at Start.
func On(tb testing.TB, store eventstore.Store, cfg projections.Config) *Harness {
	tb.Helper()
	set, err := projections.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- set.Run(ctx, store) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			tb.Errorf("projections stopped: %v", err)
		}
	})
	return &Harness{Store: store, Set: set, Exec: &projections.Executor{Store: store, Codec: projections.NewCodec()}, Clock: NewClock(Start)}
}

// At is the time of the next command: the clock, advanced a second.
func (h *Harness) At() domain.At { return domain.At{At: h.Clock.Advance(time.Second)} }

// Run executes cmds on job id in order, correlated by "corr-" and the id's first eight
// characters, and waits for the read models to apply each; a command that fails fails the test.
func (h *Harness) Run(tb testing.TB, id domain.JobID, cmds ...domain.Command) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, c := range cmds {
		out, err := h.Exec.Execute(ctx, id, c, eventstore.Metadata{CorrelationID: "corr-" + id.String()[:8]})
		if err != nil {
			tb.Fatalf("%s on %s: %v", c.CommandName(), id, err)
		}
		if err := h.Set.WaitFor(ctx, out.Position); err != nil {
			tb.Fatal(err)
		}
	}
}

// Transition is a job's change of status as the log records it.
type Transition struct {
	Rec   eventstore.Record
	Event domain.Event
	Job   domain.JobID
	Kind  domain.Kind // from the job's acceptance
	To    domain.Status
}

// Transitions reads store's whole log and returns, in order, every event that changes a job's
// status; a record that cannot be read or decoded fails the test.
func Transitions(tb testing.TB, store eventstore.Store) []Transition {
	tb.Helper()
	codec := projections.NewCodec()
	kinds := map[domain.JobID]domain.Kind{}
	var out []Transition
	for rec, err := range store.ReadAll(context.Background(), 0) {
		if err != nil {
			tb.Fatal(err)
		}
		id, ok := domain.JobIDFromStream(rec.Stream)
		if !ok {
			continue
		}
		ev, err := projections.DecodeEvent(codec, rec)
		if err != nil {
			tb.Fatal(err)
		}
		if a, ok := ev.(domain.RequestAccepted); ok {
			kinds[id] = a.Kind
		}
		if to, ok := domain.StatusAfter(ev); ok {
			out = append(out, Transition{Rec: rec, Event: ev, Job: id, Kind: kinds[id], To: to})
		}
	}
	return out
}

// Start is where a harness's clock starts: a fixed time, so that what a test records reads the
// same in every run.
var Start = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

// Clock is a test's clock: it stands still until a test moves it.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock is a clock at start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock d later and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}
