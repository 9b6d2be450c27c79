//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/eventstore/sqlite"
	"relayer/projections"
	"relayer/workers/devchain"
	"relayer/workers/gateway/contracts"
)

// The crash acceptance test: the development chain in its own process, `relayer serve` against
// it killed with SIGKILL at random moments while 500 jobs are submitted, and started again each
// time. A job is acknowledged when its POST answered 202 with its id: from then on it must
// never be lost and must reach a terminal status, and the chain must hold at most one gateway
// request for it, sent by a transaction its stream recorded (DESIGN section 3: the signed
// transaction is recorded before it is broadcast, recovery re-sends those bytes). Then serve
// stops gracefully and `relayer rebuild` must reproduce its read models' digest.
//
// The binaries are built without the race detector, so under `go test -race` only this test's
// own goroutines are instrumented and the processes run at full speed.

const (
	crashJobs       = 500
	crashMinKills   = 10
	crashSubmitters = 2
	// crashSubmitPause is each submitter's pause between POSTs: about 30 jobs a second in all
	// (besides the bursts before some kills), so that the 500 jobs span ten kills or more rather
	// than one run of serve.
	crashSubmitPause = 65 * time.Millisecond
	// crashKillBudget bounds the kill phase; crashFinalWait bounds the drain of the final run
	// (the longest a job can take is the readiness, tx_in_flight and response timeouts below).
	crashKillBudget = 150 * time.Second
	crashFinalWait  = 120 * time.Second
	crashKeyEnv     = "CRASH_TEST_RELAYER_KEY"
)

var (
	crashDigest     = regexp.MustCompile(`read models at position (\d+): snapshot sha256 ([0-9a-f]{64})`)
	snapshotDigest  = regexp.MustCompile(`snapshot sha256 ([0-9a-f]{64})`) // serve's on stopping, and rebuild's
	crashRecovery   = regexp.MustCompile(`msg="recovery done".*tx_in_flight=(\d+) receipt_received=(\d+)`)
	crashChainReady = regexp.MustCompile(`Press Ctrl-C to stop`)
	crashMetricJobs = regexp.MustCompile(`(?m)^relayer_jobs\{kind="[a-z-]+",status="([a-z_]+)"\} (\d+)`)
)

func TestCrashSIGKILLDuringFiveHundredJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test: builds the binary and runs processes for 20 to 30 s")
	}
	began := time.Now()
	dir := t.TempDir()
	bin, env, dc := startCrashRig(t, dir)
	cfgFile := filepath.Join(dir, "relayer.yaml")
	if err := os.WriteFile(cfgFile, []byte(crashConfig(dc)), 0o600); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(dir, "data")
	serveArgs := []string{"serve", "--config", cfgFile, "--data-dir", dataDir, "--listen", "127.0.0.1:0"}

	// Kill phase: submitters run against whichever serve is up; serve is killed and started
	// again until 500 jobs are acknowledged and it was killed at least ten times.
	killStart := time.Now()
	rng := killTimingRNG(t)
	load := &crashLoad{client: &http.Client{Timeout: 10 * time.Second}, codes: map[int]int{}}
	ctx, stopLoad := load.submitters(t, crashSubmitters, crashJobs)
	var (
		killAt    []time.Time
		runs      []*crashProc
		earlyKill int
		bursts    int
	)
	for load.count() < crashJobs || len(killAt) < crashMinKills {
		if time.Since(killStart) > crashKillBudget {
			stopLoad()
			t.Fatalf("after %s only %d jobs acknowledged and %d kills (want %d and %d)", time.Since(killStart).Round(time.Second),
				load.count(), len(killAt), crashJobs, crashMinKills)
		}
		p := startCrashProc(t, fmt.Sprintf("serve#%d", len(runs)), bin, env, serveArgs...)
		runs = append(runs, p)
		// Three kinds of kill, in turn, each at a random moment: one in four while serve starts
		// (catching up, recovering, re-sending), and of the others, every second one a few
		// hundred milliseconds at most after a burst of jobs, so that it finds jobs in every
		// status and POSTs still waiting for their answer.
		var burst sync.WaitGroup
		switch cycle, up := len(runs)-1, time.Duration(300+rng.IntN(2200))*time.Millisecond; {
		case cycle%4 == 3:
			time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
			earlyKill++
		case cycle%2 == 0:
			url := p.await(t, listeningOn, 60*time.Second)[1]
			load.url.Store(&url)
			lead := time.Duration(20+rng.IntN(300)) * time.Millisecond
			time.Sleep(up - min(lead, up))
			burst.Go(func() { load.burst(ctx, 30, 8, crashJobs) })
			time.Sleep(min(lead, up))
			bursts++
		default:
			url := p.await(t, listeningOn, 60*time.Second)[1]
			load.url.Store(&url)
			time.Sleep(up)
		}
		load.url.Store(nil)
		if p.exited() {
			t.Fatalf("%s ended on its own (%v) before it was killed:\n%s", p.name, p.err, p.stderr.String())
		}
		killAt = append(killAt, time.Now())
		p.kill()
		burst.Wait()
	}
	stopLoad()
	acked := load.jobs()
	beforeRecovered := 0
	for _, p := range runs {
		if !crashRecovery.MatchString(p.stderr.String()) {
			beforeRecovered++
		}
	}
	t.Logf("kill phase: %d kills (%d while starting, %d of them before recovery was done; %d right after a burst of jobs), %d jobs acknowledged, %s; POST outcomes %v",
		len(killAt), earlyKill, beforeRecovered, bursts, len(acked), time.Since(killStart).Round(time.Millisecond), load.outcomes())
	if n := load.refused(); n != 0 {
		t.Errorf("%d POSTs refused with 400: every body the load sends is valid (%s)", n, load.outcomes())
	}

	// Final run: serve drains every job, then stops gracefully and prints its digest.
	final := startCrashProc(t, "serve#final", bin, env, serveArgs...)
	runs = append(runs, final)
	url := final.await(t, listeningOn, 60*time.Second)[1]
	drainStart := time.Now()
	notTerminal := waitAllTerminal(t, load.client, url, acked, crashFinalWait)
	if notTerminal == nil {
		t.Logf("final run: every job terminal %s after serve listened", time.Since(drainStart).Round(time.Millisecond))
	}
	if err := final.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-final.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not stop within 30 s of SIGTERM:\n%s", final.stderr.String())
	}
	if final.err != nil {
		t.Fatalf("serve stopped with %v:\n%s", final.err, final.stderr.String())
	}
	m := crashDigest.FindStringSubmatch(final.stdout.String())
	if m == nil {
		t.Fatalf("serve printed no digest when it stopped:\n%s\n%s", final.stdout.String(), final.stderr.String())
	}
	liveDigest := m[2]

	// Restart consistency: rebuilding from the log gives the live read models.
	rebuild := exec.Command(bin, "rebuild", "--data-dir", dataDir, "--config", cfgFile)
	rebuild.Env = env
	out, err := rebuild.CombinedOutput()
	if err != nil {
		t.Fatalf("relayer rebuild: %v\n%s", err, out)
	}
	r := snapshotDigest.FindSubmatch(out)
	if r == nil {
		t.Fatalf("relayer rebuild printed no digest:\n%s", out)
	}
	if string(r[1]) != liveDigest {
		t.Errorf("relayer rebuild's read models differ from the live ones at position %s: rebuild %s, serve %s", m[1], r[1], liveDigest)
	}

	// The log: every acknowledged job is there and terminal, and so is every other job.
	jobs := readCrashLog(t, filepath.Join(dataDir, storeFile))
	checkCrashJobs(t, acked, jobs, notTerminal)

	// The chain: every gateway request was sent by a transaction a job recorded, and no job has
	// two.
	checkCrashChain(t, dc, jobs)

	// What the kills hit: each restart's recovery reports the jobs it found in flight.
	var inFlight, inReceipt, recoveries int
	for _, p := range runs {
		for _, rm := range crashRecovery.FindAllStringSubmatch(p.stderr.String(), -1) {
			a, _ := strconv.Atoi(rm[1])
			b, _ := strconv.Atoi(rm[2])
			inFlight, inReceipt, recoveries = inFlight+a, inReceipt+b, recoveries+1
		}
	}
	hit := statusAtKills(jobs, killAt)
	t.Logf("kills hit (status by event time): %s", hit)
	t.Logf("restarts' recovery (%d runs that got that far): %d jobs found in tx_in_flight, %d in receipt_received", recoveries, inFlight, inReceipt)
	logServeProblems(t, runs)
	t.Logf("total %s", time.Since(began).Round(time.Millisecond))
}

// buildRelayer builds this command without the race detector, with the build tags given (none:
// the default build), once per test process and set of tags: the tests that run the binary
// share it (they never change it). dir is where a test keeps its own files; the binary lives in
// a directory of the process's own, removed by TestMain. A failure to build fails the test: it
// must never pass by not running.
func buildRelayer(t testing.TB, dir string, tags ...string) string {
	t.Helper()
	key := strings.Join(tags, ",")
	builtBins.Lock()
	defer builtBins.Unlock()
	if bin, ok := builtBins.paths[key]; ok {
		return bin
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command, to build the relayer: %v", err)
	}
	if builtBins.dir == "" {
		if builtBins.dir, err = os.MkdirTemp("", "relayer-test-bin-"); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(builtBins.dir, fmt.Sprintf("relayer-%d", len(builtBins.paths)))
	cmd := exec.Command(goTool, "build", "-tags", key, "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	builtBins.paths[key] = bin
	return bin
}

// builtBins are the binaries buildRelayer built, by build tags, in dir.
var builtBins = struct {
	sync.Mutex
	dir   string
	paths map[string]string
}{paths: map[string]string{}}

// TestMain removes the binaries the tests built once they are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtBins.dir != "" {
		_ = os.RemoveAll(builtBins.dir)
	}
	os.Exit(code)
}

// crashEnv is the children's environment: this process's without its RELAYER_* settings (so
// that nothing set around the test changes serve), and the signer's key.
func crashEnv(key string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envPrefix) {
			env = append(env, kv)
		}
	}
	return append(env, crashKeyEnv+"="+key)
}

// crashProc is a child process with its output captured.
type crashProc struct {
	name           string
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	done           chan struct{}
	err            error // Wait's, set before done closes
}

func startCrashProc(t testing.TB, name, bin string, env []string, args ...string) *crashProc {
	t.Helper()
	p := &crashProc{name: name, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		if !p.exited() && name == "devchain" {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.done:
			case <-time.After(10 * time.Second):
			}
		}
		p.kill()
	})
	return p
}

func (p *crashProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *crashProc) kill() {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// stop sends SIGTERM and waits up to 30 s for the process to end. One that does not stop is a
// finding, and is killed so that its log can be read; one that ends with an error too.
func (p *crashProc) stop(t testing.TB) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("stop %s: %v", p.name, err)
	}
	select {
	case <-p.done:
		if p.err != nil {
			t.Errorf("%s stopped with %v", p.name, p.err)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("%s did not stop within 30 s of SIGTERM: killed", p.name)
		p.kill()
	}
}

// await waits for re to match the process's output and returns the submatches.
func (p *crashProc) await(t testing.TB, re *regexp.Regexp, limit time.Duration) []string {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		if m := re.FindStringSubmatch(p.stdout.String()); m != nil {
			return m
		}
		if p.exited() {
			t.Fatalf("%s ended (%v) before printing %q:\nstdout:\n%s\nstderr:\n%s", p.name, p.err, re, p.stdout.String(), p.stderr.String())
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not print %q within %s:\nstdout:\n%s\nstderr:\n%s", p.name, re, limit, p.stdout.String(), p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// crashChain is what `relayer devchain` printed.
type crashChain struct {
	httpURL, wsURL                string
	decryption, inputVerification common.Address
	acl                           common.Address
	threshold                     int
}

// dial connects to the chain's JSON-RPC endpoint, with a context that ends 30 s from now for the
// calls; release closes both.
func (c crashChain) dial(t testing.TB) (ctx context.Context, client *ethclient.Client, release func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	client, err := ethclient.Dial(c.httpURL)
	if err != nil {
		cancel()
		t.Fatalf("dial the devchain: %v", err)
	}
	return ctx, client, func() {
		client.Close()
		cancel()
	}
}

// parseDevchain reads the endpoints, the contracts and the threshold from what `relayer devchain`
// printed.
func parseDevchain(t testing.TB, out string) crashChain {
	t.Helper()
	field := func(re string) string {
		m := regexp.MustCompile(`(?m)^\s*` + re).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("devchain did not print %q:\n%s", re, out)
		}
		return m[1]
	}
	addr := `\s+(0x[0-9a-fA-F]{40})`
	threshold, err := strconv.Atoi(field(`KMS signers\s+\d+, threshold (\d+)`))
	if err != nil {
		t.Fatal(err)
	}
	return crashChain{
		httpURL: field(`JSON-RPC HTTP\s+(http://\S+)`), wsURL: field(`JSON-RPC WS\s+(ws://\S+)`),
		decryption: common.HexToAddress(field(`Decryption` + addr)), inputVerification: common.HexToAddress(field(`InputVerification` + addr)),
		acl: common.HexToAddress(field(`ACL \(host\)` + addr)), threshold: threshold,
	}
}

// crashConfig is serve's configuration against the devchain: short timeouts, so that a job
// whose response was lost would show as timed out within the test; TX rates and limits high
// enough that 500 jobs pass in seconds. chainSettings are more lines of the chain section
// ("bump_after_blocks: 2").
func crashConfig(c crashChain, chainSettings ...string) string {
	var more strings.Builder
	for _, s := range chainSettings {
		more.WriteString("  " + s + "\n")
	}
	return fmt.Sprintf(`host_chain_ids: [%d]
timeouts: {readiness: 20s, tx_in_flight: 20s, response: 30s}
chain:
  rpc_url: %s
  ws_url: %s
  chain_id: %d
  contracts: {decryption: "%s", input_verification: "%s", acl: "%s"}
  signer: {key_env: %s}
  user_decrypt_threshold: %d
  poll_interval: 200ms
%sretry_after: {input_proof_throttler_tps: 100, user_decrypt_throttler_tps: 100, public_decrypt_throttler_tps: 100, readiness_max_concurrency: 100}
rate_limit: {concurrency_limit: 0, rolling_limit: 0, read: {concurrency_limit: 0, rolling_limit: 0}}
`, contracts.DevHostChainID, c.httpURL, c.wsURL, devchain.ChainID, c.decryption.Hex(), c.inputVerification.Hex(), c.acl.Hex(), crashKeyEnv, c.threshold,
		more.String())
}

// crashJob is an acknowledged job.
type crashJob struct {
	id       string
	kind     domain.Kind
	scenario contracts.Scenario
}

// crashLoad submits jobs to whichever serve is up.
type crashLoad struct {
	client *http.Client
	url    atomic.Pointer[string] // the running serve's, nil while it is down or starting
	seq    atomic.Int64
	// pick, when set, chooses the instance for the n-th job instead of url: where to POST and
	// (other, "" for none) a second instance that must find the job at once.
	pick func(n int64) (url, other string)
	// misses counts the jobs the other instance did not find right after the POST.
	misses atomic.Int64

	mu    sync.Mutex
	acked []crashJob
	codes map[int]int // POST outcomes by status code, 0 for no answer
}

func (l *crashLoad) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acked)
}

func (l *crashLoad) jobs() []crashJob {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.acked)
}

// refused is how many POSTs were answered 400.
func (l *crashLoad) refused() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.codes[http.StatusBadRequest]
}

func (l *crashLoad) outcomes() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var parts []string
	for code, n := range l.codes {
		name := strconv.Itoa(code)
		if code == 0 {
			name = "no answer"
		}
		parts = append(parts, fmt.Sprintf("%s: %d", name, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// submitters starts n submitters (run), each until target jobs are acknowledged. ctx is theirs,
// for the bursts beside them; stop cancels it and waits until every submitter has returned. The
// end of the test cancels it too.
func (l *crashLoad) submitters(t testing.TB, n, target int) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { l.run(ctx, target) })
	}
	return ctx, func() {
		cancel()
		wg.Wait()
	}
}

// killTimingRNG is the random source of when (and whom) a process test kills, seeded from the
// clock; the seed is logged.
func killTimingRNG(t testing.TB) *rand.Rand {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	t.Logf("kill timing seed %d", seed)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// run submits jobs at a steady pace until target are acknowledged or ctx ends.
func (l *crashLoad) run(ctx context.Context, target int) {
	for ctx.Err() == nil && l.count() < target {
		if !l.submitOne(ctx) {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		time.Sleep(crashSubmitPause)
	}
}

// burst submits n jobs from conc goroutines at once, stopping early when serve goes down or
// target jobs are acknowledged: a kill that follows it finds many jobs on their way.
func (l *crashLoad) burst(ctx context.Context, n, conc, target int) {
	var left atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			for ctx.Err() == nil && l.count() < target && left.Add(-1) >= 0 && l.submitOne(ctx) {
			}
		})
	}
	wg.Wait()
}

// submitOne submits one job to the running serve, and reports false when none is running.
// Mostly ordinary jobs; one in 25 is denied (ACL denied, or a rejected proof) and one in 25
// reverts on the gateway, so that failures cross the kills too. Every job's content is its own.
func (l *crashLoad) submitOne(ctx context.Context) bool {
	n := l.seq.Add(1)
	u, other := l.url.Load(), ""
	if l.pick != nil {
		url, o := l.pick(n)
		u, other = &url, o
		if url == "" {
			u = nil
		}
	}
	if u == nil {
		return false
	}
	kinds := domain.Kinds()
	j := crashJob{kind: kinds[n%int64(len(kinds))], scenario: contracts.ScenarioNone}
	switch n % 25 {
	case 7:
		j.scenario = contracts.ScenarioDenied
	case 19:
		j.scenario = contracts.ScenarioRevert
	}
	body := crashBody(j.kind, j.scenario, fmt.Sprintf("crash-test/%d", n))
	code, id := l.post(ctx, *u+"/v2/"+j.kind.String(), body)
	if code == http.StatusAccepted && id != "" && other != "" {
		j.id = id
		if _, state := pollJob(l.client, other, j); state == "not found" {
			l.misses.Add(1)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.codes[code]++
	if code == http.StatusAccepted && id != "" {
		j.id = id
		l.acked = append(l.acked, j)
	}
	return true
}

// post sends one job and returns the status code (0 when no whole answer came: serve was killed
// or is not up, and the job is not acknowledged) and the job id of a 202.
func (l *crashLoad) post(ctx context.Context, url string, body []byte) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, ""
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := l.client.Do(req)
	if err != nil {
		return 0, ""
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, ""
	}
	var env struct {
		Result struct {
			JobID string `json:"jobId"`
		} `json:"result"`
	}
	if res.StatusCode == http.StatusAccepted && json.Unmarshal(b, &env) != nil {
		return 0, ""
	}
	return res.StatusCode, env.Result.JobID
}

var (
	crashApp = common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	// crashUserKey signs crashUser's user decrypts (admission checks the signature).
	crashUserKey = devchain.UserDevKey(1)
	crashUser    = crypto.PubkeyToAddress(crashUserKey.PublicKey)
	// crashDelegator (a funded development user) lets crashDelegate decrypt crashApp's handles
	// (grantCrashDelegation), for the delegated user decrypts of the load.
	crashDelegator   = crypto.PubkeyToAddress(devchain.UserDevKey(0).PublicKey)
	crashDelegateKey = devchain.UserDevKey(2)
	crashDelegate    = crypto.PubkeyToAddress(crashDelegateKey.PublicKey)
)

// startCrashRig is where a process test starts: it builds the relayer (buildRelayer, for the test
// that keeps its files in dir) and starts the development chain from it in a process of its own
// (startCrashChain), and logs how long that took. env is the children's environment: crashEnv
// with the development relayer key 0 as serve's signer, and extraEnv.
func startCrashRig(t testing.TB, dir string, extraEnv ...string) (bin string, env []string, dc crashChain) {
	t.Helper()
	began := time.Now()
	bin = buildRelayer(t, dir)
	env = append(crashEnv(hex.EncodeToString(crypto.FromECDSA(devchain.RelayerDevKey(0)))), extraEnv...)
	_, dc = startCrashChain(t, bin, env)
	t.Logf("built %s and started the development chain in %s", bin, time.Since(began).Round(time.Millisecond))
	return bin, env, dc
}

// startCrashChain starts `relayer devchain` from bin in a process of its own (args added to its
// command line), waits until it serves, and grants the crash tests' delegation on it.
func startCrashChain(t testing.TB, bin string, env []string, args ...string) (*crashProc, crashChain) {
	t.Helper()
	p := startCrashProc(t, "devchain", bin, env, append([]string{"devchain", "--http", "127.0.0.1:0", "--ws", "127.0.0.1:0"}, args...)...)
	p.await(t, crashChainReady, 60*time.Second)
	c := parseDevchain(t, p.stdout.String())
	grantCrashDelegation(t, c)
	return p, c
}

// grantCrashDelegation sends, from crashDelegator's key, the host ACL transaction that lets
// crashDelegate decrypt crashApp's handles, and waits for it to be mined.
func grantCrashDelegation(t testing.TB, c crashChain) {
	t.Helper()
	ctx, client, release := c.dial(t)
	defer release()
	acl := contracts.NewACL()
	opts := bind.NewKeyedTransactor(devchain.UserDevKey(0), big.NewInt(devchain.ChainID))
	opts.Context = ctx
	tx, err := bind.Transact(acl.Instance(client, c.acl), opts,
		acl.PackDelegateForUserDecryption(crashDelegate, crashApp, uint64(time.Now().Add(365*24*time.Hour).Unix())))
	if err != nil {
		t.Fatalf("delegate on the host ACL: %v", err)
	}
	rec, err := bind.WaitMined(ctx, client, tx.Hash())
	if err != nil || rec.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("delegate on the host ACL: receipt %v, %v", rec, err)
	}
}

// crashBody is a valid POST body of kind k for scenario s, unique by seed.
func crashBody(k domain.Kind, s contracts.Scenario, seed string) []byte {
	handle := contracts.TestHandle(s, seed)
	h := "0x" + hex.EncodeToString(handle[:])
	var m map[string]any
	switch k {
	case domain.PublicDecrypt:
		m = map[string]any{"ciphertextHandles": []string{h}, "extraData": "0x00"}
	case domain.UserDecrypt:
		m = map[string]any{
			"handleContractPairs": []any{map[string]any{"handle": h, "contractAddress": crashApp.Hex()}},
			"requestValidity":     map[string]any{"startTimestamp": strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10), "durationDays": "1"},
			"contractsChainId":    devchain.ChainID,
			"contractAddresses":   []string{crashApp.Hex()},
			"userAddress":         crashUser.Hex(),
			"publicKey":           "2000000000000000" + hex.EncodeToString(crypto.Keccak256([]byte("user public key"))),
			"extraData":           "0x00",
		}
	case domain.DelegatedUserDecrypt:
		m = map[string]any{
			"handleContractPairs": []any{map[string]any{"handle": h, "contractAddress": crashApp.Hex()}},
			"contractsChainId":    strconv.Itoa(devchain.ChainID),
			"contractAddresses":   []string{crashApp.Hex()},
			"delegatorAddress":    crashDelegator.Hex(),
			"delegateAddress":     crashDelegate.Hex(),
			"startTimestamp":      strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10),
			"durationDays":        "1",
			"publicKey":           "2000000000000000" + hex.EncodeToString(crypto.Keccak256([]byte("delegate public key"))),
			"extraData":           "0x00",
		}
	default:
		m = map[string]any{
			"contractChainId": devchain.ChainID, "contractAddress": crashApp.Hex(), "userAddress": crashUser.Hex(),
			"ciphertextWithInputVerification": hex.EncodeToString(contracts.TestCiphertext(s, seed, 64)), "extraData": "0x00",
		}
	}
	var b []byte
	var err error
	switch k {
	case domain.UserDecrypt:
		b, err = signBody(k, m, crashUserKey)
	case domain.DelegatedUserDecrypt:
		b, err = signBody(k, m, crashDelegateKey)
	default:
		b, err = json.Marshal(m)
	}
	if err != nil {
		panic(err)
	}
	return b
}

// waitAllTerminal polls the API until every acknowledged job answers a terminal status and the
// read models hold no job in a non-terminal status (which covers the jobs whose 202 was lost in
// a kill), or limit passes. It returns what was still not terminal, by job id, with why.
func waitAllTerminal(t testing.TB, client *http.Client, url string, acked []crashJob, limit time.Duration) map[string]string {
	t.Helper()
	pending := slices.Clone(acked)
	deadline := time.Now().Add(limit)
	for {
		terminal := make([]bool, len(pending))
		state := make([]string, len(pending))
		var wg sync.WaitGroup
		sem := make(chan struct{}, 8)
		for i, j := range pending {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				terminal[i], state[i] = pollJob(client, url, j)
			})
		}
		wg.Wait()
		why := map[string]string{}
		var still []crashJob
		for i, j := range pending {
			if !terminal[i] {
				still = append(still, j)
				why[j.id] = state[i]
			}
		}
		pending = still
		open := nonTerminalJobs(client, url)
		if len(pending) == 0 && open == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			t.Errorf("after %s, %d acknowledged jobs are not terminal and the read models hold %d non-terminal jobs (-1: /metrics unreadable)",
				limit, len(pending), open)
			return why
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// pollJob GETs one job: terminal is true for a result or a failure, and for a job retention
// archived (state "archived": only an ended job leaves the live store); otherwise state says
// where it is ("not found" for any other 404).
func pollJob(client *http.Client, url string, j crashJob) (terminal bool, state string) {
	res, err := client.Get(url + "/v2/" + j.kind.String() + "/" + j.id)
	if err != nil {
		return false, err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var env struct {
		Status string `json:"status"`
		Result struct {
			State string `json:"state"`
		} `json:"result"`
	}
	_ = json.Unmarshal(b, &env)
	switch {
	case res.StatusCode == http.StatusNotFound && bytes.Contains(b, []byte("was archived")):
		return true, "archived"
	case res.StatusCode == http.StatusNotFound:
		return false, "not found"
	case res.StatusCode == http.StatusAccepted:
		return false, env.Result.State
	case env.Status == "succeeded" || env.Status == "failed":
		return true, env.Status
	}
	return false, fmt.Sprintf("%d %s", res.StatusCode, bytes.TrimSpace(b))
}

// nonTerminalJobs reads /metrics' relayer_jobs: how many jobs are in a non-terminal status, -1
// if it cannot tell.
func nonTerminalJobs(client *http.Client, url string) int {
	res, err := client.Get(url + "/metrics")
	if err != nil {
		return -1
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		return -1
	}
	ms := crashMetricJobs.FindAllSubmatch(b, -1)
	if ms == nil {
		return -1
	}
	n := 0
	for _, m := range ms {
		st, err := domain.ParseStatus(string(m[1]))
		v, _ := strconv.ParseFloat(string(m[2]), 64)
		if err != nil || !st.Terminal() {
			n += int(v)
		}
	}
	return n
}

// crashLogJob is one job as its stream has it.
type crashLogJob struct {
	state    domain.State
	events   []domain.Event
	signed   []string // TransactionSigned hashes, lowercase, in order
	replaced []string // TransactionReplaced hashes (the replacements'), lowercase, in order
	reset    []string // TransactionReset hashes, lowercase
	receipt  string   // ReceiptRecorded's hash, lowercase
}

// sent is every transaction the job recorded before sending it: each signed one and each
// replacement. Any of them may be the one mined.
func (j *crashLogJob) sent() []string {
	return append(slices.Clone(j.signed), j.replaced...)
}

// readCrashLog reads the stopped relayer's log and folds every request stream.
func readCrashLog(t *testing.T, path string) map[string]*crashLogJob {
	t.Helper()
	store, err := sqlite.Open(path, sqlite.Config{ReadOnly: true})
	if err != nil {
		t.Fatalf("open the log: %v", err)
	}
	defer store.Close()
	return readLogJobs(t, store)
}

// readLogJobs folds every request stream of store's log.
func readLogJobs(t testing.TB, store eventstore.Store) map[string]*crashLogJob {
	t.Helper()
	codec := projections.NewCodec()
	jobs := map[string]*crashLogJob{}
	var poisoned []string
	for rec, err := range store.ReadAll(context.Background(), 0) {
		if err != nil {
			t.Fatalf("read the log: %v", err)
		}
		if rec.Stream == domain.PoisonStream {
			poisoned = append(poisoned, string(rec.Data))
			continue
		}
		id, ok := domain.JobIDFromStream(rec.Stream)
		if !ok {
			continue
		}
		e, err := projections.DecodeEvent(codec, rec)
		if err != nil {
			t.Fatalf("decode %s@%d: %v", rec.Stream, rec.Version, err)
		}
		j := jobs[id.String()]
		if j == nil {
			j = &crashLogJob{}
			jobs[id.String()] = j
		}
		j.state = domain.Evolve(j.state, e)
		j.events = append(j.events, e)
		switch e := e.(type) {
		case domain.TransactionSigned:
			j.signed = append(j.signed, strings.ToLower(e.TxHash))
		case domain.TransactionReplaced:
			j.replaced = append(j.replaced, strings.ToLower(e.TxHash))
		case domain.TransactionReset:
			j.reset = append(j.reset, strings.ToLower(e.TxHash))
		case domain.ReceiptRecorded:
			j.receipt = strings.ToLower(e.TxHash)
		}
	}
	if len(poisoned) > 0 {
		t.Logf("%d poisoned messages in the log:", len(poisoned))
		for i, p := range poisoned {
			if i == 10 {
				t.Logf("  ... and %d more", len(poisoned)-i)
				break
			}
			t.Logf("  %s", p)
		}
	}
	return jobs
}

// checkCrashJobs checks every acknowledged job against the log and reports the outcomes.
func checkCrashJobs(t testing.TB, acked []crashJob, jobs map[string]*crashLogJob, notTerminal map[string]string) {
	t.Helper()
	outcome := map[string]int{}
	var resets, resetJobs, badOrdinary int
	isAcked := map[string]bool{}
	for _, a := range acked {
		isAcked[a.id] = true
		j, ok := jobs[a.id]
		if !ok {
			t.Errorf("acknowledged %s job %s is not in the log: lost", a.kind, a.id)
			continue
		}
		s := j.state
		label := s.Status.String()
		if s.Label != "" {
			label += " " + s.Label
		}
		outcome[fmt.Sprintf("%s/%s: %s", a.kind, a.scenario, label)]++
		switch {
		case !s.Status.Terminal():
			t.Errorf("acknowledged %s job %s ended the run in %s (API: %s): %s", a.kind, a.id, s.Status, notTerminal[a.id], eventTrail(j))
		case a.scenario == contracts.ScenarioNone && s.Status != domain.Completed:
			badOrdinary++
			t.Errorf("ordinary %s job %s ended %s %s, not completed: %s", a.kind, a.id, s.Status, s.Label, eventTrail(j))
		}
	}
	var others, otherOpen int
	for id, j := range jobs {
		resets += len(j.reset)
		if len(j.reset) > 0 {
			resetJobs++
		}
		if isAcked[id] {
			continue
		}
		others++
		if !j.state.Status.Terminal() {
			otherOpen++
			t.Errorf("job %s (accepted, its 202 lost in a kill) ended the run in %s: %s", id, j.state.Status, eventTrail(j))
		}
	}
	keys := make([]string, 0, len(outcome))
	for k := range outcome {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("%d acknowledged jobs, %d more in the log whose 202 was lost (%d not terminal); %d ordinary jobs not completed", len(acked), others, otherOpen, badOrdinary)
	for _, k := range keys {
		t.Logf("  %-50s %d", k, outcome[k])
	}
	t.Logf("TransactionReset: %d events in %d jobs", resets, resetJobs)
	var replaced, replacedJobs int
	for _, j := range jobs {
		replaced += len(j.replaced)
		if len(j.replaced) > 0 {
			replacedJobs++
		}
	}
	t.Logf("TransactionReplaced: %d events in %d jobs", replaced, replacedJobs)
	shown := 0
	for id, j := range jobs {
		if len(j.reset) > 0 && shown < 5 {
			shown++
			t.Logf("  reset job %s (%s): %s", id, j.state.Status, eventTrail(j))
		}
	}
}

// eventTrail is a job's events in one line, for a failure message.
func eventTrail(j *crashLogJob) string {
	var b strings.Builder
	for i, e := range j.events {
		if i > 0 {
			b.WriteString(" -> ")
		}
		fmt.Fprintf(&b, "%s@%s", e.EventType(), e.Header().At.Format("15:04:05.000"))
		switch e := e.(type) {
		case domain.TransactionSigned:
			fmt.Fprintf(&b, "(%s nonce %d)", e.TxHash, e.Nonce)
		case domain.TransactionReplaced:
			fmt.Fprintf(&b, "(%s replaces %s)", e.TxHash, e.Replaces)
		case domain.TransactionReset:
			fmt.Fprintf(&b, "(%s: %s)", e.TxHash, e.Reason)
		case domain.ReceiptRecorded:
			fmt.Fprintf(&b, "(%s block %d request %s)", e.TxHash, e.BlockNumber, e.GatewayRequestID)
		}
		if l := domain.LabelOf(e); l != "" {
			fmt.Fprintf(&b, "[%s]", l)
		}
	}
	return b.String()
}

// checkCrashChain reads every gateway request on the chain: each must have been sent by a
// transaction some job's stream recorded, no job may have more than one, a job that recorded a
// receipt has exactly one, in that transaction, and no transaction a job reset (known not to be
// on chain and never to be) was mined.
func checkCrashChain(t testing.TB, c crashChain, jobs map[string]*crashLogJob) {
	t.Helper()
	ctx, client, release := c.dial(t)
	defer release()
	logs, err := client.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: big.NewInt(0),
		Addresses: []common.Address{c.decryption, c.inputVerification},
		Topics:    [][]common.Hash{{contracts.TopicPublicDecryptionRequest, contracts.TopicUserDecryptionRequest, contracts.TopicVerifyProofRequest}},
	})
	if err != nil {
		t.Fatalf("read the gateway requests: %v", err)
	}
	owner := map[string]string{}
	for id, j := range jobs {
		for _, h := range j.sent() {
			if other, ok := owner[h]; ok && other != id {
				t.Errorf("transaction %s is recorded by jobs %s and %s", h, other, id)
			}
			owner[h] = id
		}
	}
	requests := map[string][]string{}
	for _, l := range logs {
		h := strings.ToLower(l.TxHash.Hex())
		id, ok := owner[h]
		if !ok {
			t.Errorf("gateway request in transaction %s (block %d) was sent by no transaction any job recorded", h, l.BlockNumber)
			continue
		}
		requests[id] = append(requests[id], h)
	}
	var withReceipt, withoutReceipt int
	for id, j := range jobs {
		hs := requests[id]
		switch {
		case len(hs) > 1:
			t.Errorf("job %s has %d gateway requests on the chain (%v): %s", id, len(hs), hs, eventTrail(j))
		case j.receipt != "" && (len(hs) != 1 || hs[0] != j.receipt):
			t.Errorf("job %s recorded the receipt of %s but the chain holds its requests in %v: %s", id, j.receipt, hs, eventTrail(j))
		case j.receipt != "":
			withReceipt++
		case len(hs) == 1:
			// Allowed (at most one request), but the job ended without knowing it was sent.
			withoutReceipt++
			t.Logf("job %s ended %s %s with no receipt recorded, yet its request is on the chain in %s: %s", id, j.state.Status, j.state.Label, hs[0], eventTrail(j))
		}
		for _, h := range j.reset {
			_, err := client.TransactionReceipt(ctx, common.HexToHash(h))
			if !errors.Is(err, ethereum.NotFound) {
				t.Errorf("job %s reset transaction %s as never to be mined, but the chain has it (receipt lookup: %v): %s", id, h, err, eventTrail(j))
			}
		}
	}
	t.Logf("chain: %d gateway requests, every one from a recorded transaction; %d jobs with one request and its receipt recorded, %d with one request and no receipt recorded",
		len(logs), withReceipt, withoutReceipt)
}

// statusAtKills counts, at each kill, the jobs in each in-flight status by their events' times,
// and sums them over the kills.
func statusAtKills(jobs map[string]*crashLogJob, killAt []time.Time) string {
	sum := map[domain.Status]int{}
	most := map[domain.Status]int{}
	for _, at := range killAt {
		n := map[domain.Status]int{}
		for _, j := range jobs {
			var st domain.Status
			for _, e := range j.events {
				if e.Header().At.After(at) {
					break
				}
				if s, ok := domain.StatusAfter(e); ok {
					st = s
				}
			}
			if !st.IsZero() && !st.Terminal() {
				n[st]++
			}
		}
		for st, v := range n {
			sum[st] += v
			most[st] = max(most[st], v)
		}
	}
	var parts []string
	for _, st := range domain.Statuses() {
		if !st.Terminal() {
			parts = append(parts, fmt.Sprintf("%s %d (at most %d at one kill)", st, sum[st], most[st]))
		}
	}
	return strings.Join(parts, ", ")
}

// logServeProblems logs the warnings and errors the serve runs printed, a few of each kind.
func logServeProblems(t *testing.T, runs []*crashProc) {
	t.Helper()
	msg := regexp.MustCompile(`level=(WARN|ERROR) msg="?([^"=]*)`)
	count := map[string]int{}
	example := map[string]string{}
	for _, p := range runs {
		for line := range strings.Lines(p.stderr.String()) {
			m := msg.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			k := m[1] + " " + strings.TrimSpace(m[2])
			count[k]++
			if _, ok := example[k]; !ok {
				example[k] = p.name + ": " + strings.TrimSpace(line)
			}
		}
	}
	if len(count) == 0 {
		return
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("serve warnings and errors over every run:")
	for _, k := range keys {
		t.Logf("  %4d× %s\n        e.g. %s", count[k], k, example[k])
	}
}
