package projections

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

func TestEachStageHasItsDeadline(t *testing.T) {
	h := newHarness(t, Config{ReadinessTimeout: time.Minute, TxInFlightTimeout: 2 * time.Minute, ResponseTimeout: 3 * time.Minute, ProcessingTimeout: 4 * time.Minute})
	id := h.accept(domain.UserDecrypt, 0)
	deadline := func() (Timer, time.Time) {
		t.Helper()
		tm, ok := h.s.Timer(id)
		if !ok {
			t.Fatal("no timer")
		}
		return tm, tm.Deadline
	}
	if tm, d := deadline(); !d.Equal(h.at(time.Minute).At) || tm.Status != domain.Queued || !tm.EnteredAt.Equal(h.at(0).At) {
		t.Fatalf("queued: %+v", tm)
	}
	// The readiness deadline counts from acceptance, not from the pickup.
	h.do(id, domain.StartReadiness{At: h.at(10 * time.Second)})
	if _, d := deadline(); !d.Equal(h.at(time.Minute).At) {
		t.Fatalf("after the pickup, deadline %s", d)
	}
	h.do(id, domain.PassReadiness{At: h.at(20 * time.Second)})
	if tm, d := deadline(); !d.Equal(h.at(20*time.Second+4*time.Minute).At) || !tm.EnteredAt.Equal(h.at(20*time.Second).At) {
		t.Fatalf("processing deadline: %+v", tm)
	}
	h.sign(id, 30*time.Second)
	if _, d := deadline(); !d.Equal(h.at(30*time.Second + 2*time.Minute).At) {
		t.Fatalf("tx_in_flight deadline %s", d)
	}
	h.receipt(id, 40*time.Second)
	if _, d := deadline(); !d.Equal(h.at(40*time.Second + 3*time.Minute).At) {
		t.Fatalf("response deadline %s", d)
	}
	if v, _ := h.s.View(id); !v.Deadline.Equal(h.at(40*time.Second+3*time.Minute).At) || v.Location.Queue != NotQueued {
		t.Fatalf("view %+v", v)
	}
	h.do(id, domain.TimeOutResponse{At: h.at(40*time.Second + 3*time.Minute)})
	if _, ok := h.s.Timer(id); ok {
		t.Fatal("a timed-out job still has a timer")
	}
	if _, ok := h.s.NextDeadline(); ok {
		t.Fatal("a deadline is pending with no job waiting")
	}
}

func TestDueReturnsTheDeadlinesDueByNowEarliestFirst(t *testing.T) {
	h := newHarness(t, Config{ReadinessTimeout: time.Minute})
	var ids []domain.JobID
	for _, at := range []time.Duration{30, 10, 20, 10, 40} {
		ids = append(ids, h.accept(domain.PublicDecrypt, at*time.Second))
	}
	h.do(ids[2], domain.PassReadiness{At: h.at(25 * time.Second)}) // no deadline any more
	due := h.s.Due(h.at(time.Minute+30*time.Second).At, 10)
	var got []domain.JobID
	for _, tm := range due {
		got = append(got, tm.JobID)
	}
	// ids[1] and ids[3] fall due together: in order of acceptance.
	if want := []domain.JobID{ids[1], ids[3], ids[0]}; !slices.Equal(got, want) {
		t.Fatalf("due %v, want %v", got, want)
	}
	if due := h.s.Due(h.at(time.Minute+30*time.Second).At, 2); len(due) != 2 || due[1].JobID != ids[3] {
		t.Fatalf("with a limit of 2: %+v", due)
	}
	if next, ok := h.s.NextDeadline(); !ok || next.JobID != ids[1] {
		t.Fatalf("next deadline %+v", next)
	}
	if due := h.s.Due(h.at(0).At, 10); len(due) != 0 {
		t.Fatalf("nothing is due at the start, got %+v", due)
	}
}

// TestTheTimerHeapMatchesABruteForceOrder moves and drops deadlines at random and checks the
// heap's order and Due against a sorted list.
func TestTheTimerHeapMatchesABruteForceOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	jobs := newJobTable()
	var h timerHeap
	const n = 500
	for range n {
		g := generator{rng: rng}
		jobs.add(g.jobID())
	}
	due := map[int32]int64{}
	for step := range 20_000 {
		i := int32(rng.IntN(n))
		if rng.IntN(3) == 0 {
			h.clear(&jobs, i)
			delete(due, i)
		} else {
			d := int64(rng.IntN(1000))
			h.set(&jobs, i, d)
			due[i] = d
		}
		if step%101 != 0 {
			continue
		}
		var want []timerItem
		for j, d := range due {
			want = append(want, timerItem{due: d, job: j})
		}
		slices.SortFunc(want, func(a, b timerItem) int {
			if a.before(b) {
				return -1
			}
			return 1
		})
		now := int64(rng.IntN(1000))
		var wantDue []timerItem
		for _, it := range want {
			if it.due <= now {
				wantDue = append(wantDue, it)
			}
		}
		if got := h.due(now, n, nil); !slices.Equal(got, wantDue) {
			t.Fatalf("step %d: due(%d) = %v, want %v", step, now, got, wantDue)
		}
		// Only the odd jobs' (an engine driving part of the jobs), still in order, up to a limit.
		odd := func(it timerItem) bool { return it.job%2 == 1 }
		wantOdd := slices.DeleteFunc(slices.Clone(wantDue), func(it timerItem) bool { return !odd(it) })
		wantOdd = wantOdd[:min(len(wantOdd), 3)]
		if got := h.due(now, 3, odd); !slices.Equal(got, wantOdd) {
			t.Fatalf("step %d: due(%d) of the odd jobs = %v, want %v", step, now, got, wantOdd)
		}
		for k, it := range h.items {
			if jobs.at(it.job).timer != int32(k) {
				t.Fatalf("step %d: job %d thinks it is at %d, it is at %d", step, it.job, jobs.at(it.job).timer, k)
			}
		}
	}
}

// outage applies an event of the chain stream.
func (h *harness) outage(e eventstore.Typed) {
	h.t.Helper()
	if err := h.applySystem(domain.ChainStream, e); err != nil {
		h.t.Fatal(err)
	}
}

// While the chain cannot be seen no deadline falls due, and after it every pending deadline
// moves later by the part of the outage its job waited through.
func TestDeadlinesStandStillThroughAChainOutage(t *testing.T) {
	h := newHarness(t, Config{ReadinessTimeout: time.Minute, TxInFlightTimeout: 2 * time.Minute, ResponseTimeout: 3 * time.Minute})
	before := h.accept(domain.PublicDecrypt, 0) // deadline 1m
	inFlight := h.accept(domain.InputProof, 0)
	h.sign(inFlight, 5*time.Second) // deadline 2m5s
	h.outage(domain.ChainOutageStarted{Since: h.at(10 * time.Second).At, At: h.at(12 * time.Second).At})
	during := h.accept(domain.UserDecrypt, 40*time.Second) // deadline 1m40s
	if since, ok := h.s.ChainOutage(); !ok || !since.Equal(h.at(10*time.Second).At) {
		t.Fatalf("the outage in progress: %s, %v", since, ok)
	}
	if due := h.s.Due(h.at(time.Hour).At, 10); len(due) != 0 {
		t.Fatalf("during an outage nothing is due, even an hour on; got %d", len(due))
	}
	if _, ok := h.s.NextDeadline(); ok {
		t.Fatal("during an outage there is no next deadline")
	}
	snap, err := h.s.Snapshot()
	if err != nil || !bytes.Contains(snap, []byte(`"chainOutageSince":"2026-03-01T12:00:10Z"`)) {
		t.Fatalf("the snapshot does not hold the outage in progress (%v):\n%.400s", err, snap)
	}
	h.outage(domain.ChainOutageEnded{Since: h.at(10 * time.Second).At, Until: h.at(70 * time.Second).At, At: h.at(71 * time.Second).At})
	after := h.accept(domain.PublicDecrypt, 80*time.Second) // deadline 2m20s, not moved

	for _, c := range []struct {
		name string
		id   domain.JobID
		want time.Duration
	}{
		{"accepted before, waited the whole outage", before, time.Minute + 60*time.Second},
		{"in flight before", inFlight, 2*time.Minute + 5*time.Second + 60*time.Second},
		{"accepted during, waited its last 30 s", during, time.Minute + 40*time.Second + 30*time.Second},
		{"accepted after", after, time.Minute + 80*time.Second},
	} {
		tm, ok := h.s.Timer(c.id)
		if !ok || !tm.Deadline.Equal(h.at(c.want).At) {
			t.Errorf("%s: deadline %s, want %s", c.name, tm.Deadline.Sub(h.base), c.want)
		}
	}
	due := h.s.Due(h.at(2*time.Minute+10*time.Second).At, 10)
	if len(due) != 2 || due[0].JobID != before || due[1].JobID != during {
		t.Fatalf("after the outage, due at 2m10s: %+v; want the job accepted before (2m), then the one accepted during (2m10s)", due)
	}
	if _, ok := h.s.ChainOutage(); ok {
		t.Fatal("the outage ended but the Set still has it")
	}
}

// A stage that waited on a chain outage is counted, but it is not a sample of the stage's usual
// pace: the recent window the adaptive hints trust leaves it out.
func TestAStageThatWaitedOnAnOutageStaysOutOfTheRecentWindow(t *testing.T) {
	h := newHarness(t, Config{})
	through := h.accept(domain.InputProof, 5*time.Second)
	h.outage(domain.ChainOutageStarted{Since: h.at(10 * time.Second).At, At: h.at(11 * time.Second).At})
	h.outage(domain.ChainOutageEnded{Since: h.at(10 * time.Second).At, Until: h.at(70 * time.Second).At, At: h.at(71 * time.Second).At})
	h.sign(through, 80*time.Second) // its TX queue stage spans the outage
	after := h.accept(domain.InputProof, 100*time.Second)
	h.sign(after, 101*time.Second)
	st := h.s.StageStats(domain.InputProof, StageTxQueue)
	if st.Count != 2 {
		t.Fatalf("both stages are counted; count %d", st.Count)
	}
	if st.Recent.Samples != 1 || st.Recent.Median != time.Second {
		t.Fatalf("the recent window holds %d samples, median %s; want the one after the outage (1s)", st.Recent.Samples, st.Recent.Median)
	}
}
