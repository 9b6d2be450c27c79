package retryafter

import (
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"
)

func TestAdaptiveKeepsNominalValuesBelowTheSampleThreshold(t *testing.T) {
	cfg := DefaultConfig()
	obs := Observed{
		InputProof:     KindObserved{TxDrain: Rate{2, 19}, Processing: Sample{10 * time.Second, 19}},
		ReadinessDrain: Rate{1, 19},
		ReadinessCheck: Sample{time.Second, 19},
		TxConfirmation: Sample{5 * time.Second, 19},
	}
	if got := Adaptive(cfg, obs); !reflect.DeepEqual(got, cfg) {
		t.Errorf("19 samples changed the config: %+v", got)
	}
}

func TestAdaptiveSwitchesAtTheSampleThreshold(t *testing.T) {
	for _, n := range []int{19, 20, 21} {
		t.Run(fmt.Sprintf("an observed drain rate with %d samples is used iff n >= 20", n), func(t *testing.T) {
			cfg := DefaultConfig()
			obs := Observed{InputProof: KindObserved{TxDrain: Rate{PerSecond: 2, Samples: n}}}
			got := Compute(Adaptive(cfg, obs), Input{Kind: InputProof, Status: Processing, Position: 100})
			// nominal: (10 s + 2.1 s) × 1.2 = 14.52 -> 15; observed 2 tps: (50 s + 2.1 s) × 1.2 = 62.52 -> 63.
			want := 15
			if n >= 20 {
				want = 63
			}
			if got.Seconds != want {
				t.Errorf("got %d s, want %d s", got.Seconds, want)
			}
		})
	}
}

func TestAdaptiveReplacesEveryNominalValueThatIsBacked(t *testing.T) {
	cfg := DefaultConfig()
	obs := Observed{
		InputProof:     KindObserved{TxDrain: Rate{5, 100}, Processing: Sample{3 * time.Second, 100}},
		UserDecrypt:    KindObserved{TxDrain: Rate{6, 100}, Processing: Sample{7 * time.Second, 100}},
		PublicDecrypt:  KindObserved{TxDrain: Rate{7, 100}, Processing: Sample{8*time.Second + 300*time.Microsecond, 100}},
		ReadinessDrain: Rate{12.5, 100},
		ReadinessCheck: Sample{500 * time.Millisecond, 100},
		TxConfirmation: Sample{1500 * time.Millisecond, 100},
	}
	got := Adaptive(cfg, obs)
	want := cfg
	want.InputProofTPS, want.UserDecryptTPS, want.PublicDecryptTPS = 5, 6, 7
	want.InputProofProcessingMs, want.UserDecryptProcessingMs, want.PublicDecryptProcessingMs = 3000, 7000, 8001
	want.ReadinessDrainRate, want.ReadinessCheckMs, want.TxConfirmationMs = 12.5, 500, 1500
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Error(err)
	}
	// A decrypt 25 deep in readiness drained at 12.5/s with Q=12 at 6 tps:
	// 2000 + 2000 + 7000 + 1500 = 12500 ms × 1.2 = 15000 ms -> exactly 15 s.
	e := Compute(got, Input{Kind: UserDecrypt, Status: Queued, Position: 25, TxQueueLen: 12})
	if e.Seconds != 15 || e.HintMs != 15000 {
		t.Errorf("got %+v, want 15 s", e)
	}
}

func TestAdaptiveHintsStayRightWhenConfigurationIsWrong(t *testing.T) {
	// Configured 100 tps and 200 ms processing; the chain really does 4 tps and the KMS takes 6 s.
	wrong := DefaultConfig()
	wrong.PublicDecryptTPS, wrong.PublicDecryptProcessingMs = 100, 200
	obs := Observed{PublicDecrypt: KindObserved{TxDrain: Rate{4, 500}, Processing: Sample{6 * time.Second, 500}}}
	in := Input{Kind: PublicDecrypt, Status: Processing, Stage: StageTxQueue, Position: 40}
	naive, adaptive := Compute(wrong, in), Compute(Adaptive(wrong, obs), in)
	// True ETA: 40/4 = 10 s + 6 s + 0.1 s = 16.1 s.
	if naive.ETA >= 2*time.Second {
		t.Errorf("naive ETA %v: the test's premise is off", naive.ETA)
	}
	if adaptive.ETA != 16100*time.Millisecond || adaptive.Seconds != 20 { // 16100 × 1.2 = 19320
		t.Errorf("adaptive got %+v, want ETA 16.1 s and 20 s", adaptive)
	}
}

func TestAdaptiveNeverGoesBelowItsFloors(t *testing.T) {
	cfg := DefaultConfig()
	obs := Observed{
		InputProof:     KindObserved{TxDrain: Rate{1e-9, 50}, Processing: Sample{time.Microsecond, 50}},
		UserDecrypt:    KindObserved{TxDrain: Rate{1e12, 50}, Processing: Sample{400 * time.Hour, 50}},
		ReadinessDrain: Rate{0.0001, 50},
		TxConfirmation: Sample{time.Nanosecond, 50},
	}
	got := Adaptive(cfg, obs)
	if got.InputProofTPS != AdaptiveMinRate || got.ReadinessDrainRate != AdaptiveMinRate {
		t.Errorf("rates %v, %v not floored at %v", got.InputProofTPS, got.ReadinessDrainRate, AdaptiveMinRate)
	}
	if got.UserDecryptTPS != MaxTPS || got.UserDecryptProcessingMs != MaxNominalMs {
		t.Errorf("rate %v / time %v not capped", got.UserDecryptTPS, got.UserDecryptProcessingMs)
	}
	if got.InputProofProcessingMs != 10 || got.TxConfirmationMs != 10 {
		t.Errorf("durations %d, %d ms not floored at 10 ms", got.InputProofProcessingMs, got.TxConfirmationMs)
	}
	if err := got.Validate(); err != nil {
		t.Error(err)
	}
}

func TestAdaptiveIgnoresObservationsThatAreNotFiniteAndPositive(t *testing.T) {
	cfg := DefaultConfig()
	for _, r := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1)} {
		obs := Observed{InputProof: KindObserved{TxDrain: Rate{r, 1000}, Processing: Sample{-time.Second, 1000}}, TxConfirmation: Sample{0, 1000}}
		if got := Adaptive(cfg, obs); !reflect.DeepEqual(got, cfg) {
			t.Errorf("rate %v changed the config: %+v", r, got)
		}
	}
}

func TestAdaptiveUsesTheConfiguredThresholdOrTwentyWhenUnset(t *testing.T) {
	obs := Observed{TxConfirmation: Sample{time.Second, 5}}
	cfg := DefaultConfig()
	cfg.AdaptiveMinSamples = 5
	if got := Adaptive(cfg, obs); got.TxConfirmationMs != 1000 {
		t.Errorf("threshold 5 with 5 samples: T = %d", got.TxConfirmationMs)
	}
	cfg.AdaptiveMinSamples = 0
	if got := Adaptive(cfg, obs); got.TxConfirmationMs != 100 {
		t.Errorf("unset threshold (20) with 5 samples: T = %d", got.TxConfirmationMs)
	}
	obs.TxConfirmation.Samples = DefaultMinSamples
	if got := Adaptive(cfg, obs); got.TxConfirmationMs != 1000 {
		t.Errorf("unset threshold (20) with 20 samples: T = %d", got.TxConfirmationMs)
	}
}

func TestAdaptiveWithoutObservationsIsTheNominalConfig(t *testing.T) {
	cfg := DefaultConfig()
	got := Adaptive(cfg, Observed{})
	if !reflect.DeepEqual(got, cfg) {
		t.Error("no observations changed the config")
	}
}
