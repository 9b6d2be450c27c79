package gateway

import (
	"context"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"relayer/workers/devchain"
	"relayer/workers/devchain/devchaintest"
)

// A nonce the sequence handed out and then lost track of (released after a resync began a new
// epoch, so that the release was ignored) is a gap no transaction of the key will ever fill: the
// key's later transactions wait behind it in the pool for good. The nonce check finds it at two
// checks in a row, neither held by the node nor known to the sequence, and fills it; the later
// transactions are mined, and the correction is reported (NonceFilled).
func TestHealNoncesFillsANonceTheSequenceLostTrackOf(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	chain := devchaintest.Start(t, devchain.Config{}, nil)
	a := devAdapter(t, ctx, chain, chain.RelayerKey(), func(c *Config) { c.GapFillDelay = 100 * time.Millisecond })
	self := a.Address()

	h1, err := a.nonces.take(ctx, a.pendingNonce)
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := a.nonces.take(ctx, a.pendingNonce)
	a.nonces.invalidate(true) // as after a "nonce too low" of another transaction
	h3, err := a.nonces.take(ctx, a.pendingNonce)
	if err != nil {
		t.Fatal(err)
	}
	a.release(h1) // from the old epoch: ignored, and h1's nonce is known to nobody now
	lost := h1.nonce
	if h2.nonce != lost+1 || h3.nonce != lost+2 {
		t.Fatalf("nonces %d, %d, %d handed out, want three in a row", h1.nonce, h2.nonce, h3.nonce)
	}

	tip, feeCap, err := a.fees(ctx)
	if err != nil {
		t.Fatal(err)
	}
	send := func(h *handout) *types.Transaction {
		tx, err := a.sign(ctx, types.NewTx(&types.DynamicFeeTx{ChainID: a.chainID, Nonce: h.nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gapFillGas, To: &self, Value: new(big.Int)}))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := tx.MarshalBinary()
		a.remember(h.nonce, raw)
		if _, err := a.client.sendRaw(ctx, raw, nil); err != nil {
			t.Fatal(err)
		}
		a.nonces.sent(h)
		return tx
	}
	later := []*types.Transaction{send(h2), send(h3)}

	// The first check suspects the lost nonce; nothing is filled yet.
	fixes, err := a.HealNonces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(fixes) != 0 {
		t.Fatalf("the first check made corrections %+v, want none (a nonce is filled only when two checks find it lost)", fixes)
	}
	time.Sleep(300 * time.Millisecond)
	if n, err := chain.Client().NonceAt(ctx, self, nil); err != nil || n > lost {
		t.Fatalf("mined nonce %d (%v) before the gap was filled, want %d", n, err, lost)
	}
	if _, err := a.HealNonces(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tx := range later {
		rec, err := chain.WaitReceipt(ctx, tx.Hash())
		if err != nil || rec.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("transaction with nonce %d behind the gap: receipt %v, %v", tx.Nonce(), rec, err)
		}
	}
	var filled []uint64
	deadline := time.Now().Add(10 * time.Second)
	for len(filled) == 0 && time.Now().Before(deadline) {
		fixes, err = a.HealNonces(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fixes {
			if f.Action == NonceFilled {
				filled = append(filled, f.Nonces...)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !slices.Equal(filled, []uint64{lost}) {
		t.Errorf("filled %v, want [%d]", filled, lost)
	}
}
