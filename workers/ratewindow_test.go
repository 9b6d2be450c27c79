package workers

import (
	"context"
	"testing"
	"time"
)

// mostGrantsInWindow is the most grants any window [t, t+span) holds.
func mostGrantsInWindow(grants []time.Time, span time.Duration) int {
	most := 0
	for i := range grants {
		n := 0
		for j := i; j < len(grants) && grants[j].Sub(grants[i]) < span; j++ {
			n++
		}
		most = max(most, n)
	}
	return most
}

func TestRateWindowNeverGrantsMoreThanDInAnySecondAndFollowsAChangeOfD(t *testing.T) {
	var r rateWindow
	ctx := context.Background()
	var grants []time.Time
	take := func(d float64, n int) {
		for range n {
			at, ok := r.take(ctx, d)
			if !ok {
				t.Fatal("take refused without a cancelled context")
			}
			grants = append(grants, at)
		}
	}
	take(5, 12)
	if got := mostGrantsInWindow(grants, time.Second); got != 5 {
		t.Errorf("D=5: at most %d grants in a second, want exactly 5 (the window full, never over)", got)
	}
	if span := grants[11].Sub(grants[0]); span < 2*time.Second {
		t.Errorf("D=5: 12 grants within %v, want at least 2s", span)
	}
	raised := len(grants)
	take(10, 20) // D raised at run time
	if got := mostGrantsInWindow(grants[raised:], time.Second); got > 10 {
		t.Errorf("D=10: %d grants in a second", got)
	}
	if got := mostGrantsInWindow(grants, time.Second); got > 10 {
		t.Errorf("across the change: %d grants in a second, want at most the new D", got)
	}
	lowered := len(grants)
	take(2, 4) // D lowered: only the newest 2 starts count
	if got := mostGrantsInWindow(grants[lowered-2:], time.Second); got > 2 {
		t.Errorf("D=2 after 10: %d grants in a second among the newest", got)
	}
	// Below 1 per second: one start per 1/D seconds.
	var slow rateWindow
	first, _ := slow.take(ctx, 0.5)
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if at, ok := slow.take(short, 0.5); ok {
		t.Errorf("D=0.5: a second start at %v, %v after the first", at, at.Sub(first))
	}
}
