package gateway_test

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"relayer/domain"
	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
)

func TestADelegatedUserDecryptIsRefusedUntilDelegatedThenAnsweredWithSharesSignedForTheDelegatesKey(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	ad := dial(t, nextKey(t), nil)
	d := newDelegation(t)
	seed := uniqueSeed(t)
	handles := [][32]byte{contracts.TestHandle(contracts.ScenarioNone, seed+"/a"), contracts.TestHandle(contracts.ScenarioNone, seed+"/b")}
	req := delegatedRequest(d.delegator, d.delegate, handles...)

	delegated := func(delegator, delegate, contract common.Address, h [32]byte) bool {
		t.Helper()
		ok, err := ad.ACLDelegated(ctx, delegator, delegate, contract, h)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if delegated(d.delegator, d.delegate, appContract, handles[0]) {
		t.Fatal("ACLDelegated is true before the delegation")
	}
	// Readiness does not depend on the delegation; the gateway request does.
	if ready, err := ad.IsDelegatedUserDecryptionReady(ctx, *req.DelegatedUserDecrypt); err != nil || !ready {
		t.Fatalf("IsDelegatedUserDecryptionReady = %v, %v; want true", ready, err)
	}
	_, err := ad.Prepare(ctx, req)
	if te := wantKind(t, err, gateway.ErrReverted); te.RevertName() != "UserDecryptNotDelegated" || te.Op != "estimate gas" {
		t.Fatalf("Prepare before the delegation: %v (revert %q), want UserDecryptNotDelegated at gas estimation", err, te.RevertName())
	}

	d.grant(t, ctx)
	for _, h := range handles {
		if !delegated(d.delegator, d.delegate, appContract, h) {
			t.Fatalf("handle %x is not delegated after the grant", h)
		}
	}
	if delegated(d.delegator, userAddr, appContract, handles[0]) || delegated(d.delegator, d.delegate, userAddr, handles[0]) ||
		delegated(d.delegate, d.delegator, appContract, handles[0]) {
		t.Fatal("ACLDelegated is true for another delegate, contract or delegator")
	}

	evs, rec := sendUserDecryption(t, ctx, ad, req, domain.DelegatedUserDecrypt)
	if again, err := ad.ReceiptByHash(ctx, rec.TxHash); err != nil || again.Kind != rec.Kind || again.RequestID.Cmp(rec.RequestID) != 0 {
		t.Fatalf("ReceiptByHash: %+v, %v; Broadcast: %+v", again, err, rec)
	}

	wantThresholdShares(t, evs, rec.RequestID, req.DelegatedUserDecrypt.PublicKey, handles)

	// Revoked, the next request is refused before anything is signed.
	if err := shared.RevokeDelegationForUserDecryption(ctx, d.key, d.delegate, appContract); err != nil {
		t.Fatal(err)
	}
	if delegated(d.delegator, d.delegate, appContract, handles[0]) {
		t.Fatal("ACLDelegated is true after the revocation")
	}
	_, err = ad.Prepare(ctx, req)
	if te := wantKind(t, err, gateway.ErrReverted); te.RevertName() != "UserDecryptNotDelegated" {
		t.Fatalf("Prepare after the revocation: %v, want UserDecryptNotDelegated", err)
	}
}

func isKMSSigner(a common.Address) bool {
	for _, s := range shared.KMSSigners() {
		if s == a {
			return true
		}
	}
	return false
}

func TestAMalformedDelegatedUserDecryptIsRefusedBeforeAnythingIsSigned(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	ad := dial(t, nextKey(t), nil)
	h := contracts.TestHandle(contracts.ScenarioNone, uniqueSeed(t))
	for name, mod := range map[string]func(*domain.DelegatedUserDecryptRequest){
		"delegator":        func(r *domain.DelegatedUserDecryptRequest) { r.DelegatorAddress = "0x1234" },
		"delegate":         func(r *domain.DelegatedUserDecryptRequest) { r.DelegateAddress = "bob" },
		"handle":           func(r *domain.DelegatedUserDecryptRequest) { r.HandleContractPairs[0].Handle = "0x12" },
		"pair contract":    func(r *domain.DelegatedUserDecryptRequest) { r.HandleContractPairs[0].ContractAddress = "" },
		"contract address": func(r *domain.DelegatedUserDecryptRequest) { r.ContractAddresses = []string{"0xzz"} },
		"public key":       func(r *domain.DelegatedUserDecryptRequest) { r.PublicKey = "not hex" },
		"signature":        func(r *domain.DelegatedUserDecryptRequest) { r.Signature = "0xg1" },
		"extra data":       func(r *domain.DelegatedUserDecryptRequest) { r.ExtraData = "zz" },
	} {
		t.Run(name, func(t *testing.T) {
			req := delegatedRequest(userAddr, appContract, h)
			mod(req.DelegatedUserDecrypt)
			_, err := ad.Prepare(ctx, req)
			if te := wantKind(t, err, gateway.ErrInvalidRequest); te.Retryable() {
				t.Fatal("invalid is retryable")
			}
			_, err = ad.IsDelegatedUserDecryptionReady(ctx, *req.DelegatedUserDecrypt)
			wantKind(t, err, gateway.ErrInvalidRequest)
		})
	}
	// Two payloads are not one request.
	both := delegatedRequest(userAddr, appContract, h)
	both.UserDecrypt = userRequest(h).UserDecrypt
	_, err := ad.Prepare(ctx, both)
	wantKind(t, err, gateway.ErrInvalidRequest)
}
