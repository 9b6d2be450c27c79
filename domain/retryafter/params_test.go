package retryafter

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParamsListEveryParameterWithValueUnitAndConstraint(t *testing.T) {
	ps := DefaultConfig().Params()
	type row struct {
		name  string
		value float64
		unit  string
	}
	want := []row{
		{"input_proof_throttler_tps", 10, "tps"},
		{"user_decrypt_throttler_tps", 10, "tps"},
		{"public_decrypt_throttler_tps", 10, "tps"},
		{"readiness_max_concurrency", 50, "checks"},
		{"nominal_readiness_check_seconds", 2, "s"},
		{"nominal_input_proof_processing_seconds", 2, "s"},
		{"nominal_user_decrypt_processing_seconds", 4, "s"},
		{"nominal_public_decrypt_processing_seconds", 4, "s"},
		{"nominal_tx_confirmation_ms", 100, "ms"},
		{"retry_after_safety_margin", 0, "ratio"},
		{"retry_after_min_seconds", 1, "s"},
		{"retry_after_max_seconds", 300, "s"},
		{"retry_after_adaptive_min_samples", 20, "samples"},
		{"retry_after_adaptive_stale_after_seconds", 600, "s"},
		{"receipt_backoff[0].elapsed_ms", 0, "ms"}, {"receipt_backoff[0].retry_seconds", 4, "s"},
		{"receipt_backoff[1].elapsed_ms", 60000, "ms"}, {"receipt_backoff[1].retry_seconds", 10, "s"},
		{"receipt_backoff[2].elapsed_ms", 120000, "ms"}, {"receipt_backoff[2].retry_seconds", 30, "s"},
		{"receipt_backoff[3].elapsed_ms", 300000, "ms"}, {"receipt_backoff[3].retry_seconds", 60, "s"},
		{"receipt_backoff[4].elapsed_ms", 900000, "ms"}, {"receipt_backoff[4].retry_seconds", 300, "s"},
	}
	if len(ps) != len(want) {
		t.Fatalf("%d params, want %d: %+v", len(ps), len(want), ps)
	}
	for i, w := range want {
		p := ps[i]
		if p.Name != w.name || p.Value != w.value || p.Unit != w.unit {
			t.Errorf("param %d = %s %v %s, want %s %v %s", i, p.Name, p.Value, p.Unit, w.name, w.value, w.unit)
		}
		if p.Constraint == "" || p.Description == "" {
			t.Errorf("%s has no constraint or description", p.Name)
		}
	}
	if got := ps[4].Aliases; !slices.Equal(got, []string{"nominal_readiness_check_ms"}) {
		t.Errorf("readiness aliases = %v", got)
	}
}

func TestSettingAListedParameterToItsOwnValueChangesNothing(t *testing.T) {
	c := DefaultConfig()
	for _, p := range c.Params() {
		got, err := c.Set(p.Name, p.Value)
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Errorf("Set(%s, %v): %v, changed=%v", p.Name, p.Value, err, !reflect.DeepEqual(got, c))
		}
	}
}

func TestSetChangesEachParameter(t *testing.T) {
	cases := []struct {
		name  string
		value float64
		check func(Config) bool
	}{
		{"input_proof_throttler_tps", 50, func(c Config) bool { return c.InputProofTPS == 50 }},
		{"user_decrypt_throttler_tps", 2.5, func(c Config) bool { return c.UserDecryptTPS == 2.5 }},
		{"public_decrypt_throttler_tps", 0.5, func(c Config) bool { return c.PublicDecryptTPS == 0.5 }},
		{"readiness_max_concurrency", 8, func(c Config) bool { return c.ReadinessMaxConcurrency == 8 }},
		{"nominal_readiness_check_seconds", 1.5, func(c Config) bool { return c.ReadinessCheckMs == 1500 }},
		{"nominal_readiness_check_ms", 750, func(c Config) bool { return c.ReadinessCheckMs == 750 }},
		{"nominal_input_proof_processing_seconds", 3, func(c Config) bool { return c.InputProofProcessingMs == 3000 }},
		{"nominal_input_proof_processing_ms", 2001, func(c Config) bool { return c.InputProofProcessingMs == 2001 }},
		{"nominal_user_decrypt_processing_seconds", 2.001, func(c Config) bool { return c.UserDecryptProcessingMs == 2001 }},
		{"nominal_user_decrypt_processing_ms", 0, func(c Config) bool { return c.UserDecryptProcessingMs == 0 }},
		{"nominal_public_decrypt_processing_seconds", 10, func(c Config) bool { return c.PublicDecryptProcessingMs == 10000 }},
		{"nominal_public_decrypt_processing_ms", 12345, func(c Config) bool { return c.PublicDecryptProcessingMs == 12345 }},
		{"nominal_tx_confirmation_ms", 1200, func(c Config) bool { return c.TxConfirmationMs == 1200 }},
		{"retry_after_safety_margin", 0.35, func(c Config) bool { return c.SafetyMargin == 0.35 }},
		{"retry_after_min_seconds", 2, func(c Config) bool { return c.MinSeconds == 2 }},
		{"retry_after_max_seconds", 600, func(c Config) bool { return c.MaxSeconds == 600 }},
		{"retry_after_adaptive_min_samples", 50, func(c Config) bool { return c.AdaptiveMinSamples == 50 }},
		{"retry_after_adaptive_stale_after_seconds", 120, func(c Config) bool { return c.AdaptiveStaleAfterSeconds == 120 }},
		{"receipt_backoff[0].retry_seconds", 2, func(c Config) bool { return c.ReceiptBackoff[0].RetrySeconds == 2 }},
		{"receipt_backoff[1].elapsed_ms", 30000, func(c Config) bool { return c.ReceiptBackoff[1].ElapsedMs == 30000 }},
		{"receipt_backoff[4].retry_seconds", 900, func(c Config) bool { return c.ReceiptBackoff[4].RetrySeconds == 900 }},
	}
	for _, c := range cases {
		t.Run("setting "+c.name+" changes it and only it", func(t *testing.T) {
			orig := DefaultConfig()
			got, err := orig.Set(c.name, c.value)
			if err != nil {
				t.Fatal(err)
			}
			if !c.check(got) {
				t.Errorf("not applied: %+v", got)
			}
			if !reflect.DeepEqual(orig, DefaultConfig()) {
				t.Error("Set modified the original config")
			}
			changed := 0
			gp, op := got.Params(), orig.Params()
			for i := range gp {
				if gp[i].Value != op[i].Value {
					changed++
				}
			}
			if changed > 1 {
				t.Errorf("%d listed values changed", changed)
			}
		})
	}
}

func TestSetRefusesBadValuesNamingParameterAndConstraint(t *testing.T) {
	cases := []struct {
		name  string
		value float64
	}{
		{"input_proof_throttler_tps", 0},
		{"user_decrypt_throttler_tps", -3},
		{"public_decrypt_throttler_tps", math.Inf(1)},
		{"readiness_max_concurrency", 0},
		{"readiness_max_concurrency", 2.5},
		{"nominal_readiness_check_seconds", -1},
		{"nominal_readiness_check_ms", 0.5},
		{"nominal_input_proof_processing_seconds", 90000},
		{"nominal_user_decrypt_processing_ms", -1},
		{"nominal_public_decrypt_processing_seconds", math.NaN()},
		{"nominal_tx_confirmation_ms", -1},
		{"retry_after_safety_margin", 1.01},
		{"retry_after_safety_margin", -0.5},
		{"retry_after_min_seconds", 0},
		{"retry_after_min_seconds", 1.5},
		{"retry_after_max_seconds", 100000},
		{"retry_after_adaptive_min_samples", 0},
		{"receipt_backoff[0].retry_seconds", 0},
		{"receipt_backoff[2].elapsed_ms", -1},
	}
	for _, c := range cases {
		t.Run("setting "+c.name+" to a bad value is refused", func(t *testing.T) {
			orig := DefaultConfig()
			got, err := orig.Set(c.name, c.value)
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Param != c.name {
				t.Fatalf("err = %v, want a *ParamError for %s", err, c.name)
			}
			spec, _ := orig.lookup(c.name)
			if !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), spec.constraint) {
				t.Errorf("message %q lacks the name or the constraint %q", err, spec.constraint)
			}
			if !reflect.DeepEqual(got, orig) {
				t.Error("a refused Set returned a changed config")
			}
		})
	}
}

func TestSetRefusesValuesThatBreakACrossFieldRule(t *testing.T) {
	cases := []struct {
		name    string
		value   float64
		problem string
	}{
		{"retry_after_min_seconds", 301, "retry_after_min_seconds"},
		{"retry_after_max_seconds", 0, "retry_after_max_seconds"},
		{"receipt_backoff[1].elapsed_ms", 0, "receipt_backoff[1].elapsed_ms"},
		{"receipt_backoff[3].elapsed_ms", 2_000_000, "receipt_backoff[4].elapsed_ms"},
		{"receipt_backoff[0].elapsed_ms", 1, "receipt_backoff[0].elapsed_ms"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("setting %s to %v, which breaks the bounds or the table, is refused", c.name, c.value), func(t *testing.T) {
			_, err := DefaultConfig().Set(c.name, c.value)
			if err == nil || !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), c.problem) {
				t.Errorf("err = %v, want one naming %s and %s", err, c.name, c.problem)
			}
		})
	}
	// Lowering max below the backoff table's 300 s is fine: B(E) is clamped when computed.
	if _, err := DefaultConfig().Set("retry_after_max_seconds", 60); err != nil {
		t.Errorf("max 60 with a 300 s backoff step: %v", err)
	}
}

func TestSetRefusesUnknownParameters(t *testing.T) {
	for _, name := range []string{"", "tps", "receipt_backoff[5].retry_seconds", "receipt_backoff[-1].elapsed_ms",
		"receipt_backoff[01].elapsed_ms", "receipt_backoff[1].seconds", "receipt_backoff[x].elapsed_ms", "RETRY_AFTER_MIN_SECONDS"} {
		_, err := DefaultConfig().Set(name, 1)
		if !errors.Is(err, ErrUnknownParam) || !strings.Contains(err.Error(), "input_proof_throttler_tps") {
			t.Errorf("Set(%q): %v, want ErrUnknownParam listing the known names", name, err)
		}
	}
}

func TestWithReceiptBackoffReplacesTheTableOrRefusesIt(t *testing.T) {
	steps := []BackoffStep{{0, 2}, {10_000, 5}}
	c, err := DefaultConfig().WithReceiptBackoff(steps)
	if err != nil || !slices.Equal(c.ReceiptBackoff, steps) {
		t.Fatalf("%v %+v", err, c.ReceiptBackoff)
	}
	steps[0].RetrySeconds = 99
	if c.ReceiptBackoff[0].RetrySeconds != 2 {
		t.Error("the table shares the caller's slice")
	}
	if _, err := DefaultConfig().WithReceiptBackoff([]BackoffStep{{5, 2}}); err == nil {
		t.Error("a table not starting at 0 was accepted")
	}
	if len(c.Params()) != 14+4 {
		t.Errorf("Params lists %d entries for a two-step table", len(c.Params()))
	}
}
