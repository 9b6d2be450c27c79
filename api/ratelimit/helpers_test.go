package ratelimit

import (
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeClock is a clock tests move by hand; safe for concurrent use.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: t0} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func fixed(u float64) func() float64 { return func() float64 { return u } }

func ptr(v int) *int { return &v }

// cfgWith returns a valid config with the given base limits and no class overrides.
func cfgWith(concurrency, rolling, windowSeconds int) Config {
	c := DefaultConfig()
	c.ConcurrencyLimit, c.RollingLimit, c.RollingWindowSeconds = concurrency, rolling, windowSeconds
	c.Read = Override{}
	return c
}

func mustNew(t testing.TB, cfg Config, opts ...Option) *Limiter {
	t.Helper()
	l, err := New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
