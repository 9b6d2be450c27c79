package gateway

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"relayer/workers/gateway/contracts"
	"relayer/workers/upstream"
)

// ChainReader is what the listener reads blocks and logs through. *ethclient.Client implements
// it. It is an interface so that the reorg handling can be tested: the development chain cannot
// reorganise, so a test wraps the real client in a reader that rewrites block hashes from some
// height on, as a fork would.
type ChainReader interface {
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error)
}

// HeadSubscriber announces new heads. *ethclient.Client implements it over WebSocket or in
// process; over HTTP it refuses, and the listener polls.
type HeadSubscriber interface {
	SubscribeNewHead(ctx context.Context, ch chan<- *types.Header) (ethereum.Subscription, error)
}

// Cursor is where the listener resumes: the caller stores Batch.Cursor after it has handled
// (appended the events of) the batch, and passes it back to Listen after a restart.
type Cursor struct {
	// Block is the next block to read.
	Block uint64 `json:"block"`
	// Hash is the hash of block Block-1 as it was delivered; zero when unknown (no check).
	Hash common.Hash `json:"hash"`
}

// Batch is the response events of blocks From..To (inclusive), in chain order, and the cursor
// to commit once they are handled. A batch may have no events: committing its cursor still
// saves re-reading those blocks after a restart.
type Batch struct {
	From, To uint64
	// Head is the chain's head when the batch was read; To <= Head - ConfirmationDepth.
	Head   uint64
	Events []Event
	Cursor Cursor
	// Redelivery is true when blocks of this batch were delivered before with other hashes (a
	// reorg, found by this listener or on resume from a cursor whose block changed): the events
	// here are the chain's current ones and replace those; events delivered before that are
	// missing here are no longer on the chain. Handlers are idempotent, so handling them again
	// is safe.
	Redelivery bool
}

// Listener follows the gateway's response events. See Listen.
type Listener struct {
	src      ChainReader
	heads    HeadSubscriber
	depth    uint64
	maxRange uint64
	window   uint64
	poll     time.Duration
	timeout  time.Duration // of the subscription request
	decoder  eventDecoder
	log      *slog.Logger
	redact   redactor
}

// NewListener follows cfg's contracts through src; heads (nil: poll every cfg.PollInterval)
// wakes it on new blocks. cfg's defaults are filled in; every read has a deadline of
// cfg.CallTimeout.
func NewListener(src ChainReader, heads HeadSubscriber, cfg Config, logger *slog.Logger) *Listener {
	cfg.setDefaults()
	if _, ok := src.(*node); !ok {
		src = deadlineReader{src: src, timeout: cfg.CallTimeout}
	}
	return &Listener{
		src: src, heads: heads, depth: cfg.ConfirmationDepth, maxRange: cfg.MaxBlockRange, window: cfg.ReorgWindow,
		poll: cfg.PollInterval, timeout: cfg.CallTimeout, log: orDiscard(logger).With("component", "gateway-listener"),
		decoder: eventDecoder{
			decryptionAt: cfg.Contracts.Decryption, inputAt: cfg.Contracts.InputVerification,
			dec: contracts.NewDecryption(), iv: contracts.NewInputVerification(),
		},
	}
}

// Listen follows the adapter's chain from cursor from (see Listener.Listen).
func (a *Adapter) Listen(ctx context.Context, from Cursor) iter.Seq2[Batch, error] {
	l := NewListener(a.client, a.heads, a.cfg, a.baseLog)
	l.redact = a.redact
	return l.Listen(ctx, from)
}

// HeadCursor is a cursor after the latest confirmed block (the head less ConfirmationDepth):
// where a listener without a stored cursor starts, so that no block it will deliver is skipped.
func (a *Adapter) HeadCursor(ctx context.Context) (Cursor, error) {
	h, err := a.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return Cursor{}, a.classify("read the head", err)
	}
	if n := h.Number.Uint64(); a.cfg.ConfirmationDepth > 0 {
		if n < a.cfg.ConfirmationDepth {
			return Cursor{}, nil
		}
		if h, err = a.client.HeaderByNumber(ctx, new(big.Int).SetUint64(n-a.cfg.ConfirmationDepth)); err != nil {
			return Cursor{}, a.classify("read the last confirmed block", err)
		}
	}
	return Cursor{Block: h.Number.Uint64() + 1, Hash: h.Hash()}, nil
}

// Listen yields the response events block range by block range, from cursor from, for as long
// as the caller ranges over it and ctx lasts:
//
//   - a block is delivered once the head is ConfirmationDepth blocks past it;
//   - it wakes on new heads when it can subscribe (WebSocket, in process), polling only every
//     10 PollIntervals as a safety net; otherwise it polls every PollInterval (HTTP);
//   - ranges are at most MaxBlockRange blocks; a range is read consistently (its last block's
//     hash is the same before and after the logs are read, and every log's block hash is the
//     canonical one), or read again;
//   - reorgs: it remembers the hashes of the blocks it delivered (the last block of each batch
//     and every block with an event) within ReorgWindow blocks; when the last one changed, it
//     walks back to the newest that did not and re-delivers from the block after it, in batches
//     flagged Redelivery. A cursor whose Hash no longer matches is a reorg across a restart: with
//     nothing else remembered, it re-delivers ReorgWindow blocks below it.
//
// The next batch is read only after the loop body returns: commit Batch.Cursor in the body,
// after handling the events. Errors (the node unreachable after the upstream retries, ...) are
// yielded with an empty batch and the listener tries again after PollInterval; break to stop.
func (l *Listener) Listen(ctx context.Context, from Cursor) iter.Seq2[Batch, error] {
	return func(yield func(Batch, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		st := &listenState{next: from.Block}
		if from.Block > 0 {
			st.delivered, st.highWater = true, from.Block-1
			if from.Hash != (common.Hash{}) {
				st.window = []blockRef{{from.Block - 1, from.Hash}}
				st.resumed = true
			}
		}
		w := l.newWaker(ctx)
		defer w.stop()
		// After a failed read the listener waits a poll interval, jittered, and no longer: the
		// responses that arrive while the node is away must be read as soon as it is back, or
		// their jobs' deadlines (frozen only for a recorded outage) run on (docs/RETRIES.md).
		retry := upstream.Backoff{Base: l.poll, Jitter: upstream.EqualJitter}
		failures := 0
		for ctx.Err() == nil {
			b, ok, err := l.pinned().step(ctx, st)
			if err == nil {
				failures = 0
			}
			switch {
			case err != nil:
				if ctx.Err() != nil {
					return
				}
				if !yield(Batch{}, classifyErr(l.redact, "follow logs", err)) {
					return
				}
				failures++
				if sleep(ctx, retry.Delay(failures, nil)) != nil {
					return
				}
			case ok:
				if !yield(b, nil) {
					return
				}
				st.advance(b, l.window)
			default:
				if !w.wait(l.poll) {
					return
				}
			}
		}
	}
}

// pinned is l reading from one provider for a step (see node.pin), when its source has several.
func (l *Listener) pinned() *Listener {
	p, ok := l.src.(interface{ pin() ChainReader })
	if !ok {
		return l
	}
	c := *l
	c.src = p.pin()
	return &c
}

type blockRef struct {
	number uint64
	hash   common.Hash
}

type listenState struct {
	next      uint64
	delivered bool   // some block was delivered (in this run or before the cursor)
	highWater uint64 // the highest block delivered, when delivered
	window    []blockRef
	pending   []blockRef // the refs of the batch being delivered
	// resumed: the window holds only the resumed cursor's block, nothing this run delivered.
	resumed bool
}

// advance records the delivered batch b.
func (st *listenState) advance(b Batch, window uint64) {
	st.next = b.To + 1
	if !st.delivered || b.To > st.highWater {
		st.highWater = b.To
	}
	st.delivered = true
	st.resumed = false
	st.window = append(st.window, st.pending...)
	st.pending = nil
	if b.To >= window {
		oldest := b.To - window
		i := 0
		for i < len(st.window)-1 && st.window[i].number < oldest {
			i++
		}
		st.window = st.window[i:]
	}
}

// errInconsistent: the chain changed while a range was read; it is read again.
var errInconsistent = errors.New("the chain changed during the read")

func (l *Listener) step(ctx context.Context, st *listenState) (Batch, bool, error) {
	head, err := l.src.HeaderByNumber(ctx, nil)
	if err != nil {
		return Batch{}, false, err
	}
	headN := head.Number.Uint64()
	if err := l.checkReorg(ctx, st, head); err != nil {
		return Batch{}, false, err
	}
	if headN < l.depth {
		return Batch{}, false, nil
	}
	safe := headN - l.depth
	if st.next > safe {
		return Batch{}, false, nil
	}
	to := min(safe, st.next+l.maxRange-1)
	before := head
	if to != headN {
		if before, err = l.header(ctx, to); err != nil {
			return Batch{}, false, err
		}
	}
	logs, err := l.src.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: new(big.Int).SetUint64(st.next),
		ToBlock:   new(big.Int).SetUint64(to),
		Addresses: []common.Address{l.decoder.decryptionAt, l.decoder.inputAt},
		Topics:    [][]common.Hash{responseTopics},
	})
	if err != nil {
		return Batch{}, false, err
	}
	after, err := l.header(ctx, to)
	if err != nil {
		return Batch{}, false, err
	}
	if after.Hash() != before.Hash() {
		l.log.Debug("the chain changed while reading logs; reading again", "from", st.next, "to", to)
		return Batch{}, false, nil
	}
	refs, err := l.verifyLogBlocks(ctx, logs, to, after.Hash())
	if errors.Is(err, errInconsistent) {
		l.log.Debug("a log's block is not canonical; reading again", "from", st.next, "to", to)
		return Batch{}, false, nil
	}
	if err != nil {
		return Batch{}, false, err
	}
	events := make([]Event, 0, len(logs))
	for i := range logs {
		if logs[i].Removed {
			continue
		}
		ev, ok, err := l.decoder.decode(&logs[i])
		if err != nil {
			// Our own contract's event that does not decode: an ABI mismatch. Skipping it loses
			// a response; stalling would lose all of them. Say it loudly.
			l.log.Error("undecodable response event skipped", "err", err)
			continue
		}
		if ok {
			events = append(events, ev)
		}
	}
	st.pending = refs
	return Batch{
		From: st.next, To: to, Head: headN, Events: events,
		Cursor:     Cursor{Block: to + 1, Hash: after.Hash()},
		Redelivery: st.delivered && st.next <= st.highWater,
	}, true, nil
}

// verifyLogBlocks checks that every log's block is canonical (one header per distinct block;
// `to` is known already) and returns the refs to remember, ascending.
func (l *Listener) verifyLogBlocks(ctx context.Context, logs []types.Log, to uint64, toHash common.Hash) ([]blockRef, error) {
	var refs []blockRef
	for i := range logs {
		lg := &logs[i]
		if n := len(refs); n > 0 && refs[n-1].number == lg.BlockNumber {
			if refs[n-1].hash != lg.BlockHash {
				return nil, errInconsistent
			}
			continue
		}
		refs = append(refs, blockRef{lg.BlockNumber, lg.BlockHash})
	}
	// The blocks' headers are read a few at once: one after another, a range with many blocks of
	// responses would take as long as its slowest reads added up (a rate-limited node answers
	// some of them seconds late), and the responses would come later than their jobs' deadlines.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		slots = make(chan struct{}, headerReads)
		mu    sync.Mutex
		first error
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
			cancel()
		}
		mu.Unlock()
	}
	for _, r := range refs {
		if r.number == to {
			if r.hash != toHash {
				fail(errInconsistent)
				break
			}
			continue
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-slots }()
			h, err := l.header(ctx, r.number)
			switch {
			case err != nil:
				fail(err)
			case h.Hash() != r.hash:
				fail(errInconsistent)
			}
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if n := len(refs); n == 0 || refs[n-1].number != to {
		refs = append(refs, blockRef{to, toHash})
	}
	return refs, nil
}

func (l *Listener) header(ctx context.Context, n uint64) (*types.Header, error) {
	h, err := l.src.HeaderByNumber(ctx, new(big.Int).SetUint64(n))
	if err == nil && h == nil {
		err = ethereum.NotFound
	}
	return h, err
}

// checkReorg compares the newest delivered block with the chain and, when it changed, moves
// st.next back to the fork point.
func (l *Listener) checkReorg(ctx context.Context, st *listenState, head *types.Header) error {
	if len(st.window) == 0 {
		return nil
	}
	last := st.window[len(st.window)-1]
	headN := head.Number.Uint64()
	var same bool
	switch {
	case headN == last.number:
		same = head.Hash() == last.hash
	case headN == last.number+1:
		same = head.ParentHash == last.hash
	default:
		h, err := l.header(ctx, last.number)
		switch {
		case errors.Is(err, ethereum.NotFound) && headN < last.number:
			return nil // a node behind the one we read before: wait for it
		case errors.Is(err, ethereum.NotFound):
		case err != nil:
			return err
		default:
			same = h.Hash() == last.hash
		}
	}
	if same {
		return nil
	}
	for i := len(st.window) - 2; i >= 0; i-- {
		e := st.window[i]
		h, err := l.header(ctx, e.number)
		if err != nil && !errors.Is(err, ethereum.NotFound) {
			return err
		}
		if err == nil && h.Hash() == e.hash {
			st.window = st.window[:i+1]
			l.log.Warn("chain reorganisation; re-delivering from the fork point",
				"fork_block", e.number+1, "last_delivered", last.number)
			st.next = min(st.next, e.number+1)
			return nil
		}
	}
	oldest := st.window[0].number
	from := oldest - min(oldest, l.window)
	if st.resumed {
		// Expected after a restart on a new development chain (its blocks have other hashes),
		// possible after a reorganisation while the relayer was stopped: not an error.
		l.log.Warn("the block before the saved cursor has another hash on this chain (a new development chain, or a reorganisation while stopped); re-delivering a window below it",
			"cursor_block", oldest+1, "from", from)
	} else {
		l.log.Error("chain reorganisation deeper than the remembered blocks; re-delivering a window below them",
			"oldest_remembered", oldest, "from", from, "last_delivered", last.number)
	}
	st.resumed = false
	st.window = nil
	st.next = min(st.next, from)
	return nil
}

// waker wakes the listen loop on new heads (when subscribed) or after a poll interval.
type waker struct {
	wake       chan struct{}
	subscribed atomic.Bool
	cancel     context.CancelFunc
	ctx        context.Context
}

// resubscribeEvery bounds how often a lost head subscription is re-established.
const resubscribeEvery = 30 * time.Second

// headerReads is how many block headers verifyLogBlocks reads at once.
const headerReads = 8

func (l *Listener) newWaker(ctx context.Context) *waker {
	ctx, cancel := context.WithCancel(ctx)
	w := &waker{wake: make(chan struct{}, 1), cancel: cancel, ctx: ctx}
	if l.heads == nil {
		return w
	}
	go func() {
		for ctx.Err() == nil {
			heads := make(chan *types.Header, 16)
			// The context bounds the subscription request only, not the subscription.
			sctx, cancelSub := context.WithTimeout(ctx, l.timeout)
			sub, err := l.heads.SubscribeNewHead(sctx, heads)
			cancelSub()
			if err != nil {
				l.log.Debug("no new-head subscription; polling", "err", classifyErr(l.redact, "subscribe to new heads", err))
			} else {
				l.forward(ctx, w, sub, heads)
			}
			if sleep(ctx, resubscribeEvery) != nil {
				return
			}
		}
	}()
	return w
}

// forward turns heads into coalesced wake-ups until the subscription ends.
func (l *Listener) forward(ctx context.Context, w *waker, sub ethereum.Subscription, heads <-chan *types.Header) {
	defer sub.Unsubscribe()
	w.subscribed.Store(true)
	defer w.subscribed.Store(false)
	for {
		select {
		case <-ctx.Done():
			return
		case err := <-sub.Err():
			if err != nil {
				l.log.Warn("new-head subscription ended; polling", "err", classifyErr(l.redact, "new heads", err))
			}
			return
		case <-heads:
			select {
			case w.wake <- struct{}{}:
			default:
			}
		}
	}
}

// subscribedPollFactor stretches the poll interval while a head subscription is up: polls are
// then only a safety net.
const subscribedPollFactor = 10

// wait returns after a new head or d (subscribedPollFactor*d while subscribed), false when ctx
// ended.
func (w *waker) wait(d time.Duration) bool {
	if w.subscribed.Load() {
		d *= subscribedPollFactor
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-w.ctx.Done():
		return false
	case <-w.wake:
		return true
	case <-t.C:
		return true
	}
}

func (w *waker) stop() { w.cancel() }

// CursorOnChain tells whether the chain has reached cursor c: false when block c.Block-1 does
// not exist yet, which for a saved cursor means the chain is not the one it was saved on (a
// new development chain) or the node is behind.
func (a *Adapter) CursorOnChain(ctx context.Context, c Cursor) (bool, error) {
	if c.Block == 0 {
		return true, nil
	}
	h, err := a.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return false, a.classify("read the head", err)
	}
	return h.Number.Uint64() >= c.Block-1, nil
}
