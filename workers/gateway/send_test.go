package gateway_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"relayer/domain"
	"relayer/workers/devchain/devchaintest"
	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
)

// silentRequest is a public decrypt that succeeds on chain and that no KMS node answers, so
// nonce tests do not load the simulators.
func silentRequest(seed string) domain.Request {
	return publicRequest(contracts.TestHandle(contracts.ScenarioNoResponse, seed))
}

func TestFiftyConcurrentRequestsFromOneKeyAllMineWithDistinctConsecutiveNonces(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	key := nextKey(t)
	ad := dial(t, key, nil)
	start, err := shared.Client().PendingNonceAt(ctx, crypto.PubkeyToAddress(key.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		nonces   []uint64
		ids      = map[string]bool{}
		failures []error
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := ad.Prepare(ctx, silentRequest(fmt.Sprintf("%s/%d", t.Name(), i)))
			if err != nil {
				mu.Lock()
				failures = append(failures, fmt.Errorf("prepare %d: %w", i, err))
				mu.Unlock()
				return
			}
			rec, err := ad.Broadcast(ctx, p)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failures = append(failures, fmt.Errorf("broadcast %d (nonce %d): %w", i, p.Nonce, err))
				return
			}
			if rec.Raw.Status != types.ReceiptStatusSuccessful {
				failures = append(failures, fmt.Errorf("request %d reverted", i))
			}
			nonces = append(nonces, p.Nonce)
			ids[rec.RequestID.String()] = true
		}()
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of %d failed: %v", len(failures), n, errors.Join(failures...))
	}
	slices.Sort(nonces)
	for i, got := range nonces {
		if got != start+uint64(i) {
			t.Fatalf("nonces %v, want %d..%d each once", nonces, start, start+n-1)
		}
	}
	if len(ids) != n {
		t.Fatalf("%d distinct request ids for %d requests", len(ids), n)
	}
}

func TestBroadcastingTheSameBytesAgainReturnsTheSameReceiptAndNoSecondTransaction(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	key := nextKey(t)
	from := crypto.PubkeyToAddress(key.PublicKey)
	ad := dial(t, key, nil)

	p := mustPrepare(t, ctx, ad, silentRequest(t.Name()))
	// Twice at once (a retry racing the first attempt), then once more after it is mined: the
	// node answers "already known" or "nonce too low", and both mean this very transaction.
	var wg sync.WaitGroup
	recs := make([]*gateway.Receipt, 2)
	errs := make([]error, 2)
	for i := range recs {
		wg.Add(1)
		go func() { defer wg.Done(); recs[i], errs[i] = ad.Broadcast(ctx, p) }()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	again, err := ad.Broadcast(ctx, p)
	if err != nil {
		t.Fatalf("re-broadcast of a mined transaction: %v", err)
	}
	for _, r := range append(recs, again) {
		if r.TxHash != p.Hash || r.RequestID.Cmp(recs[0].RequestID) != 0 || r.BlockHash != recs[0].BlockHash {
			t.Fatalf("receipts differ: %+v vs %+v", r, recs[0])
		}
	}
	mined, err := shared.Client().NonceAt(ctx, from, nil)
	if err != nil {
		t.Fatal(err)
	}
	if mined != p.Nonce+1 {
		t.Fatalf("the key's nonce is %d after one transaction with nonce %d: something else was sent", mined, p.Nonce)
	}
}

func TestBroadcastOfATransactionAlreadyInThePoolWaitsForIt(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	ad := dial(t, nextKey(t), func(c *gateway.Config) { c.GapFillDelay = time.Minute })

	first := mustPrepare(t, ctx, ad, silentRequest(t.Name()+"/1"))
	second := mustPrepare(t, ctx, ad, silentRequest(t.Name()+"/2"))
	// second waits in the pool behind the gap of first's nonce: the node knows it already.
	sendRaw(t, ctx, second.Raw)
	done := make(chan error, 1)
	go func() {
		rec, err := ad.Broadcast(ctx, second)
		if err == nil && rec.TxHash != second.Hash {
			err = fmt.Errorf("receipt of %s, want %s", rec.TxHash, second.Hash)
		}
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("Broadcast returned (%v) before the nonce gap was filled", err)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := ad.Broadcast(ctx, first); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Broadcast of a transaction already in the pool: %v", err)
	}
}

// A transaction whose fees still meet the chain's but that waits behind an earlier transaction
// of its key (here a nonce gap) is not reported stalled, however many blocks pass: a
// replacement would not be mined sooner. (Every transaction that waited bump_after_blocks was,
// and under a backlog the bursts of replacements were followed by runs of nonces the node no
// longer held.)
func TestATransactionWaitingBehindItsKeysEarlierOneAtTheChainsFeesIsNotStalled(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	// The node's own wait for the receipt ends after half a second, so that the adapter polls
	// for it and counts the blocks; one block would make it stalled.
	ad := dial(t, nextKey(t), func(c *gateway.Config) {
		c.GapFillDelay, c.BumpAfterBlocks, c.CallTimeout = time.Minute, 1, time.Second
	})
	first := mustPrepare(t, ctx, ad, silentRequest(t.Name()+"/1"))
	second := mustPrepare(t, ctx, ad, silentRequest(t.Name()+"/2"))
	done := make(chan error, 1)
	go func() {
		_, err := ad.Broadcast(ctx, second)
		done <- err
	}()
	// Blocks pass, for longer than the node's wait and a few of the adapter's head reads: another
	// key's transactions, each mined in a block of its own.
	other := dial(t, nextKey(t), nil)
	for i := 0; i < 12; i++ {
		if _, err := other.Broadcast(ctx, mustPrepare(t, ctx, other, silentRequest(fmt.Sprintf("%s/other-%d", t.Name(), i)))); err != nil {
			t.Fatal(err)
		}
		time.Sleep(250 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("Broadcast returned (%v) while its transaction waited behind the key's earlier one at the chain's fees", err)
	default:
	}
	if _, err := ad.Broadcast(ctx, first); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the transaction behind the gap, once it was filled: %v", err)
	}
}

// The sends that wait for the node's receipt (eth_sendRawTransactionSync) are few. When all of
// them are held by the key's later transactions, which wait for an earlier one, that earlier
// one still goes out at once, and all are mined: under load, 32 later transactions held every
// send for the node's whole wait while the one they waited for queued behind them.
func TestAnEarlierTransactionIsNotHeldUpBySendsWaitingForIt(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	// The node waits 10 s for a receipt: longer than the earlier transaction may take.
	ad := dial(t, nextKey(t), func(c *gateway.Config) { c.CallTimeout = 20 * time.Second })
	const later = 32 // the adapter's sends
	earlier := mustPrepare(t, ctx, ad, silentRequest(t.Name()+"/earlier"))
	var (
		waiting sync.WaitGroup
		failed  = make(chan error, later)
	)
	for i := range later {
		p := mustPrepare(t, ctx, ad, silentRequest(fmt.Sprintf("%s/later-%d", t.Name(), i)))
		waiting.Go(func() {
			if _, err := ad.Broadcast(ctx, p); err != nil {
				failed <- fmt.Errorf("nonce %d: %w", p.Nonce, err)
			}
		})
	}
	// The later ones are in the node's pool, each send waiting for its receipt.
	eventuallyWithin(t, 5*time.Second, func() bool {
		var pool struct{ Pending, Queued map[string]json.RawMessage }
		err := shared.Client().Client().CallContext(ctx, &pool, "txpool_contentFrom", ad.Address())
		return err == nil && len(pool.Pending)+len(pool.Queued) >= later
	}, "the later transactions to be in the pool")
	inTime, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := ad.Broadcast(inTime, earlier); err != nil {
		t.Fatalf("the earlier transaction, with every send held by the later ones: %v", err)
	}
	waiting.Wait()
	close(failed)
	for err := range failed {
		t.Errorf("a later transaction: %v", err)
	}
}

func TestANonceTakenByAnotherTransactionIsClassifiedAndTheSequenceMovesOn(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	key := nextKey(t)
	ad := dial(t, key, nil)

	p := mustPrepare(t, ctx, ad, silentRequest(t.Name()+"/1"))
	// Another sender with the same key takes the nonce first.
	from := crypto.PubkeyToAddress(key.PublicKey)
	other, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{
		ChainID: shared.ChainID(), Nonce: p.Nonce, GasTipCap: p.GasTipCap, GasFeeCap: p.GasFeeCap, Gas: 21_000, To: &from, Value: big.NewInt(1),
	}), types.LatestSignerForChainID(shared.ChainID()), key)
	if err != nil {
		t.Fatal(err)
	}
	if err := shared.Client().SendTransaction(ctx, other); err != nil {
		t.Fatal(err)
	}
	if _, err := shared.WaitReceipt(ctx, other.Hash()); err != nil {
		t.Fatal(err)
	}

	_, err = ad.Broadcast(ctx, p)
	te := wantKind(t, err, gateway.ErrNonceTooLow)
	if te.TxHash != p.Hash || te.Retryable() {
		t.Fatalf("nonce taken: %+v, want our hash and not retryable", te)
	}
	// The caller goes back to preparing: the next transaction gets a fresh nonce and mines.
	next := mustPrepare(t, ctx, ad, silentRequest(t.Name()+"/2"))
	if next.Nonce <= p.Nonce {
		t.Fatalf("after a taken nonce %d, the next is %d", p.Nonce, next.Nonce)
	}
	if _, err := ad.Broadcast(ctx, next); err != nil {
		t.Fatalf("the transaction after a resync: %v", err)
	}
}

func TestAReleasedNonceIsReusedByTheNextPrepare(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	ad := dial(t, nextKey(t), func(c *gateway.Config) { c.GapFillDelay = time.Minute })

	a := mustPrepare(t, ctx, ad, silentRequest(t.Name()+"/a"))
	b := mustPrepare(t, ctx, ad, silentRequest(t.Name()+"/b"))
	ad.Release(a) // recording a failed: these bytes will never be sent
	ad.Release(a) // twice changes nothing
	c := mustPrepare(t, ctx, ad, silentRequest(t.Name()+"/c"))
	if c.Nonce != a.Nonce {
		t.Fatalf("after releasing nonce %d the next Prepare got %d", a.Nonce, c.Nonce)
	}
	d := mustPrepare(t, ctx, ad, silentRequest(t.Name()+"/d"))
	if d.Nonce != b.Nonce+1 {
		t.Fatalf("after reusing the released nonce, the next is %d, want %d", d.Nonce, b.Nonce+1)
	}
	ad.Release(d) // the latest nonce is simply taken back
	e := mustPrepare(t, ctx, ad, silentRequest(t.Name()+"/e"))
	if e.Nonce != d.Nonce {
		t.Fatalf("after releasing the latest nonce %d the next Prepare got %d", d.Nonce, e.Nonce)
	}
	for _, p := range []*gateway.Prepared{c, b, e} { // in nonce order: each waits for its receipt
		if _, err := ad.Broadcast(ctx, p); err != nil {
			t.Fatalf("nonce %d: %v", p.Nonce, err)
		}
	}
	ad.Release(b) // after Broadcast: ignored
	f := mustPrepare(t, ctx, ad, silentRequest(t.Name()+"/f"))
	if f.Nonce != e.Nonce+1 {
		t.Fatalf("a Release after Broadcast gave nonce %d back (next is %d)", b.Nonce, f.Nonce)
	}
	ad.Release(f)
}

func TestAReleasedNonceBelowOthersIsFilledSoTheLaterTransactionsMine(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	key := nextKey(t)
	ad := dial(t, key, nil) // GapFillDelay 300ms
	ps := prepareN(t, ctx, ad, 3)
	ad.Release(ps[1]) // and no Prepare comes to reuse it
	for _, p := range []*gateway.Prepared{ps[0], ps[2]} {
		if _, err := ad.Broadcast(ctx, p); err != nil {
			t.Fatalf("nonce %d: %v", p.Nonce, err)
		}
	}
	// The gap was filled by a transfer to self, not by a gateway request.
	block, err := shared.Client().BlockByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	for n := block.NumberU64(); n > 0 && n+50 > block.NumberU64(); n-- {
		b, err := shared.Client().BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range b.Transactions() {
			sender, _ := types.Sender(types.LatestSignerForChainID(shared.ChainID()), tx)
			if sender == from && tx.Nonce() == ps[1].Nonce {
				if *tx.To() != from || tx.Value().Sign() != 0 || len(tx.Data()) != 0 {
					t.Fatalf("the gap was filled by %+v, want a zero-value transfer to self", tx)
				}
				return
			}
		}
	}
	t.Fatal("no transaction with the released nonce found")
}

func TestReceiptByHashTellsMinedPendingUnknownAndRevertedApart(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	ad := dial(t, nextKey(t), func(c *gateway.Config) { c.GapFillDelay = time.Minute })

	first := mustPrepare(t, ctx, ad, silentRequest(t.Name()+"/1"))
	second := mustPrepare(t, ctx, ad, silentRequest(t.Name()+"/2"))
	_, err := ad.ReceiptByHash(ctx, second.Hash)
	wantKind(t, err, gateway.ErrTxNotFound)
	sendRaw(t, ctx, second.Raw) // waits in the pool behind first's nonce
	_, err = ad.ReceiptByHash(ctx, second.Hash)
	if te := wantKind(t, err, gateway.ErrTxPending); !te.Retryable() {
		t.Fatal("pending is not retryable")
	}
	if _, err := ad.Broadcast(ctx, first); err != nil {
		t.Fatal(err)
	}
	rec, err := ad.Broadcast(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ad.ReceiptByHash(ctx, second.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if got.RequestID.Cmp(rec.RequestID) != 0 || got.Kind != rec.Kind || got.BlockHash != rec.BlockHash {
		t.Fatalf("ReceiptByHash %+v, Broadcast %+v", got, rec)
	}
	_, err = ad.ReceiptByHash(ctx, common.HexToHash("0x1234"))
	wantKind(t, err, gateway.ErrTxNotFound)
}

func TestARecordedTransactionIsRecoveredFromItsRawBytes(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	key := nextKey(t)
	ad := dial(t, key, nil)
	p := mustPrepare(t, ctx, ad, userRequest(contracts.TestHandle(contracts.ScenarioNoResponse, t.Name())))
	ad.Close() // the process crashes after recording p.Raw, before broadcasting

	restarted := dial(t, key, nil)
	q, err := restarted.DecodePrepared(p.Raw)
	if err != nil {
		t.Fatal(err)
	}
	if q.Hash != p.Hash || q.Nonce != p.Nonce || q.From != p.From || q.Kind != p.Kind || q.To != p.To {
		t.Fatalf("decoded %+v, recorded %+v", q, p)
	}
	rec, err := restarted.Broadcast(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if rec.TxHash != p.Hash || rec.Kind != p.Kind {
		t.Fatalf("recovered receipt %+v", rec)
	}
	// The restarted sequence was seeded from the chain: its next nonce follows.
	next := mustPrepare(t, ctx, restarted, silentRequest(t.Name()+"/next"))
	if next.Nonce != p.Nonce+1 {
		t.Fatalf("next nonce %d after recovering %d", next.Nonce, p.Nonce)
	}
	restarted.Release(next)

	if _, err := restarted.DecodePrepared([]byte{1, 2, 3}); err == nil {
		t.Fatal("garbage decoded")
	}
}

func TestAPausedGatewayIsErrPausedAtEstimationAndInAMinedReceipt(t *testing.T) {
	t.Parallel()
	chain := devchaintest.Start(t, chainConfig(false), testLogger())
	ctx := testContext(t)
	cfg := baseConfig(chain)
	cfg.RPCURL, cfg.WSURL = "", ""
	ad, err := gateway.New(ctx, chain.Client(), cfg, testLogger(), gateway.WithSigner(gateway.NewSigner(chain.RelayerKey())))
	if err != nil {
		t.Fatal(err)
	}
	defer ad.Close()

	if err := chain.Pause(ctx); err != nil {
		t.Fatal(err)
	}
	for _, req := range []domain.Request{publicRequest(contracts.TestHandle(contracts.ScenarioNone, "p")),
		userRequest(contracts.TestHandle(contracts.ScenarioNone, "u")), inputRequest(contracts.TestCiphertext(contracts.ScenarioNone, "i", 32))} {
		_, err := ad.Prepare(ctx, req)
		te := wantKind(t, err, gateway.ErrPaused)
		if errors.Is(err, gateway.ErrReverted) || te.RevertName() != "EnforcedPause" || te.Retryable() {
			t.Fatalf("%s while paused: %v (revert %q)", req.Kind(), err, te.RevertName())
		}
	}

	// Paused between Prepare and Broadcast: the transaction is mined with status 0 and the
	// replay names the cause.
	if err := chain.Unpause(ctx); err != nil {
		t.Fatal(err)
	}
	p := mustPrepare(t, ctx, ad, publicRequest(contracts.TestHandle(contracts.ScenarioNone, "late")))
	if err := chain.Pause(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = ad.Broadcast(ctx, p)
	te := wantKind(t, err, gateway.ErrPaused)
	if te.Receipt == nil || te.Receipt.Status != types.ReceiptStatusFailed || te.TxHash != p.Hash || te.RevertName() != "EnforcedPause" {
		t.Fatalf("mined while paused: %+v", te)
	}
	// Recovery reads the same outcome by hash.
	_, err = ad.ReceiptByHash(ctx, p.Hash)
	if te := wantKind(t, err, gateway.ErrPaused); te.Receipt == nil {
		t.Fatalf("ReceiptByHash of a reverted transaction: %+v", te)
	}
}

func TestMalformedRequestsAreRefusedBeforeAnythingIsSigned(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	ad := dial(t, nextKey(t), nil)
	bad := []domain.Request{
		{},
		{PublicDecrypt: &domain.PublicDecryptRequest{CiphertextHandles: []string{"0x12"}, ExtraData: "0x00"}},
		{PublicDecrypt: &domain.PublicDecryptRequest{CiphertextHandles: []string{hexHandle(contracts.TestHandle(0, "x"))}, ExtraData: "zz"}},
		{InputProof: &domain.InputProofRequest{ContractAddress: "nope", UserAddress: userAddr.Hex(), Ciphertext: "00"}},
	}
	for i, req := range bad {
		_, err := ad.Prepare(ctx, req)
		if te := wantKind(t, err, gateway.ErrInvalidRequest); te.Retryable() {
			t.Fatalf("request %d: invalid is retryable", i)
		}
	}
	_, err := ad.IsPublicDecryptionReady(ctx, domain.PublicDecryptRequest{CiphertextHandles: []string{"0x12"}})
	wantKind(t, err, gateway.ErrInvalidRequest)
}

func TestAnAdapterWithoutASignerAnswersViewsAndListensButCannotPrepare(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	ad, err := gateway.Dial(ctx, baseConfig(shared), testLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer ad.Close()
	if ok, err := ad.ACLAllowedForDecryption(ctx, contracts.TestHandle(0, t.Name())); err != nil || !ok {
		t.Fatalf("view: %v %v", ok, err)
	}
	_, err = ad.Prepare(ctx, silentRequest(t.Name()))
	wantKind(t, err, gateway.ErrNoSigner)
	if ad.Address() != (common.Address{}) {
		t.Fatal("an adapter without signer has an address")
	}
}

func TestDialRefusesANodeOfAnotherChainAndAddressesWithoutCode(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	cfg := baseConfig(shared)
	cfg.ChainID = 1
	if _, err := gateway.Dial(ctx, cfg, nil); err == nil {
		t.Fatal("Dial accepted a node of chain 1337 for chain 1")
	}
	cfg = baseConfig(shared)
	cfg.Contracts.ACL = common.HexToAddress("0x000000000000000000000000000000000000dead")
	if _, err := gateway.Dial(ctx, cfg, nil); err == nil {
		t.Fatal("Dial accepted an ACL address without code")
	}
}

// A process that stops driving the key (its engine lease was lost) drops the nonce sequence: a
// nonce it released is not filled by it, however long it waits, and later releases do nothing.
func TestDroppedNoncesAreNeverFilled(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	key := nextKey(t)
	ad := dial(t, key, nil) // GapFillDelay 300ms
	ps := prepareN(t, ctx, ad, 3)
	if _, err := ad.Broadcast(ctx, ps[0]); err != nil {
		t.Fatal(err)
	}
	ad.Release(ps[1]) // a gap below ps[2]: a fill is scheduled
	ad.DropNonces()
	ad.Release(ps[2]) // from before the drop: ignored
	time.Sleep(time.Second)
	from := crypto.PubkeyToAddress(key.PublicKey)
	pending, err := shared.Client().PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	if pending != ps[0].Nonce+1 {
		t.Fatalf("invariant: nothing is sent with dropped nonces; the key's pending nonce is %d, want %d (only the broadcast one)", pending, ps[0].Nonce+1)
	}
	// The next Prepare reads the chain again and takes the next free nonce.
	p := mustPrepare(t, ctx, ad, silentRequest(t.Name()+"/after"))
	if p.Nonce != ps[0].Nonce+1 {
		t.Fatalf("after the drop, Prepare took nonce %d, want %d", p.Nonce, ps[0].Nonce+1)
	}
}

// prepareN prepares n silent requests named after the test, nonces in a row.
func prepareN(t *testing.T, ctx context.Context, ad *gateway.Adapter, n int) []*gateway.Prepared {
	t.Helper()
	var ps []*gateway.Prepared
	for i := range n {
		p := mustPrepare(t, ctx, ad, silentRequest(fmt.Sprintf("%s/%d", t.Name(), i)))
		ps = append(ps, p)
	}
	return ps
}

// The largest request of each kind that validation accepts by default (domain's Default*
// limits: the most handles, the largest ciphertext, public key and extraData, the most contract
// addresses) is a transaction the node takes and mines within the default gas limit: nothing
// accepted is refused for its size after the fact (an outside probe found 256 handles and a
// 200 KB ciphertext accepted, then failed at gas estimation or by the node).
func TestTheLargestRequestOfEachKindAcceptedByDefaultIsSent(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	ad := dial(t, nextKey(t), nil)
	extra := "0x01" + strings.Repeat("5a", domain.DefaultMaxExtraDataBytes-1)
	var handles [][32]byte
	for i := range domain.DefaultMaxHandles {
		handles = append(handles, contracts.TestHandle(contracts.ScenarioNoResponse, fmt.Sprintf("%s/%d", t.Name(), i)))
	}
	contractsListed := []string{appContract.Hex()}
	for i := 1; i < domain.DefaultMaxContractAddresses; i++ {
		contractsListed = append(contractsListed, common.BigToAddress(big.NewInt(int64(0xc000+i))).Hex())
	}
	publicKey := hex.EncodeToString(bytes.Repeat([]byte{0x20}, domain.DefaultMaxPublicKeyBytes))

	input := inputRequest(bytes.Repeat([]byte{0xa5}, domain.DefaultMaxCiphertextBytes))
	input.InputProof.ExtraData = extra
	public := publicRequest(handles...)
	public.PublicDecrypt.ExtraData = extra
	user := userRequest(handles...)
	user.UserDecrypt.ExtraData, user.UserDecrypt.PublicKey, user.UserDecrypt.ContractAddresses = extra, publicKey, contractsListed
	d := newDelegation(t)
	d.grant(t, ctx)
	delegated := delegatedRequest(d.delegator, d.delegate, handles...)
	delegated.DelegatedUserDecrypt.ExtraData, delegated.DelegatedUserDecrypt.PublicKey, delegated.DelegatedUserDecrypt.ContractAddresses = extra, publicKey, contractsListed
	owners := make([]common.Address, len(handles))
	for i := range owners {
		owners[i] = userAddr // the user's own handles: no delegation to grant
	}
	unified := unifiedRequest(userAddr, handles, owners)
	unified.UnifiedUserDecrypt.ExtraData, unified.UnifiedUserDecrypt.PublicKey, unified.UnifiedUserDecrypt.AllowedContracts = extra, publicKey, contractsListed
	for _, req := range []domain.Request{input, public, user, delegated, unified} {
		p, err := ad.Prepare(ctx, req)
		if err != nil {
			t.Errorf("prepare the largest %s: %v", req.Kind(), err)
			continue
		}
		rec, err := ad.Broadcast(ctx, p)
		if err != nil {
			t.Errorf("broadcast the largest %s (%d bytes of transaction): %v", req.Kind(), len(p.Raw), err)
			continue
		}
		if rec.Raw.Status != types.ReceiptStatusSuccessful {
			t.Errorf("the largest %s reverted", req.Kind())
		}
	}

	// Twice the ciphertext is refused by the node: the bound is what keeps such proofs out.
	p, err := ad.Prepare(ctx, inputRequest(bytes.Repeat([]byte{0xa5}, 2*domain.DefaultMaxCiphertextBytes)))
	if err == nil {
		_, err = ad.Broadcast(ctx, p)
	}
	if err == nil {
		t.Fatal("an input proof of twice the default ciphertext was sent and mined: the node takes larger ones")
	}
}
