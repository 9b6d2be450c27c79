package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"relayer/workers/devchain"
)

const devchainUsage = `relayer devchain [--http 127.0.0.1:8545] [--ws 127.0.0.1:8546] [--kms-nodes 4 --threshold 3]
                 [--coprocessors 3] [--relayer-keys 1] [--print-keys] [-v]

Runs the development chain on its own: an in-memory EVM (chain id 1337) with the gateway contracts
and the host contracts the public client SDK reads (ACL, InputVerifier, KMSVerifier) deployed,
simulated KMS nodes and coprocessors answering, and JSON-RPC over HTTP and WebSocket on
127.0.0.1, until SIGINT or SIGTERM. Every key is a development key derived from a fixed, public
seed, so addresses are the same on every run; --print-keys prints the relayer's private keys.
`

// runDevchain is `relayer devchain`.
func runDevchain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("devchain", stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), devchainUsage+"\nFlags:\n")
		fs.PrintDefaults()
	}
	httpAddr := fs.String("http", "127.0.0.1:8545", "serve JSON-RPC over HTTP on this loopback `host:port` (\"\" for none)")
	wsAddr := fs.String("ws", "127.0.0.1:8546", "serve JSON-RPC over WebSocket on this loopback `host:port` (\"\" for none)")
	kmsNodes := fs.Int("kms-nodes", devchain.DefaultKMSNodes, "number of simulated KMS nodes")
	threshold := fs.Int("threshold", devchain.DefaultThreshold, "distinct KMS signatures that complete a decryption")
	coprocessors := fs.Int("coprocessors", devchain.DefaultCoprocessors, "number of simulated coprocessors (a majority decides)")
	relayerKeys := fs.Int("relayer-keys", devchain.DefaultRelayerKeys, "number of funded relayer keys")
	printKeys := fs.Bool("print-keys", false, "also print the relayer keys' private keys (development keys: public by construction)")
	verbose := fs.Bool("v", false, "log every simulated answer")
	if err := fs.Parse(args); err != nil {
		return &exitError{code: 2, err: err}
	}
	if fs.NArg() > 0 {
		return usageErrorf("devchain: unexpected argument %q", fs.Arg(0))
	}
	cfg := devchain.Config{
		KMSNodes:     *kmsNodes,
		Threshold:    *threshold,
		Coprocessors: *coprocessors,
		RelayerKeys:  *relayerKeys,
		HTTPAddr:     *httpAddr,
		WSAddr:       *wsAddr,
	}
	if *kmsNodes <= 0 || *threshold <= 0 || *coprocessors <= 0 || *relayerKeys <= 0 {
		return usageErrorf("devchain: --kms-nodes, --threshold, --coprocessors and --relayer-keys must be positive")
	}
	thresholdSet := false
	fs.Visit(func(f *flag.Flag) { thresholdSet = thresholdSet || f.Name == "threshold" })
	if !thresholdSet {
		cfg.Threshold = 0 // the default: 3, or every node when there are fewer
	}
	if err := cfg.WithDefaults().Validate(); err != nil {
		return usageErrorf("%v", err)
	}

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	chain, err := devchain.Start(ctx, cfg, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})))
	if err != nil {
		return err
	}
	printDevchain(stdout, chain, *printKeys)

	<-ctx.Done()
	if err := chain.Close(); err != nil {
		return fmt.Errorf("devchain: stop: %w", err)
	}
	fmt.Fprintln(stdout, "development chain stopped")
	return nil
}

func printDevchain(w io.Writer, c *devchain.Chain, printKeys bool) {
	var b strings.Builder
	line := func(label string, value any) { fmt.Fprintf(&b, "  %-20s %v\n", label, value) }
	fmt.Fprintf(&b, "development chain running (chain id %d)\n", devchain.ChainID)
	if c.HTTPEndpoint() != "" {
		line("JSON-RPC HTTP", c.HTTPEndpoint())
	}
	if c.WSEndpoint() != "" {
		line("JSON-RPC WS", c.WSEndpoint())
	}
	a := c.Addresses()
	line("Decryption", a.Decryption)
	line("InputVerification", a.InputVerification)
	line("ACL (host)", a.ACL)
	line("InputVerifier (host)", a.InputVerifier)
	line("KMSVerifier (host)", a.KMSVerifier)
	for i, k := range c.RelayerKeys() {
		line(fmt.Sprintf("relayer key %d", i), crypto.PubkeyToAddress(k.PublicKey))
	}
	line("KMS signers", fmt.Sprintf("%d, threshold %d", len(c.KMSSigners()), c.Threshold()))
	line("coprocessors", fmt.Sprintf("%d, majority %d", len(c.Coprocessors()), c.Majority()))
	line("owner (pause)", crypto.PubkeyToAddress(c.DeployerKey().PublicKey))
	if printKeys {
		b.WriteString("WARNING: development keys, derived from public seeds: never use them on a real chain.\n")
		for i, k := range c.RelayerKeys() {
			line(fmt.Sprintf("relayer private key %d", i), hexutil.Encode(crypto.FromECDSA(k)))
		}
	} else {
		b.WriteString("The relayer keys are development keys (devchain.RelayerDevKey(i) = keccak256(\"relayer/devchain/relayer/<i>\")); --print-keys prints them.\n")
	}
	b.WriteString("Press Ctrl-C to stop.\n")
	fmt.Fprint(w, b.String())
}
