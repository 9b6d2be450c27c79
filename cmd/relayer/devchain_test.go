package main

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"relayer/internal/syncbuf"
)

// syncBuffer is a bytes.Buffer safe to write from the command and read from the test.
type syncBuffer = syncbuf.Buffer

var httpEndpointLine = regexp.MustCompile(`JSON-RPC HTTP\s+(http://\S+)`)

// fundedAccount is an account the development chain does not make, given to --fund.
const fundedAccount = "0x00000000000000000000000000000000000f00d5"

// devchainRun is `relayer devchain` running in this process.
type devchainRun struct {
	stdout, stderr syncBuffer
	cancel         context.CancelFunc
	done           chan error
}

// startDevchain runs `relayer devchain args` in this process until the test ends (or stop), and
// waits (30 s at most) until its output matches ready; it returns the run and the match. The
// test fails if devchain returns before.
func startDevchain(t *testing.T, ready *regexp.Regexp, args ...string) (*devchainRun, []string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r := &devchainRun{cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- runDevchain(ctx, args, &r.stdout, &r.stderr) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := ready.FindStringSubmatch(r.stdout.String()); m != nil {
			return r, m
		}
		select {
		case err := <-r.done:
			t.Fatalf("devchain returned early: %v\nstdout: %s\nstderr: %s", err, r.stdout.String(), r.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("devchain printed no %q within 30 s; stdout: %s\nstderr: %s", ready, r.stdout.String(), r.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop cancels devchain and fails the test unless it returns nil within 30 s.
func (r *devchainRun) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	select {
	case err := <-r.done:
		if err != nil {
			t.Fatalf("devchain: %v\nstderr: %s", err, r.stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("devchain did not stop within 30 s of the cancel")
	}
}

func TestDevchainServesJSONRPCOverHTTPAndStopsWhenCancelled(t *testing.T) {
	dc, m := startDevchain(t, httpEndpointLine, "--http", "127.0.0.1:0", "--ws", "", "--kms-nodes", "5", "--threshold", "4", "--fund", fundedAccount)
	url := m[1]
	stdout, stderr := &dc.stdout, &dc.stderr
	out := stdout.String()
	t.Logf("devchain printed:\n%s", out)
	for _, want := range []string{"chain id 1337", "Decryption", "InputVerification", "ACL (host)", "relayer key 0", "5, threshold 4", "--print-keys",
		"funded (1000 ether)  " + common.HexToAddress(fundedAccount).Hex()} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "private key") {
		t.Errorf("private keys printed without --print-keys:\n%s", out)
	}

	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	var answer struct {
		Result string `json:"result"`
	}
	err = json.NewDecoder(resp.Body).Decode(&answer)
	resp.Body.Close()
	if err != nil || answer.Result != "0x539" {
		t.Fatalf("eth_chainId = %q (%v), want 0x539", answer.Result, err)
	}
	// --fund's account holds its 1000 ether (0x3635c9adc5dea00000 wei).
	resp, err = http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"eth_getBalance","params":["`+fundedAccount+`","latest"]}`))
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&answer)
	resp.Body.Close()
	if err != nil || answer.Result != "0x3635c9adc5dea00000" {
		t.Fatalf("the --fund account's balance is %q (%v), want 1000 ether", answer.Result, err)
	}

	dc.stop(t)
	if !strings.Contains(stdout.String(), "development chain stopped") {
		t.Errorf("no stop message:\n%s", stdout.String())
	}
	if checkLogKeys(t, stderr.String())["devchain"] == 0 {
		t.Errorf("no log line of the development chain:\n%s", stderr.String())
	}
	if _, err := http.Post(url, "application/json", strings.NewReader(`{}`)); err == nil {
		t.Error("the JSON-RPC server still answers after the stop")
	}
}

func TestDevchainRefusesBadFlagsWithExitCode2(t *testing.T) {
	for _, args := range [][]string{
		{"--threshold", "5"},
		{"--kms-nodes", "2", "--threshold", "3"},
		{"--http", "0.0.0.0:8545"},
		{"--kms-nodes", "0"},
		{"extra"},
		{"--no-such-flag"},
		{"--fund", "0x1234"},
	} {
		var stdout, stderr syncBuffer
		err := runDevchain(context.Background(), args, &stdout, &stderr)
		ee, ok := err.(*exitError)
		if !ok || ee.code != 2 {
			t.Errorf("devchain %v: %v, want a usage error (exit 2)", args, err)
		}
	}
	// The refusals name the flags, not the configuration's Go fields (found by an outside
	// probe: "WSAddr: HTTPAddr and WSAddr are both ...", "Threshold: is 5, want 1..KMSNodes").
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--threshold", "5"}, "--threshold: is 5, want 1..--kms-nodes (4)"},
		{[]string{"--kms-nodes", "100000"}, "--kms-nodes: is 100000"},
		{[]string{"--http", "127.0.0.1:9999", "--ws", "127.0.0.1:9999"}, "--ws: --http and --ws are both 127.0.0.1:9999"},
		{[]string{"--http", "0.0.0.0:8545"}, "--http: "},
	} {
		var stdout, stderr syncBuffer
		err := runDevchain(context.Background(), c.args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("devchain %v: %v, want %q", c.args, err, c.want)
		}
		for _, field := range []string{"KMSNodes", "Threshold", "HTTPAddr", "WSAddr"} {
			if err != nil && strings.Contains(err.Error(), field) {
				t.Errorf("devchain %v: %v names the field %s", c.args, err, field)
			}
		}
	}
}
