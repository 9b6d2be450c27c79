// Package groupcommit is what the SQLite and PostgreSQL stores share of their write path: a
// Gate that admits Append calls until Close and hands them to the store's one writer goroutine,
// the requests that travel to it, the Queue that goroutine takes them from in batches and
// answers them through, and the Notifier that wakes subscribers after each commit. How a batch
// is written (the transaction, the version checks) stays with each backend.
package groupcommit

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"relayer/eventstore"
)

// Req is one Append call on its way through the writer.
type Req struct {
	Ctx      context.Context
	Stream   string
	Expected eventstore.Version
	Guard    *eventstore.Guard // nil for a plain append
	Events   []eventstore.Event
	done     chan struct{} // closed once Pos and Err are set

	Pos eventstore.Position
	Err error
	OK  bool // passed its version check in the transaction being built
}

// NewReq makes the request of one Append call.
func NewReq(ctx context.Context, stream string, expected eventstore.Version, guard *eventstore.Guard, events []eventstore.Event) *Req {
	return &Req{Ctx: ctx, Stream: stream, Expected: expected, Guard: guard, Events: events, done: make(chan struct{})}
}

// Done is closed once the writer answered r.
func (r *Req) Done() <-chan struct{} { return r.done }

// Gate admits writes to a store until Close, and hands appends to the writer's queue. The zero
// value is not ready: use NewGate.
type Gate struct {
	to      chan<- *Req
	refused error // why the store takes no writes at all (read-only), or nil

	// mu guards closed; writes counts the writes admitted before Close, which Close lets
	// finish before the store stops its writer.
	mu      sync.RWMutex
	batchMu sync.Mutex // AppendBatch calls, one at a time
	closed  bool
	writes  sync.WaitGroup
	done    chan struct{} // closed by Close: wakes subscribers
}

// NewGate returns the gate of a store whose writer takes appends from to. A store that takes
// no writes passes a nil to and, as refused, the error every write fails with.
func NewGate(to chan<- *Req, refused error) *Gate {
	return &Gate{to: to, refused: refused, done: make(chan struct{})}
}

// Enter admits a write: it returns eventstore.ErrClosed once Close has begun, the refusal of a
// store that takes no writes, or nil, when the caller must call Leave once the write is
// answered.
func (g *Gate) Enter() error {
	g.mu.RLock()
	defer g.mu.RUnlock()
	switch {
	case g.closed:
		return eventstore.ErrClosed
	case g.refused != nil:
		return g.refused
	}
	g.writes.Add(1)
	return nil
}

// Leave ends a write Enter admitted.
func (g *Gate) Leave() { g.writes.Done() }

// Append hands an append, checked by the store already, to the writer and waits for its
// answer. If ctx ends before the writer takes it into a transaction, Append returns ctx's
// error and nothing is written; once taken, Append waits for the commit.
func (g *Gate) Append(ctx context.Context, guard *eventstore.Guard, stream string, expected eventstore.Version, events []eventstore.Event) (eventstore.Position, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("append %s: %w", stream, err)
	}
	if err := g.Enter(); err != nil {
		return 0, fmt.Errorf("append %s: %w", stream, err)
	}
	defer g.Leave()
	r := NewReq(ctx, stream, expected, guard, events)
	select {
	case g.to <- r:
	case <-ctx.Done():
		return 0, fmt.Errorf("append %s: %w", stream, ctx.Err())
	}
	<-r.done
	return r.Pos, r.Err
}

// AppendBatch implements eventstore.BatchAppender on the writer: the appends go to it in the
// order given, one after the other, so their events take positions in that order, and it commits
// them in as few transactions as its batches allow. check is the store's own check of an append
// (eventstore.ValidateAppend and more); an append that fails it is not sent.
func (g *Gate) AppendBatch(ctx context.Context, appends []eventstore.StreamAppend, check func(eventstore.StreamAppend) error) ([]eventstore.Position, []error) {
	pos, errs := make([]eventstore.Position, len(appends)), make([]error, len(appends))
	reqs := make([]*Req, len(appends))
	for i, a := range appends {
		errs[i] = check(a)
	}
	if err := g.Enter(); err != nil {
		err = fmt.Errorf("append batch: %w", err)
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
		return pos, errs
	}
	defer g.Leave()

	g.batchMu.Lock() // one batch at a time keeps each batch's appends in order
	for i, a := range appends {
		if errs[i] != nil {
			continue
		}
		req := NewReq(ctx, a.Stream, a.Expected, nil, a.Events)
		select {
		case g.to <- req:
			reqs[i] = req
		case <-ctx.Done():
			errs[i] = fmt.Errorf("append %s: %w", a.Stream, ctx.Err())
		}
	}
	g.batchMu.Unlock()
	for i, req := range reqs {
		if req != nil {
			<-req.done
			pos[i], errs[i] = req.Pos, req.Err
		}
	}
	return pos, errs
}

// Close refuses new writes, closes Done and waits for the writes admitted before it. It
// reports false when the gate was closed already.
func (g *Gate) Close() bool {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return false
	}
	g.closed = true
	g.mu.Unlock()
	close(g.done)
	g.writes.Wait()
	return true
}

// Closed reports whether Close has begun.
func (g *Gate) Closed() bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.closed
}

// Done is closed when Close begins: subscribers waiting for a commit stop waiting.
func (g *Gate) Done() <-chan struct{} { return g.done }

// Gone says why a read cannot go on, which a store prefers to the driver's view of the same
// event: eventstore.ErrClosed once Close has begun, else ctx's error, named by what; nil when
// neither holds.
func (g *Gate) Gone(ctx context.Context, what string) error {
	switch {
	case g.Closed():
		return fmt.Errorf("%s: %w", what, eventstore.ErrClosed)
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
	return nil
}

// Queue is the writer's end: the appends waiting for it, and the batch it is building.
type Queue struct {
	reqs     chan *Req
	maxBatch int
	onCommit func()
	// report turns the error an append failed with into what its caller sees (a full disk
	// into eventstore.ErrStorageFull, say).
	report  func(error) error
	quit    chan struct{}
	exited  chan struct{}
	running bool // Start was called

	// Batch is the batch being built; LastBatch is how many appends the previous one held.
	Batch     []*Req
	LastBatch int
	live      []*Req

	// Batches and Batched count transactions and the appends they carried, for benchmarks.
	Batches, Batched atomic.Int64
}

// NewQueue returns the queue of a writer that commits up to maxBatch appends a transaction,
// calls onCommit after each commit that wrote events and reports a failed append's error to its
// caller as report returns it (nil for as it is).
func NewQueue(maxBatch int, onCommit func(), report func(error) error) *Queue {
	if report == nil {
		report = func(err error) error { return err }
	}
	return &Queue{
		reqs:     make(chan *Req, maxBatch),
		maxBatch: maxBatch,
		onCommit: onCommit,
		report:   report,
		quit:     make(chan struct{}),
		exited:   make(chan struct{}),
	}
}

// Reqs is where a Gate sends the appends.
func (q *Queue) Reqs() chan<- *Req { return q.reqs }

// Start runs the writer goroutine (see run) with the writer's own gather and commit.
func (q *Queue) Start(gather func(), commit func([]*Req), ops <-chan func(), afterOp func()) {
	q.running = true
	go q.run(gather, commit, ops, afterOp)
}

// Stop ends the writer goroutine, if it runs. The caller must make sure no Append is waiting
// for an answer (the store's Close waits for them first).
func (q *Queue) Stop() {
	if q.running {
		close(q.quit)
		<-q.exited
	}
}

// run is the writer goroutine: it takes the first waiting append into Batch, lets gather add
// more, commits the batch, and so on until Stop. A function sent on ops (nil for none) runs
// between two batches; after it, afterOp does.
func (q *Queue) run(gather func(), commit func([]*Req), ops <-chan func(), afterOp func()) {
	defer close(q.exited)
	for {
		var first *Req
		select {
		case first = <-q.reqs:
		case op := <-ops:
			op()
			afterOp()
			continue
		case <-q.quit:
			// Close lets every admitted Append finish before it quits the writer, so nothing
			// should be left; answer anything that is, rather than leave a caller hanging.
			for {
				select {
				case r := <-q.reqs:
					q.Fail(r, eventstore.ErrClosed)
				default:
					return
				}
			}
		}
		q.Batch = append(q.Batch[:0], first)
		gather()
		commit(q.Batch)
		q.LastBatch = len(q.Batch)
		q.Batches.Add(1)
		q.Batched.Add(int64(len(q.Batch)))
		clear(q.Batch)
	}
}

// Take adds the appends waiting now to Batch, up to the most a batch holds.
func (q *Queue) Take() {
	for len(q.Batch) < q.maxBatch {
		select {
		case r := <-q.reqs:
			q.Batch = append(q.Batch, r)
		default:
			return
		}
	}
}

// Gather takes the appends waiting into Batch, yielding the processor between rounds while more
// keep arriving, so that one commit covers as many appends as possible; it returns once the
// batch is full or idleRounds rounds in a row brought nothing. A lone appender waits for
// nothing.
func (q *Queue) Gather(idleRounds int) {
	idle := 0
	for len(q.Batch) < q.maxBatch {
		before := len(q.Batch)
		q.Take()
		if len(q.Batch) == before {
			if idle++; idle > idleRounds {
				return
			}
		} else {
			idle = 0
		}
		runtime.Gosched()
	}
}

// Full reports whether Batch holds target appends, or the most a batch holds.
func (q *Queue) Full(target int) bool { return len(q.Batch) >= min(target, q.maxBatch) }

// Failure says how a transaction attempt failed, and so what Commit may try next.
type Failure int

const (
	// FailBatch: the connection or the transaction itself failed; nothing else can succeed now.
	FailBatch Failure = iota + 1
	// FailStatement: a statement inside the transaction failed; the appends may succeed on
	// their own, away from the one that broke it.
	FailStatement
	// FailRetry: the attempt failed in a way the writer can avoid (why is the backend's to
	// say): the batch is tried once more, with first false.
	FailRetry
)

// Commit writes batch and answers its callers. write runs one transaction for the appends it
// is given, first true on the first attempt at a batch only; on success each request holds its
// result (OK, Pos or Err). A batch whose statement failed is retried one append a transaction,
// so that one bad append cannot fail the others; fail answers an append whose own transaction
// failed. The appends whose callers have given up (their ctx ended) are answered and left out.
func (q *Queue) Commit(batch []*Req, write func(reqs []*Req, first bool) (Failure, error), fail func(*Req, error)) {
	live := q.live[:0]
	for _, r := range batch {
		if err := r.Ctx.Err(); err != nil {
			q.Fail(r, err)
			continue
		}
		live = append(live, r)
	}
	q.live = live
	defer clear(q.live)
	if len(live) == 0 {
		return
	}
	how, err := write(live, true)
	if how == FailRetry {
		how, err = write(live, false)
	}
	switch {
	case err == nil:
		q.Answer(live)
	case how == FailStatement && len(live) == 1:
		fail(live[0], err)
	case how == FailStatement:
		for _, r := range live {
			one := []*Req{r}
			if _, err := write(one, false); err != nil {
				fail(r, err)
				continue
			}
			q.Answer(one)
		}
	default:
		q.FailAll(live, err)
	}
}

// Finish answers r with pos and err.
func (q *Queue) Finish(r *Req, pos eventstore.Position, err error) {
	if err != nil {
		err = q.report(err)
	}
	r.Pos, r.Err = pos, err
	close(r.done)
}

// Fail answers r with err, naming its stream.
func (q *Queue) Fail(r *Req, err error) {
	q.Finish(r, 0, fmt.Errorf("append %s: %w", r.Stream, err))
}

// FailAll answers every one of reqs with err.
func (q *Queue) FailAll(reqs []*Req, err error) {
	for _, r := range reqs {
		q.Fail(r, err)
	}
}

// Answer tells the callers of a committed transaction their results (each request's OK, Pos
// or Err) and calls onCommit when it wrote events.
func (q *Queue) Answer(reqs []*Req) {
	wrote := false
	for _, r := range reqs {
		if r.OK {
			wrote = true
			q.Finish(r, r.Pos, nil)
		} else {
			q.Finish(r, 0, r.Err)
		}
	}
	if wrote {
		q.onCommit()
	}
}

// Notifier wakes subscribers after each commit: waiters take the current channel, a commit
// closes it and puts a new one in its place. The zero value is not ready: use NewNotifier.
type Notifier struct {
	mu sync.Mutex
	ch chan struct{}
}

// NewNotifier returns a notifier with nothing committed yet.
func NewNotifier() *Notifier { return &Notifier{ch: make(chan struct{})} }

// Wait returns the channel the next commit closes.
func (n *Notifier) Wait() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.ch
}

// Broadcast wakes every waiter.
func (n *Notifier) Broadcast() {
	n.mu.Lock()
	defer n.mu.Unlock()
	close(n.ch)
	n.ch = make(chan struct{})
}

// CheckRecordedAt returns nil when e, event i of an append to stream, has no recorded-at or one
// that Unix nanoseconds, as both stores keep it, can hold (the years 1678 to 2262), and else an
// error wrapping eventstore.ErrInvalidEvent that says so.
func CheckRecordedAt(stream string, i int, e eventstore.Event) error {
	t := e.Metadata.RecordedAt
	if t.IsZero() || t.Equal(time.Unix(0, t.UnixNano())) {
		return nil
	}
	return fmt.Errorf("%w: event %d (%s) for %s has recorded-at %s, outside the years 1678 to 2262 this store keeps", eventstore.ErrInvalidEvent, i, e.Type, stream, t)
}
