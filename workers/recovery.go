package workers

import (
	"context"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"relayer/domain"
	"relayer/projections"
)

// recoverySendWait bounds how long start-up waits for the recorded transactions it sends again
// before new transactions are prepared: long enough, on a live node, for the re-sent bytes to
// take their nonces again, so that a new transaction does not take one first and send the old
// job back to processing. (Either way no job gets two requests: a nonce taken by another
// transaction means the recorded one can never be mined, and the job is reset.)
const recoverySendWait = 5 * time.Second

// recover re-dispatches every unfinished job by its status, from the projections (caught up):
//   - queued decrypts go back to the readiness worker: those a worker had picked up first, in
//     the order of pickup, then the readiness queue in its order;
//   - jobs in processing go back to the TX queue of their kind, in its order;
//   - jobs in tx_in_flight have their recorded transaction looked up and, unless mined, sent
//     again (the same bytes); see txWorker.broadcast for what each outcome records;
//   - jobs in receipt_received are indexed by gateway request id for the responses worker.
//
// Events the dispatcher publishes again after its checkpoint find these jobs already known to
// the workers and change nothing.
func (e *Engine) recover(ctx context.Context) error {
	set := e.set
	n := map[string]int{}
	for _, q := range []projections.Queue{projections.ReadinessInProgress, projections.ReadinessQueue} {
		for _, id := range set.QueueMembers(q) {
			j, ok := set.Job(id)
			if !ok || !e.shard.owns(id) {
				continue
			}
			e.readiness.enqueue(readinessItem{id: id, cause: causeOf(j)})
			n["readiness"]++
		}
	}
	for _, id := range set.QueueMembers(projections.TxQueue) {
		j, ok := set.Job(id)
		if !ok || !e.shard.owns(id) {
			continue
		}
		e.tx.enqueue(j.Kind, id, time.Time{}, causeOf(j))
		n["processing"]++
	}
	for _, j := range set.InStatus(domain.ReceiptReceived) {
		// Every shard's: another shard's request id is registered as not this one's.
		if err := e.responses.register(ctx, j.Kind, j.GatewayRequestID, j.ID, domain.State{}); err != nil {
			return err
		}
		n["receipt_received"]++
	}

	type resumed struct {
		s     domain.State
		cause string
	}
	var inFlight []resumed
	var nonces []uint64
	me := e.gw.Address()
	for _, j := range set.InStatus(domain.TxInFlight) {
		s, err := e.exec.Load(ctx, j.ID)
		if err != nil {
			return err
		}
		if s.Status != domain.TxInFlight {
			continue
		}
		if e.shard.owns(j.ID) {
			inFlight = append(inFlight, resumed{s, causeOf(j)})
		}
		// Every nonce of this key, whichever shard's job it is (the fleet's keys changed).
		if common.HexToAddress(s.From) == me {
			nonces = append(nonces, s.Nonce)
		}
	}
	// New transactions must not take the nonces of the recorded ones sent again below.
	retry := retryEvery(time.Second)
	for failures := 1; ; failures++ {
		err := e.gw.AdoptNonces(ctx, nonces)
		if err == nil {
			break
		}
		e.log.Warn("recovery: read the key's pending nonce; trying again", "err", err)
		if !sleepCtx(ctx, retry.Delay(failures, nil)) {
			return ctx.Err()
		}
	}
	var wg sync.WaitGroup
	for _, r := range inFlight {
		s, id := r.s, r.s.JobID
		n["tx_in_flight"]++
		wg.Add(1)
		e.tx.wg.Add(1)
		go func() {
			defer e.tx.wg.Done()
			done := make(chan struct{})
			go func() {
				// Signal once the bytes had their chance to reach the node; the broadcast
				// itself goes on until it is settled.
				select {
				case <-done:
				case <-time.After(recoverySendWait):
				}
				wg.Done()
			}()
			defer close(done)
			if err := e.tx.resume(ctx, s.Kind, id, s, r.cause); err != nil {
				e.log.Error("recovery: the recorded transaction cannot be decoded; failing the job", "job_id", id, "correlation_id", s.CorrelationID, "err", err)
				e.tx.retry(ctx, id, r.cause, s, domain.Fail{At: domain.At{At: e.now()}, Label: domain.LabelInternalServerError, Message: "recorded transaction unreadable: " + err.Error()})
			}
		}()
	}
	wg.Wait()
	e.log.Info("recovery done", "readiness", n["readiness"], "processing", n["processing"],
		"tx_in_flight", n["tx_in_flight"], "receipt_received", n["receipt_received"])
	return ctx.Err()
}

// causeOf is the causation id of what recovery or the sweep does for job j: the global position
// of its last event, the one its status (and so the step taken now) follows from, in the format
// of MetaCausationID. (That the step came from recovery or the sweep is said in the log, not in
// the causation id, which holds event ids only.)
func causeOf(j projections.Job) string { return MessageMetaPosition(j.Position) }

// sweepInterval is how often the engine re-dispatches, from the projections, the queued and
// processing jobs no worker holds: a job whose message was poisoned (the log unreadable for
// longer than the retries) is taken up again without a restart.
const sweepInterval = 30 * time.Second

// sweep re-dispatches the jobs waiting in the readiness and TX queues that no worker knows of,
// every sweepInterval, until ctx ends. Jobs a worker holds are skipped (enqueue is idempotent),
// and a job that moved on meanwhile is dropped when its worker reads it.
func (e *Engine) sweep(ctx context.Context) error {
	for sleepCtx(ctx, sweepInterval) {
		// A hand-over whose ReadinessPassed was dispatched before it was stored is never taken.
		e.passed.Range(func(id, v any) bool {
			if time.Since(v.(passedJob).at) > sweepInterval {
				e.passed.Delete(id)
			}
			return true
		})
		for _, q := range []projections.Queue{projections.ReadinessInProgress, projections.ReadinessQueue} {
			for _, id := range e.set.QueueMembers(q) {
				if !e.shard.owns(id) {
					continue
				}
				if j, ok := e.set.Job(id); ok {
					e.readiness.enqueue(readinessItem{id: id, cause: causeOf(j)})
				}
			}
		}
		for _, id := range e.set.QueueMembers(projections.TxQueue) {
			if j, ok := e.set.Job(id); ok && e.shard.owns(id) {
				e.tx.enqueue(j.Kind, id, time.Time{}, causeOf(j))
			}
		}
	}
	return nil
}
