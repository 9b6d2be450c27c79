package domain

import (
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// The vectors below were made by ethers 6 (the library the public SDK signs with):
// Wallet(0x11…11).signTypedData over the SDK's domain and types, and TypedDataEncoder.hash for
// the digest. The signer is 0x19e7e376e7c213b7e7e7e46cc70a5dd086daff2a.
const (
	sigVectorSigner            = "0x19e7e376e7c213b7e7e7e46cc70a5dd086daff2a"
	sigVectorDecryption        = "0x7978B7077F80E7e76599957B10C9b124D66685a1"
	sigVectorUserDigest        = "58040aa75c54265883261c8f147058cca8173d37a910a94276954835011096b0"
	sigVectorUserSignature     = "301f70a5844f24e1818c5070a56d147d12817a0813c06831118f17d8272f53ad4813ee62e91bd32bfa8966e579c737498e7584f86e9532c87c4867b729bd4ca51b"
	sigVectorDelegDigest       = "17965b10dd89ad1dc2ab0e3d30dc12e1aca1739ea8b46a7a3a28b9f5dfe759f5"
	sigVectorDelegSignature    = "ae9a8c166d9613e1767ab7116aafa30cf75e51a123b44470b90e33c62d379d115eaa484ca25308ae2c1f1c2c2c52b5ce21cd1d58b93f24a07575c271e689c2ed1c"
	sigVectorContractA         = "0x00000000000000000000000000000000000000c0"
	sigVectorContractB         = "0x4cd8ff6d4bff60eec125ea77eedd3b5f55b40f29"
	sigVectorDelegator         = "0x00000000000000000000000000000000000000d1"
	sigVectorStart, sigVecDays = 1764115200, 10
	// The unified request (v3): UserDecryptRequestVerification(address userAddress,bytes
	// publicKey,address[] allowedContracts,uint256 startTimestamp,uint256 durationSeconds,bytes
	// extraData) over {userAddress: the signer, publicKey 0x2000000000000000abcd,
	// allowedContracts [A, B], startTimestamp sigVectorStart, durationSeconds 864000, extraData
	// 0x00}, by the same wallet under the same domain (chain 1337).
	sigVectorUnifiedDigest    = "44850eb3f38e71c84aecc9e6b2d07ea67778fa54cd1a41d7a78b0436df994c66"
	sigVectorUnifiedSignature = "d78426fd9ca2a044b51b51c1b14ed472e536a0387a369f287efb917e31aaa01b3373584adde71a0fb310a8a09ee758f16eb3e8a85b0ba4e013031e075b2dc0c01c"
)

// sigVectorHandle1337 is a handle of host chain 1337 (bytes 22..29).
var sigVectorHandle1337 = "0x" + strings.Repeat("ab", 22) + "0000000000000539" + "abab"

func sigVectorUnified() Request {
	return Request{UnifiedUserDecrypt: &UnifiedUserDecryptRequest{
		Handles:          []HandleEntry{{Handle: sigVectorHandle1337, ContractAddress: sigVectorContractA, OwnerAddress: sigVectorDelegator}},
		UserAddress:      sigVectorSigner,
		AllowedContracts: []string{sigVectorContractA, sigVectorContractB},
		StartTimestamp:   sigVectorStart,
		DurationSeconds:  sigVecDays * 86400,
		PublicKey:        "2000000000000000abcd",
		ExtraData:        "0x00",
		Signature:        sigVectorUnifiedSignature,
	}}
}

func sigVectorUser() Request {
	return Request{UserDecrypt: &UserDecryptRequest{
		HandleContractPairs: []HandleContractPair{{Handle: "0x" + strings.Repeat("ab", 32), ContractAddress: sigVectorContractA}},
		RequestValidity:     RequestValidity{StartTimestamp: sigVectorStart, DurationDays: sigVecDays},
		ContractsChainID:    1337,
		ContractAddresses:   []string{sigVectorContractA, sigVectorContractB},
		UserAddress:         sigVectorSigner,
		Signature:           sigVectorUserSignature,
		PublicKey:           "2000000000000000abcd",
		ExtraData:           "0x00",
	}}
}

func sigVectorDelegated() Request {
	return Request{DelegatedUserDecrypt: &DelegatedUserDecryptRequest{
		HandleContractPairs: []HandleContractPair{{Handle: "0x" + strings.Repeat("ab", 32), ContractAddress: sigVectorContractA}},
		ContractsChainID:    1337,
		ContractAddresses:   []string{sigVectorContractA, sigVectorContractB},
		DelegatorAddress:    sigVectorDelegator,
		DelegateAddress:     sigVectorSigner,
		StartTimestamp:      sigVectorStart,
		DurationDays:        sigVecDays,
		Signature:           sigVectorDelegSignature,
		PublicKey:           "2000000000000000abcd",
		ExtraData:           "0x00",
	}}
}

func TestSignedPartMatchesEthers(t *testing.T) {
	for _, c := range []struct {
		name        string
		req         Request
		digest      string
		signerField string
	}{
		{"user decrypt", sigVectorUser(), sigVectorUserDigest, "userAddress"},
		{"delegated user decrypt", sigVectorDelegated(), sigVectorDelegDigest, "delegateAddress"},
		{"unified user decrypt", sigVectorUnified(), sigVectorUnifiedDigest, "attestedPayload.userAddress"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sr, ok, err := SignedPart(c.req, sigVectorDecryption)
			if err != nil || !ok {
				t.Fatalf("SignedPart: ok %v, err %v", ok, err)
			}
			if got := hex.EncodeToString(sr.Digest[:]); got != c.digest {
				t.Fatalf("digest %s, ethers computes %s", got, c.digest)
			}
			if sr.Signer != sigVectorSigner || sr.SignerField != c.signerField {
				t.Fatalf("signer %s (%s), want %s (%s)", sr.Signer, sr.SignerField, sigVectorSigner, c.signerField)
			}
			got, err := RecoverSigner(sr.Digest, sr.Signature)
			if err != nil || got != sigVectorSigner {
				t.Fatalf("RecoverSigner = %s, %v; want %s", got, err, sigVectorSigner)
			}
		})
	}
}

// Every signed field changes the digest: a request edited after signing recovers another address.
func TestSignedPartCoversEveryField(t *testing.T) {
	base, _, _ := SignedPart(sigVectorUser(), sigVectorDecryption)
	edits := map[string]func(u *UserDecryptRequest){
		"publicKey":         func(u *UserDecryptRequest) { u.PublicKey = "2000000000000000abce" },
		"contractAddresses": func(u *UserDecryptRequest) { u.ContractAddresses = u.ContractAddresses[:1] },
		"contract order":    func(u *UserDecryptRequest) { u.ContractAddresses = []string{sigVectorContractB, sigVectorContractA} },
		"startTimestamp":    func(u *UserDecryptRequest) { u.RequestValidity.StartTimestamp++ },
		"durationDays":      func(u *UserDecryptRequest) { u.RequestValidity.DurationDays++ },
		"extraData":         func(u *UserDecryptRequest) { u.ExtraData = "0x01" },
		"contractsChainId":  func(u *UserDecryptRequest) { u.ContractsChainID = 1338 },
	}
	for name, edit := range edits {
		r := sigVectorUser()
		edit(r.UserDecrypt)
		sr := sigEdited(t, name, r)
		if sr.Digest == base.Digest {
			t.Errorf("changing %s leaves the digest as it was", name)
		}
		if got, err := RecoverSigner(sr.Digest, sr.Signature); err == nil && got == sigVectorSigner {
			t.Errorf("changing %s still recovers the signer", name)
		}
	}
	other, _, _ := SignedPart(sigVectorUser(), "0x63b4d5b0BE9f9293A6cA3B334c35Aa50CaD0da31")
	if other.Digest == base.Digest {
		t.Error("another verifying contract leaves the digest as it was")
	}
	d := sigVectorDelegated()
	d.DelegatedUserDecrypt.DelegatorAddress = "0x00000000000000000000000000000000000000d2"
	if sr, _, _ := SignedPart(d, sigVectorDecryption); hex.EncodeToString(sr.Digest[:]) == sigVectorDelegDigest {
		t.Error("another delegator leaves the delegated digest as it was")
	}
}

// sigEdited is SignedPart of r, a request edited as name says, under the vectors' Decryption
// contract; an error fails the test.
func sigEdited(t *testing.T, name string, r Request) SignedRequest {
	t.Helper()
	sr, _, err := SignedPart(r, sigVectorDecryption)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return sr
}

// Every signed field of a unified request changes its digest; the handles and their owners are
// not signed (the KMS checks them on the host ACL), so they leave it as it was.
func TestUnifiedSignedPartCoversEverySignedField(t *testing.T) {
	signed := map[string]func(u *UnifiedUserDecryptRequest){
		"userAddress":      func(u *UnifiedUserDecryptRequest) { u.UserAddress = sigVectorDelegator },
		"publicKey":        func(u *UnifiedUserDecryptRequest) { u.PublicKey = "2000000000000000abce" },
		"allowedContracts": func(u *UnifiedUserDecryptRequest) { u.AllowedContracts = u.AllowedContracts[:1] },
		"no contracts":     func(u *UnifiedUserDecryptRequest) { u.AllowedContracts = nil },
		"startTimestamp":   func(u *UnifiedUserDecryptRequest) { u.StartTimestamp++ },
		"durationSeconds":  func(u *UnifiedUserDecryptRequest) { u.DurationSeconds++ },
		"extraData":        func(u *UnifiedUserDecryptRequest) { u.ExtraData = "0x01" },
		"host chain": func(u *UnifiedUserDecryptRequest) {
			u.Handles[0].Handle = "0x" + strings.Repeat("ab", 22) + "0000000000000540" + "abab"
		},
	}
	for name, edit := range signed {
		r := sigVectorUnified()
		edit(r.UnifiedUserDecrypt)
		if sr := sigEdited(t, name, r); hex.EncodeToString(sr.Digest[:]) == sigVectorUnifiedDigest {
			t.Errorf("changing %s leaves the digest as it was", name)
		}
	}
	r := sigVectorUnified()
	r.UnifiedUserDecrypt.Handles[0].OwnerAddress = sigVectorSigner
	r.UnifiedUserDecrypt.Handles[0].ContractAddress = sigVectorContractB
	if sr, _, _ := SignedPart(r, sigVectorDecryption); hex.EncodeToString(sr.Digest[:]) != sigVectorUnifiedDigest {
		t.Error("a handle's owner or contract changed the digest: they are not part of the signed message")
	}
	// An empty signature (a contract wallet's) is no key's: admission asks the wallet.
	r.UnifiedUserDecrypt.Signature = ""
	sr, ok, err := SignedPart(r, sigVectorDecryption)
	if err != nil || !ok || len(sr.Signature) != 0 {
		t.Fatalf("empty signature: %+v, %v, %v", sr, ok, err)
	}
	if _, err := RecoverSigner(sr.Digest, sr.Signature); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("RecoverSigner of an empty signature: %v", err)
	}
}

func TestSignedPartOtherKinds(t *testing.T) {
	for _, r := range []Request{
		{PublicDecrypt: &PublicDecryptRequest{CiphertextHandles: []string{"0x" + strings.Repeat("ab", 32)}, ExtraData: "0x00"}},
		{InputProof: &InputProofRequest{ContractChainID: 1, ContractAddress: sigVectorContractA, UserAddress: sigVectorSigner, Ciphertext: "00", ExtraData: "0x00"}},
	} {
		if _, ok, err := SignedPart(r, sigVectorDecryption); ok || err != nil {
			t.Fatalf("%s: ok %v, err %v; it carries no user signature", r.Kind(), ok, err)
		}
	}
	if _, _, err := SignedPart(sigVectorUser(), "0x1234"); err == nil {
		t.Fatal("a malformed Decryption address was accepted")
	}
}

func TestRecoverSignerRefuses(t *testing.T) {
	digest := [32]byte{}
	hex.Decode(digest[:], []byte(sigVectorUserDigest))
	good, _ := hex.DecodeString(sigVectorUserSignature)

	// The high-s twin of a valid signature: (r, n-s, v^1) recovers the same key, but the gateway's
	// ECDSA refuses it, so it must be refused here too.
	n := secp256k1.S256().N
	s := new(big.Int).SetBytes(good[32:64])
	twin := append([]byte(nil), good...)
	new(big.Int).Sub(n, s).FillBytes(twin[32:64])
	twin[64] = 27 + (28 - good[64])

	zeroV := append([]byte(nil), good...)
	zeroV[64] -= 27
	if got, err := RecoverSigner(digest, zeroV); err != nil || got != sigVectorSigner {
		t.Fatalf("v as 0/1 (as some wallets send it): %s, %v", got, err)
	}

	badV := append([]byte(nil), good...)
	badV[64] = 29
	zeroR := append([]byte(nil), good...)
	clear(zeroR[:32])
	for name, sig := range map[string][]byte{
		"64 bytes":  good[:64],
		"66 bytes":  append(append([]byte(nil), good...), 0),
		"high s":    twin,
		"v 29":      badV,
		"r zero":    zeroR,
		"all zeros": make([]byte, 65),
	} {
		got, err := RecoverSigner(digest, sig)
		if !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: got %s, %v; want ErrBadSignature", name, got, err)
		}
	}
}

func BenchmarkSignedPartAndRecover(b *testing.B) {
	r := sigVectorUser()
	r.UserDecrypt.PublicKey = strings.Repeat("ab", 800) // an ML-KEM-512 public key's size
	b.ReportAllocs()
	for b.Loop() {
		sr, _, err := SignedPart(r, sigVectorDecryption)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := RecoverSigner(sr.Digest, sr.Signature); err != nil {
			b.Fatal(err)
		}
	}
}

// Both recoveries (libsecp256k1 with cgo, decred's in Go without) give the same key for every
// signature, and refuse the same ones.
func TestRecoveriesAgree(t *testing.T) {
	for _, c := range []struct{ digest, sig string }{
		{sigVectorUserDigest, sigVectorUserSignature},
		{sigVectorDelegDigest, sigVectorDelegSignature},
		{sigVectorUserDigest, sigVectorDelegSignature}, // another digest: another key, same in both
	} {
		var digest [32]byte
		hex.Decode(digest[:], []byte(c.digest))
		sig, _ := hex.DecodeString(c.sig)
		a, errA := recoverPubkey(digest, sig[:64], sig[64]-27)
		b, errB := recoverPubkeyPure(digest, sig[:64], sig[64]-27)
		if errA != nil || errB != nil || hex.EncodeToString(a) != hex.EncodeToString(b) {
			t.Fatalf("recoveries differ: %x, %v and %x, %v", a, errA, b, errB)
		}
	}
}

// A signature whose v is 0 or 1 is kept as 27 or 28: the gateway's ECDSA refuses the other form
// (a probe saw such a request sent on chain as given), and both forms are one request.
func TestSignaturesAreKeptWithVAs27Or28(t *testing.T) {
	body := func(v string) []byte {
		handle := "0x" + strings.Repeat("ab", 22) + "0000000000000539" + "0500" // host chain 1337
		return []byte(`{"handleContractPairs":[{"handle":"` + handle + `","contractAddress":"` + sigVectorContractA + `"}],` +
			`"requestValidity":{"startTimestamp":"1764115200","durationDays":"10"},"contractsChainId":1337,` +
			`"contractAddresses":["` + sigVectorContractA + `"],"userAddress":"` + sigVectorSigner + `",` +
			`"signature":"` + sigVectorUserSignature[:128] + v + `","publicKey":"2000000000000000abcd","extraData":"0x00"}`)
	}
	cfg := ValidationConfig{HostChainIDs: []uint64{1337}}
	var hashes []string
	for _, c := range []struct{ in, want string }{{"1b", "1b"}, {"00", "1b"}, {"1c", "1c"}, {"01", "1c"}} {
		r, err := ParseRequest(UserDecrypt, body(c.in), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.UserDecrypt.Signature[128:]; got != c.want {
			t.Fatalf("v %s is kept as %s, want %s", c.in, got, c.want)
		}
		hashes = append(hashes, ContentHash(r))
	}
	if hashes[0] != hashes[1] || hashes[2] != hashes[3] || hashes[0] == hashes[2] {
		t.Fatal("the two forms of one signature are not one request")
	}
}
