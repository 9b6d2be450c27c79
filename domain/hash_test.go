package domain

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// Fixtures, prefixed ht so they cannot collide with other test files of the package. They are
// normalized payloads, as the Parse functions return them.

func htInputProof() InputProofRequest {
	return InputProofRequest{
		ContractChainID: 1337,
		ContractAddress: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
		UserAddress:     "0xdbf03b407c01e7cd3cbea99509d93f8dddc8c6fb",
		Ciphertext:      "0abcdef1",
		ExtraData:       "0x00",
	}
}

func htPublicDecrypt() PublicDecryptRequest {
	return PublicDecryptRequest{
		CiphertextHandles: []string{
			"0x" + strings.Repeat("11", 22) + "0000000000000539" + "0500",
			"0x" + strings.Repeat("22", 22) + "0000000000001f49" + "0500",
		},
		ExtraData: "0x00",
	}
}

func htUserDecrypt() UserDecryptRequest {
	return UserDecryptRequest{
		HandleContractPairs: []HandleContractPair{
			{"0x" + strings.Repeat("11", 22) + "0000000000000539" + "0500", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"},
			{"0x" + strings.Repeat("22", 22) + "0000000000000539" + "0500", "0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359"},
		},
		RequestValidity:   RequestValidity{StartTimestamp: 1700000000, DurationDays: 10},
		ContractsChainID:  1337,
		ContractAddresses: []string{"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", "0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359"},
		UserAddress:       "0xdbf03b407c01e7cd3cbea99509d93f8dddc8c6fb",
		Signature:         strings.Repeat("ab", 65),
		PublicKey:         "2000000000000000" + strings.Repeat("cd", 40),
		ExtraData:         "0x00",
	}
}

func htHashIP(r InputProofRequest) string    { return ContentHash(Request{InputProof: &r}) }
func htHashPD(r PublicDecryptRequest) string { return ContentHash(Request{PublicDecrypt: &r}) }
func htHashUD(r UserDecryptRequest) string   { return ContentHash(Request{UserDecrypt: &r}) }

// The golden values pin the v1 encoding: if one changes, the encoding changed, and with it the
// meaning of every content hash already recorded. Bump contentHashVersion instead. (The values
// were also reproduced outside Go, from ContentHash's documentation alone.)
func TestContentHashGoldenValues(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"the input proof fixture has its pinned v1 hash", htHashIP(htInputProof()),
			"5d5c62bd41d5074693069b71caa225694940a66a83f19850ea13469bc84a4ee0"},
		{"the public decrypt fixture has its pinned v1 hash", htHashPD(htPublicDecrypt()),
			"b21ffabab12d16393274c7874dd771d077a309a52281b63ab4fda7a6262da97e"},
		// v2: the signature and the validity window joined the preimage (reproduced in Python
		// from ContentHash's documentation).
		{"the user decrypt fixture has its pinned v2 hash", htHashUD(htUserDecrypt()),
			"cfe6735c6b67497d9cc50c6ee8272182f4f5588766f34124c883d6b572a6f367"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Fatalf("content hash %s, want %s", tt.got, tt.want)
			}
		})
	}
}

func TestContentHashIsLowercaseHexSHA256(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{64}$`)
	for _, h := range []string{htHashIP(htInputProof()), htHashPD(htPublicDecrypt()), htHashUD(htUserDecrypt())} {
		if !re.MatchString(h) {
			t.Fatalf("content hash %q is not 64 lowercase hex digits", h)
		}
	}
}

func TestContentHashOfEqualRequestsIsEqual(t *testing.T) {
	if htHashIP(htInputProof()) != htHashIP(htInputProof()) ||
		htHashPD(htPublicDecrypt()) != htHashPD(htPublicDecrypt()) ||
		htHashUD(htUserDecrypt()) != htHashUD(htUserDecrypt()) {
		t.Fatal("equal requests hash differently")
	}
}

// Bodies that differ only in how they write the same request parse to the same payload and so
// hash the same.
func TestContentHashOfBodiesWritingTheSameRequestDifferentlyIsEqual(t *testing.T) {
	parseHash := func(t *testing.T, k Kind, m map[string]any) string {
		t.Helper()
		body, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ParseRequest(k, body, vtConfig)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		return ContentHash(r)
	}
	tests := []struct {
		name string
		kind Kind
		base func() map[string]any
		edit func(m map[string]any)
	}{
		{"addresses in lowercase hash as their checksummed form", InputProof, vtInputProofFields, func(m map[string]any) {
			m["contractAddress"] = strings.ToLower(vtContract)
			m["userAddress"] = "0x" + strings.ToUpper(vtUser[2:])
		}},
		{"a chain id as a string hashes as the number", InputProof, vtInputProofFields, func(m map[string]any) {
			m["contractChainId"] = "1337"
		}},
		{"a ciphertext in upper case hashes as in lower case", InputProof, vtInputProofFields, func(m map[string]any) {
			m["ciphertextWithInputVerification"] = "0ABCDEF1"
		}},
		{"handles in lowercase hash as in upper case", PublicDecrypt, vtPublicDecryptFields, func(m map[string]any) {
			m["ciphertextHandles"] = []any{strings.ToLower(vtHandle(1337, 0xa0)), strings.ToLower(vtHandle(8009, 0x10))}
		}},
		{"a user decrypt written in other cases hashes the same", UserDecrypt, vtUserDecryptFields, func(m map[string]any) {
			m["contractsChainId"] = "1337"
			m["contractAddresses"] = []any{strings.ToLower(vtContract), strings.ToLower(vtOther)}
			vtPair(m, 0)["handle"] = strings.ToLower(vtHandle(1337, 0xa0))
			m["userAddress"] = strings.ToLower(vtUser)
			m["publicKey"] = strings.ToUpper(vtPublicKey)
			m["extraData"] = "0x00"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.base()
			tt.edit(m)
			if a, b := parseHash(t, tt.kind, tt.base()), parseHash(t, tt.kind, m); a != b {
				t.Fatalf("hashes differ: %s vs %s", a, b)
			}
		})
	}
}

func TestContentHashChangesWithEveryDefiningField(t *testing.T) {
	htEditsChangeHash(t, htInputProof, htHashIP, []htEdit[InputProofRequest]{
		{"changing an input proof's chain id changes its hash", func(r *InputProofRequest) { r.ContractChainID = 8009 }},
		{"changing an input proof's contract changes its hash", func(r *InputProofRequest) { r.ContractAddress = vtCapsLower }},
		{"changing an input proof's user changes its hash", func(r *InputProofRequest) { r.UserAddress = vtCapsLower }},
		{"changing an input proof's ciphertext changes its hash", func(r *InputProofRequest) { r.Ciphertext = "0abcdef2" }},
		{"changing an input proof's extraData changes its hash", func(r *InputProofRequest) { r.ExtraData = "0x01" }},
		{"swapping an input proof's contract and user changes its hash", func(r *InputProofRequest) {
			r.ContractAddress, r.UserAddress = r.UserAddress, r.ContractAddress
		}},
	})
	htEditsChangeHash(t, htPublicDecrypt, htHashPD, []htEdit[PublicDecryptRequest]{
		{"changing a public decrypt's handle changes its hash", func(r *PublicDecryptRequest) {
			r.CiphertextHandles[1] = strings.Replace(r.CiphertextHandles[1], "22", "23", 1)
		}},
		{"reordering a public decrypt's handles changes its hash", func(r *PublicDecryptRequest) {
			h := r.CiphertextHandles
			h[0], h[1] = h[1], h[0]
		}},
		{"adding a handle to a public decrypt changes its hash", func(r *PublicDecryptRequest) {
			r.CiphertextHandles = append(r.CiphertextHandles, r.CiphertextHandles[0])
		}},
		{"dropping a handle from a public decrypt changes its hash", func(r *PublicDecryptRequest) {
			r.CiphertextHandles = r.CiphertextHandles[:1]
		}},
		{"changing a public decrypt's extraData changes its hash", func(r *PublicDecryptRequest) { r.ExtraData = "0x0000" }},
	})
	htEditsChangeHash(t, htUserDecrypt, htHashUD, []htEdit[UserDecryptRequest]{
		{"changing a user decrypt's handle changes its hash", func(r *UserDecryptRequest) {
			r.HandleContractPairs[0].Handle = strings.Replace(r.HandleContractPairs[0].Handle, "11", "12", 1)
		}},
		{"changing a pair's contract changes its hash", func(r *UserDecryptRequest) {
			r.HandleContractPairs[0].ContractAddress = r.ContractAddresses[1]
		}},
		{"reordering the pairs changes its hash", func(r *UserDecryptRequest) {
			p := r.HandleContractPairs
			p[0], p[1] = p[1], p[0]
		}},
		{"dropping a pair changes its hash", func(r *UserDecryptRequest) {
			r.HandleContractPairs = r.HandleContractPairs[:1]
		}},
		{"changing contractsChainId changes its hash", func(r *UserDecryptRequest) { r.ContractsChainID = 8009 }},
		{"changing a listed contract changes its hash", func(r *UserDecryptRequest) { r.ContractAddresses[1] = vtCapsLower }},
		{"listing one more contract changes its hash", func(r *UserDecryptRequest) {
			r.ContractAddresses = append(r.ContractAddresses, vtCapsLower)
		}},
		{"reordering the listed contracts changes its hash", func(r *UserDecryptRequest) {
			a := r.ContractAddresses
			a[0], a[1] = a[1], a[0]
		}},
		{"changing the user changes its hash", func(r *UserDecryptRequest) { r.UserAddress = vtCapsLower }},
		{"changing the public key changes its hash", func(r *UserDecryptRequest) { r.PublicKey += "00" }},
		{"changing a user decrypt's extraData changes its hash", func(r *UserDecryptRequest) { r.ExtraData = "0x01" }},
	})
}

// A user decrypt that differs in its signature or its validity window is another request: a
// forged copy submitted first must not capture the genuine request's job (issue: dedup hijack).
func TestContentHashCoversTheSignatureAndTheValidityWindow(t *testing.T) {
	htEditsChangeHash(t, htUserDecrypt, htHashUD, []htEdit[UserDecryptRequest]{
		{"a user decrypt with another signature is another request", func(r *UserDecryptRequest) { r.Signature = strings.Repeat("cd", 65) }},
		{"a user decrypt with another start is another request", func(r *UserDecryptRequest) { r.RequestValidity.StartTimestamp++ }},
		{"a user decrypt with another duration is another request", func(r *UserDecryptRequest) { r.RequestValidity.DurationDays = 365 }},
	})
}

// htEdit is a change to a request of type T that must change its content hash.
type htEdit[T any] struct {
	name string
	edit func(r *T)
}

// htEditsChangeHash checks that each edit, made to a fresh fixture, gives a content hash (by
// hash) other than the fixture's.
func htEditsChangeHash[T any](t *testing.T, fixture func() T, hash func(T) string, edits []htEdit[T]) {
	t.Helper()
	base := hash(fixture())
	for _, tt := range edits {
		t.Run(tt.name, func(t *testing.T) {
			r := fixture()
			tt.edit(&r)
			if hash(r) == base {
				t.Fatal("hash unchanged")
			}
		})
	}
}

// htPreimage is the encoding ContentHash hashes.
func htPreimage(t *testing.T, r Request) []byte {
	t.Helper()
	var buf bytes.Buffer
	if !writeContentPreimage(&buf, r) {
		t.Fatal("no preimage")
	}
	return buf.Bytes()
}

// htHeaderLen is the length of the version and kind fields that open a preimage.
func htHeaderLen(k Kind) int { return 8 + len(contentHashVersion) + 8 + len(k.String()) }

func TestContentHashSeparatesKindsWhoseFieldsEncodeTheSame(t *testing.T) {
	// An input proof's five fields and a public decrypt of three handles encode to the very same
	// bytes when the chain id equals the handle count and the strings line up: only the kind
	// tag tells them apart.
	h := htPublicDecrypt().CiphertextHandles
	pd := PublicDecryptRequest{CiphertextHandles: []string{h[0], h[1], h[0]}, ExtraData: "0x00"}
	ip := InputProofRequest{ContractChainID: 3, ContractAddress: h[0], UserAddress: h[1], Ciphertext: h[0], ExtraData: "0x00"}
	pre1 := htPreimage(t, Request{PublicDecrypt: &pd})
	pre2 := htPreimage(t, Request{InputProof: &ip})
	if !bytes.Equal(pre1[htHeaderLen(PublicDecrypt):], pre2[htHeaderLen(InputProof):]) {
		t.Fatal("the fixture no longer makes the fields coincide; the test proves nothing")
	}
	if htHashPD(pd) == htHashIP(ip) {
		t.Fatal("two kinds with coincident field bytes hash the same")
	}
}

func TestContentHashFieldBoundariesAreUnambiguous(t *testing.T) {
	t.Run("moving characters between adjacent fields changes the hash", func(t *testing.T) {
		a := InputProofRequest{ContractChainID: 1, ContractAddress: "0xab", UserAddress: "cd", Ciphertext: "ef", ExtraData: "0x00"}
		b := a
		b.ContractAddress, b.UserAddress = "0xabc", "d"
		if htHashIP(a) == htHashIP(b) {
			t.Fatal("hash unchanged")
		}
	})
	t.Run("splitting one handle into two changes the hash", func(t *testing.T) {
		a := PublicDecryptRequest{CiphertextHandles: []string{"0xaabb"}, ExtraData: "0x00"}
		b := PublicDecryptRequest{CiphertextHandles: []string{"0xaa", "bb"}, ExtraData: "0x00"}
		if htHashPD(a) == htHashPD(b) {
			t.Fatal("hash unchanged")
		}
	})
	t.Run("moving a contract from the pairs to the list changes the hash", func(t *testing.T) {
		a := htUserDecrypt()
		b := htUserDecrypt()
		b.HandleContractPairs = b.HandleContractPairs[:1]
		b.ContractAddresses = append([]string{a.HandleContractPairs[1].Handle, a.HandleContractPairs[1].ContractAddress}, b.ContractAddresses...)
		if htHashUD(a) == htHashUD(b) {
			t.Fatal("hash unchanged")
		}
	})
}

func TestContentHashOfARequestWithoutExactlyOnePayloadIsEmpty(t *testing.T) {
	ip, pd := htInputProof(), htPublicDecrypt()
	if h := ContentHash(Request{}); h != "" {
		t.Fatalf("empty request hashed to %s", h)
	}
	if h := ContentHash(Request{InputProof: &ip, PublicDecrypt: &pd}); h != "" {
		t.Fatalf("request with two payloads hashed to %s", h)
	}
}
