package retryafter

import (
	"fmt"
	"testing"
	"time"

	"relayer/domain"
)

// seedRow is one row of a worked table of seeds/dynamic-retry-after-design.txt: the queue
// wait (the "p/D (s)" or "p/C + Q/D" columns, in ms), the "+ P + T" column (the ETA, ms), the
// "× 1.2" column (ms) and the hint (s) with the seed's margin 0.2, rounded to the nearest
// second; plain is the hint with the default margin 0. Where the seed's result column differs,
// the row says so.
type seedRow struct {
	n                  int64
	waitMs, etaMs, x12 int64
	seconds, plain     int
}

// seedConfig is the seed's worked example: the defaults with the seed's margin M = 0.2.
func seedConfig() Config {
	cfg := DefaultConfig()
	cfg.SafetyMargin = 0.2
	return cfg
}

func checkSeedRow(t *testing.T, in Input, fixedMs int64, want seedRow, formula Formula) {
	t.Helper()
	got := Compute(seedConfig(), in)
	if got.Seconds != want.seconds {
		t.Errorf("Retry-After = %d s with M = 0.2, want %d s", got.Seconds, want.seconds)
	}
	if got.ETA != time.Duration(want.etaMs)*time.Millisecond {
		t.Errorf("ETA = %v, want %d ms", got.ETA, want.etaMs)
	}
	if w := got.ETA.Milliseconds() - fixedMs; w != want.waitMs {
		t.Errorf("queue wait = %d ms, the seed's table says %d ms", w, want.waitMs)
	}
	if got.HintMs != want.x12 {
		t.Errorf("ETA × 1.2 = %d ms, want %d ms", got.HintMs, want.x12)
	}
	if got.Formula != formula {
		t.Errorf("formula = %v, want %v", got.Formula, formula)
	}
	if wantEta := (want.etaMs + 999) / 1000; got.EtaSeconds != wantEta {
		t.Errorf("EtaSeconds = %d, want %d", got.EtaSeconds, wantEta)
	}
	if plain := Compute(DefaultConfig(), in); plain.Seconds != want.plain || plain.ETA != got.ETA {
		t.Errorf("with the default margin 0: %d s (ETA %v), want %d s", plain.Seconds, plain.ETA, want.plain)
	}
}

var decrypts = []Kind{UserDecrypt, PublicDecrypt}

func TestInputProofInTheTxQueueMatchesTheSeedTable(t *testing.T) {
	// The seed's results (3, 3, 4, 15, 123 s) hold: each "× 1.2" lies at or above a half second.
	rows := []seedRow{
		{0, 0, 2100, 2520, 3, 2},
		{1, 100, 2200, 2640, 3, 2},
		{10, 1000, 3100, 3720, 4, 3},
		{100, 10000, 12100, 14520, 15, 12},
		{1000, 100000, 102100, 122520, 123, 102},
	}
	for _, status := range []Status{Queued, Processing} {
		for _, r := range rows {
			t.Run(fmt.Sprintf("a %s input proof at position %d waits %d s", status, r.n, r.plain), func(t *testing.T) {
				checkSeedRow(t, Input{Kind: InputProof, Status: status, Position: r.n, TxQueueLen: 5000}, 2100, r, FormulaTxQueue)
			})
		}
	}
}

func TestTxInFlightWaitsForTheProcessingTime(t *testing.T) {
	cases := []struct {
		kind           Kind
		x12            int64
		seconds, plain int
	}{
		{InputProof, 2400, 2, 2}, // 2000 × 1.2 = 2400 -> 2 s (the seed rounds up to 3)
		{UserDecrypt, 4800, 5, 4},
		{PublicDecrypt, 4800, 5, 4}, // 4000 × 1.2 = 4800 -> 5 s; 4000 -> 4 s
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("a %s in tx_in_flight waits %d s whatever the queues", c.kind, c.plain), func(t *testing.T) {
			for _, n := range []int64{0, 7, 100000} {
				in := Input{Kind: c.kind, Status: TxInFlight, Position: n, TxQueueLen: n, Elapsed: time.Duration(n) * time.Millisecond}
				if got := Compute(seedConfig(), in); got.Seconds != c.seconds || got.HintMs != c.x12 || got.Formula != FormulaTxInFlight {
					t.Errorf("n=%d, M=0.2: got %+v, want %d s (%d ms)", n, got, c.seconds, c.x12)
				}
				if got := Compute(DefaultConfig(), in); got.Seconds != c.plain {
					t.Errorf("n=%d: got %+v, want %d s", n, got, c.plain)
				}
			}
		})
	}
}

func TestQueuedDecryptInTheReadinessQueueCountsItsOwnReadinessCheck(t *testing.T) {
	// p = Q, as the seed's table assumes. The seed's row, p/C + Q/D + P + T, leaves out the
	// job's own readiness check R = 2 s (its results were 5, 6, 7, 20 and 149 s).
	rows := []seedRow{
		{0, 0, 6100, 7320, 7, 6},
		{1, 120, 6220, 7464, 7, 6},
		{10, 1200, 7300, 8760, 9, 7},
		{100, 12000, 18100, 21720, 22, 18},
		{1000, 120000, 126100, 151320, 151, 126},
	}
	for _, kind := range decrypts {
		for _, stage := range []Stage{StageReadinessQueue, StageAuto} {
			for _, r := range rows {
				t.Run(fmt.Sprintf("a queued %s (stage %s) at p=Q=%d waits %d s", kind, stage, r.n, r.plain), func(t *testing.T) {
					checkSeedRow(t, Input{Kind: kind, Status: Queued, Stage: stage, Position: r.n, TxQueueLen: r.n}, 6100, r, FormulaReadinessQueue)
				})
			}
		}
	}
}

func TestAQueuedDecryptIsToldNoLessThanOneWhoseReadinessCheckHasStarted(t *testing.T) {
	// Waiting for a readiness check is never shorter than having one under way: with the
	// seed's row the job at the head of the readiness queue was told 2 s less than the one
	// whose check had started.
	cfg := DefaultConfig()
	for _, q := range []int64{0, 1, 10, 1000} {
		waiting := Compute(cfg, Input{Kind: UserDecrypt, Status: Queued, Stage: StageReadinessQueue, TxQueueLen: q})
		started := Compute(cfg, Input{Kind: UserDecrypt, Status: Queued, Stage: StageReadinessInProgress, TxQueueLen: q})
		if waiting.ETA != started.ETA || waiting.Seconds != started.Seconds {
			t.Errorf("Q=%d: at the head of the readiness queue %+v, check under way %+v", q, waiting, started)
		}
	}
}

func TestQueuedDecryptSplitsReadinessAndTxQueueWaits(t *testing.T) {
	// p/C and Q/D separately: p=100 readiness ahead (2 s), Q=0 -> 2000+2000+4100 = 8100 -> 8 s;
	// p=0, Q=100 (10 s) -> 10000+2000+4100 = 16100 -> 16 s.
	cfg := DefaultConfig()
	if got := Compute(cfg, Input{Kind: UserDecrypt, Status: Queued, Position: 100}); got.Seconds != 8 || got.HintMs != 8100 {
		t.Errorf("p=100, Q=0: got %+v, want 8 s (8100 ms)", got)
	}
	if got := Compute(cfg, Input{Kind: UserDecrypt, Status: Queued, TxQueueLen: 100}); got.Seconds != 16 || got.HintMs != 16100 {
		t.Errorf("p=0, Q=100: got %+v, want 16 s (16100 ms)", got)
	}
}

func TestDecryptOutOfReadinessMatchesTheSeedTable(t *testing.T) {
	// The seed rounds up: 8, 8, 9, 20, 128 s.
	rows := []seedRow{
		{0, 0, 6100, 7320, 7, 6},
		{1, 100, 6200, 7440, 7, 6},
		{10, 1000, 7100, 8520, 9, 7},
		{100, 10000, 16100, 19320, 19, 16},
		{1000, 100000, 106100, 127320, 127, 106},
	}
	cases := []struct {
		status Status
		stage  Stage
		why    string
	}{
		{Processing, StageAwaitingTxQueue, "a processing decrypt out of readiness but not in the TX queue"},
		// Not in the seed: a queued decrypt whose readiness check is in progress gets the same row.
		{Queued, StageReadinessInProgress, "a queued decrypt whose readiness check is in progress"},
	}
	for _, kind := range decrypts {
		for _, c := range cases {
			for _, r := range rows {
				t.Run(fmt.Sprintf("%s (%s) with Q=%d waits %d s", c.why, kind, r.n, r.plain), func(t *testing.T) {
					checkSeedRow(t, Input{Kind: kind, Status: c.status, Stage: c.stage, Position: 3, TxQueueLen: r.n}, 6100, r, FormulaOutOfReadiness)
				})
			}
		}
	}
}

func TestProcessingDecryptInTheTxQueueMatchesTheSeedTable(t *testing.T) {
	// The seed rounds up: 5, 6, 7, 17, 125 s.
	rows := []seedRow{
		{0, 0, 4100, 4920, 5, 4},
		{1, 100, 4200, 5040, 5, 4},
		{10, 1000, 5100, 6120, 6, 5},
		{100, 10000, 14100, 16920, 17, 14},
		{1000, 100000, 104100, 124920, 125, 104},
	}
	for _, kind := range decrypts {
		for _, stage := range []Stage{StageTxQueue, StageAuto} {
			for _, r := range rows {
				t.Run(fmt.Sprintf("a processing %s (stage %s) at TX position %d waits %d s", kind, stage, r.n, r.plain), func(t *testing.T) {
					checkSeedRow(t, Input{Kind: kind, Status: Processing, Stage: stage, Position: r.n, TxQueueLen: 9999}, 4100, r, FormulaTxQueue)
				})
			}
		}
	}
}

func TestTheSeedSummaryTableWithItsDepartures(t *testing.T) {
	// The summary assumes M = 0.2, B(E) = 3 s and the rows at p = Q = 100. Seed: 15, 20, 20, 15,
	// 17, 3, 5, 3, 3 s.
	cfg, err := seedConfig().WithReceiptBackoff([]BackoffStep{{0, 3}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		row  string
		kind Kind
		in   Input
		want int
	}{
		{"Queued", InputProof, Input{Status: Queued, Position: 100}, 15},
		{"Queued (with R)", UserDecrypt, Input{Status: Queued, Position: 100, TxQueueLen: 100}, 22},
		{"Processing (in readiness)", UserDecrypt, Input{Status: Processing, Stage: StageAwaitingTxQueue, TxQueueLen: 100}, 19},
		{"Processing (in TX queue)", InputProof, Input{Status: Processing, Position: 100}, 15},
		{"Processing (in TX queue)", PublicDecrypt, Input{Status: Processing, Stage: StageTxQueue, Position: 100}, 17},
		{"TxInFlight", InputProof, Input{Status: TxInFlight}, 2},
		{"TxInFlight", PublicDecrypt, Input{Status: TxInFlight}, 5},
		{"ReceiptReceived, late", InputProof, Input{Status: ReceiptReceived, Elapsed: time.Hour}, 3},
		{"ReceiptReceived, on time: P × 1.2", UserDecrypt, Input{Status: ReceiptReceived}, 5},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("summary row %s for %s is %d s", c.row, c.kind, c.want), func(t *testing.T) {
			c.in.Kind = c.kind
			if got := Compute(cfg, c.in); got.Seconds != c.want {
				t.Errorf("got %d s, want %d s (%+v)", got.Seconds, c.want, got)
			}
		})
	}
}

func TestReceiptReceivedOnTimeIsToldItsRemainingProcessingTime(t *testing.T) {
	// P = 2 s for input proofs, 4 s for decrypts; on time while E <= 2P. The seed told every
	// one of these B(E) = 4 s.
	cases := []struct {
		kind    Kind
		elapsed time.Duration
		eta     time.Duration
		want    int
	}{
		{InputProof, 0, 2 * time.Second, 2},
		{InputProof, -5 * time.Second, 2 * time.Second, 2},               // a negative elapsed time is taken as 0
		{InputProof, 500 * time.Millisecond, 1500 * time.Millisecond, 2}, // a half rounds up
		{InputProof, 501 * time.Millisecond, 1499 * time.Millisecond, 1},
		{InputProof, 1800 * time.Millisecond, 200 * time.Millisecond, 1}, // raised to min
		{InputProof, 2 * time.Second, 0, 1},                              // due now: min
		{InputProof, 4 * time.Second, 0, 1},                              // E = 2P is still on time
		{UserDecrypt, 0, 4 * time.Second, 4},
		{UserDecrypt, 2600 * time.Millisecond, 1400 * time.Millisecond, 1},
		{PublicDecrypt, 2400 * time.Millisecond, 1600 * time.Millisecond, 2},
		{PublicDecrypt, 8 * time.Second, 0, 1},
		{domain.DelegatedUserDecrypt, time.Second, 3 * time.Second, 3},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("a %s %v after its receipt is told %d s", c.kind, c.elapsed, c.want), func(t *testing.T) {
			got := Compute(DefaultConfig(), Input{Kind: c.kind, Status: ReceiptReceived, Elapsed: c.elapsed, Position: 1e6, TxQueueLen: 1e6})
			if got.Seconds != c.want || got.Formula != FormulaReceiptRemaining {
				t.Errorf("got %+v, want %d s", got, c.want)
			}
			if got.ETA != c.eta || got.HintMs != c.eta.Milliseconds() {
				t.Errorf("ETA %v, hint %d ms, want the remaining %v", got.ETA, got.HintMs, c.eta)
			}
		})
	}
}

func TestReceiptReceivedUsesTheProcessingTimeInForce(t *testing.T) {
	// Observed P = 10 s (adaptive): 5 s in, 5 s are left; 12 s in, it is overdue but not late;
	// past 20 s the backoff table rules. Nominal P = 2 s would have called all three late.
	obs := Observed{InputProof: KindObserved{Processing: Sample{Typical: 10 * time.Second, Samples: 50}}}
	cfg := Adaptive(DefaultConfig(), obs)
	for _, c := range []struct {
		elapsed time.Duration
		want    int
		f       Formula
	}{{5 * time.Second, 5, FormulaReceiptRemaining}, {12 * time.Second, 1, FormulaReceiptRemaining}, {20*time.Second + time.Millisecond, 4, FormulaReceiptBackoff}} {
		if got := Compute(cfg, Input{Kind: InputProof, Status: ReceiptReceived, Elapsed: c.elapsed}); got.Seconds != c.want || got.Formula != c.f {
			t.Errorf("E = %v: got %+v, want %d s by %v", c.elapsed, got, c.want, c.f)
		}
	}
}

func TestReceiptReceivedCarriesTheMarginOnItsRemainingTime(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SafetyMargin = 0.5
	// (2000 − 500) × 1.5 = 2250 ms -> 2 s; (2000 − 0) × 1.5 = 3000 ms -> 3 s.
	for _, c := range []struct {
		elapsed time.Duration
		hint    int64
		want    int
	}{{500 * time.Millisecond, 2250, 2}, {0, 3000, 3}} {
		if got := Compute(cfg, Input{Kind: InputProof, Status: ReceiptReceived, Elapsed: c.elapsed}); got.Seconds != c.want || got.HintMs != c.hint {
			t.Errorf("E = %v: got %+v, want %d s (%d ms)", c.elapsed, got, c.want, c.hint)
		}
	}
}

func TestALateReceiptReceivedJobFollowsTheBackoffTableAtEveryBoundary(t *testing.T) {
	// Late: E > 2P (4 s for input proofs, 8 s for decrypts); then B(E), keyed by E as the seed's.
	cases := []struct {
		elapsed time.Duration
		want    int
	}{
		{8*time.Second + time.Millisecond, 4},
		{59999 * time.Millisecond, 4},
		{59999*time.Millisecond + 999*time.Microsecond, 4},
		{60 * time.Second, 10},
		{119999 * time.Millisecond, 10},
		{2 * time.Minute, 30},
		{5*time.Minute - time.Millisecond, 30},
		{5 * time.Minute, 60},
		{15*time.Minute - time.Millisecond, 60},
		{15 * time.Minute, 300},
		{24 * time.Hour, 300},
	}
	for _, kind := range domain.Kinds() {
		for _, c := range cases {
			t.Run(fmt.Sprintf("a %s %v after its receipt is told %d s", kind, c.elapsed, c.want), func(t *testing.T) {
				got := Compute(DefaultConfig(), Input{Kind: kind, Status: ReceiptReceived, Elapsed: c.elapsed, Position: 1e6, TxQueueLen: 1e6})
				if got.Seconds != c.want || got.Formula != FormulaReceiptBackoff {
					t.Errorf("got %+v, want %d s", got, c.want)
				}
				if got.ETA != time.Duration(c.want)*time.Second || got.EtaSeconds != int64(c.want) || got.HintMs != int64(c.want)*1000 {
					t.Errorf("ETA %v / %d s / hint %d ms, want the backoff step %d s", got.ETA, got.EtaSeconds, got.HintMs, c.want)
				}
			})
		}
	}
	t.Run("an input proof is late after 4 s", func(t *testing.T) {
		got := Compute(DefaultConfig(), Input{Kind: InputProof, Status: ReceiptReceived, Elapsed: 4*time.Second + time.Millisecond})
		if got.Seconds != 4 || got.Formula != FormulaReceiptBackoff {
			t.Errorf("got %+v, want B(E) = 4 s", got)
		}
	})
	t.Run("with no processing time there is no estimate, only the table", func(t *testing.T) {
		cfg := DefaultConfig()
		cfg.InputProofProcessingMs = 0
		if got := Compute(cfg, Input{Kind: InputProof, Status: ReceiptReceived}); got.Seconds != 4 || got.Formula != FormulaReceiptBackoff {
			t.Errorf("got %+v, want B(0) = 4 s", got)
		}
	})
}

func TestTheLateBackoffHasNoMarginButIsClamped(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SafetyMargin = 1
	late := 5 * time.Second // past 2P = 4 s
	if got := Compute(cfg, Input{Kind: InputProof, Status: ReceiptReceived, Elapsed: late}); got.Seconds != 4 {
		t.Errorf("margin 1.0 changed B(E): got %d s, want 4 s", got.Seconds)
	}
	cfg.MaxSeconds = 45
	if got := Compute(cfg, Input{Kind: InputProof, Status: ReceiptReceived, Elapsed: time.Hour}); got.Seconds != 45 {
		t.Errorf("B(E)=300 s with max 45: got %d s, want 45", got.Seconds)
	}
	cfg.MinSeconds, cfg.MaxSeconds = 20, 300
	if got := Compute(cfg, Input{Kind: InputProof, Status: ReceiptReceived, Elapsed: late}); got.Seconds != 20 {
		t.Errorf("B(E)=4 s with min 20: got %d s, want 20", got.Seconds)
	}
	if got := Compute(cfg, Input{Kind: InputProof, Status: ReceiptReceived}); got.Seconds != 20 {
		t.Errorf("on time, 4 s remaining with min 20: got %d s, want 20", got.Seconds)
	}
}

func TestATerminalJobIsToldZero(t *testing.T) {
	for _, kind := range domain.Kinds() {
		for _, status := range []Status{Completed, TimedOut, Failure} {
			t.Run(fmt.Sprintf("a %s in %s gets Retry-After 0", kind, status), func(t *testing.T) {
				cfg := DefaultConfig()
				cfg.MinSeconds = 10
				got := Compute(cfg, Input{Kind: kind, Status: status, Position: 500, TxQueueLen: 500, Elapsed: time.Hour})
				if got != (Estimate{Formula: FormulaNone}) {
					t.Errorf("got %+v, want zero", got)
				}
			})
		}
	}
}

func TestHintsAreClampedToMinAndMax(t *testing.T) {
	cfg := DefaultConfig()
	t.Run("a million places ahead is told max, and the ETA is not clamped", func(t *testing.T) {
		got := Compute(cfg, Input{Kind: InputProof, Status: Processing, Position: 1_000_000})
		if got.Seconds != 300 {
			t.Errorf("got %d s, want 300", got.Seconds)
		}
		if want := 100_002_100 * time.Millisecond; got.ETA != want {
			t.Errorf("ETA = %v, want %v", got.ETA, want)
		}
	})
	t.Run("a decrypt a million places ahead in both queues is told max", func(t *testing.T) {
		got := Compute(cfg, Input{Kind: PublicDecrypt, Status: Queued, Position: 1_000_000, TxQueueLen: 1_000_000})
		if got.Seconds != 300 || got.ETA != 120_006_100*time.Millisecond {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("a short estimate is raised to min", func(t *testing.T) {
		c := cfg
		c.MinSeconds = 10
		if got := Compute(c, Input{Kind: InputProof, Status: Processing}); got.Seconds != 10 || got.HintMs != 2100 {
			t.Errorf("got %+v, want 10 s (hint 2100 ms)", got)
		}
	})
	t.Run("with zero nominal times the estimate is raised to min 1", func(t *testing.T) {
		c := cfg
		c.InputProofProcessingMs, c.TxConfirmationMs = 0, 0
		if got := Compute(c, Input{Kind: InputProof, Status: Processing}); got.Seconds != 1 || got.ETA != 0 {
			t.Errorf("got %+v, want 1 s and ETA 0", got)
		}
	})
	t.Run("a huge position saturates without overflow", func(t *testing.T) {
		c := cfg
		c.InputProofTPS = MinTPS
		got := Compute(c, Input{Kind: InputProof, Status: Processing, Position: 1 << 62})
		if got.Seconds != 300 || got.ETA <= 0 || got.EtaSeconds <= 0 || got.HintMs <= 0 {
			t.Errorf("got %+v", got)
		}
	})
}

func TestMarginZeroRoundsTheETAToTheNearestSecond(t *testing.T) {
	cfg := DefaultConfig()
	cases := []struct {
		in   Input
		want int
	}{
		{Input{Kind: InputProof, Status: Processing}, 2},                                       // 2100 -> 2 (the seed: 3)
		{Input{Kind: InputProof, Status: Processing, Position: 9}, 3},                          // 3000 -> exactly 3
		{Input{Kind: InputProof, Status: Processing, Position: 13}, 3},                         // 3400 -> 3
		{Input{Kind: InputProof, Status: Processing, Position: 14}, 4},                         // 3500 -> 4, a half rounds up
		{Input{Kind: InputProof, Status: TxInFlight}, 2},                                       // 2000 -> exactly 2
		{Input{Kind: UserDecrypt, Status: Processing, Stage: StageAwaitingTxQueue}, 6},         // 6100 -> 6
		{Input{Kind: UserDecrypt, Status: Queued}, 6},                                          // 6100 -> 6 (the seed: 4100 -> 5)
		{Input{Kind: UserDecrypt, Status: Queued, Position: 1000, TxQueueLen: 1000}, 126},      // 126100 -> 126
		{Input{Kind: PublicDecrypt, Status: Processing, Stage: StageTxQueue, Position: 19}, 6}, // 6000 -> exactly 6
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s %s p=%d Q=%d with margin 0 is %d s", c.in.Kind, c.in.Status, c.in.Position, c.in.TxQueueLen, c.want), func(t *testing.T) {
			if got := Compute(cfg, c.in); got.Seconds != c.want {
				t.Errorf("got %+v, want %d s", got, c.want)
			}
		})
	}
}

func TestExactValuesAreNotRoundedWrongByFloatingPoint(t *testing.T) {
	// Values that land exactly on a second, or exactly on a half, must round as exact values do:
	// 0.1 and 0.2 have no exact binary form, so a float computation can land a hair off.
	cases := []struct {
		name string
		mut  func(*Config)
		in   Input
		hint int64
		want int
	}{
		{"2500 ms × 1.2 = 3000 ms is 3 s", func(c *Config) { c.InputProofProcessingMs, c.TxConfirmationMs, c.SafetyMargin = 2400, 100, 0.2 },
			Input{Kind: InputProof, Status: Processing}, 3000, 3},
		{"5000 ms × 1.2 = 6000 ms is 6 s", func(c *Config) { c.SafetyMargin = 0.2 },
			Input{Kind: UserDecrypt, Status: Processing, Stage: StageTxQueue, Position: 9}, 6000, 6},
		{"0.3 TPS: p=3 waits exactly 10 s (3/0.3 in floating point is 10.000000000000002)", func(c *Config) {
			c.InputProofTPS, c.InputProofProcessingMs, c.TxConfirmationMs = 0.3, 0, 0
		}, Input{Kind: InputProof, Status: Processing, Position: 3}, 10000, 10},
		{"0.3 TPS: p=3 and 500 ms is exactly a half above 10 s: 11 s", func(c *Config) {
			c.InputProofTPS, c.InputProofProcessingMs, c.TxConfirmationMs = 0.3, 500, 0
		}, Input{Kind: InputProof, Status: Processing, Position: 3}, 10500, 11},
		{"0.1 margin on 1000 ms is 1100 ms and 1 s", func(c *Config) {
			c.InputProofProcessingMs, c.TxConfirmationMs, c.SafetyMargin = 1000, 0, 0.1
		}, Input{Kind: InputProof, Status: Processing}, 1100, 1},
		{"0.1 margin on 5000 ms is exactly 5500 ms and 6 s", func(c *Config) {
			c.InputProofProcessingMs, c.TxConfirmationMs, c.SafetyMargin = 5000, 0, 0.1
		}, Input{Kind: InputProof, Status: Processing}, 5500, 6},
		{"0.3 margin on 10000 ms is exactly 13 s", func(c *Config) {
			c.InputProofProcessingMs, c.TxConfirmationMs, c.SafetyMargin = 10000, 0, 0.3
		}, Input{Kind: InputProof, Status: Processing}, 13000, 13},
		{"one ms below a half is the lower second", func(c *Config) {
			c.InputProofProcessingMs, c.TxConfirmationMs = 3499, 0
		}, Input{Kind: InputProof, Status: Processing}, 3499, 3},
		{"seven TPS: p=7 waits exactly 1000 ms", func(c *Config) {
			c.InputProofTPS, c.InputProofProcessingMs, c.TxConfirmationMs = 7, 2000, 0
		}, Input{Kind: InputProof, Status: Processing, Position: 7}, 3000, 3},
		{"readiness at 3 per second and TX at 7: 3/3 + R + 7/7 + 1 s is exactly 4.5 s", func(c *Config) {
			c.ReadinessMaxConcurrency, c.UserDecryptTPS, c.UserDecryptProcessingMs, c.TxConfirmationMs, c.ReadinessCheckMs = 3, 7, 1000, 0, 1500
		}, Input{Kind: UserDecrypt, Status: Queued, Position: 3, TxQueueLen: 7}, 4500, 5},
		{"a third of a second three times over rounds as one second: 1/3 + 1/3 + 1/3 s", func(c *Config) {
			c.ReadinessMaxConcurrency, c.UserDecryptTPS, c.UserDecryptProcessingMs, c.TxConfirmationMs, c.ReadinessCheckMs = 3, 3, 0, 0, 0
			c.ReadinessDrainRate, c.SafetyMargin = 0, 0.5
		}, Input{Kind: UserDecrypt, Status: Queued, Position: 1, TxQueueLen: 1}, 1000, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.mut(&cfg)
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			got := Compute(cfg, c.in)
			if got.Seconds != c.want || got.HintMs != c.hint {
				t.Errorf("got %d s (hint %d ms), want %d s (hint %d ms)", got.Seconds, got.HintMs, c.want, c.hint)
			}
		})
	}
}

func TestNegativePositionsAndQueueLengthsCountAsZero(t *testing.T) {
	cfg := DefaultConfig()
	for _, in := range []Input{
		{Kind: InputProof, Status: Processing, Position: -5},
		{Kind: UserDecrypt, Status: Queued, Position: -1, TxQueueLen: -1 << 62},
		{Kind: PublicDecrypt, Status: Processing, Stage: StageAwaitingTxQueue, TxQueueLen: -3},
	} {
		zero := in
		zero.Position, zero.TxQueueLen = 0, 0
		if got, want := Compute(cfg, in), Compute(cfg, zero); got != want {
			t.Errorf("%+v: got %+v, want the p=Q=0 answer %+v", in, got, want)
		}
	}
}

func TestAStageThatDoesNotFitTheStatusFallsBackToTheStatusDefault(t *testing.T) {
	cfg := DefaultConfig()
	// A queued decrypt "in the TX queue" is still in readiness: readiness-queue row.
	if got := Compute(cfg, Input{Kind: UserDecrypt, Status: Queued, Stage: StageTxQueue, Position: 1, TxQueueLen: 1}); got.Formula != FormulaReadinessQueue {
		t.Errorf("got %v", got.Formula)
	}
	// A processing decrypt "in the readiness queue" has left it: TX-queue row.
	if got := Compute(cfg, Input{Kind: UserDecrypt, Status: Processing, Stage: StageReadinessQueue, Position: 1}); got.Formula != FormulaTxQueue {
		t.Errorf("got %v", got.Formula)
	}
	// Input proofs have one queue whatever the stage says: 1000 + 2100 ms.
	if got := Compute(cfg, Input{Kind: InputProof, Status: Queued, Stage: StageReadinessInProgress, Position: 10}); got.Formula != FormulaTxQueue || got.Seconds != 3 {
		t.Errorf("got %+v", got)
	}
}

func TestAnUnknownKindOrStatusIsToldMin(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MinSeconds = 2
	for _, in := range []Input{{Status: Processing}, {Kind: InputProof}, {}} {
		if got := Compute(cfg, in); got.Seconds != 2 || got.Formula != FormulaUnknown {
			t.Errorf("%+v: got %+v, want 2 s", in, got)
		}
	}
}

func TestComputeSurvivesAnInvalidConfig(t *testing.T) {
	bad := Config{InputProofTPS: -1, ReadinessMaxConcurrency: -4, SafetyMargin: 7, MinSeconds: -3, MaxSeconds: -9,
		InputProofProcessingMs: -5, TxConfirmationMs: 1 << 62}
	for _, kind := range domain.Kinds() {
		for _, status := range domain.Statuses() {
			got := Compute(bad, Input{Kind: kind, Status: status, Position: 10, TxQueueLen: 10})
			if status.Terminal() {
				continue
			}
			if got.Seconds < 1 || got.Seconds > MaxRetrySeconds {
				t.Errorf("%s %s: %d s is outside [1, %d]", kind, status, got.Seconds, MaxRetrySeconds)
			}
		}
	}
}

func TestAdaptiveDrainRateMovesTheReadinessQueueEstimate(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ReadinessDrainRate = 5 // 100 ahead now take 20 s instead of 2 s
	got := Compute(cfg, Input{Kind: UserDecrypt, Status: Queued, Position: 100})
	if got.ETA != 26100*time.Millisecond { // 20 s + R + P + T
		t.Errorf("ETA = %v, want 26.1s", got.ETA)
	}
}

func TestNamesRoundTrip(t *testing.T) {
	for _, s := range Stages() {
		if got, err := ParseStage(s.String()); err != nil || got != s {
			t.Errorf("stage %v: %v %v", s, got, err)
		}
	}
	if _, err := ParseStage("somewhere"); err == nil {
		t.Error("ParseStage accepted an unknown name")
	}
	if Formula(200).String() != "invalid" {
		t.Error("zero values print wrongly")
	}
	for f := FormulaNone; f <= FormulaReceiptRemaining; f++ {
		if f.String() == "invalid" {
			t.Errorf("formula %d has no name", f)
		}
	}
}

func TestAChainOutageAddsItsAgeToEveryWait(t *testing.T) {
	cfg := DefaultConfig()
	cases := []Input{
		{Kind: InputProof, Status: Processing, Position: 3},
		{Kind: PublicDecrypt, Status: Queued, Stage: StageReadinessQueue, Position: 2, TxQueueLen: 5},
		{Kind: UserDecrypt, Status: TxInFlight},
		{Kind: UserDecrypt, Status: ReceiptReceived, Elapsed: 100 * time.Millisecond},
	}
	for _, in := range cases {
		base := Compute(cfg, in)
		if base.Outage != 0 {
			t.Fatalf("%v %v without an outage: Outage = %v", in.Kind, in.Status, base.Outage)
		}
		for _, age := range []time.Duration{1500 * time.Millisecond, 7 * time.Second, 40 * time.Second} {
			in.Outage = age
			got := Compute(cfg, in)
			if got.ETA != base.ETA+age || got.Outage != age || got.Formula != base.Formula {
				t.Errorf("%v %v after %v of outage: ETA %v (outage part %v, %v), want %v + %v (%v)",
					in.Kind, in.Status, age, got.ETA, got.Outage, got.Formula, base.ETA, age, base.Formula)
			}
			want := int(((base.ETA + age).Milliseconds() + 500) / 1000)
			if got.Seconds != min(max(want, cfg.MinSeconds), cfg.MaxSeconds) {
				t.Errorf("%v %v after %v of outage: Retry-After %d s, want %d s", in.Kind, in.Status, age, got.Seconds, want)
			}
		}
	}
	// A terminal job has nothing to wait for, outage or not.
	if got := Compute(cfg, Input{Kind: InputProof, Status: Completed, Outage: time.Minute}); got.Seconds != 0 || got.Outage != 0 {
		t.Fatalf("a completed job during an outage: %+v", got)
	}
}

func TestALateJobDuringAnOutageBacksOffAtLeastTheOutagesLength(t *testing.T) {
	cfg := DefaultConfig()
	late := Input{Kind: UserDecrypt, Status: ReceiptReceived, Elapsed: 10 * time.Second}
	base := Compute(cfg, late)
	if base.Formula != FormulaReceiptBackoff {
		t.Fatalf("a decrypt 10 s in receipt_received: formula %v, want the backoff", base.Formula)
	}
	late.Outage = time.Duration(base.Seconds-1)*time.Second + time.Millisecond
	if got := Compute(cfg, late); got.Seconds != base.Seconds || got.Outage != 0 {
		t.Fatalf("an outage shorter than the backoff step: %+v, want the step %d s", got, base.Seconds)
	}
	late.Outage = 95*time.Second + time.Millisecond
	if got := Compute(cfg, late); got.Seconds != 96 || got.Outage != 96*time.Second || got.ETA != 96*time.Second {
		t.Fatalf("a 95.001 s outage: %+v, want 96 s", got)
	}
}

func TestAScheduledRetryAddsTheWaitUntilItAndTheLongerOfItAndAnOutage(t *testing.T) {
	cfg := DefaultConfig()
	in := Input{Kind: InputProof, Status: Processing, Position: 0}
	base := Compute(cfg, in)
	in.Deferred = 20 * time.Second
	if got := Compute(cfg, in); got.ETA != base.ETA+20*time.Second || got.Outage != 20*time.Second {
		t.Fatalf("a retry due in 20 s: %+v, want ETA %v + 20 s", got, base.ETA)
	}
	in.Outage = 5 * time.Second
	if got := Compute(cfg, in); got.ETA != base.ETA+20*time.Second {
		t.Fatalf("a retry due in 20 s during a 5 s outage: ETA %v, want %v + 20 s", got.ETA, base.ETA)
	}
	in.Outage = 45 * time.Second
	if got := Compute(cfg, in); got.ETA != base.ETA+45*time.Second {
		t.Fatalf("a retry due in 20 s during a 45 s outage: ETA %v, want %v + 45 s", got.ETA, base.ETA)
	}
}
