package upstream

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestABackoffGrowsByItsMultiplierUpToItsCap(t *testing.T) {
	b := Backoff{Base: 100 * time.Millisecond, Max: time.Second, Multiplier: 3}
	var nominal, highest []time.Duration
	for n := 1; n <= 5; n++ {
		nominal = append(nominal, b.Nominal(n))
		highest = append(highest, b.Delay(n, maxRand{}))
	}
	want := []time.Duration{100 * time.Millisecond, 300 * time.Millisecond, 900 * time.Millisecond, time.Second, time.Second}
	if !slices.Equal(nominal, want) || !slices.Equal(highest, want) {
		t.Fatalf("nominal %v, highest draws %v, want %v", nominal, highest, want)
	}
	if d := b.Delay(1<<30, maxRand{}); d != time.Second {
		t.Fatalf("a huge failure count must stay at the cap, got %v", d)
	}
	if d, e := b.Delay(0, maxRand{}), b.Delay(-3, maxRand{}); d != 100*time.Millisecond || e != d {
		t.Fatalf("n below 1 counts as 1: got %v and %v", d, e)
	}
}

func TestABackoffDoublesByDefault(t *testing.T) {
	b := Backoff{Base: time.Second, Max: time.Minute}
	for n, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second} {
		if got := b.Nominal(n + 1); got != want {
			t.Errorf("Nominal(%d) = %v, want %v", n+1, got, want)
		}
	}
}

func TestABackoffWithoutAMaxIsAFixedInterval(t *testing.T) {
	for _, b := range []Backoff{{Base: time.Second}, {Base: time.Second, Max: time.Millisecond}} {
		for n := 1; n <= 10; n++ {
			if d := b.Delay(n, maxRand{}); d != time.Second {
				t.Fatalf("%+v: Delay(%d) = %v, want 1s", b, n, d)
			}
		}
	}
}

func TestFullJitterDrawsFromAboveZeroToTheNominalWait(t *testing.T) {
	b := Backoff{Base: time.Second, Max: time.Minute}
	if d := b.Delay(3, zeroRand{}); d != time.Nanosecond {
		t.Errorf("lowest draw = %v, want 1ns: never 0", d)
	}
	if d := b.Delay(3, maxRand{}); d != 4*time.Second {
		t.Errorf("highest draw = %v, want 4s", d)
	}
}

func TestEqualJitterDrawsFromTheUpperHalfOfTheNominalWait(t *testing.T) {
	b := Backoff{Base: time.Second, Max: time.Minute, Jitter: EqualJitter}
	if d := b.Delay(3, zeroRand{}); d != 2*time.Second {
		t.Errorf("lowest draw = %v, want 2s", d)
	}
	if d := b.Delay(3, maxRand{}); d != 4*time.Second {
		t.Errorf("highest draw = %v, want 4s", d)
	}
}

func TestABackoffNeverWaitsZeroUnlessItsBaseIsZero(t *testing.T) {
	for _, mode := range []Jitter{FullJitter, EqualJitter} {
		for _, base := range []time.Duration{time.Nanosecond, 2 * time.Nanosecond, time.Millisecond, time.Second} {
			b := Backoff{Base: base, Max: time.Minute, Jitter: mode}
			for n := 1; n <= 40; n++ {
				if d := b.Delay(n, zeroRand{}); d <= 0 {
					t.Fatalf("%+v: Delay(%d) = %v", b, n, d)
				}
			}
		}
	}
	if d := (Backoff{}).Delay(3, maxRand{}); d != 0 {
		t.Fatalf("the zero Backoff waited %v", d)
	}
}

func TestABackoffDrawsEveryWaitOfItsRangeAlike(t *testing.T) {
	// A seeded source over a 4-value range: (0, 4ns] for full jitter, [2ns, 4ns] for equal.
	r := rand.New(rand.NewPCG(7, 11))
	for _, tc := range []struct {
		mode   Jitter
		values []time.Duration
	}{{FullJitter, []time.Duration{1, 2, 3, 4}}, {EqualJitter, []time.Duration{2, 3, 4}}} {
		b := Backoff{Base: 4 * time.Nanosecond, Jitter: tc.mode}
		count := map[time.Duration]int{}
		const draws = 40000
		for range draws {
			count[b.Delay(1, r)]++
		}
		if len(count) != len(tc.values) {
			t.Fatalf("%s jitter drew %v, want each of %v", tc.mode, count, tc.values)
		}
		for _, v := range tc.values {
			share := float64(count[v]) / draws
			if want := 1 / float64(len(tc.values)); math.Abs(share-want) > 0.02 {
				t.Errorf("%s jitter drew %v %.3f of the time, want about %.3f", tc.mode, v, share, want)
			}
		}
	}
}

func TestASeededRandomSourceMakesABackoffReproducible(t *testing.T) {
	b := Backoff{Base: 250 * time.Millisecond, Max: 8 * time.Second}
	x, y := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 8; n++ {
		if p, q := b.Delay(n, x), b.Delay(n, y); p != q {
			t.Fatalf("failure %d: %v != %v", n, p, q)
		}
	}
}

func TestTheDefaultSourceJittersABackoff(t *testing.T) {
	b := Backoff{Base: time.Second, Max: time.Minute}
	seen := map[time.Duration]bool{}
	for range 200 {
		d := b.Delay(3, nil)
		if d <= 0 || d > 4*time.Second {
			t.Fatalf("drew %v, outside (0, 4s]", d)
		}
		seen[d] = true
	}
	if len(seen) < 190 {
		t.Fatalf("only %d distinct waits in 200 draws", len(seen))
	}
}

func TestABackoffAndTheRetriersBackoffAreOneFormula(t *testing.T) {
	// Config.Backoff draws from [0, d], Backoff.Delay from (0, d]: the same d, the same top.
	c := Config{BaseDelay: 300 * time.Millisecond, MaxDelay: 7 * time.Second, Multiplier: 1.5}
	b := Backoff{Base: c.BaseDelay, Max: c.MaxDelay, Multiplier: c.Multiplier}
	for n := 1; n <= 12; n++ {
		if x, y := c.Backoff(n, ServerError, maxRand{}), b.Delay(n, maxRand{}); x != y {
			t.Fatalf("failure %d: Config.Backoff %v, Backoff.Delay %v", n, x, y)
		}
	}
}

func TestABackoffOutOfRangeIsRejectedNamingTheField(t *testing.T) {
	if err := (Backoff{}).Validate(); err != nil {
		t.Fatalf("the zero Backoff: %v", err)
	}
	if err := (Backoff{Base: time.Second, Max: time.Minute, Multiplier: 1, Jitter: EqualJitter}).Validate(); err != nil {
		t.Fatal(err)
	}
	cases := map[string]Backoff{
		"Base":       {Base: -time.Second},
		"Multiplier": {Base: time.Second, Multiplier: 0.5},
		"Jitter":     {Base: time.Second, Jitter: "none"},
	}
	for field, b := range cases {
		if err := b.Validate(); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("Validate(%+v) = %v, want an error naming %s", b, err, field)
		}
	}
	for _, m := range []float64{math.NaN(), math.Inf(1)} {
		if err := (Backoff{Base: time.Second, Multiplier: m}).Validate(); err == nil {
			t.Errorf("multiplier %v was accepted", m)
		}
	}
}
