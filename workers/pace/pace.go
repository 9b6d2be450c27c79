// Package pace measures, from the times the log recorded, whether the engine kept its limits:
// at most D transaction starts in any one-second window, at most C readiness checks at once.
// The load and fleet tests judge the engine with it, from the events alone.
package pace

import (
	"slices"
	"time"
)

// MaxInWindow is the largest number of times in any window [t_i, t_i+w), and the window's start.
func MaxInWindow(times []time.Time, w time.Duration) (int, time.Time) {
	ts := slices.Clone(times)
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	most, from := 0, time.Time{}
	j := 0
	for i := range ts {
		for j < len(ts) && ts[j].Before(ts[i].Add(w)) {
			j++
		}
		if j-i > most {
			most, from = j-i, ts[i]
		}
	}
	return most, from
}

// Interval is a span of time, From inclusive, To exclusive.
type Interval struct{ From, To time.Time }

// MaxOverlap is the largest number of intervals open at one instant, and when. An interval that
// ends at the instant another starts does not overlap it.
func MaxOverlap(ivs []Interval) (int, time.Time) {
	type point struct {
		at    time.Time
		delta int
	}
	pts := make([]point, 0, 2*len(ivs))
	for _, iv := range ivs {
		pts = append(pts, point{iv.From, +1}, point{iv.To, -1})
	}
	slices.SortFunc(pts, func(a, b point) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.delta - b.delta // ends first
	})
	open, most, when := 0, 0, time.Time{}
	for _, p := range pts {
		open += p.delta
		if open > most {
			most, when = open, p.at
		}
	}
	return most, when
}
