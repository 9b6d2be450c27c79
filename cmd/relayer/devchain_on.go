//go:build !nodevchain

// This file is the command's development chain (DESIGN section 10): `relayer devchain`, and the
// chain serve runs in process when no chain is configured. It is the only file of the command
// that imports package devchain, and through it a whole go-ethereum node (its database, p2p,
// the engine API); a build with -tags nodevchain leaves it out for devchain_off.go, which
// refuses both. The rest of the command reaches the development chain through this seam only:
//
//	devChainBuilt    whether this build has the development chain
//	devChainConfig   the devchain section's settings beside rpc_listen (the latency profile)
//	validateDevChain the devchain section's problems, named by setting
//	devKeys          the development key material GET /v2/keyurl serves with the chain
//	startDevChain    the chain serve runs in process
//	runDevchain      the devchain command

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"relayer/api"
	"relayer/workers/devchain"
	"relayer/workers/devchain/devkeys"
	"relayer/workers/gateway"
)

// devChainBuilt says that this build has the development chain.
const devChainBuilt = true

// devChainConfig is the development chain's configuration: the settings of serve's devchain
// section are its fields with a yaml name (its latency profile).
type devChainConfig = devchain.Config

// validateDevChain checks the devchain section of serve's configuration (the development chain
// runs): the latency profile, and rpc_listen, which must be on loopback. Its problems are named
// by setting, as the packages' are (an *api.ConfigError).
func validateDevChain(d devChainSection) error {
	cfg := d.Chain
	cfg.HTTPAddr = d.RPCListen
	err := cfg.WithDefaults().Validate()
	var ce *devchain.ConfigError
	if !errors.As(err, &ce) {
		return err
	}
	ps := make([]api.Problem, len(ce.Problems))
	for i, p := range ce.Problems {
		if p.Field == "HTTPAddr" {
			p.Field = "rpc_listen"
		}
		ps[i] = p
	}
	return &api.ConfigError{Problems: ps}
}

// devChainDefaults is c with the development chain's defaults in its zero fields.
func devChainDefaults(c devChainConfig) devChainConfig { return c.WithDefaults() }

// devKeys is the development stack's key material, served by the relayer itself.
func devKeys() api.KeysConfig {
	return api.KeysConfig{
		PublicKeyID: devkeys.ID(devkeys.PublicKey), PublicKeyURLs: []string{"/keys/" + devkeys.PublicKeyFile},
		CRSID: devkeys.ID(devkeys.CRS2048), CRSURLs: []string{"/keys/" + devkeys.CRS2048File},
		Files: map[string][]byte{devkeys.PublicKeyFile: devkeys.PublicKey, devkeys.CRS2048File: devkeys.CRS2048},
	}
}

// startDevChain starts the development chain in process, with the latency profile of
// s.DevChainConfig and its JSON-RPC on s.DevChainRPC ("" for none), and the gateway adapter on
// it with the chain's funded relayer key.
func startDevChain(ctx context.Context, s serveSettings, log *slog.Logger) (*chainSide, error) {
	dcfg := s.DevChainConfig
	dcfg.HTTPAddr = s.DevChainRPC
	dev, err := devchain.Start(ctx, dcfg, log) // the chain names its component itself
	if err != nil {
		return nil, fmt.Errorf("development chain: %w", err)
	}
	a := dev.Addresses()
	gw, err := gateway.New(ctx, dev.Client(), gateway.Config{
		ChainID:      dev.ChainID().Uint64(),
		Contracts:    gateway.Contracts{Decryption: a.Decryption, InputVerification: a.InputVerification, ACL: a.ACL},
		PollInterval: 200 * time.Millisecond, ReceiptPollMin: 10 * time.Millisecond, GapFillDelay: time.Second,
	}, log, gateway.WithSigner(gateway.NewSigner(dev.RelayerKey())))
	if err != nil {
		_ = dev.Close()
		return nil, fmt.Errorf("development chain: %w", err)
	}
	summary := fmt.Sprintf("in-process development chain %d (KMS threshold %d of %d, relayer %s; DEVELOPMENT KEYS)",
		dev.ChainID(), dev.Threshold(), dev.Config().KMSNodes, gw.Address().Hex())
	summary += fmt.Sprintf("\n  development chain latency profile: %s (%s)", dev.Config().Profile, dev.Config().LatencySummary())
	if rpc := dev.HTTPEndpoint(); rpc != "" {
		summary += "\n  development chain JSON-RPC: " + rpc
	}
	summary += fmt.Sprintf("\n  contracts: gateway Decryption %s, InputVerification %s; host ACL %s, InputVerifier %s, KMSVerifier %s",
		a.Decryption.Hex(), a.InputVerification.Hex(), a.ACL.Hex(), a.InputVerifier.Hex(), a.KMSVerifier.Hex())
	summary += fmt.Sprintf("\n  ERC-1271 development wallets: %s (owner user key 14), %s (owner user key 15)", a.Wallets[0].Hex(), a.Wallets[1].Hex())
	return &chainSide{gw: gw, summary: summary,
		dev: &devChainSide{threshold: dev.Threshold(), decryption: a.Decryption, stop: dev.Close}}, nil
}

const devchainUsage = `Usage: relayer devchain [--http 127.0.0.1:8545] [--ws 127.0.0.1:8546] [--kms-nodes 4 --threshold 3]
                        [--coprocessors 3] [--relayer-keys 1] [--profile instant|production]
                        [--kms-delay D] [--coprocessor-delay D] [--readiness-delay D] [--jitter J]
                        [--fund ADDRESS,...] [--print-keys] [-v]

Runs the development chain on its own: an in-memory EVM (chain id 1337) with the gateway contracts
and the host contracts the public client SDK reads (ACL, InputVerifier, KMSVerifier) deployed,
simulated KMS nodes and coprocessors answering, and JSON-RPC over HTTP and WebSocket on
127.0.0.1, until SIGINT or SIGTERM. Every key is a development key derived from a fixed, public
seed, so addresses are the same on every run; --print-keys prints the relayer's private keys.
--fund sends 1000 ether to each address given, for a relayer key the chain did not make (one
kept in AWS KMS, say).

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
	"KMSNodes": "--kms-nodes", "Threshold": "--threshold", "Coprocessors": "--coprocessors",
	"RelayerKeys": "--relayer-keys", "HTTPAddr": "--http", "WSAddr": "--ws",
}

// devchainFlagNames writes the flags in place of the Config fields an issue names ("want
// 1..KMSNodes (4)", "HTTPAddr and WSAddr are both ...").
var devchainFlagNames = func() *strings.Replacer {
	var pairs []string
	for field, flag := range devchainFlags {
		if field[0] >= 'A' && field[0] <= 'Z' {
			pairs = append(pairs, field, flag)
		}
	}
	return strings.NewReplacer(pairs...)
}()

// runDevchain is `relayer devchain`.
func runDevchain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("devchain", devchainUsage)
	httpAddr := fs.String("http", "127.0.0.1:8545", "serve JSON-RPC over HTTP on `ADDR`, a loopback host:port (\"\" for none)")
	wsAddr := fs.String("ws", "127.0.0.1:8546", "serve JSON-RPC over WebSocket on `ADDR`, a loopback host:port (\"\" for none)")
	kmsNodes := fs.Int("kms-nodes", devchain.DefaultKMSNodes, "number of simulated KMS nodes")
	threshold := fs.Int("threshold", devchain.DefaultThreshold, "distinct KMS signatures that complete a decryption")
	coprocessors := fs.Int("coprocessors", devchain.DefaultCoprocessors, "number of simulated coprocessors (a majority decides)")
	relayerKeys := fs.Int("relayer-keys", devchain.DefaultRelayerKeys, "number of funded relayer keys")
	profile := fs.String("profile", string(devchain.ProfileInstant), "latency profile of the simulated KMS nodes, coprocessors and readiness: `instant|production`")
	kmsDelay := fs.Duration("kms-delay", 0, "typical delay of a KMS node's answer to a decryption (0: the profile's; production 4s)")
	coprocessorDelay := fs.Duration("coprocessor-delay", 0, "typical delay of a coprocessor's answer to an input proof (0: the profile's; production 2s)")
	readinessDelay := fs.Duration("readiness-delay", 0, "typical time from a handle's first readiness question to ready (0: the profile's; production 2s)")
	jitter := fs.Float64("jitter", devchain.DefaultJitter, "how far each delay drawn may be from the typical one, as a share of it (0 < J < 1)")
	fund := fs.String("fund", "", "comma-separated `addresses` sent 1000 ether each at start (relayer keys kept elsewhere, e.g. in AWS KMS)")
	printKeys := fs.Bool("print-keys", false, "also print the relayer keys' private keys (development keys: public by construction)")
	verbose := fs.Bool("v", false, "log every simulated answer")
	if err := parseFlagsOnly(fs, args, stdout, stderr); err != nil {
		return err
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
	var funded []common.Address
	for _, a := range strings.Split(*fund, ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		if !common.IsHexAddress(a) {
			return usageErrorf("devchain: --fund: an entry of %d characters is not an address (40 hex digits, 0x optional)", len(a))
		}
		funded = append(funded, common.HexToAddress(a))
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
				problems[i] = name + ": " + devchainFlagNames.Replace(p.Issue)
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
	for _, a := range funded {
		if err := chain.Fund(ctx, a, fundAmount); err != nil {
			_ = chain.Close()
			return err
		}
	}
	printDevchain(stdout, chain, funded, *printKeys)

	<-ctx.Done()
	if err := chain.Close(); err != nil {
		return fmt.Errorf("devchain: stop: %w", err)
	}
	fmt.Fprintln(stdout, "development chain stopped")
	return nil
}

// fundAmount is what --fund sends each address: 1000 ether.
var fundAmount = new(big.Int).Mul(big.NewInt(1000), big.NewInt(1e18))

func printDevchain(w io.Writer, c *devchain.Chain, funded []common.Address, printKeys bool) {
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
	for _, a := range funded {
		line("funded (1000 ether)", a)
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
