package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"relayer/domain"
	"relayer/workers/devchain"
	"relayer/workers/gateway/contracts"
)

// TestServeWithoutConfigurationDrivesEveryKindToItsResult runs serve as `make run` does (no
// configuration: the in-process development chain, GoChannel, SQLite), submits one request of
// each kind over HTTP and polls until each has its result; on stop, the digest serve prints is
// the one `relayer rebuild` prints.
func TestServeWithoutConfigurationDrivesEveryKindToItsResult(t *testing.T) {
	withEnv(t)
	dir := filepath.Join(t.TempDir(), "data")
	url, stdout, stderr, stop := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir)
	for _, want := range []string{"in-process development chain 1337", "workers: readiness, tx, responses, timeouts (transport gochannel)", "timeouts: readiness 10s, tx_in_flight 1m0s, response 20s"} {
		if !strings.Contains(stdout.String(), want) {
			t.Fatalf("the start banner does not say %q:\n%s", want, stdout)
		}
	}
	handle := func(seed string) string {
		h := contracts.TestHandle(contracts.ScenarioNone, t.Name()+seed)
		return "0x" + hex.EncodeToString(h[:])
	}
	bodies := map[string]string{
		"input-proof":    `{"contractChainId":1337,"contractAddress":"0x00000000000000000000000000000000000000c0","userAddress":"0x00000000000000000000000000000000000000a1","ciphertextWithInputVerification":"0a0b0c0d","extraData":"0x00"}`,
		"public-decrypt": fmt.Sprintf(`{"ciphertextHandles":[%q],"extraData":"0x00"}`, handle("p")),
		"user-decrypt": string(signedBody(t, domain.UserDecrypt, map[string]any{
			"handleContractPairs": []any{map[string]any{"handle": handle("u"), "contractAddress": "0x00000000000000000000000000000000000000c0"}},
			"requestValidity":     map[string]any{"startTimestamp": strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10), "durationDays": "1"},
			"contractsChainId":    1337,
			"contractAddresses":   []string{"0x00000000000000000000000000000000000000c0"},
			"userAddress":         crypto.PubkeyToAddress(devchain.UserDevKey(1).PublicKey).Hex(),
			"publicKey":           "2000000000000000abcd",
			"extraData":           "0x00",
		}, devchain.UserDevKey(1))),
	}
	results := map[string]string{"input-proof": `"accepted":true`, "public-decrypt": `"decryptedValue":`, "user-decrypt": `"payload":`}
	for kind, body := range bodies {
		id := accepted(t, "POST "+kind, url+"/v2/"+kind, []byte(body))
		deadline := time.Now().Add(30 * time.Second)
		for {
			res, err := http.Get(url + "/v2/" + kind + "/" + id)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				if !strings.Contains(string(b), `"status":"succeeded"`) || !strings.Contains(string(b), results[kind]) {
					t.Errorf("%s: %s", kind, b)
				}
				break
			}
			if res.StatusCode != http.StatusAccepted || res.Header.Get("Retry-After") == "" {
				t.Fatalf("%s: GET %d (Retry-After %q) %s", kind, res.StatusCode, res.Header.Get("Retry-After"), b)
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not done after 30s: %s\n%s", kind, b, stderr)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if err := stop(); err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr)
	}
	digest := regexp.MustCompile(`snapshot sha256 ([0-9a-f]{64})`)
	live := digest.FindStringSubmatch(stdout.String())
	if live == nil {
		t.Fatalf("serve printed no digest when it stopped:\n%s", stdout)
	}
	withEnv(t)
	out, errOut, code := runCLI(t, "rebuild", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("rebuild: %d %s", code, errOut)
	}
	if rebuilt := digest.FindStringSubmatch(out); rebuilt == nil || rebuilt[1] != live[1] {
		t.Fatalf("rebuild's digest differs from the live read models' %s:\n%s", live[1], out)
	}
}
