// Package devchaintest starts the development chain for a test: the one starter every package's
// tests share, instead of a copy in each. Only tests import it.
package devchaintest

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"relayer/workers/devchain"
)

// startTimeout bounds a chain's start: deploying the contracts takes a few seconds, more on a
// loaded machine.
const startTimeout = time.Minute

// Short answers keep a suite quick; silence ("no response") is judged over QuietWindow, many
// times the longest answer delay.
const (
	ResponseDelayMin = 5 * time.Millisecond
	ResponseDelayMax = 40 * time.Millisecond
	QuietWindow      = 1500 * time.Millisecond
)

// Config is a chain that answers within ResponseDelayMin to ResponseDelayMax.
func Config() devchain.Config {
	return devchain.Config{ResponseDelayMin: ResponseDelayMin, ResponseDelayMax: ResponseDelayMax}
}

// Start starts a development chain configured by cfg, logging to log (nil: nowhere), and closes
// it when tb ends; a chain that does not start, or does not close cleanly, fails tb.
func Start(tb testing.TB, cfg devchain.Config, log *slog.Logger) *devchain.Chain {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	c, err := devchain.Start(ctx, cfg, log)
	if err != nil {
		tb.Fatalf("start the development chain: %v", err)
	}
	tb.Cleanup(func() {
		if err := c.Close(); err != nil {
			tb.Errorf("close the development chain: %v", err)
		}
	})
	return c
}

// Main is a TestMain that shares one chain among a package's tests: it starts a chain
// configured by cfg, logging to log (nil: nowhere), hands it to ready, runs the tests, closes
// the chain and exits. A chain that does not start, or does not close cleanly, fails the run.
func Main(m *testing.M, cfg devchain.Config, log *slog.Logger, ready func(*devchain.Chain)) {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	c, err := devchain.Start(ctx, cfg, log)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the shared development chain:", err)
		os.Exit(1)
	}
	ready(c)
	code := m.Run()
	if err := c.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "close the shared development chain:", err)
		code = 1
	}
	os.Exit(code)
}

// Logger logs the chain's simulators to stderr, at debug level, when the environment variable
// env is set, and returns nil (nowhere) when it is not.
func Logger(env string) *slog.Logger {
	if os.Getenv(env) == "" {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Context is a context for a test on the chain: ended after timeout, or once the test and its
// cleanups are done (so that a cleanup may still use it).
func Context(tb testing.TB, timeout time.Duration) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	tb.Cleanup(cancel)
	return ctx
}

// WalletSignature is devchain.WalletOwnerKey(i)'s signature of digest as an ERC-1271 wallet
// expects it: r || s || v, v 27/28.
func WalletSignature(tb testing.TB, i int, digest [32]byte) []byte {
	tb.Helper()
	sig, err := crypto.Sign(digest[:], devchain.WalletOwnerKey(i))
	if err != nil {
		tb.Fatal(err)
	}
	sig[64] += 27
	return sig
}
