package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"relayer/domain"
	"relayer/projections"
)

// overview reads GET /v1/overview, which must answer 200.
func (e *jtEnv) overview() Overview {
	e.t.Helper()
	r := e.do(http.MethodGet, "/v1/overview", nil)
	r.want(e.t, http.StatusOK, "")
	return jtResult[Overview](e.t, r)
}

func TestTheOverviewCountsJobsListsQueuesWithPositionsAndPairsEachHintWithTheJobsDuration(t *testing.T) {
	env := startJT(t)
	var ids []domain.JobID
	var hints []int
	for n := range uint64(3) {
		r := env.do(http.MethodPost, "/v2/input-proof", jtBody(domain.InputProof, n))
		r.want(t, http.StatusAccepted, "")
		id, err := domain.ParseJobID(r.jobID(t))
		if err != nil {
			t.Fatal(err)
		}
		ids, hints = append(ids, id), append(hints, r.retryAfter(t))
	}
	pd := env.accept(domain.PublicDecrypt, 7) // accepted without a POST: no hint to follow

	env.clock.Advance(1500 * time.Millisecond)
	env.exec1(ids[0], env.sign(1), env.receipt(1), domain.Complete{At: env.clock.At(0), Result: domain.Result{InputProof: &domain.InputProofResult{
		Accepted: true, Handles: []string{jtHandle(1)}, Signatures: []string{"0xab"}, ExtraData: "0x00"}}})

	o := env.overview()
	if got := o.Counts["input-proof"]; got["completed"] != 1 || got["processing"] != 2 {
		t.Errorf("input-proof counts %v, want 1 completed and 2 processing", got)
	}
	if got := o.Counts["public-decrypt"]["queued"]; got != 1 {
		t.Errorf("public-decrypt queued %d, want 1", got)
	}
	if got := o.Entered["input-proof"]["processing"]; got != 3 {
		t.Errorf("input proofs entered processing %d times, want 3", got)
	}
	if len(o.Statuses) != domain.NumStatuses || o.Statuses[0] != "queued" || len(o.Kinds) != len(domain.Kinds()) {
		t.Errorf("kinds %v, statuses %v", o.Kinds, o.Statuses)
	}
	queues := map[string]QueueView{}
	for _, q := range o.Queues {
		queues[q.Name] = q
	}
	tx := queues["tx"]
	if tx.Length != 2 || len(tx.Jobs) != 2 || tx.Jobs[0].JobID != ids[1].String() || tx.Jobs[1].JobID != ids[2].String() ||
		tx.Jobs[0].Ahead != 0 || tx.Jobs[1].Ahead != 1 {
		t.Errorf("the TX queue %+v, want the second then the third input proof, 0 and 1 ahead", tx)
	}
	if rd := queues["readiness"]; rd.Length != 1 || len(rd.Jobs) != 1 || rd.Jobs[0].JobID != pd.String() || rd.Jobs[0].Kind != "public-decrypt" {
		t.Errorf("the readiness queue %+v, want the public decrypt", rd)
	}
	if len(o.Hints.Samples) != 1 || o.Hints.Pending != 2 {
		t.Fatalf("hints %+v, want one sample and two pending", o.Hints)
	}
	s := o.Hints.Samples[0]
	if s.JobID != ids[0].String() || s.Given != hints[0] || s.Took != 1.5 || s.Status != "completed" || s.Kind != "input-proof" {
		t.Errorf("hint sample %+v, want job %s given %d s, took 1.5 s", s, ids[0], hints[0])
	}
	stages := map[string]StageView{}
	for _, st := range o.Stages {
		stages[st.Kind+"/"+st.Stage] = st
	}
	if st, ok := stages["input-proof/tx_queue"]; !ok || st.Count != 1 || st.P50 != 1.5 || st.Mean != 1.5 {
		t.Errorf("input-proof tx_queue stage %+v, want one sample of 1.5 s", st)
	}
	if o.Chain.Outage || o.Position == 0 || o.Jobs != 4 {
		t.Errorf("chain %+v, position %d, jobs %d", o.Chain, o.Position, o.Jobs)
	}

	// A second look reports the same sample once, and the finished job is no longer followed.
	if again := env.overview(); len(again.Hints.Samples) != 1 || again.Hints.Pending != 2 {
		t.Errorf("second overview's hints %+v", again.Hints)
	}
}

func TestTheOverviewIsAnAuditEndpoint(t *testing.T) {
	env := startJT(t, func(c *Config) { c.AuditOpen = false; c.OperatorToken = jtToken })
	env.do(http.MethodGet, "/v1/overview", nil).want(t, http.StatusUnauthorized, "unauthorized")
	env.do(http.MethodGet, "/v1/overview", nil, "Authorization", "Bearer wrong-token-wrong-token-wrong-token").want(t, http.StatusUnauthorized, "unauthorized")
	env.do(http.MethodGet, "/v1/overview", nil, jtAuth...).want(t, http.StatusOK, "")
}

func TestStageQuantilesAreReadOffTheBucketsAsHistogramQuantileDoes(t *testing.T) {
	bounds := projections.HistogramBounds()
	one := -1
	for i, b := range bounds {
		if b == 2500*time.Millisecond {
			one = i
		}
	}
	if one < 1 {
		t.Fatalf("no 2.5 s bound in %v", bounds)
	}
	// 100 samples between 1.2 s and 2 s, all in the bucket (1 s, 2.5 s]: the quantiles are
	// interpolated between the smallest and the largest sample.
	ss := projections.StageStats{Count: 100, Min: 1200 * time.Millisecond, Max: 2 * time.Second}
	ss.Buckets[one] = 100
	for _, c := range []struct{ q, want float64 }{{0.5, 1.6}, {0.99, 1.992}, {0, 1.2}} {
		if got := bucketQuantile(c.q, ss, bounds); got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("q%v = %v, want %v", c.q, got, c.want)
		}
	}
	// Half in (1 s, 2.5 s], half beyond the last bound: the median ends the first bucket, the
	// 99th percentile lies towards the largest sample.
	ss = projections.StageStats{Count: 4, Min: 2 * time.Second, Max: 40 * time.Minute}
	ss.Buckets[one], ss.Buckets[len(bounds)] = 2, 2
	if got := bucketQuantile(0.5, ss, bounds); got != 2.5 {
		t.Errorf("median %v, want 2.5", got)
	}
	if got := bucketQuantile(0.99, ss, bounds); got <= 30*60 || got > 40*60 {
		t.Errorf("p99 %v, want between the last bound (1800 s) and the largest sample (2400 s)", got)
	}
}

func TestTheHintTrackerFollowsAtMostItsBoundOfJobs(t *testing.T) {
	var h hintTracker
	for range 3 * hintsFollowed {
		h.given(domain.NewJobID(), domain.InputProof, 2)
	}
	if n := len(h.pending); n > hintsFollowed || n < hintsFollowed/2 {
		t.Fatalf("%d jobs followed, want between %d and %d", n, hintsFollowed/2, hintsFollowed)
	}
}

func TestConfigChangesListWhoChangedWhatNewestFirst(t *testing.T) {
	env := startJT(t, jtAdmin)
	env.do(http.MethodGet, "/admin/config/changes", nil).want(t, http.StatusUnauthorized, "unauthorized")
	r := env.do(http.MethodGet, "/admin/config/changes", nil, jtAuth...)
	r.want(t, http.StatusOK, "")
	if !strings.Contains(string(r.Body), `"changes":[]`) {
		t.Fatalf("no change yet: %s", r.Body)
	}
	env.do(http.MethodPost, "/admin/config", []byte(`{"param":"input_proof_throttler_tps","value":7}`), jtAuth...).want(t, http.StatusOK, "")
	env.do(http.MethodPost, "/admin/config", []byte(`{"param":"readiness_max_concurrency","value":9}`), jtAuth...).want(t, http.StatusOK, "")
	r = env.do(http.MethodGet, "/admin/config/changes", nil, jtAuth...)
	r.want(t, http.StatusOK, "")
	var res struct{ Changes []configChange }
	if err := json.Unmarshal(r.Env.Result, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 2 {
		t.Fatalf("changes %s", r.Body)
	}
	first, second := res.Changes[0], res.Changes[1]
	if first.Param != "readiness_max_concurrency" || string(first.New) != "9" || second.Param != "input_proof_throttler_tps" ||
		string(second.New) != "7" || first.Version <= second.Version || first.Who == "" || strings.Contains(first.Who, jtToken) {
		t.Errorf("changes %s", r.Body)
	}
}

func TestTheDashboardIsServedFromTheBinaryWithAStrictContentSecurityPolicy(t *testing.T) {
	env := startJT(t)
	for _, c := range []struct{ path, typ, has string }{
		{"/ui", "text/html", `<body data-audit-open="true">`},
		{"/ui/", "text/html", "/ui/app.js"},
		{"/ui/app.js", "text/javascript", "/v1/overview"},
		{"/ui/style.css", "text/css", "section"},
	} {
		r := env.do(http.MethodGet, c.path, nil)
		if r.Code != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), c.typ) || !strings.Contains(string(r.Body), c.has) {
			t.Errorf("GET %s: %d %s, want %s holding %q", c.path, r.Code, r.Header.Get("Content-Type"), c.typ, c.has)
		}
		if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
			t.Errorf("GET %s: Content-Security-Policy %q", c.path, csp)
		}
	}
	env.do(http.MethodGet, "/ui/nothing.js", nil).want(t, http.StatusNotFound, "not_found")
	env.do(http.MethodGet, "/ui/..%2fui.go", nil).want(t, http.StatusNotFound, "not_found")

	closed := startJT(t, func(c *Config) { c.AuditOpen = false; c.OperatorToken = jtToken })
	if r := closed.do(http.MethodGet, "/ui", nil); r.Code != http.StatusOK || strings.Contains(string(r.Body), "data-audit-open") {
		t.Errorf("with the audit endpoints closed the page says they are open: %d", r.Code)
	}
}
