package gateway

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/prometheus/client_golang/prometheus"
)

// Whether the gateway chain's node can be reached: a tracker fed by the outcome of every call
// the adapter makes and by a light probe (eth_blockNumber every second, with a short timeout) that
// the adapter runs while it is open.
//
//   - A call that gets an answer, even an error answer (a revert, a JSON-RPC error, an HTTP 4xx
//     or 429), is a success: the node is there.
//   - A call that could not reach the node (refused, reset, no answer within its deadline, an HTTP
//     5xx after the upstream retries) is a failure. Two failures in a row, with no success between,
//     start an outage; so does one probe that gets no answer within probeTimeout (a node that does
//     not answer eth_blockNumber in that time is of no use), unless another call got an answer
//     while the probe waited: the node is then slow, not away (a provider whose slowest answers
//     take the probe's timeout would otherwise be declared down while it serves). A call the
//     caller cancelled says nothing.
//   - The outage starts when the first of those failures was seen (for a timeout, when the
//     unanswered call was sent), and ends at the next success.
//
// Each start and end is logged once (ERROR with its start, INFO with its duration), counted, and
// handed to the OnOutage subscribers in order. During an outage Dial's transports open no new
// connection to the node (UnreachableError): a call that finds no idle connection fails at once
// instead of dialling a node that may hold it until its deadline; the probe, on a connection of
// its own, ends the outage.

const (
	probeInterval = time.Second
	probeTimeout  = 2 * time.Second
	// failuresForOutage is how many failures in a row start an outage.
	failuresForOutage = 2
)

// ChainHealth is what the adapter knows of reaching the gateway chain's node.
type ChainHealth struct {
	// Reachable is false during an outage.
	Reachable bool
	// Since is when the current outage started; zero when reachable.
	Since time.Time
	// LastSuccess is when a call last got an answer; zero before the first.
	LastSuccess time.Time
	// Head is the latest block number seen, and HeadAt when it was first seen (zero: none yet).
	Head   uint64
	HeadAt time.Time
	// Outages counts the outages that started since the adapter was built.
	Outages uint64
}

// HeadAge is how long ago, at now, the latest head was first seen (0 when none was).
func (h ChainHealth) HeadAge(now time.Time) time.Duration {
	if h.HeadAt.IsZero() {
		return 0
	}
	return now.Sub(h.HeadAt)
}

// OutageChange is the start or the end of an outage.
type OutageChange struct {
	// Down is true when the outage starts, false when it ends.
	Down bool
	// At is when the change happened: the outage's start (when the node was first seen failing)
	// or its end (when it answered again).
	At time.Time
	// Since is when the outage started (equal to At when Down).
	Since time.Time
}

// Duration is the outage's length: At - Since (0 for a start).
func (c OutageChange) Duration() time.Duration { return c.At.Sub(c.Since) }

// tracker is the chain's health, shared by an adapter and those WithKey made from it.
type tracker struct {
	log *slog.Logger

	mu           sync.Mutex
	down         bool
	failures     int
	firstFailure time.Time
	since        time.Time
	lastSuccess  time.Time
	lastErr      error
	head         uint64
	headAt       time.Time
	headMoved    chan struct{} // closed and replaced when the head advances
	outages      uint64
	pending      []OutageChange
	subs         map[int]func(OutageChange)
	nextSub      int

	// deliverMu makes one goroutine at a time log and hand out the pending changes, in order.
	deliverMu sync.Mutex
}

func newTracker(log *slog.Logger) *tracker {
	return &tracker{log: log, headMoved: make(chan struct{}), subs: map[int]func(OutageChange){}}
}

// observe records a call's outcome; start is when it was sent. decisive makes a timeout start an
// outage at once (the probe's).
func (t *tracker) observe(start time.Time, err error, decisive bool) {
	now := time.Now()
	if answered(err) {
		t.succeeded(now)
		return
	}
	at, weight := now, 1
	var timeout *CallTimeoutError
	if errors.As(err, &timeout) {
		at = start
		if decisive && !t.answeredSince(start) {
			weight = failuresForOutage
		}
	}
	t.failed(at, weight, err)
}

// answered tells whether err (nil included) came from the node itself.
func answered(err error) bool {
	if err == nil || errors.Is(err, ethereum.NotFound) {
		return true
	}
	var timeout *CallTimeoutError
	if errors.As(err, &timeout) {
		return false
	}
	var rpcErr rpc.Error
	if errors.As(err, &rpcErr) {
		return true
	}
	var httpErr rpc.HTTPError
	if errors.As(err, &httpErr) {
		return httpErr.StatusCode < 500
	}
	return false
}

// answeredSince tells whether a call got an answer after start.
func (t *tracker) answeredSince(start time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastSuccess.After(start)
}

func (t *tracker) succeeded(now time.Time) {
	t.mu.Lock()
	t.lastSuccess, t.failures = now, 0
	changed := t.down
	if changed {
		t.down = false
		t.pending = append(t.pending, OutageChange{At: now, Since: t.since})
		t.since = time.Time{}
	}
	t.mu.Unlock()
	if changed {
		t.deliver()
	}
}

func (t *tracker) failed(at time.Time, weight int, err error) {
	t.mu.Lock()
	if t.failures == 0 || at.Before(t.firstFailure) {
		t.firstFailure = at
	}
	t.failures += weight
	t.lastErr = err
	changed := !t.down && t.failures >= failuresForOutage
	if changed {
		t.down, t.since = true, t.firstFailure
		t.outages++
		t.pending = append(t.pending, OutageChange{Down: true, At: t.since, Since: t.since})
	}
	t.mu.Unlock()
	if changed {
		t.deliver()
	}
}

// deliver logs and hands out the pending changes in order, outside t.mu (a subscriber may ask
// for the health).
func (t *tracker) deliver() {
	t.deliverMu.Lock()
	defer t.deliverMu.Unlock()
	for {
		t.mu.Lock()
		if len(t.pending) == 0 {
			t.mu.Unlock()
			return
		}
		c := t.pending[0]
		t.pending = t.pending[1:]
		lastErr := t.lastErr
		subs := make([]func(OutageChange), 0, len(t.subs))
		for _, f := range t.subs {
			subs = append(subs, f)
		}
		t.mu.Unlock()
		if c.Down {
			t.log.Error("gateway chain unreachable: outage started", "since", c.Since, "err", lastErr)
		} else {
			t.log.Info("gateway chain reachable again: outage ended", "since", c.Since, "duration", c.Duration().Round(time.Millisecond))
		}
		for _, f := range subs {
			f(c)
		}
	}
}

// sawHead records the latest block number seen.
func (t *tracker) sawHead(n uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n > t.head || t.headAt.IsZero() {
		t.head, t.headAt = n, time.Now()
		close(t.headMoved)
		t.headMoved = make(chan struct{})
	}
}

// waitHead returns once a head above after has been seen (at least min from now, at most max),
// or with ctx's error.
func (t *tracker) waitHead(ctx context.Context, after uint64, min, max time.Duration) error {
	if err := sleep(ctx, min); err != nil {
		return err
	}
	deadline := time.NewTimer(max - min)
	defer deadline.Stop()
	for {
		t.mu.Lock()
		head, moved := t.head, t.headMoved
		t.mu.Unlock()
		if head > after {
			return nil
		}
		select {
		case <-moved:
		case <-deadline.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// outage tells whether an outage is under way, and since when.
func (t *tracker) outage() (since time.Time, down bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.since, t.down
}

// UnreachableError is a call that was not sent because an outage is under way and it would
// have needed a new connection (Dial's transports open none during an outage; idle ones are
// still used). It classifies as ErrTransport. The outage ends when the health probe gets an
// answer, within about a second of the node's return.
type UnreachableError struct {
	// Since is when the outage started.
	Since time.Time
}

func (e *UnreachableError) Error() string {
	return "the node is unreachable since " + e.Since.UTC().Format(time.RFC3339) +
		" (an outage): no new connection until it answers the health probe"
}

func (t *tracker) snapshot() ChainHealth {
	t.mu.Lock()
	defer t.mu.Unlock()
	return ChainHealth{
		Reachable: !t.down, Since: t.since, LastSuccess: t.lastSuccess,
		Head: t.head, HeadAt: t.headAt, Outages: t.outages,
	}
}

func (t *tracker) subscribe(f func(OutageChange)) (cancel func()) {
	t.mu.Lock()
	id := t.nextSub
	t.nextSub++
	t.subs[id] = f
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		delete(t.subs, id)
		t.mu.Unlock()
	}
}

// Health is what the adapter knows now of reaching the chain's node. Adapters made with WithKey
// share their parent's.
func (a *Adapter) Health() ChainHealth { return a.health.snapshot() }

// OnOutage calls f with every start and end of an outage from now on, in order and one at a
// time, until cancel is called. f runs on the goroutine whose call saw the change: it must
// return quickly (hand the change to a channel, say). An outage under way when OnOutage is
// called is not announced: read Health first.
func (a *Adapter) OnOutage(f func(OutageChange)) (cancel func()) { return a.health.subscribe(f) }

// Collectors are the chain's health as Prometheus metrics: relayer_chain_reachable (1 or 0),
// relayer_chain_head_age_seconds, relayer_chain_last_success_timestamp_seconds and
// relayer_chain_outages_total, and each provider's (relayer_rpc_provider_*: see
// providerCollector). Register them once per chain (WithKey adapters share them).
func (a *Adapter) Collectors() []prometheus.Collector {
	t := a.health
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "relayer_chain_reachable",
			Help: "1 while the gateway chain's node answers, 0 during an outage.",
		}, func() float64 {
			if t.snapshot().Reachable {
				return 1
			}
			return 0
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "relayer_chain_head_age_seconds",
			Help: "Seconds since the gateway chain's latest block number was first seen (NaN before the first).",
		}, func() float64 {
			h := t.snapshot()
			if h.HeadAt.IsZero() {
				return math.NaN()
			}
			return h.HeadAge(time.Now()).Seconds()
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "relayer_chain_last_success_timestamp_seconds",
			Help: "Unix time of the last call the gateway chain's node answered (0 before the first).",
		}, func() float64 {
			if s := t.snapshot().LastSuccess; !s.IsZero() {
				return float64(s.UnixNano()) / 1e9
			}
			return 0
		}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "relayer_chain_outages_total",
			Help: "Outages of the gateway chain's node (it could not be reached) since the start.",
		}, func() float64 { return float64(t.snapshot().Outages) }),
		newProviderCollector(a.client.pool),
	}
}
