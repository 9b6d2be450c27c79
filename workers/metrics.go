package workers

import (
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"relayer/domain"
	"relayer/workers/gateway"
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
	nonceFix  *prometheus.CounterVec

	mu      sync.Mutex
	samples map[string][]time.Duration
	// costs are the costs in wei (gas used × effective gas price) of each kind's last receipts,
	// a ring of costWindow per kind family, under mu.
	costs [domain.NumKinds]weiRing
}

// costWindow is how many of a kind's last receipts its estimated cost averages.
const costWindow = 64

// weiRing holds the last amounts in wei it was given, up to a size its owner passes; its owner
// locks it.
type weiRing struct {
	wei  []*big.Int
	next int
}

// add keeps v, in place of the oldest amount once the ring holds size of them.
func (r *weiRing) add(v *big.Int, size int) {
	if len(r.wei) < size {
		r.wei = append(r.wei, v)
		return
	}
	r.wei[r.next] = v
	r.next = (r.next + 1) % size
}

func newEngineMetrics() *engineMetrics {
	m := &engineMetrics{
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
		nonceFix: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relayer_nonce_corrections_total",
			Help: "Corrections of a signing key's nonce sequence recorded (NonceCorrected), by action: reseeded, skipped, resent, filled.",
		}, []string{"action"}),
		samples: map[string][]time.Duration{},
	}
	// Every kind's series from the start, so that the rate of starts reads 0, not nothing,
	// before a kind's first transaction.
	for _, k := range domain.Kinds() {
		m.txStarts.WithLabelValues(k.String())
	}
	for _, a := range []string{gateway.NonceReseeded, gateway.NonceSkipped, gateway.NonceResent, gateway.NonceFilled} {
		m.nonceFix.WithLabelValues(a)
	}
	// And every response event's, so that /metrics names it before the first response (the
	// alerts and the dashboard query it from the start).
	for _, t := range []gateway.EventType{gateway.PublicDecryptionResponse, gateway.UserDecryptionResponse,
		gateway.UserDecryptionResponseThresholdReached, gateway.VerifyProofResponse, gateway.RejectProofResponse} {
		m.responses.WithLabelValues(string(t))
	}
	return m
}

// cost takes note of what a receipt of kind k cost its key.
func (m *engineMetrics) cost(k domain.Kind, rec *gateway.Receipt) {
	if rec == nil || rec.Raw == nil || rec.Raw.EffectiveGasPrice == nil {
		return
	}
	c := new(big.Int).Mul(new(big.Int).SetUint64(rec.Raw.GasUsed), rec.Raw.EffectiveGasPrice)
	m.mu.Lock()
	m.costs[k.Family().Ordinal()].add(c, costWindow)
	m.mu.Unlock()
}

// jobCost is the mean cost in wei of kind k's last receipts; false before the first.
func (m *engineMetrics) jobCost(k domain.Kind) (float64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.costs[k.Family().Ordinal()]
	if len(r.wei) == 0 {
		return 0, false
	}
	sum := new(big.Int)
	for _, c := range r.wei {
		sum.Add(sum, c)
	}
	f, _ := new(big.Float).Quo(new(big.Float).SetInt(sum), big.NewFloat(float64(len(r.wei)))).Float64()
	return f, true
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
	cs := []prometheus.Collector{m.txStarts, m.responses, m.events, m.overheadH, m.poisoned, m.cursorG, m.nonceFix,
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
	balance := prometheus.NewDesc("relayer_signer_balance_wei",
		"The signing key's balance in wei, as the balance guard last read it (the keys whose engine runs in this instance).", []string{"address"}, nil)
	paused := prometheus.NewDesc("relayer_signer_paused",
		"1 while the balance guard has the signing key paused (its balance below the floor: it takes no new transaction), else 0.", []string{"address"}, nil)
	floor := prometheus.NewDesc("relayer_signer_balance_floor_wei",
		"The floor the balance guard last held the signing key's balance to, in wei (absent while the automatic floor is not known yet).", []string{"address"}, nil)
	cost := prometheus.NewDesc("relayer_job_cost_wei",
		"Estimated cost of one job's gateway transaction in wei, by kind: the mean gas used times effective gas price of the kind's last 64 receipts.", []string{"kind"}, nil)
	cs = append(cs, &funcCollector{collect: func(ch chan<- prometheus.Metric) {
		for _, e := range current() {
			g := e.balance
			if b := g.lastBalance(); b != nil {
				v, _ := new(big.Float).SetInt(b).Float64()
				ch <- prometheus.MustNewConstMetric(balance, prometheus.GaugeValue, v, g.addr)
			}
			p := 0.0
			if g.isPaused() {
				p = 1
			}
			ch <- prometheus.MustNewConstMetric(paused, prometheus.GaugeValue, p, g.addr)
			f := g.lastFloor()
			if f == nil {
				f = g.floorNow() // known since the key's last transaction, not checked yet
			}
			if f != nil {
				v, _ := new(big.Float).SetInt(f).Float64()
				ch <- prometheus.MustNewConstMetric(floor, prometheus.GaugeValue, v, g.addr)
			}
		}
		for _, k := range domain.Kinds() {
			if k.Family() != k {
				continue // its receipts are its family's
			}
			if v, ok := m.jobCost(k); ok {
				ch <- prometheus.MustNewConstMetric(cost, prometheus.GaugeValue, v, k.String())
			}
		}
	}, describe: func(ch chan<- *prometheus.Desc) { ch <- balance; ch <- paused; ch <- floor; ch <- cost }})
	return cs
}

type funcCollector struct {
	collect  func(chan<- prometheus.Metric)
	describe func(chan<- *prometheus.Desc)
}

func (f *funcCollector) Describe(ch chan<- *prometheus.Desc) { f.describe(ch) }
func (f *funcCollector) Collect(ch chan<- prometheus.Metric) { f.collect(ch) }
