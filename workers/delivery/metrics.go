package delivery

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"relayer/domain/webhook"
)

// endpointStats is what this instance knows of one endpoint's deliveries.
type endpointStats struct {
	delivered, failed atomic.Uint64
	// position is the last record the follower went past.
	position atomic.Uint64
	// pendingSince is when the record in delivery was committed (unix ns), 0 when none is.
	pendingSince atomic.Int64
	// failingSince is when the current failure streak began (unix ns), 0 when there is none.
	failingSince atomic.Int64
	// autoDisabled: the relayer disabled it after failures (from the webhooks stream).
	autoDisabled atomic.Bool
}

// metrics are the deliveries' Prometheus families, by endpoint (label webhook, its id).
type metrics struct {
	s         *Service
	mu        sync.Mutex
	endpoints map[string]*endpointStats
	// states counts the endpoints by state, as last synced (under mu).
	states    map[string]int
	followers atomic.Int64
	leaseHeld atomic.Bool

	delivered, failed, lagPositions, lagSeconds, failingSeconds, disabled, endpointsDesc, held *prometheus.Desc
}

func newMetrics(s *Service) *metrics {
	by := []string{"webhook"}
	return &metrics{s: s, endpoints: map[string]*endpointStats{},
		delivered: prometheus.NewDesc("relayer_webhook_deliveries_total",
			"Transitions this instance delivered to the webhook endpoint (answered 2xx).", by, nil),
		failed: prometheus.NewDesc("relayer_webhook_delivery_failures_total",
			"Delivery attempts to the webhook endpoint that failed (not 2xx, no answer in time, refused), each tried again.", by, nil),
		lagPositions: prometheus.NewDesc("relayer_webhook_lag_positions",
			"How far behind the log's head the endpoint's follower in this instance is, in global positions.", by, nil),
		lagSeconds: prometheus.NewDesc("relayer_webhook_lag_seconds",
			"Age of the transition the endpoint's follower is delivering (0 when it waits for the log).", by, nil),
		failingSeconds: prometheus.NewDesc("relayer_webhook_failing_seconds",
			"How long the endpoint's deliveries have failed without a success (0 when they succeed): it is disabled at webhooks.disable_after.", by, nil),
		disabled: prometheus.NewDesc("relayer_webhook_disabled",
			"1 for a webhook endpoint the relayer disabled because its deliveries failed for webhooks.disable_after (an operator must look), 0 otherwise.", by, nil),
		endpointsDesc: prometheus.NewDesc("relayer_webhook_endpoints",
			"Webhook endpoints by state (active, disabled, deleted).", []string{"state"}, nil),
		held: prometheus.NewDesc("relayer_webhook_lease_held",
			"1 while this instance delivers the webhooks (always, alone on its log; in a fleet, while it holds the lease).", nil, nil),
	}
}

// endpoint returns id's stats, made on first use.
func (m *metrics) endpoint(id string) *endpointStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.endpoints[id]
	if st == nil {
		st = &endpointStats{}
		m.endpoints[id] = st
	}
	return st
}

// sync follows the registry: deleted endpoints are forgotten, and the disabled gauge set.
func (m *metrics) sync(r webhook.Registry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.states = map[string]int{}
	for _, st := range []webhook.State{webhook.StateActive, webhook.StateDisabled, webhook.StateDeleted} {
		m.states[st.String()] = 0
	}
	for _, e := range r.Endpoints(true) {
		m.states[e.State.String()]++
		if e.State == webhook.StateDeleted {
			delete(m.endpoints, e.ID)
			continue
		}
		st := m.endpoints[e.ID]
		if st == nil {
			st = &endpointStats{}
			m.endpoints[e.ID] = st
		}
		st.autoDisabled.Store(e.State == webhook.StateDisabled && e.ChangedBy == "")
	}
}

func (m *metrics) setRunning(n int) { m.followers.Store(int64(n)) }
func (m *metrics) running() int     { return int(m.followers.Load()) }

// Describe implements prometheus.Collector.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.delivered, m.failed, m.lagPositions, m.lagSeconds, m.failingSeconds, m.disabled, m.endpointsDesc, m.held} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	head := uint64(m.s.head())
	now := m.s.now()
	held := 0.0
	if m.s.lease == nil || m.leaseHeld.Load() {
		held = 1
	}
	ch <- prometheus.MustNewConstMetric(m.held, prometheus.GaugeValue, held)
	m.mu.Lock()
	defer m.mu.Unlock()
	for state, n := range m.states {
		ch <- prometheus.MustNewConstMetric(m.endpointsDesc, prometheus.GaugeValue, float64(n), state)
	}
	for id, st := range m.endpoints {
		ch <- prometheus.MustNewConstMetric(m.delivered, prometheus.CounterValue, float64(st.delivered.Load()), id)
		ch <- prometheus.MustNewConstMetric(m.failed, prometheus.CounterValue, float64(st.failed.Load()), id)
		auto := 0.0
		if st.autoDisabled.Load() {
			auto = 1
		}
		ch <- prometheus.MustNewConstMetric(m.disabled, prometheus.GaugeValue, auto, id)
		if held == 0 {
			continue // another instance delivers: its lag and streak are its own
		}
		if pos := st.position.Load(); pos > 0 || head > 0 {
			ch <- prometheus.MustNewConstMetric(m.lagPositions, prometheus.GaugeValue, float64(head-min(head, pos)), id)
		}
		lag := 0.0
		if p := st.pendingSince.Load(); p != 0 {
			lag = max(0, now.Sub(time.Unix(0, p)).Seconds())
		}
		ch <- prometheus.MustNewConstMetric(m.lagSeconds, prometheus.GaugeValue, lag, id)
		failing := 0.0
		if f := st.failingSince.Load(); f != 0 {
			failing = max(0, now.Sub(time.Unix(0, f)).Seconds())
		}
		ch <- prometheus.MustNewConstMetric(m.failingSeconds, prometheus.GaugeValue, failing, id)
	}
}

// Collectors are the deliveries' Prometheus collectors, for /metrics.
func (s *Service) Collectors() []prometheus.Collector { return []prometheus.Collector{s.metrics} }
