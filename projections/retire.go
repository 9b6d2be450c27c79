package projections

import (
	"encoding/json"
	"fmt"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

// Retirement: the archiver moves ended jobs past their retention window out of the live store
// and records it as domain.JobsRetired in the retention stream. The Set applies that event by
// dropping the jobs: they leave the counts by status, the lookups, the searches and the
// snapshot, and their ids join the retired set, so that a query can say the job was archived
// and the Submitter never gives the id to a new job. The running history (transitions
// entered, stage durations, events applied) keeps what the retired jobs contributed; a Set
// rebuilt from the live store alone, which never saw their events, takes it over from the
// HistoryCarried the archiver records with each archive segment (history.go).
//
// A retired job's index in the job table is never given to another job, so that the indices
// the queues, timers and search cursors hold never move; its memory is freed (jobTable.retire).

// gone reports whether the slot held a job that has since been retired.
func (j *job) gone() bool { return j.kind.IsZero() }

// applyRetention applies an event of the retention stream; s.mu is held.
func (s *Set) applyRetention(rec *eventstore.Record) error {
	switch rec.Type {
	case "JobsRetired":
		return s.applyRetired(rec)
	case "HistoryCarried":
		return s.applyHistory(rec)
	}
	return nil
}

// applyRetired applies a JobsRetired. Every job named must be one that ended, one this Set
// never saw (it was rebuilt from a live store the job had already left), or one whose stream
// was removed while this Set read it: it holds the stream's first events only, below the last
// version the event names, because it caught up while another instance's archiver removed the
// rest. A job held at the version named, or without one named, that could still change is an
// inconsistency and changes nothing.
func (s *Set) applyRetired(rec *eventstore.Record) error {
	var e domain.JobsRetired
	if err := json.Unmarshal(rec.Data, &e); err != nil {
		return err
	}
	if len(e.Versions) > 0 && len(e.Versions) != len(e.Jobs) {
		return fmt.Errorf("JobsRetired names %d jobs and %d versions", len(e.Jobs), len(e.Versions))
	}
	for n, id := range e.Jobs {
		_, j, ok := s.jobs.lookup(id)
		if !ok || j.status.Terminal() {
			continue
		}
		if len(e.Versions) == 0 || uint64(j.version) >= e.Versions[n] {
			return fmt.Errorf("job %s retired in status %s, which is not terminal", id, j.status)
		}
	}
	s.retired.add(e.Jobs)
	s.retiredUpTo = max(s.retiredUpTo, eventstore.Position(e.UpTo))
	for _, id := range e.Jobs {
		i, j, ok := s.jobs.lookup(id)
		if !ok {
			continue
		}
		if !j.status.Terminal() {
			s.forgetOpen(i, j)
		} else if costlyEnd(j) {
			s.forgetCostly(j)
		}
		s.counts[j.kind.Ordinal()][j.status.Ordinal()]--
		s.jobs.retire(i)
		s.watchers.changed(id)
	}
	return nil
}

// forgetOpen takes job j at index i, whose stream was removed before this Set read its end, out
// of what only an open job is in: its queue, the timers, the gateway requests awaited. What its
// missing events added to the running history comes back with the next HistoryCarried, whose
// AsOf is past them (they lie at or below an archived horizon).
func (s *Set) forgetOpen(i int32, j *job) {
	if j.status == domain.ReceiptReceived {
		s.reqs.left(j.kind, j.field(fieldGatewayRequestID))
	}
	s.dequeue(j)
	s.timers.clear(&s.jobs, i)
}

// Retired reports whether job id was retired: its events are in the archive, not in the live
// store, and the read models no longer hold it. It may answer true, with probability about
// n/2^64 for n retired jobs, for an id that was never retired (retiredIDs): callers treat that
// as harmless.
func (s *Set) Retired(id domain.JobID) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.retired.contains(id)
}

// RetiredUpTo is the highest position at or below which the Set has seen jobs retired (0: none
// was): the live store may lack events at or below it, those of the retired jobs, which are in
// the archive.
func (s *Set) RetiredUpTo() eventstore.Position {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.retiredUpTo
}

// RetiredJobs is how many jobs the Set has seen retired.
func (s *Set) RetiredJobs() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.retired.len()
}

// Retirable is a job that may leave the live store: it ended before EndedBefore, its last event
// is at Position, at Version of its stream.
type Retirable struct {
	ID       domain.JobID
	Kind     domain.Kind
	Status   domain.Status
	EndedAt  time.Time
	Version  eventstore.Version
	Position eventstore.Position
}

// Retirable returns at most limit jobs, in order of acceptance, that ended (a terminal status)
// longer ago than their kind's window before now and whose last event is at or below upTo. It
// walks the job table: for the archiver, a few times a minute, not for requests.
func (s *Set) Retirable(windows func(domain.Kind) time.Duration, now time.Time, upTo eventstore.Position, limit int) []Retirable {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []Retirable
	for i := int32(0); i < s.jobs.n && len(out) < limit; i++ {
		j := s.jobs.at(i)
		if j.gone() || !j.status.Terminal() || j.pos > upTo {
			continue
		}
		ended := j.enteredAt(j.status)
		if ended == 0 || now.Sub(time.Unix(0, ended)) < windows(j.kind) {
			continue
		}
		out = append(out, Retirable{ID: j.id, Kind: j.kind, Status: j.status, EndedAt: nanosTime(ended),
			Version: eventstore.Version(j.version), Position: j.pos})
	}
	return out
}

// isRetired is Retired with s.mu held.
func (s *Set) isRetired(id domain.JobID) bool { return s.retired.contains(id) }
