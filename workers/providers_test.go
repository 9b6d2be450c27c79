package workers

import (
	"fmt"
	"testing"
	"time"

	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers/devchain"
	"relayer/workers/devchain/faultproxy"
	"relayer/workers/devchain/faultproxy/faultproxytest"
	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
)

// providerJobs is how many jobs run through two providers while one of them is killed, then
// slowed: a third before the kill, a third while it is down, a third around the slow-down.
const providerJobs = 500

// Two providers in front of the development chain; the heavier one is killed, then back, then
// slowed past the health probe's timeout, then healed, while 500 jobs run: every job completes
// (none lost, none stuck), each put exactly one gateway request on chain, the failing provider
// is paused and comes back when it answers again, and the chain is never recorded unreachable
// (the other provider served).
func TestOneOfTwoProvidersKilledThenSlowedLosesNoJobAndSendsEachOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("500 jobs through the development chain")
	}
	began := time.Now()
	chain := startTestChain(t, devchain.Config{HTTPAddr: "127.0.0.1:0"})
	flaky, steady := faultproxytest.Start(t, chain.HTTPEndpoint()), faultproxytest.Start(t, chain.HTTPEndpoint())
	tuning := retryafter.DefaultConfig()
	tuning.InputProofTPS, tuning.UserDecryptTPS, tuning.PublicDecryptTPS = loadD, loadD, loadD
	ctx, gw, store, set := startDialedEngine(t, chain, projections.Config{TxInFlightTimeout: 5 * time.Minute}, tuning, func(c *gateway.Config) {
		c.Providers = []gateway.Provider{{URL: flaky.URL(), Weight: 3}, {URL: steady.URL(), Weight: 1}}
		// Long enough for a slowed provider's answers (slow is 2.5 s, past the probe's 2 s).
		c.CallTimeout = 5 * time.Second
	})
	env := &engineEnv{t: t, chain: chain, store: store, set: set, exec: &projections.Executor{Store: store, Codec: projections.NewCodec()}}

	kinds := domain.Kinds()
	jobs := make([]loadJob, 0, providerJobs)
	accept := func(n int) []loadJob {
		var batch []loadJob
		for range n {
			k := kinds[len(jobs)%len(kinds)]
			j := loadJob{id: domain.NewJobID(), kind: k, scenario: contracts.ScenarioNone, req: env.request(k, contracts.ScenarioNone)}
			cmd := domain.Accept{At: domain.At{At: time.Now()}, JobID: j.id, Request: j.req, ContentHash: j.id.String()}
			if _, err := env.exec.Execute(ctx, j.id, cmd, eventstore.Metadata{CorrelationID: j.id.Stream()}); err != nil {
				t.Fatal(err)
			}
			jobs = append(jobs, j)
			batch = append(batch, j)
		}
		return batch
	}
	terminal := func(batch []loadJob) int {
		n := 0
		for _, j := range batch {
			if v, ok := set.Job(j.id); ok && v.Status.Terminal() {
				n++
			}
		}
		return n
	}
	// progress waits for jobs to end: how long they take depends on the machine's load, so the
	// bound is generous; it returns how long they took.
	progress := func(batch []loadJob, n int, what string) time.Duration {
		t.Helper()
		began := time.Now()
		for terminal(batch) < n {
			if time.Since(began) > 2*time.Minute {
				t.Fatalf("%d of %d %s ended after 2 minutes, want %d", terminal(batch), len(batch), what, n)
			}
			time.Sleep(10 * time.Millisecond)
		}
		return time.Since(began)
	}
	flakyHealth := func() gateway.ProviderHealth { return gw.Providers()[0] }
	steadyRequests := func() uint64 { return gw.Providers()[1].Requests }

	// A third of the jobs on two healthy providers; the kill comes while most are in flight.
	first := accept(providerJobs / 3)
	progress(first, 20, "jobs of the first third")
	faultproxytest.SetMode(t, flaky, faultproxy.Refuse)
	eventually(t, func() bool { return flakyHealth().Paused }, "the killed provider to be paused")
	killed := time.Now()
	servedBefore := steadyRequests()
	second := accept(providerJobs / 3)
	took := progress(second, len(second)/2, "jobs accepted while a provider is down")
	t.Logf("half the jobs accepted while a provider is down ended in %v", took.Round(time.Millisecond))
	if h := flakyHealth(); !h.Paused || h.Healthy {
		t.Errorf("the killed provider: %+v, want paused and not healthy", h)
	}
	if steadyRequests() <= servedBefore {
		t.Error("the other provider served no call while the first was down")
	}
	t.Logf("provider killed for %v: %+v", time.Since(killed).Round(time.Millisecond), flakyHealth())

	// Back: healthy again, it takes reads; then, with jobs in flight, slower than the health
	// probe's timeout: paused again, and the jobs go on.
	faultproxytest.SetMode(t, flaky, faultproxy.Pass)
	// A provider paused for long waits up to 30 s (its probe's longest backoff) for its next
	// probe; once that probe answers, it is healthy.
	eventuallyWithin(t, 45*time.Second, func() bool { return flakyHealth().Healthy }, "the provider to be healthy again once it answers")
	third := accept(providerJobs - len(jobs))
	progress(third, 20, "jobs of the last third")
	flaky.SetDelay(2500 * time.Millisecond)
	slowed := time.Now()
	failures := flakyHealth().Failures
	eventually(t, func() bool { h := flakyHealth(); return h.Paused && h.Failures > failures }, "the slow provider's probe to time out")
	t.Logf("the slow provider paused %v after the slow-down", time.Since(slowed).Round(time.Millisecond))
	took = progress(third, len(third)/2, "jobs of the last third")
	t.Logf("half the jobs of the last third ended %v after the slow provider was paused", took.Round(time.Millisecond))
	if h := flakyHealth(); !h.Paused {
		t.Errorf("the slow provider: %+v, want paused", h)
	}

	// Healed: it answers its probe and takes reads again.
	flaky.SetDelay(0)
	eventuallyWithin(t, 45*time.Second, func() bool { return flakyHealth().Healthy }, "the healed provider to be healthy again")
	waitAllTerminal(t, env, jobs, 2*time.Minute)
	t.Logf("every job ended %v after the start; providers %+v", time.Since(began).Round(time.Millisecond), gw.Providers())

	// Every job completed, and put one gateway request on chain.
	byID := make(map[domain.JobID]*loadJob, len(jobs))
	for i := range jobs {
		byID[jobs[i].id] = &jobs[i]
	}
	hist := readJobHistories(t, env, byID)
	for i, j := range jobs {
		v, _ := set.Job(j.id)
		if v.Status != domain.Completed {
			t.Errorf("job %d (%s): %s %q, want completed; events %v", i, j.kind, v.Status, v.Label, hist.types(j.id))
		}
	}
	for _, v := range hist.violations {
		t.Error(v)
	}
	perFamily := map[domain.Kind]int{}
	for _, j := range jobs {
		perFamily[j.kind.Family()]++
	}
	seen := map[string]domain.JobID{}
	for _, k := range []domain.Kind{domain.PublicDecrypt, domain.UserDecrypt, domain.InputProof} {
		withReceipt := map[domain.JobID]int{}
		for _, r := range hist.receipts[k.Ordinal()] {
			if other, dup := seen[k.String()+r.GatewayRequestID]; dup && other != r.JobID {
				t.Errorf("%s: gateway request %s recorded by jobs %s and %s", k, r.GatewayRequestID, other, r.JobID)
			}
			seen[k.String()+r.GatewayRequestID] = r.JobID
			withReceipt[r.JobID]++
		}
		if len(withReceipt) != perFamily[k] {
			t.Errorf("%s: %d of %d jobs recorded a receipt", k, len(withReceipt), perFamily[k])
		}
	}
	onChain := gatewayRequestCounts(t, env)
	for k, n := range perFamily {
		if onChain[k] != n {
			t.Errorf("%s: %d gateway requests on chain for %d jobs, want one each", k, onChain[k], n)
		}
	}

	// The chain was never unreachable: one provider always answered.
	for r, err := range store.ReadStream(ctx, domain.ChainStream, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Type == "ChainOutageStarted" {
			t.Errorf("the log records a chain outage (at %d) while a provider answered", r.Position)
		}
	}
	t.Log(fmt.Sprintf("gateway requests on chain: %v; the test took %v", onChain, time.Since(began).Round(time.Millisecond)))
}
