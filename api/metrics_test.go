package api

import (
	"bytes"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"relayer/domain"
	"relayer/projections/projectionstest"
)

// scrape scrapes /metrics and parses the text format.
func (e *opEnv) scrape() map[string]*dto.MetricFamily {
	e.t.Helper()
	code, h, body := e.get("/metrics")
	if code != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
		e.t.Fatalf("/metrics: %d %s", code, h.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		e.t.Fatalf("parse /metrics: %v\n%s", err, body)
	}
	return fams
}

// opSample returns the sample of family name with exactly the labels given (name, value pairs),
// failing the test when there is none.
func opSample(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels ...string) *dto.Metric {
	t.Helper()
	f, ok := fams[name]
	if !ok {
		t.Fatalf("no family %s", name)
	}
	for _, m := range f.Metric {
		if len(m.Label) != len(labels)/2 {
			continue
		}
		match := true
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, l := range m.Label {
				if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
					found = true
				}
			}
			match = match && found
		}
		if match {
			return m
		}
	}
	t.Fatalf("no %s%v", name, labels)
	return nil
}

func opValue(m *dto.Metric) float64 {
	switch {
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Untyped != nil:
		return m.Untyped.GetValue()
	}
	return math.NaN()
}

func TestTheMetricsEndpointExposesEveryFamilyWithSaneValues(t *testing.T) {
	env := startOps(t, opsTuning{})
	// Two completed jobs, one failed, one pending in each queue, and one input proof that waited
	// behind another (so the TX queue was seen to drain with work waiting).
	env.lifecycle(domain.PublicDecrypt, 1)
	behind := env.accept(domain.InputProof, 7)
	env.lifecycle(domain.InputProof, 2)
	env.toReceipt(behind, 7)
	failed := env.accept(domain.UserDecrypt, 3)
	env.run(failed, domain.FailReadiness{At: env.now(), Label: domain.LabelNotAllowedOnHostACL})
	queued := env.accept(domain.PublicDecrypt, 4)
	processing := env.accept(domain.InputProof, 5)

	// Calls to count: polls (which also issue Retry-After hints), an unknown path, a 404.
	for range 3 {
		if code, _, body := env.get("/v2/public-decrypt/" + queued.String()); code != http.StatusAccepted {
			t.Fatalf("poll: %d %s", code, body)
		}
	}
	if code, _, _ := env.get("/v2/input-proof/" + processing.String()); code != http.StatusAccepted {
		t.Fatalf("poll: %d", code)
	}
	env.get("/no/such/path")
	env.get("/v1/jobs/" + domain.NewJobID().String() + "/events")

	fams := env.scrape()
	for _, name := range []string{
		"relayer_http_requests_total", "relayer_http_request_duration_seconds", "relayer_retry_after_seconds",
		"relayer_jobs", "relayer_transitions_total", "relayer_queue_length", "relayer_queue_drain_rate",
		"relayer_stage_duration_seconds", "relayer_stage_duration_ewma_seconds", "relayer_projection_position",
		"relayer_projection_events_total", "relayer_projection_jobs", "relayer_log_head_position",
		"relayer_projection_lag", "relayer_store_up", "go_goroutines", "process_cpu_seconds_total",
	} {
		if _, ok := fams[name]; !ok {
			t.Errorf("no family %s", name)
		}
	}

	// HTTP calls are labelled by route pattern, never by raw path.
	if v := opValue(opSample(t, fams, "relayer_http_requests_total", "route", "/v2/public-decrypt/{jobId}", "method", "GET", "code", "202")); v != 3 {
		t.Errorf("polls counted %g, want 3", v)
	}
	opSample(t, fams, "relayer_http_requests_total", "route", "unmatched", "method", "GET", "code", "404")
	opSample(t, fams, "relayer_http_requests_total", "route", "/v1/jobs/{jobId}/events", "method", "GET", "code", "404")
	h := opSample(t, fams, "relayer_http_request_duration_seconds", "route", "/v2/input-proof/{jobId}", "method", "GET", "code", "202")
	if h.Histogram.GetSampleCount() != 1 || h.Histogram.GetSampleSum() <= 0 {
		t.Errorf("duration histogram %v", h.Histogram)
	}
	for _, f := range fams {
		for _, m := range f.Metric {
			for _, l := range m.Label {
				if strings.Contains(l.GetValue(), queued.String()) || strings.Contains(l.GetValue(), "/no/such") {
					t.Fatalf("%s has a raw path in a label: %v", f.GetName(), m.Label)
				}
			}
		}
	}

	// Retry-After hints: 3 for the queued public decrypt, 1 for the input proof in processing.
	ra := opSample(t, fams, "relayer_retry_after_seconds", "kind", "public-decrypt", "status", "queued")
	if ra.Histogram.GetSampleCount() != 3 || ra.Histogram.GetSampleSum() < 3 {
		t.Errorf("retry-after histogram %v", ra.Histogram)
	}
	opSample(t, fams, "relayer_retry_after_seconds", "kind", "input-proof", "status", "processing")

	// Jobs and transitions, from the projections' counts.
	counts := env.set.Counts()
	for _, k := range domain.Kinds() {
		for _, st := range domain.Statuses() {
			if st == domain.Queued && !k.NeedsReadiness() {
				continue
			}
			if v := opValue(opSample(t, fams, "relayer_jobs", "kind", k.String(), "status", st.String())); v != float64(counts.Of(k, st)) {
				t.Errorf("relayer_jobs{%s,%s} = %g, want %d", k, st, v, counts.Of(k, st))
			}
		}
	}
	for _, c := range []struct {
		kind, to string
		want     float64
	}{
		{"public-decrypt", "queued", 2}, {"public-decrypt", "completed", 1},
		{"public-decrypt", "processing", 1}, {"public-decrypt", "tx_in_flight", 1}, {"public-decrypt", "receipt_received", 1},
		{"input-proof", "processing", 3}, {"input-proof", "completed", 1}, {"input-proof", "receipt_received", 2},
		{"user-decrypt", "queued", 1}, {"user-decrypt", "failure", 1}, {"user-decrypt", "completed", 0},
	} {
		if v := opValue(opSample(t, fams, "relayer_transitions_total", "kind", c.kind, "to", c.to)); v != c.want {
			t.Errorf("relayer_transitions_total{%s,%s} = %g, want %g", c.kind, c.to, v, c.want)
		}
	}

	// Queues: the queued public decrypt waits for readiness, the input proof for its transaction.
	for queue, want := range map[string]float64{"readiness": 1, "readiness_in_progress": 0, "tx": 1} {
		if v := opValue(opSample(t, fams, "relayer_queue_length", "queue", queue)); v != want {
			t.Errorf("relayer_queue_length{%s} = %g, want %g", queue, v, want)
		}
	}
	if v := opValue(opSample(t, fams, "relayer_queue_drain_rate", "queue", "tx", "kind", "input-proof")); v <= 0 {
		t.Errorf("tx drain rate of input proofs %g, want > 0 after a transaction signed with another waiting", v)
	}

	// Stages: one completed public decrypt went through each stage once.
	sd := opSample(t, fams, "relayer_stage_duration_seconds", "kind", "public-decrypt", "stage", "response")
	if sd.Histogram.GetSampleCount() != 1 || sd.Histogram.GetSampleSum() != 1 || len(sd.Histogram.Bucket) == 0 {
		t.Errorf("stage histogram %v", sd.Histogram)
	}
	// The commands are a second apart: the response stage took 1 s.
	for _, b := range sd.Histogram.Bucket {
		want := uint64(0)
		if b.GetUpperBound() >= 1 {
			want = 1
		}
		if b.GetCumulativeCount() != want {
			t.Errorf("bucket le=%g holds %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
	if v := opValue(opSample(t, fams, "relayer_stage_duration_ewma_seconds", "kind", "public-decrypt", "stage", "response")); v != 1 {
		t.Errorf("response EWMA %g s, want 1", v)
	}
	if _, ok := fams["relayer_stage_duration_seconds"]; ok {
		for _, m := range fams["relayer_stage_duration_seconds"].Metric {
			for _, l := range m.Label {
				if l.GetName() == "kind" && l.GetValue() == "input-proof" {
					for _, l2 := range m.Label {
						if l2.GetName() == "stage" && strings.HasPrefix(l2.GetValue(), "readiness") {
							t.Errorf("input proofs have a readiness stage series: %v", m.Label)
						}
					}
				}
			}
		}
	}

	// Positions: the projections are caught up with the log.
	head := float64(env.head())
	if v := opValue(opSample(t, fams, "relayer_log_head_position")); v != head {
		t.Errorf("head %g, want %g", v, head)
	}
	if v := opValue(opSample(t, fams, "relayer_projection_position")); v != head {
		t.Errorf("projection position %g, want %g", v, head)
	}
	if v := opValue(opSample(t, fams, "relayer_projection_lag")); v != 0 {
		t.Errorf("lag %g", v)
	}
	if v := opValue(opSample(t, fams, "relayer_store_up")); v != 1 {
		t.Errorf("store_up %g", v)
	}
	if v := opValue(opSample(t, fams, "relayer_projection_jobs")); v != 6 {
		t.Errorf("projection jobs %g, want 6", v)
	}
	if v := opValue(opSample(t, fams, "relayer_projection_events_total")); v != float64(env.set.Events()) {
		t.Errorf("events applied %g, want %d", v, env.set.Events())
	}
}

func TestEachServerHasItsOwnMetricsRegistry(t *testing.T) {
	a := startOps(t, opsTuning{})
	b := startOps(t, opsTuning{})
	a.get("/liveness")
	a.get("/liveness")
	b.get("/liveness")
	if v := opValue(opSample(t, a.scrape(), "relayer_http_requests_total", "route", "/liveness", "method", "GET", "code", "200")); v != 2 {
		t.Errorf("server a counted %g liveness calls, want 2", v)
	}
	if v := opValue(opSample(t, b.scrape(), "relayer_http_requests_total", "route", "/liveness", "method", "GET", "code", "200")); v != 1 {
		t.Errorf("server b counted %g liveness calls, want 1", v)
	}
}

func TestTheStoreGoesDownInTheMetricsWhenItCannotBeRead(t *testing.T) {
	env := startOps(t, opsTuning{})
	env.lifecycle(domain.InputProof, 1)
	store := projectionstest.OpenStore(t)
	srv := opServer(t, Deps{Store: store, Projections: env.set})
	_ = store.Close()
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil || rec.Code != http.StatusOK {
		t.Fatalf("%d %v", rec.Code, err)
	}
	if v := opValue(opSample(t, fams, "relayer_store_up")); v != 0 {
		t.Errorf("store_up %g, want 0", v)
	}
	if _, ok := fams["relayer_projection_lag"]; ok {
		t.Error("a lag without a head")
	}
	if _, ok := fams["relayer_jobs"]; !ok {
		t.Error("the projections' families must not depend on the store")
	}
}
