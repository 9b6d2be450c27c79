package main

import (
	"context"
	"errors"
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
                 [--coprocessors 3] [--relayer-keys 1] [--profile instant|production]
                 [--kms-delay D] [--coprocessor-delay D] [--readiness-delay D] [--jitter J]
                 [--print-keys] [-v]

Runs the development chain on its own: an in-memory EVM (chain id 1337) with the gateway contracts
and the host contracts the public client SDK reads (ACL, InputVerifier, KMSVerifier) deployed,
simulated KMS nodes and coprocessors answering, and JSON-RPC over HTTP and WebSocket on
127.0.0.1, until SIGINT or SIGTERM. Every key is a development key derived from a fixed, public
seed, so addresses are the same on every run; --print-keys prints the relayer's private keys.

--profile sets how quickly the simulated components answer: instant (the default: within
50-300ms, every handle ready at once) or production (like the real ones: a KMS node after about
4s, a coprocessor after about 2s, a handle ready about 2s after its first readiness question,
each give or take --jitter). --kms-delay, --coprocessor-delay and --readiness-delay set one
component's typical delay apart from the profile's.
`

// devchainFlags are the flags of the Config fields that are settings: the field a problem names,
// and its flag.
var devchainFlags = map[string]string{
	"profile": "--profile", "kms_delay": "--kms-delay", "coprocessor_delay": "--coprocessor-delay",
	"readiness_delay": "--readiness-delay", "jitter": "--jitter",
}

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
	profile := fs.String("profile", string(devchain.ProfileInstant), "latency `profile` of the simulated KMS nodes, coprocessors and readiness: instant or production")
	kmsDelay := fs.Duration("kms-delay", 0, "typical delay of a KMS node's answer to a decryption (0: the profile's; production 4s)")
	coprocessorDelay := fs.Duration("coprocessor-delay", 0, "typical delay of a coprocessor's answer to an input proof (0: the profile's; production 2s)")
	readinessDelay := fs.Duration("readiness-delay", 0, "typical time from a handle's first readiness question to ready (0: the profile's; production 2s)")
	jitter := fs.Float64("jitter", devchain.DefaultJitter, "how far each delay drawn may be from the typical one, as a share of it (0 < J < 1)")
	printKeys := fs.Bool("print-keys", false, "also print the relayer keys' private keys (development keys: public by construction)")
	verbose := fs.Bool("v", false, "log every simulated answer")
	if err := fs.Parse(args); err != nil {
		return &exitError{code: 2, err: err}
	}
	if fs.NArg() > 0 {
		return usageErrorf("devchain: unexpected argument %q", fs.Arg(0))
	}
	cfg := devchain.Config{
		KMSNodes:         *kmsNodes,
		Threshold:        *threshold,
		Coprocessors:     *coprocessors,
		RelayerKeys:      *relayerKeys,
		HTTPAddr:         *httpAddr,
		WSAddr:           *wsAddr,
		Profile:          devchain.Profile(*profile),
		KMSDelay:         *kmsDelay,
		CoprocessorDelay: *coprocessorDelay,
		ReadinessDelay:   *readinessDelay,
		Jitter:           *jitter,
	}
	if *jitter <= 0 || *jitter >= 1 { // 0 would be the default in the Config, not what was asked
		return usageErrorf("devchain: --jitter must be more than 0 and less than 1, got %v", *jitter)
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
		var ce *devchain.ConfigError
		if errors.As(err, &ce) {
			// The problems of settings name their flags.
			problems := make([]string, len(ce.Problems))
			for i, p := range ce.Problems {
				name := p.Field
				if flag, ok := devchainFlags[name]; ok {
					name = flag
				}
				problems[i] = name + ": " + p.Issue
			}
			return usageErrorf("devchain: %s", strings.Join(problems, "; "))
		}
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
	line("latency profile", fmt.Sprintf("%s (%s)", c.Config().Profile, c.Config().LatencySummary()))
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
