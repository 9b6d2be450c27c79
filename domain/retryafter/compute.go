package retryafter

import (
	"math"
	"time"
)

// Input is what Compute needs to know about one job. The caller reads it from the projections:
// Position and TxQueueLen from the queues read model, Elapsed from the timers read model.
type Input struct {
	Kind   Kind
	Status Status
	// Stage picks the decrypt row of the seed's table (see Stage); input proofs ignore it.
	Stage Stage
	// Position is the job's own 0-based place p in the queue it is in now: the readiness queue
	// for StageReadinessQueue, the TX queue otherwise. Negative values are taken as 0.
	Position int64
	// TxQueueLen is Q, the TX queue's length, used where the job will join its end (a queued or
	// awaiting decrypt). Negative values are taken as 0.
	TxQueueLen int64
	// Elapsed is E, the time since the job entered its current status. Only ReceiptReceived uses
	// it (the remaining time P − E, or the backoff table); negative values are taken as 0.
	Elapsed time.Duration
	// Outage is how long the chain outage in progress has lasted (0 when the chain can be
	// reached): nothing moves toward the chain until it ends, so its likely remaining length is
	// added to every wait (see Compute). Negative values are taken as 0.
	Outage time.Duration
	// Deferred is how long until the job's next try of a step that failed for a passing reason
	// (RetryScheduled.NextAt less now; 0 when none is pending): the job cannot move before then.
	// Negative values are taken as 0.
	Deferred time.Duration
}

// Formula names the row of the seed's tables an Estimate came from.
type Formula uint8

const (
	FormulaNone             Formula = iota // terminal status: nothing to wait for
	FormulaUnknown                         // zero Kind or Status: MinSeconds, no ETA
	FormulaTxQueue                         // p/D + P + T
	FormulaReadinessQueue                  // p/C + R + Q/D + P + T
	FormulaOutOfReadiness                  // R + Q/D + P + T
	FormulaTxInFlight                      // P
	FormulaReceiptBackoff                  // B(E), no margin: a late receipt_received job (E > 2P)
	FormulaReceiptRemaining                // P − E, at least 0: a receipt_received job on time
)

var formulaNames = [...]string{"none", "unknown", "tx_queue", "readiness_queue", "out_of_readiness", "tx_in_flight", "receipt_backoff", "receipt_remaining"}

func (f Formula) String() string {
	if int(f) < len(formulaNames) {
		return formulaNames[f]
	}
	return "invalid"
}

// Estimate is Compute's answer.
type Estimate struct {
	// Seconds is the Retry-After value: ETA × (1+M) rounded to the nearest second (half up) and
	// clamped to [min, max]; B(E) clamped for a late ReceiptReceived job; 0 for a terminal job.
	Seconds int
	// ETA is the estimated time until the job completes, without safety margin and without clamp
	// (ms resolution, saturating at the largest Duration). For a ReceiptReceived job on time it
	// is the remaining processing time P − E (0 once E passes P); for a late one, whose end is
	// not predictable, the backoff step B(E). 0 when terminal.
	ETA time.Duration
	// EtaSeconds is ETA in whole seconds, rounded up (for result.etaSeconds).
	EtaSeconds int64
	// HintMs is ⌈ETA × (1+M)⌉ in ms, before the rounding to seconds and the clamp (the seed's
	// "× 1.2" column); B(E) in ms for a late ReceiptReceived job; 0 when terminal or unknown.
	// Saturates.
	HintMs int64
	// Formula is the row of the seed's tables that was used.
	Formula Formula
	// Outage is the part of ETA that is the chain outage's expected remaining length, or the
	// wait for the job's scheduled retry when that is longer (0 when there is neither).
	Outage time.Duration
}

const (
	// positionCap bounds p and Q: beyond a trillion entries every hint is MaxSeconds anyway and
	// the ETA saturates, and the bound keeps the exact arithmetic inside 128 bits.
	positionCap = 1_000_000_000_000
	milliPerSec = 1000
	ppm         = 1_000_000
)

// lateFactor: a job in receipt_received for more than lateFactor × P is late, and is told the
// backoff table B(E) rather than its remaining time (see Compute).
const lateFactor = 2

// Compute returns the Retry-After hint and ETA for one job: the seed's formulas, with the three
// departures listed below (and M = 0 by default, see DefaultConfig).
//
// Input proofs (one queue): queued and processing (p/D + P + T)(1+M); tx_in_flight P(1+M).
// Decrypts (two queues): queued in the readiness queue (p/C + R + Q/D + P + T)(1+M); queued with
// its readiness check in progress, or processing but not yet in the TX queue
// (R + Q/D + P + T)(1+M); processing in the TX queue (p/D + P + T)(1+M); tx_in_flight P(1+M).
// Both: receipt_received (P − E)(1+M), or B(E) without margin once E > 2P (or when P is 0);
// completed, timed_out and failure 0. Every non-terminal hint is rounded to the nearest whole
// second (half up) and clamped to [MinSeconds, MaxSeconds].
//
// The departures from the seed, each because the seed's hint was wrong on average (measured in
// docs/BENCHMARKS.md, issue 13):
//   - A decrypt in the readiness queue counts its own readiness check R. The seed's row,
//     p/C + Q/D + P + T, has the job leave the readiness queue straight into the TX queue; in
//     fact it waits one readiness check first, so the seed's first poll came R early.
//   - receipt_received is the remaining processing time P − E while the job is on time. The
//     seed answers B(E) (4 s in the first minute) because it calls the response time
//     unpredictable; but P is the typical response time (nominal, or observed in the adaptive
//     mode), and a job that polled a little early, E < P, was told to come back 4 s later, long
//     after its answer (2.5 s of lag on average for a decrypt). Past P the remaining time is 0
//     and the hint is MinSeconds: the answer is due any moment. Past lateFactor × P the job is
//     late (a stuck KMS, a lost event), the estimate has failed, and the seed's table backs it
//     off by its time in the state, as before, so that a stuck job is not polled every second.
//   - Rounding to the nearest second, not up. The hint is a duration, and whole seconds are its
//     resolution: rounding up adds half a second of lag on average to every job. An early poll
//     costs a request but almost no lag, because the job's next hint (its remaining time, at
//     worst MinSeconds) lands on the next whole second after the end, where the rounded-up hint
//     would have landed anyway; a late poll costs its lateness in lag. Half up, half down is
//     the unbiased choice between the two; M, when set, buys fewer requests with more lag.
//
// During a chain outage (Input.Outage > 0), nothing reaches the chain: no readiness check, no
// transaction, no response. The seed has no row for it; every non-terminal ETA gets the outage's
// expected remaining length added, taken to be as long again as it has lasted so far (an outage
// that has lasted a second likely ends soon, one that has lasted a minute likely does not: the
// median remaining life of a heavy-tailed duration is its age). A client that obeys polls at
// the outage's doublings, a handful of times in all, and comes back at most one doubling after
// the chain does; the backlog's own time is still added for after the outage. A late
// receipt_received job's backoff B(E) is raised to the outage's length when that is longer.
// A job whose step failed for a passing reason and waits for its scheduled retry
// (Input.Deferred) gets the same treatment with the time until the retry, the longer of the two
// when both apply (a job parked by an outage is woken when it ends).
//
// cfg should be valid (Validate); Compute never panics on an invalid one but pulls each value
// into its valid range first (a rate of 0 becomes 0.001, min above max becomes max = min, an
// empty backoff table becomes the default).
func Compute(cfg Config, in Input) Estimate {
	if in.Status.Terminal() {
		return Estimate{Formula: FormulaNone}
	}
	lo, hi := bounds(cfg)
	if in.Kind.IsZero() || in.Status.IsZero() {
		return Estimate{Seconds: int(lo), Formula: FormulaUnknown}
	}

	tps, procMs := cfg.InputProofTPS, cfg.InputProofProcessingMs
	switch in.Kind.Family() { // a delegated user decrypt runs at the user decrypts' rate
	case UserDecrypt:
		tps, procMs = cfg.UserDecryptTPS, cfg.UserDecryptProcessingMs
	case PublicDecrypt:
		tps, procMs = cfg.PublicDecryptTPS, cfg.PublicDecryptProcessingMs
	}
	d := milliRate(tps)
	p, q := count(in.Position), count(in.TxQueueLen)
	pMs, tMs, rMs := nominalMs(procMs), nominalMs(cfg.TxConfirmationMs), nominalMs(cfg.ReadinessCheckMs)

	// ETA in ms = (n1·1e6/r1 + n2·1e6/r2 + k): n items ahead in a queue drained at r thousandths
	// of an item per second take n·1e6/r ms.
	var n1, r1, n2, r2, k uint64 = 0, 1, 0, 1, pMs + tMs
	f := FormulaTxQueue
	oMs := nominalMs(max(durationMs(in.Outage), durationMs(in.Deferred)))
	switch {
	case in.Status == ReceiptReceived:
		e := uint64(durationMs(in.Elapsed))
		if pMs == 0 || e > lateFactor*pMs {
			b := backoffSeconds(cfg.ReceiptBackoff, int64(e))
			var outage time.Duration
			if o := int64(oMs+milliPerSec-1) / milliPerSec; o > b {
				b, outage = o, time.Duration(o)*time.Second
			}
			eta := time.Duration(b) * time.Second
			return Estimate{Seconds: int(clamp(b, lo, hi)), ETA: eta, EtaSeconds: b, HintMs: b * milliPerSec, Formula: FormulaReceiptBackoff, Outage: outage}
		}
		k, f = pMs-min(e, pMs), FormulaReceiptRemaining
	case in.Status == TxInFlight:
		k, f = pMs, FormulaTxInFlight
	case !in.Kind.NeedsReadiness():
		n1, r1 = p, d
	default:
		switch stage(in) {
		case StageReadinessQueue:
			n1, r1, n2, r2, k, f = p, readinessRate(cfg), q, d, k+rMs, FormulaReadinessQueue
		case StageReadinessInProgress, StageAwaitingTxQueue:
			n1, r1, k, f = q, d, k+rMs, FormulaOutOfReadiness
		default: // StageTxQueue
			n1, r1 = p, d
		}
	}

	k += oMs
	// One fraction num/den (ms) for the whole sum, so nothing is rounded before the final step.
	den := r1 * r2
	num := mul64(n1*ppm, r2).add(mul64(n2*ppm, r1)).add(mul64(k, den))

	etaCeilMs := num.divCeil(den)
	etaMs := etaCeilMs.sat(math.MaxInt64 / int64(time.Millisecond))
	etaSec := etaCeilMs.divCeil(milliPerSec).sat(math.MaxInt64)

	// With x = num/den · (1e6+m)/1e6 / 1000 the hint in seconds: Retry-After = ⌊x + ½⌋ =
	// ⌊(2·num·(1e6+m) + 1e9·den) / den / 2e9⌋ (nested floors of exact divisions equal the floor
	// of the whole fraction); HintMs = ⌈x · 1000⌉.
	scaled := num.mul(ppm + marginPPM(cfg.SafetyMargin)) // ms × 1e6, over den
	secs := scaled.mul(2).add(mul64(ppm*milliPerSec, den)).divFloor(den).divFloor(2 * ppm * milliPerSec).sat(hi)
	return Estimate{
		Seconds:    int(clamp(secs, lo, hi)),
		ETA:        time.Duration(etaMs) * time.Millisecond,
		EtaSeconds: etaSec,
		HintMs:     scaled.divCeil(den).divCeil(ppm).sat(math.MaxInt64),
		Formula:    f,
		Outage:     time.Duration(oMs) * time.Millisecond,
	}
}

// stage resolves StageAuto (and any stage that does not fit the status) for a decrypt.
func stage(in Input) Stage {
	if in.Status == Queued {
		if in.Stage == StageReadinessInProgress {
			return in.Stage
		}
		return StageReadinessQueue
	}
	if in.Stage == StageAwaitingTxQueue {
		return in.Stage
	}
	return StageTxQueue
}

// bounds returns the clamp [lo, hi] with invalid values pulled into range.
func bounds(cfg Config) (lo, hi int64) {
	lo = clamp(int64(cfg.MinSeconds), 1, MaxRetrySeconds)
	hi = clamp(int64(cfg.MaxSeconds), lo, MaxRetrySeconds)
	return lo, hi
}

// backoffSeconds is B(E): the last step whose threshold is <= E. A table that does not start at
// 0 answers its first step before its first threshold; an empty one is the default table.
func backoffSeconds(steps []BackoffStep, elapsedMs int64) int64 {
	if len(steps) == 0 {
		steps = defaultBackoff[:]
	}
	b := steps[0].RetrySeconds
	for _, s := range steps[1:] {
		if s.ElapsedMs > elapsedMs {
			break
		}
		b = s.RetrySeconds
	}
	return clamp(int64(b), 1, MaxRetrySeconds)
}

var defaultBackoff = [...]BackoffStep{{0, 4}, {60_000, 10}, {120_000, 30}, {300_000, 60}, {900_000, 300}}

// milliRate converts a rate per second to thousandths per second, in [1, 1e9].
func milliRate(perSecond float64) uint64 {
	if !(perSecond >= MinTPS) { // also NaN
		return 1
	}
	if perSecond >= MaxTPS {
		return MaxTPS * milliPerSec
	}
	return uint64(math.Round(perSecond * milliPerSec))
}

// readinessRate is the readiness queue's drain rate in thousandths per second: the observed
// ReadinessDrainRate when set, else the seed's C per second.
func readinessRate(cfg Config) uint64 {
	if cfg.ReadinessDrainRate > 0 {
		return milliRate(cfg.ReadinessDrainRate)
	}
	return uint64(clamp(int64(cfg.ReadinessMaxConcurrency), 1, MaxConcurrency)) * milliPerSec
}

func marginPPM(m float64) uint64 {
	if !(m > 0) { // also NaN
		return 0
	}
	if m >= 1 {
		return ppm
	}
	return uint64(math.Round(m * ppm))
}

func nominalMs(ms int64) uint64 { return uint64(clamp(ms, 0, MaxNominalMs)) }

func count(n int64) uint64 { return uint64(clamp(n, 0, positionCap)) }

func durationMs(d time.Duration) int64 { return max(d, 0).Milliseconds() }

func clamp(v, lo, hi int64) int64 { return min(max(v, lo), hi) }
