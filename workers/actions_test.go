package workers

import (
	"context"
	"encoding/hex"
	"math/big"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/workers/devchain"
)

// cancelAsked is an operator's cancel, as the API decides it.
func cancelAsked() domain.Cancel {
	return domain.Cancel{At: domain.At{At: time.Now()}, Who: "admin:0a1b2c3d", Reason: "stuck behind a misconfigured contract"}
}

// A cancel asked for while the job's transaction is in flight (here: signed, recorded and never
// sent, the engine down) is carried out by the engine: a no-op at the same nonce, recorded before
// it is sent. The no-op is the one mined, so the job ends cancelled and the gateway never gets
// the request.
func TestACancelInFlightWhoseNoOpIsMinedEndsTheJobCancelledWithoutAGatewayRequest(t *testing.T) {
	r := newCrashRig(t, devchain.Config{})
	req, id, gw, first := r.signedInputProof()
	gw.Close()
	r.execute(id, cancelAsked())

	evs := r.restart(id, domain.Failure, domain.LabelCancelled, "RequestAccepted", "TransactionSigned", "CancelRequested", "TransactionReplaced", "JobCancelled")
	noOp := evs[3].(domain.TransactionReplaced)
	c := evs[4].(domain.JobCancelled)
	if !noOp.Cancel || noOp.Replaces != first.Hash.Hex() || c.NoOpTxHash != noOp.TxHash || c.From != domain.TxInFlight || c.Who != "admin:0a1b2c3d" {
		t.Errorf("no-op %+v, cancel %+v: want the recorded no-op of %s mined and the cancel attributed", noOp, c, first.Hash.Hex())
	}
	if got := requestsOnChain(t, r.chain, req); len(got) != 0 {
		t.Errorf("gateway requests on chain %v, want none: the no-op took the nonce", got)
	}
	wantNoOpOnChain(t, r, id, noOp.TxHash, first.Nonce)
}

// wantNoOpOnChain fails unless job id's recorded transaction hash is mined: a transfer of nothing from the key to itself at nonce.
func wantNoOpOnChain(t *testing.T, r *crashRig, id domain.JobID, hash string, nonce uint64) {
	t.Helper()
	raw := ""
	_, evs := r.events(id)
	for _, e := range evs {
		if rp, ok := e.(domain.TransactionReplaced); ok && rp.TxHash == hash {
			raw = rp.RawTx
		}
	}
	b, err := decodeRawTx(raw)
	if err != nil {
		t.Fatal(err)
	}
	gw := newTestAdapter(t, r.chain)
	defer gw.Close()
	p, err := gw.DecodePrepared(b)
	if err != nil {
		t.Fatal(err)
	}
	tx := p.Transaction()
	if !p.NoOp || p.Nonce != nonce || *tx.To() != p.From || len(tx.Data()) != 0 || tx.Value().Sign() != 0 {
		t.Fatalf("the no-op %s is not a transfer of nothing to the key itself at nonce %d", hash, nonce)
	}
	rec, err := gw.ReceiptByHash(context.Background(), p.Hash)
	if err != nil || !rec.NoOp {
		t.Fatalf("the no-op %s: receipt %+v, %v; want it mined", hash, rec, err)
	}
}

// The job's own transaction was mined before the cancel's no-op could be: the no-op finds its
// nonce used, the mined transaction's receipt is adopted, and the job completes as usual; its
// history shows the cancel that lost the race.
func TestACancelInFlightLosesTheRaceWhenTheJobsTransactionIsMinedFirst(t *testing.T) {
	r := newCrashRig(t, devchain.Config{})
	ctx := context.Background()
	req, id, gw, first := r.signedInputProof()
	if _, err := gw.Broadcast(ctx, first); err != nil {
		t.Fatal(err)
	}
	gw.Close()
	r.execute(id, cancelAsked())

	// The job's transaction was mined first: it completes.
	evs := r.restart(id, domain.Completed, "", "RequestAccepted", "TransactionSigned", "CancelRequested", "TransactionReplaced", "ReceiptRecorded", "RequestCompleted")
	if rec := evs[4].(domain.ReceiptRecorded); rec.TxHash != first.Hash.Hex() {
		t.Errorf("receipt of %s, want the mined transaction %s", rec.TxHash, first.Hash.Hex())
	}
	wantOneRequest(t, r.chain, "input proof", req, first.Hash)
}

// The crashed engine recorded the cancel's no-op and died before sending it: the new engine
// sends the recorded bytes (not a new no-op), they are mined, and the job ends cancelled.
func TestRecoverySendsTheRecordedNoOpOfACancel(t *testing.T) {
	r := newCrashRig(t, devchain.Config{})
	ctx := context.Background()
	req, id, gw, first := r.signedInputProof()
	r.execute(id, cancelAsked())
	np, err := gw.CancelReplacement(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	// A replacement the node takes: the same nonce, both fees raised by the bump (12% by default).
	wantFeesRaised(t, "the no-op's fee", 12, [][2]*big.Int{{np.GasFeeCap, first.GasFeeCap}, {np.GasTipCap, first.GasTipCap}})
	if !np.NoOp || np.Nonce != first.Nonce || np.To != first.From || len(np.Transaction().Data()) != 0 || np.GasLimit != 21_000 {
		t.Fatalf("the no-op %+v is not a plain transfer to the key itself at nonce %d", np, first.Nonce)
	}
	r.execute(id, domain.ReplaceTransaction{At: domain.At{At: time.Now()}, Replaces: first.Hash.Hex(), TxHash: np.Hash.Hex(),
		RawTx: "0x" + hex.EncodeToString(np.Raw), GasFeeCap: np.GasFeeCap.String(), GasTipCap: np.GasTipCap.String(), Cancel: true})
	gw.Close()

	// The recorded no-op is sent, and no second one signed.
	evs := r.restart(id, domain.Failure, domain.LabelCancelled, "RequestAccepted", "TransactionSigned", "CancelRequested", "TransactionReplaced", "JobCancelled")
	if c := evs[4].(domain.JobCancelled); c.NoOpTxHash != np.Hash.Hex() {
		t.Errorf("cancelled by %s, want the recorded no-op %s", c.NoOpTxHash, np.Hash.Hex())
	}
	if got := requestsOnChain(t, r.chain, req); len(got) != 0 {
		t.Errorf("gateway requests on chain %v, want none", got)
	}
}

// A job parked on the long-tail schedule (its signer could not sign) is tried at once when an
// operator retries it (RetryRequested), not at the parked time: its transaction is signed well
// before the time its RetryScheduled named, and it completes.
func TestAnOperatorsRetryTakesAParkedJobUpAtOnce(t *testing.T) {
	e, _, _, env, id, parked := parkOnAKMSOutage(t)
	e.Restart(t)
	if _, err := env.exec.Execute(context.Background(), id, domain.Retry{At: domain.At{At: time.Now()}, Who: "admin:0a1b2c3d", Reason: "KMS is back"},
		eventstore.Metadata{CorrelationID: "test"}); err != nil {
		t.Fatalf("retry of the parked job: %v", err)
	}
	s := env.waitTerminal(id, time.Minute)
	if s.Status != domain.Completed {
		t.Fatalf("%s %q (%s), want completed", s.Status, s.Label, s.Message)
	}
	var retried bool
	for _, ev := range env.history(id) {
		switch ev := ev.(type) {
		case domain.RetryRequested:
			retried = true
		case domain.TransactionSigned:
			if !retried || !ev.At.Before(parked.NextAt) {
				t.Errorf("signed at %v (after the retry: %v), want after the retry and before the parked time %v", ev.At, retried, parked.NextAt)
			}
		}
	}
}

// history is job id's events.
func (env *engineEnv) history(id domain.JobID) []domain.Event {
	env.t.Helper()
	_, evs := readStream(env.t, env.store, id.Stream(), env.domainEvent)
	return evs
}
