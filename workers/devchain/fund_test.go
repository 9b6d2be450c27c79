package devchain_test

import (
	"math/big"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Accounts the chain did not make (AWS KMS keys, say) are funded on request, several at once,
// each with exactly what was asked.
func TestFundCreditsAccountsTheChainDidNotMake(t *testing.T) {
	t.Parallel()
	c, ctx := shared, testContext(t)
	accounts := make([]common.Address, 3)
	errs := make([]error, len(accounts))
	amount := func(i int) *big.Int { return big.NewInt(int64(i+1) * 1e15) }
	var wg sync.WaitGroup
	for i := range accounts {
		k, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		accounts[i] = crypto.PubkeyToAddress(k.PublicKey)
		wg.Go(func() { errs[i] = c.Fund(ctx, accounts[i], amount(i)) })
	}
	wg.Wait()
	for i, a := range accounts {
		if errs[i] != nil {
			t.Fatalf("fund %s: %v", a, errs[i])
		}
		bal, err := c.Client().BalanceAt(ctx, a, nil)
		if err != nil {
			t.Fatal(err)
		}
		if bal.Cmp(amount(i)) != 0 {
			t.Errorf("%s holds %s wei, want %s", a, bal, amount(i))
		}
	}
}
