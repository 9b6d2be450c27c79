package retryafter

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestAdaptiveKeepsNominalValuesBelowTheSampleThreshold(t *testing.T) {
	cfg := DefaultConfig()
	obs := Observed{
		InputProof:     KindObserved{TxDrain: Rate{PerSecond: 2, Samples: 19}, Processing: Sample{Typical: 10 * time.Second, Samples: 19}},
		ReadinessDrain: Rate{PerSecond: 1, Samples: 19},
		ReadinessCheck: Sample{Typical: time.Second, Samples: 19},
		TxConfirmation: Sample{Typical: 5 * time.Second, Samples: 19},
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
			// nominal: 10 s + 2.1 s -> 12; observed 2 tps: 50 s + 2.1 s -> 52.
			want := 12
			if n >= 20 {
				want = 52
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
		InputProof:     KindObserved{TxDrain: Rate{PerSecond: 5, Samples: 100}, Processing: Sample{Typical: 3 * time.Second, Samples: 100}},
		UserDecrypt:    KindObserved{TxDrain: Rate{PerSecond: 6, Samples: 100}, Processing: Sample{Typical: 7 * time.Second, Samples: 100}},
		PublicDecrypt:  KindObserved{TxDrain: Rate{PerSecond: 7, Samples: 100}, Processing: Sample{Typical: 8*time.Second + 300*time.Microsecond, Samples: 100}},
		ReadinessDrain: Rate{PerSecond: 12.5, Samples: 100},
		ReadinessCheck: Sample{Typical: 500 * time.Millisecond, Samples: 100},
		TxConfirmation: Sample{Typical: 1500 * time.Millisecond, Samples: 100},
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
	// A decrypt 25 deep in readiness drained at 12.5/s, its own check R, Q=12 at 6 tps:
	// 2000 + 500 + 2000 + 7000 + 1500 = 13000 ms -> exactly 13 s.
	e := Compute(got, Input{Kind: UserDecrypt, Status: Queued, Position: 25, TxQueueLen: 12})
	if e.Seconds != 13 || e.HintMs != 13000 {
		t.Errorf("got %+v, want 13 s", e)
	}
}

func TestAdaptiveHintsStayRightWhenConfigurationIsWrong(t *testing.T) {
	// Configured 100 tps and 200 ms processing; the chain really does 4 tps and the KMS takes 6 s.
	wrong := DefaultConfig()
	wrong.PublicDecryptTPS, wrong.PublicDecryptProcessingMs = 100, 200
	obs := Observed{PublicDecrypt: KindObserved{TxDrain: Rate{PerSecond: 4, Samples: 500}, Processing: Sample{Typical: 6 * time.Second, Samples: 500}}}
	in := Input{Kind: PublicDecrypt, Status: Processing, Stage: StageTxQueue, Position: 40}
	naive, adaptive := Compute(wrong, in), Compute(Adaptive(wrong, obs), in)
	// True ETA: 40/4 = 10 s + 6 s + 0.1 s = 16.1 s.
	if naive.ETA >= 2*time.Second {
		t.Errorf("naive ETA %v: the test's premise is off", naive.ETA)
	}
	if adaptive.ETA != 16100*time.Millisecond || adaptive.Seconds != 16 {
		t.Errorf("adaptive got %+v, want ETA 16.1 s and 16 s", adaptive)
	}
}

func TestAdaptiveNeverGoesBelowItsFloors(t *testing.T) {
	cfg := DefaultConfig()
	obs := Observed{
		InputProof:     KindObserved{TxDrain: Rate{PerSecond: 1e-9, Samples: 50}, Processing: Sample{Typical: time.Microsecond, Samples: 50}},
		UserDecrypt:    KindObserved{TxDrain: Rate{PerSecond: 1e12, Samples: 50}, Processing: Sample{Typical: 400 * time.Hour, Samples: 50}},
		ReadinessDrain: Rate{PerSecond: 0.0001, Samples: 50},
		TxConfirmation: Sample{Typical: time.Nanosecond, Samples: 50},
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
		obs := Observed{InputProof: KindObserved{TxDrain: Rate{PerSecond: r, Samples: 1000}, Processing: Sample{Typical: -time.Second, Samples: 1000}}, TxConfirmation: Sample{Typical: 0, Samples: 1000}}
		if got := Adaptive(cfg, obs); !reflect.DeepEqual(got, cfg) {
			t.Errorf("rate %v changed the config: %+v", r, got)
		}
	}
}

func TestAdaptiveUsesTheConfiguredThresholdOrTwentyWhenUnset(t *testing.T) {
	obs := Observed{TxConfirmation: Sample{Typical: time.Second, Samples: 5}}
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

func TestAnObservationOlderThanTheStalenessHorizonGivesWayToTheNominalValue(t *testing.T) {
	cfg := DefaultConfig()
	cfg.AdaptiveStaleAfterSeconds = 600
	in := Input{Kind: InputProof, Status: TxInFlight}
	for _, c := range []struct {
		age  time.Duration
		want int
	}{
		// observed P = 40 s; nominal P = 2 s.
		{0, 40}, {9 * time.Minute, 40}, {10 * time.Minute, 40},
		{10*time.Minute + time.Millisecond, 2}, {time.Hour, 2},
		{-time.Second, 40}, // a clock a little ahead of the caller's: fresh
	} {
		obs := Observed{InputProof: KindObserved{Processing: Sample{Typical: 40 * time.Second, Samples: 50, Age: c.age}}}
		if got := Compute(Adaptive(cfg, obs), in).Seconds; got != c.want {
			t.Errorf("newest sample %s old: %d s, want %d s", c.age, got, c.want)
		}
	}
	// The horizon is the configuration's: an hour makes the same observation trusted again.
	cfg.AdaptiveStaleAfterSeconds = 3600
	obs := Observed{InputProof: KindObserved{Processing: Sample{Typical: 40 * time.Second, Samples: 50, Age: 30 * time.Minute}}}
	if got := Compute(Adaptive(cfg, obs), in).Seconds; got != 40 {
		t.Errorf("30 min old within an hour's horizon: %d s, want 40", got)
	}
	// Rates go stale the same way.
	cfg.AdaptiveStaleAfterSeconds = 60
	rate := Observed{InputProof: KindObserved{TxDrain: Rate{PerSecond: 2, Samples: 100, Age: 61 * time.Second}}}
	if got := Adaptive(cfg, rate).InputProofTPS; got != cfg.InputProofTPS {
		t.Errorf("a stale drain rate replaced D: %v", got)
	}
	rate.InputProof.TxDrain.Age = 59 * time.Second
	if got := Adaptive(cfg, rate).InputProofTPS; got != 2 {
		t.Errorf("a fresh drain rate did not replace D: %v", got)
	}
}

func TestAnUnsetStalenessHorizonIsTenMinutes(t *testing.T) {
	cfg := DefaultConfig()
	cfg.AdaptiveStaleAfterSeconds = 0
	obs := Observed{TxConfirmation: Sample{Typical: time.Second, Samples: 50, Age: 599 * time.Second}}
	if got := Adaptive(cfg, obs).TxConfirmationMs; got != 1000 {
		t.Errorf("599 s old with the default horizon: T = %d", got)
	}
	obs.TxConfirmation.Age = 601 * time.Second
	if got := Adaptive(cfg, obs).TxConfirmationMs; got != 100 {
		t.Errorf("601 s old with the default horizon: T = %d", got)
	}
}

func TestAdaptationsSayWhatWasObservedWhatIsInForceAndWhy(t *testing.T) {
	cfg := DefaultConfig()
	cfg.AdaptiveMinSamples = 10
	obs := Observed{
		InputProof:     KindObserved{TxDrain: Rate{PerSecond: 4, Samples: 240, Age: time.Second}, Processing: Sample{Typical: 2500*time.Millisecond + 1, Samples: 64, Age: 3 * time.Second}},
		UserDecrypt:    KindObserved{Processing: Sample{Typical: 9 * time.Second, Samples: 9, Age: time.Second}},
		PublicDecrypt:  KindObserved{Processing: Sample{Typical: 5 * time.Second, Samples: 30, Age: time.Hour}},
		TxConfirmation: Sample{Typical: 1200 * time.Millisecond, Samples: 12, Age: 2 * time.Second},
	}
	as := Adaptations(cfg, obs)
	byName := map[string]Adaptation{}
	var names []string
	for _, a := range as {
		byName[a.Param] = a
		names = append(names, a.Param)
	}
	wantNames := []string{"input_proof_throttler_tps", "user_decrypt_throttler_tps", "public_decrypt_throttler_tps", "readiness_drain_rate",
		"nominal_readiness_check_seconds", "nominal_input_proof_processing_seconds", "nominal_user_decrypt_processing_seconds",
		"nominal_public_decrypt_processing_seconds", "nominal_tx_confirmation_ms"}
	if !reflect.DeepEqual(names, wantNames) {
		t.Fatalf("parameters %v\nwant %v", names, wantNames)
	}
	check := func(name, unit string, nominal, observed float64, samples int, src Source, why string) {
		t.Helper()
		a := byName[name]
		if a.Unit != unit || a.Nominal != nominal || a.Observed != observed || a.Samples != samples || a.InForce != src || !strings.Contains(a.Why, why) || (src == SourceObserved) != (a.Why == "") {
			t.Errorf("%s: %+v\nwant unit %s, nominal %v, observed %v, %d samples, %s in force, why containing %q", name, a, unit, nominal, observed, samples, src, why)
		}
		wantValue := nominal
		if src == SourceObserved {
			wantValue = observed
		}
		if a.Value() != wantValue {
			t.Errorf("%s: value %v, want %v", name, a.Value(), wantValue)
		}
	}
	check("input_proof_throttler_tps", "tps", 10, 4, 240, SourceObserved, "")
	// Rounded up to the ms, listed in seconds.
	check("nominal_input_proof_processing_seconds", "s", 2, 2.501, 64, SourceObserved, "")
	check("nominal_user_decrypt_processing_seconds", "s", 4, 9, 9, SourceNominal, "9 of the 10 samples needed")
	check("nominal_public_decrypt_processing_seconds", "s", 4, 5, 30, SourceNominal, "stale: the newest sample is 1h0m0s old, more than 10m0s")
	check("nominal_tx_confirmation_ms", "ms", 100, 1200, 12, SourceObserved, "")
	check("readiness_drain_rate", "tps", 50, 0, 0, SourceNominal, "no samples")
	check("user_decrypt_throttler_tps", "tps", 10, 0, 0, SourceNominal, "no samples")

	// What is in force is exactly what Adaptive hands Compute.
	got := Adaptive(cfg, obs)
	want := cfg
	want.InputProofTPS, want.InputProofProcessingMs, want.TxConfirmationMs = 4, 2501, 1200
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Adaptive %+v\nwant %+v", got, want)
	}
	if byName["input_proof_throttler_tps"].Age != time.Second || byName["nominal_public_decrypt_processing_seconds"].Age != time.Hour {
		t.Errorf("ages not carried: %+v", as)
	}
}
