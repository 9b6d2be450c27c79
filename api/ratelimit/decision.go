package ratelimit

import (
	"net/http"
	"strconv"
)

// Decision is the limiter's answer for one request. It never holds the client's key.
type Decision struct {
	Allowed bool
	Class   Class
	// RetryAfterMs (denied only): how long the client should wait, the largest hint of the
	// limits that denied (ADR 0010, "Usage"). At least 1.
	RetryAfterMs int
	// Exact: the hint is the exact time capacity returns (the rolling window's oldest request
	// leaves it), not a backoff estimate.
	Exact       bool
	Rolling     RollingState
	Concurrency ConcurrencyState

	policy string // RateLimit-Policy value of the class
}

// RollingState is the rolling limit's part of a Decision. Limit 0: the limit is off.
type RollingState struct {
	Limit, WindowSeconds int
	// Remaining: requests the client may still start in the window (after this one if allowed).
	Remaining int
	// ResetMs: ms until the oldest request in the window leaves it, so that one more request
	// may start; 0 when the window is empty. Rounded up.
	ResetMs int64
	Denied  bool
}

// ConcurrencyState is the concurrency limit's part of a Decision. Limit 0: the limit is off.
type ConcurrencyState struct {
	Limit, TimeoutSeconds int
	// InFlight: the client's requests of the class in flight (with this one if allowed).
	InFlight int
	Denied   bool
	// Streak and HintMs (denied only): the client's deny streak for this limit and the ADR 0010
	// hint computed from it (capped backoff with jitter).
	Streak, HintMs int
}

// RetryAfterSeconds is the Retry-After value of a denied request: RetryAfterMs rounded up to
// whole seconds, at least 1. 0 when allowed.
func (d Decision) RetryAfterSeconds() int {
	if d.Allowed {
		return 0
	}
	return max(1, (d.RetryAfterMs+999)/1000)
}

// Policy is the RateLimit-Policy field value for the request's class (draft-ietf-httpapi-
// ratelimit-headers): a structured-field List with one Item per limit that is on, e.g.
// `"write-rolling";q=100;w=10, "write-concurrency";q=32;qu="concurrent-requests"`. "" when
// both limits are off.
func (d Decision) Policy() string { return d.policy }

var policyNames = [numClasses][2]string{
	ClassWrite: {`"write-rolling"`, `"write-concurrency"`},
	ClassRead:  {`"read-rolling"`, `"read-concurrency"`},
}

func policyHeader(c Class, l Limits) string {
	var b []byte
	if l.RollingLimit > 0 {
		b = append(b, policyNames[c][0]...)
		b = append(b, ";q="...)
		b = strconv.AppendInt(b, int64(l.RollingLimit), 10)
		b = append(b, ";w="...)
		b = strconv.AppendInt(b, int64(l.RollingWindowSeconds), 10)
	}
	if l.ConcurrencyLimit > 0 {
		if len(b) > 0 {
			b = append(b, ", "...)
		}
		b = append(b, policyNames[c][1]...)
		b = append(b, ";q="...)
		b = strconv.AppendInt(b, int64(l.ConcurrencyLimit), 10)
		b = append(b, `;qu="concurrent-requests"`...)
	}
	return string(b)
}

// RateLimit is the RateLimit field value: one Item per limit that is on, with r (remaining
// quota) and, for the rolling limit, t (seconds until one more request may start, rounded up),
// e.g. `"write-rolling";r=0;t=3, "write-concurrency";r=31`. On a request denied only by the
// concurrency limit the rolling item carries no t, so Retry-After never points before it; the
// concurrency item never has a t: when a slot frees is not known. "" when both limits are off.
func (d Decision) RateLimit() string {
	var buf [96]byte
	b := buf[:0]
	if d.Rolling.Limit > 0 {
		b = append(b, policyNames[d.Class][0]...)
		b = append(b, ";r="...)
		b = strconv.AppendInt(b, int64(d.Rolling.Remaining), 10)
		if d.Rolling.ResetMs > 0 && (d.Allowed || d.Rolling.Denied) {
			b = append(b, ";t="...)
			b = strconv.AppendInt(b, (d.Rolling.ResetMs+999)/1000, 10)
		}
	}
	if d.Concurrency.Limit > 0 {
		if len(b) > 0 {
			b = append(b, ", "...)
		}
		b = append(b, policyNames[d.Class][1]...)
		b = append(b, ";r="...)
		b = strconv.AppendInt(b, int64(max(d.Concurrency.Limit-d.Concurrency.InFlight, 0)), 10)
	}
	return string(b)
}

// SetHeaders sets RateLimit-Policy and RateLimit (when a limit is on) and, on a denied request,
// Retry-After (whole seconds, at least 1).
func (d Decision) SetHeaders(h http.Header) {
	if d.policy != "" {
		h.Set("RateLimit-Policy", d.policy)
		h.Set("RateLimit", d.RateLimit())
	}
	if !d.Allowed {
		h.Set("Retry-After", strconv.Itoa(d.RetryAfterSeconds()))
	}
}
