package retryafter

import (
	"testing"
	"time"

	"relayer/domain"
)

// FuzzCompute: for any input (negative positions and elapsed times included), Compute does not
// panic, a terminal job gets 0, and every other hint lies in [min, max]; the ETA is never negative;
// more load ahead never shortens a hint, nor does time passed in receipt_received lengthen one.
func FuzzCompute(f *testing.F) {
	f.Add(uint8(1), uint8(2), uint8(0), int64(10), int64(10), int64(0), uint16(1), uint16(300), uint32(200000))
	f.Add(uint8(2), uint8(1), uint8(1), int64(1000), int64(1000), int64(0), uint16(1), uint16(300), uint32(0))
	f.Add(uint8(3), uint8(4), uint8(0), int64(0), int64(0), int64(60_000_000_000), uint16(5), uint16(60), uint32(1000000))
	f.Add(uint8(2), uint8(2), uint8(3), int64(-1), int64(-1<<63), int64(-1), uint16(0), uint16(0), uint32(0))
	f.Add(uint8(1), uint8(1), uint8(4), int64(1<<62), int64(1<<62), int64(1<<62), uint16(300), uint16(1), uint32(1<<31))
	kinds := append([]Kind{{}}, domain.Kinds()...)
	statuses := append([]Status{{}}, domain.Statuses()...)
	stages := Stages()
	f.Fuzz(func(t *testing.T, kind, status, stage uint8, p, q, elapsed int64, minS, maxS uint16, marginPPM uint32) {
		cfg := DefaultConfig()
		cfg.MinSeconds = 1 + int(minS)%600
		cfg.MaxSeconds = cfg.MinSeconds + int(maxS)%3600
		cfg.SafetyMargin = float64(marginPPM%1_000_001) / 1e6
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		in := Input{
			Kind:       kinds[int(kind)%len(kinds)],
			Status:     statuses[int(status)%len(statuses)],
			Stage:      stages[int(stage)%len(stages)],
			Position:   p,
			TxQueueLen: q,
			Elapsed:    time.Duration(elapsed),
		}
		got := Compute(cfg, in)
		if got.Seconds < 0 || got.ETA < 0 || got.EtaSeconds < 0 || got.HintMs < 0 {
			t.Fatalf("%+v: negative result %+v", in, got)
		}
		if in.Status.Terminal() {
			if got != (Estimate{Formula: FormulaNone}) {
				t.Fatalf("%+v: terminal job got %+v", in, got)
			}
			return
		}
		if got.Seconds < cfg.MinSeconds || got.Seconds > cfg.MaxSeconds {
			t.Fatalf("%+v with [%d, %d]: %d s", in, cfg.MinSeconds, cfg.MaxSeconds, got.Seconds)
		}
		// More load ahead never gives a shorter hint.
		if in.Status != ReceiptReceived && p >= 0 && p < positionCap {
			more := in
			more.Position++
			if Compute(cfg, more).Seconds < got.Seconds {
				t.Fatalf("%+v: one more place ahead shortened the hint", in)
			}
		}
		// A receipt_received job on time is never told to wait longer as time passes: its hint
		// is what remains of P.
		if got.Formula == FormulaReceiptRemaining && elapsed < 1<<62 {
			later := in
			later.Elapsed += time.Millisecond
			if l := Compute(cfg, later); l.Formula == FormulaReceiptRemaining && l.Seconds > got.Seconds {
				t.Fatalf("%+v: a millisecond later the hint grew from %d to %d s", in, got.Seconds, l.Seconds)
			}
		}
		// Even an invalid config keeps hints within the package's own bounds.
		bad := Config{InputProofTPS: float64(p), SafetyMargin: float64(q), MinSeconds: int(elapsed), MaxSeconds: int(p)}
		if b := Compute(bad, in); b.Seconds < 1 || b.Seconds > MaxRetrySeconds {
			t.Fatalf("%+v with an invalid config: %d s", in, b.Seconds)
		}
	})
}
