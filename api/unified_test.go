package api

import (
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"relayer/domain"
	"relayer/domain/domaintest"
	"relayer/projections"
)

// v3Body is a POST /v3/user-decrypt envelope for user over handle n (owned by the user, under
// contract jtAddr(1)), signed by signer over the unified EIP-712 typed data (signer nil: 65 zero
// bytes); edit changes the body after signing.
func v3Body(tb testing.TB, n uint64, user string, signer *ecdsa.PrivateKey, edit func(m map[string]any)) []byte {
	tb.Helper()
	m := map[string]any{
		"attestationType": domain.AttestationEIP712UnifiedV1,
		"attestedPayload": map[string]any{
			"version":          "2.0",
			"type":             "user_decryption",
			"handles":          []any{map[string]any{"ctHandle": jtHandle(n), "contractAddress": jtAddr(1), "ownerAddress": user}},
			"userAddress":      user,
			"allowedContracts": []string{jtAddr(1)},
			"requestValidity":  map[string]any{"startTimestamp": jtStart, "durationSeconds": "864000"},
			"publicKey":        "0x2000000000000000abcd",
			"extraData":        "0x00",
		},
		"signature": "0x" + strings.Repeat("00", 65),
	}
	if signer != nil {
		domaintest.SignUnified(tb, m, signer, admDecryption, jtConfig().Validation)
	}
	return jtEdited(tb, m, edit)
}

func v3Payload(m map[string]any) map[string]any { return m["attestedPayload"].(map[string]any) }

// A v3 request is a user decrypt job, another representation at the edge: accepted once per
// content, polled on either status route, and of kind user-decrypt in the read models.
func TestAV3UserDecryptIsAUserDecryptJob(t *testing.T) {
	env := startJT(t, admConfig)
	user := admKey(t, "user")
	body := v3Body(t, 1, admAddr(user), user, nil)

	r := env.do(http.MethodPost, "/v3/user-decrypt", body)
	r.want(t, http.StatusAccepted, "")
	id := r.jobID(t)
	if r.retryAfter(t) < 1 {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	if again := env.do(http.MethodPost, "/v3/user-decrypt", body); again.jobID(t) != id {
		t.Fatalf("the same request again got job %s, the first %s", again.jobID(t), id)
	}
	jid, err := domain.ParseJobID(id)
	if err != nil {
		t.Fatal(err)
	}
	j, ok := env.set.Job(jid)
	if !ok || j.Kind != domain.UserDecrypt || j.Status != domain.Queued {
		t.Fatalf("the job in the read models: %+v (found %v), want a queued user-decrypt", j, ok)
	}
	for _, path := range []string{"/v3/user-decrypt/", "/v2/user-decrypt/"} {
		p := env.do(http.MethodGet, path+id, nil)
		p.want(t, http.StatusAccepted, "")
		if !strings.Contains(string(p.Body), `"state":"queued"`) {
			t.Fatalf("GET %s: %s", path, p.Body)
		}
	}
	env.do(http.MethodGet, "/v2/delegated-user-decrypt/"+id, nil).want(t, http.StatusNotFound, labelNotFound)

	// A v2 user decrypt is answered on the v3 status route too, as the reference's is.
	v2 := env.do(http.MethodPost, "/v2/user-decrypt", admBody(t, domain.UserDecrypt, 2, admAddr(user), user, nil)).jobID(t)
	env.do(http.MethodGet, "/v3/user-decrypt/"+v2, nil).want(t, http.StatusAccepted, "")
	env.do(http.MethodGet, "/v3/user-decrypt/"+strings.Repeat("0", 8)+"-0000-4000-8000-"+strings.Repeat("0", 12), nil).want(t, http.StatusNotFound, labelNotFound)
}

// A v3 request's signature is checked before anything is recorded, over the unified typed
// data: a forged one is a 400 naming signature, and the log does not move.
func TestAV3UserDecryptWithAForgedSignatureIsRefusedAndNothingIsAppended(t *testing.T) {
	chain := &admChain{now: jtEpoch}
	env := startJTChain(t, chain, admConfig)
	user, other := admKey(t, "user"), admKey(t, "other")

	cases := []struct {
		name, issue string
		body        []byte
	}{
		{"65 zero bytes", "not a signature", v3Body(t, 1, admAddr(user), nil, nil)},
		{"a random signature", "", v3Body(t, 2, admAddr(user), nil, func(m map[string]any) {
			m["signature"] = "0x" + hex.EncodeToString(crypto.Keccak256([]byte("r"))) + hex.EncodeToString(crypto.Keccak256([]byte("s"))) + "1b"
		})},
		{"a valid signature by another key", "recovers to " + admAddr(other), v3Body(t, 3, admAddr(user), other, nil)},
		{"the user's v2 signature of the same request", "", v3Body(t, 4, admAddr(user), nil, func(m map[string]any) {
			var v2 map[string]any
			_ = json.Unmarshal(admBody(t, domain.UserDecrypt, 4, admAddr(user), user, nil), &v2)
			m["signature"] = "0x" + v2["signature"].(string)
		})},
		{"the allowed contracts changed after signing", "is not attestedPayload.userAddress's signature", v3Body(t, 5, admAddr(user), user, func(m map[string]any) {
			v3Payload(m)["allowedContracts"] = []string{}
		})},
		{"the validity changed after signing", "is not attestedPayload.userAddress's signature", v3Body(t, 6, admAddr(user), user, func(m map[string]any) {
			v3Payload(m)["requestValidity"] = map[string]any{"startTimestamp": jtStart, "durationSeconds": "864001"}
		})},
		{"an empty signature for an account without code", "", v3Body(t, 7, admAddr(user), nil, func(m map[string]any) { m["signature"] = "" })},
	}
	for _, c := range cases {
		before, count := env.head(), env.refusals("user-decrypt", projections.CheckSignature)
		r := env.do(http.MethodPost, "/v3/user-decrypt", c.body)
		r.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
		if d := r.Env.Error.Details; len(d) != 1 || d[0].Field != "signature" || !strings.Contains(d[0].Issue, c.issue) {
			t.Fatalf("%s: details %+v, want the field signature with %q", c.name, d, c.issue)
		}
		if env.head() != before {
			t.Fatalf("%s: the refused request appended to the log", c.name)
		}
		if got := env.refusals("user-decrypt", projections.CheckSignature); got != count+1 {
			t.Fatalf("%s: relayer_admission_refusals_total{check=signature} went from %v to %v", c.name, count, got)
		}
	}

	// The user's own signature passes without asking the chain.
	env.do(http.MethodPost, "/v3/user-decrypt", v3Body(t, 8, admAddr(user), user, nil)).want(t, http.StatusAccepted, "")
	if chain.walletCalls != len(cases) {
		t.Fatalf("the chain was asked %d times, want once per refused request (%d)", chain.walletCalls, len(cases))
	}
	// A contract wallet that accepts an empty signature: accepted, the wallet asked with none.
	chain.hasCode, chain.valid = true, true
	wallet := jtAddr(40)
	env.do(http.MethodPost, "/v3/user-decrypt", v3Body(t, 9, wallet, nil, func(m map[string]any) { m["signature"] = "" })).want(t, http.StatusAccepted, "")
	if "0x"+hex.EncodeToString(chain.lastAccount[:]) != wallet || chain.lastSignatureLen != 0 {
		t.Fatalf("the wallet was asked about %x with %d bytes", chain.lastAccount, chain.lastSignatureLen)
	}
}

// A malformed envelope is refused before its signature is looked at, naming the field, and
// nothing is appended.
func TestAMalformedV3EnvelopeIsRefusedNamingTheField(t *testing.T) {
	chain := &admChain{now: jtEpoch}
	env := startJTChain(t, chain, admConfig)
	user := admKey(t, "user")
	for _, c := range []struct {
		name, label, field string
		body               []byte
	}{
		{"another attestation type", domain.LabelValidationFailed, "attestationType",
			v3Body(t, 1, admAddr(user), user, func(m map[string]any) { m["attestationType"] = "eip712-user-decrypt-v0" })},
		{"no handles", domain.LabelMissingFields, "attestedPayload.handles",
			v3Body(t, 2, admAddr(user), user, func(m map[string]any) { delete(v3Payload(m), "handles") })},
		{"a v2 field in the payload", domain.LabelValidationFailed, "attestedPayload.contractAddresses",
			v3Body(t, 3, admAddr(user), user, func(m map[string]any) { v3Payload(m)["contractAddresses"] = []string{jtAddr(1)} })},
		{"a signature without 0x", domain.LabelValidationFailed, "signature",
			v3Body(t, 4, admAddr(user), user, func(m map[string]any) { m["signature"] = strings.TrimPrefix(m["signature"].(string), "0x") })},
		{"a payload that is a string", domain.LabelValidationFailed, "attestedPayload",
			v3Body(t, 5, admAddr(user), user, func(m map[string]any) { m["attestedPayload"] = "{}" })},
		{"a handle of a chain not served", domain.LabelHostChainIDNotSupported, "attestedPayload.handles[0].ctHandle",
			v3Body(t, 6, admAddr(user), user, func(m map[string]any) {
				v3Payload(m)["handles"].([]any)[0].(map[string]any)["ctHandle"] = "0x" + strings.Repeat("ab", 22) + "00000000000000090000"
			})},
		{"a window the chain's time has passed", domain.LabelValidationFailed, "attestedPayload.requestValidity.durationSeconds",
			v3Body(t, 7, admAddr(user), user, func(m map[string]any) {
				v3Payload(m)["requestValidity"] = map[string]any{"startTimestamp": jtStart, "durationSeconds": "60"}
			})},
	} {
		before := env.head()
		r := env.do(http.MethodPost, "/v3/user-decrypt", c.body)
		r.want(t, http.StatusBadRequest, c.label)
		if d := r.Env.Error.Details; len(d) != 1 || d[0].Field != c.field {
			t.Fatalf("%s: details %+v, want one naming %s", c.name, d, c.field)
		}
		if env.head() != before {
			t.Fatalf("%s: the refused request appended to the log", c.name)
		}
	}
	r := env.do(http.MethodPost, "/v3/user-decrypt", []byte(`{"attestationType":`))
	r.want(t, http.StatusBadRequest, domain.LabelMalformedJSON)
	if chain.walletCalls != 0 {
		t.Fatalf("a malformed request made the chain be asked %d times", chain.walletCalls)
	}
}

// An externally owned account's signature with v written 0 or 1 is the same signature as with
// 27 or 28: the two forms make one job, which records the form the gateway's ECDSA takes.
func TestAV3SignatureWithVZeroOrOneIsTheSameJobAsWith27Or28(t *testing.T) {
	env := startJT(t, admConfig)
	user := admKey(t, "user")
	body := v3Body(t, 1, admAddr(user), user, nil)
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	sig := m["signature"].(string)
	v := sig[len(sig)-2:]
	low := map[string]string{"1b": "00", "1c": "01"}[v]
	if low == "" {
		t.Fatalf("signature ends %q, want 1b or 1c", v)
	}
	m["signature"] = sig[:len(sig)-2] + low
	lowBody, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}

	r := env.do(http.MethodPost, "/v3/user-decrypt", lowBody)
	r.want(t, http.StatusAccepted, "")
	id := r.jobID(t)
	if again := env.do(http.MethodPost, "/v3/user-decrypt", body); again.jobID(t) != id {
		t.Fatalf("v as 27/28 got job %s, v as 0/1 job %s: want one job", again.jobID(t), id)
	}
	jid, err := domain.ParseJobID(id)
	if err != nil {
		t.Fatal(err)
	}
	s, err := (&projections.Executor{Store: env.store, Codec: projections.NewCodec()}).Load(t.Context(), jid)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Request.UnifiedUserDecrypt.Signature; !strings.HasSuffix(got, v) || got != strings.TrimPrefix(sig, "0x") {
		t.Fatalf("recorded signature %q, want the 27/28 form %q", got, sig)
	}
}
