package retryafter

import (
	"cmp"
	"container/list"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// This file is ADR 0010: the retry_after_ms hint for a request refused by an inbound limit, when
// the limiter cannot say exactly when room frees up. The hint grows with the key's deny streak
// (capped exponential backoff) and carries jitter so refused clients do not return in lock-step.

// LimitKind is the kind of an inbound limit. Closed; the zero LimitKind is none.
type LimitKind struct{ k uint8 }

var (
	// LimitConcurrency caps requests in flight at once per key.
	LimitConcurrency = LimitKind{1}
	// LimitRolling caps requests per rolling window per key.
	LimitRolling = LimitKind{2}
)

func (k LimitKind) String() string {
	switch k {
	case LimitConcurrency:
		return "concurrency"
	case LimitRolling:
		return "rolling"
	}
	return "unknown"
}

// LimitKey identifies what a limit counts (a client, an API key, a route...).
type LimitKey string

// LimitDefinition is the part of a limit the hint depends on.
type LimitDefinition struct {
	Kind LimitKind
	// TimeoutSeconds (concurrency): the longest a slot is held; the hint never exceeds it.
	// 0 or less means no such bound.
	TimeoutSeconds int
	// WindowSeconds (rolling): the window's length; the base hint is WindowFraction of it.
	WindowSeconds int
}

// BackoffPolicy is the backoff of one limit kind. WindowFraction is used by rolling limits only.
type BackoffPolicy struct {
	BaseMs         int     `json:"base_ms"`
	MaxMs          int     `json:"max_ms"`
	Factor         float64 `json:"factor"`
	JitterMs       int     `json:"jitter_ms"`
	WindowFraction float64 `json:"window_fraction,omitempty"`
}

// RetryPolicy is ADR 0010's retry_policy.
type RetryPolicy struct {
	Concurrency BackoffPolicy `json:"concurrency"`
	Rolling     BackoffPolicy `json:"rolling"`
}

// MaxHintMs bounds max_ms: an hour is already far past any useful retry hint.
const MaxHintMs = 3_600_000

// DefaultRetryPolicy returns ADR 0010's values: concurrency 50 ms base, 2000 ms max, factor 2,
// 25 ms jitter; rolling 100 ms base, 5000 ms max, factor 1.5, 50 ms jitter, 10% of the window.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		Concurrency: BackoffPolicy{BaseMs: 50, MaxMs: 2000, Factor: 2.0, JitterMs: 25},
		Rolling:     BackoffPolicy{BaseMs: 100, MaxMs: 5000, Factor: 1.5, JitterMs: 50, WindowFraction: 0.1},
	}
}

// Validate lists every problem of the policy as a *ValidationError (names like
// "retry_policy.rolling.factor"); nil if usable.
func (p RetryPolicy) Validate() error {
	var ps []Problem
	check := func(prefix string, b BackoffPolicy) {
		add := func(field, issue string, got any) {
			ps = append(ps, Problem{Param: prefix + field, Issue: fmt.Sprintf("must be %s, got %v", issue, got)})
		}
		if b.BaseMs < 1 || b.BaseMs > MaxHintMs {
			add("base_ms", fmt.Sprintf("a whole number of ms, 1 <= value <= %d", MaxHintMs), b.BaseMs)
		}
		if b.MaxMs < max(b.BaseMs, 1) || b.MaxMs > MaxHintMs {
			add("max_ms", fmt.Sprintf("a whole number of ms, base_ms <= value <= %d", MaxHintMs), b.MaxMs)
		}
		if math.IsNaN(b.Factor) || b.Factor < 1 || b.Factor > 10 {
			add("factor", "1 <= value <= 10", b.Factor)
		}
		if b.JitterMs < 0 || b.JitterMs > MaxHintMs {
			add("jitter_ms", fmt.Sprintf("a whole number of ms, 0 <= value <= %d", MaxHintMs), b.JitterMs)
		}
		if math.IsNaN(b.WindowFraction) || b.WindowFraction < 0 || b.WindowFraction > 1 {
			add("window_fraction", "0 <= value <= 1", b.WindowFraction)
		}
	}
	check("retry_policy.concurrency.", p.Concurrency)
	check("retry_policy.rolling.", p.Rolling)
	if len(ps) == 0 {
		return nil
	}
	return &ValidationError{Subject: configSubject, Problems: ps}
}

// RetryAfterMs is ADR 0010's hint for one failed limit, given the key's deny streak (as
// DenyTracker.Increment returns it: 1 on the first deny, so the first hint is base×factor, as
// the ADR's algorithm has it; pass streak-1 to start at base).
//
//   - concurrency: base×factor^streak clamped to [base, min(max_ms, timeout)];
//   - rolling: base' = max(base_ms, window×window_fraction), then base'×factor^streak clamped to
//     [base', max_ms];
//   - any other kind: concurrency's base_ms.
//
// Where a cap is below the base the cap wins. Jitter j is drawn uniformly from [0, jitter_ms]
// with rnd (a source of [0,1); nil means math/rand/v2) and added; if that would pass the cap it
// is subtracted instead (never below the base), so the hint never exceeds the cap and hints at
// the cap still spread out. On a denied request with several failed limits, use the largest.
func RetryAfterMs(def LimitDefinition, streak int, cfg RetryPolicy, rnd func() float64) int {
	switch def.Kind {
	case LimitConcurrency:
		p := cfg.Concurrency
		capMs := p.MaxMs
		if def.TimeoutSeconds > 0 {
			capMs = min(capMs, min(def.TimeoutSeconds, MaxHintMs)*1000)
		}
		return backoffMs(p.BaseMs, capMs, p.Factor, streak, p.JitterMs, rnd)
	case LimitRolling:
		p := cfg.Rolling
		base := p.BaseMs
		if f := p.WindowFraction; f > 0 && def.WindowSeconds > 0 {
			w := float64(min(def.WindowSeconds, MaxHintMs)) * 1000 * min(f, 1)
			base = max(base, int(w))
		}
		return backoffMs(base, p.MaxMs, p.Factor, streak, p.JitterMs, rnd)
	default:
		return max(cfg.Concurrency.BaseMs, 1)
	}
}

func backoffMs(base, capMs int, factor float64, streak, jitter int, rnd func() float64) int {
	capMs = max(capMs, 1)
	base = min(max(base, 1), capMs)
	if !(factor >= 1) { // also NaN
		factor = 1
	}
	v := capMs
	if raw := float64(base) * math.Pow(factor, float64(max(streak, 0))); raw < float64(capMs) {
		v = max(int(raw), base)
	}
	jitter = min(max(jitter, 0), capMs)
	if jitter == 0 {
		return v
	}
	if rnd == nil {
		rnd = rand.Float64
	}
	u := rnd()
	if !(u >= 0) { // also NaN
		u = 0
	}
	if u >= 1 {
		u = math.Nextafter(1, 0)
	}
	j := int(u * float64(jitter+1)) // uniform over 0..jitter
	if v+j <= capMs {
		return v + j
	}
	return max(v-j, base)
}

// TrackerConfig bounds a DenyTracker.
type TrackerConfig struct {
	// HalfLife: a key's streak halves for every HalfLife without a deny. 0 or less: no time decay.
	HalfLife time.Duration
	// IdleTTL: a key not touched for this long is forgotten.
	IdleTTL time.Duration
	// MaxKeys: at most this many keys are held; the least recently touched goes first.
	MaxKeys int
}

// MaxStreak caps a streak: past it every hint is at its cap anyway.
const MaxStreak = 64

// DefaultTrackerConfig: 30 s half-life, 5 min idle TTL, 100 000 keys.
func DefaultTrackerConfig() TrackerConfig {
	return TrackerConfig{HalfLife: 30 * time.Second, IdleTTL: 5 * time.Minute, MaxKeys: 100_000}
}

// DenyTracker keeps a best-effort deny streak per limit key (ADR 0010): not durable, reset on
// restart. It is safe for concurrent use and its memory is bounded by MaxKeys and IdleTTL. Time is
// always passed in ("now"), so it is deterministic under test.
type DenyTracker struct {
	cfg   TrackerConfig
	mu    sync.Mutex
	byKey map[LimitKey]*list.Element
	lru   *list.List // of *denyEntry, most recently touched at the front
}

type denyEntry struct {
	key    LimitKey
	streak int
	anchor time.Time // time decay counts half-lives from here
	seen   time.Time // last touch, for idle eviction
}

// NewDenyTracker returns an empty tracker. Zero fields of cfg take DefaultTrackerConfig's values
// (a negative HalfLife disables time decay).
func NewDenyTracker(cfg TrackerConfig) *DenyTracker {
	def := DefaultTrackerConfig()
	cfg.HalfLife = cmp.Or(cfg.HalfLife, def.HalfLife)
	if cfg.IdleTTL <= 0 {
		cfg.IdleTTL = def.IdleTTL
	}
	if cfg.MaxKeys <= 0 {
		cfg.MaxKeys = def.MaxKeys
	}
	return &DenyTracker{cfg: cfg, byKey: make(map[LimitKey]*list.Element), lru: list.New()}
}

// Increment records a deny for key at now and returns the key's streak (1 on a first deny), after
// the time decay since its last deny.
func (t *DenyTracker) Increment(key LimitKey, now time.Time) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.evictIdle(now)
	el, ok := t.byKey[key]
	if !ok {
		for t.lru.Len() >= t.cfg.MaxKeys {
			t.remove(t.lru.Back())
		}
		el = t.lru.PushFront(&denyEntry{key: key, anchor: now, seen: now})
		t.byKey[key] = el
	}
	e := el.Value.(*denyEntry)
	t.decay(e, now)
	e.streak = min(e.streak+1, MaxStreak)
	e.anchor, e.seen = now, now
	t.lru.MoveToFront(el)
	return e.streak
}

// Decay records an allowed request for key at now: the streak, after time decay, is halved, and
// the key is forgotten when it reaches 0. Returns the new streak.
func (t *DenyTracker) Decay(key LimitKey, now time.Time) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.evictIdle(now)
	el, ok := t.byKey[key]
	if !ok {
		return 0
	}
	e := el.Value.(*denyEntry)
	t.decay(e, now)
	e.streak /= 2
	if e.streak == 0 {
		t.remove(el)
		return 0
	}
	e.seen = now
	t.lru.MoveToFront(el)
	return e.streak
}

// Streak returns key's streak at now (after time decay) without recording anything.
func (t *DenyTracker) Streak(key LimitKey, now time.Time) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	el, ok := t.byKey[key]
	if !ok || now.Sub(el.Value.(*denyEntry).seen) >= t.cfg.IdleTTL {
		return 0
	}
	e := el.Value.(*denyEntry)
	t.decay(e, now)
	return e.streak
}

// Len returns how many keys the tracker holds.
func (t *DenyTracker) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lru.Len()
}

// Sweep forgets every key idle for IdleTTL at now and returns how many it dropped. Increment and
// Decay sweep as they go; Sweep is for a caller that wants memory back during a quiet spell.
func (t *DenyTracker) Sweep(now time.Time) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.evictIdle(now)
}

// evictIdle drops idle entries from the back of the LRU list; amortised O(1) per call.
func (t *DenyTracker) evictIdle(now time.Time) int {
	n := 0
	for el := t.lru.Back(); el != nil; el = t.lru.Back() {
		if now.Sub(el.Value.(*denyEntry).seen) < t.cfg.IdleTTL {
			break
		}
		t.remove(el)
		n++
	}
	return n
}

func (t *DenyTracker) remove(el *list.Element) {
	delete(t.byKey, el.Value.(*denyEntry).key)
	t.lru.Remove(el)
}

// decay halves e's streak once per whole HalfLife since its anchor. A clock that went backwards
// decays nothing.
func (t *DenyTracker) decay(e *denyEntry, now time.Time) {
	if t.cfg.HalfLife <= 0 || !now.After(e.anchor) {
		return
	}
	k := now.Sub(e.anchor) / t.cfg.HalfLife
	switch {
	case k <= 0:
		return
	case k >= 63:
		e.streak, e.anchor = 0, now
	default:
		e.streak >>= uint(k)
		e.anchor = e.anchor.Add(k * t.cfg.HalfLife)
	}
}
