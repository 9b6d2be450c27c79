package upstream

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Jitter is how a computed backoff is randomised.
type Jitter string

const (
	// FullJitter waits a uniformly random time in [0, d]: the least contention between clients
	// that failed together. The default.
	FullJitter Jitter = "full"
	// EqualJitter waits d/2 plus a uniformly random time in [0, d/2]: never less than half.
	EqualJitter Jitter = "equal"
)

// Config bounds the retries of one upstream call. A zero field takes its default; Validate
// accepts a zero Config.
type Config struct {
	// MaxAttempts is the most attempts one call makes, the first included (default 5; 1 means
	// no retry).
	MaxAttempts int
	// MaxElapsed bounds a call from its first attempt: a wait that would end after it is not
	// started, and the call ends with its last answer (default 1 minute).
	MaxElapsed time.Duration
	// BaseDelay is the backoff after the first failure of a transient kind (default 250ms); it
	// grows by Multiplier after each further failure, up to MaxDelay, and is jittered. It is
	// also the spread added to a server's wait, so that clients told the same Retry-After do not
	// all come back at the same instant.
	BaseDelay time.Duration
	// RateLimitBaseDelay replaces BaseDelay after a rate limit without a server wait (default
	// 1s): quotas take longer to refill than glitches take to pass.
	RateLimitBaseDelay time.Duration
	// MaxDelay caps the computed backoff, before jitter (default 20s). It never shortens a
	// server's wait: retrying before the server said to is what gets clients banned.
	MaxDelay time.Duration
	// Multiplier is the growth of the backoff per failure (default 2, at least 1).
	Multiplier float64
	// Jitter is FullJitter (default) or EqualJitter.
	Jitter Jitter
	// MaxServerWait caps a wait a server asks for (default 24h), since a Retry-After can say
	// "in 300 years". A call waits for the server only within MaxElapsed; a longer wait ends the
	// call, and Error.ServerWait carries it (capped) so the job's Schedule can wait instead.
	MaxServerWait time.Duration
	// MaxReplayBody is the largest request body Transport buffers to replay it when the request
	// has no GetBody (default 8 MiB); a larger body is sent once, without retries.
	MaxReplayBody int64
	// MaxInspectBody is the largest successful response body Transport reads to look for a
	// JSON-RPC rate-limit error (default 1 MiB). Error answers are small; larger bodies are
	// handed back unread.
	MaxInspectBody int64
}

// DefaultConfig is the Config with every default.
func DefaultConfig() Config {
	var c Config
	c.setDefaults()
	return c
}

func (c *Config) setDefaults() {
	c.MaxAttempts = cmp.Or(c.MaxAttempts, 5)
	c.MaxElapsed = cmp.Or(c.MaxElapsed, time.Minute)
	c.BaseDelay = cmp.Or(c.BaseDelay, 250*time.Millisecond)
	c.RateLimitBaseDelay = cmp.Or(c.RateLimitBaseDelay, time.Second)
	c.MaxDelay = cmp.Or(c.MaxDelay, 20*time.Second)
	c.Multiplier = cmp.Or(c.Multiplier, 2)
	c.Jitter = cmp.Or(c.Jitter, FullJitter)
	c.MaxServerWait = cmp.Or(c.MaxServerWait, 24*time.Hour)
	c.MaxReplayBody = cmp.Or(c.MaxReplayBody, 8<<20)
	c.MaxInspectBody = cmp.Or(c.MaxInspectBody, 1<<20)
}

// Validate reports the first field that is out of range, after defaults are applied.
func (c Config) Validate() error {
	c.setDefaults()
	switch {
	case c.MaxAttempts < 1:
		return fmt.Errorf("upstream: MaxAttempts %d: must be at least 1", c.MaxAttempts)
	case c.MaxElapsed < 0:
		return fmt.Errorf("upstream: MaxElapsed %v: must not be negative", c.MaxElapsed)
	case c.BaseDelay < 0:
		return fmt.Errorf("upstream: BaseDelay %v: must not be negative", c.BaseDelay)
	case c.RateLimitBaseDelay < 0:
		return fmt.Errorf("upstream: RateLimitBaseDelay %v: must not be negative", c.RateLimitBaseDelay)
	case c.MaxDelay < 0:
		return fmt.Errorf("upstream: MaxDelay %v: must not be negative", c.MaxDelay)
	case c.BaseDelay > c.MaxDelay:
		return fmt.Errorf("upstream: BaseDelay %v is above MaxDelay %v", c.BaseDelay, c.MaxDelay)
	case c.RateLimitBaseDelay > c.MaxDelay:
		return fmt.Errorf("upstream: RateLimitBaseDelay %v is above MaxDelay %v", c.RateLimitBaseDelay, c.MaxDelay)
	case math.IsNaN(c.Multiplier) || math.IsInf(c.Multiplier, 0) || c.Multiplier < 1:
		return fmt.Errorf("upstream: Multiplier %v: must be a number of at least 1", c.Multiplier)
	case c.Jitter != FullJitter && c.Jitter != EqualJitter:
		return fmt.Errorf("upstream: Jitter %q: must be %q or %q", c.Jitter, FullJitter, EqualJitter)
	case c.MaxServerWait < 0:
		return fmt.Errorf("upstream: MaxServerWait %v: must not be negative", c.MaxServerWait)
	case c.MaxReplayBody < 0:
		return fmt.Errorf("upstream: MaxReplayBody %d: must not be negative", c.MaxReplayBody)
	case c.MaxInspectBody < 0:
		return fmt.Errorf("upstream: MaxInspectBody %d: must not be negative", c.MaxInspectBody)
	}
	return nil
}

// Backoff is the client's own wait after failed attempt n (1 for the first): the class's base
// delay times Multiplier^(n-1), capped at MaxDelay, then jittered with rnd (nil: the default
// source) over [0, d] (FullJitter) or [d/2, d] (EqualJitter). It is the formula of the Backoff
// type, which loops outside a Retrier use. c must be valid; zero fields take their defaults.
func (c Config) Backoff(n int, class Class, rnd Rand) time.Duration {
	c.setDefaults()
	if rnd == nil {
		rnd = DefaultRand()
	}
	base := c.BaseDelay
	if class == RateLimited {
		base = c.RateLimitBaseDelay
	}
	return jitter(grow(base, c.MaxDelay, c.Multiplier, n), c.Jitter, rnd)
}

func jitter(d time.Duration, mode Jitter, rnd Rand) time.Duration {
	if d <= 0 {
		return 0
	}
	if mode == EqualJitter {
		half := d / 2
		return half + time.Duration(rnd.Int64N(int64(d-half)+1))
	}
	return time.Duration(rnd.Int64N(int64(d) + 1))
}

// Rand is a source of uniform random numbers: Int64N returns a value in [0, n) for n > 0. It
// must be safe for concurrent use when shared. *math/rand/v2.Rand has this method (but is not
// safe for concurrent use).
type Rand interface {
	Int64N(n int64) int64
}

type globalRand struct{}

func (globalRand) Int64N(n int64) int64 { return rand.Int64N(n) }

// DefaultRand is math/rand/v2's global source: randomly seeded per process, safe for concurrent
// use. Jitter only has to differ between clients, not be unpredictable.
func DefaultRand() Rand { return globalRand{} }

// Clock tells the time and sleeps. Sleep returns nil after d, or ctx.Err() as soon as ctx ends.
// Tests inject a Clock whose Sleep records the wait and moves Now forward.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// RealClock is the wall clock.
func RealClock() Clock { return realClock{} }

// Option supplies a dependency to NewRetrier or NewTransport.
type Option func(*options)

type options struct {
	sink  Sink
	clock Clock
	rnd   Rand
	name  string
}

// WithSink sends the rate-limit events to s (default NopSink).
func WithSink(s Sink) Option { return func(o *options) { o.sink = s } }

// WithClock replaces the wall clock (tests).
func WithClock(c Clock) Option { return func(o *options) { o.clock = c } }

// WithRand replaces the random source of the jitter (tests).
func WithRand(r Rand) Option { return func(o *options) { o.rnd = r } }

// WithName names the upstream in events and errors for a Transport, instead of the request's
// scheme and host. It must not contain a secret.
func WithName(name string) Option { return func(o *options) { o.name = name } }

func buildOptions(opts []Option) options {
	o := options{sink: NopSink{}, clock: realClock{}, rnd: globalRand{}}
	for _, opt := range opts {
		opt(&o)
	}
	if o.sink == nil {
		o.sink = NopSink{}
	}
	if o.clock == nil {
		o.clock = realClock{}
	}
	if o.rnd == nil {
		o.rnd = globalRand{}
	}
	return o
}

// Retrier runs a call with the retries its Config allows. It is safe for concurrent use.
type Retrier struct {
	cfg  Config
	opts options
}

// NewRetrier validates cfg (zero fields take defaults) and builds a Retrier.
func NewRetrier(cfg Config, opts ...Option) (*Retrier, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	return &Retrier{cfg: cfg, opts: buildOptions(opts)}, nil
}

// Config returns the Retrier's configuration, defaults applied.
func (r *Retrier) Config() Config { return r.cfg }

// Outcome is what one attempt reports to Retrier.Do.
type Outcome struct {
	// Class decides what happens next (see Classify).
	Class Class
	// Info is what the response said about rate limits (ParseRateLimit); its Wait, capped at
	// MaxServerWait, replaces the client's backoff when present.
	Info RateLimitInfo
	// StatusCode and RPCCode describe the answer, for events.
	StatusCode int
	RPCCode    int64
	// Err is the failure, reported in the Error if the call stops here.
	Err error
}

// Reason is why a call stopped without success.
type Reason string

const (
	// ReasonNotRetryable: the last attempt's class is not retryable (OK excepted).
	ReasonNotRetryable Reason = "not retryable"
	// ReasonAttempts: MaxAttempts attempts were made.
	ReasonAttempts Reason = "attempts exhausted"
	// ReasonElapsed: the next wait would end after MaxElapsed.
	ReasonElapsed Reason = "time budget exhausted"
	// ReasonDeadline: the next wait would end after the context's deadline.
	ReasonDeadline Reason = "context deadline before the next attempt"
	// ReasonCanceled: the context ended.
	ReasonCanceled Reason = "canceled"
)

// Error is how Retrier.Do reports a call that did not succeed. errors.Is and errors.As see the
// last attempt's error and, when the context ended the call, the context's error.
type Error struct {
	Source   string
	Class    Class  // the class of the last attempt
	Reason   Reason // why retrying stopped
	Attempts int
	Waited   time.Duration // the waits slept
	Elapsed  time.Duration // from the first attempt to the end
	// ServerWait is the wait the server asked for at the last attempt, capped at MaxServerWait,
	// valid when HasServerWait: when to come back, for whoever schedules the next try.
	ServerWait     time.Duration
	HasServerWait  bool
	ServerWaitFrom string // the header family that asked for it
	Err            error
	ctxErr         error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("upstream %s: %s after %d attempt(s), %s", e.Source, e.Class, e.Attempts, e.Reason)
	if e.HasServerWait {
		msg += fmt.Sprintf(" (server asked to wait %v)", e.ServerWait)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	} else if e.ctxErr != nil {
		msg += ": " + e.ctxErr.Error()
	}
	return msg
}

// Unwrap returns the last attempt's error and the context's error, when there are.
func (e *Error) Unwrap() []error {
	var out []error
	if e.Err != nil {
		out = append(out, e.Err)
	}
	if e.ctxErr != nil {
		out = append(out, e.ctxErr)
	}
	return out
}

// Do calls attempt (with 1, 2, ...) until it reports a class that is OK or not retryable, or
// the Config's bounds are reached. Between attempts it waits: the server's wait when the outcome
// carries one (plus up to BaseDelay of jitter, never less), else Backoff. It never starts a
// wait that would end after MaxElapsed or after ctx's deadline (as told by the Clock), and it
// stops as soon as ctx ends. source names the upstream in events and errors; it must not
// contain a secret (see SourceName). Do returns nil on success, else an *Error.
func (r *Retrier) Do(ctx context.Context, source string, attempt func(ctx context.Context, n int) Outcome) error {
	clock, sink := r.opts.clock, r.opts.sink
	start := clock.Now()
	var waited time.Duration
	limited := false
	stop := func(e *Error, out Outcome, wait time.Duration) error {
		if limited {
			r.gaveUp(ctx, e, out, wait)
		}
		return e
	}
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			e := &Error{Source: source, Class: Canceled, Reason: ReasonCanceled, Attempts: n - 1,
				Waited: waited, Elapsed: clock.Now().Sub(start), ctxErr: err}
			return stop(e, Outcome{Class: Canceled}, 0)
		}
		out := attempt(ctx, n)
		now := clock.Now()
		elapsed := now.Sub(start)
		ev := r.event(source, now, n, out)
		ev.Elapsed, ev.TotalBackoff = elapsed, waited

		if out.Class == OK {
			if limited {
				ev.Type = RateLimitRecovered
				sink.Record(ctx, ev)
			}
			return nil
		}
		hint, from, hasHint := out.Info.Wait(now)
		if hasHint && hint > r.cfg.MaxServerWait {
			hint = r.cfg.MaxServerWait
		}
		if out.Class == RateLimited {
			limited = true
			enc := ev
			enc.Type = RateLimitEncountered
			if hasHint {
				enc.Wait, enc.ServerWait, enc.WaitFrom = hint, true, from
			}
			sink.Record(ctx, enc)
		}
		e := &Error{Source: source, Class: out.Class, Attempts: n, Waited: waited, Elapsed: elapsed,
			ServerWait: hint, HasServerWait: hasHint, ServerWaitFrom: from, Err: out.Err}
		if err := ctx.Err(); err != nil {
			e.Reason, e.Class, e.ctxErr = ReasonCanceled, Canceled, err
			return stop(e, out, 0)
		}
		if !out.Class.Retryable() {
			e.Reason = ReasonNotRetryable
			return stop(e, out, 0)
		}
		if n >= r.cfg.MaxAttempts {
			e.Reason = ReasonAttempts
			return stop(e, out, 0)
		}
		var wait time.Duration
		if hasHint {
			wait = hint + time.Duration(r.opts.rnd.Int64N(int64(r.cfg.BaseDelay)+1))
		} else {
			wait = r.cfg.Backoff(n, out.Class, r.opts.rnd)
		}
		if elapsed+wait > r.cfg.MaxElapsed {
			e.Reason = ReasonElapsed
			return stop(e, out, wait)
		}
		if dl, ok := ctx.Deadline(); ok && now.Add(wait).After(dl) {
			e.Reason = ReasonDeadline
			return stop(e, out, wait)
		}
		if limited {
			b := ev
			b.Type = RateLimitBackoff
			b.Wait, b.ServerWait, b.WaitFrom = wait, hasHint, from
			b.TotalBackoff = waited + wait
			sink.Record(ctx, b)
		}
		if err := clock.Sleep(ctx, wait); err != nil {
			e.Reason, e.Class, e.ctxErr = ReasonCanceled, Canceled, err
			e.Elapsed = clock.Now().Sub(start)
			return stop(e, out, 0)
		}
		waited += wait
	}
}

// event fills the fields every event of an attempt shares.
func (r *Retrier) event(source string, now time.Time, n int, out Outcome) Event {
	ev := Event{At: now, Source: source, Attempt: n, Class: out.Class, StatusCode: out.StatusCode,
		RPCCode: out.RPCCode, Quota: Quota{Limit: Unknown, Remaining: Unknown}}
	if out.Info.Header != "" {
		ev.Quota = out.Info.Quota
	}
	return ev
}

// gaveUp reports the end of a rate-limited call that did not succeed. wait is the wait that was
// not started, if that is why.
func (r *Retrier) gaveUp(ctx context.Context, e *Error, out Outcome, wait time.Duration) {
	ev := r.event(e.Source, r.opts.clock.Now(), e.Attempts, out)
	ev.Type, ev.Class, ev.Reason = RateLimitGaveUp, e.Class, e.Reason
	ev.TotalBackoff, ev.Elapsed = e.Waited, e.Elapsed
	ev.Wait = wait
	if e.HasServerWait {
		ev.ServerWait, ev.WaitFrom = true, e.ServerWaitFrom
		if wait == 0 {
			ev.Wait = e.ServerWait
		}
	}
	r.opts.sink.Record(ctx, ev)
}
