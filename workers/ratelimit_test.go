package workers

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections/projectionstest"
	"relayer/workers/upstream"
)

// The secrets an RPC provider's URL carries, in its userinfo, path and query: none may reach the
// log or the metrics.
const (
	rlUser     = "alice-user"
	rlPassword = "s3cr3t-pass-7f3a"
	rlPathKey  = "PATHKEY0123456789"
	rlQueryKey = "QUERYKEY9876543210"
)

// secretURL is base (an httptest server's URL) with a provider's secrets in every part.
func secretURL(t *testing.T, base string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(rlUser, rlPassword)
	u.Path = "/v3/" + rlPathKey
	u.RawQuery = "apikey=" + rlQueryKey
	return u.String()
}

// checkNoSecret fails if s holds any part of secretURL's secrets.
func checkNoSecret(t *testing.T, what, s string) {
	t.Helper()
	for _, secret := range []string{rlUser, rlPassword, rlPathKey, rlQueryKey, "/v3", "apikey"} {
		if strings.Contains(s, secret) {
			t.Errorf("%s holds %q:\n%s", what, secret, s)
		}
	}
}

// readRateLimits reads the rate-limit stream back from the store.
func readRateLimits(t *testing.T, s eventstore.Store) ([]eventstore.Record, []domain.RateLimitEvent) {
	t.Helper()
	return readStream(t, s, domain.RateLimitStream, func(rec eventstore.Record) (domain.RateLimitEvent, error) {
		v, err := codec.Decode(rec)
		if err != nil {
			return nil, err
		}
		ev, ok := v.(domain.RateLimitEvent)
		if !ok {
			return nil, fmt.Errorf("a %T in the rate-limit stream", v)
		}
		return ev, nil
	})
}

// counterValue is the value of the counter name{label=value} among cs, 0 when it has none.
func counterValue(t *testing.T, cs []prometheus.Collector, name, label, value string) float64 {
	t.Helper()
	m, _ := findMetric(t, cs, name, label, func(v string) bool { return v == value })
	return m.GetCounter().GetValue()
}

// gathered is every metric of cs in the text format, for a look at what it exposes.
func gathered(t *testing.T, cs []prometheus.Collector) string {
	t.Helper()
	var b strings.Builder
	for _, f := range gather(t, cs) {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// lastRand makes every jitter its largest value, so that waits are exact.
type lastRand struct{}

func (lastRand) Int64N(n int64) int64 { return n - 1 }

// runRecorder runs r until the returned stop is called; stop waits for Run's flush.
func runRecorder(t *testing.T, r *RateLimitRecorder) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(waitLimit):
			t.Fatal("Run did not return after its context ended")
		}
	}
	t.Cleanup(stop)
	return stop
}

func TestARateLimitedCallThroughTheUpstreamTransportIsRecordedInTheLogAndCountedInTheMetrics(t *testing.T) {
	store := projectionstest.OpenStore(t)
	rec, err := NewRateLimitRecorder(store, RateLimitRecorderConfig{}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	stop := runRecorder(t, rec)

	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			w.Header().Set("X-RateLimit-Limit", "100")
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset", "30")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"0x539"}`)
	}))
	defer srv.Close()

	const base = 20 * time.Millisecond
	tr, err := upstream.NewTransport(nil, upstream.Config{BaseDelay: base}, upstream.WithSink(rec), upstream.WithRand(lastRand{}))
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: tr}
	target := secretURL(t, srv.URL)
	res, err := client.Post(target, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || calls.Load() != 2 {
		t.Fatalf("status %d after %d calls, want 200 after 2", res.StatusCode, calls.Load())
	}
	stop() // flushes

	source := "http://" + srv.Listener.Addr().String()
	recs, evs := readRateLimits(t, store)
	var types []string
	for _, e := range evs {
		types = append(types, e.EventType())
	}
	if got := strings.Join(types, " "); got != "RateLimitEncountered RateLimitBackoff RateLimitRecovered" {
		t.Fatalf("the rate-limit stream holds %s, want RateLimitEncountered RateLimitBackoff RateLimitRecovered", got)
	}
	enc := evs[0].Call()
	if enc.Source != source || enc.Status != 429 || enc.Attempt != 1 || enc.Class != "rate_limited" ||
		enc.WaitFrom != upstream.HeaderRetryAfter || enc.WaitMs != 0 || enc.Header != upstream.HeaderXRateLimit ||
		enc.Limit == nil || *enc.Limit != 100 || enc.Remaining == nil || *enc.Remaining != 0 || enc.Reset.IsZero() || enc.At.IsZero() {
		t.Errorf("encountered: %+v", enc)
	}
	back := evs[1].Call()
	if back.Source != source || back.Attempt != 1 || back.WaitMs != base.Milliseconds() || back.WaitFrom != upstream.HeaderRetryAfter ||
		back.TotalBackoffMs != base.Milliseconds() {
		t.Errorf("backoff: %+v (want a wait of %s, the server's 0 s and the jitter)", back, base)
	}
	ok := evs[2].Call()
	if ok.Source != source || ok.Attempt != 2 || ok.Class != "ok" || ok.Status != 200 || ok.TotalBackoffMs != base.Milliseconds() ||
		ok.ElapsedMs < base.Milliseconds() || ok.Reason != "" {
		t.Errorf("recovered: %+v", ok)
	}
	for _, r := range recs {
		checkNoSecret(t, "the log's "+r.Type, string(r.Data))
	}

	cs := rec.Collectors()
	if v := counterValue(t, cs, "relayer_upstream_ratelimit_encountered_total", "source", source); v != 1 {
		t.Errorf("relayer_upstream_ratelimit_encountered_total{source=%q} = %g, want 1", source, v)
	}
	if v := counterValue(t, cs, "relayer_upstream_ratelimit_recovered_total", "source", source); v != 1 {
		t.Errorf("relayer_upstream_ratelimit_recovered_total = %g, want 1", v)
	}
	if v := counterValue(t, cs, "relayer_upstream_ratelimit_backoff_seconds_total", "source", source); v != base.Seconds() {
		t.Errorf("relayer_upstream_ratelimit_backoff_seconds_total = %g, want %g", v, base.Seconds())
	}
	if v := counterValue(t, cs, "relayer_upstream_ratelimit_gave_up_total", "source", source); v != 0 {
		t.Errorf("relayer_upstream_ratelimit_gave_up_total = %g, want 0", v)
	}
	checkNoSecret(t, "the metrics", gathered(t, cs))
}

func TestACallThatGivesUpIsRecordedWithItsReasonAndTheServersWait(t *testing.T) {
	store := projectionstest.OpenStore(t)
	rec, err := NewRateLimitRecorder(store, RateLimitRecorderConfig{Instance: "relayer-2"}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	stop := runRecorder(t, rec)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	// A server wait beyond the call's time budget: the call gives up with the 429 at once.
	tr, err := upstream.NewTransport(nil, upstream.Config{MaxElapsed: 10 * time.Second}, upstream.WithSink(rec))
	if err != nil {
		t.Fatal(err)
	}
	res, err := (&http.Client{Transport: tr}).Get(secretURL(t, srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("status %d, want the 429", res.StatusCode)
	}
	stop()

	source := "http://" + srv.Listener.Addr().String()
	recs, evs := readRateLimits(t, store)
	if len(evs) != 2 || evs[0].EventType() != "RateLimitEncountered" || evs[1].EventType() != "RateLimitGaveUp" {
		t.Fatalf("the rate-limit stream holds %v, want an encounter and a give-up", evs)
	}
	g := evs[1].Call()
	if g.Source != source || g.Instance != "relayer-2" || g.Reason != string(upstream.ReasonElapsed) || g.Attempt != 1 ||
		g.Status != 429 || g.WaitFrom != upstream.HeaderRetryAfter || g.WaitMs < 120_000 {
		t.Errorf("gave up: %+v", g)
	}
	if e := evs[0].Call(); e.WaitMs != 120_000 || e.Instance != "relayer-2" {
		t.Errorf("encountered: %+v, want the server's 120 s and the instance", e)
	}
	for _, r := range recs {
		checkNoSecret(t, "the log's "+r.Type, string(r.Data))
	}
	if v := counterValue(t, rec.Collectors(), "relayer_upstream_ratelimit_gave_up_total", "source", source); v != 1 {
		t.Errorf("relayer_upstream_ratelimit_gave_up_total = %g, want 1", v)
	}
}

func TestAFullBufferDropsAndCountsEventsWithoutHoldingUpTheCall(t *testing.T) {
	store := projectionstest.OpenStore(t)
	rec, err := NewRateLimitRecorder(store, RateLimitRecorderConfig{Buffer: 3}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	ev := upstream.Event{Type: upstream.RateLimitEncountered, At: time.Now(), Source: "https://rpc.example.com",
		Attempt: 1, Class: upstream.RateLimited, StatusCode: 429, Quota: upstream.Quota{Limit: upstream.Unknown, Remaining: upstream.Unknown}}
	// Nothing drains the buffer (Run has not started): every Record beyond the third must return
	// at once all the same.
	start := time.Now()
	for range 1000 {
		rec.Record(context.Background(), ev)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("1000 Records took %s with a full buffer", d)
	}
	cs := rec.Collectors()
	if v := counterValue(t, cs, "relayer_upstream_ratelimit_events_dropped_total", "reason", "buffer_full"); v != 997 {
		t.Errorf("dropped{buffer_full} = %g, want 997", v)
	}
	if v := counterValue(t, cs, "relayer_upstream_ratelimit_encountered_total", "source", "https://rpc.example.com"); v != 1000 {
		t.Errorf("encountered = %g, want 1000: the metrics count what the calls saw, recorded or not", v)
	}

	// Run, stopped at once, still appends what was buffered.
	runRecorder(t, rec)()
	if _, evs := readRateLimits(t, store); len(evs) != 3 {
		t.Fatalf("the log holds %d events, want the 3 buffered", len(evs))
	}
	// After Run, events are dropped as "stopped", never queued for nobody.
	rec.Record(context.Background(), ev)
	if v := counterValue(t, cs, "relayer_upstream_ratelimit_events_dropped_total", "reason", "stopped"); v != 1 {
		t.Errorf("dropped{stopped} = %g, want 1", v)
	}
	if err := rec.Run(context.Background()); err == nil {
		t.Error("a second Run was accepted")
	}
}

func TestALogThatCannotBeWrittenLosesTheEventsCountedAndRunStillEndsWithinTheFlushTimeout(t *testing.T) {
	store := projectionstest.OpenStore(t)
	rec, err := NewRateLimitRecorder(store, RateLimitRecorderConfig{FlushTimeout: 200 * time.Millisecond, RetryPause: 10 * time.Millisecond}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	_ = store.Close()
	ev := upstream.Event{Type: upstream.RateLimitBackoff, At: time.Now(), Source: "https://rpc.example.com",
		Attempt: 1, Class: upstream.RateLimited, Wait: 1500 * time.Millisecond, Quota: upstream.Quota{Limit: upstream.Unknown, Remaining: upstream.Unknown}}
	for range 5 {
		rec.Record(context.Background(), ev)
	}
	stop := runRecorder(t, rec)
	time.Sleep(50 * time.Millisecond) // a few failed appends
	start := time.Now()
	stop()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Run took %s to end, with a flush timeout of 200ms", d)
	}
	cs := rec.Collectors()
	if v := counterValue(t, cs, "relayer_upstream_ratelimit_events_dropped_total", "reason", "append_failed"); v != 5 {
		t.Errorf("dropped{append_failed} = %g, want 5", v)
	}
	if v := counterValue(t, cs, "relayer_upstream_ratelimit_backoff_seconds_total", "source", "https://rpc.example.com"); v != 7.5 {
		t.Errorf("backoff seconds = %g, want 7.5", v)
	}
}

func TestASourceNeverCarriesAURLsSecretsWhateverTheCallerNamedIt(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://rpc.example.com", "https://rpc.example.com"},
		{"https://" + rlUser + ":" + rlPassword + "@Rpc.Example.com:8545/v3/" + rlPathKey + "?apikey=" + rlQueryKey, "https://rpc.example.com:8545"},
		{"rpc.example.com/v3/" + rlPathKey, "rpc.example.com"},
		{rlUser + ":" + rlPassword + "@rpc.example.com", "rpc.example.com"},
		{"gateway", "gateway"},
		{"https://bad host/v3/" + rlPathKey, "[redacted]"},
	} {
		ev := rateLimitEvent(upstream.Event{Type: upstream.RateLimitEncountered, Source: c.in}, "")
		if got := ev.Call().Source; got != c.want {
			t.Errorf("source %q recorded as %q, want %q", c.in, got, c.want)
		}
	}
}

// A series born at its first increment hides that increment from rate() and increase(): the
// configured nodes' counters are there, at 0, before their first rate limit, without a secret.
func TestTheConfiguredSourcesCountersStartAtZeroWithoutTheirSecrets(t *testing.T) {
	secret := "https://" + rlUser + ":" + rlPassword + "@rpc.example.com/v3/" + rlPathKey + "?apikey=" + rlQueryKey
	rec, err := NewRateLimitRecorder(projectionstest.OpenStore(t), RateLimitRecorderConfig{Sources: []string{secret, "http://host.example.org:8545", ""}}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(rec.Collectors()...)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	series := map[string][]string{} // family -> "source=value" of each series
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "source" {
					series[f.GetName()] = append(series[f.GetName()], fmt.Sprintf("%s=%g", l.GetValue(), m.GetCounter().GetValue()))
				}
			}
		}
	}
	want := []string{"http://host.example.org:8545=0", "https://rpc.example.com=0"}
	for _, name := range []string{"relayer_upstream_ratelimit_encountered_total", "relayer_upstream_ratelimit_recovered_total",
		"relayer_upstream_ratelimit_gave_up_total", "relayer_upstream_ratelimit_backoff_seconds_total"} {
		got := series[name]
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s has the series %v, want %v", name, got, want)
		}
	}
	text := gathered(t, rec.Collectors())
	for _, s := range []string{rlUser, rlPassword, rlPathKey, rlQueryKey} {
		if strings.Contains(text, s) {
			t.Errorf("the metrics hold %q", s)
		}
	}
}
