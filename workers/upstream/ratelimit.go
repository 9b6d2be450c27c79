package upstream

import (
	"net/http"
	"time"

	"relayer/internal/sfv"
)

// Unknown marks a RateLimitInfo count (Limit, Remaining) the server did not state.
const Unknown int64 = -1

// The header families a RateLimitInfo can come from, in ParseRateLimit's order of preference.
const (
	// HeaderRetryAfter is Retry-After (RFC 9110 §10.2.3).
	HeaderRetryAfter = "Retry-After"
	// HeaderRateLimit is the IETF draft's RateLimit and RateLimit-Policy fields
	// (draft-ietf-httpapi-ratelimit-headers): the structured-field form of draft 08 and later,
	// `RateLimit: "default";r=0;t=30` and `RateLimit-Policy: "default";q=100;w=60`, and the
	// dictionary form of draft 07, `RateLimit: limit=100, remaining=0, reset=30` with
	// `RateLimit-Policy: 100;w=60`.
	HeaderRateLimit = "RateLimit"
	// HeaderRateLimitTrio is the three separate fields of drafts 00 to 06, still common:
	// RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (seconds from now).
	HeaderRateLimitTrio = "RateLimit-Limit/Remaining/Reset"
	// HeaderXRateLimit is the de-facto X-RateLimit-Limit, X-RateLimit-Remaining and
	// X-RateLimit-Reset.
	HeaderXRateLimit = "X-RateLimit"
)

// epochThreshold separates the two meanings of X-RateLimit-Reset: a value above it is a Unix time
// in seconds (1e9 seconds is September 2001; as a delay it would be 31 years), a value above
// epochMillisThreshold is a Unix time in milliseconds (1e12 seconds is the year 33658), anything
// else is seconds from now.
const (
	epochThreshold       = 1_000_000_000
	epochMillisThreshold = 1_000_000_000_000
)

// Quota is what a response said about the client's quota: the state of its window.
type Quota struct {
	// Header is the family Limit, Remaining, Reset, Window and Policy came from (HeaderRateLimit,
	// HeaderRateLimitTrio or HeaderXRateLimit), or "" when the response had none of them.
	Header string
	// Policy is the name of the quota policy (RateLimit draft 08 and later), or "".
	Policy string
	// Limit is the quota of the window; Unknown if not stated.
	Limit int64
	// Remaining is what is left of the quota; Unknown if not stated.
	Remaining int64
	// Reset is when the quota is restored; zero if not stated.
	Reset time.Time
	// Window is the length of the quota's window (RateLimit-Policy w); zero if not stated.
	Window time.Duration
}

// RateLimitInfo is what a response said about the client's rate limit: its quota, and how long
// it asked the client to wait.
type RateLimitInfo struct {
	Quota

	// RetryAfter is the parsed Retry-After, valid when HasRetryAfter.
	RetryAfter    time.Duration
	HasRetryAfter bool
}

// Known reports whether the response carried any usable rate-limit information.
func (i RateLimitInfo) Known() bool { return i.HasRetryAfter || i.Header != "" }

// Wait is the wait the server asked for and the header family that asked for it. Retry-After
// takes precedence over everything else. Otherwise a known Reset counts when the quota is used up
// or its state is not stated (Remaining 0 or Unknown): the wait is until Reset, 0 if it has
// passed. A Reset with quota left is not a request to wait, and gives ok false.
func (i RateLimitInfo) Wait(now time.Time) (d time.Duration, from string, ok bool) {
	if i.HasRetryAfter {
		return i.RetryAfter, HeaderRetryAfter, true
	}
	if i.Header != "" && !i.Reset.IsZero() && i.Remaining <= 0 {
		return untilClamped(i.Reset, now), i.Header, true
	}
	return 0, "", false
}

// ParseRateLimit reads every rate-limit field of a response: Retry-After, then the first of
// RateLimit/RateLimit-Policy, the RateLimit-Limit/Remaining/Reset trio and X-RateLimit-* that is
// present and valid. A field that is not valid is ignored, as if absent. Relative resets are taken
// from now. A field sent on more than one line is used only if RFC 9651 allows it (RateLimit,
// RateLimit-Policy) or if all its lines agree (Retry-After and the numeric fields).
func ParseRateLimit(h http.Header, now time.Time) RateLimitInfo {
	info := RateLimitInfo{Quota: Quota{Limit: Unknown, Remaining: Unknown}}
	if v, ok := singleValue(h, "Retry-After"); ok {
		if d, ok := ParseRetryAfter(v, now); ok {
			info.RetryAfter, info.HasRetryAfter = d, true
		}
	}
	if parseRateLimitDraft(h, now, &info) {
		return info
	}
	if parseRateLimitTrio(h, now, &info) {
		return info
	}
	parseXRateLimit(h, now, &info)
	return info
}

// singleValue returns the field's value when it is present and all its lines are identical.
func singleValue(h http.Header, name string) (string, bool) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	for _, v := range vs[1:] {
		if trimOWS(v) != trimOWS(vs[0]) {
			return "", false
		}
	}
	return vs[0], true
}

type quotaPolicy struct {
	name   string
	named  bool
	quota  int64
	window time.Duration
}

// parseRateLimitDraft reads RateLimit and RateLimit-Policy.
func parseRateLimitDraft(h http.Header, now time.Time, info *RateLimitInfo) bool {
	policies := parsePolicies(h.Values("Ratelimit-Policy"))
	lines := h.Values("Ratelimit")
	if len(lines) > 0 {
		field := sfv.JoinFieldLines(lines)
		if list, ok := sfv.ParseList(field); ok && parseRateLimitList(list, policies, now, info) {
			return true
		}
		if dict, ok := sfv.ParseDictionary(field); ok && parseRateLimitDict(dict, policies, now, info) {
			return true
		}
	}
	if len(policies) == 0 {
		return false
	}
	// Only the policy: the quota and window are known, the current state is not.
	p := policies[0]
	info.Header, info.Policy, info.Limit, info.Window = HeaderRateLimit, p.name, p.quota, p.window
	return true
}

func parsePolicies(lines []string) []quotaPolicy {
	if len(lines) == 0 {
		return nil
	}
	list, ok := sfv.ParseList(sfv.JoinFieldLines(lines))
	if !ok {
		return nil
	}
	var out []quotaPolicy
	for _, it := range list {
		var p quotaPolicy
		switch it.Value.Kind {
		case sfv.String, sfv.Token: // draft 08+: "name";q=100;w=60
			p.name, p.named = it.Value.Str, true
			q, ok := it.Param("q")
			if !ok || q.Kind != sfv.Integer || q.Int < 0 {
				continue
			}
			p.quota = q.Int
		case sfv.Integer: // draft 07: 100;w=60
			if it.Value.Int < 0 {
				continue
			}
			p.quota = it.Value.Int
		default:
			continue
		}
		if w, ok := it.Param("w"); ok {
			if w.Kind != sfv.Integer || w.Int <= 0 {
				continue
			}
			p.window = secondsDuration(uint64(w.Int))
		}
		out = append(out, p)
	}
	return out
}

// parseRateLimitList reads the draft 08+ form: a list of policy names, each with r (remaining,
// required) and t (seconds until reset). When several policies are listed, the most restrictive
// one is reported: of the exhausted ones the one that resets last, else the one with the least
// remaining.
func parseRateLimitList(list []sfv.Item, policies []quotaPolicy, now time.Time, info *RateLimitInfo) bool {
	type member struct {
		name      string
		remaining int64
		reset     int64 // seconds, -1 if absent
	}
	var best *member
	for _, it := range list {
		if it.Value.Kind != sfv.String && it.Value.Kind != sfv.Token {
			continue
		}
		r, ok := it.Param("r")
		if !ok || r.Kind != sfv.Integer || r.Int < 0 {
			continue
		}
		m := member{name: it.Value.Str, remaining: r.Int, reset: -1}
		if t, ok := it.Param("t"); ok {
			if t.Kind != sfv.Integer || t.Int < 0 {
				continue
			}
			m.reset = t.Int
		}
		if best == nil || moreRestrictive(m.remaining, m.reset, best.remaining, best.reset) {
			mm := m
			best = &mm
		}
	}
	if best == nil {
		return false
	}
	info.Header, info.Policy, info.Remaining = HeaderRateLimit, best.name, best.remaining
	if best.reset >= 0 {
		info.Reset = now.Add(secondsDuration(uint64(best.reset)))
	}
	for _, p := range policies {
		if p.named && p.name == best.name {
			info.Limit, info.Window = p.quota, p.window
			break
		}
	}
	return true
}

func moreRestrictive(rem, reset, bestRem, bestReset int64) bool {
	if rem == 0 && bestRem == 0 {
		return reset > bestReset
	}
	if rem != bestRem {
		return rem < bestRem
	}
	return reset > bestReset
}

// parseRateLimitDict reads the draft 07 form: limit, remaining and reset (seconds) as a
// dictionary. remaining is required.
func parseRateLimitDict(dict []sfv.Member, policies []quotaPolicy, now time.Time, info *RateLimitInfo) bool {
	get := func(key string) (int64, bool, bool) { // value, present, valid
		for _, m := range dict {
			if m.Key == key {
				v := m.Item.Value
				if v.Kind != sfv.Integer || v.Int < 0 {
					return 0, true, false
				}
				return v.Int, true, true
			}
		}
		return 0, false, true
	}
	remaining, present, valid := get("remaining")
	if !present || !valid {
		return false
	}
	limit, hasLimit, validLimit := get("limit")
	reset, hasReset, validReset := get("reset")
	if !validLimit || !validReset {
		return false
	}
	info.Header, info.Remaining = HeaderRateLimit, remaining
	if hasLimit {
		info.Limit = limit
	}
	if hasReset {
		info.Reset = now.Add(secondsDuration(uint64(reset)))
	}
	if len(policies) > 0 {
		p := policies[0]
		for _, q := range policies {
			if hasLimit && q.quota == limit {
				p = q
				break
			}
		}
		info.Window = p.window
		if !hasLimit {
			info.Limit = p.quota
		}
	}
	return true
}

// parseRateLimitTrio reads RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (drafts 00 to
// 06). Each is an integer, optionally followed by policies (RateLimit-Limit: 100, 100;w=60), of
// which only the first number counts. Reset is seconds from now.
func parseRateLimitTrio(h http.Header, now time.Time, info *RateLimitInfo) bool {
	first := func(name string) (int64, bool) {
		lines := h.Values(name)
		if len(lines) == 0 {
			return 0, false
		}
		list, ok := sfv.ParseList(sfv.JoinFieldLines(lines))
		if !ok || len(list) == 0 || list[0].Value.Kind != sfv.Integer || list[0].Value.Int < 0 {
			return 0, false
		}
		return list[0].Value.Int, true
	}
	var f limitHeaders
	f.limit, f.hasLimit = first("Ratelimit-Limit")
	f.remaining, f.hasRemaining = first("Ratelimit-Remaining")
	reset, hasReset := first("Ratelimit-Reset")
	if hasReset {
		f.reset, f.hasReset = now.Add(secondsDuration(uint64(reset))), true
	}
	return f.fill(HeaderRateLimitTrio, info)
}

// parseXRateLimit reads X-RateLimit-Limit, X-RateLimit-Remaining (non-negative integers) and
// X-RateLimit-Reset: an integer, or one with a decimal fraction (some APIs send milliseconds that
// way), meaning a Unix time in seconds above 1e9, a Unix time in milliseconds above 1e12, and
// otherwise seconds from now.
func parseXRateLimit(h http.Header, now time.Time, info *RateLimitInfo) bool {
	num := func(name string) (int64, bool) {
		v, ok := singleValue(h, name)
		if !ok {
			return 0, false
		}
		n, ok := parseDigits(trimOWS(v), 1<<53)
		if !ok || n >= 1<<53 {
			return 0, false
		}
		return int64(n), true
	}
	var f limitHeaders
	f.limit, f.hasLimit = num("X-Ratelimit-Limit")
	f.remaining, f.hasRemaining = num("X-Ratelimit-Remaining")
	f.reset, f.hasReset = parseXReset(h, now)
	return f.fill(HeaderXRateLimit, info)
}

// limitHeaders is what one family of limit, remaining and reset headers said: each value, with
// whether its header was there and readable.
type limitHeaders struct {
	limit, remaining                 int64
	reset                            time.Time
	hasLimit, hasRemaining, hasReset bool
}

// fill sets info from f as the family header, and says whether the family told anything: it does
// only when remaining or reset was found. Only the values found are set.
func (f limitHeaders) fill(header string, info *RateLimitInfo) bool {
	if !f.hasRemaining && !f.hasReset {
		return false
	}
	info.Header = header
	if f.hasLimit {
		info.Limit = f.limit
	}
	if f.hasRemaining {
		info.Remaining = f.remaining
	}
	if f.hasReset {
		info.Reset = f.reset
	}
	return true
}

func parseXReset(h http.Header, now time.Time) (time.Time, bool) {
	v, ok := singleValue(h, "X-Ratelimit-Reset")
	if !ok {
		return time.Time{}, false
	}
	v = trimOWS(v)
	intPart, frac := v, ""
	for i := 0; i < len(v); i++ {
		if v[i] == '.' {
			intPart, frac = v[:i], v[i+1:]
			if frac == "" {
				return time.Time{}, false
			}
			break
		}
	}
	n, ok := parseDigits(intPart, uint64(maxUnixMillis))
	if !ok {
		return time.Time{}, false
	}
	// The fraction, to nanoseconds (digits past the ninth are dropped).
	var nanos int64
	scale := int64(1_000_000_000)
	for i := 0; i < len(frac); i++ {
		if !isDigit(frac[i]) {
			return time.Time{}, false
		}
		if scale > 1 {
			scale /= 10
			nanos += int64(frac[i]-'0') * scale
		}
	}
	switch {
	case n > epochMillisThreshold:
		return time.UnixMilli(int64(n)).Add(time.Duration(nanos / 1000)).UTC(), true
	case n > epochThreshold:
		return time.Unix(int64(n), nanos).UTC(), true
	default:
		return now.Add(secondsDuration(n) + time.Duration(nanos)), true
	}
}

// maxUnixMillis keeps time.UnixMilli far from overflow (about the year 292 million).
const maxUnixMillis = int64(1) << 53

// secondsDuration converts seconds to a Duration, saturating at MaxRetryAfter.
func secondsDuration(n uint64) time.Duration {
	if n > maxRetryAfterSeconds {
		n = maxRetryAfterSeconds
	}
	return time.Duration(n) * time.Second
}
