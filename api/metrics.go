package api

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/eventstore"
	"relayer/projections"
)

// metrics holds the API's Prometheus collectors, in a registry of its own: nothing is registered
// globally, so a process (or a test) can hold many servers, each with its own /metrics.
//
// Two sorts of families live here. The API's own (HTTP calls, issued Retry-After) are counted as
// they happen, through observeHTTP and observeRetryAfter. The read models' (jobs, queues, stages,
// transitions, positions) are read from the projections and the store at scrape time by a
// collector (stateCollector), so they cost nothing between scrapes and are never stale.
type metrics struct {
	reg        *prometheus.Registry
	requests   *prometheus.CounterVec
	durations  *prometheus.HistogramVec
	retryAfter *prometheus.HistogramVec
	refusals   *prometheus.CounterVec
	full       prometheus.Counter
	longPoll   prometheus.Histogram
	handler    http.Handler

	// httpChildren holds the HTTP families' children by (route, method, code), resolved once
	// each: an immutable map, replaced whole under childrenMu when a call brings a combination
	// not seen before (the keys are as few as the label values: route patterns, standard
	// methods, the codes the handlers write). retryAfterChildren holds the Retry-After
	// histogram's by kind and status ordinal, the last column for rate_limited. A child is
	// made at its first observation, as WithLabelValues makes it: no series shows before.
	httpChildren       atomic.Pointer[map[httpKey]httpChild]
	childrenMu         sync.Mutex
	retryAfterChildren [domain.NumKinds][domain.NumStatuses + 1]atomic.Pointer[retryAfterChild]

	// setupOnce builds the collectors, so that the zero metrics is ready to use too; bindOnce
	// registers the read models' collector once (see bind), adaptiveOnce the adaptive
	// Retry-After's (see bindAdaptive).
	setupOnce    sync.Once
	bindOnce     sync.Once
	adaptiveOnce sync.Once
}

// retryAfterBuckets are the upper bounds, in seconds, of the issued Retry-After histogram: the
// hints the policy gives range from a second (a job about to finish) to the response timeout.
var retryAfterBuckets = []float64{0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 300, 600, 1800}

// newMetrics returns the API's collectors in a new registry of their own, with the Go runtime and
// process collectors. (The zero metrics is the same thing, built at its first use.)
//
// For the core of the server (New): call it once per Server, keep the result in
// Server.metrics and call register with the projections, the store and Deps.Collectors. The
// read models' families (relayer_jobs, relayer_queue_length, ...) are bound to the projections
// and store there (or, for metrics nobody registered, at the first scrape of /metrics: see
// bind), so newMetrics needs neither. The HTTP families are fed by
// instrument, which Handler must run inside withRequestID and outside the mux (it reads the
// pattern the mux matched, r.Pattern, after the call).
func newMetrics() *metrics {
	m := &metrics{}
	m.setupOnce.Do(m.setup)
	return m
}

func (m *metrics) setup() {
	m.reg = prometheus.NewRegistry()
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "relayer_http_requests_total",
		Help: "HTTP calls answered, by route pattern (\"unmatched\" for paths no route serves), method and status code.",
	}, []string{"route", "method", "code"})
	m.durations = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "relayer_http_request_duration_seconds",
		Help:    "Time to answer an HTTP call, by route pattern, method and status code (a /v1/transitions stream counts its whole life; a long-poll's wait is left out, see relayer_long_poll_wait_seconds).",
		Buckets: prometheus.DefBuckets,
	}, []string{"route", "method", "code"})
	m.retryAfter = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "relayer_retry_after_seconds",
		Help:    "Retry-After hints issued to clients, by request kind and the job's status when the hint was given (rate_limited for a submission refused because its queue is full).",
		Buckets: retryAfterBuckets,
	}, []string{"kind", "status"})
	m.refusals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "relayer_admission_refusals_total",
		Help: "Submissions turned away by an admission check before anything was appended, by request kind and check (signature, wallet_signature, wallet_unreachable, validity_start, validity_end).",
	}, []string{"kind", "check"})
	m.full = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "relayer_store_full_refusals_total",
		Help: "Requests answered 503 storage_full because the event store's disk was full: nothing of them was recorded.",
	})
	m.longPoll = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "relayer_long_poll_wait_seconds",
		Help:    "How long status GETs that asked to wait (?wait=, Prefer: wait=) held before they answered.",
		Buckets: []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60},
	})
	m.reg.MustRegister(
		m.requests, m.durations, m.retryAfter, m.refusals, m.full, m.longPoll,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		// A family that fails to collect must not hide the others.
		ErrorHandling: promhttp.ContinueOnError,
	})
}

// register binds the read models' collector to set and store (see bind), then registers the
// extra collectors (Deps.Collectors) beside the API's own. The read models' families go first,
// so that an extra collector that clashes with them is refused here, not at the first scrape.
func (m *metrics) register(set *projections.Set, store eventstore.Store, extra []prometheus.Collector) error {
	m.bind(set, store)
	for i, c := range extra {
		if c == nil {
			return fmt.Errorf("api: metrics collector %d is nil", i)
		}
		if err := m.reg.Register(c); err != nil {
			return fmt.Errorf("api: register metrics collector %d (%T): %w", i, c, err)
		}
	}
	return nil
}

// bind registers the collector of the read models' families over set and store, once: New
// does it (through register), or else the first scrape, so that newMetrics needs neither.
func (m *metrics) bind(set *projections.Set, store eventstore.Store) {
	m.setupOnce.Do(m.setup)
	m.bindOnce.Do(func() {
		m.reg.MustRegister(&stateCollector{set: set, store: store})
	})
}

// observeRefusal counts a submission of kind turned away by an admission check.
func (m *metrics) observeRefusal(kind, check string) {
	if m == nil {
		return
	}
	m.setupOnce.Do(m.setup)
	m.refusals.WithLabelValues(kind, check).Inc()
}

// observeStorageFull counts a request refused because the store was full.
func (m *metrics) observeStorageFull() {
	if m == nil {
		return
	}
	m.setupOnce.Do(m.setup)
	m.full.Inc()
}

// observeLongPoll records how long one long-poll waited.
func (m *metrics) observeLongPoll(d time.Duration) {
	if m == nil {
		return
	}
	m.setupOnce.Do(m.setup)
	m.longPoll.Observe(d.Seconds())
}

// observeRetryAfter records a Retry-After the API issued for a job of kind k in status st.
func (m *metrics) observeRetryAfter(k domain.Kind, st domain.Status, seconds int) {
	m.retryAfterFor(k, st.Ordinal(), st.String()).Observe(float64(seconds))
}

// observeRateLimited records a Retry-After the API issued to a submission of kind k refused
// because its queue is full or its content backs off (status rate_limited).
func (m *metrics) observeRateLimited(k domain.Kind, seconds int) {
	m.retryAfterFor(k, domain.NumStatuses, labelRateLimited).Observe(float64(seconds))
}

// retryAfterChild is one child of relayer_retry_after_seconds.
type retryAfterChild struct{ prometheus.Observer }

// discardObserver is the Observer of a nil metrics.
type discardObserver struct{}

func (discardObserver) Observe(float64) {}

// retryAfterFor is the Retry-After histogram's child for kind k and status, whose column (its
// ordinal, or NumStatuses for rate_limited) is col.
func (m *metrics) retryAfterFor(k domain.Kind, col int, status string) prometheus.Observer {
	if m == nil {
		return discardObserver{}
	}
	m.setupOnce.Do(m.setup)
	row := k.Ordinal()
	if row < 0 || row >= domain.NumKinds || col < 0 || col > domain.NumStatuses {
		return m.retryAfter.WithLabelValues(k.String(), status) // no kind or status: not cached
	}
	cell := &m.retryAfterChildren[row][col]
	if c := cell.Load(); c != nil {
		return c.Observer
	}
	c := &retryAfterChild{m.retryAfter.WithLabelValues(k.String(), status)}
	cell.Store(c) // a racing call stores the same child: WithLabelValues returns the one it made
	return c.Observer
}

// httpKey names one child of the HTTP families; httpChild is that child of each.
type httpKey struct {
	route, method string
	code          int
}

type httpChild struct {
	requests  prometheus.Counter
	durations prometheus.Observer
}

// observeHTTP records one HTTP call. route must be a route pattern (never a raw path: its values
// must stay few), method a standard one or "other" (methodLabel).
func (m *metrics) observeHTTP(route, method string, code int, d time.Duration) {
	if m == nil {
		return
	}
	m.setupOnce.Do(m.setup)
	c := m.httpChild(httpKey{route: route, method: method, code: code})
	c.requests.Inc()
	c.durations.Observe(d.Seconds())
}

// httpChild returns k's children, resolved once.
func (m *metrics) httpChild(k httpKey) httpChild {
	if cache := m.httpChildren.Load(); cache != nil {
		if c, ok := (*cache)[k]; ok {
			return c
		}
	}
	m.childrenMu.Lock()
	defer m.childrenMu.Unlock()
	var old map[httpKey]httpChild
	if cache := m.httpChildren.Load(); cache != nil {
		if c, ok := (*cache)[k]; ok {
			return c
		}
		old = *cache
	}
	code := strconv.Itoa(k.code)
	c := httpChild{
		requests:  m.requests.WithLabelValues(k.route, k.method, code),
		durations: m.durations.WithLabelValues(k.route, k.method, code),
	}
	next := make(map[httpKey]httpChild, len(old)+1)
	maps.Copy(next, old)
	next[k] = c
	m.httpChildren.Store(&next)
	return c
}

// instrument wraps the API's handler to count and time every call. It labels a call with the
// path of the pattern the mux matched (r.Pattern, set on the request next was given, so next must
// pass the request on unchanged), never with the raw path, and with the method when it is a
// standard one ("other" otherwise), so that no client can create series at will.
func (s *Server) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := callOf(w).recorder(w)
		defer func() {
			// Record the call even when a panic goes on up (net/http's abort), then let it go.
			code := rec.code
			code = cmp.Or(code, http.StatusOK)
			s.metrics.observeHTTP(routeLabel(r.Pattern), methodLabel(r.Method), code, time.Since(start)-rec.waited)
		}()
		next.ServeHTTP(rec, r)
	})
}

// routeLabel is the path part of a ServeMux pattern ("GET /v2/input-proof/{jobId}" gives
// "/v2/input-proof/{jobId}"); "unmatched" when no route matched (the empty pattern, or the
// catch-all "/" that answers 404 and 405).
func routeLabel(pattern string) string {
	if i := strings.IndexByte(pattern, ' '); i >= 0 {
		pattern = strings.TrimSpace(pattern[i+1:])
	}
	if pattern == "" || pattern == "/" {
		return "unmatched"
	}
	// A host in the pattern ("example.com/path") is not part of the route.
	if i := strings.IndexByte(pattern, '/'); i > 0 {
		pattern = pattern[i:]
	}
	return pattern
}

func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// statusRecorder remembers the status code a handler wrote. It unwraps (for
// http.ResponseController) and flushes, so streams work through it.
type statusRecorder struct {
	http.ResponseWriter
	code   int
	waited time.Duration // spent long-polling (noteWaited), left out of the call's duration
}

// noteWaited records that the call under w spent d waiting for a job to change (a long-poll), so
// that the request-duration histogram measures the work of answering, not the wait the client
// asked for; the wait goes to relayer_long_poll_wait_seconds.
func (s *Server) noteWaited(w http.ResponseWriter, d time.Duration) {
	s.metrics.observeLongPoll(d)
	for {
		if rec, ok := w.(*statusRecorder); ok {
			rec.waited += d
			return
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return
		}
		w = u.Unwrap()
	}
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.code == 0 && code >= 200 {
		r.code = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.code = cmp.Or(r.code, http.StatusOK)
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Flush() {
	r.code = cmp.Or(r.code, http.StatusOK)
	_ = http.NewResponseController(r.ResponseWriter).Flush()
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// serveMetrics answers GET /metrics in the Prometheus text format (or OpenMetrics when asked).
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if s.metrics == nil {
		writeError(w, r, http.StatusInternalServerError, labelInternal, "metrics are not set up", nil)
		return
	}
	s.metrics.bind(s.set, s.store)
	s.metrics.bindAdaptive(s)
	s.metrics.handler.ServeHTTP(w, r)
}

// bindAdaptive registers the adaptive Retry-After's collector over s, once.
func (m *metrics) bindAdaptive(s *Server) {
	m.setupOnce.Do(m.setup)
	m.adaptiveOnce.Do(func() {
		m.reg.MustRegister(&adaptiveCollector{s: s})
	})
}

// adaptiveCollector shows at scrape time, for each parameter the adaptive Retry-After may
// replace, the configured value against the observed one and the one in force, so that an
// operator sees when the configuration is wrong (and an alert can say so).
type adaptiveCollector struct{ s *Server }

var (
	descRetryParam = prometheus.NewDesc("relayer_retry_after_parameter",
		"Parameters the adaptive Retry-After may replace, in the unit GET /admin/config lists them in (per second for "+
			"the _tps ones and readiness_drain_rate, then as the name ends: _seconds, _ms): the configured value "+
			"(source=nominal), the observed one (source=observed, absent without samples) and the one the hints use "+
			"(source=in_force).",
		[]string{"param", "source"}, nil)
	descRetryParamObserved = prometheus.NewDesc("relayer_retry_after_observed_in_force",
		"1 when the hints use the observed value of the parameter (enough fresh samples, adaptive mode on), 0 when the nominal one.",
		[]string{"param"}, nil)
	descRetryParamSamples = prometheus.NewDesc("relayer_retry_after_observation_samples",
		"Samples behind each parameter's observation: durations in the recent windows, departures in the drain window.",
		[]string{"param"}, nil)
	descRetryParamAge = prometheus.NewDesc("relayer_retry_after_observation_age_seconds",
		"Age of the newest sample behind each parameter's observation (absent without samples); past "+
			"retry_after_adaptive_stale_after_seconds the nominal value rules again.",
		[]string{"param"}, nil)
)

func (c *adaptiveCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRetryParam, descRetryParamObserved, descRetryParamSamples, descRetryParamAge} {
		ch <- d
	}
}

func (c *adaptiveCollector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for _, a := range c.s.adaptations(c.s.runtime()) {
		gauge(descRetryParam, a.Nominal, a.Param, "nominal")
		gauge(descRetryParam, a.Value(), a.Param, "in_force")
		gauge(descRetryParamSamples, float64(a.Samples), a.Param)
		observed := 0.0
		if a.InForce == retryafter.SourceObserved {
			observed = 1
		}
		gauge(descRetryParamObserved, observed, a.Param)
		if a.Samples > 0 {
			gauge(descRetryParam, a.Observed, a.Param, "observed")
			gauge(descRetryParamAge, a.Age.Seconds(), a.Param)
		}
	}
}

// headTimeout bounds how long a scrape or a health check waits for the store's head.
const headTimeout = time.Second

// stateCollector reads the read models' families at scrape time: every value comes from the
// projections' own counters (one read lock each), and the log head from one Head call.
type stateCollector struct {
	set   *projections.Set
	store eventstore.Store
}

var (
	descJobs = prometheus.NewDesc("relayer_jobs",
		"Jobs the projections hold, by request kind and current status.",
		[]string{"kind", "status"}, nil)
	descTransitions = prometheus.NewDesc("relayer_transitions_total",
		"Transitions since the log began, by kind and the status entered (acceptances count as entering the kind's "+
			"initial status; a job reset from tx_in_flight enters processing again and counts again).",
		[]string{"kind", "to"}, nil)
	descQueue = prometheus.NewDesc("relayer_queue_length",
		"Jobs waiting in each queue: readiness (accepted decrypts no readiness worker picked up), "+
			"readiness_in_progress (being checked) and tx (in processing, waiting for their transaction).",
		[]string{"queue"}, nil)
	descDrain = prometheus.NewDesc("relayer_queue_drain_rate",
		"Jobs per second a queue serves while work waits in it (departures over busy time, chain outages left out), over the projections' drain window, by queue and kind; 0 when the window saw no backlog.",
		[]string{"queue", "kind"}, nil)
	descStage = prometheus.NewDesc("relayer_stage_duration_seconds",
		"Observed durations of each stage of a request's life, by kind and stage, from the stats projection.",
		[]string{"kind", "stage"}, nil)
	descStageEWMA = prometheus.NewDesc("relayer_stage_duration_ewma_seconds",
		"Exponentially weighted moving average of each stage's duration, by kind and stage, over all time (the adaptive Retry-After uses the median of a recent window instead: relayer_retry_after_parameter).",
		[]string{"kind", "stage"}, nil)
	descPosition = prometheus.NewDesc("relayer_projection_position",
		"Global position of the last event the projections applied (their checkpoint).", nil, nil)
	descApplied = prometheus.NewDesc("relayer_projection_events_total",
		"Events the projections applied since this process built them (system events included).", nil, nil)
	descHeld = prometheus.NewDesc("relayer_projection_jobs",
		"Jobs the projections hold.", nil, nil)
	descHead = prometheus.NewDesc("relayer_log_head_position",
		"Global position of the last event committed to the log (absent when the store cannot be read).", nil, nil)
	descLag = prometheus.NewDesc("relayer_projection_lag",
		"Log head minus projection position: how far, in positions, the read models trail the log "+
			"(absent when the store cannot be read).", nil, nil)
	descWaiting = prometheus.NewDesc("relayer_long_poll_waiting",
		"Status GETs holding now until their job changes (long-polls).", nil, nil)
	descStoreUp = prometheus.NewDesc("relayer_store_up",
		"1 when the store answered for its head within the scrape's timeout, 0 otherwise.", nil, nil)
	descStoreSize = prometheus.NewDesc("relayer_store_size_bytes",
		"Bytes the event store takes (SQLite: its file and write-ahead log; PostgreSQL: its events table); "+
			"its growth rate is deriv() of this.", nil, nil)
	descStoreFree = prometheus.NewDesc("relayer_store_free_bytes",
		"Bytes left on the filesystem that holds the event store (SQLite only: a database server's disk is not visible to the relayer). "+
			"At 0, new requests are refused with 503 storage_full until space returns.", nil, nil)
)

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descJobs, descTransitions, descQueue, descDrain, descStage,
		descStageEWMA, descPosition, descApplied, descHeld, descHead, descLag, descStoreUp, descWaiting, descStoreSize, descStoreFree} {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}

	// The position first, then the head: the head read later is at least as far, so the lag
	// is never understated by a race between the two reads.
	pos := c.set.Position()
	gauge(descPosition, float64(pos))
	counter(descApplied, float64(c.set.Events()))
	gauge(descHeld, float64(c.set.Jobs()))
	gauge(descWaiting, float64(c.set.Watchers()))

	counts, transitions := c.set.Counts(), c.set.Transitions()
	for _, k := range domain.Kinds() {
		for _, st := range domain.Statuses() {
			if st == domain.Queued && !k.NeedsReadiness() {
				continue // input proofs are never queued: no series that can only be 0
			}
			gauge(descJobs, float64(counts.Of(k, st)), k.String(), st.String())
			counter(descTransitions, float64(transitions.Of(k, st)), k.String(), st.String())
		}
	}

	q := c.set.QueueLengths()
	gauge(descQueue, float64(q.Readiness), projections.ReadinessQueue.String())
	gauge(descQueue, float64(q.ReadinessInProgress), projections.ReadinessInProgress.String())
	gauge(descQueue, float64(q.Tx), projections.TxQueue.String())
	for _, k := range domain.Kinds() {
		if k.NeedsReadiness() {
			gauge(descDrain, c.set.DrainRate(projections.ReadinessQueue, k), projections.ReadinessQueue.String(), k.String())
		}
		gauge(descDrain, c.set.DrainRate(projections.TxQueue, k), projections.TxQueue.String(), k.String())
	}

	bounds := projections.HistogramBounds()
	for _, k := range domain.Kinds() {
		for _, st := range projections.Stages() {
			if !k.NeedsReadiness() && (st == projections.StageReadiness || st == projections.StageReadinessCheck) {
				continue // input proofs have no readiness stage
			}
			ss := c.set.StageStats(k, st)
			buckets := make(map[float64]uint64, len(bounds))
			var cum uint64
			for i, b := range bounds {
				cum += ss.Buckets[i]
				buckets[b.Seconds()] = cum
			}
			ch <- prometheus.MustNewConstHistogram(descStage, ss.Count, ss.Sum.Seconds(), buckets, k.String(), st.String())
			gauge(descStageEWMA, ss.EWMA.Seconds(), k.String(), st.String())
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), headTimeout)
	defer cancel()
	head, err := c.store.Head(ctx)
	if err != nil {
		gauge(descStoreUp, 0)
		return
	}
	gauge(descStoreUp, 1)
	gauge(descHead, float64(head))
	gauge(descLag, float64(lag(head, pos)))
	if sr, ok := c.store.(eventstore.SpaceReporter); ok {
		if sp, err := sr.Space(ctx); err == nil {
			gauge(descStoreSize, float64(sp.Size))
			if sp.Free >= 0 {
				gauge(descStoreFree, float64(sp.Free))
			}
		}
	}
}

// lag is how far the projections at pos trail a log whose head is head (0 when they are level,
// or ahead because the head was read first).
func lag(head, pos eventstore.Position) uint64 {
	if head <= pos {
		return 0
	}
	return uint64(head - pos)
}
