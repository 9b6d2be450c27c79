package retryafter

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Rate is an observed drain rate: items that left a queue per second over a recent window, how
// many departures back it, and how long before the caller's "now" the latest of them was.
type Rate struct {
	PerSecond float64 `json:"per_second"`
	Samples   int     `json:"samples"`
	// Age is how old the newest sample is (read only when Samples > 0; a negative Age, from a
	// clock a little ahead of the caller's, counts as 0).
	Age time.Duration `json:"age"`
}

// Sample is an observed stage duration (a robust typical value over a recent window, such as
// its median), how many completed stages back it, and how old the newest of them is.
type Sample struct {
	Typical time.Duration `json:"typical"`
	Samples int           `json:"samples"`
	// Age is how old the newest sample is (read only when Samples > 0; negative counts as 0).
	Age time.Duration `json:"age"`
}

// KindObserved is what the stats read model saw for one request kind.
type KindObserved struct {
	// TxDrain replaces D: the kind's TX queue drain rate.
	TxDrain Rate `json:"tx_drain"`
	// Processing replaces P: receipt_received to completion (the coprocessor's or KMS's answer).
	Processing Sample `json:"processing"`
}

// Observed is the input of the adaptive mode, from the stats read model.
type Observed struct {
	InputProof    KindObserved `json:"input_proof"`
	UserDecrypt   KindObserved `json:"user_decrypt"`
	PublicDecrypt KindObserved `json:"public_decrypt"`
	// ReadinessDrain replaces the seed's "C per second" for the readiness queue.
	ReadinessDrain Rate `json:"readiness_drain"`
	// ReadinessCheck replaces R: readiness picked up to readiness passed.
	ReadinessCheck Sample `json:"readiness_check"`
	// TxConfirmation replaces T: tx_in_flight to receipt_received, over all kinds.
	TxConfirmation Sample `json:"tx_confirmation"`
}

// Floors and ceilings of the adaptive mode: an observation outside them is pulled in, so a
// glitch in the stats can neither stop the hints (a rate near 0) nor make them tight-loop.
const (
	AdaptiveMinRate     = 0.01 // per second: at worst 100 s per queued item
	AdaptiveMinDuration = 10 * time.Millisecond
)

// Source says which value of an adapted parameter is in force: the configured (nominal) one or
// the observed one.
type Source struct{ s uint8 }

var (
	SourceNominal  = Source{0}
	SourceObserved = Source{1}
)

func (s Source) String() string {
	if s == SourceObserved {
		return "observed"
	}
	return "nominal"
}

// MarshalText writes the source's name.
func (s Source) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Adaptation is one parameter the adaptive mode may replace: its nominal value, what was
// observed, and which of the two is in force and why. Values are in Unit, the unit Params lists
// the parameter in.
type Adaptation struct {
	// Param is the parameter's name as Params lists it, or readiness_drain_rate for the
	// readiness queue's drain rate (nominally readiness_max_concurrency per second).
	Param string
	Unit  string
	// Nominal is the configured value.
	Nominal float64
	// Observed is the observation, pulled into the adaptive mode's floors and ceilings and
	// resolved as the configuration is (1 ms); meaningful only when Samples > 0.
	Observed float64
	Samples  int
	// Age is how old the observation's newest sample is (when Samples > 0).
	Age time.Duration
	// InForce is the value Compute is given.
	InForce Source
	// Why says why the nominal value is in force; empty when the observed one is.
	Why string
}

// Value is the value in force.
func (a Adaptation) Value() float64 {
	if a.InForce == SourceObserved {
		return a.Observed
	}
	return a.Nominal
}

// Adaptations says, for every nominal time and drain rate, what was observed and which value
// is in force. An observation replaces the nominal value only when all of these hold:
//   - it has at least cfg.AdaptiveMinSamples samples (DefaultMinSamples when that is not set);
//   - its newest sample is at most cfg.AdaptiveStaleAfterSeconds old
//     (DefaultStaleAfterSeconds when that is not set): an observation that stopped being
//     renewed (no traffic, or a kind nobody uses any more) says nothing about now;
//   - it is finite and positive.
//
// Otherwise the nominal value rules. Observed rates are pulled into [AdaptiveMinRate, MaxTPS],
// durations into [AdaptiveMinDuration, 24 h] and rounded up to the ms. The list is in a fixed
// order: the three TX drain rates, the readiness drain rate, then R, the three P and T.
func Adaptations(cfg Config, obs Observed) []Adaptation {
	_, as := adapt(cfg, obs)
	return as
}

// Adaptive returns cfg with every nominal time and drain rate for which Adaptations puts the
// observed value in force replaced by it. Bounds, margin and backoff table are untouched. The
// result is for Compute; it is not meant to be stored back as the operator's configuration.
func Adaptive(cfg Config, obs Observed) Config {
	out, _ := adapt(cfg, obs)
	return out
}

// adapt is Adaptive and Adaptations at once, so that the hints and what the operators are
// shown can never disagree.
func adapt(cfg Config, obs Observed) (Config, []Adaptation) {
	t := trust{need: cfg.AdaptiveMinSamples, stale: time.Duration(cfg.AdaptiveStaleAfterSeconds) * time.Second}
	if t.need < 1 {
		t.need = DefaultMinSamples
	}
	if t.stale <= 0 {
		t.stale = DefaultStaleAfterSeconds * time.Second
	}
	out := cfg
	as := make([]Adaptation, 0, 9)
	rate := func(param string, dst *float64, nominal float64, r Rate) {
		a := t.rate(param, nominal, r)
		if a.InForce == SourceObserved {
			*dst = a.Observed
		}
		as = append(as, a)
	}
	duration := func(param, unit string, dst *int64, s Sample) {
		a, ms := t.duration(param, unit, *dst, s)
		if a.InForce == SourceObserved {
			*dst = ms
		}
		as = append(as, a)
	}
	rate("input_proof_throttler_tps", &out.InputProofTPS, cfg.InputProofTPS, obs.InputProof.TxDrain)
	rate("user_decrypt_throttler_tps", &out.UserDecryptTPS, cfg.UserDecryptTPS, obs.UserDecrypt.TxDrain)
	rate("public_decrypt_throttler_tps", &out.PublicDecryptTPS, cfg.PublicDecryptTPS, obs.PublicDecrypt.TxDrain)
	readiness := float64(cfg.ReadinessMaxConcurrency)
	if cfg.ReadinessDrainRate > 0 {
		readiness = cfg.ReadinessDrainRate
	}
	rate("readiness_drain_rate", &out.ReadinessDrainRate, readiness, obs.ReadinessDrain)
	duration("nominal_readiness_check_seconds", "s", &out.ReadinessCheckMs, obs.ReadinessCheck)
	duration("nominal_input_proof_processing_seconds", "s", &out.InputProofProcessingMs, obs.InputProof.Processing)
	duration("nominal_user_decrypt_processing_seconds", "s", &out.UserDecryptProcessingMs, obs.UserDecrypt.Processing)
	duration("nominal_public_decrypt_processing_seconds", "s", &out.PublicDecryptProcessingMs, obs.PublicDecrypt.Processing)
	duration("nominal_tx_confirmation_ms", "ms", &out.TxConfirmationMs, obs.TxConfirmation)
	return out, as
}

// trust holds the rules an observation must meet to replace a nominal value.
type trust struct {
	need  int
	stale time.Duration
}

// why returns why an observation of samples, the newest age old, is not trusted ("" when it
// is); usable says whether its value is finite and positive.
func (t trust) why(samples int, age time.Duration, usable bool) string {
	if samples <= 0 {
		return "no samples"
	}
	var whys []string
	if samples < t.need {
		whys = append(whys, fmt.Sprintf("%d of the %d samples needed", samples, t.need))
	}
	if age > t.stale {
		whys = append(whys, fmt.Sprintf("stale: the newest sample is %s old, more than %s", age.Round(time.Second), t.stale))
	}
	if !usable {
		whys = append(whys, "the observation is not a finite positive value")
	}
	return strings.Join(whys, "; ")
}

func (t trust) decide(a *Adaptation, age time.Duration, usable bool) {
	a.Age = max(age, 0)
	if a.Why = t.why(a.Samples, a.Age, usable); a.Why == "" {
		a.InForce = SourceObserved
	}
}

func (t trust) rate(param string, nominal float64, r Rate) Adaptation {
	a := Adaptation{Param: param, Unit: "tps", Nominal: nominal, Samples: r.Samples}
	usable := !math.IsNaN(r.PerSecond) && !math.IsInf(r.PerSecond, 0) && r.PerSecond > 0
	if usable {
		a.Observed = min(max(r.PerSecond, AdaptiveMinRate), MaxTPS)
	}
	t.decide(&a, r.Age, usable)
	return a
}

// duration returns the adaptation of a time listed in unit ("s" or "ms") and stored in ms, and
// the observed value in ms.
func (t trust) duration(param, unit string, nominalMs int64, s Sample) (Adaptation, int64) {
	a := Adaptation{Param: param, Unit: unit, Nominal: float64(nominalMs), Samples: s.Samples}
	usable := s.Typical > 0
	var ms int64
	if usable {
		d := min(max(s.Typical, AdaptiveMinDuration), MaxNominalMs*time.Millisecond)
		// Round up to the ms: the estimate should not lose the fraction to the client's
		// disadvantage.
		ms = int64((d + time.Millisecond - 1) / time.Millisecond)
	}
	a.Observed = float64(ms)
	if unit == "s" {
		a.Nominal /= 1000
		a.Observed /= 1000
	}
	t.decide(&a, s.Age, usable)
	return a, ms
}
