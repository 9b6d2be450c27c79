package workers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/workers/gateway"
)

// timeoutsWorker ends the jobs whose stage deadline passed, from the timers projection:
// readiness (queued), tx_in_flight and response (receipt_received). Each timeout is a command
// like any other, appended with the expected version, so one that races a real completion
// loses cleanly: the completion's event is there first and the timeout no longer applies.
//
// A job in tx_in_flight is looked up on chain first: a receipt that did arrive is recorded
// instead of the timeout.
type timeoutsWorker struct {
	e *Engine
	// retryAt holds jobs whose timeout could not be recorded (the log or the chain failed),
	// with when to try again.
	retryAt map[domain.JobID]time.Time
}

func (w *timeoutsWorker) run(ctx context.Context) error {
	w.retryAt = map[domain.JobID]time.Time{}
	e := w.e
	for {
		now := e.now()
		var last eventstore.Position
		for _, t := range e.set.Due(now, 512) {
			if at, ok := w.retryAt[t.JobID]; ok && now.Before(at) {
				continue
			}
			pos, err := w.settle(ctx, t.JobID, t.Status)
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				e.log.Warn("timeouts: could not settle a job past its deadline; trying again", "job", t.JobID, "status", t.Status, "err", err)
				w.retryAt[t.JobID] = now.Add(e.cfg.TimeoutsPoll)
				continue
			}
			delete(w.retryAt, t.JobID)
			last = max(last, pos)
		}
		if last > 0 {
			// The timers projection drops what was settled once it has read it.
			wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_ = e.set.WaitFor(wctx, last)
			cancel()
		}
		wait := e.cfg.TimeoutsPoll
		if t, ok := e.set.NextDeadline(); ok {
			wait = min(wait, max(t.Deadline.Sub(e.now()), 5*time.Millisecond))
		}
		if !sleepCtx(ctx, wait) {
			return nil
		}
	}
}

// settle records the timeout of job id, seen in status st; the position of what it appended
// (0 when the job had moved on).
func (w *timeoutsWorker) settle(ctx context.Context, id domain.JobID, st domain.Status) (eventstore.Position, error) {
	e := w.e
	at := domain.At{At: e.now()}
	var cmd domain.Command
	switch st {
	case domain.Queued:
		cmd = domain.TimeOutReadiness{At: at}
	case domain.ReceiptReceived:
		cmd = domain.TimeOutResponse{At: at}
	case domain.TxInFlight:
		c, err := w.inFlight(ctx, id)
		if err != nil || c == nil {
			return 0, err
		}
		cmd = c
	default:
		return 0, nil
	}
	out, _, err := e.execute(ctx, id, cmd, "timeouts")
	if err != nil {
		return 0, err
	}
	if rr, ok := cmd.(domain.RecordReceipt); ok && len(out.Events) > 0 {
		if err := e.responses.register(ctx, out.State.Kind, rr.GatewayRequestID, id); err != nil {
			e.log.Warn("timeouts: apply early responses", "job", id, "err", err)
		}
	}
	return out.Position, nil
}

// inFlight decides a tx_in_flight job past its deadline from the chain: its receipt when mined,
// a failure when mined and reverted, else tx_in_flight_timed_out. Nil when the job moved on.
func (w *timeoutsWorker) inFlight(ctx context.Context, id domain.JobID) (domain.Command, error) {
	e := w.e
	s, err := e.exec.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	if s.Status != domain.TxInFlight {
		return nil, nil
	}
	at := domain.At{At: e.now()}
	rec, err := e.gw.ReceiptByHash(ctx, common.HexToHash(s.TxHash))
	switch {
	case err == nil:
		return domain.RecordReceipt{At: at, TxHash: rec.TxHash.Hex(), BlockNumber: rec.BlockNumber, GatewayRequestID: rec.RequestID.String()}, nil
	case errors.Is(err, gateway.ErrPaused):
		return domain.FailTransaction{At: at, Label: domain.LabelProtocolPaused, Message: err.Error()}, nil
	case errors.Is(err, gateway.ErrReverted):
		return domain.FailTransaction{At: at, Label: domain.LabelTransactionReverted, Message: err.Error()}, nil
	case errors.Is(err, gateway.ErrTxPending), errors.Is(err, gateway.ErrTxNotFound):
		if _, derr := decodeRawTx(s.RawTx); derr != nil {
			return nil, derr
		}
		return domain.FailTransaction{At: at, Label: domain.LabelTxInFlightTimedOut,
			Message: fmt.Sprintf("transaction %s (nonce %d) not mined within the tx_in_flight timeout: %v", s.TxHash, s.Nonce, err)}, nil
	}
	return nil, err
}
