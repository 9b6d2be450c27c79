package main

import (
	"encoding/hex"
	"fmt"
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
		b := jobResult(t, kind, url+"/v2/"+kind+"/"+id, stderr)
		if !strings.Contains(string(b), `"status":"succeeded"`) || !strings.Contains(string(b), results[kind]) {
			t.Errorf("%s: %s", kind, b)
		}
	}
	if err := stop(); err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr)
	}
	live := servedDigest(t, stdout)
	withEnv(t)
	checkRebuilds(t, live, "--data-dir", dir)
}

// servedDigest is the digest of the read models serve printed on stdout when it stopped; none
// fails the test.
func servedDigest(t *testing.T, stdout fmt.Stringer) string {
	t.Helper()
	m := snapshotDigest.FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("serve printed no digest when it stopped:\n%s", stdout)
	}
	return m[1]
}

// checkRebuilds runs `relayer rebuild args` and fails the test unless it exits 0 and prints the
// digest want: the read models rebuilt from the log are the live ones.
func checkRebuilds(t *testing.T, want string, args ...string) {
	t.Helper()
	out, errOut, code := runCLI(t, append([]string{"rebuild"}, args...)...)
	if code != 0 {
		t.Fatalf("rebuild %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	if m := snapshotDigest.FindStringSubmatch(out); m == nil || m[1] != want {
		t.Fatalf("rebuild %s: %s\nwant the live read models' digest %s", strings.Join(args, " "), out, want)
	}
}
