package devchain

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"
)

// Block production. The simulated backend seals a block only when asked (Commit); exactly one
// goroutine, produceBlocks, ever asks. It seals:
//
//   - BlockDebounce after a transaction enters the pool (the pool's newPendingTransactions
//     subscription wakes it), so transactions sent together share a block;
//   - an empty block when Heartbeat passed without one, so block timestamps keep advancing (the
//     contracts' clock: scenario 04 and request validity depend on it);
//   - on AdvanceTime, a block whose timestamp jumps ahead.
//
// A sealed block's timestamp is the wall clock's second, or the parent's plus one when that is
// not later (go-ethereum's simulated beacon), so the chain's clock runs ahead of the wall clock
// while more than one block a second is sealed, and catches up when blocks are rarer.

type advanceRequest struct {
	d    time.Duration
	done chan error
}

// pendingCheckInterval is how often the producer looks at the pool itself when the pool's
// subscription is unavailable (it never is in process; this is a safety net).
const pendingCheckInterval = 50 * time.Millisecond

// subscribePending subscribes to the pool's new transactions; it runs before produceBlocks
// starts, so that no transaction sent after Start (or by Start's deployment) goes unnoticed.
func (c *Chain) subscribePending(ctx context.Context) (chan common.Hash, *rpc.ClientSubscription) {
	pending := make(chan common.Hash, 4096)
	sub, err := c.backend.rpc.EthSubscribe(ctx, pending, "newPendingTransactions")
	if err != nil {
		c.log.Warn("no pending-transaction subscription; polling the pool", "err", err)
		return pending, nil
	}
	return pending, sub
}

func (c *Chain) produceBlocks(ctx context.Context, pending <-chan common.Hash, sub *rpc.ClientSubscription) {
	defer c.wg.Done()

	var subErr <-chan error
	if sub != nil {
		defer sub.Unsubscribe()
		subErr = sub.Err()
	}
	var poll <-chan time.Time
	pollTicker := time.NewTicker(pendingCheckInterval)
	defer pollTicker.Stop()
	if subErr == nil {
		poll = pollTicker.C
	} else {
		pollTicker.Stop()
	}

	heartbeat := time.NewTimer(c.cfg.Heartbeat)
	defer heartbeat.Stop()
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	defer debounce.Stop()
	debouncing := false

	seal := func() {
		c.backend.beacon.Commit()
		debouncing = false
		debounce.Stop()
		heartbeat.Reset(c.cfg.Heartbeat)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-pending:
			if !debouncing {
				debouncing = true
				debounce.Reset(c.cfg.BlockDebounce)
			}
		case <-debounce.C:
			seal()
		case <-heartbeat.C:
			seal()
		case <-poll:
			if n, err := c.client.PendingTransactionCount(ctx); err == nil && n > 0 {
				seal()
			}
		case err := <-subErr:
			c.log.Warn("pending-transaction subscription ended; polling the pool", "err", err)
			subErr = nil
			pollTicker.Reset(pendingCheckInterval)
			poll = pollTicker.C
		case done := <-c.drop:
			c.backend.beacon.Rollback()
			close(done)
		case r := <-c.advance:
			// AdjustTime refuses while transactions are pending: seal them first (more may
			// arrive meanwhile, hence the retries).
			err := c.backend.beacon.AdjustTime(r.d)
			for attempt := 0; err != nil && attempt < 10; attempt++ {
				c.backend.beacon.Commit()
				err = c.backend.beacon.AdjustTime(r.d)
			}
			heartbeat.Reset(c.cfg.Heartbeat)
			r.done <- err
		}
	}
}

// DropPending empties the node's transaction pool, as a node restarted without its pool would
// be: the transactions sent and not sealed yet are gone (their senders are not told).
func (c *Chain) DropPending(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case c.drop <- done:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// AdvanceTime seals a block whose timestamp is d (whole seconds, at least one) after the current
// head's: a shortcut through chain time for tests (e.g. past a scenario-04 handle's delay).
func (c *Chain) AdvanceTime(ctx context.Context, d time.Duration) error {
	if d < time.Second {
		return fmt.Errorf("devchain: AdvanceTime(%v): the chain's clock counts whole seconds", d)
	}
	r := advanceRequest{d: d, done: make(chan error, 1)}
	select {
	case c.advance <- r:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
