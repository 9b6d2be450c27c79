package workers

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	dto "github.com/prometheus/client_model/go"

	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/projections/projectionstest"
	"relayer/workers/devchain"
	"relayer/workers/devchain/devchaintest"
	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
)

// engineEnv is a whole relayer without its HTTP API: the development chain, a SQLite log,
// projections following it and the engine. Jobs are accepted with the Executor, as the API does.
type engineEnv struct {
	t     testing.TB
	chain *devchain.Chain
	store eventstore.Store
	set   *projections.Set
	exec  *projections.Executor
	eng   *Engine
	seq   atomic.Int64
}

type engineOpts struct {
	pcfg   projections.Config
	tuning retryafter.Config
	cfg    Config
	chain  *devchain.Chain
	// chainCfg configures the chain started when chain is nil (answers after 5-40ms by default).
	chainCfg devchain.Config
	// wrap, when set, wraps the store the engine writes to (the projections read the real one).
	wrap func(eventstore.Store) eventstore.Store
	// gateway, when set, edits the engine's gateway adapter's configuration.
	gateway func(*gateway.Config)
	// signer, when set, signs the engine's transactions instead of the chain's relayer key.
	signer gateway.Signer
}

func startEngine(t testing.TB, o engineOpts) *engineEnv {
	t.Helper()
	env := &engineEnv{t: t, store: projectionstest.OpenStore(t), chain: o.chain}
	if env.chain == nil {
		env.chain = startTestChain(t, o.chainCfg)
	}
	env.exec = &projections.Executor{Store: env.store, Codec: projections.NewCodec()}
	env.set, env.eng, _ = startEngineOn(t, env.store, env.chain, o)
	return env
}

// startTestChain starts a development chain whose simulated KMS nodes and coprocessors answer
// quickly unless cfg says otherwise.
func startTestChain(t testing.TB, cfg devchain.Config) *devchain.Chain {
	t.Helper()
	if cfg.ResponseDelayMin == 0 && cfg.ResponseDelayMax == 0 {
		cfg.ResponseDelayMin, cfg.ResponseDelayMax = 5*time.Millisecond, 40*time.Millisecond
	}
	c := devchaintest.Start(t, cfg, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// testDelegator lets testDelegate decrypt testApp's handles, so that testRequest's delegated
	// user decrypts pass the host ACL's delegation check.
	if err := c.DelegateForUserDecryption(ctx, devchain.UserDevKey(0), testDelegate, testApp, time.Now().Add(365*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	return c
}

// newTestAdapter is a gateway adapter on chain with the relayer's key, configured as the
// engine's in startEngine. The caller closes it.
func newTestAdapter(t testing.TB, chain *devchain.Chain, edit ...func(*gateway.Config)) *gateway.Adapter {
	t.Helper()
	return newTestAdapterFor(t, chain, gateway.NewSigner(chain.RelayerKey()), edit...)
}

// newTestAdapterFor is newTestAdapter signing with signer.
func newTestAdapterFor(t testing.TB, chain *devchain.Chain, signer gateway.Signer, edit ...func(*gateway.Config)) *gateway.Adapter {
	t.Helper()
	a := chain.Addresses()
	cfg := gateway.Config{
		ChainID:      chain.ChainID().Uint64(),
		Contracts:    gateway.Contracts{Decryption: a.Decryption, InputVerification: a.InputVerification, ACL: a.ACL},
		PollInterval: 100 * time.Millisecond, ReceiptPollMin: 10 * time.Millisecond, GapFillDelay: 300 * time.Millisecond,
	}
	for _, e := range edit {
		e(&cfg)
	}
	gw, err := gateway.New(context.Background(), chain.Client(), cfg, testLogger(t), gateway.WithSigner(signer))
	if err != nil {
		t.Fatal(err)
	}
	return gw
}

// startEngineOn starts projections and an engine on a log and a chain that the caller owns
// and that outlive them; the engine starts once the projections hold the whole log (recovery
// reads them); startEngine is it on a new log and chain.
// stop cancels both and waits for them; it runs at the end of the test too.
func startEngineOn(t testing.TB, store eventstore.Store, chain *devchain.Chain, o engineOpts) (*projections.Set, *Engine, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var edits []func(*gateway.Config)
	if o.gateway != nil {
		edits = append(edits, o.gateway)
	}
	signer := o.signer
	if signer == nil {
		signer = gateway.NewSigner(chain.RelayerKey())
	}
	gw := newTestAdapterFor(t, chain, signer, edits...)
	set, err := projections.New(o.pcfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := set.CatchUp(ctx, store); err != nil {
		t.Fatal(err)
	}
	tuning := o.tuning
	if tuning.InputProofTPS == 0 {
		tuning = retryafter.DefaultConfig()
	}
	cfg := o.cfg
	cfg.UserDecryptThreshold = chain.Threshold()
	if cfg.ReadinessPollInterval == 0 {
		cfg.ReadinessPollInterval = 100 * time.Millisecond
	}
	if cfg.TimeoutsPoll == 0 {
		cfg.TimeoutsPoll = 100 * time.Millisecond
	}
	engineStore := store
	if o.wrap != nil {
		engineStore = o.wrap(store)
	}
	eng, err := New(cfg, Deps{Store: engineStore, Projections: set, Gateway: gw, Tuning: func() retryafter.Config { return tuning }, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	setDone, engDone := make(chan error, 1), make(chan error, 1)
	go func() { setDone <- set.Run(ctx, store) }()
	go func() { engDone <- eng.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-engDone; err != nil {
				t.Errorf("engine: %v", err)
			}
			if err := <-setDone; err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("projections: %v", err)
			}
			gw.Close()
		})
	}
	t.Cleanup(stop)
	select {
	case <-eng.Ready():
	case err := <-engDone:
		engDone <- err // for stop
		t.Fatalf("engine stopped at start: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("engine not ready after 30s")
	}
	return set, eng, stop
}

var (
	testApp  = common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	testUser = common.HexToAddress("0x000000000000000000000000000000000000b0b0")
	// testDelegator (a funded development user) delegated testApp's user decryption to
	// testDelegate on every test chain (startTestChain).
	testDelegator = crypto.PubkeyToAddress(devchain.UserDevKey(0).PublicKey)
	testDelegate  = common.HexToAddress("0x000000000000000000000000000000000000de1e")
)

func (env *engineEnv) seed() string { return fmt.Sprintf("%s#%d", env.t.Name(), env.seq.Add(1)) }

func hexHandle(h [32]byte) string { return "0x" + hex.EncodeToString(h[:]) }

func (env *engineEnv) request(k domain.Kind, s contracts.Scenario) domain.Request {
	return testRequest(k, s, env.seed())
}

// testRequest is a request of kind k for scenario s, made unique by seed.
func testRequest(k domain.Kind, s contracts.Scenario, seed string) domain.Request {
	switch k {
	case domain.PublicDecrypt:
		return domain.Request{PublicDecrypt: &domain.PublicDecryptRequest{CiphertextHandles: []string{hexHandle(contracts.TestHandle(s, seed))}, ExtraData: "0x00"}}
	case domain.UserDecrypt:
		return domain.Request{UserDecrypt: &domain.UserDecryptRequest{
			HandleContractPairs: []domain.HandleContractPair{{Handle: hexHandle(contracts.TestHandle(s, seed)), ContractAddress: testApp.Hex()}},
			RequestValidity:     domain.RequestValidity{StartTimestamp: uint64(time.Now().Add(-time.Hour).Unix()), DurationDays: 1},
			ContractsChainID:    devchain.ChainID, ContractAddresses: []string{testApp.Hex()}, UserAddress: testUser.Hex(),
			Signature: hex.EncodeToString(make([]byte, 65)),
			PublicKey: "2000000000000000" + hex.EncodeToString(crypto.Keccak256([]byte("user public key"))), ExtraData: "0x00",
		}}
	case domain.DelegatedUserDecrypt:
		return domain.Request{DelegatedUserDecrypt: &domain.DelegatedUserDecryptRequest{
			HandleContractPairs: []domain.HandleContractPair{{Handle: hexHandle(contracts.TestHandle(s, seed)), ContractAddress: testApp.Hex()}},
			ContractsChainID:    devchain.ChainID, ContractAddresses: []string{testApp.Hex()},
			DelegatorAddress: testDelegator.Hex(), DelegateAddress: testDelegate.Hex(),
			StartTimestamp: uint64(time.Now().Add(-time.Hour).Unix()), DurationDays: 1,
			Signature: hex.EncodeToString(make([]byte, 65)),
			PublicKey: "2000000000000000" + hex.EncodeToString(crypto.Keccak256([]byte("delegate public key"))), ExtraData: "0x00",
		}}
	case domain.InputProof:
		return domain.Request{InputProof: &domain.InputProofRequest{
			ContractChainID: devchain.ChainID, ContractAddress: testApp.Hex(), UserAddress: testUser.Hex(),
			Ciphertext: hex.EncodeToString(contracts.TestCiphertext(s, seed, 64)), ExtraData: "0x00",
		}}
	}
	panic(fmt.Sprintf("testRequest: no request of kind %s", k))
}

// accept accepts req as the API does and returns its job id.
func (env *engineEnv) accept(req domain.Request) domain.JobID {
	env.t.Helper()
	id := domain.NewJobID()
	_, err := env.exec.Execute(context.Background(), id, domain.Accept{At: domain.At{At: time.Now()}, JobID: id, Request: req, ContentHash: id.String()}, eventstore.Metadata{CorrelationID: id.Stream()})
	if err != nil {
		env.t.Fatal(err)
	}
	return id
}

// waitTerminal waits for job id to end and returns its state.
func (env *engineEnv) waitTerminal(id domain.JobID, limit time.Duration) domain.State {
	env.t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if j, ok := env.set.Job(id); ok && j.Status.Terminal() {
			s, err := env.exec.Load(context.Background(), id)
			if err != nil {
				env.t.Fatal(err)
			}
			return s
		}
		time.Sleep(20 * time.Millisecond)
	}
	j, _ := env.set.Job(id)
	env.t.Fatalf("job %s not terminal after %v (status %s)", id, limit, j.Status)
	return domain.State{}
}

func TestEngineDrivesEachKindToCompletion(t *testing.T) {
	env := startEngine(t, engineOpts{})
	for _, k := range domain.Kinds() {
		id := env.accept(env.request(k, contracts.ScenarioNone))
		s := env.waitTerminal(id, 30*time.Second)
		if s.Status != domain.Completed {
			t.Errorf("%s: status %s label %q message %q, want completed", k, s.Status, s.Label, s.Message)
		}
		t.Logf("%s: %s result %+v", k, s.Status, s.Result)
	}
}

// scenarioCase is what DESIGN section 10 says a kind does under a test scenario.
type scenarioCase struct {
	kind     domain.Kind
	scenario contracts.Scenario
	status   domain.Status
	label    string
	events   []string
}

func scenarioCases() []scenarioCase {
	const (
		acc  = "RequestAccepted"
		rcs  = "ReadinessCheckStarted"
		rp   = "ReadinessPassed"
		sig  = "TransactionSigned"
		rec  = "ReceiptRecorded"
		done = "RequestCompleted"
	)
	var out []scenarioCase
	for _, k := range []domain.Kind{domain.PublicDecrypt, domain.UserDecrypt, domain.DelegatedUserDecrypt} {
		ok := []string{acc, rcs, rp, sig, rec, done}
		if k.CollectsShares() {
			ok = []string{acc, rcs, rp, sig, rec, "ShareReceived", "ShareReceived", "ShareReceived", done}
		}
		out = append(out,
			scenarioCase{k, contracts.ScenarioNone, domain.Completed, "", ok},
			scenarioCase{k, contracts.ScenarioDenied, domain.Failure, domain.LabelNotAllowedOnHostACL, []string{acc, rcs, "ReadinessFailed"}},
			scenarioCase{k, contracts.ScenarioNeverReady, domain.TimedOut, domain.LabelReadinessCheckTimedOut, []string{acc, rcs, "ReadinessTimedOut"}},
			scenarioCase{k, contracts.ScenarioNoResponse, domain.TimedOut, domain.LabelResponseTimedOut, []string{acc, rcs, rp, sig, rec, "ResponseTimedOut"}},
			scenarioCase{k, contracts.ScenarioReadyAfterDelay, domain.Completed, "", ok},
			scenarioCase{k, contracts.ScenarioRevert, domain.Failure, domain.LabelTransactionReverted, []string{acc, rcs, rp, "TransactionFailed"}},
		)
	}
	ip := domain.InputProof
	out = append(out,
		scenarioCase{ip, contracts.ScenarioNone, domain.Completed, "", []string{acc, sig, rec, done}},
		scenarioCase{ip, contracts.ScenarioDenied, domain.Failure, domain.LabelProofRejected, []string{acc, sig, rec, "ProofRejected"}},
		// Input proofs have no readiness stage: "never ready" does not apply to them.
		scenarioCase{ip, contracts.ScenarioNeverReady, domain.Completed, "", []string{acc, sig, rec, done}},
		scenarioCase{ip, contracts.ScenarioNoResponse, domain.TimedOut, domain.LabelResponseTimedOut, []string{acc, sig, rec, "ResponseTimedOut"}},
		scenarioCase{ip, contracts.ScenarioReadyAfterDelay, domain.Completed, "", []string{acc, sig, rec, done}},
		scenarioCase{ip, contracts.ScenarioRevert, domain.Failure, domain.LabelTransactionReverted, []string{acc, "TransactionFailed"}},
	)
	return out
}

// eventTypes lists job id's event types in order.
func (env *engineEnv) eventTypes(id domain.JobID) []string {
	var out []string
	for rec, err := range env.store.ReadStream(context.Background(), id.Stream(), 0) {
		if err != nil {
			env.t.Fatal(err)
		}
		out = append(out, rec.Type)
	}
	return out
}

func TestEngineEachKindAndScenarioEndsAsDesigned(t *testing.T) {
	env := startEngine(t, engineOpts{pcfg: projections.Config{ReadinessTimeout: 8 * time.Second, ResponseTimeout: 4 * time.Second, TxInFlightTimeout: 20 * time.Second}})
	cases := scenarioCases()
	ids := make([]domain.JobID, len(cases))
	for i, c := range cases {
		req := env.request(c.kind, c.scenario)
		if c.scenario == contracts.ScenarioReadyAfterDelay && c.kind.NeedsReadiness() {
			var hs [][32]byte
			switch {
			case req.PublicDecrypt != nil:
				hs = append(hs, common.HexToHash(req.PublicDecrypt.CiphertextHandles[0]))
			case req.DelegatedUserDecrypt != nil:
				hs = append(hs, common.HexToHash(req.DelegatedUserDecrypt.HandleContractPairs[0].Handle))
			default:
				hs = append(hs, common.HexToHash(req.UserDecrypt.HandleContractPairs[0].Handle))
			}
			if err := env.chain.RegisterHandles(context.Background(), hs...); err != nil {
				t.Fatal(err)
			}
		}
		ids[i] = env.accept(req)
	}
	for i, c := range cases {
		s := env.waitTerminal(ids[i], 40*time.Second)
		name := fmt.Sprintf("%s scenario %02x", c.kind, byte(c.scenario))
		if s.Status != c.status || s.Label != c.label {
			t.Errorf("%s: status %s label %q (%s), want %s %q", name, s.Status, s.Label, s.Message, c.status, c.label)
		}
		if got := env.eventTypes(ids[i]); fmt.Sprint(got) != fmt.Sprint(c.events) {
			t.Errorf("%s: events %v, want %v", name, got, c.events)
		}
		if c.status == domain.Completed && (s.Result == nil || s.Result.Kind() != c.kind.Family()) {
			t.Errorf("%s: result %+v, want a %s result", name, s.Result, c.kind)
		}
	}
	// Every job has ended, those without a response by a timeout that the responses worker only
	// learns of from the transition: it indexes none of them any more.
	indexed := func() int {
		env.eng.responses.mu.Lock()
		defer env.eng.responses.mu.Unlock()
		return len(env.eng.responses.byJob)
	}
	for deadline := time.Now().Add(10 * time.Second); indexed() > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the responses worker still indexes %d ended jobs", indexed())
		}
	}
}

// A job the read models forget at its JobsRetired while it awaits its responses here (its stream
// was removed by another instance's archiver while they caught up: projections.Set.forgetOpen)
// sends no terminal transition: the responses worker drops its index entry all the same (it kept
// it until a restart before), and keeps the other job's.
func TestTheResponsesWorkerDropsAJobTheReadModelsRetiredWhileItWasOpen(t *testing.T) {
	env := startEngine(t, engineOpts{pcfg: projections.Config{ResponseTimeout: 10 * time.Minute}})
	indexed := func(id domain.JobID) bool {
		env.eng.responses.mu.Lock()
		defer env.eng.responses.mu.Unlock()
		_, ok := env.eng.responses.byJob[id]
		return ok
	}
	ids := []domain.JobID{
		env.accept(env.request(domain.InputProof, contracts.ScenarioNoResponse)),
		env.accept(env.request(domain.InputProof, contracts.ScenarioNoResponse)),
	}
	// The worker indexes a job as its receipt is recorded, the read models show it a moment later.
	awaiting := func(id domain.JobID) bool {
		j, _ := env.set.Job(id)
		return indexed(id) && j.Status == domain.ReceiptReceived
	}
	for deadline := time.Now().Add(30 * time.Second); !awaiting(ids[0]) || !awaiting(ids[1]); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the responses worker did not index the jobs awaiting their responses")
		}
	}
	j, _ := env.set.Job(ids[0])
	ev, err := projections.NewCodec().Encode(domain.JobsRetired{UpTo: uint64(env.set.Position()), Jobs: ids[:1],
		Versions: []uint64{uint64(j.Version) + 2}, At: time.Now()}, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	pos, err := env.store.Append(context.Background(), domain.RetentionStream, eventstore.Any, ev)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.set.WaitFor(context.Background(), pos); err != nil {
		t.Fatal(err)
	}
	if _, held := env.set.Job(ids[0]); held {
		t.Fatal("the read models still hold the retired job")
	}
	for deadline := time.Now().Add(10 * time.Second); indexed(ids[0]); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the responses worker still indexes the job the read models retired")
		}
	}
	if !indexed(ids[1]) {
		t.Fatal("the responses worker dropped the other job, which the read models still hold open")
	}
}

// A paused gateway is waited out until the job's processing deadline, then the job fails with
// protocol_paused; nothing was sent for it.
func TestEnginePausedGatewayFailsWithProtocolPaused(t *testing.T) {
	env := startEngine(t, engineOpts{pcfg: projections.Config{ProcessingTimeout: 3 * time.Second}})
	if err := env.chain.Pause(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, k := range domain.Kinds() {
		id := env.accept(env.request(k, contracts.ScenarioNone))
		s := env.waitTerminal(id, 30*time.Second)
		if s.Status != domain.Failure || s.Label != domain.LabelProtocolPaused {
			t.Errorf("%s while paused: %s %q (%s), want failure %q", k, s.Status, s.Label, s.Message, domain.LabelProtocolPaused)
		}
	}
	if err := env.chain.Unpause(context.Background()); err != nil {
		t.Fatal(err)
	}
	id := env.accept(env.request(domain.InputProof, contracts.ScenarioNone))
	if s := env.waitTerminal(id, 30*time.Second); s.Status != domain.Completed {
		t.Errorf("after unpause: %s %q (%s), want completed", s.Status, s.Label, s.Message)
	}
}

func TestEnginePoisonedMessageIsCountedAndLogged(t *testing.T) {
	env := startEngine(t, engineOpts{})
	msg := message.NewMessage("bad-response", []byte(`[{"Type":"PublicDecryptionResponse"}]`)) // no request id
	if err := env.eng.Transport().Publisher.Publish(TopicGatewayResponses, msg); err != nil {
		t.Fatal(err)
	}
	var got []domain.MessagePoisoned
	deadline := time.Now().Add(10 * time.Second)
	for len(got) == 0 && time.Now().Before(deadline) {
		for rec, err := range env.store.ReadStream(context.Background(), domain.PoisonStream, 0) {
			if err != nil {
				t.Fatal(err)
			}
			v, err := env.exec.Codec.Decode(rec)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, v.(domain.MessagePoisoned))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(got) != 1 {
		t.Fatalf("poison stream holds %d records, want 1", len(got))
	}
	p := got[0]
	if p.MessageID != "bad-response" || p.Topic != TopicGatewayResponses || p.Handler != "responses.gateway" || !strings.Contains(p.Reason, "without request id") {
		t.Errorf("poison record %+v", p)
	}
	if n := env.eng.Router().Poisoned(); n != 1 {
		t.Errorf("router counted %d poisoned, want 1", n)
	}
	var m dto.Metric
	if err := env.eng.metrics.poisoned.Write(&m); err != nil || m.GetCounter().GetValue() != 1 {
		t.Errorf("relayer_poisoned_messages_total = %v (%v), want 1", m.GetCounter().GetValue(), err)
	}
}

// failingCompletions fails every append of a RequestCompleted until until: a disk that refuses
// writes for a while.
type failingCompletions struct {
	eventstore.Store
	until  time.Time
	failed atomic.Int64
}

func (f *failingCompletions) Append(ctx context.Context, stream string, expected eventstore.Version, evs ...eventstore.Event) (eventstore.Position, error) {
	for _, e := range evs {
		if e.Type == "RequestCompleted" && time.Now().Before(f.until) {
			f.failed.Add(1)
			return 0, errors.New("disk I/O error (test)")
		}
	}
	return f.Store.Append(ctx, stream, expected, evs...)
}

func TestEngineKeepsResponsesItCouldNotRecordAndRecordsThemLater(t *testing.T) {
	var f *failingCompletions
	env := startEngine(t, engineOpts{wrap: func(s eventstore.Store) eventstore.Store {
		f = &failingCompletions{Store: s, until: time.Now().Add(8 * time.Second)}
		return f
	}})
	var ids []domain.JobID
	for _, k := range []domain.Kind{domain.PublicDecrypt, domain.InputProof, domain.UserDecrypt} {
		ids = append(ids, env.accept(env.request(k, contracts.ScenarioNone)))
	}
	for _, id := range ids {
		if s := env.waitTerminal(id, 40*time.Second); s.Status != domain.Completed {
			t.Errorf("job %s: %s %q (%s), want completed once the store takes writes again", id, s.Status, s.Label, s.Message)
		}
	}
	if f.failed.Load() == 0 {
		t.Fatal("no completion was refused: the test did not test anything")
	}
	if n := env.eng.Router().Poisoned(); n != 0 {
		t.Errorf("%d messages poisoned, want 0: a refused write must be retried, not dropped", n)
	}
}

func TestEngineFailsADelegatedUserDecryptTheDelegatorNeverAuthorised(t *testing.T) {
	env := startEngine(t, engineOpts{})
	req := env.request(domain.DelegatedUserDecrypt, contracts.ScenarioNone)
	req.DelegatedUserDecrypt.DelegateAddress = common.HexToAddress("0x00000000000000000000000000000000000bad00").Hex()
	id := env.accept(req)
	s := env.waitTerminal(id, 30*time.Second)
	if s.Status != domain.Failure || s.Label != domain.LabelNotAllowedOnHostACL || !strings.Contains(s.Message, "has not delegated") {
		t.Fatalf("status %s, label %q, message %q: want failure not_allowed_on_host_acl naming the missing delegation", s.Status, s.Label, s.Message)
	}
	if s.TxHash != "" {
		t.Fatalf("a transaction %s was signed for a request the ACL refuses", s.TxHash)
	}
}

// A unified (v3) user decrypt runs the user decrypt pipeline: each entry is checked on the host
// ACL as a v2 request of its kind, the gateway gets the unified call, and the job completes with
// the shares; an entry whose owner never delegated it fails the job before anything is signed.
func TestEngineRunsAUnifiedUserDecryptWithOwnAndDelegatedHandles(t *testing.T) {
	env := startEngine(t, engineOpts{})
	unified := func(owners ...common.Address) domain.Request {
		u := &domain.UnifiedUserDecryptRequest{
			UserAddress: testDelegate.Hex(), AllowedContracts: []string{testApp.Hex()},
			StartTimestamp: uint64(time.Now().Add(-time.Hour).Unix()), DurationSeconds: 86400,
			PublicKey: "2000000000000000" + hex.EncodeToString(crypto.Keccak256([]byte("unified public key"))), ExtraData: "0x00",
		}
		for _, o := range owners {
			u.Handles = append(u.Handles, domain.HandleEntry{Handle: hexHandle(contracts.TestHandle(contracts.ScenarioNone, env.seed())), ContractAddress: testApp.Hex(), OwnerAddress: o.Hex()})
		}
		return domain.Request{UnifiedUserDecrypt: u}
	}
	ok := env.accept(unified(testDelegate, testDelegator))
	stranger := common.HexToAddress("0x00000000000000000000000000000000000bad00")
	denied := env.accept(unified(testDelegate, stranger))

	s := env.waitTerminal(ok, 30*time.Second)
	if s.Status != domain.Completed || s.Kind != domain.UserDecrypt || s.Result == nil || s.Result.UserDecrypt == nil || len(s.Result.UserDecrypt.Result) == 0 {
		t.Fatalf("status %s %q (%s), result %+v: want a completed user decrypt with shares", s.Status, s.Label, s.Message, s.Result)
	}
	s = env.waitTerminal(denied, 30*time.Second)
	msg := strings.ToLower(s.Message)
	if s.Status != domain.Failure || s.Label != domain.LabelNotAllowedOnHostACL ||
		!strings.Contains(msg, "delegator "+strings.ToLower(stranger.Hex())+" has not delegated") {
		t.Fatalf("status %s, label %q, message %q: want failure not_allowed_on_host_acl naming the owner's missing delegation", s.Status, s.Label, s.Message)
	}
	if s.TxHash != "" {
		t.Fatalf("a transaction %s was signed for a request the ACL refuses", s.TxHash)
	}
}

// The reference relayer answers host_acl_failed (500) when the host ACL cannot answer the
// readiness check. Here the ACL the engine asks is a contract without its functions (the
// gateway's InputVerification): every question reverts, a refusal for good, not an outage.
func TestEngineFailsADecryptWhoseHostACLCannotAnswerWithHostACLFailed(t *testing.T) {
	chain := startTestChain(t, devchain.Config{})
	notACL := chain.Addresses().InputVerification
	env := startEngine(t, engineOpts{chain: chain, gateway: func(c *gateway.Config) { c.Contracts.ACL = notACL }})
	for _, k := range []domain.Kind{domain.PublicDecrypt, domain.UserDecrypt, domain.DelegatedUserDecrypt} {
		id := env.accept(env.request(k, contracts.ScenarioNone))
		s := env.waitTerminal(id, 30*time.Second)
		if s.Status != domain.Failure || s.Label != domain.LabelHostACLFailed {
			t.Errorf("%s: status %s, label %q (%s): want failure host_acl_failed", k, s.Status, s.Label, s.Message)
		}
		if s.TxHash != "" {
			t.Errorf("%s: a transaction %s was signed for a request the ACL could not vouch for", k, s.TxHash)
		}
	}
}

// An idle relayer used to append one cursor event per development block (about 43,000 a day).
// With nothing to answer, the cursor is saved at most once per ResponsesCursorEvery.
func TestAnIdleEngineSavesTheGatewayCursorAtMostOncePerInterval(t *testing.T) {
	if testing.Short() {
		t.Skip("waits through idle blocks")
	}
	env := startEngine(t, engineOpts{})
	head, err := env.chain.Client().BlockNumber(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * time.Second) // a development block a second: 4 empty blocks or more
	now, err := env.chain.Client().BlockNumber(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if now < head+2 {
		t.Fatalf("the chain sealed %d blocks while idle; the test proves nothing", now-head)
	}
	n := 0
	for _, err := range env.store.ReadStream(context.Background(), CheckpointStream(ResponsesCursorConsumer), 0) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n > 1 {
		t.Fatalf("%d cursor events over %d idle blocks, want the first one only", n, now-head)
	}
}

// A relayer whose key cannot pay for its transactions, with the balance guard off (floor 0),
// fails the jobs it cannot send with insufficient_balance (503 for the client: contact the
// operator), not a generic failure: the last resort the guard otherwise keeps jobs from.
func TestEngineWithAnEmptyKeyFailsWithInsufficientBalance(t *testing.T) {
	chain := startTestChain(t, devchain.Config{})
	drainKey(t, chain, chain.RelayerKey())
	env := startEngine(t, engineOpts{chain: chain, cfg: Config{TxAttempts: 2, TxRetryDelay: 50 * time.Millisecond, BalanceFloorWei: "0"}})
	id := env.accept(env.request(domain.InputProof, contracts.ScenarioNone))
	s := env.waitTerminal(id, 30*time.Second)
	if s.Status != domain.Failure || s.Label != domain.LabelInsufficientBalance {
		t.Fatalf("with an empty key: %s %q (%s), want failure %q", s.Status, s.Label, s.Message, domain.LabelInsufficientBalance)
	}
}

// drainKey sends all but dust of key's balance away, in a plain transfer it pays for itself.
func drainKey(t *testing.T, chain *devchain.Chain, key *ecdsa.PrivateKey) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := chain.Client()
	from := crypto.PubkeyToAddress(key.PublicKey)
	bal, err := c.BalanceAt(ctx, from, nil)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := c.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tip := big.NewInt(2_000_000_000)
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	fee := new(big.Int).Mul(feeCap, big.NewInt(21000))
	value := new(big.Int).Sub(bal, fee)
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chain.ChainID()), &types.DynamicFeeTx{
		ChainID: chain.ChainID(), Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: 21000,
		To: &common.Address{0xde, 0xad}, Value: value,
	})
	if err != nil {
		t.Fatal(err)
	}
	// The node's pool takes up the block that funded the key a moment after the block is the
	// head the balance was read from: until then it sees the key empty and refuses the transfer
	// for funds (a CI run met it once).
	for try := 0; ; try++ {
		err := c.SendTransaction(ctx, tx)
		if err == nil {
			break
		}
		if try == 100 || !strings.Contains(err.Error(), "insufficient funds") {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := chain.WaitReceipt(ctx, tx.Hash()); err != nil {
		t.Fatal(err)
	}
	if left, err := c.BalanceAt(ctx, from, nil); err != nil || left.Cmp(fee) > 0 {
		t.Fatalf("the key still holds %v (%v)", left, err)
	}
}

// A pause shorter than the processing deadline is waited out: the job's waits are in its
// history, and it completes once the gateway is unpaused, with one transaction.
func TestEngineWaitsOutAShortPause(t *testing.T) {
	env := startEngine(t, engineOpts{pcfg: projections.Config{ProcessingTimeout: time.Minute}})
	if err := env.chain.Pause(context.Background()); err != nil {
		t.Fatal(err)
	}
	req := env.request(domain.InputProof, contracts.ScenarioNone)
	id := env.accept(req)
	eventually(t, func() bool {
		s, err := env.exec.Load(context.Background(), id)
		return err == nil && s.Retries > 0
	}, "the job to schedule a retry while the gateway is paused")
	s, err := env.exec.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if s.Status != domain.Processing || s.RetryLabel != domain.LabelProtocolPaused || !s.RetryAt.After(time.Now()) {
		t.Fatalf("while paused: %s, retry label %q due %v", s.Status, s.RetryLabel, s.RetryAt)
	}
	if err := env.chain.Unpause(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := env.waitTerminal(id, 40*time.Second); s.Status != domain.Completed {
		t.Fatalf("after the pause: %s %q (%s), want completed", s.Status, s.Label, s.Message)
	}
	if got := requestsOnChain(t, env.chain, req); len(got) != 1 {
		t.Fatalf("%d gateway requests on chain, want one", len(got))
	}
}
