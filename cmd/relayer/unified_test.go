package main

import (
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"relayer/domain"
	"relayer/domain/domaintest"
	"relayer/workers/devchain"
	"relayer/workers/gateway/contracts"
)

// unifiedBody is a POST /v3/user-decrypt envelope by user over one handle of its own (scenario
// none, unique by seed), signed by key over the unified EIP-712 typed data under the development
// chain's Decryption contract (key nil: signature left as edit sets it).
func unifiedBody(t *testing.T, seed, user string, key *ecdsa.PrivateKey, edit func(m map[string]any)) []byte {
	t.Helper()
	h := contracts.TestHandle(contracts.ScenarioNone, t.Name()+seed)
	app := "0x00000000000000000000000000000000000000c0"
	m := map[string]any{
		"attestationType": domain.AttestationEIP712UnifiedV1,
		"attestedPayload": map[string]any{
			"version":          "2.0",
			"type":             "user_decryption",
			"handles":          []any{map[string]any{"ctHandle": "0x" + hex.EncodeToString(h[:]), "contractAddress": app, "ownerAddress": user}},
			"userAddress":      user,
			"allowedContracts": []string{app},
			"requestValidity":  map[string]any{"startTimestamp": strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10), "durationSeconds": "86400"},
			"publicKey":        "0x2000000000000000abcd",
			"extraData":        "0x00",
		},
		"signature": "",
	}
	if key != nil {
		domaintest.SignUnified(t, m, key, devDecryption, domain.ValidationConfig{HostChainIDs: []uint64{devchain.ChainID}})
	}
	if edit != nil {
		edit(m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestServeAnswersV3UserDecryptsOnTheDevelopmentChain is issue 20's v3 user decrypt from
// outside: serve on the development chain, envelopes signed as the reference's document has them,
// by a key and by a development ERC-1271 wallet. A forged or malformed envelope is refused with
// 400 before anything is appended (the log's head does not move); a genuine one goes through the
// gateway's unified userDecryptionRequest and completes with the KMS shares, answered on the v3
// status route in the reference's shape (and on the v2 one: it is a user decrypt job).
func TestServeAnswersV3UserDecryptsOnTheDevelopmentChain(t *testing.T) {
	withEnv(t)
	dir := filepath.Join(t.TempDir(), "data")
	url, _, stderr, stop := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir)
	defer stop()

	user := devchain.UserDevKey(3)
	userAddr := crypto.PubkeyToAddress(user.PublicKey).Hex()
	walletAddr := walletAddress(t, 0)

	refused := []struct {
		name, label, field string
		body               []byte
	}{
		{"a forged signature", "validation_failed", "signature", unifiedBody(t, "forged", userAddr, nil, func(m map[string]any) {
			m["signature"] = "0x" + hex.EncodeToString(crypto.Keccak256([]byte("forged r"))) + hex.EncodeToString(crypto.Keccak256([]byte("forged s"))) + "1b"
		})},
		{"a valid signature by another key", "validation_failed", "signature", unifiedBody(t, "other", userAddr, devchain.UserDevKey(4), nil)},
		{"an empty signature from an account without code", "validation_failed", "signature", unifiedBody(t, "empty", userAddr, nil, nil)},
		{"a wallet's request signed by the other wallet's owner", "validation_failed", "signature", unifiedBody(t, "w-other", walletAddr, devchain.WalletOwnerKey(1), nil)},
		{"an envelope of another attestation type", "validation_failed", "attestationType", unifiedBody(t, "type", userAddr, user, func(m map[string]any) {
			m["attestationType"] = "eip712-unified-user-decrypt-v2"
		})},
		{"a payload without its owner", "missing_fields", "attestedPayload.handles[0].ownerAddress", unifiedBody(t, "owner", userAddr, user, func(m map[string]any) {
			delete(m["attestedPayload"].(map[string]any)["handles"].([]any)[0].(map[string]any), "ownerAddress")
		})},
	}
	for _, c := range refused {
		code, b := postAppendingNothing(t, c.name, url, "/v3/user-decrypt", c.body)
		if code != http.StatusBadRequest || !strings.Contains(b, `"label":"`+c.label+`"`) || !strings.Contains(b, `"field":"`+c.field+`"`) {
			t.Fatalf("%s: %d %s", c.name, code, b)
		}
	}

	for _, c := range []struct {
		name string
		body []byte
	}{
		{"signed by the user's key", unifiedBody(t, "eoa", userAddr, user, nil)},
		{"signed for a contract wallet by its owner", unifiedBody(t, "wallet", walletAddr, devchain.WalletOwnerKey(0), nil)},
	} {
		id := accepted(t, c.name, url+"/v3/user-decrypt", c.body)
		var done struct {
			Status string `json:"status"`
			Result struct {
				Result []domain.UserDecryptShare `json:"result"`
			} `json:"result"`
		}
		if err := json.Unmarshal(jobResult(t, c.name, url+"/v3/user-decrypt/"+id, stderr), &done); err != nil {
			t.Fatal(err)
		}
		if done.Status != "succeeded" || len(done.Result.Result) < 1 {
			t.Fatalf("%s: completed with %+v", c.name, done)
		}
		for _, sh := range done.Result.Result {
			if sh.Payload == "" || sh.Signature == "" {
				t.Fatalf("%s: a share without payload or signature: %+v", c.name, sh)
			}
		}
		res, err := http.Get(url + "/v2/user-decrypt/" + id)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: the v2 status route answers %d for the completed job", c.name, res.StatusCode)
		}
	}
}
