// Package sender drives one job's recorded gateway transaction until the chain has settled it:
// it broadcasts the recorded bytes, sends them again on passing failures (jittered), replaces
// them at their nonce with higher fees when they stall, adopts whichever of the job's
// transactions of that nonce was mined, and says what became of the job.
//
// It knows neither the gateway's contracts nor the log. A Node is the chain's side (package
// gateway's Adapter is one); a Journal records each decision in the job's history before the
// sender acts on it (a replacement is recorded before it is broadcast, as the first transaction
// was). So the policy is tested here without a chain, and the tx worker only maps a Result onto
// the job's commands.
package sender

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"relayer/workers/gateway"
	"relayer/workers/upstream"
)

// Node is what the sender needs of the chain.
type Node interface {
	// Broadcast sends p's bytes and waits for their receipt (see gateway.Adapter.Broadcast).
	Broadcast(ctx context.Context, p *gateway.Prepared) (*gateway.Receipt, error)
	// Replacement signs p again at its nonce with higher fees (gateway.Adapter.Replacement).
	Replacement(ctx context.Context, p *gateway.Prepared) (*gateway.Prepared, error)
	// ReceiptByHash looks a transaction up (gateway.Adapter.ReceiptByHash).
	ReceiptByHash(ctx context.Context, hash common.Hash) (*gateway.Receipt, error)
	// Release gives back the nonce of bytes the node never took (gateway.Adapter.Release).
	Release(p *gateway.Prepared)
}

// Journal is the job's history as the sender needs it.
type Journal interface {
	// Replace records np as the replacement of p, the job's latest transaction, before np is
	// ever sent; false when it was not recorded (the log failed, or the job moved on).
	Replace(ctx context.Context, p, np *gateway.Prepared, why error) bool
	// Earlier returns the hashes of the job's other transactions of the current nonce: the
	// ones its latest replaced, any of which may be the one mined.
	Earlier() []common.Hash
	// Settled tells whether the job has moved on without the sender (another worker recorded
	// its outcome): the sender stops.
	Settled(p *gateway.Prepared) bool
}

// Outcome is what became of a send.
type Outcome uint8

const (
	// Pending: the transaction is not known to be mined, and the attempts are spent (or the job
	// moved on): the job stays in tx_in_flight for the timeouts worker to send again.
	Pending Outcome = iota
	// Mined: Receipt is the receipt of the job's transaction that was mined (perhaps an
	// earlier one than Tx).
	Mined
	// Failed: the transaction failed for good (Err): mined and reverted, or refused by the node
	// so that it never can be (its nonce was given back then, Released).
	Failed
	// NonceTaken: another transaction, none of the job's, took the nonce: the job's transactions
	// can never be mined and it needs a new one.
	NonceTaken
	// Stopped: ctx ended.
	Stopped
)

var outcomeNames = [...]string{"pending", "mined", "failed", "nonce_taken", "stopped"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "invalid"
}

// Result is what Send did.
type Result struct {
	Outcome Outcome
	// Receipt is the mined transaction's (Mined).
	Receipt *gateway.Receipt
	// Err is the last failure (Failed, Pending, NonceTaken).
	Err error
	// Tx is the job's latest transaction: p, or its last recorded replacement.
	Tx *gateway.Prepared
	// Released says the nonce was given back (Failed on a refusal of bytes never sent before).
	Released bool
	// Attempts is the number of broadcasts; Replacements how many replacements were recorded.
	Attempts, Replacements int
	// Chain is the time spent in calls to the node; Waited the time slept between attempts.
	Chain, Waited time.Duration
}

// Config bounds a send.
type Config struct {
	// Attempts is the most broadcasts of one transaction (a replacement starts the count again).
	Attempts int
	// Backoff is the wait between two broadcasts of the same bytes.
	Backoff upstream.Backoff
	// Releasable says the bytes were signed by this process for this send and never sent
	// before: a node's refusal of them may give their nonce back. Bytes sent again by recovery
	// or at a deadline hold a nonce this process cannot give back.
	Releasable bool
	// Log receives the sender's warnings (nil: none).
	Log *slog.Logger
	// Job and Correlation name the job and its correlation id in the log lines.
	Job, Correlation string
}

// Send broadcasts p, the job's recorded transaction, until it is mined, fails for good, loses
// its nonce to a transaction that is not the job's, runs out of attempts, or ctx ends.
//
//   - A passing failure (the node unreachable, a receipt timeout) sends the same bytes again
//     after Backoff, up to Attempts times.
//   - A transaction still not mined after the blocks allowed (gateway.ErrStalled), or a
//     replacement the node found too cheap, is replaced at its nonce with higher fees: recorded
//     in the Journal first, then broadcast, with a fresh count of attempts. When the fees are at
//     their caps, the transaction is waited on as it is.
//   - "Nonce too low" for a transaction that is not mined means one of the job's earlier
//     transactions of the nonce was, or another's: the earlier ones are looked up and the mined
//     one adopted (Mined); none mined is NonceTaken; a lookup that fails leaves the job Pending,
//     never NonceTaken, since one of its own may be on chain.
//   - A revert, a paused gateway or a receipt without a request is Failed: the nonce is used.
//   - A refusal of bytes never sent before (underpriced, unfunded, rejected), once the attempts
//     are spent, gives the nonce back and is Failed, unless the job has earlier transactions of
//     the nonce (one may still be in a pool).
func Send(ctx context.Context, node Node, j Journal, p *gateway.Prepared, cfg Config) Result {
	r := Result{Tx: p}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	attempts := max(cfg.Attempts, 1)
	for attempt := 1; ; attempt++ {
		t := time.Now()
		rec, err := node.Broadcast(ctx, r.Tx)
		r.Chain += time.Since(t)
		r.Attempts++
		if err == nil {
			r.Outcome, r.Receipt = Mined, rec
			return r
		}
		r.Err = err
		if ctx.Err() != nil {
			r.Outcome = Stopped
			return r
		}
		earlier := j.Earlier()
		switch {
		case errors.Is(err, gateway.ErrStalled), errors.Is(err, gateway.ErrUnderpriced) && len(earlier) > 0:
			np, rerr := node.Replacement(ctx, r.Tx)
			if rerr == nil && j.Replace(ctx, r.Tx, np, err) {
				r.Tx, attempt = np, 0
				r.Replacements++
				continue
			}
			if rerr != nil {
				log.Warn("tx: a stalled transaction cannot be replaced; waiting on it", "job_id", cfg.Job, "correlation_id", cfg.Correlation, "tx", r.Tx.Hash, "nonce", r.Tx.Nonce, "why", err, "err", rerr)
			}
			if attempt >= attempts || j.Settled(r.Tx) {
				r.Outcome = Pending
				return r
			}
			continue // the broadcast waits for the blocks again
		case errors.Is(err, gateway.ErrNonceTooLow):
			return adopt(ctx, node, r, earlier, log, cfg)
		case errors.Is(err, gateway.ErrPaused), errors.Is(err, gateway.ErrReverted), errors.Is(err, gateway.ErrNoRequestID):
			r.Outcome = Failed // mined: the nonce is used
			return r
		case refused(err) && attempt >= attempts && cfg.Releasable && len(earlier) == 0:
			// The node never took these bytes: give the nonce back, so it is reused or filled
			// and the recorded transaction can never be mined later.
			node.Release(r.Tx)
			r.Outcome, r.Released = Failed, true
			return r
		case attempt >= attempts:
			r.Outcome = Pending
			return r
		}
		log.Warn("tx: broadcast failed; sending the same bytes again", "job_id", cfg.Job, "correlation_id", cfg.Correlation, "tx", r.Tx.Hash, "attempt", attempt, "err", err)
		t = time.Now()
		if upstream.RealClock().Sleep(ctx, cfg.Backoff.Delay(attempt, nil)) != nil {
			r.Outcome = Stopped
			return r
		}
		r.Waited += time.Since(t)
		if j.Settled(r.Tx) {
			r.Outcome = Pending
			return r
		}
	}
}

// adopt settles a "nonce too low" for r.Tx, which is not mined: the job's earlier transactions
// of the nonce are looked up, and the mined one is the job's.
func adopt(ctx context.Context, node Node, r Result, earlier []common.Hash, log *slog.Logger, cfg Config) Result {
	for _, h := range earlier {
		rec, err := node.ReceiptByHash(ctx, h)
		switch {
		case err == nil:
			log.Info("tx: an earlier transaction of the job's nonce was mined; adopted", "job_id", cfg.Job, "correlation_id", cfg.Correlation, "tx", h, "nonce", r.Tx.Nonce)
			r.Outcome, r.Receipt, r.Err = Mined, rec, nil
			return r
		case errors.Is(err, gateway.ErrPaused), errors.Is(err, gateway.ErrReverted):
			r.Outcome, r.Err = Failed, err
			return r
		case errors.Is(err, gateway.ErrTxNotFound):
			continue
		default:
			log.Warn("tx: cannot tell whether an earlier transaction of the job's nonce was mined; the timeouts worker looks again", "job_id", cfg.Job, "correlation_id", cfg.Correlation, "tx", h, "err", err)
			r.Outcome, r.Err = Pending, err
			return r
		}
	}
	r.Outcome = NonceTaken
	return r
}

// refused tells errors after which the node certainly does not hold the transaction.
func refused(err error) bool {
	return errors.Is(err, gateway.ErrUnderpriced) || errors.Is(err, gateway.ErrInsufficientFunds) ||
		errors.Is(err, gateway.ErrFeeCapExceeded) || errors.Is(err, gateway.ErrRejected) ||
		errors.Is(err, gateway.ErrInvalidRequest) || errors.Is(err, gateway.ErrNonceTooHigh)
}
