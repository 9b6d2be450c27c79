package workers

import (
	"context"
	"math"
	"sync/atomic"
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
			at, ok := r.take(ctx, func() float64 { return d })
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
	half := func() float64 { return 0.5 }
	first, _ := slow.take(ctx, half)
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if at, ok := slow.take(short, half); ok {
		t.Errorf("D=0.5: a second start at %v, %v after the first", at, at.Sub(first))
	}
}

// A start waiting under a very low D is granted soon after D is raised (found by an outside
// probe: a start waiting under D=0.001 kept waiting out its 1,000 s window after D was raised
// to 10 through the admin API).
func TestAStartAlreadyWaitingFollowsARaiseOfD(t *testing.T) {
	var r rateWindow
	var d atomic.Uint64
	d.Store(math.Float64bits(0.001))
	rate := func() float64 { return math.Float64frombits(d.Load()) }
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, ok := r.take(ctx, rate); !ok {
		t.Fatal("the first start was refused")
	}
	raised := make(chan time.Time, 1)
	go func() {
		time.Sleep(150 * time.Millisecond)
		raised <- time.Now()
		d.Store(math.Float64bits(10))
	}()
	at, ok := r.take(ctx, rate)
	if !ok {
		t.Fatal("the waiting start was not granted within 10 s of D raised to 10")
	}
	if after := at.Sub(<-raised); after > time.Second {
		t.Fatalf("the waiting start was granted %v after D was raised, want within the next check", after)
	}
}
