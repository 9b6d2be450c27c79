package projections

import (
	"math"
	"slices"
	"time"

	"relayer/domain"
)

// Stage is one stretch of a request's life whose duration the stats projection observes.
type Stage uint8

const (
	// StageReadiness runs from acceptance to processing (decrypts only): waiting in the
	// readiness queue plus the check itself.
	StageReadiness Stage = iota
	// StageReadinessCheck runs from a readiness worker picking the job up to processing: R in
	// the Retry-After formulas.
	StageReadinessCheck
	// StageTxQueue runs from entering processing (the last time) to tx_in_flight: the wait in
	// the TX queue.
	StageTxQueue
	// StageTxConfirm runs from tx_in_flight to receipt_received: T in the formulas.
	StageTxConfirm
	// StageTx runs from entering processing (the last time) to receipt_received.
	StageTx
	// StageResponse runs from receipt_received to completed: P in the formulas.
	StageResponse
	numStages
)

var stageNames = [numStages]string{"readiness", "readiness_check", "tx_queue", "tx_confirm", "tx", "response"}

// Stages lists every stage.
func Stages() []Stage {
	return []Stage{StageReadiness, StageReadinessCheck, StageTxQueue, StageTxConfirm, StageTx, StageResponse}
}

func (s Stage) String() string {
	if s < numStages {
		return stageNames[s]
	}
	return "unknown"
}

// histogramBounds are the upper bounds (inclusive) of the duration histogram's buckets; a last
// bucket takes everything longer. They span what the stages take in practice, from a fast
// readiness check to the 30-minute response timeout.
var histogramBounds = [...]time.Duration{
	50 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 30 * time.Minute,
}

const numBuckets = len(histogramBounds) + 1

// HistogramBounds returns the upper bounds of StageStats.Buckets (the last bucket has none).
func HistogramBounds() []time.Duration { return slices.Clone(histogramBounds[:]) }

// StageWindow is how many of a stage's latest durations the stats projection keeps per kind:
// the recent window that the adaptive Retry-After trusts, unlike the all-time count, sum and
// moving average, which never forget.
const StageWindow = 64

type stageStat struct {
	count    uint64
	sum      int64   // nanoseconds, all samples
	ewma     float64 // nanoseconds
	min, max int64   // nanoseconds
	buckets  [numBuckets]uint64
	// recent is a ring of the last StageWindow durations (nanoseconds) that are samples of the
	// stage's usual pace: ring of them so far, the newest at (ring-1) % StageWindow. A duration
	// that waited on a chain outage counts in the histogram, not here.
	recent [StageWindow]int64
	ring   uint64
	// lastAt is the event time (unix nanoseconds) of the ring's newest sample; 0 before the first.
	lastAt int64
}

// observe records a stage that took d and ended at event time at. It stays O(1) without
// allocation: it runs on the apply path for every stage of every job; the window's median is
// computed when it is read.
func (s *stageStat) observe(d, at int64, alpha float64, outage bool) {
	if d < 0 {
		// Clocks of different workers may disagree by a little; a stage cannot take less than
		// nothing.
		d = 0
	}
	if !outage {
		s.recent[s.ring%StageWindow] = d
		s.ring++
		// The newest by event time, not by order of application: a worker whose clock is a
		// little behind must not make the observations look older than they are.
		s.lastAt = max(s.lastAt, at)
	}
	s.count++
	s.sum += d
	if s.count == 1 {
		s.ewma, s.min, s.max = float64(d), d, d
	} else {
		s.ewma += alpha * (float64(d) - s.ewma)
		s.min, s.max = min(s.min, d), max(s.max, d)
	}
	b := 0
	for b < len(histogramBounds) && time.Duration(d) > histogramBounds[b] {
		b++
	}
	s.buckets[b]++
}

// window returns the samples the ring holds, oldest first, appended to dst.
func (s *stageStat) window(dst []int64) []int64 {
	if s.ring <= StageWindow {
		return append(dst, s.recent[:s.ring]...)
	}
	at := s.ring % StageWindow
	dst = append(dst, s.recent[at:]...)
	return append(dst, s.recent[:at]...)
}

// Recent summarises a recent window of observed durations: what the adaptive Retry-After
// trusts, or not.
//
// The estimator is the median, not a mean: a burst of slow jobs (a KMS or coprocessor
// hiccup, a stuck node) arrives as a block of outliers, and the median ignores anything up to
// half the window, where a mean (moving or not) is pulled by every one of them and a trimmed
// mean by whatever exceeds its trim. The median is also what the hint means: half the jobs
// are done by then, and the safety margin M covers the other half. Sorting the window's 64
// values costs about a microsecond when it is read, and nothing on the apply path.
type Recent struct {
	// Median is the median of the window's samples (the mean of the middle two when they are
	// even in number); 0 when there are none.
	Median time.Duration
	// Samples is how many samples the window holds (at most StageWindow per kind).
	Samples int
	// LastAt is the event time of the newest sample; the zero Time when there is none.
	LastAt time.Time
}

// median returns the median of v, reordering v.
func median(v []int64) time.Duration {
	n := len(v)
	if n == 0 {
		return 0
	}
	slices.Sort(v)
	if n%2 == 1 {
		return time.Duration(v[n/2])
	}
	// Halves first: the sum of two durations near the int64 limit must not overflow.
	a, b := v[n/2-1], v[n/2]
	return time.Duration(a/2 + b/2 + (a%2+b%2)/2)
}

// StageStats summarises the observed durations of one stage for one kind.
type StageStats struct {
	Count uint64
	// Sum is the total of every sample's duration (for a histogram's _sum).
	Sum time.Duration
	// EWMA is the exponentially weighted moving average (Config.DurationAlpha per sample).
	EWMA     time.Duration
	Min, Max time.Duration
	// Buckets counts the samples per histogram bucket (see HistogramBounds).
	Buckets [numBuckets]uint64
	// Recent is the window of the last StageWindow samples: their median, how many, and the
	// newest one's event time.
	Recent Recent
}

func (s *stageStat) view() StageStats {
	var buf [StageWindow]int64
	w := s.window(buf[:0])
	return StageStats{Count: s.count, Sum: time.Duration(s.sum), EWMA: time.Duration(s.ewma), Min: time.Duration(s.min), Max: time.Duration(s.max), Buckets: s.buckets,
		Recent: Recent{Median: median(w), Samples: len(w), LastAt: nanosTime(s.lastAt)}}
}

// RecentStage summarises the windows of stage st of the given kinds together: the median of
// all their samples, how many there are, and the newest one's event time. A kind whose newest
// sample is older than since is left out of the median and the count (a kind seldom used keeps
// an old window, which must not pull a busy kind's fresh median), though its newest sample
// still counts for LastAt. The zero since leaves none out.
func (s *Set) RecentStage(st Stage, since time.Time, kinds ...domain.Kind) Recent {
	if st >= numStages {
		return Recent{}
	}
	floor := int64(math.MinInt64)
	if !since.IsZero() {
		floor = since.UnixNano()
	}
	buf := make([]int64, 0, StageWindow*len(kinds))
	var last int64
	s.mu.RLock()
	for _, k := range kinds {
		if k.IsZero() {
			continue
		}
		ss := &s.stats.stages[k.Ordinal()][st]
		last = max(last, ss.lastAt)
		if ss.count > 0 && ss.lastAt >= floor {
			buf = ss.window(buf)
		}
	}
	s.mu.RUnlock()
	return Recent{Median: median(buf), Samples: len(buf), LastAt: nanosTime(last)}
}

// window counts events per kind per second of event time over the last W seconds, in a ring of
// W one-second buckets, with the busy time each one ended (see stats.drained). Each bucket
// carries the second it counts, so a bucket left from an earlier lap of the ring is recognised
// as stale without clearing it.
type window struct {
	buckets []windowBucket
	// latest is the latest second counted.
	latest int64
}

type windowBucket struct {
	sec int64
	n   [numKinds]uint32
	// busy is the busy time (nanoseconds) the departures counted in n ended.
	busy [numKinds]int64
}

func newWindow(size time.Duration) window {
	return window{buckets: make([]windowBucket, size/time.Second), latest: minSecond}
}

// minSecond marks a window that has counted nothing.
const minSecond = -1 << 62

func floorSecond(nanos int64) int64 {
	s := nanos / int64(time.Second)
	if nanos < 0 && nanos%int64(time.Second) != 0 {
		s--
	}
	return s
}

// add counts one departure of kind at second sec that ended busy nanoseconds of busy time.
func (w *window) add(sec int64, kind int, busy int64) {
	size := int64(len(w.buckets))
	if w.latest != minSecond && sec <= w.latest-size {
		return // older than the window: it no longer counts
	}
	w.latest = max(w.latest, sec)
	b := &w.buckets[((sec%size)+size)%size]
	if b.sec != sec {
		*b = windowBucket{sec: sec}
	}
	b.n[kind]++
	b.busy[kind] += busy
}

// count returns how many events of kind (all kinds when kind < 0) fell in the seconds
// (now-W, now], and the busy time they ended.
func (w *window) count(now int64, kind int) (n uint64, busy time.Duration) {
	size := int64(len(w.buckets))
	for i := range w.buckets {
		b := &w.buckets[i]
		if b.sec > now-size && b.sec <= now {
			for k := range b.n {
				if kind < 0 || k == kind {
					n += uint64(b.n[k])
					busy += time.Duration(b.busy[k])
				}
			}
		}
	}
	return n, busy
}

// stats is the stats projection: drain rates of the readiness and TX queues and durations of
// each stage per kind, all computed from event times so that a rebuild gives the same numbers.
type stats struct {
	alpha float64
	// latest is the latest event time seen (unix nanoseconds): the "now" of the drain rates.
	latest int64
	// drains counts departures into service: readiness checks started (leaving the readiness
	// queue) and transactions signed (leaving the TX queue).
	drains [2]window
	// lastDrain is the event time (unix nanoseconds) of each drain's latest departure per kind;
	// 0 before the first.
	lastDrain [2][numKinds]int64
	// backlog says whether each drain's latest departure per kind left others of its kind
	// waiting in the queue: the time to the next departure is then busy time (see drained).
	backlog [2][numKinds]bool
	stages  [numKinds][numStages]stageStat
	// outages are the latest chain outages ended (unix nanoseconds, since and until) and
	// outageSince the start of the one in progress (0: none), from the chain stream: a stage that
	// lasted through an outage measured the outage, not the relayer's or the chain's usual pace,
	// so it does not enter the recent window the adaptive hints trust.
	outages     [][2]int64
	outageSince int64
}

// maxOutagesKept bounds stats.outages: a sample that spans more outages than that is long past.
const maxOutagesKept = 16

// duringOutage tells whether [from, to] overlaps a chain outage.
func (s *stats) duringOutage(from, to int64) bool {
	if s.outageSince != 0 && to >= s.outageSince {
		return true
	}
	for _, o := range s.outages {
		if from <= o[1] && to >= o[0] {
			return true
		}
	}
	return false
}

// drain indexes stats.drains.
const (
	drainReadiness = 0
	drainTx        = 1
)

// drainOf is the index in stats.drains of the departures from q; false for a queue without one.
func drainOf(q Queue) (int, bool) {
	switch q {
	case ReadinessQueue:
		return drainReadiness, true
	case TxQueue:
		return drainTx, true
	}
	return 0, false
}

func newStats(cfg Config) stats {
	return stats{
		alpha:  cfg.DurationAlpha,
		latest: minSecond,
		drains: [2]window{newWindow(cfg.DrainWindow), newWindow(cfg.DrainWindow)},
	}
}

func (s *stats) seen(at int64) { s.latest = max(s.latest, at) }

// drained records a departure of the kind of ordinal o from drain d's queue at at, which left
// backlog others of its kind waiting. The drain rates measure how fast the relayer serves a queue that has work
// waiting, not how fast work arrives: a queue that empties after each departure says nothing
// about its capacity (a rate of arrivals taken for one would tell the clients behind the next
// backlog that it drains at the pace the jobs came). So only the time from a departure that left
// a backlog to the next departure of its kind counts, as busy time, less what chain outages took
// of it (nothing leaves for the chain while it cannot be reached); the rate is the departures
// that ended busy time over that time.
//
// The chain outages are given as they stood at the departure (outages ended, and the start of
// the one in progress, 0 for none), so that a departure replayed later (history.go) counts what
// it counted the first time.
func (s *stats) drained(d int, o int, at int64, backlog bool, outages [][2]int64, outageSince int64) {
	last := &s.lastDrain[d][o]
	if s.backlog[d][o] && *last != 0 && at > *last {
		if busy := at - *last - int64(s.outageWithin(*last, at, outages, outageSince)); busy > 0 {
			s.drains[d].add(floorSecond(at), o, busy)
		}
	}
	*last, s.backlog[d][o] = max(*last, at), backlog
}

// rate returns the drain rate per second of drain d for kind (all kinds when kind < 0) over
// the window ending at the latest event: the departures that ended busy time in it over that
// busy time (see drained), and how many departures that is. A window without busy time (the
// queue never had work waiting) measures nothing: rate 0, no departures.
func (s *stats) rate(d int, kind int) (float64, uint64) {
	if s.latest == minSecond {
		return 0, 0
	}
	n, busy := s.drains[d].count(floorSecond(s.latest), kind)
	if n == 0 || busy <= 0 {
		return 0, 0
	}
	return float64(n) / busy.Seconds(), n
}

// outageWithin returns how much of [from, to) (unix nanoseconds) the chain outages took: those
// ended, and the one in progress since outageSince (0: none), running to s.latest.
func (s *stats) outageWithin(from, to int64, outages [][2]int64, outageSince int64) time.Duration {
	overlap := func(since, until int64) int64 { return max(min(until, to)-max(since, from), 0) }
	var n int64
	for _, o := range outages {
		n += overlap(o[0], o[1])
	}
	if outageSince != 0 {
		n += overlap(outageSince, max(s.latest, outageSince))
	}
	return time.Duration(min(n, to-from))
}

// LastDrain returns the event time of the latest departure from queue q into service (as
// DrainRate counts them) for kind k (every kind for the zero Kind); the zero Time when there was
// none. A drain rate measured over a window that ended long ago says little about now: this
// tells how long ago.
func (s *Set) LastDrain(q Queue, k domain.Kind) time.Time {
	d, ok := drainOf(q)
	if !ok {
		return time.Time{}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if k.IsZero() {
		return nanosTime(slices.Max(s.stats.lastDrain[d][:]))
	}
	return nanosTime(s.stats.lastDrain[d][k.Ordinal()])
}
