package workers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"relayer/workers/lease"
)

// Leader runs the engine on one instance of a fleet at a time (FleetConfig): it waits for the
// engine lease, runs an Engine over the lease's fenced store for as long as it holds it, and
// waits again when it loses it. Every append of that engine is guarded by the lease's term, so
// an instance that was paused past its lease and comes back cannot record anything, and so
// cannot send a transaction either (a transaction is sent only after TransactionSigned is
// recorded). A new holder recovers the jobs as a restarted engine does: queued and processing
// jobs return to their queues, in-flight transactions are sent again from their recorded bytes
// and the key's recorded nonces are adopted. C and D hold for the fleet because one engine
// counts them.
type Leader struct {
	cfg     Config
	deps    Deps
	lease   *lease.Lease
	metrics *engineMetrics

	current atomic.Pointer[Engine]
	terms   prometheus.Counter
	ready   chan struct{}
	started atomic.Bool
}

// NewLeader checks cfg and deps as New does; cfg.Fleet says how the lease is held. The store
// must offer guarded appends (SQLite, PostgreSQL).
func NewLeader(cfg Config, deps Deps) (*Leader, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.Store == nil || deps.Projections == nil || deps.Gateway == nil {
		return nil, errors.New("workers: the engine needs a store, projections and a gateway adapter")
	}
	lc := cfg.Fleet.leaseConfig()
	if lc.Holder == "" {
		host, _ := os.Hostname()
		lc.Holder = fmt.Sprintf("%s pid %d", host, os.Getpid())
	}
	l, err := lease.New(deps.Store, lc, deps.Logger)
	if err != nil {
		return nil, fmt.Errorf("workers: %w", err)
	}
	return &Leader{cfg: cfg, deps: deps, lease: l, metrics: newEngineMetrics(), ready: make(chan struct{}),
		terms: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "relayer_engine_terms_total", Help: "Terms of the engine lease this instance has held.",
		})}, nil
}

// Ready is closed once Run has started: an instance serves while it waits for the lease.
func (l *Leader) Ready() <-chan struct{} { return l.ready }

// Collectors are the engine's collectors (reading the engine of the term in progress, zero
// between terms), whether this instance holds the lease, and its terms.
func (l *Leader) Collectors() []prometheus.Collector {
	held := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "relayer_engine_lease_held", Help: "1 while this instance holds the engine lease and runs the engine.",
	}, func() float64 {
		if l.current.Load() != nil {
			return 1
		}
		return 0
	})
	refused := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "relayer_engine_fenced_appends_total",
		Help: "Appends of this instance's engine refused because its lease term was lost (taken by another instance, or expired unrenewed).",
	}, func() float64 { return float64(l.lease.Refused()) })
	return append(collectors(l.metrics, l.current.Load), held, l.terms, refused)
}

// Run holds the lease and runs the engine under it until ctx ends (then it releases the lease,
// so that another instance takes over at once, and returns nil) or an engine fails for a reason
// other than losing the lease.
func (l *Leader) Run(ctx context.Context) error {
	if !l.started.CompareAndSwap(false, true) {
		return errors.New("workers: the leader runs once")
	}
	close(l.ready)
	log := l.deps.Logger
	for {
		term, err := l.lease.Acquire(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("workers: engine lease: %w", err)
		}
		l.terms.Inc()
		err = l.term(ctx, term)
		lost := term.Err() // before Release, which ends the term too
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		if relErr := term.Release(rctx); relErr != nil && log != nil {
			log.Warn("release the engine lease", "err", relErr)
		}
		cancel()
		switch {
		case ctx.Err() != nil:
			return nil
		case lost == nil && err == nil:
			return errors.New("workers: the engine stopped")
		case lost == nil:
			return err
		}
		if log != nil {
			log.Warn("engine stopped: the lease was lost; waiting to hold it again", "epoch", term.Epoch, "why", lost)
		}
	}
}

// term runs one engine for as long as term holds.
func (l *Leader) term(ctx context.Context, term *lease.Term) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-term.Lost():
			// Nothing more may be sent with the key: not even a gap fill of a nonce the
			// engine released. The next holder adopts the nonces the log recorded.
			l.deps.Gateway.DropNonces()
			cancel()
		case <-ctx.Done():
		}
	}()
	deps := l.deps
	deps.Store = term.Store()
	if deps.Logger != nil {
		deps.Logger = deps.Logger.With("epoch", term.Epoch)
	}
	// Recovery reads the projections: they must hold everything the previous holder recorded.
	head, err := l.deps.Store.Head(ctx)
	if err == nil {
		err = l.deps.Projections.WaitFor(ctx, head)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("workers: catch up before the engine starts: %w", err)
	}
	e, err := newEngine(l.cfg, deps, l.metrics)
	if err != nil {
		return err
	}
	l.current.Store(e)
	defer l.current.Store(nil)
	if deps.Logger != nil {
		deps.Logger.Info("this instance runs the engine")
	}
	return e.Run(ctx)
}
