// Package rpcfaulttest starts an RPC fault proxy for a test: the one starter every package's
// tests share, instead of a copy in each. Only tests import it.
package rpcfaulttest

import (
	"testing"

	"relayer/workers/devchain/rpcfault"
)

// Start puts an RPC fault proxy configured by cfg in front of target (a node's URL) and closes it
// when tb ends; a proxy that does not start fails tb.
func Start(tb testing.TB, target string, cfg rpcfault.Config) *rpcfault.Proxy {
	tb.Helper()
	p, err := rpcfault.New(target, cfg)
	if err != nil {
		tb.Fatalf("start an RPC fault proxy for %s: %v", target, err)
	}
	tb.Cleanup(func() { _ = p.Close() })
	return p
}
