package api

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"relayer/api/ratelimit"
	"relayer/domain"
	"relayer/domain/retryafter"
)

// runtimeConfig is the part of the configuration the admin API changes while the server runs.
// A value is never modified once published: a change builds a new one and swaps the pointer
// (Server.rt), so a request reads one consistent configuration with a single atomic load.
type runtimeConfig struct {
	retry    retryafter.Config
	adaptive bool
	capacity int
	margin   int
	rate     ratelimit.Config
	// retention is the archiver's policy: the API records its changes, the archiver applies them.
	retention domain.Retention
	// recorded holds each parameter's value as the config stream last recorded it (its canonical
	// JSON, as with gives it); a parameter the stream never changed is not in it. Never modified:
	// a change makes a new map.
	recorded map[string]string
}

// Names of the runtime parameters the API itself owns, beside retryafter's and ratelimit's.
const (
	paramReceiptBackoff = "receipt_backoff"
	paramAdaptive       = "retry_after_adaptive"
	paramCapacity       = "queue_capacity"
	paramShedMargin     = "queue_shed_margin"
	// rateLimitPrefix names the rate limiter's parameters in the admin API: "rate_limit." and
	// ratelimit's own name ("rate_limit.read.rolling_limit").
	rateLimitPrefix = "rate_limit."
)

// shedAt is the queue length from which new submissions are shed.
func (rc *runtimeConfig) shedAt() int { return rc.capacity - rc.margin }

// paramView is one runtime parameter as GET /admin/config lists it. Value is a number, except
// retry_after_adaptive (a boolean) and receipt_backoff (the table, an array of steps).
type paramView struct {
	Name        string   `json:"name"`
	Value       any      `json:"value"`
	Unit        string   `json:"unit,omitempty"`
	Constraint  string   `json:"constraint"`
	Description string   `json:"description,omitempty"`
	Aliases     []string `json:"aliases,omitempty"`
}

// params lists every runtime parameter with its value and constraint, in a fixed order: the
// Retry-After policy's (each backoff step as two numbers, then the whole table), the adaptive
// switch, load shedding, the rate limiter's, then the retention policy's (applied by the
// archiver, which follows the config stream).
func (rc *runtimeConfig) params() []paramView {
	var out []paramView
	for _, p := range rc.retry.Params() {
		out = append(out, paramView{p.Name, p.Value, p.Unit, p.Constraint, p.Description, p.Aliases})
	}
	out = append(out,
		paramView{Name: paramReceiptBackoff, Value: rc.retry.Clone().ReceiptBackoff, Unit: "table",
			Constraint:  `array of 1 to 64 {"elapsed_ms","retry_seconds"}; elapsed_ms of step 0 is 0, then strictly increasing; retry_seconds 1 to 86400`,
			Description: "the whole ReceiptReceived backoff table B(E) at once"},
		paramView{Name: paramAdaptive, Value: rc.adaptive, Unit: "bool",
			Constraint: "true or false (or 1 or 0)",
			Description: "replace nominal times and drain rates with those the stats projection observed, each while " +
				"retry_after_adaptive_min_samples samples back it and its newest is at most " +
				"retry_after_adaptive_stale_after_seconds old (see the result's adaptive member)"},
		paramView{Name: paramCapacity, Value: rc.capacity, Unit: "jobs", Constraint: capacityConstraint,
			Description: "queue length (readiness queue for decrypts, TX queue for input proofs) at which new submissions are shed"},
		paramView{Name: paramShedMargin, Value: rc.margin, Unit: "jobs", Constraint: marginConstraint,
			Description: "shedding starts at queue_capacity - queue_shed_margin"},
	)
	for _, p := range rc.rate.Params() {
		out = append(out, paramView{rateLimitPrefix + p.Name, p.Value, p.Unit, p.Constraint, p.Description, nil})
	}
	for _, p := range rc.retention.Params() {
		out = append(out, paramView{Name: p.Name, Value: p.Value, Unit: p.Unit, Constraint: p.Constraint, Description: p.Description})
	}
	return out
}

// paramError is a refused change: the issues to report, each naming the parameter.
type paramError struct {
	unknown bool
	issues  []domain.FieldIssue
}

func (e *paramError) Error() string {
	parts := make([]string, len(e.issues))
	for i, is := range e.issues {
		parts[i] = is.Field + ": " + is.Issue
	}
	return strings.Join(parts, "; ")
}

func refuse(name, format string, args ...any) *paramError {
	return &paramError{issues: []domain.FieldIssue{{Field: name, Issue: fmt.Sprintf(format, args...)}}}
}

// with returns a new runtime configuration with parameter name set to the JSON value raw, and the
// parameter's value before and after as JSON (numbers as retryafter and ratelimit list them). rc is
// not modified. A refused change is a *paramError.
func (rc *runtimeConfig) with(name string, raw json.RawMessage) (next *runtimeConfig, old, new json.RawMessage, err error) {
	cp := *rc
	next = &cp
	switch {
	case name == paramReceiptBackoff:
		var steps []retryafter.BackoffStep
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&steps); err != nil || steps == nil {
			return nil, nil, nil, refuse(name, `must be an array of {"elapsed_ms": whole number, "retry_seconds": whole number}: %s`, decodeIssue(err))
		}
		cfg, err := rc.retry.WithReceiptBackoff(steps)
		if err != nil {
			return nil, nil, nil, problemsOf(name, err)
		}
		next.retry = cfg
		return next, mustJSON(rc.retry.ReceiptBackoff), mustJSON(cfg.ReceiptBackoff), nil
	case name == paramAdaptive:
		v, ok := parseBool(raw)
		if !ok {
			return nil, nil, nil, refuse(name, "must be true or false (or 1 or 0), got %s", clip(raw))
		}
		next.adaptive = v
		return next, mustJSON(rc.adaptive), mustJSON(v), nil
	case name == paramCapacity || name == paramShedMargin:
		v, ok := parseWhole(raw)
		if !ok {
			return nil, nil, nil, refuse(name, "must be a whole number, got %s", clip(raw))
		}
		if name == paramCapacity {
			if issue := capacityIssue(v); issue != "" {
				return nil, nil, nil, refuse(name, "%s", issue)
			}
			if issue := marginIssue(rc.margin, v); issue != "" {
				return nil, nil, nil, refuse(name, "value %d leaves queue_shed_margin (%d) invalid: %s", v, rc.margin, issue)
			}
			next.capacity = v
			return next, mustJSON(rc.capacity), mustJSON(v), nil
		}
		if issue := marginIssue(v, rc.capacity); issue != "" {
			return nil, nil, nil, refuse(name, "%s", issue)
		}
		next.margin = v
		return next, mustJSON(rc.margin), mustJSON(v), nil
	case strings.HasPrefix(name, domain.RetentionPrefix):
		r, old, nw, err := rc.retention.With(name, raw)
		var unknown domain.ErrUnknownRetentionParam
		var ve *domain.ValidationError
		switch {
		case errors.As(err, &unknown):
			return nil, nil, nil, &paramError{unknown: true, issues: []domain.FieldIssue{{Field: "param",
				Issue: fmt.Sprintf("unknown parameter %q (GET /admin/config lists them)", name)}}}
		case errors.As(err, &ve):
			return nil, nil, nil, &paramError{issues: ve.Details}
		case err != nil:
			return nil, nil, nil, refuse(name, "%v", err)
		}
		next.retention = r
		return next, old, nw, nil
	case strings.HasPrefix(name, rateLimitPrefix):
		inner := strings.TrimPrefix(name, rateLimitPrefix)
		v, ok := parseNumber(raw)
		if !ok {
			return nil, nil, nil, refuse(name, "must be a number, got %s", clip(raw))
		}
		before, known := rateValue(rc.rate, inner)
		cfg, err := rc.rate.Set(inner, v)
		if err != nil {
			pe := problemsOf(name, err)
			pe.unknown = !known || errors.Is(err, ratelimit.ErrUnknownParam)
			return nil, nil, nil, pe
		}
		after, _ := rateValue(cfg, inner)
		next.rate = cfg
		return next, mustJSON(before), mustJSON(after), nil
	default:
		v, ok := parseNumber(raw)
		before, known := retryValue(rc.retry, name)
		if !known {
			return nil, nil, nil, &paramError{unknown: true, issues: []domain.FieldIssue{{Field: "param",
				Issue: fmt.Sprintf("unknown parameter %q (GET /admin/config lists them)", name)}}}
		}
		if !ok {
			return nil, nil, nil, refuse(name, "must be a number, got %s", clip(raw))
		}
		cfg, err := rc.retry.Set(name, v)
		if err != nil {
			return nil, nil, nil, problemsOf(name, err)
		}
		after, _ := retryValue(cfg, name)
		next.retry = cfg
		return next, mustJSON(before), mustJSON(after), nil
	}
}

// problemsOf turns a refusal of retryafter or ratelimit into issues: the parameter's own issue,
// then every problem of the whole configuration it would have caused.
func problemsOf(name string, err error) *paramError {
	pe := &paramError{}
	// ratelimit's errors are retryafter's types, so one match covers both.
	var rp *retryafter.ParamError
	if errors.As(err, &rp) {
		pe.issues = append(pe.issues, domain.FieldIssue{Field: name, Issue: rp.Issue})
	}
	var rv *retryafter.ValidationError
	if errors.As(err, &rv) {
		for _, p := range rv.Problems {
			pe.issues = append(pe.issues, domain.FieldIssue{Field: p.Param, Issue: p.Issue})
		}
	}
	if len(pe.issues) == 0 {
		pe.issues = []domain.FieldIssue{{Field: name, Issue: err.Error()}}
	}
	return pe
}

// retryValue is the current value of a retryafter parameter by any name Set accepts (listed
// names and their _ms aliases).
func retryValue(c retryafter.Config, name string) (float64, bool) {
	for _, p := range c.Params() {
		if p.Name == name {
			return p.Value, true
		}
		for _, a := range p.Aliases {
			if a == name {
				// Aliases are the milliseconds of a parameter listed in seconds.
				return math.Round(p.Value * 1000), true
			}
		}
	}
	return 0, false
}

func rateValue(c ratelimit.Config, name string) (float64, bool) {
	for _, p := range c.Params() {
		if p.Name == name {
			return p.Value, true
		}
	}
	return 0, false
}

func parseNumber(raw json.RawMessage) (float64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	return v, err == nil && !math.IsInf(v, 0) && !math.IsNaN(v)
}

func parseWhole(raw json.RawMessage) (int, bool) {
	v, ok := parseNumber(raw)
	if !ok || v != math.Trunc(v) || math.Abs(v) > math.MaxInt32 {
		return 0, false
	}
	return int(v), true
}

func parseBool(raw json.RawMessage) (bool, bool) {
	switch string(bytes.TrimSpace(raw)) {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("api: marshal %T: %v", v, err)) // only plain numbers, booleans and steps
	}
	return b
}

// clip shows a refused value in an issue, cut short.
func clip(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	s = cmp.Or(s, "nothing")
	return s
}

func decodeIssue(err error) string {
	if err == nil {
		return "got null"
	}
	return err.Error()
}
