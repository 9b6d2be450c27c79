package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
)

// Retry (DESIGN section 13), an operator's action like cancel: decided by the domain
// (domain.Retry), appended with the expected version, attributed (the admin token's identity and
// a required reason).
//
//   - A queued or processing job waiting on a backoff (a readiness check or a transaction
//     preparation the chain kept failing, a parked job) is made due now (RetryRequested); the
//     engine takes it up at once.
//   - A job that ended in failure or timed_out is never reopened: the retry creates the next job
//     of its content (the next free generation of domain.JobIDFor, the rule admit follows, so
//     that later submissions of the same content join the new job), whose RequestAccepted names
//     the old job (RetryOf), and links the old job to it (JobRetried, the one event an ended job
//     takes: an annotation that changes no status). The new job is appended first: a crash
//     between the two leaves a new job that names the old one, and the next retry of the old
//     job finds it and appends the missing link instead of a third job.
//   - A completed job (409 job_completed), a job whose transaction is sent (409 not_retryable),
//     one that waits on nothing (409 not_waiting) and one already retried (409 already_retried)
//     are refused, and nothing is appended.
//
// POST /v1/jobs/{jobId}/retry retries one job; POST /v1/jobs/retry the jobs a search selects, a
// page at a time with a cursor and a dry run, as the bulk cancel does. A re-run from the start
// after an interruption skips the jobs already retried (already retried, or no longer waiting).

// Retry's refusals (409).
const (
	labelJobCompleted   = "job_completed"
	labelNotRetryable   = "not_retryable"
	labelNotWaiting     = "not_waiting"
	labelAlreadyRetried = "already_retried"
)

// retryable are the statuses a retry applies to (and a bulk retry's statuses by default).
var retryable = []domain.Status{domain.Queued, domain.Processing, domain.Failure, domain.TimedOut}

// RetryResult is the answer of a retry: the jobs retried and those the filter found but that
// could not be, each with why.
type RetryResult struct {
	Retried []RetriedJob `json:"retried"`
	bulkPage
}

// RetriedJob is a job a retry acted on: made due now (NewJobID empty), or retried as a new job.
type RetriedJob struct {
	JobID   string `json:"jobId"`
	Kind    string `json:"kind"`
	From    string `json:"from"`
	Version int64  `json:"version"`
	// NewJobID is the job created from an ended job's request.
	NewJobID string `json:"newJobId,omitempty"`
}

// errAlreadyRetried: the job was retried already, as job as.
type errAlreadyRetried struct{ as domain.JobID }

func (e *errAlreadyRetried) Error() string { return "the job was already retried, as " + e.as.String() }
func (e *errAlreadyRetried) Unwrap() error { return domain.ErrAlreadyRetried }

// errResubmitted: the content of an ended job already has a later job that no retry of it
// created (an identical submission came first).
type errResubmitted struct{ job domain.JobID }

func (e *errResubmitted) Error() string {
	return fmt.Sprintf("a later job of the same request exists already: %s (an identical submission); follow it", e.job)
}

// retryJob answers POST /v1/jobs/{jobId}/retry.
func (s *Server) retryJob(w http.ResponseWriter, r *http.Request) {
	id, body, ok := s.oneJobAction(w, r, "retry")
	if !ok {
		return
	}
	rj, err := s.retry(r, requestID(w), id, body.Reason, nil)
	if err != nil {
		s.retryRefused(w, r, id, err)
		return
	}
	code := http.StatusOK
	if rj.NewJobID != "" {
		code = http.StatusCreated
	}
	writeEnvelope(w, r, code, statusSucceeded, RetryResult{Retried: []RetriedJob{rj}, bulkPage: noneSkipped()})
}

// retry executes domain.Retry on job id, attributed to the admin token, and creates the new job
// of an ended one; only, when set, the statuses it may retry the job in (decided on its stream).
func (s *Server) retry(r *http.Request, rid string, id domain.JobID, reason string, only []domain.Status) (RetriedJob, error) {
	// A retry is recorded whole or not at all, even if the client hangs up.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), writeTimeout)
	defer cancel()
	md := eventstore.Metadata{CorrelationID: rid, CausationID: rid}
	old, err := s.exec.Load(ctx, id)
	if err != nil {
		return RetriedJob{}, err
	}
	if len(only) > 0 && !slices.Contains(only, old.Status) {
		return RetriedJob{}, &domain.TransitionError{Command: "retry", Kind: old.Kind, Status: old.Status}
	}
	at := domain.At{At: s.now().UTC()}
	out, err := s.exec.ExecuteOn(ctx, id, old, domain.Retry{At: at, Who: s.adminWho, Reason: reason}, md)
	var pos eventstore.Position
	rj := RetriedJob{JobID: id.String(), Kind: old.Kind.String(), From: old.Status.String()}
	switch {
	case err == nil:
		pos, rj.Version = out.Position, int64(out.State.Events-1)
	case errors.Is(err, domain.ErrAlreadyRetried):
		return RetriedJob{}, &errAlreadyRetried{out.State.RetriedAs}
	case errors.Is(err, domain.ErrEnded):
		next, err := s.nextJobOf(ctx, out.State, reason, md)
		if err != nil {
			return RetriedJob{}, err
		}
		out, err = s.exec.Execute(ctx, id, domain.LinkRetry{At: at, Who: s.adminWho, Reason: reason, NewJob: next}, md)
		if errors.Is(err, domain.ErrAlreadyRetried) {
			return RetriedJob{}, &errAlreadyRetried{out.State.RetriedAs} // a concurrent retry linked it first
		}
		if err != nil {
			return RetriedJob{}, err
		}
		pos, rj.Version, rj.NewJobID, rj.From = out.Position, int64(out.State.Events-1), next.String(), out.State.Status.String()
	default:
		return RetriedJob{}, err
	}
	// The read models show the retry before the answer does; a slow projection delays the
	// answer, never the retry.
	wctx, wcancel := context.WithTimeout(r.Context(), s.cfg.AcceptWait)
	_ = s.set.WaitFor(wctx, pos)
	wcancel()
	s.log.Info("job retried", "job_id", id.String(), "correlation_id", rid, "who", s.adminWho, "from", rj.From, "new_job_id", rj.NewJobID)
	return rj, nil
}

// nextJobOf finds or creates the job that retries old, an ended job: it walks the generations of
// old's content from the last one the read models hold, as the submission command does
// (projections.Submitter: an ended job sends it to the next, the first free one is accepted,
// here with RetryOf naming old). A live or completed job on the way is the retry's only if it
// names old (created by a retry that crashed before linking); otherwise an identical submission
// came first, and the retry is refused (errResubmitted).
func (s *Server) nextJobOf(ctx context.Context, old domain.State, reason string, md eventstore.Metadata) (domain.JobID, error) {
	link := &domain.RetryOf{JobID: old.JobID, Who: s.adminWho, Reason: reason}
	// The generations before the last one the read models hold all ended (or were retired).
	n := s.set.Generations(old.ContentHash)
	for g := n - min(n, 1); g < projections.MaxGenerations; g++ {
		id := domain.JobIDFor(old.ContentHash, g)
		if id == old.JobID || s.set.Retired(id) {
			continue
		}
		if j, ok := s.set.Job(id); ok && projections.EndedWithoutResult(j.Status) {
			continue
		}
		out, err := s.exec.Execute(ctx, id, domain.Accept{At: domain.At{At: s.now().UTC()}, JobID: id, Request: old.Request, ContentHash: old.ContentHash, RetryOf: link}, md)
		switch {
		case err == nil:
			return id, nil
		case !errors.Is(err, domain.ErrAlreadyAccepted):
			return domain.JobID{}, err
		case projections.EndedWithoutResult(out.State.Status):
			continue
		case out.State.RetryOf != nil && out.State.RetryOf.JobID == old.JobID:
			return id, nil
		default:
			return domain.JobID{}, &errResubmitted{id}
		}
	}
	return domain.JobID{}, fmt.Errorf("content hash %s: %w", old.ContentHash, projections.ErrGenerationsExhausted)
}

// retryRefused answers a retry the domain refused.
func (s *Server) retryRefused(w http.ResponseWriter, r *http.Request, id domain.JobID, err error) {
	var rs *errResubmitted
	var ar *errAlreadyRetried
	switch {
	case errors.As(err, &ar):
		writeError(w, r, http.StatusConflict, labelAlreadyRetried, ar.Error()+": follow that job", nil)
	case errors.Is(err, domain.ErrCompleted):
		writeError(w, r, http.StatusConflict, labelJobCompleted, "the job completed: there is nothing to retry", nil)
	case errors.Is(err, domain.ErrAlreadySent):
		writeError(w, r, http.StatusConflict, labelNotRetryable, "the job's transaction was sent: wait for its receipt and response (or cancel it)", nil)
	case errors.Is(err, domain.ErrNotWaiting):
		writeError(w, r, http.StatusConflict, labelNotWaiting, "the job waits on no backoff: it is being worked on now", nil)
	case errors.As(err, &rs):
		writeError(w, r, http.StatusConflict, labelAlreadyRetried, rs.Error(), nil)
	case errors.Is(err, projections.ErrGenerationsExhausted):
		writeError(w, r, http.StatusConflict, labelNotRetryable, "the request failed too many times: "+err.Error(), nil)
	default:
		s.internalError(w, r, "retry job "+id.String(), err)
	}
}

// skipReason says why a bulk retry skipped a job, and false for an error that is no refusal.
func skipReason(err error) (string, bool) {
	var te *domain.TransitionError
	var rs *errResubmitted
	var ar *errAlreadyRetried
	switch {
	case errors.Is(err, domain.ErrNotWaiting):
		return "it waits on no backoff", true
	case errors.As(err, &ar):
		return ar.Error(), true
	case errors.As(err, &rs):
		return rs.Error(), true
	case errors.Is(err, domain.ErrAlreadySent):
		return "its transaction was sent meanwhile", true
	case errors.Is(err, domain.ErrCompleted):
		return "it completed meanwhile", true
	case errors.As(err, &te):
		return "it moved on meanwhile (now " + te.Status.String() + "), out of the filter", true
	}
	return "", false
}

// retryJobs answers POST /v1/jobs/retry?<search filters>.
func (s *Server) retryJobs(w http.ResponseWriter, r *http.Request) {
	res := RetryResult{Retried: []RetriedJob{}, bulkPage: noneSkipped()}
	q, body, p, ok := s.bulkAction(w, r, "retry", retryable, retryable, "only queued, processing (waiting on a backoff), failure and timed_out ones", &res, &res.bulkPage)
	if !ok {
		return
	}
	for _, f := range p.Jobs {
		rj, err := s.retry(r, requestID(w), f.ID, body.Reason, q.Statuses)
		if err == nil {
			res.Retried = append(res.Retried, rj)
			continue
		}
		why, refused := skipReason(err)
		if !refused {
			s.internalError(w, r, "retry job "+f.ID.String(), err)
			return
		}
		res.Skipped = append(res.Skipped, SkippedJob{JobID: f.ID.String(), Reason: why})
	}
	writeEnvelope(w, r, http.StatusOK, statusSucceeded, res)
}
