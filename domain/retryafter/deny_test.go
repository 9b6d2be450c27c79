package retryafter

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

func fixed(u float64) func() float64 { return func() float64 { return u } }

var (
	concurrency = LimitDefinition{Kind: LimitConcurrency, TimeoutSeconds: 30}
	rolling     = LimitDefinition{Kind: LimitRolling, WindowSeconds: 1}
)

func TestTheDefaultRetryPolicyIsTheADRsAndValid(t *testing.T) {
	p := DefaultRetryPolicy()
	want := RetryPolicy{
		Concurrency: BackoffPolicy{BaseMs: 50, MaxMs: 2000, Factor: 2, JitterMs: 25},
		Rolling:     BackoffPolicy{BaseMs: 100, MaxMs: 5000, Factor: 1.5, JitterMs: 50, WindowFraction: 0.1},
	}
	if p != want {
		t.Errorf("got %+v", p)
	}
	if err := p.Validate(); err != nil {
		t.Error(err)
	}
}

func TestRetryPolicyValidateListsEveryProblem(t *testing.T) {
	p := RetryPolicy{
		Concurrency: BackoffPolicy{BaseMs: 0, MaxMs: 0, Factor: 0.5, JitterMs: -1},
		Rolling:     BackoffPolicy{BaseMs: 100, MaxMs: 50, Factor: math.NaN(), WindowFraction: 2},
	}
	got := problemParams(t, p.Validate())
	want := []string{
		"retry_policy.concurrency.base_ms", "retry_policy.concurrency.max_ms", "retry_policy.concurrency.factor",
		"retry_policy.concurrency.jitter_ms", "retry_policy.rolling.max_ms", "retry_policy.rolling.factor",
		"retry_policy.rolling.window_fraction",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestConcurrencyBackoffGrowsByTheFactorUntilTheCap(t *testing.T) {
	cfg := DefaultRetryPolicy()
	want := []int{50, 100, 200, 400, 800, 1600, 2000, 2000, 2000} // streak 0..8, no jitter drawn
	for streak, w := range want {
		if got := RetryAfterMs(concurrency, streak, cfg, fixed(0)); got != w {
			t.Errorf("streak %d: %d ms, want %d", streak, got, w)
		}
	}
	if got := RetryAfterMs(concurrency, 1_000_000, cfg, fixed(0)); got != 2000 {
		t.Errorf("a huge streak: %d ms, want the cap 2000", got)
	}
	if got := RetryAfterMs(concurrency, -3, cfg, fixed(0)); got != 50 {
		t.Errorf("a negative streak: %d ms, want base 50", got)
	}
}

func TestConcurrencyBackoffIsCappedByTheLimitsTimeout(t *testing.T) {
	cfg := DefaultRetryPolicy()
	def := LimitDefinition{Kind: LimitConcurrency, TimeoutSeconds: 1}
	if got := RetryAfterMs(def, 10, cfg, fixed(0.99)); got > 1000 {
		t.Errorf("timeout 1 s: %d ms", got)
	}
	if got := RetryAfterMs(LimitDefinition{Kind: LimitConcurrency}, 10, cfg, fixed(0)); got != 2000 {
		t.Errorf("no timeout: %d ms, want max_ms", got)
	}
	// A cap below the base wins over the base.
	cfg.Concurrency.BaseMs = 1500
	if got := RetryAfterMs(def, 0, cfg, fixed(0.5)); got > 1000 {
		t.Errorf("cap 1000 under base 1500: %d ms", got)
	}
}

func TestRollingBackoffStartsAtAFractionOfTheWindow(t *testing.T) {
	cfg := DefaultRetryPolicy()
	cases := []struct {
		window, streak, want int
	}{
		{1, 0, 100},    // 10% of 1 s = 100 = base
		{1, 1, 150},    // × 1.5
		{1, 2, 225},    //
		{10, 0, 1000},  // 10% of 10 s
		{10, 1, 1500},  //
		{10, 4, 5000},  // 5062 capped
		{0, 3, 337},    // no window: base 100 × 1.5³ = 337.5
		{60, 0, 5000},  // 6000 ms base is above max: the cap wins
		{1e9, 0, 5000}, // absurd window
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("a %d s window at streak %d is told %d ms", c.window, c.streak, c.want), func(t *testing.T) {
			def := LimitDefinition{Kind: LimitRolling, WindowSeconds: c.window}
			if got := RetryAfterMs(def, c.streak, cfg, fixed(0)); got != c.want {
				t.Errorf("got %d ms", got)
			}
		})
	}
}

func TestAnUnknownLimitKindGetsTheBase(t *testing.T) {
	if got := RetryAfterMs(LimitDefinition{}, 5, DefaultRetryPolicy(), fixed(0.9)); got != 50 {
		t.Errorf("got %d", got)
	}
	if LimitConcurrency.String() != "concurrency" || LimitRolling.String() != "rolling" || (LimitKind{}).String() != "unknown" {
		t.Error("limit kind names")
	}
}

func TestJitterIsAddedBelowTheCapAndSubtractedAtIt(t *testing.T) {
	cfg := DefaultRetryPolicy()
	if got := RetryAfterMs(concurrency, 0, cfg, fixed(0.999)); got != 75 {
		t.Errorf("base 50 + full jitter 25: got %d", got)
	}
	if got := RetryAfterMs(concurrency, 0, cfg, fixed(0.5)); got != 50+13 {
		t.Errorf("base 50 + half jitter: got %d", got)
	}
	if got := RetryAfterMs(concurrency, 20, cfg, fixed(0.999)); got != 2000-25 {
		t.Errorf("at the cap, full jitter is subtracted: got %d", got)
	}
	if got := RetryAfterMs(concurrency, 20, cfg, fixed(0)); got != 2000 {
		t.Errorf("at the cap, no jitter: got %d", got)
	}
}

func TestJitterNeverPushesAHintPastItsCap(t *testing.T) {
	// Property: for any draw, streak, and limit, base' <= hint <= cap and |hint - unjittered| <= jitter.
	r := rand.New(rand.NewPCG(1, 2))
	policies := []RetryPolicy{DefaultRetryPolicy(), {
		Concurrency: BackoffPolicy{BaseMs: 10, MaxMs: 30, Factor: 3, JitterMs: 100},
		Rolling:     BackoffPolicy{BaseMs: 1, MaxMs: 7, Factor: 1.1, JitterMs: 7, WindowFraction: 1},
	}}
	defs := []LimitDefinition{concurrency, rolling, {Kind: LimitConcurrency, TimeoutSeconds: 1}, {Kind: LimitRolling, WindowSeconds: 30}}
	for i := range 200_000 {
		p := policies[i%len(policies)]
		def := defs[r.IntN(len(defs))]
		streak := r.IntN(40) - 2
		u := r.Float64()
		got := RetryAfterMs(def, streak, p, fixed(u))
		plain := RetryAfterMs(def, streak, noJitter(p), nil)
		bp := p.Concurrency
		capMs := min(bp.MaxMs, def.TimeoutSeconds*1000)
		if def.TimeoutSeconds == 0 {
			capMs = bp.MaxMs
		}
		if def.Kind == LimitRolling {
			bp, capMs = p.Rolling, p.Rolling.MaxMs
		}
		if got > capMs || got < 1 || got < min(bp.BaseMs, capMs) {
			t.Fatalf("def %+v streak %d u %v: %d ms outside [base, cap %d]", def, streak, u, got, capMs)
		}
		if d := got - plain; d > bp.JitterMs || -d > bp.JitterMs {
			t.Fatalf("def %+v streak %d u %v: %d ms is %d from the unjittered %d", def, streak, u, got, d, plain)
		}
	}
}

func noJitter(p RetryPolicy) RetryPolicy {
	p.Concurrency.JitterMs, p.Rolling.JitterMs = 0, 0
	return p
}

func TestJitterSpreadsHintsAtTheCap(t *testing.T) {
	seen := map[int]bool{}
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		seen[RetryAfterMs(concurrency, 30, DefaultRetryPolicy(), r.Float64)] = true
	}
	if len(seen) < 20 {
		t.Errorf("only %d distinct hints at the cap: clients would retry in lock-step", len(seen))
	}
}

func TestABadRandomSourceCannotBreakTheBounds(t *testing.T) {
	for _, u := range []float64{-1, 1, 2, math.NaN(), math.Inf(1), math.Inf(-1)} {
		for streak := range 12 {
			got := RetryAfterMs(concurrency, streak, DefaultRetryPolicy(), fixed(u))
			if got < 50 || got > 2000 {
				t.Errorf("u=%v streak %d: %d ms", u, streak, got)
			}
		}
	}
	// nil uses math/rand/v2.
	if got := RetryAfterMs(concurrency, 0, DefaultRetryPolicy(), nil); got < 50 || got > 75 {
		t.Errorf("nil source: %d ms", got)
	}
}

func TestAnInvalidPolicyStillGivesAPositiveHint(t *testing.T) {
	bad := RetryPolicy{Concurrency: BackoffPolicy{BaseMs: -5, MaxMs: -1, Factor: math.NaN(), JitterMs: -7},
		Rolling: BackoffPolicy{Factor: math.Inf(1), JitterMs: 1 << 40, WindowFraction: math.NaN()}}
	for _, def := range []LimitDefinition{concurrency, rolling, {}} {
		for streak := range 70 {
			if got := RetryAfterMs(def, streak, bad, fixed(0.7)); got < 1 {
				t.Errorf("%+v streak %d: %d", def, streak, got)
			}
		}
	}
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestAStreakGrowsWithEachDenyAndHalvesOnAnAllow(t *testing.T) {
	tr := NewDenyTracker(TrackerConfig{HalfLife: time.Minute, IdleTTL: time.Hour})
	for i := 1; i <= 9; i++ {
		if got := tr.Increment("k", t0); got != i {
			t.Fatalf("deny %d: streak %d", i, got)
		}
	}
	for _, want := range []int{4, 2, 1, 0, 0} {
		if got := tr.Decay("k", t0); got != want {
			t.Errorf("allow: streak %d, want %d", got, want)
		}
	}
	if tr.Len() != 0 {
		t.Errorf("a key whose streak reached 0 is still held (%d keys)", tr.Len())
	}
	if got := tr.Increment("k", t0); got != 1 {
		t.Errorf("a new streak starts at %d", got)
	}
}

func TestAStreakHalvesForEveryHalfLifeWithoutADeny(t *testing.T) {
	tr := NewDenyTracker(TrackerConfig{HalfLife: 10 * time.Second, IdleTTL: time.Hour})
	for range 16 {
		tr.Increment("k", t0)
	}
	cases := []struct {
		after time.Duration
		want  int
	}{
		{9 * time.Second, 16}, {10 * time.Second, 8}, {29 * time.Second, 4}, {30 * time.Second, 2}, {40 * time.Second, 1}, {50 * time.Second, 0},
	}
	for _, c := range cases {
		if got := tr.Streak("k", t0.Add(c.after)); got != c.want {
			t.Errorf("after %v: streak %d, want %d", c.after, got, c.want)
		}
	}
	// A deny after 25 s starts from the decayed streak (16 -> 4) and adds one.
	tr2 := NewDenyTracker(TrackerConfig{HalfLife: 10 * time.Second, IdleTTL: time.Hour})
	for range 16 {
		tr2.Increment("k", t0)
	}
	if got := tr2.Increment("k", t0.Add(25*time.Second)); got != 5 {
		t.Errorf("deny after 25 s: streak %d, want 5", got)
	}
	// A clock that goes backwards decays nothing and breaks nothing.
	if got := tr2.Increment("k", t0); got != 6 {
		t.Errorf("deny with an earlier clock: streak %d, want 6", got)
	}
	// A very long silence resets.
	if got := tr2.Streak("k", t0.Add(1000*time.Hour)); got != 0 {
		t.Errorf("after 1000 h: %d", got)
	}
}

func TestNegativeHalfLifeDisablesTimeDecay(t *testing.T) {
	tr := NewDenyTracker(TrackerConfig{HalfLife: -1, IdleTTL: 24 * time.Hour})
	tr.Increment("k", t0)
	tr.Increment("k", t0)
	if got := tr.Increment("k", t0.Add(time.Hour)); got != 3 {
		t.Errorf("got %d", got)
	}
}

func TestAStreakIsCapped(t *testing.T) {
	tr := NewDenyTracker(TrackerConfig{})
	got := 0
	for range MaxStreak + 10 {
		got = tr.Increment("k", t0)
	}
	if got != MaxStreak {
		t.Errorf("streak %d, want %d", got, MaxStreak)
	}
}

func TestIdleKeysAreEvicted(t *testing.T) {
	tr := NewDenyTracker(TrackerConfig{HalfLife: time.Hour, IdleTTL: time.Minute})
	tr.Increment("old", t0)
	tr.Increment("newer", t0.Add(30*time.Second))
	if got := tr.Streak("old", t0.Add(time.Minute)); got != 0 {
		t.Errorf("an idle key still reports streak %d", got)
	}
	tr.Increment("fresh", t0.Add(61*time.Second)) // sweeps "old" on the way
	if tr.Len() != 2 {
		t.Errorf("%d keys after the idle one should be gone", tr.Len())
	}
	if n := tr.Sweep(t0.Add(91 * time.Second)); n != 1 || tr.Len() != 1 {
		t.Errorf("Sweep dropped %d, %d left; want 1 and 1", n, tr.Len())
	}
	if got := tr.Increment("old", t0.Add(92*time.Second)); got != 1 {
		t.Errorf("an evicted key comes back with streak %d", got)
	}
}

func TestTheTrackerHoldsAtMostMaxKeys(t *testing.T) {
	tr := NewDenyTracker(TrackerConfig{HalfLife: time.Hour, IdleTTL: time.Hour, MaxKeys: 100})
	for i := range 1000 {
		tr.Increment(LimitKey(strconv.Itoa(i)), t0)
		if tr.Len() > 100 {
			t.Fatalf("%d keys", tr.Len())
		}
	}
	// The least recently touched go first: keys 900..999 remain.
	if tr.Streak("899", t0) != 0 || tr.Streak("900", t0) != 1 || tr.Streak("999", t0) != 1 {
		t.Error("eviction was not least-recently-touched first")
	}
	// Touching a key protects it.
	tr.Increment("900", t0)
	tr.Increment("new", t0)
	if tr.Streak("900", t0) != 2 || tr.Streak("901", t0) != 0 {
		t.Error("a touched key was evicted before an untouched one")
	}
}

func TestTheTrackerIsSafeForConcurrentUse(t *testing.T) {
	tr := NewDenyTracker(TrackerConfig{HalfLife: time.Hour, IdleTTL: time.Hour, MaxKeys: 50})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				key := LimitKey(strconv.Itoa((g*7 + i) % 80))
				now := t0.Add(time.Duration(i) * time.Millisecond)
				if i%3 == 0 {
					tr.Decay(key, now)
				} else {
					tr.Increment(key, now)
				}
				tr.Streak(key, now)
			}
		})
	}
	wg.Wait()
	if tr.Len() > 50 {
		t.Errorf("%d keys", tr.Len())
	}
	tr.Sweep(t0.Add(2 * time.Hour))
	if tr.Len() != 0 {
		t.Errorf("%d keys after a sweep past the TTL", tr.Len())
	}
}

func TestDecayOfAnUnknownKeyIsZero(t *testing.T) {
	tr := NewDenyTracker(TrackerConfig{})
	if got := tr.Decay("nobody", t0); got != 0 || tr.Len() != 0 {
		t.Errorf("got %d with %d keys", got, tr.Len())
	}
}

func TestTrackerAndHintWorkTogether(t *testing.T) {
	// The ADR's usage: each deny increments the streak and the hint grows to the cap.
	tr := NewDenyTracker(TrackerConfig{})
	var last int
	for i := range 10 {
		streak := tr.Increment("client-1", t0.Add(time.Duration(i)*time.Millisecond))
		last = RetryAfterMs(concurrency, streak, DefaultRetryPolicy(), fixed(0))
	}
	if last != 2000 {
		t.Errorf("after 10 denies: %d ms", last)
	}
	var ve *ValidationError
	if errors.As(DefaultRetryPolicy().Validate(), &ve) {
		t.Error("default policy invalid")
	}
}
