// Package devchaintest starts the development chain for a test: the one starter every package's
// tests share, instead of a copy in each. Only tests import it.
package devchaintest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"relayer/workers/devchain"
)

// startTimeout bounds a chain's start: deploying the contracts takes a few seconds, more on a
// loaded machine.
const startTimeout = time.Minute

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
