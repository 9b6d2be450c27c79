package devchain_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"relayer/workers/devchain"
	"relayer/workers/gateway/contracts"
)

// addressOf is an address no other test (or earlier run of this one) uses.
func addressOf(seed string) common.Address {
	return common.BytesToAddress(crypto.Keccak256([]byte("devchain-test/" + seed))[12:])
}

func headTime(t *testing.T, ctx context.Context, c *devchain.Chain) time.Time {
	t.Helper()
	ht, err := c.HeadTime(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ht
}

func TestTheUserKeysAreFundedAndComeFromThePublicSeed(t *testing.T) {
	t.Parallel()
	c, ctx := shared, testContext(t)
	for i := range devchain.UserKeys {
		k := c.UserKey(i)
		if !k.Equal(devchain.UserDevKey(i)) || !k.Equal(devchain.DevKey(devchain.RoleUser, i)) {
			t.Fatalf("UserKey(%d) is not UserDevKey(%d)", i, i)
		}
		bal, err := c.Client().BalanceAt(ctx, crypto.PubkeyToAddress(k.PublicKey), nil)
		if err != nil || bal.Sign() <= 0 {
			t.Fatalf("user key %d is not funded (%v, %v)", i, bal, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("UserKey(UserKeys) returned a key that has no funds")
		}
	}()
	c.UserKey(devchain.UserKeys)
}

func TestADelegatedUserDecryptionIsAnsweredWithThresholdSharesForTheDelegatesKey(t *testing.T) {
	t.Parallel()
	c, ctx, g, relayer := onShared(t)
	delegatorKey := c.UserKey(0)
	delegator := crypto.PubkeyToAddress(delegatorKey.PublicKey)
	delegate := addressOf(seed(t))
	handles := [][32]byte{contracts.TestHandle(contracts.ScenarioNone, seed(t)+"/1"), contracts.TestHandle(contracts.ScenarioNone, seed(t)+"/2")}
	publicKey := []byte("delegate public key")
	request := delegatedRequest(g, handles, testContract, delegator, delegate, publicKey)

	if re := relayer.mustRevert(t, ctx, g.DecryptionAt, request); re.Name != "UserDecryptNotDelegated" {
		t.Fatalf("a request before the delegation reverted with %v, want UserDecryptNotDelegated", re)
	}
	if err := c.DelegateForUserDecryption(ctx, delegatorKey, delegate, testContract, headTime(t, ctx, c).Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, h := range handles {
		if !call(t, ctx, g.ACLAt, g.ACL.PackIsHandleDelegatedForUserDecryption(delegator, delegate, testContract, h), g.ACL.UnpackIsHandleDelegatedForUserDecryption) {
			t.Fatalf("handle %x is not delegated after DelegateForUserDecryption", h)
		}
	}

	r := relayer.mustSucceed(t, ctx, g.DecryptionAt, request)
	id := requestID(t, r, c.Addresses().Decryption, contracts.TopicUserDecryptionRequest)
	if contracts.DecryptionKindOf(id) != contracts.DecryptionKindUser {
		t.Fatalf("request id %#x is not a user decryption id", id)
	}
	req, err := g.Decryption.UnpackUserDecryptionRequestEvent(r.Logs[len(r.Logs)-1])
	if err != nil || req.UserAddress != delegate || !bytes.Equal(req.PublicKey, publicKey) {
		t.Fatalf("request event %+v (%v): want the delegate as userAddress and its public key", req, err)
	}

	waitLogs(t, ctx, c, c.Addresses().Decryption, contracts.TopicUserDecryptionResponseThresholdReached, id, 1)
	shares := waitLogs(t, ctx, c, c.Addresses().Decryption, contracts.TopicUserDecryptionResponse, id, c.Config().KMSNodes)
	seen := map[common.Address]bool{}
	for i := range shares {
		ev, err := g.Decryption.UnpackUserDecryptionResponseEvent(&shares[i])
		if err != nil {
			t.Fatal(err)
		}
		node, digest := checkShare(t, c, seen, ev, handles, publicKey)
		if signer, err := contracts.RecoverSigner(digest, ev.Signature); err != nil || signer != ev.KmsSigner {
			t.Errorf("share of node %d signed by %s (%v), want the node over the delegate's key", node, signer, err)
		}
	}
	if len(seen) < c.Threshold() {
		t.Fatalf("%d distinct signers, want at least the threshold %d", len(seen), c.Threshold())
	}
}

func TestADelegationThatIsRevokedExpiredOrForAnotherPartyDoesNotLetTheRequestThrough(t *testing.T) {
	t.Parallel()
	c, ctx, g, relayer := onShared(t)
	delegatorKey := c.UserKey(1)
	delegator := crypto.PubkeyToAddress(delegatorKey.PublicKey)
	delegate := addressOf(seed(t))
	handles := [][32]byte{contracts.TestHandle(contracts.ScenarioNone, seed(t))}
	refused := func(what string, contract, delegate common.Address) {
		t.Helper()
		re := relayer.mustRevert(t, ctx, g.DecryptionAt, delegatedRequest(g, handles, contract, delegator, delegate, []byte("pk")))
		if re.Name != "UserDecryptNotDelegated" || re.Args[2] != contract || re.Args[3] != handles[0] {
			t.Fatalf("%s: reverted with %v, want UserDecryptNotDelegated for %s and the handle", what, re, contract)
		}
	}

	// The ACL's refusals come back decoded.
	var re *contracts.RevertError
	err := c.DelegateForUserDecryption(ctx, delegatorKey, delegator, testContract, headTime(t, ctx, c).Add(time.Hour))
	if !errors.As(err, &re) || re.Name != "SenderCannotBeDelegate" {
		t.Fatalf("delegating to oneself: %v, want SenderCannotBeDelegate", err)
	}
	err = c.DelegateForUserDecryption(ctx, delegatorKey, delegate, testContract, headTime(t, ctx, c).Add(-10*time.Second))
	if !errors.As(err, &re) || re.Name != "ExpirationDateInThePast" {
		t.Fatalf("delegating until the past: %v, want ExpirationDateInThePast", err)
	}

	if err := c.DelegateForUserDecryption(ctx, delegatorKey, delegate, testContract, headTime(t, ctx, c).Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	refused("another delegate", testContract, addressOf(seed(t)))
	other := addressOf(seed(t))
	refused("another contract", other, delegate)

	if err := c.RevokeDelegationForUserDecryption(ctx, delegatorKey, delegate, testContract); err != nil {
		t.Fatal(err)
	}
	if exp := call(t, ctx, g.ACLAt, g.ACL.PackGetUserDecryptionDelegationExpirationDate(delegator, delegate, testContract),
		g.ACL.UnpackGetUserDecryptionDelegationExpirationDate); exp != 0 {
		t.Fatalf("a revoked delegation expires at %d, want 0", exp)
	}
	refused("revoked", testContract, delegate)

	// Chain time runs ahead of the wall clock under load, so wait for the head to pass the
	// expiration rather than for a fixed time.
	expiration := headTime(t, ctx, c).Add(5 * time.Second)
	if err := c.DelegateForUserDecryption(ctx, delegatorKey, delegate, testContract, expiration); err != nil {
		t.Fatal(err)
	}
	for !headTime(t, ctx, c).After(expiration) {
		time.Sleep(100 * time.Millisecond)
	}
	refused("expired", testContract, delegate)
}
