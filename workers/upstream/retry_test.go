package upstream

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAZeroConfigIsValidAndTakesTheDefaults(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig()
	want := Config{MaxAttempts: 5, MaxElapsed: time.Minute, BaseDelay: 250 * time.Millisecond,
		RateLimitBaseDelay: time.Second, MaxDelay: 20 * time.Second, Multiplier: 2, Jitter: FullJitter,
		MaxServerWait: 24 * time.Hour, MaxReplayBody: 8 << 20, MaxInspectBody: 1 << 20}
	if c != want {
		t.Fatalf("DefaultConfig = %+v", c)
	}
}

func TestAConfigOutOfRangeIsRejectedNamingTheField(t *testing.T) {
	cases := map[string]Config{
		"MaxAttempts":        {MaxAttempts: -1},
		"MaxElapsed":         {MaxElapsed: -time.Second},
		"BaseDelay":          {BaseDelay: -time.Second},
		"RateLimitBaseDelay": {RateLimitBaseDelay: -time.Second},
		"MaxDelay":           {MaxDelay: -time.Second},
		"above MaxDelay":     {BaseDelay: time.Minute, MaxDelay: time.Second},
		"Multiplier":         {Multiplier: 0.5},
		"Jitter":             {Jitter: "none"},
		"MaxServerWait":      {MaxServerWait: -time.Second},
		"MaxReplayBody":      {MaxReplayBody: -1},
		"MaxInspectBody":     {MaxInspectBody: -1},
	}
	for field, c := range cases {
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("Validate(%+v) = %v, want an error naming %s", c, err, field)
		}
		if _, err := NewRetrier(c); err == nil {
			t.Errorf("NewRetrier accepted %+v", c)
		}
	}
	if err := (Config{Multiplier: math.NaN()}).Validate(); err == nil {
		t.Error("a NaN multiplier was accepted")
	}
}

func TestBackoffGrowsByTheMultiplierUpToTheCap(t *testing.T) {
	c := Config{BaseDelay: time.Second, RateLimitBaseDelay: 2 * time.Second, MaxDelay: 10 * time.Second, Multiplier: 3}
	var got, gotRL []time.Duration
	for n := 1; n <= 5; n++ {
		got = append(got, c.Backoff(n, ServerError, maxRand{}))
		gotRL = append(gotRL, c.Backoff(n, RateLimited, maxRand{}))
	}
	want := []time.Duration{time.Second, 3 * time.Second, 9 * time.Second, 10 * time.Second, 10 * time.Second}
	wantRL := []time.Duration{2 * time.Second, 6 * time.Second, 10 * time.Second, 10 * time.Second, 10 * time.Second}
	if !slices.Equal(got, want) || !slices.Equal(gotRL, wantRL) {
		t.Fatalf("backoff = %v and %v, want %v and %v", got, gotRL, want, wantRL)
	}
	if d := c.Backoff(10000, ServerError, maxRand{}); d != 10*time.Second {
		t.Fatalf("a huge attempt number must stay at the cap, got %v", d)
	}
}

func TestFullJitterSpansZeroToTheDelayAndEqualJitterItsUpperHalf(t *testing.T) {
	full := Config{BaseDelay: time.Second, MaxDelay: time.Minute}
	equal := full
	equal.Jitter = EqualJitter
	if d := full.Backoff(3, ServerError, zeroRand{}); d != 0 {
		t.Errorf("full jitter, lowest draw = %v", d)
	}
	if d := full.Backoff(3, ServerError, maxRand{}); d != 4*time.Second {
		t.Errorf("full jitter, highest draw = %v", d)
	}
	if d := equal.Backoff(3, ServerError, zeroRand{}); d != 2*time.Second {
		t.Errorf("equal jitter, lowest draw = %v", d)
	}
	if d := equal.Backoff(3, ServerError, maxRand{}); d != 4*time.Second {
		t.Errorf("equal jitter, highest draw = %v", d)
	}
}

func TestTheDefaultJitterIsReallyRandom(t *testing.T) {
	for _, mode := range []Jitter{FullJitter, EqualJitter} {
		c := Config{BaseDelay: time.Second, MaxDelay: time.Minute, Jitter: mode}
		lo := time.Duration(0)
		if mode == EqualJitter {
			lo = 2 * time.Second
		}
		seen := map[time.Duration]bool{}
		var sum time.Duration
		const draws = 2000
		for i := 0; i < draws; i++ {
			d := c.Backoff(3, ServerError, nil)
			if d < lo || d > 4*time.Second {
				t.Fatalf("%s jitter drew %v, outside [%v, 4s]", mode, d, lo)
			}
			seen[d] = true
			sum += d
		}
		if len(seen) < draws*9/10 {
			t.Fatalf("%s jitter: only %d distinct values in %d draws", mode, len(seen), draws)
		}
		mean := sum / draws
		mid := (lo + 4*time.Second) / 2
		if mean < mid-300*time.Millisecond || mean > mid+300*time.Millisecond {
			t.Fatalf("%s jitter: mean %v, want about %v", mode, mean, mid)
		}
	}
}

func TestASeededRandomSourceMakesTheJitterReproducible(t *testing.T) {
	c := Config{BaseDelay: time.Second, MaxDelay: time.Minute}
	a := rand.New(rand.NewPCG(1, 2))
	b := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 6; n++ {
		if x, y := c.Backoff(n, ServerError, a), c.Backoff(n, ServerError, b); x != y {
			t.Fatalf("attempt %d: %v != %v", n, x, y)
		}
	}
}

// outcomes plays a fixed list of outcomes, one per attempt, and counts the attempts.
func outcomes(list ...Outcome) (func(context.Context, int) Outcome, *int) {
	calls := 0
	return func(_ context.Context, n int) Outcome {
		calls++
		if n > len(list) {
			return list[len(list)-1]
		}
		return list[n-1]
	}, &calls
}

var errHTTP = errors.New("HTTP failure")

func TestServerErrorsAreRetriedWithGrowingWaitsThenTheCallGivesUp(t *testing.T) {
	clock, sink := newFakeClock(), &recordingSink{}
	r := mustRetrier(t, Config{MaxAttempts: 4}, WithClock(clock), WithRand(maxRand{}), WithSink(sink))
	op, calls := outcomes(Outcome{Class: ServerError, StatusCode: 502, Err: errHTTP})
	err := r.Do(context.Background(), "http://node", op)
	var e *Error
	if !errors.As(err, &e) || e.Reason != ReasonAttempts || e.Attempts != 4 || e.Class != ServerError {
		t.Fatalf("Do = %v", err)
	}
	if !errors.Is(err, errHTTP) {
		t.Fatal("the error must unwrap to the last attempt's error")
	}
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}
	if *calls != 4 || !slices.Equal(clock.Sleeps(), want) || e.Waited != 1750*time.Millisecond {
		t.Fatalf("calls %d, sleeps %v, waited %v; want 4, %v", *calls, clock.Sleeps(), e.Waited, want)
	}
	if len(sink.Events()) != 0 {
		t.Fatalf("server errors are not rate limits, but got %v", sink.Types())
	}
}

func TestARateLimitedCallReportsEachRefusalAndWaitThenItsRecovery(t *testing.T) {
	clock, sink := newFakeClock(), &recordingSink{}
	r := mustRetrier(t, Config{}, WithClock(clock), WithRand(maxRand{}), WithSink(sink))
	limited := Outcome{Class: RateLimited, StatusCode: 429, Err: errHTTP,
		Info: ParseRateLimit(header("X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "3"), t0)}
	op, calls := outcomes(limited, Outcome{Class: RateLimited, StatusCode: 429, Err: errHTTP}, Outcome{Class: OK, StatusCode: 200})
	if err := r.Do(context.Background(), "https://rpc.example", op); err != nil {
		t.Fatal(err)
	}
	// The first wait is the server's 3 s plus up to BaseDelay; the second, without a hint, is
	// the rate-limit backoff for attempt 2 (1 s x 2).
	wantSleeps := []time.Duration{3*time.Second + 250*time.Millisecond, 2 * time.Second}
	if *calls != 3 || !slices.Equal(clock.Sleeps(), wantSleeps) {
		t.Fatalf("calls %d, sleeps %v; want 3, %v", *calls, clock.Sleeps(), wantSleeps)
	}
	wantTypes := []EventType{RateLimitEncountered, RateLimitBackoff, RateLimitEncountered, RateLimitBackoff, RateLimitRecovered}
	if !slices.Equal(sink.Types(), wantTypes) {
		t.Fatalf("events %v, want %v", sink.Types(), wantTypes)
	}
	ev := sink.Events()
	enc := ev[0]
	if enc.Source != "https://rpc.example" || enc.Attempt != 1 || enc.StatusCode != 429 || enc.Limit != 10 ||
		enc.Remaining != 0 || !enc.Reset.Equal(t0.Add(3*time.Second)) || enc.Wait != 3*time.Second ||
		!enc.ServerWait || enc.WaitFrom != HeaderXRateLimit || enc.Header != HeaderXRateLimit || !enc.At.Equal(t0) {
		t.Errorf("Encountered = %+v", enc)
	}
	if b := ev[1]; b.Attempt != 1 || b.Wait != wantSleeps[0] || !b.ServerWait || b.TotalBackoff != wantSleeps[0] {
		t.Errorf("first Backoff = %+v", b)
	}
	if e := ev[2]; e.Attempt != 2 || e.ServerWait || e.Limit != Unknown || e.Remaining != Unknown || !e.Reset.IsZero() {
		t.Errorf("second Encountered = %+v", e)
	}
	if b := ev[3]; b.Attempt != 2 || b.Wait != wantSleeps[1] || b.ServerWait || b.TotalBackoff != wantSleeps[0]+wantSleeps[1] {
		t.Errorf("second Backoff = %+v", b)
	}
	total := wantSleeps[0] + wantSleeps[1]
	if rec := ev[4]; rec.Attempt != 3 || rec.Class != OK || rec.TotalBackoff != total || rec.Elapsed != total {
		t.Errorf("Recovered = %+v", rec)
	}
}

func TestEveryWaitAfterARateLimitIsReportedWhateverFailedNext(t *testing.T) {
	clock, sink := newFakeClock(), &recordingSink{}
	r := mustRetrier(t, Config{}, WithClock(clock), WithRand(maxRand{}), WithSink(sink))
	op, _ := outcomes(Outcome{Class: RateLimited}, Outcome{Class: ServerError, StatusCode: 503}, Outcome{Class: OK})
	if err := r.Do(context.Background(), "s", op); err != nil {
		t.Fatal(err)
	}
	want := []EventType{RateLimitEncountered, RateLimitBackoff, RateLimitBackoff, RateLimitRecovered}
	if !slices.Equal(sink.Types(), want) {
		t.Fatalf("events %v, want %v", sink.Types(), want)
	}
	if b := sink.Events()[2]; b.Class != ServerError || b.StatusCode != 503 {
		t.Fatalf("second Backoff = %+v", b)
	}
}

func TestAPermanentFailureIsNotRetried(t *testing.T) {
	clock := newFakeClock()
	r := mustRetrier(t, Config{}, WithClock(clock))
	op, calls := outcomes(Outcome{Class: Permanent, StatusCode: 400, Err: errHTTP})
	err := r.Do(context.Background(), "s", op)
	var e *Error
	if !errors.As(err, &e) || e.Reason != ReasonNotRetryable || *calls != 1 || len(clock.Sleeps()) != 0 {
		t.Fatalf("Do = %v after %d calls, sleeps %v", err, *calls, clock.Sleeps())
	}
}

func TestAServerWaitBeyondTheTimeBudgetEndsTheCallAtOnce(t *testing.T) {
	clock, sink := newFakeClock(), &recordingSink{}
	r := mustRetrier(t, Config{MaxElapsed: time.Minute}, WithClock(clock), WithRand(maxRand{}), WithSink(sink))
	op, calls := outcomes(Outcome{Class: RateLimited, StatusCode: 429, Info: ParseRateLimit(header("Retry-After", "3600"), t0)})
	err := r.Do(context.Background(), "s", op)
	var e *Error
	if !errors.As(err, &e) || e.Reason != ReasonElapsed || !e.HasServerWait || e.ServerWait != time.Hour || e.ServerWaitFrom != HeaderRetryAfter {
		t.Fatalf("Do = %#v", err)
	}
	if *calls != 1 || len(clock.Sleeps()) != 0 {
		t.Fatalf("calls %d, sleeps %v", *calls, clock.Sleeps())
	}
	want := []EventType{RateLimitEncountered, RateLimitGaveUp}
	if !slices.Equal(sink.Types(), want) {
		t.Fatalf("events %v, want %v", sink.Types(), want)
	}
	if g := sink.Events()[1]; g.Reason != ReasonElapsed || g.Wait != time.Hour+250*time.Millisecond || !g.ServerWait || g.Attempt != 1 {
		t.Fatalf("GaveUp = %+v", g)
	}
}

func TestAServerWaitIsCappedAtMaxServerWait(t *testing.T) {
	r := mustRetrier(t, Config{MaxServerWait: 2 * time.Hour}, WithClock(newFakeClock()))
	op, _ := outcomes(Outcome{Class: RateLimited, Info: ParseRateLimit(header("Retry-After", "99999999999999999999999"), t0)})
	var e *Error
	if err := r.Do(context.Background(), "s", op); !errors.As(err, &e) || e.ServerWait != 2*time.Hour {
		t.Fatalf("Do = %v", err)
	}
}

func TestTheTimeBudgetStopsTheRetriesBeforeTheAttempts(t *testing.T) {
	clock := newFakeClock()
	r := mustRetrier(t, Config{MaxAttempts: 100, MaxElapsed: 10 * time.Second, BaseDelay: time.Second,
		MaxDelay: 4 * time.Second}, WithClock(clock), WithRand(maxRand{}))
	op, calls := outcomes(Outcome{Class: TransportError})
	err := r.Do(context.Background(), "s", op)
	var e *Error
	// Waits 1 + 2 + 4 = 7 s; the next 4 s would end at 11 s, past the budget.
	if !errors.As(err, &e) || e.Reason != ReasonElapsed || *calls != 4 || e.Elapsed != 7*time.Second {
		t.Fatalf("Do = %v after %d calls", err, *calls)
	}
	var total time.Duration
	for _, d := range clock.Sleeps() {
		total += d
	}
	if total > 10*time.Second {
		t.Fatalf("slept %v, beyond the budget", total)
	}
}

func TestAWaitPastTheContextDeadlineIsNotStarted(t *testing.T) {
	// The deadline is real, so the fake clock starts at the real time.
	clock := newFakeClock()
	clock.now = time.Now()
	r := mustRetrier(t, Config{MaxElapsed: 24 * time.Hour}, WithClock(clock), WithRand(maxRand{}))
	ctx, cancel := context.WithDeadline(context.Background(), clock.now.Add(time.Hour))
	defer cancel()
	op, calls := outcomes(Outcome{Class: RateLimited, Info: ParseRateLimit(header("Retry-After", "7200"), clock.now)})
	err := r.Do(ctx, "s", op)
	var e *Error
	if !errors.As(err, &e) || e.Reason != ReasonDeadline || *calls != 1 || len(clock.Sleeps()) != 0 {
		t.Fatalf("Do = %v after %d calls, sleeps %v", err, *calls, clock.Sleeps())
	}
}

func TestCancellingDuringAWaitEndsTheCall(t *testing.T) {
	clock, sink := newFakeClock(), &recordingSink{}
	ctx, cancel := context.WithCancel(context.Background())
	clock.onSleep = func(time.Duration) { cancel() }
	r := mustRetrier(t, Config{}, WithClock(clock), WithSink(sink))
	op, calls := outcomes(Outcome{Class: RateLimited, Err: errHTTP})
	err := r.Do(ctx, "s", op)
	var e *Error
	if !errors.As(err, &e) || e.Reason != ReasonCanceled || e.Class != Canceled || *calls != 1 {
		t.Fatalf("Do = %v after %d calls", err, *calls)
	}
	if !errors.Is(err, context.Canceled) || !errors.Is(err, errHTTP) {
		t.Fatal("the error must unwrap to the cancellation and to the last failure")
	}
	want := []EventType{RateLimitEncountered, RateLimitBackoff, RateLimitGaveUp}
	if !slices.Equal(sink.Types(), want) {
		t.Fatalf("events %v, want %v", sink.Types(), want)
	}
}

func TestACanceledContextMakesNoAttempt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := mustRetrier(t, Config{}, WithClock(newFakeClock()))
	op, calls := outcomes(Outcome{Class: OK})
	err := r.Do(ctx, "s", op)
	if !errors.Is(err, context.Canceled) || *calls != 0 {
		t.Fatalf("Do = %v after %d calls", err, *calls)
	}
}

func TestAnAttemptThatFailsBecauseTheContextEndedIsNotRetried(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := mustRetrier(t, Config{}, WithClock(newFakeClock()))
	calls := 0
	err := r.Do(ctx, "s", func(context.Context, int) Outcome {
		calls++
		cancel()
		return Outcome{Class: TransportError, Err: errors.New("connection reset")}
	})
	var e *Error
	if !errors.As(err, &e) || e.Reason != ReasonCanceled || calls != 1 || !errors.Is(err, context.Canceled) {
		t.Fatalf("Do = %v after %d calls", err, calls)
	}
}

func TestTheRealClockSleepsAndStopsWhenTheContextEnds(t *testing.T) {
	c := RealClock()
	start := time.Now()
	if err := c.Sleep(context.Background(), 5*time.Millisecond); err != nil || time.Since(start) < 5*time.Millisecond {
		t.Fatalf("Sleep = %v after %v", err, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start = time.Now()
	if err := c.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Fatalf("Sleep = %v after %v", err, time.Since(start))
	}
	if err := c.Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep(0) on a canceled context = %v", err)
	}
}

func TestTheErrorNamesTheSourceTheClassAndTheReason(t *testing.T) {
	e := &Error{Source: "https://rpc.example", Class: RateLimited, Reason: ReasonAttempts, Attempts: 5,
		ServerWait: 3 * time.Second, HasServerWait: true, Err: errHTTP}
	want := "upstream https://rpc.example: rate_limited after 5 attempt(s), attempts exhausted (server asked to wait 3s): HTTP failure"
	if e.Error() != want {
		t.Fatalf("got %q\nwant %q", e.Error(), want)
	}
}
