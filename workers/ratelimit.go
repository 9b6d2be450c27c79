package workers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers/upstream"
)

// RateLimitRecorderConfig configures a RateLimitRecorder. A zero field takes its default.
type RateLimitRecorderConfig struct {
	// Instance names this instance in the events, in a fleet (FleetConfig.InstanceName); "" for
	// a relayer alone on its log.
	Instance string
	// Buffer is how many events may wait for their append (default 4096). When it is full (the
	// log is slow or failing), a new event is dropped and counted: an upstream call is never
	// held up by the log.
	Buffer int
	// Batch is the most events one append carries (default 256).
	Batch int
	// FlushTimeout bounds the appending of what is still buffered when Run ends (default 5s).
	FlushTimeout time.Duration
	// RetryPause is the pause before a failed append is tried again (default 1s).
	RetryPause time.Duration
	// Sources are the upstreams the relayer calls (URLs, or their scheme and host: only those
	// are kept). Their counters are there from the start, at 0, so that a rate or an alert over
	// them sees the first rate limit (a series born at its first increment shows none); other
	// sources get theirs when they first report.
	Sources []string
}

// Defaults of RateLimitRecorderConfig.
const (
	DefaultRateLimitBuffer       = 4096
	DefaultRateLimitBatch        = 256
	DefaultRateLimitFlushTimeout = 5 * time.Second
	DefaultRateLimitRetryPause   = time.Second
)

func (c *RateLimitRecorderConfig) setDefaults() {
	c.Buffer = cmp.Or(c.Buffer, DefaultRateLimitBuffer)
	c.Batch = cmp.Or(c.Batch, DefaultRateLimitBatch)
	c.FlushTimeout = cmp.Or(c.FlushTimeout, DefaultRateLimitFlushTimeout)
	c.RetryPause = cmp.Or(c.RetryPause, DefaultRateLimitRetryPause)
}

// Validate reports the first field out of range, after defaults are applied.
func (c RateLimitRecorderConfig) Validate() error {
	c.setDefaults()
	switch {
	case c.Buffer < 1:
		return fmt.Errorf("workers: rate-limit recorder Buffer %d: must be at least 1", c.Buffer)
	case c.Batch < 1:
		return fmt.Errorf("workers: rate-limit recorder Batch %d: must be at least 1", c.Batch)
	case c.FlushTimeout < 0:
		return fmt.Errorf("workers: rate-limit recorder FlushTimeout %v: must not be negative", c.FlushTimeout)
	case c.RetryPause < 0:
		return fmt.Errorf("workers: rate-limit recorder RetryPause %v: must not be negative", c.RetryPause)
	}
	return nil
}

// Why a rate-limit event did not reach the log (the reason label of
// relayer_upstream_ratelimit_events_dropped_total).
const (
	dropBufferFull   = "buffer_full"   // the buffer was full when the call reported it
	dropStopped      = "stopped"       // the call reported it after Run had ended
	dropAppendFailed = "append_failed" // the log did not take it before the flush timeout at the end
)

// RateLimitRecorder is the upstream.Sink that makes the rate limits the relayer's upstream calls
// meet visible to operators: counted in the metrics at once (Collectors) and recorded in the log's
// rate-limit stream (domain.RateLimitStream), one event per upstream event, which GET
// /v1/transitions shows as "ratelimit" events.
//
// Record runs on the calling goroutine of every rate-limited JSON-RPC call, so it only counts and
// queues: Run, on one goroutine of its own, appends what is queued in batches (with no expected
// version: the stream is a journal, and each instance of a fleet records what its own calls
// saw). It never blocks a call: when the buffer is full the event is dropped and counted.
type RateLimitRecorder struct {
	cfg   RateLimitRecorderConfig
	store eventstore.Store
	codec *eventstore.Codec
	log   *slog.Logger
	queue chan domain.RateLimitEvent

	// mu orders Record's sends before Run's last drain: Record holds it for reading, and Run
	// sets stopped under it, so nothing is queued after Run has emptied the queue for the last
	// time.
	mu      sync.RWMutex
	stopped bool
	ran     atomic.Bool

	encountered, recovered, gaveUp, backoff *prometheus.CounterVec
	dropped                                 *prometheus.CounterVec
}

// NewRateLimitRecorder returns a recorder appending to store. Run must be running for the events
// to reach the log; the metrics count them either way.
func NewRateLimitRecorder(store eventstore.Store, cfg RateLimitRecorderConfig, logger *slog.Logger) (*RateLimitRecorder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if store == nil {
		return nil, errors.New("workers: the rate-limit recorder needs a store")
	}
	cfg.setDefaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	r := &RateLimitRecorder{
		cfg: cfg, store: store, codec: projections.NewCodec(), log: logger,
		queue: make(chan domain.RateLimitEvent, cfg.Buffer),
		encountered: counter("relayer_upstream_ratelimit_encountered_total",
			"Upstream attempts refused with a rate limit (HTTP 429, JSON-RPC limit errors), by source (scheme and host).", "source"),
		recovered: counter("relayer_upstream_ratelimit_recovered_total",
			"Rate-limited upstream calls that then succeeded, by source.", "source"),
		gaveUp: counter("relayer_upstream_ratelimit_gave_up_total",
			"Rate-limited upstream calls that stopped without success (attempts or time used up, a server wait beyond the budget, a permanent failure, cancellation), by source.", "source"),
		backoff: counter("relayer_upstream_ratelimit_backoff_seconds_total",
			"Seconds rate-limited upstream calls waited before trying again, by source.", "source"),
		dropped: counter("relayer_upstream_ratelimit_events_dropped_total",
			"Rate-limit events counted here but not recorded in the log, by reason: buffer_full (the log was slow or failing), stopped (after shutdown), append_failed (the log did not take them at shutdown).", "reason"),
	}
	for _, reason := range []string{dropBufferFull, dropStopped, dropAppendFailed} {
		r.dropped.WithLabelValues(reason)
	}
	for _, s := range cfg.Sources {
		if s == "" {
			continue
		}
		source := sourceOnly(s)
		for _, c := range []*prometheus.CounterVec{r.encountered, r.recovered, r.gaveUp, r.backoff} {
			c.WithLabelValues(source)
		}
	}
	return r, nil
}

// Collectors are the recorder's Prometheus collectors, for the API's /metrics (api.Deps).
func (r *RateLimitRecorder) Collectors() []prometheus.Collector {
	return []prometheus.Collector{r.encountered, r.recovered, r.gaveUp, r.backoff, r.dropped}
}

// Record implements upstream.Sink: it counts e and queues it for the log, without ever
// blocking. It is safe for concurrent use.
func (r *RateLimitRecorder) Record(_ context.Context, e upstream.Event) {
	ev := rateLimitEvent(e, r.cfg.Instance)
	if ev == nil {
		return
	}
	source := ev.Call().Source
	switch e.Type {
	case upstream.RateLimitEncountered:
		r.encountered.WithLabelValues(source).Inc()
	case upstream.RateLimitBackoff:
		r.backoff.WithLabelValues(source).Add(e.Wait.Seconds())
	case upstream.RateLimitRecovered:
		r.recovered.WithLabelValues(source).Inc()
	case upstream.RateLimitGaveUp:
		r.gaveUp.WithLabelValues(source).Inc()
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.stopped {
		r.dropped.WithLabelValues(dropStopped).Inc()
		return
	}
	select {
	case r.queue <- ev:
	default:
		r.dropped.WithLabelValues(dropBufferFull).Inc()
	}
}

// Run appends the queued events to the rate-limit stream until ctx ends, then appends what is
// still queued (within FlushTimeout) and returns nil; events recorded after that are dropped and
// counted. An append that fails is tried again after RetryPause: the log may be what failed, and
// meanwhile new events wait in the buffer. Run may be called once.
func (r *RateLimitRecorder) Run(ctx context.Context) error {
	if !r.ran.CompareAndSwap(false, true) {
		return errors.New("workers: the rate-limit recorder runs once")
	}
	batch := make([]eventstore.Event, 0, r.cfg.Batch)
	for {
		if len(batch) == 0 {
			select {
			case <-ctx.Done():
				return r.flush(ctx, batch)
			case ev := <-r.queue:
				batch = r.fill(r.encode(batch, ev))
			}
		}
		if len(batch) == 0 {
			continue
		}
		if _, err := r.store.Append(ctx, domain.RateLimitStream, eventstore.Any, batch...); err != nil {
			if ctx.Err() != nil {
				return r.flush(ctx, batch)
			}
			r.log.Warn("record rate-limit events in the log; trying again", "events", len(batch), "err", err)
			if !sleepCtx(ctx, r.cfg.RetryPause) {
				return r.flush(ctx, batch)
			}
			continue
		}
		batch = batch[:0]
	}
}

// flush stops the queue and appends batch and everything queued, within FlushTimeout.
func (r *RateLimitRecorder) flush(ctx context.Context, batch []eventstore.Event) error {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cfg.FlushTimeout)
	defer cancel()
	for {
		batch = r.fill(batch)
		if len(batch) == 0 {
			return nil
		}
		_, err := r.store.Append(fctx, domain.RateLimitStream, eventstore.Any, batch...)
		if err == nil {
			batch = batch[:0]
			continue
		}
		if fctx.Err() != nil || errors.Is(err, eventstore.ErrClosed) || !sleepCtx(fctx, min(r.cfg.RetryPause, 100*time.Millisecond)) {
			n := len(batch) + len(r.queue)
			for len(r.queue) > 0 {
				<-r.queue
			}
			r.dropped.WithLabelValues(dropAppendFailed).Add(float64(n))
			r.log.Warn("rate-limit events not recorded in the log at shutdown", "events", n, "err", err)
			return nil
		}
	}
}

// fill adds queued events to batch, without waiting, up to Batch.
func (r *RateLimitRecorder) fill(batch []eventstore.Event) []eventstore.Event {
	for len(batch) < r.cfg.Batch {
		select {
		case ev := <-r.queue:
			batch = r.encode(batch, ev)
		default:
			return batch
		}
	}
	return batch
}

func (r *RateLimitRecorder) encode(batch []eventstore.Event, ev domain.RateLimitEvent) []eventstore.Event {
	enc, err := r.codec.Encode(ev, eventstore.Metadata{})
	if err != nil { // a programming error: every rate-limit event is registered
		r.log.Error("encode a rate-limit event", "type", ev.EventType(), "err", err)
		return batch
	}
	return append(batch, enc)
}

// rateLimitEvent is the log's event for e, nil for an event type it does not know.
func rateLimitEvent(e upstream.Event, instance string) domain.RateLimitEvent {
	c := domain.RateLimitCall{
		Source: sourceOnly(e.Source), Instance: instance, Attempt: e.Attempt, Class: e.Class.String(),
		Status: e.StatusCode, RPCCode: e.RPCCode, WaitMs: millis(e.Wait),
		Header: e.Header, Policy: e.Policy, WindowMs: millis(e.Window),
		TotalBackoffMs: millis(e.TotalBackoff), ElapsedMs: millis(e.Elapsed), At: e.At.UTC(),
	}
	if e.ServerWait {
		c.WaitFrom = e.WaitFrom
	}
	if e.Header != "" {
		if e.Limit != upstream.Unknown {
			c.Limit = &e.Limit
		}
		if e.Remaining != upstream.Unknown {
			c.Remaining = &e.Remaining
		}
		if !e.Reset.IsZero() {
			c.Reset = e.Reset.UTC()
		}
	}
	switch e.Type {
	case upstream.RateLimitEncountered:
		return domain.RateLimitEncountered{RateLimitCall: c}
	case upstream.RateLimitBackoff:
		return domain.RateLimitBackoff{RateLimitCall: c}
	case upstream.RateLimitRecovered:
		return domain.RateLimitRecovered{RateLimitCall: c}
	case upstream.RateLimitGaveUp:
		c.Reason = string(e.Reason)
		return domain.RateLimitGaveUp{RateLimitCall: c}
	}
	return nil
}

// sourceOnly makes sure a source is a name or a scheme and host, never a URL that could carry a
// key: upstream names sources so already, but a name given with upstream.WithName is the
// caller's, and the log keeps what it is given for ever.
func sourceOnly(s string) string {
	raw := s
	if !strings.Contains(s, "://") {
		raw = "//" + s // host:port/path, without a scheme
	}
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return upstream.SourceName(u)
	}
	if strings.ContainsAny(s, "/@?#") {
		return "[redacted]"
	}
	return s
}

// millis is d in whole milliseconds, rounded to the nearest.
func millis(d time.Duration) int64 { return d.Round(time.Millisecond).Milliseconds() }
