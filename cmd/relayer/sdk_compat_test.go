package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"relayer/workers/devchain/nodetest"
)

// contractsLine is what serve prints about the development chain's contracts.
var (
	rpcLine       = regexp.MustCompile(`development chain JSON-RPC: (http://\S+)`)
	contractsLine = regexp.MustCompile(`contracts: gateway Decryption (0x[0-9a-fA-F]{40}), InputVerification (0x[0-9a-fA-F]{40}); host ACL (0x[0-9a-fA-F]{40}), InputVerifier (0x[0-9a-fA-F]{40}), KMSVerifier (0x[0-9a-fA-F]{40})`)
)

// TestThePublicSDKWorksAgainstServe runs the public client SDK, unchanged and pinned in
// package.json, against `relayer serve` on the development chain, configured only as the README
// says a dApp developer does it (the addresses serve prints, its JSON-RPC, its URL). The cases are
// in testdata/sdkcompat/compat.mjs; each prints ok or FAIL. It needs Node.js and the npm packages
// (`npm ci`, which `make test` runs): outside CI it skips without them, with CI set it fails.
func TestThePublicSDKWorksAgainstServe(t *testing.T) {
	if testing.Short() {
		t.Skip("the SDK's proof generation takes tens of seconds")
	}
	nodeBin, root := nodetest.SDK(t)
	rpc := freeLoopbackAddr(t)
	const adminToken = "sdk-compat-admin-token-0123456789abcdef"
	withEnv(t, "RELAYER_TIMEOUTS_READINESS=3s", "RELAYER_TIMEOUTS_RESPONSE=4s", "RELAYER_ADMIN_TOKEN="+adminToken)
	url, stdout, stderr, stop := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--devchain-rpc", rpc)
	out := stdout.String()
	rpcURL := rpcLine.FindStringSubmatch(out)
	addrs := contractsLine.FindStringSubmatch(out)
	if rpcURL == nil || addrs == nil {
		t.Fatalf("serve did not print its JSON-RPC URL and contract addresses:\n%s", out)
	}

	// The README's five lines give the SDK these addresses: they must be the ones serve prints.
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name, addr := range map[string]string{
		"verifyingContractAddressDecryption": addrs[1], "verifyingContractAddressInputVerification": addrs[2],
		"aclContractAddress": addrs[3], "inputVerifierContractAddress": addrs[4], "kmsContractAddress": addrs[5],
	} {
		if !strings.Contains(string(readme), name+": '"+addr+"'") {
			t.Errorf("README's SDK configuration does not give %s: '%s', the address serve printed", name, addr)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nodeBin, filepath.Join("testdata", "sdkcompat", "compat.mjs"))
	cmd.Env = append(os.Environ(),
		"RELAYER_URL="+url, "RPC_URL="+rpcURL[1], "CHAIN_ID=1337", "ADMIN_TOKEN="+adminToken,
		"DECRYPTION_ADDRESS="+addrs[1], "INPUT_VERIFICATION_ADDRESS="+addrs[2], "ACL_ADDRESS="+addrs[3],
		"INPUT_VERIFIER_ADDRESS="+addrs[4], "KMS_VERIFIER_ADDRESS="+addrs[5],
	)
	runNodeCases(t, "the SDK", cmd, sdkCases, stderr)
	if err := stop(); err != nil {
		t.Errorf("serve: %v", err)
	}
}

// sdkCases is how many cases compat.mjs runs.
const sdkCases = 10

// runNodeCases runs cmd, a Node.js script whose cases each print a line "ok ..." or "FAIL ...",
// against serve, and logs its output. The test fails unless the script exits 0 with want cases
// ok; what names the cases in the failures, which quote serve's log.
func runNodeCases(t *testing.T, what string, cmd *exec.Cmd, want int, serveLog fmt.Stringer) {
	t.Helper()
	out, err := cmd.CombinedOutput()
	t.Logf("%s against serve:\n%s", what, out)
	if err != nil {
		t.Errorf("%s's cases failed (%v); serve's log:\n%s", what, err, tail(serveLog.String(), 4000))
	}
	passed := 0
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "ok ") {
			passed++
		}
	}
	if passed != want {
		t.Errorf("%d of %s's %d cases passed", passed, what, want)
	}
}

// freeLoopbackAddr is a loopback host:port nothing listens on right now.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
