package ratelimit

import (
	crand "crypto/rand"
	"hash/maphash"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"relayer/domain/retryafter"
)

// numShards splits the clients over independently locked maps.
const numShards = 16

// Limiter enforces the per-client limits of a Config. It is safe for concurrent use; SetConfig
// changes the limits at runtime without losing any client's counters.
type Limiter struct {
	now       func() time.Time
	rnd       func() float64
	requestID func(http.ResponseWriter, *http.Request) string
	onDeny    func(http.ResponseWriter, *http.Request, Decision)
	// apiKeys names the client of an issued API key not found in the request's context; nil:
	// such a key names no client.
	apiKeys func(key string) (client string, known bool)

	epoch time.Time
	seed  maphash.Seed
	salt  [32]byte // keys the API-key hash, so internal keys say nothing outside this process

	writeMu sync.Mutex // serialises SetConfig and SetParam
	snap    atomic.Pointer[snapshot]
	shards  [numShards]shard
}

// snapshot is one configuration, resolved for the hot path. Replaced whole by SetConfig. The
// fields Acquire reads come first, the configuration itself after them (BenchmarkAllow/
// 1000_clients was some 6% slower with the fields added to Config in front of them).
type snapshot struct {
	classes   [numClasses]classSnap
	tracker   *retryafter.DenyTracker
	idleAfter int64 // ns: a client with nothing in flight and no request for this long has no state
	shardCap  [numShards]int
	cfg       Config
	// gen counts the snapshots of this limiter: a Client's cache is valid for one generation.
	gen     uint64
	proxies []netip.Prefix // cfg.TrustedProxies, parsed
}

type classSnap struct {
	Limits
	windowNs, timeoutNs int64
	def                 retryafter.LimitDefinition // of the concurrency limit, for the hint
	policy              string                     // RateLimit-Policy value
}

type shard struct {
	mu         sync.Mutex
	m          map[string]*entry
	head, tail *entry // LRU list: most recently touched at head
}

// entry is one client's state. Only its shard's lock guards it.
type entry struct {
	key        string
	last       int64 // last touch
	prev, next *entry
	cls        [numClasses]classState
}

// Option configures a Limiter.
type Option func(*Limiter)

// WithClock sets the clock Middleware reads (default time.Now).
func WithClock(now func() time.Time) Option { return func(l *Limiter) { l.now = now } }

// WithRand sets the source of uniform [0,1) draws for the jitter (default math/rand/v2). It is
// called concurrently, so it must be safe for concurrent use.
func WithRand(rnd func() float64) Option { return func(l *Limiter) { l.rnd = rnd } }

// WithRequestID sets how the denied response's requestId is found from the call's
// ResponseWriter and request (default: the string under RequestIDKey in the request's context,
// else a new random UUID).
func WithRequestID(f func(http.ResponseWriter, *http.Request) string) Option {
	return func(l *Limiter) { l.requestID = f }
}

// WithOnDeny lets the caller write the denied response itself (its own envelope, logging,
// metrics). When it is called, Retry-After, RateLimit and RateLimit-Policy are already set on
// w's header; the hook writes the status and the body (WriteDenied does both the standard way).
func WithOnDeny(f func(w http.ResponseWriter, r *http.Request, d Decision)) Option {
	return func(l *Limiter) { l.onDeny = f }
}

// WithAPIKeys sets the registry of issued API keys: a request whose X-API-Key it knows is the
// client it names, with the server's limits; any other request is keyed by its address. Without
// it, X-API-Key names no client at all: a header anyone can invent must not make anyone a new
// client. A caller that checks the keys itself hands the limiter the client it found, with its
// own limits, through the request's context instead (ContextWithClient); the registry is then
// not asked.
func WithAPIKeys(known func(key string) (client string, ok bool)) Option {
	return func(l *Limiter) { l.apiKeys = known }
}

// New returns a Limiter enforcing cfg, or cfg's *ValidationError.
func New(cfg Config, opts ...Option) (*Limiter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	l := &Limiter{now: time.Now, rnd: rand.Float64, seed: maphash.MakeSeed()}
	for _, o := range opts {
		o(l)
	}
	if l.now == nil {
		l.now = time.Now
	}
	if l.rnd == nil {
		l.rnd = rand.Float64
	}
	if l.requestID == nil {
		l.requestID = requestIDFromContext
	}
	crand.Read(l.salt[:]) // never fails (Go >= 1.24)
	l.epoch = l.now()
	for i := range l.shards {
		l.shards[i].m = make(map[string]*entry)
	}
	l.snap.Store(newSnapshot(cfg.Clone(), nil))
	return l, nil
}

// newSnapshot resolves cfg, which is valid, after prev (nil for the first).
func newSnapshot(cfg Config, prev *snapshot) *snapshot {
	s := &snapshot{cfg: cfg}
	if prev != nil && prev.cfg.MaxKeys == cfg.MaxKeys {
		s.tracker = prev.tracker // keep the streaks
	} else {
		s.tracker = retryafter.NewDenyTracker(retryafter.TrackerConfig{MaxKeys: cfg.MaxKeys})
	}
	if prev != nil {
		s.gen = prev.gen + 1
	}
	for _, p := range cfg.TrustedProxies {
		if pfx, err := parseProxy(p); err == nil { // always: cfg is valid
			s.proxies = append(s.proxies, pfx)
		}
	}
	for _, c := range Classes() {
		cs := newClassSnap(c, cfg.Limits(c))
		s.classes[c] = cs
		s.idleAfter = max(s.idleAfter, cs.windowNs)
	}
	for i := range s.shardCap {
		s.shardCap[i] = cfg.MaxKeys / numShards
		if i < cfg.MaxKeys%numShards {
			s.shardCap[i]++
		}
	}
	return s
}

func newClassSnap(c Class, lim Limits) classSnap {
	return classSnap{
		Limits:    lim,
		windowNs:  int64(lim.RollingWindowSeconds) * int64(time.Second),
		timeoutNs: int64(lim.ConcurrencyTimeoutSeconds) * int64(time.Second),
		def:       retryafter.LimitDefinition{Kind: retryafter.LimitConcurrency, TimeoutSeconds: lim.ConcurrencyTimeoutSeconds},
		policy:    policyHeader(c, lim),
	}
}

// Config returns the configuration in force.
func (l *Limiter) Config() Config { return l.snap.Load().cfg.Clone() }

// SetConfig validates cfg and puts it in force at once for every later request. Counters are
// kept: requests in a window and slots held still count against the new limits (a lowered
// rolling limit denies until enough of the newest requests leave the window; a limit that was
// off has no history). Deny streaks are kept unless max_keys changes.
func (l *Limiter) SetConfig(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	l.snap.Store(newSnapshot(cfg.Clone(), l.snap.Load()))
	return nil
}

// SetParam changes one parameter of the configuration in force (see Config.Set) and returns
// the new configuration. Concurrent calls do not lose each other's changes.
func (l *Limiter) SetParam(name string, value float64) (Config, error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	prev := l.snap.Load()
	next, err := prev.cfg.Set(name, value)
	if err != nil {
		return prev.cfg.Clone(), err
	}
	l.snap.Store(newSnapshot(next, prev))
	return next.Clone(), nil
}

func noop() {}

// Acquire decides one request of class by the client key (ClientKey's value, or any string the
// caller uses to tell clients apart) at now. When allowed, the request is counted in the rolling
// window and holds a concurrency slot until release is called (call it exactly once, deferred, when
// the request is done; later calls do nothing). When denied nothing is counted and release does
// nothing. release is never nil. The server's limits apply; a request of an issued key with
// limits of its own goes through Middleware (see ContextWithClient).
func (l *Limiter) Acquire(key string, class Class, now time.Time) (release func(), d Decision) {
	return l.acquire(key, nil, class, now)
}

// acquire is Acquire with c's own limits when c is not nil.
func (l *Limiter) acquire(key string, c *Client, class Class, now time.Time) (release func(), d Decision) {
	return l.acquireFor(key, c, class, now, nil)
}

// acquireFor is acquire for a request, owner, that holds the slot it takes (ReleaseSlot finds it
// by owner); nil for none.
func (l *Limiter) acquireFor(key string, c *Client, class Class, now time.Time, owner *http.Request) (release func(), d Decision) {
	if class >= numClasses {
		class = ClassWrite
	}
	s := l.snap.Load()
	cs := &s.classes[class]
	if c != nil {
		if cc := c.resolve(l, s); cc.own {
			cs = &cc.classes[class]
		}
	}
	d = Decision{Class: class, policy: cs.policy}
	d.Rolling.Limit, d.Rolling.WindowSeconds = cs.RollingLimit, cs.RollingWindowSeconds
	d.Concurrency.Limit, d.Concurrency.TimeoutSeconds = cs.ConcurrencyLimit, cs.ConcurrencyTimeoutSeconds
	if cs.RollingLimit == 0 && cs.ConcurrencyLimit == 0 {
		d.Allowed = true
		return noop, d
	}
	t := int64(now.Sub(l.epoch))
	idx := int(maphash.String(l.seed, key) % numShards)
	sh := &l.shards[idx]

	sh.mu.Lock()
	defer sh.mu.Unlock()
	e := sh.touch(key, t, s, idx)
	st := &e.cls[class]

	var wait int64 // rolling: ns until the oldest counted request leaves the window
	if cs.RollingLimit > 0 {
		st.log.expire(t - cs.windowNs)
		st.log.trim(cs.RollingLimit)
		if st.log.n >= cs.RollingLimit {
			d.Rolling.Denied = true
			wait = st.log.at(st.log.n-cs.RollingLimit) + cs.windowNs - t
		}
	}
	if cs.ConcurrencyLimit > 0 {
		if cs.timeoutNs > 0 {
			st.expireHeld(t - cs.timeoutNs)
		}
		d.Concurrency.Denied = len(st.held) >= cs.ConcurrencyLimit
	}

	if d.Rolling.Denied || d.Concurrency.Denied {
		if d.Rolling.Denied {
			d.RetryAfterMs = ceilMs(min(max(wait, 1), cs.windowNs))
			d.Exact = true
			d.Rolling.ResetMs = int64(d.RetryAfterMs)
		}
		if d.Concurrency.Denied {
			streak := s.tracker.Increment(streakKey(key, class), now)
			st.streak = true
			hint := retryafter.RetryAfterMs(cs.def, streak, s.cfg.RetryPolicy, l.rnd)
			d.Concurrency.Streak, d.Concurrency.HintMs = streak, hint
			if hint > d.RetryAfterMs {
				d.RetryAfterMs, d.Exact = hint, false
			}
		}
		l.fillState(&d, st, cs, t)
		return noop, d
	}

	d.Allowed = true
	release = noop
	if cs.RollingLimit > 0 {
		st.log.push(t, cs.RollingLimit)
	}
	if cs.ConcurrencyLimit > 0 {
		st.held = append(st.held, slot{at: t, owner: owner})
		release = releaser(sh, e, class, t, owner)
	}
	if st.streak {
		if s.tracker.Decay(streakKey(key, class), now) == 0 {
			st.streak = false
		}
	}
	l.fillState(&d, st, cs, t)
	return release, d
}

func (l *Limiter) fillState(d *Decision, st *classState, cs *classSnap, t int64) {
	if cs.RollingLimit > 0 {
		d.Rolling.Remaining = max(cs.RollingLimit-st.log.n, 0)
		if !d.Rolling.Denied && st.log.n > 0 {
			d.Rolling.ResetMs = int64(ceilMs(min(max(st.log.at(0)+cs.windowNs-t, 0), cs.windowNs)))
		}
	}
	if cs.ConcurrencyLimit > 0 {
		d.Concurrency.InFlight = len(st.held)
	}
}

func releaser(sh *shard, e *entry, class Class, t int64, owner *http.Request) func() {
	var done atomic.Bool
	return func() {
		if done.Swap(true) {
			return
		}
		sh.mu.Lock()
		e.cls[class].releaseHeld(t, owner)
		sh.mu.Unlock()
	}
}

func streakKey(key string, class Class) retryafter.LimitKey {
	return retryafter.LimitKey(key + "\x00" + class.String())
}

// ceilMs is ns rounded up to whole ms (for a wait: never early).
func ceilMs(ns int64) int {
	return int((ns + int64(time.Millisecond) - 1) / int64(time.Millisecond))
}

// touch returns key's entry, created if need be, marked as the most recently used. On the way it
// drops idle clients from the LRU end and, when the shard is full, evicts to make room.
func (sh *shard) touch(key string, t int64, s *snapshot, idx int) *entry {
	for sh.tail != nil && sh.tail.idle(t, s.idleAfter) {
		sh.remove(sh.tail)
	}
	if e, ok := sh.m[key]; ok {
		e.last = t
		sh.moveToFront(e)
		return e
	}
	for len(sh.m) >= s.shardCap[idx] && sh.tail != nil {
		sh.remove(sh.victim())
	}
	e := &entry{key: key, last: t}
	sh.m[key] = e
	sh.pushFront(e)
	return e
}

// victim is the entry to evict from a full shard: the least recently used one with no slot in
// flight among the last few, else the least recently used. Evicting forgets that client's window
// (it may get a fresh quota early); a released slot of an evicted client changes nothing.
func (sh *shard) victim() *entry {
	e := sh.tail
	for i := 0; e != nil && i < 8; i, e = i+1, e.prev {
		if !e.holding() {
			return e
		}
	}
	return sh.tail
}

func (e *entry) holding() bool {
	for i := range e.cls {
		if len(e.cls[i].held) > 0 {
			return true
		}
	}
	return false
}

// idle: nothing in flight and no request within the longest window, so the entry carries nothing
// a fresh one would not.
func (e *entry) idle(t, idleAfter int64) bool {
	return t-e.last >= idleAfter && !e.holding()
}

func (sh *shard) pushFront(e *entry) {
	e.prev, e.next = nil, sh.head
	if sh.head != nil {
		sh.head.prev = e
	}
	sh.head = e
	if sh.tail == nil {
		sh.tail = e
	}
}

func (sh *shard) unlink(e *entry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		sh.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		sh.tail = e.prev
	}
	e.prev, e.next = nil, nil
}

func (sh *shard) moveToFront(e *entry) {
	if sh.head == e {
		return
	}
	sh.unlink(e)
	sh.pushFront(e)
}

func (sh *shard) remove(e *entry) {
	sh.unlink(e)
	delete(sh.m, e.key)
}

// Len returns how many clients the limiter tracks.
func (l *Limiter) Len() int {
	n := 0
	for i := range l.shards {
		sh := &l.shards[i]
		sh.mu.Lock()
		n += len(sh.m)
		sh.mu.Unlock()
	}
	return n
}

// Sweep forgets every idle client at now (nothing in flight, no request within the longest
// window) and returns how many it dropped. Acquire drops idle clients as it goes; Sweep gives
// memory back during a quiet spell, and also trims the deny streaks idle past their TTL.
func (l *Limiter) Sweep(now time.Time) int {
	s := l.snap.Load()
	t := int64(now.Sub(l.epoch))
	n := 0
	for i := range l.shards {
		sh := &l.shards[i]
		sh.mu.Lock()
		for e := sh.tail; e != nil; {
			prev := e.prev
			if e.idle(t, s.idleAfter) {
				sh.remove(e)
				n++
			}
			e = prev
		}
		sh.mu.Unlock()
	}
	s.tracker.Sweep(now)
	return n
}
