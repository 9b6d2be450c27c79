package gateway_test

import (
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"relayer/domain"
	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
)

// unifiedRequest is a unified (v3) user decrypt by user of handles, each owned by the owner at
// the same index.
func unifiedRequest(user common.Address, handles [][32]byte, owners []common.Address) domain.Request {
	r := &domain.UnifiedUserDecryptRequest{
		UserAddress:     user.Hex(),
		StartTimestamp:  uint64(time.Now().Add(-time.Hour).Unix()),
		DurationSeconds: 86400,
		PublicKey:       testPublicKey("unified public key"),
		ExtraData:       "0x00",
	}
	for i, h := range handles {
		r.Handles = append(r.Handles, domain.HandleEntry{Handle: hexHandle(h), ContractAddress: appContract.Hex(), OwnerAddress: owners[i].Hex()})
	}
	return domain.Request{UnifiedUserDecrypt: r}
}

// A unified request goes to the gateway's unified userDecryptionRequest: a delegated entry is
// refused until its owner delegated it to the user, then the request is a user decryption (its
// receipt's id a user id) answered with threshold shares over the request's public key, the
// user's own entry and the delegated one together.
func TestAUnifiedUserDecryptWithADelegatedHandleIsSentToTheUnifiedCallAndAnswered(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	ad := dial(t, nextKey(t), nil)
	d := newDelegation(t)
	seed := uniqueSeed(t)
	handles := [][32]byte{contracts.TestHandle(contracts.ScenarioNone, seed+"/own"), contracts.TestHandle(contracts.ScenarioNone, seed+"/delegated")}
	// d.delegate is the user: one handle of its own, one of d.delegator's.
	req := unifiedRequest(d.delegate, handles, []common.Address{d.delegate, d.delegator})

	if ready, err := ad.IsUnifiedUserDecryptionReady(ctx, *req.UnifiedUserDecrypt); err != nil || !ready {
		t.Fatalf("IsUnifiedUserDecryptionReady = %v, %v; want true", ready, err)
	}
	_, err := ad.Prepare(ctx, req)
	if te := wantKind(t, err, gateway.ErrReverted); te.RevertName() != "UserDecryptNotDelegated" {
		t.Fatalf("Prepare before the delegation: %v (revert %q), want UserDecryptNotDelegated", err, te.RevertName())
	}

	d.grant(t, ctx)
	evs, rec := sendUserDecryption(t, ctx, ad, req, domain.UserDecrypt)
	var announced *contracts.DecryptionUnifiedUserDecryptionRequest
	for _, l := range rec.Raw.Logs {
		if l.Topics[0] == contracts.TopicUnifiedUserDecryptionRequest {
			if announced, err = contracts.NewDecryption().UnpackUnifiedUserDecryptionRequestEvent(l); err != nil {
				t.Fatal(err)
			}
		}
		if l.Topics[0] == contracts.TopicUserDecryptionRequest {
			t.Fatal("the unified request was announced with the legacy event")
		}
	}
	if announced == nil || announced.Payload.UserAddress != d.delegate || len(announced.Handles) != 2 ||
		announced.Handles[1].OwnerAddress != d.delegator || announced.Payload.RequestValidity.DurationSeconds.Uint64() != 86400 {
		t.Fatalf("the unified event: %+v", announced)
	}

	wantThresholdShares(t, evs, rec.RequestID, req.UnifiedUserDecrypt.PublicKey, handles)
}

func TestTheUnifiedCallRefusesAnExpiredOrTooLongWindowAtGasEstimation(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	ad := dial(t, nextKey(t), nil)
	h := contracts.TestHandle(contracts.ScenarioNone, uniqueSeed(t))
	for revert, edit := range map[string]func(u *domain.UnifiedUserDecryptRequest){
		"UserDecryptionRequestExpiredSeconds": func(u *domain.UnifiedUserDecryptRequest) { u.DurationSeconds = 60 },
		"MaxDurationSecondsExceeded":          func(u *domain.UnifiedUserDecryptRequest) { u.DurationSeconds = 365*86400 + 1 },
		"StartTimestampInFuture":              func(u *domain.UnifiedUserDecryptRequest) { u.StartTimestamp = uint64(time.Now().Add(time.Hour).Unix()) },
	} {
		req := unifiedRequest(userAddr, [][32]byte{h}, []common.Address{userAddr})
		edit(req.UnifiedUserDecrypt)
		_, err := ad.Prepare(ctx, req)
		if te := wantKind(t, err, gateway.ErrReverted); te.RevertName() != revert {
			t.Errorf("Prepare: %v (revert %q), want %s", err, te.RevertName(), revert)
		}
	}
}
