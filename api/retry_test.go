package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"relayer/domain"
)

func TestARetryMakesAJobWaitingOnABackoffDueNowAndRefusesJobsWithNothingToRetry(t *testing.T) {
	env := startJT(t, jtAdmin)
	body := []byte(`{"reason":"the node is back"}`)
	parked := env.accept(domain.InputProof, 1)
	env.exec1(parked, domain.ScheduleRetry{At: env.clock.At(0), Step: "prepare", Attempt: 3, Reason: "node unreachable",
		NextAt: env.clock.Now().Add(time.Minute), Label: domain.LabelGatewayNotReachable})
	busy := env.accept(domain.InputProof, 2)
	sent := env.accept(domain.InputProof, 3)
	env.exec1(sent, env.sign(3))
	done := env.accept(domain.InputProof, 4)
	env.exec1(done, env.sign(4), env.receipt(4), domain.Complete{At: env.clock.At(0), Result: domain.Result{InputProof: &domain.InputProofResult{
		Accepted: true, Handles: []string{jtHandle(4)}, Signatures: []string{"0xab"}, ExtraData: "0x00"}}})

	env.do(http.MethodPost, "/v1/jobs/"+parked.String()+"/retry", body).want(t, http.StatusUnauthorized, "unauthorized")
	r := env.do(http.MethodPost, "/v1/jobs/"+parked.String()+"/retry", body, jtAuth...)
	r.want(t, http.StatusOK, "")
	var res RetryResult
	if err := json.Unmarshal(r.Env.Result, &res); err != nil || len(res.Retried) != 1 || res.Retried[0].From != "processing" || res.Retried[0].NewJobID != "" {
		t.Fatalf("retry of a parked job: %s", r.Body)
	}
	// Due now: the job's Retry-After follows, and its history names who and why.
	if j, _ := env.set.Job(parked); j.Status != domain.Processing || !j.RetryAt.Equal(env.clock.Now()) {
		t.Errorf("after the retry the job is %s, due at %v; want processing, due now (%v)", j.Status, j.RetryAt, env.clock.Now())
	}
	h := env.do(http.MethodGet, "/v1/jobs/"+parked.String()+"/events", nil)
	if !strings.Contains(string(h.Body), `"RetryRequested"`) || !strings.Contains(string(h.Body), `"the node is back"`) || strings.Contains(string(h.Body), jtToken) {
		t.Errorf("history %s", h.Body)
	}
	// Nothing to retry: each refusal names why, and appends nothing.
	env.do(http.MethodPost, "/v1/jobs/"+parked.String()+"/retry", body, jtAuth...).want(t, http.StatusConflict, labelNotWaiting)
	env.do(http.MethodPost, "/v1/jobs/"+busy.String()+"/retry", body, jtAuth...).want(t, http.StatusConflict, labelNotWaiting)
	env.do(http.MethodPost, "/v1/jobs/"+sent.String()+"/retry", body, jtAuth...).want(t, http.StatusConflict, labelNotRetryable)
	env.do(http.MethodPost, "/v1/jobs/"+done.String()+"/retry", body, jtAuth...).want(t, http.StatusConflict, labelJobCompleted)
	env.do(http.MethodPost, "/v1/jobs/"+domain.NewJobID().String()+"/retry", body, jtAuth...).want(t, http.StatusNotFound, labelNotFound)
	for _, bad := range []string{`{}`, `{"reason":" "}`, `{"reason":"x","dryRun":true}`, `{"reason":"x","more":1}`} {
		r := env.do(http.MethodPost, "/v1/jobs/"+parked.String()+"/retry", []byte(bad), jtAuth...)
		if r.Code != http.StatusBadRequest {
			t.Errorf("body %s: %d, want 400", bad, r.Code)
		}
	}
	if n, m := env.countEvents("RetryRequested"), env.countEvents("JobRetried")+env.countEvents("RequestAccepted"); n != 1 || m != 4 {
		t.Errorf("%d RetryRequested events (want 1) and %d jobs or links (want the 4 jobs)", n, m)
	}
}

func TestARetryOfAFailedJobCreatesTheNextJobLinkedBothWaysWhichLaterSubmissionsJoin(t *testing.T) {
	env := startJT(t, jtAdmin)
	body := []byte(`{"reason":"the contract is fixed"}`)
	submit := func(n uint64) domain.JobID {
		t.Helper()
		r := env.do(http.MethodPost, "/v2/input-proof", jtBody(domain.InputProof, n))
		r.want(t, http.StatusAccepted, "")
		id, err := domain.ParseJobID(r.jobID(t))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	fail := func(id domain.JobID) {
		env.exec1(id, domain.FailTransaction{At: env.clock.At(0), Label: domain.LabelTransactionReverted, Message: "reverted"})
	}
	old := submit(1)
	fail(old)
	hash := domain.ContentHash(jtRequest(t, domain.InputProof, 1))

	r := env.do(http.MethodPost, "/v1/jobs/"+old.String()+"/retry", body, jtAuth...)
	r.want(t, http.StatusCreated, "")
	var res RetryResult
	if err := json.Unmarshal(r.Env.Result, &res); err != nil || len(res.Retried) != 1 || res.Retried[0].NewJobID != domain.JobIDFor(hash, 1).String() {
		t.Fatalf("retry of a failed job: %s, want the next generation %s", r.Body, domain.JobIDFor(hash, 1))
	}
	next, _ := domain.ParseJobID(res.Retried[0].NewJobID)
	// The old job stays failed, and its history links to the new one; the new one's first event
	// names the old one.
	if j, _ := env.set.Job(old); j.Status != domain.Failure || j.Label != domain.LabelTransactionReverted {
		t.Errorf("the retried job is %s %s, want still failure transaction_reverted", j.Status, j.Label)
	}
	if h := env.do(http.MethodGet, "/v1/jobs/"+old.String()+"/events", nil); !strings.Contains(string(h.Body), `"JobRetried"`) || !strings.Contains(string(h.Body), next.String()) {
		t.Errorf("old job's history has no link to %s: %s", next, h.Body)
	}
	s, err := env.exec.Load(t.Context(), next)
	if err != nil || s.Status != domain.Processing || s.RetryOf == nil || s.RetryOf.JobID != old || s.RetryOf.Reason != "the contract is fixed" || !strings.HasPrefix(s.RetryOf.Who, "admin") {
		t.Fatalf("new job %+v (%v): want processing, accepted as a retry of %s", s.RetryOf, err, old)
	}
	// A later identical submission joins the new job.
	if got := submit(1); got != next {
		t.Errorf("an identical submission after the retry made %s, want to join %s", got, next)
	}
	env.do(http.MethodPost, "/v1/jobs/"+old.String()+"/retry", body, jtAuth...).want(t, http.StatusConflict, labelAlreadyRetried)

	// A retry that crashed after creating the new job and before the link: retrying again
	// links that job, no third one.
	crashed := submit(2)
	fail(crashed)
	hash2 := domain.ContentHash(jtRequest(t, domain.InputProof, 2))
	orphan := domain.JobIDFor(hash2, 1)
	env.exec1(orphan, domain.Accept{At: env.clock.At(0), JobID: orphan, Request: jtRequest(t, domain.InputProof, 2), ContentHash: hash2,
		RetryOf: &domain.RetryOf{JobID: crashed, Who: "admin-x", Reason: "first try"}})
	r = env.do(http.MethodPost, "/v1/jobs/"+crashed.String()+"/retry", body, jtAuth...)
	r.want(t, http.StatusCreated, "")
	res = RetryResult{}
	if err := json.Unmarshal(r.Env.Result, &res); err != nil || len(res.Retried) != 1 || res.Retried[0].NewJobID != orphan.String() {
		t.Fatalf("retry after a crash: %s, want the link to %s", r.Body, orphan)
	}
	// An identical submission came first: its job is not the retry's; refused, nothing appended.
	resubmitted := submit(3)
	fail(resubmitted)
	later := submit(3)
	if later == resubmitted {
		t.Fatal("a submission after a failure joined the failed job")
	}
	r = env.do(http.MethodPost, "/v1/jobs/"+resubmitted.String()+"/retry", body, jtAuth...)
	r.want(t, http.StatusConflict, labelAlreadyRetried)
	if !strings.Contains(r.Env.Error.Message, later.String()) {
		t.Errorf("the refusal %q does not name the later job %s", r.Env.Error.Message, later)
	}
	if n := env.countEvents("JobRetried"); n != 2 {
		t.Errorf("%d JobRetried events, want 2", n)
	}
}

func TestABulkRetryCountsFirstThenRetriesPageByPageAndAResumedRunRetriesEachJobOnce(t *testing.T) {
	env := startJT(t, jtAdmin)
	var failed []domain.JobID
	for n := range uint64(5) {
		id := env.accept(domain.InputProof, n)
		env.exec1(id, domain.FailTransaction{At: env.clock.At(0), Label: domain.LabelTransactionReverted, Message: "reverted"})
		failed = append(failed, id)
	}
	other := env.accept(domain.InputProof, 9)
	env.exec1(other, domain.FailTransaction{At: env.clock.At(0), Label: domain.LabelInsufficientBalance, Message: "fund the key"})
	const filter = "/v1/jobs/retry?status=failure&label=transaction_reverted"
	r := env.do(http.MethodPost, filter, []byte(`{"reason":"bulk","dryRun":true}`), jtAuth...)
	r.want(t, http.StatusOK, "")
	var res RetryResult
	if err := json.Unmarshal(r.Env.Result, &res); err != nil || res.Matched == nil || *res.Matched != 5 || len(res.Sample) != 5 || len(res.Retried) != 0 {
		t.Fatalf("dry run: %s", r.Body)
	}
	if n := env.countEvents("JobRetried"); n != 0 {
		t.Fatalf("a dry run retried %d jobs", n)
	}
	// The first page only, as if interrupted; then the whole run again from the start.
	r = env.do(http.MethodPost, filter+"&limit=2", []byte(`{"reason":"bulk"}`), jtAuth...)
	res = RetryResult{}
	if err := json.Unmarshal(r.Env.Result, &res); err != nil || len(res.Retried) != 2 || res.Next == "" {
		t.Fatalf("first page: %s", r.Body)
	}
	retried, skipped := 0, 0
	cursor := ""
	for range 10 {
		r = env.do(http.MethodPost, filter+"&limit=2"+cursor, []byte(`{"reason":"bulk"}`), jtAuth...)
		r.want(t, http.StatusOK, "")
		res = RetryResult{}
		if err := json.Unmarshal(r.Env.Result, &res); err != nil {
			t.Fatal(err)
		}
		retried, skipped = retried+len(res.Retried), skipped+len(res.Skipped)
		if res.Next == "" {
			break
		}
		cursor = "&cursor=" + res.Next
	}
	if retried != 3 || skipped != 2 {
		t.Errorf("the resumed run retried %d and skipped %d, want the 3 left and the 2 done", retried, skipped)
	}
	for _, id := range failed {
		s, err := env.exec.Load(t.Context(), id)
		if err != nil || s.RetriedAs.IsZero() {
			t.Errorf("job %s was not retried (%v)", id, err)
		}
	}
	if s, _ := env.exec.Load(t.Context(), other); !s.RetriedAs.IsZero() {
		t.Errorf("the job outside the filter was retried")
	}
	if n := env.countEvents("JobRetried"); n != 5 {
		t.Errorf("%d JobRetried events, want 5 (one a job, however many runs)", n)
	}
	env.do(http.MethodPost, "/v1/jobs/retry?status=completed", []byte(`{"reason":"bulk"}`), jtAuth...).want(t, http.StatusBadRequest, domain.LabelValidationFailed)
}

// The operators' actions that change no status reach the transitions stream as "action" events
// with who and why (never the token); action=false leaves them out.
func TestTheTransitionsStreamShowsTheOperatorsActionsThatChangeNoStatus(t *testing.T) {
	env := startJT(t, jtAdmin)
	inFlight := env.accept(domain.InputProof, 1)
	env.exec1(inFlight, env.sign(1))
	parked := env.accept(domain.InputProof, 2)
	env.exec1(parked, domain.ScheduleRetry{At: env.clock.At(0), Step: "prepare", Attempt: 1, Reason: "node unreachable", NextAt: env.clock.Now().Add(time.Minute)})
	failed := env.accept(domain.InputProof, 3)
	env.exec1(failed, domain.FailTransaction{At: env.clock.At(0), Label: domain.LabelTransactionReverted, Message: "reverted"})
	env.do(http.MethodPost, "/v1/jobs/"+inFlight.String()+"/cancel", []byte(`{"reason":"why cancel"}`), jtAuth...).want(t, http.StatusAccepted, "")
	env.do(http.MethodPost, "/v1/jobs/"+parked.String()+"/retry", []byte(`{"reason":"why now"}`), jtAuth...).want(t, http.StatusOK, "")
	r := env.do(http.MethodPost, "/v1/jobs/"+failed.String()+"/retry", []byte(`{"reason":"why again"}`), jtAuth...)
	r.want(t, http.StatusCreated, "")
	var res RetryResult
	if err := json.Unmarshal(r.Env.Result, &res); err != nil || len(res.Retried) != 1 {
		t.Fatal(r.Body)
	}

	st := opOpenStream(t, env.ts.URL+"/v1/transitions?from=0&status=completed", jtAuth...)
	want := []Action{
		{JobID: inFlight.String(), EventType: "CancelRequested", Reason: "why cancel", Status: "tx_in_flight", TxHash: env.sign(1).TxHash},
		{JobID: parked.String(), EventType: "RetryRequested", Reason: "why now", Status: "processing"},
		{JobID: failed.String(), EventType: "JobRetried", Reason: "why again", NewJobID: res.Retried[0].NewJobID},
	}
	for _, w := range want {
		ev := st.event()
		var a Action
		if err := json.Unmarshal([]byte(ev.Data), &a); err != nil || ev.Event != "action" {
			t.Fatalf("event %s %s: %v", ev.Event, ev.Data, err)
		}
		if a.JobID != w.JobID || a.EventType != w.EventType || a.Reason != w.Reason || a.Status != w.Status || a.TxHash != w.TxHash ||
			a.NewJobID != w.NewJobID || a.Kind != "input-proof" || !strings.HasPrefix(a.Who, "admin") || ev.ID != fmt.Sprint(a.Position) {
			t.Errorf("action %s, want %+v", ev.Data, w)
		}
		if strings.Contains(ev.Data, jtToken) {
			t.Errorf("an action event carries the token: %s", ev.Data)
		}
	}
	st.quiet(100 * time.Millisecond)
	off := opOpenStream(t, env.ts.URL+"/v1/transitions?from=0&status=completed&action=false", jtAuth...)
	off.quiet(200 * time.Millisecond)
}
