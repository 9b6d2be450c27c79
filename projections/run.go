package projections

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"relayer/eventstore"
)

// Run follows the log from the Set's checkpoint and applies every event as it is committed,
// until ctx is done or something goes wrong. It first catches up (as CatchUp), then subscribes
// to new events. It returns ctx's error when ctx ends it; a record that cannot be decoded or
// applied stops it with a *eventstore.RecordError naming the record's stream, version and
// position: the projections never skip an event. An error reading the store stops it too. Run
// may be called again after it returned, and resumes at the checkpoint; a second Run (or a
// CatchUp) while one is under way is refused with ErrRunning.
func (s *Set) Run(ctx context.Context, store eventstore.Store) (err error) {
	if err := s.begin(); err != nil {
		return err
	}
	defer func() { s.end(err) }()

	if err := s.catchUp(ctx, store); err != nil {
		return err
	}
	// Caught up: from here on events come one by one as they are committed, and each is applied
	// and made visible at once.
	var f fact
	for rec, err := range store.SubscribeAll(ctx, s.Position()) {
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return s.readErr(err)
		}
		if err := s.dec.decode(&rec, &f); err != nil {
			return err
		}
		s.mu.Lock()
		err := s.apply(&rec, &f)
		s.mu.Unlock()
		s.notify()
		if err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("projections: the subscription after position %d ended", s.Position())
}

func (s *Set) readErr(err error) error {
	var re *eventstore.RecordError
	if errors.As(err, &re) {
		return err // it names the record already
	}
	return fmt.Errorf("projections: read the log after position %d: %w", s.Position(), err)
}

// WaitFor returns once the Set has applied the event at position pos (or a later one), so that
// a query sees everything up to pos: the API waits for the position an append returned before it
// answers, so a GET right after a POST finds the job. It returns ctx's error if ctx ends first.
// When the Set stops following the log before reaching pos (Run returned), it returns why at
// once, rather than wait for a position that will not come; a Set that was never run waits.
func (s *Set) WaitFor(ctx context.Context, pos eventstore.Position) error {
	for {
		if s.Position() >= pos {
			return nil
		}
		s.runMu.Lock()
		if s.Position() >= pos {
			s.runMu.Unlock()
			return nil
		}
		if !s.running && s.stopErr != nil {
			err := s.stopErr
			s.runMu.Unlock()
			return fmt.Errorf("projections stopped at position %d before %d: %w", s.Position(), pos, err)
		}
		if s.wake == nil {
			s.wake = make(chan struct{})
		}
		wake := s.wake
		s.runMu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// RebuildReport says what a rebuild did.
type RebuildReport struct {
	// Events is how many events were applied (skipped ones included), and Jobs how many jobs
	// the projections hold.
	Events   uint64
	Jobs     int
	Position eventstore.Position
	Elapsed  time.Duration
	// EventsPerSecond is Events over Elapsed.
	EventsPerSecond float64
}

// Rebuild builds a new Set from the whole log: it reads every event from position 0 and applies
// it, then returns. Built from the same log with the same cfg, the Set equals one that followed
// the log live (their snapshots are the same bytes). On an error the Set holds every event
// before the failing record.
func Rebuild(ctx context.Context, store eventstore.Store, cfg Config) (*Set, RebuildReport, error) {
	s, err := New(cfg)
	if err != nil {
		return nil, RebuildReport{}, err
	}
	start := time.Now()
	err = s.CatchUp(ctx, store)
	rep := RebuildReport{Events: s.Events(), Jobs: s.Jobs(), Position: s.Position(), Elapsed: time.Since(start)}
	if secs := rep.Elapsed.Seconds(); secs > 0 {
		rep.EventsPerSecond = float64(rep.Events) / secs
	}
	return s, rep, err
}

// CatchUp applies every event after the checkpoint up to the end of the log as it is when the
// read reaches it, then returns. Like Run, it is refused with ErrRunning while the Set follows
// the log already.
func (s *Set) CatchUp(ctx context.Context, store eventstore.Store) (err error) {
	if err := s.begin(); err != nil {
		return err
	}
	defer func() { s.end(err) }()
	return s.catchUp(ctx, store)
}

// begin marks the Set as following the log, or refuses when it already is: two readers of the
// log applying to one Set would refuse each other's events as out of order.
func (s *Set) begin() error {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	if s.running {
		return ErrRunning
	}
	s.running, s.stopErr = true, nil
	return nil
}

// end marks the Set as no longer following the log because of err (nil when a catch-up
// finished), and wakes the WaitFor calls so that they see it.
func (s *Set) end(err error) {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	s.running, s.stopErr = false, err
	if s.wake != nil {
		close(s.wake)
		s.wake = nil
	}
}

// The catch-up pipeline. Reading rows and decoding JSON each take a core's worth of work at
// full speed, so they run in separate goroutines: a reader cuts the log into batches, decoders
// turn the batches' records into facts, and the caller applies the batches in the order they
// were read (each batch carries a done channel its decoder closes). Batches are recycled.
const (
	batchSize     = 256
	pipelineDepth = 16
)

type batch struct {
	recs  []eventstore.Record
	facts []fact
	// n records were decoded into facts; decodeErr is why the next one was not.
	n         int
	decodeErr error
	// readErr is why the reader stopped after recs.
	readErr error
	done    chan struct{}
}

func (s *Set) catchUp(ctx context.Context, store eventstore.Store) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	// Stop and wait for the pipeline's goroutines on every return, so none outlives the call.
	defer wg.Wait()
	defer cancel()

	ordered := make(chan *batch, pipelineDepth)
	work := make(chan *batch, pipelineDepth)
	free := make(chan *batch, pipelineDepth*2+4)
	get := func() *batch {
		select {
		case b := <-free:
			b.recs, b.n, b.decodeErr, b.readErr = b.recs[:0], 0, nil, nil
			b.done = make(chan struct{})
			return b
		default:
			return &batch{recs: make([]eventstore.Record, 0, batchSize), facts: make([]fact, batchSize), done: make(chan struct{})}
		}
	}

	after := s.Position()
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(work)
		defer close(ordered)
		b := get()
		send := func() bool {
			select {
			case ordered <- b:
			case <-ctx.Done():
				return false
			}
			select {
			case work <- b:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for rec, err := range store.ReadAll(ctx, after) {
			if err != nil {
				b.readErr = err
				break
			}
			b.recs = append(b.recs, rec)
			if len(b.recs) == batchSize {
				if !send() {
					return
				}
				b = get()
			}
		}
		if len(b.recs) > 0 || b.readErr != nil {
			send()
		}
	}()

	// The reader keeps a core busy; decoding takes whatever else there is (the caller's applying
	// is the lightest stage and shares with them).
	decoders := max(1, runtime.GOMAXPROCS(0)-1)
	for range decoders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				for i := range b.recs {
					if err := s.dec.decode(&b.recs[i], &b.facts[i]); err != nil {
						b.decodeErr = err
						break
					}
					b.n++
				}
				close(b.done)
			}
		}()
	}

	for {
		var b *batch
		select {
		case b = <-ordered:
		case <-ctx.Done():
			return ctx.Err()
		}
		if b == nil {
			return nil // the reader reached the end of the log
		}
		select {
		case <-b.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		s.mu.Lock()
		var err error
		for i := range b.n {
			if err = s.apply(&b.recs[i], &b.facts[i]); err != nil {
				break
			}
		}
		s.mu.Unlock()
		s.notify()
		switch {
		case err != nil:
			return err
		case b.decodeErr != nil:
			return b.decodeErr
		case b.readErr != nil:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return s.readErr(b.readErr)
		}
		clear(b.recs) // drop the records' data before the batch waits for reuse
		select {
		case free <- b:
		default:
		}
	}
}
