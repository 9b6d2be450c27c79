package ratelimit

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"relayer/domain/retryafter"
)

func TestTheDefaultsAreValidAndAsDocumented(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	w, r := c.Limits(ClassWrite), c.Limits(ClassRead)
	if w != (Limits{32, 30, 100, 10}) || r != (Limits{32, 30, 600, 10}) {
		t.Errorf("write %+v, read %+v", w, r)
	}
	if len(c.TrustedProxies) != 0 || c.TrustForwardedFor != nil || c.MaxKeys != 100_000 || c.RetryPolicy != retryafter.DefaultRetryPolicy() {
		t.Errorf("%+v", c)
	}
}

func TestTheConfigSpeaksSnakeCaseJSON(t *testing.T) {
	b, err := json.Marshal(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"concurrency_limit":32`, `"concurrency_timeout_seconds":30`, `"rolling_limit":100`,
		`"rolling_window_seconds":10`, `"read":{"rolling_limit":600}`, `"write":{}`, `"retry_policy":{"concurrency":{"base_ms":50`,
		`"trusted_proxies":null`, `"max_keys":100000`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	var back Config
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, DefaultConfig()) {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	if strings.Contains(string(b), "trust_forwarded_for") {
		t.Errorf("%s still speaks of trust_forwarded_for", b)
	}
	withProxies := DefaultConfig()
	withProxies.TrustedProxies = []string{"10.0.0.0/8", "2001:db8::1"}
	b, _ = json.Marshal(withProxies)
	if !strings.Contains(string(b), `"trusted_proxies":["10.0.0.0/8","2001:db8::1"]`) {
		t.Errorf("%s", b)
	}
	back = Config{}
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, withProxies) {
		t.Errorf("round trip with proxies: %+v, %v", back, err)
	}
	var partial Config
	_ = json.Unmarshal([]byte(`{"write":{"concurrency_limit":4}}`), &partial)
	if partial.Write.ConcurrencyLimit == nil || *partial.Write.ConcurrencyLimit != 4 || partial.Write.RollingLimit != nil {
		t.Errorf("partial override: %+v", partial.Write)
	}
}

func problemFields(t *testing.T, err error) []string {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v, want a *ValidationError", err)
	}
	var out []string
	for _, p := range ve.Problems {
		if p.Issue == "" {
			t.Errorf("%s has no issue text", p.Param)
		}
		out = append(out, p.Param)
	}
	return out
}

func TestValidateListsEveryProblem(t *testing.T) {
	c := Config{
		ConcurrencyLimit:          -1,
		ConcurrencyTimeoutSeconds: 90_000,
		RollingLimit:              MaxLimit + 1,
		RollingWindowSeconds:      0,
		Write:                     Override{RollingWindowSeconds: ptr(-3), ConcurrencyLimit: ptr(5)},
		Read:                      Override{ConcurrencyLimit: ptr(-2), ConcurrencyTimeoutSeconds: ptr(-1), RollingLimit: ptr(1 << 30)},
		RetryPolicy: retryafter.RetryPolicy{
			Concurrency: retryafter.BackoffPolicy{BaseMs: 0, MaxMs: 10, Factor: 0.5, JitterMs: -1},
			Rolling:     retryafter.BackoffPolicy{BaseMs: 100, MaxMs: 5000, Factor: math.NaN()},
		},
		MaxKeys: 3,
	}
	got := problemFields(t, c.Validate())
	want := []string{
		"concurrency_limit", "concurrency_timeout_seconds", "rolling_limit", "rolling_window_seconds",
		"write.rolling_window_seconds",
		"read.concurrency_limit", "read.concurrency_timeout_seconds", "read.rolling_limit",
		"retry_policy.concurrency.base_ms", "retry_policy.concurrency.factor", "retry_policy.concurrency.jitter_ms",
		"retry_policy.rolling.factor",
		"max_keys",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	if !strings.HasPrefix(c.Validate().Error(), "invalid rate-limit config: concurrency_limit: must be") {
		t.Errorf("message: %v", c.Validate())
	}
	if _, err := New(c); err == nil {
		t.Error("New accepted an invalid config")
	}
}

func TestTrustedProxiesMustBeAddressesOrPrefixesAndEachBadOneIsNamedByItsIndex(t *testing.T) {
	c := DefaultConfig()
	c.TrustedProxies = []string{"10.0.0.0/8", "192.0.2.7", "2001:db8::/48", "::ffff:198.51.100.1", "172.16.0.1/12"}
	if err := c.Validate(); err != nil {
		t.Fatalf("valid entries refused: %v", err)
	}
	c.TrustedProxies = []string{"10.0.0.0/8", "proxy.internal", "10.0.0.0/33", "", "fe80::1%eth0", "192.0.2.7"}
	got := problemFields(t, c.Validate())
	if want := []string{"trusted_proxies[1]", "trusted_proxies[2]", "trusted_proxies[3]", "trusted_proxies[4]"}; !slices.Equal(got, want) {
		t.Errorf("problems %v, want %v", got, want)
	}
	if err := c.Validate(); !strings.Contains(err.Error(), `"proxy.internal"`) {
		t.Errorf("the problem does not show the entry: %v", err)
	}
	if _, err := New(c); err == nil {
		t.Error("New accepted a bad proxy")
	}
}

func TestTrustForwardedForIsRefusedAsReplacedByTrustedProxies(t *testing.T) {
	on, off := true, false
	for _, tc := range []struct {
		name    string
		flag    *bool
		proxies []string
		refused bool
	}{
		{"true", &on, nil, true},
		{"true with proxies", &on, []string{"10.0.0.1"}, true},
		{"false with proxies (contradicts them)", &off, []string{"10.0.0.1"}, true},
		{"false alone (what no proxies means)", &off, nil, false},
		{"absent", nil, nil, false},
	} {
		c := DefaultConfig()
		c.TrustForwardedFor, c.TrustedProxies = tc.flag, tc.proxies
		err := c.Validate()
		if !tc.refused {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if got := problemFields(t, err); !slices.Equal(got, []string{"trust_forwarded_for"}) || !strings.Contains(err.Error(), "replaced by trusted_proxies") {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	// As a configuration file gives it.
	var c Config
	if err := json.Unmarshal([]byte(`{"trust_forwarded_for": true}`), &c); err != nil || c.TrustForwardedFor == nil || !*c.TrustForwardedFor {
		t.Fatalf("%+v %v", c, err)
	}
}

func TestParamsListEveryParameterWithItsValueAndConstraint(t *testing.T) {
	c := DefaultConfig()
	ps := c.Params()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
		if p.Constraint == "" || p.Unit == "" || p.Description == "" {
			t.Errorf("%s: %+v", p.Name, p)
		}
	}
	want := []string{
		"concurrency_limit", "concurrency_timeout_seconds", "rolling_limit", "rolling_window_seconds",
		"write.concurrency_limit", "write.concurrency_timeout_seconds", "write.rolling_limit", "write.rolling_window_seconds",
		"read.concurrency_limit", "read.concurrency_timeout_seconds", "read.rolling_limit", "read.rolling_window_seconds",
		"retry_policy.concurrency.base_ms", "retry_policy.concurrency.max_ms", "retry_policy.concurrency.factor",
		"retry_policy.concurrency.jitter_ms", "max_keys",
	}
	if !slices.Equal(names, want) || !slices.Equal(ParamNames(), want) {
		t.Errorf("got %v", names)
	}
	values := map[string]float64{}
	for _, p := range ps {
		values[p.Name] = p.Value
	}
	for name, v := range map[string]float64{
		"concurrency_limit": 32, "rolling_limit": 100, "write.rolling_limit": 100, "read.rolling_limit": 600,
		"read.rolling_window_seconds": 10, "retry_policy.concurrency.factor": 2, "max_keys": 100_000,
	} {
		if values[name] != v {
			t.Errorf("%s = %v, want %v", name, values[name], v)
		}
	}
}

func TestSetChangesOneParameterAndValidatesTheWhole(t *testing.T) {
	c := DefaultConfig()
	next, err := c.Set("write.concurrency_limit", 4)
	if err != nil {
		t.Fatal(err)
	}
	if next.Limits(ClassWrite).ConcurrencyLimit != 4 || next.Limits(ClassRead).ConcurrencyLimit != 32 || c.Write.ConcurrencyLimit != nil {
		t.Errorf("next %+v; the original changed: %v", next.Limits(ClassWrite), c.Write.ConcurrencyLimit)
	}
	// -1 removes an override: the class inherits the base value again.
	back, err := c.Set("read.rolling_limit", -1)
	if err != nil || back.Limits(ClassRead).RollingLimit != 100 || *c.Read.RollingLimit != 600 {
		t.Errorf("inherit: %+v, %v", back.Limits(ClassRead), err)
	}
	if _, err := c.Set("trust_forwarded_for", 1); !errors.Is(err, ErrUnknownParam) || !strings.Contains(err.Error(), "replaced by trusted_proxies") {
		t.Errorf("trust_forwarded_for: %v, want it refused as replaced by trusted_proxies", err)
	}
	if f, err := c.Set("retry_policy.concurrency.factor", 1.5); err != nil || f.RetryPolicy.Concurrency.Factor != 1.5 {
		t.Errorf("factor: %v", err)
	}

	var pe *ParamError
	if _, err := c.Set("nope", 1); !errors.Is(err, ErrUnknownParam) || !errors.As(err, &pe) || pe.Param != "nope" {
		t.Errorf("unknown: %v", err)
	}
	for _, bad := range []struct {
		name  string
		value float64
	}{
		{"concurrency_limit", -1}, {"concurrency_limit", 2.5}, {"rolling_window_seconds", 0},
		{"write.rolling_limit", -2}, {"trust_forwarded_for", 0}, {"max_keys", 15},
		{"retry_policy.concurrency.factor", 11}, {"rolling_limit", math.NaN()}, {"rolling_limit", math.Inf(1)},
		{"retry_policy.concurrency.max_ms", 10}, // below base_ms: the whole-config check refuses it
	} {
		got, err := c.Set(bad.name, bad.value)
		if !errors.As(err, &pe) || pe.Param != bad.name || !strings.Contains(err.Error(), bad.name) {
			t.Errorf("%s = %v: %v", bad.name, bad.value, err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("%s = %v: the refused value changed the config", bad.name, bad.value)
		}
	}
	var ve *ValidationError
	if _, err := c.Set("retry_policy.concurrency.max_ms", 10); !errors.As(err, &ve) {
		t.Errorf("cross-field: %v does not wrap the ValidationError", err)
	}
}

func TestClassesFollowTheMethod(t *testing.T) {
	for m, want := range map[string]Class{"GET": ClassRead, "HEAD": ClassRead, "OPTIONS": ClassRead,
		"POST": ClassWrite, "PUT": ClassWrite, "DELETE": ClassWrite, "PATCH": ClassWrite, "BREW": ClassWrite} {
		if got := ClassOf(m); got != want {
			t.Errorf("%s: %v", m, got)
		}
	}
	for _, c := range Classes() {
		if got, err := ParseClass(c.String()); err != nil || got != c {
			t.Errorf("%v: %v %v", c, got, err)
		}
	}
	if _, err := ParseClass("stream"); err == nil {
		t.Error("unknown class parsed")
	}
}

func TestErrorsNameTheRateLimitsAndNotTheRetryAfterPolicyWhoseTypesTheyShare(t *testing.T) {
	_, err := DefaultConfig().Set("rolling_limit", -5)
	if err == nil || !strings.HasPrefix(err.Error(), "rate-limit parameter rolling_limit: ") {
		t.Fatalf("Set error %q does not name the rate-limit parameter", err)
	}
	_, err = retryafter.DefaultConfig().Set("retry_after_safety_margin", 7)
	if err == nil || !strings.HasPrefix(err.Error(), "retry-after parameter retry_after_safety_margin: ") {
		t.Fatalf("retryafter Set error %q does not name the retry-after parameter", err)
	}
	bad := retryafter.DefaultConfig()
	bad.SafetyMargin = 2
	if err := bad.Validate(); err == nil || !strings.HasPrefix(err.Error(), "invalid retry-after config: ") {
		t.Fatalf("retryafter Validate error %q", err)
	}
}
