package workers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"relayer/domain"
	"relayer/workers/gateway"
	"relayer/workers/upstream"
)

// readinessWorker checks decrypts before their transaction: the host ACL, then the gateway's
// readiness view, polled every ReadinessPollInterval until ready or the readiness deadline. At
// most C checks run at once (C = readiness_max_concurrency, read whenever a check ends, so a
// change through the admin API applies without restart). Jobs are taken strictly in the order
// they arrived, which is the order of acceptance, the readiness queue's order in the
// projections: the position the API shows is the real one.
//
// A check holds its slot until its job has left queued (passed, failed or timed out) in the
// log, so that the checks in progress, measured from the events, never exceed C.
type readinessWorker struct {
	e *Engine

	mu     sync.Mutex
	queue  []readinessItem
	head   int
	known  map[domain.JobID]bool // queued here or being checked
	active int
	wake   chan struct{}
	// back is closed (and replaced) when the chain is seen again after an outage: the checks
	// waiting out a failure of the gateway ask again at once.
	back chan struct{}
	// nudges holds, per job whose check waits in pause, the channel nudge closes: an operator's
	// retry asks again at once.
	nudges map[domain.JobID]chan struct{}
}

// nudge wakes job id's check if it waits before asking again (an operator's retry).
func (w *readinessWorker) nudge(id domain.JobID) {
	w.mu.Lock()
	if c, ok := w.nudges[id]; ok {
		close(c)
		delete(w.nudges, id)
	}
	w.mu.Unlock()
}

// nudgeSignal is the channel nudge(id) closes; done forgets it.
func (w *readinessWorker) nudgeSignal(id domain.JobID) (c <-chan struct{}, done func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.nudges == nil {
		w.nudges = map[domain.JobID]chan struct{}{}
	}
	ch, ok := w.nudges[id]
	if !ok {
		ch = make(chan struct{})
		w.nudges[id] = ch
	}
	return ch, func() {
		w.mu.Lock()
		if w.nudges[id] == ch {
			delete(w.nudges, id)
		}
		w.mu.Unlock()
	}
}

// chainBack wakes every check that waits after a failure of the gateway: the chain answers
// again.
func (w *readinessWorker) chainBack() {
	w.mu.Lock()
	if w.back != nil {
		close(w.back)
	}
	w.back = make(chan struct{})
	w.mu.Unlock()
}

// backSignal is the channel chainBack closes next.
func (w *readinessWorker) backSignal() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.back == nil {
		w.back = make(chan struct{})
	}
	return w.back
}

type readinessItem struct {
	id domain.JobID
	// enabled is when the event that queued the job was committed (zero after recovery), and
	// cause the event's global position (what the check's events are caused by).
	enabled time.Time
	cause   string
	// corr is the job's correlation id, from the message that queued it (empty after recovery).
	corr string
	// state is the job as its acceptance left it, from the message that queued it: begin decides
	// on it without reading the stream (a job that has moved on since fails the append on its
	// version, and is decided again on the stream). Zero after recovery and after a requeue:
	// begin reads the stream.
	state domain.State
}

func newReadinessWorker(e *Engine) *readinessWorker {
	return &readinessWorker{e: e, known: map[domain.JobID]bool{}, wake: make(chan struct{}, 1)}
}

// enqueue adds a queued decrypt at the back, once.
func (w *readinessWorker) enqueue(it readinessItem) {
	w.mu.Lock()
	if !w.known[it.id] {
		w.known[it.id] = true
		w.queue = append(w.queue, it)
	}
	w.mu.Unlock()
	w.signal()
}

func (w *readinessWorker) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *readinessWorker) limit() int {
	return w.e.shard.concurrency(w.e.tuning().ReadinessMaxConcurrency)
}

// inProgress is how many checks run now.
func (w *readinessWorker) inProgress() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.active
}

// waiting is how many jobs wait for a slot.
func (w *readinessWorker) waiting() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.queue) - w.head
}

// run starts checks while slots are free, until ctx ends.
func (w *readinessWorker) run(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	tick := time.NewTicker(250 * time.Millisecond) // C may have been raised
	defer tick.Stop()
	for {
		w.mu.Lock()
		if w.head < len(w.queue) && w.active < w.limit() {
			it := w.queue[w.head]
			w.queue[w.head] = readinessItem{}
			w.head++
			w.active++
			w.mu.Unlock()
			// The start is recorded here, one job after the other, so that the log (and the
			// queue positions the API shows) has the jobs in the order they were picked; the
			// checks themselves run side by side.
			s, ok, requeued := w.begin(ctx, it)
			if !ok {
				w.mu.Lock()
				w.active--
				if !requeued {
					delete(w.known, it.id)
				}
				w.mu.Unlock()
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer w.release(it.id)
				w.check(ctx, it, s)
			}()
			continue
		}
		if w.head == len(w.queue) {
			w.queue, w.head = w.queue[:0], 0
		} else if w.head > 1024 && w.head > len(w.queue)/2 {
			w.queue, w.head = append([]readinessItem(nil), w.queue[w.head:]...), 0
		}
		w.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil
		case <-w.wake:
		case <-tick.C:
		}
	}
}

// release frees a check's slot.
func (w *readinessWorker) release(id domain.JobID) {
	w.mu.Lock()
	w.active--
	delete(w.known, id)
	w.mu.Unlock()
	w.signal()
}

// begin records that job it was picked up (ReadinessCheckStarted) and returns the job; false when
// there is nothing to check (the job moved on, or the log could not be read or written: the job
// then goes back to the front of the queue, and requeued is true). A job whose check had started
// before a restart or a takeover records a start again when its check resumes here, so that the
// log says when each check ran: C holds over the starts and ends the log records.
func (w *readinessWorker) begin(ctx context.Context, it readinessItem) (s domain.State, ok, requeued bool) {
	e := w.e
	id := it.id
	s, err := it.state, error(nil)
	if s.Status.IsZero() {
		s, err = e.exec.Load(ctx, id)
	}
	if err != nil && ctx.Err() != nil {
		return s, false, true // the engine stops: recovery takes the job up again
	}
	if err != nil {
		e.log.Warn("readiness: load job", "job_id", id, "correlation_id", it.corr, "err", err)
		w.requeueLater(ctx, it)
		return s, false, true
	}
	if s.Status != domain.Queued {
		return s, false, false
	}
	out, ok, err := e.executeOn(ctx, id, s, domain.StartReadiness{At: domain.At{At: e.now()}}, it.cause)
	if err != nil {
		e.log.Warn("readiness: record the start", "job_id", id, "correlation_id", s.CorrelationID, "err", err)
		w.requeueLater(ctx, it)
		return s, false, true
	}
	if ok && !it.enabled.IsZero() {
		e.metrics.overhead(stepReadinessStart, time.Since(it.enabled), 0)
	}
	return out.State, ok, false
}

// check runs one job's readiness to its end: passed, failed, timed out, or the job moved on
// without it. It returns early only when ctx ends (recovery takes the job up again).
func (w *readinessWorker) check(ctx context.Context, it readinessItem, s domain.State) {
	e := w.e
	id := it.id
	cause := it.cause
	started := time.Now()
	var chain, waited time.Duration
	failures := 0 // the gateway's passing failures in a row
	call := func(f func(context.Context) (bool, error)) (bool, error) {
		t := time.Now()
		ok, err := f(ctx)
		chain += time.Since(t)
		return ok, err
	}

	// The host ACL, once (answers do not change while the job waits); transient errors are
	// asked again at the poll interval.
	for {
		denied, err := w.acl(s.Request, call)
		if err == nil {
			if denied != "" {
				w.finish(ctx, id, s, domain.FailReadiness{At: domain.At{At: e.now()}, Label: domain.LabelNotAllowedOnHostACL, Message: denied}, cause)
				return
			}
			break
		}
		if !w.pause(ctx, id, s, cause, err, domain.LabelHostACLFailed, &failures, &waited) {
			return
		}
	}
	for {
		ready, err := call(func(ctx context.Context) (bool, error) { return w.ready(ctx, s.Request) })
		if err == nil && ready {
			if w.finish(ctx, id, s, domain.PassReadiness{At: domain.At{At: e.now()}}, cause) {
				e.metrics.overhead(stepReadinessPass, time.Since(started), chain+waited)
			}
			return
		}
		if err == nil {
			err = errNotReady
		}
		if !w.pause(ctx, id, s, cause, err, domain.LabelReadinessCheckFailed, &failures, &waited) {
			return
		}
	}
}

var errNotReady = errors.New("not ready yet")

// readinessRetryMax caps the wait before a readiness question the gateway failed to answer is
// asked again.
const readinessRetryMax = 30 * time.Second

// pause waits before the next question, unless the job is over: it returns false when the
// check must stop (ctx ended, the job left queued, its deadline passed and the timeout is
// recorded, or the gateway refused the question for good). An answer "not ready" is asked again
// after a poll interval. A passing failure of the gateway (unreachable, overloaded, rate
// limited: failures counts them in a row) is asked again after a jittered backoff from the
// poll interval up to readinessRetryMax, recorded in the job's history (RetryScheduled, step
// "readiness"), which its Retry-After follows. The deadline is read again each time, and does
// not pass while the chain cannot be read (applyOutage). A refusal for good fails the job with
// failLabel (host_acl_failed for the ACL's questions, readiness_check_failed for the gateway's).
func (w *readinessWorker) pause(ctx context.Context, id domain.JobID, s domain.State, cause string, err error, failLabel string, failures *int, waited *time.Duration) bool {
	e := w.e
	if ctx.Err() != nil {
		return false // the engine stops (its answer was cut short, not the gateway's failure)
	}
	if !errors.Is(err, errNotReady) && !gateway.Retryable(err) {
		w.finish(ctx, id, s, domain.FailReadiness{At: domain.At{At: e.now()}, Label: failLabel, Message: err.Error()}, cause)
		return false
	}
	wait := e.cfg.ReadinessPollInterval
	if errors.Is(err, errNotReady) {
		*failures = 0
	} else {
		*failures++
		wait = upstream.Backoff{Base: wait, Max: max(wait, readinessRetryMax)}.Delay(*failures, nil)
		e.logChain("readiness: gateway unavailable; asking again", "job_id", id, "correlation_id", s.CorrelationID, "retry", *failures, "in", wait.Round(time.Millisecond), "err", err)
		if _, _, rerr := e.executeOn(ctx, id, s, domain.ScheduleRetry{
			At: domain.At{At: e.now()}, Step: "readiness", Attempt: *failures, Reason: err.Error(), NextAt: e.now().Add(wait),
		}, cause); rerr != nil {
			e.log.Warn("readiness: record a scheduled retry", "job_id", id, "correlation_id", s.CorrelationID, "err", rerr)
		}
	}
	// Read at every pause: it moves later by the length of a chain outage the job waited through.
	if deadline := w.deadline(id); !deadline.IsZero() {
		left := time.Until(deadline)
		_, outage := e.set.ChainOutage()
		if left <= 0 && !outage && e.gw.Health().Reachable {
			w.finish(ctx, id, s, domain.TimeOutReadiness{At: domain.At{At: e.now()}}, cause)
			return false
		}
		if left > 0 {
			wait = min(wait, left)
		}
	}
	t := time.Now()
	back := w.backSignal()
	nudged, forget := w.nudgeSignal(id)
	defer forget()
	timer := time.NewTimer(wait)
	select {
	case <-ctx.Done():
		timer.Stop()
		return false
	case <-timer.C:
	case <-back:
		timer.Stop()
	case <-nudged:
		timer.Stop()
	}
	*waited += time.Since(t)
	if j, ok := e.set.Job(id); ok && j.Status != domain.Queued {
		return false // timed out or ended by someone else
	}
	return true
}

// finish records the check's outcome. The slot is held until the job has left queued, so the
// outcome is tried until it is recorded or no longer applies (or ctx ends). It reports whether
// this call recorded it.
func (w *readinessWorker) finish(ctx context.Context, id domain.JobID, s domain.State, cmd domain.Command, cause string) bool {
	out, ok := w.e.record(ctx, id, s, cmd, cause, w.e.cfg.ReadinessPollInterval)
	if ok && out.State.Status == domain.Processing {
		w.e.passed.Store(id, passedJob{state: out.State, at: time.Now()})
	}
	return ok
}

// requeueLater puts a job whose start could not be recorded (the log unreadable) back at the
// front of the queue after a pause, so the order of picks stays the order of arrival. Its slot
// is released meanwhile; it stays known, so a re-delivery does not queue it twice.
func (w *readinessWorker) requeueLater(ctx context.Context, it readinessItem) {
	it.state = domain.State{} // the next try reads the stream
	w.mu.Lock()
	w.known[it.id] = true
	w.mu.Unlock()
	go func() {
		if !sleepCtx(ctx, retryEvery(w.e.cfg.ReadinessPollInterval).Delay(1, nil)) {
			return
		}
		w.mu.Lock()
		if w.head > 0 {
			w.head--
			w.queue[w.head] = it
		} else {
			w.queue = append([]readinessItem{it}, w.queue...)
		}
		w.mu.Unlock()
		w.signal()
	}()
}

func (w *readinessWorker) deadline(id domain.JobID) time.Time {
	if t, ok := w.e.set.Timer(id); ok {
		return t.Deadline
	}
	return time.Time{}
}

// acl asks the host ACL every question the gateway would about the request's handles and
// returns why the request is denied ("" when it is not), or the first error. The questions are
// asked aclParallel at a time, so that a request with many handles waits for a few round trips
// to the host chain's node rather than one per question.
func (w *readinessWorker) acl(req domain.Request, call func(func(context.Context) (bool, error)) (bool, error)) (string, error) {
	qs, err := aclQuestions(w.e.gw, req)
	if err != nil {
		return "", err
	}
	var denied string
	_, err = call(func(ctx context.Context) (bool, error) {
		var err error
		denied, err = firstDenial(ctx, qs)
		return denied == "", err
	})
	return denied, err
}

// aclQuestion is one question to the host ACL, and why the request is denied when the answer
// is no.
type aclQuestion struct {
	ask    func(context.Context) (bool, error)
	denied string
}

// aclParallel is how many of a request's questions to the host ACL are asked at once.
const aclParallel = 8

// firstDenial asks qs, aclParallel at a time, and returns the denial of the first question, in
// their order, answered no, or the error of a question before it that failed: what asking them
// one by one would return. Once a group of questions holds a no or an error, the questions
// after it are not asked.
func firstDenial(ctx context.Context, qs []aclQuestion) (string, error) {
	var answers [aclParallel]bool
	var errs [aclParallel]error
	for len(qs) > 0 {
		group := qs[:min(len(qs), aclParallel)]
		qs = qs[len(group):]
		if len(group) == 1 {
			answers[0], errs[0] = group[0].ask(ctx)
		} else {
			var wg sync.WaitGroup
			for i, q := range group {
				wg.Go(func() { answers[i], errs[i] = q.ask(ctx) })
			}
			wg.Wait()
		}
		for i, q := range group {
			if errs[i] != nil {
				return "", errs[i]
			}
			if !answers[i] {
				return q.denied, nil
			}
		}
	}
	return "", nil
}

// aclQuestions lists the questions to the host ACL about req's handles, in the order the
// gateway checks them: for each handle of a public decrypt, that it may be decrypted publicly;
// for each pair of a user decrypt, that the user and the contract may use the handle; for a
// delegated one, that the delegator and the contract may, and that the delegator authorised the
// delegate for it (unexpired); a unified request's entries as the v2 request of their kind.
func aclQuestions(gw *gateway.Adapter, req domain.Request) ([]aclQuestion, error) {
	var qs []aclQuestion
	uses := func(handle [32]byte, h string, accounts ...aclAccount) {
		for _, a := range accounts {
			addr := common.HexToAddress(a.address)
			qs = append(qs, aclQuestion{
				ask:    func(ctx context.Context) (bool, error) { return gw.ACLAllowed(ctx, handle, addr) },
				denied: fmt.Sprintf("%s may not use handle %s on the host ACL", a.who, h),
			})
		}
	}
	delegated := func(handle [32]byte, h, contract, delegator, delegate string) {
		uses(handle, h, aclAccount{"delegator " + delegator, delegator}, aclAccount{"contract " + contract, contract})
		qs = append(qs, aclQuestion{
			ask: func(ctx context.Context) (bool, error) {
				return gw.ACLDelegated(ctx, common.HexToAddress(delegator), common.HexToAddress(delegate), common.HexToAddress(contract), handle)
			},
			denied: fmt.Sprintf("delegator %s has not delegated the decryption of handle %s under contract %s to %s on the host ACL (or the delegation expired)",
				delegator, h, contract, delegate),
		})
	}
	switch {
	case req.PublicDecrypt != nil:
		for _, h := range req.PublicDecrypt.CiphertextHandles {
			handle, err := parseHandle(h)
			if err != nil {
				return nil, err
			}
			qs = append(qs, aclQuestion{
				ask:    func(ctx context.Context) (bool, error) { return gw.ACLAllowedForDecryption(ctx, handle) },
				denied: fmt.Sprintf("handle %s is not allowed for public decryption on the host ACL", h),
			})
		}
	case req.UserDecrypt != nil:
		u := req.UserDecrypt
		for _, p := range u.HandleContractPairs {
			handle, err := parseHandle(p.Handle)
			if err != nil {
				return nil, err
			}
			uses(handle, p.Handle, aclAccount{"user " + u.UserAddress, u.UserAddress}, aclAccount{"contract " + p.ContractAddress, p.ContractAddress})
		}
	case req.DelegatedUserDecrypt != nil:
		d := req.DelegatedUserDecrypt
		for _, p := range d.HandleContractPairs {
			handle, err := parseHandle(p.Handle)
			if err != nil {
				return nil, err
			}
			delegated(handle, p.Handle, p.ContractAddress, d.DelegatorAddress, d.DelegateAddress)
		}
	case req.UnifiedUserDecrypt != nil:
		u := req.UnifiedUserDecrypt
		for _, e := range u.Handles {
			handle, err := parseHandle(e.Handle)
			if err != nil {
				return nil, err
			}
			if e.OwnerAddress == u.UserAddress {
				uses(handle, e.Handle, aclAccount{"user " + u.UserAddress, u.UserAddress}, aclAccount{"contract " + e.ContractAddress, e.ContractAddress})
			} else {
				delegated(handle, e.Handle, e.ContractAddress, e.OwnerAddress, u.UserAddress)
			}
		}
	default:
		return nil, gatewayInvalid("not a decrypt request")
	}
	return qs, nil
}

// aclAccount is an account a user decrypt's handles must be allowed for, named for messages.
type aclAccount struct{ who, address string }

func (w *readinessWorker) ready(ctx context.Context, req domain.Request) (bool, error) {
	switch {
	case req.PublicDecrypt != nil:
		return w.e.gw.IsPublicDecryptionReady(ctx, *req.PublicDecrypt)
	case req.UserDecrypt != nil:
		return w.e.gw.IsUserDecryptionReady(ctx, *req.UserDecrypt)
	case req.UnifiedUserDecrypt != nil:
		return w.e.gw.IsUnifiedUserDecryptionReady(ctx, *req.UnifiedUserDecrypt)
	case req.DelegatedUserDecrypt != nil:
		return w.e.gw.IsDelegatedUserDecryptionReady(ctx, *req.DelegatedUserDecrypt)
	}
	return false, gatewayInvalid("not a decrypt request")
}

// gatewayInvalid is a request the gateway cannot be asked about: not worth asking again.
func gatewayInvalid(why string) error {
	return &gateway.TxError{Kind: gateway.ErrInvalidRequest, Op: "readiness", Err: errors.New(why)}
}

func parseHandle(s string) ([32]byte, error) {
	var h [32]byte
	b := common.FromHex(s)
	if len(b) != 32 || !strings.HasPrefix(s, "0x") {
		return h, gatewayInvalid(fmt.Sprintf("handle %q is not 0x and 64 hex digits", s))
	}
	copy(h[:], b)
	return h, nil
}
