package retryafter

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func problemParams(t *testing.T, err error) []string {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v is not a *ValidationError", err)
	}
	var names []string
	for _, p := range ve.Problems {
		names = append(names, p.Param)
		if !strings.Contains(err.Error(), p.Param+": "+p.Issue) {
			t.Errorf("the message does not carry problem %q", p.Param)
		}
	}
	return names
}

func TestTheDefaultConfigIsTheSeedsWithoutItsMarginAndValid(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	want := Config{
		InputProofTPS: 10, UserDecryptTPS: 10, PublicDecryptTPS: 10, ReadinessMaxConcurrency: 50,
		ReadinessCheckMs: 2000, InputProofProcessingMs: 2000, UserDecryptProcessingMs: 4000, PublicDecryptProcessingMs: 4000,
		TxConfirmationMs: 100, SafetyMargin: 0, MinSeconds: 1, MaxSeconds: 300,
		ReceiptBackoff:     []BackoffStep{{0, 4}, {60000, 10}, {120000, 30}, {300000, 60}, {900000, 300}},
		AdaptiveMinSamples: 20, AdaptiveStaleAfterSeconds: 600,
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("DefaultConfig() = %+v\nwant %+v", c, want)
	}
	if !slices.Equal(defaultBackoff[:], DefaultReceiptBackoff()) {
		t.Error("Compute's fallback table differs from DefaultReceiptBackoff")
	}
}

func TestConfigUsesThePublicRelayersJSONNames(t *testing.T) {
	b, err := json.Marshal(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		"input_proof_throttler_tps", "user_decrypt_throttler_tps", "public_decrypt_throttler_tps",
		"readiness_max_concurrency", "nominal_readiness_check_ms", "nominal_input_proof_processing_ms",
		"nominal_user_decrypt_processing_ms", "nominal_public_decrypt_processing_ms", "nominal_tx_confirmation_ms",
		"retry_after_safety_margin", "retry_after_min_seconds", "retry_after_max_seconds",
		`"receipt_backoff":[{"elapsed_ms":0,"retry_seconds":4}`,
	} {
		if !strings.Contains(string(b), name) {
			t.Errorf("JSON lacks %s: %s", name, b)
		}
	}
	var back Config
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, DefaultConfig()) {
		t.Errorf("JSON round trip: %v, %+v", err, back)
	}
}

func TestValidateNamesEveryBrokenParameter(t *testing.T) {
	cases := []struct {
		name string
		mut  func(*Config)
		want []string
	}{
		{"a TPS of zero is refused", func(c *Config) { c.InputProofTPS = 0 }, []string{"input_proof_throttler_tps"}},
		{"a negative TPS is refused", func(c *Config) { c.UserDecryptTPS = -1 }, []string{"user_decrypt_throttler_tps"}},
		{"a NaN TPS is refused", func(c *Config) { c.PublicDecryptTPS = math.NaN() }, []string{"public_decrypt_throttler_tps"}},
		{"a TPS above a million is refused", func(c *Config) { c.PublicDecryptTPS = 2e6 }, []string{"public_decrypt_throttler_tps"}},
		{"a concurrency of zero is refused", func(c *Config) { c.ReadinessMaxConcurrency = 0 }, []string{"readiness_max_concurrency"}},
		{"a negative readiness drain rate is refused", func(c *Config) { c.ReadinessDrainRate = -2 }, []string{"readiness_drain_rate"}},
		{"a negative readiness time is refused", func(c *Config) { c.ReadinessCheckMs = -1 }, []string{"nominal_readiness_check_ms"}},
		{"a negative processing time is refused", func(c *Config) { c.InputProofProcessingMs = -1 }, []string{"nominal_input_proof_processing_ms"}},
		{"a processing time over a day is refused", func(c *Config) { c.UserDecryptProcessingMs = MaxNominalMs + 1 }, []string{"nominal_user_decrypt_processing_ms"}},
		{"a negative public decrypt time is refused", func(c *Config) { c.PublicDecryptProcessingMs = -1 }, []string{"nominal_public_decrypt_processing_ms"}},
		{"a negative confirmation time is refused", func(c *Config) { c.TxConfirmationMs = -100 }, []string{"nominal_tx_confirmation_ms"}},
		{"a margin above 1 is refused", func(c *Config) { c.SafetyMargin = 1.5 }, []string{"retry_after_safety_margin"}},
		{"a negative margin is refused", func(c *Config) { c.SafetyMargin = -0.1 }, []string{"retry_after_safety_margin"}},
		{"a NaN margin is refused", func(c *Config) { c.SafetyMargin = math.NaN() }, []string{"retry_after_safety_margin"}},
		{"a min of zero is refused", func(c *Config) { c.MinSeconds = 0 }, []string{"retry_after_min_seconds"}},
		{"a max over a day is refused", func(c *Config) { c.MaxSeconds = MaxRetrySeconds + 1 }, []string{"retry_after_max_seconds"}},
		{"min above max is refused", func(c *Config) { c.MinSeconds, c.MaxSeconds = 60, 30 }, []string{"retry_after_min_seconds"}},
		{"an empty backoff table is refused", func(c *Config) { c.ReceiptBackoff = nil }, []string{"receipt_backoff"}},
		{"a backoff table not starting at 0 is refused", func(c *Config) { c.ReceiptBackoff[0].ElapsedMs = 5 }, []string{"receipt_backoff[0].elapsed_ms"}},
		{"a repeated threshold is refused", func(c *Config) { c.ReceiptBackoff[2].ElapsedMs = 60000 }, []string{"receipt_backoff[2].elapsed_ms"}},
		{"a decreasing threshold is refused", func(c *Config) { c.ReceiptBackoff[4].ElapsedMs = 1000 }, []string{"receipt_backoff[4].elapsed_ms"}},
		{"a zero backoff value is refused", func(c *Config) { c.ReceiptBackoff[1].RetrySeconds = 0 }, []string{"receipt_backoff[1].retry_seconds"}},
		{"too many backoff steps are refused", func(c *Config) {
			c.ReceiptBackoff = nil
			for i := range MaxBackoffSteps + 1 {
				c.ReceiptBackoff = append(c.ReceiptBackoff, BackoffStep{int64(i) * 1000, 5})
			}
		}, []string{"receipt_backoff"}},
		{"zero adaptive samples are refused", func(c *Config) { c.AdaptiveMinSamples = 0 }, []string{"retry_after_adaptive_min_samples"}},
		{"a zero staleness horizon is refused", func(c *Config) { c.AdaptiveStaleAfterSeconds = 0 }, []string{"retry_after_adaptive_stale_after_seconds"}},
		{"a staleness horizon beyond a day is refused", func(c *Config) { c.AdaptiveStaleAfterSeconds = 86_401 }, []string{"retry_after_adaptive_stale_after_seconds"}},
		{"every problem is listed at once", func(c *Config) {
			c.InputProofTPS, c.ReadinessMaxConcurrency, c.TxConfirmationMs, c.SafetyMargin = 0, 0, -1, 2
			c.MinSeconds, c.MaxSeconds = 0, 0
			c.ReceiptBackoff = []BackoffStep{{10, 0}, {5, 3}}
		}, []string{
			"input_proof_throttler_tps", "readiness_max_concurrency", "nominal_tx_confirmation_ms", "retry_after_safety_margin",
			"retry_after_min_seconds", "retry_after_max_seconds",
			"receipt_backoff[0].elapsed_ms", "receipt_backoff[0].retry_seconds", "receipt_backoff[1].elapsed_ms",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.mut(&cfg)
			got := problemParams(t, cfg.Validate())
			if !slices.Equal(got, c.want) {
				t.Errorf("problems with %v, want %v", got, c.want)
			}
		})
	}
}

func TestTheZeroConfigListsEveryRequiredParameter(t *testing.T) {
	got := problemParams(t, Config{}.Validate())
	want := []string{
		"input_proof_throttler_tps", "user_decrypt_throttler_tps", "public_decrypt_throttler_tps",
		"readiness_max_concurrency", "retry_after_min_seconds", "retry_after_max_seconds",
		"receipt_backoff", "retry_after_adaptive_min_samples", "retry_after_adaptive_stale_after_seconds",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestEdgeValuesAreAccepted(t *testing.T) {
	c := DefaultConfig()
	c.SafetyMargin = 0
	c.InputProofProcessingMs, c.TxConfirmationMs, c.ReadinessCheckMs = 0, 0, MaxNominalMs
	c.InputProofTPS, c.UserDecryptTPS = MinTPS, MaxTPS
	c.MinSeconds, c.MaxSeconds = 7, 7
	c.ReceiptBackoff = []BackoffStep{{0, MaxRetrySeconds}}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
	c.SafetyMargin = 1
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
}

func TestCloneSharesNoBackoffTable(t *testing.T) {
	a := DefaultConfig()
	b := a.Clone()
	b.ReceiptBackoff[0].RetrySeconds = 99
	if a.ReceiptBackoff[0].RetrySeconds != 4 {
		t.Error("Clone shares the backoff table")
	}
}
