package api

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"relayer/domain"
	"relayer/projections"
)

// The Decryption contract the admission tests sign under.
const admDecryption = "0x7978B7077F80E7e76599957B10C9b124D66685a1"

func admConfig(c *Config) {
	c.Admission = AdmissionConfig{VerifySignatures: true, DecryptionContract: admDecryption}
}

func admKey(tb testing.TB, seed string) *ecdsa.PrivateKey {
	tb.Helper()
	k, err := crypto.ToECDSA(crypto.Keccak256([]byte("admission test " + seed)))
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

func admAddr(k *ecdsa.PrivateKey) string {
	return strings.ToLower(crypto.PubkeyToAddress(k.PublicKey).Hex())
}

// admBody is a user decrypt (or delegated user decrypt, with delegator) for user, n making it
// unique, signed by signer over the typed data the public SDK builds; edit changes the body after
// signing.
func admBody(tb testing.TB, kind domain.Kind, n uint64, user string, signer *ecdsa.PrivateKey, edit func(map[string]any)) []byte {
	tb.Helper()
	var m map[string]any
	if kind == domain.DelegatedUserDecrypt {
		m = map[string]any{
			"handleContractPairs": []any{map[string]any{"handle": jtHandle(n), "contractAddress": jtAddr(1)}},
			"contractsChainId":    "1337",
			"contractAddresses":   []string{jtAddr(1)},
			"delegatorAddress":    jtAddr(2),
			"delegateAddress":     user,
			"startTimestamp":      jtStart,
			"durationDays":        "10",
			"signature":           strings.Repeat("00", 65),
			"publicKey":           "2000000000000000abcd",
			"extraData":           "0x00",
		}
	} else {
		m = map[string]any{
			"handleContractPairs": []any{map[string]any{"handle": jtHandle(n), "contractAddress": jtAddr(1)}},
			"requestValidity":     map[string]any{"startTimestamp": jtStart, "durationDays": "10"},
			"contractsChainId":    1337,
			"contractAddresses":   []string{jtAddr(1)},
			"userAddress":         user,
			"signature":           strings.Repeat("00", 65),
			"publicKey":           "2000000000000000abcd",
			"extraData":           "0x00",
		}
	}
	if signer != nil {
		raw, _ := json.Marshal(m)
		req, err := domain.ParseRequest(kind, raw, jtConfig().Validation)
		if err != nil {
			tb.Fatal(err)
		}
		sr, _, err := domain.SignedPart(req, admDecryption)
		if err != nil {
			tb.Fatal(err)
		}
		sig, err := crypto.Sign(sr.Digest[:], signer)
		if err != nil {
			tb.Fatal(err)
		}
		sig[64] += 27
		m["signature"] = hex.EncodeToString(sig)
	}
	return jtEdited(tb, m, edit)
}

func (e *jtEnv) refusals(kind, check string) float64 {
	e.t.Helper()
	r := e.do(http.MethodGet, "/metrics", nil)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(r.Body))
	if err != nil {
		e.t.Fatal(err)
	}
	for _, m := range fams["relayer_admission_refusals_total"].GetMetric() {
		var k, c string
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "kind":
				k = l.GetValue()
			case "check":
				c = l.GetValue()
			}
		}
		if k == kind && c == check {
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

// head is the store's head position: a refused submission must not move it.
func (e *jtEnv) head() uint64 {
	e.t.Helper()
	h, err := e.store.Head(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return uint64(h)
}

func TestAdmissionChecksTheUsersSignature(t *testing.T) {
	env := startJT(t, admConfig)
	user, other := admKey(t, "user"), admKey(t, "other")
	for _, kind := range []domain.Kind{domain.UserDecrypt, domain.DelegatedUserDecrypt} {
		t.Run(kind.String(), func(t *testing.T) {
			path := "/v2/" + kind.String()
			signerField := "userAddress"
			if kind == domain.DelegatedUserDecrypt {
				signerField = "delegateAddress"
			}
			// Signed by the user, as the SDK signs: accepted, in either v form.
			env.do(http.MethodPost, path, admBody(t, kind, 1, admAddr(user), user, nil)).want(t, http.StatusAccepted, "")
			env.do(http.MethodPost, path, admBody(t, kind, 2, admAddr(user), user, func(m map[string]any) {
				sig, _ := hex.DecodeString(m["signature"].(string))
				sig[64] -= 27
				m["signature"] = hex.EncodeToString(sig)
			})).want(t, http.StatusAccepted, "")

			randomSig := func(m map[string]any) {
				m["signature"] = hex.EncodeToString(crypto.Keccak256([]byte("x"), []byte("y"))) + hex.EncodeToString(crypto.Keccak256([]byte("z"))) + "1b"
			}
			cases := []struct {
				name  string
				body  []byte
				issue string
				check string
			}{
				{"a random signature", admBody(t, kind, 3, admAddr(user), nil, randomSig), "", projections.CheckSignature},
				{"65 zero bytes", admBody(t, kind, 4, admAddr(user), nil, nil), "not a signature", projections.CheckSignature},
				{"a valid signature by another key", admBody(t, kind, 5, admAddr(user), other, nil), "recovers to " + admAddr(other), projections.CheckSignature},
				{"a field changed after signing", admBody(t, kind, 6, admAddr(user), user, func(m map[string]any) {
					m["publicKey"] = "2000000000000000abce"
				}), "is not " + signerField + "'s signature", projections.CheckSignature},
				{"the contract list changed after signing", admBody(t, kind, 7, admAddr(user), user, func(m map[string]any) {
					m["contractAddresses"] = []string{jtAddr(1), jtAddr(9)}
				}), "is not " + signerField + "'s signature", projections.CheckSignature},
			}
			for _, c := range cases {
				before, count := env.head(), env.refusals(kind.String(), c.check)
				r := env.do(http.MethodPost, path, c.body)
				r.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
				if len(r.Env.Error.Details) != 1 || r.Env.Error.Details[0].Field != "signature" || !strings.Contains(r.Env.Error.Details[0].Issue, c.issue) {
					t.Fatalf("%s: details %+v, want the field signature with %q", c.name, r.Env.Error.Details, c.issue)
				}
				if env.head() != before {
					t.Fatalf("%s: the refused request appended to the log", c.name)
				}
				if got := env.refusals(kind.String(), c.check); got != count+1 {
					t.Fatalf("%s: relayer_admission_refusals_total{check=%q} went from %v to %v", c.name, c.check, count, got)
				}
			}
		})
	}
	// The delegator's signature is not the delegate's.
	delegator := admKey(t, "delegator")
	r := env.do(http.MethodPost, "/v2/delegated-user-decrypt", admBody(t, domain.DelegatedUserDecrypt, 8, admAddr(user), delegator, func(m map[string]any) {
		m["delegatorAddress"] = admAddr(delegator)
	}))
	r.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
}

// Without VerifySignatures (a relayer whose gateway checks for itself), any signature passes.
func TestAdmissionSignatureCheckCanBeTurnedOff(t *testing.T) {
	env := startJT(t)
	env.do(http.MethodPost, "/v2/user-decrypt", admBody(t, domain.UserDecrypt, 1, jtAddr(2), nil, nil)).want(t, http.StatusAccepted, "")
}

// admChain is an admission chain port with a fixed time and fixed wallet verdicts: the API's
// handling of each answer is what is tested here; the gateway adapter's answers on a real chain
// are tested in workers/gateway and end to end in cmd/relayer.
type admChain struct {
	now              time.Time
	timeErr          error
	hasCode, valid   bool
	walletErr        error
	walletCalls      int
	lastAccount      [20]byte
	lastDigest       [32]byte
	lastSignatureLen int
}

func (c *admChain) ChainTime(context.Context) (time.Time, error) { return c.now, c.timeErr }

func (c *admChain) WalletSignature(_ context.Context, account [20]byte, digest [32]byte, sig []byte) (bool, bool, error) {
	c.walletCalls++
	c.lastAccount, c.lastDigest, c.lastSignatureLen = account, digest, len(sig)
	return c.hasCode, c.valid, c.walletErr
}

func TestAdmissionAsksContractWallets(t *testing.T) {
	chain := &admChain{now: jtEpoch}
	env := startJTChain(t, chain, admConfig)
	wallet, owner := jtAddr(40), admKey(t, "owner")

	// An EOA's own signature needs no chain call.
	user := admKey(t, "user")
	env.do(http.MethodPost, "/v2/user-decrypt", admBody(t, domain.UserDecrypt, 1, admAddr(user), user, nil)).want(t, http.StatusAccepted, "")
	if chain.walletCalls != 0 {
		t.Fatalf("a signature by userAddress's key asked the chain %d times", chain.walletCalls)
	}

	// A wallet that accepts: 202, and it was asked about this request's digest.
	chain.hasCode, chain.valid = true, true
	env.do(http.MethodPost, "/v2/user-decrypt", admBody(t, domain.UserDecrypt, 2, wallet, owner, nil)).want(t, http.StatusAccepted, "")
	if chain.walletCalls != 1 || "0x"+hex.EncodeToString(chain.lastAccount[:]) != wallet || chain.lastSignatureLen != 65 {
		t.Fatalf("wallet asked %d times, last about %x with %d bytes", chain.walletCalls, chain.lastAccount, chain.lastSignatureLen)
	}

	// A wallet that refuses: 400 naming ERC-1271.
	chain.valid = false
	before := env.head()
	r := env.do(http.MethodPost, "/v2/user-decrypt", admBody(t, domain.UserDecrypt, 3, wallet, owner, nil))
	r.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
	if !strings.Contains(r.Env.Error.Details[0].Issue, "ERC-1271") || env.head() != before {
		t.Fatalf("refused by the wallet: %s (head %d -> %d)", r.Body, before, env.head())
	}
	if env.refusals("user-decrypt", projections.CheckWalletSignature) != 1 {
		t.Fatal("the wallet's refusal was not counted")
	}

	// No code at the address: the signature is simply wrong.
	chain.hasCode = false
	env.do(http.MethodPost, "/v2/user-decrypt", admBody(t, domain.UserDecrypt, 4, wallet, owner, nil)).want(t, http.StatusBadRequest, domain.LabelValidationFailed)

	// The host chain cannot be asked: 503 with a Retry-After, nothing appended, no guess.
	chain.walletErr = errors.New("dial tcp: connection refused")
	before = env.head()
	r = env.do(http.MethodPost, "/v2/user-decrypt", admBody(t, domain.UserDecrypt, 5, wallet, owner, nil))
	r.want(t, http.StatusServiceUnavailable, labelGatewayNotReachable)
	if r.Header.Get("Retry-After") != strconv.Itoa(int(projections.WalletRetryAfter/time.Second)) || env.head() != before {
		t.Fatalf("wallet unreachable: Retry-After %q, head %d -> %d", r.Header.Get("Retry-After"), before, env.head())
	}
}

// The validity window is judged by the chain's time, not the server's clock; a chain whose
// time cannot be read leaves the server's clock to judge.
func TestAdmissionJudgesTheWindowByTheChainsTime(t *testing.T) {
	chain := &admChain{}
	env := startJTChain(t, chain, admConfig, func(c *Config) { c.Admission.StartSkew = 30 * time.Second })
	user := admKey(t, "user")
	start := jtEpoch.Add(-24 * time.Hour).Unix() // jtStart; ten days long

	// Eleven days on, by the chain: expired, though the server's clock says it holds.
	chain.now = jtEpoch.Add(11 * 24 * time.Hour)
	r := env.do(http.MethodPost, "/v2/user-decrypt", admBody(t, domain.UserDecrypt, 1, admAddr(user), user, nil))
	r.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
	if d := r.Env.Error.Details; len(d) != 1 || d[0].Field != "requestValidity.durationDays" || !strings.Contains(d[0].Issue, "chain's time "+strconv.FormatInt(chain.now.Unix(), 10)) {
		t.Fatalf("expired by the chain's time: %s", r.Body)
	}
	if env.refusals("user-decrypt", projections.CheckValidityEnd) != 1 {
		t.Fatal("the expired window was not counted")
	}

	// A start 20 s past the chain's time is within the skew; 40 s is not.
	chain.now = time.Unix(start-20, 0)
	env.do(http.MethodPost, "/v2/user-decrypt", admBody(t, domain.UserDecrypt, 2, admAddr(user), user, nil)).want(t, http.StatusAccepted, "")
	chain.now = time.Unix(start-40, 0)
	r = env.do(http.MethodPost, "/v2/user-decrypt", admBody(t, domain.UserDecrypt, 3, admAddr(user), user, nil))
	r.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
	if d := r.Env.Error.Details; len(d) != 1 || d[0].Field != "requestValidity.startTimestamp" {
		t.Fatalf("a start beyond the skew: %s", r.Body)
	}

	// A window ending within a minute of the chain's time is refused: its transaction would be
	// mined after it (a revert the relayer pays for); two minutes before its end it is fine.
	end := start + 10*86400
	chain.now = time.Unix(end-30, 0)
	r = env.do(http.MethodPost, "/v2/user-decrypt", admBody(t, domain.UserDecrypt, 5, admAddr(user), user, nil))
	r.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
	chain.now = time.Unix(end-120, 0)
	env.do(http.MethodPost, "/v2/user-decrypt", admBody(t, domain.UserDecrypt, 6, admAddr(user), user, nil)).want(t, http.StatusAccepted, "")

	// The chain's time unknown: the server's clock (jtEpoch, inside the window) judges.
	chain.timeErr = errors.New("connection refused")
	env.do(http.MethodPost, "/v2/user-decrypt", admBody(t, domain.UserDecrypt, 4, admAddr(user), user, nil)).want(t, http.StatusAccepted, "")
}

func TestAdmissionConfigIsChecked(t *testing.T) {
	for _, c := range []struct {
		cfg   AdmissionConfig
		field string
	}{
		{AdmissionConfig{VerifySignatures: true}, "admission.decryption_contract"},
		{AdmissionConfig{VerifySignatures: true, DecryptionContract: "0x1234"}, "admission.decryption_contract"},
		{AdmissionConfig{VerifySignatures: true, DecryptionContract: "0x" + strings.Repeat("zz", 20)}, "admission.decryption_contract"},
		{AdmissionConfig{StartSkew: -time.Second}, "admission.start_skew"},
	} {
		cfg := jtConfig()
		cfg.Admission = c.cfg
		var ce *ConfigError
		if err := cfg.Validate(); !errors.As(err, &ce) || len(ce.Problems) != 1 || ce.Problems[0].Field != c.field {
			t.Fatalf("%+v: %v, want one problem with %s", c.cfg, err, c.field)
		}
	}
}
