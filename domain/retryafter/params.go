package retryafter

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Param describes one runtime parameter for GET /admin/config: its name as the admin API takes it,
// its current value in Unit, and the constraint a new value must meet.
type Param struct {
	Name        string   `json:"name"`
	Value       float64  `json:"value"`
	Unit        string   `json:"unit"`
	Constraint  string   `json:"constraint"`
	Description string   `json:"description"`
	Aliases     []string `json:"aliases,omitempty"`
}

// paramSubject names this package's parameters in ParamError.
const paramSubject = "retry-after"

// ErrUnknownParam is wrapped by Set's error when no parameter has the given name.
var ErrUnknownParam = errors.New("unknown parameter")

// ParamError is Set's error: which parameter, the value refused, and why. Subject names whose
// parameter it is ("retry-after"; the rate limits use the same type).
type ParamError struct {
	Subject string
	Param   string
	Value   float64
	Issue   string
	Err     error // ErrUnknownParam, or the *ValidationError of a cross-field check
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("%s parameter %s: %s", e.Subject, e.Param, e.Issue)
}

func (e *ParamError) Unwrap() error { return e.Err }

// paramSpec is one settable parameter. set receives a finite value and returns an issue text
// ("" when accepted); the whole Config is validated afterwards.
type paramSpec struct {
	name, unit, constraint, description string
	aliasOf                             string // for _ms aliases: the listed name
	get                                 func(*Config) float64
	set                                 func(*Config, float64) string
}

func tpsSpec(name, what string, f func(*Config) *float64) paramSpec {
	return paramSpec{
		name: name, unit: "tps", constraint: tpsConstraint,
		description: "TX throttler drain rate D for " + what + " (transactions per second)",
		get:         func(c *Config) float64 { return *f(c) },
		set: func(c *Config, v float64) string {
			if issue := checkTPS(v); issue != "" {
				return issue
			}
			*f(c) = v
			return ""
		},
	}
}

// secondsSpec is a nominal time listed in seconds (the public relayer's unit) and stored in ms.
func secondsSpec(name, description string, f func(*Config) *int64) paramSpec {
	return paramSpec{
		name: name, unit: "s", constraint: secondsTimeConstraint, description: description,
		get: func(c *Config) float64 { return float64(*f(c)) / 1000 },
		set: func(c *Config, v float64) string {
			if v < 0 || v > MaxNominalMs/1000 {
				return fmt.Sprintf("must be %s, got %v", secondsTimeConstraint, v)
			}
			*f(c) = int64(math.Round(v * 1000))
			return ""
		},
	}
}

func msSpec(name, aliasOf, description string, f func(*Config) *int64) paramSpec {
	return paramSpec{
		name: name, aliasOf: aliasOf, unit: "ms", constraint: msConstraint, description: description,
		get: func(c *Config) float64 { return float64(*f(c)) },
		set: func(c *Config, v float64) string {
			if v != math.Trunc(v) || v < 0 || v > MaxNominalMs {
				return fmt.Sprintf("must be a %s, got %v", msConstraint, v)
			}
			*f(c) = int64(v)
			return ""
		},
	}
}

func wholeSpec(name, unit, constraint, description string, lo, hi int, f func(*Config) *int) paramSpec {
	return paramSpec{
		name: name, unit: unit, constraint: constraint, description: description,
		get: func(c *Config) float64 { return float64(*f(c)) },
		set: func(c *Config, v float64) string {
			if v != math.Trunc(v) || v < float64(lo) || v > float64(hi) {
				return fmt.Sprintf("must be a %s, got %v", constraint, v)
			}
			*f(c) = int(v)
			return ""
		},
	}
}

var scalarSpecs = func() []paramSpec {
	readiness := func(c *Config) *int64 { return &c.ReadinessCheckMs }
	inputP := func(c *Config) *int64 { return &c.InputProofProcessingMs }
	userP := func(c *Config) *int64 { return &c.UserDecryptProcessingMs }
	publicP := func(c *Config) *int64 { return &c.PublicDecryptProcessingMs }
	return []paramSpec{
		tpsSpec("input_proof_throttler_tps", "input proofs", func(c *Config) *float64 { return &c.InputProofTPS }),
		tpsSpec("user_decrypt_throttler_tps", "user decrypts", func(c *Config) *float64 { return &c.UserDecryptTPS }),
		tpsSpec("public_decrypt_throttler_tps", "public decrypts", func(c *Config) *float64 { return &c.PublicDecryptTPS }),
		wholeSpec("readiness_max_concurrency", "checks", concurrencyConstraint,
			"readiness checks at once, C; the readiness queue drains at C per second",
			1, MaxConcurrency, func(c *Config) *int { return &c.ReadinessMaxConcurrency }),
		secondsSpec("nominal_readiness_check_seconds", "nominal readiness check time R (decrypts)", readiness),
		secondsSpec("nominal_input_proof_processing_seconds", "nominal coprocessor time P for input proofs", inputP),
		secondsSpec("nominal_user_decrypt_processing_seconds", "nominal KMS time P for user decrypts", userP),
		secondsSpec("nominal_public_decrypt_processing_seconds", "nominal KMS time P for public decrypts", publicP),
		msSpec("nominal_tx_confirmation_ms", "", "nominal TX confirmation time T",
			func(c *Config) *int64 { return &c.TxConfirmationMs }),
		{
			name: "retry_after_safety_margin", unit: "ratio", constraint: marginConstraint,
			description: "safety margin M: ETAs are multiplied by 1+M (not the late ReceiptReceived backoff); fewer requests, more lag",
			get:         func(c *Config) float64 { return c.SafetyMargin },
			set: func(c *Config, v float64) string {
				if v < 0 || v > 1 {
					return fmt.Sprintf("must be %s, got %v", marginConstraint, v)
				}
				c.SafetyMargin = v
				return ""
			},
		},
		wholeSpec("retry_after_min_seconds", "s", minSecondsConstraint, "smallest Retry-After for a pending job",
			1, MaxRetrySeconds, func(c *Config) *int { return &c.MinSeconds }),
		wholeSpec("retry_after_max_seconds", "s", maxSecondsConstraint, "largest Retry-After",
			1, MaxRetrySeconds, func(c *Config) *int { return &c.MaxSeconds }),
		wholeSpec("retry_after_adaptive_min_samples", "samples", samplesConstraint,
			"samples an observed rate or duration needs before the adaptive mode uses it",
			1, MaxMinSamples, func(c *Config) *int { return &c.AdaptiveMinSamples }),
		wholeSpec("retry_after_adaptive_stale_after_seconds", "s", staleConstraint,
			"the adaptive mode uses an observed rate or duration only while its newest sample is at most this old",
			1, MaxRetrySeconds, func(c *Config) *int { return &c.AdaptiveStaleAfterSeconds }),
		// Aliases in milliseconds (the unit the Config stores), not listed separately.
		msSpec("nominal_readiness_check_ms", "nominal_readiness_check_seconds", "", readiness),
		msSpec("nominal_input_proof_processing_ms", "nominal_input_proof_processing_seconds", "", inputP),
		msSpec("nominal_user_decrypt_processing_ms", "nominal_user_decrypt_processing_seconds", "", userP),
		msSpec("nominal_public_decrypt_processing_ms", "nominal_public_decrypt_processing_seconds", "", publicP),
	}
}()

// backoffSpec is the parameter of one step of the ReceiptReceived table: receipt_backoff[i].elapsed_ms
// or receipt_backoff[i].retry_seconds.
func backoffSpec(i int, field string) paramSpec {
	name := fmt.Sprintf("receipt_backoff[%d].%s", i, field)
	if field == "elapsed_ms" {
		return paramSpec{
			name: name, unit: "ms", constraint: stepElapsedConstraint,
			description: fmt.Sprintf("ReceiptReceived backoff step %d starts after this much time in the state", i),
			get:         func(c *Config) float64 { return float64(c.ReceiptBackoff[i].ElapsedMs) },
			set: func(c *Config, v float64) string {
				if v != math.Trunc(v) || v < 0 || v > math.MaxInt64/2 {
					return fmt.Sprintf("must be a %s, got %v", stepElapsedConstraint, v)
				}
				c.ReceiptBackoff[i].ElapsedMs = int64(v)
				return ""
			},
		}
	}
	return paramSpec{
		name: name, unit: "s", constraint: stepSecondsConstraint,
		description: fmt.Sprintf("ReceiptReceived backoff step %d: Retry-After, no safety margin, clamped to [min, max]", i),
		get:         func(c *Config) float64 { return float64(c.ReceiptBackoff[i].RetrySeconds) },
		set: func(c *Config, v float64) string {
			if v != math.Trunc(v) || v < 1 || v > MaxRetrySeconds {
				return fmt.Sprintf("must be a %s, got %v", stepSecondsConstraint, v)
			}
			c.ReceiptBackoff[i].RetrySeconds = int(v)
			return ""
		},
	}
}

// Params lists every runtime parameter with its current value, unit and constraint, in a fixed
// order, for GET /admin/config. Nominal times are listed in seconds under the public relayer's
// names; their _ms aliases are named in Aliases. Each backoff step is two parameters.
func (c Config) Params() []Param {
	aliases := map[string][]string{}
	for _, s := range scalarSpecs {
		if s.aliasOf != "" {
			aliases[s.aliasOf] = append(aliases[s.aliasOf], s.name)
		}
	}
	out := make([]Param, 0, len(scalarSpecs)+2*len(c.ReceiptBackoff))
	for _, s := range scalarSpecs {
		if s.aliasOf == "" {
			out = append(out, s.param(&c, aliases[s.name]))
		}
	}
	for i := range c.ReceiptBackoff {
		out = append(out, backoffSpec(i, "elapsed_ms").param(&c, nil), backoffSpec(i, "retry_seconds").param(&c, nil))
	}
	return out
}

func (s paramSpec) param(c *Config, aliases []string) Param {
	return Param{Name: s.name, Value: s.get(c), Unit: s.unit, Constraint: s.constraint, Description: s.description, Aliases: aliases}
}

// ParamNames lists every name Set accepts for c (the listed names and the _ms aliases).
func (c Config) ParamNames() []string {
	names := make([]string, 0, len(scalarSpecs)+2*len(c.ReceiptBackoff))
	for _, s := range scalarSpecs {
		names = append(names, s.name)
	}
	for i := range c.ReceiptBackoff {
		names = append(names, fmt.Sprintf("receipt_backoff[%d].elapsed_ms", i), fmt.Sprintf("receipt_backoff[%d].retry_seconds", i))
	}
	return names
}

func (c Config) lookup(name string) (paramSpec, bool) {
	for _, s := range scalarSpecs {
		if s.name == name {
			return s, true
		}
	}
	rest, ok := strings.CutPrefix(name, "receipt_backoff[")
	if !ok {
		return paramSpec{}, false
	}
	idx, field, ok := strings.Cut(rest, "].")
	if !ok || (field != "elapsed_ms" && field != "retry_seconds") {
		return paramSpec{}, false
	}
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 || i >= len(c.ReceiptBackoff) || strconv.Itoa(i) != idx {
		return paramSpec{}, false
	}
	return backoffSpec(i, field), true
}

// Set returns a copy of c with one parameter changed, validated as a whole; c is not modified.
// name is one of ParamNames (value in that parameter's unit). An unknown name gives an error
// wrapping ErrUnknownParam; a value outside the parameter's constraint, or one that breaks a
// cross-field rule (min <= max, increasing backoff thresholds), gives a *ParamError naming the
// parameter and the constraint.
func (c Config) Set(name string, value float64) (Config, error) {
	spec, ok := c.lookup(name)
	if !ok {
		return c, &ParamError{Subject: paramSubject, Param: name, Value: value, Err: ErrUnknownParam,
			Issue: fmt.Sprintf("unknown parameter (known: %s)", strings.Join(c.ParamNames(), ", "))}
	}
	return Change(c, paramSubject, name, spec.constraint, value, spec.set)
}

// Change is what every Set of a configuration with parameters does once it has found the
// parameter (the rate limits' Set too): value must be finite; set changes a copy of c to it, or
// says why it refuses it; the copy must then be valid as a whole. Errors are *ParamError with
// subject and param, naming the parameter's constraint. c is not modified.
func Change[C interface {
	Clone() C
	Validate() error
}](c C, subject, param, constraint string, value float64, set func(*C, float64) string) (C, error) {
	if math.IsNaN(value) || math.IsInf(value, 0) {
		return c, &ParamError{Subject: subject, Param: param, Value: value, Issue: fmt.Sprintf("must be a finite number, %s, got %v", constraint, value)}
	}
	next := c.Clone()
	if issue := set(&next, value); issue != "" {
		return c, &ParamError{Subject: subject, Param: param, Value: value, Issue: issue}
	}
	if err := next.Validate(); err != nil {
		return c, &ParamError{Subject: subject, Param: param, Value: value, Err: err,
			Issue: fmt.Sprintf("value %v leaves the configuration invalid (%s): %v", value, constraint, err)}
	}
	return next, nil
}

// WithReceiptBackoff returns a copy of c whose ReceiptReceived table is steps (copied), validated
// as a whole.
func (c Config) WithReceiptBackoff(steps []BackoffStep) (Config, error) {
	next := c
	next.ReceiptBackoff = append([]BackoffStep(nil), steps...)
	if err := next.Validate(); err != nil {
		return c, err
	}
	return next, nil
}
