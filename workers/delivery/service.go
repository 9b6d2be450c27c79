package delivery

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"relayer/domain/webhook"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers"
	"relayer/workers/lease"
	"relayer/workers/upstream"
)

// LeaseName names the lease deliveries run under in a fleet.
const LeaseName = "webhooks"

// CheckpointPrefix starts the consumer name of an endpoint's checkpoint: its stream is
// "checkpoint-webhook-<id>".
const CheckpointPrefix = "webhook-"

// Config configures the deliveries: the webhooks section (its key opens the secrets, its timeout,
// retry cap and disable_after drive each delivery), and how often checkpoints are saved.
type Config struct {
	Webhooks webhook.Config
	// Checkpoint throttles each endpoint's checkpoint saves (workers' defaults: every 100
	// records or every second).
	Checkpoint workers.CheckpointConfig
	// Poll is how often the webhooks stream is read again when no change was signalled
	// (Deps.Changes). Default 5s.
	Poll time.Duration
}

// DefaultPoll is Config.Poll's default.
const DefaultPoll = 5 * time.Second

// Validate checks the configuration (zero values take defaults).
func (c Config) Validate() error {
	if err := c.Webhooks.Validate(); err != nil {
		return err
	}
	if c.Poll < 0 {
		return fmt.Errorf("delivery: poll %s, want 0 (default) or more", c.Poll)
	}
	return c.Checkpoint.Validate()
}

// Deps are what the deliveries stand on.
type Deps struct {
	Store eventstore.Store
	// Changes is signalled when the webhooks stream may have changed
	// (projections.Set.NotifyStream(webhook.Stream)); nil: the stream is read every Config.Poll.
	Changes <-chan struct{}
	// Head is the log's head as this instance knows it (projections.Set.Position), for the lag
	// metrics; nil: the store's.
	Head func() eventstore.Position
	// Lease, when set, runs the deliveries only while this instance holds the lease it names
	// (a fleet); Name defaults to LeaseName. The store must offer guarded appends.
	Lease *lease.Config
	// Logger may be nil.
	Logger *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Service runs the deliveries: Run follows the webhooks stream and runs one follower per active
// endpoint (under the lease, in a fleet). Build it with New.
type Service struct {
	cfg     Config
	key     webhook.Key
	store   eventstore.Store
	codec   *eventstore.Codec
	changes <-chan struct{}
	head    func() eventstore.Position
	lease   *lease.Lease
	log     *slog.Logger
	now     func() time.Time
	client  *http.Client
	sched   upstream.Schedule

	// wake nudges the manager: a follower stopped, the lease changed hands.
	wake chan struct{}
	// term is the store the followers append through and the context they run under while
	// this instance may deliver; nil while it may not (a fleet's instance without the lease).
	termMu sync.Mutex
	term   *termScope

	metrics *metrics
}

// termScope is a period in which this instance delivers: the store to append through (the
// lease's fenced one) and a context that ends with it.
type termScope struct {
	ctx   context.Context
	store eventstore.Store
}

// New checks cfg and deps.
func New(cfg Config, deps Deps) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.Store == nil {
		return nil, errors.New("delivery: no store")
	}
	cfg.Webhooks = cfg.Webhooks.WithDefaults()
	cfg.Poll = cmp.Or(cfg.Poll, DefaultPoll)
	s := &Service{cfg: cfg, key: cfg.Webhooks.Key(), store: deps.Store, codec: projections.NewCodec(), changes: deps.Changes,
		head: deps.Head, log: deps.Logger, now: deps.Now, wake: make(chan struct{}, 1),
		client: newClient(cfg.Webhooks.Timeout, cfg.Webhooks.AllowPrivate),
		sched:  upstream.Schedule{Cap: cfg.Webhooks.RetryCap}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.log = s.log.With("component", "webhooks")
	if s.now == nil {
		s.now = time.Now
	}
	if s.head == nil {
		s.head = func() eventstore.Position {
			h, _ := deps.Store.Head(context.Background())
			return h
		}
	}
	l, err := lease.NewOptional(deps.Store, deps.Lease, LeaseName, s.log)
	if err != nil {
		return nil, fmt.Errorf("delivery: %w", err)
	}
	s.lease = l
	s.metrics = newMetrics(s)
	return s, nil
}

// Lease is the lease "webhooks" the deliveries run under in a fleet; nil alone on a log.
func (s *Service) Lease() *lease.Lease { return s.lease }

// nudge wakes the manager without blocking.
func (s *Service) nudge() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Service) currentTerm() *termScope {
	s.termMu.Lock()
	defer s.termMu.Unlock()
	return s.term
}

func (s *Service) setTerm(t *termScope) {
	s.termMu.Lock()
	s.term = t
	s.termMu.Unlock()
	s.nudge()
}

// Run delivers until ctx ends, then stops every follower (each saves its checkpoint) and returns
// nil. It fails only for a misuse; a store or an endpoint failing is waited out.
func (s *Service) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	if s.lease == nil {
		s.setTerm(&termScope{ctx: ctx, store: s.store})
	} else {
		wg.Go(func() { s.holdLease(ctx) })
	}
	s.manage(ctx)
	wg.Wait()
	return nil
}

// holdLease acquires the lease, lets the followers run for as long as it holds it, and waits for
// it again when it is lost.
func (s *Service) holdLease(ctx context.Context) {
	for {
		term, err := s.lease.Acquire(ctx)
		if err != nil {
			return // ctx ended: Acquire waits out every other failure
		}
		s.metrics.leaseHeld.Store(true)
		tctx, cancel := context.WithCancel(ctx)
		s.setTerm(&termScope{ctx: tctx, store: term.Store()})
		s.log.Info("this instance delivers the webhooks", "lease", s.lease.Name(), "epoch", term.Epoch)
		select {
		case <-term.Lost():
			s.log.Warn("webhook deliveries stopped: the lease was lost", "epoch", term.Epoch, "why", term.Err())
		case <-ctx.Done():
		}
		cancel() // the followers stop at once; the next holder resumes from their checkpoints
		s.setTerm(nil)
		s.metrics.leaseHeld.Store(false)
		s.waitFollowersStopped(ctx)
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		if err := term.Release(rctx); err != nil {
			s.log.Warn("release the webhooks lease", "err", err)
		}
		rcancel()
		if ctx.Err() != nil {
			return
		}
	}
}

// waitFollowersStopped waits (briefly) until the manager has seen the followers of the last term
// end, so that the lease is released after their last checkpoint.
func (s *Service) waitFollowersStopped(ctx context.Context) {
	deadline := time.Now().Add(10 * time.Second)
	for s.metrics.running() > 0 && time.Now().Before(deadline) {
		if !sleep(context.WithoutCancel(ctx), 10*time.Millisecond) {
			return
		}
	}
}

// follower is one endpoint's follower as the manager runs it.
type follower struct {
	stats  *endpointStats
	ep     *endpointRef
	cancel context.CancelFunc
	done   chan struct{}
	term   *termScope
}

// manage follows the webhooks stream and keeps one follower running per active endpoint while
// this instance may deliver.
func (s *Service) manage(ctx context.Context) {
	reg := eventstore.NewFolded(webhook.NewRegistry())
	running := map[string]*follower{}
	stop := func(id string) {
		f := running[id]
		f.cancel()
		<-f.done
		delete(running, id)
	}
	defer func() {
		for id := range running {
			stop(id)
		}
		s.metrics.setRunning(0)
	}()
	tick := time.NewTicker(s.cfg.Poll)
	defer tick.Stop()
	failures := 0
	warnedOff := false
	for {
		if err := reg.Catch(ctx, s.store, s.codec, webhook.Stream, foldRegistry); err != nil {
			if ctx.Err() != nil {
				return
			}
			failures++
			s.log.Warn("read the webhooks stream; trying again", "err", err)
			if !sleep(ctx, upstream.Backoff{Base: 500 * time.Millisecond, Max: 10 * time.Second}.Delay(failures, nil)) {
				return
			}
			continue
		}
		failures = 0
		term := s.currentTerm()
		s.metrics.sync(reg.State)
		for id, f := range running {
			e, _ := reg.State.Get(id)
			select {
			case <-f.done:
				delete(running, id) // it ended by itself (disabled the endpoint): started again below if need be
				continue
			default:
			}
			if term == nil || f.term != term || e == nil || e.State != webhook.StateActive {
				stop(id)
				continue
			}
			f.ep.set(e) // a rotation: the next attempt signs with the new secrets
		}
		if s.key.IsZero() {
			// Webhooks are off: nothing can be signed, so nothing is delivered (and no endpoint
			// is disabled for it); the endpoints' lag shows it.
			if n := len(reg.State.Endpoints(false)); n > 0 && !warnedOff {
				s.log.Warn("webhook endpoints are registered but webhooks.secret_key is not set: nothing is delivered to them", "endpoints", n)
				warnedOff = true
			}
		} else if term != nil && term.ctx.Err() == nil {
			for _, e := range reg.State.Endpoints(false) {
				if e.State != webhook.StateActive || running[e.ID] != nil {
					continue
				}
				fctx, cancel := context.WithCancel(term.ctx)
				f := &follower{stats: s.metrics.endpoint(e.ID), ep: newEndpointRef(e), cancel: cancel, done: make(chan struct{}), term: term}
				running[e.ID] = f
				go func() {
					defer close(f.done)
					defer s.nudge()
					s.follow(fctx, term.store, f)
				}()
			}
		}
		s.metrics.setRunning(len(running))
		select {
		case <-ctx.Done():
			return
		case <-s.changes:
		case <-s.wake:
		case <-tick.C:
		}
	}
}

// foldRegistry folds the webhooks stream.
func foldRegistry(r webhook.Registry, e eventstore.Typed) webhook.Registry { return r.Apply(e) }

// sleep waits d or until ctx ends; false when ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	return upstream.RealClock().Sleep(ctx, d) == nil
}

// Slowest is how far every webhook endpoint not deleted (disabled ones too: enabled again, they
// resume where they stopped) has surely been delivered: the lowest of their saved checkpoints, or
// of their registrations' heads where nothing was saved yet, and the endpoint at it. ok is false
// when there is no such endpoint. The archiver retires no job with an event above it, so that no
// endpoint loses a transition the live store no longer holds.
func Slowest(ctx context.Context, store eventstore.Store) (pos eventstore.Position, endpoint string, ok bool, err error) {
	reg := eventstore.NewFolded(webhook.NewRegistry())
	if err := reg.Catch(ctx, store, projections.NewCodec(), webhook.Stream, foldRegistry); err != nil {
		return 0, "", false, fmt.Errorf("read the webhooks: %w", err)
	}
	for _, ep := range reg.State.Endpoints(false) {
		cp, err := workers.LoadCheckpoint(ctx, store, CheckpointPrefix+ep.ID, workers.CheckpointConfig{})
		if err != nil {
			return 0, "", false, err
		}
		at := max(cp.Saved(), eventstore.Position(ep.After))
		if !ok || at < pos {
			pos, endpoint, ok = at, ep.ID, true
		}
	}
	return pos, endpoint, ok, nil
}
