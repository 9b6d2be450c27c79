package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"relayer/domain"
	"relayer/workers/devchain"
	"relayer/workers/gateway/contracts"
)

var devchainRPCLine = regexp.MustCompile(`development chain JSON-RPC: (http://\S+)`)

// TestScenario04SentStraightToServeCompletesWithinTheReadinessTimeout is scenario 04 as DESIGN
// section 10 documents it, through serve as `make run` starts it: a public and a user decrypt of
// a handle starting 7e5704, with nothing registered on the chain beforehand, are not ready at
// first, become ready 5 s of chain time after the relayer first asked, and complete (scenario 02,
// never ready, times out instead). The chain's own record says when it first saw the handle,
// and the gateway request went out only after that plus 5 s.
func TestScenario04SentStraightToServeCompletesWithinTheReadinessTimeout(t *testing.T) {
	withEnv(t)
	dir := filepath.Join(t.TempDir(), "data")
	url, stdout, stderr, _ := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir, "--devchain-rpc", "127.0.0.1:0")
	m := devchainRPCLine.FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("serve did not print the development chain's JSON-RPC endpoint:\n%s", stdout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	chain, err := ethclient.DialContext(ctx, m[1])
	if err != nil {
		t.Fatal(err)
	}
	defer chain.Close()

	handle := func(seed string) [32]byte {
		return contracts.TestHandle(contracts.ScenarioReadyAfterDelay, fmt.Sprintf("%s/%s/%d", t.Name(), seed, time.Now().UnixNano()))
	}
	hex0x := func(h [32]byte) string { return "0x" + hex.EncodeToString(h[:]) }
	public, user := handle("public"), handle("user")
	contract := "0x00000000000000000000000000000000000000c0"
	bodies := []struct {
		kind   string
		handle [32]byte
		body   []byte
	}{
		{"public-decrypt", public, fmt.Appendf(nil, `{"ciphertextHandles":[%q],"extraData":"0x00"}`, hex0x(public))},
		{"user-decrypt", user, signedBody(t, domain.UserDecrypt, map[string]any{
			"handleContractPairs": []any{map[string]any{"handle": hex0x(user), "contractAddress": contract}},
			"requestValidity":     map[string]any{"startTimestamp": strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10), "durationDays": "1"},
			"contractsChainId":    1337,
			"contractAddresses":   []string{contract},
			"userAddress":         crypto.PubkeyToAddress(devchain.UserDevKey(2).PublicKey).Hex(),
			"publicKey":           "2000000000000000abcd",
			"extraData":           "0x00",
		}, devchain.UserDevKey(2))},
	}
	dec := contracts.NewDecryption()
	decAt := dec.Instance(chain, devchain.DecryptionAddress())
	for _, b := range bodies {
		seen, err := bind.Call(decAt, &bind.CallOpts{Context: ctx}, dec.PackHandleFirstSeen(b.handle), dec.UnpackHandleFirstSeen)
		if err != nil || seen.Sign() != 0 {
			t.Fatalf("%s: before the request the chain saw the handle at %v (%v); want never", b.kind, seen, err)
		}
	}
	ids := make([]string, len(bodies))
	for i, b := range bodies {
		ids[i] = accepted(t, "POST "+b.kind, url+"/v2/"+b.kind, b.body)
	}
	for i, b := range bodies {
		// Long polls, each held until the job changes: the development readiness timeout is
		// 10 s, so a job still pending after 30 s is stuck.
		jobResult(t, b.kind+" scenario 04", url+"/v2/"+b.kind+"/"+ids[i]+"?wait=10", stderr)

		events := jobEvents(t, url, ids[i])
		if events.Status != "completed" {
			t.Fatalf("%s: status %q after %v", b.kind, events.Status, events.types())
		}
		for _, want := range []string{"ReadinessCheckStarted", "ReadinessPassed", "ReceiptRecorded", "RequestCompleted"} {
			if !strings.Contains(strings.Join(events.types(), " "), want) {
				t.Errorf("%s: no %s in %v", b.kind, want, events.types())
			}
		}
		seen, err := bind.Call(decAt, &bind.CallOpts{Context: ctx}, dec.PackHandleFirstSeen(b.handle), dec.UnpackHandleFirstSeen)
		if err != nil || seen.Sign() == 0 {
			t.Fatalf("%s: the chain never saw the handle (%v)", b.kind, err)
		}
		block := events.receiptBlock(t)
		header, err := chain.HeaderByNumber(ctx, new(big.Int).SetUint64(block))
		if err != nil {
			t.Fatal(err)
		}
		if header.Time < seen.Uint64()+5 {
			t.Errorf("%s: the gateway request was mined at chain time %d, the handle first seen at %d: sent before it was ready",
				b.kind, header.Time, seen.Uint64())
		}
	}
}

// jobHistory is GET /v1/jobs/{jobId}/events's result, as far as the tests read it.
type jobHistory struct {
	Status string `json:"status"`
	Events []struct {
		Type       string          `json:"type"`
		RecordedAt time.Time       `json:"recordedAt"`
		Data       json.RawMessage `json:"data"`
	} `json:"events"`
}

func (h jobHistory) types() []string {
	out := make([]string, len(h.Events))
	for i, e := range h.Events {
		out[i] = e.Type
	}
	return out
}

// receiptBlock is the block of the job's gateway request, from its ReceiptRecorded event.
func (h jobHistory) receiptBlock(t *testing.T) uint64 {
	t.Helper()
	for _, e := range h.Events {
		if e.Type == "ReceiptRecorded" {
			var r struct {
				BlockNumber uint64      `json:"blockNumber"`
				TxHash      common.Hash `json:"txHash"`
			}
			if err := json.Unmarshal(e.Data, &r); err != nil || r.BlockNumber == 0 {
				t.Fatalf("ReceiptRecorded %s: %v", e.Data, err)
			}
			return r.BlockNumber
		}
	}
	t.Fatalf("no ReceiptRecorded in %v", h.types())
	return 0
}

// jobEvents reads a job's history from the audit endpoint (open on a loopback development stack).
func jobEvents(t *testing.T, url, id string) jobHistory {
	t.Helper()
	res, err := http.Get(url + "/v1/jobs/" + id + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET events of %s: %d %s", id, res.StatusCode, body)
	}
	var env struct {
		Result jobHistory `json:"result"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("events of %s: %v: %s", id, err, body)
	}
	return env.Result
}
