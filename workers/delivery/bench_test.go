package delivery

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"relayer/domain/webhook"
)

// BenchmarkDeliveries measures deliveries per second to a receiver on this machine (an
// httptest server answering 204 at once): one endpoint, transitions already in a durable SQLite
// log (input proofs, four transitions each), from the service's start until the receiver has
// them all. Each iteration is one delivery (-benchtime 4000x: 1,000 jobs). It includes reading
// the log, building and signing each body, the HTTP round trip on a kept-alive connection and the
// checkpoint saves.
//
//	go test -run '^$' -bench Deliveries -benchtime 4000x -count 3 ./workers/delivery/
func BenchmarkDeliveries(b *testing.B) {
	env := newDT(b)
	var got atomic.Int64
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		got.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer rcv.Close()
	env.register(rcv.URL, webhook.Filter{})
	jobs := (b.N + 3) / 4
	env.jobs(0, jobs)
	want := int64(jobs * 4)
	cfg := dtConfig()
	cfg.Checkpoint.Interval = 0 // the default, every second or 100 records
	b.ResetTimer()
	start := time.Now()
	env.start(cfg, Deps{Logger: slog.New(slog.DiscardHandler)})
	for got.Load() < want {
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(want)/elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkJobsBesideABlockedFollower measures what a follower waiting on a slow endpoint costs
// the process it runs in: input proofs driven through a durable SQLite log (four appends each, as
// the engine makes them), a quarter of them with no deliveries running, then half with a follower
// whose endpoint takes 5 s to answer each delivery (one always under way), then the last quarter
// with no deliveries again: the same log and process, both sides at the same mean log size.
// Reported: each side's time and CPU (user and system, getrusage: the follower's included) per
// job.
//
//	go test -run '^$' -bench JobsBesideABlockedFollower -benchtime 600x -count 3 ./workers/delivery/
func BenchmarkJobsBesideABlockedFollower(b *testing.B) {
	env := newDT(b)
	var calls atomic.Int64
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	}))
	b.Cleanup(slow.Close) // after the deliveries stop (cleanups run last in, first out)
	env.register(slow.URL, webhook.Filter{})
	cfg := dtConfig()
	cfg.Webhooks.Timeout = 10 * time.Second
	cfg.Poll, cfg.Checkpoint.Interval = 0, 0 // serve's defaults
	quarter := max(b.N/4, 1)
	next := 0
	var cpu, wall [2]time.Duration
	var jobs [2]int
	run := func(side int, n int) {
		c0, t0 := processCPU(), time.Now()
		env.jobs(next, n)
		next += n
		cpu[side] += processCPU() - c0
		wall[side] += time.Since(t0)
		jobs[side] += n
	}
	b.ResetTimer()
	run(0, quarter)
	b.StopTimer()
	_, stop := env.start(cfg, Deps{Logger: slog.New(slog.DiscardHandler)})
	env.jobs(1_000_000, 1)
	waitFor(b, 10*time.Second, "the first delivery under way", func() bool { return calls.Load() > 0 })
	b.StartTimer()
	run(1, 2*quarter)
	b.StopTimer()
	stop()
	b.StartTimer()
	run(0, quarter)
	b.StopTimer()
	for side, name := range []string{"none", "blocked"} {
		b.ReportMetric(float64(cpu[side].Microseconds())/float64(jobs[side]), "cpu-µs/job-"+name)
		b.ReportMetric(float64(wall[side].Microseconds())/float64(jobs[side]), "µs/job-"+name)
	}
	b.ReportMetric(0, "ns/op")
}

// processCPU is this process's CPU time so far (user and system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
