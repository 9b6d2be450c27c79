package workers

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"relayer/domain"
	"relayer/workers/devchain"
	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
)

// A fee spike leaves the relayer's transactions under the base fee: each is replaced at its
// nonce with higher fees, the replacement recorded before it is sent, and the jobs complete
// through the replacements, each with exactly one gateway request on chain.
func TestEngineReplacesTransactionsAFeeSpikeStalled(t *testing.T) {
	// Blocks are sealed 100 ms after a transaction arrives (10 ms by default), so that the spike
	// tops the pool up between two blocks even on a loaded machine: a block sealed before the
	// top-up would have room for the relayer's transaction, which would then never stall.
	chain := startTestChain(t, devchain.Config{BlockDebounce: 100 * time.Millisecond})
	// The relayer tips little (as a thrifty operator's would), so the spike's transactions go
	// first and a few full blocks take the base fee above what it signed for. It replaces a
	// transaction 2 blocks after sending it (5 by default), so that the spike needs to hold the
	// blocks full only that long, even on a loaded machine.
	env := startEngine(t, engineOpts{chain: chain, cfg: Config{TxAttempts: 3, TxRetryDelay: 50 * time.Millisecond},
		gateway: func(c *gateway.Config) { c.MaxPriorityFeePerGas = 1_000_000; c.BumpAfterBlocks = 2 }})
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var spam int
	wg.Go(func() {
		var err error
		// A tip far above the relayer's, so the spike's transactions go first.
		if spam, err = devchain.FillBlocks(ctx, chain.Client(), chain.ChainID(), chain.UserKey(1), big.NewInt(2_000_000_000)); err != nil {
			t.Errorf("fee spike: %v", err)
		}
	})
	// The spike is under way once the blocks are full: the base fee has doubled.
	baseFee := func() *big.Int {
		h, err := chain.Client().HeaderByNumber(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return h.BaseFee
	}
	start := baseFee()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end) && baseFee().Cmp(new(big.Int).Mul(start, big.NewInt(2))) < 0; {
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("fee spike: base fee %s wei, from %s", baseFee(), start)
	var ids []domain.JobID
	var reqs []domain.Request
	for _, k := range []domain.Kind{domain.InputProof, domain.PublicDecrypt, domain.UserDecrypt, domain.InputProof} {
		req := env.request(k, contracts.ScenarioNone)
		ids, reqs = append(ids, env.accept(req)), append(reqs, req)
	}
	// The spike lasts until a replacement is recorded (or 20 s), then the base fee falls back.
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) && env.countEvents("TransactionReplaced") == 0 {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second)
	stop()
	wg.Wait()
	replaced := env.countEvents("TransactionReplaced")
	t.Logf("%d gas-burning transactions sent; %d replacements recorded", spam, replaced)
	if replaced == 0 {
		t.Fatal("no transaction was replaced during the fee spike")
	}
	for i, id := range ids {
		s := env.waitTerminal(id, 2*time.Minute)
		if s.Status != domain.Completed {
			t.Errorf("job %d: %s %q (%s), want completed", i, s.Status, s.Label, s.Message)
		}
		if got := requestsOnChain(t, chain, reqs[i]); len(got) != 1 {
			t.Errorf("job %d: %d gateway requests on chain, want exactly one", i, len(got))
		}
	}
	// Every replacement was recorded before it was sent: its bytes are in the log, at the same
	// nonce as the transaction it replaced, with fees at least the bump above.
	for _, id := range ids {
		var prev *types.Transaction
		for rec, err := range env.store.ReadStream(context.Background(), id.Stream(), 0) {
			if err != nil {
				t.Fatal(err)
			}
			ev, err := env.exec.Codec.Decode(rec)
			if err != nil {
				t.Fatal(err)
			}
			var raw string
			switch e := ev.(type) {
			case domain.TransactionSigned:
				raw = e.RawTx
			case domain.TransactionReplaced:
				raw = e.RawTx
			default:
				continue
			}
			b, err := decodeRawTx(raw)
			if err != nil {
				t.Fatal(err)
			}
			tx := new(types.Transaction)
			if err := tx.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if _, replacement := ev.(domain.TransactionReplaced); replacement {
				if prev == nil || tx.Nonce() != prev.Nonce() || string(tx.Data()) != string(prev.Data()) {
					t.Fatalf("job %s: a replacement at another nonce or with another call", id)
				}
				wantFeesRaised(t, fmt.Sprintf("job %s: replacement fee", id), 10,
					[][2]*big.Int{{tx.GasFeeCap(), prev.GasFeeCap()}, {tx.GasTipCap(), prev.GasTipCap()}})
			}
			prev = tx
		}
	}
}

// countEvents counts the events of type typ in the whole log.
func (env *engineEnv) countEvents(typ string) int {
	n := 0
	for rec, err := range env.store.ReadAll(context.Background(), 0) {
		if err != nil {
			env.t.Fatal(err)
		}
		if rec.Type == typ {
			n++
		}
	}
	return n
}

// The crashed engine recorded a replacement and died before sending it, while the transaction
// it replaced was mined after all: the new engine sends the replacement, the node says its nonce
// is used, and the receipt of the one mined is adopted. The job is never sent back for a second
// transaction, and the chain holds one gateway request for it.
func TestRecoveryAdoptsTheReplacedTransactionThatWasMined(t *testing.T) {
	r := newCrashRig(t, devchain.Config{})
	ctx := context.Background()
	req, id, gw, first := r.signedInputProof()
	repl, err := gw.Replacement(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if repl.Nonce != first.Nonce || repl.Hash == first.Hash || string(repl.Transaction().Data()) != string(first.Transaction().Data()) {
		t.Fatalf("replacement %+v of %+v: not the same call at the same nonce", repl, first)
	}
	wantFeesRaised(t, "replacement fee", 12, [][2]*big.Int{{repl.GasFeeCap, first.GasFeeCap}, {repl.GasTipCap, first.GasTipCap}})
	r.execute(id, domain.ReplaceTransaction{At: domain.At{At: time.Now()}, Replaces: first.Hash.Hex(), TxHash: repl.Hash.Hex(),
		RawTx: "0x" + hex.EncodeToString(repl.Raw), GasFeeCap: repl.GasFeeCap.String(), GasTipCap: repl.GasTipCap.String()})
	// The first one is mined (it was in a pool the crash did not reach).
	if _, err := gw.Broadcast(ctx, first); err != nil {
		t.Fatal(err)
	}
	gw.Close()

	evs := r.restart(id, domain.Completed, "", "RequestAccepted", "TransactionSigned", "TransactionReplaced", "ReceiptRecorded", "RequestCompleted")
	if rec := evs[3].(domain.ReceiptRecorded); rec.TxHash != first.Hash.Hex() {
		t.Errorf("receipt of %s, want the mined first transaction %s", rec.TxHash, first.Hash.Hex())
	}
	wantOneRequest(t, r.chain, "input proof", req, first.Hash)
}
