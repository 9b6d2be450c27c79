package workers

import (
	"context"
	"flag"
	"fmt"
	"iter"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers/devchain"
	"relayer/workers/gateway/contracts"
)

// The end-to-end benchmark's load: jobs offered per second (open loop: job i is offered at
// i/rate seconds whatever became of the others), D per kind and C.
var (
	e2eRate = flag.Float64("e2e.rate", 200, "BenchmarkEndToEndD500: jobs offered per second")
	// The development chain's simulated KMS nodes (and their threshold) and coprocessors; 0 takes
	// the development chain's default (4, 3 and 3). Each KMS node sends one transaction per
	// decrypt and each coprocessor one per input proof, in this process.
	e2eKMS          = flag.Int("e2e.kms", 0, "BenchmarkEndToEndD500: simulated KMS nodes (0: the devchain default, 4)")
	e2eThreshold    = flag.Int("e2e.threshold", 0, "BenchmarkEndToEndD500: KMS threshold (0: the devchain default, 3)")
	e2eCoprocessors = flag.Int("e2e.coprocessors", 0, "BenchmarkEndToEndD500: simulated coprocessors (0: the devchain default, 3)")
)

const (
	e2eD         = 500
	e2eC         = 200
	e2eAcceptors = 16 // acceptances in flight at once, so that one slow commit does not slow the offer
	e2eDrainMax  = 2 * time.Minute
)

// BenchmarkEndToEndD500 runs the whole relayer but the HTTP API (the development chain, a
// durable SQLite log, the projections and the engine, D=500 per kind, C=200) and offers it
// input proofs, user decrypts and public decrypts in turn, all succeeding, at -e2e.rate jobs a
// second (200 by default), one job per benchmark iteration (-benchtime 1000x: 1000 jobs, 5s at
// 200/s), and waits for every job to end. It fails unless every job completes, and reports:
//
//   - jobs/s: completed jobs over the wall time from the first acceptance to the last completion
//     (offered-jobs/s is the rate the offer actually kept);
//   - the engine's own overhead per transition (Engine's measurement: from the event or chain log
//     that enables a step to the append that records it, less chain calls and deliberate waits),
//     mean and p99 over every measured transition, the number measured, and each step's mean;
//   - each job's latency, from the call that accepts it to the commit of its terminal event,
//     p50 and p99;
//   - the process's CPU time per job (the in-process development chain included).
//
// Its log adds each step's p50 and p99, the longest queues seen, and the time between
// consecutive events of a job read from the log (chain time included). -e2e.kms,
// -e2e.threshold and -e2e.coprocessors make the chain lighter. ns/op is not reported: with an
// open-loop offer it is only the offer's period.
func BenchmarkEndToEndD500(b *testing.B) {
	rate := *e2eRate
	if !(rate > 0) {
		b.Fatalf("-e2e.rate %v: want a positive rate", rate)
	}
	env := startE2E(b, devchain.Config{
		KMSNodes: *e2eKMS, Threshold: *e2eThreshold, Coprocessors: *e2eCoprocessors,
		ResponseDelayMin: 5 * time.Millisecond, ResponseDelayMax: 20 * time.Millisecond,
	})
	kinds := domain.Kinds()

	type offered struct {
		i   int
		req domain.Request
	}
	jobs := make(chan offered, 1<<16)
	var (
		mu      sync.Mutex
		ids     []domain.JobID
		started []time.Time // when each acceptance was called, by job
		errs    []error
	)
	var wg sync.WaitGroup
	for range e2eAcceptors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				t := time.Now()
				id, err := env.accept(j.req)
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("accept job %d: %w", j.i, err))
				} else {
					ids = append(ids, id)
					started = append(started, t)
				}
				mu.Unlock()
			}
		}()
	}

	period := time.Duration(float64(time.Second) / rate)
	stopSampling := env.sampleQueues()
	env.store.calls() // those of the start
	cpu0 := e2eProcessCPU()
	var first time.Time
	n := 0
	for b.Loop() {
		if n == 0 {
			first = time.Now()
		}
		if wait := time.Until(first.Add(time.Duration(n) * period)); wait > 0 {
			time.Sleep(wait)
		}
		jobs <- offered{n, e2eRequest(kinds[n%len(kinds)], n)}
		n++
	}
	close(jobs)
	wg.Wait()
	offerSpan := time.Since(first)
	for _, err := range errs {
		b.Error(err)
	}
	if b.Failed() {
		b.FailNow()
	}

	env.waitAllCompleted(b, ids, e2eDrainMax)
	cpu := e2eProcessCPU() - cpu0
	queues := stopSampling()
	appends, reads := env.store.calls()
	// The projections are behind the log by a moment: everything below is read from the log.
	latencies, last, stages := env.histories(b, ids, started)
	firstAccept := slices.MinFunc(started, func(x, y time.Time) int { return x.Compare(y) })
	wall := last.Sub(firstAccept)

	steps := env.eng.Overhead()
	all := env.overheadSamples()
	var total time.Duration
	for _, d := range all {
		total += d
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(len(ids))/wall.Seconds(), "jobs/s")
	b.ReportMetric(float64(n)/offerSpan.Seconds(), "offered-jobs/s")
	b.ReportMetric(float64(len(all)), "transitions")
	if len(all) > 0 {
		b.ReportMetric(e2eMs(total/time.Duration(len(all))), "overhead-mean-ms")
		b.ReportMetric(e2eMs(e2ePercentile(all, 99)), "overhead-p99-ms")
	}
	for _, step := range Steps() {
		if s, ok := steps[step]; ok {
			b.ReportMetric(e2eMs(s.Mean), step+"-mean-ms")
		}
	}
	b.ReportMetric(e2eMs(e2ePercentile(latencies, 50)), "latency-p50-ms")
	b.ReportMetric(e2eMs(e2ePercentile(latencies, 99)), "latency-p99-ms")
	b.ReportMetric(e2eMs(cpu/time.Duration(len(ids))), "cpu-ms/job")

	var lines []string
	for _, step := range Steps() {
		st := steps[step]
		lines = append(lines, fmt.Sprintf("%s %d: mean %.3f, p50 %.3f, p99 %.3f", step, st.Count, e2eMs(st.Mean), e2eMs(st.P50), e2eMs(st.P99)))
	}
	// Benchmark logs keep 10 lines: one line per topic.
	b.Logf("%d jobs offered at %.1f/s over %v; all completed %v after the first acceptance; process CPU %.2f ms per job (%.0f%% of %d CPUs over the run)",
		n, float64(n)/offerSpan.Seconds(), offerSpan.Round(time.Millisecond), wall.Round(time.Millisecond),
		e2eMs(cpu/time.Duration(len(ids))), 100*cpu.Seconds()/wall.Seconds()/float64(runtime.NumCPU()), runtime.NumCPU())
	b.Logf("engine overhead (ms): %s", strings.Join(lines, "; "))
	b.Logf("queues, most seen (sampled every 10ms): %s", queues)
	b.Logf("the engine's store calls (ms): %.1f durable appends per job, p50 %.3f, p99 %.3f; %.1f stream reads per job, p50 %.3f, p99 %.3f",
		float64(len(appends))/float64(len(ids)), e2eMs(e2ePercentile(appends, 50)), e2eMs(e2ePercentile(appends, 99)),
		float64(len(reads))/float64(len(ids)), e2eMs(e2ePercentile(reads, 50)), e2eMs(e2ePercentile(reads, 99)))
	// A backlog shows as a latency that grows over the run: compare the first and last tenth.
	byStart := make([]int, len(ids))
	for i := range byStart {
		byStart[i] = i
	}
	slices.SortFunc(byStart, func(x, y int) int { return started[x].Compare(started[y]) })
	tenth := func(from int) []time.Duration {
		var ds []time.Duration
		for _, i := range byStart[from : from+max(len(byStart)/10, 1)] {
			ds = append(ds, latencies[i])
		}
		return ds
	}
	firstTenth, lastTenth := tenth(0), tenth(len(byStart)-max(len(byStart)/10, 1))
	b.Logf("latency (ms): p50 %.1f, p99 %.1f, max %.1f; p50 of the first tenth of jobs %.1f, of the last tenth %.1f",
		e2eMs(e2ePercentile(latencies, 50)), e2eMs(e2ePercentile(latencies, 99)), e2eMs(e2ePercentile(latencies, 100)),
		e2eMs(e2ePercentile(firstTenth, 50)), e2eMs(e2ePercentile(lastTenth, 50)))
	lines = lines[:0]
	for _, st := range stages {
		lines = append(lines, fmt.Sprintf("%s %d: mean %.1f, p50 %.1f, p99 %.1f", st.name, len(st.d), e2eMs(st.mean()), e2eMs(e2ePercentile(st.d, 50)), e2eMs(e2ePercentile(st.d, 99))))
	}
	b.Logf("from the log, each event after the previous one of its job, chain time included (ms): %s", strings.Join(lines, "; "))
}

// sampleQueues watches, until the returned stop is called, how far the dispatcher is behind
// the log and how many jobs wait in the engine's queues; stop reports the most seen.
func (env *e2eEnv) sampleQueues() (stop func() string) {
	var (
		lag, inProgress, waiting, kept int
		tx                             [domain.NumKinds]int
	)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if head, err := env.store.Head(context.Background()); err == nil {
				lag = max(lag, int(head)-int(env.eng.Dispatcher().Position()))
			}
			inProgress = max(inProgress, env.eng.readiness.inProgress())
			waiting = max(waiting, env.eng.readiness.waiting())
			kept = max(kept, env.eng.responses.buffered())
			for _, k := range domain.Kinds() {
				tx[k.Ordinal()] = max(tx[k.Ordinal()], env.eng.tx.queue(k).waiting())
			}
		}
	}()
	return func() string {
		close(done)
		<-finished
		var txs []string
		for _, k := range domain.Kinds() {
			txs = append(txs, fmt.Sprintf("%s %d", k, tx[k.Ordinal()]))
		}
		return fmt.Sprintf("dispatcher behind the log by %d events; readiness checks %d in progress, %d not picked yet; waiting for a tx start: %s; responses kept before their receipt %d",
			lag, inProgress, waiting, strings.Join(txs, ", "), kept)
	}
}

// e2eProcessCPU is the CPU time this process has used (user and system).
func e2eProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// e2eStage is the time between two consecutive events of a job, over every job.
type e2eStage struct {
	name string
	d    []time.Duration
}

func (s e2eStage) mean() time.Duration {
	var sum time.Duration
	for _, d := range s.d {
		sum += d
	}
	return sum / time.Duration(max(len(s.d), 1))
}

func e2eMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// e2ePercentile is the p-th percentile of ds (nearest rank below); ds is left as it is.
func e2ePercentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// e2eEnv is startEngine's relayer with the engine's store calls timed.
type e2eEnv struct {
	store *e2eTimedStore
	set   *projections.Set
	sub   *projections.Submitter
	eng   *Engine
}

func startE2E(tb testing.TB, chainCfg devchain.Config) *e2eEnv {
	tb.Helper()
	tuning := retryafter.DefaultConfig()
	tuning.ReadinessMaxConcurrency = e2eC
	tuning.InputProofTPS, tuning.UserDecryptTPS, tuning.PublicDecryptTPS = e2eD, e2eD, e2eD
	var timed *e2eTimedStore
	env := startEngine(tb, engineOpts{chainCfg: chainCfg, tuning: tuning, wrap: func(s eventstore.Store) eventstore.Store {
		timed = &e2eTimedStore{Store: s}
		return timed
	}})
	// Acceptances go to the store directly (env.exec's): the timed store times the engine's calls
	// only. They wait for the projections as the API's do (its default accept_wait).
	sub := &projections.Submitter{Executor: env.exec, Set: env.set, AcceptWait: 2 * time.Second}
	return &e2eEnv{store: timed, set: env.set, sub: sub, eng: env.eng}
}

// e2eTimedStore times the engine's appends and stream reads (a read from the call to the end of
// the caller's loop, which for the Executor's Load includes decoding the events).
type e2eTimedStore struct {
	eventstore.Store
	mu             sync.Mutex
	appends, reads []time.Duration
}

func (s *e2eTimedStore) Append(ctx context.Context, stream string, expected eventstore.Version, evs ...eventstore.Event) (eventstore.Position, error) {
	t := time.Now()
	pos, err := s.Store.Append(ctx, stream, expected, evs...)
	d := time.Since(t)
	s.mu.Lock()
	s.appends = append(s.appends, d)
	s.mu.Unlock()
	return pos, err
}

func (s *e2eTimedStore) ReadStream(ctx context.Context, stream string, from eventstore.Version) iter.Seq2[eventstore.Record, error] {
	return func(yield func(eventstore.Record, error) bool) {
		t := time.Now()
		defer func() {
			d := time.Since(t)
			s.mu.Lock()
			s.reads = append(s.reads, d)
			s.mu.Unlock()
		}()
		for r, err := range s.Store.ReadStream(ctx, stream, from) {
			if !yield(r, err) {
				return
			}
		}
	}
}

// calls returns the appends and reads timed so far, and forgets them.
func (s *e2eTimedStore) calls() (appends, reads []time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	appends, reads = s.appends, s.reads
	s.appends, s.reads = nil, nil
	return appends, reads
}

// accept submits req through the submission command, as the API does (without load shedding:
// the offer is open loop).
func (env *e2eEnv) accept(req domain.Request) (domain.JobID, error) {
	res, err := env.sub.Submit(context.Background(), projections.SubmitCommand{Request: req, Metadata: eventstore.Metadata{CorrelationID: uuid.NewString()}})
	return res.JobID, err
}

// e2eRequest is job i's request of kind k, one the development chain completes (scenario
// none), with a seed of its own.
func e2eRequest(k domain.Kind, i int) domain.Request {
	return testRequest(k, contracts.ScenarioNone, fmt.Sprintf("BenchmarkEndToEndD500#%d#%d", time.Now().UnixNano(), i))
}

// waitAllCompleted waits until the projections show every job terminal, and fails unless
// every one completed.
func (env *e2eEnv) waitAllCompleted(tb testing.TB, ids []domain.JobID, limit time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(limit)
	pending := slices.Clone(ids)
	for len(pending) > 0 && time.Now().Before(deadline) {
		pending = slices.DeleteFunc(pending, func(id domain.JobID) bool {
			j, ok := env.set.Job(id)
			return ok && j.Status.Terminal()
		})
		time.Sleep(20 * time.Millisecond)
	}
	by := map[string]int{}
	for _, id := range ids {
		j, ok := env.set.Job(id)
		switch {
		case !ok:
			by["unknown to the projections"]++
		case j.Status != domain.Completed:
			by[fmt.Sprintf("%s %s", j.Kind, j.Status)]++
		}
	}
	if len(by) > 0 {
		var parts []string
		for s, n := range by {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
		slices.Sort(parts)
		tb.Fatalf("of %d jobs, after %v: %s; want all completed", len(ids), limit, strings.Join(parts, ", "))
	}
}

// histories reads each job's stream and returns, per job, the time from started[i] (its
// acceptance was called) to its terminal event's commit, the latest of those commits, and the
// times between consecutive events of a job by pair of event types.
func (env *e2eEnv) histories(tb testing.TB, ids []domain.JobID, started []time.Time) ([]time.Duration, time.Time, []e2eStage) {
	tb.Helper()
	out := make([]time.Duration, len(ids))
	var last time.Time
	byName := map[string]*e2eStage{}
	var stages []*e2eStage
	for i, id := range ids {
		var end, prevAt time.Time
		prev := ""
		for rec, err := range env.store.ReadStream(context.Background(), id.Stream(), 0) {
			if err != nil {
				tb.Fatal(err)
			}
			at := rec.Metadata.RecordedAt
			if prev != "" {
				name := prev + " -> " + rec.Type
				st := byName[name]
				if st == nil {
					st = &e2eStage{name: name}
					byName[name] = st
					stages = append(stages, st)
				}
				st.d = append(st.d, at.Sub(prevAt))
			}
			prev, prevAt = rec.Type, at
			if rec.Type == "RequestCompleted" {
				end = at
			}
		}
		if end.IsZero() {
			tb.Fatalf("job %s: no RequestCompleted in its stream", id)
		}
		out[i] = end.Sub(started[i])
		if end.After(last) {
			last = end
		}
	}
	res := make([]e2eStage, len(stages))
	for i, st := range stages {
		res[i] = *st
	}
	return out, last, res
}

// overheadSamples is every overhead sample the engine kept, all steps together.
func (env *e2eEnv) overheadSamples() []time.Duration {
	m := env.eng.metrics
	m.mu.Lock()
	defer m.mu.Unlock()
	var all []time.Duration
	for _, s := range m.samples {
		all = append(all, s...)
	}
	return all
}
