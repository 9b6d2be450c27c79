package workers

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"

	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/projections/projectionstest"
	"relayer/workers/devchain"
	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
)

// These tests stop an engine and start another on the same log and the same chain: as far as
// the log and the chain can tell, a crash and a restart. What happened "before the crash" is
// written into the log (and sent to the chain) by the test itself, exactly as the workers would
// have, so that each test stops at the instant it is about.

// crashRig is a development chain and a SQLite log that outlive the engines started on them,
// one at a time. Its engineEnv (request, accept, waitTerminal, eventTypes) sees the projections
// of the engine started last.
type crashRig struct {
	*engineEnv
}

func newCrashRig(t *testing.T, chainCfg devchain.Config) *crashRig {
	t.Helper()
	chain := startTestChain(t, chainCfg)
	store := projectionstest.OpenStore(t)
	return &crashRig{engineEnv: &engineEnv{
		t: t, chain: chain, store: store,
		exec: &projections.Executor{Store: store, Codec: projections.NewCodec()},
	}}
}

// start starts an engine on the rig's log and chain and returns its stop (also run at the
// end of the test); stopping is the crash.
func (r *crashRig) start(o engineOpts) (stop func()) {
	r.t.Helper()
	set, eng, stop := startEngineOn(r.t, r.store, r.chain, o)
	r.set, r.eng = set, eng
	return stop
}

// prepareAndRecord does what the tx worker does up to the instant before it broadcasts: it
// signs job id's gateway request with gw and records it (TransactionSigned).
func (r *crashRig) prepareAndRecord(gw *gateway.Adapter, id domain.JobID, req domain.Request) *gateway.Prepared {
	r.t.Helper()
	ctx := context.Background()
	p, err := gw.Prepare(ctx, req)
	if err != nil {
		r.t.Fatal(err)
	}
	r.execute(id, domain.SignTransaction{
		At: domain.At{At: time.Now()}, From: p.From.Hex(), Nonce: p.Nonce, TxHash: p.Hash.Hex(), RawTx: hex.EncodeToString(p.Raw),
	})
	return p
}

// signedInputProof is where most crash tests start: an input proof accepted, and its transaction
// signed with a new adapter and recorded but not sent (prepareAndRecord).
func (r *crashRig) signedInputProof() (domain.Request, domain.JobID, *gateway.Adapter, *gateway.Prepared) {
	r.t.Helper()
	req := r.request(domain.InputProof, contracts.ScenarioNone)
	id := r.accept(req)
	gw := newTestAdapter(r.t, r.chain)
	return req, id, gw, r.prepareAndRecord(gw, id, req)
}

// wantCompleted waits up to 20 s for job id, named what in the failure, to end, and reports it
// unless it completed.
func (r *crashRig) wantCompleted(what string, id domain.JobID) {
	r.t.Helper()
	if s := r.waitTerminal(id, 20*time.Second); s.Status != domain.Completed {
		r.t.Errorf("%s: %s %q (%s), want completed", what, s.Status, s.Label, s.Message)
	}
}

// execute records cmd on job id as a worker of the crashed engine would have.
func (r *crashRig) execute(id domain.JobID, cmd domain.Command) {
	r.t.Helper()
	if _, err := r.exec.Execute(context.Background(), id, cmd, eventstore.Metadata{CorrelationID: id.Stream(), CausationID: "test"}); err != nil {
		r.t.Fatalf("%s on %s: %v", cmd.CommandName(), id, err)
	}
}

// events reads job id's stream.
func (r *crashRig) events(id domain.JobID) ([]eventstore.Record, []domain.Event) {
	r.t.Helper()
	return readStream(r.t, r.store, id.Stream(), r.domainEvent)
}

// restart starts a new engine on the rig (the crash's aftermath) and waits up to 20 s for job id
// to end in status with label (any label when empty) and with exactly the events of the types
// want, which it returns.
func (r *crashRig) restart(id domain.JobID, status domain.Status, label string, want ...string) []domain.Event {
	r.t.Helper()
	r.start(engineOpts{})
	s := r.waitTerminal(id, 20*time.Second)
	if s.Status != status || (label != "" && s.Label != label) {
		r.t.Fatalf("%s %q (%s), want %s %s", s.Status, s.Label, s.Message, status, label)
	}
	_, evs := r.events(id)
	if got := typesOf(evs); !slices.Equal(got, want) {
		r.t.Fatalf("events %v, want %v", got, want)
	}
	return evs
}

// requestsOnChain returns the hashes of the transactions whose request events carry req, in
// chain order: how many gateway requests the chain holds for that job.
func requestsOnChain(t *testing.T, chain *devchain.Chain, req domain.Request) []common.Hash {
	t.Helper()
	a := chain.Addresses()
	logs, err := chain.Client().FilterLogs(context.Background(), ethereum.FilterQuery{
		FromBlock: big.NewInt(0),
		Addresses: []common.Address{a.Decryption, a.InputVerification},
		Topics:    [][]common.Hash{{contracts.TopicPublicDecryptionRequest, contracts.TopicUserDecryptionRequest, contracts.TopicVerifyProofRequest}},
	})
	if err != nil {
		t.Fatal(err)
	}
	dec, iv := contracts.NewDecryption(), contracts.NewInputVerification()
	var handles [][32]byte
	switch {
	case req.PublicDecrypt != nil:
		for _, h := range req.PublicDecrypt.CiphertextHandles {
			handles = append(handles, common.HexToHash(h))
		}
	case req.UserDecrypt != nil:
		for _, p := range req.UserDecrypt.HandleContractPairs {
			handles = append(handles, common.HexToHash(p.Handle))
		}
	case req.DelegatedUserDecrypt != nil:
		for _, p := range req.DelegatedUserDecrypt.HandleContractPairs {
			handles = append(handles, common.HexToHash(p.Handle))
		}
	}
	var out []common.Hash
	for i := range logs {
		l := &logs[i]
		var match bool
		switch l.Topics[0] {
		case contracts.TopicVerifyProofRequest:
			ev, err := iv.UnpackVerifyProofRequestEvent(l)
			if err != nil {
				t.Fatal(err)
			}
			match = req.InputProof != nil && bytes.Equal(ev.CiphertextWithZKProof, common.FromHex(req.InputProof.Ciphertext))
		case contracts.TopicPublicDecryptionRequest:
			ev, err := dec.UnpackPublicDecryptionRequestEvent(l)
			if err != nil {
				t.Fatal(err)
			}
			match = req.PublicDecrypt != nil && slices.Equal(ev.CtHandles, handles)
		case contracts.TopicUserDecryptionRequest:
			ev, err := dec.UnpackUserDecryptionRequestEvent(l)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case req.UserDecrypt != nil:
				match = slices.Equal(ev.CtHandles, handles) && ev.UserAddress == common.HexToAddress(req.UserDecrypt.UserAddress)
			case req.DelegatedUserDecrypt != nil: // announced for the delegate, whose key the shares are for
				match = slices.Equal(ev.CtHandles, handles) && ev.UserAddress == common.HexToAddress(req.DelegatedUserDecrypt.DelegateAddress)
			}
		}
		if match {
			out = append(out, l.TxHash)
		}
	}
	return out
}

// responsesOnChain counts the response events of type topic for gateway request requestID.
func responsesOnChain(t testing.TB, chain *devchain.Chain, topic common.Hash, requestID *big.Int) int {
	t.Helper()
	a := chain.Addresses()
	logs, err := chain.Client().FilterLogs(context.Background(), ethereum.FilterQuery{
		FromBlock: big.NewInt(0),
		Addresses: []common.Address{a.Decryption, a.InputVerification},
		Topics:    [][]common.Hash{{topic}, {common.BigToHash(requestID)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return len(logs)
}

// savedGatewayCursor is the responses listener's last saved cursor (false when none).
func savedGatewayCursor(t *testing.T, store eventstore.Store) (BlockCursorSaved, bool) {
	t.Helper()
	var last *eventstore.Record
	for rec, err := range store.ReadStream(context.Background(), CheckpointStream(ResponsesCursorConsumer), 0) {
		if err != nil {
			t.Fatal(err)
		}
		last = &rec
	}
	if last == nil {
		return BlockCursorSaved{}, false
	}
	v, err := NewCheckpointCodec().Decode(*last)
	if err != nil {
		t.Fatal(err)
	}
	return v.(BlockCursorSaved), true
}

// wantOneRequest fails unless the chain holds exactly one gateway request for req, sent by
// transaction want.
func wantOneRequest(t *testing.T, chain *devchain.Chain, what string, req domain.Request, want common.Hash) {
	t.Helper()
	got := requestsOnChain(t, chain, req)
	if len(got) != 1 || got[0] != want {
		t.Errorf("%s: gateway requests on chain sent by %v, want exactly one, by %s", what, got, want.Hex())
	}
}

func typesOf(evs []domain.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.EventType()
	}
	return out
}

// passReadiness moves a queued decrypt to processing as the crashed engine's readiness worker
// would have.
func (r *crashRig) passReadiness(id domain.JobID) {
	r.t.Helper()
	r.execute(id, domain.StartReadiness{At: domain.At{At: time.Now()}})
	r.execute(id, domain.PassReadiness{At: domain.At{At: time.Now()}})
}

func TestRecoverySendsTheRecordedBytesOfATransactionSignedButNeverBroadcast(t *testing.T) {
	r := newCrashRig(t, devchain.Config{})
	type job struct {
		id  domain.JobID
		req domain.Request
		p   *gateway.Prepared
	}
	// The crashed engine signed and recorded one transaction of each kind, and died before
	// sending any of them.
	gw := newTestAdapter(t, r.chain)
	var jobs []job
	for _, k := range domain.Kinds() {
		req := r.request(k, contracts.ScenarioNone)
		id := r.accept(req)
		if k.NeedsReadiness() {
			r.passReadiness(id)
		}
		jobs = append(jobs, job{id, req, r.prepareAndRecord(gw, id, req)})
	}
	gw.Close()
	for _, j := range jobs {
		if got := requestsOnChain(t, r.chain, j.req); len(got) != 0 {
			t.Fatalf("%s: requests on chain before the restart: %v", j.req.Kind(), got)
		}
	}

	restartAt, err := r.store.Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r.start(engineOpts{})
	for _, j := range jobs {
		k := j.req.Kind()
		r.wantCompleted(k.String(), j.id)
		recs, evs := r.events(j.id)
		wantEventCausations(t, recs, restartAt)
		signed, receipts := 0, 0
		for _, e := range evs {
			switch e := e.(type) {
			case domain.TransactionSigned:
				signed++
			case domain.ReceiptRecorded:
				receipts++
				if e.TxHash != j.p.Hash.Hex() {
					t.Errorf("%s: receipt of %s, want the recorded transaction %s", k, e.TxHash, j.p.Hash.Hex())
				}
			}
		}
		if signed != 1 || receipts != 1 {
			t.Errorf("%s: %d TransactionSigned and %d ReceiptRecorded (%v), want one each", k, signed, receipts, typesOf(evs))
		}
		wantOneRequest(t, r.chain, k.String(), j.req, j.p.Hash)
	}
}

func TestRecoveryRecordsTheReceiptOfAMinedTransactionAndAppliesTheResponsesItMissed(t *testing.T) {
	r := newCrashRig(t, devchain.Config{})
	ctx := context.Background()

	// A first run saves the gateway cursor; then the engine dies.
	stop := r.start(engineOpts{})
	stop()
	before, ok := savedGatewayCursor(t, r.store)
	if !ok {
		t.Fatal("the first run saved no gateway cursor")
	}

	// What the crashed engine did next: sign, record and send one request of each kind. They
	// are mined and answered on chain while no engine runs: no receipt and no response is in
	// the log.
	type job struct {
		id   domain.JobID
		req  domain.Request
		p    *gateway.Prepared
		rec  *gateway.Receipt
		resp common.Hash
		want int
	}
	gw := newTestAdapter(t, r.chain)
	defer gw.Close()
	var jobs []job
	for _, k := range domain.Kinds() {
		req := r.request(k, contracts.ScenarioNone)
		id := r.accept(req)
		j := job{id: id, req: req}
		switch k {
		case domain.PublicDecrypt:
			j.resp, j.want = contracts.TopicPublicDecryptionResponse, 1
		case domain.UserDecrypt, domain.DelegatedUserDecrypt:
			j.resp, j.want = contracts.TopicUserDecryptionResponse, r.chain.Threshold()
		default:
			j.resp, j.want = contracts.TopicVerifyProofResponse, 1
		}
		if k.NeedsReadiness() {
			r.passReadiness(id)
		}
		j.p = r.prepareAndRecord(gw, id, req)
		rec, err := gw.Broadcast(ctx, j.p)
		if err != nil {
			t.Fatalf("%s: broadcast: %v", k, err)
		}
		j.rec = rec
		jobs = append(jobs, j)
	}
	for _, j := range jobs {
		eventually(t, func() bool { return responsesOnChain(t, r.chain, j.resp, j.rec.RequestID) >= j.want },
			fmt.Sprintf("the %s response on chain", j.req.Kind()))
		if before.Block > j.rec.BlockNumber {
			t.Fatalf("%s: the saved cursor (block %d) is past the request's block %d: the test proves nothing", j.req.Kind(), before.Block, j.rec.BlockNumber)
		}
	}

	r.start(engineOpts{})
	for _, j := range jobs {
		k := j.req.Kind()
		r.wantCompleted(k.String(), j.id)
		_, evs := r.events(j.id)
		var receipts []domain.ReceiptRecorded
		for _, e := range evs {
			if rr, ok := e.(domain.ReceiptRecorded); ok {
				receipts = append(receipts, rr)
			}
		}
		if len(receipts) != 1 || receipts[0].TxHash != j.p.Hash.Hex() || receipts[0].GatewayRequestID != j.rec.RequestID.String() {
			t.Errorf("%s: receipts %+v, want one, of %s with request id %s", k, receipts, j.p.Hash.Hex(), j.rec.RequestID)
		}
		wantOneRequest(t, r.chain, k.String(), j.req, j.p.Hash)
	}
}

func TestRecoveryResetsAJobWhoseNonceAnotherTransactionTook(t *testing.T) {
	r := newCrashRig(t, devchain.Config{})
	ctx := context.Background()

	req, id, gw, first := r.signedInputProof()
	gw.Close()

	// Another sender with the same key takes the recorded transaction's nonce: those bytes can
	// never be mined now.
	key := r.chain.RelayerKey()
	self := crypto.PubkeyToAddress(key.PublicKey)
	other, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{
		ChainID: r.chain.ChainID(), Nonce: first.Nonce, GasTipCap: first.GasTipCap, GasFeeCap: first.GasFeeCap, Gas: 21_000, To: &self, Value: big.NewInt(1),
	}), types.LatestSignerForChainID(r.chain.ChainID()), key)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.chain.Client().SendTransaction(ctx, other); err != nil {
		t.Fatal(err)
	}
	if _, err := r.chain.WaitReceipt(ctx, other.Hash()); err != nil {
		t.Fatal(err)
	}

	evs := r.restart(id, domain.Completed, "", "RequestAccepted", "TransactionSigned", "TransactionReset", "TransactionSigned", "ReceiptRecorded", "RequestCompleted")
	reset := evs[2].(domain.TransactionReset)
	second := evs[3].(domain.TransactionSigned)
	receipt := evs[4].(domain.ReceiptRecorded)
	if reset.TxHash != first.Hash.Hex() {
		t.Errorf("reset names %s, want the first transaction %s", reset.TxHash, first.Hash.Hex())
	}
	if second.TxHash == first.Hash.Hex() || second.Nonce == first.Nonce {
		t.Errorf("the new transaction %s (nonce %d) is the first one again (%s, nonce %d)", second.TxHash, second.Nonce, first.Hash.Hex(), first.Nonce)
	}
	if receipt.TxHash != second.TxHash {
		t.Errorf("receipt of %s, want the new transaction %s", receipt.TxHash, second.TxHash)
	}
	wantOneRequest(t, r.chain, "input proof", req, common.HexToHash(second.TxHash))
	if _, err := r.chain.Client().TransactionReceipt(ctx, first.Hash); !errors.Is(err, ethereum.NotFound) {
		t.Errorf("the first transaction's receipt: %v, want not found", err)
	}
}

func TestRecoveryResumesQueuedAndProcessingJobsInOrder(t *testing.T) {
	r := newCrashRig(t, devchain.Config{})

	// Before the crash: six public decrypts accepted in order; a readiness worker had picked up
	// the fifth, then the second. Three more jobs were in processing.
	queued := make([]domain.JobID, 6)
	for i := range queued {
		queued[i] = r.accept(r.request(domain.PublicDecrypt, contracts.ScenarioNone))
	}
	for _, i := range []int{4, 1} {
		r.execute(queued[i], domain.StartReadiness{At: domain.At{At: time.Now()}})
	}
	processing := []domain.JobID{
		r.accept(r.request(domain.InputProof, contracts.ScenarioNone)),
		r.accept(r.request(domain.InputProof, contracts.ScenarioNone)),
	}
	for _, k := range []domain.Kind{domain.PublicDecrypt, domain.UserDecrypt} {
		id := r.accept(r.request(k, contracts.ScenarioNone))
		r.passReadiness(id)
		processing = append(processing, id)
	}

	tuning := retryafter.DefaultConfig()
	tuning.ReadinessMaxConcurrency = 1
	restartAt, err := r.store.Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r.start(engineOpts{tuning: tuning})
	for _, id := range append(slices.Clone(queued), processing...) {
		if s := r.waitTerminal(id, 20*time.Second); s.Status != domain.Completed {
			t.Errorf("job %s (%s): %s %q (%s), want completed", id, s.Kind, s.Status, s.Label, s.Message)
		}
	}

	// One check at a time, each holding its slot until its job passed: the order of the
	// ReadinessPassed positions is the order of the checks.
	type passed struct {
		job int
		pos eventstore.Position
	}
	var order []passed
	for _, id := range processing {
		recs, _ := r.events(id)
		wantEventCausations(t, recs, restartAt)
	}
	for i, id := range queued {
		recs, evs := r.events(id)
		wantEventCausations(t, recs, restartAt)
		started := 0
		for n, e := range evs {
			switch e.(type) {
			case domain.ReadinessPassed:
				order = append(order, passed{i, recs[n].Position})
			case domain.ReadinessCheckStarted:
				started++
			}
		}
		// A check that had started before the crash records its start again when it resumes.
		want := 1
		if i == 4 || i == 1 {
			want = 2
		}
		if started != want {
			t.Errorf("queued job %d: %d ReadinessCheckStarted (%v), want %d", i, started, typesOf(evs), want)
		}
	}
	slices.SortFunc(order, func(a, b passed) int { return cmp.Compare(a.pos, b.pos) })
	var got []int
	for _, p := range order {
		got = append(got, p.job)
	}
	if want := []int{4, 1, 0, 2, 3, 5}; !slices.Equal(got, want) {
		t.Errorf("readiness passed in the order %v, want %v (picked up before the crash first, then acceptance order)", got, want)
	}
}

func TestRedeliveryOfTheWholeLogChangesNoJob(t *testing.T) {
	r := newCrashRig(t, devchain.Config{})
	ctx := context.Background()
	o := engineOpts{pcfg: projections.Config{ResponseTimeout: 2 * time.Second}}

	stop := r.start(o)
	cases := []struct {
		kind     domain.Kind
		scenario contracts.Scenario
	}{
		{domain.PublicDecrypt, contracts.ScenarioNone}, {domain.UserDecrypt, contracts.ScenarioNone}, {domain.InputProof, contracts.ScenarioNone},
		{domain.PublicDecrypt, contracts.ScenarioDenied}, {domain.InputProof, contracts.ScenarioDenied},
		{domain.PublicDecrypt, contracts.ScenarioRevert}, {domain.UserDecrypt, contracts.ScenarioNoResponse},
	}
	ids := make([]domain.JobID, len(cases))
	for i, c := range cases {
		ids[i] = r.accept(r.request(c.kind, c.scenario))
	}
	for _, id := range ids {
		r.waitTerminal(id, 20*time.Second)
	}
	time.Sleep(500 * time.Millisecond) // late shares come and change nothing
	if n := r.eng.Router().Poisoned(); n != 0 {
		t.Fatalf("first run: %d poisoned messages", n)
	}
	stop()

	lengths := make([]int, len(ids))
	for i, id := range ids {
		lengths[i] = len(r.eventTypes(id))
	}
	head, err := r.store.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// A dispatcher with no checkpoint publishes the whole log again, every handler's topic.
	o.cfg.Dispatcher.Name = "redelivery"
	r.start(o)
	eventually(t, func() bool { return r.eng.Dispatcher().Position() >= head }, "the new dispatcher to publish the whole log")
	time.Sleep(3 * time.Second)

	for i, id := range ids {
		if got := r.eventTypes(id); len(got) != lengths[i] {
			t.Errorf("%s scenario %s: %d events after re-delivery (%v), %d before", cases[i].kind, cases[i].scenario, len(got), got, lengths[i])
		}
	}
	for rec, err := range r.store.ReadAll(ctx, head) {
		if err != nil {
			t.Fatal(err)
		}
		if !IsCheckpointStream(rec.Stream) {
			t.Errorf("after re-delivery: %s appended to %s", rec.Type, rec.Stream)
		}
	}
	if n := r.eng.Router().Poisoned(); n != 0 {
		t.Errorf("re-delivery: %d poisoned messages", n)
	}

}

func TestTimeoutRaceWithCompletionLeavesOneTerminalEventLast(t *testing.T) {
	// Answers come 20ms-2s after a request, plus the chain's and the listener's delays, which
	// grow with the machine's load: the response timeout starts at 1s and is searched (doubled
	// until some jobs complete, then bisected between the bounds seen) until a round ends some
	// jobs each way, so that timeouts really raced completions.
	r := newCrashRig(t, devchain.Config{ResponseDelayMin: 20 * time.Millisecond, ResponseDelayMax: 2 * time.Second})
	timeout := time.Second
	var allTimedOut, allCompleted time.Duration // the longest timeout that ended no job completed, the shortest that ended none timed out
	for round := 1; ; round++ {
		completed, timedOut := r.raceTimeouts(timeout, 12)
		t.Logf("response timeout %v: %d completed, %d timed out", timeout, completed, timedOut)
		if t.Failed() || (completed > 0 && timedOut > 0) {
			return
		}
		if round == 6 {
			t.Fatalf("no round with a response timeout between 250ms and 8s ended jobs both ways: the timeout raced nothing")
		}
		if completed == 0 {
			allTimedOut = timeout
		} else {
			allCompleted = timeout
		}
		switch {
		case allCompleted == 0:
			timeout *= 2
		case allTimedOut == 0:
			timeout /= 2
		default:
			timeout = (allTimedOut + allCompleted) / 2
		}
	}
}

// raceTimeouts runs an engine with response timeout timeout over n jobs of each kind, checks
// that every job's stream ends with its one terminal event, and counts the outcomes.
func (r *crashRig) raceTimeouts(timeout time.Duration, n int) (completed, timedOut int) {
	t := r.t
	t.Helper()
	stop := r.start(engineOpts{pcfg: projections.Config{ResponseTimeout: timeout}, cfg: Config{TimeoutsPoll: 20 * time.Millisecond}})
	defer stop()
	var ids []domain.JobID
	for range n {
		for _, k := range domain.Kinds() {
			ids = append(ids, r.accept(r.request(k, contracts.ScenarioNone)))
		}
	}
	for _, id := range ids {
		r.waitTerminal(id, 20*time.Second)
	}
	// The answers that lost the race arrive, and must change nothing: wait until every one is
	// on chain, then give the listener time to deliver them.
	for _, id := range ids {
		s, err := r.exec.Load(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		reqID, ok := new(big.Int).SetString(s.GatewayRequestID, 10)
		if !ok {
			t.Fatalf("%s job %s: gateway request id %q", s.Kind, id, s.GatewayRequestID)
		}
		topic, want := contracts.TopicPublicDecryptionResponse, 1
		switch s.Kind {
		case domain.UserDecrypt, domain.DelegatedUserDecrypt:
			topic, want = contracts.TopicUserDecryptionResponse, r.chain.Config().KMSNodes
		case domain.InputProof:
			topic = contracts.TopicVerifyProofResponse
		}
		eventually(t, func() bool { return responsesOnChain(t, r.chain, topic, reqID) >= want }, "every answer on chain")
	}
	time.Sleep(time.Second)

	for _, id := range ids {
		_, evs := r.events(id)
		s := domain.Fold(evs)
		terminal := 0
		for _, e := range evs {
			if st, ok := domain.StatusAfter(e); ok && st.Terminal() {
				terminal++
			}
		}
		last, _ := domain.StatusAfter(evs[len(evs)-1])
		j, _ := r.set.Job(id)
		if terminal != 1 || !last.Terminal() || !s.Status.Terminal() || j.Status != s.Status {
			t.Errorf("%s job %s: %d terminal events, last %s, folds to %s, projection says %s: %v",
				s.Kind, id, terminal, evs[len(evs)-1].EventType(), s.Status, j.Status, typesOf(evs))
		}
		switch s.Status {
		case domain.Completed:
			completed++
		case domain.TimedOut:
			timedOut++
		default:
			t.Errorf("%s job %s: %s %q (%s), want completed or timed out", s.Kind, id, s.Status, s.Label, s.Message)
		}
	}
	if p := r.eng.Router().Poisoned(); p != 0 {
		t.Errorf("%d poisoned messages", p)
	}
	return completed, timedOut
}

// A crash between Prepare and its record leaves a nonce taken and never sent: the recorded
// transaction above it waits in the pool behind the gap. The restarted sequence must not hand
// the recorded nonce to a new transaction (which would send that job back to processing); it
// fills the gap instead, and both jobs complete with their first transactions.
func TestRecoveryFillsANonceGapBelowARecordedTransactionInsteadOfTakingItsNonce(t *testing.T) {
	r := newCrashRig(t, devchain.Config{})
	ctx := context.Background()

	gw := newTestAdapter(t, r.chain)
	lostReq := r.request(domain.InputProof, contracts.ScenarioNone)
	lost, err := gw.Prepare(ctx, lostReq) // taken, never recorded nor sent: the crash
	if err != nil {
		t.Fatal(err)
	}
	req := r.request(domain.InputProof, contracts.ScenarioNone)
	id := r.accept(req)
	recorded := r.prepareAndRecord(gw, id, req)
	if recorded.Nonce != lost.Nonce+1 {
		t.Fatalf("nonces %d then %d, want consecutive", lost.Nonce, recorded.Nonce)
	}
	if err := r.chain.Client().SendTransaction(ctx, recorded.Transaction()); err != nil {
		t.Fatal(err) // queued behind the gap
	}
	gw.Close()

	r.start(engineOpts{})
	jobs := []domain.JobID{id}
	for range 3 {
		jobs = append(jobs, r.accept(r.request(domain.InputProof, contracts.ScenarioNone)))
	}
	for _, job := range jobs {
		if s := r.waitTerminal(job, 30*time.Second); s.Status != domain.Completed {
			t.Fatalf("job %s: %s %q (%s), want completed", job, s.Status, s.Label, s.Message)
		}
		_, evs := r.events(job)
		if got, want := typesOf(evs), []string{"RequestAccepted", "TransactionSigned", "ReceiptRecorded", "RequestCompleted"}; !slices.Equal(got, want) {
			t.Errorf("job %s: events %v, want %v (no reset)", job, got, want)
		}
	}
	wantOneRequest(t, r.chain, "the recorded input proof", req, recorded.Hash)
}

// wantEventCausations checks what every event of recs after position after (those the engine
// appended since it started) was caused by: an event (its global position, earlier than its own)
// or a message (a UUID), never a word such as "recovery" or "sweep" naming the part of the engine
// that acted.
func wantEventCausations(t *testing.T, recs []eventstore.Record, after eventstore.Position) {
	t.Helper()
	for _, rec := range recs {
		c := rec.Metadata.CausationID
		if rec.Position <= after {
			continue
		}
		if pos, err := strconv.ParseUint(c, 10, 64); err == nil && pos > 0 && eventstore.Position(pos) < rec.Position {
			continue
		}
		if _, err := uuid.Parse(c); err == nil {
			continue
		}
		t.Errorf("%s v%d (%s) at %d: causation id %q, want an earlier event's position or a message id", rec.Stream, rec.Version, rec.Type, rec.Position, c)
	}
}
