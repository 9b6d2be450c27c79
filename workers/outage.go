package workers

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/workers/gateway"
)

// outageState is the chain stream's state: whether an outage is in progress, and since when.
type outageState struct {
	down  bool
	since time.Time
}

func foldOutage(s outageState, e eventstore.Typed) outageState {
	switch x := e.(type) {
	case domain.ChainOutageStarted:
		return outageState{down: true, since: x.Since}
	case domain.ChainOutageEnded:
		return outageState{}
	}
	return s
}

// outages records the gateway chain's outages, as the adapter sees them, in the log's chain
// stream (domain.ChainStream), where the projections stop the jobs' deadlines for their length
// (DESIGN section 9): no job is timed out for a wait the relayer could not see the end of. At
// the end of an outage the jobs the node could not prepare go back to their queues at once. Every
// engine of a fleet records what its adapter sees; the stream's expected version makes one
// start and one end of each outage.
func (e *Engine) outages(ctx context.Context) error {
	var (
		mu      sync.Mutex
		pending []gateway.OutageChange
		wake    = make(chan struct{}, 1)
	)
	cancel := e.gw.OnOutage(func(c gateway.OutageChange) {
		mu.Lock()
		pending = append(pending, c)
		mu.Unlock()
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	defer cancel()
	stream := eventstore.NewFolded(outageState{})
	// What the log and the adapter say at start: an outage under way is not announced, and one
	// the log left open (its recorder died) may be over.
	if h := e.gw.Health(); !h.Reachable {
		e.recordOutage(ctx, &stream, gateway.OutageChange{Down: true, At: h.Since, Since: h.Since})
	} else if since, open := e.set.ChainOutage(); open {
		e.recordOutage(ctx, &stream, gateway.OutageChange{At: e.now(), Since: since})
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		}
		mu.Lock()
		changes := pending
		pending = nil
		mu.Unlock()
		for _, c := range changes {
			e.recordOutage(ctx, &stream, c)
			if !c.Down {
				// The node may have lost what was sent during the outage: the nonce check sends
				// it again in nonce order at once, rather than at its next interval.
				e.gw.CheckNoncesNow()
				e.tx.unpark()
				e.readiness.chainBack()
				e.resendInFlight(ctx)
			}
		}
	}
}

// recordOutage appends c's start or end to the chain stream unless the stream says so already,
// trying again (the log may be what failed) until it is recorded or ctx ends.
func (e *Engine) recordOutage(ctx context.Context, stream *eventstore.Folded[outageState], c gateway.OutageChange) {
	codec := e.exec.Codec
	retry := retryEvery(time.Second)
	for failures := 1; ; failures++ {
		err := stream.Catch(ctx, e.store, codec, domain.ChainStream, foldOutage)
		if err == nil {
			_, err = eventstore.Update(ctx, e.store, codec, domain.ChainStream, stream, foldOutage,
				func(s outageState) ([]eventstore.Typed, error) {
					switch {
					case c.Down && !s.down:
						return []eventstore.Typed{domain.ChainOutageStarted{Since: c.Since.UTC(), At: e.now().UTC()}}, nil
					case !c.Down && s.down:
						return []eventstore.Typed{domain.ChainOutageEnded{Since: s.since.UTC(), Until: c.At.UTC(), At: e.now().UTC()}}, nil
					}
					return nil, nil
				}, eventstore.Metadata{}, nil, 5)
		}
		if err == nil || ctx.Err() != nil {
			return
		}
		e.log.Warn("record the chain's outage in the log; trying again", "down", c.Down, "err", err)
		if !sleepCtx(ctx, retry.Delay(failures, nil)) {
			return
		}
	}
}

// resendInFlight sends the recorded bytes of every transaction of this engine's jobs still in
// tx_in_flight again, at the end of an outage: a transaction the node lost (or never took) while
// it could not be reached goes out again within seconds, not at the job's deadline. The same
// bytes, so no job ever gets a second request; one already mined has its receipt recorded.
//
// They go out one after the other in nonce order, without waiting for receipts, and each job's
// sender takes its transaction up again once it and its key's earlier ones went out. A
// transaction is mined only after its key's earlier ones: sent in another order, with a receipt
// wait each (the senders' own, which hold one of the few sends the adapter runs at once), the
// later ones would hold every send for the node's whole wait while an earlier one waited its
// turn behind them. A sender does not wait for the whole pass (a round trip per transaction,
// thousands of them after a long outage). A job that settled or moved to another transaction
// since it was loaded is not sent again here (its bytes may hold a nonce given back), nor is any
// job while the chain cannot be reached: its sender sends it.
func (e *Engine) resendInFlight(ctx context.Context) {
	type recorded struct {
		id    domain.JobID
		corr  string
		from  string
		nonce uint64
		hash  string
		raw   []byte
	}
	var txs []recorded
	for _, j := range e.set.InStatus(domain.TxInFlight) {
		if !e.shard.owns(j.ID) {
			continue
		}
		r := recorded{id: j.ID}
		// What cannot be loaded or decoded here is the sender's to report (resend).
		if s, err := e.exec.Load(ctx, j.ID); err == nil && s.Status == domain.TxInFlight {
			if raw, err := decodeRawTx(s.RawTx); err == nil {
				r.corr, r.from, r.nonce, r.hash, r.raw = s.CorrelationID, s.From, s.Nonce, s.TxHash, raw
			}
		}
		txs = append(txs, r)
	}
	if len(txs) == 0 {
		return
	}
	slices.SortFunc(txs, func(a, b recorded) int {
		return cmp.Or(strings.Compare(a.from, b.from), cmp.Compare(a.nonce, b.nonce))
	})
	for _, tx := range txs {
		if ctx.Err() != nil {
			return
		}
		j, ok := e.set.Job(tx.id)
		if tx.raw != nil && ok && j.Status == domain.TxInFlight && j.TxHash == tx.hash && e.gw.Health().Reachable {
			if err := e.gw.SendAgain(ctx, tx.raw); err != nil && ctx.Err() == nil {
				e.logChain("the chain is back: a transaction in flight cannot be sent again in nonce order; its sender sends it", "job_id", tx.id, "correlation_id", tx.corr, "nonce", tx.nonce, "err", err)
			}
		}
		e.timeouts.resend(ctx, tx.id)
	}
	e.log.Info("the chain is back: the recorded transactions still in flight are sent again", "jobs", len(txs))
}

// errChainDown is why a job waits while the chain is in an outage.
var errChainDown = errors.New("the gateway chain is unreachable (an outage is in progress)")

// logChain logs a chain call's failure: a warning, or, during an outage the adapter has logged
// once already, a debug line, so that an outage is not a warning per job and per retry.
func (e *Engine) logChain(msg string, args ...any) {
	if e.gw.Health().Reachable {
		e.log.Warn(msg, args...)
	} else {
		e.log.Debug(msg, args...)
	}
}
