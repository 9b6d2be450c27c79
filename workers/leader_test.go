package workers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/projections/projectionstest"
	"relayer/workers/devchain"
	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
)

// fleetMember is one instance of an in-process fleet: its own projections and its own adapters
// of the fleet's keys, on a store and a chain the instances share.
type fleetMember struct {
	set    *projections.Set
	leader *Leader
	stop   func()
}

// startFleetMember starts an instance driving chain's relayer keys, or signers when given.
func startFleetMember(t *testing.T, name string, store eventstore.Store, chain *devchain.Chain, signers ...gateway.Signer) *fleetMember {
	t.Helper()
	return startFleetMemberLeasing(t, name, FleetConfig{LeaseDuration: time.Second, LeaseRenew: 200 * time.Millisecond}, store, chain, signers...)
}

// startFleetMemberLeasing is startFleetMember holding its leases as fleet says (its name aside).
func startFleetMemberLeasing(t *testing.T, name string, fleet FleetConfig, store eventstore.Store, chain *devchain.Chain, signers ...gateway.Signer) *fleetMember {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l, set, keys := newFleetLeaderLeasing(t, ctx, name, fleet, store, chain, signers...)
	setDone, runDone := make(chan error, 1), make(chan error, 1)
	go func() { setDone <- set.Run(ctx, store) }()
	go func() { runDone <- l.Run(ctx) }()
	m := &fleetMember{set: set, leader: l}
	stopped := false
	m.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-runDone; err != nil {
			t.Errorf("%s: leader: %v", name, err)
		}
		<-setDone
		for _, k := range keys {
			k.Close()
		}
	}
	t.Cleanup(m.stop)
	return m
}

// newFleetLeader is an instance's leader, its projections (caught up, not running) and its keys'
// adapters, driving chain's relayer keys, or signers when given; the caller closes the adapters.
func newFleetLeader(t *testing.T, ctx context.Context, name string, store eventstore.Store, chain *devchain.Chain, signers ...gateway.Signer) (*Leader, *projections.Set, []*gateway.Adapter) {
	return newFleetLeaderLeasing(t, ctx, name, FleetConfig{LeaseDuration: time.Second, LeaseRenew: 200 * time.Millisecond}, store, chain, signers...)
}

// newFleetLeaderLeasing is newFleetLeader holding its leases as fleet says (its name aside).
func newFleetLeaderLeasing(t *testing.T, ctx context.Context, name string, fleet FleetConfig, store eventstore.Store, chain *devchain.Chain, signers ...gateway.Signer) (*Leader, *projections.Set, []*gateway.Adapter) {
	t.Helper()
	set, err := projections.New(projections.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := set.CatchUp(ctx, store); err != nil {
		t.Fatal(err)
	}
	if len(signers) == 0 {
		for _, k := range chain.RelayerKeys() {
			signers = append(signers, gateway.NewSigner(k))
		}
	}
	gw := newTestAdapterFor(t, chain, signers[0])
	keys := []*gateway.Adapter{gw}
	for _, s := range signers[1:] {
		keys = append(keys, gw.WithKey(s))
	}
	cfg := Config{UserDecryptThreshold: chain.Threshold(), ReadinessPollInterval: 100 * time.Millisecond, TimeoutsPoll: 100 * time.Millisecond,
		Fleet: FleetConfig{Enabled: true, Instance: name, LeaseDuration: fleet.LeaseDuration, LeaseRenew: fleet.LeaseRenew}}
	l, err := NewLeader(cfg, Deps{Store: store, Projections: set, Gateway: gw, Keys: keys, Logger: testLogger(t),
		Tuning: retryafter.DefaultConfig})
	if err != nil {
		t.Fatal(err)
	}
	return l, set, keys
}

// keysHeld are the addresses of the keys whose engines run in m now.
func (m *fleetMember) keysHeld() []string {
	var out []string
	for _, k := range m.leader.keys {
		if k.current.Load() != nil {
			out = append(out, k.shard.key)
		}
	}
	return out
}

// fleetJob is the i-th job a fleet test offers: of every kind in turn, unique to the test, under
// the id its content gives (the one the API of any instance gives it).
func fleetJob(t *testing.T, i int) (domain.JobID, domain.Request) {
	k := domain.Kinds()[i%len(domain.Kinds())]
	req := testRequest(k, contracts.ScenarioNone, fmt.Sprintf("%s#%d", t.Name(), i))
	return domain.JobIDFor(domain.ContentHash(req), 0), req
}

// acceptOn records job id's acceptance of req through exec, as an instance's API would.
func acceptOn(t *testing.T, exec *projections.Executor, id domain.JobID, req domain.Request) {
	t.Helper()
	if _, err := exec.Execute(context.Background(), id, domain.Accept{At: domain.At{At: time.Now()}, JobID: id, Request: req,
		ContentHash: domain.ContentHash(req)}, eventstore.Metadata{CorrelationID: id.Stream()}); err != nil {
		t.Fatal(err)
	}
}

// endState waits for job id to end in set and returns its state as the log holds it.
func endState(t *testing.T, set *projections.Set, exec *projections.Executor, id domain.JobID) domain.State {
	t.Helper()
	eventually(t, func() bool { j, ok := set.Job(id); return ok && j.Status.Terminal() }, "job "+id.String()+" to end")
	s, err := exec.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Two instances of a fleet with three keys: the keys' leases spread over both, every job is
// signed by the key of its shard and completes, and when one instance stops, the other takes its
// keys over and their jobs go on; a third instance started later is handed a key.
func TestAFleetOfKeysSplitsTheJobsOverTheKeysAndTheInstances(t *testing.T) {
	chain := startTestChain(t, devchain.Config{RelayerKeys: 3})
	store := projectionstest.OpenStore(t)
	a := startFleetMember(t, "a", store, chain)
	b := startFleetMember(t, "b", store, chain)
	eventually(t, func() bool { return len(a.keysHeld())+len(b.keysHeld()) == 3 }, "the three keys' leases to be held")
	t.Logf("keys held: a %v, b %v", a.keysHeld(), b.keysHeld())
	if len(a.keysHeld()) == 0 || len(b.keysHeld()) == 0 {
		t.Errorf("the keys' leases did not spread over the instances: a holds %v, b %v", a.keysHeld(), b.keysHeld())
	}

	var sorted []common.Address
	for _, k := range chain.RelayerKeys() {
		sorted = append(sorted, crypto.PubkeyToAddress(k.PublicKey))
	}
	chainKeys := slices.Clone(sorted) // in the chain's order: KeyOf sorts them
	slices.SortFunc(sorted, func(x, y common.Address) int { return x.Cmp(y) })
	exec := &projections.Executor{Store: store, Codec: projections.NewCodec()}
	// accept accepts perKey jobs of every key's shard, of every kind in turn: a job's shard
	// follows from its content, so candidates are drawn until each shard has its share.
	seq := 0
	accept := func(perKey int) []domain.JobID {
		var ids []domain.JobID
		count := make([]int, len(sorted))
		for len(ids) < perKey*len(sorted) {
			seq++
			id, req := fleetJob(t, seq)
			if sh := shardOf(id, len(sorted)); count[sh] < perKey {
				count[sh]++
			} else {
				continue
			}
			acceptOn(t, exec, id, req)
			ids = append(ids, id)
		}
		return ids
	}
	// check waits for every job to complete and checks that its key is its shard's.
	check := func(ids []domain.JobID, on *fleetMember) map[common.Address]int {
		t.Helper()
		used := map[common.Address]int{}
		for _, id := range ids {
			s := endState(t, on.set, exec, id)
			if s.Status != domain.Completed {
				t.Errorf("job %s (%s): %s %s %s, want completed", id, s.Kind, s.Status, s.Label, s.Message)
				continue
			}
			from := common.HexToAddress(s.From)
			if want := KeyOf(id, chainKeys); from != want {
				t.Errorf("job %s was signed by %s; its shard's key is %s", id, from, want)
			}
			used[from]++
		}
		return used
	}
	used := check(accept(8), a)
	t.Logf("transactions per key: %v", used)
	if len(used) != 3 {
		t.Errorf("jobs were signed by %d keys, want all 3: %v", len(used), used)
	}

	b.stop()
	eventually(t, func() bool { return len(a.keysHeld()) == 3 }, "the remaining instance to take every key over")
	used = check(accept(4), a)
	t.Logf("after b stopped, transactions per key: %v", used)
	if len(used) != 3 {
		t.Errorf("after b stopped, jobs were signed by %d keys, want all 3: %v", len(used), used)
	}

	// A new instance gets its share: a, holding every key, hands one over when c asks, and the
	// jobs go on under the keys wherever they now run.
	c := startFleetMember(t, "c", store, chain)
	eventually(t, func() bool { return len(c.keysHeld()) == 1 && len(a.keysHeld()) == 2 }, "the new instance to be handed a key")
	t.Logf("after c started: a holds %v, c %v", a.keysHeld(), c.keysHeld())
	used = check(accept(4), c)
	if len(used) != 3 {
		t.Errorf("after c took a key, jobs were signed by %d keys, want all 3: %v", len(used), used)
	}
	// Two against one stays as it is: moving a key would only swap the roles.
	time.Sleep(3 * time.Second)
	if len(c.keysHeld()) != 1 || len(a.keysHeld()) != 2 {
		t.Errorf("the keys moved again: a holds %v, c %v", a.keysHeld(), c.keysHeld())
	}
}

// The keys of a fleet all read the one stream of gateway responses. An instance that takes a key
// over after its holder died before saving its block cursor reads the blocks since the saved one
// again: their responses belong to jobs of every key, most of them ended, whose receipts its
// dispatcher passed long ago. It keeps none of them (the read models say whose request each is,
// and that its job ended), so none holds its cursor back until the responses' time to live.
func TestANewHolderKeepsNoResponseOfEndedOrOtherKeysJobs(t *testing.T) {
	chain := startTestChain(t, devchain.Config{RelayerKeys: 2})
	store := projectionstest.OpenStore(t)
	ctx := context.Background()
	first, err := chain.Client().BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a := startFleetMember(t, "a", store, chain)
	eventually(t, func() bool { return len(a.keysHeld()) == 2 }, "both keys' leases to be held")
	exec := &projections.Executor{Store: store, Codec: projections.NewCodec()}
	var ids []domain.JobID
	for i := range 12 {
		id, req := fleetJob(t, i)
		acceptOn(t, exec, id, req)
		ids = append(ids, id)
	}
	shards := map[int]bool{}
	for _, id := range ids {
		eventually(t, func() bool { j, ok := a.set.Job(id); return ok && j.Status.Terminal() }, "job "+id.String()+" to end")
		if j, _ := a.set.Job(id); j.Status != domain.Completed {
			t.Fatalf("job %s: %s %q", id, j.Status, j.Label)
		}
		shards[shardOf(id, 2)] = true
	}
	if len(shards) != 2 {
		t.Fatalf("the jobs fell on %d of the 2 keys' shards", len(shards))
	}
	var cursors []string
	for _, k := range a.leader.keys {
		cursors = append(cursors, CheckpointStream(k.shard.name(ResponsesCursorConsumer)))
	}
	a.stop()
	// As if a had died before saving its cursors: they go back to before the jobs.
	for _, c := range cursors {
		ev, err := NewCheckpointCodec().Encode(BlockCursorSaved{Block: first, At: time.Now()}, eventstore.Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.Append(ctx, c, eventstore.Any, ev); err != nil {
			t.Fatal(err)
		}
	}

	b := startFleetMember(t, "b", store, chain)
	eventually(t, func() bool { return len(b.keysHeld()) == 2 }, "the new instance to take both keys")
	kept := func() (n int, saved []uint64) {
		for _, k := range b.leader.keys {
			if e := k.current.Load(); e != nil {
				n += e.responses.buffered()
			}
		}
		for _, c := range cursors {
			last, _, err := eventstore.Last(ctx, store, NewCheckpointCodec(), c)
			if err != nil {
				t.Fatal(err)
			}
			if last != nil {
				saved = append(saved, foldCursor(BlockCursorSaved{}, last).Block)
			}
		}
		return n, saved
	}
	head, err := chain.Client().BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool {
		n, cs := kept()
		return n == 0 && len(cs) == 2 && !slices.ContainsFunc(cs, func(c uint64) bool { return c < head })
	}, "the new holder to keep no response and save its cursors past the re-read blocks")
}

// An instance given other signing keys than the fleet running on the store is refused before it
// serves, naming both sets: it would split the jobs otherwise and strand some of them (found by an
// outside probe). It watches the fleet's leases for as long as the fleet took them for, not for
// its own lease duration, which would miss the renewals of a fleet renewing less often (found by
// a review). Once the fleet is stopped, instances started together with the new keys all start
// (a review found the second refused for the first's declaration).
func TestAnInstanceGivenOtherKeysThanTheRunningFleetIsRefused(t *testing.T) {
	chain := startTestChain(t, devchain.Config{RelayerKeys: 3})
	store := projectionstest.OpenStore(t)
	// The fleet renews every 1.6 s; a newcomer with the tests' 1 s lease duration looking for
	// as long as its own duration would see no renewal about two times in five.
	a := startFleetMemberLeasing(t, "a", FleetConfig{LeaseDuration: 5 * time.Second, LeaseRenew: 1600 * time.Millisecond}, store, chain)
	eventually(t, func() bool { return len(a.keysHeld()) == 3 }, "the three keys' leases to be held")

	var two []gateway.Signer
	var twoAddrs []string
	for _, k := range chain.RelayerKeys()[:2] {
		two = append(two, gateway.NewSigner(k))
		twoAddrs = append(twoAddrs, strings.ToLower(crypto.PubkeyToAddress(k.PublicKey).Hex()))
	}
	slices.Sort(twoAddrs) // declared in the addresses' order
	run := func(name string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		l, _, keys := newFleetLeader(t, ctx, name, store, chain, two...)
		defer func() {
			for _, k := range keys {
				k.Close()
			}
		}()
		done := make(chan error, 1)
		go func() { done <- l.Run(ctx) }()
		select {
		case err := <-done:
			return err
		case <-l.Ready():
			// Serving, and taking its leases; it stops a moment later.
			time.Sleep(300 * time.Millisecond)
			cancel()
			return <-done
		}
	}
	for range 2 {
		err := run("b")
		if !errors.Is(err, ErrFleetKeysDiffer) {
			t.Fatalf("an instance with two of the fleet's three keys: %v, want ErrFleetKeysDiffer", err)
		}
		for _, addr := range twoAddrs {
			if !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "a at ") {
				t.Fatalf("the refusal does not name both key sets and who declared them: %v", err)
			}
		}
	}
	declared := func() [][]string {
		var out [][]string
		for rec, err := range store.ReadStream(context.Background(), FleetKeysStream, 0) {
			if err != nil {
				t.Fatal(err)
			}
			var d KeysDeclared
			if err := json.Unmarshal(rec.Data, &d); err != nil {
				t.Fatal(err)
			}
			out = append(out, d.Keys)
		}
		return out
	}
	if d := declared(); len(d) != 1 || len(d[0]) != 3 {
		t.Fatalf("declared keys %v, want the fleet's three alone", d)
	}

	// The fleet stops (its leases are released): instances started together with the new keys
	// all start, and the new keys are declared once.
	a.stop()
	errs := make(chan error, 3)
	for _, name := range []string{"b", "c", "d"} {
		go func() { errs <- run(name) }()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Errorf("an instance started with the new keys once the fleet stopped: %v", err)
		}
	}
	if d := declared(); len(d) != 2 || !slices.Equal(d[1], twoAddrs) {
		t.Fatalf("declared keys %v, want the new two once, last", d)
	}
}

// A running instance stops once the fleet declares other keys than its own: an instance started
// with other keys in the moment between this one's check and its declaration (found by a review)
// runs only until this one looks again, a lease duration later.
func TestARunningInstanceStopsWhenTheFleetDeclaresOtherKeys(t *testing.T) {
	chain := startTestChain(t, devchain.Config{RelayerKeys: 2})
	store := projectionstest.OpenStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, set, keys := newFleetLeader(t, ctx, "a", store, chain)
	defer func() {
		for _, k := range keys {
			k.Close()
		}
	}()
	go func() { _ = set.Run(ctx, store) }()
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	select {
	case <-l.Ready():
	case err := <-done:
		t.Fatalf("the first instance did not start: %v", err)
	}
	ev, err := keysCodec().Encode(KeysDeclared{Keys: []string{"0x00000000000000000000000000000000000000b1"}, Holder: "b", At: time.Now().UTC()}, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Append(ctx, FleetKeysStream, eventstore.Any, ev); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, ErrFleetKeysDiffer) || !strings.Contains(err.Error(), "b declared") {
			t.Fatalf("the instance stopped with %v, want ErrFleetKeysDiffer naming the declaration", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the instance still runs 10 s after the fleet declared other keys")
	}
}
