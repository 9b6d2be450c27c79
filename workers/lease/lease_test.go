package lease

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"relayer/eventstore"
	"relayer/eventstore/postgres"
	"relayer/eventstore/postgres/pgtest"
	"relayer/projections/projectionstest"
)

// openSQLite opens a new SQLite log for the test.
func openSQLite(t *testing.T) eventstore.Store { return projectionstest.OpenStore(t) }

func openPostgres(t *testing.T) eventstore.Store {
	t.Helper()
	st, err := postgres.Open(context.Background(), pgtest.URL(t, "lease"), postgres.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func newLease(t *testing.T, st eventstore.Store, holder string) *Lease {
	t.Helper()
	l, err := New(st, Config{Name: "engine", Holder: holder, Duration: 600 * time.Millisecond, Renew: 100 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func work(int) eventstore.Event {
	return eventstore.Event{Type: "Worked", SchemaVersion: 1, Data: []byte(`{"n":1}`)}
}

// pause stops a term's renewals as a frozen process would, without releasing it.
func pause(t *Term) {
	close(t.stop)
	t.wg.Wait()
}

func TestLeases(t *testing.T) {
	for name, open := range map[string]func(*testing.T) eventstore.Store{"sqlite": openSQLite, "postgres": openPostgres} {
		t.Run(name, func(t *testing.T) {
			t.Run("free is taken at once, held waits, released passes at once", func(t *testing.T) { testHandOver(t, open(t)) })
			t.Run("a holder that stops renewing is replaced and fenced", func(t *testing.T) { testLapse(t, open(t)) })
			t.Run("a holder hears another process ask for the lease", func(t *testing.T) { testAskHandover(t, open(t)) })
		})
	}
}

func testHandOver(t *testing.T, st eventstore.Store) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a, b := newLease(t, st, "a"), newLease(t, st, "b")
	ta, err := a.Acquire(ctx)
	if err != nil || ta.Epoch != 1 {
		t.Fatalf("a free lease: epoch %v, %v", ta, err)
	}
	if a.HeldEpoch() != 1 || b.HeldEpoch() != 0 {
		t.Fatalf("held epochs a %d, b %d; want 1, 0", a.HeldEpoch(), b.HeldEpoch())
	}
	got := make(chan *Term, 1)
	go func() {
		tb, err := b.Acquire(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- tb
	}()
	// a renews: b must not take the lease during three whole durations.
	select {
	case tb := <-got:
		t.Fatalf("invariant: a renewed lease is not taken; b took epoch %d", tb.Epoch)
	case <-time.After(1800 * time.Millisecond):
	}
	if err := ta.Err(); err != nil {
		t.Fatalf("a lost its renewed lease: %v", err)
	}
	if _, err := ta.Store().Append(ctx, "work", eventstore.Any, work(1)); err != nil {
		t.Fatalf("the holder's append: %v", err)
	}
	released := time.Now()
	if err := ta.Release(ctx); err != nil {
		t.Fatal(err)
	}
	tb := <-got
	if tb == nil || tb.Epoch != 2 {
		t.Fatalf("after the release: %+v", tb)
	}
	if a.HeldEpoch() != 0 || b.HeldEpoch() != 2 {
		t.Fatalf("after the release, held epochs a %d, b %d; want 0, 2", a.HeldEpoch(), b.HeldEpoch())
	}
	if waited := time.Since(released); waited >= 600*time.Millisecond {
		t.Fatalf("a released lease is taken at once; b waited %s", waited)
	}
	if _, err := ta.Store().Append(ctx, "work", eventstore.Any, work(2)); !errors.Is(err, ErrDeposed) {
		t.Fatalf("invariant: a released term appends nothing; got %v", err)
	}
	if h, e, err := b.Holder(ctx); err != nil || h != "b" || e != 2 {
		t.Fatalf("holder %q epoch %d, %v", h, e, err)
	}
	_ = tb.Release(ctx)
}

// aHolds starts a two-process lease test: processes a and b on st, a holding the lease.
func aHolds(t *testing.T, st eventstore.Store) (context.Context, *Lease, *Lease, *Term) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	a, b := newLease(t, st, "a"), newLease(t, st, "b")
	ta, err := a.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, a, b, ta
}

func testLapse(t *testing.T, st eventstore.Store) {
	ctx, a, b, ta := aHolds(t, st)
	// A deposed holder that comes back must be refused by the log, not by its own clock: keep
	// its clock at the moment of the pause, as a frozen process's would be.
	frozen := time.Now()
	pause(ta)
	a.now = func() time.Time { return frozen }
	paused := time.Now()
	tb, err := b.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(paused); took < 600*time.Millisecond {
		t.Fatalf("invariant: a lease lapses only after its whole duration without renewals; taken after %s", took)
	}
	if tb.Epoch != 2 {
		t.Fatalf("epoch %d", tb.Epoch)
	}
	head, _ := st.Head(ctx)
	_, err = ta.Store().Append(ctx, "work", eventstore.Any, work(1))
	if !errors.Is(err, ErrDeposed) || !errors.Is(err, eventstore.ErrGuard) {
		t.Fatalf("invariant: the deposed holder's append is refused by the log; got %v", err)
	}
	select {
	case <-ta.Lost():
	default:
		t.Fatal("the refused append did not end the deposed term")
	}
	if a.HeldEpoch() != 0 || b.HeldEpoch() != 2 {
		t.Fatalf("after the lapse, held epochs a %d, b %d; want 0, 2", a.HeldEpoch(), b.HeldEpoch())
	}
	if h2, _ := st.Head(ctx); h2 != head {
		t.Fatalf("the refused append wrote something: head %d -> %d", head, h2)
	}
	if a.Refused() != 1 {
		t.Fatalf("refused appends counted: %d", a.Refused())
	}
	// The new holder works; its own clock stops it once it cannot renew.
	if _, err := tb.Store().Append(ctx, "work", eventstore.Any, work(2)); err != nil {
		t.Fatal(err)
	}
	pause(tb)
	time.Sleep(600 * time.Millisecond)
	head, _ = st.Head(ctx)
	if _, err := tb.Store().Append(ctx, "work", eventstore.Any, work(3)); !errors.Is(err, ErrDeposed) {
		t.Fatalf("invariant: a holder that could not renew stops before a candidate may take over; got %v", err)
	}
	if h2, _ := st.Head(ctx); h2 != head {
		t.Fatal("a self-fenced append reached the store")
	}
}

func TestConfigIsChecked(t *testing.T) {
	st := projectionstest.OpenStore(t)
	for _, c := range []Config{
		{Name: "", Holder: "a"},
		{Name: "has space", Holder: "a"},
		{Name: "engine", Holder: ""},
		{Name: "engine", Holder: "a", Duration: time.Second, Renew: time.Second},
		{Name: "engine", Holder: "a", Duration: 10 * time.Millisecond},
	} {
		if _, err := New(st, c, nil); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// faulty is a real store with faults injected: appends to the renewal streams hang until their
// context ends once hang is set, and appends to the term stream fail while failTake is set.
type faulty struct {
	eventstore.Store
	hang     atomic.Bool
	failTake atomic.Bool
	takes    atomic.Int64
}

func (f *faulty) Append(ctx context.Context, stream string, expected eventstore.Version, events ...eventstore.Event) (eventstore.Position, error) {
	if stream == Stream("engine") {
		f.takes.Add(1)
		if f.failTake.Load() {
			return 0, errors.New("injected: the database refuses writes")
		}
	}
	return f.Store.Append(ctx, stream, expected, events...)
}

func (f *faulty) AppendGuarded(ctx context.Context, g eventstore.Guard, stream string, expected eventstore.Version, events ...eventstore.Event) (eventstore.Position, error) {
	if f.hang.Load() && strings.HasPrefix(stream, Stream("engine")+".") {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	return f.Store.(eventstore.GuardedAppender).AppendGuarded(ctx, g, stream, expected, events...)
}

// A renewal that hangs does not keep the term alive: the term is lost before a candidate may
// take the lease over, not when the hanging call returns.
func TestATermWhoseRenewalHangsEndsBeforeACandidateTakesOver(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st := &faulty{Store: projectionstest.OpenStore(t)}
	a, b := newLease(t, st, "a"), newLease(t, st, "b")
	ta, err := a.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // a few renewals
	st.hang.Store(true)
	tb, err := b.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-ta.Lost():
	default:
		t.Fatal("invariant: a holder whose renewal hangs has stopped when a candidate takes over; its term still holds")
	}
	if !errors.Is(ta.Err(), ErrDeposed) {
		t.Fatalf("why: %v", ta.Err())
	}
	st.hang.Store(false)
	_ = tb.Release(ctx)
}

// A take that fails for a reason other than a lost race waits before it tries again.
func TestAFailingTakeDoesNotSpin(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	st := &faulty{Store: projectionstest.OpenStore(t)}
	st.failTake.Store(true)
	l := newLease(t, st, "a")
	if _, err := l.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire on a store refusing writes: %v", err)
	}
	// Renew is 100ms: about ten tries in a second, never thousands.
	if n := st.takes.Load(); n > 20 {
		t.Fatalf("%d tries to take the lease in one second", n)
	}
}

// A patient candidate yields a free lease to one without patience that comes while it waits, and
// takes it once it is free again.
func TestAPatientCandidateYieldsAFreeLease(t *testing.T) {
	st := projectionstest.OpenStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	patient := func(holder string) *Lease {
		l, err := New(st, Config{Name: "signer", Holder: holder, Duration: 600 * time.Millisecond, Renew: 100 * time.Millisecond,
			Patience: func() time.Duration { return 400 * time.Millisecond }}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	p := patient("patient")
	got := make(chan *Term, 1)
	go func() {
		tp, err := p.Acquire(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- tp
	}()
	time.Sleep(100 * time.Millisecond) // the patient one has seen the lease free and waits
	eager, err := New(st, Config{Name: "signer", Holder: "eager", Duration: 600 * time.Millisecond, Renew: 100 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	te, err := eager.Acquire(ctx)
	if err != nil || te.Epoch != 1 {
		t.Fatalf("the candidate without patience: %v, %v; want epoch 1", te, err)
	}
	if h, _, _ := eager.Holder(ctx); h != "eager" {
		t.Fatalf("holder %q, want eager", h)
	}
	if err := te.Release(ctx); err != nil {
		t.Fatal(err)
	}
	tp := <-got
	if tp == nil || tp.Epoch != 2 { // the term after the eager one's
		t.Fatalf("the patient candidate: %+v, want the term after the eager one's", tp)
	}
	_ = tp.Release(ctx)
}

func testAskHandover(t *testing.T, st eventstore.Store) {
	ctx, a, b, ta := aHolds(t, st)
	// Asking for a term that is not the lease's, or for one's own lease, records nothing.
	if ok, err := b.AskHandover(ctx, ta.Epoch+1); ok || err != nil {
		t.Fatalf("asked for another term: %v, %v", ok, err)
	}
	if ok, err := a.AskHandover(ctx, ta.Epoch); ok || err != nil {
		t.Fatalf("the holder asked itself: %v, %v", ok, err)
	}
	select {
	case <-ta.HandoverAsked():
		t.Fatal("the holder heard a request nobody recorded")
	case <-time.After(300 * time.Millisecond):
	}
	if ok, err := b.AskHandover(ctx, ta.Epoch); !ok || err != nil {
		t.Fatalf("b's request: %v, %v", ok, err)
	}
	select {
	case <-ta.HandoverAsked():
	case <-time.After(5 * time.Second):
		t.Fatal("the holder did not hear the request within its renewals")
	}
	// A request is not an order: the holder keeps renewing until it releases.
	time.Sleep(700 * time.Millisecond)
	if err := ta.Err(); err != nil {
		t.Fatalf("the holder lost its lease after a request: %v", err)
	}
	if _, err := ta.Store().Append(ctx, "work", eventstore.Any, work(1)); err != nil {
		t.Fatalf("the holder's append after a request: %v", err)
	}
	if err := ta.Release(ctx); err != nil {
		t.Fatal(err)
	}
	tb, err := b.Acquire(ctx)
	if err != nil || tb.Epoch != ta.Epoch+1 {
		t.Fatalf("b after the release: %+v, %v", tb, err)
	}
	_ = tb.Release(ctx)
}

func TestRenewalStreamsAreToldFromTermStreams(t *testing.T) {
	for stream, want := range map[string]bool{
		RenewalStream("archiver", 7): true,
		RenewalStream("key.v2", 0):   true,
		Stream("archiver"):           false,
		Stream("key.v2"):             false,
		"checkpoint-dispatcher.3":    false,
		StreamPrefix + ".4":          false,
		Stream("archiver") + ".x":    false,
	} {
		if got := IsRenewalStream(stream); got != want {
			t.Errorf("IsRenewalStream(%q) = %v, want %v", stream, got, want)
		}
	}
}
