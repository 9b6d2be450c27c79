package workers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"

	"relayer/domain/retryafter"
	"relayer/eventstore"
	"relayer/workers/gateway"
	"relayer/workers/lease"
)

// Leader runs the engine in a fleet of instances sharing one store (FleetConfig). With one
// signing key, it runs the whole engine on one instance at a time: it waits for the engine lease,
// runs an Engine over the lease's fenced store for as long as it holds it, and waits again when
// it loses it. With several keys (Deps.Keys), the jobs are split over the keys by job id and
// each key has its own lease ("signer-<address>") and its own engine, driving that key's jobs
// with its share of C and D: the keys' engines run on whichever instances hold their leases, one
// instance possibly holding several, so more keys spread the work and the signing over more
// instances.
//
// Every append of an engine is guarded by its lease's term, so an instance that was paused past
// its lease and comes back cannot record anything, and so cannot send a transaction either (a
// transaction is sent only after TransactionSigned is recorded). A new holder recovers the jobs
// as a restarted engine does: queued and processing jobs return to their queues, in-flight
// transactions are sent again from their recorded bytes and the key's recorded nonces are
// adopted. C and D hold for the fleet because each key's engine counts its share.
//
// The keys move to keep the fleet balanced: an instance that sees another live instance hold at
// least two keys more than itself asks it for one (lease.Lease.AskHandover); the holder stops
// that key's engine, lets its last transaction starts leave their rate window (so D holds for
// the fleet), releases its lease and stays away from it for a lease's duration, and the
// asker, holding fewer leases and so the most eager candidate, takes it. A restarted or added
// instance thus gets its share instead of waiting for another instance to die.
type Leader struct {
	cfg     Config
	deps    Deps
	metrics *engineMetrics
	keys    []*leaderKey

	terms   prometheus.Counter
	ready   chan struct{}
	started atomic.Bool
	// held counts the leases this instance holds now: it waits that many renewal intervals
	// (every) before it takes a free one, and it starts asking for its keys one such interval
	// apart, so that the keys spread over the instances.
	held  atomic.Int32
	every time.Duration
	// holder names this instance in the leases; cooldown is how long it leaves a key it handed
	// over before it may take it again (the lease's duration).
	holder   string
	cooldown time.Duration
}

// leaderKey is one signing key of a Leader: its lease and the engine running under it.
type leaderKey struct {
	shard   shard
	gw      *gateway.Adapter
	lease   *lease.Lease
	current atomic.Pointer[Engine]
	// handedOver is set when the engine stopped because another instance asked for the key.
	handedOver atomic.Bool
}

// SignerLeasePrefix starts the name of a key's lease when the fleet signs with several keys:
// "signer-<address>", its address in lower-case hex.
const SignerLeasePrefix = "signer"

// NewLeader checks cfg and deps as New does; cfg.Fleet says how the leases are held. The store
// must offer guarded appends (SQLite, PostgreSQL). The keys are Deps.Keys, or Deps.Gateway's
// alone; every instance of a fleet must be given the same keys.
func NewLeader(cfg Config, deps Deps) (*Leader, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.Store == nil || deps.Projections == nil || deps.Gateway == nil {
		return nil, errors.New("workers: the engine needs a store, projections and a gateway adapter")
	}
	gws := deps.Keys
	if len(gws) == 0 {
		gws = []*gateway.Adapter{deps.Gateway}
	}
	gws = slices.Clone(gws)
	// The shards follow the addresses' order, so that every instance splits the jobs alike
	// whatever the order of its configuration.
	slices.SortFunc(gws, func(a, b *gateway.Adapter) int { return a.Address().Cmp(b.Address()) })
	for i, gw := range gws {
		if gw == nil || gw.Address() == (common.Address{}) {
			return nil, errors.New("workers: every key of the fleet needs a gateway adapter with a signer")
		}
		if i > 0 && gw.Address() == gws[i-1].Address() {
			return nil, fmt.Errorf("workers: key %s is given twice", gw.Address())
		}
	}
	lc := cfg.Fleet.leaseConfig()
	l := &Leader{cfg: cfg, deps: deps, metrics: newEngineMetrics(), ready: make(chan struct{}),
		terms: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "relayer_engine_terms_total", Help: "Terms of the engine's or the signing keys' leases this instance has held.",
		})}
	if len(gws) > 1 {
		l.every = cmp.Or(lc.Renew, cmp.Or(lc.Duration, lease.DefaultDuration)/5)
		lc.Patience = func() time.Duration { return time.Duration(l.held.Load()) * l.every }
		l.holder, l.cooldown = lc.Holder, cmp.Or(lc.Duration, lease.DefaultDuration)
	}
	for i, gw := range gws {
		k := &leaderKey{gw: gw}
		if len(gws) > 1 {
			addr := strings.ToLower(gw.Address().Hex())
			k.shard = shard{index: i, count: len(gws), key: addr}
			lc.Name = SignerLeasePrefix + "-" + addr
		}
		var err error
		if k.lease, err = lease.New(deps.Store, lc, componentLog(deps.Logger)); err != nil {
			return nil, fmt.Errorf("workers: %w", err)
		}
		l.keys = append(l.keys, k)
	}
	return l, nil
}

// Leases are the leases of the instance's keys, in the keys' order (by address).
func (l *Leader) Leases() []*lease.Lease {
	out := make([]*lease.Lease, len(l.keys))
	for i, k := range l.keys {
		out[i] = k.lease
	}
	return out
}

// Ready is closed once Run has started and found the fleet signing with this instance's keys
// (checkKeys): an instance serves while it waits for the leases.
func (l *Leader) Ready() <-chan struct{} { return l.ready }

// engines are the engines running now in this instance.
func (l *Leader) engines() []*Engine {
	var out []*Engine
	for _, k := range l.keys {
		if e := k.current.Load(); e != nil {
			out = append(out, e)
		}
	}
	return out
}

// Collectors are the engines' collectors (adding up the engines of the terms in progress, zero
// between terms), how many leases this instance holds, and its terms.
func (l *Leader) Collectors() []prometheus.Collector {
	held := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "relayer_engine_lease_held", Help: "Leases this instance holds and runs an engine under: the engine's (0 or 1) with one signing key, else the keys'.",
	}, func() float64 { return float64(len(l.engines())) })
	refused := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "relayer_engine_fenced_appends_total",
		Help: "Appends of this instance's engines refused because their lease term was lost (taken by another instance, or expired unrenewed).",
	}, func() float64 {
		var n int64
		for _, k := range l.keys {
			n += k.lease.Refused()
		}
		return float64(n)
	})
	return append(collectors(l.metrics, l.engines), held, l.terms, refused)
}

// Run holds the leases and runs an engine under each until ctx ends (then it releases them, so
// that other instances take over at once, and returns nil) or an engine fails for a reason
// other than losing its lease.
func (l *Leader) Run(ctx context.Context) error {
	if !l.started.CompareAndSwap(false, true) {
		return errors.New("workers: the leader runs once")
	}
	// Before Ready: serve does not start serving with keys that would strand jobs.
	if err := l.checkKeys(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	close(l.ready)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, len(l.keys)+1)
	for _, k := range l.keys {
		go func() { errs <- l.hold(ctx, k) }()
	}
	go func() { errs <- l.watchKeys(ctx) }()
	if len(l.keys) > 1 {
		go l.balance(ctx)
	}
	var first error
	for range len(l.keys) + 1 {
		if err := <-errs; err != nil && first == nil {
			first = err
			cancel()
		}
	}
	return first
}

// hold is Run for one key.
func (l *Leader) hold(ctx context.Context, k *leaderKey) error {
	log := componentLog(l.deps.Logger)
	if !sleepCtx(ctx, time.Duration(k.shard.index)*l.every) {
		return nil
	}
	for {
		term, err := k.lease.Acquire(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("workers: lease %s: %w", k.lease.Name(), err)
		}
		l.terms.Inc()
		l.held.Add(1)
		err = l.term(ctx, k, term)
		if k.handedOver.Load() && err == nil && term.Err() == nil {
			// The key's next holder starts its share of D afresh: the lease is let go only
			// once the last starts of this engine have left their rate window, so that the
			// fleet never starts more than D in a window.
			sleepCtx(ctx, l.rateSpan(k))
		}
		lost := term.Err() // before Release, which ends the term too
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		if relErr := term.Release(rctx); relErr != nil && log != nil {
			log.Warn("release the lease", "lease", k.lease.Name(), "err", relErr)
		}
		cancel()
		l.held.Add(-1)
		switch {
		case ctx.Err() != nil:
			return nil
		case k.handedOver.Swap(false) && lost == nil && err == nil:
			// Nothing more is sent with the key from here; whoever takes it adopts its nonces.
			k.gw.DropNonces()
			if log != nil {
				log.Info("handed the key over to another instance", "lease", k.lease.Name(), "epoch", term.Epoch)
			}
			if !sleepCtx(ctx, l.cooldown) {
				return nil
			}
			continue
		case lost == nil && err == nil:
			return errors.New("workers: the engine stopped")
		case lost == nil:
			return err
		}
		if log != nil {
			log.Warn("engine stopped: the lease was lost; waiting to hold it again", "lease", k.lease.Name(), "epoch", term.Epoch, "why", lost)
		}
	}
}

// term runs key k's engine for as long as term holds.
func (l *Leader) term(ctx context.Context, k *leaderKey, term *lease.Term) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		asked := term.HandoverAsked()
		for {
			select {
			case <-term.Lost():
				// Nothing more may be sent with the key: not even a gap fill of a nonce the
				// engine released. The next holder adopts the nonces the log recorded.
				k.gw.DropNonces()
				cancel()
				return
			case <-asked:
				asked = nil
				if l.held.Load() < 2 {
					continue // an instance keeps its last key
				}
				k.handedOver.Store(true)
				cancel()
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	deps := l.deps
	deps.Store = term.Store()
	deps.Gateway = k.gw
	if deps.Logger != nil {
		deps.Logger = deps.Logger.With("epoch", term.Epoch)
		if k.shard.key != "" {
			deps.Logger = deps.Logger.With("key", k.shard.key)
		}
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
	e, err := newEngine(l.cfg, deps, l.metrics, k.shard, head)
	if err != nil {
		return err
	}
	k.current.Store(e)
	defer k.current.Store(nil)
	if deps.Logger != nil {
		deps.Logger.Info("this instance runs the engine", "component", logComponent, "lease", k.lease.Name())
	}
	return e.Run(ctx)
}

// rateSpan is the longest window over which key k's engine counts its share of D, over the
// kinds (windowOf): a second, or more for a share below one start a second.
func (l *Leader) rateSpan(k *leaderKey) time.Duration {
	tuning := l.deps.Tuning
	if tuning == nil {
		tuning = retryafter.DefaultConfig
	}
	t := tuning()
	span := time.Second
	for _, d := range []float64{t.InputProofTPS, t.UserDecryptTPS, t.PublicDecryptTPS} {
		_, s := windowOf(k.shard.rate(d))
		span = max(span, s)
	}
	return span
}

// balance asks, now and then, for a key of the instance that holds the most when it holds at
// least two more than this one. An instance counts as live while its renewals move: each round
// is two renewal intervals apart, so a live holder renews between two rounds, and a dead one is
// never asked (the request would look like a renewal to the candidates waiting for its lease to
// lapse). After asking, it waits two lease durations before it asks again, for the key to move.
func (l *Leader) balance(ctx context.Context) {
	type seen struct {
		epoch    uint64
		renewals eventstore.Version
	}
	last := make([]seen, len(l.keys))
	var quietUntil time.Time
	for sleepCtx(ctx, 2*l.every) {
		held := map[string][]int{} // live holder: the indexes of its keys
		epochs := make([]uint64, len(l.keys))
		for i, k := range l.keys {
			holder, epoch, err := k.lease.Holder(ctx)
			if err != nil || holder == "" {
				last[i] = seen{}
				continue
			}
			rv, err := eventstore.LastVersion(ctx, l.deps.Store, lease.RenewalStream(k.lease.Name(), epoch))
			if err != nil {
				continue
			}
			now := seen{epoch, rv}
			if now != last[i] && last[i].epoch == epoch {
				held[holder] = append(held[holder], i)
			}
			last[i], epochs[i] = now, epoch
		}
		if time.Now().Before(quietUntil) {
			continue
		}
		mine := int(l.held.Load())
		most := ""
		for h, keys := range held {
			if h != l.holder && (most == "" || len(keys) > len(held[most]) || len(keys) == len(held[most]) && h < most) {
				most = h
			}
		}
		if most == "" || len(held[most]) < mine+2 {
			continue
		}
		i := held[most][rand.IntN(len(held[most]))]
		asked, err := l.keys[i].lease.AskHandover(ctx, epochs[i])
		if err != nil && ctx.Err() == nil && l.deps.Logger != nil {
			componentLog(l.deps.Logger).Warn("ask for a key", "lease", l.keys[i].lease.Name(), "err", err)
		}
		if asked {
			quietUntil = time.Now().Add(2 * l.cooldown)
		}
	}
}

// componentLog is logger (nil stays nil) naming the leader's lines as the engine's are named:
// the engines are given the leader's logger without it, and name their lines themselves.
func componentLog(logger *slog.Logger) *slog.Logger {
	if logger == nil {
		return nil
	}
	return logger.With("component", logComponent)
}
