package projections

import (
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

type stageStat struct {
	count    uint64
	sum      int64   // nanoseconds, all samples
	ewma     float64 // nanoseconds
	min, max int64   // nanoseconds
	buckets  [numBuckets]uint64
}

func (s *stageStat) observe(d int64, alpha float64) {
	if d < 0 {
		// Clocks of different workers may disagree by a little; a stage cannot take less than
		// nothing.
		d = 0
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
}

func (s *stageStat) view() StageStats {
	return StageStats{Count: s.count, Sum: time.Duration(s.sum), EWMA: time.Duration(s.ewma), Min: time.Duration(s.min), Max: time.Duration(s.max), Buckets: s.buckets}
}

// window counts events per kind per second of event time over the last W seconds, in a ring of
// W one-second buckets. Each bucket carries the second it counts, so a bucket left from an
// earlier lap of the ring is recognised as stale without clearing it.
type window struct {
	buckets []windowBucket
	// latest is the latest second counted.
	latest int64
}

type windowBucket struct {
	sec int64
	n   [numKinds]uint32
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

func (w *window) add(sec int64, kind int) {
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
}

// count returns how many events of kind (all kinds when kind < 0) fell in the seconds
// (now-W, now].
func (w *window) count(now int64, kind int) uint64 {
	size := int64(len(w.buckets))
	var n uint64
	for i := range w.buckets {
		b := &w.buckets[i]
		if b.sec > now-size && b.sec <= now {
			if kind < 0 {
				for _, c := range b.n {
					n += uint64(c)
				}
			} else {
				n += uint64(b.n[kind])
			}
		}
	}
	return n
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
	stages [numKinds][numStages]stageStat
}

// drain indexes stats.drains.
const (
	drainReadiness = 0
	drainTx        = 1
)

func newStats(cfg Config) stats {
	return stats{
		alpha:  cfg.DurationAlpha,
		latest: minSecond,
		drains: [2]window{newWindow(cfg.DrainWindow), newWindow(cfg.DrainWindow)},
	}
}

func (s *stats) seen(at int64) { s.latest = max(s.latest, at) }

func (s *stats) drained(d int, k domain.Kind, at int64) {
	s.drains[d].add(floorSecond(at), k.Ordinal())
}

func (s *stats) observe(k domain.Kind, st Stage, from, to int64) {
	if from == 0 {
		return // the start of the stage was never recorded
	}
	s.stages[k.Ordinal()][st].observe(to-from, s.alpha)
}

// rate returns the drain rate per second of drain d for kind (all kinds when kind < 0) over
// the window ending at the latest event.
func (s *stats) rate(d int, kind int) float64 {
	if s.latest == minSecond {
		return 0
	}
	w := &s.drains[d]
	return float64(w.count(floorSecond(s.latest), kind)) / float64(len(w.buckets))
}
