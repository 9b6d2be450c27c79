package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"relayer/domain"
	"relayer/workers/devchain"
	"relayer/workers/devchain/devchaintest"
	"relayer/workers/gateway/contracts"
)

// noDevChainTag is the build tag of the relayer without the development chain (make
// build-production; devchain_off.go).
const noDevChainTag = "nodevchain"

// nodePackages are what the development chain brings into a build: package devchain (its sibling
// devnet, the chain id, keys and addresses, is allowed), the in-process node and backend, their
// databases and the p2p stack (but p2p/netutil, address lists the JSON-RPC client uses). A path
// is one of them when it is one of these or below one.
var nodePackages = []string{
	"relayer/workers/devchain",
	"github.com/ethereum/go-ethereum/ethclient/simulated",
	"github.com/ethereum/go-ethereum/node",
	"github.com/ethereum/go-ethereum/eth",
	"github.com/ethereum/go-ethereum/core/rawdb",
	"github.com/ethereum/go-ethereum/core/vm",
	"github.com/ethereum/go-ethereum/ethdb",
	"github.com/ethereum/go-ethereum/p2p",
	"github.com/cockroachdb/pebble",
	"github.com/syndtr/goleveldb",
	"github.com/huin/goupnp",
}

func isNodePackage(path string) bool {
	if path == "relayer/workers/devchain/devnet" || path == "github.com/ethereum/go-ethereum/p2p/netutil" {
		return false
	}
	for _, p := range nodePackages {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// linkedNodePackages lists the node's packages the build of this command with tags links.
func linkedNodePackages(t *testing.T, tags string) []string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command, to list the relayer's packages: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "-tags", tags, ".").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list -deps -tags %q: %v\n%s", tags, err, ee.Stderr)
		}
		t.Fatalf("go list -deps -tags %q: %v", tags, err)
	}
	var node []string
	for _, p := range strings.Fields(string(out)) {
		if isNodePackage(p) {
			node = append(node, p)
		}
	}
	return node
}

func TestTheBuildWithoutTheDevelopmentChainLinksNoNode(t *testing.T) {
	if node := linkedNodePackages(t, ""); !slices.Contains(node, "relayer/workers/devchain") {
		t.Fatalf("the default build links none of the node's packages (%v): the check below would see nothing", node)
	}
	if node := linkedNodePackages(t, noDevChainTag); len(node) > 0 {
		t.Errorf("go build -tags %s links the development chain's node:\n  %s\n(only devchain_on.go may import package devchain; "+
			"a client of a development chain uses package devnet)", noDevChainTag, strings.Join(node, "\n  "))
	}
}

// The production build, without the development chain: serve without a chain stops before it
// opens anything and names every setting an external chain needs; devchain refuses; version says
// which build it is; with a chain configured, serve runs jobs to their end.
func TestTheBuildWithoutTheDevelopmentChainServesAConfiguredChainOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the relayer with -tags " + noDevChainTag)
	}
	dir := t.TempDir()
	bin := buildRelayer(t, dir, noDevChainTag)
	env := crashEnv(hex.EncodeToString(crypto.FromECDSA(devchain.RelayerDevKey(0))))
	run := func(args ...string) (string, int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			return string(out), ee.ExitCode()
		case err != nil:
			t.Fatalf("relayer %s: %v", strings.Join(args, " "), err)
		}
		return string(out), 0
	}

	dataDir := filepath.Join(dir, "data")
	out, code := run("serve", "--data-dir", dataDir, "--listen", "127.0.0.1:0")
	if code != 2 {
		t.Errorf("serve without a chain: exit %d, want 2 (a configuration refused):\n%s", code, out)
	}
	for _, want := range []string{"built without the development chain (-tags nodevchain)", "chain.rpc_url: is required",
		"chain.chain_id", "chain.contracts.decryption", "chain.contracts.input_verification", "chain.contracts.acl",
		"chain.signer", "chain.user_decrypt_threshold"} {
		if !strings.Contains(out, want) {
			t.Errorf("serve without a chain does not say %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(dataDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("serve without a chain made its data directory before it refused (%v)", err)
	}
	if out, code := run("devchain"); code != 2 || !strings.Contains(out, "built without the development chain") {
		t.Errorf("devchain: exit %d, want 2 and that the build has no development chain:\n%s", code, out)
	}
	if out, code := run("version"); code != 0 || !strings.Contains(out, "without the development chain") {
		t.Errorf("version: exit %d, want 0 and that the build has no development chain:\n%s", code, out)
	}

	// With a chain: the development chain in this process stands for an external one.
	cfg := devchain.DefaultConfig()
	cfg.HTTPAddr, cfg.WSAddr = "127.0.0.1:0", "127.0.0.1:0"
	chain := devchaintest.Start(t, cfg, nil)
	a := chain.Addresses()
	cfgFile := filepath.Join(dir, "relayer.yaml")
	config := crashConfig(crashChain{httpURL: chain.HTTPEndpoint(), wsURL: chain.WSEndpoint(), decryption: a.Decryption,
		inputVerification: a.InputVerification, acl: a.ACL, threshold: chain.Threshold()})
	if err := os.WriteFile(cfgFile, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	serve := startCrashProc(t, "serve", bin, env, "serve", "--config", cfgFile, "--data-dir", dataDir, "--listen", "127.0.0.1:0")
	url := serve.await(t, listeningOn, time.Minute)[1]
	load := &crashLoad{client: &http.Client{Timeout: 10 * time.Second}}
	var acked []crashJob
	for _, k := range []domain.Kind{domain.InputProof, domain.PublicDecrypt, domain.UserDecrypt} {
		j := crashJob{kind: k, scenario: contracts.ScenarioNone}
		code, id := load.post(context.Background(), url+"/v2/"+k.String(), crashBody(k, j.scenario, fmt.Sprintf("production-build/%s", k)))
		if code != http.StatusAccepted || id == "" {
			t.Fatalf("POST %s: %d, job %q\n%s", k, code, id, serve.stderr.String())
		}
		j.id = id
		acked = append(acked, j)
	}
	if notTerminal := waitAllTerminal(t, load.client, url, acked, time.Minute); notTerminal != nil {
		t.Fatalf("jobs not terminal: %v\n%s", notTerminal, serve.stderr.String())
	}
	for _, j := range acked {
		if _, status := pollJob(load.client, url, j); status != "succeeded" {
			t.Errorf("%s job %s: %s, want succeeded", j.kind, j.id, status)
		}
	}
	serve.stop(t)
}
