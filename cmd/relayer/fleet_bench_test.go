package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkFleet measures the relayer's throughput and its own CPU per job with one, two and
// three serve instances on one PostgreSQL store and as many relayer keys (and three instances
// with one key, to compare), the development chain in its own process: 600
// mixed jobs offered as fast as eight clients can, spread over the instances, from the first
// POST until every job is terminal. Each run builds its processes afresh; run it once per size:
//
//	go test -run '^$' -bench BenchmarkFleet -benchtime 1x ./cmd/relayer/
//
// Reported: jobs/s, the instances' CPU (user+system) per job, the development chain's CPU per
// job, and the machine's processors.
func BenchmarkFleet(b *testing.B) {
	for _, c := range []struct{ instances, keys int }{{1, 1}, {2, 2}, {3, 3}, {3, 1}} {
		b.Run(fmt.Sprintf("instances=%d/keys=%d", c.instances, c.keys), func(b *testing.B) {
			for range b.N {
				benchFleet(b, c.instances, c.keys)
			}
		})
	}
}

const fleetBenchJobs = 600

func benchFleet(b *testing.B, instances, keys int) {
	b.StopTimer()
	f := newFleet(b, "relayer_fleet_bench", keys, func(c crashChain, store string, keys int) string {
		return fleetChainConfig(c, keys) + fmt.Sprintf("store: %q\nworkers:\n  fleet: {enabled: true, lease_duration: 2s, lease_renew: 400ms}\n", store)
	})
	chain := f.devchain
	for i := range instances {
		f.start(i)
	}
	procs := f.procs[:instances]
	urls := f.up()
	// Let the instances take the keys before the clock starts.
	client := &http.Client{Timeout: 30 * time.Second}
	for deadline := time.Now().Add(30 * time.Second); f.heldLeases(client) < keys; {
		if time.Now().After(deadline) {
			b.Fatalf("the instances took %d of the %d keys", f.heldLeases(client), keys)
		}
		time.Sleep(50 * time.Millisecond)
	}
	spread := make([]int, instances)
	for i := range instances {
		spread[i] = f.leases(client, i)
	}
	b.Logf("keys held per instance: %v", spread)
	cpuBefore := make([]time.Duration, len(procs))
	for i, p := range procs {
		cpuBefore[i] = procCPU(p.cmd.Process.Pid)
	}
	chainBefore := procCPU(chain.cmd.Process.Pid)

	load := &crashLoad{client: client, codes: map[int]int{}}
	load.pick = func(n int64) (string, string) { return urls[int(n)%len(urls)], "" }
	b.StartTimer()
	acked, elapsed := saturate(b, load, urls[0], fleetBenchJobs)
	b.StopTimer()
	var cpu time.Duration
	for i, p := range procs {
		cpu += procCPU(p.cmd.Process.Pid) - cpuBefore[i]
	}
	chainCPU := procCPU(chain.cmd.Process.Pid) - chainBefore
	for _, p := range procs {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		<-p.done
	}
	jobs := float64(len(acked))
	b.ReportMetric(jobs/elapsed.Seconds(), "jobs/s")
	b.ReportMetric(float64(cpu.Microseconds())/jobs, "relayer-cpu-µs/job")
	b.ReportMetric(float64(chainCPU.Microseconds())/jobs, "devchain-cpu-µs/job")
	b.ReportMetric(float64(len(acked)), "jobs")
}

// saturate offers at least jobs mixed jobs (crashLoad.submitOne's) from eight clients, each
// POSTing again as soon as its last POST is answered, so that the relayer is offered more than it
// can take, and waits until every acknowledged job is terminal, polled at url (a job retention
// archived counts as terminal). It returns the acknowledged jobs and the time from the first POST
// to the last job terminal: their ratio is the relayer's capacity for the mix.
func saturate(b *testing.B, load *crashLoad, url string, jobs int) ([]crashJob, time.Duration) {
	b.Helper()
	start := time.Now()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for load.count() < jobs {
				load.submitOne(context.Background())
			}
		})
	}
	wg.Wait()
	acked := load.jobs()
	if notTerminal := waitAllTerminal(b, load.client, url, acked, 5*time.Minute); notTerminal != nil {
		b.Fatalf("%d jobs not terminal (POST outcomes: %s)", len(notTerminal), load.outcomes())
	}
	return acked, time.Since(start)
}

// procCPU is a process's CPU time so far (user and system), from /proc.
func procCPU(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	var utime, stime int64
	fmt.Sscan(fields[11], &utime)
	fmt.Sscan(fields[12], &stime)
	return time.Duration(utime+stime) * time.Second / 100 // clock ticks: USER_HZ is 100 on Linux
}
