package retryafter

import (
	"fmt"
	"testing"
	"time"

	"relayer/domain"
)

// seedRow is one row of a worked table of seeds/dynamic-retry-after-design.txt: the queue
// wait (the "p/D (s)" or "p/C + Q/D" columns, in ms), the "+ P + T" column (the ETA, ms), the
// "× 1.2" column (ms) and the result (s).
type seedRow struct {
	n                  int64
	waitMs, etaMs, x12 int64
	seconds            int
}

func checkSeedRow(t *testing.T, got Estimate, fixedMs int64, want seedRow, formula Formula) {
	t.Helper()
	if got.Seconds != want.seconds {
		t.Errorf("Retry-After = %d s, the seed's table says %d s", got.Seconds, want.seconds)
	}
	if got.ETA != time.Duration(want.etaMs)*time.Millisecond {
		t.Errorf("ETA = %v, the seed's \"+ P + T\" column says %d ms", got.ETA, want.etaMs)
	}
	if w := got.ETA.Milliseconds() - fixedMs; w != want.waitMs {
		t.Errorf("queue wait = %d ms, the seed's table says %d ms", w, want.waitMs)
	}
	if got.HintMs != want.x12 {
		t.Errorf("ETA × 1.2 = %d ms, the seed's table says %d ms", got.HintMs, want.x12)
	}
	if got.Formula != formula {
		t.Errorf("formula = %v, want %v", got.Formula, formula)
	}
	if wantEta := (want.etaMs + 999) / 1000; got.EtaSeconds != wantEta {
		t.Errorf("EtaSeconds = %d, want %d", got.EtaSeconds, wantEta)
	}
}

var decrypts = []Kind{UserDecrypt, PublicDecrypt}

func TestInputProofInTheTxQueueMatchesTheSeedTable(t *testing.T) {
	rows := []seedRow{
		{0, 0, 2100, 2520, 3},
		{1, 100, 2200, 2640, 3},
		{10, 1000, 3100, 3720, 4},
		{100, 10000, 12100, 14520, 15},
		{1000, 100000, 102100, 122520, 123},
	}
	for _, status := range []Status{Queued, Processing} {
		for _, r := range rows {
			t.Run(fmt.Sprintf("a %s input proof at position %d waits %d s", status, r.n, r.seconds), func(t *testing.T) {
				got := Compute(DefaultConfig(), Input{Kind: InputProof, Status: status, Position: r.n, TxQueueLen: 5000})
				checkSeedRow(t, got, 2100, r, FormulaTxQueue)
			})
		}
	}
}

func TestTxInFlightWaitsForTheProcessingTimeWithMargin(t *testing.T) {
	cases := []struct {
		kind    Kind
		x12     int64
		seconds int
	}{
		{InputProof, 2400, 3}, // ⌈2000 × 1.2 / 1000⌉ = 3
		{UserDecrypt, 4800, 5},
		{PublicDecrypt, 4800, 5}, // ⌈4000 × 1.2 / 1000⌉ = 5
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("a %s in tx_in_flight waits %d s whatever the queues", c.kind, c.seconds), func(t *testing.T) {
			for _, n := range []int64{0, 7, 100000} {
				got := Compute(DefaultConfig(), Input{Kind: c.kind, Status: TxInFlight, Position: n, TxQueueLen: n, Elapsed: time.Duration(n) * time.Millisecond})
				if got.Seconds != c.seconds || got.HintMs != c.x12 || got.Formula != FormulaTxInFlight {
					t.Errorf("n=%d: got %+v, want %d s (%d ms)", n, got, c.seconds, c.x12)
				}
			}
		})
	}
}

func TestQueuedDecryptInTheReadinessQueueMatchesTheSeedTable(t *testing.T) {
	// p = Q, as the seed's table assumes.
	rows := []seedRow{
		{0, 0, 4100, 4920, 5},
		{1, 120, 4220, 5064, 6},
		{10, 1200, 5300, 6360, 7},
		{100, 12000, 16100, 19320, 20},
		{1000, 120000, 124100, 148920, 149},
	}
	for _, kind := range decrypts {
		for _, stage := range []Stage{StageReadinessQueue, StageAuto} {
			for _, r := range rows {
				t.Run(fmt.Sprintf("a queued %s (stage %s) at p=Q=%d waits %d s", kind, stage, r.n, r.seconds), func(t *testing.T) {
					got := Compute(DefaultConfig(), Input{Kind: kind, Status: Queued, Stage: stage, Position: r.n, TxQueueLen: r.n})
					checkSeedRow(t, got, 4100, r, FormulaReadinessQueue)
				})
			}
		}
	}
}

func TestQueuedDecryptSplitsReadinessAndTxQueueWaits(t *testing.T) {
	// p/C and Q/D separately: p=100 readiness ahead (2 s), Q=0 -> (2000+4100)×1.2 = 7320 -> 8 s;
	// p=0, Q=100 (10 s) -> (10000+4100)×1.2 = 16920 -> 17 s.
	cfg := DefaultConfig()
	if got := Compute(cfg, Input{Kind: UserDecrypt, Status: Queued, Position: 100}); got.Seconds != 8 || got.HintMs != 7320 {
		t.Errorf("p=100, Q=0: got %+v, want 8 s (7320 ms)", got)
	}
	if got := Compute(cfg, Input{Kind: UserDecrypt, Status: Queued, TxQueueLen: 100}); got.Seconds != 17 || got.HintMs != 16920 {
		t.Errorf("p=0, Q=100: got %+v, want 17 s (16920 ms)", got)
	}
}

func TestDecryptOutOfReadinessMatchesTheSeedTable(t *testing.T) {
	rows := []seedRow{
		{0, 0, 6100, 7320, 8},
		{1, 100, 6200, 7440, 8},
		{10, 1000, 7100, 8520, 9},
		{100, 10000, 16100, 19320, 20},
		{1000, 100000, 106100, 127320, 128},
	}
	cases := []struct {
		status Status
		stage  Stage
		why    string
	}{
		{Processing, StageAwaitingTxQueue, "a processing decrypt out of readiness but not in the TX queue"},
		// Not in the seed: a queued decrypt whose readiness check is running gets the same row.
		{Queued, StageReadinessInProgress, "a queued decrypt whose readiness check is in progress"},
	}
	for _, kind := range decrypts {
		for _, c := range cases {
			for _, r := range rows {
				t.Run(fmt.Sprintf("%s (%s) with Q=%d waits %d s", c.why, kind, r.n, r.seconds), func(t *testing.T) {
					got := Compute(DefaultConfig(), Input{Kind: kind, Status: c.status, Stage: c.stage, Position: 3, TxQueueLen: r.n})
					checkSeedRow(t, got, 6100, r, FormulaOutOfReadiness)
				})
			}
		}
	}
}

func TestProcessingDecryptInTheTxQueueMatchesTheSeedTable(t *testing.T) {
	rows := []seedRow{
		{0, 0, 4100, 4920, 5},
		{1, 100, 4200, 5040, 6},
		{10, 1000, 5100, 6120, 7},
		{100, 10000, 14100, 16920, 17},
		{1000, 100000, 104100, 124920, 125},
	}
	for _, kind := range decrypts {
		for _, stage := range []Stage{StageTxQueue, StageAuto} {
			for _, r := range rows {
				t.Run(fmt.Sprintf("a processing %s (stage %s) at TX position %d waits %d s", kind, stage, r.n, r.seconds), func(t *testing.T) {
					got := Compute(DefaultConfig(), Input{Kind: kind, Status: Processing, Stage: stage, Position: r.n, TxQueueLen: 9999})
					checkSeedRow(t, got, 4100, r, FormulaTxQueue)
				})
			}
		}
	}
}

func TestTheSeedSummaryTableHolds(t *testing.T) {
	// The summary assumes B(E) = 3 s and the rows at p = Q = 100.
	cfg, err := DefaultConfig().WithReceiptBackoff([]BackoffStep{{0, 3}})
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
		{"Queued", UserDecrypt, Input{Status: Queued, Position: 100, TxQueueLen: 100}, 20},
		{"Processing (in readiness)", UserDecrypt, Input{Status: Processing, Stage: StageAwaitingTxQueue, TxQueueLen: 100}, 20},
		{"Processing (in TX queue)", InputProof, Input{Status: Processing, Position: 100}, 15},
		{"Processing (in TX queue)", PublicDecrypt, Input{Status: Processing, Stage: StageTxQueue, Position: 100}, 17},
		{"TxInFlight", InputProof, Input{Status: TxInFlight}, 3},
		{"TxInFlight", PublicDecrypt, Input{Status: TxInFlight}, 5},
		{"ReceiptReceived", InputProof, Input{Status: ReceiptReceived, Elapsed: time.Hour}, 3},
		{"ReceiptReceived", UserDecrypt, Input{Status: ReceiptReceived}, 3},
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

func TestReceiptReceivedFollowsTheBackoffTableAtEveryBoundary(t *testing.T) {
	cases := []struct {
		elapsed time.Duration
		want    int
	}{
		{0, 4},
		{-5 * time.Second, 4}, // a negative elapsed time is taken as 0
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
}

func TestReceiptReceivedHasNoMarginButIsClamped(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SafetyMargin = 1
	if got := Compute(cfg, Input{Kind: InputProof, Status: ReceiptReceived}); got.Seconds != 4 {
		t.Errorf("margin 1.0 changed B(E): got %d s, want 4 s", got.Seconds)
	}
	cfg.MaxSeconds = 45
	if got := Compute(cfg, Input{Kind: InputProof, Status: ReceiptReceived, Elapsed: time.Hour}); got.Seconds != 45 {
		t.Errorf("B(E)=300 s with max 45: got %d s, want 45", got.Seconds)
	}
	cfg.MinSeconds, cfg.MaxSeconds = 20, 300
	if got := Compute(cfg, Input{Kind: InputProof, Status: ReceiptReceived}); got.Seconds != 20 {
		t.Errorf("B(E)=4 s with min 20: got %d s, want 20", got.Seconds)
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
		if got.Seconds != 300 || got.ETA != 120_004_100*time.Millisecond {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("a short estimate is raised to min", func(t *testing.T) {
		c := cfg
		c.MinSeconds = 10
		if got := Compute(c, Input{Kind: InputProof, Status: Processing}); got.Seconds != 10 || got.HintMs != 2520 {
			t.Errorf("got %+v, want 10 s (hint 2520 ms)", got)
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

func TestMarginZeroGivesTheBareCeiling(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SafetyMargin = 0
	cases := []struct {
		in   Input
		want int
	}{
		{Input{Kind: InputProof, Status: Processing}, 3},                                       // 2100 -> 3
		{Input{Kind: InputProof, Status: Processing, Position: 9}, 3},                          // 3000 -> exactly 3
		{Input{Kind: InputProof, Status: Processing, Position: 10}, 4},                         // 3100 -> 4
		{Input{Kind: InputProof, Status: TxInFlight}, 2},                                       // 2000 -> exactly 2
		{Input{Kind: UserDecrypt, Status: Processing, Stage: StageAwaitingTxQueue}, 7},         // 6100 -> 7
		{Input{Kind: UserDecrypt, Status: Queued, Position: 1000, TxQueueLen: 1000}, 125},      // 124100 -> 125
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

func TestExactValuesAreNotRoundedUpByFloatingPoint(t *testing.T) {
	// Values that land exactly on a second must not become the next one: 0.1 and 0.2 have no exact
	// binary form, so a float computation would give 3000.0000000000005 and round up.
	cases := []struct {
		name string
		mut  func(*Config)
		in   Input
		hint int64
		want int
	}{
		{"2500 ms × 1.2 = 3000 ms is 3 s", func(c *Config) { c.InputProofProcessingMs, c.TxConfirmationMs = 2400, 100 },
			Input{Kind: InputProof, Status: Processing}, 3000, 3},
		{"5000 ms × 1.2 = 6000 ms is 6 s", func(c *Config) {},
			Input{Kind: UserDecrypt, Status: Processing, Stage: StageTxQueue, Position: 9}, 6000, 6},
		{"0.3 TPS: p=3 waits exactly 10 s (3/0.3 in floating point is 10.000000000000002)", func(c *Config) {
			c.InputProofTPS, c.InputProofProcessingMs, c.TxConfirmationMs, c.SafetyMargin = 0.3, 0, 0, 0
		}, Input{Kind: InputProof, Status: Processing, Position: 3}, 10000, 10},
		{"0.1 margin on 1000 ms is 1100 ms and 2 s", func(c *Config) {
			c.InputProofProcessingMs, c.TxConfirmationMs, c.SafetyMargin = 1000, 0, 0.1
		}, Input{Kind: InputProof, Status: Processing}, 1100, 2},
		{"0.3 margin on 10000 ms is exactly 13 s", func(c *Config) {
			c.InputProofProcessingMs, c.TxConfirmationMs, c.SafetyMargin = 10000, 0, 0.3
		}, Input{Kind: InputProof, Status: Processing}, 13000, 13},
		{"one ms above a whole second is the next second", func(c *Config) {
			c.InputProofProcessingMs, c.TxConfirmationMs, c.SafetyMargin = 3001, 0, 0
		}, Input{Kind: InputProof, Status: Processing}, 3001, 4},
		{"seven TPS: p=7 waits exactly 1000 ms", func(c *Config) {
			c.InputProofTPS, c.InputProofProcessingMs, c.TxConfirmationMs, c.SafetyMargin = 7, 2000, 0, 0
		}, Input{Kind: InputProof, Status: Processing, Position: 7}, 3000, 3},
		{"readiness at 3 per second and TX at 7: 3/3 + 7/7 + 1 s is exactly 3 s", func(c *Config) {
			c.ReadinessMaxConcurrency, c.UserDecryptTPS, c.UserDecryptProcessingMs, c.TxConfirmationMs, c.SafetyMargin = 3, 7, 1000, 0, 0
		}, Input{Kind: UserDecrypt, Status: Queued, Position: 3, TxQueueLen: 7}, 3000, 3},
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
	// Input proofs have one queue whatever the stage says.
	if got := Compute(cfg, Input{Kind: InputProof, Status: Queued, Stage: StageReadinessInProgress, Position: 10}); got.Formula != FormulaTxQueue || got.Seconds != 4 {
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
	if got.ETA != 24100*time.Millisecond {
		t.Errorf("ETA = %v, want 24.1s", got.ETA)
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
	for f := FormulaNone; f <= FormulaReceiptBackoff; f++ {
		if f.String() == "invalid" {
			t.Errorf("formula %d has no name", f)
		}
	}
}
