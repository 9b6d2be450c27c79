package contracts_test

import (
	"bytes"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"relayer/workers/gateway/contracts"
)

var (
	delegateAddr  = common.HexToAddress("0x00000000000000000000000000000000de1e6a7e")
	otherDelegate = common.HexToAddress("0x00000000000000000000000000000000de1e6a7f")
	otherContract = common.HexToAddress("0x00000000000000000000000000000000c0ffee02")

	topicDelegated = contracts.NewACL().GetABI().Events[contracts.ACLDelegatedForUserDecryptionEventName].ID
	topicRevoked   = contracts.NewACL().GetABI().Events[contracts.ACLRevokedDelegationForUserDecryptionEventName].ID
)

// headTime is the latest block's timestamp: the clock the contracts see.
func (e *env) headTime() uint64 {
	e.t.Helper()
	h, err := e.b.Client().HeaderByNumber(e.ctx, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return h.Time
}

// advance seals an empty block d of chain time after the head. The simulated backend refuses to
// move time while its pending block holds a transaction (one the pool promoted after the last
// Commit): seal that first.
func (e *env) advance(d time.Duration) {
	e.t.Helper()
	var err error
	for range 5 {
		if err = e.b.AdjustTime(d); err == nil {
			return
		}
		e.b.Commit()
	}
	e.t.Fatal(err)
}

// delegate sends the delegator's (e.user's) delegateForUserDecryption.
func (e *env) delegate(delegate, contract common.Address, until uint64) {
	e.t.Helper()
	e.ok(e.user, e.ACLAt, e.ACL.PackDelegateForUserDecryption(delegate, contract, until))
}

func (e *env) delegated(delegator, delegate, contract common.Address, h [32]byte) bool {
	e.t.Helper()
	return view(e, e.ACLAt, e.ACL.PackIsHandleDelegatedForUserDecryption(delegator, delegate, contract, h),
		e.ACL.UnpackIsHandleDelegatedForUserDecryption)
}

func TestTheACLHoldsADelegationForUserDecryptionUntilItExpiresOrIsRevoked(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, 1, 1)
	delegator := crypto.PubkeyToAddress(e.user.PublicKey)
	expiration := func() uint64 {
		t.Helper()
		return view(e, e.ACLAt, e.ACL.PackGetUserDecryptionDelegationExpirationDate(delegator, delegateAddr, hostContract),
			e.ACL.UnpackGetUserDecryptionDelegationExpirationDate)
	}
	if e.delegated(delegator, delegateAddr, hostContract, plainHandle) || expiration() != 0 {
		t.Fatal("a handle is delegated before any delegation")
	}

	until := e.headTime() + 3600
	r := e.ok(e.user, e.ACLAt, e.ACL.PackDelegateForUserDecryption(delegateAddr, hostContract, until))
	evs := events(e, r, topicDelegated, e.ACL.UnpackDelegatedForUserDecryptionEvent)
	if len(evs) != 1 || evs[0].Delegator != delegator || evs[0].Delegate != delegateAddr || evs[0].ContractAddress != hostContract ||
		evs[0].DelegationCounter != 0 || evs[0].OldExpirationDate != 0 || evs[0].NewExpirationDate != until {
		t.Fatalf("DelegatedForUserDecryption events %+v", evs)
	}
	if expiration() != until || !e.delegated(delegator, delegateAddr, hostContract, plainHandle) {
		t.Fatalf("after the delegation: expiration %d (want %d), delegated %v", expiration(),
			until, e.delegated(delegator, delegateAddr, hostContract, plainHandle))
	}

	// Only that delegator, delegate and contract, and only handles both the delegator and the
	// contract may use.
	deniedForDelegator := contracts.TestHandle(contracts.ScenarioNone, "denied for the delegator")
	deniedForContract := contracts.TestHandle(contracts.ScenarioNone, "denied for the contract")
	e.ok(e.owner, e.ACLAt, e.ACL.PackSetDenied(deniedForDelegator, delegator, true))
	e.ok(e.owner, e.ACLAt, e.ACL.PackSetDenied(deniedForContract, hostContract, true))
	for name, ok := range map[string]bool{
		"another delegate":                  e.delegated(delegator, otherDelegate, hostContract, plainHandle),
		"another contract":                  e.delegated(delegator, delegateAddr, otherContract, plainHandle),
		"another delegator":                 e.delegated(otherDelegate, delegateAddr, hostContract, plainHandle),
		"a scenario-01 handle":              e.delegated(delegator, delegateAddr, hostContract, contracts.TestHandle(contracts.ScenarioDenied, "x")),
		"a handle denied for the delegator": e.delegated(delegator, delegateAddr, hostContract, deniedForDelegator),
		"a handle denied for the contract":  e.delegated(delegator, delegateAddr, hostContract, deniedForContract),
		"delegator and delegate swapped":    e.delegated(delegateAddr, delegator, hostContract, plainHandle),
	} {
		if ok {
			t.Errorf("%s is delegated", name)
		}
	}

	// Refusals.
	head := e.headTime()
	e.reverts(e.user, e.ACLAt, e.ACL.PackDelegateForUserDecryption(delegator, hostContract, until), "SenderCannotBeDelegate")
	e.reverts(e.user, e.ACLAt, e.ACL.PackDelegateForUserDecryption(delegateAddr, delegator, until), "SenderCannotBeContractAddress")
	e.reverts(e.user, e.ACLAt, e.ACL.PackDelegateForUserDecryption(hostContract, hostContract, until), "DelegateCannotBeContractAddress")
	e.reverts(e.user, e.ACLAt, e.ACL.PackDelegateForUserDecryption(otherDelegate, hostContract, head-1), "ExpirationDateInThePast")
	e.reverts(e.user, e.ACLAt, e.ACL.PackDelegateForUserDecryption(otherDelegate, hostContract, 0), "ExpirationDateInThePast")
	e.reverts(e.user, e.ACLAt, e.ACL.PackDelegateForUserDecryption(delegateAddr, hostContract, until), "ExpirationDateAlreadySetToSameValue")
	e.reverts(e.user, e.ACLAt, e.ACL.PackRevokeDelegationForUserDecryption(otherDelegate, hostContract), "NotDelegatedYet")

	// A new date replaces the old one; revoking ends the delegation.
	r = e.ok(e.user, e.ACLAt, e.ACL.PackDelegateForUserDecryption(delegateAddr, hostContract, until+60))
	if evs := events(e, r, topicDelegated, e.ACL.UnpackDelegatedForUserDecryptionEvent); len(evs) != 1 ||
		evs[0].DelegationCounter != 1 || evs[0].OldExpirationDate != until || evs[0].NewExpirationDate != until+60 {
		t.Fatalf("the second DelegatedForUserDecryption: %+v", evs)
	}
	r = e.ok(e.user, e.ACLAt, e.ACL.PackRevokeDelegationForUserDecryption(delegateAddr, hostContract))
	if evs := events(e, r, topicRevoked, e.ACL.UnpackRevokedDelegationForUserDecryptionEvent); len(evs) != 1 ||
		evs[0].Delegator != delegator || evs[0].Delegate != delegateAddr || evs[0].ContractAddress != hostContract ||
		evs[0].DelegationCounter != 2 || evs[0].OldExpirationDate != until+60 {
		t.Fatalf("RevokedDelegationForUserDecryption events %+v", evs)
	}
	if expiration() != 0 || e.delegated(delegator, delegateAddr, hostContract, plainHandle) {
		t.Fatal("a revoked delegation still holds")
	}
	e.reverts(e.user, e.ACLAt, e.ACL.PackRevokeDelegationForUserDecryption(delegateAddr, hostContract), "NotDelegatedYet")

	// A delegation holds while block.timestamp < expirationDate.
	soon := e.headTime() + 30
	e.delegate(delegateAddr, hostContract, soon)
	if !e.delegated(delegator, delegateAddr, hostContract, plainHandle) {
		t.Fatal("a delegation 30 s from expiring does not hold")
	}
	e.advance(30 * time.Second)
	if e.headTime() < soon {
		t.Fatalf("the head's time %d is before %d", e.headTime(), soon)
	}
	if e.delegated(delegator, delegateAddr, hostContract, plainHandle) {
		t.Fatal("an expired delegation still holds")
	}
	if expiration() != soon {
		t.Fatalf("an expired delegation reports expiration %d, want %d", expiration(), soon)
	}
}

// delegatedCall is a delegatedUserDecryptionRequest's arguments, valid unless a test changes them.
type delegatedCall struct {
	pairs     []contracts.DecryptionCtHandleContractPair
	validity  contracts.DecryptionRequestValidity
	accounts  contracts.DecryptionDelegationAccounts
	contracts []common.Address
	publicKey []byte
}

func (e *env) delegatedCall(delegate common.Address, handles ...[32]byte) delegatedCall {
	c := delegatedCall{
		validity:  contracts.DecryptionRequestValidity{StartTimestamp: big.NewInt(time.Now().Add(-time.Hour).Unix()), DurationDays: big.NewInt(1)},
		accounts:  contracts.DecryptionDelegationAccounts{DelegatorAddress: crypto.PubkeyToAddress(e.user.PublicKey), DelegateAddress: delegate},
		contracts: []common.Address{hostContract},
		publicKey: []byte("delegate public key"),
	}
	for _, h := range handles {
		c.pairs = append(c.pairs, contracts.DecryptionCtHandleContractPair{CtHandle: h, ContractAddress: hostContract})
	}
	return c
}

func (e *env) packDelegated(c delegatedCall) []byte {
	return e.Decryption.PackDelegatedUserDecryptionRequest(c.pairs, c.validity, c.accounts,
		contracts.DecryptionContractsInfo{ChainId: big.NewInt(1337), Addresses: c.contracts}, c.publicKey, make([]byte, 65), []byte{0})
}

// notDelegated checks that c reverts with UserDecryptNotDelegated naming contract and handle.
func (e *env) notDelegated(c delegatedCall, contract common.Address, handle [32]byte) {
	e.t.Helper()
	re := e.reverts(e.owner, e.DecryptionAt, e.packDelegated(c), "UserDecryptNotDelegated")
	if len(re.Args) != 4 || re.Args[0] != c.accounts.DelegatorAddress || re.Args[1] != c.accounts.DelegateAddress ||
		re.Args[2] != contract || re.Args[3] != handle {
		e.t.Fatalf("UserDecryptNotDelegated%v, want (%s, %s, %s, %x)", re.Args, c.accounts.DelegatorAddress,
			c.accounts.DelegateAddress, contract, handle)
	}
}

func TestADelegatedUserDecryptionIsRefusedUnlessTheACLDelegatesEveryPair(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, 1, 1)
	delegator := crypto.PubkeyToAddress(e.user.PublicKey)
	if got := view(e, e.DecryptionAt, e.Decryption.PackAcl(), e.Decryption.UnpackAcl); got != e.ACLAt.Address() {
		t.Fatalf("acl() = %s, want the ACL %s", got, e.ACLAt.Address())
	}
	c := e.delegatedCall(delegateAddr, plainHandle)

	e.notDelegated(c, hostContract, plainHandle) // no delegation yet
	e.delegate(delegateAddr, hostContract, e.headTime()+3600)
	e.ok(e.owner, e.DecryptionAt, e.packDelegated(c))

	wrongDelegate := e.delegatedCall(otherDelegate, plainHandle)
	e.notDelegated(wrongDelegate, hostContract, plainHandle)

	second := contracts.TestHandle(contracts.ScenarioNone, "in another contract")
	wrongContract := e.delegatedCall(delegateAddr, plainHandle, second)
	wrongContract.pairs[1].ContractAddress = otherContract
	wrongContract.contracts = []common.Address{hostContract, otherContract}
	e.notDelegated(wrongContract, otherContract, second)

	denied := contracts.TestHandle(contracts.ScenarioNone, "denied for the delegator")
	e.ok(e.owner, e.ACLAt, e.ACL.PackSetDenied(denied, delegator, true))
	e.notDelegated(e.delegatedCall(delegateAddr, denied), hostContract, denied)

	// The user path's checks, with the delegator in the user's place, and its scenarios.
	re := e.reverts(e.owner, e.DecryptionAt, e.packDelegated(e.delegatedCall(delegateAddr, contracts.TestHandle(contracts.ScenarioDenied, "d"))), "UserDecryptNotAllowed")
	if re.Args[1] != delegator {
		t.Errorf("UserDecryptNotAllowed%v, want the delegator", re.Args)
	}
	e.reverts(e.owner, e.DecryptionAt, e.packDelegated(e.delegatedCall(delegateAddr, contracts.TestHandle(contracts.ScenarioRevert, "r"))), "TestScenarioRevert")
	inContracts := e.delegatedCall(delegateAddr, plainHandle)
	inContracts.contracts = []common.Address{hostContract, delegator}
	if re := e.reverts(e.owner, e.DecryptionAt, e.packDelegated(inContracts), "UserAddressInContractAddresses"); re.Args[0] != delegator {
		t.Errorf("UserAddressInContractAddresses%v, want the delegator", re.Args)
	}
	noDays := e.delegatedCall(delegateAddr, plainHandle)
	noDays.validity.DurationDays = big.NewInt(0)
	e.reverts(e.owner, e.DecryptionAt, e.packDelegated(noDays), "InvalidNullDurationDays")
	e.reverts(e.owner, e.DecryptionAt, e.packDelegated(e.delegatedCall(delegateAddr)), "EmptyCtHandleContractPairs")
	outside := e.delegatedCall(delegateAddr, plainHandle)
	outside.pairs[0].ContractAddress = otherContract
	e.reverts(e.owner, e.DecryptionAt, e.packDelegated(outside), "ContractNotInContractAddresses")

	// A delegated request carrying a scenario-04 handle makes the chain see it.
	delayed := contracts.TestHandle(contracts.ScenarioReadyAfterDelay, "delayed")
	e.ok(e.owner, e.DecryptionAt, e.packDelegated(e.delegatedCall(delegateAddr, delayed)))
	if seen := view(e, e.DecryptionAt, e.Decryption.PackHandleFirstSeen(delayed), e.Decryption.UnpackHandleFirstSeen); seen.Sign() == 0 {
		t.Error("a delegated request did not register its scenario-04 handle")
	}

	// Revoked, then expired.
	e.ok(e.user, e.ACLAt, e.ACL.PackRevokeDelegationForUserDecryption(delegateAddr, hostContract))
	e.notDelegated(c, hostContract, plainHandle)
	e.delegate(delegateAddr, hostContract, e.headTime()+30)
	e.ok(e.owner, e.DecryptionAt, e.packDelegated(c))
	e.advance(31 * time.Second)
	e.notDelegated(c, hostContract, plainHandle)

	e.ok(e.owner, e.DecryptionAt, e.Decryption.PackPause())
	e.reverts(e.owner, e.DecryptionAt, e.packDelegated(c), "EnforcedPause")
}

func TestADelegatedUserDecryptionTakesAUserIdAndIsAnsweredWithSharesForTheDelegatesKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 3, 2, 1)
	user := crypto.PubkeyToAddress(e.user.PublicKey)
	handles := [][32]byte{plainHandle, contracts.TestHandle(contracts.ScenarioNone, "second")}
	e.delegate(delegateAddr, hostContract, e.headTime()+3600)

	// A user decryption first: the delegated one takes the next id of the same counter.
	validity := contracts.DecryptionRequestValidity{StartTimestamp: big.NewInt(time.Now().Add(-time.Hour).Unix()), DurationDays: big.NewInt(1)}
	info := contracts.DecryptionContractsInfo{ChainId: big.NewInt(1337), Addresses: []common.Address{hostContract}}
	pairs := []contracts.DecryptionCtHandleContractPair{{CtHandle: plainHandle, ContractAddress: hostContract}}
	r := e.ok(e.owner, e.DecryptionAt, e.Decryption.PackUserDecryptionRequest(pairs, validity, info, user, []byte("pk"), nil, nil))
	userID := events(e, r, contracts.TopicUserDecryptionRequest, e.Decryption.UnpackUserDecryptionRequestEvent)[0].DecryptionId

	c := e.delegatedCall(delegateAddr, handles...)
	r = e.ok(e.owner, e.DecryptionAt, e.packDelegated(c))
	reqs := events(e, r, contracts.TopicUserDecryptionRequest, e.Decryption.UnpackUserDecryptionRequestEvent)
	if len(reqs) != 1 {
		t.Fatalf("%d UserDecryptionRequest events, want 1", len(reqs))
	}
	req := reqs[0]
	id := req.DecryptionId
	if new(big.Int).Sub(id, userID).Int64() != 1 || contracts.DecryptionKindOf(id) != contracts.DecryptionKindUser {
		t.Fatalf("delegated id %#x after user id %#x: want the next user id", id, userID)
	}
	if req.UserAddress != delegateAddr || !bytes.Equal(req.PublicKey, c.publicKey) || len(req.CtHandles) != 2 ||
		req.CtHandles[0] != handles[0] || req.CtHandles[1] != handles[1] || !bytes.Equal(req.ExtraData, []byte{0}) {
		t.Fatalf("request event %+v: want the delegate as userAddress, the delegate's key and the handles", req)
	}

	// Each KMS node signs its share over the request's public key and handles; the contract
	// checks it and the signature recovers to the node.
	for node := range e.kms {
		share := []byte{byte(node), 0xde}
		digest := contracts.UserDecryptionDigest(e.chainID, e.DecryptionAt.Address(), c.publicKey, handles, share, []byte{0})
		r := e.ok(e.kms[node], e.DecryptionAt, e.Decryption.PackUserDecryptionResponse(id, share, e.sign(e.kms[node], digest), []byte{0}))
		shares := events(e, r, contracts.TopicUserDecryptionResponse, e.Decryption.UnpackUserDecryptionResponseEvent)
		if len(shares) != 1 || shares[0].IndexShare.Int64() != int64(node) || shares[0].KmsSigner != contracts.SignerAddresses(e.kms)[node] {
			t.Fatalf("share of node %d: %+v", node, shares)
		}
		if signer, err := contracts.RecoverSigner(digest, shares[0].Signature); err != nil || signer != contracts.SignerAddresses(e.kms)[node] {
			t.Fatalf("share of node %d signed by %s (%v)", node, signer, err)
		}
		reached := len(events(e, r, contracts.TopicUserDecryptionResponseThresholdReached, e.Decryption.UnpackUserDecryptionResponseThresholdReachedEvent))
		if (node == 1) != (reached == 1) {
			t.Fatalf("share %d: %d threshold events, want one with the second share only", node, reached)
		}
	}
	// A share signed over another public key (the delegator's, say) is refused.
	r = e.ok(e.owner, e.DecryptionAt, e.packDelegated(c))
	next := events(e, r, contracts.TopicUserDecryptionRequest, e.Decryption.UnpackUserDecryptionRequestEvent)[0].DecryptionId
	wrong := contracts.UserDecryptionDigest(e.chainID, e.DecryptionAt.Address(), []byte("delegator public key"), handles, []byte{1}, nil)
	e.reverts(e.kms[0], e.DecryptionAt, e.Decryption.PackUserDecryptionResponse(next, []byte{1}, e.sign(e.kms[0], wrong), nil), "InvalidKmsSignature")
}

func TestTheDelegatedReadinessViewAnswersAsTheUserOne(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, 1, 1)
	delegator := crypto.PubkeyToAddress(e.user.PublicKey)
	for _, handles := range [][][32]byte{nil, {plainHandle}, {plainHandle, contracts.TestHandle(contracts.ScenarioNeverReady, "never")},
		{contracts.TestHandle(contracts.ScenarioDenied, "denied")}, {contracts.TestHandle(contracts.ScenarioReadyAfterDelay, "unseen")}} {
		pairs := e.delegatedCall(delegateAddr, handles...).pairs
		user := view(e, e.DecryptionAt, e.Decryption.PackIsUserDecryptionReady(delegator, pairs, nil), e.Decryption.UnpackIsUserDecryptionReady)
		delegated := view(e, e.DecryptionAt, e.Decryption.PackIsDelegatedUserDecryptionReady(contracts.DecryptionDelegationAccounts{DelegatorAddress: delegator, DelegateAddress: delegateAddr}, pairs, nil), e.Decryption.UnpackIsDelegatedUserDecryptionReady)
		if user != delegated {
			t.Errorf("%d handles: isDelegatedUserDecryptionReady %v, isUserDecryptionReady %v", len(handles), delegated, user)
		}
		if want := len(handles) == 1 && handles[0] == plainHandle; delegated != want {
			t.Errorf("%d handles: ready %v, want %v", len(handles), delegated, want)
		}
	}
}

// The views the relayer asks a real gateway have the protocol gateway's signatures: a selector
// of our own would revert there and no decrypt would ever pass readiness.
func TestTheReadinessViewsHaveTheProtocolGatewaysSelectors(t *testing.T) {
	dec := contracts.NewDecryption()
	for _, c := range []struct {
		signature string
		packed    []byte
	}{
		{"isDelegatedUserDecryptionReady((address,address),(bytes32,address)[],bytes)",
			dec.PackIsDelegatedUserDecryptionReady(contracts.DecryptionDelegationAccounts{}, nil, nil)},
		{"isUserDecryptionReady(address,(bytes32,address)[],bytes)", dec.PackIsUserDecryptionReady(common.Address{}, nil, nil)},
		{"isPublicDecryptionReady(bytes32[],bytes)", dec.PackIsPublicDecryptionReady(nil, nil)},
	} {
		want := crypto.Keccak256([]byte(c.signature))[:4]
		if !bytes.Equal(c.packed[:4], want) {
			t.Errorf("%s: selector %x, want %x", c.signature, c.packed[:4], want)
		}
	}
}
