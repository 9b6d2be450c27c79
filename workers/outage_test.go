package workers

import (
	"context"
	"testing"
	"time"

	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers/devchain"
	"relayer/workers/devchain/faultproxy"
	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
)

// An engine whose chain goes away for longer than every deadline: no job fails and none times
// out; the outage is in the log, once started and once ended; and when the chain is back every
// job completes, those the node could not prepare meanwhile at once.
func TestAChainOutageLongerThanTheDeadlinesFailsAndTimesOutNoJob(t *testing.T) {
	// Slow KMS answers, so that a decrypt waits in receipt_received when the chain goes away.
	chain := startTestChain(t, devchain.Config{HTTPAddr: "127.0.0.1:0", ResponseDelayMin: 1500 * time.Millisecond, ResponseDelayMax: 2 * time.Second})
	proxy, err := faultproxy.New(chain.HTTPEndpoint())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := chain.Addresses()
	gw, err := gateway.Dial(ctx, gateway.Config{
		RPCURL: proxy.URL(), ChainID: chain.ChainID().Uint64(),
		Contracts:    gateway.Contracts{Decryption: a.Decryption, InputVerification: a.InputVerification, ACL: a.ACL},
		PollInterval: 100 * time.Millisecond, ReceiptPollMin: 10 * time.Millisecond, GapFillDelay: 300 * time.Millisecond,
		CallTimeout: 2 * time.Second,
	}, testLogger(t), gateway.WithSigner(gateway.NewSigner(chain.RelayerKey())))
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	store := openStore(t)
	deadline := 3 * time.Second
	set, err := projections.New(projections.Config{ReadinessTimeout: deadline, TxInFlightTimeout: 2 * deadline, ResponseTimeout: deadline})
	if err != nil {
		t.Fatal(err)
	}
	if err := set.CatchUp(ctx, store); err != nil {
		t.Fatal(err)
	}
	go func() { _ = set.Run(ctx, store) }()
	eng, err := New(Config{UserDecryptThreshold: chain.Threshold(), ReadinessPollInterval: 100 * time.Millisecond, TimeoutsPoll: 100 * time.Millisecond,
		TxAttempts: 2, TxRetryDelay: 50 * time.Millisecond},
		Deps{Store: store, Projections: set, Gateway: gw, Tuning: retryafter.DefaultConfig, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- eng.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("engine: %v", err)
		}
	}()
	select {
	case <-eng.Ready():
	case <-time.After(30 * time.Second):
		t.Fatal("engine not ready")
	}
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
	if err := proxy.SetMode(faultproxy.Refuse); err != nil {
		t.Fatal(err)
	}
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
	if err := proxy.SetMode(faultproxy.Pass); err != nil {
		t.Fatal(err)
	}
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
	// The input proof that came during the outage could not be prepared: each wait is in its
	// history, numbered, with when it was to be tried again.
	var retries []domain.RetryScheduled
	for r, err := range store.ReadStream(ctx, ids[0].Stream(), 0) {
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
	if len(retries) == 0 {
		t.Error("the input proof that waited out the outage has no RetryScheduled in its history")
	}
	for i, r := range retries {
		if r.Step != "prepare" || r.Attempt != i+1 || !r.NextAt.After(r.At) || r.Reason == "" {
			t.Errorf("retry %d: %+v, want step prepare, attempt %d, a reason and a later next attempt", i, r, i+1)
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
