package upstream

import (
	"context"
	"sync"
	"testing"
	"time"
)

// t0 is the tests' "now": a whole second, so HTTP-dates built from it are exact.
var t0 = time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)

// fakeClock never sleeps: Sleep records the wait and moves Now forward by it. onSleep, when
// set, runs first (a test cancels its context there).
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	sleeps  []time.Duration
	onSleep func(d time.Duration)
}

func newFakeClock() *fakeClock { return &fakeClock{now: t0} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	hook := c.onSleep
	c.mu.Unlock()
	if hook != nil {
		hook(d)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return nil
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// maxRand always draws the largest value, zeroRand the smallest: jitter becomes predictable.
type maxRand struct{}

func (maxRand) Int64N(n int64) int64 { return n - 1 }

type zeroRand struct{}

func (zeroRand) Int64N(int64) int64 { return 0 }

// recordingSink keeps the events in order.
type recordingSink struct {
	mu     sync.Mutex
	events []Event
}

func (s *recordingSink) Record(_ context.Context, e Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
}

func (s *recordingSink) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.events...)
}

func (s *recordingSink) Types() []EventType {
	var out []EventType
	for _, e := range s.Events() {
		out = append(out, e.Type)
	}
	return out
}

func mustRetrier(t *testing.T, cfg Config, opts ...Option) *Retrier {
	t.Helper()
	r, err := NewRetrier(cfg, opts...)
	if err != nil {
		t.Fatalf("NewRetrier: %v", err)
	}
	return r
}
