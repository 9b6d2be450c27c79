package main

import (
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"relayer/domain"
	"relayer/workers/devchain"
	"relayer/workers/gateway/contracts"
)

// devDecryption is the development chain's Decryption contract, the verifying contract of the
// typed data users sign (README, "Using the SDK").
const devDecryption = "0x7978B7077F80E7e76599957B10C9b124D66685a1"

// signedBody returns body (a user decrypt or delegated user decrypt of kind, as JSON) with its
// "signature" made by key over the EIP-712 typed data the public SDK has users sign, under the
// development chain's Decryption contract.
func signedBody(tb testing.TB, kind domain.Kind, body map[string]any, key *ecdsa.PrivateKey) []byte {
	tb.Helper()
	raw, err := signBody(kind, body, key)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// signBody is signedBody for callers without a testing.TB (loadgen's signing, under the
// development chain's Decryption contract).
func signBody(kind domain.Kind, body map[string]any, key *ecdsa.PrivateKey) ([]byte, error) {
	return signBodyFor(kind, body, key, devDecryption)
}

// TestServeRefusesForgedUserDecryptsAndAsksContractWallets is the admission of issue 18 from
// outside: serve on the development chain, requests signed as the public SDK signs them, by keys
// and by the development ERC-1271 wallets. A forged request is refused with 400 before anything
// is appended (the log's head does not move) and counted; a genuine one, by a key or a wallet,
// is accepted and reaches its result on chain.
func TestServeRefusesForgedUserDecryptsAndAsksContractWallets(t *testing.T) {
	withEnv(t)
	dir := filepath.Join(t.TempDir(), "data")
	url, _, stderr, stop := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir)
	defer stop()

	app := "0x00000000000000000000000000000000000000c0"
	user := devchain.UserDevKey(3)
	wallet := devchain.WalletOwnerKey(0)
	walletAddr := walletAddress(t, 0)
	body := func(seed, userAddr string) map[string]any {
		h := contracts.TestHandle(contracts.ScenarioNone, t.Name()+seed)
		return map[string]any{
			"handleContractPairs": []any{map[string]any{"handle": "0x" + hex.EncodeToString(h[:]), "contractAddress": app}},
			"requestValidity":     map[string]any{"startTimestamp": strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10), "durationDays": "1"},
			"contractsChainId":    devchain.ChainID,
			"contractAddresses":   []string{app},
			"userAddress":         userAddr,
			"publicKey":           "2000000000000000abcd",
			"extraData":           "0x00",
		}
	}
	userAddr := crypto.PubkeyToAddress(user.PublicKey).Hex()

	// A forged signature: 64 random bytes of r and s, and a v.
	m := body("forged", userAddr)
	m["signature"] = hex.EncodeToString(crypto.Keccak256([]byte("forged r"))) + hex.EncodeToString(crypto.Keccak256([]byte("forged s"))) + "1b"
	forged, _ := json.Marshal(m)

	refused := []struct {
		name  string
		body  []byte
		check string
	}{
		{"65 random bytes as the signature", forged, "signature"},
		{"a valid signature by another key", signedBody(t, domain.UserDecrypt, body("other", userAddr), devchain.UserDevKey(4)), "signature"},
		{"a wallet's request signed by the other wallet's owner", signedBody(t, domain.UserDecrypt, body("w-other", walletAddr), devchain.WalletOwnerKey(1)), "wallet_signature"},
	}
	for _, c := range refused {
		code, b := postAppendingNothing(t, c.name, url, "/v2/user-decrypt", c.body)
		if code != http.StatusBadRequest || !strings.Contains(b, `"label":"validation_failed"`) || !strings.Contains(b, `"field":"signature"`) {
			t.Fatalf("%s: %d %s", c.name, code, b)
		}
		if n := metricValue(t, url, `relayer_admission_refusals_total{check="`+c.check+`",kind="user-decrypt"}`); n < 1 {
			t.Fatalf("%s: not counted (%v)", c.name, n)
		}
	}

	for _, c := range []struct {
		name string
		body []byte
	}{
		{"signed by the user's key", signedBody(t, domain.UserDecrypt, body("eoa", userAddr), user)},
		{"signed for a contract wallet by its owner", signedBody(t, domain.UserDecrypt, body("wallet", walletAddr), wallet)},
	} {
		id := accepted(t, c.name, url+"/v2/user-decrypt", c.body)
		if got := jobResult(t, c.name, url+"/v2/user-decrypt/"+id, stderr); !strings.Contains(string(got), `"status":"succeeded"`) {
			t.Fatalf("%s: %s", c.name, got)
		}
	}
}

// walletAddress is the development wallet i's address as serve prints it.
func walletAddress(t *testing.T, i int) string {
	t.Helper()
	return devchain.WalletAddress(i).Hex()
}

// post sends body as JSON and returns the status and the body.
func post(t *testing.T, url string, body []byte) (int, string) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// postAppendingNothing posts body as JSON to serve's path and returns the answer; the request,
// named what, fails the test if the log's head moved meanwhile (a refused request appends
// nothing; serve must have nothing else to do).
func postAppendingNothing(t *testing.T, what, url, path string, body []byte) (int, string) {
	t.Helper()
	head := metricValue(t, url, "relayer_log_head_position")
	code, b := post(t, url+path, body)
	if after := metricValue(t, url, "relayer_log_head_position"); after != head {
		t.Fatalf("%s: the log's head moved from %v to %v", what, head, after)
	}
	return code, b
}

// accepted posts body as JSON to url and returns the job id its 202 answer carries; any other
// answer fails the test, naming what was posted.
func accepted(t *testing.T, what, url string, body []byte) string {
	t.Helper()
	code, b := post(t, url, body)
	if code != http.StatusAccepted {
		t.Fatalf("%s: %d %s", what, code, b)
	}
	var env struct {
		Result struct {
			JobID string `json:"jobId"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(b), &env); err != nil || env.Result.JobID == "" {
		t.Fatalf("%s: %s", what, b)
	}
	return env.Result.JobID
}

// jobResult polls a job's status route (every 50 ms, for 30 s at most) until it answers 200, and
// returns that answer. An answer other than 202 with a Retry-After before it, or none in time,
// fails the test, naming what is awaited and quoting the server's log.
func jobResult(t *testing.T, what, statusURL string, log fmt.Stringer) []byte {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, got := httpGet(t, statusURL)
		switch {
		case res.StatusCode == http.StatusOK:
			return got
		case res.StatusCode != http.StatusAccepted || res.Header.Get("Retry-After") == "":
			t.Fatalf("%s: GET %d (Retry-After %q) %s\n%s", what, res.StatusCode, res.Header.Get("Retry-After"), got, log)
		case time.Now().After(deadline):
			t.Fatalf("%s: not done within 30 s: %s\n%s", what, got, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// metricValue is the value of the sample named (name, or name{labels} with the labels in the
// exposition's order) on /metrics; 0 when absent.
func metricValue(t *testing.T, url, sample string) float64 {
	t.Helper()
	_, b := httpGet(t, url+"/metrics")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, sample+" "); ok {
			var f float64
			if _, err := fmt.Sscan(v, &f); err == nil {
				return f
			}
		}
	}
	return 0
}
