package gateway

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/prometheus/client_golang/prometheus"

	"relayer/workers/upstream"
)

// Several JSON-RPC providers of one chain (Config.Providers), behind the adapter's node: the
// adapter calls the node as if it were one client, and the pool decides which provider answers.
//
//   - Health is followed per provider from every call it serves and from its own probe
//     (eth_blockNumber every second, probeTimeout): consecutive failures (no answer: refused,
//     reset, timed out, an HTTP 5xx), latency (a provider slower than the probe's timeout is
//     paused; the rest is in the metrics), and head lag: how many blocks the head it last showed
//     was behind the best head any provider had shown before, measured when it answers, so that
//     heads read a moment apart on a fast chain are not taken for lag. A provider is healthy when
//     it is not paused and its lag is at most Config.MaxHeadLag.
//   - A read goes to a healthy provider chosen at random by weight, those without a recent
//     failure first; a read that gets no answer fails over to the next healthy provider within
//     the call's deadline. With no healthy provider every one is tried.
//   - Two failures in a row, or one probe without an answer in time, pause a provider: no read
//     goes to it while another is healthy, and its probe retries it after a jittered backoff
//     (1s doubling up to 30s); its probe's first answer makes it healthy again. While no provider
//     is healthy every one is probed each second, so that the chain's return is seen at once.
//   - A signed transaction is sent to every healthy provider (the same bytes: one hash, one
//     nonce, so never a second transaction); see node.sendRaw for how the answers combine.
//
// The chain's health (tracker, outages) hears of a failure only when no other provider is
// healthy: one provider failing while another serves is not an outage.

// pausedRetry is the backoff of a paused provider's probe while another provider serves.
var pausedRetry = upstream.Backoff{Base: probeInterval, Max: 30 * time.Second, Jitter: upstream.EqualJitter}

// provider is one endpoint and its health.
type provider struct {
	// label names the provider in logs and metrics: its 1-based place in the list; endpoint is
	// its scheme and host (never the rest of its URL, which may carry an API key).
	label    string
	endpoint string
	weight   int
	c        *ethclient.Client
	// probe is the health probe's client (a connection of its own, without retries); nil: c.
	probe *ethclient.Client

	requests, failed atomic.Uint64

	mu         sync.Mutex
	failures   int // in a row
	paused     bool
	pauses     int // in a row, for the backoff
	retryAt    time.Time
	head       uint64
	lagBlocks  uint64  // see lag
	latencySum float64 // seconds, of answered calls
	latencyN   uint64
}

// pool is a chain's providers.
type pool struct {
	ps     []*provider
	maxLag uint64
	log    *slog.Logger
}

func newPool(log *slog.Logger, maxLag uint64, ps ...*provider) *pool {
	for i, p := range ps {
		if p.label == "" {
			p.label = strconv.Itoa(i + 1)
		}
		if p.weight <= 0 {
			p.weight = 1
		}
	}
	return &pool{ps: ps, maxLag: maxLag, log: orDiscard(log)}
}

// bestHead is the highest head any provider showed.
func (pl *pool) bestHead() uint64 {
	var best uint64
	for _, p := range pl.ps {
		p.mu.Lock()
		best = max(best, p.head)
		p.mu.Unlock()
	}
	return best
}

// lag is how many blocks p's last head was behind the best head known when it showed it; 0
// before it showed one (its probe reads it within a second of the start: a provider is not put
// aside for what is not known yet).
func (p *provider) lag() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lagBlocks
}

func (pl *pool) healthy(p *provider) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.paused && p.lagBlocks <= pl.maxLag
}

// anyHealthyBut tells whether a provider not in tried is healthy.
func (pl *pool) anyHealthyBut(tried []*provider) bool {
	for _, p := range pl.ps {
		if !contains(tried, p) && pl.healthy(p) {
			return true
		}
	}
	return false
}

func contains(ps []*provider, p *provider) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// order is the providers a read tries, in turn: the healthy ones without a failure since their
// last answer, then the other healthy ones, each group drawn at random by weight; every provider
// when none is healthy.
func (pl *pool) order() []*provider {
	if len(pl.ps) == 1 {
		return pl.ps
	}
	var fresh, shaky []*provider
	for _, p := range pl.ps {
		if !pl.healthy(p) {
			continue
		}
		p.mu.Lock()
		f := p.failures
		p.mu.Unlock()
		if f == 0 {
			fresh = append(fresh, p)
		} else {
			shaky = append(shaky, p)
		}
	}
	out := append(byWeight(fresh), byWeight(shaky)...)
	if len(out) == 0 {
		return byWeight(pl.ps)
	}
	return out
}

// healthyOnes are the providers a transaction is sent to: the healthy ones, or every one when
// none is.
func (pl *pool) healthyOnes() []*provider {
	var out []*provider
	for _, p := range pl.ps {
		if pl.healthy(p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return pl.ps
	}
	return out
}

// byWeight is ps in a random order where each next one is drawn with probability proportional
// to its weight.
func byWeight(ps []*provider) []*provider {
	left := append([]*provider(nil), ps...)
	out := make([]*provider, 0, len(ps))
	for len(left) > 0 {
		total := 0
		for _, p := range left {
			total += p.weight
		}
		r := rand.IntN(total)
		i := 0
		for ; r >= left[i].weight; i++ {
			r -= left[i].weight
		}
		out = append(out, left[i])
		left = append(left[:i], left[i+1:]...)
	}
	return out
}

// observe records the outcome of one call p served, sent at start; decisive (the probe's) makes
// one failure pause p, and an answer resume it. err is already scrubbed of URL secrets.
func (pl *pool) observe(p *provider, start time.Time, err error, decisive bool) {
	p.requests.Add(1)
	if answered(err) {
		p.mu.Lock()
		p.latencySum += time.Since(start).Seconds()
		p.latencyN++
		p.failures = 0
		// Only the probe resumes a paused provider: a slow provider's calls sent before it was
		// paused still answer, late, and would resume it at once.
		resumed := p.paused && decisive
		if resumed {
			p.paused, p.pauses = false, 0
		}
		p.mu.Unlock()
		if resumed && len(pl.ps) > 1 {
			pl.log.Info("RPC provider answers again: resumed", "provider", p.label, "endpoint", p.endpoint)
		}
		return
	}
	p.failed.Add(1)
	p.mu.Lock()
	p.failures++
	pause := !p.paused && (decisive || p.failures >= failuresForOutage)
	if pause {
		p.paused = true
	}
	if p.paused && (pause || decisive) {
		// Each failed retry of a paused provider waits longer before the next.
		p.pauses++
		p.retryAt = time.Now().Add(pausedRetry.Delay(p.pauses, nil))
	}
	retryAt := p.retryAt
	p.mu.Unlock()
	if pause && len(pl.ps) > 1 {
		pl.log.Warn("RPC provider paused: it does not answer", "provider", p.label, "endpoint", p.endpoint,
			"retry_at", retryAt, "err", err)
	}
}

// sawHead records head n that p showed, and how far it was behind the best head known; a
// provider falling more than maxLag behind, and catching up, is logged.
func (pl *pool) sawHead(p *provider, n uint64) {
	best := pl.bestHead()
	p.mu.Lock()
	was := p.lagBlocks
	p.head = max(p.head, n)
	p.lagBlocks = 0
	if n < best {
		p.lagBlocks = best - n
	}
	now := p.lagBlocks
	p.mu.Unlock()
	switch {
	case len(pl.ps) < 2:
	case now > pl.maxLag && was <= pl.maxLag:
		pl.log.Warn("RPC provider behind the others: no reads until it catches up", "provider", p.label,
			"endpoint", p.endpoint, "head", n, "best_head", best, "max_head_lag", pl.maxLag)
	case now <= pl.maxLag && was > pl.maxLag:
		pl.log.Info("RPC provider caught up", "provider", p.label, "endpoint", p.endpoint, "head", n)
	}
}

// probeDue tells whether p's probe should run now: always while p is not paused or no other
// provider is healthy, else once its backoff has passed.
func (pl *pool) probeDue(p *provider, now time.Time) bool {
	p.mu.Lock()
	paused, retryAt := p.paused, p.retryAt
	p.mu.Unlock()
	return !paused || !now.Before(retryAt) || !pl.anyHealthyBut([]*provider{p})
}

// runProbes probes every provider of the pool every probeInterval (a paused one as probeDue
// says) until ctx ends; each probe is a call through n pinned to the provider's probe client.
func (pl *pool) runProbes(ctx context.Context, n *node) {
	var wg sync.WaitGroup
	for _, p := range pl.ps {
		wg.Go(func() {
			probe := n.pinned(p)
			probe.useProbe, probe.decisive = true, true
			for {
				if pl.probeDue(p, time.Now()) {
					_, _ = probe.BlockNumber(ctx)
				}
				if sleep(ctx, probeInterval) != nil {
					return
				}
			}
		})
	}
	wg.Wait()
}

// ProviderHealth is what the adapter knows of one provider.
type ProviderHealth struct {
	// Label is the provider's 1-based place in Config.Providers; Endpoint its scheme and host.
	Label, Endpoint string
	Weight          int
	// Healthy: not paused and at most Config.MaxHeadLag blocks behind the best head.
	Healthy bool
	Paused  bool
	Head    uint64
	HeadLag uint64
	// Requests and Failures count its calls, and the calls it did not answer.
	Requests, Failures uint64
}

// Providers is what the adapter knows now of each of the gateway chain's providers.
func (a *Adapter) Providers() []ProviderHealth {
	pl := a.client.pool
	out := make([]ProviderHealth, len(pl.ps))
	for i, p := range pl.ps {
		p.mu.Lock()
		paused, head := p.paused, p.head
		p.mu.Unlock()
		out[i] = ProviderHealth{Label: p.label, Endpoint: p.endpoint, Weight: p.weight,
			Healthy: pl.healthy(p), Paused: paused, Head: head, HeadLag: p.lag(),
			Requests: p.requests.Load(), Failures: p.failed.Load()}
	}
	return out
}

// providerCollector exports every provider's calls, failures, latency, health and head lag.
type providerCollector struct {
	pl                                   *pool
	requests, failures, latency, healthy *prometheus.Desc
	lag                                  *prometheus.Desc
}

func newProviderCollector(pl *pool) *providerCollector {
	labels := []string{"provider", "endpoint"}
	return &providerCollector{
		pl: pl,
		requests: prometheus.NewDesc("relayer_rpc_provider_requests_total",
			"JSON-RPC calls sent to the gateway chain's provider (by its place in the list; endpoint is its scheme and host).", labels, nil),
		failures: prometheus.NewDesc("relayer_rpc_provider_errors_total",
			"Calls the provider did not answer (refused, reset, timed out, HTTP 5xx); an error answer (a revert) is an answer.", labels, nil),
		latency: prometheus.NewDesc("relayer_rpc_provider_latency_seconds",
			"Time the provider took to answer its answered calls.", labels, nil),
		healthy: prometheus.NewDesc("relayer_rpc_provider_healthy",
			"1 while the provider takes reads and transactions (not paused, head lag within chain.max_head_lag), else 0.", labels, nil),
		lag: prometheus.NewDesc("relayer_rpc_provider_head_lag_blocks",
			"Blocks the provider's last head was behind the best head any provider had shown.", labels, nil),
	}
}

func (c *providerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.requests, c.failures, c.latency, c.healthy, c.lag} {
		ch <- d
	}
}

func (c *providerCollector) Collect(ch chan<- prometheus.Metric) {
	for _, p := range c.pl.ps {
		p.mu.Lock()
		sum, n := p.latencySum, p.latencyN
		p.mu.Unlock()
		healthy := 0.0
		if c.pl.healthy(p) {
			healthy = 1
		}
		ch <- prometheus.MustNewConstMetric(c.requests, prometheus.CounterValue, float64(p.requests.Load()), p.label, p.endpoint)
		ch <- prometheus.MustNewConstMetric(c.failures, prometheus.CounterValue, float64(p.failed.Load()), p.label, p.endpoint)
		ch <- prometheus.MustNewConstSummary(c.latency, n, sum, nil, p.label, p.endpoint)
		ch <- prometheus.MustNewConstMetric(c.healthy, prometheus.GaugeValue, healthy, p.label, p.endpoint)
		ch <- prometheus.MustNewConstMetric(c.lag, prometheus.GaugeValue, float64(p.lag()), p.label, p.endpoint)
	}
}

// errNoProvider is a call made with no provider to try (a bug: every pool has one).
var errNoProvider = errors.New("gateway: no RPC provider")
