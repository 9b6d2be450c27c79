package domain

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Fixtures. Helpers are prefixed vt so they cannot collide with other test files of the package.

var vtConfig = ValidationConfig{HostChainIDs: []uint64{1337, 8009}}

const (
	// EIP-55 checksummed addresses (from the EIP's own vectors).
	vtContract = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
	vtOther    = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"
	vtUser     = "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB"
	vtDelegate = "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"
	// An all-caps address whose checksum is all caps, and its lowercase form.
	vtCapsAddress  = "0x52908400098527886E0F7030069857D2E4169EE7"
	vtCapsLower    = "0x52908400098527886e0f7030069857d2e4169ee7"
	vtMaxUint64    = "18446744073709551615"
	vtOverUint64   = "18446744073709551616"
	vtWrongSumAddr = "0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" // vtContract with one letter's case flipped
)

var (
	vtSignature = strings.Repeat("aB", 65)
	vtPublicKey = "2000000000000000" + strings.Repeat("Cd", 40)
)

// vtHandle builds a handle of the given host chain: bytes 0-21 from seed, 22-29 the chain,
// 30 an FHE type, 31 the version. Its hex has letters in upper case, to check normalization.
func vtHandle(chain uint64, seed byte) string {
	var b [32]byte
	for i := 0; i < 22; i++ {
		b[i] = seed + byte(i)*7
	}
	binary.BigEndian.PutUint64(b[22:30], chain)
	b[30] = 0x05
	return "0x" + strings.ToUpper(hex.EncodeToString(b[:]))
}

func vtInputProofFields() map[string]any {
	return map[string]any{
		"contractChainId":                 1337,
		"contractAddress":                 vtContract,
		"userAddress":                     vtUser,
		"ciphertextWithInputVerification": "0aBcDeF1",
		"extraData":                       "0x00",
	}
}

func vtPublicDecryptFields() map[string]any {
	return map[string]any{
		"ciphertextHandles": []any{vtHandle(1337, 0xa0), vtHandle(8009, 0x10)},
		"extraData":         "0x00",
	}
}

func vtUserDecryptFields() map[string]any {
	return map[string]any{
		"handleContractPairs": []any{
			map[string]any{"handle": vtHandle(1337, 0xa0), "contractAddress": vtContract},
			map[string]any{"handle": vtHandle(1337, 0x10), "contractAddress": vtOther},
		},
		"requestValidity":   map[string]any{"startTimestamp": "1700000000", "durationDays": "10"},
		"contractsChainId":  1337,
		"contractAddresses": []any{vtContract, vtOther},
		"userAddress":       vtUser,
		"signature":         vtSignature,
		"publicKey":         vtPublicKey,
		"extraData":         "0x00",
	}
}

func vtDelegatedFields() map[string]any {
	m := vtUserDecryptFields()
	delete(m, "requestValidity")
	delete(m, "userAddress")
	m["delegatorAddress"] = vtUser
	m["delegateAddress"] = vtDelegate
	m["startTimestamp"] = "1700000000"
	m["durationDays"] = "10"
	return m
}

// vtPairs returns the user decrypt body's pairs for editing.
func vtPairs(m map[string]any) []any { return m["handleContractPairs"].([]any) }

func vtPair(m map[string]any, i int) map[string]any { return vtPairs(m)[i].(map[string]any) }

func vtValidity(m map[string]any) map[string]any { return m["requestValidity"].(map[string]any) }

func vtAddrList(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("0x%040x", i+1)
	}
	return out
}

// vtTypedHandles is n distinct handles of host chain 1337 and FHE type typ.
func vtTypedHandles(n int, typ byte) []any {
	out := make([]any, n)
	for i := range out {
		b, _ := hex.DecodeString(strings.TrimPrefix(vtHandle(1337, byte(i)), "0x"))
		b[30] = typ
		out[i] = "0x" + hex.EncodeToString(b)
	}
	return out
}

func vtHandleList(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = vtHandle(1337, byte(i))
	}
	return out
}

// vtCase is one body and what parsing it must give.
type vtCase[T any] struct {
	name string
	// edit changes a valid body; raw, if set, is the body instead.
	edit func(m map[string]any)
	raw  string
	cfg  *ValidationConfig
	// label is "" for a body that must be accepted.
	label string
	// want are the details, in order: Field exactly, Issue as a substring.
	want []FieldIssue
	// message, if set, must be a substring of the error's Message.
	message string
	check   func(t *testing.T, got T)
}

func vtIssue(field, issue string) FieldIssue { return FieldIssue{field, issue} }

func vtRun[T any](t *testing.T, base func() map[string]any, parse func([]byte, ValidationConfig) (T, error), cases []vtCase[T]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.raw)
			if tc.raw == "" {
				m := base()
				if tc.edit != nil {
					tc.edit(m)
				}
				var err error
				if body, err = json.Marshal(m); err != nil {
					t.Fatalf("building the body: %v", err)
				}
			}
			cfg := vtConfig
			if tc.cfg != nil {
				cfg = *tc.cfg
			}
			got, err := parse(body, cfg)
			if tc.label == "" {
				if err != nil {
					t.Fatalf("body %s: want it accepted, got %v", body, err)
				}
				if tc.check != nil {
					tc.check(t, got)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("body %s: want a *ValidationError labelled %s, got %T %v", body, tc.label, err, err)
			}
			if ve.Label != tc.label {
				t.Fatalf("body %s: label %s, want %s (error: %v)", body, ve.Label, tc.label, ve)
			}
			if tc.message != "" && !strings.Contains(ve.Message, tc.message) {
				t.Errorf("message %q does not contain %q", ve.Message, tc.message)
			}
			if len(ve.Details) != len(tc.want) {
				t.Fatalf("got %d details %+v, want %d %+v", len(ve.Details), ve.Details, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				d := ve.Details[i]
				if d.Field != w.Field || !strings.Contains(d.Issue, w.Issue) {
					t.Errorf("detail %d = {%s: %s}, want {%s: ...%s...}", i, d.Field, d.Issue, w.Field, w.Issue)
				}
			}
			if reflect.ValueOf(got).IsZero() == false {
				t.Errorf("a refused body returned a non-zero payload %+v", got)
			}
		})
	}
}

func TestParseInputProof(t *testing.T) {
	smallCiphertext := ValidationConfig{HostChainIDs: []uint64{1337}, MaxCiphertextBytes: 4}
	smallExtra := ValidationConfig{HostChainIDs: []uint64{1337}, MaxExtraDataBytes: 2}
	maxChain := ValidationConfig{HostChainIDs: []uint64{18446744073709551615}}
	chainIs := func(want uint64) func(*testing.T, InputProofRequest) {
		return func(t *testing.T, got InputProofRequest) {
			if got.ContractChainID != want {
				t.Fatalf("contractChainId = %d, want %d", got.ContractChainID, want)
			}
		}
	}
	set := func(k string, v any) func(map[string]any) { return func(m map[string]any) { m[k] = v } }
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }

	vtRun(t, vtInputProofFields, ParseInputProof, []vtCase[InputProofRequest]{
		{name: "a valid body is accepted and normalized to lowercase", check: func(t *testing.T, got InputProofRequest) {
			want := InputProofRequest{
				ContractChainID: 1337,
				ContractAddress: strings.ToLower(vtContract),
				UserAddress:     strings.ToLower(vtUser),
				Ciphertext:      "0abcdef1",
				ExtraData:       "0x00",
			}
			if got != want {
				t.Fatalf("got %+v, want %+v", got, want)
			}
		}},
		{name: "the chain id may be a JSON number", edit: set("contractChainId", 8009), check: chainIs(8009)},
		{name: "the chain id may be a decimal string", edit: set("contractChainId", "8009"), check: chainIs(8009)},
		{name: "the chain id may be a hex string, as the public SDK sends it", edit: set("contractChainId", "0x539"), check: chainIs(1337)},
		{name: "a hex chain id may use upper-case digits", edit: set("contractChainId", "0X1F49"), check: chainIs(8009)},
		{name: "the largest hex chain id is read", cfg: &maxChain, edit: set("contractChainId", "0xffffffffffffffff"), check: chainIs(18446744073709551615)},
		{name: "a hex chain id beyond 64 bits is refused", edit: set("contractChainId", "0x10000000000000000"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "must fit in 64 bits")}},
		{name: "a hex chain id without digits is refused", edit: set("contractChainId", "0x"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "must have hex digits after 0x")}},
		{name: "a hex chain id with a non-hex digit is refused", edit: set("contractChainId", "0x53g"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "must contain only hex digits after 0x")}},
		{name: "a hex chain id with leading zeros is read, as the reference relayer reads it", edit: set("contractChainId", "0x0539"), check: chainIs(1337)},
		{name: "a hex chain id padded past 16 digits with zeros is read", cfg: &maxChain, edit: set("contractChainId", "0x0000ffffffffffffffff"), check: chainIs(18446744073709551615)},
		{name: "a hex chain id of zeros only is refused", edit: set("contractChainId", "0x000"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "must be greater than 0")}},
		{name: "a hex chain id of zero is refused", edit: set("contractChainId", "0x0"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "must be greater than 0")}},
		{name: "the largest uint64 chain id is accepted as a number", cfg: &maxChain,
			edit: set("contractChainId", raw(vtMaxUint64)), check: chainIs(18446744073709551615)},
		{name: "the largest uint64 chain id is accepted as a string", cfg: &maxChain,
			edit: set("contractChainId", vtMaxUint64), check: chainIs(18446744073709551615)},
		{name: "a chain id with a fraction is refused", edit: set("contractChainId", raw("1337.0")),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "without a fraction or an exponent")}},
		{name: "a chain id with an exponent is refused", edit: set("contractChainId", raw("1.337e3")),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "without a fraction or an exponent")}},
		{name: "a chain id string with an exponent is refused", edit: set("contractChainId", "1337e0"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "without a fraction or an exponent")}},
		{name: "a negative chain id is refused", edit: set("contractChainId", -1337),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "must not be negative")}},
		{name: "a negative chain id string is refused", edit: set("contractChainId", "-1337"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "must not be negative")}},
		{name: "a chain id of zero is refused", edit: set("contractChainId", 0),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "must be greater than 0")}},
		{name: "a chain id string of zero is refused", edit: set("contractChainId", "0"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "must be greater than 0")}},
		{name: "a chain id string with a leading plus is refused", edit: set("contractChainId", "+1337"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "must not have a + sign")}},
		{name: "a chain id string with leading zeros is read, as the reference relayer reads it", edit: set("contractChainId", "01337"), check: chainIs(1337)},
		{name: "a chain id number past uint64 is refused", edit: set("contractChainId", raw(vtOverUint64)),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "must fit in 64 bits")}},
		{name: "a chain id string past uint64 is refused", edit: set("contractChainId", vtOverUint64),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "must fit in 64 bits")}},
		{name: "an empty chain id string is refused", edit: set("contractChainId", ""),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "must not be empty")}},
		{name: "a chain id string with spaces is refused", edit: set("contractChainId", " 1337"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "only decimal digits")}},
		{name: "a boolean chain id is refused", edit: set("contractChainId", true),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractChainId", "must be a number, a decimal string or a 0x-prefixed hex string, not a boolean")}},
		{name: "a chain id that is not a configured host chain is refused", edit: set("contractChainId", 5),
			label: LabelHostChainIDNotSupported, message: "host chain",
			want: []FieldIssue{vtIssue("contractChainId", "chain 5 is not a configured host chain (configured: 1337, 8009)")}},

		{name: "an all-lowercase address is accepted", edit: set("userAddress", strings.ToLower(vtUser)),
			check: func(t *testing.T, got InputProofRequest) {
				if got.UserAddress != strings.ToLower(vtUser) {
					t.Fatalf("userAddress = %s", got.UserAddress)
				}
			}},
		{name: "an all-uppercase address is accepted and lowercased", edit: set("contractAddress", vtCapsAddress),
			check: func(t *testing.T, got InputProofRequest) {
				if got.ContractAddress != vtCapsLower {
					t.Fatalf("contractAddress = %s, want %s", got.ContractAddress, vtCapsLower)
				}
			}},
		{name: "an all-uppercase address that is not its own checksum is still accepted",
			edit: set("userAddress", "0x"+strings.ToUpper(vtUser[2:])),
			check: func(t *testing.T, got InputProofRequest) {
				if got.UserAddress != strings.ToLower(vtUser) {
					t.Fatalf("userAddress = %s", got.UserAddress)
				}
			}},
		{name: "a mixed-case address with a wrong checksum is refused", edit: set("contractAddress", vtWrongSumAddr),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractAddress", "not a valid EIP-55 checksum")}},
		{name: "an address without 0x is refused", edit: set("userAddress", vtUser[2:]),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("userAddress", "must be 0x followed by 40 hex digits")}},
		{name: "an address with an uppercase 0X is refused", edit: set("userAddress", "0X"+vtUser[2:]),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("userAddress", "must be 0x followed by 40 hex digits")}},
		{name: "a short address is refused", edit: set("userAddress", vtUser[:41]),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("userAddress", "must be 0x followed by 40 hex digits")}},
		{name: "a long address is refused", edit: set("userAddress", vtUser+"0"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("userAddress", "must be 0x followed by 40 hex digits")}},
		{name: "an address with a non-hex digit is refused", edit: set("userAddress", "0x"+strings.Repeat("g", 40)),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("userAddress", "must be 0x followed by 40 hex digits")}},
		{name: "an address that is a number is refused", edit: set("userAddress", 12),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("userAddress", "must be a string, not a number")}},

		{name: "the ciphertext is lowercased", edit: set("ciphertextWithInputVerification", "ABCDEF"),
			check: func(t *testing.T, got InputProofRequest) {
				if got.Ciphertext != "abcdef" {
					t.Fatalf("ciphertext = %s", got.Ciphertext)
				}
			}},
		{name: "a ciphertext at the size limit is accepted", cfg: &smallCiphertext,
			edit: set("ciphertextWithInputVerification", "01020304"), check: func(*testing.T, InputProofRequest) {}},
		{name: "a ciphertext over the size limit is refused", cfg: &smallCiphertext,
			edit:  set("ciphertextWithInputVerification", "0102030405"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextWithInputVerification", "must be at most 4 bytes (has 5)")}},
		{name: "a ciphertext with 0x is refused", edit: set("ciphertextWithInputVerification", "0xabcd"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextWithInputVerification", "without a 0x prefix")}},
		{name: "an empty ciphertext is refused", edit: set("ciphertextWithInputVerification", ""),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextWithInputVerification", "must not be empty")}},
		{name: "a ciphertext of odd length is refused", edit: set("ciphertextWithInputVerification", "abc"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextWithInputVerification", "even number of hex digits")}},
		{name: "a ciphertext with a non-hex digit is refused", edit: set("ciphertextWithInputVerification", "abcz"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextWithInputVerification", "only hex digits")}},

		{name: "an input proof's extraData other than 0x00 is refused", edit: set("extraData", "0x01AbCd"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("extraData", `must be "0x00" for an input proof`)}},
		{name: "an input proof's extraData of a decryption's version 0x01 is refused", edit: set("extraData", vtExtraV1),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("extraData", `must be "0x00" for an input proof`)}},
		{name: "extraData without 0x is refused", edit: set("extraData", "00"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("extraData", `must be 0x-prefixed hex, such as "0x00"`)}},
		{name: "extraData of just 0x is refused", edit: set("extraData", "0x"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("extraData", "at least one byte")}},
		{name: "extraData of odd length is refused", edit: set("extraData", "0x000"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("extraData", "even number of hex digits")}},
		{name: "extraData with a non-hex digit is refused", edit: set("extraData", "0x0g"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("extraData", "only hex digits after 0x")}},
		{name: "extraData over the size limit is refused", cfg: &smallExtra, edit: set("extraData", "0x000102"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("extraData", "must be at most 2 bytes (has 3)")}},
		{name: "extraData that is a number is refused", edit: set("extraData", 0),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("extraData", "must be a string, not a number")}},

		{name: "a missing field is reported as missing", edit: func(m map[string]any) { delete(m, "userAddress") },
			label: LabelMissingFields, message: "missing 1 required field",
			want: []FieldIssue{vtIssue("userAddress", "is required")}},
		{name: "a null field counts as missing", edit: set("extraData", nil),
			label: LabelMissingFields, want: []FieldIssue{vtIssue("extraData", "is required")}},
		{name: "an empty object is missing every field in schema order", raw: `{}`,
			label: LabelMissingFields, message: "missing 5 required fields", want: []FieldIssue{
				vtIssue("contractChainId", "is required"),
				vtIssue("contractAddress", "is required"),
				vtIssue("userAddress", "is required"),
				vtIssue("ciphertextWithInputVerification", "is required"),
				vtIssue("extraData", "is required"),
			}},
		{name: "missing fields take precedence over invalid ones",
			edit:  func(m map[string]any) { delete(m, "extraData"); m["userAddress"] = "nope"; m["bogus"] = 1 },
			label: LabelMissingFields, want: []FieldIssue{vtIssue("extraData", "is required")}},
		{name: "an unknown field is refused by name", edit: set("gasLimit", 1),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("gasLimit", "is not a known field")}},
		{name: "field names are case-sensitive", edit: func(m map[string]any) { m["UserAddress"] = m["userAddress"]; delete(m, "userAddress") },
			label: LabelMissingFields, want: []FieldIssue{vtIssue("userAddress", "is required")}},
		{name: "a field given twice is refused",
			raw:   `{"contractChainId":1337,"contractAddress":"` + vtContract + `","userAddress":"` + vtUser + `","userAddress":"` + vtUser + `","ciphertextWithInputVerification":"00","extraData":"0x00"}`,
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("userAddress", "appears more than once")}},
		{name: "every problem is reported, in field order, unknown fields last",
			edit: func(m map[string]any) {
				m["zzz"] = true
				m["aaa"] = true
				m["contractChainId"] = "x"
				m["userAddress"] = "0x12"
				m["ciphertextWithInputVerification"] = "0x"
				m["extraData"] = "00"
			},
			label: LabelValidationFailed, message: "6 problems", want: []FieldIssue{
				vtIssue("contractChainId", "only decimal digits"),
				vtIssue("userAddress", "40 hex digits"),
				vtIssue("ciphertextWithInputVerification", "without a 0x prefix"),
				vtIssue("extraData", "0x-prefixed"),
				vtIssue("aaa", "is not a known field (known fields: contractChainId, contractAddress"),
				vtIssue("zzz", "is not a known field"),
			}},
		{name: "an unconfigured host chain is reported only when nothing else is wrong",
			edit:  func(m map[string]any) { m["contractChainId"] = 5; m["userAddress"] = "0x12" },
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("userAddress", "40 hex digits")}},

		{name: "an empty body is malformed", raw: " ", label: LabelMalformedJSON, message: "empty"},
		{name: "a truncated body is malformed", raw: `{"contractChainId": 1337,`, label: LabelMalformedJSON, message: "not valid JSON"},
		{name: "a body that is not JSON is malformed", raw: `contractChainId=1337`, label: LabelMalformedJSON, message: "at byte"},
		{name: "a body with trailing data is malformed", raw: `{} {}`, label: LabelMalformedJSON},
		{name: "a JSON array body is malformed", raw: `[{"contractChainId":1337}]`, label: LabelMalformedJSON, message: "must be a JSON object, not an array"},
		{name: "a JSON null body is malformed", raw: `null`, label: LabelMalformedJSON, message: "not null"},
		{name: "a JSON string body is malformed", raw: `"{}"`, label: LabelMalformedJSON, message: "not a string"},
	})
}

func TestParsePublicDecrypt(t *testing.T) {
	two := ValidationConfig{HostChainIDs: []uint64{1337, 8009}, MaxHandles: 2}
	set := func(k string, v any) func(map[string]any) { return func(m map[string]any) { m[k] = v } }
	setHandle := func(i int, v any) func(map[string]any) {
		return func(m map[string]any) { m["ciphertextHandles"].([]any)[i] = v }
	}
	vtRun(t, vtPublicDecryptFields, ParsePublicDecrypt, []vtCase[PublicDecryptRequest]{
		{name: "a handle given twice is refused", edit: setHandle(1, vtHandle(1337, 0xa0)),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextHandles[1]", "repeats ciphertextHandles[0]")}},
		// The gateway decrypts at most 2,048 bits at once, and only the FHE types it knows
		// (found by a review: the count of handles alone let 8,192 bits through).
		{name: "eight euint256 handles, 2048 bits, are accepted", edit: set("ciphertextHandles", vtTypedHandles(8, 8)),
			check: func(t *testing.T, got PublicDecryptRequest) {
				if len(got.CiphertextHandles) != 8 {
					t.Fatalf("%d handles", len(got.CiphertextHandles))
				}
			}},
		{name: "nine euint256 handles, 2304 bits, are refused naming the list", edit: set("ciphertextHandles", vtTypedHandles(9, 8)),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextHandles", "must decrypt at most 2048 bits in all (the gateway's limit), has 2304: split the request")}},
		{name: "an euint4 handle is refused naming it", edit: setHandle(1, vtTypedHandles(3, 1)[2]),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextHandles[1]", "is of FHE type 1, which the gateway does not decrypt")}},
		{name: "a handle of an unknown type is refused naming it", edit: setHandle(0, vtTypedHandles(4, 0x40)[3]),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextHandles[0]", "is of FHE type 64, which the gateway does not decrypt")}},
		{name: "extraData with a non-hex character is named, whatever its length", edit: set("extraData", "0x0g0"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("extraData", `only hex digits after 0x ('g' at offset 3`)}},
		{name: "a valid body is accepted with its handles lowercased in order", check: func(t *testing.T, got PublicDecryptRequest) {
			want := PublicDecryptRequest{
				CiphertextHandles: []string{strings.ToLower(vtHandle(1337, 0xa0)), strings.ToLower(vtHandle(8009, 0x10))},
				ExtraData:         "0x00",
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %+v, want %+v", got, want)
			}
		}},
		{name: "as many handles as the limit are accepted", cfg: &two, check: func(*testing.T, PublicDecryptRequest) {}},
		{name: "more handles than the limit are refused", cfg: &two, edit: set("ciphertextHandles", vtHandleList(3)),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextHandles", "must have at most 2 entries (has 3)")}},
		{name: "the default limit is 32 handles", edit: set("ciphertextHandles", vtHandleList(32)),
			check: func(t *testing.T, got PublicDecryptRequest) {
				if len(got.CiphertextHandles) != 32 {
					t.Fatalf("%d handles", len(got.CiphertextHandles))
				}
			}},
		{name: "33 handles are refused under the default limit", edit: set("ciphertextHandles", vtHandleList(33)),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextHandles", "at most 32 entries")}},
		{name: "an empty handle list is refused", edit: set("ciphertextHandles", []any{}),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextHandles", "must not be empty")}},
		{name: "handles that are not an array are refused", edit: set("ciphertextHandles", vtHandle(1337, 1)),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextHandles", "must be an array, not a string")}},
		{name: "a null handle list is missing", edit: set("ciphertextHandles", nil),
			label: LabelMissingFields, want: []FieldIssue{vtIssue("ciphertextHandles", "is required")}},
		{name: "a handle that is not a string is refused by index", edit: setHandle(1, 7),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextHandles[1]", "must be a string, not a number")}},
		{name: "a null handle is refused by index", edit: setHandle(0, nil),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextHandles[0]", "must be a string, not null")}},
		{name: "a short handle is refused", edit: setHandle(0, vtHandle(1337, 1)[:65]),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextHandles[0]", "must be 0x followed by 64 hex digits")}},
		{name: "a handle without 0x is refused", edit: setHandle(0, vtHandle(1337, 1)[2:]),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextHandles[0]", "must be 0x followed by 64 hex digits")}},
		{name: "a handle with a non-hex digit is refused", edit: setHandle(0, "0x"+strings.Repeat("x", 64)),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextHandles[0]", "must be 0x followed by 64 hex digits")}},
		{name: "a handle from an unconfigured host chain is refused", edit: setHandle(1, vtHandle(5, 1)),
			label: LabelHostChainIDNotSupported, want: []FieldIssue{
				vtIssue("ciphertextHandles[1]", "chain 5 is not a configured host chain (configured: 1337, 8009)")}},
		{name: "every handle from an unconfigured host chain is reported",
			edit:  set("ciphertextHandles", []any{vtHandle(5, 1), vtHandle(1337, 2), vtHandle(1, 3)}),
			label: LabelHostChainIDNotSupported, want: []FieldIssue{
				vtIssue("ciphertextHandles[0]", "chain 5 is not"),
				vtIssue("ciphertextHandles[2]", "chain 1 is not"),
			}},
		{name: "a handle of chain zero is refused as an unconfigured host chain", edit: setHandle(0, "0x"+strings.Repeat("0", 64)),
			label: LabelHostChainIDNotSupported, want: []FieldIssue{vtIssue("ciphertextHandles[0]", "chain 0 is not")}},
		{name: "an invalid handle hides an unconfigured host chain",
			edit:  set("ciphertextHandles", []any{vtHandle(5, 1), "0x12"}),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("ciphertextHandles[1]", "64 hex digits")}},
		{name: "every bad handle is reported by index",
			edit:  set("ciphertextHandles", []any{"0x12", vtHandle(1337, 1), true, "0x" + strings.Repeat("0", 63)}),
			label: LabelValidationFailed, want: []FieldIssue{
				vtIssue("ciphertextHandles[0]", "64 hex digits"),
				vtIssue("ciphertextHandles[2]", "not a boolean"),
				vtIssue("ciphertextHandles[3]", "64 hex digits"),
			}},
		{name: "a missing extraData is reported", edit: func(m map[string]any) { delete(m, "extraData") },
			label: LabelMissingFields, want: []FieldIssue{vtIssue("extraData", "is required")}},
		{name: "a bad extraData is refused", edit: set("extraData", "0xz0"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("extraData", "only hex digits")}},
		{name: "an unknown field is refused by name", edit: set("handles", []any{}),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("handles", "is not a known field (known fields: ciphertextHandles, extraData)")}},
		{name: "an unknown field with an odd name is quoted", edit: set("a b", 1),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue(`"a b"`, "is not a known field")}},
		{name: "a body that is not an object is malformed", raw: `42`, label: LabelMalformedJSON, message: "not a number"},
	})
}

func TestParseUserDecrypt(t *testing.T) {
	set := func(k string, v any) func(map[string]any) { return func(m map[string]any) { m[k] = v } }
	setValidity := func(k string, v any) func(map[string]any) {
		return func(m map[string]any) { vtValidity(m)[k] = v }
	}
	setPair := func(i int, k string, v any) func(map[string]any) {
		return func(m map[string]any) { vtPair(m, i)[k] = v }
	}
	smallKey := ValidationConfig{HostChainIDs: []uint64{1337}, MaxPublicKeyBytes: 3}
	shortWindow := ValidationConfig{HostChainIDs: []uint64{1337}, MaxDurationDays: 30}
	validityIs := func(start, days uint64) func(*testing.T, UserDecryptRequest) {
		return func(t *testing.T, got UserDecryptRequest) {
			if got.RequestValidity != (RequestValidity{start, days}) {
				t.Fatalf("requestValidity = %+v, want {%d %d}", got.RequestValidity, start, days)
			}
		}
	}

	vtRun(t, vtUserDecryptFields, ParseUserDecrypt, []vtCase[UserDecryptRequest]{
		{name: "a valid body is accepted and normalized to lowercase", check: func(t *testing.T, got UserDecryptRequest) {
			want := UserDecryptRequest{
				HandleContractPairs: []HandleContractPair{
					{strings.ToLower(vtHandle(1337, 0xa0)), strings.ToLower(vtContract)},
					{strings.ToLower(vtHandle(1337, 0x10)), strings.ToLower(vtOther)},
				},
				RequestValidity:   RequestValidity{StartTimestamp: 1700000000, DurationDays: 10},
				ContractsChainID:  1337,
				ContractAddresses: []string{strings.ToLower(vtContract), strings.ToLower(vtOther)},
				UserAddress:       strings.ToLower(vtUser),
				Signature:         strings.ToLower(vtSignature),
				PublicKey:         strings.ToLower(vtPublicKey),
				ExtraData:         "0x00",
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got  %+v\nwant %+v", got, want)
			}
		}},
		{name: "contractsChainId may be a decimal string", edit: set("contractsChainId", "1337"),
			check: func(t *testing.T, got UserDecryptRequest) {
				if got.ContractsChainID != 1337 {
					t.Fatalf("contractsChainId = %d", got.ContractsChainID)
				}
			}},
		{name: "contractsChainId with a fraction is refused", edit: set("contractsChainId", 1337.5),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractsChainId", "fraction")}},
		{name: "contractsChainId from an unconfigured host chain is refused", edit: set("contractsChainId", 5),
			label: LabelHostChainIDNotSupported, want: []FieldIssue{vtIssue("contractsChainId", "chain 5 is not a configured host chain (configured: 1337, 8009)")}},
		{name: "a pair's handle of a type the gateway does not decrypt is refused naming it", edit: setPair(1, "handle", vtTypedHandles(3, 1)[2]),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("handleContractPairs[1].handle", "is of FHE type 1, which the gateway does not decrypt")}},
		{name: "pairs of more than 2048 bits in all are refused naming the list", edit: func(m map[string]any) {
			var pairs []any
			for _, h := range vtTypedHandles(9, 8) {
				pairs = append(pairs, map[string]any{"handle": h, "contractAddress": vtContract})
			}
			m["handleContractPairs"] = pairs
		}, label: LabelValidationFailed, want: []FieldIssue{vtIssue("handleContractPairs", "must decrypt at most 2048 bits in all (the gateway's limit), has 2304")}},
		{name: "a handle from an unconfigured host chain is refused", edit: setPair(1, "handle", vtHandle(5, 3)),
			label: LabelHostChainIDNotSupported, want: []FieldIssue{vtIssue("handleContractPairs[1].handle", "chain 5 is not a configured host chain")}},
		{name: "every unconfigured host chain is reported in field order",
			edit:  func(m map[string]any) { m["contractsChainId"] = 7; vtPair(m, 0)["handle"] = vtHandle(5, 3) },
			label: LabelHostChainIDNotSupported, want: []FieldIssue{
				vtIssue("handleContractPairs[0].handle", "chain 5"),
				vtIssue("contractsChainId", "chain 7"),
			}},
		{name: "handles may come from another configured host chain than contractsChainId",
			edit: setPair(0, "handle", vtHandle(8009, 3)), check: func(*testing.T, UserDecryptRequest) {}},

		{name: "a pair's contract must be listed in contractAddresses", edit: setPair(1, "contractAddress", vtCapsAddress),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("handleContractPairs[1].contractAddress", "must be one of contractAddresses")}},
		{name: "a pair's contract matches contractAddresses whatever its letter case",
			edit: setPair(0, "contractAddress", strings.ToLower(vtContract)), check: func(t *testing.T, got UserDecryptRequest) {
				if got.HandleContractPairs[0].ContractAddress != got.ContractAddresses[0] {
					t.Fatalf("pair contract %s, listed %s", got.HandleContractPairs[0].ContractAddress, got.ContractAddresses[0])
				}
			}},
		{name: "the pairs are not checked against an invalid contractAddresses",
			edit:  set("contractAddresses", []any{vtContract, "0x12"}),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractAddresses[1]", "40 hex digits")}},
		{name: "the user address must not be one of contractAddresses",
			edit:  set("contractAddresses", []any{vtContract, vtOther, strings.ToLower(vtUser)}),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("userAddress", "must not be one of contractAddresses")}},

		{name: "an empty pair list is refused", edit: set("handleContractPairs", []any{}),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("handleContractPairs", "must not be empty")}},
		{name: "a pair list that is not an array is refused", edit: set("handleContractPairs", map[string]any{}),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("handleContractPairs", "must be an array, not an object")}},
		{name: "more pairs than the handle limit are refused",
			cfg:   &ValidationConfig{HostChainIDs: []uint64{1337}, MaxHandles: 1},
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("handleContractPairs", "must have at most 1 entries (has 2)")}},
		{name: "a pair that is not an object is refused by index", edit: func(m map[string]any) { vtPairs(m)[1] = vtHandle(1337, 1) },
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("handleContractPairs[1]", "must be an object with fields handle and contractAddress, not a string")}},
		{name: "a pair missing its fields reports each by path",
			edit:  func(m map[string]any) { vtPairs(m)[0] = map[string]any{}; delete(vtPair(m, 1), "contractAddress") },
			label: LabelMissingFields, want: []FieldIssue{
				vtIssue("handleContractPairs[0].handle", "is required"),
				vtIssue("handleContractPairs[0].contractAddress", "is required"),
				vtIssue("handleContractPairs[1].contractAddress", "is required"),
			}},
		{name: "a pair with an unknown field is refused by path", edit: setPair(0, "ctHandle", "x"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("handleContractPairs[0].ctHandle", "is not a known field (known fields: handle, contractAddress)")}},
		{name: "a pair's bad handle is refused by path", edit: setPair(1, "handle", "0x"+strings.Repeat("a", 62)),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("handleContractPairs[1].handle", "must be 0x followed by 64 hex digits")}},
		{name: "a pair's bad contract address is refused by path", edit: setPair(0, "contractAddress", vtWrongSumAddr),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("handleContractPairs[0].contractAddress", "EIP-55")}},

		{name: "a duration of one day is accepted", edit: setValidity("durationDays", "1"), check: validityIs(1700000000, 1)},
		{name: "a duration of 365 days is accepted", edit: setValidity("durationDays", "365"), check: validityIs(1700000000, 365)},
		{name: "a duration of zero days is refused", edit: setValidity("durationDays", "0"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("requestValidity.durationDays", "must be at least 1")}},
		{name: "a duration of 366 days is refused", edit: setValidity("durationDays", "366"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("requestValidity.durationDays", "must be at most 365")}},
		{name: "the duration bound is configurable", cfg: &shortWindow, edit: setValidity("durationDays", "31"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("requestValidity.durationDays", "must be at most 30")}},
		{name: "a duration given as a number is refused", edit: setValidity("durationDays", 10),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("requestValidity.durationDays", `must be a decimal string such as "10", not a number`)}},
		{name: "a negative duration is refused", edit: setValidity("durationDays", "-1"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("requestValidity.durationDays", "must not be negative")}},
		{name: "a start timestamp of zero is refused", edit: setValidity("startTimestamp", "0"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("requestValidity.startTimestamp", "must be greater than 0")}},
		{name: "the largest uint64 start timestamp is refused", edit: setValidity("startTimestamp", vtMaxUint64),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("requestValidity.startTimestamp", "the end of the year 9999")}},
		{name: "the last second of the year 9999 is the latest start", edit: setValidity("startTimestamp", "253402300799"),
			check: validityIs(253402300799, 10)},
		{name: "a pair given twice is refused", edit: func(m map[string]any) { vtPairs(m)[1] = vtPair(m, 0) },
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("handleContractPairs[1]", "repeats handleContractPairs[0]")}},
		{name: "a public key with a non-hex character is named, whatever its length", edit: set("publicKey", "abz"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("publicKey", `only hex digits ('z' at offset 2`)}},
		{name: "a start timestamp past uint64 is refused", edit: setValidity("startTimestamp", vtOverUint64),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("requestValidity.startTimestamp", "must fit in 64 bits")}},
		{name: "a start timestamp with a fraction is refused", edit: setValidity("startTimestamp", "1700000000.5"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("requestValidity.startTimestamp", "fraction")}},
		{name: "a start timestamp given as a number is refused", edit: setValidity("startTimestamp", 1700000000),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("requestValidity.startTimestamp", "must be a decimal string")}},
		{name: "a start timestamp that is not a number is refused", edit: setValidity("startTimestamp", "soon"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("requestValidity.startTimestamp", "only decimal digits")}},
		{name: "a missing duration is reported by path", edit: func(m map[string]any) { delete(vtValidity(m), "durationDays") },
			label: LabelMissingFields, want: []FieldIssue{vtIssue("requestValidity.durationDays", "is required")}},
		{name: "a validity with an unknown field is refused by path", edit: setValidity("endTimestamp", "1"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("requestValidity.endTimestamp", "is not a known field")}},
		{name: "a validity that is not an object is refused", edit: set("requestValidity", "10"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("requestValidity", "must be an object with fields startTimestamp and durationDays, not a string")}},

		{name: "an empty contractAddresses is refused", edit: set("contractAddresses", []any{}),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractAddresses", "must not be empty")}},
		{name: "ten contract addresses are accepted",
			edit: func(m map[string]any) {
				list := vtAddrList(10)
				m["contractAddresses"] = list
				m["handleContractPairs"] = []any{map[string]any{"handle": vtHandle(1337, 1), "contractAddress": list[9]}}
			}, check: func(t *testing.T, got UserDecryptRequest) {
				if len(got.ContractAddresses) != 10 {
					t.Fatalf("%d contract addresses", len(got.ContractAddresses))
				}
			}},
		{name: "eleven contract addresses are refused", edit: set("contractAddresses", vtAddrList(11)),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractAddresses", "must have at most 10 entries (has 11)")}},
		{name: "a bad contract address is refused by index", edit: set("contractAddresses", []any{vtContract, vtOther, "0xnope"}),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractAddresses[2]", "must be 0x followed by 40 hex digits")}},
		{name: "contractAddresses that is a string is refused", edit: set("contractAddresses", vtContract),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("contractAddresses", "must be an array, not a string")}},

		{name: "a 0x-prefixed signature is refused", edit: set("signature", "0x"+vtSignature),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("signature", "must be 130 hex digits without a 0x prefix")}},
		{name: "a 128-digit signature is refused", edit: set("signature", vtSignature[:128]),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("signature", "must be exactly 130 hex digits (has 128 characters)")}},
		{name: "a 131-digit signature is refused", edit: set("signature", vtSignature+"0"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("signature", "must be exactly 130 hex digits (has 131 characters)")}},
		{name: "a signature with a non-hex digit is refused", edit: set("signature", "zz"+vtSignature[2:]),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("signature", "only hex digits")}},

		{name: "a 0x-prefixed public key is refused", edit: set("publicKey", "0x"+vtPublicKey),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("publicKey", "without a 0x prefix")}},
		{name: "an empty public key is refused", edit: set("publicKey", ""),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("publicKey", "must not be empty")}},
		{name: "a public key of odd length is refused", edit: set("publicKey", "abc"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("publicKey", "even number")}},
		{name: "a public key over the size limit is refused", cfg: &smallKey, edit: set("publicKey", "00112233"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("publicKey", "must be at most 3 bytes (has 4)")}},
		{name: "a bad extraData is refused", edit: set("extraData", "0x0"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("extraData", "even number")}},

		{name: "every missing field is reported in schema order", raw: `{"signature":"` + vtSignature + `"}`,
			label: LabelMissingFields, message: "missing 7 required fields", want: []FieldIssue{
				vtIssue("handleContractPairs", "is required"),
				vtIssue("requestValidity", "is required"),
				vtIssue("contractsChainId", "is required"),
				vtIssue("contractAddresses", "is required"),
				vtIssue("userAddress", "is required"),
				vtIssue("publicKey", "is required"),
				vtIssue("extraData", "is required"),
			}},
		{name: "every problem is reported at once, in field order, nested fields in place",
			edit: func(m map[string]any) {
				m["delegatorAddress"] = vtUser
				vtPair(m, 1)["handle"] = "0x00"
				vtPair(m, 1)["extra"] = 1
				vtValidity(m)["durationDays"] = "0"
				m["contractsChainId"] = "-5"
				m["contractAddresses"] = []any{vtContract, vtOther, 3}
				m["userAddress"] = vtWrongSumAddr
				m["signature"] = "00"
				m["publicKey"] = "0"
				m["extraData"] = "0x"
			},
			label: LabelValidationFailed, message: "10 problems", want: []FieldIssue{
				vtIssue("handleContractPairs[1].handle", "64 hex digits"),
				vtIssue("handleContractPairs[1].extra", "is not a known field"),
				vtIssue("requestValidity.durationDays", "at least 1"),
				vtIssue("contractsChainId", "must not be negative"),
				vtIssue("contractAddresses[2]", "must be a string, not a number"),
				vtIssue("userAddress", "EIP-55"),
				vtIssue("signature", "exactly 130"),
				vtIssue("publicKey", "even number"),
				vtIssue("extraData", "at least one byte"),
				vtIssue("delegatorAddress", "is not a known field"),
			}},
		{name: "a body that is not JSON is malformed", raw: `{"handleContractPairs": [}`, label: LabelMalformedJSON},
	})
}

// The tagged extraData of the decryption kinds: version 0x01 is a contextId (tag 0x07), version
// 0x02 a contextId and an epochId (tag 0x08), each of a fixed size.
var (
	vtContextID = "07" + strings.Repeat("ab", 31)
	vtEpochID   = "08" + strings.Repeat("cd", 31)
	vtExtraV1   = "0x01" + vtContextID
	vtExtraV2   = "0x02" + vtContextID + vtEpochID
)

func TestExtraDataOfEveryDecryptionKindIsTheGatewaysTaggedFormat(t *testing.T) {
	bodies := map[Kind]func() map[string]any{
		PublicDecrypt:        vtPublicDecryptFields,
		UserDecrypt:          vtUserDecryptFields,
		DelegatedUserDecrypt: vtDelegatedFields,
	}
	accepted := []struct{ name, extra, want string }{
		{"the legacy 0x00", "0x00", "0x00"},
		{"version 0x01 with a tagged contextId", vtExtraV1, vtExtraV1},
		{"version 0x02 with a tagged contextId and epochId", vtExtraV2, vtExtraV2},
		{"version 0x02 in upper case, lowercased", "0x02" + strings.ToUpper(vtContextID+vtEpochID), vtExtraV2},
	}
	refused := []struct{ name, extra, issue string }{
		{"an empty string", "", `must be 0x-prefixed hex`},
		{"0x alone", "0x", "at least one byte"},
		{"version 0x01 without its contextId", "0x01", "version 0x01 is 0x01 followed by a 32-byte contextId, 33 bytes in all (has 1)"},
		{"version 0x01 with an untagged contextId", "0x01" + strings.Repeat("ab", 32), "the contextId (bytes 1 to 32) must begin with its type tag 0x07, not 0xab"},
		{"version 0x01 with a trailing byte", vtExtraV1 + "00", "33 bytes in all (has 34)"},
		{"version 0x02 without its epochId", "0x02" + vtContextID, "65 bytes in all (has 33)"},
		{"version 0x02 with an untagged contextId", "0x02" + strings.Repeat("ab", 32) + vtEpochID, "the contextId (bytes 1 to 32) must begin with its type tag 0x07"},
		{"version 0x02 with an untagged epochId", "0x02" + vtContextID + strings.Repeat("ab", 32), "the epochId (bytes 33 to 64) must begin with its type tag 0x08, not 0xab"},
		{"version 0x00 with more bytes", "0x0000", `version 0x00 is the single byte "0x00" (has 2 bytes)`},
		{"an unknown version", "0x03" + vtContextID + vtEpochID, "has version 0x03"},
	}
	for _, k := range []Kind{PublicDecrypt, UserDecrypt, DelegatedUserDecrypt} {
		for _, c := range accepted {
			t.Run(k.String()+" accepts "+c.name, func(t *testing.T) {
				m := bodies[k]()
				m["extraData"] = c.extra
				body, _ := json.Marshal(m)
				r, err := ParseRequest(k, body, vtConfig)
				if err != nil {
					t.Fatalf("extraData %q: %v", c.extra, err)
				}
				var got string
				switch {
				case r.PublicDecrypt != nil:
					got = r.PublicDecrypt.ExtraData
				case r.UserDecrypt != nil:
					got = r.UserDecrypt.ExtraData
				case r.DelegatedUserDecrypt != nil:
					got = r.DelegatedUserDecrypt.ExtraData
				}
				if got != c.want {
					t.Fatalf("extraData kept as %q, want %q", got, c.want)
				}
			})
		}
		for _, c := range refused {
			t.Run(k.String()+" refuses "+c.name+" with validation_failed naming extraData", func(t *testing.T) {
				m := bodies[k]()
				m["extraData"] = c.extra
				body, _ := json.Marshal(m)
				r, err := ParseRequest(k, body, vtConfig)
				var ve *ValidationError
				if !errors.As(err, &ve) || ve.Label != LabelValidationFailed {
					t.Fatalf("extraData %q: want validation_failed, got %v", c.extra, err)
				}
				if len(ve.Details) != 1 || ve.Details[0].Field != "extraData" || !strings.Contains(ve.Details[0].Issue, c.issue) {
					t.Fatalf("details %+v, want one on extraData containing %q", ve.Details, c.issue)
				}
				if !r.Kind().IsZero() {
					t.Fatalf("a refused body gave a %v request", r.Kind())
				}
			})
		}
	}
}

func TestParseRequest(t *testing.T) {
	bodies := map[Kind]map[string]any{
		InputProof:           vtInputProofFields(),
		PublicDecrypt:        vtPublicDecryptFields(),
		UserDecrypt:          vtUserDecryptFields(),
		DelegatedUserDecrypt: vtDelegatedFields(),
	}
	for _, k := range Kinds() {
		t.Run("a "+k.String()+" body parses into a request of that kind", func(t *testing.T) {
			body, _ := json.Marshal(bodies[k])
			r, err := ParseRequest(k, body, vtConfig)
			if err != nil {
				t.Fatal(err)
			}
			if r.Kind() != k {
				t.Fatalf("request kind %v, want %v", r.Kind(), k)
			}
		})
		t.Run("a "+k.String()+" body with problems gives a validation error and no request", func(t *testing.T) {
			r, err := ParseRequest(k, []byte(`{"nope":1}`), vtConfig)
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Label != LabelMissingFields {
				t.Fatalf("got %v", err)
			}
			if !r.Kind().IsZero() {
				t.Fatalf("a refused body gave a %v request", r.Kind())
			}
		})
	}
	t.Run("a body of one kind is refused as another kind", func(t *testing.T) {
		body, _ := json.Marshal(vtPublicDecryptFields())
		_, err := ParseRequest(InputProof, body, vtConfig)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Label != LabelMissingFields {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("the zero kind is a programming error, not a validation error", func(t *testing.T) {
		_, err := ParseRequest(Kind{}, []byte(`{}`), vtConfig)
		var ve *ValidationError
		if err == nil || errors.As(err, &ve) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("an invalid config is a programming error, not a validation error", func(t *testing.T) {
		for _, k := range Kinds() {
			_, err := ParseRequest(k, []byte(`{}`), ValidationConfig{})
			var ve *ValidationError
			if !errors.Is(err, ErrInvalidValidationConfig) || errors.As(err, &ve) {
				t.Fatalf("%v: got %v", k, err)
			}
		}
	})
}

func TestValidationConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  ValidationConfig
		want []string // substrings of the error; none for a valid config
	}{
		{"a config with host chains and default limits is valid", ValidationConfig{HostChainIDs: []uint64{1}}, nil},
		{"a config with explicit limits is valid", ValidationConfig{HostChainIDs: []uint64{1, 2}, MaxHandles: 3,
			MaxContractAddresses: 4, MaxCiphertextBytes: 5, MaxPublicKeyBytes: 6, MaxExtraDataBytes: 7, MaxDurationDays: 8}, nil},
		{"a config without host chains is invalid", ValidationConfig{}, []string{"at least one host chain"}},
		{"a host chain id of zero is invalid", ValidationConfig{HostChainIDs: []uint64{1, 0}}, []string{"must not contain 0"}},
		{"a repeated host chain id is invalid", ValidationConfig{HostChainIDs: []uint64{7, 8, 7}}, []string{"lists 7 more than once"}},
		{"negative limits are invalid, each named", ValidationConfig{HostChainIDs: []uint64{1}, MaxHandles: -1, MaxExtraDataBytes: -2},
			[]string{"max_handles: must not be negative", "max_extra_data_bytes: must not be negative"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidValidationConfig) {
				t.Fatalf("got %v, want an error wrapping ErrInvalidValidationConfig", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestHostChainID(t *testing.T) {
	var h [32]byte
	for i := range h {
		h[i] = 0xff // bytes around the chain id must not leak into it
	}
	copy(h[22:30], []byte{0, 0, 0, 0, 0, 0, 0x05, 0x39})
	if got := HostChainID(h); got != 1337 {
		t.Fatalf("HostChainID = %d, want 1337", got)
	}
	copy(h[22:30], []byte{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08})
	if got := HostChainID(h); got != 0x0102030405060708 {
		t.Fatalf("HostChainID = %#x, want big-endian 0x0102030405060708", got)
	}

	t.Run("a handle built for a chain reads back that chain", func(t *testing.T) {
		for _, chain := range []uint64{1, 1337, 8009, 11155111, 18446744073709551615} {
			b, err := ParseHandle(vtHandle(chain, 9))
			if err != nil {
				t.Fatal(err)
			}
			if got := HostChainID(b); got != chain {
				t.Fatalf("chain %d read back as %d", chain, got)
			}
		}
	})
	t.Run("ParseHandle accepts either case and refuses malformed handles", func(t *testing.T) {
		lower, err1 := ParseHandle(strings.ToLower(vtHandle(1337, 1)))
		upper, err2 := ParseHandle(vtHandle(1337, 1))
		if err1 != nil || err2 != nil || lower != upper {
			t.Fatalf("%v %v %x %x", err1, err2, lower, upper)
		}
		for _, bad := range []string{"", "0x", vtHandle(1, 1)[2:], vtHandle(1, 1) + "00", "0X" + vtHandle(1, 1)[2:], "0x" + strings.Repeat("g", 64)} {
			if _, err := ParseHandle(bad); err == nil || !strings.Contains(err.Error(), "64 hex digits") {
				t.Errorf("ParseHandle(%q) = %v", bad, err)
			}
		}
	})
}

func TestValidationErrorRendering(t *testing.T) {
	m := vtInputProofFields()
	m["userAddress"] = "0x1"
	m["extra"] = 1
	body, _ := json.Marshal(m)
	_, err := ParseInputProof(body, vtConfig)

	t.Run("Error names the label, the message and every detail", func(t *testing.T) {
		want := "validation_failed: the request failed validation with 2 problems: " +
			"userAddress: must be 0x followed by 40 hex digits; extra: is not a known field"
		if !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("Error() = %q\nwant prefix %q", err.Error(), want)
		}
	})
	t.Run("it marshals to label, message and details with field and issue", func(t *testing.T) {
		out, jerr := json.Marshal(err)
		if jerr != nil {
			t.Fatal(jerr)
		}
		var back struct {
			Label   string                          `json:"label"`
			Message string                          `json:"message"`
			Details []struct{ Field, Issue string } `json:"details"`
		}
		if jerr := json.Unmarshal(out, &back); jerr != nil {
			t.Fatal(jerr)
		}
		if back.Label != LabelValidationFailed || back.Message == "" || len(back.Details) != 2 ||
			back.Details[0].Field != "userAddress" || !strings.Contains(string(out), `"issue":"must be 0x followed by 40 hex digits"`) {
			t.Fatalf("marshalled to %s", out)
		}
	})
	t.Run("a malformed body has a message and no details", func(t *testing.T) {
		_, err := ParseInputProof([]byte(`{"a":`), vtConfig)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Label != LabelMalformedJSON || len(ve.Details) != 0 || ve.Message == "" {
			t.Fatalf("got %#v", err)
		}
		out, _ := json.Marshal(ve)
		if strings.Contains(string(out), "details") {
			t.Fatalf("marshalled to %s", out)
		}
	})
}

// Fuzzing: no body makes a parser panic; a refusal is always a well-formed *ValidationError; an
// accepted body gives a payload whose every field is in normal form, which parses back to itself
// (and so to the same content hash) when written out again.

var (
	vtAddressRE = regexp.MustCompile(`^0x[0-9a-f]{40}$`)
	vtHandleRE  = regexp.MustCompile(`^0x[0-9a-f]{64}$`)
	vtBareHexRE = regexp.MustCompile(`^([0-9a-f]{2})+$`)
	vtExtraRE   = regexp.MustCompile(`^0x([0-9a-f]{2})+$`)
	vtSigRE     = regexp.MustCompile(`^[0-9a-f]{130}$`)
)

// vtFuzzConfig is small so that the fuzzer reaches the limits.
var vtFuzzConfig = ValidationConfig{HostChainIDs: []uint64{1337, 8009}, MaxHandles: 4, MaxContractAddresses: 3,
	MaxCiphertextBytes: 64, MaxPublicKeyBytes: 64, MaxExtraDataBytes: 8, MaxDurationDays: 365}

func vtCheckRefusal(t *testing.T, body []byte, err error) {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("body %q: error %T %v is not a *ValidationError", body, err, err)
	}
	switch ve.Label {
	case LabelMalformedJSON:
		if len(ve.Details) != 0 {
			t.Fatalf("body %q: malformed_json with details %+v", body, ve.Details)
		}
	case LabelMissingFields, LabelValidationFailed, LabelHostChainIDNotSupported:
		if len(ve.Details) == 0 {
			t.Fatalf("body %q: %s without details", body, ve.Label)
		}
	default:
		t.Fatalf("body %q: unknown label %q", body, ve.Label)
	}
	if ve.Message == "" {
		t.Fatalf("body %q: no message", body)
	}
	for _, d := range ve.Details {
		if d.Field == "" || d.Issue == "" {
			t.Fatalf("body %q: detail %+v has an empty field or issue", body, d)
		}
	}
}

func vtCheckAddress(t *testing.T, what, a string) {
	t.Helper()
	if !vtAddressRE.MatchString(a) {
		t.Fatalf("%s %q is not a normalized address", what, a)
	}
}

func vtCheckHandle(t *testing.T, what, h string) {
	t.Helper()
	if !vtHandleRE.MatchString(h) {
		t.Fatalf("%s %q is not a normalized handle", what, h)
	}
	b, _ := ParseHandle(h)
	if !slices.Contains(vtFuzzConfig.HostChainIDs, HostChainID(b)) {
		t.Fatalf("%s %q is from unconfigured chain %d", what, h, HostChainID(b))
	}
}

// vtReparse writes got out as JSON, parses it again, and checks it comes back unchanged.
func vtReparse[T any](t *testing.T, got T, parse func([]byte, ValidationConfig) (T, error), wrap func(T) Request) {
	t.Helper()
	out, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("marshal %+v: %v", got, err)
	}
	again, err := parse(out, vtFuzzConfig)
	if err != nil {
		t.Fatalf("the normalized payload %s does not parse again: %v", out, err)
	}
	if !reflect.DeepEqual(again, got) {
		t.Fatalf("normalizing is not idempotent:\n%+v\n%+v", got, again)
	}
	if ContentHash(wrap(got)) != ContentHash(wrap(again)) {
		t.Fatal("the content hash changed across a round trip")
	}
}

func vtSeed(f *testing.F, m map[string]any, edits ...func(map[string]any)) {
	for _, e := range edits {
		e(m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
}

var vtMalformedSeeds = []string{``, `{`, `}`, `[]`, `null`, `"x"`, `1e999`, `{"a":1}{}`, `{"a":}`, "{\"\xff\":1}", `{"":null}`}

func FuzzParseInputProof(f *testing.F) {
	vtSeed(f, vtInputProofFields())
	vtSeed(f, vtInputProofFields(), func(m map[string]any) { m["contractChainId"] = "8009"; m["extraData"] = "0x0102" })
	vtSeed(f, vtInputProofFields(), func(m map[string]any) { m["contractChainId"] = "0x001f49" })
	vtSeed(f, vtInputProofFields(), func(m map[string]any) { m["contractChainId"] = 5 })
	vtSeed(f, vtInputProofFields(), func(m map[string]any) { m["contractChainId"] = json.RawMessage("1.5e3") })
	vtSeed(f, vtInputProofFields(), func(m map[string]any) { m["userAddress"] = vtWrongSumAddr; m["x"] = 1 })
	vtSeed(f, vtInputProofFields(), func(m map[string]any) { delete(m, "extraData"); m["ciphertextWithInputVerification"] = "0x" })
	for _, s := range vtMalformedSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := ParseInputProof(body, vtFuzzConfig)
		if err != nil {
			vtCheckRefusal(t, body, err)
			return
		}
		if !slices.Contains(vtFuzzConfig.HostChainIDs, got.ContractChainID) {
			t.Fatalf("accepted unconfigured chain %d", got.ContractChainID)
		}
		vtCheckAddress(t, "contractAddress", got.ContractAddress)
		vtCheckAddress(t, "userAddress", got.UserAddress)
		if !vtBareHexRE.MatchString(got.Ciphertext) || len(got.Ciphertext)/2 > vtFuzzConfig.MaxCiphertextBytes {
			t.Fatalf("ciphertext %q", got.Ciphertext)
		}
		if !vtExtraRE.MatchString(got.ExtraData) || len(got.ExtraData)/2-1 > vtFuzzConfig.MaxExtraDataBytes {
			t.Fatalf("extraData %q", got.ExtraData)
		}
		vtReparse(t, got, ParseInputProof, func(r InputProofRequest) Request { return Request{InputProof: &r} })
	})
}

func FuzzParsePublicDecrypt(f *testing.F) {
	vtSeed(f, vtPublicDecryptFields())
	vtSeed(f, vtPublicDecryptFields(), func(m map[string]any) { m["ciphertextHandles"] = vtHandleList(4) })
	vtSeed(f, vtPublicDecryptFields(), func(m map[string]any) { m["ciphertextHandles"] = vtHandleList(5) })
	vtSeed(f, vtPublicDecryptFields(), func(m map[string]any) { m["ciphertextHandles"] = []any{vtHandle(5, 1), "0x1", nil} })
	vtSeed(f, vtPublicDecryptFields(), func(m map[string]any) { m["ciphertextHandles"] = []any{} })
	vtSeed(f, vtPublicDecryptFields(), func(m map[string]any) { m["ciphertextHandles"] = []any{vtHandle(5, 1)} })
	for _, s := range vtMalformedSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := ParsePublicDecrypt(body, vtFuzzConfig)
		if err != nil {
			vtCheckRefusal(t, body, err)
			return
		}
		if n := len(got.CiphertextHandles); n == 0 || n > vtFuzzConfig.MaxHandles {
			t.Fatalf("%d handles accepted", n)
		}
		for i, h := range got.CiphertextHandles {
			vtCheckHandle(t, fmt.Sprintf("ciphertextHandles[%d]", i), h)
		}
		if !vtExtraRE.MatchString(got.ExtraData) {
			t.Fatalf("extraData %q", got.ExtraData)
		}
		vtReparse(t, got, ParsePublicDecrypt, func(r PublicDecryptRequest) Request { return Request{PublicDecrypt: &r} })
	})
}

func TestParseDelegatedUserDecrypt(t *testing.T) {
	set := func(k string, v any) func(map[string]any) { return func(m map[string]any) { m[k] = v } }
	vtRun(t, vtDelegatedFields, ParseDelegatedUserDecrypt, []vtCase[DelegatedUserDecryptRequest]{
		{name: "a body as the public SDK sends it is accepted and normalized to lowercase", check: func(t *testing.T, got DelegatedUserDecryptRequest) {
			want := DelegatedUserDecryptRequest{
				HandleContractPairs: []HandleContractPair{
					{Handle: strings.ToLower(vtHandle(1337, 0xa0)), ContractAddress: strings.ToLower(vtContract)},
					{Handle: strings.ToLower(vtHandle(1337, 0x10)), ContractAddress: strings.ToLower(vtOther)},
				},
				ContractsChainID: 1337, ContractAddresses: []string{strings.ToLower(vtContract), strings.ToLower(vtOther)},
				DelegatorAddress: strings.ToLower(vtUser), DelegateAddress: strings.ToLower(vtDelegate),
				StartTimestamp: 1700000000, DurationDays: 10,
				Signature: strings.ToLower(vtSignature), PublicKey: strings.ToLower(vtPublicKey), ExtraData: "0x00",
			}
			if !requestsEqual(Request{DelegatedUserDecrypt: &got}, Request{DelegatedUserDecrypt: &want}) {
				t.Fatalf("got  %+v\nwant %+v", got, want)
			}
		}},
		{name: "the chain id may be a decimal string", edit: set("contractsChainId", "1337")},
		{name: "every field is required", raw: `{}`, label: LabelMissingFields, want: []FieldIssue{
			vtIssue("handleContractPairs", "is required"), vtIssue("contractsChainId", "is required"),
			vtIssue("contractAddresses", "is required"), vtIssue("delegatorAddress", "is required"),
			vtIssue("delegateAddress", "is required"), vtIssue("startTimestamp", "is required"),
			vtIssue("durationDays", "is required"), vtIssue("signature", "is required"),
			vtIssue("publicKey", "is required"), vtIssue("extraData", "is required"),
		}},
		{name: "the validity window is in flat fields, not in requestValidity", edit: func(m map[string]any) {
			m["requestValidity"] = map[string]any{"startTimestamp": "1700000000", "durationDays": "10"}
		}, label: LabelValidationFailed, want: []FieldIssue{vtIssue("requestValidity", "is not a known field")}},
		{name: "the delegate must differ from the delegator", edit: set("delegateAddress", vtUser),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("delegateAddress", "must differ from delegatorAddress")}},
		{name: "the delegate must not be the zero address", edit: set("delegateAddress", "0x0000000000000000000000000000000000000000"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("delegateAddress", "must not be the zero address")}},
		{name: "the delegator must not be the zero address", edit: set("delegatorAddress", "0x0000000000000000000000000000000000000000"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("delegatorAddress", "must not be the zero address")}},
		{name: "the delegator must not be one of the contracts", edit: set("delegatorAddress", vtContract),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("delegatorAddress", "must not be one of contractAddresses")}},
		{name: "the delegate must not be one of the contracts", edit: set("delegateAddress", vtOther),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("delegateAddress", "must not be one of contractAddresses")}},
		{name: "a pair's contract must be listed", edit: func(m map[string]any) { vtPair(m, 0)["contractAddress"] = vtDelegate },
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("handleContractPairs[0].contractAddress", "must be one of contractAddresses")}},
		{name: "a duration of zero days is refused", edit: set("durationDays", "0"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("durationDays", "must be at least 1")}},
		{name: "a start timestamp that is a number, not a string, is refused", edit: set("startTimestamp", 1700000000),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("startTimestamp", "decimal string")}},
		{name: "a signature with 0x is refused", edit: set("signature", "0x"+vtSignature[2:]),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("signature", "")}},
	})
}

func TestDelegatedRequestsShareAJobOnlyWhenEverythingTheGatewayGetsIsTheSame(t *testing.T) {
	body, err := json.Marshal(vtDelegatedFields())
	if err != nil {
		t.Fatal(err)
	}
	base, err := ParseDelegatedUserDecrypt(body, vtConfig)
	if err != nil {
		t.Fatal(err)
	}
	h0 := ContentHash(Request{DelegatedUserDecrypt: &base})
	for name, edit := range map[string]func(*DelegatedUserDecryptRequest){
		"signature":      func(r *DelegatedUserDecryptRequest) { r.Signature = strings.Repeat("c", 129) + "d" },
		"startTimestamp": func(r *DelegatedUserDecryptRequest) { r.StartTimestamp++ },
		"durationDays":   func(r *DelegatedUserDecryptRequest) { r.DurationDays++ },
		"delegate":       func(r *DelegatedUserDecryptRequest) { r.DelegateAddress = "0x" + strings.Repeat("ee", 20) },
		"publicKey":      func(r *DelegatedUserDecryptRequest) { r.PublicKey = "beef" },
	} {
		r := base
		r.HandleContractPairs = slices.Clone(base.HandleContractPairs)
		edit(&r)
		if ContentHash(Request{DelegatedUserDecrypt: &r}) == h0 {
			t.Errorf("requests that differ in %s have the same content hash", name)
		}
	}
	same := base
	if ContentHash(Request{DelegatedUserDecrypt: &same}) != h0 {
		t.Error("the same request hashes differently")
	}
	ud := UserDecryptRequest{HandleContractPairs: base.HandleContractPairs, ContractsChainID: base.ContractsChainID,
		ContractAddresses: base.ContractAddresses, UserAddress: base.DelegatorAddress, Signature: base.Signature, PublicKey: base.PublicKey, ExtraData: base.ExtraData}
	if ContentHash(Request{UserDecrypt: &ud}) == h0 {
		t.Error("a user decrypt hashes like the delegated one")
	}
}

func FuzzParseDelegatedUserDecrypt(f *testing.F) {
	vtSeed(f, vtDelegatedFields())
	vtSeed(f, vtDelegatedFields(), func(m map[string]any) { m["delegateAddress"] = vtUser })
	vtSeed(f, vtDelegatedFields(), func(m map[string]any) { m["durationDays"] = "0"; m["signature"] = "0x" })
	vtSeed(f, vtDelegatedFields(), func(m map[string]any) { m["requestValidity"] = []any{} })
	for _, s := range vtMalformedSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := ParseDelegatedUserDecrypt(body, vtFuzzConfig)
		if err != nil {
			vtCheckRefusal(t, body, err)
			return
		}
		if n := len(got.HandleContractPairs); n == 0 || n > vtFuzzConfig.MaxHandles {
			t.Fatalf("accepted %d pairs", n)
		}
		if got.DelegateAddress == got.DelegatorAddress || got.DurationDays < 1 {
			t.Fatalf("accepted %+v", got)
		}
		vtReparse(t, got, ParseDelegatedUserDecrypt, func(r DelegatedUserDecryptRequest) Request { return Request{DelegatedUserDecrypt: &r} })
	})
}

func FuzzParseUserDecrypt(f *testing.F) {
	vtSeed(f, vtUserDecryptFields())
	vtSeed(f, vtUserDecryptFields(), func(m map[string]any) { m["contractsChainId"] = "8009"; vtValidity(m)["durationDays"] = "365" })
	vtSeed(f, vtUserDecryptFields(), func(m map[string]any) { vtValidity(m)["durationDays"] = "0"; m["signature"] = "0x" })
	vtSeed(f, vtUserDecryptFields(), func(m map[string]any) { vtPair(m, 0)["contractAddress"] = vtUser })
	vtSeed(f, vtUserDecryptFields(), func(m map[string]any) { vtPairs(m)[1] = map[string]any{"handle": nil, "x": 1} })
	vtSeed(f, vtUserDecryptFields(), func(m map[string]any) { m["contractAddresses"] = vtAddrList(4) })
	vtSeed(f, vtUserDecryptFields(), func(m map[string]any) { m["requestValidity"] = []any{} })
	vtSeed(f, vtUserDecryptFields(), func(m map[string]any) { vtPair(m, 1)["handle"] = vtHandle(5, 1) })
	for _, s := range vtMalformedSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := ParseUserDecrypt(body, vtFuzzConfig)
		if err != nil {
			vtCheckRefusal(t, body, err)
			return
		}
		if n := len(got.HandleContractPairs); n == 0 || n > vtFuzzConfig.MaxHandles {
			t.Fatalf("%d pairs accepted", n)
		}
		if n := len(got.ContractAddresses); n == 0 || n > vtFuzzConfig.MaxContractAddresses {
			t.Fatalf("%d contract addresses accepted", n)
		}
		for i, a := range got.ContractAddresses {
			vtCheckAddress(t, fmt.Sprintf("contractAddresses[%d]", i), a)
		}
		for i, p := range got.HandleContractPairs {
			vtCheckHandle(t, fmt.Sprintf("handleContractPairs[%d].handle", i), p.Handle)
			vtCheckAddress(t, "pair contract", p.ContractAddress)
			if !slices.Contains(got.ContractAddresses, p.ContractAddress) {
				t.Fatalf("pair %d's contract %s is not listed", i, p.ContractAddress)
			}
		}
		if d := got.RequestValidity.DurationDays; d < 1 || d > vtFuzzConfig.MaxDurationDays {
			t.Fatalf("durationDays %d accepted", d)
		}
		if !slices.Contains(vtFuzzConfig.HostChainIDs, got.ContractsChainID) {
			t.Fatalf("accepted unconfigured chain %d", got.ContractsChainID)
		}
		vtCheckAddress(t, "userAddress", got.UserAddress)
		if slices.Contains(got.ContractAddresses, got.UserAddress) {
			t.Fatal("accepted a user address among the contract addresses")
		}
		if !vtSigRE.MatchString(got.Signature) {
			t.Fatalf("signature %q", got.Signature)
		}
		if !vtBareHexRE.MatchString(got.PublicKey) || len(got.PublicKey)/2 > vtFuzzConfig.MaxPublicKeyBytes {
			t.Fatalf("publicKey %q", got.PublicKey)
		}
		if !vtExtraRE.MatchString(got.ExtraData) {
			t.Fatalf("extraData %q", got.ExtraData)
		}
		vtReparse(t, got, ParseUserDecrypt, func(r UserDecryptRequest) Request { return Request{UserDecrypt: &r} })
	})
}

func vtUnifiedFields() map[string]any {
	return map[string]any{
		"attestationType": "eip712-unified-user-decrypt-v1",
		"attestedPayload": map[string]any{
			"version": "2.0",
			"type":    "user_decryption",
			"handles": []any{
				map[string]any{"ctHandle": vtHandle(1337, 0xa0), "contractAddress": vtContract, "ownerAddress": vtUser},
				map[string]any{"ctHandle": vtHandle(1337, 0x10), "contractAddress": vtOther, "ownerAddress": vtDelegate},
			},
			"userAddress":      vtUser,
			"allowedContracts": []any{vtContract, vtOther},
			"requestValidity":  map[string]any{"startTimestamp": "1700000000", "durationSeconds": "86400"},
			"publicKey":        "0x" + vtPublicKey,
			"extraData":        "0x00",
		},
		"signature": "0x" + vtSignature,
	}
}

func vtUnifiedPayload(m map[string]any) map[string]any { return m["attestedPayload"].(map[string]any) }

func vtUnifiedEntry(m map[string]any, i int) map[string]any {
	return vtUnifiedPayload(m)["handles"].([]any)[i].(map[string]any)
}

func TestParseUnifiedUserDecrypt(t *testing.T) {
	setP := func(k string, v any) func(map[string]any) {
		return func(m map[string]any) { vtUnifiedPayload(m)[k] = v }
	}
	vtRun(t, vtUnifiedFields, ParseUnifiedUserDecrypt, []vtCase[UnifiedUserDecryptRequest]{
		{name: "handles of more than 2048 bits in all are refused naming the list", edit: func(m map[string]any) {
			var entries []any
			for _, h := range vtTypedHandles(9, 8) {
				entries = append(entries, map[string]any{"ctHandle": h, "contractAddress": vtContract, "ownerAddress": vtUser})
			}
			vtUnifiedPayload(m)["handles"] = entries
		}, label: LabelValidationFailed, want: []FieldIssue{vtIssue("attestedPayload.handles", "must decrypt at most 2048 bits in all (the gateway's limit), has 2304")}},
		{name: "an envelope as the reference's document has it is accepted and normalized", check: func(t *testing.T, got UnifiedUserDecryptRequest) {
			want := UnifiedUserDecryptRequest{
				Handles: []HandleEntry{
					{Handle: strings.ToLower(vtHandle(1337, 0xa0)), ContractAddress: strings.ToLower(vtContract), OwnerAddress: strings.ToLower(vtUser)},
					{Handle: strings.ToLower(vtHandle(1337, 0x10)), ContractAddress: strings.ToLower(vtOther), OwnerAddress: strings.ToLower(vtDelegate)},
				},
				UserAddress:      strings.ToLower(vtUser),
				AllowedContracts: []string{strings.ToLower(vtContract), strings.ToLower(vtOther)},
				StartTimestamp:   1700000000, DurationSeconds: 86400,
				PublicKey: strings.ToLower(vtPublicKey), ExtraData: "0x00", Signature: strings.ToLower(vtSignature),
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got  %+v\nwant %+v", got, want)
			}
			if got.ChainID() != 1337 {
				t.Fatalf("ChainID() = %d, want 1337", got.ChainID())
			}
		}},
		{name: "an empty signature (a contract wallet's) is accepted", edit: func(m map[string]any) { m["signature"] = "" },
			check: func(t *testing.T, got UnifiedUserDecryptRequest) {
				if got.Signature != "" {
					t.Fatalf("signature %q, want empty", got.Signature)
				}
			}},
		{name: "a signature of any length is a wallet's to judge", edit: func(m map[string]any) { m["signature"] = "0x" + strings.Repeat("ab", 200) }},
		{name: "allowedContracts may be empty (any contract)", edit: setP("allowedContracts", []any{})},
		{name: "every envelope field is required", raw: `{}`, label: LabelMissingFields, want: []FieldIssue{
			vtIssue("attestationType", "is required"), vtIssue("attestedPayload", "is required"), vtIssue("signature", "is required"),
		}},
		{name: "every payload field is required", edit: func(m map[string]any) { m["attestedPayload"] = map[string]any{} },
			label: LabelMissingFields, want: []FieldIssue{
				vtIssue("attestedPayload.version", "is required"), vtIssue("attestedPayload.type", "is required"),
				vtIssue("attestedPayload.handles", "is required"), vtIssue("attestedPayload.userAddress", "is required"),
				vtIssue("attestedPayload.allowedContracts", "is required"), vtIssue("attestedPayload.requestValidity", "is required"),
				vtIssue("attestedPayload.publicKey", "is required"), vtIssue("attestedPayload.extraData", "is required"),
			}},
		{name: "an entry's owner is required", edit: func(m map[string]any) { delete(vtUnifiedEntry(m, 1), "ownerAddress") },
			label: LabelMissingFields, want: []FieldIssue{vtIssue("attestedPayload.handles[1].ownerAddress", "is required")}},
		{name: "another attestation type is refused", edit: func(m map[string]any) { m["attestationType"] = "solana-ed25519-v1" },
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("attestationType", `must be "eip712-unified-user-decrypt-v1"`)}},
		{name: "another payload version or type is refused", edit: func(m map[string]any) {
			vtUnifiedPayload(m)["version"] = "1.0"
			vtUnifiedPayload(m)["type"] = "public_decryption"
		}, label: LabelValidationFailed, want: []FieldIssue{
			vtIssue("attestedPayload.version", `must be "2.0"`), vtIssue("attestedPayload.type", `must be "user_decryption"`),
		}},
		{name: "a v2 body is not an envelope", raw: `{"handleContractPairs":[],"signature":""}`, label: LabelMissingFields, want: []FieldIssue{
			vtIssue("attestationType", "is required"), vtIssue("attestedPayload", "is required"),
		}},
		{name: "unknown fields are refused where they are", edit: func(m map[string]any) {
			m["contractsChainId"] = 1337
			vtUnifiedPayload(m)["durationDays"] = "1"
			vtUnifiedEntry(m, 0)["handle"] = vtHandle(1337, 1)
		}, label: LabelValidationFailed, want: []FieldIssue{
			vtIssue("attestedPayload.handles[0].handle", "is not a known field"),
			vtIssue("attestedPayload.durationDays", "is not a known field"),
			vtIssue("contractsChainId", "is not a known field"),
		}},
		{name: "a signature without 0x, or not hex, is refused", edit: func(m map[string]any) { m["signature"] = vtSignature },
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("signature", "0x-prefixed")}},
		{name: "a public key without 0x, or empty, is refused", edit: setP("publicKey", "0x"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("attestedPayload.publicKey", "at least one byte")}},
		{name: "handles must not be empty", edit: setP("handles", []any{}),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("attestedPayload.handles", "must not be empty")}},
		{name: "a bad handle and a bad owner are named", edit: func(m map[string]any) {
			vtUnifiedEntry(m, 0)["ctHandle"] = "0x1234"
			vtUnifiedEntry(m, 1)["ownerAddress"] = vtWrongSumAddr
		}, label: LabelValidationFailed, want: []FieldIssue{
			vtIssue("attestedPayload.handles[0].ctHandle", ""), vtIssue("attestedPayload.handles[1].ownerAddress", "checksum"),
		}},
		{name: "an entry given twice is refused", edit: func(m map[string]any) {
			p := vtUnifiedPayload(m)
			p["handles"] = append(p["handles"].([]any), vtUnifiedEntry(m, 0))
		}, label: LabelValidationFailed, want: []FieldIssue{vtIssue("attestedPayload.handles[2].ctHandle", "repeats the handle of attestedPayload.handles[0]")}},
		{name: "a handle given twice, with another contract or owner, is refused", edit: func(m map[string]any) {
			vtUnifiedEntry(m, 1)["ctHandle"] = vtUnifiedEntry(m, 0)["ctHandle"]
		}, label: LabelValidationFailed, want: []FieldIssue{vtIssue("attestedPayload.handles[1].ctHandle", "repeats the handle of attestedPayload.handles[0]")}},
		{name: "a handle of a contract outside a non-empty allowedContracts is refused", edit: setP("allowedContracts", []any{vtContract}),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("attestedPayload.handles[1].contractAddress", "must be one of attestedPayload.allowedContracts")}},
		{name: "the user among allowedContracts is refused", edit: setP("allowedContracts", []any{vtContract, vtOther, vtUser}),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("attestedPayload.userAddress", "must not be one of allowedContracts")}},
		{name: "handles of two host chains are refused", edit: func(m map[string]any) { vtUnifiedEntry(m, 1)["ctHandle"] = vtHandle(8009, 0x10) },
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("attestedPayload.handles[1].ctHandle", "is on host chain 8009")}},
		{name: "a handle of a chain not served is refused", edit: func(m map[string]any) {
			vtUnifiedEntry(m, 0)["ctHandle"] = vtHandle(9999, 0xa0)
			vtUnifiedEntry(m, 1)["ctHandle"] = vtHandle(9999, 0x10)
		}, label: LabelHostChainIDNotSupported, want: []FieldIssue{vtIssue("attestedPayload.handles[0].ctHandle", "9999")}},
		{name: "too many allowed contracts are refused", edit: setP("allowedContracts", vtAddrList(11)),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("attestedPayload.allowedContracts", "at most 10")}},
		{name: "a validity window of 0 s or beyond 365 days is refused", edit: setP("requestValidity", map[string]any{"startTimestamp": "0", "durationSeconds": "31536001"}),
			label: LabelValidationFailed, want: []FieldIssue{
				vtIssue("attestedPayload.requestValidity.startTimestamp", "greater than 0"),
				vtIssue("attestedPayload.requestValidity.durationSeconds", "at most 31536000"),
			}},
		{name: "a window in days is not one in seconds", edit: setP("requestValidity", map[string]any{"startTimestamp": "1700000000", "durationDays": "1"}),
			label: LabelMissingFields, want: []FieldIssue{vtIssue("attestedPayload.requestValidity.durationSeconds", "is required")}},
		{name: "extraData follows the tagged format", edit: setP("extraData", "0x01"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("attestedPayload.extraData", "version 0x01")}},
		{name: "the user must not be the zero address", edit: setP("userAddress", "0x0000000000000000000000000000000000000000"),
			label: LabelValidationFailed, want: []FieldIssue{vtIssue("attestedPayload.userAddress", "zero address")}},
		{name: "a body that is not JSON is malformed", raw: `{"attestationType":`, label: LabelMalformedJSON},
	})
}

// A unified request and its content hash: another signature or window is another job, and it
// never shares a job with a v2 request.
func TestUnifiedRequestsShareAJobOnlyWhenEverythingTheGatewayGetsIsTheSame(t *testing.T) {
	parse := func(edit func(m map[string]any)) string {
		t.Helper()
		m := vtUnifiedFields()
		if edit != nil {
			edit(m)
		}
		b, _ := json.Marshal(m)
		u, err := ParseUnifiedUserDecrypt(b, vtConfig)
		if err != nil {
			t.Fatal(err)
		}
		return ContentHash(Request{UnifiedUserDecrypt: &u})
	}
	base := parse(nil)
	if base == "" {
		t.Fatal("no content hash")
	}
	if parse(func(m map[string]any) { m["signature"] = "0x" + strings.ToUpper(m["signature"].(string)[2:]) }) != base {
		t.Error("the same signature in upper case is another request")
	}
	for name, edit := range map[string]func(m map[string]any){
		"signature":        func(m map[string]any) { m["signature"] = "" },
		"owner":            func(m map[string]any) { vtUnifiedEntry(m, 1)["ownerAddress"] = vtUser },
		"contract":         func(m map[string]any) { vtUnifiedEntry(m, 1)["contractAddress"] = vtContract },
		"allowedContracts": func(m map[string]any) { vtUnifiedPayload(m)["allowedContracts"] = []any{} },
		"window": func(m map[string]any) {
			vtUnifiedPayload(m)["requestValidity"].(map[string]any)["durationSeconds"] = "86401"
		},
		"publicKey": func(m map[string]any) { vtUnifiedPayload(m)["publicKey"] = "0xabcd" },
	} {
		if parse(edit) == base {
			t.Errorf("changing %s leaves the content hash as it was", name)
		}
	}
	if parse(func(m map[string]any) { vtUnifiedPayload(m)["userAddress"] = vtCapsAddress }) == base {
		t.Error("another user leaves the content hash as it was")
	}
	if parse(func(m map[string]any) { vtUnifiedPayload(m)["userAddress"] = strings.ToLower(vtUser) }) != base {
		t.Error("the same user written in lowercase is another request")
	}
}
