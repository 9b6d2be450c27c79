package ratelimit

import (
	"fmt"
	"math"
	"strings"

	"relayer/domain/retryafter"
)

// Param describes one runtime parameter for GET /admin/config: its name (the field's dotted JSON
// path in Config), its current value in Unit, and the constraint a new value must meet. It is
// retryafter's Param, so the admin API lists both packages' parameters alike.
type Param = retryafter.Param

// ErrUnknownParam is wrapped by Set's error when no parameter has the given name. It is
// retryafter's sentinel, so errors.Is answers alike for both packages' parameters.
var ErrUnknownParam = retryafter.ErrUnknownParam

// ParamError is Set's error: which parameter, the value refused, and why (retryafter's type, with
// this package's subject). It never carries an API key or a client address.
type ParamError = retryafter.ParamError

// paramSubject names this package's parameters in ParamError.
const paramSubject = "rate-limit"

type paramSpec struct {
	name, unit, constraint, description string
	get                                 func(*Config) float64
	// set receives a finite value and returns an issue text ("" when accepted); the whole
	// Config is validated afterwards.
	set func(*Config, float64) string
}

func whole(v float64, lo, hi int) bool {
	return v == math.Trunc(v) && v >= float64(lo) && v <= float64(hi)
}

func intSpec(name, unit, constraint, description string, lo, hi int, f func(*Config) *int) paramSpec {
	return paramSpec{
		name: name, unit: unit, constraint: constraint, description: description,
		get: func(c *Config) float64 { return float64(*f(c)) },
		set: func(c *Config, v float64) string {
			if !whole(v, lo, hi) {
				return fmt.Sprintf("must be a %s, got %v", constraint, v)
			}
			*f(c) = int(v)
			return ""
		},
	}
}

func unitOf(f field) string {
	if f == timeoutField || f == windowField {
		return "s"
	}
	return "requests"
}

// overrideSpec is a class's override of a base limit: listed with its effective value; -1
// removes the override so the class inherits the base value again.
func overrideSpec(class Class, f field, base func(*Config) *int, o func(*Override) **int) paramSpec {
	constraint := f.constraint + inheritConstraint + f.name
	return paramSpec{
		name: class.String() + "." + f.name, unit: unitOf(f), constraint: constraint,
		description: fmt.Sprintf("%s for %s requests (%s); unset, it inherits %s", f.name, class, classMethods(class), f.name),
		get: func(c *Config) float64 {
			if p := *o(c.override(class)); p != nil {
				return float64(*p)
			}
			return float64(*base(c))
		},
		set: func(c *Config, v float64) string {
			if v == -1 {
				*o(c.override(class)) = nil
				return ""
			}
			if !whole(v, f.lo, f.hi) {
				return fmt.Sprintf("must be a %s, got %v", constraint, v)
			}
			n := int(v)
			*o(c.override(class)) = &n
			return ""
		},
	}
}

func classMethods(c Class) string {
	if c == ClassRead {
		return "GET, HEAD, OPTIONS"
	}
	return "POST and other methods"
}

var paramSpecs = func() []paramSpec {
	conc := func(c *Config) *int { return &c.ConcurrencyLimit }
	tout := func(c *Config) *int { return &c.ConcurrencyTimeoutSeconds }
	roll := func(c *Config) *int { return &c.RollingLimit }
	win := func(c *Config) *int { return &c.RollingWindowSeconds }
	specs := []paramSpec{
		intSpec(concurrencyField.name, "requests", limitConstraint,
			"requests a client may have in flight at once, per class", 0, MaxLimit, conc),
		intSpec(timeoutField.name, "s", timeoutConstraint,
			"a held slot counts for at most this long; no concurrency retry hint exceeds it", 0, MaxWindowSeconds, tout),
		intSpec(rollingField.name, "requests", limitConstraint,
			"requests a client may start per rolling window, per class", 0, MaxLimit, roll),
		intSpec(windowField.name, "s", windowConstraint, "the rolling window's length", 1, MaxWindowSeconds, win),
	}
	for _, class := range Classes() {
		specs = append(specs,
			overrideSpec(class, concurrencyField, conc, func(o *Override) **int { return &o.ConcurrencyLimit }),
			overrideSpec(class, timeoutField, tout, func(o *Override) **int { return &o.ConcurrencyTimeoutSeconds }),
			overrideSpec(class, rollingField, roll, func(o *Override) **int { return &o.RollingLimit }),
			overrideSpec(class, windowField, win, func(o *Override) **int { return &o.RollingWindowSeconds }),
		)
	}
	cp := func(c *Config) *retryafter.BackoffPolicy { return &c.RetryPolicy.Concurrency }
	const prefix = "retry_policy.concurrency."
	specs = append(specs,
		intSpec(prefix+"base_ms", "ms", baseMsConstraint, "concurrency deny hint: backoff base (ADR 0010)",
			1, retryafter.MaxHintMs, func(c *Config) *int { return &cp(c).BaseMs }),
		intSpec(prefix+"max_ms", "ms", maxMsConstraint, "concurrency deny hint: cap (also capped by the timeout)",
			1, retryafter.MaxHintMs, func(c *Config) *int { return &cp(c).MaxMs }),
		paramSpec{
			name: prefix + "factor", unit: "ratio", constraint: factorConstraint,
			description: "concurrency deny hint: growth per consecutive deny",
			get:         func(c *Config) float64 { return cp(c).Factor },
			set: func(c *Config, v float64) string {
				if v < 1 || v > 10 {
					return fmt.Sprintf("must be %s, got %v", factorConstraint, v)
				}
				cp(c).Factor = v
				return ""
			},
		},
		intSpec(prefix+"jitter_ms", "ms", jitterMsConstraint, "concurrency deny hint: random jitter, never past the cap",
			0, retryafter.MaxHintMs, func(c *Config) *int { return &cp(c).JitterMs }),
		intSpec("max_keys", "keys", maxKeysConstraint, "clients tracked at once; the least recently seen go first",
			MinKeys, MaxKeysLimit, func(c *Config) *int { return &c.MaxKeys }),
	)
	return specs
}()

// Params lists every runtime parameter with its current value, unit and constraint, in a fixed
// order, for GET /admin/config. A class's override is listed with its effective value (the base
// value while it inherits). The rolling part of the retry policy is not listed: the rolling
// limit's hints are exact and do not use it.
func (c Config) Params() []Param {
	out := make([]Param, 0, len(paramSpecs))
	for _, s := range paramSpecs {
		out = append(out, Param{Name: s.name, Value: s.get(&c), Unit: s.unit, Constraint: s.constraint, Description: s.description})
	}
	return out
}

// ParamNames lists every name Set accepts, in Params' order.
func ParamNames() []string {
	names := make([]string, len(paramSpecs))
	for i, s := range paramSpecs {
		names[i] = s.name
	}
	return names
}

// Set returns a copy of c with one parameter changed, validated as a whole; c is not modified.
// An unknown name gives a *ParamError wrapping ErrUnknownParam; a value outside the parameter's
// constraint, or one that leaves the configuration invalid (max_ms below base_ms), a *ParamError
// naming the parameter and the constraint. A class override takes -1 to inherit the base value
// again. TrustedProxies, a list, is no parameter: SetConfig changes it.
func (c Config) Set(name string, value float64) (Config, error) {
	var spec *paramSpec
	for i := range paramSpecs {
		if paramSpecs[i].name == name {
			spec = &paramSpecs[i]
			break
		}
	}
	if spec == nil && name == "trust_forwarded_for" {
		return c, &ParamError{Subject: paramSubject, Param: name, Value: value, Err: ErrUnknownParam, Issue: trustForwardedForIssue +
			" (trusted_proxies is a list, set in the configuration, not at run time)"}
	}
	if spec == nil {
		return c, &ParamError{Subject: paramSubject, Param: name, Value: value, Err: ErrUnknownParam,
			Issue: fmt.Sprintf("unknown parameter (known: %s)", strings.Join(ParamNames(), ", "))}
	}
	return retryafter.Change(c, paramSubject, name, spec.constraint, value, spec.set)
}
