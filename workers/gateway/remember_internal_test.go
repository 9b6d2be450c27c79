package gateway

import (
	"bytes"
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"relayer/workers/devchain"
	"relayer/workers/devchain/devchaintest"
)

// A fleet's engine sends the recorded bytes of its jobs whatever key signed them (the fleet's
// keys changed): another key's transaction does not take the place of the key's own of the same
// nonce among those the nonce check sends again (HealNonces), or the key's own, lost by the
// node, would not go out again.
func TestAnotherKeysTransactionIsNotKeptAsTheKeysOwnOfItsNonce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	chain := devchaintest.Start(t, devchain.Config{RelayerKeys: 2}, nil)
	a := devAdapter(t, ctx, chain, chain.RelayerKeys()[0], nil)
	other := a.WithKey(NewSigner(chain.RelayerKeys()[1]))
	tip, feeCap, err := a.fees(ctx)
	if err != nil {
		t.Fatal(err)
	}
	signed := func(by *Adapter, nonce uint64) *Prepared {
		self := by.Address()
		tx, err := by.sign(ctx, types.NewTx(&types.DynamicFeeTx{ChainID: a.chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gapFillGas, To: &self, Value: new(big.Int)}))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := tx.MarshalBinary()
		p, err := a.DecodePrepared(raw)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	n, err := a.pendingNonce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	own := signed(a, n)
	if _, err := a.Broadcast(ctx, own); err != nil {
		t.Fatal(err)
	}
	theirs := signed(other, n)
	_, _ = a.Broadcast(ctx, theirs) // mined, or refused: it is sent either way
	if got := a.sentWith(n); !bytes.Equal(got, own.Raw) {
		t.Fatalf("the transaction kept for nonce %d is %x, want the key's own %x", n, got, own.Raw)
	}
}

// Bytes whose nonce is given back (the node refused them) are not kept for the nonce check to
// send again: once a gap fill has taken the nonce, and before its filling is sent, no one knows
// the nonce, and the check would send the refused bytes again, which the node may take by then
// (funds topped up, fees fallen) and mine after their job failed or took a new transaction.
func TestReleasedBytesAreNotKeptForTheNonceCheck(t *testing.T) {
	a := &Adapter{}
	h, err := a.nonces.take(context.Background(), func(context.Context) (uint64, error) { return 5, nil })
	if err != nil {
		t.Fatal(err)
	}
	raw := []byte{0x02, 0x05}
	a.remember(h.nonce, raw) // as send does before the node refuses them
	a.Release(&Prepared{Nonce: h.nonce, Raw: raw, h: h})
	if got := a.sentWith(h.nonce); got != nil {
		t.Fatalf("after the release of nonce %d its bytes %x are kept for the nonce check", h.nonce, got)
	}
}
