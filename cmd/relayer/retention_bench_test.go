//go:build unix

package main

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"relayer/workers/devchain"
)

// BenchmarkServeJobsWithTheArchiver measures what the archiver costs the engine at capacity
// (issue 22: "the engine's jobs/s with the archiver running against without it, within 10%, same
// run"). Each round starts the development chain in its own process (the instant profile) and one
// `relayer serve` on a fresh SQLite data directory, offers archiverBenchJobs mixed jobs from eight
// clients as fast as serve answers (saturate: far more than it can take at once) and times the
// first POST to the last job terminal. Four rounds, retention on, off, on, off: "on" is retention
// with every window 2 s and the interval 1 s, so that the archiver copies and removes jobs all
// through the round (the heaviest setting); "off" is retention disabled.
//
//	go test -run '^$' -bench BenchmarkServeJobsWithTheArchiver -benchtime 1x ./cmd/relayer/
//
// Reported: each mode's mean jobs/s and their ratio (on/off: the goal is at least 0.9), serve's,
// the development chain's and the clients' (this process's) CPU per job, the live store's size
// when the last job ended, and with retention on the jobs retired and the events archived by then. Each round is logged, with
// the load average before and after it (the machine is shared).
func BenchmarkServeJobsWithTheArchiver(b *testing.B) {
	dir := b.TempDir()
	bin := buildRelayer(b, dir)
	env := crashEnv(hex.EncodeToString(crypto.FromECDSA(devchain.RelayerDevKey(0))))
	round := 0
	for range b.N {
		var on, off []archiverRound
		for _, retention := range []bool{true, false, true, false} {
			round++
			r := benchArchiverRound(b, bin, env, filepath.Join(dir, fmt.Sprintf("round-%d", round)), retention)
			b.Logf("round %d (retention %v): %s", round, retention, r)
			if retention {
				on = append(on, r)
			} else {
				off = append(off, r)
			}
		}
		rate := func(rs []archiverRound) float64 { return mean(collect(rs, archiverRound.jobsPerSecond)) }
		b.ReportMetric(rate(on), "jobs/s-retention-on")
		b.ReportMetric(rate(off), "jobs/s-retention-off")
		b.ReportMetric(rate(on)/rate(off), "ratio")
		b.ReportMetric(mean(collect(on, archiverRound.serveCPUPerJob)), "serve-cpu-µs/job-on")
		b.ReportMetric(mean(collect(off, archiverRound.serveCPUPerJob)), "serve-cpu-µs/job-off")
		b.ReportMetric(mean(collect(on, archiverRound.chainCPUPerJob)), "devchain-cpu-µs/job-on")
		b.ReportMetric(mean(collect(off, archiverRound.chainCPUPerJob)), "devchain-cpu-µs/job-off")
		b.ReportMetric(mean(collect(append(on, off...), archiverRound.clientCPUPerJob)), "client-cpu-µs/job")
		b.ReportMetric(mean(collect(on, func(r archiverRound) float64 { return r.storeBytes / 1024 })), "store-KB-on")
		b.ReportMetric(mean(collect(off, func(r archiverRound) float64 { return r.storeBytes / 1024 })), "store-KB-off")
		b.ReportMetric(mean(collect(on, func(r archiverRound) float64 { return r.retired })), "retired-jobs-on")
		b.ReportMetric(mean(collect(on, func(r archiverRound) float64 { return r.archived })), "archived-events-on")
	}
}

// archiverBenchJobs is each round's load: at the development chain's ceiling on two cores (about
// 50 jobs/s) some 30 s of work, so that a 2 s window retires most jobs within the round.
const archiverBenchJobs = 1500

// archiverRound is one round of BenchmarkServeJobsWithTheArchiver, measured when the last job
// ended.
type archiverRound struct {
	jobs              int
	elapsed           time.Duration
	serveCPU          time.Duration
	chainCPU          time.Duration
	clientCPU         time.Duration // this process's: the eight clients and the polls
	storeBytes        float64       // relayer_store_size_bytes: the SQLite file and its write-ahead log
	retired, archived float64       // relayer_retired_jobs_total, relayer_archive_events_total
	head              float64       // relayer_log_head_position
	outcomes          string        // the POSTs' status codes
	load              string        // the 1-minute load average before and after
}

func (r archiverRound) jobsPerSecond() float64 { return float64(r.jobs) / r.elapsed.Seconds() }

// perJob is d in microseconds per job.
func (r archiverRound) perJob(d time.Duration) float64 {
	return float64(d.Microseconds()) / float64(r.jobs)
}

func (r archiverRound) serveCPUPerJob() float64  { return r.perJob(r.serveCPU) }
func (r archiverRound) chainCPUPerJob() float64  { return r.perJob(r.chainCPU) }
func (r archiverRound) clientCPUPerJob() float64 { return r.perJob(r.clientCPU) }

func (r archiverRound) String() string {
	return fmt.Sprintf("%d jobs in %s, %.1f jobs/s; CPU per job: serve %.2f ms, devchain %.2f ms, clients %.2f ms; live store %.0f KB; "+
		"%.0f jobs retired, %.0f of %.0f events archived; POSTs %s; load average %s",
		r.jobs, r.elapsed.Round(time.Millisecond), r.jobsPerSecond(), r.serveCPUPerJob()/1000, r.chainCPUPerJob()/1000,
		r.clientCPUPerJob()/1000, r.storeBytes/1024, r.retired, r.archived, r.head, r.outcomes, r.load)
}

func collect(rs []archiverRound, f func(archiverRound) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

// archiverRetentionOn is retention at its heaviest: every window at 2 s and a pass every second.
const archiverRetentionOn = "retention: {enabled: true, interval: 1s, " +
	"window: {input_proof: 2s, user_decrypt: 2s, public_decrypt: 2s, delegated_user_decrypt: 2s}}\n"

// benchArchiverRound runs one round in dir: a development chain and a serve of their own, both
// stopped before it returns.
func benchArchiverRound(b *testing.B, bin string, env []string, dir string, retention bool) archiverRound {
	b.Helper()
	loadBefore := loadAverage()
	chain, dc := startCrashChain(b, bin, env, "--profile", "instant")
	// All the jobs are accepted within seconds and then wait their turn: the readiness and
	// response deadlines, which run from acceptance, must outlast the queue, or jobs would end
	// timed out (cheaply) and flatter the figure.
	cfg := strings.Replace(crashConfig(dc), "timeouts: {readiness: 20s, tx_in_flight: 20s, response: 30s}",
		"timeouts: {readiness: 5m, tx_in_flight: 20s, response: 5m}", 1)
	if retention {
		cfg += archiverRetentionOn
	} else {
		cfg += "retention: {enabled: false}\n"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	cfgFile := filepath.Join(dir, "relayer.yaml")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	serve := startCrashProc(b, "serve", bin, env, "serve", "--config", cfgFile, "--data-dir", filepath.Join(dir, "data"), "--listen", "127.0.0.1:0")
	url := serve.await(b, listeningOn, 60*time.Second)[1]
	client := &http.Client{Timeout: 30 * time.Second}
	serveCPU, chainCPU, clientCPU := procCPU(serve.cmd.Process.Pid), procCPU(chain.cmd.Process.Pid), procCPU(os.Getpid())

	load := &crashLoad{client: client, codes: map[int]int{}}
	load.url.Store(&url)
	acked, elapsed := saturate(b, load, url, archiverBenchJobs)
	r := archiverRound{jobs: len(acked), elapsed: elapsed, outcomes: load.outcomes(),
		serveCPU: procCPU(serve.cmd.Process.Pid) - serveCPU, chainCPU: procCPU(chain.cmd.Process.Pid) - chainCPU,
		clientCPU: procCPU(os.Getpid()) - clientCPU}
	m := scrapeMetrics(b, client, url)
	r.storeBytes, r.retired, r.archived, r.head = m["relayer_store_size_bytes"], m["relayer_retired_jobs_total"],
		m["relayer_archive_events_total"], m["relayer_log_head_position"]
	var timedOut float64
	for sample, v := range m {
		if strings.HasPrefix(sample, "relayer_transitions_total{") && strings.Contains(sample, `to="timed_out"`) {
			timedOut += v
		}
	}
	if timedOut > 0 {
		b.Fatalf("%.0f jobs timed out: the figure would count their cheap endings as work done", timedOut)
	}
	if retention && r.retired == 0 {
		b.Fatalf("retention on, but no job was retired during the round")
	}
	serve.stop(b)
	chain.stop(b)
	r.load = loadBefore + " → " + loadAverage()
	return r
}
