package projections

import (
	"encoding/binary"
	"slices"

	"relayer/domain"
)

// retiredIDs remembers the ids of the retired jobs in 8 bytes each, for as long as the process
// runs: a relayer that retires a million jobs a day would otherwise grow a map by some 40 MB a
// day. It keeps a 64-bit key per id (retiredKey) in sorted runs: each JobsRetired adds a run,
// and a run is merged with the one before it once that one is no more than twice as long, so
// the runs shrink geometrically (at most about log2 of the count) and each key is copied
// O(log n) times in all. A lookup is a binary search in each run.
//
// A key is not the id, so a job that was never retired may match one that was, with
// probability about n/2^64 for n retired jobs (a ten-millionth of a billionth at a million).
// Every use is harmless when that happens: the Submitter takes the next generation of the
// content hash for a new job (as it does for a retired one), a 404 for a job nobody knows says
// it was archived, and Set.apply only consults the set for the events of a job it does not
// hold, other than its acceptance (which it always applies), so a live job's events are never
// passed over.
type retiredIDs struct {
	runs [][]uint64
	n    int
}

// retiredKey is the 64 bits of id kept: its two halves XORed, so that the fixed version and
// variant bits of a UUID cancel against random ones and every bit of the key varies.
func retiredKey(id domain.JobID) uint64 {
	return binary.BigEndian.Uint64(id[:8]) ^ binary.BigEndian.Uint64(id[8:])
}

// add remembers ids (those already remembered are not added twice).
func (r *retiredIDs) add(ids []domain.JobID) {
	run := make([]uint64, 0, len(ids))
	for _, id := range ids {
		if k := retiredKey(id); !r.holds(k) {
			run = append(run, k)
		}
	}
	if len(run) == 0 {
		return
	}
	slices.Sort(run)
	run = slices.Clip(slices.Compact(run))
	r.n += len(run)
	r.runs = append(r.runs, run)
	for k := len(r.runs); k > 1 && len(r.runs[k-2]) <= 2*len(r.runs[k-1]); k = len(r.runs) {
		r.runs = append(r.runs[:k-2], mergeRuns(r.runs[k-2], r.runs[k-1]))
	}
}

// contains reports whether id was remembered (or, with probability about n/2^64, an id with
// the same key).
func (r *retiredIDs) contains(id domain.JobID) bool { return r.holds(retiredKey(id)) }

func (r *retiredIDs) holds(k uint64) bool {
	for _, run := range r.runs {
		if _, ok := slices.BinarySearch(run, k); ok {
			return true
		}
	}
	return false
}

// len is how many ids were remembered (ids sharing a key count once).
func (r *retiredIDs) len() int { return r.n }

// mergeRuns merges two sorted runs with no key in common into a new one of their exact size.
func mergeRuns(a, b []uint64) []uint64 {
	out := make([]uint64, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0] < b[0] {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	out = append(out, a...)
	return append(out, b...)
}
