package projections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"sort"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

// seedFor returns the seed of a randomised test: PROJECTIONS_SEED when set (to replay a
// failure), else a fresh one, logged either way.
func seedFor(t *testing.T) uint64 {
	t.Helper()
	seed := rand.Uint64()
	if s := os.Getenv("PROJECTIONS_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("PROJECTIONS_SEED: %v", err)
		}
		seed = v
	}
	t.Logf("seed %d (replay with PROJECTIONS_SEED=%d)", seed, seed)
	return seed
}

func TestALiveSetAndARebuildFromZeroWriteTheSameSnapshot(t *testing.T) {
	jobs := 3000
	if testing.Short() {
		jobs = 500
	}
	seed := seedFor(t)
	appends := generate(seed, genOptions{jobs: jobs, active: 600, unfinished: 0.3, sameHash: 0.05})
	store := openStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	live, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	runErr := make(chan error, 1)
	go func() { runErr <- live.Run(runCtx, store) }()

	// While the history is appended, do what the API does after a POST: wait for the append's
	// position, then the job must be there, at least as new as the append.
	var checks atomic.Int64
	check := func(a genAppend, pos eventstore.Position) error {
		if a.expected != eventstore.NoStream && rand.IntN(8) != 0 {
			return nil
		}
		checks.Add(1)
		wctx, c := context.WithTimeout(ctx, 20*time.Second)
		defer c()
		if err := live.WaitFor(wctx, pos); err != nil {
			return fmt.Errorf("wait for position %d: %w", pos, err)
		}
		j, ok := live.Job(a.job)
		want := a.expected + eventstore.Version(len(a.events))
		if !ok || j.Version < want {
			return fmt.Errorf("after waiting for position %d, job %s is at version %d (found %v), want %d or later", pos, a.job, j.Version, ok, want)
		}
		return nil
	}
	if err := appendConcurrently(ctx, store, appends, 16, check); err != nil {
		t.Fatal(err)
	}
	head := waitForHead(t, ctx, store, live)
	liveSnap := snapshot(t, live)

	rebuilt, rep, err := Rebuild(ctx, store, Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d appends (%d waited on), rebuild: %d events, %d jobs, %.0f events/s", len(appends), checks.Load(), rep.Events, rep.Jobs, rep.EventsPerSecond)
	if rep.Jobs != jobs || rep.Position != head {
		t.Fatalf("rebuild report %+v, want %d jobs up to position %d", rep, jobs, head)
	}
	sameSnapshots(t, "live vs rebuilt", liveSnap, snapshot(t, rebuilt))

	full, _, err := Rebuild(ctx, store, Config{FullDecode: true})
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshots(t, "projections' decoder vs the codec", liveSnap, snapshot(t, full))

	stop()
	if err := <-runErr; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v, want context.Canceled", err)
	}
	checkAgainstHistory(t, rebuilt, readAll(t, store))
}

// checkAgainstHistory recomputes, by brute force from the records in their stored order, what
// every read model must say, and compares: each job's view with domain.Fold of its events, its
// queue and position with a count of the jobs that entered the same queue before it, counts,
// and deadlines.
func checkAgainstHistory(t *testing.T, s *Set, recs []eventstore.Record) {
	t.Helper()
	codec := NewCodec()
	cfg := s.Config()
	type expect struct {
		state      domain.State
		queue      Queue
		enteredPos eventstore.Position // when it entered its queue
		acceptedAt time.Time
		lastPos    eventstore.Position
	}
	jobs := map[domain.JobID]*expect{}
	var order []domain.JobID
	var transitions Counts
	for _, rec := range recs {
		e, err := DecodeEvent(codec, rec)
		if err != nil {
			t.Fatal(err)
		}
		id := e.Header().JobID
		x := jobs[id]
		if x == nil {
			x = &expect{}
			jobs[id] = x
			order = append(order, id)
		}
		before := x.state.Status
		x.state = domain.Evolve(x.state, e)
		if x.state.Status != before {
			transitions[x.state.Kind.Ordinal()][x.state.Status.Ordinal()]++
		}
		x.lastPos = rec.Position
		enter := func(q Queue) { x.queue, x.enteredPos = q, rec.Position }
		switch e := e.(type) {
		case domain.RequestAccepted:
			x.acceptedAt = e.At
			if e.Status == domain.Queued {
				enter(ReadinessQueue)
			} else {
				enter(TxQueue)
			}
		case domain.ReadinessCheckStarted:
			if x.queue == ReadinessQueue {
				enter(ReadinessInProgress)
			}
		case domain.ReadinessPassed, domain.TransactionReset:
			enter(TxQueue)
		case domain.TransactionSigned:
			enter(NotQueued)
		}
		if x.state.Status.Terminal() {
			enter(NotQueued)
		}
	}

	var counts Counts
	members := map[Queue][]eventstore.Position{}
	for _, x := range jobs {
		counts[x.state.Kind.Ordinal()][x.state.Status.Ordinal()]++
		if x.queue != NotQueued {
			members[x.queue] = append(members[x.queue], x.enteredPos)
		}
	}
	for _, m := range members {
		sort.Slice(m, func(i, j int) bool { return m[i] < m[j] })
	}
	if got := s.Counts(); got != counts {
		t.Errorf("counts %v, want %v", got, counts)
	}
	if got := s.Transitions(); got != transitions {
		t.Errorf("transitions %v, want %v", got, transitions)
	}
	ql := s.QueueLengths()
	if ql.Readiness != len(members[ReadinessQueue]) || ql.ReadinessInProgress != len(members[ReadinessInProgress]) || ql.Tx != len(members[TxQueue]) {
		t.Errorf("queue lengths %+v, want %d, %d, %d", ql, len(members[ReadinessQueue]), len(members[ReadinessInProgress]), len(members[TxQueue]))
	}

	withDeadline := 0
	for _, id := range order {
		x := jobs[id]
		st := x.state
		j, ok := s.Job(id)
		if !ok {
			t.Fatalf("job %s missing", id)
		}
		var label, message string
		if st.Status.Terminal() {
			label, message = st.Label, st.Message
		}
		if j.Kind != st.Kind || j.Status != st.Status || j.ContentHash != st.ContentHash || j.TxHash != st.TxHash ||
			j.GatewayRequestID != st.GatewayRequestID || j.Label != label || j.Message != message ||
			j.Shares != len(st.Shares) || j.Version != eventstore.Version(st.Events-1) || j.Position != x.lastPos ||
			!j.Since().Equal(st.EnteredAt) {
			t.Fatalf("job %s: projection %+v\ndisagrees with the folded state %+v", id, j, st)
		}
		if st.Result != nil {
			var r domain.Result
			if err := json.Unmarshal(j.Result, &r); err != nil || !reflect.DeepEqual(r, *st.Result) {
				t.Fatalf("job %s: result %s (%v), want %+v", id, j.Result, err, *st.Result)
			}
		} else if j.Result != nil {
			t.Fatalf("job %s: result %s, want none", id, j.Result)
		}

		loc, _ := s.Locate(id)
		want := Location{Queue: x.queue}
		if x.queue != NotQueued {
			m := members[x.queue]
			want.Ahead = sort.Search(len(m), func(i int) bool { return m[i] >= x.enteredPos })
			want.Length = len(m)
		}
		if loc != want {
			t.Fatalf("job %s (%s, %s): location %+v, want %+v", id, st.Kind, st.Status, loc, want)
		}

		tm, ok := s.Timer(id)
		if ok != !st.Status.Terminal() {
			t.Fatalf("job %s in %s: timer found %v", id, st.Status, ok)
		}
		if ok {
			var due time.Time
			switch st.Status {
			case domain.Queued:
				due = x.acceptedAt.Add(cfg.ReadinessTimeout)
			case domain.Processing:
				due = st.EnteredAt.Add(cfg.ProcessingTimeout)
			case domain.TxInFlight:
				due = st.EnteredAt.Add(cfg.TxInFlightTimeout)
			case domain.ReceiptReceived:
				due = st.EnteredAt.Add(cfg.ResponseTimeout)
			}
			if !tm.Deadline.Equal(due) || !tm.EnteredAt.Equal(st.EnteredAt) || tm.Status != st.Status {
				t.Fatalf("job %s in %s: timer %+v, want deadline %s, entered %s", id, st.Status, tm, due, st.EnteredAt)
			}
			if !due.IsZero() {
				withDeadline++
			}
		}
	}
	due := s.Due(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), len(jobs)+1)
	if len(due) != withDeadline {
		t.Fatalf("%d timers due by the year 3000, want %d", len(due), withDeadline)
	}
	for i := 1; i < len(due); i++ {
		if due[i].Deadline.Before(due[i-1].Deadline) {
			t.Fatalf("Due out of order at %d: %s after %s", i, due[i].Deadline, due[i-1].Deadline)
		}
	}
}
