package devchain_test

import (
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// A key's transactions sent at once, 32 at a time, reach the pool out of nonce order, as a
// relayer's concurrent sends under load do: the pool keeps them all, and all are mined. (With
// geth's default pool the nonces beyond 64 waiting behind a missing one were taken and dropped:
// a few hundred of these 2,000 were mined, and the rest never.)
func TestTransactionsSentOutOfNonceOrderAreAllMined(t *testing.T) {
	c, ctx := shared, testContext(t)
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	if err := c.Fund(ctx, from, big.NewInt(1e18)); err != nil {
		t.Fatal(err)
	}
	head, err := c.Client().HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tip, err := c.Client().SuggestGasTipCap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(4)), tip)
	signer := types.LatestSignerForChainID(c.ChainID())
	const n = 2000
	var (
		sends  sync.WaitGroup
		failed = make(chan error, n)
		slots  = make(chan struct{}, 32)
	)
	for i := range n {
		tx, err := types.SignNewTx(key, signer, &types.DynamicFeeTx{ChainID: c.ChainID(), Nonce: uint64(i),
			GasTipCap: tip, GasFeeCap: feeCap, Gas: 21000, To: &from, Value: big.NewInt(1)})
		if err != nil {
			t.Fatal(err)
		}
		slots <- struct{}{}
		sends.Go(func() {
			defer func() { <-slots }()
			if err := c.Client().SendTransaction(ctx, tx); err != nil {
				failed <- err
			}
		})
	}
	sends.Wait()
	close(failed)
	for err := range failed {
		t.Fatalf("send: %v", err)
	}
	var mined uint64
	for deadline := time.Now().Add(eventWait); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if mined, err = c.Client().NonceAt(ctx, from, nil); err == nil && mined == n {
			return
		}
	}
	t.Fatalf("%d of the key's %d transactions mined after %s (the pool dropped the rest)", mined, n, eventWait)
}
