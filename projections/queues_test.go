package projections

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"relayer/domain"
)

func TestAJobsReadinessPositionIsTheNumberOfDecryptsAcceptedBeforeIt(t *testing.T) {
	h := newHarness(t, Config{})
	var ids []domain.JobID
	for i := range 5 {
		ids = append(ids, h.accept(domain.UserDecrypt, time.Duration(i)*time.Second))
	}
	h.accept(domain.InputProof, 6*time.Second) // input proofs skip readiness
	for i, id := range ids {
		if loc := h.location(id); loc != (Location{Queue: ReadinessQueue, Ahead: i, Length: 5}) {
			t.Fatalf("job %d: %+v", i, loc)
		}
	}
	// The third leaves from the middle (ACL denied): those behind it move up.
	h.do(ids[2], domain.FailReadiness{At: h.at(7 * time.Second), Label: domain.LabelNotAllowedOnHostACL})
	for i, want := range []int{0, 1, -1, 2, 3} {
		loc := h.location(ids[i])
		if want < 0 {
			if loc.Queue != NotQueued {
				t.Fatalf("a failed job is still in %s", loc.Queue)
			}
			continue
		}
		if loc != (Location{Queue: ReadinessQueue, Ahead: want, Length: 4}) {
			t.Fatalf("job %d: %+v, want %d ahead of 4", i, loc, want)
		}
	}
}

func TestAReadinessPickupMovesAJobToReadinessInProgress(t *testing.T) {
	h := newHarness(t, Config{})
	a := h.accept(domain.PublicDecrypt, 0)
	b := h.accept(domain.PublicDecrypt, time.Second)
	h.do(b, domain.StartReadiness{At: h.at(2 * time.Second)})
	if loc := h.location(b); loc != (Location{Queue: ReadinessInProgress, Ahead: 0, Length: 1}) {
		t.Fatalf("picked-up job: %+v", loc)
	}
	if loc := h.location(a); loc != (Location{Queue: ReadinessQueue, Ahead: 0, Length: 1}) {
		t.Fatalf("waiting job: %+v", loc)
	}
	// A second pickup (after a restart) leaves it where it is.
	h.do(b, domain.StartReadiness{At: h.at(3 * time.Second)})
	if loc := h.location(b); loc.Queue != ReadinessInProgress || h.s.QueueLengths() != (QueueLengths{Readiness: 1, ReadinessInProgress: 1}) {
		t.Fatalf("after a second pickup: %+v, lengths %+v", loc, h.s.QueueLengths())
	}
	// Passing readiness, with or without a recorded pickup, puts a job at the back of the TX queue.
	h.do(b, domain.PassReadiness{At: h.at(4 * time.Second)})
	h.do(a, domain.PassReadiness{At: h.at(5 * time.Second)})
	if la, lb := h.location(a), h.location(b); la != (Location{Queue: TxQueue, Ahead: 1, Length: 2}) || lb != (Location{Queue: TxQueue, Ahead: 0, Length: 2}) {
		t.Fatalf("TX queue: a %+v, b %+v", la, lb)
	}
}

func TestAResetSendsAJobToTheBackOfTheTxQueue(t *testing.T) {
	h := newHarness(t, Config{})
	a := h.accept(domain.InputProof, 0)
	b := h.accept(domain.InputProof, time.Second)
	c := h.accept(domain.InputProof, 2*time.Second)
	h.sign(a, 3*time.Second)
	if loc := h.location(a); loc.Queue != NotQueued {
		t.Fatalf("a signed job is in %s", loc.Queue)
	}
	if lb, lc := h.location(b), h.location(c); lb.Ahead != 0 || lc.Ahead != 1 || lb.Length != 2 {
		t.Fatalf("b %+v, c %+v", lb, lc)
	}
	h.do(a, domain.ResetTransaction{At: h.at(4 * time.Second), Reason: "not on chain"})
	for i, id := range []domain.JobID{b, c, a} {
		if loc := h.location(id); loc != (Location{Queue: TxQueue, Ahead: i, Length: 3}) {
			t.Fatalf("after the reset, job %d: %+v", i, loc)
		}
	}
}

func TestATerminalEventTakesAJobOutOfWhicheverQueueItIsIn(t *testing.T) {
	h := newHarness(t, Config{})
	queued := h.accept(domain.UserDecrypt, 0)
	checking := h.accept(domain.UserDecrypt, 0)
	h.do(checking, domain.StartReadiness{At: h.at(time.Second)})
	processing := h.accept(domain.InputProof, 0)
	for _, id := range []domain.JobID{queued, checking, processing} {
		h.do(id, domain.Fail{At: h.at(2 * time.Second), Label: domain.LabelInternalServerError})
		if loc := h.location(id); loc != (Location{}) {
			t.Fatalf("a failed job is at %+v", loc)
		}
	}
	if ql := h.s.QueueLengths(); ql != (QueueLengths{}) {
		t.Fatalf("queues not empty: %+v", ql)
	}
}

// TestFifoPositionsMatchABruteForceCount drives one fifo through random arrivals and departures,
// long enough to compact many times, and checks every position against a plain list.
func TestFifoPositionsMatchABruteForceCountAcrossCompactions(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q fifo
	slot := map[int32]int32{}
	var order []int32 // the jobs present, front to back
	renumber := func(job, s int32) { slot[job] = s }
	next := int32(0)
	compactions := 0
	for step := range 60_000 {
		if len(order) == 0 || rng.IntN(100) < 45 {
			slot[next] = q.push(next)
			order = append(order, next)
			next++
		} else {
			// Mostly from the front, sometimes from anywhere.
			i := 0
			if rng.IntN(4) == 0 {
				i = rng.IntN(len(order))
			}
			job := order[i]
			before := len(q.slots)
			q.remove(slot[job], renumber)
			if len(q.slots) < before {
				compactions++
			}
			delete(slot, job)
			order = slices.Delete(order, i, i+1)
		}
		if q.len() != len(order) {
			t.Fatalf("step %d: length %d, want %d", step, q.len(), len(order))
		}
		if step%97 == 0 {
			for i, job := range order {
				if got := q.ahead(slot[job]); got != i {
					t.Fatalf("step %d: job %d has %d ahead, want %d", step, job, got, i)
				}
			}
		}
	}
	if compactions == 0 {
		t.Fatal("the test never compacted the queue")
	}
	var seen []int32
	q.each(func(j int32) { seen = append(seen, j) })
	if !slices.Equal(seen, order) {
		t.Fatal("each does not list the jobs front to back")
	}
}
