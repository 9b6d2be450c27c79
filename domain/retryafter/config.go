package retryafter

import (
	"fmt"
	"math"
	"strings"
)

// Bounds every valid Config respects. They keep the arithmetic exact in 128 bits and stop a typo
// (a TPS of 1e12, a nominal time of a year) from reaching the clients.
const (
	MinTPS            = 0.001     // rates are resolved to 0.001 per second
	MaxTPS            = 1_000_000 // per second
	MaxConcurrency    = 1_000_000
	MaxNominalMs      = 86_400_000 // 24 h, for every nominal time
	MaxRetrySeconds   = 86_400     // 24 h, for min, max and every backoff step
	MaxBackoffSteps   = 64
	MaxMinSamples     = 1_000_000
	DefaultMinSamples = 20
	// DefaultStaleAfterSeconds is how old, by default, the newest sample of an observation may
	// be for Adaptive to trust it: ten minutes, long enough to ride out a quiet spell of a
	// busy relayer, short enough that what a relayer saw before a night without traffic (or
	// before its chain or KMS changed) does not outlive the change by much.
	DefaultStaleAfterSeconds = 600
)

// BackoffStep is one row of the ReceiptReceived table: from ElapsedMs on (until the next step's
// ElapsedMs), the hint is RetrySeconds.
type BackoffStep struct {
	ElapsedMs    int64 `json:"elapsed_ms"`
	RetrySeconds int   `json:"retry_seconds"`
}

// Config holds the parameters of the seed's formulas. Times are integer milliseconds; rates are
// per second. JSON names follow the public relayer's admin parameters where it has them (its
// nominal times are in seconds; here the stored fields are milliseconds, hence the _ms names;
// Params and Set speak the public relayer's _seconds names as well).
type Config struct {
	// D per kind: TX throttler drain rate, transactions per second.
	InputProofTPS    float64 `json:"input_proof_throttler_tps"`
	UserDecryptTPS   float64 `json:"user_decrypt_throttler_tps"`
	PublicDecryptTPS float64 `json:"public_decrypt_throttler_tps"`

	// C: readiness checks at once. The seed drains the readiness queue at C per second.
	ReadinessMaxConcurrency int `json:"readiness_max_concurrency"`
	// ReadinessDrainRate, when > 0, replaces "C per second" as the readiness queue's drain rate.
	// Adaptive sets it from observation; 0 (the default) keeps the seed's C per second.
	ReadinessDrainRate float64 `json:"readiness_drain_rate,omitempty"`

	// R: nominal readiness check time.
	ReadinessCheckMs int64 `json:"nominal_readiness_check_ms"`
	// P per kind: nominal processing time (the coprocessor's or KMS's answer after the TX).
	InputProofProcessingMs    int64 `json:"nominal_input_proof_processing_ms"`
	UserDecryptProcessingMs   int64 `json:"nominal_user_decrypt_processing_ms"`
	PublicDecryptProcessingMs int64 `json:"nominal_public_decrypt_processing_ms"`
	// T: nominal TX confirmation time.
	TxConfirmationMs int64 `json:"nominal_tx_confirmation_ms"`

	// M: the computed ETA is multiplied by 1+M (not B(E), the late ReceiptReceived backoff).
	// The seed's 0.2 makes every poll come late by a fifth of the job's ETA; the default is 0
	// (see DefaultConfig).
	SafetyMargin float64 `json:"retry_after_safety_margin"`
	// Every non-terminal hint is clamped to [MinSeconds, MaxSeconds].
	MinSeconds int `json:"retry_after_min_seconds"`
	MaxSeconds int `json:"retry_after_max_seconds"`

	// B(E): the ReceiptReceived table, ordered by ElapsedMs, first step at 0.
	ReceiptBackoff []BackoffStep `json:"receipt_backoff"`

	// AdaptiveMinSamples is how many samples an observation needs before Adaptive trusts it.
	AdaptiveMinSamples int `json:"retry_after_adaptive_min_samples"`
	// AdaptiveStaleAfterSeconds is the staleness horizon: Adaptive trusts an observation only
	// while its newest sample is at most this many seconds old.
	AdaptiveStaleAfterSeconds int `json:"retry_after_adaptive_stale_after_seconds"`
}

// DefaultReceiptBackoff returns the seed's table: 0-60s 4s, 60s-2m 10s, 2m-5m 30s, 5m-15m 60s,
// 15m+ 300s.
func DefaultReceiptBackoff() []BackoffStep {
	return []BackoffStep{
		{ElapsedMs: 0, RetrySeconds: 4},
		{ElapsedMs: 60_000, RetrySeconds: 10},
		{ElapsedMs: 120_000, RetrySeconds: 30},
		{ElapsedMs: 300_000, RetrySeconds: 60},
		{ElapsedMs: 900_000, RetrySeconds: 300},
	}
}

// DefaultConfig returns the seed's parameters: D=10 tps for every kind, C=50, R=2s, P=2s for
// input proofs and 4s for decrypts, T=100ms, min 1s, max 300s, the seed's backoff table, and for
// the adaptive mode 20 samples no older than 10 minutes; but M=0, not the seed's 0.2.
//
// The seed's margin kept a client from polling before its job ended, because an early poll cost
// up to B(E) = 4 s of lag. Since a job in receipt_received is told its remaining time (see
// Compute), an early poll costs one request and next to no lag, while the margin costs its
// whole amount in lag on every job: on a 6.5 s decrypt, 0.2 × 6.6 s ≈ 1.3 s, nearly twice the
// 15% lag budget of issue 13. An operator who wants fewer requests at the price of lag sets M.
func DefaultConfig() Config {
	return Config{
		InputProofTPS:             10,
		UserDecryptTPS:            10,
		PublicDecryptTPS:          10,
		ReadinessMaxConcurrency:   50,
		ReadinessCheckMs:          2_000,
		InputProofProcessingMs:    2_000,
		UserDecryptProcessingMs:   4_000,
		PublicDecryptProcessingMs: 4_000,
		TxConfirmationMs:          100,
		SafetyMargin:              0,
		MinSeconds:                1,
		MaxSeconds:                300,
		ReceiptBackoff:            DefaultReceiptBackoff(),
		AdaptiveMinSamples:        DefaultMinSamples,
		AdaptiveStaleAfterSeconds: DefaultStaleAfterSeconds,
	}
}

// Clone returns a copy that shares no memory with c (the backoff table is copied).
func (c Config) Clone() Config {
	c.ReceiptBackoff = append([]BackoffStep(nil), c.ReceiptBackoff...)
	return c
}

// Problem is one thing wrong with a Config: the parameter (its JSON name) and what is wrong.
// It maps onto the API's error details ({"field", "issue"}).
type Problem struct {
	Param string `json:"field"`
	Issue string `json:"issue"`
}

// ValidationError lists every problem Validate found, in field order. Subject names the
// configuration ("retry-after config"); other packages' configurations (the rate limits) use the
// same type with their own subject.
type ValidationError struct {
	Subject  string
	Problems []Problem
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("invalid ")
	b.WriteString(e.Subject)
	b.WriteString(": ")
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Param)
		b.WriteString(": ")
		b.WriteString(p.Issue)
	}
	return b.String()
}

// configSubject names this package's configuration in its errors.
const configSubject = "retry-after config"

// Constraint texts, shared by Validate, Params and Set so the three never disagree.
const (
	tpsConstraint         = "0.001 <= value <= 1000000 (per second)"
	concurrencyConstraint = "whole number, 1 <= value <= 1000000"
	msConstraint          = "whole number of ms, 0 <= value <= 86400000"
	secondsTimeConstraint = "0 <= value <= 86400 (seconds, resolved to 1 ms)"
	marginConstraint      = "0 <= value <= 1"
	minSecondsConstraint  = "whole number, 1 <= value <= retry_after_max_seconds"
	maxSecondsConstraint  = "whole number, retry_after_min_seconds <= value <= 86400"
	samplesConstraint     = "whole number, 1 <= value <= 1000000"
	staleConstraint       = "whole number of seconds, 1 <= value <= 86400"
	drainConstraint       = "0 (use readiness_max_concurrency per second) or 0.001 <= value <= 1000000"
	stepSecondsConstraint = "whole number, 1 <= value <= 86400"
	stepElapsedConstraint = "whole number of ms; step 0 is 0, then strictly increasing"
)

func checkTPS(v float64) string {
	if math.IsNaN(v) || v < MinTPS || v > MaxTPS {
		return fmt.Sprintf("must be %s, got %v", tpsConstraint, v)
	}
	return ""
}

func checkMs(v int64) string {
	if v < 0 || v > MaxNominalMs {
		return fmt.Sprintf("must be %s, got %d", msConstraint, v)
	}
	return ""
}

// Validate reports every problem of c at once, each with the parameter's name, as a
// *ValidationError; nil if c is usable.
func (c Config) Validate() error {
	var ps []Problem
	add := func(param, issue string) {
		if issue != "" {
			ps = append(ps, Problem{Param: param, Issue: issue})
		}
	}
	add("input_proof_throttler_tps", checkTPS(c.InputProofTPS))
	add("user_decrypt_throttler_tps", checkTPS(c.UserDecryptTPS))
	add("public_decrypt_throttler_tps", checkTPS(c.PublicDecryptTPS))
	if c.ReadinessMaxConcurrency < 1 || c.ReadinessMaxConcurrency > MaxConcurrency {
		add("readiness_max_concurrency", fmt.Sprintf("must be a %s, got %d", concurrencyConstraint, c.ReadinessMaxConcurrency))
	}
	if r := c.ReadinessDrainRate; r != 0 && checkTPS(r) != "" {
		add("readiness_drain_rate", fmt.Sprintf("must be %s, got %v", drainConstraint, r))
	}
	add("nominal_readiness_check_ms", checkMs(c.ReadinessCheckMs))
	add("nominal_input_proof_processing_ms", checkMs(c.InputProofProcessingMs))
	add("nominal_user_decrypt_processing_ms", checkMs(c.UserDecryptProcessingMs))
	add("nominal_public_decrypt_processing_ms", checkMs(c.PublicDecryptProcessingMs))
	add("nominal_tx_confirmation_ms", checkMs(c.TxConfirmationMs))
	if m := c.SafetyMargin; math.IsNaN(m) || m < 0 || m > 1 {
		add("retry_after_safety_margin", fmt.Sprintf("must be %s, got %v", marginConstraint, m))
	}
	minOK := c.MinSeconds >= 1 && c.MinSeconds <= MaxRetrySeconds
	maxOK := c.MaxSeconds >= 1 && c.MaxSeconds <= MaxRetrySeconds
	if !minOK {
		add("retry_after_min_seconds", fmt.Sprintf("must be a whole number, 1 <= value <= %d, got %d", MaxRetrySeconds, c.MinSeconds))
	}
	if !maxOK {
		add("retry_after_max_seconds", fmt.Sprintf("must be a whole number, 1 <= value <= %d, got %d", MaxRetrySeconds, c.MaxSeconds))
	}
	if minOK && maxOK && c.MinSeconds > c.MaxSeconds {
		add("retry_after_min_seconds", fmt.Sprintf("must be <= retry_after_max_seconds (%d), got %d", c.MaxSeconds, c.MinSeconds))
	}
	switch n := len(c.ReceiptBackoff); {
	case n == 0:
		add("receipt_backoff", "must have at least one step, the first at elapsed_ms 0")
	case n > MaxBackoffSteps:
		add("receipt_backoff", fmt.Sprintf("must have at most %d steps, got %d", MaxBackoffSteps, n))
	}
	for i, s := range c.ReceiptBackoff {
		switch {
		case i == 0 && s.ElapsedMs != 0:
			add("receipt_backoff[0].elapsed_ms", fmt.Sprintf("must be 0 (the table starts at 0), got %d", s.ElapsedMs))
		case i > 0 && s.ElapsedMs <= c.ReceiptBackoff[i-1].ElapsedMs:
			add(fmt.Sprintf("receipt_backoff[%d].elapsed_ms", i), fmt.Sprintf("must be greater than step %d's (%d): thresholds strictly increase, got %d", i-1, c.ReceiptBackoff[i-1].ElapsedMs, s.ElapsedMs))
		}
		if s.RetrySeconds < 1 || s.RetrySeconds > MaxRetrySeconds {
			add(fmt.Sprintf("receipt_backoff[%d].retry_seconds", i), fmt.Sprintf("must be a %s, got %d", stepSecondsConstraint, s.RetrySeconds))
		}
	}
	if c.AdaptiveMinSamples < 1 || c.AdaptiveMinSamples > MaxMinSamples {
		add("retry_after_adaptive_min_samples", fmt.Sprintf("must be a %s, got %d", samplesConstraint, c.AdaptiveMinSamples))
	}
	if c.AdaptiveStaleAfterSeconds < 1 || c.AdaptiveStaleAfterSeconds > MaxRetrySeconds {
		add("retry_after_adaptive_stale_after_seconds", fmt.Sprintf("must be a %s, got %d", staleConstraint, c.AdaptiveStaleAfterSeconds))
	}
	if len(ps) == 0 {
		return nil
	}
	return &ValidationError{Subject: configSubject, Problems: ps}
}
