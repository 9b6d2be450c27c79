package workers

import (
	"context"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/prometheus/client_golang/prometheus"

	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/projections/projectionstest"
	"relayer/workers/devchain"
	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
)

var ether = big.NewInt(1_000_000_000_000_000_000)

func weiOf(eth int64) *big.Int { return new(big.Int).Mul(big.NewInt(eth), ether) }

// signerEvents are the events of key's balance guard stream.
func (env *engineEnv) signerEvents(key common.Address) []eventstore.Typed {
	env.t.Helper()
	_, out := readStream(env.t, env.store, domain.SignerStream(key.Hex()), env.exec.Codec.Decode)
	return out
}

// jobEvents are job id's events.
func (env *engineEnv) jobEvents(id domain.JobID) []eventstore.Typed {
	env.t.Helper()
	_, out := readStream(env.t, env.store, id.Stream(), env.exec.Codec.Decode)
	return out
}

// gaugeValue is the gauge name{label=value} among cs, and whether it is there.
func gaugeValue(t *testing.T, cs []prometheus.Collector, name, label, value string) (float64, bool) {
	t.Helper()
	m, ok := findMetric(t, cs, name, label, func(v string) bool { return strings.EqualFold(v, value) })
	return m.GetGauge().GetValue(), ok
}

// newFundedKey is a key the chain did not make, funded with wei.
func newFundedKey(t *testing.T, chain *devchain.Chain, wei *big.Int) (gateway.Signer, common.Address) {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	addr := crypto.PubkeyToAddress(key.PublicKey)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := chain.Fund(ctx, addr, wei); err != nil {
		t.Fatal(err)
	}
	return gateway.NewSigner(key), addr
}

// waitingFor reports whether job id waits in processing with its last RetryScheduled labelled label.
func (env *engineEnv) waitingFor(id domain.JobID, label string) bool {
	j, ok := env.set.Job(id)
	if !ok || j.Status != domain.Processing {
		return false
	}
	evs := env.jobEvents(id)
	for i := len(evs) - 1; i >= 0; i-- {
		if r, ok := evs[i].(domain.RetryScheduled); ok {
			return r.Label == label
		}
	}
	return false
}

// A key whose own jobs take its balance below the floor is paused (SignerPaused in its stream,
// relayer_signer_paused 1): the transactions already sent complete, the other jobs wait in
// processing with the label insufficient_balance, and none fails. Topped up from another key, it
// resumes (SignerResumed) and every job completes, each with one transaction.
func TestAKeyBelowTheFloorIsPausedItsJobsWaitAndAllCompleteOnceItIsToppedUp(t *testing.T) {
	chain := startTestChain(t, devchain.Config{})
	floor := weiOf(1)
	// One wei above the floor: the first receipt takes the key below it.
	signer, addr := newFundedKey(t, chain, new(big.Int).Add(floor, big.NewInt(1)))
	tuning := retryafter.DefaultConfig()
	tuning.InputProofTPS, tuning.UserDecryptTPS, tuning.PublicDecryptTPS = 1, 1, 1
	env := startEngine(t, engineOpts{chain: chain, signer: signer, tuning: tuning,
		cfg: Config{BalanceFloorWei: floor.String(), BalanceInterval: 200 * time.Millisecond}})

	var ids []domain.JobID
	for range 3 {
		for _, k := range domain.Kinds() {
			ids = append(ids, env.accept(env.request(k, contracts.ScenarioNone)))
		}
	}
	eventually(t, func() bool { return len(env.signerEvents(addr)) > 0 }, "the key to be paused")
	evs := env.signerEvents(addr)
	p, ok := evs[0].(domain.SignerPaused)
	if !ok {
		t.Fatalf("the key's stream starts with %T, want SignerPaused", evs[0])
	}
	bal, _ := new(big.Int).SetString(p.BalanceWei, 10)
	if !strings.EqualFold(p.Address, addr.Hex()) || p.FloorWei != floor.String() || bal == nil || bal.Cmp(floor) >= 0 || !strings.Contains(p.Reason, "below the floor") {
		t.Fatalf("SignerPaused %+v: want the key %s, a balance below the floor %s", p, addr, floor)
	}
	cs := env.eng.Collectors()
	// The guard sets the gauge once the pause is in the log, a moment after the test sees it.
	eventually(t, func() bool {
		v, ok := gaugeValue(t, cs, "relayer_signer_paused", "address", addr.Hex())
		return ok && v == 1
	}, "relayer_signer_paused to say 1")
	if v, ok := gaugeValue(t, cs, "relayer_signer_balance_wei", "address", addr.Hex()); !ok || v <= 0 || v >= 1e18 {
		t.Errorf("relayer_signer_balance_wei{address=%s} = %v (%v), want the balance below the floor", addr, v, ok)
	}
	// The kinds start at once, so any of them may have had the first receipt.
	costs := 0
	for _, k := range domain.Kinds() {
		if v, ok := gaugeValue(t, cs, "relayer_job_cost_wei", "kind", k.String()); ok && v > 0 {
			costs++
		}
	}
	if costs == 0 {
		t.Error("relayer_job_cost_wei has no kind's cost once a receipt took the key below the floor")
	}

	// While paused: no job fails, and the ones not sent wait with insufficient_balance.
	var waiting domain.JobID
	eventually(t, func() bool {
		for _, id := range ids {
			if env.waitingFor(id, domain.LabelInsufficientBalance) {
				waiting = id
				return true
			}
		}
		return false
	}, "a job to wait for the key with the label insufficient_balance")
	time.Sleep(time.Second)
	sentBefore := 0
	for _, id := range ids {
		j, _ := env.set.Job(id)
		if j.Status == domain.Failure || j.Status == domain.TimedOut {
			t.Fatalf("job %s ended %s %q while its key was paused", id, j.Status, j.Label)
		}
		if j.Status != domain.Processing && j.Status != domain.Queued {
			sentBefore++
		}
	}
	if sentBefore == len(ids) {
		t.Fatal("every job was sent: the pause held none back")
	}
	t.Logf("paused at %s wei; %d of %d jobs sent before the pause, %s among those waiting", p.BalanceWei, sentBefore, len(ids), waiting)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := chain.Fund(ctx, addr, weiOf(1)); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool { return len(env.signerEvents(addr)) > 1 }, "the key to resume")
	evs = env.signerEvents(addr)
	r, ok := evs[1].(domain.SignerResumed)
	if !ok || len(evs) != 2 {
		t.Fatalf("the key's stream after the top-up: %v, want SignerPaused then SignerResumed", evs)
	}
	if !r.PausedSince.Equal(p.At) {
		t.Errorf("SignerResumed.PausedSince %v, want the pause's %v", r.PausedSince, p.At)
	}
	nonces := map[uint64]bool{}
	for _, id := range ids {
		s := env.waitTerminal(id, time.Minute)
		if s.Status != domain.Completed {
			t.Fatalf("%s job %s: %s %q (%s), want completed", s.Kind, id, s.Status, s.Label, s.Message)
		}
		signed := 0
		for _, ev := range env.jobEvents(id) {
			if _, ok := ev.(domain.TransactionSigned); ok {
				signed++
			}
		}
		if signed != 1 {
			t.Errorf("job %s signed %d transactions, want 1", id, signed)
		}
		sentBy(t, chain, s, addr)
		nonces[s.Nonce] = true
	}
	if len(nonces) != len(ids) {
		t.Errorf("%d jobs were sent with %d distinct nonces", len(ids), len(nonces))
	}
	if v, _ := gaugeValue(t, env.eng.Collectors(), "relayer_signer_paused", "address", addr.Hex()); v != 0 {
		t.Errorf("relayer_signer_paused after the top-up = %v, want 0", v)
	}
	for _, k := range domain.Kinds() {
		if v, ok := gaugeValue(t, env.eng.Collectors(), "relayer_job_cost_wei", "kind", k.String()); ok {
			t.Logf("relayer_job_cost_wei{kind=%s} = %.4g", k, v)
		}
	}
}

// A key drained by a transfer it signed itself, with the automatic floor (none is known before
// the key's first transaction): the node refuses the first job's transaction for funds, the
// guard reads the balance at once and pauses the key, and the job, whose bytes the node never
// held, goes back to waiting rather than fail. Topped up, the key resumes and the job completes.
func TestAnEmptyKeyWithTheAutomaticFloorIsPausedAtItsFirstRefusalAndItsJobWaits(t *testing.T) {
	chain := startTestChain(t, devchain.Config{})
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	addr := crypto.PubkeyToAddress(key.PublicKey)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := chain.Fund(ctx, addr, weiOf(1)); err != nil {
		t.Fatal(err)
	}
	drainKey(t, chain, key)
	env := startEngine(t, engineOpts{chain: chain, signer: gateway.NewSigner(key),
		cfg: Config{TxAttempts: 2, TxRetryDelay: 50 * time.Millisecond, BalanceInterval: 200 * time.Millisecond}})
	id := env.accept(env.request(domain.InputProof, contracts.ScenarioNone))
	if !waitUntil(30*time.Second, func() bool { return env.waitingFor(id, domain.LabelInsufficientBalance) }) {
		j, _ := env.set.Job(id)
		t.Fatalf("the job does not wait with insufficient_balance: %s %q, events %+v", j.Status, j.Label, env.jobEvents(id))
	}
	evs := env.signerEvents(addr)
	if len(evs) != 1 {
		t.Fatalf("the key's stream: %v, want one SignerPaused", evs)
	}
	if p, ok := evs[0].(domain.SignerPaused); !ok || p.FloorWei == "0" {
		t.Fatalf("the key's stream: %+v, want SignerPaused with the automatic floor", evs[0])
	}
	if err := chain.Fund(ctx, addr, weiOf(1)); err != nil {
		t.Fatal(err)
	}
	s := env.waitTerminal(id, time.Minute)
	if s.Status != domain.Completed {
		t.Fatalf("after the top-up: %s %q (%s), want completed", s.Status, s.Label, s.Message)
	}
	if evs := env.signerEvents(addr); len(evs) != 2 {
		t.Fatalf("the key's stream: %v, want SignerPaused and SignerResumed", evs)
	}
	sentBy(t, chain, s, addr)
}

// newTestGuard is the balance guard an engine with cfg would run for gw's key over store, built
// alone (as the engines of a fleet's instances each build one for the same key).
func newTestGuard(t *testing.T, store eventstore.Store, gw *gateway.Adapter, cfg Config) *balanceGuard {
	t.Helper()
	cfg.setDefaults()
	e := &Engine{cfg: cfg, store: store, gw: gw, log: testLogger(t), now: time.Now,
		exec: &projections.Executor{Store: store, Codec: projections.NewCodec()}}
	e.tx = newTxWorker(e)
	return newBalanceGuard(e)
}

// checkTogether runs check on every guard at once, rounds times.
func checkTogether(guards []*balanceGuard, rounds int) {
	var wg sync.WaitGroup
	for _, g := range guards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				g.check(context.Background())
			}
		}()
	}
	wg.Wait()
}

// Three instances following the same key (a fleet's, over one log) and seeing it cross the floor
// together record one SignerPaused, and after the top-up one SignerResumed: each event is
// appended with the stream's expected version, and a guard that lost the race reads the winner's.
func TestGuardsOfOneKeyCheckingTogetherRecordOnePauseAndOneResumption(t *testing.T) {
	chain := startTestChain(t, devchain.Config{})
	signer, addr := newFundedKey(t, chain, weiOf(2))
	store := projectionstest.OpenStore(t)
	gw := newTestAdapterFor(t, chain, signer)
	t.Cleanup(gw.Close)
	cfg := Config{BalanceFloorWei: weiOf(3).String()}
	guards := []*balanceGuard{newTestGuard(t, store, gw, cfg), newTestGuard(t, store, gw, cfg), newTestGuard(t, store, gw, cfg)}
	env := &engineEnv{t: t, store: store, exec: &projections.Executor{Store: store, Codec: projections.NewCodec()}}

	checkTogether(guards, 10)
	if evs := env.signerEvents(addr); len(evs) != 1 {
		t.Fatalf("three guards below the floor recorded %d events, want one SignerPaused: %v", len(evs), evs)
	}
	for i, g := range guards {
		if !g.isPaused() {
			t.Errorf("guard %d does not hold the key paused", i)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := chain.Fund(ctx, addr, weiOf(2)); err != nil {
		t.Fatal(err)
	}
	checkTogether(guards, 10)
	evs := env.signerEvents(addr)
	if len(evs) != 2 {
		t.Fatalf("after the top-up the stream holds %d events, want SignerPaused and one SignerResumed: %v", len(evs), evs)
	}
	if _, ok := evs[1].(domain.SignerResumed); !ok {
		t.Fatalf("the second event is a %T, want SignerResumed", evs[1])
	}
	for i, g := range guards {
		if g.isPaused() {
			t.Errorf("guard %d still holds the key paused", i)
		}
	}
}

// The log, not the process, says whether a key is paused: an engine that starts with the
// automatic floor (unknown until the key's first transaction) holds a key the log paused to the
// floor the pause recorded, and does not resume it for want of a floor of its own.
func TestAKeyTheLogPausedStaysPausedAfterARestartWithTheAutomaticFloor(t *testing.T) {
	chain := startTestChain(t, devchain.Config{})
	signer, addr := newFundedKey(t, chain, weiOf(2))
	store := projectionstest.OpenStore(t)
	gw := newTestAdapterFor(t, chain, signer)
	t.Cleanup(gw.Close)
	newTestGuard(t, store, gw, Config{BalanceFloorWei: weiOf(3).String()}).check(context.Background())

	restarted := newTestGuard(t, store, gw, Config{})
	if err := restarted.load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !restarted.isPaused() {
		t.Fatal("a key the log paused is not paused at the engine's start")
	}
	restarted.check(context.Background())
	env := &engineEnv{t: t, store: store, exec: &projections.Executor{Store: store, Codec: projections.NewCodec()}}
	if evs := env.signerEvents(addr); !restarted.isPaused() || len(evs) != 1 {
		t.Fatalf("after a check with no floor of its own: paused %v, stream %v; want it paused, the stream as it was", restarted.isPaused(), evs)
	}
	if f := restarted.lastFloor(); f == nil || f.Cmp(weiOf(3)) != 0 {
		t.Fatalf("the floor held to is %v, want the pause's %v", f, weiOf(3))
	}
}

// The automatic floor is BalanceFloorJobs times the costliest reserve (gas limit × max fee per
// gas) among the key's last reserveWindow transactions: it follows the fees down as the costly
// transactions leave the window, and reading it changes nothing.
func TestTheAutomaticFloorIsTenTimesTheCostliestRecentReserve(t *testing.T) {
	g := &balanceGuard{}
	if f := g.floorNow(); f != nil {
		t.Fatalf("before any transaction the floor is %v, want none", f)
	}
	g.observe(&gateway.Prepared{GasLimit: 200_000, GasFeeCap: big.NewInt(3_000_000_000)}) // 6e14
	g.observe(&gateway.Prepared{GasLimit: 100_000, GasFeeCap: big.NewInt(2_000_000_000)}) // 2e14
	want := new(big.Int).Mul(big.NewInt(6e14), big.NewInt(BalanceFloorJobs))
	for range 3 {
		if f := g.floorNow(); f == nil || f.Cmp(want) != 0 {
			t.Fatalf("floor %v, want %v", f, want)
		}
	}
	for range reserveWindow {
		g.observe(&gateway.Prepared{GasLimit: 100_000, GasFeeCap: big.NewInt(1_000_000_000)}) // 1e14
	}
	if f, want := g.floorNow(), new(big.Int).Mul(big.NewInt(1e14), big.NewInt(BalanceFloorJobs)); f.Cmp(want) != 0 {
		t.Fatalf("once the costly transactions left the window the floor is %v, want %v", f, want)
	}
	if g := (&balanceGuard{floor: big.NewInt(7)}); g.floorNow().Cmp(big.NewInt(7)) != 0 {
		t.Fatal("a configured floor is not the floor in force")
	}
}

// waitUntil polls cond every 20 ms until it holds (true) or limit passes (false).
func waitUntil(limit time.Duration, cond func() bool) bool {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}
