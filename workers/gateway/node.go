package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/big"
	"net"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
)

// node is the adapter's JSON-RPC client: every call goes through call, which gives it a
// deadline of at most Config.CallTimeout whatever the caller's context, turns that deadline
// into an error of its own (a timeout is the node's silence, not the caller's cancellation),
// sends it to a provider of the pool (another one when the first gives no answer; see
// providers.go) and tells the provider's health and the chain's health tracker what the call's
// outcome says about reaching them. Its methods are *ethclient.Client's, so the adapter reads as
// if it called one client itself.
type node struct {
	pool *pool
	// only pins the node to one provider (no fail-over): a listener's step, a provider's probe.
	only *provider
	// useProbe calls through the provider's probe client.
	useProbe bool
	timeout  time.Duration
	// health is told every outcome; nil for a node of another chain (the host chain's ACL).
	health *tracker
	// decisive makes one timeout start an outage, and pause the provider (the probe's: its
	// timeout is short and its call trivial).
	decisive bool
	redact   redactor
}

// singleNode is a node on one client (New's, the host chain's), pool of one.
func singleNode(c *ethclient.Client, timeout time.Duration, health *tracker, redact redactor, log *slog.Logger) *node {
	return &node{pool: newPool(log, DefaultMaxHeadLag, &provider{c: c, endpoint: "in-process"}), timeout: timeout, health: health, redact: redact}
}

// pinned is n on provider p alone.
func (n *node) pinned(p *provider) *node {
	m := *n
	m.only = p
	return &m
}

// pin is n on the provider a read would go to first, for a sequence of reads that must see one
// provider's chain (a listener's step: a lagging provider's logs read against another's headers
// would skip events).
func (n *node) pin() ChainReader { return n.pinned(n.pool.order()[0]) }

// candidates are the providers a call tries, in turn.
func (n *node) candidates() []*provider {
	if n.only != nil {
		return []*provider{n.only}
	}
	return n.pool.order()
}

func (n *node) clientOf(p *provider) *ethclient.Client {
	if n.useProbe && p.probe != nil {
		return p.probe
	}
	return p.c
}

// errCallTimeout is the cause of a call's own deadline.
var errCallTimeout = errors.New("call timeout")

// CallTimeoutError is a call that got no answer within Config.CallTimeout while its caller was
// still waiting. It classifies as ErrTransport: the node may be down, or holding the call.
type CallTimeoutError struct {
	After time.Duration
	// Err is what the client returned when the deadline fired, scrubbed of URL secrets.
	Err error
}

func (e *CallTimeoutError) Error() string {
	return fmt.Sprintf("no answer within the call timeout (%v): %v", e.After, e.Err)
}

// Unwrap deliberately stops here: the cause unwraps to context.DeadlineExceeded, which callers
// read as their own cancellation.
func (e *CallTimeoutError) Unwrap() error { return nil }

// call runs f under the call deadline on the node's providers in turn until one answers, and
// reports the outcome to the providers' and the chain's health.
//
// A call over HTTP that timed out while it was still waiting for a connection of the adapter's
// own pool (every connection busy, none being dialled), or that got one with less than half its
// deadline left, gave the node no fair chance: it says the relayer is congested, not that the
// node is away, and the trackers are not told. Otherwise a burst of work after an outage (every
// held send at once) would exhaust the pool, time calls out in a row and start an outage that
// stops the very sends that were draining the burst. A node that holds calls it was given time
// to answer (a black hole) is still seen at once: its calls get their connections at once.
//
// The chain's tracker hears of a failure only when no provider but those tried is healthy.
func call[T any](n *node, ctx context.Context, f func(context.Context, *ethclient.Client) (T, error)) (T, error) {
	v, _, err := callFrom(n, ctx, f)
	return v, err
}

// callFrom is call, and the provider whose answer it returns.
func callFrom[T any](n *node, ctx context.Context, f func(context.Context, *ethclient.Client) (T, error)) (T, *provider, error) {
	cctx, cancel := context.WithTimeoutCause(ctx, n.timeout, errCallTimeout)
	defer cancel()
	var (
		v         T
		err       = errNoProvider
		first     time.Time
		congested bool
		tried     []*provider
		last      *provider
	)
	for _, p := range n.candidates() {
		var start time.Time
		v, err, start, congested = attempt(n, ctx, cctx, p, f)
		if first.IsZero() {
			first = start
		}
		tried, last = append(tried, p), p
		if !congested && (err == nil || ctx.Err() == nil) {
			n.pool.observe(p, start, n.redact.scrub(err), n.decisive) // the pool logs the error
		}
		if answered(err) || ctx.Err() != nil || cctx.Err() != nil {
			break
		}
	}
	if n.health != nil && (err == nil || ctx.Err() == nil) && !congested &&
		(answered(err) || !n.pool.anyHealthyBut(tried)) {
		n.health.observe(first, n.redact.scrub(err), n.decisive) // the tracker logs the error
	}
	return v, last, err
}

// attempt is one call of f on provider p under the call's deadline cctx (ctx is the caller's).
func attempt[T any](n *node, ctx, cctx context.Context, p *provider, f func(context.Context, *ethclient.Client) (T, error)) (v T, err error, start time.Time, congested bool) {
	var asked atomic.Bool
	var reached atomic.Int64 // when the call first had (or began dialling) a connection, unix ns
	reach := func() { reached.CompareAndSwap(0, time.Now().UnixNano()) }
	actx := httptrace.WithClientTrace(cctx, &httptrace.ClientTrace{
		GetConn:      func(string) { asked.Store(true) },
		ConnectStart: func(string, string) { reach() },
		GotConn:      func(httptrace.GotConnInfo) { reach() },
	})
	start = time.Now()
	v, err = f(actx, n.clientOf(p))
	if err != nil && ctx.Err() == nil && (errors.Is(context.Cause(cctx), errCallTimeout) || isTimeout(err)) {
		err = &CallTimeoutError{After: n.timeout, Err: n.redact.scrub(err)}
	}
	var timeout *CallTimeoutError
	congested = errors.As(err, &timeout) && asked.Load() &&
		(reached.Load() == 0 || time.Since(time.Unix(0, reached.Load())) < n.timeout/2)
	return v, err, start, congested
}

// sawHead records head b that provider p showed.
func (n *node) sawHead(p *provider, b uint64) {
	n.pool.sawHead(p, b)
	if n.health != nil {
		n.health.sawHead(b)
	}
}

// isTimeout tells a timeout below the call's deadline (the HTTP client's, a dial's, waiting for
// response headers) from other failures.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

func (n *node) ChainID(ctx context.Context) (*big.Int, error) {
	return call(n, ctx, func(ctx context.Context, c *ethclient.Client) (*big.Int, error) { return c.ChainID(ctx) })
}

func (n *node) CodeAt(ctx context.Context, at common.Address, block *big.Int) ([]byte, error) {
	return call(n, ctx, func(ctx context.Context, c *ethclient.Client) ([]byte, error) { return c.CodeAt(ctx, at, block) })
}

func (n *node) CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error) {
	return call(n, ctx, func(ctx context.Context, c *ethclient.Client) ([]byte, error) { return c.CallContract(ctx, msg, block) })
}

func (n *node) EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error) {
	return call(n, ctx, func(ctx context.Context, c *ethclient.Client) (uint64, error) { return c.EstimateGas(ctx, msg) })
}

// HeaderByNumber reads a header; the latest one (number nil) also tells the tracker the head.
func (n *node) HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error) {
	h, p, err := callFrom(n, ctx, func(ctx context.Context, c *ethclient.Client) (*types.Header, error) {
		return c.HeaderByNumber(ctx, number)
	})
	if err == nil && h != nil && number == nil {
		n.sawHead(p, h.Number.Uint64())
	}
	return h, err
}

func (n *node) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	return call(n, ctx, func(ctx context.Context, c *ethclient.Client) (*big.Int, error) { return c.SuggestGasTipCap(ctx) })
}

func (n *node) PendingNonceAt(ctx context.Context, account common.Address) (uint64, error) {
	return call(n, ctx, func(ctx context.Context, c *ethclient.Client) (uint64, error) { return c.PendingNonceAt(ctx, account) })
}

func (n *node) BalanceAt(ctx context.Context, account common.Address, block *big.Int) (*big.Int, error) {
	return call(n, ctx, func(ctx context.Context, c *ethclient.Client) (*big.Int, error) {
		return c.BalanceAt(ctx, account, block)
	})
}

func (n *node) NonceAt(ctx context.Context, account common.Address, block *big.Int) (uint64, error) {
	return call(n, ctx, func(ctx context.Context, c *ethclient.Client) (uint64, error) { return c.NonceAt(ctx, account, block) })
}

func (n *node) BlockNumber(ctx context.Context) (uint64, error) {
	b, p, err := callFrom(n, ctx, func(ctx context.Context, c *ethclient.Client) (uint64, error) { return c.BlockNumber(ctx) })
	if err == nil {
		n.sawHead(p, b)
	}
	return b, err
}

func (n *node) TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	return call(n, ctx, func(ctx context.Context, c *ethclient.Client) (*types.Receipt, error) {
		return c.TransactionReceipt(ctx, hash)
	})
}

func (n *node) TransactionByHash(ctx context.Context, hash common.Hash) (*types.Transaction, bool, error) {
	type found struct {
		tx      *types.Transaction
		pending bool
	}
	f, err := call(n, ctx, func(ctx context.Context, c *ethclient.Client) (found, error) {
		tx, pending, err := c.TransactionByHash(ctx, hash)
		return found{tx, pending}, err
	})
	return f.tx, f.pending, err
}

// SendTransaction sends a signed transaction as sendRaw does.
func (n *node) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return err
	}
	_, err = n.sendRaw(ctx, raw, nil)
	return err
}

func (n *node) FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	return call(n, ctx, func(ctx context.Context, c *ethclient.Client) ([]types.Log, error) { return c.FilterLogs(ctx, q) })
}

// deadlineReader gives every read of a listener's ChainReader the call deadline (the adapter's
// own node has it already; a reader given to NewListener may not).
type deadlineReader struct {
	src     ChainReader
	timeout time.Duration
}

func (r deadlineReader) HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	return r.src.HeaderByNumber(ctx, number)
}

func (r deadlineReader) FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	return r.src.FilterLogs(ctx, q)
}

// sendRaw hands a signed transaction to the chain: with eth_sendRawTransactionSync, the node
// waiting at most *wait for the receipt, or with eth_sendRawTransaction (wait nil, no receipt).
//
// With several providers it is sent to every healthy one at once, the same bytes (one hash, one
// nonce: never a second transaction), so that one provider's lost or partitioned pool does not
// strand it. The first acceptance is the answer (the sends to the others still run to their
// end, under the call timeout, so that each pool gets it). When none accepted, the answer that
// says most about this very transaction is returned: "already known" or the node's own
// sync timeout (it is in a pool: wait for its receipt) before "nonce too low" (looked up by hash:
// mined as ours, or taken), before any other answer, before a failure to reach the provider.
// So an "already known" or a "nonce too low" from a provider that heard of it from another is
// never taken for a refusal while another provider took it.
func (n *node) sendRaw(ctx context.Context, raw []byte, wait *time.Duration) (*types.Receipt, error) {
	send := func(ctx context.Context, c *ethclient.Client) (*types.Receipt, error) {
		if wait != nil {
			return c.SendRawTransactionSync(ctx, raw, wait)
		}
		return nil, c.Client().CallContext(ctx, nil, "eth_sendRawTransaction", hexutil.Encode(raw))
	}
	if n.only != nil || len(n.pool.ps) == 1 {
		return call(n, ctx, send)
	}
	targets := byWeight(n.pool.healthyOnes())
	type result struct {
		rec *types.Receipt
		err error
	}
	results := make(chan result, len(targets))
	for i, p := range targets {
		sctx := ctx
		if i > 0 {
			sctx = context.WithoutCancel(ctx) // bounded by the call timeout
		}
		go func() {
			rec, err := call(n.pinned(p), sctx, send)
			results <- result{rec, err}
		}()
	}
	var best error
	bestRank := math.MaxInt
	for range targets {
		r := <-results
		if r.err == nil {
			return r.rec, nil
		}
		if k := sendRank(n.redact, r.err); k < bestRank {
			best, bestRank = r.err, k
		}
	}
	return nil, best
}

// sendRank orders the refusals of one transaction by what they say of it (lowest first).
func sendRank(r redactor, err error) int {
	switch classifySend(r, "broadcast", err).Kind {
	case ErrAlreadyKnown, errSyncTimeout:
		return 0
	case ErrNonceTooLow:
		return 1
	case ErrTransport, ErrCanceled:
		return 3
	}
	return 2
}
