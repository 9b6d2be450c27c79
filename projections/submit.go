package projections

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

// Submitter is the submission command's one handler, beside the Executor: admission (the
// checks of a signed request, admission.go), idempotency by content hash and generation, load
// shedding, the acceptance append and the wait for the read models to show the job. The API,
// `relayer demo` and the benchmarks submit through it; the API only parses before and renders
// after.
type Submitter struct {
	Executor *Executor
	// Set holds the read models the submission reads: a content's jobs, the queues' lengths.
	Set *Set
	// Chain is the chain side of admission; nil: the clock's time, and signatures by keys only.
	Chain     ChainChecks
	Admission AdmissionConfig
	// AcceptWait bounds the wait for Set to show an accepted job (0: no wait).
	AcceptWait time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Log receives the admission's notes (discarded when nil).
	Log *slog.Logger
}

// SubmitCommand is one submission: a parsed request and the metadata of its events.
type SubmitCommand struct {
	Request  domain.Request
	Metadata eventstore.Metadata
	// ShedAt sheds load: a new job is refused with a *ShedError while the queue it would join
	// first (QueueOf) holds ShedAt jobs or more; 0 or less: never.
	ShedAt int
}

// SubmitResult is the job that answers a submission.
type SubmitResult struct {
	JobID domain.JobID
	// Created: this submission accepted the job; otherwise it joined an identical one.
	Created bool
	// Position is the global position of the job's acceptance when the read models did not
	// show the job yet (0 when they did).
	Position eventstore.Position
	// Lag is why the read models did not show the job within AcceptWait (nil when they did):
	// the job is accepted all the same.
	Lag error
}

// ErrGenerationsExhausted: every generation of a content hash failed or timed out.
var ErrGenerationsExhausted = fmt.Errorf("%d jobs with it failed or timed out", uint64(MaxGenerations))

// BackoffError refuses a submission whose content's previous jobs failed after their
// transaction was sent, Failed of them: its next job is accepted only after Wait (see
// ContentBackoff).
type BackoffError struct {
	Wait   time.Duration
	Failed uint32
}

func (e *BackoffError) Error() string {
	return fmt.Sprintf("the content failed %d times after its transaction was sent; its next job is accepted in %s", e.Failed, e.Wait)
}

// ShedError refuses a new job because the queue it would join first holds Length jobs, at
// SubmitCommand.ShedAt or beyond; Queues are the queues' lengths as they were read.
type ShedError struct {
	Queue  Queue
	Length int
	Queues QueueLengths
}

func (e *ShedError) Error() string {
	return fmt.Sprintf("the %s queue is full (%d jobs waiting)", e.Queue, e.Length)
}

// QueueOf is the queue where a new job of kind k waits first.
func QueueOf(k domain.Kind) Queue {
	if k.NeedsReadiness() {
		return ReadinessQueue
	}
	return TxQueue
}

// submitWriteTimeout bounds the appends of one submission.
const submitWriteTimeout = 10 * time.Second

// Submit admits, deduplicates and accepts cmd's request, then waits for the read models to show
// its job. A refusal is an *AdmissionError, a *BackoffError, a *ShedError or
// ErrGenerationsExhausted, with nothing appended.
func (s *Submitter) Submit(ctx context.Context, cmd SubmitCommand) (SubmitResult, error) {
	kind := cmd.Request.Kind()
	if kind.IsZero() {
		return SubmitResult{}, errors.New("submit: the request holds no payload or more than one")
	}
	eoa, err := s.admit(ctx, cmd.Request)
	if err != nil {
		return SubmitResult{}, err
	}
	if eoa {
		// One signature, one form: the same request signed once makes one job.
		cmd.Request = cmd.Request.WithEOASignature()
	}
	hash := domain.ContentHash(cmd.Request)
	// The write goes on if the caller goes away: a client may poll for the job (its id is
	// derived from the content) even though it never read the answer.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), submitWriteTimeout)
	res, err := s.accept(wctx, kind, cmd, hash)
	cancel()
	if err != nil || res.Position == 0 || s.AcceptWait <= 0 {
		return res, err
	}
	ctx, cancel = context.WithTimeout(ctx, s.AcceptWait)
	res.Lag = s.Set.WaitFor(ctx, res.Position)
	cancel()
	return res, nil
}

// accept finds or creates the job that answers a submission with content hash hash.
//
// The jobs of one content hash have ids derived from it (domain.JobIDFor), one per generation:
// generation 0 is the first job, and each one that failed or timed out is followed by the next.
// accept walks the generations: a job that is active or completed answers the submission; one
// that ended otherwise sends it to the next generation; the first generation with no job is
// accepted. The acceptance appends to the job's own stream expecting NoStream, so of concurrent
// identical submissions exactly one creates the job and the others, refused by the stream's
// version, answer with it. One durable append per new job, and nothing to clean up after a crash.
//
// The walk starts LookBack generations before the first one the read models do not hold
// (Set.Generations), so that a content whose jobs failed a million times costs a submission a
// few dozen look-ups, not a million.
func (s *Submitter) accept(ctx context.Context, kind domain.Kind, cmd SubmitCommand, hash string) (SubmitResult, error) {
	n := s.Set.Generations(hash)
	for g := n - min(n, LookBack); g < MaxGenerations; g++ {
		id := domain.JobIDFor(hash, g)
		if s.Set.Retired(id) {
			// Archived: its id is never given to another job, so an identical request
			// becomes a job of the next generation.
			continue
		}
		if j, ok := s.Set.Job(id); ok {
			if !EndedWithoutResult(j.Status) {
				return SubmitResult{JobID: id}, nil
			}
			continue
		}
		// Not in the read models: no job yet, or one they have not applied yet. The costly
		// failures are read now, after the generations before this one were seen ended.
		costly, lastEnded := s.Set.CostlyFailures(hash)
		if wait := lastEnded.Add(ContentBackoff(costly)).Sub(s.now()); !lastEnded.IsZero() && wait > 0 {
			return SubmitResult{}, &BackoffError{Wait: wait, Failed: costly}
		}
		if err := s.shed(kind, cmd.ShedAt); err != nil {
			return SubmitResult{}, err
		}
		out, err := s.Executor.Execute(ctx, id, domain.Accept{At: domain.At{At: s.now().UTC()}, JobID: id, Request: cmd.Request, ContentHash: hash}, cmd.Metadata)
		switch {
		case err == nil:
			return SubmitResult{JobID: id, Created: true, Position: out.Position}, nil
		case !errors.Is(err, domain.ErrAlreadyAccepted):
			return SubmitResult{}, err
		case EndedWithoutResult(out.State.Status):
			continue // it existed, and has ended since: the next generation
		}
		// An identical submission accepted it first: answer with it once the read models show it.
		pos, err := s.acceptedAt(ctx, id)
		return SubmitResult{JobID: id, Position: pos}, err
	}
	return SubmitResult{}, fmt.Errorf("content hash %s: %w", hash, ErrGenerationsExhausted)
}

// A content whose jobs keep failing after their transaction was sent costs a transaction each
// time (a request that reverts, say), so its retries slow down: after FreeGenerations such
// failures, the next job starts only ContentBackoff(n) after the last of them ended, doubling
// from a second up to MaxContentBackoff. Failures before any transaction (an ACL refusal at the
// readiness check, a readiness timeout) cost nothing and do not count: otherwise anyone could
// fail a request early (a public decrypt of a handle not yet public, say) to keep everyone's
// identical request waiting for an hour. The refusal is a *BackoffError with the exact wait.
// The failures counted are every one of the content's jobs the read models hold
// (Set.CostlyFailures), however many failed early between them: the backoff reaches
// MaxContentBackoff after FreeGenerations+12 of them. A client that varies its request a little
// escapes it (every content has FreeGenerations free tries): the backoff slows down a client
// retrying a request that keeps failing, and the rate limits bound the rest.
const (
	FreeGenerations   = 3
	MaxContentBackoff = time.Hour
)

// LookBack is how many generations before the first one the read models do not hold a
// submission's walk starts (see accept).
const LookBack = 64

// ContentBackoff is how long after the last of n failures that cost a transaction the next job
// of a content may start.
func ContentBackoff(n uint32) time.Duration {
	if n < FreeGenerations {
		return 0
	}
	return min(time.Second<<min(n-FreeGenerations, 12), MaxContentBackoff)
}

// MaxGenerations is how many jobs one content hash can have (the generations a job id is
// derived from are 32-bit): past it, a request is refused (ErrGenerationsExhausted). There is no
// lower bound: a public decrypt is signed by nobody, so anyone can make its jobs fail early (ask
// before the handle is public) as often as the rate limits let them, and a bound would let them
// block everyone's identical request for good.
const MaxGenerations = math.MaxUint32

// Generations is how many generations of content hash hash the read models hold: the first
// generation with neither a job nor a retired id. The generations of a content are created in
// order, each only once the one before it was applied (by the Submitter or the admin's retry),
// so those held are a prefix: the first not held is found by doubling, then halving, in about
// 2·log2(n) look-ups, under one read lock.
func (s *Set) Generations(hash string) uint32 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	held := func(g uint32) bool {
		id := domain.JobIDFor(hash, g)
		_, _, ok := s.jobs.lookup(id)
		return ok || s.isRetired(id)
	}
	if !held(0) {
		return 0
	}
	lo, hi := uint32(0), uint32(1) // held(lo); hi is tried next
	for held(hi) {
		if hi >= MaxGenerations/2 {
			return MaxGenerations
		}
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1 { // held(lo), !held(hi)
		if mid := lo + (hi-lo)/2; held(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// EndedWithoutResult reports whether a job with status st ended without a result, so that an
// identical submission starts a new job (DESIGN section 3).
func EndedWithoutResult(st domain.Status) bool {
	return st == domain.Failure || st == domain.TimedOut
}

// acceptedAt is the global position of a job's acceptance (its stream's first event).
func (s *Submitter) acceptedAt(ctx context.Context, id domain.JobID) (eventstore.Position, error) {
	for rec, err := range s.Executor.Store.ReadStream(ctx, id.Stream(), 0) {
		if err != nil {
			return 0, err
		}
		return rec.Position, nil
	}
	return 0, fmt.Errorf("job %s: no acceptance in the log", id)
}

// shed refuses a new job of kind with a *ShedError when the queue it would join is at shedAt or
// beyond.
func (s *Submitter) shed(kind domain.Kind, shedAt int) error {
	if shedAt <= 0 {
		return nil
	}
	q := s.Set.QueueLengths()
	queue := QueueOf(kind)
	n := q.Tx
	if queue == ReadinessQueue {
		n = q.Readiness
	}
	if n < shedAt {
		return nil
	}
	return &ShedError{Queue: queue, Length: n, Queues: q}
}

func (s *Submitter) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

func (s *Submitter) logger() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}
