// Package lease keeps leases in the event log (DESIGN section 11): one process at a time holds a
// named lease, and what it appends under the lease is fenced by the log itself.
//
// A lease named N lives in two streams. "lease-N" holds its terms: LeaseAcquired (holder, epoch)
// and LeaseReleased, each appended with the stream's expected version, so that two candidates
// cannot both win a term. "lease-N.<epoch>" holds the term's renewals. A candidate takes the
// lease when it is free (never held, or released) or when neither stream has moved for the
// lease's whole duration on the candidate's own clock: the holder stopped renewing. No clocks
// of different machines are compared.
//
// Another process may ask the holder to hand the lease over (Lease.AskHandover): it appends
// LeaseHandoverAsked to the term's renewals, which the holder appends to at the version it
// expects, so that its next renewal finds the request (Term.HandoverAsked). The holder decides
// whether to release; the asker takes the lease as any candidate does once it is free.
//
// The holder's appends go through Term.Store, which makes each of them a guarded append
// (eventstore.GuardedAppender) under "lease-N" at the version its acquisition left: once
// another process has acquired a new term, nothing the deposed holder still tries is recorded,
// however long it was paused. A holder that could not renew for most of the duration stops
// (Term.Lost) before a candidate may take over, so that two holders do not work at once.
package lease

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"relayer/eventstore"
	"relayer/workers/upstream"
)

// StreamPrefix starts the streams of every lease.
const StreamPrefix = "lease-"

// Stream is the stream of lease name's terms.
func Stream(name string) string { return StreamPrefix + name }

// RenewalStream is the stream of the renewals of lease name's term epoch.
func RenewalStream(name string, epoch uint64) string {
	return Stream(name) + "." + strconv.FormatUint(epoch, 10)
}

// IsRenewalStream tells whether stream holds a term's renewals: of those only the last matters
// (Acquire reads its version), so the archiver prunes the others once they are archived.
func IsRenewalStream(stream string) bool {
	rest, ok := strings.CutPrefix(stream, StreamPrefix)
	i := strings.LastIndexByte(rest, '.')
	if !ok || i <= 0 {
		return false
	}
	_, err := strconv.ParseUint(rest[i+1:], 10, 64)
	return err == nil
}

// Acquired starts a term: Holder holds the lease from now, under Epoch.
type Acquired struct {
	Holder   string        `json:"holder"`
	Epoch    uint64        `json:"epoch"`
	Duration time.Duration `json:"duration"`
	At       time.Time     `json:"at"`
}

// EventType names the event in the store.
func (Acquired) EventType() string { return "LeaseAcquired" }

// Released ends a term: the lease is free at once.
type Released struct {
	Holder string    `json:"holder"`
	Epoch  uint64    `json:"epoch"`
	At     time.Time `json:"at"`
}

// EventType names the event in the store.
func (Released) EventType() string { return "LeaseReleased" }

// Renewed records that the holder of term Epoch was alive At.
type Renewed struct {
	Holder string    `json:"holder"`
	Epoch  uint64    `json:"epoch"`
	At     time.Time `json:"at"`
}

// EventType names the event in the store.
func (Renewed) EventType() string { return "LeaseRenewed" }

// HandoverAsked records that process By asks the holder of term Epoch to release the lease, so
// that By may take it (By holds fewer leases than the holder).
type HandoverAsked struct {
	By    string    `json:"by"`
	Epoch uint64    `json:"epoch"`
	At    time.Time `json:"at"`
}

// EventType names the event in the store.
func (HandoverAsked) EventType() string { return "LeaseHandoverAsked" }

// NewCodec is the codec of the lease streams.
func NewCodec() *eventstore.Codec {
	c := eventstore.NewCodec()
	for _, err := range []error{
		eventstore.Register[Acquired](c, 1), eventstore.Register[Released](c, 1), eventstore.Register[Renewed](c, 1),
		eventstore.Register[HandoverAsked](c, 1),
	} {
		if err != nil {
			panic(fmt.Sprintf("lease codec: %v", err))
		}
	}
	return c
}

// ErrDeposed is Term.Err once another process took the lease, or once the holder could not
// renew in time and stopped.
var ErrDeposed = errors.New("lease lost")

// Config configures a lease.
type Config struct {
	// Name names the lease ("engine"); its streams are "lease-<Name>" and "lease-<Name>.<epoch>".
	Name string
	// Holder names this process in the lease's events (an instance name, its pid). Required.
	Holder string
	// Duration is how long a holder that stopped renewing keeps the lease. Default 10s.
	Duration time.Duration
	// Renew is how often the holder renews; at most a third of Duration. Default Duration/5.
	Renew time.Duration
	// Patience, when set, is how long Acquire waits once it found the lease free or lapsed
	// before it takes it (if it still may): a process already holding other leases waits longer,
	// so that one holding fewer takes it first and the leases spread over the processes.
	Patience func() time.Duration
}

// DefaultDuration is Config.Duration's default.
const DefaultDuration = 10 * time.Second

func (c *Config) setDefaults() {
	c.Duration = cmp.Or(c.Duration, DefaultDuration)
	c.Renew = cmp.Or(c.Renew, c.Duration/5)
}

// Validate checks the configuration (zero durations take defaults).
func (c Config) Validate() error {
	d := c
	d.setDefaults()
	switch {
	case c.Name == "" || strings.ContainsAny(c.Name, " \t\n."):
		return fmt.Errorf("lease: name %q: want a word without spaces or dots", c.Name)
	case c.Holder == "":
		return errors.New("lease: holder is empty: name this process")
	case d.Duration < 100*time.Millisecond:
		return fmt.Errorf("lease: duration %s: want 100ms or more", c.Duration)
	case d.Renew <= 0 || d.Renew*3 > d.Duration:
		return fmt.Errorf("lease: renew every %s with a duration of %s: want more than 0 and at most a third of the duration", d.Renew, d.Duration)
	}
	return nil
}

// state is the fold of a lease's term stream.
type state struct {
	Holder string
	Epoch  uint64
	Held   bool
}

func fold(s state, e eventstore.Typed) state {
	switch e := e.(type) {
	case Acquired:
		return state{Holder: e.Holder, Epoch: e.Epoch, Held: true}
	case Released:
		return state{Holder: e.Holder, Epoch: e.Epoch}
	}
	return s
}

// Lease is one named lease as this process sees it.
type Lease struct {
	store eventstore.Store
	codec *eventstore.Codec
	cfg   Config
	log   *slog.Logger
	now   func() time.Time

	terms   eventstore.Folded[state]
	refused atomic.Int64
	// held is the epoch of the term this process holds now, 0 when it holds none (HeldEpoch).
	held atomic.Uint64

	// view is the term stream as Holder reads it, apart from terms (which Acquire and the term
	// use), so that another goroutine may ask who holds the lease while this one waits for it.
	viewMu sync.Mutex
	view   eventstore.Folded[state]
}

// Name is the lease's name.
func (l *Lease) Name() string { return l.cfg.Name }

// HeldEpoch is the epoch of the term of the lease this process holds now, 0 when it holds none.
func (l *Lease) HeldEpoch() uint64 { return l.held.Load() }

// Refused counts the appends the terms' stores refused because their term was lost: by the log's
// guard (another process took the lease) or before reaching it (the term had expired).
func (l *Lease) Refused() int64 { return l.refused.Load() }

// New returns the lease cfg.Name on store, which must offer guarded appends. logger may be nil.
func New(store eventstore.Store, cfg Config, logger *slog.Logger) (*Lease, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	if _, ok := store.(eventstore.GuardedAppender); !ok {
		return nil, errors.New("lease: the store does not offer guarded appends (use SQLite or PostgreSQL)")
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Lease{store: store, codec: NewCodec(), cfg: cfg, log: logger.With("lease", cfg.Name),
		now: time.Now, terms: eventstore.NewFolded(state{}), view: eventstore.NewFolded(state{})}, nil
}

// NewOptional is New for a component that takes a lease only when given one: nil, and no error,
// when cfg is nil; else the lease cfg configures, named name when cfg.Name is empty.
func NewOptional(store eventstore.Store, cfg *Config, name string, logger *slog.Logger) (*Lease, error) {
	if cfg == nil {
		return nil, nil
	}
	c := *cfg
	c.Name = cmp.Or(c.Name, name)
	return New(store, c, logger)
}

// Holder is who holds the lease as last read (empty when free), and its epoch.
func (l *Lease) Holder(ctx context.Context) (string, uint64, error) {
	l.viewMu.Lock()
	defer l.viewMu.Unlock()
	if err := l.view.Catch(ctx, l.store, l.codec, Stream(l.cfg.Name), fold); err != nil {
		return "", 0, err
	}
	s := l.view.State
	if !s.Held {
		return "", s.Epoch, nil
	}
	return s.Holder, s.Epoch, nil
}

// AskHandover asks the holder of the lease's term epoch, if it is still the term and held by
// another process, to release it. It is not an order: the holder decides (Term.HandoverAsked).
// It answers whether the request was recorded.
func (l *Lease) AskHandover(ctx context.Context, epoch uint64) (bool, error) {
	holder, now, err := l.Holder(ctx)
	if err != nil || holder == "" || holder == l.cfg.Holder || now != epoch {
		return false, err
	}
	ev, err := l.codec.Encode(HandoverAsked{By: l.cfg.Holder, Epoch: epoch, At: l.now().UTC()}, eventstore.Metadata{})
	if err != nil {
		return false, err
	}
	if _, err := l.store.Append(ctx, RenewalStream(l.cfg.Name, epoch), eventstore.Any, ev); err != nil {
		return false, fmt.Errorf("ask for the lease: %w", err)
	}
	l.log.Info("asked the holder to hand the lease over", "epoch", epoch, "holder", holder)
	return true, nil
}

// Acquire waits until this process holds the lease, or ctx ends. A free lease is taken at once;
// a held one once it has lapsed: neither its term stream nor its renewals moved for the whole
// duration, measured from when this process first saw them so.
func (l *Lease) Acquire(ctx context.Context) (*Term, error) {
	stream := Stream(l.cfg.Name)
	var (
		seenTerms   = eventstore.Version(-3) // nothing seen yet
		seenRenewal eventstore.Version
		since       time.Time
		waited      bool // the patience for the lease as last found takeable is spent
	)
	for {
		if err := l.terms.Catch(ctx, l.store, l.codec, stream, fold); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			l.log.Warn("read the lease; trying again", "err", err)
			if !sleep(ctx, l.cfg.Renew) {
				return nil, ctx.Err()
			}
			continue
		}
		s := l.terms.State
		lapsed := !s.Held
		if s.Held {
			rv, err := eventstore.LastVersion(ctx, l.store, RenewalStream(l.cfg.Name, s.Epoch))
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				// What cannot be read cannot be judged still: the wait starts again, so that a
				// store this process cannot read never deposes a holder that renews.
				l.log.Warn("read the lease's renewals; trying again", "err", err)
				seenTerms = -3
			} else if l.terms.Version != seenTerms || rv != seenRenewal {
				seenTerms, seenRenewal, since = l.terms.Version, rv, l.now()
			}
			lapsed = seenTerms != -3 && l.now().Sub(since) >= l.cfg.Duration
		}
		if lapsed && !waited && l.cfg.Patience != nil {
			if p := l.cfg.Patience(); p > 0 {
				waited = true
				if !sleep(ctx, p) {
					return nil, ctx.Err()
				}
				continue // look again: another process may have taken it meanwhile
			}
		}
		if !lapsed {
			waited = false
		}
		if lapsed {
			waited = false
			t, err := l.take(ctx, s)
			if err == nil {
				return t, nil
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if errors.Is(err, eventstore.ErrWrongExpectedVersion) {
				continue // someone else moved the lease: look again
			}
			l.log.Warn("take the lease; trying again", "err", err)
			if !sleep(ctx, l.cfg.Renew) {
				return nil, ctx.Err()
			}
			continue
		}
		if !sleep(ctx, l.cfg.Renew) {
			return nil, ctx.Err()
		}
	}
}

// take appends the next term, expecting the term stream as s was read.
func (l *Lease) take(ctx context.Context, s state) (*Term, error) {
	start := l.now()
	acq := Acquired{Holder: l.cfg.Holder, Epoch: s.Epoch + 1, Duration: l.cfg.Duration, At: start.UTC()}
	// No retry: a term stream that moved since s was read is looked at again by Acquire.
	if _, err := eventstore.Update(ctx, l.store, l.codec, Stream(l.cfg.Name), &l.terms, fold, func(state) ([]eventstore.Typed, error) {
		return []eventstore.Typed{acq}, nil
	}, eventstore.Metadata{}, nil, 0); err != nil {
		return nil, err
	}
	if s.Held {
		l.log.Info("took a lapsed lease", "epoch", acq.Epoch, "from", s.Holder)
	} else {
		l.log.Info("took the lease", "epoch", acq.Epoch)
	}
	t := &Term{l: l, Epoch: acq.Epoch, guard: eventstore.Guard{Stream: Stream(l.cfg.Name), Version: l.terms.Version},
		lost: make(chan struct{}), stop: make(chan struct{}), asked: make(chan struct{}), renewed: start,
		renewals: eventstore.NoStream}
	l.held.Store(acq.Epoch)
	t.wg.Add(2)
	go t.keep()
	go t.expire()
	return t, nil
}

// Term is one holding of the lease by this process.
type Term struct {
	l     *Lease
	Epoch uint64
	guard eventstore.Guard

	mu      sync.Mutex
	renewed time.Time // when the last renewal that succeeded was started
	err     error
	lost    chan struct{}
	stop    chan struct{}
	once    sync.Once
	wg      sync.WaitGroup

	// renewals is the version of the term's renewal stream as the holder last wrote or read it
	// (only keep touches it); asked is closed when another process asked for the lease.
	renewals  eventstore.Version
	asked     chan struct{}
	askedOnce sync.Once
}

// HandoverAsked is closed once another process asked for the lease (Lease.AskHandover); the
// holder may release it (Release) or keep it.
func (t *Term) HandoverAsked() <-chan struct{} { return t.asked }

// Lost is closed once the term ended by itself: another process took the lease, or renewing
// failed for longer than is safe. Err says which.
func (t *Term) Lost() <-chan struct{} { return t.lost }

// Err is why the term was lost (nil while it holds).
func (t *Term) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

func (t *Term) lose(err error) {
	t.end(err, true)
}

func (t *Term) end(err error, lost bool) {
	t.once.Do(func() {
		t.mu.Lock()
		t.err = err
		t.mu.Unlock()
		t.l.held.CompareAndSwap(t.Epoch, 0)
		if lost {
			t.l.log.Warn("lease lost", "epoch", t.Epoch, "err", err)
		} else {
			t.l.log.Info("lease released", "epoch", t.Epoch)
		}
		close(t.lost)
	})
}

// holds tells whether the term may still act: not lost, and renewed recently enough that no
// candidate can have taken over yet.
func (t *Term) holds() error {
	select {
	case <-t.lost:
		return t.Err()
	default:
	}
	t.mu.Lock()
	last := t.renewed
	t.mu.Unlock()
	if t.l.now().Sub(last) >= t.l.cfg.Duration-t.l.cfg.Renew {
		err := fmt.Errorf("%w: not renewed for %s of a %s lease", ErrDeposed, t.l.now().Sub(last).Round(time.Millisecond), t.l.cfg.Duration)
		t.lose(err)
		return err
	}
	return nil
}

// keep renews the term until it is released or lost.
//
// The term must end before a candidate may take over: a candidate waits a whole Duration from
// when it saw the last renewal, so the term is lost at the start of the last successful renewal
// plus Duration less Renew, whatever the renewal in progress is doing (a timer, not the ticker,
// decides), and a renewal may take until then at most.
func (t *Term) keep() {
	defer t.wg.Done()
	tick := time.NewTicker(t.l.cfg.Renew)
	defer tick.Stop()
	stream := RenewalStream(t.l.cfg.Name, t.Epoch)
	for {
		select {
		case <-t.stop:
			return
		case <-t.lost:
			return
		case <-tick.C:
		}
		if t.holds() != nil {
			return
		}
		start := t.l.now()
		t.mu.Lock()
		deadline := t.renewed.Add(t.l.cfg.Duration - t.l.cfg.Renew)
		t.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), deadline.Sub(start))
		err := t.renew(ctx, stream, start)
		if errors.Is(err, eventstore.ErrWrongExpectedVersion) {
			// Another process wrote to the renewals: read what, and renew after it.
			if err = t.readAsks(ctx, stream); err == nil {
				err = t.renew(ctx, stream, start)
			}
		}
		cancel()
		switch {
		case err == nil:
			t.mu.Lock()
			t.renewed = start
			t.mu.Unlock()
		case errors.Is(err, eventstore.ErrGuard):
			t.lose(fmt.Errorf("%w: another process took it: %w", ErrDeposed, err))
			return
		default:
			t.l.log.Warn("renew the lease; trying again", "epoch", t.Epoch, "err", err)
		}
	}
}

// renew appends one renewal at the version the holder expects.
func (t *Term) renew(ctx context.Context, stream string, at time.Time) error {
	ev, err := t.l.codec.Encode(Renewed{Holder: t.l.cfg.Holder, Epoch: t.Epoch, At: at.UTC()}, eventstore.Metadata{})
	if err != nil {
		return err
	}
	if _, err := t.l.store.(eventstore.GuardedAppender).AppendGuarded(ctx, t.guard, stream, t.renewals, ev); err != nil {
		return err
	}
	t.renewals++
	return nil
}

// readAsks reads the renewals written since the holder's last one and closes asked when one is
// a handover request for this term.
func (t *Term) readAsks(ctx context.Context, stream string) error {
	for r, err := range t.l.store.ReadStream(ctx, stream, t.renewals+1) {
		if err != nil {
			return err
		}
		t.renewals = r.Version
		if e, err := t.l.codec.Decode(r); err == nil {
			if a, ok := e.(HandoverAsked); ok && a.Epoch == t.Epoch {
				t.l.log.Info("another process asks for the lease", "epoch", t.Epoch, "by", a.By)
				t.askedOnce.Do(func() { close(t.asked) })
			}
		}
	}
	return nil
}

// expire loses the term once Duration less Renew has passed since the start of the last
// successful renewal, unless the term ended before.
func (t *Term) expire() {
	defer t.wg.Done()
	for {
		t.mu.Lock()
		at := t.renewed.Add(t.l.cfg.Duration - t.l.cfg.Renew)
		t.mu.Unlock()
		wait := at.Sub(t.l.now())
		if wait <= 0 {
			_ = t.holds() // loses it
			return
		}
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-t.stop:
			timer.Stop()
			return
		case <-t.lost:
			timer.Stop()
			return
		}
	}
}

// Release ends the term: renewals stop and, unless it was lost, the lease is marked free so that
// a candidate takes it at once.
func (t *Term) Release(ctx context.Context) error {
	close(t.stop)
	done := make(chan struct{})
	go func() {
		t.wg.Wait() // a renewal in progress ends by its own deadline
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		t.lose(fmt.Errorf("%w: released while a renewal was still under way", ErrDeposed))
		return ctx.Err()
	}
	if t.holds() != nil {
		return nil
	}
	t.end(fmt.Errorf("%w: released", ErrDeposed), false)
	ev, err := t.l.codec.Encode(Released{Holder: t.l.cfg.Holder, Epoch: t.Epoch, At: t.l.now().UTC()}, eventstore.Metadata{})
	if err != nil {
		return err
	}
	if _, err := t.l.store.Append(ctx, Stream(t.l.cfg.Name), t.guard.Version, ev); err != nil {
		if errors.Is(err, eventstore.ErrWrongExpectedVersion) {
			return nil // another process took it already
		}
		return fmt.Errorf("release the lease: %w", err)
	}
	return nil
}

// Store is the store as the term's holder writes to it: every append is guarded by the term, and
// refused without reaching the store once the term is lost. A refusal by the guard loses the
// term. Reads go to the store as they are.
func (t *Term) Store() eventstore.Store { return &fenced{Store: t.l.store, t: t} }

type fenced struct {
	eventstore.Store
	t *Term
}

func (f *fenced) Append(ctx context.Context, stream string, expected eventstore.Version, events ...eventstore.Event) (eventstore.Position, error) {
	return f.AppendGuarded(ctx, f.t.guard, stream, expected, events...)
}

func (f *fenced) AppendGuarded(ctx context.Context, g eventstore.Guard, stream string, expected eventstore.Version, events ...eventstore.Event) (eventstore.Position, error) {
	if err := f.t.holds(); err != nil {
		f.t.l.refused.Add(1)
		return 0, fmt.Errorf("append %s: %w", stream, err)
	}
	if g != f.t.guard {
		return 0, fmt.Errorf("append %s: a term's store appends under its own guard only", stream)
	}
	pos, err := f.Store.(eventstore.GuardedAppender).AppendGuarded(ctx, g, stream, expected, events...)
	if errors.Is(err, eventstore.ErrGuard) {
		f.t.l.refused.Add(1)
		f.t.lose(fmt.Errorf("%w: another process took it: %w", ErrDeposed, err))
		return 0, fmt.Errorf("append %s: %w", stream, f.t.Err())
	}
	return pos, err
}

// sleep waits d or until ctx ends; false when ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	return upstream.RealClock().Sleep(ctx, d) == nil
}
