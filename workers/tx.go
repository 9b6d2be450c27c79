package workers

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"relayer/domain"
	"relayer/workers/gateway"
	"relayer/workers/lease"
	"relayer/workers/sender"
	"relayer/workers/upstream"
)

// txWorker sends each job's one gateway transaction. Per kind, jobs are started in the order
// they entered processing (the TX queue's order in the projections), at most D per second (D =
// the kind's *_throttler_tps, read at every start, so a change through the admin API applies at
// once). A start prepares and signs the transaction, records it (TransactionSigned: raw bytes,
// hash, nonce) and only then broadcasts it; the receipt is recorded with the gateway's request
// id. The same bytes are the only ones ever sent for that record: a retry, a lost answer and
// recovery after a crash all re-send them.
type txWorker struct {
	e *Engine
	// kinds holds one queue per kind family (Kind.Family): a delegated user decrypt waits in
	// the user decrypts' queue and shares their rate D.
	kinds [domain.NumKinds]*txQueue
	// wg counts the sends in progress (starts, recovery's and the timeouts worker's
	// re-broadcasts); Engine.Run waits for it after every part has stopped.
	wg sync.WaitGroup

	mu sync.Mutex
	// parked holds the jobs whose preparation the node kept failing, until they are queued
	// again (park).
	parked map[domain.JobID]parkedJob
}

type txQueue struct {
	mu    sync.Mutex
	items []txItem
	head  int
	// known holds the jobs queued or being started, each with the token of its entry: a job
	// sent back to the queue while its start is still winding down gets a new token, so the
	// old start's done does not forget it.
	known map[domain.JobID]uint64
	token uint64
	wake  chan struct{}
	rate  rateWindow
}

type txItem struct {
	id      domain.JobID
	enabled time.Time
	cause   string // the global position of the event that enabled the step (MetaCausationID)
	corr    string // the job's correlation id, from the message that queued it (MetaCorrelationID)
	token   uint64
	// state is the job as the enabling event left it, when the enqueuer had it (it saves a
	// read of the stream; a stale one only costs a failed append and a read).
	state domain.State
}

func newTxWorker(e *Engine) *txWorker {
	w := &txWorker{e: e}
	for _, k := range domain.Kinds() {
		if k.Family() == k { // a kind outside its own family waits in its family's queue
			w.kinds[k.Ordinal()] = &txQueue{known: map[domain.JobID]uint64{}, wake: make(chan struct{}, 1)}
		}
	}
	return w
}

func (w *txWorker) queue(k domain.Kind) *txQueue { return w.kinds[k.Family().Ordinal()] }

// enqueue adds a job in processing at the back of its kind's queue, once.
func (w *txWorker) enqueue(k domain.Kind, id domain.JobID, enabled time.Time, cause string) {
	w.add(k, txItem{id: id, enabled: enabled, cause: cause}, false)
}

// add queues it; again queues it even when the job is known (its start is winding down and it
// must be started once more).
func (w *txWorker) add(k domain.Kind, it txItem, again bool) {
	q := w.queue(k)
	q.mu.Lock()
	if _, known := q.known[it.id]; !known || again {
		q.token++
		it.token = q.token
		q.known[it.id] = it.token
		q.items = append(q.items, it)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *txQueue) pop() (txItem, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
		return txItem{}, false
	}
	it := q.items[q.head]
	q.items[q.head] = txItem{}
	q.head++
	if q.head > 1024 && q.head > len(q.items)/2 {
		q.items, q.head = append([]txItem(nil), q.items[q.head:]...), 0
	}
	return it, true
}

// done forgets it, unless the job was queued again meanwhile.
func (q *txQueue) done(it txItem) {
	q.mu.Lock()
	if q.known[it.id] == it.token {
		delete(q.known, it.id)
	}
	q.mu.Unlock()
}

func (q *txQueue) waiting() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) - q.head
}

// tps is kind k's D, or this shard's share of it.
func (w *txWorker) tps(k domain.Kind) float64 {
	c := w.e.tuning()
	d := c.InputProofTPS
	switch k.Family() {
	case domain.UserDecrypt:
		d = c.UserDecryptTPS
	case domain.PublicDecrypt:
		d = c.PublicDecryptTPS
	}
	return w.e.shard.rate(d)
}

// run starts kind k's jobs at its rate until ctx ends, then waits for the sends in progress.
func (w *txWorker) run(ctx context.Context, k domain.Kind) error {
	q := w.queue(k)
	for ctx.Err() == nil {
		it, ok := q.pop()
		if !ok {
			select {
			case <-ctx.Done():
			case <-q.wake:
			}
			continue
		}
		limited := time.Now()
		at, ok := q.rate.take(ctx, func() float64 { return w.tps(k) })
		if !ok || ctx.Err() != nil {
			return nil
		}
		wait := at.Sub(limited)
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			defer q.done(it)
			w.start(ctx, k, it, at, wait)
		}()
	}
	return nil
}

// start prepares, records and broadcasts job it's transaction. at is the start the rate
// window granted: TransactionSigned carries it as StartedAt, so that the rate measured from the
// log is the rate the window kept, and the signing's own time as At.
func (w *txWorker) start(ctx context.Context, k domain.Kind, it txItem, at time.Time, limited time.Duration) {
	e := w.e
	s := it.state
	if s.Status != domain.Processing {
		var err error
		if s, err = e.exec.Load(ctx, it.id); err != nil {
			e.log.Warn("tx: load job; trying again later", "job_id", it.id, "correlation_id", it.corr, "err", err)
			go w.requeueLater(ctx, k, it)
			return
		}
		if s.Status != domain.Processing {
			return
		}
	}
	if !e.gw.Health().Reachable {
		// The chain is in an outage: the job waits for it, without calls that would fail.
		w.park(ctx, k, it, s, errChainDown)
		return
	}
	if e.balance.isPaused() {
		// The key's balance is below the floor: nothing new is sent with it until it is topped
		// up (the guard then wakes the parked jobs).
		w.park(ctx, k, it, s, e.balance.pausedError())
		return
	}
	var err error
	var p *gateway.Prepared
	var chain, waited time.Duration
	for attempt := 1; ; attempt++ {
		t := time.Now()
		p, err = e.gw.Prepare(ctx, s.Request)
		chain += time.Since(t)
		if err == nil {
			e.balance.observe(p)
			break
		}
		if ctx.Err() != nil {
			return
		}
		if gateway.Retryable(err) && attempt < e.cfg.TxAttempts {
			e.logChain("tx: prepare failed; trying again", "job_id", it.id, "correlation_id", s.CorrelationID, "attempt", attempt, "err", err)
			t := time.Now()
			if !sleepCtx(ctx, w.backoff().Delay(attempt, nil)) {
				return
			}
			waited += time.Since(t)
			continue
		}
		if gateway.Retryable(err) {
			// Nothing was signed and the failure is the node's (unreachable, overloaded, rate
			// limited): the job waits, it does not fail. It goes back to its queue on the
			// long-tail schedule, or at once when the chain is seen again.
			w.park(ctx, k, it, s, err)
			return
		}
		if errors.Is(err, gateway.ErrPaused) {
			// The gateway is paused: a pause passes, and nothing was signed. The job waits for
			// it on the long-tail schedule, and fails with protocol_paused only if it is still
			// paused at the job's processing deadline.
			w.park(ctx, k, it, s, err)
			return
		}
		w.fail(ctx, it.id, it.cause, s, err, attempt)
		return
	}
	out, ok, err := e.executeOn(ctx, it.id, s, domain.SignTransaction{
		At: domain.At{At: e.now()}, StartedAt: at, From: p.From.Hex(), Nonce: p.Nonce, TxHash: p.Hash.Hex(), RawTx: "0x" + hex.EncodeToString(p.Raw),
	}, it.cause)
	if errors.Is(err, lease.ErrDeposed) {
		// The engine lease was lost: this process sends nothing more, and its nonce is not its
		// to give back (the Leader drops the sequence; the next holder adopts the log's).
		return
	}
	if err != nil || !ok {
		e.gw.Release(p) // never broadcast: its nonce goes back
		if err != nil {
			e.log.Warn("tx: record the signed transaction; trying again later", "job_id", it.id, "correlation_id", s.CorrelationID, "err", err)
			go w.requeueLater(ctx, k, it)
		}
		return
	}
	e.metrics.started(s.Kind)
	if !it.enabled.IsZero() {
		e.metrics.overhead(stepTxSign, time.Since(it.enabled), chain+waited+limited)
	}
	w.broadcast(ctx, k, it.id, p, time.Now(), it.cause, out.State)
}

// broadcast sends p, the recorded transaction of job id, with package sender (the same bytes
// again on passing failures, a replacement with higher fees when they stall, the earlier
// transaction of the nonce adopted when it was the one mined), and records what became of it:
// its receipt, a failure, or (nonce taken by another transaction) that it will never be mined.
// A transaction still pending when the attempts are spent stays in tx_in_flight, and the
// timeouts worker sends it again at its deadline.
func (w *txWorker) broadcast(ctx context.Context, k domain.Kind, id domain.JobID, p *gateway.Prepared, signedAt time.Time, cause string, s domain.State) {
	e := w.e
	j := &txJournal{w: w, id: id, cause: cause, s: s}
	r := sender.Send(ctx, e.gw, j, p, sender.Config{
		Attempts: e.cfg.TxAttempts, Backoff: w.backoff(), Releasable: !signedAt.IsZero(), Log: e.log, Job: id.String(), Correlation: s.CorrelationID,
	})
	s = j.s
	switch r.Outcome {
	case sender.Mined:
		if r.Receipt.NoOp {
			// The cancel's no-op took the nonce: no gateway request was made.
			if w.retry(ctx, id, cause, s, domain.ConfirmCancel{At: domain.At{At: e.now()}, TxHash: r.Receipt.TxHash.Hex(), BlockNumber: r.Receipt.BlockNumber}) {
				e.log.Info("tx: the cancel's no-op was mined; the job is cancelled", "job_id", id, "correlation_id", s.CorrelationID, "tx", r.Receipt.TxHash, "block", r.Receipt.BlockNumber)
			}
			return
		}
		w.recordReceipt(ctx, k, id, r.Receipt, cause, s, signedAt, r.Chain+r.Waited)
	case sender.Failed:
		if r.Released && errors.Is(r.Err, gateway.ErrInsufficientFunds) && e.balance.checkNow(ctx) {
			// The node refused the bytes for funds and holds nothing of them (their nonce was
			// given back), and the guard, reading the balance now, paused the key: the job waits
			// for the top-up as its key's other jobs do, rather than fail.
			if w.retry(ctx, id, cause, s, domain.ResetTransaction{At: domain.At{At: e.now()},
				Reason: fmt.Sprintf("the node refused %s for funds (%v) and the signing key is paused until it is topped up", r.Tx.Hash.Hex(), r.Err)}) {
				w.add(k, txItem{id: id, enabled: time.Now(), cause: cause, corr: s.CorrelationID}, true)
			}
			return
		}
		w.fail(ctx, id, cause, s, r.Err, r.Attempts)
	case sender.NonceTaken:
		if w.retry(ctx, id, cause, s, domain.ResetTransaction{At: domain.At{At: e.now()}, Reason: fmt.Sprintf("nonce %d taken by another transaction; %s can never be mined", r.Tx.Nonce, r.Tx.Hash.Hex())}) {
			// Queued again here: the dispatched TransactionReset may find the job still known
			// while this start winds down.
			w.add(k, txItem{id: id, enabled: time.Now(), cause: cause, corr: s.CorrelationID}, true)
		}
	case sender.Pending:
		if r.Err != nil && !j.Settled(r.Tx) {
			e.log.Warn("tx: no receipt yet; the timeouts worker sends it again at its deadline", "job_id", id, "correlation_id", s.CorrelationID, "tx", r.Tx.Hash, "err", r.Err)
		}
	}
}

// txJournal is a job's history as package sender needs it: a replacement is recorded
// (TransactionReplaced) before the sender broadcasts it, and s follows what was recorded.
type txJournal struct {
	w     *txWorker
	id    domain.JobID
	cause string
	s     domain.State
}

func (j *txJournal) Replace(ctx context.Context, p, np *gateway.Prepared, why error) bool {
	e := j.w.e
	out, ok, err := e.executeOn(ctx, j.id, j.s, domain.ReplaceTransaction{
		At: domain.At{At: e.now()}, Replaces: p.Hash.Hex(), TxHash: np.Hash.Hex(), RawTx: "0x" + hex.EncodeToString(np.Raw),
		GasFeeCap: np.GasFeeCap.String(), GasTipCap: np.GasTipCap.String(), Cancel: np.NoOp,
	}, j.cause)
	if err != nil || !ok {
		if err != nil {
			e.log.Warn("tx: record a replacement; waiting on the transaction as it is", "job_id", j.id, "correlation_id", j.s.CorrelationID, "tx", p.Hash, "err", err)
		}
		return false
	}
	j.s = out.State
	e.log.Info("tx: replaced a stalled transaction with higher fees", "job_id", j.id, "correlation_id", j.s.CorrelationID, "nonce", p.Nonce, "tx", np.Hash, "replaces", p.Hash,
		"max_fee_per_gas", np.GasFeeCap, "max_priority_fee_per_gas", np.GasTipCap, "why", why)
	return true
}

func (j *txJournal) Earlier() []common.Hash {
	sent := j.s.Sent()
	if len(sent) < 2 {
		return nil
	}
	out := make([]common.Hash, 0, len(sent)-1)
	for _, t := range sent[1:] {
		out = append(out, common.HexToHash(t.TxHash))
	}
	return out
}

func (j *txJournal) Settled(p *gateway.Prepared) bool {
	v, ok := j.w.e.set.Job(j.id)
	if ok && v.Status != domain.Queued && v.Status != domain.Processing {
		return v.Status != domain.TxInFlight || v.TxHash != p.Hash.Hex()
	}
	// The read models may not have applied the signing yet (or the job was reset since): the
	// log decides. A log that cannot be read says nothing: not settled.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := j.w.e.exec.Load(ctx, j.id)
	return err == nil && (s.Status != domain.TxInFlight || s.TxHash != p.Hash.Hex())
}

// backoff is the wait between two attempts of a start or a broadcast: TxRetryDelay doubling up
// to txRetryMax, fully jittered (docs/RETRIES.md).
func (w *txWorker) backoff() upstream.Backoff {
	return upstream.Backoff{Base: w.e.cfg.TxRetryDelay, Max: txRetryMax}
}

// txRetryMax caps the wait between two attempts of a start or a broadcast.
const txRetryMax = 10 * time.Second

// recordReceipt records a mined request's receipt and tells the responses worker which job
// the gateway request id belongs to. It reports whether this call recorded it.
func (w *txWorker) recordReceipt(ctx context.Context, k domain.Kind, id domain.JobID, rec *gateway.Receipt, cause string, s domain.State, signedAt time.Time, excluded time.Duration) bool {
	e := w.e
	reqID := rec.RequestID.String()
	out, ok := e.record(ctx, id, s, domain.RecordReceipt{At: domain.At{At: e.now()}, TxHash: rec.TxHash.Hex(), BlockNumber: rec.BlockNumber, GatewayRequestID: reqID},
		cause, e.cfg.TxRetryDelay)
	if ok && !signedAt.IsZero() {
		// Measured before the early responses are applied: those are the response step's.
		e.metrics.overhead(stepTxReceipt, time.Since(signedAt), excluded)
	}
	if ok {
		e.metrics.cost(k, rec)
		e.balance.poke()
		if err := e.responses.register(ctx, k, reqID, id, out.State); err != nil {
			e.log.Warn("tx: apply early responses", "job_id", id, "correlation_id", s.CorrelationID, "err", err)
		}
	}
	return ok
}

// fail ends job id on a transaction error, with the label the API maps.
func (w *txWorker) fail(ctx context.Context, id domain.JobID, cause string, s domain.State, err error, attempts int) {
	label := domain.LabelTransactionFailed
	switch {
	case errors.Is(err, gateway.ErrPaused):
		label = domain.LabelProtocolPaused
	case errors.Is(err, gateway.ErrReverted):
		label = domain.LabelTransactionReverted
	case errors.Is(err, gateway.ErrInsufficientFunds):
		label = domain.LabelInsufficientBalance
		w.e.balance.poke() // the guard pauses the key before the next job meets the same refusal
	}
	msg := err.Error()
	if gateway.Retryable(err) {
		msg = fmt.Sprintf("gave up after %d attempts: %s", attempts, msg)
	}
	w.retry(ctx, id, cause, s, domain.FailTransaction{At: domain.At{At: w.e.now()}, Label: label, Message: msg})
}

// retry records cmd until it is recorded, no longer applies, or ctx ends; true when recorded.
func (w *txWorker) retry(ctx context.Context, id domain.JobID, cause string, s domain.State, cmd domain.Command) bool {
	_, ok := w.e.record(ctx, id, s, cmd, cause, w.e.cfg.TxRetryDelay)
	return ok
}

// park puts job it (in state s) aside after its preparation failed on the node TxAttempts times
// in a row, or at once during an outage: it is queued again after the long-tail schedule's next
// delay (upstream.Schedule, from 5 s, capped at parkMax, jittered: a parked job is woken early
// when the chain is seen again, see unpark), so that an outage is waited out and a job is never
// failed because the chain could not be reached. Each park is recorded in the job's history
// (RetryScheduled: the attempt, the reason, when it is tried again), and the job's Retry-After
// follows it; the attempt count is the history's, so it survives restarts and hand-overs.
func (w *txWorker) park(ctx context.Context, k domain.Kind, it txItem, s domain.State, err error) {
	e := w.e
	attempt := s.Retries + 1
	d := upstream.Schedule{Cap: parkMax}.Next(attempt, nil)
	until := time.Now().Add(d)
	label := domain.LabelGatewayNotReachable
	switch {
	case errors.Is(err, gateway.ErrPaused):
		label = domain.LabelProtocolPaused
	case errors.Is(err, gateway.ErrSigner):
		label = domain.LabelSignerUnavailable
	case isSignerPaused(err):
		label = domain.LabelInsufficientBalance
	}
	if _, ok, rerr := e.executeOn(ctx, it.id, s, domain.ScheduleRetry{
		At: domain.At{At: e.now()}, Step: "prepare", Attempt: attempt, Reason: err.Error(), NextAt: e.now().Add(d), Label: label,
	}, it.cause); rerr != nil || !ok {
		if rerr != nil {
			// Not recorded: the job still waits, it only goes without its history's line.
			e.log.Warn("tx: record a scheduled retry", "job_id", it.id, "correlation_id", s.CorrelationID, "err", rerr)
		} else {
			return // the job moved on meanwhile
		}
	}
	w.mu.Lock()
	if w.parked == nil {
		w.parked = map[domain.JobID]parkedJob{}
	}
	w.parked[it.id] = parkedJob{kind: k, item: txItem{id: it.id, cause: it.cause, corr: it.corr}, until: until}
	n := len(w.parked)
	w.mu.Unlock()
	what := "tx: the node cannot prepare the transaction; the job waits and is tried again"
	switch {
	case label == domain.LabelSignerUnavailable:
		what = "tx: the signer cannot sign the transaction; the job waits and is tried again"
	case isSignerPaused(err):
		// The guard logged the pause once: a line per job and per wait would flood the log.
		e.log.Debug("tx: the signing key is paused for its balance; the job waits", "job_id", it.id, "correlation_id", s.CorrelationID, "retry", attempt, "in", d.Round(time.Millisecond), "parked", n)
		what = ""
	}
	if what != "" {
		e.logChain(what, "job_id", it.id, "correlation_id", s.CorrelationID, "retry", attempt, "in", d.Round(time.Millisecond), "parked", n, "err", err)
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		if sleepCtx(ctx, d) {
			w.unparkOne(it.id, until)
		}
	}()
}

// parkMax caps a parked job's wait: the schedule's later delays (minutes to hours) are for jobs
// that fail alone; a whole chain's outage ends with unpark.
const parkMax = 30 * time.Second

// parkedJob is a job park put aside: its queue, its item, and until when.
type parkedJob struct {
	kind  domain.Kind
	item  txItem
	until time.Time
}

// unparkOne queues parked job id again if it is still parked until until (not woken meanwhile).
func (w *txWorker) unparkOne(id domain.JobID, until time.Time) {
	w.mu.Lock()
	p, ok := w.parked[id]
	if ok && p.until.Equal(until) {
		delete(w.parked, id)
	}
	w.mu.Unlock()
	if ok && p.until.Equal(until) {
		w.add(p.kind, txItem{id: id, enabled: time.Now(), cause: p.item.cause, corr: p.item.corr}, true)
	}
}

// unpark queues every parked job again at once: the chain is seen again.
func (w *txWorker) unpark() {
	w.mu.Lock()
	jobs := w.parked
	w.parked = nil
	w.mu.Unlock()
	for id, p := range jobs {
		w.add(p.kind, txItem{id: id, enabled: time.Now(), cause: p.item.cause, corr: p.item.corr}, true)
	}
}

// requeueLater queues it again after a jittered TxRetryDelay: the log could not be read or
// written, and the job is taken up again rather than lost.
func (w *txWorker) requeueLater(ctx context.Context, k domain.Kind, it txItem) {
	if sleepCtx(ctx, upstream.Backoff{Base: w.e.cfg.TxRetryDelay, Jitter: upstream.EqualJitter}.Delay(1, nil)) {
		w.add(k, txItem{id: it.id, cause: it.cause, corr: it.corr}, true)
	}
}

// resume takes up a job recovery found in tx_in_flight: the recorded bytes are looked up and,
// unless mined, sent again (the same transaction, never a second one). A cancel asked for and
// not yet carried out (no no-op recorded: the crash came between) is carried out first.
func (w *txWorker) resume(ctx context.Context, k domain.Kind, id domain.JobID, s domain.State, cause string) error {
	e := w.e
	raw, err := decodeRawTx(s.RawTx)
	if err != nil {
		return err
	}
	p, err := e.gw.DecodePrepared(raw)
	if err != nil {
		return err
	}
	if s.Cancelling != nil && s.CancelTx == "" {
		w.cancel(ctx, k, id, s, p, cause)
		return nil
	}
	w.broadcast(ctx, k, id, p, time.Time{}, cause, s)
	return nil
}

// cancelRequested carries out an operator's cancel of job id in tx_in_flight (CancelRequested),
// unless it was carried out already.
func (w *txWorker) cancelRequested(ctx context.Context, id domain.JobID, cause string) {
	e := w.e
	// A fee bump recorded between the load and the no-op's record makes the record fail (it
	// replaces a transaction that is no longer the latest): load again. No bump comes after the
	// cancel (the domain refuses it), so a second try finds the latest.
	for range 3 {
		s, err := e.exec.Load(ctx, id)
		if err != nil {
			e.log.Warn("tx: load a job to cancel; recovery or its deadline takes it up", "job_id", id, "correlation_id", e.correlationOf(ctx, id), "err", err)
			return
		}
		if s.Status != domain.TxInFlight || s.Cancelling == nil || s.CancelTx != "" {
			return // settled meanwhile, or its no-op is recorded (and sent by whoever recorded it)
		}
		raw, err := decodeRawTx(s.RawTx)
		if err != nil {
			e.log.Error("tx: the recorded transaction of a job to cancel cannot be decoded", "job_id", id, "correlation_id", s.CorrelationID, "err", err)
			return
		}
		p, err := e.gw.DecodePrepared(raw)
		if err != nil {
			e.log.Error("tx: the recorded transaction of a job to cancel cannot be decoded", "job_id", id, "correlation_id", s.CorrelationID, "err", err)
			return
		}
		if w.cancel(ctx, s.Kind, id, s, p, cause) {
			return
		}
	}
}

// cancel races p, job id's latest transaction, with a no-op at its nonce: the no-op is signed
// (gateway.CancelReplacement), recorded (TransactionReplaced with Cancel) and only then sent, as
// any of the job's transactions (broadcast). Whichever is mined decides: the no-op ends the job
// cancelled (ConfirmCancel), the job's own transaction gets its receipt recorded as usual. When
// no no-op can be signed (fees at their cap, the signer failing), p is sent on as it is. It
// reports false when the no-op could not be recorded because the job's state moved on.
func (w *txWorker) cancel(ctx context.Context, k domain.Kind, id domain.JobID, s domain.State, p *gateway.Prepared, cause string) bool {
	e := w.e
	var np *gateway.Prepared
	var err error
	for attempt := 1; ; attempt++ {
		if np, err = e.gw.CancelReplacement(ctx, p); err == nil {
			break
		}
		if ctx.Err() != nil {
			return true
		}
		if !gateway.Retryable(err) || attempt >= e.cfg.TxAttempts {
			e.log.Warn("tx: cannot sign the no-op of a cancel; the job's transaction goes on", "job_id", id, "correlation_id", s.CorrelationID, "tx", p.Hash, "err", err)
			w.broadcast(ctx, k, id, p, time.Time{}, cause, s)
			return true
		}
		if !sleepCtx(ctx, w.backoff().Delay(attempt, nil)) {
			return true
		}
	}
	out, ok, err := e.executeOn(ctx, id, s, domain.ReplaceTransaction{
		At: domain.At{At: e.now()}, Replaces: p.Hash.Hex(), TxHash: np.Hash.Hex(), RawTx: "0x" + hex.EncodeToString(np.Raw),
		GasFeeCap: np.GasFeeCap.String(), GasTipCap: np.GasTipCap.String(), Cancel: true,
	}, cause)
	if err != nil {
		e.log.Warn("tx: record the no-op of a cancel; recovery or the job's deadline takes it up", "job_id", id, "correlation_id", s.CorrelationID, "err", err)
		return true
	}
	if !ok {
		return false // the job moved on: mined, a no-op recorded by another, or a fee bump just before
	}
	e.log.Info("tx: a cancel's no-op races the job's transaction at its nonce", "job_id", id, "correlation_id", s.CorrelationID, "nonce", p.Nonce, "tx", np.Hash, "replaces", p.Hash,
		"who", s.Cancelling.Who)
	w.broadcast(ctx, k, id, np, time.Time{}, cause, out.State)
	return true
}

// retryNow queues job id again at once if it is parked here (an operator's retry).
func (w *txWorker) retryNow(id domain.JobID) bool {
	w.mu.Lock()
	p, ok := w.parked[id]
	if ok {
		delete(w.parked, id)
	}
	w.mu.Unlock()
	if ok {
		w.add(p.kind, txItem{id: id, enabled: time.Now(), cause: p.item.cause, corr: p.item.corr}, true)
	}
	return ok
}

// rateWindow keeps at most D starts in any window of one second (for D below 1, one start in
// any window of 1/D seconds): it remembers the times of the last starts and grants the next
// one when the oldest that counts has left the window. It is exact, unlike a token bucket,
// whose burst lets up to 2D starts into one second.
type rateWindow struct {
	starts []time.Time // the last starts, oldest first; at most n of them
}

// take waits until a start is allowed at the rate rate gives, read again at every check (a
// change of D, lowered or raised, applies to a start already waiting), and returns its time;
// false when ctx ended.
func (r *rateWindow) take(ctx context.Context, rate func() float64) (time.Time, bool) {
	for {
		n, span := windowOf(rate())
		if len(r.starts) > n { // D was lowered: only the newest n count
			r.starts = append(r.starts[:0], r.starts[len(r.starts)-n:]...)
		}
		now := time.Now()
		if len(r.starts) < n {
			r.starts = append(r.starts, now)
			return now, true
		}
		if wait := r.starts[0].Add(span).Sub(now); wait > 0 {
			if !sleepCtx(ctx, min(wait, 100*time.Millisecond)) { // D may change meanwhile
				return time.Time{}, false
			}
			continue
		}
		copy(r.starts, r.starts[1:])
		r.starts[n-1] = now
		return now, true
	}
}

// windowOf turns a rate into "n starts per span".
func windowOf(d float64) (int, time.Duration) {
	if !(d > 0) || math.IsInf(d, 0) {
		d = 1
	}
	if d >= 1 {
		return int(math.Min(math.Floor(d), 1e6)), time.Second
	}
	return 1, time.Duration(float64(time.Second) / d)
}

// decodeRawTx reads TransactionSigned.RawTx: 0x-prefixed hex (records without the prefix are
// read too).
func decodeRawTx(s string) ([]byte, error) {
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		return nil, fmt.Errorf("raw transaction: %w", err)
	}
	return b, nil
}
