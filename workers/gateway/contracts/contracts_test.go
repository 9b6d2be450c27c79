package contracts_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"

	"relayer/workers/gateway/contracts"
)

// env is a bare simulated chain with the five contracts deployed and no simulators: the test
// goroutine sends every transaction and seals every block itself.
type env struct {
	t       *testing.T
	ctx     context.Context
	b       *simulated.Backend
	chainID *big.Int
	owner   *ecdsa.PrivateKey
	user    *ecdsa.PrivateKey
	kms     []*ecdsa.PrivateKey
	cops    []*ecdsa.PrivateKey

	contracts.Bound
}

func keys(n int) []*ecdsa.PrivateKey {
	out := make([]*ecdsa.PrivateKey, n)
	for i := range out {
		k, err := crypto.GenerateKey()
		if err != nil {
			panic(err)
		}
		out[i] = k
	}
	return out
}

func newEnv(t *testing.T, kmsNodes, threshold, coprocessors int) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	e := &env{t: t, ctx: ctx, owner: keys(1)[0], user: keys(1)[0], kms: keys(kmsNodes), cops: keys(coprocessors)}
	alloc := types.GenesisAlloc{}
	funds := new(big.Int).Exp(big.NewInt(10), big.NewInt(24), nil)
	for _, k := range append(append([]*ecdsa.PrivateKey{e.owner, e.user}, e.kms...), e.cops...) {
		alloc[crypto.PubkeyToAddress(k.PublicKey)] = types.Account{Balance: funds}
	}
	e.b = simulated.NewBackend(alloc)
	t.Cleanup(func() { e.b.Close() })
	var err error
	if e.chainID, err = e.b.Client().ChainID(ctx); err != nil {
		t.Fatal(err)
	}
	d, err := contracts.Deploy(func(_, bin string, input []byte) (common.Address, error) { return e.deploy(bin, input), nil },
		contracts.Signers{KMS: contracts.SignerAddresses(e.kms), Threshold: threshold,
			Coprocessors: contracts.SignerAddresses(e.cops), Majority: coprocessors/2 + 1}, e.chainID)
	if err != nil {
		t.Fatal(err)
	}
	e.Bound = contracts.Bind(e.b.Client(), d)
	return e
}

func (e *env) opts(key *ecdsa.PrivateKey) *bind.TransactOpts {
	o := bind.NewKeyedTransactor(key, e.chainID)
	o.Context = e.ctx
	return o
}

func (e *env) deploy(bin string, input []byte) common.Address {
	e.t.Helper()
	addr, tx, err := bind.DeployContract(e.opts(e.owner), common.FromHex(bin), e.b.Client(), input)
	if err != nil {
		e.t.Fatalf("deploy: %v", err)
	}
	e.mined(tx)
	return addr
}

func (e *env) mined(tx *types.Transaction) *types.Receipt {
	e.t.Helper()
	e.b.Commit()
	r, err := e.b.Client().TransactionReceipt(e.ctx, tx.Hash())
	if err != nil {
		e.t.Fatalf("receipt: %v", err)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		e.t.Fatalf("transaction %s reverted", tx.Hash())
	}
	return r
}

// ok sends data from key and returns the receipt of the successful transaction.
func (e *env) ok(key *ecdsa.PrivateKey, at *bind.BoundContract, data []byte) *types.Receipt {
	e.t.Helper()
	tx, err := bind.Transact(at, e.opts(key), data)
	if err != nil {
		if re, ok := contracts.DecodeRevert(err); ok {
			err = re
		}
		e.t.Fatalf("send: %v", err)
	}
	return e.mined(tx)
}

// reverts checks that sending data from key is refused with the custom error name.
func (e *env) reverts(key *ecdsa.PrivateKey, at *bind.BoundContract, data []byte, name string) *contracts.RevertError {
	e.t.Helper()
	_, err := bind.Transact(at, e.opts(key), data)
	re, ok := contracts.DecodeRevert(err)
	if !ok || re.Name != name {
		e.t.Fatalf("got %v, want a revert with %s", err, name)
	}
	return re
}

func view[T any](e *env, at *bind.BoundContract, data []byte, unpack func([]byte) (T, error)) T {
	e.t.Helper()
	v, err := bind.Call(at, &bind.CallOpts{Context: e.ctx}, data, unpack)
	if err != nil {
		e.t.Fatalf("call: %v", err)
	}
	return v
}

// events unpacks the logs of r with topic0.
func events[T any](e *env, r *types.Receipt, topic0 common.Hash, unpack func(*types.Log) (*T, error)) []*T {
	e.t.Helper()
	var out []*T
	for _, l := range r.Logs {
		if len(l.Topics) > 0 && l.Topics[0] == topic0 {
			ev, err := unpack(l)
			if err != nil {
				e.t.Fatal(err)
			}
			out = append(out, ev)
		}
	}
	return out
}

func (e *env) publicRequest(handles ...[32]byte) *big.Int {
	e.t.Helper()
	r := e.ok(e.user, e.DecryptionAt, e.Decryption.PackPublicDecryptionRequest(handles, []byte{0}))
	evs := events(e, r, contracts.TopicPublicDecryptionRequest, e.Decryption.UnpackPublicDecryptionRequestEvent)
	if len(evs) != 1 {
		e.t.Fatalf("%d request events", len(evs))
	}
	return evs[0].DecryptionId
}

func (e *env) sign(key *ecdsa.PrivateKey, digest common.Hash) []byte {
	e.t.Helper()
	sig, err := contracts.SignDigest(key, digest)
	if err != nil {
		e.t.Fatal(err)
	}
	return sig
}

// publicAnswer sends KMS node's answer result to public decryption id of handles, signed and
// sent with an empty extraData, as the simulated KMS nodes do.
func (e *env) publicAnswer(node int, id *big.Int, handles [][32]byte, result []byte) *types.Receipt {
	e.t.Helper()
	digest := contracts.PublicDecryptionDigest(e.chainID, e.DecryptionAt.Address(), handles, result, nil)
	return e.ok(e.kms[node], e.DecryptionAt, e.Decryption.PackPublicDecryptionResponse(id, result, e.sign(e.kms[node], digest), nil))
}

var (
	hostContract = common.HexToAddress("0x00000000000000000000000000000000c0ffee01")
	plainHandle  = contracts.TestHandle(contracts.ScenarioNone, "plain")
)

func TestTheGoDigestsScenariosAndIdsAgreeWithTheContracts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, 1, 1)
	id := new(big.Int).Add(contracts.PublicDecryptCounterBase, big.NewInt(7))
	payload, extra, pk := []byte("some result"), []byte{0, 1, 2}, []byte("user public key")
	user := crypto.PubkeyToAddress(e.user.PublicKey)
	for _, handles := range [][][32]byte{nil, {plainHandle}, {plainHandle, contracts.TestHandle(contracts.ScenarioNoResponse, "x")}} {
		if got := view(e, e.DecryptionAt, e.Decryption.PackPublicDecryptionDigest(handles, payload, extra), e.Decryption.UnpackPublicDecryptionDigest); got != contracts.PublicDecryptionDigest(e.chainID, e.DecryptionAt.Address(), handles, payload, extra) {
			t.Errorf("%d handles: PublicDecryptionDigest differs from the contract's", len(handles))
		}
		if got := view(e, e.DecryptionAt, e.Decryption.PackUserDecryptionDigest(pk, handles, payload, extra), e.Decryption.UnpackUserDecryptionDigest); got != contracts.UserDecryptionDigest(e.chainID, e.DecryptionAt.Address(), pk, handles, payload, extra) {
			t.Errorf("%d handles: UserDecryptionDigest differs from the contract's", len(handles))
		}
		if got := view(e, e.InputVerificationAt, e.InputVerification.PackVerifyProofDigest(handles, user, hostContract, big.NewInt(1337), extra), e.InputVerification.UnpackVerifyProofDigest); got != contracts.VerifyProofDigest(e.chainID, e.InputVerificationAt.Address(), handles, user, hostContract, big.NewInt(1337), extra) {
			t.Errorf("%d handles: VerifyProofDigest differs from the contract's", len(handles))
		}
	}
	for name, pair := range map[string]struct {
		got  common.Hash
		want common.Hash
	}{
		"domain (Decryption)":        {view(e, e.DecryptionAt, e.Decryption.PackEIP712DOMAINTYPEHASH(), e.Decryption.UnpackEIP712DOMAINTYPEHASH), contracts.EIP712DomainTypeHash},
		"domain (InputVerification)": {view(e, e.InputVerificationAt, e.InputVerification.PackEIP712DOMAINTYPEHASH(), e.InputVerification.UnpackEIP712DOMAINTYPEHASH), contracts.EIP712DomainTypeHash},
		"public":                     {view(e, e.DecryptionAt, e.Decryption.PackPUBLICDECRYPTVERIFICATIONTYPEHASH(), e.Decryption.UnpackPUBLICDECRYPTVERIFICATIONTYPEHASH), contracts.PublicDecryptVerificationTypeHash},
		"user":                       {view(e, e.DecryptionAt, e.Decryption.PackUSERDECRYPTRESPONSEVERIFICATIONTYPEHASH(), e.Decryption.UnpackUSERDECRYPTRESPONSEVERIFICATIONTYPEHASH), contracts.UserDecryptResponseVerificationTypeHash},
		"proof":                      {view(e, e.InputVerificationAt, e.InputVerification.PackCIPHERTEXTVERIFICATIONTYPEHASH(), e.InputVerification.UnpackCIPHERTEXTVERIFICATIONTYPEHASH), contracts.CiphertextVerificationTypeHash},
	} {
		if pair.got != pair.want {
			t.Errorf("%s type hash differs", name)
		}
	}
	if base := view(e, e.DecryptionAt, e.Decryption.PackPUBLICDECRYPTCOUNTERBASE(), e.Decryption.UnpackPUBLICDECRYPTCOUNTERBASE); base.Cmp(contracts.PublicDecryptCounterBase) != 0 {
		t.Error("PublicDecryptCounterBase differs")
	}
	if base := view(e, e.DecryptionAt, e.Decryption.PackUSERDECRYPTCOUNTERBASE(), e.Decryption.UnpackUSERDECRYPTCOUNTERBASE); base.Cmp(contracts.UserDecryptCounterBase) != 0 {
		t.Error("UserDecryptCounterBase differs")
	}
	if d := view(e, e.DecryptionAt, e.Decryption.PackREADYDELAY(), e.Decryption.UnpackREADYDELAY); d.Int64() != int64(contracts.ReadyDelay/time.Second) {
		t.Errorf("READY_DELAY = %v, want %v", d, contracts.ReadyDelay)
	}

	// The ACL denies exactly the handles ScenarioOfHandle calls denied.
	for _, prefix := range [][]byte{{0x7e, 0x57, 0x01}, {0x7e, 0x57, 0x00}, {0x7e, 0x57, 0x06}, {0x7e, 0x56, 0x01}, {0x7e, 0x57, 0x02}} {
		var h [32]byte
		copy(h[:], prefix)
		allowed := view(e, e.ACLAt, e.ACL.PackIsAllowedForDecryption(h), e.ACL.UnpackIsAllowedForDecryption)
		if denied := contracts.ScenarioOfHandle(h) == contracts.ScenarioDenied; allowed == denied {
			t.Errorf("handle %x: ACL allows = %v, Go scenario %v", prefix, allowed, contracts.ScenarioOfHandle(h))
		}
	}
	// A proof reverts exactly when ScenarioOfCiphertext says 05; ciphertexts shorter than 3 bytes carry none.
	for _, ct := range [][]byte{{0x7e, 0x57, 0x05}, {0x7e, 0x57, 0x05, 0xff}, {0x7e, 0x57}, {0x7e, 0x57, 0x15}} {
		_, err := bind.Transact(e.InputVerificationAt, e.opts(e.user), e.InputVerification.PackVerifyProofRequest(big.NewInt(1337), hostContract, hostContract, ct, nil))
		if reverted := err != nil; reverted != (contracts.ScenarioOfCiphertext(ct) == contracts.ScenarioRevert) {
			t.Errorf("ciphertext %x: request error %v, Go scenario %v", ct, err, contracts.ScenarioOfCiphertext(ct))
		}
		e.b.Commit()
	}
	if contracts.HandleChainID(plainHandle) != 1337 || contracts.DecryptionKindOf(id) != contracts.DecryptionKindPublic ||
		contracts.DecryptionKindOf(big.NewInt(5)) != contracts.DecryptionKindUnknown {
		t.Error("handle chain id or decryption kind helpers are wrong")
	}
}

func TestAPublicDecryptionCompletesOnlyWhenThresholdSignersAgreeOnOneResult(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 3, 2, 1)
	handles := [][32]byte{plainHandle}
	first := e.publicRequest(handles...)
	second := e.publicRequest(handles...)
	if new(big.Int).Sub(second, first).Int64() != 1 || contracts.DecryptionKindOf(first) != contracts.DecryptionKindPublic {
		t.Fatalf("ids %#x, %#x: want consecutive public ids", first, second)
	}

	x, y := []byte("result x"), []byte("result y")
	r := e.publicAnswer(0, first, handles, x)
	if evs := events(e, r, contracts.TopicPublicDecryptionResponse, e.Decryption.UnpackPublicDecryptionResponseEvent); len(evs) != 0 {
		t.Fatal("one signature completed the decryption")
	}
	r = e.publicAnswer(1, first, handles, y) // disagrees
	if evs := events(e, r, contracts.TopicPublicDecryptionResponse, e.Decryption.UnpackPublicDecryptionResponseEvent); len(evs) != 0 {
		t.Fatal("two different results completed the decryption")
	}
	r = e.publicAnswer(2, first, handles, x)
	evs := events(e, r, contracts.TopicPublicDecryptionResponse, e.Decryption.UnpackPublicDecryptionResponseEvent)
	if len(evs) != 1 || !bytes.Equal(evs[0].DecryptedResult, x) || len(evs[0].Signatures) != 2 {
		t.Fatalf("response events %+v, want one with result x and 2 signatures", evs)
	}
	digest := contracts.PublicDecryptionDigest(e.chainID, e.DecryptionAt.Address(), handles, x, evs[0].ExtraData)
	for i, want := range []common.Address{contracts.SignerAddresses(e.kms)[0], contracts.SignerAddresses(e.kms)[2]} {
		if got, err := contracts.RecoverSigner(digest, evs[0].Signatures[i]); err != nil || got != want {
			t.Errorf("signature %d by %s (%v), want %s", i, got, err, want)
		}
	}
	if !view(e, e.DecryptionAt, e.Decryption.PackIsDecryptionDone(first), e.Decryption.UnpackIsDecryptionDone) {
		t.Error("isDecryptionDone is false")
	}
	if view(e, e.DecryptionAt, e.Decryption.PackIsDecryptionDone(second), e.Decryption.UnpackIsDecryptionDone) {
		t.Error("the other request is done too")
	}
}

func TestAUserDecryptionEmitsEveryShareAndReachesItsThresholdOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 3, 2, 1)
	pairs := []contracts.DecryptionCtHandleContractPair{{CtHandle: plainHandle, ContractAddress: hostContract}}
	validity := contracts.DecryptionRequestValidity{StartTimestamp: big.NewInt(time.Now().Add(-time.Hour).Unix()), DurationDays: big.NewInt(1)}
	info := contracts.DecryptionContractsInfo{ChainId: big.NewInt(1337), Addresses: []common.Address{hostContract}}
	user := crypto.PubkeyToAddress(e.user.PublicKey)
	r := e.ok(e.user, e.DecryptionAt, e.Decryption.PackUserDecryptionRequest(pairs, validity, info, user, []byte("pk"), nil, nil))
	id := events(e, r, contracts.TopicUserDecryptionRequest, e.Decryption.UnpackUserDecryptionRequestEvent)[0].DecryptionId
	if contracts.DecryptionKindOf(id) != contracts.DecryptionKindUser {
		t.Fatalf("id %#x is not a user decryption id", id)
	}

	reached := 0
	for node := range e.kms {
		share := []byte{byte(node), 0xaa}
		sig := e.sign(e.kms[node], contracts.UserDecryptionDigest(e.chainID, e.DecryptionAt.Address(), []byte("pk"), [][32]byte{plainHandle}, share, nil))
		r := e.ok(e.kms[node], e.DecryptionAt, e.Decryption.PackUserDecryptionResponse(id, share, sig, nil))
		shares := events(e, r, contracts.TopicUserDecryptionResponse, e.Decryption.UnpackUserDecryptionResponseEvent)
		if len(shares) != 1 || shares[0].IndexShare.Int64() != int64(node) || shares[0].KmsSigner != contracts.SignerAddresses(e.kms)[node] ||
			!bytes.Equal(shares[0].UserDecryptedShare, share) || !bytes.Equal(shares[0].Signature, sig) {
			t.Fatalf("share of node %d: events %+v", node, shares)
		}
		n := len(events(e, r, contracts.TopicUserDecryptionResponseThresholdReached, e.Decryption.UnpackUserDecryptionResponseThresholdReachedEvent))
		if (node == 1) != (n == 1) {
			t.Fatalf("share %d: %d threshold events, want one with the second share only", node, n)
		}
		reached += n
	}
	if reached != 1 {
		t.Fatalf("threshold reached %d times", reached)
	}
}

func TestUserDecryptionRequestsAreValidated(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, 1, 1)
	user := crypto.PubkeyToAddress(e.user.PublicKey)
	now := time.Now().Unix()
	pairs := []contracts.DecryptionCtHandleContractPair{{CtHandle: plainHandle, ContractAddress: hostContract}}
	valid := contracts.DecryptionRequestValidity{StartTimestamp: big.NewInt(now - 60), DurationDays: big.NewInt(1)}
	info := contracts.DecryptionContractsInfo{ChainId: big.NewInt(1337), Addresses: []common.Address{hostContract}}
	pack := func(p []contracts.DecryptionCtHandleContractPair, v contracts.DecryptionRequestValidity, i contracts.DecryptionContractsInfo, u common.Address) []byte {
		return e.Decryption.PackUserDecryptionRequest(p, v, i, u, []byte("pk"), nil, nil)
	}
	other := common.HexToAddress("0x0000000000000000000000000000000000000bad")
	for _, tc := range []struct {
		data []byte
		err  string
	}{
		{pack(nil, valid, info, user), "EmptyCtHandleContractPairs"},
		{pack(pairs, valid, contracts.DecryptionContractsInfo{ChainId: big.NewInt(1337)}, user), "EmptyContractAddresses"},
		{pack(pairs, contracts.DecryptionRequestValidity{StartTimestamp: big.NewInt(now), DurationDays: big.NewInt(0)}, info, user), "InvalidNullDurationDays"},
		{pack(pairs, contracts.DecryptionRequestValidity{StartTimestamp: big.NewInt(now), DurationDays: big.NewInt(366)}, info, user), "MaxDurationDaysExceeded"},
		{pack(pairs, contracts.DecryptionRequestValidity{StartTimestamp: big.NewInt(now + 86400), DurationDays: big.NewInt(1)}, info, user), "StartTimestampInFuture"},
		{pack(pairs, contracts.DecryptionRequestValidity{StartTimestamp: big.NewInt(now - 3*86400), DurationDays: big.NewInt(1)}, info, user), "UserDecryptionRequestExpired"},
		{pack(pairs, valid, info, hostContract), "UserAddressInContractAddresses"},
		{pack([]contracts.DecryptionCtHandleContractPair{{CtHandle: plainHandle, ContractAddress: other}}, valid, info, user), "ContractNotInContractAddresses"},
	} {
		e.reverts(e.user, e.DecryptionAt, tc.data, tc.err)
	}
	e.reverts(e.user, e.DecryptionAt, e.Decryption.PackPublicDecryptionRequest(nil, nil), "EmptyCtHandles")
	e.reverts(e.user, e.InputVerificationAt, e.InputVerification.PackVerifyProofRequest(big.NewInt(1337), hostContract, user, nil, nil), "EmptyCiphertext")
	e.ok(e.user, e.DecryptionAt, pack(pairs, valid, info, user))
}

func TestTheMajorityOfCoprocessorsDecidesAnInputProof(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, 1, 3)
	user := crypto.PubkeyToAddress(e.user.PublicKey)
	request := func() *big.Int {
		r := e.ok(e.user, e.InputVerificationAt, e.InputVerification.PackVerifyProofRequest(big.NewInt(1337), hostContract, user, []byte{1, 2, 3}, nil))
		return events(e, r, contracts.TopicVerifyProofRequest, e.InputVerification.UnpackVerifyProofRequestEvent)[0].ZkProofId
	}
	verify := func(cop int, id *big.Int, handles [][32]byte) *types.Receipt {
		sig := e.sign(e.cops[cop], contracts.VerifyProofDigest(e.chainID, e.InputVerificationAt.Address(), handles, user, hostContract, big.NewInt(1337), nil))
		return e.ok(e.cops[cop], e.InputVerificationAt, e.InputVerification.PackVerifyProofResponse(id, handles, sig, nil))
	}
	h1 := [][32]byte{contracts.TestHandle(contracts.ScenarioReadyAfterDelay, "h1")}
	h2 := [][32]byte{contracts.TestHandle(contracts.ScenarioNone, "h2")}

	first := request()
	if first.Int64() != 1 {
		t.Fatalf("first zkProofId = %v, want 1", first)
	}
	// Split votes decide nothing.
	verify(0, first, h1)
	e.ok(e.cops[1], e.InputVerificationAt, e.InputVerification.PackRejectProofResponse(first, nil))
	r := verify(2, first, h2)
	if len(r.Logs) != 0 || view(e, e.InputVerificationAt, e.InputVerification.PackIsProofDecided(first), e.InputVerification.UnpackIsProofDecided) {
		t.Fatal("a split vote decided the proof")
	}

	// Two agreeing verifications decide, and register the handles with Decryption.
	second := request()
	verify(0, second, h1)
	r = verify(1, second, h1)
	evs := events(e, r, contracts.TopicVerifyProofResponse, e.InputVerification.UnpackVerifyProofResponseEvent)
	if len(evs) != 1 || len(evs[0].Signatures) != 2 || evs[0].CtHandles[0] != h1[0] {
		t.Fatalf("verify events %+v", evs)
	}
	if seen := view(e, e.DecryptionAt, e.Decryption.PackHandleFirstSeen(h1[0]), e.Decryption.UnpackHandleFirstSeen); seen.Sign() == 0 {
		t.Error("the accepted 04 handle was not registered")
	}
	r = e.ok(e.cops[2], e.InputVerificationAt, e.InputVerification.PackRejectProofResponse(second, nil)) // late: accepted, no effect
	if len(r.Logs) != 0 {
		t.Error("a late rejection emitted an event")
	}

	// Two rejections decide.
	third := request()
	e.ok(e.cops[0], e.InputVerificationAt, e.InputVerification.PackRejectProofResponse(third, nil))
	r = e.ok(e.cops[1], e.InputVerificationAt, e.InputVerification.PackRejectProofResponse(third, nil))
	if len(events(e, r, contracts.TopicRejectProofResponse, e.InputVerification.UnpackRejectProofResponseEvent)) != 1 {
		t.Fatal("two rejections did not reject the proof")
	}

	// Refusals.
	e.reverts(e.cops[0], e.InputVerificationAt, e.InputVerification.PackRejectProofResponse(third, nil), "CoprocessorAlreadyResponded")
	e.reverts(e.user, e.InputVerificationAt, e.InputVerification.PackRejectProofResponse(third, nil), "NotCoprocessor")
	e.reverts(e.cops[2], e.InputVerificationAt, e.InputVerification.PackRejectProofResponse(big.NewInt(99), nil), "UnknownRequest")
	fourth := request()
	e.reverts(e.cops[0], e.InputVerificationAt, e.InputVerification.PackVerifyProofResponse(fourth, nil, make([]byte, 65), nil), "EmptyCtHandles")
	wrong := e.sign(e.cops[1], contracts.VerifyProofDigest(e.chainID, e.InputVerificationAt.Address(), h2, user, hostContract, big.NewInt(1337), nil))
	e.reverts(e.cops[0], e.InputVerificationAt, e.InputVerification.PackVerifyProofResponse(fourth, h2, wrong, nil), "InvalidCoprocessorSignature")
}

func TestKMSResponsesAreRefusedFromStrangersTwiceOrWithAnotherKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2, 2, 1)
	id := e.publicRequest(plainHandle)
	result := []byte("r")
	sig0 := e.sign(e.kms[0], contracts.PublicDecryptionDigest(e.chainID, e.DecryptionAt.Address(), [][32]byte{plainHandle}, result, nil))
	e.reverts(e.user, e.DecryptionAt, e.Decryption.PackPublicDecryptionResponse(id, result, sig0, nil), "NotKmsSigner")
	e.reverts(e.kms[1], e.DecryptionAt, e.Decryption.PackPublicDecryptionResponse(id, result, sig0, nil), "InvalidKmsSignature")
	e.reverts(e.kms[0], e.DecryptionAt, e.Decryption.PackPublicDecryptionResponse(id, result, sig0[:64], nil), "InvalidKmsSignature")
	e.ok(e.kms[0], e.DecryptionAt, e.Decryption.PackPublicDecryptionResponse(id, result, sig0, nil))
	e.reverts(e.kms[0], e.DecryptionAt, e.Decryption.PackPublicDecryptionResponse(id, result, sig0, nil), "KmsNodeAlreadySigned")
	e.reverts(e.kms[0], e.DecryptionAt, e.Decryption.PackPublicDecryptionResponse(new(big.Int).Add(id, big.NewInt(1)), result, sig0, nil), "UnknownRequest")
	userID := new(big.Int).Add(contracts.UserDecryptCounterBase, big.NewInt(1))
	e.reverts(e.kms[0], e.DecryptionAt, e.Decryption.PackUserDecryptionResponse(userID, result, sig0, nil), "UnknownRequest")
	re := e.reverts(e.user, e.DecryptionAt, e.Decryption.PackPause(), "NotOwner")
	if re.Args[0] != crypto.PubkeyToAddress(e.user.PublicKey) {
		t.Errorf("NotOwner(%v), want the caller", re.Args[0])
	}
}

func TestPausingRefusesRequestsButNotResponses(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, 1, 1)
	id := e.publicRequest(plainHandle)
	e.ok(e.owner, e.DecryptionAt, e.Decryption.PackPause())
	e.ok(e.owner, e.InputVerificationAt, e.InputVerification.PackPause())
	if !view(e, e.DecryptionAt, e.Decryption.PackPaused(), e.Decryption.UnpackPaused) {
		t.Fatal("paused() is false")
	}
	e.reverts(e.user, e.DecryptionAt, e.Decryption.PackPublicDecryptionRequest([][32]byte{plainHandle}, nil), "EnforcedPause")
	e.reverts(e.user, e.InputVerificationAt, e.InputVerification.PackVerifyProofRequest(big.NewInt(1337), hostContract, hostContract, []byte{1}, nil), "EnforcedPause")
	e.reverts(e.owner, e.DecryptionAt, e.Decryption.PackPause(), "EnforcedPause")
	e.publicAnswer(0, id, [][32]byte{plainHandle}, []byte("still answered"))
	e.ok(e.owner, e.DecryptionAt, e.Decryption.PackUnpause())
	e.reverts(e.owner, e.DecryptionAt, e.Decryption.PackUnpause(), "ExpectedPause")
	e.publicRequest(plainHandle)
}

func TestConstructorsRefuseBadSignerSets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, 1, 1)
	a := contracts.SignerAddresses(keys(3))
	deployFails := func(bin string, input []byte, want string) {
		t.Helper()
		_, _, err := bind.DeployContract(e.opts(e.owner), common.FromHex(bin), e.b.Client(), input)
		if re, ok := contracts.DecodeRevert(err); !ok || re.Name != want {
			t.Errorf("deploy: %v, want %s", err, want)
		}
	}
	acl := e.ACLAt.Address()
	deployFails(contracts.DecryptionMetaData.Bin, e.Decryption.PackConstructor(a, big.NewInt(0), acl), "InvalidThreshold")
	deployFails(contracts.DecryptionMetaData.Bin, e.Decryption.PackConstructor(a, big.NewInt(4), acl), "InvalidThreshold")
	deployFails(contracts.DecryptionMetaData.Bin, e.Decryption.PackConstructor(nil, big.NewInt(1), acl), "EmptyKmsSigners")
	deployFails(contracts.DecryptionMetaData.Bin, e.Decryption.PackConstructor([]common.Address{a[0], a[0]}, big.NewInt(1), acl), "DuplicateKmsSigner")
	deployFails(contracts.DecryptionMetaData.Bin, e.Decryption.PackConstructor(a, big.NewInt(1), common.Address{}), "NullAclAddress")
	deployFails(contracts.InputVerificationMetaData.Bin, e.InputVerification.PackConstructor(nil, common.Address{}), "EmptyCoprocessors")
	deployFails(contracts.InputVerificationMetaData.Bin, e.InputVerification.PackConstructor([]common.Address{a[1], a[1]}, common.Address{}), "DuplicateCoprocessor")
	gw := e.DecryptionAt.Address()
	// The two host verifiers have the same constructor: InputVerifier's packer serves both.
	pack := e.InputVerifier.PackConstructor
	for _, bin := range []string{contracts.InputVerifierMetaData.Bin, contracts.KMSVerifierMetaData.Bin} {
		deployFails(bin, pack(nil, big.NewInt(1), e.chainID, gw), "EmptySigners")
		deployFails(bin, pack(a, big.NewInt(0), e.chainID, gw), "InvalidThreshold")
		deployFails(bin, pack(a, big.NewInt(4), e.chainID, gw), "InvalidThreshold")
		deployFails(bin, pack([]common.Address{a[0], a[1], a[0]}, big.NewInt(1), e.chainID, gw), "DuplicateSigner")
		deployFails(bin, pack(a, big.NewInt(1), e.chainID, common.Address{}), "NullVerifyingContract")
	}
}

func TestTheACLOwnerCanDenyAnOrdinaryHandle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, 1, 1)
	user := crypto.PubkeyToAddress(e.user.PublicKey)
	e.reverts(e.user, e.ACLAt, e.ACL.PackSetDenied(plainHandle, user, true), "NotOwner")
	e.ok(e.owner, e.ACLAt, e.ACL.PackSetDenied(plainHandle, user, true))
	e.ok(e.owner, e.ACLAt, e.ACL.PackSetPublicDecryptionDenied(plainHandle, true))
	if view(e, e.ACLAt, e.ACL.PackIsAllowed(plainHandle, user), e.ACL.UnpackIsAllowed) ||
		!view(e, e.ACLAt, e.ACL.PackIsAllowed(plainHandle, hostContract), e.ACL.UnpackIsAllowed) ||
		view(e, e.ACLAt, e.ACL.PackIsAllowedForDecryption(plainHandle), e.ACL.UnpackIsAllowedForDecryption) {
		t.Fatal("the explicit denials are not what the views say")
	}
}

func TestDecodeRevertIgnoresWhatIsNotAGatewayRevert(t *testing.T) {
	t.Parallel()
	if _, ok := contracts.DecodeRevert(nil); ok {
		t.Error("nil decoded")
	}
	if _, ok := contracts.DecodeRevert(errors.New("boom")); ok {
		t.Error("a plain error decoded")
	}
	if _, ok := contracts.DecodeRevertData([]byte{1, 2, 3, 4}); ok {
		t.Error("an unknown selector decoded")
	}
	re := &contracts.RevertError{Name: "EnforcedPause"}
	if got, ok := contracts.DecodeRevert(re); !ok || got != re || re.Error() != "execution reverted: EnforcedPause()" {
		t.Errorf("DecodeRevert(%v) = %v, %v", re, got, ok)
	}
}
