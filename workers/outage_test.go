package workers

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/projections/projectionstest"
	"relayer/workers/devchain"
	"relayer/workers/devchain/faultproxy"
	"relayer/workers/devchain/faultproxy/faultproxytest"
	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
)

// An engine whose chain goes away for longer than every deadline: no job fails and none times
// out; the outage is in the log, once started and once ended; and when the chain is back every
// job completes, those the node could not prepare meanwhile at once.
func TestAChainOutageLongerThanTheDeadlinesFailsAndTimesOutNoJob(t *testing.T) {
	// Slow KMS answers, so that a decrypt waits in receipt_received when the chain goes away.
	chain := startTestChain(t, devchain.Config{HTTPAddr: "127.0.0.1:0", ResponseDelayMin: 1500 * time.Millisecond, ResponseDelayMax: 2 * time.Second})
	deadline := 3 * time.Second
	ctx, proxy, store, set := startProxiedEngine(t, chain, projections.Config{ReadinessTimeout: deadline, TxInFlightTimeout: 2 * deadline, ResponseTimeout: deadline})
	exec := &projections.Executor{Store: store, Codec: projections.NewCodec()}
	seq := 0
	accept := func(k domain.Kind) domain.JobID {
		seq++
		req := testRequest(k, contracts.ScenarioNone, t.Name()+"#"+string(rune('a'+seq)))
		id := domain.NewJobID()
		if _, err := exec.Execute(ctx, id, domain.Accept{At: domain.At{At: time.Now()}, JobID: id, Request: req, ContentHash: id.String()}, eventstore.Metadata{CorrelationID: id.Stream()}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	status := func(id domain.JobID) domain.Status { j, _ := set.Job(id); return j.Status }

	// A decrypt waiting for its response when the chain goes away.
	waiting := accept(domain.PublicDecrypt)
	eventually(t, func() bool { return status(waiting) == domain.ReceiptReceived }, "the decrypt to wait for its response")
	faultproxytest.SetMode(t, proxy, faultproxy.Refuse)
	// Jobs that come during the outage: not ready, not prepared.
	var ids []domain.JobID
	for _, k := range domain.Kinds() {
		ids = append(ids, accept(k))
	}
	ids = append(ids, waiting)
	time.Sleep(3 * deadline) // three times every deadline
	for _, id := range ids {
		if st := status(id); st.Terminal() {
			j, _ := set.Job(id)
			t.Errorf("job %s ended during the outage: %s %s", id, st, j.Label)
		}
	}
	if _, open := set.ChainOutage(); !open {
		t.Error("the log does not say the chain is in an outage")
	}
	faultproxytest.SetMode(t, proxy, faultproxy.Pass)
	back := time.Now()
	for _, id := range ids {
		ok := false
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if status(id).Terminal() {
				ok = true
				break
			}
		}
		j, _ := set.Job(id)
		if !ok || j.Status != domain.Completed {
			t.Errorf("job %s (%s) after the outage: %s %s, want completed", id, j.Kind, j.Status, j.Label)
		}
	}
	t.Logf("every job ended %s after the chain came back", time.Since(back).Round(time.Millisecond))
	// The input proof that came during the outage could not be prepared, the user decrypt
	// could not be checked: each wait is in its history, numbered, with when it was to be tried
	// again.
	retriesOf := func(id domain.JobID) []domain.RetryScheduled {
		var retries []domain.RetryScheduled
		for r, err := range store.ReadStream(ctx, id.Stream(), 0) {
			if err != nil {
				t.Fatal(err)
			}
			if r.Type == "RetryScheduled" {
				ev, err := exec.Codec.Decode(r)
				if err != nil {
					t.Fatal(err)
				}
				retries = append(retries, ev.(domain.RetryScheduled))
			}
		}
		return retries
	}
	for _, c := range []struct {
		id   domain.JobID
		step string
	}{{ids[0], "prepare"}, {ids[1], "readiness"}} {
		retries := retriesOf(c.id)
		if len(retries) == 0 {
			t.Errorf("the job that waited out the outage (%s) has no RetryScheduled in its history", c.step)
		}
		for i, r := range retries {
			if r.Step != c.step || r.Attempt != i+1 || !r.NextAt.After(r.At) || r.Reason == "" {
				t.Errorf("retry %d: %+v, want step %s, attempt %d, a reason and a later next attempt", i, r, c.step, i+1)
			}
		}
	}
	var started, ended int
	for r, err := range store.ReadStream(ctx, domain.ChainStream, 0) {
		if err != nil {
			t.Fatal(err)
		}
		switch r.Type {
		case "ChainOutageStarted":
			started++
		case "ChainOutageEnded":
			ended++
		}
	}
	if started != 1 || ended != 1 {
		t.Errorf("the chain stream holds %d starts and %d ends, want one of each", started, ended)
	}
	if _, open := set.ChainOutage(); open {
		t.Error("the log still says the chain is in an outage")
	}
}

// startProxiedEngine starts, on a new log, an engine that reaches chain through a fault proxy
// (over HTTP, with a 2 s call timeout), and its projections with pcfg; it returns the test's
// context (cancelled at the end), the proxy, the log and the projections.
func startProxiedEngine(t *testing.T, chain *devchain.Chain, pcfg projections.Config) (context.Context, *faultproxy.Proxy, eventstore.Store, *projections.Set) {
	t.Helper()
	proxy := faultproxytest.Start(t, chain.HTTPEndpoint())
	ctx, _, store, set := startDialedEngine(t, chain, pcfg, retryafter.DefaultConfig(), func(c *gateway.Config) { c.RPCURL = proxy.URL() })
	return ctx, proxy, store, set
}

// startDialedEngine starts, on a new log, an engine whose adapter Dials chain as edit says (its
// RPC URL or providers; a 2 s call timeout unless edit sets another), with its projections
// (pcfg) and tuning; it returns the test's context (cancelled at the end), the adapter, the log
// and the projections.
func startDialedEngine(t *testing.T, chain *devchain.Chain, pcfg projections.Config, tuning retryafter.Config, edit func(*gateway.Config)) (context.Context, *gateway.Adapter, eventstore.Store, *projections.Set) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	a := chain.Addresses()
	cfg := gateway.Config{
		ChainID:      chain.ChainID().Uint64(),
		Contracts:    gateway.Contracts{Decryption: a.Decryption, InputVerification: a.InputVerification, ACL: a.ACL},
		PollInterval: 100 * time.Millisecond, ReceiptPollMin: 10 * time.Millisecond, GapFillDelay: 300 * time.Millisecond,
		CallTimeout: 2 * time.Second,
	}
	edit(&cfg)
	gw, err := gateway.Dial(ctx, cfg, testLogger(t), gateway.WithSigner(gateway.NewSigner(chain.RelayerKey())))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	store := projectionstest.OpenStore(t)
	set, err := projections.New(pcfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := set.CatchUp(ctx, store); err != nil {
		t.Fatal(err)
	}
	go func() { _ = set.Run(ctx, store) }()
	eng, err := New(Config{UserDecryptThreshold: chain.Threshold(), ReadinessPollInterval: 100 * time.Millisecond, TimeoutsPoll: 100 * time.Millisecond,
		TxAttempts: 2, TxRetryDelay: 50 * time.Millisecond},
		Deps{Store: store, Projections: set, Gateway: gw, Tuning: func() retryafter.Config { return tuning }, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- eng.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("engine: %v", err)
		}
		gw.Close()
	})
	select {
	case <-eng.Ready():
	case <-time.After(30 * time.Second):
		t.Fatal("engine not ready")
	}
	return ctx, gw, store, set
}

// A transaction signed and recorded while the chain could not be reached, and never delivered,
// goes out as soon as the chain answers again, not at its tx_in_flight deadline minutes later:
// the same bytes, one gateway request.
func TestTransactionsInFlightAreSentAgainWhenAnOutageEnds(t *testing.T) {
	chain := startTestChain(t, devchain.Config{HTTPAddr: "127.0.0.1:0"})
	ctx, proxy, store, set := startProxiedEngine(t, chain, projections.Config{TxInFlightTimeout: 5 * time.Minute})
	faultproxytest.SetMode(t, proxy, faultproxy.Refuse)
	eventually(t, func() bool { _, open := set.ChainOutage(); return open }, "the outage to be recorded")

	// What a sender does the instant before its broadcast, while the node is away: the bytes are
	// signed and recorded (by an adapter on the chain itself, as the engine's own would have).
	exec := &projections.Executor{Store: store, Codec: projections.NewCodec()}
	req := testRequest(domain.InputProof, contracts.ScenarioNone, t.Name())
	id := domain.NewJobID()
	if _, err := exec.Execute(ctx, id, domain.Accept{At: domain.At{At: time.Now()}, JobID: id, Request: req, ContentHash: id.String()}, eventstore.Metadata{CorrelationID: id.Stream()}); err != nil {
		t.Fatal(err)
	}
	direct := newTestAdapter(t, chain)
	defer direct.Close()
	p, err := direct.Prepare(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.Execute(ctx, id, domain.SignTransaction{At: domain.At{At: time.Now()}, From: p.From.Hex(), Nonce: p.Nonce, TxHash: p.Hash.Hex(), RawTx: hex.EncodeToString(p.Raw)}, eventstore.Metadata{CorrelationID: id.Stream()}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if j, _ := set.Job(id); j.Status != domain.TxInFlight {
		t.Fatalf("during the outage the job is %s, want tx_in_flight", j.Status)
	}

	faultproxytest.SetMode(t, proxy, faultproxy.Pass)
	back := time.Now()
	for time.Now().Before(back.Add(30 * time.Second)) {
		if j, _ := set.Job(id); j.Status.Terminal() {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	j, _ := set.Job(id)
	if j.Status != domain.Completed {
		t.Fatalf("30 s after the outage (its deadline 5 min away): %s %s, want completed", j.Status, j.Label)
	}
	t.Logf("completed %s after the chain came back", time.Since(back).Round(time.Millisecond))
	if got := requestsOnChain(t, chain, req); len(got) != 1 || got[0] != p.Hash {
		t.Fatalf("gateway requests on chain %v, want exactly the recorded one %s", got, p.Hash.Hex())
	}
}

// sendRecorder is a real HTTP server in front of an engine's JSON-RPC endpoint that forwards
// every call and records the nonce of every transaction sent through it, in order.
type sendRecorder struct {
	srv    *httptest.Server
	target string
	// delay holds every eth_sendRawTransaction (not the Sync one) this long: a node far away.
	delay time.Duration

	mu     sync.Mutex
	nonces []uint64
	hashes []common.Hash
}

// newSlowSendRecorder is a sendRecorder that holds every eth_sendRawTransaction for delay.
func newSlowSendRecorder(t *testing.T, target string, delay time.Duration) *sendRecorder {
	t.Helper()
	r := &sendRecorder{target: target, delay: delay}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *sendRecorder) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var call struct {
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &call) == nil && strings.HasPrefix(call.Method, "eth_sendRawTransaction") && len(call.Params) > 0 {
		var (
			tx  types.Transaction
			raw hexutil.Bytes
		)
		if json.Unmarshal(call.Params[0], &raw) == nil && tx.UnmarshalBinary(raw) == nil {
			r.mu.Lock()
			r.nonces = append(r.nonces, tx.Nonce())
			r.hashes = append(r.hashes, tx.Hash())
			r.mu.Unlock()
		}
		if call.Method == "eth_sendRawTransaction" {
			time.Sleep(r.delay)
		}
	}
	resp, err := http.Post(r.target, "application/json", bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// sentHashes returns the hashes of the transactions sent from the n-th on.
func (r *sendRecorder) sentHashes(from int) []common.Hash {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.hashes[from:])
}

// sent returns the nonces of the transactions sent from the n-th on.
func (r *sendRecorder) sent(from int) []uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.nonces[from:])
}

// Many transactions recorded during an outage and never delivered go out, when it ends, in
// nonce order, before any sender waits for a receipt: sent in another order, each later one
// waits for its receipt holding one of the adapter's few sends, and an earlier one can find
// none free for the node's whole wait (CI once saw the first job after an outage wait 15 s so).
func TestTransactionsInFlightAreSentAgainInNonceOrderWhenAnOutageEnds(t *testing.T) {
	// A long call timeout: the node's receipt wait, half of it, is what a send out of order holds.
	chain, proxy, rec, ctx, store, set := inOutage(t, 0, 20*time.Second)

	const jobs = 40
	recorded := inFlightDuringOutage(t, ctx, chain, store, jobs)
	reqs, hashes, first := recorded.reqs, recorded.hashes, recorded.first
	eventually(t, func() bool { return len(set.InStatus(domain.TxInFlight)) == jobs }, "the jobs to be in tx_in_flight")

	before := len(rec.sent(0))
	faultproxytest.SetMode(t, proxy, faultproxy.Pass)
	waitAllEnded(t, set, recorded.ids)

	// Each nonce's first send after the outage comes after every earlier nonce's (a job's sender
	// sends its own bytes again once they went out).
	sent := rec.sent(before)
	var firsts []uint64
	for _, n := range sent {
		if !slices.Contains(firsts, n) {
			firsts = append(firsts, n)
		}
	}
	if len(firsts) < jobs {
		t.Fatalf("after the outage %d nonces were sent, want at least the %d in flight", len(firsts), jobs)
	}
	for i, n := range firsts[:jobs] {
		if n != first+uint64(i) {
			t.Fatalf("the nonces sent after the outage, in the order of their first sends, %v: want %d to %d in order (the sends: %v)", firsts[:jobs], first, first+jobs-1, sent)
		}
	}
	for id, req := range reqs {
		if j, _ := set.Job(id); j.Status != domain.Completed {
			t.Errorf("job %s ended %s %s, want completed", id, j.Status, j.Label)
		}
		if got := requestsOnChain(t, chain, req); len(got) != 1 || got[0] != hashes[id] {
			t.Errorf("job %s: gateway requests on chain %v, want exactly the recorded one %s", id, got, hashes[id].Hex())
		}
	}
}

// waitAllEnded waits (a minute at most) until every job of ids is terminal.
func waitAllEnded(t *testing.T, set *projections.Set, ids []domain.JobID) {
	t.Helper()
	eventuallyWithin(t, time.Minute, func() bool {
		for _, id := range ids {
			if j, _ := set.Job(id); !j.Status.Terminal() {
				return false
			}
		}
		return true
	}, "every job to end")
}

// inOutage starts a chain and an engine that reaches it through a fault proxy and a send
// recorder (holding plain sends for delay; callTimeout 0 for the tests' 2 s), and cuts the
// proxy: it returns once the outage is recorded.
func inOutage(t *testing.T, delay, callTimeout time.Duration) (*devchain.Chain, *faultproxy.Proxy, *sendRecorder, context.Context, eventstore.Store, *projections.Set) {
	t.Helper()
	chain := startTestChain(t, devchain.Config{HTTPAddr: "127.0.0.1:0"})
	proxy := faultproxytest.Start(t, chain.HTTPEndpoint())
	rec := newSlowSendRecorder(t, proxy.URL(), delay)
	ctx, _, store, set := startDialedEngine(t, chain, projections.Config{TxInFlightTimeout: 5 * time.Minute}, retryafter.DefaultConfig(),
		func(c *gateway.Config) {
			c.RPCURL = rec.srv.URL
			if callTimeout > 0 {
				c.CallTimeout = callTimeout
			}
		})
	faultproxytest.SetMode(t, proxy, faultproxy.Refuse)
	eventually(t, func() bool { _, open := set.ChainOutage(); return open }, "the outage to be recorded")
	return chain, proxy, rec, ctx, store, set
}

// inFlight are jobs signed and recorded while the engine's node was away, in nonce order.
type inFlight struct {
	ids    []domain.JobID
	reqs   map[domain.JobID]domain.Request
	hashes map[domain.JobID]common.Hash
	first  uint64 // the first job's nonce
}

// inFlightDuringOutage signs and records n jobs while the engine's node is away (an adapter on
// the chain itself signs them, in nonce order, as the engine's own would have). Their ids are in
// an order that is not their nonces' (as the senders of an engine record them).
func inFlightDuringOutage(t *testing.T, ctx context.Context, chain *devchain.Chain, store eventstore.Store, n int) inFlight {
	t.Helper()
	exec := &projections.Executor{Store: store, Codec: projections.NewCodec()}
	direct := newTestAdapter(t, chain)
	defer direct.Close()
	out := inFlight{reqs: map[domain.JobID]domain.Request{}, hashes: map[domain.JobID]common.Hash{}}
	for i := range n {
		req := testRequest(domain.InputProof, contracts.ScenarioNone, fmt.Sprintf("%s/%d", t.Name(), i))
		id := domain.NewJobID()
		if _, err := exec.Execute(ctx, id, domain.Accept{At: domain.At{At: time.Now()}, JobID: id, Request: req, ContentHash: id.String()}, eventstore.Metadata{CorrelationID: id.Stream()}); err != nil {
			t.Fatal(err)
		}
		p, err := direct.Prepare(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			out.first = p.Nonce
		}
		if _, err := exec.Execute(ctx, id, domain.SignTransaction{At: domain.At{At: time.Now()}, From: p.From.Hex(), Nonce: p.Nonce, TxHash: p.Hash.Hex(), RawTx: hex.EncodeToString(p.Raw)}, eventstore.Metadata{CorrelationID: id.Stream()}); err != nil {
			t.Fatal(err)
		}
		out.ids = append(out.ids, id)
		out.reqs[id], out.hashes[id] = req, p.Hash
	}
	return out
}

// With a node far away and many transactions in flight at an outage's end, the sending again
// in nonce order takes a round trip per transaction: a job's sender (its receipt recorded) does
// not wait for the whole of it, only for its own transaction and its key's earlier ones.
func TestTheFirstTransactionInFlightIsNotHeldUpByTheOthersSentAgainAfterAnOutage(t *testing.T) {
	chain, proxy, _, ctx, store, set := inOutage(t, 300*time.Millisecond, 0)

	const jobs = 30 // 9 s of sends one after the other
	ids := inFlightDuringOutage(t, ctx, chain, store, jobs).ids
	eventually(t, func() bool { return len(set.InStatus(domain.TxInFlight)) == jobs }, "the jobs to be in tx_in_flight")

	faultproxytest.SetMode(t, proxy, faultproxy.Pass)
	eventually(t, func() bool { _, open := set.ChainOutage(); return !open }, "the outage's end to be recorded")
	back := time.Now()
	eventuallyWithin(t, 4*time.Second, func() bool {
		j, _ := set.Job(ids[0])
		return j.Status != domain.TxInFlight
	}, "the job of the first nonce to have its receipt recorded")
	t.Logf("the first job moved on %s after the outage's end", time.Since(back).Round(time.Millisecond))
	waitAllEnded(t, set, ids)
}

// A job that settles while the transactions in flight are sent again after an outage (here it
// fails; a job whose node refused its bytes gives their nonce back) does not have its recorded
// bytes sent again afterwards: they may hold a nonce given back, and be mined as a second
// request.
func TestAJobSettledWhileTransactionsInFlightAreSentAgainIsLeftAlone(t *testing.T) {
	chain, proxy, rec, ctx, store, set := inOutage(t, 300*time.Millisecond, 0)

	const jobs = 20
	recorded := inFlightDuringOutage(t, ctx, chain, store, jobs)
	ids, hashes := recorded.ids, recorded.hashes
	eventually(t, func() bool { return len(set.InStatus(domain.TxInFlight)) == jobs }, "the jobs to be in tx_in_flight")

	before := len(rec.sent(0))
	faultproxytest.SetMode(t, proxy, faultproxy.Pass)
	eventually(t, func() bool { return len(rec.sent(before)) > 0 }, "the first transaction to be sent again")
	last := ids[jobs-1]
	exec := &projections.Executor{Store: store, Codec: projections.NewCodec()}
	if _, err := exec.Execute(ctx, last, domain.FailTransaction{At: domain.At{At: time.Now()}, Label: domain.LabelTransactionFailed, Message: t.Name()}, eventstore.Metadata{CorrelationID: last.Stream()}); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool { j, _ := set.Job(last); return j.Status.Terminal() }, "the failed job to be seen")
	failedAt := len(rec.sent(0))
	waitAllEnded(t, set, ids)
	time.Sleep(time.Second)
	for _, h := range rec.sentHashes(failedAt) {
		if h == hashes[last] {
			t.Fatalf("the failed job's transaction %s was sent again after it failed", h.Hex())
		}
	}
}
