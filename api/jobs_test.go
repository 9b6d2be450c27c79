package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/eventstore"
	"relayer/projections"
)

func allKinds() []domain.Kind {
	return domain.Kinds()
}

func TestASubmissionIsAcceptedWith202AndAGetRightAfterFindsItsJob(t *testing.T) {
	env := startJT(t)
	for _, k := range allKinds() {
		res := env.do("POST", "/v2/"+k.String(), jtBody(k, 1))
		res.want(t, http.StatusAccepted, "")
		if res.Env.Status != "queued" {
			t.Fatalf("%s: status %q, want queued", k, res.Env.Status)
		}
		id := res.jobID(t)
		if res.Header.Get("Retry-After") == "" {
			t.Fatalf("%s: no Retry-After", k)
		}
		got := env.do("GET", "/v2/"+k.String()+"/"+id, nil)
		got.want(t, http.StatusAccepted, "")
		var r struct {
			JobID          string `json:"jobId"`
			State          string `json:"state"`
			EtaSeconds     *int   `json:"etaSeconds"`
			ElapsedSeconds *int   `json:"elapsedSeconds"`
		}
		if err := json.Unmarshal(got.Env.Result, &r); err != nil {
			t.Fatal(err)
		}
		if r.JobID != id || r.State != k.InitialStatus().String() || r.EtaSeconds == nil || r.ElapsedSeconds == nil {
			t.Fatalf("%s: result %s", k, got.Env.Result)
		}
		if got.Env.RequestID == res.Env.RequestID {
			t.Fatalf("two calls share the request id %s", got.Env.RequestID)
		}
	}
}

func TestAGetRightAfterEach202NeverAnswers404(t *testing.T) {
	env := startJT(t)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for w := range 4 {
		wg.Go(func() {
			for i := range 50 {
				k := allKinds()[i%3]
				n := uint64(1000 + w*100 + i)
				res, err := jtTry(client, env.ts.URL, "POST", "/v2/"+k.String(), jtBody(k, n))
				if err != nil || res.Code != http.StatusAccepted {
					errs <- fmt.Errorf("POST %d: %s %v", res.Code, res.Body, err)
					return
				}
				got, err := jtTry(client, env.ts.URL, "GET", "/v2/"+k.String()+"/"+res.jobIDOf(), nil)
				if err != nil || got.Code != http.StatusAccepted {
					errs <- fmt.Errorf("GET right after 202: %d %s %v", got.Code, got.Body, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestEveryValidationLabelIsA400WithItsFieldDetails(t *testing.T) {
	env := startJT(t)
	cases := []struct {
		name, body, label, field string
	}{
		{"not JSON", `{"contractChainId": 1337,`, domain.LabelMalformedJSON, ""},
		{"missing fields", `{"contractChainId": 1337, "extraData": "0x00"}`, domain.LabelMissingFields, "contractAddress"},
		{"a wrong field", strings.Replace(string(jtBody(domain.InputProof, 1)), jtAddr(2), "0x1234", 1), domain.LabelValidationFailed, "userAddress"},
		{"another host chain", strings.Replace(string(jtBody(domain.InputProof, 1)), "1337", "31337", 1), domain.LabelHostChainIDNotSupported, "contractChainId"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := env.do("POST", "/v2/input-proof", []byte(c.body))
			res.want(t, http.StatusBadRequest, c.label)
			if c.field == "" {
				return
			}
			found := false
			for _, d := range res.Env.Error.Details {
				found = found || (d.Field == c.field && d.Issue != "")
			}
			if !found {
				t.Fatalf("details do not name %s: %s", c.field, res.Body)
			}
		})
	}
	if n := env.countEvents("RequestAccepted"); n != 0 {
		t.Fatalf("refused bodies appended %d jobs", n)
	}
}

func TestABodyOverOneMebibyteIsRefusedWith413(t *testing.T) {
	env := startJT(t)
	big := []byte(`{"ciphertextWithInputVerification":"` + strings.Repeat("ab", 600_000) + `"}`)
	res := env.do("POST", "/v2/input-proof", big)
	res.want(t, http.StatusRequestEntityTooLarge, labelTooLarge)

	// Without a Content-Length (chunked), the limit holds while reading.
	req, _ := http.NewRequest("POST", env.ts.URL+"/v2/input-proof", struct{ *bytes.Reader }{bytes.NewReader(big)})
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = -1
	hres, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	hres.Body.Close()
	if hres.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("chunked body: status %d, want 413", hres.StatusCode)
	}
}

func TestAMalformedJobIDIsA400NamingJobID(t *testing.T) {
	env := startJT(t)
	res := env.do("GET", "/v2/input-proof/not-a-uuid", nil)
	res.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
	if len(res.Env.Error.Details) != 1 || res.Env.Error.Details[0].Field != "jobId" {
		t.Fatalf("details: %s", res.Body)
	}
}

func TestAnUnknownJobOrAJobOfAnotherKindIs404(t *testing.T) {
	env := startJT(t)
	env.do("GET", "/v2/public-decrypt/"+domain.NewJobID().String(), nil).want(t, http.StatusNotFound, labelNotFound)
	id := env.accept(domain.InputProof, 1)
	env.do("GET", "/v2/input-proof/"+id.String(), nil).want(t, http.StatusAccepted, "")
	env.do("GET", "/v2/user-decrypt/"+id.String(), nil).want(t, http.StatusNotFound, labelNotFound)
}

func TestUnknownPathsAre404AndWrongMethodsAre405(t *testing.T) {
	env := startJT(t)
	env.do("GET", "/v3/nothing", nil).want(t, http.StatusNotFound, labelNotFound)
	res := env.do("DELETE", "/v2/input-proof/"+domain.NewJobID().String(), nil)
	res.want(t, http.StatusMethodNotAllowed, "method_not_allowed")
	if res.Header.Get("Allow") != "GET" {
		t.Fatalf("Allow %q", res.Header.Get("Allow"))
	}
}

func TestAnIdenticalSubmissionAnswersWithTheSameJob(t *testing.T) {
	env := startJT(t)
	for _, k := range allKinds() {
		a := env.do("POST", "/v2/"+k.String(), jtBody(k, 7)).jobID(t)
		b := env.do("POST", "/v2/"+k.String(), jtBody(k, 7)).jobID(t)
		if a != b {
			t.Fatalf("%s: identical submissions got jobs %s and %s", k, a, b)
		}
		other := env.do("POST", "/v2/"+k.String(), jtBody(k, 8)).jobID(t)
		if other == a {
			t.Fatalf("%s: a different request got the same job", k)
		}
	}
	// A user decrypt with another signature (a forged copy, say) is another request: it never
	// joins the genuine one's job.
	body := bytes.Replace(jtBody(domain.UserDecrypt, 7), []byte(fmt.Sprintf("%0128x1b", 8)), []byte(fmt.Sprintf("%0128x1b", 999)), 1)
	if bytes.Equal(body, jtBody(domain.UserDecrypt, 7)) {
		t.Fatal("the test did not change the signature")
	}
	first := env.do("POST", "/v2/user-decrypt", jtBody(domain.UserDecrypt, 7)).jobID(t)
	if forged := env.do("POST", "/v2/user-decrypt", body).jobID(t); forged == first {
		t.Fatalf("a user decrypt with another signature joined job %s", first)
	}
	// A completed job still answers identical submissions.
	id, _ := domain.ParseJobID(env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 11)).jobID(t))
	env.exec1(id, env.sign(1), env.receipt(1), domain.Complete{At: env.clock.At(0), Result: domain.Result{InputProof: &domain.InputProofResult{Accepted: true, Handles: []string{jtHandle(1)}, Signatures: []string{"0xab"}, ExtraData: "0x00"}}})
	if again := env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 11)).jobID(t); again != id.String() {
		t.Fatalf("after completion: job %s, want %s", again, id)
	}
	if n, want := env.countEvents("RequestAccepted"), 2*len(allKinds())+2; n != want {
		t.Fatalf("%d jobs accepted, want %d", n, want)
	}
}

func TestAfterAFailureOrATimeoutAnIdenticalSubmissionStartsANewJob(t *testing.T) {
	env := startJT(t)
	first := env.do("POST", "/v2/public-decrypt", jtBody(domain.PublicDecrypt, 3)).jobID(t)
	id, _ := domain.ParseJobID(first)
	env.exec1(id, domain.FailReadiness{At: env.clock.At(0), Label: domain.LabelNotAllowedOnHostACL, Message: "denied"})
	second := env.do("POST", "/v2/public-decrypt", jtBody(domain.PublicDecrypt, 3)).jobID(t)
	if second == first {
		t.Fatal("an identical submission after a failure answered with the failed job")
	}
	if again := env.do("POST", "/v2/public-decrypt", jtBody(domain.PublicDecrypt, 3)).jobID(t); again != second {
		t.Fatalf("the new job %s does not answer identical submissions (got %s)", second, again)
	}
	id2, _ := domain.ParseJobID(second)
	env.exec1(id2, domain.TimeOutReadiness{At: env.clock.At(0)})
	third := env.do("POST", "/v2/public-decrypt", jtBody(domain.PublicDecrypt, 3)).jobID(t)
	if third == second || third == first {
		t.Fatal("an identical submission after a timeout answered with an ended job")
	}
	// The jobs of one content are its generations 0, 1 and 2.
	hash := domain.ContentHash(jtRequest(t, domain.PublicDecrypt, 3))
	for g, got := range []string{first, second, third} {
		if want := domain.JobIDFor(hash, uint32(g)).String(); got != want {
			t.Fatalf("job %d is %s, want generation %d's id %s", g, got, g, want)
		}
	}
}

// A content whose jobs keep failing after their transaction was sent is not retried at once
// forever (each try costs a transaction): after projections.FreeGenerations such failures, the next job waits
// a doubling backoff, refused meanwhile with 429 rate_limited and the exact Retry-After, and
// nothing appended. Failures before any transaction do not count: anyone could cause those.
func TestARequestThatKeepsFailingWaitsADoublingBackoffBeforeItsNextJob(t *testing.T) {
	env := startJT(t)
	body := jtBody(domain.PublicDecrypt, 77)
	nonce := 0
	failOnChain := func(id string) {
		t.Helper()
		jid, _ := domain.ParseJobID(id)
		nonce++
		env.exec1(jid, domain.StartReadiness{At: env.clock.At(0)}, domain.PassReadiness{At: env.clock.At(0)}, env.sign(nonce),
			domain.Fail{At: env.clock.At(0), Label: "transaction_reverted", Message: "reverted"})
	}
	failEarly := func(id string) {
		t.Helper()
		jid, _ := domain.ParseJobID(id)
		env.exec1(jid, domain.FailReadiness{At: env.clock.At(0), Label: domain.LabelNotAllowedOnHostACL, Message: "denied"})
	}
	// Ten failures at the readiness check cost nothing: the next job starts at once.
	for range 10 {
		r := env.do("POST", "/v2/public-decrypt", body)
		r.want(t, http.StatusAccepted, "")
		failEarly(r.jobID(t))
	}
	for range projections.FreeGenerations {
		r := env.do("POST", "/v2/public-decrypt", body)
		r.want(t, http.StatusAccepted, "")
		failOnChain(r.jobID(t))
	}
	for g, want := range []int{1, 2, 4} {
		before := env.countEvents("RequestAccepted")
		r := env.do("POST", "/v2/public-decrypt", body)
		r.want(t, http.StatusTooManyRequests, labelRateLimited)
		if got := r.retryAfter(t); got != want {
			t.Fatalf("after %d failures: Retry-After %d, want %d", projections.FreeGenerations+g, got, want)
		}
		if !strings.Contains(r.Env.Error.Message, fmt.Sprintf("failed or timed out %d times", projections.FreeGenerations+g)) || env.countEvents("RequestAccepted") != before {
			t.Fatalf("refusal %s (accepted events %d -> %d)", r.Body, before, env.countEvents("RequestAccepted"))
		}
		env.clock.Advance(time.Duration(want)*time.Second - time.Millisecond)
		r = env.do("POST", "/v2/public-decrypt", body)
		r.want(t, http.StatusTooManyRequests, labelRateLimited)
		// retryAfterMs is the exact wait, Retry-After its ceiling in seconds (found by an outside
		// probe: retryAfterMs was Retry-After times 1000).
		var denied struct {
			RetryAfterMs int `json:"retryAfterMs"`
		}
		if err := json.Unmarshal(r.Body, &denied); err != nil || denied.RetryAfterMs != 1 || r.retryAfter(t) != 1 {
			t.Fatalf("a millisecond before the backoff ends: retryAfterMs %d, Retry-After %d (%v); want 1 and 1", denied.RetryAfterMs, r.retryAfter(t), err)
		}
		env.clock.Advance(time.Millisecond)
		r = env.do("POST", "/v2/public-decrypt", body)
		r.want(t, http.StatusAccepted, "")
		failOnChain(r.jobID(t))
	}
	if got, want := projections.ContentBackoff(projections.MaxGenerations-1), projections.MaxContentBackoff; got != want {
		t.Fatalf("the backoff of the last generation is %s, want the cap %s", got, want)
	}
}

// The failures that cost a transaction are counted over every job of the content the read
// models hold: found by an outside probe, a client that made its request fail early
// 64 times (projections.LookBack) between two costly failures pushed the costly ones out of the
// generations counted, and had its free tries back.
func TestFailuresBeforeAnyTransactionDoNotWashOutTheCostlyOnes(t *testing.T) {
	env := startJT(t)
	body := jtBody(domain.PublicDecrypt, 78)
	nonce := 0
	submit := func(code int) jtResponse {
		t.Helper()
		r := env.do("POST", "/v2/public-decrypt", body)
		r.want(t, code, "")
		return r
	}
	failOnChain := func() {
		t.Helper()
		jid, _ := domain.ParseJobID(submit(http.StatusAccepted).jobID(t))
		nonce++
		env.exec1(jid, domain.StartReadiness{At: env.clock.At(0)}, domain.PassReadiness{At: env.clock.At(0)}, env.sign(nonce),
			domain.Fail{At: env.clock.At(0), Label: "transaction_reverted", Message: "reverted"})
	}
	costly := projections.FreeGenerations + 2
	for n := range costly {
		failOnChain()
		env.clock.Advance(projections.ContentBackoff(uint32(n + 1)))
	}
	for range projections.LookBack {
		jid, _ := domain.ParseJobID(submit(http.StatusAccepted).jobID(t))
		env.exec1(jid, domain.FailReadiness{At: env.clock.At(0), Label: domain.LabelNotAllowedOnHostACL, Message: "denied"})
	}
	failOnChain()
	r := env.do("POST", "/v2/public-decrypt", body)
	r.want(t, http.StatusTooManyRequests, labelRateLimited)
	if got, want := r.retryAfter(t), int(projections.ContentBackoff(uint32(costly+1))/time.Second); got != want {
		t.Fatalf("after %d costly failures and %d early ones: Retry-After %d, want %d", costly+1, projections.LookBack, got, want)
	}
}

func TestAHundredConcurrentIdenticalSubmissionsCreateOneJob(t *testing.T) {
	env := startJT(t)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 100, MaxConnsPerHost: 100}}
	defer client.CloseIdleConnections()
	for _, k := range allKinds() {
		ids := make(chan string, 100)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for range 100 {
			wg.Go(func() {
				<-start
				res, err := jtTry(client, env.ts.URL, "POST", "/v2/"+k.String(), jtBody(k, 42))
				if err != nil || res.Code != http.StatusAccepted {
					t.Errorf("status %d: %s %v", res.Code, res.Body, err)
					ids <- ""
					return
				}
				ids <- res.jobIDOf()
			})
		}
		close(start)
		wg.Wait()
		close(ids)
		seen := map[string]int{}
		for id := range ids {
			seen[id]++
		}
		if len(seen) != 1 {
			t.Fatalf("%s: 100 identical submissions got %d jobs: %v", k, len(seen), seen)
		}
	}
	if n := env.countEvents("RequestAccepted"); n != len(allKinds()) {
		t.Fatalf("%d RequestAccepted events in the store, want %d (one per kind)", n, len(allKinds()))
	}
}

func TestAnAcceptedJobTheProjectionsMayNotShowYetAnswersAnIdenticalSubmission(t *testing.T) {
	env := startJT(t)
	req := jtRequest(t, domain.InputProof, 5)
	id := domain.JobIDFor(domain.ContentHash(req), 0)
	// Another instance (or a submission a moment earlier) accepted generation 0 straight into the
	// log; whether or not the projections have applied it when the POST arrives, the POST answers
	// with it and appends nothing.
	if _, err := env.exec.Execute(context.Background(), id, domain.Accept{At: env.clock.At(0), JobID: id, Request: req, ContentHash: domain.ContentHash(req)}, eventstore.Metadata{}); err != nil {
		t.Fatal(err)
	}
	res := env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 5))
	res.want(t, http.StatusAccepted, "")
	if res.jobID(t) != id.String() {
		t.Fatalf("job %s, want the accepted %s", res.jobID(t), id)
	}
	env.do("GET", "/v2/input-proof/"+id.String(), nil).want(t, http.StatusAccepted, "")
	if n := env.countEvents("RequestAccepted"); n != 1 {
		t.Fatalf("%d jobs accepted, want 1", n)
	}
}

func TestAJobThatEndedWithoutAResultSendsTheNextSubmissionToTheNextGeneration(t *testing.T) {
	env := startJT(t)
	req := jtRequest(t, domain.PublicDecrypt, 9)
	hash := domain.ContentHash(req)
	// Generation 0 was accepted and failed, straight into the log.
	g0 := domain.JobIDFor(hash, 0)
	env.exec1(g0, domain.Accept{At: env.clock.At(0), JobID: g0, Request: req, ContentHash: hash},
		domain.FailReadiness{At: env.clock.At(0), Label: domain.LabelNotAllowedOnHostACL, Message: "denied"})
	res := env.do("POST", "/v2/public-decrypt", jtBody(domain.PublicDecrypt, 9))
	res.want(t, http.StatusAccepted, "")
	if want := domain.JobIDFor(hash, 1).String(); res.jobID(t) != want {
		t.Fatalf("job %s, want generation 1's %s", res.jobID(t), want)
	}
	if n := env.countEvents("RequestAccepted"); n != 2 {
		t.Fatalf("%d jobs accepted, want 2", n)
	}
}

// jtCompute is the policy's answer for the given input with the server's runtime parameters,
// nominal ones: the tests that compare with it run with the adaptive mode off (jtNominal) or
// set a runtime configuration without it.
func jtCompute(env *jtEnv, in retryafter.Input) retryafter.Estimate {
	return retryafter.Compute(env.srv.runtime().retry, in)
}

func TestRetryAfterOnAPostIsThePolicysAnswerForThePositionTheJobTook(t *testing.T) {
	env := startJT(t, jtNominal)
	for i := range 7 {
		env.accept(domain.InputProof, uint64(100+i)) // TX queue: positions 0..6
	}
	for i := range 4 {
		env.accept(domain.UserDecrypt, uint64(200+i)) // readiness queue: 0..3
	}
	res := env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 1))
	want := jtCompute(env, retryafter.Input{Kind: retryafter.InputProof, Status: retryafter.Processing, Stage: retryafter.StageTxQueue, Position: 7, TxQueueLen: 8})
	if got := res.retryAfter(t); got != want.Seconds {
		t.Fatalf("input proof at position 7: Retry-After %d, want %d", got, want.Seconds)
	}
	res = env.do("POST", "/v2/public-decrypt", jtBody(domain.PublicDecrypt, 1))
	want = jtCompute(env, retryafter.Input{Kind: retryafter.PublicDecrypt, Status: retryafter.Queued, Stage: retryafter.StageReadinessQueue, Position: 4, TxQueueLen: 8})
	if got := res.retryAfter(t); got != want.Seconds {
		t.Fatalf("public decrypt at readiness position 4: Retry-After %d, want %d", got, want.Seconds)
	}
	// Large queues make the numbers differ from the minimum.
	env.srv.rt.Store(&runtimeConfig{retry: func() retryafter.Config { c := retryafter.DefaultConfig(); c.InputProofTPS = 0.5; return c }(),
		capacity: DefaultQueueCapacity, rate: env.cfg.RateLimit})
	res = env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 2))
	want = jtCompute(env, retryafter.Input{Kind: retryafter.InputProof, Status: retryafter.Processing, Stage: retryafter.StageTxQueue, Position: 8, TxQueueLen: 9})
	if got := res.retryAfter(t); got != want.Seconds || got < 15 {
		t.Fatalf("input proof at position 8 with D=0.5: Retry-After %d, want %d (>= 15)", got, want.Seconds)
	}
}

func TestRetryAfterOnAGetIsThePolicysAnswerForTheJobsPositionAndElapsedTime(t *testing.T) {
	env := startJT(t)
	env.srv.rt.Store(&runtimeConfig{retry: func() retryafter.Config {
		c := retryafter.DefaultConfig()
		c.UserDecryptTPS = 2
		c.InputProofTPS = 2
		return c
	}(),
		capacity: DefaultQueueCapacity, rate: env.cfg.RateLimit})
	var ud []domain.JobID
	for i := range 6 {
		ud = append(ud, env.accept(domain.UserDecrypt, uint64(i)))
	}
	var ip []domain.JobID
	for i := range 3 {
		ip = append(ip, env.accept(domain.InputProof, uint64(i)))
	}
	// ud[0], ud[1]: readiness checks running; ud[2]: passed (TX queue position 3, after the
	// input proofs); ud[3..5]: readiness queue positions 0..2.
	env.clock.Advance(3 * time.Second)
	env.exec1(ud[0], domain.StartReadiness{At: env.clock.At(0)})
	env.exec1(ud[1], domain.StartReadiness{At: env.clock.At(0)})
	env.exec1(ud[2], domain.StartReadiness{At: env.clock.At(0)}, domain.PassReadiness{At: env.clock.At(0)})
	// ip[0] in flight, ip[1] with its receipt.
	env.exec1(ip[0], env.sign(0))
	env.exec1(ip[1], env.sign(1), env.receipt(1))
	env.clock.Advance(90 * time.Second) // E: 90 s in receipt_received: the 60s-2m step (10 s)

	txLen := int64(2) // ip[2], ud[2]
	cases := []struct {
		name string
		kind domain.Kind
		id   domain.JobID
		in   retryafter.Input
	}{
		{"readiness queue position 2", domain.UserDecrypt, ud[5], retryafter.Input{Kind: retryafter.UserDecrypt, Status: retryafter.Queued, Stage: retryafter.StageReadinessQueue, Position: 2, TxQueueLen: txLen}},
		{"readiness check running", domain.UserDecrypt, ud[1], retryafter.Input{Kind: retryafter.UserDecrypt, Status: retryafter.Queued, Stage: retryafter.StageReadinessInProgress, Position: 1, TxQueueLen: txLen}},
		{"TX queue position 1", domain.UserDecrypt, ud[2], retryafter.Input{Kind: retryafter.UserDecrypt, Status: retryafter.Processing, Stage: retryafter.StageTxQueue, Position: 1, TxQueueLen: txLen}},
		{"input proof TX queue position 0", domain.InputProof, ip[2], retryafter.Input{Kind: retryafter.InputProof, Status: retryafter.Processing, Stage: retryafter.StageTxQueue, Position: 0, TxQueueLen: txLen}},
		{"tx in flight", domain.InputProof, ip[0], retryafter.Input{Kind: retryafter.InputProof, Status: retryafter.TxInFlight, Elapsed: 90 * time.Second}},
		{"receipt received 90 s ago", domain.InputProof, ip[1], retryafter.Input{Kind: retryafter.InputProof, Status: retryafter.ReceiptReceived, Elapsed: 90 * time.Second}},
	}
	for _, c := range cases {
		res := env.do("GET", "/v2/"+c.kind.String()+"/"+c.id.String(), nil)
		res.want(t, http.StatusAccepted, "")
		want := jtCompute(env, c.in)
		if got := res.retryAfter(t); got != want.Seconds {
			t.Errorf("%s: Retry-After %d, want %d (%s)", c.name, got, want.Seconds, res.Body)
		}
		var r struct {
			EtaSeconds     int64 `json:"etaSeconds"`
			ElapsedSeconds int64 `json:"elapsedSeconds"`
			QueuePosition  *int  `json:"queuePosition"`
		}
		_ = json.Unmarshal(res.Env.Result, &r)
		if r.EtaSeconds != want.EtaSeconds {
			t.Errorf("%s: etaSeconds %d, want %d", c.name, r.EtaSeconds, want.EtaSeconds)
		}
		if c.in.Stage != retryafter.StageAuto && (r.QueuePosition == nil || int64(*r.QueuePosition) != c.in.Position) {
			t.Errorf("%s: queuePosition %v, want %d", c.name, r.QueuePosition, c.in.Position)
		}
		if c.in.Elapsed > 0 && r.ElapsedSeconds != int64(c.in.Elapsed/time.Second) {
			t.Errorf("%s: elapsedSeconds %d, want %d", c.name, r.ElapsedSeconds, c.in.Elapsed/time.Second)
		}
	}
	// The receipt's backoff follows the real elapsed time: past 15 minutes it is 300 s.
	env.clock.Advance(15 * time.Minute)
	if got := env.do("GET", "/v2/input-proof/"+ip[1].String(), nil).retryAfter(t); got != 300 {
		t.Fatalf("receipt received 16.5 min ago: Retry-After %d, want 300", got)
	}
}

func TestCompletedJobsAnswer200WithTheirKindsResultInThePublicShape(t *testing.T) {
	env := startJT(t)
	ip := env.accept(domain.InputProof, 1)
	env.exec1(ip, env.sign(1), env.receipt(1), domain.Complete{At: env.clock.At(0), Result: domain.Result{InputProof: &domain.InputProofResult{
		Accepted: true, Handles: []string{jtHandle(1)}, Signatures: []string{"0xaa", "0xbb"}, ExtraData: "0x00"}}})
	rej := env.accept(domain.InputProof, 2)
	env.exec1(rej, env.sign(2), env.receipt(2), domain.RejectProof{At: env.clock.At(0), ExtraData: "0x01"})
	pd := env.accept(domain.PublicDecrypt, 3)
	env.exec1(pd, domain.PassReadiness{At: env.clock.At(0)}, env.sign(3), env.receipt(3), domain.Complete{At: env.clock.At(0), Result: domain.Result{PublicDecrypt: &domain.PublicDecryptResult{
		DecryptedValue: "0x2a", Signatures: []string{"0xcc"}, ExtraData: "0x00"}}})
	ud := env.accept(domain.UserDecrypt, 4)
	env.exec1(ud, domain.PassReadiness{At: env.clock.At(0)}, env.sign(4), env.receipt(4))
	for i := range 2 {
		env.exec1(ud, domain.RecordShare{At: env.clock.At(0), Threshold: 2, Share: domain.Share{Signer: jtAddr(uint64(50 + i)), Payload: fmt.Sprintf("0x%02x", i), Signature: "0xdd", ExtraData: "0x00"}})
	}
	dd := env.accept(domain.DelegatedUserDecrypt, 5)
	env.exec1(dd, domain.PassReadiness{At: env.clock.At(0)}, env.sign(5), env.receipt(5))
	for i := range 2 {
		env.exec1(dd, domain.RecordShare{At: env.clock.At(0), Threshold: 2, Share: domain.Share{Signer: jtAddr(uint64(60 + i)), Payload: fmt.Sprintf("0x%02x", 10+i), Signature: "0xee", ExtraData: "0x00"}})
	}
	cases := []struct {
		kind domain.Kind
		id   domain.JobID
		want string
	}{
		{domain.DelegatedUserDecrypt, dd, `{"result":[{"payload":"0x0a","signature":"0xee","extraData":"0x00"},{"payload":"0x0b","signature":"0xee","extraData":"0x00"}]}`},
		{domain.InputProof, ip, `{"accepted":true,"handles":["` + jtHandle(1) + `"],"signatures":["0xaa","0xbb"],"extraData":"0x00"}`},
		{domain.InputProof, rej, `{"accepted":false,"handles":[],"signatures":[],"extraData":"0x01"}`},
		{domain.PublicDecrypt, pd, `{"decryptedValue":"0x2a","signatures":["0xcc"],"extraData":"0x00"}`},
		{domain.UserDecrypt, ud, `{"result":[{"payload":"0x00","signature":"0xdd","extraData":"0x00"},{"payload":"0x01","signature":"0xdd","extraData":"0x00"}]}`},
	}
	for _, c := range cases {
		res := env.do("GET", "/v2/"+c.kind.String()+"/"+c.id.String(), nil)
		res.want(t, http.StatusOK, "")
		if res.Env.Status != "succeeded" {
			t.Fatalf("status %q", res.Env.Status)
		}
		var got, want any
		_ = json.Unmarshal(res.Env.Result, &got)
		_ = json.Unmarshal([]byte(c.want), &want)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s result:\n got %s\nwant %s", c.kind, res.Env.Result, c.want)
		}
		if res.Header.Get("Retry-After") != "" {
			t.Fatalf("a finished job has Retry-After %q", res.Header.Get("Retry-After"))
		}
	}
}

func TestFailedJobsMapTheirLabelsOntoTheirStatusCodes(t *testing.T) {
	env := startJT(t)
	acl := env.accept(domain.UserDecrypt, 1)
	env.exec1(acl, domain.FailReadiness{At: env.clock.At(0), Label: domain.LabelNotAllowedOnHostACL, Message: "not allowed"})
	rto := env.accept(domain.PublicDecrypt, 2)
	env.exec1(rto, domain.TimeOutReadiness{At: env.clock.At(0)})
	resp := env.accept(domain.InputProof, 3)
	env.exec1(resp, env.sign(3), env.receipt(3), domain.TimeOutResponse{At: env.clock.At(0)})
	paused := env.accept(domain.InputProof, 4)
	env.exec1(paused, domain.Fail{At: env.clock.At(0), Label: domain.LabelProtocolPaused, Message: "paused"})
	rev := env.accept(domain.PublicDecrypt, 5)
	env.exec1(rev, domain.PassReadiness{At: env.clock.At(0)}, env.sign(5), domain.FailTransaction{At: env.clock.At(0), Label: domain.LabelTransactionReverted, Message: "execution reverted"})
	unreachable := env.accept(domain.InputProof, 7)
	env.exec1(unreachable, domain.ScheduleRetry{At: env.clock.At(0), Step: "prepare", Attempt: 1, Reason: "transport error", NextAt: env.clock.Now().Add(time.Second), Label: domain.LabelGatewayNotReachable},
		domain.ExpireProcessing{At: env.clock.At(0), Label: domain.LabelGatewayNotReachable, Message: "nothing was sent"})
	broke := env.accept(domain.InputProof, 6)
	env.exec1(broke, domain.FailTransaction{At: env.clock.At(0), Label: domain.LabelInsufficientBalance, Message: "insufficient funds for gas * price + value"})
	aclDown := env.accept(domain.DelegatedUserDecrypt, 8)
	env.exec1(aclDown, domain.FailReadiness{At: env.clock.At(0), Label: domain.LabelHostACLFailed, Message: "call isAllowed: execution reverted"})

	cases := []struct {
		kind         domain.Kind
		id           domain.JobID
		code         int
		label, cause string
	}{
		{domain.UserDecrypt, acl, 400, domain.LabelNotAllowedOnHostACL, ""},
		{domain.PublicDecrypt, rto, 503, domain.LabelReadinessCheckTimedOut, ""},
		{domain.InputProof, resp, 503, domain.LabelResponseTimedOut, ""},
		{domain.InputProof, paused, 503, domain.LabelProtocolPaused, ""},
		{domain.PublicDecrypt, rev, 500, domain.LabelInternalServerError, domain.LabelTransactionReverted},
		{domain.InputProof, broke, 503, domain.LabelInsufficientBalance, ""},
		{domain.InputProof, unreachable, 503, domain.LabelGatewayNotReachable, ""},
		{domain.DelegatedUserDecrypt, aclDown, 500, domain.LabelHostACLFailed, ""},
	}
	for _, c := range cases {
		res := env.do("GET", "/v2/"+c.kind.String()+"/"+c.id.String(), nil)
		res.want(t, c.code, c.label)
		if res.Env.Status != "failed" || res.Env.Error.Message == "" {
			t.Fatalf("%s: %s", c.label, res.Body)
		}
		if res.Env.Error.Cause != c.cause {
			t.Fatalf("%s: cause %q, want %q", c.label, res.Env.Error.Cause, c.cause)
		}
		if c.cause != "" && !strings.HasPrefix(res.Env.Error.Message, c.cause+": ") {
			t.Fatalf("the message does not show the job's own label: %q", res.Env.Error.Message)
		}
	}
}

func TestLoadSheddingAnswers429WithTheEtaOfThePositionItWouldTakeAndAppendsNothing(t *testing.T) {
	env := startJT(t, jtNominal, func(c *Config) { c.QueueCapacity = 12; c.ShedMargin = 2 })
	for i := range 10 {
		env.accept(domain.InputProof, uint64(100+i))
	}
	before := env.countEvents("RequestAccepted")
	res := env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 1))
	res.want(t, http.StatusTooManyRequests, labelRateLimited)
	want := jtCompute(env, retryafter.Input{Kind: retryafter.InputProof, Status: retryafter.Processing, Stage: retryafter.StageTxQueue, Position: 10, TxQueueLen: 10})
	if got := res.retryAfter(t); got != want.Seconds {
		t.Fatalf("Retry-After %d, want %d", got, want.Seconds)
	}
	if res.Env.RetryAfterMs == nil || *res.Env.RetryAfterMs != want.Seconds*1000 {
		t.Fatalf("retryAfterMs: %s", res.Body)
	}
	if n := env.countEvents("RequestAccepted"); n != before {
		t.Fatalf("a shed submission appended a job")
	}
	// Decrypts join the readiness queue, which has room; a duplicate of a queued job is answered.
	env.do("POST", "/v2/public-decrypt", jtBody(domain.PublicDecrypt, 1)).want(t, http.StatusAccepted, "")
	// The Retry-After grows with the queue (it is not a constant).
	env.srv.rt.Store(&runtimeConfig{retry: func() retryafter.Config { c := retryafter.DefaultConfig(); c.InputProofTPS = 0.1; return c }(),
		capacity: 12, margin: 2, rate: env.cfg.RateLimit})
	slow := env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 1))
	if slow.Code != 429 || slow.retryAfter(t) <= res.retryAfter(t) {
		t.Fatalf("with D=0.1 Retry-After %d, with D=10 %d", slow.retryAfter(t), res.retryAfter(t))
	}
}

func TestTheCorrelationIDIsTakenFromTheHeaderOrTheRequestIDAndStoredWithTheEvents(t *testing.T) {
	env := startJT(t)
	res := env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 1), "X-Correlation-ID", "checkout-42")
	res.want(t, http.StatusAccepted, "")
	if res.Header.Get("X-Correlation-ID") != "checkout-42" {
		t.Fatalf("X-Correlation-ID echoed as %q", res.Header.Get("X-Correlation-ID"))
	}
	res2 := env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 2))
	want := map[string]string{res.jobID(t): "checkout-42", res2.jobID(t): res2.Env.RequestID}
	for rec, err := range env.store.ReadAll(context.Background(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		id, ok := domain.JobIDFromStream(rec.Stream)
		if !ok {
			continue
		}
		if rec.Metadata.CorrelationID != want[id.String()] {
			t.Fatalf("%s %s: correlation id %q, want %q", rec.Stream, rec.Type, rec.Metadata.CorrelationID, want[id.String()])
		}
	}
	if !strings.Contains(env.logs.String(), "correlation_id=checkout-42") {
		t.Fatalf("the log does not carry the correlation id:\n%s", env.logs.String())
	}
	for _, bad := range []string{strings.Repeat("x", 129), "tab\there"} {
		r := env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 3), "X-Correlation-ID", bad)
		r.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
		if r.Env.Error.Details[0].Field != "X-Correlation-ID" {
			t.Fatalf("details: %s", r.Body)
		}
	}
}

func TestAdaptiveModeFeedsTheObservedStatsIntoRetryAfter(t *testing.T) {
	env := startJT(t, func(c *Config) { c.AdaptiveRetryAfter = true; c.RetryAfter.AdaptiveMinSamples = 3 })
	// Three input proofs whose response took 40 s each (the nominal P is 2 s).
	for i := range 3 {
		id := env.accept(domain.InputProof, uint64(10+i))
		env.exec1(id, env.sign(10+i), env.receipt(10+i))
		env.clock.Advance(40 * time.Second)
		env.exec1(id, domain.Complete{At: env.clock.At(0), Result: domain.Result{InputProof: &domain.InputProofResult{Accepted: true, Handles: []string{}, Signatures: []string{}, ExtraData: "0x00"}}})
	}
	id := env.accept(domain.InputProof, 99)
	env.exec1(id, env.sign(99))
	env.clock.Advance(2 * time.Second) // past the adaptive cache's refresh
	res := env.do("GET", "/v2/input-proof/"+id.String(), nil)
	obs := env.srv.observations(env.srv.runtime(), env.clock.Now())
	if obs.InputProof.Processing.Samples != 3 || obs.InputProof.Processing.Typical != 40*time.Second {
		t.Fatalf("observed processing %+v", obs.InputProof.Processing)
	}
	in := retryafter.Input{Kind: retryafter.InputProof, Status: retryafter.TxInFlight, Elapsed: 2 * time.Second}
	want := retryafter.Compute(retryafter.Adaptive(env.srv.runtime().retry, obs), in)
	if got := res.retryAfter(t); got != want.Seconds || got < 40 {
		t.Fatalf("adaptive Retry-After %d, want %d (>= 40: the observed 40 s response time)", got, want.Seconds)
	}
	nominal := retryafter.Compute(env.srv.runtime().retry, in)
	if nominal.Seconds >= want.Seconds {
		t.Fatalf("nominal %d is not below adaptive %d", nominal.Seconds, want.Seconds)
	}
}

func TestTheInboundRateLimiterGuardsTheV2Endpoints(t *testing.T) {
	env := startJT(t, func(c *Config) {
		c.RateLimit.RollingLimit = 2
		c.RateLimit.Write.RollingLimit = nil
	})
	env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 1)).want(t, http.StatusAccepted, "")
	env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 2)).want(t, http.StatusAccepted, "")
	res := env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 3))
	res.want(t, http.StatusTooManyRequests, labelRateLimited)
	if res.Header.Get("Retry-After") == "" || res.Env.RetryAfterMs == nil {
		t.Fatalf("denied without a hint: %v %s", res.Header, res.Body)
	}
}

func TestNeitherTheAdminTokenNorAnAPIKeyReachesTheLog(t *testing.T) {
	env := startJT(t, jtAdmin)
	env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 1), "X-API-Key", "client-key-5ecret")
	env.do("POST", "/v2/input-proof", []byte(`{`), "X-API-Key", "client-key-5ecret")
	env.admin("POST", `{"param":"input_proof_throttler_tps","value":3}`).want(t, http.StatusOK, "")
	env.do("GET", "/admin/config", nil, "Authorization", "Bearer wrong-token-5ecret")
	logs := env.logs.String()
	if !strings.Contains(logs, "runtime parameter changed") {
		t.Fatalf("the change is not logged:\n%s", logs)
	}
	for _, secret := range []string{jtToken, "client-key-5ecret", "wrong-token-5ecret"} {
		if strings.Contains(logs, secret) {
			t.Fatalf("%q reached the log:\n%s", secret, logs)
		}
	}
}

// Anyone can make a public decrypt's jobs fail early (asking before the handle is public: the
// host ACL refuses it at the readiness check, before any transaction), as often as the rate
// limits let them. Such failures do not wear the request out: after more of them than the 4,096
// that once refused the request for good, it is accepted again at once, as a new job of the next
// generation.
func TestARequestWhoseJobsFailedEarlyThousandsOfTimesIsStillAccepted(t *testing.T) {
	env := startJT(t)
	const failed = 5000
	req := jtRequest(t, domain.PublicDecrypt, 42)
	hash := domain.ContentHash(req)
	// Every generation failed: written from a few goroutines (the store batches their commits),
	// then the projections are waited for once.
	ctx := context.Background()
	var wg sync.WaitGroup
	var last atomic.Uint64
	errs := make(chan error, 16)
	for w := range uint32(16) {
		wg.Go(func() {
			for g := w; g < failed; g += 16 {
				id := domain.JobIDFor(hash, g)
				for _, c := range []domain.Command{
					domain.Accept{At: env.clock.At(0), JobID: id, Request: req, ContentHash: hash},
					domain.Fail{At: env.clock.At(0), Label: domain.LabelInternalServerError, Message: "failed for the test"},
				} {
					out, err := env.exec.Execute(ctx, id, c, eventstore.Metadata{CorrelationID: "test"})
					if err != nil {
						errs <- err
						return
					}
					for p := uint64(out.Position); ; {
						cur := last.Load()
						if p <= cur || last.CompareAndSwap(cur, p) {
							break
						}
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := env.set.WaitFor(ctx, eventstore.Position(last.Load())); err != nil {
		t.Fatal(err)
	}
	before := env.countEvents("RequestAccepted")
	res := env.do("POST", "/v2/public-decrypt", jtBody(domain.PublicDecrypt, 42))
	res.want(t, http.StatusAccepted, "")
	if want := domain.JobIDFor(hash, failed).String(); res.jobIDOf() != want {
		t.Errorf("accepted as job %s, want the next generation's %s", res.jobIDOf(), want)
	}
	if after := env.countEvents("RequestAccepted"); after != before+1 {
		t.Errorf("%d jobs accepted by the submission, want 1", after-before)
	}
	if n := env.set.Generations(hash); n != failed+1 {
		t.Errorf("the read models hold %d generations of the content, want %d", n, failed+1)
	}
}

// jtOutage appends an event of the chain stream and waits for the projections to apply it.
func jtOutage(t *testing.T, env *jtEnv, e eventstore.Typed) {
	t.Helper()
	appendTo(t, env.store, env.set, domain.ChainStream, eventstore.Any, e)
}

// During a chain outage the hint is the job's usual wait plus the outage's age (its likely
// remaining length), on GETs and POSTs; after it, the usual wait again.
func TestRetryAfterDuringAChainOutageAddsTheOutagesAge(t *testing.T) {
	env := startJT(t, jtNominal)
	id := env.accept(domain.InputProof, 1)
	in := retryafter.Input{Kind: retryafter.InputProof, Status: retryafter.Processing, Stage: retryafter.StageTxQueue, Position: 0, TxQueueLen: 1}
	usual := jtCompute(env, in).Seconds
	if got := env.proofHint(id); got != usual {
		t.Fatalf("before the outage: Retry-After %d, want %d", got, usual)
	}
	since := env.clock.Now()
	jtOutage(t, env, domain.ChainOutageStarted{Since: since, Reason: "test", At: since})
	for _, age := range []time.Duration{2 * time.Second, 10 * time.Second, 60 * time.Second} {
		env.clock.Set(since.Add(age))
		in.Outage = age
		want := jtCompute(env, in).Seconds
		if want < usual+int(age/time.Second) {
			t.Fatalf("the policy's hint %d s after %v of outage, below %d + %v", want, age, usual, age)
		}
		if got := env.proofHint(id); got != want {
			t.Fatalf("GET after %v of outage: Retry-After %d, want %d", age, got, want)
		}
	}
	in.Position, in.TxQueueLen = 1, 2
	if got, want := env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 9)).retryAfter(t), jtCompute(env, in).Seconds; got != want {
		t.Fatalf("POST after a minute of outage: Retry-After %d, want %d", got, want)
	}
	jtOutage(t, env, domain.ChainOutageEnded{Since: since, Until: env.clock.Now(), At: env.clock.Now()})
	if got := env.proofHint(id); got != usual {
		t.Fatalf("after the outage: Retry-After %d, want %d again", got, usual)
	}
}

// A job whose transaction could not be prepared waits for its scheduled retry: its hint is the
// wait until then plus its usual wait, and goes back to the usual one once the job moves on.
func TestRetryAfterFollowsAScheduledRetry(t *testing.T) {
	env := startJT(t, jtNominal)
	id := env.accept(domain.InputProof, 1)
	in := retryafter.Input{Kind: retryafter.InputProof, Status: retryafter.Processing, Stage: retryafter.StageTxQueue, Position: 0, TxQueueLen: 1}
	usual := jtCompute(env, in).Seconds
	env.exec1(id, domain.ScheduleRetry{At: env.clock.At(0), Step: "prepare", Attempt: 3, Reason: "transport error", NextAt: env.clock.Now().Add(40 * time.Second)})
	env.clock.Advance(10 * time.Second)
	in.Deferred = 30 * time.Second
	want := jtCompute(env, in).Seconds
	if want < usual+30 {
		t.Fatalf("the policy's hint %d s for a retry 30 s away, below %d + 30", want, usual)
	}
	res := env.do("GET", "/v2/input-proof/"+id.String(), nil)
	if got := res.retryAfter(t); got != want {
		t.Fatalf("GET 30 s before the scheduled retry: Retry-After %d, want %d", got, want)
	}
	// Past the retry's time, nothing more is added.
	env.clock.Advance(45 * time.Second)
	if got := env.proofHint(id); got != usual {
		t.Fatalf("after the scheduled retry: Retry-After %d, want %d", got, usual)
	}
	env.exec1(id, env.sign(1))
	in = retryafter.Input{Kind: retryafter.InputProof, Status: retryafter.TxInFlight}
	if got, want := env.proofHint(id), jtCompute(env, in).Seconds; got != want {
		t.Fatalf("signed: Retry-After %d, want %d (the retry is over)", got, want)
	}
}
