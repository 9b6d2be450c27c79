package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"relayer/domain"
)

func TestACancelEndsAJobNotYetSentAsksTheEngineToRaceOneInFlightAndThePollingClientSeesWhoAndWhy(t *testing.T) {
	env := startJT(t, jtAdmin)
	queued := env.accept(domain.PublicDecrypt, 1)
	processing := env.accept(domain.InputProof, 2)
	sent := env.accept(domain.InputProof, 3)
	env.exec1(sent, env.sign(3))

	body := []byte(`{"reason":"the contract was misconfigured for an hour"}`)
	env.do(http.MethodPost, "/v1/jobs/"+queued.String()+"/cancel", body).want(t, http.StatusUnauthorized, "unauthorized")
	for _, id := range []domain.JobID{queued, processing} {
		r := env.do(http.MethodPost, "/v1/jobs/"+id.String()+"/cancel", body, jtAuth...)
		r.want(t, http.StatusOK, "")
		var res CancelResult
		if err := json.Unmarshal(r.Env.Result, &res); err != nil || len(res.Cancelled) != 1 || res.Cancelled[0].JobID != id.String() {
			t.Fatalf("cancel %s: %s", id, r.Body)
		}
	}
	// The client polling the decrypt reads a 409 cancelled with the reason.
	r := env.do(http.MethodGet, "/v2/public-decrypt/"+queued.String(), nil)
	r.want(t, http.StatusConflict, domain.LabelCancelled)
	if !strings.Contains(r.Env.Error.Message, "misconfigured") {
		t.Errorf("the poll says %q", r.Env.Error.Message)
	}
	// The history names who cancelled it, never the token.
	h := env.do(http.MethodGet, "/v1/jobs/"+processing.String()+"/events", nil)
	if !strings.Contains(string(h.Body), `"JobCancelled"`) || !strings.Contains(string(h.Body), `"who":"admin-`) || strings.Contains(string(h.Body), jtToken) {
		t.Errorf("history %s", h.Body)
	}
	// A job whose transaction is in flight gets a cancel request (the engine races it with a
	// no-op at its nonce): 202, the job still in tx_in_flight, and a second cancel is refused.
	before := env.countEvents("JobCancelled")
	r = env.do(http.MethodPost, "/v1/jobs/"+sent.String()+"/cancel", body, jtAuth...)
	r.want(t, http.StatusAccepted, "")
	var res CancelResult
	if err := json.Unmarshal(r.Env.Result, &res); err != nil || len(res.Cancelling) != 1 || res.Cancelling[0].From != "tx_in_flight" || len(res.Cancelled) != 0 {
		t.Fatalf("cancel in flight: %s", r.Body)
	}
	if j, _ := env.set.Job(sent); j.Status != domain.TxInFlight {
		t.Errorf("a job whose cancel races its transaction is %s, want tx_in_flight", j.Status)
	}
	env.do(http.MethodPost, "/v1/jobs/"+sent.String()+"/cancel", body, jtAuth...).want(t, http.StatusConflict, labelCancelPending)
	if n := env.countEvents("CancelRequested"); n != 1 {
		t.Errorf("%d CancelRequested events, want 1", n)
	}
	// A job whose receipt is recorded, and one that ended, are past cancelling; nothing is appended.
	mined := env.accept(domain.InputProof, 4)
	env.exec1(mined, env.sign(4), env.receipt(4))
	env.do(http.MethodPost, "/v1/jobs/"+mined.String()+"/cancel", body, jtAuth...).want(t, http.StatusConflict, labelNotCancellable)
	env.do(http.MethodPost, "/v1/jobs/"+queued.String()+"/cancel", body, jtAuth...).want(t, http.StatusConflict, labelNotCancellable)
	env.do(http.MethodPost, "/v1/jobs/"+domain.NewJobID().String()+"/cancel", body, jtAuth...).want(t, http.StatusNotFound, labelNotFound)
	for _, bad := range []string{`{}`, `{"reason":"  "}`, `{"reason":"x","extra":1}`, `not json`, `{"reason":"` + strings.Repeat("y", domain.MaxCancelReason+1) + `"}`} {
		r := env.do(http.MethodPost, "/v1/jobs/"+processing.String()+"/cancel", []byte(bad), jtAuth...)
		if r.Code != http.StatusBadRequest {
			t.Errorf("body %.40s: %d, want 400", bad, r.Code)
		}
	}
	if n := env.countEvents("JobCancelled"); n != before || n != 2 {
		t.Errorf("%d JobCancelled events, want the 2 cancels", n)
	}
}

func TestABulkCancelCountsFirstThenCancelsPageByPageAndARerunFindsNothingMore(t *testing.T) {
	env := startJT(t, jtAdmin)
	var decrypts []domain.JobID
	for n := range uint64(5) {
		decrypts = append(decrypts, env.accept(domain.PublicDecrypt, n))
	}
	proof := env.accept(domain.InputProof, 9)
	body := func(dry bool) []byte {
		if dry {
			return []byte(`{"reason":"bulk test","dryRun":true}`)
		}
		return []byte(`{"reason":"bulk test"}`)
	}
	r := env.do(http.MethodPost, "/v1/jobs/cancel?kind=public-decrypt", body(true), jtAuth...)
	r.want(t, http.StatusOK, "")
	var res CancelResult
	if err := json.Unmarshal(r.Env.Result, &res); err != nil || res.Matched == nil || *res.Matched != 5 || len(res.Sample) != 5 || len(res.Cancelled) != 0 {
		t.Fatalf("dry run: %s", r.Body)
	}
	if n := env.countEvents("JobCancelled"); n != 0 {
		t.Fatalf("a dry run cancelled %d jobs", n)
	}
	// Two a page; the first page only, as if interrupted, then the rest by re-running.
	r = env.do(http.MethodPost, "/v1/jobs/cancel?kind=public-decrypt&limit=2", body(false), jtAuth...)
	r.want(t, http.StatusOK, "")
	res = CancelResult{}
	if err := json.Unmarshal(r.Env.Result, &res); err != nil || len(res.Cancelled) != 2 || res.Next == "" {
		t.Fatalf("first page: %s", r.Body)
	}
	for range 5 {
		r = env.do(http.MethodPost, "/v1/jobs/cancel?kind=public-decrypt&limit=2", body(false), jtAuth...)
		res = CancelResult{}
		if err := json.Unmarshal(r.Env.Result, &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Cancelled) == 0 && res.Next == "" {
			break
		}
	}
	for _, id := range decrypts {
		if j, _ := env.set.Job(id); j.Status != domain.Failure || j.Label != domain.LabelCancelled {
			t.Errorf("decrypt %s: %s %s", id, j.Status, j.Label)
		}
	}
	if j, _ := env.set.Job(proof); j.Status != domain.Processing {
		t.Errorf("the input proof, outside the filter, is %s", j.Status)
	}
	if n := env.countEvents("JobCancelled"); n != 5 {
		t.Errorf("%d JobCancelled events, want 5 (one a job, however many runs)", n)
	}
	env.do(http.MethodPost, "/v1/jobs/cancel?status=completed", body(false), jtAuth...).want(t, http.StatusBadRequest, domain.LabelValidationFailed)
}

func TestAnActionBodyWithTrailingDataOrATwiceGivenReasonIsRefusedAndChangesNothing(t *testing.T) {
	env := startJT(t, jtAdmin)
	queued := env.accept(domain.PublicDecrypt, 1)
	for _, bad := range []string{
		`{"reason":"x"}{"reason":"y"}`,
		`{"reason":"x"} trailing`,
		`{"reason":"first","reason":"second"}`,
		`{"reason":"line one\nline two"}`,
		`{"reason":"\u001b[31mred\u001b[0m"}`,
		`{"reason":"nul\u0000byte"}`,
		`{"reason":"` + strings.Repeat("x", domain.MaxCancelReason+1) + `"}`,
	} {
		for _, action := range []string{"cancel", "retry"} {
			r := env.do(http.MethodPost, "/v1/jobs/"+queued.String()+"/"+action, []byte(bad), jtAuth...)
			if r.Code != http.StatusBadRequest {
				t.Errorf("%s with body %.80s: %d %.300s, want 400 (malformed_json, or validation_failed naming reason)", action, bad, r.Code, r.Body)
			}
			if strings.Contains(bad, "xxxx") && !strings.Contains(string(r.Body), "at most") {
				t.Errorf("%s with a reason too long: %.300s, want a message saying it is too long", action, r.Body)
			}
		}
	}
	if n := env.countEvents("JobCancelled"); n != 0 {
		t.Errorf("a malformed body cancelled the job (%d JobCancelled events)", n)
	}
}
