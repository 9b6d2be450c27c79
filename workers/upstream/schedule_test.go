package upstream

import (
	"strings"
	"testing"
	"time"
)

func TestTheScheduleFollowsTheSeedTable(t *testing.T) {
	var s Schedule
	m := time.Minute
	cases := []struct {
		retry int
		want  time.Duration
	}{
		{-3, 5 * time.Second}, {0, 5 * time.Second},
		{1, 5 * time.Second}, {2, 10 * time.Second}, {3, 30 * time.Second}, {4, m},
		{5, 3 * m}, {14, 3 * m}, {24, 3 * m},
		{25, 5 * m}, {26, 6*m + 30*time.Second}, {27, 8 * m}, {39, 26 * m},
		{40, 30 * m}, {44, 30 * m},
		{45, time.Hour}, {49, time.Hour},
		{50, 72 * m}, {51, 86*m + 24*time.Second},
		{67, 24 * time.Hour}, {100, 24 * time.Hour}, {1 << 30, 24 * time.Hour},
	}
	for _, c := range cases {
		if got := s.Nominal(c.retry); got != c.want {
			t.Errorf("Nominal(%d) = %v, want %v", c.retry, got, c.want)
		}
	}
	// Several hours by the 60th retry, as the seed says.
	if got := s.Nominal(60); got < 7*time.Hour || got > 8*time.Hour {
		t.Errorf("Nominal(60) = %v", got)
	}
}

func TestTheScheduleNeverShrinksAndNeverPassesItsCap(t *testing.T) {
	for _, s := range []Schedule{{}, {Cap: 10 * time.Minute}, {Cap: 48 * time.Hour}} {
		prev := time.Duration(0)
		limit := s.Cap
		if limit == 0 {
			limit = 24 * time.Hour
		}
		for n := 1; n <= 200; n++ {
			d := s.Nominal(n)
			if d < prev || d > limit {
				t.Fatalf("cap %v: Nominal(%d) = %v after %v", s.Cap, n, d, prev)
			}
			prev = d
		}
		if prev != limit {
			t.Fatalf("cap %v: the schedule ends at %v", s.Cap, prev)
		}
	}
}

func TestScheduleJitterStaysWithinItsBand(t *testing.T) {
	var s Schedule
	for _, n := range []int{1, 4, 10, 30, 45, 80} {
		d := s.Nominal(n)
		lo := d - time.Duration(float64(d)*0.2)
		if got := s.Next(n, zeroRand{}); got != lo {
			t.Errorf("Next(%d) lowest = %v, want %v", n, got, lo)
		}
		if got := s.Next(n, maxRand{}); got != d {
			t.Errorf("Next(%d) highest = %v, want %v", n, got, d)
		}
		for i := 0; i < 200; i++ {
			if got := s.Next(n, nil); got < lo || got > d {
				t.Fatalf("Next(%d) = %v outside [%v, %v]", n, got, lo, d)
			}
		}
	}
}

func TestJobsThatFailedTogetherDoNotRetryInLockStep(t *testing.T) {
	var s Schedule
	for _, n := range []int{1, 5, 30, 70} {
		seen := map[time.Duration]bool{}
		var lo, hi time.Duration
		const jobs = 500
		for i := 0; i < jobs; i++ {
			d := s.Next(n, nil)
			if i == 0 || d < lo {
				lo = d
			}
			if d > hi {
				hi = d
			}
			seen[d] = true
		}
		if len(seen) < jobs*9/10 {
			t.Errorf("retry %d: %d jobs got only %d distinct delays", n, jobs, len(seen))
		}
		if spread := hi - lo; spread < s.Nominal(n)/10 {
			t.Errorf("retry %d: delays spread over %v only", n, spread)
		}
	}
}

func TestAScheduleOutOfRangeIsRejected(t *testing.T) {
	if err := (Schedule{}).Validate(); err != nil {
		t.Fatal(err)
	}
	for _, s := range []Schedule{{Cap: -time.Second}, {Jitter: -0.1}, {Jitter: 1}, {Jitter: 1.5}} {
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "Schedule") {
			t.Errorf("Validate(%+v) = %v", s, err)
		}
	}
}
