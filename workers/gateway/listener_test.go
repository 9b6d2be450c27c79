package gateway_test

import (
	"context"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"relayer/internal/syncbuf"
	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
)

// answered sends an ordinary public decrypt and returns its gateway request id.
func answered(t *testing.T, ctx context.Context, ad *gateway.Adapter, seed string) *gateway.Receipt {
	t.Helper()
	p := mustPrepare(t, ctx, ad, publicRequest(contracts.TestHandle(contracts.ScenarioNone, seed)))
	rec, err := ad.Broadcast(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func hasEvent(b gateway.Batch, id *big.Int) *gateway.Event {
	for i := range b.Events {
		if b.Events[i].RequestID.Cmp(id) == 0 {
			return &b.Events[i]
		}
	}
	return nil
}

// follow ranges over seq until stop says so, checking that batches are contiguous from
// `from`; it fails the test after eventWait.
func follow(t *testing.T, seq func(func(gateway.Batch, error) bool), from uint64, stop func(gateway.Batch) bool) []gateway.Batch {
	t.Helper()
	var got []gateway.Batch
	next := from
	deadline := time.Now().Add(eventWait)
	for b, err := range seq {
		if err != nil {
			t.Fatalf("listener: %v", err)
		}
		if b.From != next && !b.Redelivery {
			t.Fatalf("batch %d..%d after %d: not contiguous", b.From, b.To, next-1)
		}
		if b.To < b.From || b.Cursor.Block != b.To+1 || b.Cursor.Hash == (common.Hash{}) {
			t.Fatalf("batch %d..%d with cursor %+v", b.From, b.To, b.Cursor)
		}
		got = append(got, b)
		next = b.To + 1
		if stop(b) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing after %v; %d batches", eventWait, len(got))
		}
	}
	t.Fatal("the listener stopped")
	return nil
}

func TestTheListenerResumesFromTheCommittedCursor(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	ad := dial(t, nextKey(t), nil)
	start, err := ad.HeadCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a := answered(t, ctx, ad, t.Name()+"/a")

	// First run: handle batches, commit each cursor, stop once A's response is handled.
	run1, cancel1 := context.WithCancel(ctx)
	var committed gateway.Cursor
	batches := follow(t, ad.Listen(run1, start), start.Block, func(b gateway.Batch) bool {
		committed = b.Cursor // committed after handling
		return hasEvent(b, a.RequestID) != nil
	})
	cancel1()
	for _, b := range batches {
		if b.Redelivery {
			t.Fatalf("batch %d..%d flagged as a re-delivery without a reorg", b.From, b.To)
		}
	}

	// Restart from the committed cursor: nothing handled is delivered again, B's answer comes.
	b := answered(t, ctx, ad, t.Name()+"/b")
	follow(t, ad.Listen(ctx, committed), committed.Block, func(batch gateway.Batch) bool {
		if hasEvent(batch, a.RequestID) != nil {
			t.Fatalf("A's response was delivered again after its cursor was committed (batch %d..%d)", batch.From, batch.To)
		}
		if batch.Redelivery {
			t.Fatalf("batch %d..%d flagged as a re-delivery", batch.From, batch.To)
		}
		return hasEvent(batch, b.RequestID) != nil
	})
}

func TestTheConfirmationDepthHoldsBlocksBack(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	const depth = 3
	ad := dial(t, nextKey(t), func(c *gateway.Config) { c.ConfirmationDepth = depth })
	start, err := ad.HeadCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rec := answered(t, ctx, ad, t.Name())
	follow(t, ad.Listen(ctx, start), start.Block, func(b gateway.Batch) bool {
		if b.To+depth > b.Head {
			t.Fatalf("batch up to %d delivered at head %d, depth %d", b.To, b.Head, depth)
		}
		head, err := shared.Client().BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if b.To+depth > head {
			t.Fatalf("block %d delivered while the head is %d", b.To, head)
		}
		ev := hasEvent(b, rec.RequestID)
		return ev != nil
	})
}

func TestACursorWhoseBlockChangedIsRedeliveredFromBelowIt(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	ad := dial(t, nextKey(t), nil) // ReorgWindow 16
	const window = 16
	head, err := ad.HeadCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The block before the cursor has another hash now: the chain reorganised while the
	// relayer was down.
	stale := gateway.Cursor{Block: head.Block, Hash: common.HexToHash("0xbad")}
	last := head.Block - 1
	want := last - min(last, window)
	var first *gateway.Batch
	follow(t, ad.Listen(ctx, stale), want, func(b gateway.Batch) bool {
		if first == nil {
			first = &b
			if !b.Redelivery || b.From != want {
				t.Fatalf("first batch %d..%d redelivery=%v, want a re-delivery from %d", b.From, b.To, b.Redelivery, want)
			}
			return false
		}
		if b.Redelivery {
			t.Fatalf("batch %d..%d after the re-delivered range is flagged", b.From, b.To)
		}
		return true
	})
}

// A cursor whose block has another hash when the listener starts is what a restart on a new
// development chain looks like (and, rarely, a reorganisation while the relayer was stopped):
// the listener says so as a warning, not as the error of a deep reorganisation while running.
func TestAResumedCursorOnAnotherChainIsAWarningNotAnError(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	ad := dial(t, nextKey(t), nil)
	var logs syncLog
	listener := gateway.NewListener(shared.Client(), nil, baseConfig(shared), slog.New(slog.NewTextHandler(&logs, nil)))
	head, err := ad.HeadCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stale := gateway.Cursor{Block: head.Block, Hash: common.HexToHash("0xbad")}
	for b, err := range listener.Listen(ctx, stale) {
		if err != nil {
			t.Fatal(err)
		}
		if !b.Redelivery {
			t.Fatalf("first batch %d..%d is not a re-delivery", b.From, b.To)
		}
		break
	}
	out := logs.String()
	if !strings.Contains(out, "level=WARN") || !strings.Contains(out, "a new development chain") || strings.Contains(out, "level=ERROR") {
		t.Fatalf("the resumed cursor's other hash was logged as:\n%s", out)
	}
}

// syncLog is a log destination safe for concurrent writes.
type syncLog = syncbuf.Buffer

// forkingReader is the real chain seen through a fork: from block forkAt on, every block has
// another hash (its header gets extra data, and each parent hash follows), and so do the logs
// in those blocks. The development chain cannot reorganise; this reader makes the listener see
// exactly what it would see after a reorg at forkAt, with the real blocks and logs.
type forkingReader struct {
	real *ethclient.Client

	mu     sync.Mutex
	forkAt uint64 // 0: no fork
	hashes map[uint64]common.Hash
}

func (f *forkingReader) fork(at uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forkAt, f.hashes = at, map[uint64]common.Hash{}
}

func (f *forkingReader) HeaderByNumber(ctx context.Context, n *big.Int) (*types.Header, error) {
	h, err := f.real.HeaderByNumber(ctx, n)
	if err != nil {
		return nil, err
	}
	return f.rewrite(ctx, h)
}

func (f *forkingReader) rewrite(ctx context.Context, h *types.Header) (*types.Header, error) {
	f.mu.Lock()
	at := f.forkAt
	f.mu.Unlock()
	num := h.Number.Uint64()
	if at == 0 || num < at {
		return h, nil
	}
	out := types.CopyHeader(h)
	out.Extra = append(out.Extra, []byte("fork")...)
	if num > at {
		parent, err := f.forkedHash(ctx, num-1)
		if err != nil {
			return nil, err
		}
		out.ParentHash = parent
	}
	f.mu.Lock()
	f.hashes[num] = out.Hash()
	f.mu.Unlock()
	return out, nil
}

func (f *forkingReader) forkedHash(ctx context.Context, n uint64) (common.Hash, error) {
	f.mu.Lock()
	h, ok := f.hashes[n]
	f.mu.Unlock()
	if ok {
		return h, nil
	}
	hdr, err := f.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
	if err != nil {
		return common.Hash{}, err
	}
	return hdr.Hash(), nil
}

func (f *forkingReader) FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	logs, err := f.real.FilterLogs(ctx, q)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	at := f.forkAt
	f.mu.Unlock()
	for i := range logs {
		if at != 0 && logs[i].BlockNumber >= at {
			if logs[i].BlockHash, err = f.forkedHash(ctx, logs[i].BlockNumber); err != nil {
				return nil, err
			}
		}
	}
	return logs, nil
}

func TestAReorgIsRedeliveredFromTheForkPoint(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	ad := dial(t, nextKey(t), nil)
	reader := &forkingReader{real: shared.Client()}
	cfg := baseConfig(shared)
	listener := gateway.NewListener(reader, nil, cfg, testLogger())
	start, err := ad.HeadCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rec := answered(t, ctx, ad, t.Name())

	var (
		original  *gateway.Event
		redone    *gateway.Event
		firstRedo *gateway.Batch
		highWater uint64 // the last block delivered before the fork was noticed
	)
	follow(t, listener.Listen(ctx, start), start.Block, func(b gateway.Batch) bool {
		ev := hasEvent(b, rec.RequestID)
		switch {
		case original == nil: // before the fork
			if b.Redelivery {
				t.Fatalf("batch %d..%d flagged before any reorg", b.From, b.To)
			}
			highWater = b.To
			if ev != nil {
				original = ev
				// The chain reorganises: the response's block and every later one change.
				reader.fork(ev.BlockNumber)
			}
			return false
		case firstRedo == nil: // the first batch after the fork
			if !b.Redelivery || b.From > original.BlockNumber || b.From < start.Block {
				t.Fatalf("batch %d..%d (redelivery %v) after a fork at %d, want a re-delivery from the fork point",
					b.From, b.To, b.Redelivery, original.BlockNumber)
			}
			firstRedo = &b
		}
		if ev != nil {
			redone = ev
		}
		if b.To >= original.BlockNumber && redone == nil {
			t.Fatalf("the re-delivered range %d..%d lacks the response", firstRedo.From, b.To)
		}
		if b.From > highWater {
			if b.Redelivery {
				t.Fatalf("batch %d..%d beyond what was delivered before is flagged", b.From, b.To)
			}
			return true
		}
		if !b.Redelivery {
			t.Fatalf("batch %d..%d, delivered before the fork, is not flagged", b.From, b.To)
		}
		return false
	})
	if redone.BlockHash == original.BlockHash || redone.BlockNumber != original.BlockNumber || redone.TxHash != original.TxHash {
		t.Fatalf("re-delivered %v (block hash %s), original %v (block hash %s)", redone, redone.BlockHash, original, original.BlockHash)
	}
}

// With a slow poll, only a new-head subscription can deliver a response quickly: over
// WebSocket (Dial with WSURL) and in process (New with the development chain's client).
func TestTheListenerWakesOnNewHeadsWhenItCanSubscribe(t *testing.T) {
	t.Parallel()
	const slowPoll = 5 * time.Second
	slow := func(c *gateway.Config) { c.PollInterval = slowPoll; c.ReceiptPollMin = 20 * time.Millisecond }
	inProcess := func(t *testing.T) *gateway.Adapter {
		cfg := baseConfig(shared)
		cfg.RPCURL, cfg.WSURL = "", ""
		slow(&cfg)
		ad, err := gateway.New(testContext(t), shared.Client(), cfg, testLogger(), gateway.WithSigner(gateway.NewSigner(nextKey(t))))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(ad.Close)
		return ad
	}
	for name, make := range map[string]func(t *testing.T) *gateway.Adapter{
		"websocket":  func(t *testing.T) *gateway.Adapter { return dial(t, nextKey(t), slow) },
		"in process": inProcess,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := testContext(t)
			ad := make(t)
			start, err := ad.HeadCursor(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// Let the listener reach the head and wait, then ask.
			evs := listen(t, ad, start)
			time.Sleep(300 * time.Millisecond)
			rec := answered(t, ctx, ad, t.Name())
			began := time.Now()
			evs.until(t, rec.RequestID, func(e []gateway.Event) bool { return len(e) > 0 })
			if took := time.Since(began); took >= slowPoll/2 {
				t.Fatalf("the response took %v with a %v poll: no new-head wake-ups", took, slowPoll)
			}
		})
	}
}
