package workers

import (
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"relayer/domain"
)

// Steps whose engine overhead is measured: the time from the event (or chain log) that enables
// the step to the append that records it, less the time spent in chain calls and deliberate
// waits (the rate window, readiness polls, retry back-off).
const (
	stepReadinessStart = "readiness_start" // RequestAccepted -> ReadinessCheckStarted
	stepReadinessPass  = "readiness_pass"  // ReadinessCheckStarted -> ReadinessPassed
	stepTxSign         = "tx_sign"         // processing entered -> TransactionSigned
	stepTxReceipt      = "tx_receipt"      // TransactionSigned -> ReceiptRecorded
	stepResponse       = "response"        // response log delivered -> its event appended
)

// Steps lists the measured steps.
func Steps() []string {
	return []string{stepReadinessStart, stepReadinessPass, stepTxSign, stepTxReceipt, stepResponse}
}

const maxOverheadSamples = 1 << 17

type engineMetrics struct {
	txStarts  *prometheus.CounterVec
	responses *prometheus.CounterVec
	events    *prometheus.CounterVec
	overheadH *prometheus.HistogramVec
	poisoned  prometheus.Counter
	cursorG   prometheus.Gauge

	mu      sync.Mutex
	samples map[string][]time.Duration
}

func newEngineMetrics() *engineMetrics {
	return &engineMetrics{
		txStarts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayer_tx_starts_total", Help: "Gateway transactions started (signed and recorded), by request kind.",
		}, []string{"kind"}),
		responses: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayer_gateway_responses_total", Help: "Gateway response events handled, by event type.",
		}, []string{"type"}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayer_worker_events_total", Help: "Events the workers appended, by event type.",
		}, []string{"type"}),
		overheadH: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "relayer_engine_overhead_seconds",
			Help:    "Engine time per step: from the enabling event to the append that records the step, less chain calls and deliberate waits.",
			Buckets: []float64{0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1},
		}, []string{"step"}),
		poisoned: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "relayer_poisoned_messages_total", Help: "Messages the handlers could not process after every retry, moved to the poison topic.",
		}),
		cursorG: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "relayer_gateway_cursor_block", Help: "The next gateway block the responses listener reads after a restart.",
		}),
		samples: map[string][]time.Duration{},
	}
}

func (m *engineMetrics) started(k domain.Kind) { m.txStarts.WithLabelValues(k.String()).Inc() }
func (m *engineMetrics) response(t string)     { m.responses.WithLabelValues(t).Inc() }
func (m *engineMetrics) cursor(b uint64)       { m.cursorG.Set(float64(b)) }

func (m *engineMetrics) transition(events []domain.Event) {
	for _, e := range events {
		m.events.WithLabelValues(e.EventType()).Inc()
	}
}

// overhead records one step: total time less the excluded time (chain calls, waits).
func (m *engineMetrics) overhead(step string, total, excluded time.Duration) {
	d := max(total-excluded, 0)
	m.overheadH.WithLabelValues(step).Observe(d.Seconds())
	m.mu.Lock()
	if s := m.samples[step]; len(s) < maxOverheadSamples {
		m.samples[step] = append(s, d)
	}
	m.mu.Unlock()
}

// OverheadStats summarises the engine overhead of one step.
type OverheadStats struct {
	Count          int
	Mean, P50, P99 time.Duration
}

// Overhead returns the engine overhead measured per step since the engine started (the first
// 131072 samples of each step).
func (e *Engine) Overhead() map[string]OverheadStats {
	m := e.metrics
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]OverheadStats{}
	for step, s := range m.samples {
		if len(s) == 0 {
			continue
		}
		c := slices.Clone(s)
		slices.Sort(c)
		var sum time.Duration
		for _, d := range c {
			sum += d
		}
		out[step] = OverheadStats{Count: len(c), Mean: sum / time.Duration(len(c)), P50: c[len(c)/2], P99: c[min(len(c)-1, len(c)*99/100)]}
	}
	return out
}

// Collectors are the engine's Prometheus collectors, for the API's /metrics (api.Deps).
func (e *Engine) Collectors() []prometheus.Collector {
	return collectors(e.metrics, func() []*Engine { return []*Engine{e} })
}

// collectors are the collectors of the engines sharing m; the gauges add up the engines running
// now (current returns none between a Leader's terms, and they read 0).
func collectors(m *engineMetrics, current func() []*Engine) []prometheus.Collector {
	gauge := func(name, help string, f func(e *Engine) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 {
			var sum float64
			for _, e := range current() {
				sum += f(e)
			}
			return sum
		})
	}
	cs := []prometheus.Collector{m.txStarts, m.responses, m.events, m.overheadH, m.poisoned, m.cursorG,
		gauge("relayer_readiness_checks_in_progress", "Readiness checks running now (at most readiness_max_concurrency).",
			func(e *Engine) float64 { return float64(e.readiness.inProgress()) }),
		gauge("relayer_readiness_checks_waiting", "Decrypts waiting for a readiness check slot.",
			func(e *Engine) float64 { return float64(e.readiness.waiting()) }),
		gauge("relayer_gateway_responses_kept", "Gateway responses kept until the receipt naming their request is recorded.",
			func(e *Engine) float64 { return float64(e.responses.buffered()) }),
	}
	// A position is not added up: the furthest of the engines' dispatchers.
	cs = append(cs, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "relayer_dispatcher_position", Help: "Global position of the last event the dispatcher published (the furthest of this instance's engines).",
	}, func() float64 {
		var p float64
		for _, e := range current() {
			p = max(p, float64(e.dispatcher.Position()))
		}
		return p
	}))
	tx := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "relayer_tx_waiting", Help: "Jobs waiting for their transaction start, by kind."}, []string{"kind"})
	rate := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "relayer_tx_rate_limit", Help: "Transaction starts allowed per second (D), by kind."}, []string{"kind"})
	cs = append(cs, &funcCollector{collect: func(ch chan<- prometheus.Metric) {
		es := current()
		if len(es) == 0 {
			return
		}
		for _, k := range domain.Kinds() {
			if k.Family() != k {
				continue // waits in its family's queue, counted there
			}
			var waiting, tps float64
			for _, e := range es {
				waiting += float64(e.tx.queue(k).waiting())
				tps += e.tx.tps(k)
			}
			tx.WithLabelValues(k.String()).Set(waiting)
			rate.WithLabelValues(k.String()).Set(tps)
		}
		tx.Collect(ch)
		rate.Collect(ch)
	}, describe: func(ch chan<- *prometheus.Desc) { tx.Describe(ch); rate.Describe(ch) }})
	return cs
}

type funcCollector struct {
	collect  func(chan<- prometheus.Metric)
	describe func(chan<- *prometheus.Desc)
}

func (f *funcCollector) Describe(ch chan<- *prometheus.Desc) { f.describe(ch) }
func (f *funcCollector) Collect(ch chan<- prometheus.Metric) { f.collect(ch) }
