package devchain_test

import (
	"bytes"
	"context"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"relayer/workers/devchain"
	"relayer/workers/devchain/devchaintest"
	"relayer/workers/gateway/contracts"
)

func TestStartDeploysTheContractsWithTheDevelopmentKeysAndTheViewsAnswer(t *testing.T) {
	t.Parallel()
	c, ctx := shared, testContext(t)
	g := bindings(c)

	id, err := c.Client().ChainID(ctx)
	if err != nil || id.Int64() != 1337 || c.ChainID().Int64() != 1337 {
		t.Fatalf("chain id = %v (%v), ChainID() = %v; want 1337", id, err, c.ChainID())
	}
	// Fixed seeds, fixed nonces: the same addresses on every run.
	deployer := crypto.PubkeyToAddress(devchain.DevKey(devchain.RoleDeployer, 0).PublicKey)
	want := devchain.Addresses{
		Deployment: contracts.Deployment{
			ACL:               crypto.CreateAddress(deployer, 0),
			Decryption:        crypto.CreateAddress(deployer, 1),
			InputVerification: crypto.CreateAddress(deployer, 2),
			InputVerifier:     crypto.CreateAddress(deployer, 3),
			KMSVerifier:       crypto.CreateAddress(deployer, 4),
		},
		Wallets: [2]common.Address{crypto.CreateAddress(deployer, 5), crypto.CreateAddress(deployer, 6)},
	}
	if c.Addresses() != want {
		t.Fatalf("Addresses() = %+v, want %+v", c.Addresses(), want)
	}
	if crypto.PubkeyToAddress(c.RelayerKey().PublicKey) != crypto.PubkeyToAddress(devchain.RelayerDevKey(0).PublicKey) {
		t.Fatal("RelayerKey() is not RelayerDevKey(0)")
	}
	for _, a := range []common.Address{want.ACL, want.Decryption, want.InputVerification, want.InputVerifier, want.KMSVerifier,
		want.Wallets[0], want.Wallets[1]} {
		code, err := c.Client().CodeAt(ctx, a, nil)
		if err != nil || len(code) == 0 {
			t.Fatalf("no code at %s (%v)", a, err)
		}
	}
	for _, k := range append(c.RelayerKeys(), c.KMSKeys()...) {
		bal, err := c.Client().BalanceAt(ctx, crypto.PubkeyToAddress(k.PublicKey), nil)
		if err != nil || bal.Sign() <= 0 {
			t.Fatalf("key %s is not funded (%v, %v)", crypto.PubkeyToAddress(k.PublicKey), bal, err)
		}
	}

	signers := call(t, ctx, g.DecryptionAt, g.Decryption.PackKmsSigners(), g.Decryption.UnpackKmsSigners)
	if len(signers) != 4 || !slices.Equal(signers, c.KMSSigners()) {
		t.Fatalf("kmsSigners() = %v, want %v", signers, c.KMSSigners())
	}
	if th := call(t, ctx, g.DecryptionAt, g.Decryption.PackThreshold(), g.Decryption.UnpackThreshold); th.Int64() != 3 || c.Threshold() != 3 {
		t.Fatalf("threshold() = %v, Threshold() = %d; want 3", th, c.Threshold())
	}
	cops := call(t, ctx, g.InputVerificationAt, g.InputVerification.PackCoprocessors(), g.InputVerification.UnpackCoprocessors)
	if len(cops) != 3 || !slices.Equal(cops, c.Coprocessors()) {
		t.Fatalf("coprocessors() = %v, want %v", cops, c.Coprocessors())
	}
	if m := call(t, ctx, g.InputVerificationAt, g.InputVerification.PackMajority(), g.InputVerification.UnpackMajority); m.Int64() != 2 || c.Majority() != 2 {
		t.Fatalf("majority() = %v, Majority() = %d; want 2", m, c.Majority())
	}
	// The host verifiers: what the public SDK's createInstance reads. Each names its signers, its
	// threshold, and the gateway contract whose EIP-712 domain its signatures are made in.
	for _, v := range []struct {
		name, signersView string
		signers, want     []common.Address
		threshold         *big.Int
		wantThreshold     int
		thresholdIs       string
		domain            contracts.InputVerifierEip712DomainOutput
		domainOf          string
		domainContract    common.Address
	}{
		{"InputVerifier", "getCoprocessorSigners",
			call(t, ctx, g.InputVerifierAt, g.InputVerifier.PackGetCoprocessorSigners(), g.InputVerifier.UnpackGetCoprocessorSigners), c.Coprocessors(),
			call(t, ctx, g.InputVerifierAt, g.InputVerifier.PackGetThreshold(), g.InputVerifier.UnpackGetThreshold), c.Majority(), "the majority",
			call(t, ctx, g.InputVerifierAt, g.InputVerifier.PackInputVerifierEip712Domain(), g.InputVerifier.UnpackInputVerifierEip712Domain),
			"InputVerification", want.InputVerification},
		{"KMSVerifier", "getKmsSigners",
			call(t, ctx, g.KMSVerifierAt, g.KMSVerifier.PackGetKmsSigners(), g.KMSVerifier.UnpackGetKmsSigners), c.KMSSigners(),
			call(t, ctx, g.KMSVerifierAt, g.KMSVerifier.PackGetThreshold(), g.KMSVerifier.UnpackGetThreshold), c.Threshold(), "the threshold",
			contracts.InputVerifierEip712DomainOutput(call(t, ctx, g.KMSVerifierAt, g.KMSVerifier.PackKMSVerifierEip712Domain(), g.KMSVerifier.UnpackKMSVerifierEip712Domain)),
			"Decryption", want.Decryption},
	} {
		if !slices.Equal(v.signers, v.want) {
			t.Fatalf("%s.%s() = %v, want %v", v.name, v.signersView, v.signers, v.want)
		}
		if v.threshold.Int64() != int64(v.wantThreshold) {
			t.Fatalf("%s.getThreshold() = %v, want %s %d", v.name, v.threshold, v.thresholdIs, v.wantThreshold)
		}
		d := v.domain
		if d.Fields != [1]byte{0x0f} || d.Name != v.domainOf || d.Version != "1" ||
			d.ChainId.Int64() != devchain.ChainID || d.VerifyingContract != v.domainContract {
			t.Fatalf("%s.eip712Domain() = %+v, want %s's", v.name, d, v.domainOf)
		}
	}
	owner := call(t, ctx, g.DecryptionAt, g.Decryption.PackOwner(), g.Decryption.UnpackOwner)
	if owner != deployer {
		t.Fatalf("owner() = %s, want the deployer %s", owner, deployer)
	}

	// The views, for an ordinary handle and each scenario (04 not seen yet).
	cases := []struct {
		s                      contracts.Scenario
		allowed, publicAllowed bool
		ready                  bool
	}{
		{contracts.ScenarioNone, true, true, true},
		{contracts.ScenarioDenied, false, false, false},
		{contracts.ScenarioNeverReady, true, true, false},
		{contracts.ScenarioNoResponse, true, true, true},
		{contracts.ScenarioReadyAfterDelay, true, true, false},
		{contracts.ScenarioRevert, true, true, true},
	}
	for _, tc := range cases {
		h := contracts.TestHandle(tc.s, seed(t))
		if got := call(t, ctx, g.ACLAt, g.ACL.PackIsAllowed(h, testUser), g.ACL.UnpackIsAllowed); got != tc.allowed {
			t.Errorf("%v: isAllowed = %v, want %v", tc.s, got, tc.allowed)
		}
		if got := call(t, ctx, g.ACLAt, g.ACL.PackIsAllowedForDecryption(h), g.ACL.UnpackIsAllowedForDecryption); got != tc.publicAllowed {
			t.Errorf("%v: isAllowedForDecryption = %v, want %v", tc.s, got, tc.publicAllowed)
		}
		if got := call(t, ctx, g.DecryptionAt, g.Decryption.PackIsPublicDecryptionReady([][32]byte{h}, nil), g.Decryption.UnpackIsPublicDecryptionReady); got != tc.ready {
			t.Errorf("%v: isPublicDecryptionReady = %v, want %v", tc.s, got, tc.ready)
		}
		pairs := []contracts.DecryptionCtHandleContractPair{{CtHandle: h, ContractAddress: testContract}}
		if got := call(t, ctx, g.DecryptionAt, g.Decryption.PackIsUserDecryptionReady(testUser, pairs, nil), g.Decryption.UnpackIsUserDecryptionReady); got != tc.ready {
			t.Errorf("%v: isUserDecryptionReady = %v, want %v", tc.s, got, tc.ready)
		}
	}
	// A list is ready only when every handle is.
	mixed := [][32]byte{contracts.TestHandle(contracts.ScenarioNone, seed(t)), contracts.TestHandle(contracts.ScenarioNeverReady, seed(t))}
	if call(t, ctx, g.DecryptionAt, g.Decryption.PackIsPublicDecryptionReady(mixed, nil), g.Decryption.UnpackIsPublicDecryptionReady) {
		t.Error("a list with a never-ready handle is ready")
	}
	if call(t, ctx, g.DecryptionAt, g.Decryption.PackIsPublicDecryptionReady(nil, nil), g.Decryption.UnpackIsPublicDecryptionReady) {
		t.Error("an empty list is ready")
	}
}

func TestPublicDecryptionOfAnOrdinaryHandleCompletesWithThresholdSignaturesOfDistinctKMSSigners(t *testing.T) {
	t.Parallel()
	c, ctx, g, relayer := onShared(t)
	handles := [][32]byte{contracts.TestHandle(contracts.ScenarioNone, seed(t)+"/1"), contracts.TestHandle(contracts.ScenarioNone, seed(t)+"/2")}

	r := relayer.mustSucceed(t, ctx, g.DecryptionAt, g.Decryption.PackPublicDecryptionRequest(handles, []byte{0x00}))
	id := requestID(t, r, c.Addresses().Decryption, contracts.TopicPublicDecryptionRequest)
	if contracts.DecryptionKindOf(id) != contracts.DecryptionKindPublic {
		t.Fatalf("request id %#x is not a public decryption id", id)
	}

	logs := waitLogs(t, ctx, c, c.Addresses().Decryption, contracts.TopicPublicDecryptionResponse, id, 1)
	ev, err := g.Decryption.UnpackPublicDecryptionResponseEvent(&logs[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := devchain.PublicDecryptionResult(handles); !bytes.Equal(ev.DecryptedResult, want) {
		t.Fatalf("decryptedResult = %x, want %x", ev.DecryptedResult, want)
	}
	if len(ev.Signatures) < c.Threshold() {
		t.Fatalf("%d signatures, want at least %d", len(ev.Signatures), c.Threshold())
	}
	// What the public SDK verifies: the request's handles, the result and an empty extraData,
	// which is also what the KMS nodes sent.
	if len(ev.ExtraData) != 0 {
		t.Fatalf("extraData = %x, want empty", ev.ExtraData)
	}
	digest := contracts.PublicDecryptionDigest(c.ChainID(), c.Addresses().Decryption, handles, ev.DecryptedResult, nil)
	if onChain := call(t, ctx, g.DecryptionAt, g.Decryption.PackPublicDecryptionDigest(handles, ev.DecryptedResult, nil), g.Decryption.UnpackPublicDecryptionDigest); onChain != digest {
		t.Fatalf("the contract's digest %s differs from PublicDecryptionDigest %s", onChain, digest)
	}
	seen := map[common.Address]bool{}
	for _, sig := range ev.Signatures {
		signer, err := contracts.RecoverSigner(digest, sig)
		if err != nil {
			t.Fatal(err)
		}
		if indexOf(c.KMSSigners(), signer) < 0 || seen[signer] {
			t.Fatalf("signature by %s: not a distinct KMS signer", signer)
		}
		seen[signer] = true
	}
	// The late fourth answer changes nothing: still one response event.
	time.Sleep(3 * devchaintest.ResponseDelayMax)
	if n := len(logsOf(t, ctx, c, c.Addresses().Decryption, contracts.TopicPublicDecryptionResponse, id)); n != 1 {
		t.Fatalf("%d response events, want 1", n)
	}
}

func TestUserDecryptionGetsSharesFromDistinctKMSNodesAndReachesTheThresholdOnce(t *testing.T) {
	t.Parallel()
	c, ctx, g, relayer := onShared(t)
	handles := [][32]byte{contracts.TestHandle(contracts.ScenarioNone, seed(t))}
	publicKey := []byte("user public key")

	r := relayer.mustSucceed(t, ctx, g.DecryptionAt, userRequest(g, handles, testContract, testUser, publicKey))
	id := requestID(t, r, c.Addresses().Decryption, contracts.TopicUserDecryptionRequest)
	if contracts.DecryptionKindOf(id) != contracts.DecryptionKindUser {
		t.Fatalf("request id %#x is not a user decryption id", id)
	}
	req, err := g.Decryption.UnpackUserDecryptionRequestEvent(r.Logs[len(r.Logs)-1])
	if err != nil || req.UserAddress != testUser || !bytes.Equal(req.PublicKey, publicKey) || len(req.CtHandles) != 1 || req.CtHandles[0] != handles[0] {
		t.Fatalf("request event = %+v (%v)", req, err)
	}

	waitLogs(t, ctx, c, c.Addresses().Decryption, contracts.TopicUserDecryptionResponseThresholdReached, id, 1)
	shares := waitLogs(t, ctx, c, c.Addresses().Decryption, contracts.TopicUserDecryptionResponse, id, 4)
	if len(shares) != 4 {
		t.Fatalf("%d shares, want one per KMS node (4)", len(shares))
	}
	seen := map[common.Address]bool{}
	for i := range shares {
		ev, err := g.Decryption.UnpackUserDecryptionResponseEvent(&shares[i])
		if err != nil {
			t.Fatal(err)
		}
		if ev.IndexShare.Int64() != int64(i) {
			t.Errorf("share %d has indexShare %v", i, ev.IndexShare)
		}
		node, digest := checkShare(t, c, seen, ev, handles, publicKey)
		if onChain := call(t, ctx, g.DecryptionAt, g.Decryption.PackUserDecryptionDigest(publicKey, handles, ev.UserDecryptedShare, ev.ExtraData), g.Decryption.UnpackUserDecryptionDigest); onChain != digest {
			t.Fatalf("the contract's digest %s differs from UserDecryptionDigest %s", onChain, digest)
		}
		if signer, err := contracts.RecoverSigner(digest, ev.Signature); err != nil || signer != ev.KmsSigner {
			t.Errorf("share of node %d signed by %s (%v)", node, signer, err)
		}
	}
	if n := len(logsOf(t, ctx, c, c.Addresses().Decryption, contracts.TopicUserDecryptionResponseThresholdReached, id)); n != 1 {
		t.Fatalf("%d threshold events, want 1", n)
	}
	// ThresholdReached came with the third share.
	tr := logsOf(t, ctx, c, c.Addresses().Decryption, contracts.TopicUserDecryptionResponseThresholdReached, id)[0]
	if tr.TxHash != shares[2].TxHash {
		t.Errorf("threshold reached in %s, want with the third share %s", tr.TxHash, shares[2].TxHash)
	}
}

func TestInputProofIsVerifiedByTheCoprocessorMajorityWithTheirSignatures(t *testing.T) {
	t.Parallel()
	c, ctx, g, relayer := onShared(t)
	ct := contracts.TestCiphertext(contracts.ScenarioNone, seed(t), 70)

	id, ev, _ := verifyProof(t, ctx, c, g, relayer, ct, []byte{0x00})
	want := devchain.InputHandles(c.Addresses().ACL, big.NewInt(1337), testContract, testUser, ct)
	if len(want) != 2 || len(ev.CtHandles) != 2 || ev.CtHandles[0] != want[0] || ev.CtHandles[1] != want[1] {
		t.Fatalf("handles = %x, want %x", ev.CtHandles, want)
	}
	for _, h := range ev.CtHandles {
		if contracts.HandleChainID(h) != 1337 {
			t.Errorf("handle %x carries chain id %d, want 1337", h, contracts.HandleChainID(h))
		}
	}
	if len(ev.Signatures) != c.Majority() {
		t.Fatalf("%d signatures, want the majority %d", len(ev.Signatures), c.Majority())
	}
	// What the public SDK verifies: its own handles, user, contract, host chain and extraData 0x00.
	digest := contracts.VerifyProofDigest(c.ChainID(), c.Addresses().InputVerification, want, testUser, testContract, big.NewInt(1337), []byte{0x00})
	if onChain := call(t, ctx, g.InputVerificationAt, g.InputVerification.PackVerifyProofDigest(want, testUser, testContract, big.NewInt(1337), []byte{0x00}), g.InputVerification.UnpackVerifyProofDigest); onChain != digest {
		t.Fatalf("the contract's digest %s differs from VerifyProofDigest %s", onChain, digest)
	}
	seen := map[common.Address]bool{}
	for _, sig := range ev.Signatures {
		signer, err := contracts.RecoverSigner(digest, sig)
		if err != nil || indexOf(c.Coprocessors(), signer) < 0 || seen[signer] {
			t.Fatalf("signature by %s (%v): not a distinct coprocessor", signer, err)
		}
		seen[signer] = true
	}
	assertQuiet(t, ctx, c, c.Addresses().InputVerification, id, contracts.TopicRejectProofResponse)
}

func TestScenario01IsDeniedByTheACLRefusedByTheGatewayAndItsProofRejected(t *testing.T) {
	t.Parallel()
	c, ctx, g, relayer := onShared(t)
	h := contracts.TestHandle(contracts.ScenarioDenied, seed(t))

	if call(t, ctx, g.ACLAt, g.ACL.PackIsAllowedForDecryption(h), g.ACL.UnpackIsAllowedForDecryption) ||
		call(t, ctx, g.ACLAt, g.ACL.PackIsAllowed(h, testUser), g.ACL.UnpackIsAllowed) {
		t.Fatal("the ACL allows a 01 handle")
	}
	if re := relayer.mustRevert(t, ctx, g.DecryptionAt, g.Decryption.PackPublicDecryptionRequest([][32]byte{h}, nil)); re.Name != "PublicDecryptNotAllowed" || re.Args[0] != h {
		t.Fatalf("public decryption reverted with %v, want PublicDecryptNotAllowed(handle)", re)
	}
	if re := relayer.mustRevert(t, ctx, g.DecryptionAt, userRequest(g, [][32]byte{h}, testContract, testUser, []byte("pk"))); re.Name != "UserDecryptNotAllowed" || re.Args[1] != testUser {
		t.Fatalf("user decryption reverted with %v, want UserDecryptNotAllowed(handle, user)", re)
	}

	ct := contracts.TestCiphertext(contracts.ScenarioDenied, seed(t), 32)
	r := relayer.mustSucceed(t, ctx, g.InputVerificationAt, g.InputVerification.PackVerifyProofRequest(big.NewInt(1337), testContract, testUser, ct, nil))
	id := requestID(t, r, c.Addresses().InputVerification, contracts.TopicVerifyProofRequest)
	waitLogs(t, ctx, c, c.Addresses().InputVerification, contracts.TopicRejectProofResponse, id, 1)
	if n := len(logsOf(t, ctx, c, c.Addresses().InputVerification, contracts.TopicVerifyProofResponse, id)); n != 0 {
		t.Fatalf("a rejected proof was also verified (%d events)", n)
	}
	if !call(t, ctx, g.InputVerificationAt, g.InputVerification.PackIsProofDecided(id), g.InputVerification.UnpackIsProofDecided) {
		t.Fatal("isProofDecided is false after the rejection")
	}
}

func TestScenario02IsNeverReadyAndARequestForItIsNeverAnswered(t *testing.T) {
	t.Parallel()
	c, ctx, g, relayer := onShared(t)
	h := contracts.TestHandle(contracts.ScenarioNeverReady, seed(t))

	pubID, usrID := requestDecryptions(t, ctx, c, g, relayer, h)

	assertQuiet(t, ctx, c, c.Addresses().Decryption, pubID, contracts.TopicPublicDecryptionResponse)
	assertQuiet(t, ctx, c, c.Addresses().Decryption, usrID, contracts.TopicUserDecryptionResponse)
	if call(t, ctx, g.DecryptionAt, g.Decryption.PackIsPublicDecryptionReady([][32]byte{h}, nil), g.Decryption.UnpackIsPublicDecryptionReady) {
		t.Fatal("a 02 handle became ready")
	}
}

func TestScenario03IsReadyButNoRequestForItIsAnswered(t *testing.T) {
	t.Parallel()
	c, ctx, g, relayer := onShared(t)
	h := contracts.TestHandle(contracts.ScenarioNoResponse, seed(t))
	if !call(t, ctx, g.DecryptionAt, g.Decryption.PackIsPublicDecryptionReady([][32]byte{h}, nil), g.Decryption.UnpackIsPublicDecryptionReady) {
		t.Fatal("a 03 handle is not ready")
	}

	pubID, usrID := requestDecryptions(t, ctx, c, g, relayer, h)
	ct := contracts.TestCiphertext(contracts.ScenarioNoResponse, seed(t), 32)
	prf := relayer.mustSucceed(t, ctx, g.InputVerificationAt, g.InputVerification.PackVerifyProofRequest(big.NewInt(1337), testContract, testUser, ct, nil))
	prfID := requestID(t, prf, c.Addresses().InputVerification, contracts.TopicVerifyProofRequest)

	assertQuiet(t, ctx, c, c.Addresses().Decryption, pubID, contracts.TopicPublicDecryptionResponse)
	assertQuiet(t, ctx, c, c.Addresses().Decryption, usrID, contracts.TopicUserDecryptionResponse)
	assertQuiet(t, ctx, c, c.Addresses().InputVerification, prfID, contracts.TopicVerifyProofResponse, contracts.TopicRejectProofResponse)
}

func TestScenario04BecomesReadyFiveSecondsOfChainTimeAfterTheChainFirstSawIt(t *testing.T) {
	t.Parallel()
	c, ctx := shared, testContext(t)
	g := bindings(c)
	h := contracts.TestHandle(contracts.ScenarioReadyAfterDelay, seed(t))
	ready := func(block *big.Int) bool {
		v, err := bind.Call(g.DecryptionAt, &bind.CallOpts{Context: ctx, BlockNumber: block},
			g.Decryption.PackIsPublicDecryptionReady([][32]byte{h}, nil), g.Decryption.UnpackIsPublicDecryptionReady)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if ready(nil) {
		t.Fatal("an unseen 04 handle is ready")
	}
	if err := c.RegisterHandles(ctx, h); err != nil {
		t.Fatal(err)
	}
	seen := call(t, ctx, g.DecryptionAt, g.Decryption.PackHandleFirstSeen(h), g.Decryption.UnpackHandleFirstSeen).Uint64()
	if seen == 0 {
		t.Fatal("handleFirstSeen is 0 after RegisterHandles")
	}
	// Follow the chain block by block (the heartbeat seals one a second): not ready before
	// first seen + 5 s of chain time, ready from then on.
	deadline := time.Now().Add(20 * time.Second)
	for {
		head, err := c.Client().HeaderByNumber(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, want := ready(head.Number), head.Time >= seen+5
		if got != want {
			t.Fatalf("block %v (time %d, first seen %d): ready = %v, want %v", head.Number, head.Time, seen, got, want)
		}
		if got {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the 04 handle did not become ready within 20 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Registering again does not move the clock back.
	if err := c.RegisterHandles(ctx, h); err != nil {
		t.Fatal(err)
	}
	if again := call(t, ctx, g.DecryptionAt, g.Decryption.PackHandleFirstSeen(h), g.Decryption.UnpackHandleFirstSeen).Uint64(); again != seen {
		t.Fatalf("handleFirstSeen moved from %d to %d", seen, again)
	}

	relayer := newSender(c, c.RelayerKey())
	r := relayer.mustSucceed(t, ctx, g.DecryptionAt, g.Decryption.PackPublicDecryptionRequest([][32]byte{h}, nil))
	id := requestID(t, r, c.Addresses().Decryption, contracts.TopicPublicDecryptionRequest)
	waitLogs(t, ctx, c, c.Addresses().Decryption, contracts.TopicPublicDecryptionResponse, id, 1)
}

func TestScenario04RequestedBeforeReadyIsAnsweredOnlyAfterTheDelay(t *testing.T) {
	t.Parallel()
	c, ctx, g, relayer := onShared(t)
	h := contracts.TestHandle(contracts.ScenarioReadyAfterDelay, seed(t))

	// The request itself is the chain's first sight of the handle.
	r := relayer.mustSucceed(t, ctx, g.DecryptionAt, userRequest(g, [][32]byte{h}, testContract, testUser, []byte("pk")))
	id := requestID(t, r, c.Addresses().Decryption, contracts.TopicUserDecryptionRequest)
	reg := requestID(t, r, c.Addresses().Decryption, contracts.TopicHandleRegistered)
	if common.BigToHash(reg) != common.Hash(h) {
		t.Fatalf("HandleRegistered for %x, want %x", reg, h)
	}
	block, err := c.Client().HeaderByNumber(ctx, r.BlockNumber)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AdvanceTime(ctx, 6*time.Second); err != nil {
		t.Fatal(err)
	}
	logs := waitLogs(t, ctx, c, c.Addresses().Decryption, contracts.TopicUserDecryptionResponseThresholdReached, id, 1)
	answered, err := c.Client().HeaderByNumber(ctx, new(big.Int).SetUint64(logs[0].BlockNumber))
	if err != nil {
		t.Fatal(err)
	}
	if answered.Time < block.Time+5 {
		t.Fatalf("answered at chain time %d, requested (first seen) at %d: before the 5 s delay", answered.Time, block.Time)
	}
}

func TestScenario05MakesEveryGatewayRequestRevertWithTestScenarioRevert(t *testing.T) {
	t.Parallel()
	_, ctx, g, relayer := onShared(t)
	h := contracts.TestHandle(contracts.ScenarioRevert, seed(t))
	ok := contracts.TestHandle(contracts.ScenarioNone, seed(t))

	for name, data := range map[string][]byte{
		"public decryption": g.Decryption.PackPublicDecryptionRequest([][32]byte{ok, h}, nil),
		"user decryption":   userRequest(g, [][32]byte{h}, testContract, testUser, []byte("pk")),
		"input proof": g.InputVerification.PackVerifyProofRequest(big.NewInt(1337), testContract, testUser,
			contracts.TestCiphertext(contracts.ScenarioRevert, seed(t), 40), nil),
	} {
		at := g.DecryptionAt
		if name == "input proof" {
			at = g.InputVerificationAt
		}
		if re := relayer.mustRevert(t, ctx, at, data); re.Name != "TestScenarioRevert" {
			t.Errorf("%s reverted with %v, want TestScenarioRevert()", name, re)
		}
	}
}

func TestAPausedGatewayRefusesRequestsWithEnforcedPauseUntilUnpaused(t *testing.T) {
	t.Parallel()
	c := devchaintest.Start(t, testConfig(), testLogger())
	ctx := testContext(t)
	g := bindings(c)
	relayer := newSender(c, c.RelayerKey())
	h := contracts.TestHandle(contracts.ScenarioNone, seed(t))
	requests := []struct {
		name string
		at   *bind.BoundContract
		data []byte
	}{
		{"public decryption", g.DecryptionAt, g.Decryption.PackPublicDecryptionRequest([][32]byte{h}, nil)},
		{"user decryption", g.DecryptionAt, userRequest(g, [][32]byte{h}, testContract, testUser, []byte("pk"))},
		{"input proof", g.InputVerificationAt, g.InputVerification.PackVerifyProofRequest(big.NewInt(1337), testContract, testUser, []byte{1, 2, 3}, nil)},
	}

	if err := c.Pause(ctx); err != nil {
		t.Fatal(err)
	}
	for _, r := range requests {
		if re := relayer.mustRevert(t, ctx, r.at, r.data); re.Name != "EnforcedPause" {
			t.Errorf("paused %s reverted with %v, want EnforcedPause()", r.name, re)
		}
	}
	if err := c.Pause(ctx); err == nil {
		t.Error("pausing twice succeeded")
	}
	// Only the owner may unpause.
	if re := relayer.mustRevert(t, ctx, g.DecryptionAt, g.Decryption.PackUnpause()); re.Name != "NotOwner" {
		t.Errorf("unpause by the relayer reverted with %v, want NotOwner", re)
	}
	if err := c.Unpause(ctx); err != nil {
		t.Fatal(err)
	}
	for _, r := range requests {
		relayer.mustSucceed(t, ctx, r.at, r.data)
	}
}

func TestOnlyRegisteredKMSSignersAndCoprocessorsCanAnswer(t *testing.T) {
	t.Parallel()
	// Its own chain: the test sends from KMS keys, which the shared chain's simulators use.
	c := devchaintest.Start(t, testConfig(), testLogger())
	ctx := testContext(t)
	g := bindings(c)
	relayer := newSender(c, c.RelayerKey())
	h := contracts.TestHandle(contracts.ScenarioNoResponse, seed(t)) // nobody else answers it

	r := relayer.mustSucceed(t, ctx, g.DecryptionAt, g.Decryption.PackPublicDecryptionRequest([][32]byte{h}, nil))
	id := requestID(t, r, c.Addresses().Decryption, contracts.TopicPublicDecryptionRequest)
	result := devchain.PublicDecryptionResult([][32]byte{h})
	sign := func(k int) []byte {
		sig, err := contracts.SignDigest(c.KMSKeys()[k], contracts.PublicDecryptionDigest(c.ChainID(), c.Addresses().Decryption, [][32]byte{h}, result, nil))
		if err != nil {
			t.Fatal(err)
		}
		return sig
	}
	// The relayer, even with a KMS node's signature, is not a KMS signer.
	if re := relayer.mustRevert(t, ctx, g.DecryptionAt, g.Decryption.PackPublicDecryptionResponse(id, result, sign(0), nil)); re.Name != "NotKmsSigner" {
		t.Fatalf("response from the relayer reverted with %v, want NotKmsSigner", re)
	}
	// A KMS node must sign with its own key.
	kms1 := newSender(c, c.KMSKeys()[1])
	if re := kms1.mustRevert(t, ctx, g.DecryptionAt, g.Decryption.PackPublicDecryptionResponse(id, result, sign(0), nil)); re.Name != "InvalidKmsSignature" {
		t.Fatalf("response with another node's signature reverted with %v, want InvalidKmsSignature", re)
	}
	// And answers once.
	kms1.mustSucceed(t, ctx, g.DecryptionAt, g.Decryption.PackPublicDecryptionResponse(id, result, sign(1), nil))
	if re := kms1.mustRevert(t, ctx, g.DecryptionAt, g.Decryption.PackPublicDecryptionResponse(id, result, sign(1), nil)); re.Name != "KmsNodeAlreadySigned" {
		t.Fatalf("second response reverted with %v, want KmsNodeAlreadySigned", re)
	}
	// Unknown ids are refused.
	if re := kms1.mustRevert(t, ctx, g.DecryptionAt, g.Decryption.PackUserDecryptionResponse(id, result, sign(1), nil)); re.Name != "UnknownRequest" {
		t.Fatalf("user response to a public id reverted with %v, want UnknownRequest", re)
	}

	ct := contracts.TestCiphertext(contracts.ScenarioNoResponse, seed(t), 32)
	pr := relayer.mustSucceed(t, ctx, g.InputVerificationAt, g.InputVerification.PackVerifyProofRequest(big.NewInt(1337), testContract, testUser, ct, nil))
	prID := requestID(t, pr, c.Addresses().InputVerification, contracts.TopicVerifyProofRequest)
	if re := relayer.mustRevert(t, ctx, g.InputVerificationAt, g.InputVerification.PackRejectProofResponse(prID, nil)); re.Name != "NotCoprocessor" {
		t.Fatalf("rejection from the relayer reverted with %v, want NotCoprocessor", re)
	}
	kms0 := newSender(c, c.KMSKeys()[0])
	if re := kms0.mustRevert(t, ctx, g.InputVerificationAt, g.InputVerification.PackVerifyProofResponse(prID, [][32]byte{h}, make([]byte, 65), nil)); re.Name != "NotCoprocessor" {
		t.Fatalf("verification from a KMS node reverted with %v, want NotCoprocessor", re)
	}
}

func TestTheMajorityOfCoprocessorsDecidesOverADissentingOne(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.DissentingCoprocessors = 1
	c := devchaintest.Start(t, cfg, testLogger())
	ctx := testContext(t)
	g := bindings(c)
	relayer := newSender(c, c.RelayerKey())

	good := relayer.mustSucceed(t, ctx, g.InputVerificationAt, g.InputVerification.PackVerifyProofRequest(big.NewInt(1337), testContract, testUser,
		contracts.TestCiphertext(contracts.ScenarioNone, seed(t), 32), nil))
	goodID := requestID(t, good, c.Addresses().InputVerification, contracts.TopicVerifyProofRequest)
	bad := relayer.mustSucceed(t, ctx, g.InputVerificationAt, g.InputVerification.PackVerifyProofRequest(big.NewInt(1337), testContract, testUser,
		contracts.TestCiphertext(contracts.ScenarioDenied, seed(t), 32), nil))
	badID := requestID(t, bad, c.Addresses().InputVerification, contracts.TopicVerifyProofRequest)

	waitLogs(t, ctx, c, c.Addresses().InputVerification, contracts.TopicVerifyProofResponse, goodID, 1)
	waitLogs(t, ctx, c, c.Addresses().InputVerification, contracts.TopicRejectProofResponse, badID, 1)
	// Wait for the third answers, then check the outcome did not flip.
	time.Sleep(3 * devchaintest.ResponseDelayMax)
	if n := len(logsOf(t, ctx, c, c.Addresses().InputVerification, contracts.TopicRejectProofResponse, goodID)); n != 0 {
		t.Fatal("the valid proof was also rejected")
	}
	if n := len(logsOf(t, ctx, c, c.Addresses().InputVerification, contracts.TopicVerifyProofResponse, badID)); n != 0 {
		t.Fatal("the invalid proof was also verified")
	}
}

func TestAcceptedInputHandlesOfScenario04BecomeReadyAfterTheDelay(t *testing.T) {
	t.Parallel()
	c, ctx, g, relayer := onShared(t)
	ct := contracts.TestCiphertext(contracts.ScenarioReadyAfterDelay, seed(t), 32)

	_, ev, response := verifyProof(t, ctx, c, g, relayer, ct, nil)
	h := ev.CtHandles[0]
	if contracts.ScenarioOfHandle(h) != contracts.ScenarioReadyAfterDelay {
		t.Fatalf("handle %x of a 04 input does not carry scenario 04", h)
	}
	// Accepting the proof registered the handle in the same block.
	seen := call(t, ctx, g.DecryptionAt, g.Decryption.PackHandleFirstSeen(h), g.Decryption.UnpackHandleFirstSeen).Uint64()
	block, err := c.Client().HeaderByNumber(ctx, new(big.Int).SetUint64(response.BlockNumber))
	if err != nil || seen != block.Time {
		t.Fatalf("handleFirstSeen = %d, want the verification block's time %d (%v)", seen, block.Time, err)
	}
}

func TestTheChainsClockAdvancesWhenIdle(t *testing.T) {
	t.Parallel()
	c := devchaintest.Start(t, testConfig(), testLogger()) // heartbeat 1 s
	ctx := testContext(t)
	start, err := c.HeadTime(ctx)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2500 * time.Millisecond)
	later, err := c.HeadTime(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !later.After(start) {
		t.Fatalf("the head's time stayed at %v while idle for 2.5 s", start)
	}
	if err := c.AdvanceTime(ctx, 100*time.Second); err != nil {
		t.Fatal(err)
	}
	jumped, err := c.HeadTime(ctx)
	if err != nil || jumped.Sub(later) < 100*time.Second {
		t.Fatalf("after AdvanceTime(100s) the head's time is %v, was %v (%v)", jumped, later, err)
	}
	if err := c.AdvanceTime(ctx, time.Millisecond); err == nil {
		t.Error("AdvanceTime accepted less than a second")
	}
}

func TestTheChainSealsABlockAsSoonAsATransactionArrives(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Heartbeat = time.Minute // only a transaction can seal a block here
	c := devchaintest.Start(t, cfg, testLogger())
	ctx := testContext(t)
	g := bindings(c)
	relayer := newSender(c, c.RelayerKey())
	for range 3 {
		began := time.Now()
		relayer.mustSucceed(t, ctx, g.DecryptionAt, g.Decryption.PackRegisterHandles(nil))
		if d := time.Since(began); d > 5*time.Second {
			t.Fatalf("a transaction took %v to be sealed", d)
		}
	}
}

func TestConfigDefaultsAndValidation(t *testing.T) {
	t.Parallel()
	d := devchain.DefaultConfig()
	if d.KMSNodes != 4 || d.Threshold != 3 || d.Coprocessors != 3 || d.RelayerKeys != 1 ||
		d.ResponseDelayMin != 50*time.Millisecond || d.ResponseDelayMax != 300*time.Millisecond || d.Heartbeat != time.Second {
		t.Fatalf("DefaultConfig() = %+v", d)
	}
	if err := d.Validate(); err != nil {
		t.Fatalf("the defaults are invalid: %v", err)
	}
	bad := []devchain.Config{
		{KMSNodes: 2, Threshold: 3},
		{KMSNodes: -1},
		{Coprocessors: 3, DissentingCoprocessors: 4},
		{ResponseDelayMin: time.Second, ResponseDelayMax: time.Millisecond},
		{HTTPAddr: "0.0.0.0:8545"},
		{WSAddr: "not an address"},
		{HTTPAddr: "127.0.0.1:8545", WSAddr: "127.0.0.1:8545"},
	}
	for _, cfg := range bad {
		if err := cfg.WithDefaults().Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", cfg)
		}
		if _, err := devchain.Start(context.Background(), cfg, nil); err == nil {
			t.Errorf("Start(%+v) succeeded", cfg)
		}
	}
}

func TestTheChainServesJSONRPCOverHTTPAndWebSocket(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.HTTPAddr, cfg.WSAddr = "127.0.0.1:0", "127.0.0.1:0"
	c := devchaintest.Start(t, cfg, testLogger())
	ctx := testContext(t)
	for _, url := range []string{c.HTTPEndpoint(), c.WSEndpoint()} {
		cl, err := dial(ctx, url)
		if err != nil {
			t.Fatalf("dial %s: %v", url, err)
		}
		id, err := cl.ChainID(ctx)
		cl.Close()
		if err != nil || id.Int64() != 1337 {
			t.Fatalf("%s: eth_chainId = %v (%v), want 1337", url, id, err)
		}
	}
	// A relayer in another process signs and sends with eth_sendRawTransactionSync over HTTP:
	// the chain seals the block and the node answers with the receipt.
	cl, err := dial(ctx, c.HTTPEndpoint())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	g := contracts.NewDecryption()
	at := g.Instance(cl, c.Addresses().Decryption)
	opts := bind.NewKeyedTransactor(devchain.RelayerDevKey(0), big.NewInt(devchain.ChainID))
	opts.Context, opts.NoSend = ctx, true
	tx, err := bind.Transact(at, opts, g.PackPublicDecryptionRequest([][32]byte{contracts.TestHandle(contracts.ScenarioNone, seed(t))}, nil))
	if err != nil {
		t.Fatal(err)
	}
	timeout := 10 * time.Second
	r, err := cl.SendTransactionSync(ctx, tx, &timeout)
	if err != nil || r.Status != 1 || len(r.Logs) != 1 || r.Logs[0].Topics[0] != contracts.TopicPublicDecryptionRequest {
		t.Fatalf("eth_sendRawTransactionSync: receipt %+v, %v", r, err)
	}

	// A second chain cannot take the same port.
	taken := testConfig()
	taken.HTTPAddr = c.HTTPEndpoint()[len("http://"):]
	if c2, err := devchain.Start(ctx, taken, nil); err == nil {
		c2.Close()
		t.Fatal("a second chain started on a port in use")
	}
}

func TestAnInputThePublicSDKEncryptedIsAnsweredWithTheHandlesTheSDKComputes(t *testing.T) {
	t.Parallel()
	c, ctx, g, relayer := onShared(t)
	ct, err := os.ReadFile(filepath.Join("testdata", "sdk_input_bool_u8_u64.bin"))
	if err != nil {
		t.Fatal(err)
	}
	want, ok := devchain.SDKInputHandles(ct, c.Addresses().ACL, 1337)
	if !ok || len(want) != 3 {
		t.Fatalf("the fixture is not read as the SDK's input of three values (%d handles)", len(want))
	}
	for i, typ := range []byte{0, 2, 5} {
		if want[i][30] != typ || want[i][21] != byte(i) {
			t.Errorf("handle %d = %x, want index %d and type %d", i, want[i], i, typ)
		}
	}

	_, ev, _ := verifyProof(t, ctx, c, g, relayer, ct, []byte{0x00})
	if len(ev.CtHandles) != len(want) {
		t.Fatalf("%d handles, want %d", len(ev.CtHandles), len(want))
	}
	for i := range want {
		if ev.CtHandles[i] != want[i] {
			t.Errorf("handle %d = %x, want %x", i, ev.CtHandles[i], want[i])
		}
	}
}

func TestPlaintextsFitTheirHandlesType(t *testing.T) {
	for typ, bits := range map[byte]int{0: 1, 2: 8, 3: 16, 4: 32, 5: 64, 6: 128, 7: 160, 8: 256} {
		for n := range 16 {
			var h [32]byte
			h[0], h[1], h[30] = byte(n), 0x42, typ
			clear := devchain.Plaintext(h)
			p := new(big.Int).SetBytes(clear[:])
			if p.BitLen() > bits {
				t.Errorf("type %d: plaintext %x has %d bits, want at most %d", typ, p, p.BitLen(), bits)
			}
		}
	}
}
