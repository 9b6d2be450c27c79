package main

import (
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go"

	"relayer/api"
	"relayer/domain"
	"relayer/eventstore"
	"relayer/eventstore/postgres"
	"relayer/eventstore/postgres/pgtest"
	"relayer/workers"
	"relayer/workers/devchain"
	"relayer/workers/lease"
	"relayer/workers/pace"
)

// The fleet acceptance test (DESIGN section 11): PostgreSQL, NATS JetStream, the development
// chain in its own process and three `relayer serve` instances on one store with three relayer
// keys, each key's engine on its own JetStream stream, a client
// spreading jobs over them, while a random instance (every third time the one holding the most
// keys' leases) is SIGKILLed and started again, at least ten times. Every acknowledged job must be found at once by another
// instance, never be lost and reach a terminal status; the chain must hold at most one gateway
// request per job, each from a transaction its stream recorded; C and D must hold for the
// fleet, measured from the events; and every instance's read models must equal what `relayer
// rebuild` makes of the log at the position the instance stopped at.
const (
	fleetJobs       = 1000
	fleetInstances  = 3
	fleetKeys       = 3
	fleetMinKills   = 10
	fleetSubmitters = 3
	fleetC          = 4
	fleetD          = 15
	fleetKillBudget = 240 * time.Second
	fleetFinalWait  = 150 * time.Second
)

var fleetLeaseHeld = regexp.MustCompile(`(?m)^relayer_engine_lease_held (\d+)$`)

// fleetKeyEnv names the variable of the fleet's relayer key i (0 is crashKeyEnv's).
func fleetKeyEnv(i int) string {
	if i == 0 {
		return crashKeyEnv
	}
	return fmt.Sprintf("%s_%d", crashKeyEnv, i)
}

// fleetChainConfig is crashConfig signing with the development chain's first keys relayer keys.
func fleetChainConfig(c crashChain, keys int) string {
	cfg := crashConfig(c)
	if keys > 1 {
		var extra []string
		for i := 1; i < keys; i++ {
			extra = append(extra, fmt.Sprintf("{key_env: %s}", fleetKeyEnv(i)))
		}
		cfg = strings.Replace(cfg, "  signer: {key_env: "+crashKeyEnv+"}\n",
			"  signer: {key_env: "+crashKeyEnv+"}\n  extra_signers: ["+strings.Join(extra, ", ")+"]\n", 1)
	}
	return cfg
}

// fleetConfig is crashConfig on a shared PostgreSQL store, in a fleet with a short lease signing
// with keys keys, and with C and D low enough that the load presses on them.
func fleetConfig(c crashChain, store string, keys int) string {
	cfg := fleetChainConfig(c, keys)
	// C is low on purpose, so decrypts queue for their readiness check: their deadline, which runs
	// from acceptance, allows for the queue and the takeovers, so that the test judges the fleet,
	// not the machine's speed. So does the response deadline: with a kill every 1-3 s, a key's
	// jobs wait through one takeover after another (each a lease's lapse and a recovery) for their
	// responses to be read; a response lost for good still ends its job timed out.
	cfg = strings.Replace(cfg, "timeouts: {readiness: 20s, tx_in_flight: 20s, response: 30s}", "timeouts: {readiness: 2m, tx_in_flight: 20s, response: 2m}", 1)
	cfg = strings.Replace(cfg, "retry_after: {input_proof_throttler_tps: 100, user_decrypt_throttler_tps: 100, public_decrypt_throttler_tps: 100, readiness_max_concurrency: 100}",
		fmt.Sprintf("retry_after: {input_proof_throttler_tps: %d, user_decrypt_throttler_tps: %d, public_decrypt_throttler_tps: %d, readiness_max_concurrency: %d}", fleetD, fleetD, fleetD, fleetC), 1)
	return cfg + fmt.Sprintf("store: %q\nworkers:\n  fleet: {enabled: true, lease_duration: 2s, lease_renew: 400ms}\n", store)
}

// fleet is the running instances, their store, and the development chain they drive.
type fleet struct {
	t        testing.TB
	bin      string
	env      []string
	args     []string
	storeURL string
	cfgFile  string
	// archiveDir is the archive the instances share (retention.archive).
	archiveDir string
	chain      crashChain
	devchain   *crashProc

	mu    sync.Mutex
	procs [fleetInstances]*crashProc
	urls  [fleetInstances]atomic.Pointer[string]
	runs  []*crashProc
}

// newFleet builds the relayer, starts the development chain in its own process with keys funded
// relayer keys (given to the instances in fleetKeyEnv's variables), grants the delegation the
// load's delegated decrypts need, and writes serve's configuration (config of the chain, a fresh
// PostgreSQL store named after prefix, and the keys); no instance runs yet.
func newFleet(t testing.TB, prefix string, keys int, config func(crashChain, string, int) string) *fleet {
	t.Helper()
	f := &fleet{t: t, storeURL: pgtest.URL(t, prefix)}
	dir := t.TempDir()
	f.bin = buildRelayer(t, dir)
	f.env = crashEnv(hex.EncodeToString(crypto.FromECDSA(devchain.RelayerDevKey(0))))
	for i := 1; i < keys; i++ {
		f.env = append(f.env, fleetKeyEnv(i)+"="+hex.EncodeToString(crypto.FromECDSA(devchain.RelayerDevKey(i))))
	}
	f.devchain, f.chain = startCrashChain(t, f.bin, f.env, "--relayer-keys", strconv.Itoa(keys))
	f.cfgFile = filepath.Join(dir, "relayer.yaml")
	// The instances archive by turns: into one folder they share.
	f.archiveDir = filepath.Join(dir, "archive")
	cfg := config(f.chain, f.storeURL, keys) + fmt.Sprintf("retention: {archive: %q}\n", f.archiveDir)
	if err := os.WriteFile(f.cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	f.args = []string{"serve", "--config", f.cfgFile, "--listen", "127.0.0.1:0"}
	return f
}

// checkLog reads the fleet's log once every instance has stopped and checks the acknowledged jobs
// against it and the chain against the jobs (as the crash test does); it returns the store (closed
// when the test ends) and the jobs.
func (f *fleet) checkLog(acked []crashJob, notTerminal map[string]string) (*postgres.Store, map[string]*crashLogJob) {
	f.t.Helper()
	store, err := postgres.Open(context.Background(), f.storeURL, postgres.Config{})
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = store.Close() })
	jobs := readLogJobs(f.t, store)
	checkCrashJobs(f.t, acked, jobs, notTerminal)
	checkCrashChain(f.t, f.chain, jobs)
	return store, jobs
}

func (f *fleet) start(i int) {
	f.t.Helper()
	f.mu.Lock()
	p := startCrashProc(f.t, fmt.Sprintf("serve%d#%d", i, len(f.runs)), f.bin, f.env, f.args...)
	f.procs[i] = p
	f.runs = append(f.runs, p)
	f.mu.Unlock()
	url := p.await(f.t, listeningOn, 60*time.Second)[1]
	f.urls[i].Store(&url)
}

func (f *fleet) kill(i int) {
	f.urls[i].Store(nil)
	f.mu.Lock()
	p := f.procs[i]
	f.mu.Unlock()
	if p.exited() {
		f.t.Fatalf("%s ended on its own (%v) before it was killed:\n%s", p.name, p.err, p.stderr.String())
	}
	p.kill()
}

// up is the URLs of the instances that are up now, by instance.
func (f *fleet) up() []string {
	var out []string
	for i := range fleetInstances {
		if u := f.urls[i].Load(); u != nil {
			out = append(out, *u)
		}
	}
	return out
}

// checkFleetHealth checks what the instances at urls say of the fleet in /healthz, waiting (30 s
// at most) for the leases to settle: each names itself, no lease is held by two of them, and each
// of the fleet's fleetKeys signing keys is held by one.
func checkFleetHealth(t *testing.T, client *http.Client, urls []string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		holders := map[string][]string{}
		var problems []string
		for _, u := range urls {
			var h struct {
				Fleet *api.FleetReport `json:"fleet"`
			}
			res, body := httpGetWith(t, client, u+"/healthz")
			if err := json.Unmarshal(body, &h); err != nil || h.Fleet == nil || h.Fleet.Instance == "" || len(h.Fleet.Holds)+len(h.Fleet.Waits) < fleetKeys {
				t.Fatalf("%s/healthz: %d %s: want the fleet member naming the instance and its %d keys' leases at least", u, res.StatusCode, body, fleetKeys)
			}
			for _, l := range h.Fleet.Holds {
				holders[l.Name] = append(holders[l.Name], h.Fleet.Instance)
			}
		}
		signers := 0
		for name, who := range holders {
			if len(who) > 1 {
				problems = append(problems, fmt.Sprintf("%s held by %v", name, who))
			}
			if strings.HasPrefix(name, workers.SignerLeasePrefix+"-") {
				signers++
			}
		}
		if signers != fleetKeys {
			problems = append(problems, fmt.Sprintf("%d of the %d signing keys' leases held: %v", signers, fleetKeys, holders))
		}
		if len(problems) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fleet's /healthz: %s", strings.Join(problems, "; "))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// leases is how many leases instance i holds (by its /metrics: the engine's, or the keys'), or
// -1 when it does not answer.
func (f *fleet) leases(client *http.Client, i int) int {
	u := f.urls[i].Load()
	if u == nil {
		return -1
	}
	res, err := client.Get(*u + "/metrics")
	if err != nil {
		return -1
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := fleetLeaseHeld.FindSubmatch(b)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// leader is the instance holding the most leases (at least one), or -1.
func (f *fleet) leader(client *http.Client) int {
	best, most := -1, 0
	for i := range fleetInstances {
		if n := f.leases(client, i); n > most {
			best, most = i, n
		}
	}
	return best
}

// heldLeases is how many leases the instances that answer hold together.
func (f *fleet) heldLeases(client *http.Client) int {
	n := 0
	for i := range fleetInstances {
		n += max(f.leases(client, i), 0)
	}
	return n
}

func TestFleetOfThreeInstancesSurvivesSIGKILLs(t *testing.T) {
	if testing.Short() {
		t.Skip("fleet test: builds the binary and runs five processes for a minute or two")
	}
	began := time.Now()
	prefix := natsFleetPrefix(t, fleetKeys)
	var f *fleet
	t.Cleanup(func() {
		if t.Failed() && f != nil {
			dumpRuns(t, f.runs)
		}
	})
	f = newFleet(t, "relayer_fleet", fleetKeys, func(c crashChain, store string, keys int) string {
		return fleetConfig(c, store, keys) + fmt.Sprintf("  transport: nats\n  nats: {url: %q, prefix: %q}\n", natsFleetURL, prefix)
	})
	bin, env, cfgFile := f.bin, f.env, f.cfgFile
	for i := range fleetInstances {
		f.start(i)
	}

	load := &crashLoad{client: &http.Client{Timeout: 10 * time.Second}, codes: map[int]int{}}
	load.pick = func(n int64) (string, string) {
		up := f.up()
		switch len(up) {
		case 0:
			return "", ""
		case 1:
			return up[0], ""
		}
		i := int(n) % len(up)
		return up[i], up[(i+1)%len(up)]
	}
	_, stopLoad := load.submitters(t, fleetSubmitters, fleetJobs)
	rng := killTimingRNG(t)
	killStart := time.Now()
	kills, leaderKills := 0, 0
	for load.count() < fleetJobs || kills < fleetMinKills {
		if time.Since(killStart) > fleetKillBudget {
			stopLoad()
			t.Fatalf("after %s only %d jobs acknowledged and %d kills", time.Since(killStart).Round(time.Second), load.count(), kills)
		}
		time.Sleep(time.Duration(800+rng.IntN(2200)) * time.Millisecond)
		victim := rng.IntN(fleetInstances)
		if kills%3 == 0 {
			if l := f.leader(load.client); l >= 0 {
				victim = l
				leaderKills++
			}
		}
		f.kill(victim)
		kills++
		f.start(victim)
	}
	stopLoad()
	acked := load.jobs()
	t.Logf("kill phase: %d kills (%d of the instance holding the most keys), %d jobs acknowledged, %s; POST outcomes %s",
		kills, leaderKills, len(acked), time.Since(killStart).Round(time.Millisecond), load.outcomes())
	if n := load.refused(); n != 0 {
		t.Errorf("%d POSTs refused with 400: every body the load sends is valid (%s)", n, load.outcomes())
	}
	if m := load.misses.Load(); m != 0 {
		t.Errorf("invariant: a job one instance acknowledged is found at once by another; %d were not", m)
	}

	// Drain through one instance, then stop them all, the engine's holder last.
	drainStart := time.Now()
	notTerminal := waitAllTerminal(t, load.client, f.up()[0], acked, fleetFinalWait)
	if notTerminal == nil {
		t.Logf("every job terminal %s after the kills", time.Since(drainStart).Round(time.Millisecond))
	}
	checkFleetHealth(t, load.client, f.up())
	holder := f.leader(load.client)
	order := []int{}
	for i := range fleetInstances {
		if i != holder {
			order = append(order, i)
		}
	}
	if holder >= 0 {
		order = append(order, holder)
	}
	type stopped struct{ pos, digest string }
	var digests []stopped
	for _, i := range order {
		p := f.procs[i]
		f.urls[i].Store(nil)
		if p.exited() {
			t.Fatalf("%s ended on its own (%v) before it was stopped:\n%s", p.name, p.err, tail(p.stderr.String(), 8000))
		}
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s did not stop within 30 s of SIGTERM:\n%s", p.name, p.stderr.String())
		}
		if p.err != nil {
			t.Fatalf("%s stopped with %v:\n%s", p.name, p.err, p.stderr.String())
		}
		m := crashDigest.FindStringSubmatch(p.stdout.String())
		if m == nil {
			t.Fatalf("%s printed no digest when it stopped:\n%s", p.name, p.stdout.String())
		}
		digests = append(digests, stopped{m[1], m[2]})
	}
	for i, d := range digests {
		// The archive too: the instance holding the archiver's lease may have pruned events at
		// or before d.pos once the others stopped, and carried their history only after it.
		rebuild := exec.Command(bin, "rebuild", "--config", cfgFile, "--through", d.pos, "--archive", f.archiveDir)
		rebuild.Env = env
		out, err := rebuild.CombinedOutput()
		if err != nil {
			t.Fatalf("relayer rebuild --through %s: %v\n%s", d.pos, err, out)
		}
		r := snapshotDigest.FindSubmatch(out)
		if r == nil || string(r[1]) != d.digest {
			t.Errorf("instance stopped %d: its read models at position %s differ from rebuild's: %s, rebuild %s", i, d.pos, d.digest, r)
		}
	}

	store, jobs := f.checkLog(acked, notTerminal)

	acquired := fleetTerms(t, store, fleetKeys)
	checkFleetPace(t, jobs, acquired)
	terms := 0
	for _, at := range acquired {
		terms += len(at)
	}
	t.Logf("the keys' leases had %d terms", terms)
	if terms < leaderKills+fleetKeys {
		t.Errorf("the keys' leases had %d terms for %d keys and %d kills of the instance holding the most", terms, fleetKeys, leaderKills)
	}
	perKey := map[string]int{}
	for _, j := range jobs {
		if j.state.From != "" {
			perKey[strings.ToLower(j.state.From)]++
		}
	}
	t.Logf("transactions per key: %v", perKey)
	if len(perKey) != fleetKeys {
		t.Errorf("the jobs were signed by %d keys, want %d: %v", len(perKey), fleetKeys, perKey)
	}
	logServeProblems(t, f.runs)
	t.Logf("total %s", time.Since(began).Round(time.Millisecond))
}

// checkFleetPace checks C and D for the fleet from the events: at most D transactions signed in
// any one-second window per kind's queue, at most C readiness checks in progress at once.
//
// A check is in progress from its ReadinessCheckStarted to its end. A check cut short by the
// death of its key's holder has no end of its own: its next start is recorded when the key's
// next holder resumes it, and the cut check is counted until that holder's term began
// (acquired: each key's LeaseAcquired times, in order), when the dead one ran nothing more.
func checkFleetPace(t *testing.T, jobs map[string]*crashLogJob, acquired map[common.Address][]time.Time) {
	t.Helper()
	var keys []common.Address
	for k := range acquired {
		keys = append(keys, k)
	}
	signed := map[domain.Kind][]time.Time{}
	var checks []pace.Interval
	for id, j := range jobs {
		var from time.Time
		jobID, err := domain.ParseJobID(id)
		if err != nil {
			t.Fatal(err)
		}
		terms := acquired[workers.KeyOf(jobID, keys)]
		for _, ev := range j.events {
			switch e := ev.(type) {
			case domain.TransactionSigned:
				k := j.state.Kind.Family()
				signed[k] = append(signed[k], cmp.Or(e.StartedAt, e.At)) // the rate holds over the starts
			case domain.ReadinessCheckStarted:
				if !from.IsZero() {
					// Resumed by a new holder: the cut check ran at most until its term began.
					to := e.At
					for _, a := range terms {
						if a.After(from) && a.Before(to) {
							to = a
							break
						}
					}
					checks = append(checks, pace.Interval{From: from, To: to})
				}
				from = e.At
			case domain.ReadinessPassed, domain.ReadinessFailed, domain.ReadinessTimedOut:
				if !from.IsZero() {
					checks = append(checks, pace.Interval{From: from, To: ev.Header().At})
					from = time.Time{}
				}
			}
		}
		if !from.IsZero() {
			checks = append(checks, pace.Interval{From: from, To: j.events[len(j.events)-1].Header().At})
		}
	}
	for k, times := range signed {
		most, at := pace.MaxInWindow(times, time.Second)
		t.Logf("%s: %d transactions signed; at most %d in one second (from %s)", k, len(times), most, at.Format("15:04:05.000"))
		if most > fleetD {
			t.Errorf("invariant: D holds for the fleet; %s: %d transactions signed in the second from %s, D=%d", k, most, at.Format(time.RFC3339Nano), fleetD)
		}
	}
	most, at := pace.MaxOverlap(checks)
	t.Logf("readiness: %d checks; at most %d in progress at once (at %s)", len(checks), most, at.Format("15:04:05.000"))
	if most > fleetC {
		t.Errorf("invariant: C holds for the fleet; %d readiness checks in progress at %s, C=%d", most, at.Format(time.RFC3339Nano), fleetC)
	}
}

var fleetFenced = regexp.MustCompile(`(?m)^relayer_engine_fenced_appends_total (\d+)$`)

// A lease test across real pauses: two instances under load; the engine's holder is stopped
// (SIGSTOP) past its lease, the other takes the engine over, and the holder is resumed
// (SIGCONT). The deposed instance finds its term lost and stops its engine; nothing it tried is
// recorded or sent: every gateway request on chain comes from a transaction the log recorded, no
// job has two, and no transaction had to be reset for a nonce the deposed one took.
func TestADeposedEngineHolderRecordsAndSendsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("lease test: builds the binary and runs three processes for half a minute")
	}
	// One key: the engine lease; two keys: a lease per key, one on each instance.
	for _, keys := range []int{1, 2} {
		t.Run(fmt.Sprintf("keys=%d", keys), func(t *testing.T) { testDeposedHolder(t, keys) })
	}
}

func testDeposedHolder(t *testing.T, keys int) {
	f := newFleet(t, "relayer_fleet_stop", keys, fleetConfig)
	f.start(0)
	f.start(1)
	load := &crashLoad{client: &http.Client{Timeout: 10 * time.Second}, codes: map[int]int{}}
	load.pick = func(n int64) (string, string) {
		up := f.up()
		if len(up) == 0 {
			return "", ""
		}
		return up[int(n)%len(up)], ""
	}
	_, stopLoad := load.submitters(t, 2, 1<<30)
	time.Sleep(3 * time.Second)
	holder := -1
	for deadline := time.Now().Add(10 * time.Second); (holder < 0 || f.heldLeases(load.client) < keys) && time.Now().Before(deadline); {
		holder = f.leader(load.client)
	}
	if holder < 0 || f.heldLeases(load.client) < keys {
		t.Fatalf("the %d leases are not held (the instances hold %d and %d)", keys, f.leases(load.client, 0), f.leases(load.client, 1))
	}
	t.Logf("leases held: instance 0 %d, instance 1 %d", f.leases(load.client, 0), f.leases(load.client, 1))
	other := 1 - holder
	stoppedURL := f.urls[holder].Swap(nil) // the client stops sending to it, as a load balancer would
	p := f.procs[holder]
	if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	for f.leases(load.client, other) != keys {
		if time.Since(stopped) > 15*time.Second {
			t.Fatalf("the other instance did not take every lease over within 15 s of the holder's pause")
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("the other instance took the engine over %s after the holder's pause", time.Since(stopped).Round(time.Millisecond))
	time.Sleep(2 * time.Second) // the new holder works: recovers, signs, sends
	if err := p.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	resumed := time.Now()
	time.Sleep(3 * time.Second) // the deposed one wakes, finds its term lost, stops its engine
	f.urls[holder].Store(stoppedURL)
	res, err := load.client.Get(*stoppedURL + "/metrics")
	if err != nil {
		t.Fatalf("the resumed instance does not answer: %v", err)
	}
	metrics, _ := io.ReadAll(res.Body)
	res.Body.Close()
	// It runs no engine under a term it held before its pause: every term it holds now began
	// after it resumed (with several keys it may be handed one again, as any instance holding
	// fewer keys than another is).
	fresh := f.termsHeldSince(p.cmd.Process.Pid, keys, resumed)
	if m := fleetLeaseHeld.FindSubmatch(metrics); m == nil || string(m[1]) != strconv.Itoa(fresh) && string(m[1]) != "0" {
		t.Fatalf("invariant: a deposed holder does not run the engine; the resumed instance says it holds %s leases, and holds %d terms begun after it resumed", m[1], fresh)
	}
	refused := "0"
	if m := fleetFenced.FindSubmatch(metrics); m != nil {
		refused = string(m[1])
	}
	t.Logf("the deposed instance's engine had %s appends refused", refused)
	if !strings.Contains(p.stderr.String(), `msg="lease lost"`) {
		t.Errorf("the deposed instance did not notice it lost the lease:\n%s", p.stderr.String())
	}
	time.Sleep(2 * time.Second)
	stopLoad()
	acked := load.jobs()
	notTerminal := waitAllTerminal(t, load.client, *f.urls[other].Load(), acked, fleetFinalWait)

	store, jobs := f.checkLog(acked, notTerminal)
	for id, j := range jobs {
		if len(j.reset) > 0 {
			t.Errorf("invariant: the deposed holder took no nonce; job %s had its transaction reset: %v", id, j.reset)
		}
	}
	checkFleetPace(t, jobs, fleetTerms(t, store, keys))
	logServeProblems(t, f.runs)
}

// termsHeldSince counts the keys' leases whose current term the instance of process pid holds;
// it fails the test if one of them began before since.
func (f *fleet) termsHeldSince(pid, keys int, since time.Time) int {
	t := f.t
	t.Helper()
	store, err := postgres.Open(context.Background(), f.storeURL, postgres.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	held := 0
	for key, events := range fleetLeaseEvents(t, store, keys) {
		var current *lease.Acquired
		for _, e := range events {
			switch e := e.(type) {
			case lease.Acquired:
				current = &e
			case lease.Released:
				current = nil
			}
		}
		if current == nil || !strings.HasSuffix(current.Holder, fmt.Sprintf(" pid %d", pid)) {
			continue
		}
		if current.At.Before(since) {
			t.Errorf("invariant: a deposed holder does not run the engine; the resumed instance still holds term %d of key %s, begun %s before it resumed",
				current.Epoch, key, since.Sub(current.At).Round(time.Millisecond))
		}
		held++
	}
	return held
}

// fleetTerms are the times the terms of a fleet's key leases began, per key.
func fleetTerms(t *testing.T, store eventstore.Store, keys int) map[common.Address][]time.Time {
	t.Helper()
	out := map[common.Address][]time.Time{}
	for key, events := range fleetLeaseEvents(t, store, keys) {
		for _, e := range events {
			if a, ok := e.(lease.Acquired); ok {
				out[key] = append(out[key], a.At)
			}
		}
	}
	return out
}

// fleetLeaseEvents are the events of the term streams of a fleet's key leases, per key: the
// engine lease's for the one key of a fleet of one, else each key's own.
func fleetLeaseEvents(t testing.TB, store eventstore.Store, keys int) map[common.Address][]eventstore.Typed {
	t.Helper()
	codec := lease.NewCodec()
	out := map[common.Address][]eventstore.Typed{}
	for _, k := range devchainKeyAddresses(keys) {
		name := workers.SignerLeasePrefix + "-" + k
		if keys == 1 {
			name = workers.EngineLease
		}
		for r, err := range store.ReadStream(context.Background(), lease.Stream(name), 0) {
			if err != nil {
				t.Fatal(err)
			}
			e, err := codec.Decode(r)
			if err != nil {
				t.Fatal(err)
			}
			out[common.HexToAddress(k)] = append(out[common.HexToAddress(k)], e)
		}
	}
	return out
}

// devchainKeyAddresses are the lower-case addresses of the development chain's first n relayer keys.
func devchainKeyAddresses(n int) []string {
	var out []string
	for i := range n {
		out = append(out, strings.ToLower(crypto.PubkeyToAddress(devchain.RelayerDevKey(i).PublicKey).Hex()))
	}
	return out
}

// natsFleetURL is the NATS server the fleet test's instances use (the machine's JetStream).
const natsFleetURL = "nats://127.0.0.1:4222"

// natsFleetPrefix is a NATS prefix of the test's own; the streams of its keys' engines are
// deleted when the test ends.
func natsFleetPrefix(t testing.TB, keys int) string {
	prefix := "fleet" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	t.Cleanup(func() {
		nc, err := nats.Connect(natsFleetURL)
		if err != nil {
			t.Errorf("delete the test's NATS streams: %v", err)
			return
		}
		defer nc.Close()
		js, err := nc.JetStream()
		if err != nil {
			t.Errorf("delete the test's NATS streams: %v", err)
			return
		}
		streams := []string{prefix}
		for _, k := range devchainKeyAddresses(keys) {
			streams = append(streams, prefix+"-"+k[2:10])
		}
		for _, s := range streams {
			if err := js.DeleteStream(s); err != nil && !errors.Is(err, nats.ErrStreamNotFound) {
				t.Errorf("delete NATS stream %s: %v", s, err)
			}
		}
	})
	return prefix
}

// dumpRuns writes every process's log to a directory of its own that outlives the test, and
// names it: a failed run of the fleet is read from them.
func dumpRuns(t *testing.T, runs []*crashProc) {
	dir, err := os.MkdirTemp("", "fleet-logs-")
	if err != nil {
		t.Logf("keep the logs: %v", err)
		return
	}
	for _, p := range runs {
		_ = os.WriteFile(filepath.Join(dir, p.name+".log"), []byte(p.stderr.String()+p.stdout.String()), 0o600)
	}
	t.Logf("the instances' logs are in %s", dir)
}
