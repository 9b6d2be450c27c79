package projections

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

// retire applies a JobsRetired naming ids, as the archiver records it.
func (h *harness) retire(ids ...domain.JobID) error {
	h.t.Helper()
	return h.applySystem(domain.RetentionStream, h.retired(h.pos, ids))
}

// retired is the JobsRetired the archiver records for ids at horizon upTo: each with its
// stream's last version.
func (h *harness) retired(upTo eventstore.Position, ids []domain.JobID) domain.JobsRetired {
	e := domain.JobsRetired{UpTo: uint64(upTo), Jobs: ids, At: h.base}
	for _, id := range ids {
		e.Versions = append(e.Versions, uint64(h.states[id].Events-1))
	}
	return e
}

// oneRetiredOneOpen is a Set holding an input proof still processing (open) after one that
// failed was retired (ended).
func oneRetiredOneOpen(t *testing.T) (h *harness, ended, open domain.JobID) {
	t.Helper()
	h = newHarness(t, Config{})
	ended = h.accept(domain.InputProof, 0)
	h.do(ended, domain.Fail{At: h.at(time.Second), Label: "internal_error"})
	open = h.accept(domain.InputProof, 2*time.Second)
	if err := h.retire(ended); err != nil {
		t.Fatal(err)
	}
	return h, ended, open
}

func TestARetiredJobLeavesTheReadModelsAndItsIdIsRemembered(t *testing.T) {
	h, ended, open := oneRetiredOneOpen(t)
	if _, held := h.s.Job(ended); held || !h.s.Retired(ended) {
		t.Fatalf("retired job: held %v, retired %v", held, h.s.Retired(ended))
	}
	if h.s.Jobs() != 1 || h.s.Counts().Of(domain.InputProof, domain.Failure) != 0 || h.s.Counts().Of(domain.InputProof, domain.Processing) != 1 {
		t.Fatalf("after the retirement: %d jobs, counts %v", h.s.Jobs(), h.s.Counts())
	}
	if p := h.s.Search(Query{}); len(p.Jobs) != 1 || p.Jobs[0].Job.ID != open {
		t.Fatalf("search finds %+v, want only the open job", p.Jobs)
	}
	// An annotation the ended job took while it was retired is passed over.
	h.do(ended, domain.LinkRetry{At: h.at(3 * time.Second), Who: "admin", Reason: "test", NewJob: domain.NewJobID()})
	if _, held := h.s.Job(ended); held {
		t.Fatal("an event of a retired job brought it back")
	}
}

func TestAJobThatCanStillChangeIsNeverRetired(t *testing.T) {
	h := newHarness(t, Config{})
	open := h.accept(domain.PublicDecrypt, 0)
	before := snapshot(t, h.s)
	err := h.retire(open)
	if !errors.Is(err, ErrInconsistent) {
		t.Fatalf("retiring a queued job: %v, want ErrInconsistent", err)
	}
	if _, held := h.s.Job(open); !held || h.s.Retired(open) {
		t.Fatal("the refused retirement changed the read models")
	}
	sameSnapshots(t, "after a refused retirement", before, snapshot(t, h.s))
}

// A JobsRetired recorded before it named versions still refuses a job held open: without the
// version, an open job cannot be told from one whose stream was removed under the read.
func TestAJobsRetiredWithoutVersionsRefusesAnOpenJob(t *testing.T) {
	h := newHarness(t, Config{})
	open := h.accept(domain.InputProof, 0)
	before := snapshot(t, h.s)
	err := h.applySystem(domain.RetentionStream, domain.JobsRetired{UpTo: uint64(h.pos), Jobs: []domain.JobID{open}, At: h.base})
	if !errors.Is(err, ErrInconsistent) {
		t.Fatalf("retiring a processing job with no version named: %v, want ErrInconsistent", err)
	}
	sameSnapshots(t, "after a refused retirement", before, snapshot(t, h.s))
	err = h.applySystem(domain.RetentionStream, domain.JobsRetired{UpTo: uint64(h.pos), Jobs: []domain.JobID{open}, Versions: []uint64{3, 4}, At: h.base})
	if !errors.Is(err, ErrInconsistent) {
		t.Fatalf("a JobsRetired naming one job and two versions: %v, want ErrInconsistent", err)
	}
}

// Read models that catch up while another instance's archiver removes retired jobs can read the
// first events of a job's stream and find the rest gone: they hold the job open (queued,
// processing, in flight, awaiting its responses) when its JobsRetired comes, and drop it then.
// Until then the job held open made other jobs that left its queue count as leaving a backlog,
// which the read models that followed the whole log did not: the history the archiver carries
// after the retirement (archiver.carry) puts that right, and from there the two agree in every
// read model. The log is in the archiver's order: a segment's HistoryCarried, more jobs, the
// JobsRetired, more jobs, the HistoryCarried after the retirement.
func TestAJobWhoseStreamWasRemovedUnderTheReadIsDroppedAtItsRetirement(t *testing.T) {
	h := newHarness(t, Config{})
	kinds := []domain.Kind{domain.InputProof, domain.PublicDecrypt}
	at := time.Duration(0)
	for i := range 12 {
		at = h.respond(kinds[i%2], at, time.Second) + time.Second
	}
	var ended []domain.JobID
	for _, rec := range h.log {
		if rec.Type == "RequestCompleted" {
			id, _ := domain.JobIDFromStream(rec.Stream)
			ended = append(ended, id)
		}
	}
	carry := func() {
		t.Helper()
		asOf, history, err := h.s.History()
		if err != nil {
			t.Fatal(err)
		}
		if err := h.applySystem(domain.RetentionStream, domain.HistoryCarried{AsOf: uint64(asOf), History: history, At: h.base}); err != nil {
			t.Fatal(err)
		}
	}
	horizon := h.pos
	carry() // with the segment that reaches the horizon
	open := h.accept(domain.PublicDecrypt, at)
	h.toTx(open, at+time.Second)
	for i := range 4 {
		h.respond(kinds[i%2], at+time.Duration(2+i)*time.Second, time.Second)
	}
	if err := h.applySystem(domain.RetentionStream, h.retired(horizon, ended)); err != nil {
		t.Fatal(err)
	}
	h.respond(domain.InputProof, at+10*time.Second, time.Second)
	beforeCarry := len(h.log)
	carry() // after the retirement
	h.respond(domain.PublicDecrypt, at+12*time.Second, time.Second)
	running := snapshot(t, h.s)

	// Each retired job's stream cut after its first k events, k from 1 to 5: the job is held
	// queued or processing, in flight, or awaiting its responses.
	gone := map[domain.JobID]eventstore.Version{}
	for i, id := range ended {
		gone[id] = eventstore.Version(1 + i%5)
	}
	var read []eventstore.Record
	for _, rec := range h.log {
		id, isJob := domain.JobIDFromStream(rec.Stream)
		if cut, ok := gone[id]; isJob && ok && rec.Version >= cut {
			continue
		}
		read = append(read, rec)
	}
	caught := foldRecords(t, read, nil)
	sameSnapshots(t, "read models that caught up under the removal", running, snapshot(t, caught))
	for _, id := range ended {
		if _, held := caught.Job(id); held || !caught.Retired(id) {
			t.Fatalf("job %s: held %v, retired %v", id, held, caught.Retired(id))
		}
	}
	if job, awaiting, _ := caught.GatewayRequest(domain.PublicDecrypt, "42"); awaiting {
		t.Fatalf("gateway request 42 still awaited by %s", job)
	}
	if q := caught.QueueLengths(); q != h.s.QueueLengths() {
		t.Fatalf("queues %+v, want %+v", q, h.s.QueueLengths())
	}

	// Without the history carried after the retirement, the jobs held open would still show in
	// the drain rates: the test measures something.
	last := len(read) - (len(h.log) - beforeCarry) // the records from the last carry on are all read
	if read[last].Type != "HistoryCarried" {
		t.Fatalf("record %d of the read is %s, want the history carried after the retirement", last, read[last].Type)
	}
	uncarried := slices.Delete(slices.Clone(read), last, last+1)
	if bytes.Equal(snapshot(t, foldRecords(t, uncarried, nil)), running) {
		t.Fatal("the read models that caught up agree with the running ones even without the history carried after the retirement")
	}
}

func TestRetirableListsEndedJobsPastTheirWindowBelowTheHorizon(t *testing.T) {
	h := newHarness(t, Config{})
	proof := h.accept(domain.InputProof, 0)
	h.do(proof, domain.Fail{At: h.at(time.Second), Label: "internal_error"})
	public := h.accept(domain.PublicDecrypt, 0)
	h.do(public, domain.Fail{At: h.at(time.Second), Label: "internal_error"})
	h.accept(domain.InputProof, 0) // still processing
	windows := func(k domain.Kind) time.Duration {
		if k == domain.PublicDecrypt {
			return 10 * time.Hour
		}
		return time.Hour
	}
	got := h.s.Retirable(windows, h.base.Add(2*time.Hour), h.pos, 10)
	if len(got) != 1 || got[0].ID != proof || got[0].Status != domain.Failure {
		t.Fatalf("retirable %+v, want the failed input proof only", got)
	}
	if got := h.s.Retirable(windows, h.base.Add(2*time.Hour), got[0].Position-1, 10); len(got) != 0 {
		t.Fatalf("retirable below its last event: %+v", got)
	}
}

// heldChunks is how many chunks of jobs the table holds in memory.
func (t *jobTable) heldChunks() int {
	n := 0
	for _, c := range t.chunks {
		if c != nil {
			n++
		}
	}
	return n
}

func TestRetiredJobsFreeTheirPlaceInTheJobTable(t *testing.T) {
	h := newHarness(t, Config{})
	const n = 3*chunkSize + 100
	ids := make([]domain.JobID, n)
	for i := range ids {
		ids[i] = h.accept(domain.InputProof, time.Duration(i)*time.Millisecond)
		if i < n-1 {
			h.do(ids[i], domain.Fail{At: h.at(time.Duration(i)*time.Millisecond + time.Second), Label: "internal_error"})
		}
	}
	if got := h.s.jobs.heldChunks(); got != 4 {
		t.Fatalf("%d jobs in %d chunks, want 4", n, got)
	}
	// Retired in batches, as the archiver names them: the chunks whose every job left are
	// released, and the id index is rebuilt at its live size.
	for start := 0; start < n-1; start += 2000 {
		if err := h.retire(ids[start:min(start+2000, n-1)]...); err != nil {
			t.Fatal(err)
		}
	}
	if got := h.s.jobs.heldChunks(); got != 1 {
		t.Fatalf("after retiring %d of %d jobs the table holds %d chunks, want 1 (the last job's)", n-1, n, got)
	}
	if h.s.Jobs() != 1 || h.s.jobs.index.len() != 1 || len(h.s.jobs.index.slots) != minIndexSlots {
		t.Fatalf("after the retirements: %d jobs held, index of %d entries in %d slots", h.s.Jobs(), h.s.jobs.index.len(), len(h.s.jobs.index.slots))
	}
	// The open job, the walks over the table and a new job still work over the released chunks.
	last := ids[n-1]
	if j, ok := h.s.Job(last); !ok || j.Status != domain.Processing {
		t.Fatalf("the open job: %+v, held %v", j, ok)
	}
	if p := h.s.Search(Query{Limit: 10}); len(p.Jobs) != 1 || p.Jobs[0].Job.ID != last {
		t.Fatalf("search finds %d jobs, want the open one", len(p.Jobs))
	}
	if got := h.s.Retirable(func(domain.Kind) time.Duration { return time.Nanosecond }, h.base.Add(time.Hour), h.pos, 10); len(got) != 0 {
		t.Fatalf("retirable after retiring every ended job: %+v", got)
	}
	if got := h.s.InStatus(domain.Failure); len(got) != 0 {
		t.Fatalf("%d failed jobs held after their retirement", len(got))
	}
	fresh := h.accept(domain.PublicDecrypt, time.Hour)
	if j, ok := h.s.Job(fresh); !ok || j.Status != domain.Queued {
		t.Fatalf("a job accepted after the retirements: %+v, held %v", j, ok)
	}
	if _, err := h.s.Snapshot(); err != nil {
		t.Fatal(err)
	}
}

func TestTheRetiredSetRecognisesEveryRetiredIdAndNoOther(t *testing.T) {
	g := generator{rng: rand.New(rand.NewPCG(11, 11))}
	var r retiredIDs
	retired := make([]domain.JobID, 50_000)
	for i := range retired {
		if i%3 == 0 {
			retired[i] = domain.JobIDFor(g.hex(32)[2:], uint32(i%5)) // name-based, as the Submitter makes them
		} else {
			retired[i] = g.jobID()
		}
	}
	for start := 0; start < len(retired); start += 1500 {
		r.add(retired[start:min(start+1500, len(retired))])
	}
	r.add(retired[:10]) // named again: remembered once
	if r.len() != len(retired) {
		t.Fatalf("remembers %d ids, want %d", r.len(), len(retired))
	}
	for _, id := range retired {
		if !r.contains(id) {
			t.Fatalf("retired id %s not recognised", id)
		}
	}
	for range 50_000 {
		if id := g.jobID(); r.contains(id) {
			t.Fatalf("never-seen id %s recognised as retired", id)
		}
	}
	// The runs are sorted, share no key, and shrink geometrically.
	var all []uint64
	for i, run := range r.runs {
		if !slices.IsSorted(run) || i > 0 && len(r.runs[i-1]) <= 2*len(run) {
			t.Fatalf("run %d of %d (%d keys) breaks the invariant: %v", i, len(r.runs), len(run), runLens(r.runs))
		}
		all = append(all, run...)
	}
	slices.Sort(all)
	if len(slices.Compact(all)) != len(retired) {
		t.Fatalf("runs hold %d distinct keys, want %d", len(all), len(retired))
	}
}

func runLens(runs [][]uint64) []int {
	n := make([]int, len(runs))
	for i, r := range runs {
		n[i] = len(r)
	}
	return n
}

func TestAnEventOfARetiredIdThatTheSetHoldsIsApplied(t *testing.T) {
	// An acceptance is applied whatever the retired set says, and the events of a job the Set
	// holds too: a rare false match of a retired key never passes over a live job.
	h, _, open := oneRetiredOneOpen(t)
	h.s.mu.Lock()
	h.s.retired.add([]domain.JobID{open}) // as a false match would
	h.s.mu.Unlock()
	h.do(open, domain.Fail{At: h.at(3 * time.Second), Label: "internal_error"})
	if j, ok := h.s.Job(open); !ok || j.Status != domain.Failure {
		t.Fatalf("the held job's event was passed over: %+v, held %v", j, ok)
	}
}

func TestTheIdIndexFindsEveryHeldJobAndNoRetiredOne(t *testing.T) {
	g := generator{rng: rand.New(rand.NewPCG(3, 3))}
	tb := newJobTable()
	var ids []domain.JobID
	held := map[int32]bool{}
	for round := range 6 {
		for range 5000 {
			id := g.jobID()
			i, _ := tb.add(id)
			ids = append(ids, id)
			held[i] = true
		}
		// Retire most of what is held, out of order, so that probe runs lose members in their
		// middle and the table shrinks.
		for i := range held {
			if g.rng.IntN(10) < 8 || round == 5 {
				tb.retire(i)
				delete(held, i)
			}
		}
		for i, id := range ids {
			got, _, ok := tb.lookup(id)
			if ok != held[int32(i)] || ok && got != int32(i) {
				t.Fatalf("round %d: job %d (%s) found %v at %d, held %v", round, i, id, ok, got, held[int32(i)])
			}
		}
		if tb.index.len() != len(held) {
			t.Fatalf("round %d: index holds %d, want %d", round, tb.index.len(), len(held))
		}
	}
	if len(tb.index.slots) != minIndexSlots {
		t.Fatalf("index of %d slots with no job held, want %d", len(tb.index.slots), minIndexSlots)
	}
}

// A content's failures that cost a transaction are counted over the jobs the Set holds: a job
// retired leaves the count, as a rebuild from the live log would not see it; a failure before
// any transaction never enters it.
func TestACostlyFailureIsCountedUntilItsJobIsRetired(t *testing.T) {
	h := newHarness(t, Config{})
	hash := fmt.Sprintf("%064x", 0xc0571)
	var costly []domain.JobID
	for n := range 2 {
		id := h.accept(domain.InputProof, time.Duration(n)*time.Minute, hash)
		h.sign(id, time.Duration(n)*time.Minute+time.Second)
		h.do(id, domain.Fail{At: h.at(time.Duration(n)*time.Minute + 2*time.Second), Label: "transaction_reverted"})
		costly = append(costly, id)
	}
	early := h.accept(domain.InputProof, 3*time.Minute, hash)
	h.do(early, domain.Fail{At: h.at(3*time.Minute + time.Second), Label: "internal_error"})
	if n, last := h.s.CostlyFailures(hash); n != 2 || !last.Equal(h.base.Add(time.Minute+2*time.Second)) {
		t.Fatalf("CostlyFailures = %d, %s; want 2, the second's end", n, last)
	}
	if err := h.retire(costly[0], early); err != nil {
		t.Fatal(err)
	}
	if n, _ := h.s.CostlyFailures(hash); n != 1 {
		t.Fatalf("after one costly job is retired: %d, want 1", n)
	}
	if err := h.retire(costly[1]); err != nil {
		t.Fatal(err)
	}
	if n, last := h.s.CostlyFailures(hash); n != 0 || !last.IsZero() {
		t.Fatalf("after both are retired: %d, %s; want none", n, last)
	}
}
