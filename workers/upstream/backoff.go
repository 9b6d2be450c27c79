package upstream

import (
	"cmp"
	"fmt"
	"math"
	"time"
)

// Backoff is the wait of a loop that retries on its own, outside a Retrier: a reconnection, a
// resubscription, a write to the log that must not be lost, a chain read a worker cannot go on
// without. It is the same capped exponential backoff with jitter as Config.Backoff, so that
// every retry in the relayer waits the same way and its bounds can be read in one place
// (docs/RETRIES.md). The zero value does not wait; a Backoff is a value, safe to share.
type Backoff struct {
	// Base is the nominal wait after the first failure.
	Base time.Duration
	// Max caps the nominal wait; zero (or anything below Base) means Base: a fixed interval,
	// jittered, that never grows.
	Max time.Duration
	// Multiplier is the growth of the nominal wait per further failure (zero: 2; at least 1).
	Multiplier float64
	// Jitter is FullJitter (zero: the default) or EqualJitter.
	Jitter Jitter
}

func (b *Backoff) setDefaults() {
	b.Multiplier = cmp.Or(b.Multiplier, 2)
	b.Jitter = cmp.Or(b.Jitter, FullJitter)
	if b.Max < b.Base {
		b.Max = b.Base
	}
}

// Validate reports the first field out of range, after defaults.
func (b Backoff) Validate() error {
	b.setDefaults()
	switch {
	case b.Base < 0:
		return fmt.Errorf("upstream: Backoff.Base %v: must not be negative", b.Base)
	case math.IsNaN(b.Multiplier) || math.IsInf(b.Multiplier, 0) || b.Multiplier < 1:
		return fmt.Errorf("upstream: Backoff.Multiplier %v: must be a number of at least 1", b.Multiplier)
	case b.Jitter != FullJitter && b.Jitter != EqualJitter:
		return fmt.Errorf("upstream: Backoff.Jitter %q: must be %q or %q", b.Jitter, FullJitter, EqualJitter)
	}
	return nil
}

// Nominal is the wait after n failures before jitter: Base times Multiplier^(n-1), capped at
// Max. n below 1 counts as 1.
func (b Backoff) Nominal(n int) time.Duration {
	b.setDefaults()
	return grow(b.Base, b.Max, b.Multiplier, n)
}

// Delay is the wait after n failures in a row (1 after the first): Nominal(n) = d, jittered
// with rnd (nil: DefaultRand). FullJitter draws uniformly from (0, d], EqualJitter from
// [d/2, d]. It is never 0 unless Base is 0, so that a loop never retries at once, and never
// more than Max. b must be valid (Validate).
func (b Backoff) Delay(n int, rnd Rand) time.Duration {
	d := b.Nominal(n)
	if d <= 0 {
		return 0
	}
	if rnd == nil {
		rnd = DefaultRand()
	}
	b.setDefaults()
	// One nanosecond is kept aside and added back, so that the draw over [0, d-1] lands in
	// (0, d] with every value equally likely.
	return 1 + jitter(d-1, b.Jitter, rnd)
}

// grow is base times mult^(n-1), capped at max (the nominal wait of Backoff and Config.Backoff).
func grow(base, max time.Duration, mult float64, n int) time.Duration {
	if n < 1 {
		n = 1
	}
	if f := float64(base) * math.Pow(mult, float64(n-1)); f < float64(max) {
		return time.Duration(f)
	}
	return max
}
