package projections

import (
	"math"
	"testing"
	"time"

	"relayer/domain"
)

// A drain rate is how fast a queue with work waiting is served: the departures that left others
// of their kind waiting, over the time from each to the next. A failure is not service.
func TestDrainRatesMeasureServiceWhileWorkWaits(t *testing.T) {
	h := newHarness(t, Config{DrainWindow: 10 * time.Second})
	var ids []domain.JobID
	for range 6 {
		ids = append(ids, h.accept(domain.PublicDecrypt, 0))
	}
	proof := h.accept(domain.InputProof, 0)
	// Pickups at 1, 2, 3 and 4 s, one without a recorded pickup at 5 s (it passes straight
	// away), each leaving others waiting; the last fails: not service.
	for i, id := range ids[:4] {
		h.do(id, domain.StartReadiness{At: h.at(time.Duration(i+1) * time.Second)})
	}
	h.do(ids[4], domain.PassReadiness{At: h.at(5 * time.Second)})
	h.do(ids[5], domain.FailReadiness{At: h.at(5 * time.Second), Label: domain.LabelNotAllowedOnHostACL})
	h.sign(proof, 6*time.Second)
	r, n := h.s.Drain(ReadinessQueue, domain.Kind{})
	if n != 4 || math.Abs(r-1) > 1e-9 {
		t.Fatalf("readiness drain %g/s over %d departures, want 1/s over the 4 that followed a departure leaving work", r, n)
	}
	// The input proof never waited behind another: its queue's capacity was not seen.
	if r, n := h.s.Drain(TxQueue, domain.InputProof); r != 0 || n != 0 {
		t.Fatalf("input proof TX drain %g/s over %d, want nothing measured", r, n)
	}
	// Twenty seconds later the window has moved past all of them.
	h.accept(domain.InputProof, 30*time.Second)
	if got := h.s.DrainRate(ReadinessQueue, domain.Kind{}); got != 0 {
		t.Fatalf("readiness drain %g/s after the window passed, want 0", got)
	}
}

// Jobs that arrive slowly and leave at once say how fast they arrive, not how fast the relayer
// can serve them: nothing is measured, and the hints keep the configured rate.
func TestDrainRatesDoNotMistakeArrivalsForCapacity(t *testing.T) {
	h := newHarness(t, Config{DrainWindow: 10 * time.Second})
	for i := range 8 {
		id := h.accept(domain.InputProof, time.Duration(i)*time.Second)
		h.sign(id, time.Duration(i)*time.Second+10*time.Millisecond)
	}
	if r, n := h.s.Drain(TxQueue, domain.InputProof); r != 0 || n != 0 {
		t.Fatalf("one job a second, each signed at once: %g/s over %d departures, want nothing measured", r, n)
	}
	// A backlog served at one job every two seconds measures 0.5/s, not one a second.
	var ids []domain.JobID
	for range 4 {
		ids = append(ids, h.accept(domain.InputProof, 10*time.Second))
	}
	for i, id := range ids {
		h.sign(id, 10*time.Second+time.Duration(2*i+1)*time.Second)
	}
	if r, n := h.s.Drain(TxQueue, domain.InputProof); n != 3 || math.Abs(r-0.5) > 1e-9 {
		t.Fatalf("a backlog served every 2 s: %g/s over %d departures, want 0.5/s over 3", r, n)
	}
}

func TestAnEventTimeOlderThanTheWindowIsNotCounted(t *testing.T) {
	w := newWindow(5 * time.Second)
	w.add(100, 0, int64(time.Second))
	w.add(95, 0, int64(time.Second)) // just outside (95, 100]
	w.add(96, 1, int64(2*time.Second))
	if n, busy := w.count(100, -1); n != 2 || busy != 3*time.Second {
		t.Fatalf("count %d over %v, want 2 over 3s", n, busy)
	}
	if n, busy := w.count(104, 0); n != 1 || busy != time.Second {
		t.Fatalf("count at 104 %d over %v, want 1 over 1s", n, busy)
	}
	w.add(-3, 0, 1) // far in the past: ignored, and harmless
	if n, _ := w.count(100, -1); n != 2 {
		t.Fatalf("count %d after an ancient event, want 2", n)
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

// The time a chain outage took is not busy time: nothing leaves a queue for the chain while it
// cannot be reached, and a rate that counted the stillness would tell the clients waiting after
// the outage that the backlog drains at a fraction of its real pace.
func TestDrainRatesLeaveOutTheTimeAChainOutageTook(t *testing.T) {
	h := newHarness(t, Config{DrainWindow: 60 * time.Second})
	var ids []domain.JobID
	for range 8 {
		ids = append(ids, h.accept(domain.InputProof, 0))
	}
	h.sign(ids[0], 1*time.Second)
	h.sign(ids[1], 2*time.Second) // one job a second, with work waiting
	h.outage(domain.ChainOutageStarted{Since: h.at(2500 * time.Millisecond).At, At: h.at(3 * time.Second).At})
	h.accept(domain.InputProof, 20*time.Second)
	if r, n := h.s.Drain(TxQueue, domain.InputProof); n != 1 || math.Abs(r-1) > 1e-9 {
		t.Fatalf("during the outage: %g/s over %d departures, want 1/s over 1", r, n)
	}
	// The outage ends at 22.5 s; the backlog leaves at two a second.
	h.outage(domain.ChainOutageEnded{Since: h.at(2500 * time.Millisecond).At, Until: h.at(22500 * time.Millisecond).At, At: h.at(22500 * time.Millisecond).At})
	for i, id := range ids[2:6] {
		h.sign(id, 23*time.Second+time.Duration(i)*500*time.Millisecond)
	}
	// Busy time: 1 s, then 2 s to 23 s less the 20 s outage (1 s), then three half seconds.
	if r, n := h.s.Drain(TxQueue, domain.InputProof); n != 5 || math.Abs(r-5/3.5) > 1e-9 {
		t.Fatalf("after the outage: %g/s over %d departures, want 5 over 3.5 s of busy time", r, n)
	}
}
