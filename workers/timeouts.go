package workers

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

// timeoutsWorker ends the jobs whose stage deadline passed, from the timers projection:
// readiness (queued), response (receipt_received), and processing for a job whose transaction
// could not be prepared meanwhile (a job that only waits its turn in the TX queue is left to
// wait). Each timeout is a command like any other, appended with the expected version, so one
// that races a real completion loses cleanly: the completion's event is there first and the
// timeout no longer applies.
//
// A job past its tx_in_flight deadline is not failed while its transaction may still be mined
// (a failed job's request answered later, and the client's new request, would make two gateway
// requests): its recorded bytes are looked up and sent again, as recovery does, and the outcome
// recorded (the receipt; a reset when another transaction took the nonce; a revert). While the
// transaction stays pending this is tried again every txInFlightRecheck (jittered down to half,
// so that the jobs one outage left past their deadline are not all sent again together).
type timeoutsWorker struct {
	e *Engine
	// retryAt holds jobs to look at again later, with when.
	retryAt map[domain.JobID]time.Time
	// inFlight holds the tx_in_flight jobs whose bytes are being sent again now.
	mu       sync.Mutex
	inFlight map[domain.JobID]bool
}

// processingRecheck is how long a processing job past its deadline that only waits its turn
// waits before the timeouts worker looks at it again.
const processingRecheck = 30 * time.Second

// txInFlightRecheck is how long a job past its tx_in_flight deadline waits between two
// re-sends of its transaction.
const txInFlightRecheck = 30 * time.Second

func (w *timeoutsWorker) run(ctx context.Context) error {
	w.retryAt = map[domain.JobID]time.Time{}
	e := w.e
	for {
		now := e.now()
		var last eventstore.Position
		if !e.gw.Health().Reachable {
			// The chain cannot be read: no verdict now (the outage is being recorded, and the
			// deadlines will have moved by its length when it ends).
			if !sleepCtx(ctx, e.cfg.TimeoutsPoll) {
				return nil
			}
			continue
		}
		for _, t := range e.set.DueOf(now, 512, e.shard.ownsFunc()) {
			if at, ok := w.retryAt[t.JobID]; ok && now.Before(at) {
				continue
			}
			if t.Status == domain.TxInFlight {
				w.resend(ctx, t.JobID)
				w.retryAt[t.JobID] = now.Add(retryEvery(txInFlightRecheck).Delay(1, nil))
				continue
			}
			pos, waiting, err := w.settle(ctx, t.JobID, t.Status)
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				e.log.Warn("timeouts: could not settle a job past its deadline; trying again", "job_id", t.JobID, "correlation_id", e.correlationOf(ctx, t.JobID), "status", t.Status, "err", err)
				w.retryAt[t.JobID] = now.Add(e.cfg.TimeoutsPoll)
				continue
			}
			if waiting {
				// Waiting its turn in the TX queue, not failing: no verdict; look again later.
				w.retryAt[t.JobID] = now.Add(retryEvery(processingRecheck).Delay(1, nil))
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
		if len(w.retryAt) > 4096 {
			for id, at := range w.retryAt {
				if now.After(at.Add(time.Hour)) {
					delete(w.retryAt, id)
				}
			}
		}
		wait := e.cfg.TimeoutsPoll
		if t, ok := e.set.NextDeadline(); ok && e.shard.owns(t.JobID) {
			// (Another shard's next deadline is that shard's: this one looks again after
			// TimeoutsPoll, not in a loop until the other settles it. A deadline already past
			// is one this loop just looked at and left for later: the poll finds the rest.)
			if d := t.Deadline.Sub(e.now()); d > 0 {
				wait = min(wait, max(d, 5*time.Millisecond))
			}
		}
		if !sleepCtx(ctx, wait) {
			return nil
		}
	}
}

// settle records the timeout of job id, seen in status st; the position of what it appended
// (0 when the job had moved on). waiting is true for a processing job that only waits its turn
// in the TX queue: it gets no verdict.
func (w *timeoutsWorker) settle(ctx context.Context, id domain.JobID, st domain.Status) (pos eventstore.Position, waiting bool, err error) {
	e := w.e
	at := domain.At{At: e.now()}
	// A deadline is the job's last event's: the timeout is caused by it.
	var cause string
	if j, ok := e.set.Job(id); ok {
		cause = causeOf(j)
	}
	var cmd domain.Command
	switch st {
	case domain.Queued:
		cmd = domain.TimeOutReadiness{At: at}
	case domain.ReceiptReceived:
		cmd = domain.TimeOutResponse{At: at}
	case domain.Processing:
		s, err := e.exec.Load(ctx, id)
		if err != nil {
			return 0, false, err
		}
		if s.Status != domain.Processing {
			return 0, false, nil
		}
		if s.Retries == 0 {
			return 0, true, nil
		}
		label := cmp.Or(s.RetryLabel, domain.LabelGatewayNotReachable)
		e.log.Warn("timeouts: a job whose transaction could not be prepared reached its processing deadline", "job_id", id, "correlation_id", s.CorrelationID, "tries", s.Retries, "label", label)
		out, _, err := e.executeOn(ctx, id, s, domain.ExpireProcessing{At: at, Label: label,
			Message: fmt.Sprintf("the transaction could not be prepared before the processing deadline (%d tries); nothing was sent", s.Retries)}, cause)
		return out.Position, false, err
	default:
		return 0, false, nil
	}
	out, _, err := e.execute(ctx, id, cmd, cause)
	if err != nil {
		return 0, false, err
	}
	return out.Position, false, nil
}

// resend sends the recorded transaction of job id, past its tx_in_flight deadline or through a
// chain outage, again in the background (the same bytes: never a second transaction), unless
// that is under way already.
func (w *timeoutsWorker) resend(ctx context.Context, id domain.JobID) {
	w.mu.Lock()
	if w.inFlight[id] {
		w.mu.Unlock()
		return
	}
	w.inFlight[id] = true
	w.mu.Unlock()
	e := w.e
	e.tx.wg.Add(1)
	go func() {
		defer e.tx.wg.Done()
		defer func() {
			w.mu.Lock()
			delete(w.inFlight, id)
			w.mu.Unlock()
		}()
		s, err := e.exec.Load(ctx, id)
		if err != nil || s.Status != domain.TxInFlight {
			return
		}
		e.log.Warn("a transaction is still in flight (past its deadline, or through a chain outage); sending the recorded bytes again", "job_id", id, "correlation_id", s.CorrelationID, "tx", s.TxHash, "nonce", s.Nonce)
		var cause string
		if j, ok := e.set.Job(id); ok {
			cause = causeOf(j)
		}
		if err := e.tx.resume(ctx, s.Kind, id, s, cause); err != nil {
			e.log.Error("timeouts: the recorded transaction cannot be decoded", "job_id", id, "correlation_id", s.CorrelationID, "err", err)
		}
	}()
}
