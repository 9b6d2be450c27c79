package api

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"relayer/projections/projectionstest"
)

// opServerWith builds a server over a new store with extra collectors, without serving it.
func opServerWith(t *testing.T, collectors ...prometheus.Collector) (*Server, error) {
	t.Helper()
	return opNewServer(t, Deps{Store: projectionstest.OpenStore(t), Collectors: collectors})
}

func TestExtraCollectorsAreExposedOnMetricsBesideTheAPIsFamilies(t *testing.T) {
	poisoned := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "relayer_poisoned_messages_total", Help: "Messages poisoned, by handler.",
	}, []string{"handler"})
	poisoned.WithLabelValues("tx.reset").Add(3)
	srv, err := opServerWith(t, poisoned, prometheus.NewGauge(prometheus.GaugeOpts{Name: "relayer_test_gauge", Help: "A gauge."}))
	if err != nil {
		t.Fatal(err)
	}
	env := &opEnv{t: t, ts: httptest.NewServer(srv.Handler())}
	defer env.ts.Close()

	fams := env.scrape()
	if v := opValue(opSample(t, fams, "relayer_poisoned_messages_total", "handler", "tx.reset")); v != 3 {
		t.Errorf("relayer_poisoned_messages_total %g, want 3", v)
	}
	opSample(t, fams, "relayer_test_gauge")
	for _, name := range []string{"relayer_jobs", "relayer_store_up", "go_goroutines"} {
		if _, ok := fams[name]; !ok {
			t.Errorf("no %s beside the extra collectors", name)
		}
	}
	// The collector is live: a later count shows at the next scrape.
	poisoned.WithLabelValues("tx.reset").Inc()
	if v := opValue(opSample(t, env.scrape(), "relayer_poisoned_messages_total", "handler", "tx.reset")); v != 4 {
		t.Errorf("relayer_poisoned_messages_total %g after one more, want 4", v)
	}
}

func TestAnExtraCollectorThatClashesMakesNewFailWithoutPanicking(t *testing.T) {
	counter := func(name string) prometheus.Collector {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: "A counter."})
	}
	for _, c := range []struct {
		name       string
		collectors []prometheus.Collector
		want       string
	}{
		{"an HTTP family of the API", []prometheus.Collector{counter("relayer_http_requests_total")}, "collector 0"},
		{"a read models' family", []prometheus.Collector{counter("relayer_jobs")}, "collector 0"},
		{"a Go runtime family", []prometheus.Collector{counter("go_goroutines")}, "collector 0"},
		{"another extra collector", []prometheus.Collector{counter("relayer_x_total"), counter("relayer_x_total")}, "collector 1"},
		{"a nil collector", []prometheus.Collector{counter("relayer_y_total"), nil}, "collector 1 is nil"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, err := opServerWith(t, c.collectors...)
			if err == nil || srv != nil {
				t.Fatalf("New returned %v, %v; want an error", srv, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not say %q", err, c.want)
			}
		})
	}
}

func TestTuningShowsTheRetryAfterPolicyTheAdminAPISet(t *testing.T) {
	env := startJT(t, jtAdmin)
	if got := env.srv.Tuning(); got.UserDecryptTPS != 10 || got.ReadinessMaxConcurrency != 50 {
		t.Fatalf("before any change: user decrypt TPS %g, readiness concurrency %d", got.UserDecryptTPS, got.ReadinessMaxConcurrency)
	}
	env.admin("POST", `{"param":"user_decrypt_throttler_tps","value":2.5}`).want(t, http.StatusOK, "")
	env.admin("POST", `{"param":"readiness_max_concurrency","value":7}`).want(t, http.StatusOK, "")
	got := env.srv.Tuning()
	if got.UserDecryptTPS != 2.5 || got.ReadinessMaxConcurrency != 7 || got.InputProofTPS != 10 {
		t.Fatalf("after the changes: %+v", got)
	}

	// The copy is the caller's: changing it changes nothing in force.
	got.UserDecryptTPS = 1000
	got.ReceiptBackoff[0].RetrySeconds = 12345
	if again := env.srv.Tuning(); again.UserDecryptTPS != 2.5 || again.ReceiptBackoff[0].RetrySeconds == 12345 {
		t.Fatalf("a caller's change to its copy reached the server: %+v", again)
	}

	// A restart folds the config stream again.
	env.restart()
	if got := env.srv.Tuning(); got.UserDecryptTPS != 2.5 || got.ReadinessMaxConcurrency != 7 {
		t.Fatalf("after a restart: %+v", got)
	}
}
