package api

import (
	"math"
	"net/http"
	"sync"
	"time"

	"relayer/domain"
	"relayer/projections"
)

// GET /v1/overview: what the operators' dashboard (/ui) shows at a glance, read from the
// projections in one call: jobs by kind and status, every status entered so far (a client takes
// the difference of two answers for transitions per second), the front of each queue with each
// job's own position, the stage durations, the accuracy of the hints given at acceptance, and
// the chain's state. It is an audit endpoint: behind the operator token like the transitions
// stream.

// overviewQueueFront is how many jobs of each queue the overview lists; the lengths are whole.
const overviewQueueFront = 50

// Overview is GET /v1/overview's result.
type Overview struct {
	At time.Time `json:"at"`
	// Position is the global position the projections have applied.
	Position uint64 `json:"position"`
	Jobs     int    `json:"jobs"`
	// Kinds and Statuses list the kinds and the statuses in their order (the lifecycle's for
	// statuses). Counts[kind][status] is how many jobs of the kind are in the status now; Entered
	// the same for how many times jobs entered it since the log began.
	Kinds    []string                  `json:"kinds"`
	Statuses []string                  `json:"statuses"`
	Counts   map[string]map[string]int `json:"counts"`
	Entered  map[string]map[string]int `json:"entered"`
	Queues   []QueueView               `json:"queues"`
	Stages   []StageView               `json:"stages"`
	Hints    HintAccuracy              `json:"hints"`
	Chain    ChainView                 `json:"chain"`
	// Signers is present while the balance guard has a signing key paused (as in /healthz).
	Signers *signersReport `json:"signers,omitempty"`
}

// QueueView is one queue: its length and its first jobs, front to back.
type QueueView struct {
	Name   string      `json:"name"`
	Length int         `json:"length"`
	Jobs   []QueuedJob `json:"jobs"`
}

// QueuedJob is a job waiting in a queue: Ahead jobs are in front of it.
type QueuedJob struct {
	JobID  string    `json:"jobId"`
	Kind   string    `json:"kind"`
	Status string    `json:"status"`
	Ahead  int       `json:"ahead"`
	Since  time.Time `json:"since"`
}

// StageView is how long one stage took the jobs of one kind, in seconds: the median and 99th
// percentile over every sample (read off the histogram's buckets, so as coarse as they are), the
// mean, and the median of the recent window the adaptive hints use.
type StageView struct {
	Kind         string  `json:"kind"`
	Stage        string  `json:"stage"`
	Count        uint64  `json:"count"`
	P50          float64 `json:"p50"`
	P99          float64 `json:"p99"`
	Mean         float64 `json:"mean"`
	RecentMedian float64 `json:"recentMedian"`
}

// HintAccuracy pairs the Retry-After this instance gave when it accepted a job with how long the
// job really took, for the jobs that have ended since (the newest last). Pending is how many
// accepted jobs it still follows.
type HintAccuracy struct {
	Samples []HintSample `json:"samples"`
	Pending int          `json:"pending"`
}

// HintSample is one ended job: Given is the hint in seconds, Took the time from acceptance to its
// end in seconds, both by the log's clock.
type HintSample struct {
	JobID  string    `json:"jobId"`
	Kind   string    `json:"kind"`
	Status string    `json:"status"`
	Given  int       `json:"given"`
	Took   float64   `json:"took"`
	EndAt  time.Time `json:"endAt"`
}

// ChainView says whether the gateway chain is in a recorded outage, and since when.
type ChainView struct {
	Outage bool       `json:"outage"`
	Since  *time.Time `json:"since,omitempty"`
	// Providers are the chain's RPC providers with their status, as /healthz lists them.
	Providers []providerReport `json:"providers,omitempty"`
}

func (s *Server) overview(w http.ResponseWriter, r *http.Request) {
	o := Overview{
		At:       s.now().UTC(),
		Position: uint64(s.set.Position()),
		Jobs:     s.set.Jobs(),
		Counts:   byKindAndStatus(s.set.Counts()),
		Entered:  byKindAndStatus(s.set.Transitions()),
		Hints:    s.hints.accuracy(s.set),
		Stages:   []StageView{},
	}
	for _, k := range domain.Kinds() {
		o.Kinds = append(o.Kinds, k.String())
	}
	for _, st := range domain.Statuses() {
		o.Statuses = append(o.Statuses, st.String())
	}
	ql := s.set.QueueLengths()
	for _, q := range []struct {
		queue  projections.Queue
		length int
	}{{projections.ReadinessQueue, ql.Readiness}, {projections.ReadinessInProgress, ql.ReadinessInProgress}, {projections.TxQueue, ql.Tx}} {
		v := QueueView{Name: q.queue.String(), Length: q.length, Jobs: []QueuedJob{}}
		for i, j := range s.set.QueueFront(q.queue, overviewQueueFront) {
			v.Jobs = append(v.Jobs, QueuedJob{JobID: j.ID.String(), Kind: j.Kind.String(), Status: j.Status.String(), Ahead: i, Since: j.EnteredAt(j.Status)})
		}
		o.Queues = append(o.Queues, v)
	}
	bounds := projections.HistogramBounds()
	for _, k := range domain.Kinds() {
		for _, st := range projections.Stages() {
			ss := s.set.StageStats(k, st)
			if ss.Count == 0 {
				continue
			}
			o.Stages = append(o.Stages, StageView{
				Kind: k.String(), Stage: st.String(), Count: ss.Count,
				P50:          bucketQuantile(0.5, ss, bounds),
				P99:          bucketQuantile(0.99, ss, bounds),
				Mean:         ss.Sum.Seconds() / float64(ss.Count),
				RecentMedian: ss.Recent.Median.Seconds(),
			})
		}
	}
	if since, down := s.set.ChainOutage(); down {
		o.Chain = ChainView{Outage: true, Since: &since}
	}
	if rep := s.chainReport(); rep != nil {
		o.Chain.Providers = rep.Providers
	}
	o.Signers = s.signersReport()
	w.Header().Set("Cache-Control", "no-store")
	writeEnvelope(w, r, http.StatusOK, statusSucceeded, o)
}

func byKindAndStatus(c projections.Counts) map[string]map[string]int {
	out := make(map[string]map[string]int, len(domain.Kinds()))
	for _, k := range domain.Kinds() {
		m := make(map[string]int, domain.NumStatuses)
		for _, st := range domain.Statuses() {
			m[st.String()] = c.Of(k, st)
		}
		out[k.String()] = m
	}
	return out
}

// bucketQuantile estimates the q-quantile of a stage's durations from its histogram, in seconds,
// as Prometheus's histogram_quantile does: linearly within the bucket that holds it, the first
// bucket starting at the smallest sample and the last (unbounded) one ending at the largest.
func bucketQuantile(q float64, ss projections.StageStats, bounds []time.Duration) float64 {
	rank := q * float64(ss.Count)
	var below uint64
	for i, n := range ss.Buckets {
		if n == 0 || float64(below+n) < rank {
			below += n
			continue
		}
		lo, hi := ss.Min, ss.Max
		if i > 0 {
			lo = max(lo, bounds[i-1])
		}
		if i < len(bounds) {
			hi = min(hi, bounds[i])
		}
		f := (rank - float64(below)) / float64(n)
		return (lo + time.Duration(f*float64(hi-lo))).Seconds()
	}
	return ss.Max.Seconds()
}

// Hint accuracy is followed in memory, per instance: the hint given at acceptance is not in the
// log (it is computed after the append, from the queue the job joined), and only the instance
// that answered knows it. A restart forgets the jobs it followed, which is fine for a plot of
// recent accuracy.
const (
	// hintsFollowed is how many accepted jobs are followed at most; beyond it the older half is
	// dropped (a job that never ends must not hold memory).
	hintsFollowed = 4096
	// hintsKept is how many ended jobs' samples are kept, the newest.
	hintsKept = 500
)

type hintGiven struct {
	job   domain.JobID
	kind  domain.Kind
	given int
}

// hintTracker follows the jobs this instance accepted until they end.
type hintTracker struct {
	mu      sync.Mutex
	pending []hintGiven // in order of acceptance
	samples []HintSample
}

// given records the hint given when job was accepted.
func (h *hintTracker) given(job domain.JobID, k domain.Kind, seconds int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.pending) >= hintsFollowed {
		// Drop the older half at once, so that a full tracker costs O(1) per acceptance.
		n := copy(h.pending, h.pending[hintsFollowed/2:])
		clear(h.pending[n:])
		h.pending = h.pending[:n]
	}
	h.pending = append(h.pending, hintGiven{job: job, kind: k, given: seconds})
}

// accuracy moves the followed jobs that have ended to the samples and returns them.
func (h *hintTracker) accuracy(set *projections.Set) HintAccuracy {
	h.mu.Lock()
	defer h.mu.Unlock()
	kept := h.pending[:0]
	for _, g := range h.pending {
		j, ok := set.Job(g.job)
		if !ok || !j.Status.Terminal() {
			kept = append(kept, g)
			continue
		}
		start, end := j.AcceptedAt, j.EnteredAt(j.Status)
		h.samples = append(h.samples, HintSample{
			JobID: g.job.String(), Kind: g.kind.String(), Status: j.Status.String(),
			Given: g.given, Took: math.Round(end.Sub(start).Seconds()*1000) / 1000, EndAt: end,
		})
	}
	clear(h.pending[len(kept):])
	h.pending = kept
	if n := len(h.samples); n > hintsKept {
		h.samples = append(h.samples[:0], h.samples[n-hintsKept:]...)
	}
	return HintAccuracy{Samples: append([]HintSample{}, h.samples...), Pending: len(h.pending)}
}
