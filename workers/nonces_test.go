package workers

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"relayer/domain"
	"relayer/projections"
	"relayer/workers/devchain"
	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
)

// nonceFixes are the NonceCorrected events of key's stream.
func (env *engineEnv) nonceFixes(key common.Address) []domain.NonceCorrected {
	env.t.Helper()
	var out []domain.NonceCorrected
	for _, ev := range env.signerEvents(key) {
		if f, ok := ev.(domain.NonceCorrected); ok {
			out = append(out, f)
		}
	}
	return out
}

// minedOnce checks that exactly one of job s's recorded transactions (every TransactionSigned
// and TransactionReplaced in its history, whatever nonce) is on chain, and that it is s's last:
// the job put one gateway request on chain.
func (env *engineEnv) minedOnce(s domain.State) {
	env.t.Helper()
	ctx := context.Background()
	var hashes []string
	for _, ev := range env.jobEvents(s.JobID) {
		switch x := ev.(type) {
		case domain.TransactionSigned:
			hashes = append(hashes, x.TxHash)
		case domain.TransactionReplaced:
			hashes = append(hashes, x.TxHash)
		}
	}
	var mined []string
	for _, h := range hashes {
		_, err := env.chain.Client().TransactionReceipt(ctx, common.HexToHash(h))
		switch {
		case err == nil:
			mined = append(mined, h)
		case !errors.Is(err, ethereum.NotFound):
			env.t.Fatalf("job %s: receipt of %s: %v", s.JobID, h, err)
		}
	}
	if len(mined) != 1 || !strings.EqualFold(mined[0], s.TxHash) {
		env.t.Errorf("job %s: mined %v of its transactions %v, want exactly its last, %s", s.JobID, mined, hashes, s.TxHash)
	}
}

// A node restarted with an empty pool loses the key's transactions that were not sealed yet;
// their senders wait on receipts far longer than this test runs. The nonce check finds the
// nonces the node no longer holds and sends the same bytes again: every job completes with the
// one transaction it signed, and the log records the correction (NonceCorrected "resent").
func TestNoncesHealWhenTheNodeLosesItsPool(t *testing.T) {
	// Blocks are sealed 2s after a transaction arrives, so that the pool holds them when dropped.
	chain := startTestChain(t, devchain.Config{BlockDebounce: 2 * time.Second, Heartbeat: 5 * time.Second})
	env := startEngine(t, engineOpts{chain: chain,
		pcfg:    projections.Config{TxInFlightTimeout: 10 * time.Minute},
		cfg:     Config{NonceCheckInterval: 300 * time.Millisecond},
		gateway: func(c *gateway.Config) { c.ReceiptTimeout = 10 * time.Minute }})
	key := crypto.PubkeyToAddress(chain.RelayerKey().PublicKey)
	ctx := context.Background()

	var ids []domain.JobID
	for range 2 {
		for _, k := range domain.Kinds() {
			ids = append(ids, env.accept(env.request(k, contracts.ScenarioNone)))
		}
	}
	// pooled is how many of the key's transactions the node holds and has not mined.
	pooled := func() int {
		mined, err := chain.Client().NonceAt(ctx, key, nil)
		if err != nil {
			t.Fatal(err)
		}
		pending, err := chain.Client().PendingNonceAt(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		return int(pending - mined)
	}
	eventually(t, func() bool { return pooled() >= 3 }, "transactions of the key to wait in the pool")
	if err := chain.DropPending(ctx); err != nil {
		t.Fatal(err)
	}
	if n := pooled(); n != 0 {
		t.Fatalf("after DropPending the node holds %d transactions of the key, want none", n)
	}

	for _, id := range ids {
		s := env.waitTerminal(id, 2*time.Minute)
		if s.Status != domain.Completed {
			t.Fatalf("%s job %s: %s %q (%s), want completed; events %v", s.Kind, id, s.Status, s.Label, s.Message, env.eventTypes(id))
		}
		for _, typ := range env.eventTypes(id) {
			if typ == "TransactionReset" {
				t.Errorf("job %s was given a new transaction: %v", id, env.eventTypes(id))
			}
		}
		env.minedOnce(s)
	}
	var resent []uint64
	for _, f := range env.nonceFixes(key) {
		if f.Action == gateway.NonceResent {
			resent = append(resent, f.Nonces...)
			if !strings.EqualFold(f.Address, key.Hex()) || f.Reason == "" || f.At.IsZero() {
				t.Errorf("NonceCorrected %+v: want the key %s, a reason and a time", f, key)
			}
		}
	}
	if len(resent) == 0 {
		t.Fatalf("no NonceCorrected %q in the key's stream: %+v", gateway.NonceResent, env.nonceFixes(key))
	}
	if v := counterValue(t, env.eng.Collectors(), "relayer_nonce_corrections_total", "action", gateway.NonceResent); v < 1 {
		t.Errorf("relayer_nonce_corrections_total{action=resent} = %v, want at least 1", v)
	}
	t.Logf("nonces sent again: %v", resent)
}

// sendFromKey sends a transfer to self from key, as another process holding the relayer's key
// would: with the chain's pending nonce, read again when the node refuses it. It returns the
// transaction's nonce.
func sendFromKey(t *testing.T, chain *devchain.Chain) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := chain.Client()
	key := chain.RelayerKey()
	self := crypto.PubkeyToAddress(key.PublicKey)
	for {
		n, err := c.PendingNonceAt(ctx, self)
		if err != nil {
			t.Fatal(err)
		}
		head, err := c.HeaderByNumber(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		tip := big.NewInt(1_000_000_000)
		feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
		tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chain.ChainID()), &types.DynamicFeeTx{
			ChainID: chain.ChainID(), Nonce: n, GasTipCap: tip, GasFeeCap: feeCap, Gas: 21_000, To: &self, Value: new(big.Int),
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SendTransaction(ctx, tx); err == nil {
			return n
		} else if ctx.Err() != nil {
			t.Fatalf("another sender: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Another process sends with the relayer's key, while the relayer is idle and then while its
// jobs are in flight. Idle, the nonce check finds the chain's pending nonce above every nonce the
// relayer handed out and moves past it (NonceCorrected "skipped") before any job meets "nonce
// too low"; under load, a job whose nonce was taken gets a fresh one. Every job completes with
// exactly one of its transactions on chain, and no operator is needed.
func TestNoncesSkipAnotherSendersTransactions(t *testing.T) {
	chain := startTestChain(t, devchain.Config{})
	env := startEngine(t, engineOpts{chain: chain, cfg: Config{NonceCheckInterval: 200 * time.Millisecond}})
	key := crypto.PubkeyToAddress(chain.RelayerKey().PublicKey)

	// The sequence is seeded by a first job.
	first := env.accept(env.request(domain.PublicDecrypt, contracts.ScenarioNone))
	if s := env.waitTerminal(first, time.Minute); s.Status != domain.Completed {
		t.Fatalf("first job: %s %q", s.Status, s.Label)
	}
	// Idle: three transactions of another process.
	var theirs []uint64
	for range 3 {
		theirs = append(theirs, sendFromKey(t, chain))
	}
	// A check may run between two of the other process's sends: its skips, in order, together
	// move the sequence past every nonce the other process took.
	end := theirs[len(theirs)-1] + 1
	skipped := func() []domain.NonceCorrected {
		var out []domain.NonceCorrected
		for _, f := range env.nonceFixes(key) {
			if f.Action == gateway.NonceSkipped {
				out = append(out, f)
			}
		}
		return out
	}
	eventually(t, func() bool {
		return slices.ContainsFunc(skipped(), func(f domain.NonceCorrected) bool { return f.To == end })
	}, "the nonce check to move past the other process's nonces")
	skips := skipped()
	if skips[0].From > theirs[0] {
		t.Errorf("NonceCorrected %+v: want From at most %d (the first nonce the other process took)", skips[0], theirs[0])
	}
	for i, skip := range skips {
		if skip.To <= skip.From || i > 0 && skip.From != skips[i-1].To {
			t.Errorf("NonceCorrected %+v after %+v: want each skip to start where the last ended", skip, skips[max(i-1, 0)])
		}
		if skip.To == end {
			break
		}
	}

	// Under load: the other process keeps sending while jobs are signed and sent.
	var ids []domain.JobID
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 6 {
			sendFromKey(t, chain)
			time.Sleep(50 * time.Millisecond)
		}
	}()
	for range 4 {
		for _, k := range domain.Kinds() {
			ids = append(ids, env.accept(env.request(k, contracts.ScenarioNone)))
		}
		time.Sleep(100 * time.Millisecond)
	}
	<-done
	resets := 0
	for _, id := range ids {
		s := env.waitTerminal(id, 2*time.Minute)
		if s.Status != domain.Completed {
			t.Fatalf("%s job %s: %s %q (%s), want completed; events %v", s.Kind, id, s.Status, s.Label, s.Message, env.eventTypes(id))
		}
		sentBy(t, chain, s, key)
		env.minedOnce(s)
		if slices.Contains(env.eventTypes(id), "TransactionReset") {
			resets++
		}
	}
	t.Logf("corrections: %+v; jobs given a new transaction: %d", env.nonceFixes(key), resets)
}
