package ratelimit

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"relayer/domain/retryafter"
)

// Class is a route class: each class has its own limits and its own counters per client, so a
// client polling job status (reads) does not eat into its budget for submissions (writes).
// Closed set: ClassWrite and ClassRead.
type Class uint8

const (
	// ClassWrite: POST, PUT, PATCH, DELETE and any method not listed for ClassRead. The
	// submissions (POST /v2/input-proof, /v2/user-decrypt, /v2/public-decrypt).
	ClassWrite Class = iota
	// ClassRead: GET, HEAD, OPTIONS. Status polls are expected to be frequent.
	ClassRead
	numClasses
)

// Classes lists every class, in a fixed order.
func Classes() []Class { return []Class{ClassWrite, ClassRead} }

func (c Class) String() string {
	switch c {
	case ClassWrite:
		return "write"
	case ClassRead:
		return "read"
	}
	return "invalid"
}

// ParseClass is the inverse of String.
func ParseClass(s string) (Class, error) {
	for _, c := range Classes() {
		if c.String() == s {
			return c, nil
		}
	}
	return 0, fmt.Errorf("ratelimit: unknown class %q (known: write, read)", s)
}

// ClassOf is the class of an HTTP method: GET, HEAD and OPTIONS read, everything else writes.
func ClassOf(method string) Class {
	switch method {
	case "GET", "HEAD", "OPTIONS":
		return ClassRead
	}
	return ClassWrite
}

// Limits are the effective limits of one class.
type Limits struct {
	// ConcurrencyLimit: requests of the class a client may have in flight at once; 0 is off.
	ConcurrencyLimit int `json:"concurrency_limit" yaml:"concurrency_limit"`
	// ConcurrencyTimeoutSeconds: a held slot counts against the limit for at most this long
	// (a handler that runs longer, such as a stream, stops counting), and no concurrency
	// retry hint exceeds it. 0: slots count until released and hints are capped by max_ms only.
	ConcurrencyTimeoutSeconds int `json:"concurrency_timeout_seconds" yaml:"concurrency_timeout_seconds"`
	// RollingLimit: requests of the class a client may start per rolling window; 0 is off.
	RollingLimit int `json:"rolling_limit" yaml:"rolling_limit"`
	// RollingWindowSeconds: the rolling window's length.
	RollingWindowSeconds int `json:"rolling_window_seconds" yaml:"rolling_window_seconds"`
}

// Override replaces some of the base limits for one class. A nil field inherits the base value.
type Override struct {
	ConcurrencyLimit          *int `json:"concurrency_limit,omitempty" yaml:"concurrency_limit,omitempty"`
	ConcurrencyTimeoutSeconds *int `json:"concurrency_timeout_seconds,omitempty" yaml:"concurrency_timeout_seconds,omitempty"`
	RollingLimit              *int `json:"rolling_limit,omitempty" yaml:"rolling_limit,omitempty"`
	RollingWindowSeconds      *int `json:"rolling_window_seconds,omitempty" yaml:"rolling_window_seconds,omitempty"`
}

func (o Override) clone() Override {
	cp := func(p *int) *int {
		if p == nil {
			return nil
		}
		v := *p
		return &v
	}
	return Override{cp(o.ConcurrencyLimit), cp(o.ConcurrencyTimeoutSeconds), cp(o.RollingLimit), cp(o.RollingWindowSeconds)}
}

// Config is the inbound rate limiting configuration. Names are snake_case, as the admin API
// speaks them. The four base limits apply to every class; Write and Read override some of them
// for their class.
type Config struct {
	ConcurrencyLimit          int `json:"concurrency_limit" yaml:"concurrency_limit"`
	ConcurrencyTimeoutSeconds int `json:"concurrency_timeout_seconds" yaml:"concurrency_timeout_seconds"`
	RollingLimit              int `json:"rolling_limit" yaml:"rolling_limit"`
	RollingWindowSeconds      int `json:"rolling_window_seconds" yaml:"rolling_window_seconds"`

	// Write overrides the base limits for ClassWrite (submissions).
	Write Override `json:"write" yaml:"write"`
	// Read overrides the base limits for ClassRead (status polls).
	Read Override `json:"read" yaml:"read"`

	// RetryPolicy is ADR 0010's retry_policy. Its concurrency part shapes the hint of a request
	// refused by a concurrency limit (deny streak, capped backoff, jitter). The rolling part is
	// validated but not consulted: the rolling limit here is an exact sliding log, so its hint
	// is the exact time the oldest request leaves the window.
	RetryPolicy retryafter.RetryPolicy `json:"retry_policy" yaml:"retry_policy"`

	// TrustedProxies are the proxies in front of the relayer, each a prefix ("10.0.0.0/8",
	// "2001:db8::/48") or a single address. X-Forwarded-For is honoured only on a connection from
	// one of them, and then names the client by its rightmost hop that is not itself a trusted
	// proxy (see Limiter.AddressKey): a client may write any X-Forwarded-For it likes, but the
	// hops a trusted proxy appends are the only ones believed. Empty (the default): the header is
	// ignored and a client is the connection's remote address. Not a runtime parameter (the admin
	// API sets numbers); SetConfig changes it.
	TrustedProxies []string `json:"trusted_proxies" yaml:"trusted_proxies"`

	// TrustForwardedFor is no longer a setting, kept only so that a configuration still giving
	// it is refused with a clear problem (see Validate) rather than obeyed or silently dropped:
	// it trusted the leftmost X-Forwarded-For hop from any peer, which every client writes
	// itself. false is accepted with an empty TrustedProxies (the header ignored, as before).
	TrustForwardedFor *bool `json:"trust_forwarded_for,omitempty" yaml:"trust_forwarded_for,omitempty"`

	// MaxKeys bounds the clients tracked at once (and, separately, the deny streaks kept).
	MaxKeys int `json:"max_keys" yaml:"max_keys"`
}

// Bounds of a valid Config.
const (
	MaxLimit         = 100_000    // concurrency_limit and rolling_limit
	MaxWindowSeconds = 86_400     // rolling_window_seconds and concurrency_timeout_seconds
	MinKeys          = numShards  // max_keys: at least one per shard
	MaxKeysLimit     = 10_000_000 // max_keys
)

// Defaults, see DefaultConfig.
const (
	DefaultConcurrencyLimit          = 32
	DefaultConcurrencyTimeoutSeconds = 30
	DefaultWriteRollingLimit         = 100
	DefaultReadRollingLimit          = 600
	DefaultRollingWindowSeconds      = 10
	DefaultMaxKeys                   = 100_000
)

// DefaultConfig returns the defaults:
//
//   - every class: at most 32 requests in flight per client, a slot counting for at most 30 s;
//   - writes (POST): 100 per rolling 10 s per client (10 a second sustained; a submission is a
//     transaction on chain, so more is abuse, not a busy client);
//   - reads (GET): 600 per rolling 10 s per client: status polls are expected to be frequent
//     (an SDK polling many jobs at once), and a poll is cheap;
//   - ADR 0010's retry policy; no trusted proxies (X-Forwarded-For ignored); 100 000 clients
//     tracked.
func DefaultConfig() Config {
	read := DefaultReadRollingLimit
	return Config{
		ConcurrencyLimit:          DefaultConcurrencyLimit,
		ConcurrencyTimeoutSeconds: DefaultConcurrencyTimeoutSeconds,
		RollingLimit:              DefaultWriteRollingLimit,
		RollingWindowSeconds:      DefaultRollingWindowSeconds,
		Read:                      Override{RollingLimit: &read},
		RetryPolicy:               retryafter.DefaultRetryPolicy(),
		MaxKeys:                   DefaultMaxKeys,
	}
}

// Clone returns a copy that shares no memory with c (the overrides' pointers and the proxies
// are copied).
func (c Config) Clone() Config {
	c.Write, c.Read = c.Write.clone(), c.Read.clone()
	c.TrustedProxies = slices.Clone(c.TrustedProxies)
	if c.TrustForwardedFor != nil {
		v := *c.TrustForwardedFor
		c.TrustForwardedFor = &v
	}
	return c
}

func (c *Config) override(class Class) *Override {
	if class == ClassRead {
		return &c.Read
	}
	return &c.Write
}

// Limits returns the effective limits of class: the base values with the class's overrides.
func (c Config) Limits(class Class) Limits {
	l := Limits{c.ConcurrencyLimit, c.ConcurrencyTimeoutSeconds, c.RollingLimit, c.RollingWindowSeconds}
	o := c.override(class)
	pick := func(dst *int, p *int) {
		if p != nil {
			*dst = *p
		}
	}
	pick(&l.ConcurrencyLimit, o.ConcurrencyLimit)
	pick(&l.ConcurrencyTimeoutSeconds, o.ConcurrencyTimeoutSeconds)
	pick(&l.RollingLimit, o.RollingLimit)
	pick(&l.RollingWindowSeconds, o.RollingWindowSeconds)
	return l
}

// Problem is one thing wrong with a Config: the field (its dotted JSON path) and the issue. It is
// retryafter's Problem, so both map onto the API's error details ({"field", "issue"}) alike.
type Problem = retryafter.Problem

// ValidationError lists every problem Validate found, in field order: retryafter's type, with
// this package's subject.
type ValidationError = retryafter.ValidationError

// configSubject names this package's configuration in its errors.
const configSubject = "rate-limit config"

// The constraint texts shared by Validate, Params and Set.
const (
	limitConstraint    = "whole number, 0 (off) <= value <= 100000"
	timeoutConstraint  = "whole number of seconds, 0 (slots never expire) <= value <= 86400"
	windowConstraint   = "whole number of seconds, 1 <= value <= 86400"
	maxKeysConstraint  = "whole number, 16 <= value <= 10000000"
	inheritConstraint  = ", or -1 to inherit "
	baseMsConstraint   = "whole number of ms, 1 <= value <= 3600000"
	maxMsConstraint    = "whole number of ms, base_ms <= value <= 3600000"
	factorConstraint   = "1 <= value <= 10"
	jitterMsConstraint = "whole number of ms, 0 <= value <= 3600000"
)

type field struct {
	name       string
	lo, hi     int
	constraint string
}

var (
	concurrencyField = field{"concurrency_limit", 0, MaxLimit, limitConstraint}
	timeoutField     = field{"concurrency_timeout_seconds", 0, MaxWindowSeconds, timeoutConstraint}
	rollingField     = field{"rolling_limit", 0, MaxLimit, limitConstraint}
	windowField      = field{"rolling_window_seconds", 1, MaxWindowSeconds, windowConstraint}
)

func (f field) check(prefix string, v int) (Problem, bool) {
	if v < f.lo || v > f.hi {
		return Problem{Param: prefix + f.name, Issue: fmt.Sprintf("must be a %s, got %d", f.constraint, v)}, false
	}
	return Problem{}, true
}

// Validate reports every problem of c at once as a *ValidationError, each named by its field's
// dotted JSON path ("read.rolling_limit", "retry_policy.concurrency.factor"); nil if usable.
func (c Config) Validate() error {
	var ps []Problem
	check := func(prefix string, f field, v int) {
		if p, ok := f.check(prefix, v); !ok {
			ps = append(ps, p)
		}
	}
	check("", concurrencyField, c.ConcurrencyLimit)
	check("", timeoutField, c.ConcurrencyTimeoutSeconds)
	check("", rollingField, c.RollingLimit)
	check("", windowField, c.RollingWindowSeconds)
	for _, class := range Classes() {
		o := c.override(class)
		prefix := class.String() + "."
		for _, x := range []struct {
			f field
			p *int
		}{
			{concurrencyField, o.ConcurrencyLimit},
			{timeoutField, o.ConcurrencyTimeoutSeconds},
			{rollingField, o.RollingLimit},
			{windowField, o.RollingWindowSeconds},
		} {
			if x.p != nil {
				check(prefix, x.f, *x.p)
			}
		}
	}
	if err := c.RetryPolicy.Validate(); err != nil {
		var ve *retryafter.ValidationError
		if errors.As(err, &ve) {
			ps = append(ps, ve.Problems...)
		} else {
			ps = append(ps, Problem{Param: "retry_policy", Issue: err.Error()})
		}
	}
	for i, p := range c.TrustedProxies {
		if _, err := parseProxy(p); err != nil {
			ps = append(ps, Problem{Param: fmt.Sprintf("trusted_proxies[%d]", i), Issue: err.Error()})
		}
	}
	if c.TrustForwardedFor != nil && (*c.TrustForwardedFor || len(c.TrustedProxies) > 0) {
		ps = append(ps, Problem{Param: "trust_forwarded_for", Issue: trustForwardedForIssue})
	}
	if c.MaxKeys < MinKeys || c.MaxKeys > MaxKeysLimit {
		ps = append(ps, Problem{Param: "max_keys", Issue: fmt.Sprintf("must be a %s, got %d", maxKeysConstraint, c.MaxKeys)})
	}
	if len(ps) == 0 {
		return nil
	}
	return &ValidationError{Subject: configSubject, Problems: ps}
}

// trustForwardedForIssue is the problem of a configuration that still gives trust_forwarded_for.
const trustForwardedForIssue = "replaced by trusted_proxies: list the addresses or prefixes of the proxies in " +
	"front of the relayer (only their X-Forwarded-For is honoured, read from the right), and remove trust_forwarded_for"

// parseProxy reads one entry of TrustedProxies: a prefix, or a single address (its /32 or
// /128). An IPv4-mapped IPv6 address is its IPv4 address, as a peer's is; a zone is refused (an
// entry names the same addresses on every interface).
func parseProxy(s string) (netip.Prefix, error) {
	const want = `must be an IP address or a prefix ("10.0.0.1", "10.0.0.0/8", "2001:db8::/48")`
	if strings.Contains(s, "%") {
		return netip.Prefix{}, fmt.Errorf("%s without a zone, got %q", want, s)
	}
	if a, err := netip.ParseAddr(s); err == nil {
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%s, got %q", want, s)
	}
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p.Masked(), nil
}
