package projections

import (
	"sync"
	"sync/atomic"

	"relayer/domain"
)

// waiters is the registry behind Set.Watch: per watched job, one channel that every watcher of
// the job shares and that the next change of the job's status closes. Applying an event pays for
// it only when some job is watched: the apply path reads jobs (one atomic load) and takes mu only
// when it is not 0, so a Set nobody watches costs nothing more per event.
//
// Lock order: Set.mu (held by the apply path) before waiters.mu; Watch and its stop take mu
// alone.
type waiters struct {
	// jobs is len(m), written under mu, read without it by the apply path.
	jobs atomic.Int64
	// n counts the registrations not stopped yet (Watchers).
	n atomic.Int64

	mu sync.Mutex
	m  map[domain.JobID]*watch
}

// watch is one watched job: its channel, and how many registrations share it.
type watch struct {
	ch   chan struct{}
	refs int
}

// Watch registers interest in job id's next status change and returns a channel closed when it
// comes: the job's next transition (an acceptance, for a job the Set does not hold yet; its end
// included), however it arrives (Run, CatchUp or Apply). Events that change no status (a
// readiness check picked up, a share received) do not close it, nor do other jobs' events. The
// channel closes once: to wait for the change after that, Watch again.
//
// Register before reading the job (View, Job): a change applied after Watch returned closes the
// channel, so none is missed between the read and the wait. A change applied between Watch and
// the read closes it too, though the read shows that change already: a caller that must wait for
// a change it has not seen, once woken, watches again, reads again and compares with its first
// read.
//
// stop ends the registration: call it when done waiting (deferred), whether or not the channel
// closed; calls after the first do nothing. A watcher that goes away without stop stays counted
// (Watchers) and keeps its job in the registry until the job's next change. Watchers of one job
// share one channel, so many waiters of one job cost one entry.
func (s *Set) Watch(id domain.JobID) (changed <-chan struct{}, stop func()) {
	w := &s.watchers
	w.mu.Lock()
	if w.m == nil {
		w.m = make(map[domain.JobID]*watch)
	}
	e := w.m[id]
	if e == nil {
		e = &watch{ch: make(chan struct{})}
		w.m[id] = e
		w.jobs.Store(int64(len(w.m)))
	}
	e.refs++
	w.mu.Unlock()
	w.n.Add(1)

	var stopped atomic.Bool
	return e.ch, func() {
		if stopped.Swap(true) {
			return
		}
		w.n.Add(-1)
		w.mu.Lock()
		e.refs--
		// After the change closed e.ch, m may hold a newer entry for id (a Watch since): leave it.
		if e.refs == 0 && w.m[id] == e {
			delete(w.m, id)
			w.jobs.Store(int64(len(w.m)))
		}
		w.mu.Unlock()
	}
}

// Watchers returns how many Watch registrations are not stopped yet.
func (s *Set) Watchers() int { return int(s.watchers.n.Load()) }

// changed wakes the watchers of job id: its status just changed. Called by change, under Set.mu.
// Without any watched job it is one atomic load.
func (w *waiters) changed(id domain.JobID) {
	if w.jobs.Load() == 0 {
		return
	}
	w.fire(id)
}

func (w *waiters) fire(id domain.JobID) {
	w.mu.Lock()
	if e := w.m[id]; e != nil {
		close(e.ch)
		delete(w.m, id)
		w.jobs.Store(int64(len(w.m)))
	}
	w.mu.Unlock()
}
