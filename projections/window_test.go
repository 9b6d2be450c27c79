package projections

import (
	"encoding/json"
	"testing"
	"time"

	"relayer/domain"
)

// respond drives a new job of kind k (an input proof or a public decrypt) accepted at start to
// completed, its response stage taking took, and returns when it completed.
func (h *harness) respond(k domain.Kind, start, took time.Duration) time.Duration {
	h.t.Helper()
	id := h.accept(k, start)
	at := start
	if k.NeedsReadiness() {
		h.toTx(id, at)
		at += time.Second
	}
	h.sign(id, at+100*time.Millisecond)
	h.receipt(id, at+200*time.Millisecond)
	end := at + 200*time.Millisecond + took
	var res domain.Result
	if k == domain.InputProof {
		res.InputProof = &domain.InputProofResult{Accepted: true, Handles: []string{}, Signatures: []string{}, ExtraData: "0x00"}
	} else {
		res.PublicDecrypt = &domain.PublicDecryptResult{DecryptedValue: "0x01", Signatures: []string{}, ExtraData: "0x00"}
	}
	h.do(id, domain.Complete{At: h.at(end), Result: res})
	return end
}

func TestAnOutlierBurstMovesTheMovingAverageButHardlyTheRecentMedian(t *testing.T) {
	h := newHarness(t, Config{})
	// 60 responses of 1.9 to 2.1 s, then a burst of 10 that take a minute each (a KMS hiccup).
	for i := range 60 {
		h.respond(domain.InputProof, time.Duration(i)*10*time.Second, 1900*time.Millisecond+time.Duration(i%5)*50*time.Millisecond)
	}
	calm := h.s.StageStats(domain.InputProof, StageResponse)
	for i := range 10 {
		h.respond(domain.InputProof, 10*time.Minute+time.Duration(i)*10*time.Second, time.Minute)
	}
	burst := h.s.StageStats(domain.InputProof, StageResponse)

	if calm.Recent.Median != 2*time.Second || calm.Recent.Samples != 60 {
		t.Fatalf("before the burst: median %s over %d samples, want 2s over 60", calm.Recent.Median, calm.Recent.Samples)
	}
	// The window holds the last 64: 54 calm ones and the 10 slow ones; the median stays among
	// the calm ones.
	if burst.Recent.Samples != StageWindow || burst.Recent.Median > 2100*time.Millisecond {
		t.Fatalf("after the burst: median %s over %d samples, want at most 2.1s over %d", burst.Recent.Median, burst.Recent.Samples, StageWindow)
	}
	// The moving average is pulled most of the way to a minute: 2 + 58 × (1 - 0.9^10) ≈ 39.8 s.
	if burst.EWMA < 30*time.Second || burst.EWMA < 10*burst.Recent.Median {
		t.Fatalf("after the burst the EWMA is %s (median %s): the test's premise is off", burst.EWMA, burst.Recent.Median)
	}
	if burst.Count != 70 {
		t.Fatalf("count %d, want every sample (70) counted all-time", burst.Count)
	}
}

func TestTheRecentWindowKeepsTheLatestSamplesAndTheNewestEventTime(t *testing.T) {
	h := newHarness(t, Config{})
	var last time.Duration
	for i := 1; i <= 70; i++ {
		last = h.respond(domain.InputProof, time.Duration(i)*time.Minute, time.Duration(i)*time.Second)
	}
	s := h.s.StageStats(domain.InputProof, StageResponse)
	// The window holds samples 7..70 s; the middle two are 38 and 39 s.
	if s.Recent.Samples != 64 || s.Recent.Median != 38500*time.Millisecond || s.Count != 70 {
		t.Fatalf("window %+v, count %d: want 64 samples 7..70 s with median 38.5s, and 70 counted", s.Recent, s.Count)
	}
	if want := h.base.Add(last); !s.Recent.LastAt.Equal(want) {
		t.Fatalf("last sample at %s, want %s", s.Recent.LastAt, want)
	}
	// A stage that ends at an earlier event time (a worker whose clock is behind) counts, but
	// does not make the observations look older than they are.
	h.respond(domain.InputProof, 0, 3*time.Second)
	s = h.s.StageStats(domain.InputProof, StageResponse)
	if want := h.base.Add(last); !s.Recent.LastAt.Equal(want) || s.Recent.Samples != 64 {
		t.Fatalf("after a late sample: last %s (want %s), %d samples", s.Recent.LastAt, want, s.Recent.Samples)
	}
	// Nothing observed: no samples, no time.
	if e := h.s.StageStats(domain.PublicDecrypt, StageResponse).Recent; e.Samples != 0 || e.Median != 0 || !e.LastAt.IsZero() {
		t.Fatalf("an unobserved stage: %+v", e)
	}
}

func TestRecentStageMergesKindsAndLeavesOutAKindWhoseWindowIsStale(t *testing.T) {
	h := newHarness(t, Config{})
	// Public decrypts answered in 10 s an hour ago; input proofs in 2 s just now.
	for i := range 5 {
		h.respond(domain.PublicDecrypt, time.Duration(i)*time.Second, 10*time.Second)
	}
	var last time.Duration
	for i := range 4 {
		last = h.respond(domain.InputProof, time.Hour+time.Duration(i)*time.Second, 2*time.Second)
	}
	all := h.s.RecentStage(StageResponse, time.Time{}, domain.InputProof, domain.PublicDecrypt)
	if all.Samples != 9 || all.Median != 10*time.Second {
		t.Fatalf("both kinds: %+v, want 9 samples with median 10s", all)
	}
	fresh := h.s.RecentStage(StageResponse, h.base.Add(50*time.Minute), domain.InputProof, domain.PublicDecrypt)
	if fresh.Samples != 4 || fresh.Median != 2*time.Second || !fresh.LastAt.Equal(h.base.Add(last)) {
		t.Fatalf("since 50 min in: %+v, want the 4 input proofs' 2s, last at %s", fresh, h.base.Add(last))
	}
	// A stale kind alone: no samples, but its newest sample's time is still told, so that the
	// caller can say how old it is.
	stale := h.s.RecentStage(StageResponse, h.base.Add(50*time.Minute), domain.PublicDecrypt)
	if stale.Samples != 0 || stale.LastAt.IsZero() {
		t.Fatalf("a stale kind alone: %+v", stale)
	}
}

func TestLastDrainIsTheLatestDepartureIntoServicePerKind(t *testing.T) {
	h := newHarness(t, Config{})
	if !h.s.LastDrain(TxQueue, domain.Kind{}).IsZero() {
		t.Fatal("a departure before any event")
	}
	proof := h.accept(domain.InputProof, 0)
	decrypt := h.accept(domain.PublicDecrypt, 0)
	h.do(decrypt, domain.StartReadiness{At: h.at(3 * time.Second)})
	h.sign(proof, 5*time.Second)
	for _, c := range []struct {
		q    Queue
		k    domain.Kind
		want time.Duration
	}{
		{TxQueue, domain.InputProof, 5 * time.Second},
		{TxQueue, domain.Kind{}, 5 * time.Second},
		{ReadinessQueue, domain.PublicDecrypt, 3 * time.Second},
		{ReadinessQueue, domain.Kind{}, 3 * time.Second},
	} {
		if got := h.s.LastDrain(c.q, c.k); !got.Equal(h.base.Add(c.want)) {
			t.Errorf("last departure from %s of %q at %s, want %s", c.q, c.k, got, h.base.Add(c.want))
		}
	}
	if !h.s.LastDrain(TxQueue, domain.PublicDecrypt).IsZero() || !h.s.LastDrain(ReadinessInProgress, domain.Kind{}).IsZero() {
		t.Error("a departure that never happened")
	}
}

func TestTheSnapshotCarriesTheRecentWindowOldestFirstAndTheLastTimes(t *testing.T) {
	h := newHarness(t, Config{})
	for i := 1; i <= 66; i++ {
		h.respond(domain.InputProof, time.Duration(i)*time.Minute, time.Duration(i)*time.Second)
	}
	var snap struct {
		Stats struct {
			Drain  map[string]map[string]any `json:"drain"`
			Stages map[string]map[string]struct {
				Window []int64 `json:"window"`
				LastAt *string `json:"lastAt"`
			} `json:"stages"`
		} `json:"stats"`
	}
	if err := json.Unmarshal(snapshot(t, h.s), &snap); err != nil {
		t.Fatal(err)
	}
	r := snap.Stats.Stages[domain.InputProof.String()][StageResponse.String()]
	if len(r.Window) != StageWindow || r.Window[0] != int64(3*time.Second) || r.Window[StageWindow-1] != int64(66*time.Second) || r.LastAt == nil {
		t.Fatalf("response window %v (last at %v), want 3 s to 66 s oldest first", r.Window, r.LastAt)
	}
	if e := snap.Stats.Stages[domain.PublicDecrypt.String()][StageResponse.String()]; len(e.Window) != 0 || e.LastAt != nil {
		t.Fatalf("an unobserved stage: %+v", e)
	}
	last, ok := snap.Stats.Drain["tx"]["lastAt"].(map[string]any)
	if !ok || last[domain.InputProof.String()] == nil || last[domain.PublicDecrypt.String()] != nil {
		t.Fatalf("tx drain's last departures: %v", snap.Stats.Drain["tx"])
	}
}

// BenchmarkRecentStage measures what the adaptive Retry-After pays to read a stage's recent
// window (a copy and a sort of StageWindow durations per kind, under the read lock), at most once
// a second per server and at each scrape of /metrics or GET /admin/config: the apply path pays
// only a store into the ring.
func BenchmarkRecentStage(b *testing.B) {
	s, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	for k := range s.stats.stages {
		for i := range 3 * StageWindow {
			s.stats.stages[k][StageResponse].observe(int64(i*7919%1000)*int64(time.Millisecond), int64(i+1), 0.1, false)
		}
	}
	kinds := domain.Kinds()
	b.Run("one-kind", func(b *testing.B) {
		for b.Loop() {
			_ = s.StageStats(domain.InputProof, StageResponse)
		}
	})
	b.Run("all-kinds", func(b *testing.B) {
		for b.Loop() {
			_ = s.RecentStage(StageResponse, time.Time{}, kinds...)
		}
	})
}
