package contracts_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/abigen"

	"relayer/workers/devchain/nodetest"
)

// generated lists what `go generate` makes for each contract, with the --alias it passes:
// abigen v2 names a multi-value method's result type after the method alone, so every
// contract's eip712Domain gets a contract-prefixed name (DecryptionEip712DomainOutput, ...)
// to keep the bindings of one package apart.
var generated = []struct {
	typ, binding string
	aliases      map[string]string
}{
	{"ACL", "acl_binding.go", nil},
	{"Decryption", "decryption_binding.go", decryptionAliases()},
	{"InputVerification", "inputverification_binding.go", domainAlias("InputVerification")},
	{"InputVerifier", "inputverifier_binding.go", domainAlias("InputVerifier")},
	{"KMSVerifier", "kmsverifier_binding.go", domainAlias("KMSVerifier")},
	{"DevWallet", "devwallet_binding.go", nil},
}

func domainAlias(typ string) map[string]string {
	return map[string]string{"eip712Domain": typ + "Eip712Domain"}
}

// decryptionAliases are Decryption's: besides eip712Domain, its two userDecryptionRequest
// overloads and their two UserDecryptionRequest events, which abigen would tell apart by a "0"
// suffix on whichever the compiler lists second. The legacy ones keep the plain names; the
// unified EIP-712 ones are Unified*.
func decryptionAliases() map[string]string {
	m := domainAlias("Decryption")
	m["userDecryptionRequest"] = "unifiedUserDecryptionRequest"
	m["userDecryptionRequest0"] = "userDecryptionRequest"
	m["UserDecryptionRequest0"] = "UnifiedUserDecryptionRequest"
	return m
}

// TestGeneratedFilesMatchTheSolidity compiles src/ with the pinned solc into a temporary
// directory and regenerates the bindings from that, and fails when the committed build/*.abi,
// build/*.bin or *_binding.go differ: run `go generate ./workers/gateway/...` after changing the
// Solidity. It needs node; it runs `npm ci` itself when node_modules/solc is missing. Outside CI
// it skips when node is not installed; in CI (CI set) it fails instead.
func TestGeneratedFilesMatchTheSolidity(t *testing.T) {
	t.Parallel()
	nodeBin, root := nodetest.Node(t), nodetest.Root(t)
	if _, err := os.Stat(filepath.Join(root, "node_modules", "solc", "package.json")); errors.Is(err, os.ErrNotExist) {
		npm, err := exec.LookPath("npm")
		if err != nil {
			nodetest.Unavailable(t, "node_modules/solc is missing and npm is not installed")
		}
		t.Logf("node_modules/solc is missing: running npm ci in %s", root)
		runCmd(t, 5*time.Minute, root, npm, "ci", "--no-audit", "--no-fund")
	}

	out := t.TempDir()
	runCmd(t, 2*time.Minute, ".", nodeBin, "compile.js", "--out", out)

	for _, g := range generated {
		abiJSON := compare(t, filepath.Join("build", g.typ+".abi"), filepath.Join(out, g.typ+".abi"))
		bin := compare(t, filepath.Join("build", g.typ+".bin"), filepath.Join(out, g.typ+".bin"))
		// What `go tool abigen --v2 --pkg contracts --type T [--alias ...] --abi T.abi --bin T.bin` writes.
		code, err := abigen.BindV2([]string{g.typ}, []string{string(abiJSON)}, []string{string(bin)},
			"contracts", map[string]string{}, g.aliases)
		if err != nil {
			t.Fatalf("abigen %s: %v", g.typ, err)
		}
		committed, err := os.ReadFile(g.binding)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(committed, []byte(code)) {
			t.Errorf("%s differs from what abigen generates from the Solidity: run `go generate ./workers/gateway/...`", g.binding)
		}
	}
}

// compare fails the test when the committed file differs from the fresh one, and returns the
// fresh content.
func compare(t *testing.T, committedPath, freshPath string) []byte {
	t.Helper()
	fresh, err := os.ReadFile(freshPath)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(committedPath)
	if err != nil {
		t.Fatalf("%v: run `go generate ./workers/gateway/...`", err)
	}
	if !bytes.Equal(committed, fresh) {
		t.Errorf("%s differs from what the Solidity compiles to: run `go generate ./workers/gateway/...`", committedPath)
	}
	return fresh
}

func runCmd(t *testing.T, timeout time.Duration, dir, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v in %s: %v\n%s", name, args, dir, err, out)
	}
}
