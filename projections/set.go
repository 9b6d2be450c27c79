package projections

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

var (
	// ErrOutOfOrder reports an event applied at or before the position the projections already
	// hold: applied twice, or out of the log's order.
	ErrOutOfOrder = errors.New("event out of order")
	// ErrInconsistent reports an event that does not follow from its stream's history as the
	// projections hold it: a gap in the stream's versions, an event before the request was
	// accepted or after it ended, a transition the lifecycle does not allow. The log is the
	// truth, so this means events were lost or the log is corrupt; the projections stop rather
	// than guess.
	ErrInconsistent = errors.New("event inconsistent with its stream")
	// ErrRunning reports a second Run on a Set that is already following the log.
	ErrRunning = errors.New("projections already running")
)

// Queue names the queues of the queues projection.
type Queue uint8

const (
	// NotQueued is where every job is that waits in no queue: in tx_in_flight or later, or ended.
	NotQueued Queue = iota
	// ReadinessQueue holds the accepted decrypts no readiness worker has picked up yet, in order
	// of acceptance.
	ReadinessQueue
	// ReadinessInProgress holds the decrypts a readiness worker picked up that are still queued,
	// in order of pickup. For the Retry-After formulas this is the seeds' "out of readiness,
	// not in TX": the job will join the back of the TX queue once its check (R) passes.
	ReadinessInProgress
	// TxQueue holds the jobs in processing, in order of entering processing: a job sent back by
	// TransactionReset goes to the back.
	TxQueue
	numQueues
)

var queueNames = [numQueues]string{"none", "readiness", "readiness_in_progress", "tx"}

func (q Queue) String() string {
	if q < numQueues {
		return queueNames[q]
	}
	return "unknown"
}

// Set holds the four read models of DESIGN section 5 (requests, queues, timers, stats), kept
// consistent with one another: it applies each event of the log once, in global order, to all
// four, and its checkpoint is the position of the last event applied.
//
// A Set is safe for concurrent use. Queries take a read lock and cost a map lookup plus at most
// O(log n); applying takes the write lock. Build one with New (then Run it) or Rebuild.
type Set struct {
	cfg Config
	dec *decoder

	mu     sync.RWMutex
	pos    eventstore.Position
	events uint64
	jobs   jobTable
	counts Counts
	// transitions counts, per kind, how often jobs entered each status (acceptance included).
	transitions Counts
	queues      [numQueues]fifo // queues[NotQueued] stays empty
	// queuedKinds counts each queue's jobs per kind.
	queuedKinds [numQueues][numKinds]int32
	timers      timerHeap
	stats       stats
	// renumber updates a job's slot when a fifo compacts; made once, not per call.
	renumber func(job, slot int32)
	// scratch is a buffer for packing text, used under mu.
	scratch []byte

	// applied mirrors pos, so WaitFor can check it without the lock.
	applied atomic.Uint64
	// run state, guarded by runMu: whether Run is following the log, why the last Run
	// stopped, and the channel WaitFor sleeps on (closed and cleared when events are applied or
	// Run stops).
	runMu   sync.Mutex
	running bool
	stopErr error
	wake    chan struct{}

	// watchers are the Watch registrations, woken by change at each status change.
	watchers waiters
	// signals are the NotifyStream channels by stream, written under mu.
	signals map[string][]chan struct{}
	// outage is when the gateway chain's outage in progress began (unix nanoseconds; 0 when the
	// chain is reachable), from the chain stream: while it lasts, no deadline falls due.
	outage int64
	// signers are the signing keys the balance guard paused or resumed, by stream (SignerStream).
	signers map[string]SignerState
	// pausedSigners counts the keys of signers that are paused, for AnySignerPaused.
	pausedSigners atomic.Int32
	// reqs are the gateway requests of the jobs in receipt_received, and of the last that left
	// it (GatewayRequest).
	reqs requestIndex
	// retired holds the ids of the jobs retired to the archive (retire.go, retired.go);
	// retiredUpTo is the highest UpTo of the JobsRetired applied (RetiredUpTo).
	retired     retiredIDs
	retiredUpTo eventstore.Position
	// costly counts, by content hash, the jobs that ended without a result after their
	// transaction was sent (CostlyFailures); only contents with such a job have an entry.
	costly map[string]costlyFailures
	// hlog is the latest operations on the running history (history.go).
	hlog histLog
}

// NotifyStream returns a channel that receives (without blocking the projections: one signal
// stands for any number) whenever the Set applies an event of stream, a stream the projections
// themselves skip, such as the runtime configuration's: an instance sharing the log with others
// follows their changes through it (DESIGN section 11). Each call returns a channel of its own,
// so that several followers of one stream (the API and the archiver follow the configuration's)
// each get every signal.
func (s *Set) NotifyStream(stream string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.signals == nil {
		s.signals = map[string][]chan struct{}{}
	}
	ch := make(chan struct{}, 1)
	s.signals[stream] = append(s.signals[stream], ch)
	return ch
}

// New returns an empty Set at position 0 with cfg (zero fields take their defaults).
func New(cfg Config) (*Set, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	s := &Set{
		cfg:   cfg,
		dec:   newDecoder(NewCodec(), cfg.FullDecode),
		jobs:  newJobTable(),
		stats: newStats(cfg),
	}
	s.renumber = func(job, slot int32) { s.jobs.at(job).slot = slot }
	return s, nil
}

// Config returns the Set's configuration, defaults filled in.
func (s *Set) Config() Config { return s.cfg }

// Position returns the checkpoint: the global position of the last event applied (0 before
// any). Following the log again from here continues exactly where the Set stopped.
func (s *Set) Position() eventstore.Position { return eventstore.Position(s.applied.Load()) }

// Apply applies one event: rec as read from the store and e, rec decoded (DecodeEvent). Events
// must come in the log's order: a position at or before the checkpoint is refused with
// ErrOutOfOrder, and an event that does not follow from its stream's history with
// ErrInconsistent, both wrapped in a *eventstore.RecordError naming the record; a refused event
// changes nothing. Records of streams that are not request streams are skipped but advance the
// checkpoint.
func (s *Set) Apply(rec eventstore.Record, e domain.Event) error {
	var f fact
	if isRequestStream(rec.Stream) {
		if e == nil {
			return s.recordErr(&rec, errors.New("apply a request stream's record without its event"))
		}
		var err error
		if f, err = s.dec.factOf(&rec, e); err != nil {
			return err
		}
	}
	s.mu.Lock()
	err := s.apply(&rec, &f)
	s.mu.Unlock()
	s.notify()
	return err
}

func (s *Set) recordErr(rec *eventstore.Record, err error) error {
	return &eventstore.RecordError{Stream: rec.Stream, Version: rec.Version, Position: rec.Position, Err: err}
}

// apply applies one decoded record; s.mu is held. It checks everything before it changes
// anything, so a refused event leaves the Set as it was.
func (s *Set) apply(rec *eventstore.Record, f *fact) error {
	if rec.Position <= s.pos {
		return s.recordErr(rec, fmt.Errorf("%w: position %d is not after the checkpoint %d", ErrOutOfOrder, rec.Position, s.pos))
	}
	if f.typ != evNone {
		idx, j, err := s.check(rec, f)
		if err == errRetiredJob {
			// An event a retired job took while it was being retired (a JobRetried annotation):
			// its stream stayed in the live store, the job stays out of the read models.
		} else if err != nil {
			return s.recordErr(rec, fmt.Errorf("%w: %v", ErrInconsistent, err))
		} else {
			s.change(rec, f, idx, j)
		}
	} else {
		if rec.Stream == domain.ChainStream {
			if err := s.applyOutage(rec); err != nil {
				return s.recordErr(rec, fmt.Errorf("%w: %v", ErrInconsistent, err))
			}
		}
		if rec.Stream == domain.RetentionStream {
			if err := s.applyRetention(rec); err != nil {
				return s.recordErr(rec, fmt.Errorf("%w: %v", ErrInconsistent, err))
			}
		}
		if strings.HasPrefix(rec.Stream, domain.SignerStreamPrefix) {
			if err := s.applySigner(rec); err != nil {
				return s.recordErr(rec, fmt.Errorf("%w: %v", ErrInconsistent, err))
			}
		}
		for _, ch := range s.signals[rec.Stream] {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
	s.pos = rec.Position
	s.hist(rec.Position, histOp{op: opEvent})
	s.applied.Store(uint64(rec.Position))
	return nil
}

// errRetiredJob is check's answer for an event of a retired job, which apply passes over.
var errRetiredJob = errors.New("event of a retired job")

// check finds the event's job and checks that the event may follow its history.
func (s *Set) check(rec *eventstore.Record, f *fact) (int32, *job, error) {
	id, ok := domain.JobIDFromStream(rec.Stream)
	if !ok {
		return 0, nil, fmt.Errorf("stream %q names no job", rec.Stream)
	}
	if id != f.job {
		return 0, nil, fmt.Errorf("%s event of job %s in the stream of job %s", eventTypeNames[f.typ], f.job, id)
	}
	idx, j, exists := s.jobs.lookup(id)
	if f.typ == evRequestAccepted {
		switch {
		case exists:
			return 0, nil, fmt.Errorf("job %s accepted twice", id)
		case rec.Version != 0:
			return 0, nil, fmt.Errorf("RequestAccepted at version %d, want 0", rec.Version)
		case f.kind.IsZero() || f.status != f.kind.InitialStatus():
			return 0, nil, fmt.Errorf("job accepted as %s in status %s", f.kind, f.status)
		}
		return -1, nil, nil
	}
	switch {
	case !exists && s.isRetired(id):
		// Only for a job the Set does not hold, so that a retired id's rare false match
		// (retiredIDs) never passes over a live job's event; an acceptance is always applied.
		return 0, nil, errRetiredJob
	case !exists:
		return 0, nil, fmt.Errorf("%s before the job was accepted", eventTypeNames[f.typ])
	case rec.Version != eventstore.Version(j.version)+1:
		return 0, nil, fmt.Errorf("version %d follows version %d", rec.Version, j.version)
	case j.status.Terminal() && (f.typ != evJobRetried || j.status == domain.Completed):
		// JobRetried is the one event an ended job takes: an annotation linking it to the
		// job its retry created, which changes no status (domain.LinkRetry).
		return 0, nil, fmt.Errorf("%s after the job ended (%s)", eventTypeNames[f.typ], j.status)
	}
	if to := statusAfter[f.typ]; !to.IsZero() {
		if !domain.CanTransition(j.kind, j.status, to) {
			return 0, nil, fmt.Errorf("%s moves a %s job from %s to %s", eventTypeNames[f.typ], j.kind, j.status, to)
		}
		return idx, j, nil
	}
	switch f.typ {
	case evReadinessCheckStarted:
		if !j.kind.NeedsReadiness() || j.status != domain.Queued {
			return 0, nil, fmt.Errorf("readiness check started on a %s job in %s", j.kind, j.status)
		}
	case evShareReceived:
		if !j.kind.CollectsShares() || j.status != domain.ReceiptReceived {
			return 0, nil, fmt.Errorf("share received by a %s job in %s", j.kind, j.status)
		}
	}
	return idx, j, nil
}

// change applies a checked event to the four read models, and wakes the job's watchers (Watch)
// when its status changes.
func (s *Set) change(rec *eventstore.Record, f *fact, idx int32, j *job) {
	at := f.at
	s.hist(rec.Position, histOp{op: opSeen, a: at})
	if f.typ == evRequestAccepted {
		idx, j = s.jobs.add(f.job)
		j.kind, j.status = f.kind, f.status
		j.setEntered(f.status, at)
		s.counts[f.kind.Ordinal()][f.status.Ordinal()]++
		s.hist(rec.Position, histOp{op: opTransition, kind: uint8(f.kind.Ordinal()), arg: uint8(f.status.Ordinal())})
		s.scratch = j.setContentHash(f.contentHash, s.scratch)
		if len(f.users) > 0 || len(f.contracts) > 0 {
			s.scratch = j.setParties(f.users, f.contracts, s.scratch)
		}
		if f.status == domain.Queued {
			s.enqueue(idx, j, ReadinessQueue)
			s.timers.set(&s.jobs, idx, at+int64(s.cfg.ReadinessTimeout))
		} else {
			s.enqueue(idx, j, TxQueue)
			s.timers.set(&s.jobs, idx, at+int64(s.cfg.ProcessingTimeout))
		}
		j.version, j.pos = uint32(rec.Version), rec.Position
		s.watchers.changed(f.job)
		return
	}
	j.version, j.pos = uint32(rec.Version), rec.Position
	k := j.kind
	switch f.typ {
	case evReadinessCheckStarted:
		if j.queue == ReadinessQueue {
			s.dequeue(j)
			s.enqueue(idx, j, ReadinessInProgress)
			s.drained(rec, drainReadiness, k, at, s.waiting(ReadinessQueue, k))
		}
		j.extra = at // checkAt: only a kind that needs readiness gets here (check)
	case evReadinessPassed:
		fromQueue := j.queue == ReadinessQueue
		s.observe(rec, k, StageReadiness, j.enteredAt(domain.Queued), at)
		s.observe(rec, k, StageReadinessCheck, j.checkAt(), at)
		s.dequeue(j)
		if fromQueue {
			// Passed without a recorded pickup: it still left the queue into service.
			s.drained(rec, drainReadiness, k, at, s.waiting(ReadinessQueue, k))
		}
		s.enqueue(idx, j, TxQueue)
	case evTransactionSigned:
		s.observe(rec, k, StageTxQueue, j.enteredAt(domain.Processing), at)
		s.dequeue(j)
		s.drained(rec, drainTx, k, at, s.waiting(TxQueue, k))
		s.scratch = j.setField(fieldTxHash, f.txHash, s.scratch)
	case evTransactionReplaced:
		s.scratch = j.setField(fieldTxHash, f.txHash, s.scratch)
	case evTransactionReset:
		s.scratch = j.setField(fieldTxHash, nil, s.scratch)
		s.enqueue(idx, j, TxQueue)
	case evReceiptRecorded:
		s.observe(rec, k, StageTxConfirm, j.enteredAt(domain.TxInFlight), at)
		s.observe(rec, k, StageTx, j.enteredAt(domain.Processing), at)
		s.scratch = j.setField(fieldGatewayRequestID, f.gatewayRequestID, s.scratch)
		s.reqs.awaiting(k, j.field(fieldGatewayRequestID), j.id)
	case evShareReceived:
		j.addShare()
	case evRequestCompleted:
		s.observe(rec, k, StageResponse, j.enteredAt(domain.ReceiptReceived), at)
		s.scratch = j.setField(fieldResult, f.result, s.scratch)
	case evReadinessTimedOut:
		s.scratch = j.setField(fieldLabel, []byte(domain.LabelReadinessCheckTimedOut), s.scratch)
	case evResponseTimedOut:
		s.scratch = j.setField(fieldLabel, []byte(domain.LabelResponseTimedOut), s.scratch)
	case evProofRejected:
		s.scratch = j.setField(fieldLabel, []byte(domain.LabelProofRejected), s.scratch)
		s.scratch = j.setField(fieldResult, rejectedProofResult(f.extraData), s.scratch)
	case evReadinessFailed, evTransactionFailed, evRequestFailed, evJobCancelled:
		s.scratch = j.setField(fieldLabel, f.label, s.scratch)
		if len(f.message) > 0 {
			s.scratch = j.setField(fieldMessage, f.message, s.scratch)
		}
	case evRetryScheduled:
		j.setRetryAt(f.nextAt)
	case evRetryRequested:
		j.setRetryAt(at) // due now (domain.Evolve)
	}
	if to := statusAfter[f.typ]; !to.IsZero() && to != j.status {
		if j.status == domain.ReceiptReceived {
			s.reqs.left(k, j.field(fieldGatewayRequestID))
		}
		j.setRetryAt(0)
		s.counts[k.Ordinal()][j.status.Ordinal()]--
		s.counts[k.Ordinal()][to.Ordinal()]++
		s.hist(rec.Position, histOp{op: opTransition, kind: uint8(k.Ordinal()), arg: uint8(to.Ordinal())})
		j.setEntered(to, at) // before the status changes: it tells a re-entry (setEntered)
		j.status = to
		s.watchers.changed(j.id)
		switch to {
		case domain.Processing:
			s.timers.set(&s.jobs, idx, at+int64(s.cfg.ProcessingTimeout))
		case domain.TxInFlight:
			s.timers.set(&s.jobs, idx, at+int64(s.cfg.TxInFlightTimeout))
		case domain.ReceiptReceived:
			s.timers.set(&s.jobs, idx, at+int64(s.cfg.ResponseTimeout))
		default: // a terminal job needs no deadline and leaves its queue
			s.timers.clear(&s.jobs, idx)
			if to.Terminal() {
				s.dequeue(j)
				s.jobs.ended(idx)
				if costlyEnd(j) {
					s.noteCostly(j, at)
				}
			}
		}
	}
}

// rejectedProofResult is the result a rejected input proof reports, as domain.Evolve builds it
// (accepted:false, no handles or signatures), in encoding/json's form.
func rejectedProofResult(extraData []byte) []byte {
	b := []byte(`{"inputProof":{"accepted":false,"handles":[],"signatures":[],"extraData":`)
	b = appendJSONString(b, extraData)
	return append(b, "}}"...)
}

func (s *Set) enqueue(idx int32, j *job, q Queue) {
	j.queue, j.slot = q, s.queues[q].push(idx)
	s.queuedKinds[q][j.kind.Ordinal()]++
}

func (s *Set) dequeue(j *job) {
	if j.queue != NotQueued {
		s.queues[j.queue].remove(j.slot, s.renumber)
		s.queuedKinds[j.queue][j.kind.Ordinal()]--
		j.queue, j.slot = NotQueued, -1
	}
}

// waiting tells whether queue q holds jobs of kind k.
func (s *Set) waiting(q Queue, k domain.Kind) bool { return s.queuedKinds[q][k.Ordinal()] > 0 }

// notify wakes the WaitFor calls waiting for events to be applied.
func (s *Set) notify() {
	s.runMu.Lock()
	if s.wake != nil {
		close(s.wake)
		s.wake = nil
	}
	s.runMu.Unlock()
}

// nanosTime turns stored unix nanoseconds back into a time (the zero time for 0).
func nanosTime(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// applyOutage applies an event of the chain stream; s.mu is held. A ChainOutageStarted stops the
// deadlines; its ChainOutageEnded moves every pending deadline later by the part of the outage
// its job waited through (from the outage's start, or the job's entry into its status if that
// came later, to the outage's end), so that the time the relayer could not see the chain is
// not counted against any job. Stage durations that overlap an outage are not taken as samples
// of the stages (stats.duringOutage), so the adaptive hints do not learn the outage.
func (s *Set) applyOutage(rec *eventstore.Record) error {
	switch rec.Type {
	case "ChainOutageStarted":
		var e domain.ChainOutageStarted
		if err := json.Unmarshal(rec.Data, &e); err != nil {
			return err
		}
		if s.outage == 0 {
			s.outage = max(e.Since.UnixNano(), 1)
			s.stats.outageSince = s.outage
		}
	case "ChainOutageEnded":
		var e domain.ChainOutageEnded
		if err := json.Unmarshal(rec.Data, &e); err != nil {
			return err
		}
		if s.outage == 0 {
			return nil // an end without a start this Set saw: nothing stood still
		}
		since, until := s.outage, e.Until.UnixNano()
		s.outage, s.stats.outageSince = 0, 0
		s.stats.outages = append(s.stats.outages, [2]int64{since, until})
		if len(s.stats.outages) > maxOutagesKept {
			s.stats.outages = s.stats.outages[1:]
		}
		for k := range s.timers.items {
			it := &s.timers.items[k]
			j := s.jobs.at(it.job)
			if from := max(since, j.enteredAt(j.status)); until > from {
				it.due += until - from
			}
		}
		s.timers.fix(&s.jobs)
	}
	return nil
}

// ChainOutage is when the gateway chain's outage in progress began, and false when the chain
// is reachable (as the log says).
func (s *Set) ChainOutage() (time.Time, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.outage == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, s.outage).UTC(), true
}
