package upstream

import (
	"cmp"
	"fmt"
	"math"
	"time"
)

// Schedule is the long-tail timetable for re-trying one step of a job (a readiness check, a
// transaction send) after the step failed as a whole, over minutes to hours. It is shaped like
// the reference relayer's message-submission schedule (seeds/message-submission-and-retry-
// schedule.txt); the nominal delay before retry number n (1 for the first retry) is:
//
//	retry    nominal delay
//	1        5 s
//	2        10 s
//	3        30 s
//	4        1 min
//	5-24     3 min
//	25-39    5 min, plus 1.5 min per retry after the 25th (5, 6.5, 8, ... 26 min at the 39th)
//	40-44    30 min
//	45-49    1 h
//	50+      1 h x 1.2^(n-49): 1.2 h at the 50th, about 3 h at the 55th, 7.4 h at the 60th,
//	         reaching the cap (24 h by default) at the 67th
//
// The seed's "50+: gradually increases to several hours and eventually days" is made concrete
// by the 1.2 growth and the cap; there is no limit on the number of retries (the caller decides
// when a job is failed for good).
//
// Jitter: Next draws the delay uniformly from [d(1-Jitter), d] where d = min(nominal, Cap), so
// jobs that failed together (one outage) spread out instead of retrying in lock-step, and no
// delay is ever longer than the table or the cap.
type Schedule struct {
	// Cap is the longest delay (default 24h).
	Cap time.Duration
	// Jitter is the fraction of the delay that is random, in (0, 1); zero means the default, 0.2.
	Jitter float64
}

func (s *Schedule) setDefaults() {
	s.Cap = cmp.Or(s.Cap, 24*time.Hour)
	s.Jitter = cmp.Or(s.Jitter, 0.2)
}

// Validate reports a field out of range, after defaults.
func (s Schedule) Validate() error {
	s.setDefaults()
	if s.Cap < 0 {
		return fmt.Errorf("upstream: Schedule.Cap %v: must not be negative", s.Cap)
	}
	if math.IsNaN(s.Jitter) || s.Jitter < 0 || s.Jitter >= 1 {
		return fmt.Errorf("upstream: Schedule.Jitter %v: must be in (0, 1)", s.Jitter)
	}
	return nil
}

// Nominal is the table's delay before retry n, capped, without jitter. n below 1 counts as 1.
func (s Schedule) Nominal(n int) time.Duration {
	s.setDefaults()
	var d time.Duration
	switch {
	case n <= 1:
		d = 5 * time.Second
	case n == 2:
		d = 10 * time.Second
	case n == 3:
		d = 30 * time.Second
	case n == 4:
		d = time.Minute
	case n <= 24:
		d = 3 * time.Minute
	case n <= 39:
		d = 5*time.Minute + time.Duration(n-25)*90*time.Second
	case n <= 44:
		d = 30 * time.Minute
	case n <= 49:
		d = time.Hour
	default:
		f := float64(time.Hour) * math.Pow(1.2, float64(n-49)) // +Inf for huge n, still > cap
		if f >= float64(s.Cap) {
			return s.Cap
		}
		d = time.Duration(f)
	}
	return min(d, s.Cap)
}

// Next is the jittered delay before retry n: uniform in [d(1-Jitter), d] with d = Nominal(n).
// rnd nil uses DefaultRand.
func (s Schedule) Next(n int, rnd Rand) time.Duration {
	s.setDefaults()
	if rnd == nil {
		rnd = DefaultRand()
	}
	d := s.Nominal(n)
	spread := time.Duration(float64(d) * s.Jitter)
	if spread <= 0 {
		return d
	}
	return d - spread + time.Duration(rnd.Int64N(int64(spread)+1))
}
