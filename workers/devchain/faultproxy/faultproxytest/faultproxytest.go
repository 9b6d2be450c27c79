// Package faultproxytest starts a fault proxy for a test: the one starter every package's tests
// share, instead of a copy in each. Only tests import it.
package faultproxytest

import (
	"testing"

	"relayer/workers/devchain/faultproxy"
)

// Start puts a fault proxy in front of target (host:port, or a URL whose host it takes) and
// closes it when tb ends; a proxy that does not start fails tb.
func Start(tb testing.TB, target string) *faultproxy.Proxy {
	tb.Helper()
	p, err := faultproxy.New(target)
	if err != nil {
		tb.Fatalf("start a fault proxy for %s: %v", target, err)
	}
	tb.Cleanup(func() { _ = p.Close() })
	return p
}

// SetMode switches p to m; a proxy that cannot switch fails tb.
func SetMode(tb testing.TB, p *faultproxy.Proxy, m faultproxy.Mode) {
	tb.Helper()
	if err := p.SetMode(m); err != nil {
		tb.Fatalf("fault proxy SetMode(%v): %v", m, err)
	}
}
