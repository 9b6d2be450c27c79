package gateway

import (
	"context"
	"crypto/ecdsa"
	"log/slog"
	"testing"
	"time"

	"relayer/workers/devchain"
)

// devAdapter is an adapter signing with key on the development chain, polling fast; extra, when
// set, tunes its configuration. It is closed when the test ends.
func devAdapter(t *testing.T, ctx context.Context, chain *devchain.Chain, key *ecdsa.PrivateKey, extra func(*Config)) *Adapter {
	t.Helper()
	addrs := chain.Addresses()
	cfg := Config{
		ChainID:      chain.ChainID().Uint64(),
		Contracts:    Contracts{Decryption: addrs.Decryption, InputVerification: addrs.InputVerification, ACL: addrs.ACL},
		PollInterval: 100 * time.Millisecond, ReceiptPollMin: 10 * time.Millisecond,
	}
	if extra != nil {
		extra(&cfg)
	}
	a, err := New(ctx, chain.Client(), cfg, slog.New(slog.DiscardHandler), WithSigner(NewSigner(key)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}
