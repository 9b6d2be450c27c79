//go:build unix

package main

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"relayer/workers/devchain"
)

// BenchmarkServeJobsWithASlowWebhook measures what a webhook endpoint that takes 5 s to answer
// each delivery costs the engine: jobs per second through `relayer serve` (the development chain
// in its own process, a fresh SQLite log per round) with such an endpoint registered, against no
// endpoint, in the same run: eight rounds in the order none, slow, slow, none, none, slow, slow,
// none, so that a drift over the run (the chain's state grows) falls on both alike. Each round
// offers 600 mixed jobs from eight clients as fast as serve answers and times the first POST to
// the last job terminal. Reported: the mean jobs/s of each, their ratio (slow/none: 1 means the
// endpoint costs nothing), and serve's CPU per job for each.
//
//	go test -run '^$' -bench BenchmarkServeJobsWithASlowWebhook -benchtime 1x ./cmd/relayer/
func BenchmarkServeJobsWithASlowWebhook(b *testing.B) {
	const jobs = 600
	dir := b.TempDir()
	bin := buildRelayer(b, dir)
	env := append(crashEnv(hex.EncodeToString(crypto.FromECDSA(devchain.RelayerDevKey(0)))),
		"RELAYER_ADMIN_TOKEN="+whAdminToken, "RELAYER_WEBHOOKS_SECRET_KEY="+whSecretKey)
	chain := startCrashProc(b, "devchain", bin, env, "devchain", "--http", "127.0.0.1:0", "--ws", "127.0.0.1:0")
	chain.await(b, crashChainReady, 60*time.Second)
	dc := parseDevchain(b, chain.stdout.String())
	grantCrashDelegation(b, dc)
	cfgFile := filepath.Join(dir, "relayer.yaml")
	if err := os.WriteFile(cfgFile, []byte(crashConfig(dc)+"webhooks: {allow_private: true}\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	var requests atomic.Int64
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer slow.Close()

	round := 0
	run := func(withHook bool) (jobsPerSecond, cpuPerJob float64) {
		round++
		args := []string{"serve", "--config", cfgFile, "--data-dir", filepath.Join(dir, fmt.Sprintf("data-%d", round)), "--listen", "127.0.0.1:0"}
		p := startCrashProc(b, fmt.Sprintf("serve#%d", round), bin, env, args...)
		url := p.await(b, listeningOn, 60*time.Second)[1]
		client := &http.Client{Timeout: 30 * time.Second}
		before := requests.Load()
		if withHook {
			registerWebhook(b, client, url, slow.URL+"/relayer")
		}
		cpu0 := procCPU(p.cmd.Process.Pid)
		load := &crashLoad{client: client, codes: map[int]int{}}
		load.url.Store(&url)
		acked, elapsed := saturate(b, load, url, jobs)
		cpu := procCPU(p.cmd.Process.Pid) - cpu0
		if withHook && requests.Load() == before {
			b.Fatalf("round %d: the slow endpoint was never called", round)
		}
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		<-p.done
		n := float64(len(acked))
		b.Logf("round %d (webhook %v): %d jobs in %s, %.1f jobs/s, serve CPU %.2f ms/job; the slow endpoint got %d requests; load average %s",
			round, withHook, len(acked), elapsed.Round(time.Millisecond), n/elapsed.Seconds(), float64(cpu.Microseconds())/n/1000, requests.Load()-before, loadAverage())
		return n / elapsed.Seconds(), float64(cpu.Microseconds()) / n
	}
	for range b.N {
		var none, hooked, noneCPU, hookedCPU []float64
		// ABBA ABBA: the development chain's state grows with every round (later rounds are
		// slower), and this order gives both sides the same mean round number.
		for _, withHook := range []bool{false, true, true, false, false, true, true, false} {
			r, c := run(withHook)
			if withHook {
				hooked, hookedCPU = append(hooked, r), append(hookedCPU, c)
			} else {
				none, noneCPU = append(none, r), append(noneCPU, c)
			}
		}
		b.ReportMetric(mean(none), "jobs/s-no-webhook")
		b.ReportMetric(mean(hooked), "jobs/s-slow-webhook")
		b.ReportMetric(mean(hooked)/mean(none), "ratio")
		b.ReportMetric(mean(noneCPU), "serve-cpu-µs/job-no-webhook")
		b.ReportMetric(mean(hookedCPU), "serve-cpu-µs/job-slow-webhook")
	}
}

// loadAverage is the machine's 1-minute load average, from /proc ("?" when unreadable): the
// machine is shared, and a round slowed by other work shows it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
