package workers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers/gateway"
	"relayer/workers/lease"
	"relayer/workers/upstream"
)

// TopicGatewayResponses carries the gateway's response events from the block listener to the
// responses handler: one message per block range read, its events in chain order (JSON array of
// gateway.Event).
const TopicGatewayResponses = "gateway.responses"

// Deps are what the engine stands on.
type Deps struct {
	// Store is the event log.
	Store eventstore.Store
	// Projections must be following Store (Set.Run) while the engine runs, and caught up when
	// Run starts: recovery reads them.
	Projections *projections.Set
	// Gateway is the chain adapter; it must have a signer.
	Gateway *gateway.Adapter
	// Keys are, for a Leader, the adapters of every signing key the fleet shares, one per key
	// (Adapter.WithKey); empty: Gateway's key alone.
	Keys []*gateway.Adapter
	// Tuning returns the throughput limits in force: readiness_max_concurrency (C) and the
	// *_throttler_tps per kind (D). It is called often and must be cheap (api.Server.Tuning).
	// Nil uses retryafter.DefaultConfig.
	Tuning func() retryafter.Config
	// Logger may be nil. The engine names its lines' component itself (workers, and transport,
	// router, dispatcher for its parts): Logger must not carry a "component" attribute, or its
	// lines would carry two.
	Logger *slog.Logger
	// Now is the clock of the events' times (time.Now when nil).
	Now func() time.Time
}

// logComponent names the engine's own log lines, and the leader's.
const logComponent = "workers"

// Engine runs the relayer's workers (DESIGN section 6): the dispatcher that publishes the log
// to watermill topics, the router with the handlers, and the four workers that drive every job
// to a terminal state (readiness, tx, responses, timeouts), after recovery at start.
type Engine struct {
	cfg     Config
	store   eventstore.Store
	set     *projections.Set
	gw      *gateway.Adapter
	tuning  func() retryafter.Config
	log     *slog.Logger
	now     func() time.Time
	exec    *projections.Executor
	metrics *engineMetrics
	// shard is the part of the jobs this engine drives (all of them outside a fleet of keys).
	shard shard

	transport *Transport
	// local carries the gateway's responses from the listener to their handler: always in
	// process (GoChannel), whatever transport carries the log's events, since both ends are this
	// engine's and the block cursor must not move past a batch its handler has not kept.
	local      *Transport
	router     *Router
	dispatcher *Dispatcher

	readiness *readinessWorker
	tx        *txWorker
	responses *responsesWorker
	timeouts  *timeoutsWorker
	// balance pauses the key while its balance is below the floor.
	balance *balanceGuard

	// passed hands a job the readiness worker passed to the tx worker (passedJob by job id).
	passed sync.Map

	ready   chan struct{}
	runOnce sync.Once
	// ctx is Run's context, set before any handler runs: the work a handler starts in the
	// background (a cancel's no-op) ends with the engine, not with the message.
	ctx context.Context
}

// passedJob is a job the readiness worker passed: its state and when the append returned.
type passedJob struct {
	state domain.State
	at    time.Time
}

// New builds the engine. Nothing runs before Run.
func New(cfg Config, deps Deps) (*Engine, error) {
	return newEngine(cfg, deps, newEngineMetrics(), shard{}, 0)
}

// newEngine builds an engine driving sh's jobs and counting into m (a Leader's engines share
// theirs). A dispatcher that never saved a checkpoint starts after from (0: the log's start).
func newEngine(cfg Config, deps Deps, m *engineMetrics, sh shard, from eventstore.Position) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	if deps.Store == nil || deps.Projections == nil || deps.Gateway == nil {
		return nil, errors.New("workers: the engine needs a store, projections and a gateway adapter")
	}
	if deps.Tuning == nil {
		deps.Tuning = retryafter.DefaultConfig
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.DiscardHandler)
	}
	e := &Engine{
		cfg: cfg, store: deps.Store, set: deps.Projections, gw: deps.Gateway, tuning: deps.Tuning,
		log: deps.Logger.With("component", logComponent), now: deps.Now,
		exec:    &projections.Executor{Store: deps.Store, Codec: projections.NewCodec(), Retries: 5},
		metrics: m,
		shard:   sh,
		ready:   make(chan struct{}),
	}
	cfg.Dispatcher.Name = sh.name(cfg.Dispatcher.Name)
	if sh.key != "" {
		// Each key's engine has its own stream on NATS: only its lease's holder consumes it.
		cfg.Transport.NATS.Prefix = sh.natsPrefix(cfg.Transport.NATS.Prefix)
	}
	t, err := NewTransport(cfg.Transport, quietLogger(deps.Logger.With("component", "transport")))
	if err != nil {
		return nil, err
	}
	e.transport, e.local = t, t
	closeAll := func() {
		_ = t.Close()
		if e.local != t {
			_ = e.local.Close()
		}
	}
	if t.Kind != TransportGoChannel {
		if e.local, err = NewTransport(TransportConfig{}, quietLogger(deps.Logger.With("component", "transport"))); err != nil {
			_ = t.Close()
			return nil, err
		}
	}
	r, err := NewRouter(cfg.Router, t, deps.Logger.With("component", "router"))
	if err != nil {
		closeAll()
		return nil, err
	}
	r.onPoison = e.recordPoison
	e.router = r
	d, err := NewDispatcher(deps.Store, t.Publisher, cfg.Dispatcher, deps.Logger.With("component", "dispatcher"))
	if err != nil {
		closeAll()
		return nil, err
	}
	d.from = from
	if sh.count > 1 {
		// The other shards' receipts too: their gateway request ids are not this shard's, so
		// their responses are dropped rather than kept for a receipt that will not come here.
		d.keep = func(r eventstore.Record) bool {
			id, ok := domain.JobIDFromStream(r.Stream)
			return !ok || sh.owns(id) || r.Type == "ReceiptRecorded"
		}
	}
	e.dispatcher = d
	e.readiness = newReadinessWorker(e)
	e.tx = newTxWorker(e)
	e.responses = newResponsesWorker(e)
	e.timeouts = &timeoutsWorker{e: e, inFlight: map[domain.JobID]bool{}}
	e.balance = newBalanceGuard(e)
	e.addHandlers()
	return e, nil
}

// Ready is closed once recovery is done and every worker runs.
func (e *Engine) Ready() <-chan struct{} { return e.ready }

// Router is the engine's watermill router (for operators' own handlers, added before Run).
func (e *Engine) Router() *Router { return e.router }

// Transport is what carries the engine's messages; operators may subscribe to
// TopicTransitions, TopicPoison or any event topic on it, before Run (a GoChannel subscription
// made while messages flow can deadlock a publish that waits for acknowledgements).
func (e *Engine) Transport() *Transport { return e.transport }

// Dispatcher is the engine's dispatcher.
func (e *Engine) Dispatcher() *Dispatcher { return e.dispatcher }

// Run recovers the jobs the log left unfinished, starts the workers and the dispatcher, and
// runs until ctx ends (it then returns nil) or a part fails for good.
func (e *Engine) Run(ctx context.Context) error {
	started := false
	e.runOnce.Do(func() { started = true })
	if !started {
		return errors.New("workers: the engine runs once")
	}
	defer e.transport.Close()
	if e.local != e.transport {
		defer e.local.Close()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	e.ctx = ctx

	var wg sync.WaitGroup
	fail := func(part string, err error) {
		if err != nil && ctx.Err() == nil {
			if errors.Is(err, lease.ErrDeposed) {
				// The fleet's engine moved to another instance (Leader): expected, not a fault.
				e.log.Warn("worker stopped: the engine lease was lost", "part", part, "err", err)
			} else {
				e.log.Error("worker stopped", "part", part, "err", err)
			}
			cancel(fmt.Errorf("%s: %w", part, err))
		}
	}
	spawn := func(part string, f func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fail(part, f(ctx))
		}()
	}
	defer e.tx.wg.Wait() // the sends in progress, once nothing can start more
	defer wg.Wait()
	defer cancel(nil)

	spawn("router", func(ctx context.Context) error {
		err := e.router.Run(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err == nil {
			err = errors.New("router stopped")
		}
		return err
	})
	select {
	case <-e.router.Running():
	case <-ctx.Done():
		return e.result(ctx)
	}

	cursor, err := e.responses.loadCursor(ctx)
	if err != nil {
		return fmt.Errorf("workers: %w", err)
	}
	if err := e.balance.load(ctx); err != nil { // a key the log paused sends nothing from the start
		if ctx.Err() != nil {
			return e.result(ctx)
		}
		return fmt.Errorf("workers: %w", err)
	}
	if err := e.recover(ctx); err != nil {
		if ctx.Err() != nil {
			return e.result(ctx)
		}
		return fmt.Errorf("workers: recovery: %w", err)
	}
	spawn("responses", func(ctx context.Context) error { return e.responses.listen(ctx, cursor) })
	spawn("readiness", e.readiness.run)
	for _, k := range domain.Kinds() {
		if k.Family() == k { // one sender per queue: a delegated user decrypt is started by the user decrypts'
			spawn("tx "+k.String(), func(ctx context.Context) error { return e.tx.run(ctx, k) })
		}
	}
	spawn("timeouts", e.timeouts.run)
	spawn("balance", e.balance.run)
	spawn("nonces", e.watchNonces)
	spawn("outages", e.outages)
	spawn("sweep", e.sweep)
	spawn("dispatcher", e.dispatcher.Run)
	close(e.ready)
	e.log.Info("workers running")
	<-ctx.Done()
	return e.result(ctx)
}

func (e *Engine) result(ctx context.Context) error {
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// addHandlers subscribes the workers to the topics they act on. Every handler only takes note
// of the job (and acknowledges at once), so the dispatcher never waits for chain calls.
func (e *Engine) addHandlers() {
	e.router.AddHandler("readiness-or-tx.accepted", EventTopic("RequestAccepted"), func(ctx context.Context, msg *message.Message, ev domain.Event) error {
		a := ev.(domain.RequestAccepted)
		s := domain.Evolve(domain.State{}, a)
		s.CorrelationID = msg.Metadata.Get(MetaCorrelationID)
		if a.Kind.NeedsReadiness() {
			e.readiness.enqueue(readinessItem{id: a.JobID, enabled: recordedAt(msg), cause: msg.Metadata.Get(MetaCausationID),
				corr: s.CorrelationID, state: s})
		} else {
			e.tx.add(a.Kind, txItem{id: a.JobID, enabled: recordedAt(msg), cause: msg.Metadata.Get(MetaCausationID),
				corr: s.CorrelationID, state: s}, false)
		}
		return nil
	})
	toTx := func(ctx context.Context, msg *message.Message, ev domain.Event) error {
		id := ev.Header().JobID
		it := txItem{id: id, enabled: recordedAt(msg), cause: msg.Metadata.Get(MetaCausationID), corr: msg.Metadata.Get(MetaCorrelationID)}
		if h, ok := e.passed.LoadAndDelete(id); ok {
			// Passed by this process's readiness worker: its state and the time its append
			// returned (the event's commit, where RecordedAt is stamped before it).
			p := h.(passedJob)
			it.state, it.enabled = p.state, p.at
		}
		k := it.state.Kind
		if k.IsZero() {
			var err error
			if k, err = e.kindOf(ctx, id); err != nil {
				return err
			}
		}
		e.tx.add(k, it, false)
		return nil
	}
	e.router.AddHandler("tx.readiness-passed", EventTopic("ReadinessPassed"), toTx)
	e.router.AddHandler("tx.reset", EventTopic("TransactionReset"), toTx)
	e.router.AddHandler("tx.cancel", EventTopic("CancelRequested"), func(ctx context.Context, msg *message.Message, ev domain.Event) error {
		id := ev.Header().JobID
		if !e.shard.owns(id) {
			return nil
		}
		e.tx.wg.Add(1)
		go func() {
			defer e.tx.wg.Done()
			e.tx.cancelRequested(e.ctx, id, msg.Metadata.Get(MetaCausationID))
		}()
		return nil
	})
	e.router.AddHandler("retry.requested", EventTopic("RetryRequested"), func(ctx context.Context, msg *message.Message, ev domain.Event) error {
		r := ev.(domain.RetryRequested)
		if !e.shard.owns(r.JobID) {
			return nil
		}
		if r.From == domain.Queued {
			e.readiness.nudge(r.JobID)
		} else {
			e.tx.retryNow(r.JobID)
		}
		return nil
	})
	e.router.AddHandler("responses.receipt", EventTopic("ReceiptRecorded"), func(ctx context.Context, msg *message.Message, ev domain.Event) error {
		r := ev.(domain.ReceiptRecorded)
		k, err := e.kindOf(ctx, r.JobID)
		if err != nil {
			return err
		}
		return e.responses.register(ctx, k, r.GatewayRequestID, r.JobID, domain.State{})
	})
	e.router.AddConsumerHandler("responses.gateway", TopicGatewayResponses, e.local.Subscriber, e.responses.handle)
	// Every transition comes here: what it needs is in the message's metadata (the status the
	// dispatcher read from the event, the job's stream), so the event is not decoded again.
	e.router.AddConsumerHandler("responses.ended", TopicTransitions, e.router.transport.Subscriber, func(msg *message.Message) error {
		st, err := domain.ParseStatus(msg.Metadata.Get(MetaStatus))
		if err != nil {
			return Permanent(fmt.Errorf("message %s: %s metadata: %w", msg.UUID, MetaStatus, err))
		}
		if !st.Terminal() {
			return nil
		}
		id, ok := domain.JobIDFromStream(msg.Metadata.Get(MetaStream))
		if !ok {
			return Permanent(fmt.Errorf("message %s: %s metadata %q is no job's stream", msg.UUID, MetaStream, msg.Metadata.Get(MetaStream)))
		}
		e.responses.jobEnded(id)
		return nil
	})
}

// kindOf is a job's kind, from the projections or else from its stream.
func (e *Engine) kindOf(ctx context.Context, id domain.JobID) (domain.Kind, error) {
	if j, ok := e.set.Job(id); ok {
		return j.Kind, nil
	}
	s, err := e.exec.Load(ctx, id)
	if err != nil {
		return domain.Kind{}, err
	}
	if s.Status.IsZero() {
		return domain.Kind{}, Permanent(fmt.Errorf("job %s: no such request", id))
	}
	return s.Kind, nil
}

// execute runs cmd on job id with the causing message's coordinates. A command the job's
// state no longer allows (another worker, a timeout or a duplicate delivery got there first)
// is reported as (false, nil): it changed nothing and there is nothing to retry.
func (e *Engine) execute(ctx context.Context, id domain.JobID, cmd domain.Command, causation string) (projections.Outcome, bool, error) {
	return e.executeOn(ctx, id, domain.State{}, cmd, causation)
}

// executeOn is execute deciding first on s, a state of the job already in hand (the zero State
// reads the stream), which saves a read of the stream (projections.Executor.ExecuteOn).
func (e *Engine) executeOn(ctx context.Context, id domain.JobID, s domain.State, cmd domain.Command, causation string) (projections.Outcome, bool, error) {
	md := eventstore.Metadata{CausationID: causation} // the Executor gives it the job's correlation id
	out, err := e.exec.ExecuteOn(ctx, id, s, cmd, md)
	if err != nil {
		if isRuleViolation(err) {
			e.log.Debug("command no longer applies", "job_id", id, "correlation_id", out.State.CorrelationID, "command", cmd.CommandName(), "err", err)
			return out, false, nil
		}
		return out, false, err
	}
	e.metrics.transition(out.Events)
	return out, true, nil
}

// correlationOf is job id's correlation id as its first event has it, for a log line about a job
// whose state is not in hand; empty when the log cannot say within a second.
func (e *Engine) correlationOf(ctx context.Context, id domain.JobID) string {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	for rec, err := range e.store.ReadStream(ctx, id.Stream(), 0) {
		if err != nil {
			return ""
		}
		return rec.Metadata.CorrelationID
	}
	return ""
}

// record executes cmd until it is recorded, no longer applies, or ctx ends (then false), pausing
// about pause between tries (retryEvery): an outcome a worker has decided must not be lost to a
// passing failure of the log. The first try decides on s.
func (e *Engine) record(ctx context.Context, id domain.JobID, s domain.State, cmd domain.Command, cause string, pause time.Duration) (projections.Outcome, bool) {
	retry := retryEvery(pause)
	for failures := 1; ; failures++ {
		out, ok, err := e.executeOn(ctx, id, s, cmd, cause)
		if err == nil {
			return out, ok
		}
		s = domain.State{} // read it again
		e.log.Warn("record an outcome; trying again", "job_id", id, "correlation_id", cmp.Or(s.CorrelationID, e.correlationOf(ctx, id)), "command", cmd.CommandName(), "err", err)
		if !sleepCtx(ctx, retry.Delay(failures, nil)) {
			return projections.Outcome{}, false
		}
	}
}

// retryEvery is the wait of a worker's loop that tries again every d until it succeeds (a write
// to the log that must not be lost, a chain read the worker cannot go on without): d, jittered
// down to half, so that the loops one failure started together (every job's, when the log
// fails) do not all try again at the same instant. docs/RETRIES.md lists each loop.
func retryEvery(d time.Duration) upstream.Backoff {
	return upstream.Backoff{Base: d, Jitter: upstream.EqualJitter}
}

// isRuleViolation tells a command the job's state refused from a failure to read or write.
func isRuleViolation(err error) bool {
	var te *domain.TransitionError
	return errors.As(err, &te) || errors.Is(err, domain.ErrIllegalTransition) || errors.Is(err, domain.ErrTerminal) ||
		errors.Is(err, domain.ErrDuplicateShare) || errors.Is(err, domain.ErrNoRequest) ||
		errors.Is(err, domain.ErrWrongKind) || errors.Is(err, domain.ErrInvalidCommand)
}

// recordedAt is when the store committed the dispatched event (zero when unknown).
func recordedAt(msg *message.Message) time.Time {
	t, err := time.Parse(time.RFC3339Nano, msg.Metadata.Get(MetaRecordedAt))
	if err != nil {
		return time.Time{}
	}
	return t
}

// sleepCtx waits d or until ctx ends; false when ctx ended.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	return upstream.RealClock().Sleep(ctx, d) == nil
}

// recordPoison makes a poisoned message visible to operators: counted in the metrics and
// appended to the poison stream, which GET /v1/transitions shows as "poison" events.
func (e *Engine) recordPoison(msg *message.Message) {
	e.metrics.poisoned.Inc()
	pos, _ := strconv.ParseUint(msg.Metadata.Get(MetaPosition), 10, 64)
	p := domain.MessagePoisoned{
		Topic: msg.Metadata.Get(middleware.PoisonedTopicKey), Handler: msg.Metadata.Get(middleware.PoisonedHandlerKey),
		Reason: msg.Metadata.Get(middleware.ReasonForPoisonedKey), Stream: msg.Metadata.Get(MetaStream),
		Type: msg.Metadata.Get(MetaType), Position: pos, MessageID: msg.UUID, At: e.now().UTC(),
	}
	ev, err := e.exec.Codec.Encode(p, eventstore.Metadata{CorrelationID: msg.Metadata.Get(MetaCorrelationID), CausationID: msg.UUID})
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err = e.store.Append(ctx, domain.PoisonStream, eventstore.Any, ev)
	}
	if err != nil {
		e.log.Error("could not record a poisoned message in the log", "message", msg.UUID, "err", err)
	}
}

// quietLogger is watermill's logger with its per-message info lines ("No subscribers to send
// message", handler starts) moved to debug: at the relayer's rates they would flood the log.
func quietLogger(l *slog.Logger) watermill.LoggerAdapter {
	return watermill.NewSlogLoggerWithLevelMapping(l, map[slog.Level]slog.Level{slog.LevelInfo: slog.LevelDebug})
}
