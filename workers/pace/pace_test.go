package pace

import (
	"testing"
	"time"
)

func TestAWindowHoldsItsStartAndNotItsEnd(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	times := []time.Time{at(1000), at(0), at(999), at(500), at(1999)} // unsorted on purpose
	most, from := MaxInWindow(times, time.Second)
	if most != 3 || !from.Equal(at(0)) {
		t.Fatalf("got %d from %s, want 3 from the start ([0, 1000) holds 0, 500, 999)", most, from)
	}
	if n, _ := MaxInWindow(nil, time.Second); n != 0 {
		t.Fatalf("no times: %d", n)
	}
}

func TestIntervalsThatTouchDoNotOverlap(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	ivs := []Interval{{at(0), at(2)}, {at(2), at(4)}, {at(1), at(3)}, {at(3), at(5)}}
	most, when := MaxOverlap(ivs)
	if most != 2 {
		t.Fatalf("got %d at %s, want 2: an interval ending as another starts does not overlap it", most, when)
	}
	if n, _ := MaxOverlap(append(ivs, Interval{at(1), at(4)})); n != 3 {
		t.Fatalf("got %d, want 3", n)
	}
}
