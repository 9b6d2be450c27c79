package gateway_test

import (
	"bytes"
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"relayer/domain"
	"relayer/workers/devchain"
	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
)

// Every request kind in every development scenario, at the adapter level: views, prepare,
// record, broadcast, receipt with the gateway request id, and the response events the listener
// delivers for that id (or none).
func TestEveryRequestKindInEveryScenarioGoesFromPrepareToTheResponseEvents(t *testing.T) {
	kinds := []domain.Kind{domain.PublicDecrypt, domain.UserDecrypt, domain.DelegatedUserDecrypt, domain.InputProof}
	scenarios := []contracts.Scenario{contracts.ScenarioNone, contracts.ScenarioDenied, contracts.ScenarioNeverReady,
		contracts.ScenarioNoResponse, contracts.ScenarioReadyAfterDelay, contracts.ScenarioRevert}
	for _, k := range kinds {
		for _, s := range scenarios {
			t.Run(k.String()+"/"+s.String(), func(t *testing.T) {
				t.Parallel()
				runScenario(t, k, s)
			})
		}
	}
}

func runScenario(t *testing.T, kind domain.Kind, s contracts.Scenario) {
	ctx := testContext(t)
	key := nextKey(t)
	ad := dial(t, key, nil)
	seed := uniqueSeed(t)
	handles := [][32]byte{contracts.TestHandle(s, seed+"/a"), contracts.TestHandle(s, seed+"/b")}
	ciphertext := contracts.TestCiphertext(s, seed, 64)

	var req domain.Request
	switch kind {
	case domain.PublicDecrypt:
		req = publicRequest(handles...)
	case domain.UserDecrypt:
		req = userRequest(handles...)
	case domain.DelegatedUserDecrypt:
		d := newDelegation(t)
		d.grant(t, ctx)
		req = delegatedRequest(d.delegator, d.delegate, handles...)
	default:
		req = inputRequest(ciphertext)
	}

	if kind != domain.InputProof {
		checkViews(t, ctx, ad, kind, s, req, handles)
	}

	cursor, err := ad.HeadCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	evs := listen(t, ad, cursor)

	p, err := ad.Prepare(ctx, req)
	if wantRevert := s == contracts.ScenarioRevert || (s == contracts.ScenarioDenied && kind != domain.InputProof); wantRevert {
		te := wantKind(t, err, gateway.ErrReverted)
		want := "TestScenarioRevert"
		if s == contracts.ScenarioDenied {
			want = map[domain.Kind]string{domain.PublicDecrypt: "PublicDecryptNotAllowed", domain.UserDecrypt: "UserDecryptNotAllowed",
				domain.DelegatedUserDecrypt: "UserDecryptNotAllowed"}[kind]
		}
		if te.RevertName() != want || te.Op != "estimate gas" || te.TxHash != (common.Hash{}) || p != nil {
			t.Fatalf("Prepare: %v (revert %q, op %q), want %s at gas estimation with nothing signed", err, te.RevertName(), te.Op, want)
		}
		// Nothing was signed, so no nonce was used: the key's next transaction takes the
		// chain's pending nonce.
		next := mustPrepare(t, ctx, ad, publicRequest(contracts.TestHandle(contracts.ScenarioNoResponse, seed+"/next")))
		pending, err := shared.Client().PendingNonceAt(ctx, crypto.PubkeyToAddress(key.PublicKey))
		if err != nil {
			t.Fatal(err)
		}
		if next.Nonce != pending {
			t.Fatalf("nonce after a refused request is %d, want the pending nonce %d", next.Nonce, pending)
		}
		ad.Release(next)
		return
	}
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	checkPrepared(t, p, kind)

	// The caller records p here (tx_in_flight), then broadcasts.
	rec, err := ad.Broadcast(ctx, p)
	if err != nil {
		t.Fatalf("Broadcast: %v", err)
	}
	// A delegated user decrypt's receipt carries a user decryption's request event.
	if rec.TxHash != p.Hash || rec.Kind != kind.Family() || rec.RequestID == nil || rec.RequestID.Sign() <= 0 {
		t.Fatalf("receipt %+v for %s tx %s", rec, kind, p.Hash)
	}
	switch kind.Family() {
	case domain.PublicDecrypt:
		if contracts.DecryptionKindOf(rec.RequestID) != contracts.DecryptionKindPublic {
			t.Fatalf("public decrypt id %#x lacks the public kind byte", rec.RequestID)
		}
	case domain.UserDecrypt:
		if contracts.DecryptionKindOf(rec.RequestID) != contracts.DecryptionKindUser {
			t.Fatalf("user decrypt id %#x lacks the user kind byte", rec.RequestID)
		}
	default:
		if rec.RequestID.BitLen() > 64 {
			t.Fatalf("zkProofId %#x is not a small counter", rec.RequestID)
		}
	}

	id := rec.RequestID
	threshold := shared.Threshold()
	switch {
	case kind == domain.PublicDecrypt && (s == contracts.ScenarioNone || s == contracts.ScenarioReadyAfterDelay):
		got := evs.until(t, id, func(e []gateway.Event) bool { return len(e) >= 1 })
		pd := got[0].PublicDecryption
		if got[0].Type != gateway.PublicDecryptionResponse || pd == nil ||
			!bytes.Equal(pd.DecryptedResult, devchain.PublicDecryptionResult(handles)) || len(pd.Signatures) != threshold {
			t.Fatalf("public decryption response %v %+v, want the devchain's result with %d signatures", got[0], pd, threshold)
		}
		checkEventPosition(t, ctx, got[0], rec)
	case kind.Family() == domain.UserDecrypt && (s == contracts.ScenarioNone || s == contracts.ScenarioReadyAfterDelay):
		got := evs.until(t, id, func(e []gateway.Event) bool {
			return len(ofType(e, gateway.UserDecryptionResponseThresholdReached)) == 1 &&
				len(ofType(e, gateway.UserDecryptionResponse)) >= threshold
		})
		signers := map[common.Address]bool{}
		for i, ev := range ofType(got, gateway.UserDecryptionResponse)[:threshold] {
			sh := ev.UserDecryptionShare
			if sh == nil || sh.Index != uint64(i) || len(sh.Share) != 32*len(handles) || len(sh.Signature) != 65 {
				t.Fatalf("share %d: %+v", i, sh)
			}
			signers[sh.Signer] = true
		}
		if len(signers) != threshold {
			t.Fatalf("shares from %d distinct signers, want %d", len(signers), threshold)
		}
	case kind == domain.InputProof && s == contracts.ScenarioDenied:
		got := evs.until(t, id, func(e []gateway.Event) bool { return len(e) >= 1 })
		if got[0].Type != gateway.RejectProofResponse {
			t.Fatalf("input proof of scenario 01: %v, want RejectProofResponse", got[0])
		}
	case kind == domain.InputProof && s != contracts.ScenarioNoResponse:
		got := evs.until(t, id, func(e []gateway.Event) bool { return len(e) >= 1 })
		vp := got[0].VerifyProof
		want := devchain.InputHandles(shared.Addresses().ACL, big.NewInt(devchain.ChainID), appContract, userAddr, ciphertext)
		if got[0].Type != gateway.VerifyProofResponse || vp == nil || len(vp.Handles) != len(want) || vp.Handles[0] != want[0] ||
			len(vp.Signatures) != shared.Majority() {
			t.Fatalf("verify proof response %v %+v, want handles %x with %d signatures", got[0], vp, want, shared.Majority())
		}
	default: // 02 and 03 decryptions, 03 input proofs: on chain, never answered
		evs.none(t, id)
	}
}

// checkViews asserts the ACL and readiness views for a decryption's handles, and waits for a
// scenario-04 handle to become ready 5 s of chain time after the chain saw it. A delegated
// request's handles are delegated exactly when they are allowed.
func checkViews(t *testing.T, ctx context.Context, ad *gateway.Adapter, kind domain.Kind, s contracts.Scenario, req domain.Request, handles [][32]byte) {
	t.Helper()
	allowed := s != contracts.ScenarioDenied
	for _, h := range handles {
		var okDec, okUser, okContract bool
		var err error
		if okDec, err = ad.ACLAllowedForDecryption(ctx, h); err != nil {
			t.Fatal(err)
		}
		if okUser, err = ad.ACLAllowed(ctx, h, userAddr); err != nil {
			t.Fatal(err)
		}
		if okContract, err = ad.ACLAllowed(ctx, h, appContract); err != nil {
			t.Fatal(err)
		}
		if okDec != allowed || okUser != allowed || okContract != allowed {
			t.Fatalf("ACL views of a scenario %s handle: forDecryption %v, user %v, contract %v; want %v", s, okDec, okUser, okContract, allowed)
		}
		if d := req.DelegatedUserDecrypt; d != nil {
			ok, err := ad.ACLDelegated(ctx, common.HexToAddress(d.DelegatorAddress), common.HexToAddress(d.DelegateAddress), appContract, h)
			if err != nil {
				t.Fatal(err)
			}
			if ok != allowed {
				t.Fatalf("ACLDelegated of a scenario %s handle: %v, want %v", s, ok, allowed)
			}
		}
	}
	ready := func() bool {
		t.Helper()
		var r bool
		var err error
		switch kind {
		case domain.PublicDecrypt:
			r, err = ad.IsPublicDecryptionReady(ctx, *req.PublicDecrypt)
		case domain.DelegatedUserDecrypt:
			r, err = ad.IsDelegatedUserDecryptionReady(ctx, *req.DelegatedUserDecrypt)
		default:
			r, err = ad.IsUserDecryptionReady(ctx, *req.UserDecrypt)
		}
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	switch s {
	case contracts.ScenarioNone, contracts.ScenarioNoResponse:
		if !ready() {
			t.Fatalf("scenario %s is not ready", s)
		}
	case contracts.ScenarioDenied, contracts.ScenarioNeverReady:
		if ready() {
			t.Fatalf("scenario %s is ready", s)
		}
	case contracts.ScenarioReadyAfterDelay:
		if ready() {
			t.Fatal("an unseen scenario-04 handle is ready")
		}
		if err := shared.RegisterHandles(ctx, handles...); err != nil {
			t.Fatal(err)
		}
		firstSeen := handleFirstSeen(t, ctx, handles[0])
		readyAt := firstSeen.Add(contracts.ReadyDelay)
		for {
			before := headTime(t, ctx)
			r := ready()
			after := headTime(t, ctx)
			if r && after.Before(readyAt) {
				t.Fatalf("ready at chain time %v, before first seen + 5s (%v)", after, readyAt)
			}
			if !r && !before.Before(readyAt) {
				t.Fatalf("not ready at chain time %v, after first seen + 5s (%v)", before, readyAt)
			}
			if r {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

func handleFirstSeen(t *testing.T, ctx context.Context, h [32]byte) time.Time {
	t.Helper()
	dec := contracts.NewDecryption()
	to := shared.Addresses().Decryption
	out, err := shared.Client().CallContract(ctx, ethereum.CallMsg{To: &to, Data: dec.PackHandleFirstSeen(h)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen, err := dec.UnpackHandleFirstSeen(out)
	if err != nil || seen.Sign() == 0 {
		t.Fatalf("handleFirstSeen: %v, %v", seen, err)
	}
	return time.Unix(seen.Int64(), 0)
}

func headTime(t *testing.T, ctx context.Context) time.Time {
	t.Helper()
	ht, err := shared.HeadTime(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ht
}

// checkPrepared asserts what the caller records before broadcasting.
func checkPrepared(t *testing.T, p *gateway.Prepared, kind domain.Kind) {
	t.Helper()
	tx := p.Transaction()
	if p.Kind != kind || len(p.Raw) == 0 || tx == nil || tx.Hash() != p.Hash || crypto.Keccak256Hash(p.Raw) != p.Hash ||
		tx.Nonce() != p.Nonce || tx.Type() != 2 || p.GasLimit != tx.Gas() || p.GasFeeCap.Cmp(tx.GasFeeCap()) != 0 {
		t.Fatalf("prepared %+v does not describe its own transaction", p)
	}
	if tx.ChainId().Uint64() != devchain.ChainID || *tx.To() != p.To {
		t.Fatalf("prepared for chain %v to %v", tx.ChainId(), tx.To())
	}
}

// checkEventPosition asserts that an event names a real log of a block after the request's.
func checkEventPosition(t *testing.T, ctx context.Context, ev gateway.Event, req *gateway.Receipt) {
	t.Helper()
	if ev.BlockNumber < req.BlockNumber || ev.TxHash == (common.Hash{}) || ev.BlockHash == (common.Hash{}) {
		t.Fatalf("response %v is not after its request in block %d", ev, req.BlockNumber)
	}
	r, err := shared.Client().TransactionReceipt(ctx, ev.TxHash)
	if err != nil {
		t.Fatal(err)
	}
	if r.BlockHash != ev.BlockHash || r.BlockNumber.Uint64() != ev.BlockNumber {
		t.Fatalf("response %v: its receipt is in block %d %s", ev, r.BlockNumber, r.BlockHash)
	}
	found := false
	for _, l := range r.Logs {
		found = found || (l.Index == ev.LogIndex && l.Topics[1].Big().Cmp(ev.RequestID) == 0)
	}
	if !found {
		t.Fatalf("response %v: no log %d with the id in its transaction", ev, ev.LogIndex)
	}
}
