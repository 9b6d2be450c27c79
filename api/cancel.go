package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
)

// Operator actions (DESIGN section 13): a cancel is a command like any other, decided by the
// domain (domain.Cancel), appended with the expected version, and attributed: the admin token's
// identity and a required reason are in the event, so the job's history and the transitions
// stream show who cancelled it and why. A queued or processing job ends at once (JobCancelled;
// the polling client gets a 409 with the label cancelled). A job in tx_in_flight gets a cancel
// request (CancelRequested, answered 202): the engine records a no-op at its transaction's nonce
// and sends it, and whichever is mined decides (the job ends cancelled, or completes as usual).
// A job whose receipt was recorded, or that ended, cannot be cancelled (409 not_cancellable).
//
// POST /v1/jobs/{jobId}/cancel cancels one job. POST /v1/jobs/cancel cancels the jobs a search
// selects (GET /v1/jobs's query parameters), a page at a time: each call cancels at most limit
// jobs and answers the cursor of the next page, which the next call passes (cursor=next): the
// cursor only moves down through the jobs accepted before the first call, so a run ends however
// many jobs arrive meanwhile. An interrupted run is resumed by running it again from the start
// (jobs already cancelled are no longer queued or processing, so they are not found again, and
// jobs in flight whose cancel is under way are skipped). With
// "dryRun": true it changes nothing and answers how many jobs the filter selects now, with a
// sample.

// labelNotCancellable: the job's transaction was mined, or the job ended (409).
const labelNotCancellable = "not_cancellable"

// labelCancelPending: a cancel of the job's transaction in flight is under way already (409).
const labelCancelPending = "cancel_pending"

// maxDryRunCount bounds a dry run's count.
const maxDryRunCount = 100_000

// actionBody is the body of the cancel and retry routes.
type actionBody struct {
	Reason string `json:"reason"`
	DryRun bool   `json:"dryRun"`
}

// CancelResult is the answer of a cancel: the jobs cancelled, those whose transaction in flight
// now races a no-op (Cancelling), and those the filter found but that could not be cancelled
// (mined meanwhile, or ended), each with why.
type CancelResult struct {
	Cancelled  []CancelledJob `json:"cancelled"`
	Cancelling []CancelledJob `json:"cancelling,omitempty"`
	bulkPage
}

// bulkPage is what the answer of an action has beside the jobs acted on: the jobs skipped, and
// for a bulk action the cursor of its next page, or (dry runs) the count and a sample.
type bulkPage struct {
	Skipped []SkippedJob `json:"skipped"`
	// Next is the cursor of the next page of a bulk action; absent when every job was read.
	Next string `json:"next,omitempty"`
	// Matched (dry runs) is how many jobs the filter selects (at most 100,000 are counted), and
	// Sample the first of them.
	Matched *int       `json:"matched,omitempty"`
	Sample  []FoundJob `json:"sample,omitempty"`
}

// noneSkipped is the bulkPage of an action that skipped nothing.
func noneSkipped() bulkPage { return bulkPage{Skipped: []SkippedJob{}} }

// CancelledJob is a job a cancel ended.
type CancelledJob struct {
	JobID   string `json:"jobId"`
	Kind    string `json:"kind"`
	From    string `json:"from"`
	Version int64  `json:"version"`
}

// SkippedJob is a job a bulk cancel found but did not cancel.
type SkippedJob struct {
	JobID  string `json:"jobId"`
	Reason string `json:"reason"`
}

// readActionBody reads the body of an action (what: "cancel" or "retry"): one JSON object, no
// member unknown or given twice, with a reason.
func (s *Server) readActionBody(w http.ResponseWriter, r *http.Request, what string) (actionBody, bool) {
	var b actionBody
	if !s.readAdminBody(w, r, &b, false) {
		return b, false
	}
	if issue := reasonIssue(b.Reason, what); issue != "" {
		writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, "invalid "+what, []domain.FieldIssue{{Field: "reason", Issue: issue}})
		return b, false
	}
	return b, true
}

// reasonIssue says what is wrong with an operator's reason for a what (recorded with who asked,
// shown to the polling client and printed by relayer replay), or "".
func reasonIssue(reason, what string) string {
	switch {
	case strings.TrimSpace(reason) == "":
		return fmt.Sprintf("is required: why the job gets a %s (it is recorded with who asked)", what)
	case len(reason) > domain.MaxCancelReason:
		return fmt.Sprintf("is at most %d bytes (has %d)", domain.MaxCancelReason, len(reason))
	case strings.ContainsFunc(reason, unicode.IsControl):
		return "must be text without control characters (newlines, escapes, NUL): it is shown to clients and printed in terminals"
	}
	return ""
}

// oneJobAction reads the job id and body of POST /v1/jobs/{jobId}/<what> (what: cancel, retry)
// for a job the read models know, or answers the refusal and returns false.
func (s *Server) oneJobAction(w http.ResponseWriter, r *http.Request, what string) (domain.JobID, actionBody, bool) {
	id, ok := pathJobID(w, r, "the job id is not a UUID")
	if !ok {
		return id, actionBody{}, false
	}
	body, ok := s.readActionBody(w, r, what)
	if !ok {
		return id, body, false
	}
	if body.DryRun {
		writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, "invalid "+what, []domain.FieldIssue{{
			Field: "dryRun", Issue: fmt.Sprintf("is for a bulk %s (POST /v1/jobs/%s); read one job with GET /v1/jobs/{jobId}/events", what, what)}})
		return id, body, false
	}
	if _, known := s.set.Job(id); !known {
		writeError(w, r, http.StatusNotFound, labelNotFound, s.notFoundJob("no job with this id", id), nil)
		return id, body, false
	}
	return id, body, true
}

// cancelJob answers POST /v1/jobs/{jobId}/cancel.
func (s *Server) cancelJob(w http.ResponseWriter, r *http.Request) {
	id, body, ok := s.oneJobAction(w, r, "cancel")
	if !ok {
		return
	}
	c, pending, err := s.cancel(r, requestID(w), id, body.Reason, nil)
	if err != nil {
		s.cancelRefused(w, r, id, err)
		return
	}
	if pending {
		writeEnvelope(w, r, http.StatusAccepted, statusSucceeded, CancelResult{Cancelled: []CancelledJob{}, Cancelling: []CancelledJob{c}, bulkPage: noneSkipped()})
		return
	}
	writeEnvelope(w, r, http.StatusOK, statusSucceeded, CancelResult{Cancelled: []CancelledJob{c}, bulkPage: noneSkipped()})
}

// cancel executes domain.Cancel on job id, attributed to the admin token; only, when set, the
// statuses it may cancel the job in, decided on the job's stream (a read model may lag it).
// pending: the job is in tx_in_flight, and its cancel now races its transaction.
func (s *Server) cancel(r *http.Request, rid string, id domain.JobID, reason string, only []domain.Status) (c CancelledJob, pending bool, err error) {
	// A cancel is recorded whole or not at all, even if the client hangs up.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), writeTimeout)
	defer cancel()
	out, err := s.exec.Execute(ctx, id, domain.Cancel{At: domain.At{At: s.now().UTC()}, Who: s.adminWho, Reason: reason, Only: only},
		eventstore.Metadata{CorrelationID: rid, CausationID: rid})
	if err != nil {
		return CancelledJob{}, false, err
	}
	var from domain.Status
	for _, e := range out.Events {
		switch e := e.(type) {
		case domain.JobCancelled:
			from = e.From
		case domain.CancelRequested:
			from, pending = domain.TxInFlight, true
		}
	}
	// The read models show the cancel before the answer does (a bulk cancel's next page must not
	// find the job again); a slow projection delays the answer, never the cancel.
	wctx, wcancel := context.WithTimeout(r.Context(), s.cfg.AcceptWait)
	_ = s.set.WaitFor(wctx, out.Position)
	wcancel()
	what := "job cancelled"
	if pending {
		what = "job cancel requested: a no-op races its transaction"
	}
	s.log.Info(what, "job_id", id.String(), "correlation_id", rid, "who", s.adminWho, "from", from.String())
	return CancelledJob{JobID: id.String(), Kind: out.State.Kind.String(), From: from.String(), Version: int64(out.State.Events - 1)}, pending, nil
}

// cancelRefused answers a cancel the domain refused: 409 when the job is past cancelling.
func (s *Server) cancelRefused(w http.ResponseWriter, r *http.Request, id domain.JobID, err error) {
	var te *domain.TransitionError
	switch {
	case errors.Is(err, domain.ErrAlreadySent):
		writeError(w, r, http.StatusConflict, labelNotCancellable, "the job's transaction was already mined: it can no longer be cancelled", nil)
	case errors.Is(err, domain.ErrCancelPending):
		writeError(w, r, http.StatusConflict, labelCancelPending, "a cancel of the job's transaction in flight is already under way: a no-op races it, and whichever is mined decides", nil)
	case errors.As(err, &te):
		writeError(w, r, http.StatusConflict, labelNotCancellable, fmt.Sprintf("the job has ended (%s): there is nothing to cancel", te.Status), nil)
	default:
		s.internalError(w, r, "cancel job "+id.String(), err)
	}
}

// cancellable are the statuses a cancel applies to; a bulk cancel without a status filter takes
// the first two (a job in tx_in_flight is cancelled only when the filter names it).
var cancellable = []domain.Status{domain.Queued, domain.Processing, domain.TxInFlight}

// cancelJobs answers POST /v1/jobs/cancel?<search filters>.
func (s *Server) cancelJobs(w http.ResponseWriter, r *http.Request) {
	res := CancelResult{Cancelled: []CancelledJob{}, bulkPage: noneSkipped()}
	q, body, p, ok := s.bulkAction(w, r, "cancel", cancellable, cancellable[:2], "only queued, processing and tx_in_flight ones", &res, &res.bulkPage)
	if !ok {
		return
	}
	for _, f := range p.Jobs {
		c, pending, err := s.cancel(r, requestID(w), f.ID, body.Reason, q.Statuses)
		var te *domain.TransitionError
		switch {
		case err == nil && pending:
			res.Cancelling = append(res.Cancelling, c)
		case err == nil:
			res.Cancelled = append(res.Cancelled, c)
		case errors.Is(err, domain.ErrAlreadySent):
			res.Skipped = append(res.Skipped, SkippedJob{JobID: f.ID.String(), Reason: "its transaction was mined meanwhile"})
		case errors.Is(err, domain.ErrCancelPending):
			res.Skipped = append(res.Skipped, SkippedJob{JobID: f.ID.String(), Reason: "a cancel of its transaction is under way already"})
		case errors.As(err, &te):
			res.Skipped = append(res.Skipped, SkippedJob{JobID: f.ID.String(), Reason: "it moved on meanwhile (now " + te.Status.String() + "), out of the filter"})
		default:
			s.internalError(w, r, "cancel job "+f.ID.String(), err)
			return
		}
	}
	writeEnvelope(w, r, http.StatusOK, statusSucceeded, res)
}

// bulkAction reads a bulk action's filters (what: cancel or retry; a status outside allowed is
// refused, saying which are: only; none given means defaults) and body, and the first page the
// filters select, whose next cursor it puts in page (res's). It answers a dry run with res, its
// count and sample in page; it answers a refusal too. It returns true when the caller is to act
// on the page's jobs.
func (s *Server) bulkAction(w http.ResponseWriter, r *http.Request, what string, allowed, defaults []domain.Status, only string,
	res any, page *bulkPage) (projections.Query, actionBody, projections.Page, bool) {
	q, issues := parseSearch(r.URL.Query())
	for _, st := range q.Statuses {
		if !slices.Contains(allowed, st) {
			issues = append(issues, domain.FieldIssue{Field: "status", Issue: fmt.Sprintf("%s jobs cannot be %s: %s", st, pastTense(what), only)})
		}
	}
	if len(issues) > 0 {
		writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, "invalid "+what+" filter", issues)
		return q, actionBody{}, projections.Page{}, false
	}
	if len(q.Statuses) == 0 {
		q.Statuses = defaults
	}
	body, ok := s.readActionBody(w, r, what)
	if !ok {
		return q, body, projections.Page{}, false
	}
	p, ok := s.searchPage(w, r, q)
	if !ok {
		return q, body, p, false
	}
	if body.DryRun {
		n, sample := s.dryRun(q)
		page.Matched, page.Sample = &n, sample
		writeEnvelope(w, r, http.StatusOK, statusSucceeded, res)
		return q, body, p, false
	}
	if p.Next > 0 {
		page.Next = strconv.FormatInt(int64(p.Next), 10)
	}
	return q, body, p, true
}

// pastTense is what's past participle: "cancelled" or "retried".
func pastTense(what string) string {
	if what == "cancel" {
		return "cancelled"
	}
	return "retried"
}

// dryRun counts the jobs q selects now (at most maxDryRunCount) and samples the first ten.
func (s *Server) dryRun(q projections.Query) (int, []FoundJob) {
	n := 0
	var sample []FoundJob
	q.Limit = maxSearchLimit
	for {
		p := s.set.Search(q)
		n += len(p.Jobs)
		for _, f := range p.Jobs {
			if len(sample) < 10 {
				sample = append(sample, foundJob(f))
			}
		}
		if p.Next == 0 || n >= maxDryRunCount {
			return n, sample
		}
		q.Before = p.Next
	}
}
