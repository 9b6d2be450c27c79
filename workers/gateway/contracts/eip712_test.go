package contracts_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"relayer/workers/gateway/contracts"
)

// sdkTypedData builds, from JSON the way the public client SDK writes it (ethers'
// verifyTypedData arguments, sdk-0.4.3 sections 2 to 4), the typed data of one message, and
// hashes it with go-ethereum's independent EIP-712 implementation.
func sdkTypedData(t *testing.T, domainName string, chainID int64, verifying common.Address, primary, fields string, message map[string]any) common.Hash {
	t.Helper()
	var types []map[string]string
	for _, f := range strings.Split(fields, ",") {
		typ, name, _ := strings.Cut(f, " ")
		types = append(types, map[string]string{"name": name, "type": typ})
	}
	doc, err := json.Marshal(map[string]any{
		"types": map[string]any{
			"EIP712Domain": []map[string]string{
				{"name": "name", "type": "string"}, {"name": "version", "type": "string"},
				{"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"},
			},
			primary: types,
		},
		"primaryType": primary,
		"domain": map[string]any{
			"name": domainName, "version": "1", "chainId": fmt.Sprint(chainID), "verifyingContract": verifying.Hex(),
		},
		"message": message,
	})
	if err != nil {
		t.Fatal(err)
	}
	var td apitypes.TypedData
	if err := json.Unmarshal(doc, &td); err != nil {
		t.Fatal(err)
	}
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		t.Fatalf("%s: %v", primary, err)
	}
	return common.BytesToHash(hash)
}

func hexHandles(hs [][32]byte) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = hexutil.Encode(h[:])
	}
	return out
}

func TestTheGoDigestsAreTheEIP712HashesOfTheMessagesTheSDKVerifies(t *testing.T) {
	t.Parallel()
	iv := common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	dec := common.HexToAddress("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512")
	user := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	for _, handles := range [][][32]byte{nil, {plainHandle}, {plainHandle, contracts.TestHandle(contracts.ScenarioNoResponse, "x")}} {
		for _, extra := range [][]byte{nil, {0x00}, {1, 2, 3}} {
			name := fmt.Sprintf("%d handles, extraData %x", len(handles), extra)

			want := sdkTypedData(t, "InputVerification", 1337, iv, "CiphertextVerification",
				"bytes32[] ctHandles,address userAddress,address contractAddress,uint256 contractChainId,bytes extraData",
				map[string]any{"ctHandles": hexHandles(handles), "userAddress": user.Hex(), "contractAddress": hostContract.Hex(),
					"contractChainId": "1337", "extraData": hexutil.Encode(extra)})
			if got := contracts.VerifyProofDigest(big.NewInt(1337), iv, handles, user, hostContract, big.NewInt(1337), extra); got != want {
				t.Errorf("%s: VerifyProofDigest = %s, go-ethereum's CiphertextVerification hash %s", name, got, want)
			}

			result := []byte("decrypted result")
			want = sdkTypedData(t, "Decryption", 1337, dec, "PublicDecryptVerification",
				"bytes32[] ctHandles,bytes decryptedResult,bytes extraData",
				map[string]any{"ctHandles": hexHandles(handles), "decryptedResult": hexutil.Encode(result), "extraData": hexutil.Encode(extra)})
			if got := contracts.PublicDecryptionDigest(big.NewInt(1337), dec, handles, result, extra); got != want {
				t.Errorf("%s: PublicDecryptionDigest = %s, go-ethereum's PublicDecryptVerification hash %s", name, got, want)
			}

			pk, share := []byte("user public key"), []byte("share")
			want = sdkTypedData(t, "Decryption", 1337, dec, "UserDecryptResponseVerification",
				"bytes publicKey,bytes32[] ctHandles,bytes userDecryptedShare,bytes extraData",
				map[string]any{"publicKey": hexutil.Encode(pk), "ctHandles": hexHandles(handles),
					"userDecryptedShare": hexutil.Encode(share), "extraData": hexutil.Encode(extra)})
			if got := contracts.UserDecryptionDigest(big.NewInt(1337), dec, pk, handles, share, extra); got != want {
				t.Errorf("%s: UserDecryptionDigest = %s, go-ethereum's UserDecryptResponseVerification hash %s", name, got, want)
			}
		}
	}
	// The domain separator too, on another chain id.
	td := apitypes.TypedData{
		Types: apitypes.Types{"EIP712Domain": {
			{Name: "name", Type: "string"}, {Name: "version", Type: "string"},
			{Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"},
		}},
		Domain: apitypes.TypedDataDomain{Name: "Decryption", Version: "1", ChainId: math.NewHexOrDecimal256(10900), VerifyingContract: dec.Hex()},
	}
	sep, err := td.HashStruct("EIP712Domain", td.Domain.Map())
	if err != nil {
		t.Fatal(err)
	}
	if got := contracts.DecryptionDomain(big.NewInt(10900), dec).Separator(); !bytes.Equal(got[:], sep) {
		t.Errorf("Decryption domain separator %s, go-ethereum's %x", got, sep)
	}
}

func TestEachGatewayContractReportsTheEIP712DomainItSignsUnder(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, 1, 1)
	for _, tc := range []struct {
		name string
		at   common.Address
		got  contracts.DecryptionEip712DomainOutput
	}{
		{"Decryption", e.DecryptionAt.Address(), view(e, e.DecryptionAt, e.Decryption.PackDecryptionEip712Domain(), e.Decryption.UnpackDecryptionEip712Domain)},
		{"InputVerification", e.InputVerificationAt.Address(), contracts.DecryptionEip712DomainOutput(
			view(e, e.InputVerificationAt, e.InputVerification.PackInputVerificationEip712Domain(), e.InputVerification.UnpackInputVerificationEip712Domain))},
	} {
		d := tc.got
		if d.Fields != [1]byte{0x0f} || d.Name != tc.name || d.Version != "1" || d.ChainId.Cmp(e.chainID) != 0 ||
			d.VerifyingContract != tc.at || d.Salt != [32]byte{} || len(d.Extensions) != 0 {
			t.Errorf("%s.eip712Domain() = %+v, want fields 0x0f, %q, \"1\", chain %v, %s", tc.name, d, tc.name, e.chainID, tc.at)
		}
	}
}

func TestTheHostVerifiersAnswerWhatTheSDKReadsAtCreateInstance(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 4, 3, 3)

	ivDomain := view(e, e.InputVerifierAt, e.InputVerifier.PackInputVerifierEip712Domain(), e.InputVerifier.UnpackInputVerifierEip712Domain)
	if ivDomain.Fields != [1]byte{0x0f} || ivDomain.Name != "InputVerification" || ivDomain.Version != "1" ||
		ivDomain.ChainId.Cmp(e.chainID) != 0 || ivDomain.VerifyingContract != e.InputVerificationAt.Address() ||
		ivDomain.Salt != [32]byte{} || len(ivDomain.Extensions) != 0 {
		t.Errorf("InputVerifier.eip712Domain() = %+v, want the gateway InputVerification's domain (%s)", ivDomain, e.InputVerificationAt.Address())
	}
	if ivDomain.VerifyingContract == e.InputVerifierAt.Address() {
		t.Error("the InputVerifier's domain names the InputVerifier itself; the SDK refuses that")
	}
	if got := view(e, e.InputVerifierAt, e.InputVerifier.PackGetCoprocessorSigners(), e.InputVerifier.UnpackGetCoprocessorSigners); !slices.Equal(got, contracts.SignerAddresses(e.cops)) {
		t.Errorf("getCoprocessorSigners() = %v, want the gateway's, in order: %v", got, contracts.SignerAddresses(e.cops))
	}
	majority := view(e, e.InputVerificationAt, e.InputVerification.PackMajority(), e.InputVerification.UnpackMajority)
	if got := view(e, e.InputVerifierAt, e.InputVerifier.PackGetThreshold(), e.InputVerifier.UnpackGetThreshold); got.Cmp(majority) != 0 || got.Int64() != 2 {
		t.Errorf("InputVerifier.getThreshold() = %v, want the gateway's majority %v", got, majority)
	}

	kmsDomain := view(e, e.KMSVerifierAt, e.KMSVerifier.PackKMSVerifierEip712Domain(), e.KMSVerifier.UnpackKMSVerifierEip712Domain)
	if kmsDomain.Fields != [1]byte{0x0f} || kmsDomain.Name != "Decryption" || kmsDomain.Version != "1" ||
		kmsDomain.ChainId.Cmp(e.chainID) != 0 || kmsDomain.VerifyingContract != e.DecryptionAt.Address() ||
		kmsDomain.Salt != [32]byte{} || len(kmsDomain.Extensions) != 0 {
		t.Errorf("KMSVerifier.eip712Domain() = %+v, want the gateway Decryption's domain (%s)", kmsDomain, e.DecryptionAt.Address())
	}
	if kmsDomain.VerifyingContract == e.KMSVerifierAt.Address() {
		t.Error("the KMSVerifier's domain names the KMSVerifier itself; the SDK refuses that")
	}
	gatewaySigners := view(e, e.DecryptionAt, e.Decryption.PackKmsSigners(), e.Decryption.UnpackKmsSigners)
	if got := view(e, e.KMSVerifierAt, e.KMSVerifier.PackGetKmsSigners(), e.KMSVerifier.UnpackGetKmsSigners); !slices.Equal(got, gatewaySigners) || !slices.Equal(got, contracts.SignerAddresses(e.kms)) {
		t.Errorf("getKmsSigners() = %v, want the gateway's, in order: %v", got, gatewaySigners)
	}
	threshold := view(e, e.DecryptionAt, e.Decryption.PackThreshold(), e.Decryption.UnpackThreshold)
	if got := view(e, e.KMSVerifierAt, e.KMSVerifier.PackGetThreshold(), e.KMSVerifier.UnpackGetThreshold); got.Cmp(threshold) != 0 || got.Int64() != 3 {
		t.Errorf("KMSVerifier.getThreshold() = %v, want the gateway's threshold %v", got, threshold)
	}
}

func TestPersistAllowedAnswersWhatIsAllowedAnswers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, 1, 1)
	user := crypto.PubkeyToAddress(e.user.PublicKey)
	denied := contracts.TestHandle(contracts.ScenarioNone, "denied for the user")
	e.ok(e.owner, e.ACLAt, e.ACL.PackSetDenied(denied, user, true))
	for _, h := range [][32]byte{plainHandle, denied, contracts.TestHandle(contracts.ScenarioDenied, "01"), contracts.TestHandle(contracts.ScenarioNeverReady, "02")} {
		for _, account := range []common.Address{user, hostContract} {
			allowed := view(e, e.ACLAt, e.ACL.PackIsAllowed(h, account), e.ACL.UnpackIsAllowed)
			if persist := view(e, e.ACLAt, e.ACL.PackPersistAllowed(h, account), e.ACL.UnpackPersistAllowed); persist != allowed {
				t.Errorf("handle %x, account %s: persistAllowed %v, isAllowed %v", h[:3], account, persist, allowed)
			}
		}
	}
	if view(e, e.ACLAt, e.ACL.PackPersistAllowed(denied, user), e.ACL.UnpackPersistAllowed) {
		t.Error("persistAllowed ignores an explicit denial")
	}
}

func TestACoprocessorSignatureCountsOnlyOverTheRequestsUserContractChainAndExtraData(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, 1, 3)
	user := crypto.PubkeyToAddress(e.user.PublicKey)
	other := common.HexToAddress("0x0000000000000000000000000000000000000bad")
	r := e.ok(e.user, e.InputVerificationAt, e.InputVerification.PackVerifyProofRequest(big.NewInt(1337), hostContract, user, []byte{1, 2, 3}, []byte{0x00}))
	id := events(e, r, contracts.TopicVerifyProofRequest, e.InputVerification.UnpackVerifyProofRequestEvent)[0].ZkProofId
	handles := [][32]byte{contracts.TestHandle(contracts.ScenarioNone, "input")}
	sign := func(cop int, user, contract common.Address, chain int64, extra []byte) []byte {
		return e.sign(e.cops[cop], contracts.VerifyProofDigest(e.chainID, e.InputVerificationAt.Address(), handles, user, contract, big.NewInt(chain), extra))
	}
	for name, sig := range map[string][]byte{
		"an empty extraData (not the request's 0x00)": sign(0, user, hostContract, 1337, nil),
		"another user":           sign(0, other, hostContract, 1337, []byte{0x00}),
		"another contract":       sign(0, user, other, 1337, []byte{0x00}),
		"another contract chain": sign(0, user, hostContract, 1, []byte{0x00}),
	} {
		// Sent with the extraData the signature covers, and with the request's: refused both ways.
		for _, sent := range [][]byte{nil, {0x00}} {
			if re := e.reverts(e.cops[0], e.InputVerificationAt, e.InputVerification.PackVerifyProofResponse(id, handles, sig, sent), "InvalidCoprocessorSignature"); re.Args[1] != contracts.SignerAddresses(e.cops)[0] {
				t.Errorf("a signature over %s: InvalidCoprocessorSignature(%v)", name, re.Args)
			}
		}
	}
	// The request's extraData is what is signed, whatever extraData the response carries.
	e.ok(e.cops[0], e.InputVerificationAt, e.InputVerification.PackVerifyProofResponse(id, handles, sign(0, user, hostContract, 1337, []byte{0x00}), []byte{0x42}))
	r = e.ok(e.cops[1], e.InputVerificationAt, e.InputVerification.PackVerifyProofResponse(id, handles, sign(1, user, hostContract, 1337, []byte{0x00}), nil))
	evs := events(e, r, contracts.TopicVerifyProofResponse, e.InputVerification.UnpackVerifyProofResponseEvent)
	if len(evs) != 1 || len(evs[0].Signatures) != 2 {
		t.Fatalf("verify events %+v, want one with 2 signatures", evs)
	}
	digest := contracts.VerifyProofDigest(e.chainID, e.InputVerificationAt.Address(), evs[0].CtHandles, user, hostContract, big.NewInt(1337), []byte{0x00})
	for i, sig := range evs[0].Signatures {
		if got, err := contracts.RecoverSigner(digest, sig); err != nil || got != contracts.SignerAddresses(e.cops)[i] {
			t.Errorf("signature %d recovers to %s (%v), want coprocessor %d", i, got, err, i)
		}
	}
}

func TestAKMSSignatureCountsOnlyOverTheRequestsHandlesAndTheResponsesExtraData(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 3, 2, 1)
	handles := [][32]byte{plainHandle, contracts.TestHandle(contracts.ScenarioNone, "second")}
	id := e.publicRequest(handles...) // with extraData 0x00
	result := []byte("result")
	sign := func(node int, hs [][32]byte, extra []byte) []byte {
		return e.sign(e.kms[node], contracts.PublicDecryptionDigest(e.chainID, e.DecryptionAt.Address(), hs, result, extra))
	}
	// Signed over the request's 0x00 but sent with an empty extraData, or over other handles.
	e.reverts(e.kms[0], e.DecryptionAt, e.Decryption.PackPublicDecryptionResponse(id, result, sign(0, handles, []byte{0x00}), nil), "InvalidKmsSignature")
	e.reverts(e.kms[0], e.DecryptionAt, e.Decryption.PackPublicDecryptionResponse(id, result, sign(0, handles[:1], nil), nil), "InvalidKmsSignature")
	e.reverts(e.kms[0], e.DecryptionAt, e.Decryption.PackPublicDecryptionResponse(id, result, sign(0, [][32]byte{handles[1], handles[0]}, nil), nil), "InvalidKmsSignature")

	// Signatures over different extraData are not counted together.
	e.ok(e.kms[0], e.DecryptionAt, e.Decryption.PackPublicDecryptionResponse(id, result, sign(0, handles, nil), nil))
	r := e.ok(e.kms[1], e.DecryptionAt, e.Decryption.PackPublicDecryptionResponse(id, result, sign(1, handles, []byte{1}), []byte{1}))
	if len(r.Logs) != 0 {
		t.Fatal("two signatures over different extraData completed the decryption")
	}
	r = e.ok(e.kms[2], e.DecryptionAt, e.Decryption.PackPublicDecryptionResponse(id, result, sign(2, handles, nil), nil))
	evs := events(e, r, contracts.TopicPublicDecryptionResponse, e.Decryption.UnpackPublicDecryptionResponseEvent)
	if len(evs) != 1 || len(evs[0].ExtraData) != 0 || len(evs[0].Signatures) != 2 {
		t.Fatalf("response events %+v, want one with an empty extraData and 2 signatures", evs)
	}
	// What the SDK checks: the request's handles, the result, extraData "0x".
	digest := contracts.PublicDecryptionDigest(e.chainID, e.DecryptionAt.Address(), handles, result, nil)
	for i, want := range []common.Address{contracts.SignerAddresses(e.kms)[0], contracts.SignerAddresses(e.kms)[2]} {
		if got, err := contracts.RecoverSigner(digest, evs[0].Signatures[i]); err != nil || got != want {
			t.Errorf("signature %d by %s (%v), want %s", i, got, err, want)
		}
	}
}

func TestAUserDecryptionShareSignatureCountsOnlyOverTheRequestsPublicKeyAndHandles(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, 1, 1)
	user := crypto.PubkeyToAddress(e.user.PublicKey)
	handles := [][32]byte{plainHandle}
	pairs := []contracts.DecryptionCtHandleContractPair{{CtHandle: plainHandle, ContractAddress: hostContract}}
	validity := contracts.DecryptionRequestValidity{StartTimestamp: big.NewInt(time.Now().Add(-time.Hour).Unix()), DurationDays: big.NewInt(1)}
	info := contracts.DecryptionContractsInfo{ChainId: big.NewInt(1337), Addresses: []common.Address{hostContract}}
	r := e.ok(e.user, e.DecryptionAt, e.Decryption.PackUserDecryptionRequest(pairs, validity, info, user, []byte("pk"), nil, []byte{0x00}))
	id := events(e, r, contracts.TopicUserDecryptionRequest, e.Decryption.UnpackUserDecryptionRequestEvent)[0].DecryptionId
	share := []byte("share")
	sign := func(pk []byte, hs [][32]byte, extra []byte) []byte {
		return e.sign(e.kms[0], contracts.UserDecryptionDigest(e.chainID, e.DecryptionAt.Address(), pk, hs, share, extra))
	}
	e.reverts(e.kms[0], e.DecryptionAt, e.Decryption.PackUserDecryptionResponse(id, share, sign([]byte("another pk"), handles, nil), nil), "InvalidKmsSignature")
	e.reverts(e.kms[0], e.DecryptionAt, e.Decryption.PackUserDecryptionResponse(id, share, sign([]byte("pk"), nil, nil), nil), "InvalidKmsSignature")
	e.reverts(e.kms[0], e.DecryptionAt, e.Decryption.PackUserDecryptionResponse(id, share, sign([]byte("pk"), handles, []byte{0x00}), nil), "InvalidKmsSignature")
	r = e.ok(e.kms[0], e.DecryptionAt, e.Decryption.PackUserDecryptionResponse(id, share, sign([]byte("pk"), handles, []byte{0x00}), []byte{0x00}))
	if n := len(events(e, r, contracts.TopicUserDecryptionResponseThresholdReached, e.Decryption.UnpackUserDecryptionResponseThresholdReachedEvent)); n != 1 {
		t.Fatalf("%d threshold events, want 1", n)
	}
}
