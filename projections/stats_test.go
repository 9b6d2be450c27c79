package projections

import (
	"math"
	"testing"
	"time"

	"relayer/domain"
)

func TestDrainRatesCountDeparturesIntoServiceOverTheWindow(t *testing.T) {
	h := newHarness(t, Config{DrainWindow: 10 * time.Second})
	var ids []domain.JobID
	for range 6 {
		ids = append(ids, h.accept(domain.PublicDecrypt, 0))
	}
	proof := h.accept(domain.InputProof, 0)
	// Four pickups within the window, one without a recorded pickup (it passes straight away),
	// one that fails: a failure is not service.
	for i, id := range ids[:4] {
		h.do(id, domain.StartReadiness{At: h.at(time.Duration(i+1) * time.Second)})
	}
	h.do(ids[4], domain.PassReadiness{At: h.at(5 * time.Second)})
	h.do(ids[5], domain.FailReadiness{At: h.at(5 * time.Second), Label: domain.LabelNotAllowedOnHostACL})
	h.sign(proof, 6*time.Second)
	if got := h.s.DrainRate(ReadinessQueue, domain.Kind{}); got != 0.5 {
		t.Fatalf("readiness drain %g/s, want 5 in 10 s", got)
	}
	if got := h.s.DrainRate(TxQueue, domain.InputProof); got != 0.1 {
		t.Fatalf("input proof TX drain %g/s, want 1 in 10 s", got)
	}
	if got := h.s.DrainRate(TxQueue, domain.PublicDecrypt); got != 0 {
		t.Fatalf("public decrypt TX drain %g/s, want 0", got)
	}
	// Twenty seconds later the window has moved past all of them.
	h.accept(domain.InputProof, 30*time.Second)
	if got := h.s.DrainRate(ReadinessQueue, domain.Kind{}); got != 0 {
		t.Fatalf("readiness drain %g/s after the window passed, want 0", got)
	}
}

func TestAnEventTimeOlderThanTheWindowIsNotCounted(t *testing.T) {
	w := newWindow(5 * time.Second)
	w.add(100, 0)
	w.add(95, 0) // just outside (95, 100]
	w.add(96, 1)
	if got := w.count(100, -1); got != 2 {
		t.Fatalf("count %d, want 2", got)
	}
	if got := w.count(104, 0); got != 1 {
		t.Fatalf("count at 104 %d, want 1", got)
	}
	w.add(-3, 0) // far in the past: ignored, and harmless
	if got := w.count(100, -1); got != 2 {
		t.Fatalf("count %d after an ancient event, want 2", got)
	}
}

func TestStageDurationsAreObservedPerKind(t *testing.T) {
	h := newHarness(t, Config{DurationAlpha: 0.5})
	for i, d := range []time.Duration{2 * time.Second, 4 * time.Second} {
		base := time.Duration(i) * time.Minute
		id := h.accept(domain.PublicDecrypt, base)
		h.do(id, domain.StartReadiness{At: h.at(base + time.Second)})
		h.do(id, domain.PassReadiness{At: h.at(base + time.Second + d)})
		h.sign(id, base+10*time.Second)
		h.receipt(id, base+11*time.Second)
		h.do(id, domain.Complete{At: h.at(base + 13*time.Second), Result: domain.Result{PublicDecrypt: &domain.PublicDecryptResult{DecryptedValue: "0x01", Signatures: []string{}, ExtraData: "0x00"}}})
	}
	check := func(st Stage, count uint64, ewma, lo, hi, sum time.Duration) {
		t.Helper()
		s := h.s.StageStats(domain.PublicDecrypt, st)
		if s.Count != count || s.EWMA != ewma || s.Min != lo || s.Max != hi || s.Sum != sum {
			t.Fatalf("%s: %+v, want count %d, ewma %s, min %s, max %s, sum %s", st, s, count, ewma, lo, hi, sum)
		}
		var n uint64
		for _, c := range s.Buckets {
			n += c
		}
		if n != count {
			t.Fatalf("%s: %d samples in the histogram, want %d", st, n, count)
		}
	}
	check(StageReadinessCheck, 2, 3*time.Second, 2*time.Second, 4*time.Second, 6*time.Second)
	check(StageReadiness, 2, 4*time.Second, 3*time.Second, 5*time.Second, 8*time.Second)
	check(StageTxConfirm, 2, time.Second, time.Second, time.Second, 2*time.Second)
	check(StageResponse, 2, 2*time.Second, 2*time.Second, 2*time.Second, 4*time.Second)
	if s := h.s.StageStats(domain.InputProof, StageResponse); s.Count != 0 {
		t.Fatalf("input proofs observed %+v", s)
	}
	// 2 s falls in the (1s, 2.5s] bucket.
	s := h.s.StageStats(domain.PublicDecrypt, StageResponse)
	for i, b := range HistogramBounds() {
		if b == 2500*time.Millisecond && s.Buckets[i] != 2 {
			t.Fatalf("buckets %v", s.Buckets)
		}
	}
}

func TestANegativeStageDurationCountsAsZero(t *testing.T) {
	var s stageStat
	s.observe(-5, 1, 0.1, false)
	s.observe(10, 2, 0.1, false)
	if s.min != 0 || s.max != 10 || s.count != 2 || s.sum != 10 || math.Abs(s.ewma-1) > 1e-9 {
		t.Fatalf("%+v", s)
	}
}

// The seconds of the drain window a chain outage took are not counted: nothing leaves a queue
// for the chain while it cannot be reached, and a rate that counted the stillness would tell
// the clients waiting after the outage that the backlog drains at a fraction of its real pace.
func TestDrainRatesLeaveOutTheSecondsAChainOutageTook(t *testing.T) {
	h := newHarness(t, Config{DrainWindow: 10 * time.Second})
	var ids []domain.JobID
	for range 8 {
		ids = append(ids, h.accept(domain.InputProof, 0))
	}
	for i, id := range ids[:4] {
		h.sign(id, time.Duration(i+3)*time.Second) // at 3, 4, 5 and 6 s
	}
	h.outage(domain.ChainOutageStarted{Since: h.at(7 * time.Second).At, At: h.at(8 * time.Second).At})
	h.accept(domain.InputProof, 12*time.Second)
	// The window's ten seconds end at 12 s; the outage took its last five (7 s to 12 s).
	r, n := h.s.Drain(TxQueue, domain.InputProof)
	if n != 4 || math.Abs(r-4.0/5) > 0.01 {
		t.Fatalf("during the outage: %g/s over %d departures, want 4 in the 5 s the outage left", r, n)
	}
	// Twenty seconds on, the outage has taken the whole window: it measures nothing.
	h.accept(domain.InputProof, 30*time.Second)
	if r, n := h.s.Drain(TxQueue, domain.InputProof); r != 0 || n != 0 {
		t.Fatalf("a window the outage took whole: %g/s over %d departures, want nothing", r, n)
	}
	// The outage ends at 32 s and the backlog leaves at two a second: the rate is over the
	// seconds since, not over the window.
	h.outage(domain.ChainOutageEnded{Since: h.at(7 * time.Second).At, Until: h.at(32 * time.Second).At, At: h.at(32 * time.Second).At})
	h.sign(ids[4], 32*time.Second+100*time.Millisecond)
	h.sign(ids[5], 32*time.Second+600*time.Millisecond)
	h.sign(ids[6], 33*time.Second+100*time.Millisecond)
	h.sign(ids[7], 33*time.Second+600*time.Millisecond)
	if r, n := h.s.Drain(TxQueue, domain.InputProof); n != 4 || r < 1.5 || r > 2.5 {
		t.Fatalf("after the outage: %g/s over %d departures, want about 2/s over 4", r, n)
	}
	if got := h.s.DrainRate(TxQueue, domain.InputProof); got*10 < 5 {
		t.Fatalf("DrainRate %g/s counts the outage's seconds", got)
	}
}
