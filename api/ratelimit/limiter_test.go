package ratelimit

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"relayer/domain/retryafter"
)

func TestRollingLimitAllowsNThenDeniesWithTheExactWaitUntilTheOldestRequestLeaves(t *testing.T) {
	l := mustNew(t, cfgWith(0, 3, 10))
	for i, at := range []time.Duration{0, time.Second, 2500 * time.Millisecond} {
		_, d := l.Acquire("c", ClassWrite, t0.Add(at))
		if !d.Allowed || d.Rolling.Remaining != 2-i {
			t.Fatalf("request %d: %+v", i+1, d)
		}
	}
	cases := []struct {
		at   time.Duration
		want int // ms
	}{
		{4 * time.Second, 6000}, // the first (t0) leaves at t0+10 s
		{9*time.Second + 250*time.Millisecond, 750},
		{10*time.Second - time.Millisecond, 1},
		{10*time.Second - 300*time.Microsecond, 1}, // rounded up, never early
	}
	for _, c := range cases {
		_, d := l.Acquire("c", ClassWrite, t0.Add(c.at))
		if d.Allowed || !d.Exact || !d.Rolling.Denied || d.RetryAfterMs != c.want || d.Rolling.Remaining != 0 {
			t.Errorf("at +%v: %+v, want denied with exactly %d ms", c.at, d, c.want)
		}
	}
	// Exactly when the hint said, the oldest request has left and one more fits.
	if _, d := l.Acquire("c", ClassWrite, t0.Add(10*time.Second)); !d.Allowed {
		t.Fatalf("at +10 s: %+v", d)
	}
	// Now the window holds +1 s, +2.5 s and +10 s: the next to leave is +1 s, at +11 s.
	if _, d := l.Acquire("c", ClassWrite, t0.Add(10500*time.Millisecond)); d.Allowed || d.RetryAfterMs != 500 {
		t.Errorf("at +10.5 s: %+v, want 500 ms", d)
	}
}

func TestDeniedRequestsDoNotCountAgainstTheWindow(t *testing.T) {
	l := mustNew(t, cfgWith(0, 1, 10))
	l.Acquire("c", ClassWrite, t0)
	for i := range 100 {
		if _, d := l.Acquire("c", ClassWrite, t0.Add(time.Duration(i)*50*time.Millisecond)); d.Allowed {
			t.Fatalf("deny %d allowed", i)
		}
	}
	if _, d := l.Acquire("c", ClassWrite, t0.Add(10*time.Second)); !d.Allowed {
		t.Errorf("hammering while denied pushed the window: %+v", d)
	}
}

func TestAllowedDecisionsTellWhenTheNextUnitOfQuotaReturns(t *testing.T) {
	l := mustNew(t, cfgWith(0, 5, 10))
	l.Acquire("c", ClassWrite, t0)
	_, d := l.Acquire("c", ClassWrite, t0.Add(2200*time.Millisecond))
	if !d.Allowed || d.Rolling.Remaining != 3 || d.Rolling.ResetMs != 7800 {
		t.Errorf("got %+v, want 3 remaining and 7800 ms until t0's request leaves", d.Rolling)
	}
	if got := d.RateLimit(); got != `"write-rolling";r=3;t=8` {
		t.Errorf("RateLimit %q", got)
	}
}

func TestConcurrencyLimitDeniesWhileSlotsAreHeldAndFreesThemOnRelease(t *testing.T) {
	l := mustNew(t, cfgWith(2, 0, 10))
	r1, d1 := l.Acquire("c", ClassWrite, t0)
	r2, d2 := l.Acquire("c", ClassWrite, t0)
	if !d1.Allowed || !d2.Allowed || d2.Concurrency.InFlight != 2 {
		t.Fatalf("%+v %+v", d1, d2)
	}
	r3, d3 := l.Acquire("c", ClassWrite, t0)
	if d3.Allowed || d3.Exact || !d3.Concurrency.Denied || d3.RetryAfterMs < 1 {
		t.Fatalf("third while two held: %+v", d3)
	}
	r3() // a denied request's release is a no-op
	r1()
	r1() // a second release of the same slot changes nothing
	r4, d4 := l.Acquire("c", ClassWrite, t0)
	if !d4.Allowed {
		t.Fatalf("after a release: %+v", d4)
	}
	if _, d := l.Acquire("c", ClassWrite, t0); d.Allowed {
		t.Fatalf("the double release freed a second slot: %+v", d)
	}
	r2()
	r4()
	if _, d := l.Acquire("c", ClassWrite, t0); !d.Allowed || d.Concurrency.InFlight != 1 {
		t.Errorf("after all released: %+v", d)
	}
}

func TestAHeldSlotStopsCountingAfterTheConcurrencyTimeout(t *testing.T) {
	cfg := cfgWith(1, 0, 10)
	cfg.ConcurrencyTimeoutSeconds = 2
	l := mustNew(t, cfg)
	stuck, _ := l.Acquire("c", ClassWrite, t0)
	if _, d := l.Acquire("c", ClassWrite, t0.Add(1999*time.Millisecond)); d.Allowed {
		t.Fatal("allowed while the slot is held and fresh")
	}
	r, d := l.Acquire("c", ClassWrite, t0.Add(2*time.Second))
	if !d.Allowed {
		t.Fatalf("the slot did not expire: %+v", d)
	}
	stuck() // the expired slot's late release must not free the new one
	if _, d := l.Acquire("c", ClassWrite, t0.Add(2500*time.Millisecond)); d.Allowed {
		t.Fatal("a late release freed someone else's slot")
	}
	r()
}

func TestStreakHintGrowsWithConsecutiveDeniesAndIsCapped(t *testing.T) {
	cfg := cfgWith(1, 0, 10)
	cfg.ConcurrencyTimeoutSeconds = 30
	l := mustNew(t, cfg, WithRand(fixed(0)))
	hold, _ := l.Acquire("c", ClassWrite, t0)
	defer hold()
	// ADR 0010 with the default policy: base 50 ms × 2^streak, capped at max_ms 2000; the
	// tracker's first streak is 1.
	want := []int{100, 200, 400, 800, 1600, 2000, 2000, 2000}
	for i, w := range want {
		_, d := l.Acquire("c", ClassWrite, t0.Add(time.Duration(i)*time.Millisecond))
		if d.Allowed || d.Exact || d.Concurrency.Streak != i+1 || d.RetryAfterMs != w {
			t.Errorf("deny %d: streak %d, %d ms (exact %v), want streak %d, %d ms", i+1, d.Concurrency.Streak, d.RetryAfterMs, d.Exact, i+1, w)
		}
	}
	// The concurrency timeout caps the hint below max_ms.
	cfg.ConcurrencyTimeoutSeconds = 1
	l2 := mustNew(t, cfg, WithRand(fixed(0.999)))
	h2, _ := l2.Acquire("c", ClassWrite, t0)
	defer h2()
	for i := range 20 {
		if _, d := l2.Acquire("c", ClassWrite, t0); d.RetryAfterMs > 1000 {
			t.Fatalf("deny %d: %d ms past the 1 s timeout", i+1, d.RetryAfterMs)
		}
	}
}

func TestJitterIsRealAndNeverPushesTheHintPastTheCap(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 2))
	var mu sync.Mutex
	draw := func() float64 { mu.Lock(); defer mu.Unlock(); return src.Float64() }
	l := mustNew(t, cfgWith(1, 0, 10), WithRand(rand.Float64)) // the real source
	for trial := range 400 {
		cfg := cfgWith(1, 0, 10)
		p := &cfg.RetryPolicy.Concurrency
		p.BaseMs = 1 + int(draw()*500)
		p.MaxMs = p.BaseMs + int(draw()*3000)
		p.Factor = 1 + draw()*3
		p.JitterMs = int(draw() * 1500)
		cfg.ConcurrencyTimeoutSeconds = int(draw() * 4) // 0: no timeout cap
		if err := l.SetConfig(cfg); err != nil {
			t.Fatal(err)
		}
		capMs := p.MaxMs
		if cfg.ConcurrencyTimeoutSeconds > 0 {
			capMs = min(capMs, cfg.ConcurrencyTimeoutSeconds*1000)
		}
		key := fmt.Sprint("client-", trial)
		hold, _ := l.Acquire(key, ClassWrite, t0)
		for range 50 {
			_, d := l.Acquire(key, ClassWrite, t0)
			if d.Allowed {
				t.Fatal("allowed while held")
			}
			if d.RetryAfterMs > capMs || d.RetryAfterMs < min(p.BaseMs, capMs) {
				t.Fatalf("trial %d %+v timeout %d: hint %d ms outside [%d, %d]", trial, *p, cfg.ConcurrencyTimeoutSeconds, d.RetryAfterMs, min(p.BaseMs, capMs), capMs)
			}
			if d.RetryAfterSeconds() > (capMs+999)/1000 {
				t.Fatalf("Retry-After %d s past the cap %d ms", d.RetryAfterSeconds(), capMs)
			}
		}
		hold()
	}
	// At the cap the hints still spread out (jitter subtracted), so the draws are real.
	cfg := cfgWith(1, 0, 10)
	cfg.RetryPolicy.Concurrency = retryafter.BackoffPolicy{BaseMs: 50, MaxMs: 2000, Factor: 2, JitterMs: 500}
	if err := l.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	hold, _ := l.Acquire("spread", ClassWrite, t0)
	defer hold()
	atCap := map[int]bool{}
	for range 200 {
		_, d := l.Acquire("spread", ClassWrite, t0)
		if d.Concurrency.Streak >= 6 {
			atCap[d.RetryAfterMs] = true
		}
	}
	if len(atCap) < 20 {
		t.Errorf("only %d distinct hints at the cap over 190 draws: the jitter is not random", len(atCap))
	}
}

func TestStreakDecaysOnAllow(t *testing.T) {
	l := mustNew(t, cfgWith(1, 0, 10), WithRand(fixed(0)))
	hold, _ := l.Acquire("c", ClassWrite, t0)
	for range 5 {
		l.Acquire("c", ClassWrite, t0)
	}
	hold()
	hold, d := l.Acquire("c", ClassWrite, t0) // allowed: the streak halves, 5 -> 2
	if !d.Allowed {
		t.Fatal(d)
	}
	if _, d = l.Acquire("c", ClassWrite, t0); d.Concurrency.Streak != 3 || d.RetryAfterMs != 400 {
		t.Errorf("after one allow: streak %d, %d ms; want 3, 400 ms", d.Concurrency.Streak, d.RetryAfterMs)
	}
	// Allows until the streak is gone: the next deny starts over.
	for range 3 {
		hold()
		hold, _ = l.Acquire("c", ClassWrite, t0)
	}
	if _, d = l.Acquire("c", ClassWrite, t0); d.Concurrency.Streak != 1 || d.RetryAfterMs != 100 {
		t.Errorf("after the streak decayed: streak %d, %d ms; want 1, 100 ms", d.Concurrency.Streak, d.RetryAfterMs)
	}
	hold()
	if n := l.snap.Load().tracker.Len(); n != 1 {
		t.Errorf("tracker holds %d keys", n)
	}
}

func TestWhenBothLimitsDenyTheLargerHintWins(t *testing.T) {
	cfg := cfgWith(1, 2, 10)
	l := mustNew(t, cfg, WithRand(fixed(0)))
	r, _ := l.Acquire("c", ClassWrite, t0)
	r()
	hold, _ := l.Acquire("c", ClassWrite, t0.Add(time.Second))
	defer hold()
	_, d := l.Acquire("c", ClassWrite, t0.Add(2*time.Second))
	if !d.Rolling.Denied || !d.Concurrency.Denied {
		t.Fatalf("%+v", d)
	}
	if d.RetryAfterMs != 8000 || !d.Exact || d.Concurrency.HintMs != 100 {
		t.Errorf("got %d ms (exact %v, concurrency %d ms), want the rolling 8000 ms", d.RetryAfterMs, d.Exact, d.Concurrency.HintMs)
	}
	// Just before the oldest leaves, the rolling wait is 1 ms and the backoff wins.
	_, d = l.Acquire("c", ClassWrite, t0.Add(10*time.Second-time.Millisecond))
	if !d.Rolling.Denied || d.Rolling.ResetMs != 1 || d.RetryAfterMs != d.Concurrency.HintMs || d.Exact || d.RetryAfterMs != 200 {
		t.Errorf("got %+v, want the concurrency hint 200 ms", d)
	}
}

func TestClientsAndClassesHaveSeparateCounters(t *testing.T) {
	cfg := cfgWith(0, 2, 10)
	cfg.Read.RollingLimit = ptr(3)
	l := mustNew(t, cfg)
	for range 2 {
		l.Acquire("a", ClassWrite, t0)
	}
	if _, d := l.Acquire("a", ClassWrite, t0); d.Allowed {
		t.Fatal("a's third write allowed")
	}
	if _, d := l.Acquire("b", ClassWrite, t0); !d.Allowed || d.Rolling.Remaining != 1 {
		t.Errorf("b is limited by a's writes: %+v", d)
	}
	for i := range 3 {
		if _, d := l.Acquire("a", ClassRead, t0); !d.Allowed || d.Rolling.Limit != 3 {
			t.Errorf("a's read %d: %+v", i+1, d)
		}
	}
	if _, d := l.Acquire("a", ClassRead, t0); d.Allowed {
		t.Error("a's fourth read allowed")
	}
}

func TestSetConfigTakesEffectAtOnceWithoutLosingCounters(t *testing.T) {
	base := func(conc, roll int) Config {
		c := cfgWith(conc, roll, 10)
		c.Read.RollingLimit = ptr(100)
		return c
	}
	l := mustNew(t, base(2, 10))
	for i := range 5 {
		hit(l, "c", ClassWrite, t0.Add(time.Duration(i)*time.Second))
	}
	h1, _ := l.Acquire("c", ClassRead, t0)
	h2, _ := l.Acquire("c", ClassRead, t0)

	// Lower the rolling limit to 3: the five requests still count; the next one may start when
	// only two of them are left, i.e. when the one at +2 s leaves (+12 s).
	cfg := base(2, 3)
	if err := l.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	_, d := l.Acquire("c", ClassWrite, t0.Add(5*time.Second))
	if d.Allowed || d.RetryAfterMs != 7000 || d.Rolling.Limit != 3 {
		t.Fatalf("after lowering: %+v, want denied for 7000 ms", d)
	}
	if d = hit(l, "c", ClassWrite, t0.Add(12*time.Second)); !d.Allowed {
		t.Fatalf("at the hinted time: %+v", d)
	}
	// The slots held before the change count against the new concurrency limit.
	if _, d = l.Acquire("c", ClassRead, t0); d.Allowed {
		t.Fatal("a third read slot with two held")
	}
	cfg.ConcurrencyLimit = 3
	if err := l.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	h3, d := l.Acquire("c", ClassRead, t0)
	if !d.Allowed || d.Concurrency.InFlight != 3 {
		t.Fatalf("after raising: %+v", d)
	}
	cfg.ConcurrencyLimit = 1
	_ = l.SetConfig(cfg)
	h1()
	h2()
	if _, d = l.Acquire("c", ClassRead, t0); d.Allowed {
		t.Fatal("allowed with one slot held and a limit of 1")
	}
	h3()
	if _, d = l.Acquire("c", ClassRead, t0); !d.Allowed {
		t.Fatal("denied with nothing held")
	}
	if got := l.Config(); got.ConcurrencyLimit != 1 || got.RollingLimit != 3 {
		t.Errorf("Config() = %+v", got)
	}
	if err := l.SetConfig(Config{}); err == nil {
		t.Error("an invalid config was accepted")
	}
	if got := l.Config(); got.ConcurrencyLimit != 1 {
		t.Error("a refused config changed the limits")
	}
}

func TestSetParamChangesOneLimitAtRuntime(t *testing.T) {
	l := mustNew(t, cfgWith(0, 2, 10))
	l.Acquire("c", ClassRead, t0)
	l.Acquire("c", ClassRead, t0)
	if _, err := l.SetParam("read.rolling_limit", 3); err != nil {
		t.Fatal(err)
	}
	if _, d := l.Acquire("c", ClassRead, t0); !d.Allowed || d.Rolling.Remaining != 0 {
		t.Errorf("%+v", d)
	}
	if _, d := l.Acquire("c", ClassWrite, t0); !d.Allowed || d.Rolling.Limit != 2 {
		t.Errorf("the write class changed: %+v", d)
	}
	if _, err := l.SetParam("rolling_limit", -5); err == nil {
		t.Error("a bad value was accepted")
	}
	if got := l.Config(); got.RollingLimit != 2 || got.Read.RollingLimit == nil || *got.Read.RollingLimit != 3 {
		t.Errorf("Config() = %+v", got)
	}
}

func TestLimitsOffAllowEverythingAndTrackNothing(t *testing.T) {
	l := mustNew(t, cfgWith(0, 0, 10))
	for range 1000 {
		r, d := l.Acquire("c", ClassWrite, t0)
		if !d.Allowed || d.Policy() != "" || d.RateLimit() != "" {
			t.Fatal(d)
		}
		r()
	}
	if l.Len() != 0 {
		t.Errorf("%d keys tracked with every limit off", l.Len())
	}
}

func TestMemoryStaysBoundedUnderManyDistinctKeys(t *testing.T) {
	cfg := cfgWith(1, 5, 10)
	cfg.MaxKeys = 64
	l := mustNew(t, cfg)
	var held []func()
	for i := range 20_000 {
		key := fmt.Sprint("k", i)
		r, _ := l.Acquire(key, ClassWrite, t0)
		if i%100 == 0 {
			held = append(held, r) // some clients hold a slot
		} else {
			r()
		}
		if i%3 == 0 { // a second request: denied when the first holds its slot (a streak), else held
			r2, _ := l.Acquire(key, ClassWrite, t0)
			held = append(held, r2)
		}
		if n := l.Len(); n > 64 {
			t.Fatalf("after %d keys: %d tracked", i+1, n)
		}
	}
	if n := l.snap.Load().tracker.Len(); n > 64 {
		t.Errorf("deny tracker holds %d keys", n)
	}
	// The most recent client's state survived the evictions.
	for range 4 {
		hit(l, "k19999", ClassWrite, t0)
	}
	if _, d := l.Acquire("k19999", ClassWrite, t0); d.Allowed || !d.Rolling.Denied {
		t.Errorf("the most recent client lost its window: %+v", d)
	}
	for _, r := range held {
		r() // releases of evicted clients are harmless
	}
}

func TestIdleKeysAreEvicted(t *testing.T) {
	l := mustNew(t, cfgWith(2, 5, 10)) // max_keys 100 000
	for round := range 10 {
		at := t0.Add(time.Duration(round) * 11 * time.Second) // each round past the last's window
		for i := range 500 {
			r, _ := l.Acquire(fmt.Sprint(round, "/", i), ClassWrite, at)
			r()
		}
		// Each shard drops its idle clients as new ones arrive: only this round's remain.
		if n := l.Len(); n != 500 {
			t.Fatalf("round %d: %d keys tracked, want the 500 active ones", round, n)
		}
	}
	hold, _ := l.Acquire("holder", ClassWrite, t0.Add(100*time.Second)) // round 9's are not idle yet
	if n := l.Sweep(t0.Add(300 * time.Second)); n != 500 {
		t.Errorf("Sweep dropped %d, want 500", n)
	}
	if l.Len() != 1 {
		t.Fatalf("a client holding a slot was evicted as idle (or others were kept): %d", l.Len())
	}
	hold()
	if n := l.Sweep(t0.Add(300 * time.Second)); n != 1 || l.Len() != 0 {
		t.Errorf("after release: dropped %d, %d left", n, l.Len())
	}
}

func TestConcurrentUseIsSafeAndKeepsEveryLimit(t *testing.T) {
	const (
		keys       = 8
		goroutines = 64
		perG       = 500
		concLimit  = 3
		rollLimit  = 200
	)
	clock := newClock()
	l := mustNew(t, cfgWith(concLimit, rollLimit, 3600), WithClock(clock.Now))
	var inFlight, peak [keys]atomic.Int64
	var allowed [keys]atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	go func() { // runtime changes and sweeps that keep the limits
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			cfg := cfgWith(concLimit, rollLimit, 3600)
			cfg.RetryPolicy.Concurrency.JitterMs = i % 100
			_ = l.SetConfig(cfg)
			_, _ = l.SetParam("retry_policy.concurrency.base_ms", float64(1+i%50))
			l.Sweep(clock.Now())
			_ = l.Len()
		}
	}()
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perG {
				k := (g + i) % keys
				release, d := l.Acquire(fmt.Sprint("client-", k), ClassWrite, clock.Now())
				if !d.Allowed {
					continue
				}
				allowed[k].Add(1)
				n := inFlight[k].Add(1)
				for {
					p := peak[k].Load()
					if n <= p || peak[k].CompareAndSwap(p, n) {
						break
					}
				}
				inFlight[k].Add(-1)
				release()
			}
		}()
	}
	wg.Wait()
	close(stop)
	for k := range keys {
		if p := peak[k].Load(); p > concLimit {
			t.Errorf("client %d: %d in flight at once, limit %d", k, p, concLimit)
		}
		if a := allowed[k].Load(); a != rollLimit {
			t.Errorf("client %d: %d allowed in one window, want exactly %d", k, a, rollLimit)
		}
	}
}

// hit is a request that is done at once.
func hit(l *Limiter, key string, class Class, at time.Time) Decision {
	r, d := l.Acquire(key, class, at)
	r()
	return d
}

func TestRetryAfterSecondsIsTheHintRoundedUpAndAtLeastOne(t *testing.T) {
	for _, c := range []struct{ ms, s int }{{1, 1}, {999, 1}, {1000, 1}, {1001, 2}, {7500, 8}, {60000, 60}} {
		d := Decision{RetryAfterMs: c.ms}
		if got := d.RetryAfterSeconds(); got != c.s {
			t.Errorf("%d ms: %d s, want %d", c.ms, got, c.s)
		}
	}
	if got := (Decision{Allowed: true}).RetryAfterSeconds(); got != 0 {
		t.Errorf("allowed: %d", got)
	}
	// Over many exact waits the header and the body agree.
	l := mustNew(t, cfgWith(0, 1, 5))
	l.Acquire("c", ClassWrite, t0)
	for us := int64(1); us < 5_000_000; us += 12_345 {
		_, d := l.Acquire("c", ClassWrite, t0.Add(time.Duration(us)*time.Microsecond))
		wantMs := int((5_000_000 - us + 999) / 1000)
		if d.RetryAfterMs != wantMs || d.RetryAfterSeconds() != (wantMs+999)/1000 || d.RetryAfterSeconds() < 1 {
			t.Fatalf("at +%d µs: %d ms / %d s, want %d ms", us, d.RetryAfterMs, d.RetryAfterSeconds(), wantMs)
		}
	}
}

func TestAnUnknownClassIsLimitedAsAWrite(t *testing.T) {
	l := mustNew(t, cfgWith(0, 1, 10))
	l.Acquire("c", Class(42), t0)
	if _, d := l.Acquire("c", ClassWrite, t0); d.Allowed || d.Class != ClassWrite {
		t.Errorf("%+v", d)
	}
}

func TestALogGivesItsMemoryBackAsABurstLeavesTheWindow(t *testing.T) {
	l := mustNew(t, cfgWith(0, 10_000, 10))
	for i := range 5000 {
		hit(l, "c", ClassWrite, t0.Add(time.Duration(i)*time.Microsecond))
	}
	buf := func() int {
		sh := &l.shards[maphashIndex(l, "c")]
		sh.mu.Lock()
		defer sh.mu.Unlock()
		return len(sh.m["c"].cls[ClassWrite].log.buf)
	}
	if n := buf(); n < 5000 || n > 10_000 {
		t.Fatalf("buffer %d for 5000 requests", n)
	}
	// Ten seconds later the burst has left; one request keeps the client alive.
	if d := hit(l, "c", ClassWrite, t0.Add(11*time.Second)); !d.Allowed || d.Rolling.Remaining != 9999 {
		t.Fatalf("%+v", d)
	}
	if n := buf(); n > 4+16 {
		t.Errorf("buffer still %d entries for 1 request in the window", n)
	}
}

func maphashIndex(l *Limiter, key string) int { return int(maphash.String(l.seed, key) % numShards) }
