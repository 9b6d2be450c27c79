package retryafter

import (
	"math"
	"time"
)

// Rate is an observed drain rate: items that left a queue per second, measured while the queue
// had items waiting (an idle queue's throughput says nothing about its capacity), and how many
// departures back it.
type Rate struct {
	PerSecond float64 `json:"per_second"`
	Samples   int     `json:"samples"`
}

// Sample is an observed stage duration (a typical value such as the mean or median over a recent
// window) and how many completed stages back it.
type Sample struct {
	Typical time.Duration `json:"typical"`
	Samples int           `json:"samples"`
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

// Adaptive returns cfg with every nominal time and drain rate that the observations back with at
// least cfg.AdaptiveMinSamples samples (DefaultMinSamples when that is not set) replaced by the
// observed value, pulled into [AdaptiveMinRate, MaxTPS] for rates and [AdaptiveMinDuration, 24 h]
// for durations. Observations with too few samples, or that are not finite and positive, leave
// the nominal value in place. Bounds, margin and backoff table are untouched. The result is for
// Compute; it is not meant to be stored back as the operator's configuration.
func Adaptive(cfg Config, obs Observed) Config {
	need := cfg.AdaptiveMinSamples
	if need < 1 {
		need = DefaultMinSamples
	}
	out := cfg
	adaptRate(&out.InputProofTPS, obs.InputProof.TxDrain, need)
	adaptRate(&out.UserDecryptTPS, obs.UserDecrypt.TxDrain, need)
	adaptRate(&out.PublicDecryptTPS, obs.PublicDecrypt.TxDrain, need)
	adaptRate(&out.ReadinessDrainRate, obs.ReadinessDrain, need)
	adaptDuration(&out.InputProofProcessingMs, obs.InputProof.Processing, need)
	adaptDuration(&out.UserDecryptProcessingMs, obs.UserDecrypt.Processing, need)
	adaptDuration(&out.PublicDecryptProcessingMs, obs.PublicDecrypt.Processing, need)
	adaptDuration(&out.ReadinessCheckMs, obs.ReadinessCheck, need)
	adaptDuration(&out.TxConfirmationMs, obs.TxConfirmation, need)
	return out
}

func adaptRate(dst *float64, r Rate, need int) {
	if r.Samples < need || math.IsNaN(r.PerSecond) || math.IsInf(r.PerSecond, 0) || r.PerSecond <= 0 {
		return
	}
	*dst = min(max(r.PerSecond, AdaptiveMinRate), MaxTPS)
}

func adaptDuration(dst *int64, s Sample, need int) {
	if s.Samples < need || s.Typical <= 0 {
		return
	}
	d := min(max(s.Typical, AdaptiveMinDuration), MaxNominalMs*time.Millisecond)
	// Round up to the ms: the estimate should not lose the fraction to the client's disadvantage.
	*dst = int64((d + time.Millisecond - 1) / time.Millisecond)
}
