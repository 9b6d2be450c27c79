package projections

import (
	"encoding/json"
	"math"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

// Job is the requests projection's view of one job.
type Job struct {
	ID     domain.JobID
	Kind   domain.Kind
	Status domain.Status
	// Entered[st.Ordinal()] is when the job last entered status st, from the event's time (the
	// zero time when it never did). A job sent back to processing by recovery has the later
	// time.
	Entered [domain.NumStatuses]time.Time
	// AcceptedAt is when the job was accepted (its first entry into its initial status).
	AcceptedAt time.Time
	// ReadinessCheckAt is when a readiness worker last picked the job up (zero when none did).
	ReadinessCheckAt time.Time
	// RetryAt is when a step that failed for a passing reason is tried again (RetryScheduled),
	// zero when none is pending in the job's current status.
	RetryAt     time.Time
	ContentHash string
	// TxHash is the hash of the job's current transaction (empty before one is signed and after
	// a reset).
	TxHash           string
	GatewayRequestID string
	// Label and Message say why a job failed or timed out (Message may be empty).
	Label, Message string
	// Result is the result's JSON as the log holds it, a domain.Result: the response of a
	// completed job, or accepted:false for a rejected input proof. Nil otherwise.
	Result json.RawMessage
	// Shares is how many user decrypt shares arrived.
	Shares int
	// Version is the stream version of the job's last event, and Position its global position.
	Version  eventstore.Version
	Position eventstore.Position
}

// EnteredAt returns when the job last entered status st.
func (j Job) EnteredAt(st domain.Status) time.Time {
	if st.IsZero() {
		return time.Time{}
	}
	return j.Entered[st.Ordinal()]
}

// Since returns when the job entered its current status (E in the Retry-After formulas).
func (j Job) Since() time.Time { return j.EnteredAt(j.Status) }

func (s *Set) jobView(j *job) Job {
	var hash [64]byte // a content hash's hex: its string is the one allocation
	v := Job{
		ID: j.id, Kind: j.kind, Status: j.status,
		AcceptedAt:       nanosTime(j.acceptedAt()),
		ReadinessCheckAt: nanosTime(j.checkAt()),
		RetryAt:          nanosTime(j.retryAt()),
		ContentHash:      string(j.appendContentHash(hash[:0])),
		TxHash:           unpackString(j.field(fieldTxHash)),
		GatewayRequestID: unpackString(j.field(fieldGatewayRequestID)),
		Label:            unpackString(j.field(fieldLabel)),
		Message:          unpackString(j.field(fieldMessage)),
		Shares:           int(j.shares()),
		Version:          eventstore.Version(j.version),
		Position:         j.pos,
	}
	for i, st := range domain.Statuses() {
		v.Entered[i] = nanosTime(j.enteredAt(st))
	}
	if r := j.field(fieldResult); r != "" {
		v.Result = unpackText(nil, r)
	}
	return v
}

// Job returns the job with id, and false when the projections hold no such job.
func (s *Set) Job(id domain.JobID) (Job, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, j, ok := s.jobs.lookup(id)
	if !ok {
		return Job{}, false
	}
	return s.jobView(j), true
}

// Jobs returns how many jobs the projections hold (retired ones are not held).
func (s *Set) Jobs() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return int(s.jobs.n - s.jobs.dead)
}

// Events returns how many events the Set applied, skipped ones included.
func (s *Set) Events() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.events
}

// Counts counts jobs by kind and status: Counts[k.Ordinal()][st.Ordinal()].
type Counts [numKinds][domain.NumStatuses]int

// Of returns the number of jobs of kind k in status st.
func (c Counts) Of(k domain.Kind, st domain.Status) int {
	if k.IsZero() || st.IsZero() {
		return 0
	}
	return c[k.Ordinal()][st.Ordinal()]
}

// InStatus returns the number of jobs of every kind in status st.
func (c Counts) InStatus(st domain.Status) int {
	n := 0
	for k := range c {
		n += c[k][st.Ordinal()]
	}
	return n
}

// Counts returns the number of jobs by kind and status.
func (s *Set) Counts() Counts {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.counts
}

// Transitions returns, by kind and status, how many times jobs entered each status: every
// transition since position 0, acceptances included (a job reset from tx_in_flight enters
// processing again and counts again).
func (s *Set) Transitions() Counts {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.transitions
}

// Location says where a job waits.
type Location struct {
	Queue Queue
	// Ahead is the job's own 0-based position p: how many jobs in Queue are ahead of it.
	Ahead int
	// Length is the number of jobs in Queue (0 for NotQueued).
	Length int
}

func (s *Set) locate(j *job) Location {
	if j.queue == NotQueued {
		return Location{}
	}
	q := &s.queues[j.queue]
	return Location{Queue: j.queue, Ahead: q.ahead(j.slot), Length: q.len()}
}

// Locate returns where job id waits, and false for an unknown job. A job in no queue (in
// tx_in_flight or later, or ended) is at NotQueued.
func (s *Set) Locate(id domain.JobID) (Location, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, j, ok := s.jobs.lookup(id)
	if !ok {
		return Location{}, false
	}
	return s.locate(j), true
}

// QueueLengths are the lengths of the three queues.
type QueueLengths struct {
	Readiness, ReadinessInProgress, Tx int
}

// QueueLengths returns the lengths of the three queues.
func (s *Set) QueueLengths() QueueLengths {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.queueLengths()
}

func (s *Set) queueLengths() QueueLengths {
	return QueueLengths{
		Readiness:           s.queues[ReadinessQueue].len(),
		ReadinessInProgress: s.queues[ReadinessInProgress].len(),
		Tx:                  s.queues[TxQueue].len(),
	}
}

// Timer is a non-terminal job's entry in the timers projection.
type Timer struct {
	JobID  domain.JobID
	Kind   domain.Kind
	Status domain.Status
	// EnteredAt is when the job entered its current status (E in the Retry-After formulas).
	EnteredAt time.Time
	// Deadline is when the timeout of the job's current stage falls due: readiness (queued,
	// counted from acceptance), tx_in_flight, or response (receipt_received). Zero in
	// processing, which has none.
	Deadline time.Time
}

func (s *Set) timerOf(j *job) Timer {
	t := Timer{JobID: j.id, Kind: j.kind, Status: j.status, EnteredAt: nanosTime(j.enteredAt(j.status))}
	if j.timer >= 0 {
		t.Deadline = nanosTime(s.timers.items[j.timer].due)
	}
	return t
}

// Timer returns job id's timer, and false when the job is unknown or has ended.
func (s *Set) Timer(id domain.JobID) (Timer, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, j, ok := s.jobs.lookup(id)
	if !ok || j.status.Terminal() {
		return Timer{}, false
	}
	return s.timerOf(j), true
}

// Due returns up to limit timers whose deadline is at or before now, earliest first (equal
// deadlines in order of acceptance); none while the log says the chain is in an outage.
func (s *Set) Due(now time.Time, limit int) []Timer { return s.DueOf(now, limit, nil) }

// DueOf is Due for the jobs keep accepts (all when nil): an engine that drives part of the jobs
// is not kept from its own by the others'.
func (s *Set) DueOf(now time.Time, limit int, keep func(domain.JobID) bool) []Timer {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.outage != 0 {
		return nil // the chain cannot be seen: time stands still (applyOutage)
	}
	var k func(timerItem) bool
	if keep != nil {
		k = func(it timerItem) bool { return keep(s.jobs.at(it.job).id) }
	}
	items := s.timers.due(clampNanos(now), limit, k)
	out := make([]Timer, len(items))
	for i, it := range items {
		out[i] = s.timerOf(s.jobs.at(it.job))
	}
	return out
}

// clampNanos is now in unix nanoseconds, saturated at the ends of the int64 range (about the
// years 1678 and 2262) where UnixNano would overflow.
func clampNanos(now time.Time) int64 {
	switch {
	case now.After(time.Unix(0, math.MaxInt64)):
		return math.MaxInt64
	case now.Before(time.Unix(0, math.MinInt64)):
		return math.MinInt64
	}
	return now.UnixNano()
}

// NextDeadline returns the earliest pending deadline's timer, and false when none is pending.
// The timeout worker sleeps until it.
func (s *Set) NextDeadline() (Timer, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.timers.items) == 0 || s.outage != 0 {
		return Timer{}, false
	}
	return s.timerOf(s.jobs.at(s.timers.items[0].job)), true
}

// View is everything a status query about one job needs, read at one instant: the job, where it
// waits, its deadline, and the queue lengths (Q of the TX queue, for a job that will join it).
type View struct {
	Job      Job
	Location Location
	// Deadline is the job's current deadline (zero when it has none).
	Deadline time.Time
	Queues   QueueLengths
	// Position is the projections' checkpoint when the view was read.
	Position eventstore.Position
}

// View returns job id's view, and false for an unknown job.
func (s *Set) View(id domain.JobID) (View, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, j, ok := s.jobs.lookup(id)
	if !ok {
		return View{}, false
	}
	v := View{Job: s.jobView(j), Location: s.locate(j), Queues: s.queueLengths(), Position: s.pos}
	if j.timer >= 0 {
		v.Deadline = nanosTime(s.timers.items[j.timer].due)
	}
	return v, true
}

// DrainRate returns how many jobs per second left queue q into service (readiness checks
// started, for ReadinessQueue; transactions signed, for TxQueue) over the drain window ending at
// the latest event, for kind k (every kind for the zero Kind). Other queues have no drain rate.
// The seconds of the window a chain outage took are not counted (see Drain).
func (s *Set) DrainRate(q Queue, k domain.Kind) float64 {
	r, _ := s.Drain(q, k)
	return r
}

// Drain is DrainRate with the number of departures the rate is measured on. The window is the
// drain window less the part chain outages took: a window the outage took whole measures nothing
// (0, 0), so that the adaptive hints fall back on the nominal rate rather than learn the outage.
func (s *Set) Drain(q Queue, k domain.Kind) (perSecond float64, departures int) {
	d, ok := drainOf(q)
	if !ok {
		return 0, 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, n := s.stats.rate(d, k.Ordinal())
	return r, int(n)
}

// StageStats returns the observed durations of stage st for kind k.
func (s *Set) StageStats(k domain.Kind, st Stage) StageStats {
	if k.IsZero() || st >= numStages {
		return StageStats{}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.stats.stages[k.Ordinal()][st].view()
}
