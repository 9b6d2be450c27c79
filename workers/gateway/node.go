package gateway

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
)

// node is the adapter's JSON-RPC client: every call goes through call, which gives it a
// deadline of at most Config.CallTimeout whatever the caller's context, turns that deadline
// into an error of its own (a timeout is the node's silence, not the caller's cancellation) and
// tells the chain's health tracker what the call's outcome says about reaching the node.
// Its methods are *ethclient.Client's, so the adapter reads as if it called the client itself.
type node struct {
	c       *ethclient.Client
	timeout time.Duration
	// health is told every outcome; nil for a node of another chain (the host chain's ACL).
	health *tracker
	// decisive makes one timeout start an outage (the probe's: its timeout is short and its call
	// trivial).
	decisive bool
	redact   redactor
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

// call runs f under the call deadline and reports its outcome to the health tracker.
//
// A call over HTTP that timed out while it was still waiting for a connection of the adapter's
// own pool (every connection busy, none being dialled), or that got one with less than half its
// deadline left, gave the node no fair chance: it says the relayer is congested, not that the
// node is away, and the tracker is not told. Otherwise a burst of work after an outage (every
// held send at once) would exhaust the pool, time calls out in a row and start an outage that
// stops the very sends that were draining the burst. A node that holds calls it was given time
// to answer (a black hole) is still seen at once: its calls get their connections at once.
func call[T any](n *node, ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	cctx, cancel := context.WithTimeoutCause(ctx, n.timeout, errCallTimeout)
	defer cancel()
	var asked atomic.Bool
	var reached atomic.Int64 // when the call first had (or began dialling) a connection, unix ns
	reach := func() { reached.CompareAndSwap(0, time.Now().UnixNano()) }
	cctx = httptrace.WithClientTrace(cctx, &httptrace.ClientTrace{
		GetConn:      func(string) { asked.Store(true) },
		ConnectStart: func(string, string) { reach() },
		GotConn:      func(httptrace.GotConnInfo) { reach() },
	})
	start := time.Now()
	v, err := f(cctx)
	if err != nil && ctx.Err() == nil && (errors.Is(context.Cause(cctx), errCallTimeout) || isTimeout(err)) {
		err = &CallTimeoutError{After: n.timeout, Err: n.redact.scrub(err)}
	}
	var timeout *CallTimeoutError
	congested := errors.As(err, &timeout) && asked.Load() &&
		(reached.Load() == 0 || time.Since(time.Unix(0, reached.Load())) < n.timeout/2)
	if n.health != nil && (err == nil || ctx.Err() == nil) && !congested {
		n.health.observe(start, n.redact.scrub(err), n.decisive) // the tracker logs the error
	}
	return v, err
}

// isTimeout tells a timeout below the call's deadline (the HTTP client's, a dial's, waiting for
// response headers) from other failures.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

func (n *node) ChainID(ctx context.Context) (*big.Int, error) {
	return call(n, ctx, n.c.ChainID)
}

func (n *node) CodeAt(ctx context.Context, at common.Address, block *big.Int) ([]byte, error) {
	return call(n, ctx, func(ctx context.Context) ([]byte, error) { return n.c.CodeAt(ctx, at, block) })
}

func (n *node) CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error) {
	return call(n, ctx, func(ctx context.Context) ([]byte, error) { return n.c.CallContract(ctx, msg, block) })
}

func (n *node) EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error) {
	return call(n, ctx, func(ctx context.Context) (uint64, error) { return n.c.EstimateGas(ctx, msg) })
}

// HeaderByNumber reads a header; the latest one (number nil) also tells the tracker the head.
func (n *node) HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error) {
	h, err := call(n, ctx, func(ctx context.Context) (*types.Header, error) { return n.c.HeaderByNumber(ctx, number) })
	if err == nil && h != nil && number == nil && n.health != nil {
		n.health.sawHead(h.Number.Uint64())
	}
	return h, err
}

func (n *node) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	return call(n, ctx, n.c.SuggestGasTipCap)
}

func (n *node) PendingNonceAt(ctx context.Context, account common.Address) (uint64, error) {
	return call(n, ctx, func(ctx context.Context) (uint64, error) { return n.c.PendingNonceAt(ctx, account) })
}

func (n *node) NonceAt(ctx context.Context, account common.Address, block *big.Int) (uint64, error) {
	return call(n, ctx, func(ctx context.Context) (uint64, error) { return n.c.NonceAt(ctx, account, block) })
}

// SendRawTransactionSync asks the node to wait for the receipt for at most wait (under the
// call timeout, so that the node's own "still in the pool" answer comes before ours).
func (n *node) SendRawTransactionSync(ctx context.Context, raw []byte, wait *time.Duration) (*types.Receipt, error) {
	return call(n, ctx, func(ctx context.Context) (*types.Receipt, error) { return n.c.SendRawTransactionSync(ctx, raw, wait) })
}

// CallContext is a raw JSON-RPC call.
func (n *node) CallContext(ctx context.Context, result any, method string, args ...any) error {
	_, err := call(n, ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, n.c.Client().CallContext(ctx, result, method, args...)
	})
	return err
}

func (n *node) BlockNumber(ctx context.Context) (uint64, error) {
	b, err := call(n, ctx, n.c.BlockNumber)
	if err == nil && n.health != nil {
		n.health.sawHead(b)
	}
	return b, err
}

func (n *node) TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	return call(n, ctx, func(ctx context.Context) (*types.Receipt, error) { return n.c.TransactionReceipt(ctx, hash) })
}

func (n *node) TransactionByHash(ctx context.Context, hash common.Hash) (*types.Transaction, bool, error) {
	type found struct {
		tx      *types.Transaction
		pending bool
	}
	f, err := call(n, ctx, func(ctx context.Context) (found, error) {
		tx, pending, err := n.c.TransactionByHash(ctx, hash)
		return found{tx, pending}, err
	})
	return f.tx, f.pending, err
}

func (n *node) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	_, err := call(n, ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, n.c.SendTransaction(ctx, tx) })
	return err
}

func (n *node) FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	return call(n, ctx, func(ctx context.Context) ([]types.Log, error) { return n.c.FilterLogs(ctx, q) })
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
