package api

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

// rateLimit appends events to the rate-limit stream in one batch, as the workers' recorder does,
// and waits until the projections have passed them (they skip them, but their checkpoint moves
// on). It returns the records' positions.
func (e *opEnv) rateLimit(evs ...domain.RateLimitEvent) []eventstore.Position {
	e.t.Helper()
	typed := make([]eventstore.Typed, len(evs))
	for i, ev := range evs {
		typed[i] = ev
	}
	last := appendTo(e.t, e.store, e.set, domain.RateLimitStream, eventstore.Any, typed...)
	var out []eventstore.Position
	for rec, err := range e.store.ReadStream(context.Background(), domain.RateLimitStream, 0) {
		if err != nil {
			e.t.Fatal(err)
		}
		out = append(out, rec.Position)
	}
	out = out[len(out)-len(evs):]
	if out[len(out)-1] != last {
		e.t.Fatalf("the rate-limit stream ends at %d, want %d", out[len(out)-1], last)
	}
	return out
}

// opRateLimitEvent decodes a ratelimit event, checking its name and that its data has no field
// RateLimit does not know.
func opRateLimitEvent(t *testing.T, ev opSSEEvent) RateLimit {
	t.Helper()
	return opEventData[RateLimit](t, ev, "ratelimit")
}

func TestRateLimitEventsComeOnTheTransitionsStreamInLogOrderWithEveryFieldTheLogHas(t *testing.T) {
	env := startOps(t, opsTuning{})
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	limit, remaining := int64(100), int64(0)
	source := "https://rpc.example.com"
	evs := []domain.RateLimitEvent{
		domain.RateLimitEncountered{RateLimitCall: domain.RateLimitCall{Source: source, Instance: "relayer-1", Attempt: 1,
			Class: "rate_limited", Status: 429, WaitMs: 1000, WaitFrom: "Retry-After", Header: "X-RateLimit",
			Limit: &limit, Remaining: &remaining, Reset: at.Add(30 * time.Second), WindowMs: 60_000, At: at}},
		domain.RateLimitBackoff{RateLimitCall: domain.RateLimitCall{Source: source, Attempt: 1, Class: "rate_limited",
			Status: 429, WaitMs: 1200, WaitFrom: "Retry-After", TotalBackoffMs: 1200, ElapsedMs: 3, At: at}},
		domain.RateLimitRecovered{RateLimitCall: domain.RateLimitCall{Source: source, Attempt: 2, Class: "ok", Status: 200,
			TotalBackoffMs: 1200, ElapsedMs: 1210, At: at.Add(1210 * time.Millisecond)}},
		domain.RateLimitGaveUp{RateLimitCall: domain.RateLimitCall{Source: source, Attempt: 1, Class: "rate_limited",
			RPCCode: -32005, WaitMs: 120_000, WaitFrom: "Retry-After", Reason: "time budget exhausted", At: at}},
	}
	st := env.openStream("/v1/transitions")
	id := env.accept(domain.PublicDecrypt, 1)
	accepted := env.head()
	pos := env.rateLimit(evs...)
	env.toProcessing(id, domain.PublicDecrypt)

	if ev := st.event(); ev.Event != "transition" || ev.ID != fmt.Sprint(accepted) {
		t.Fatalf("first %+v, want the acceptance at %d", ev, accepted)
	}
	for i, want := range evs {
		ev := st.event()
		if ev.ID != fmt.Sprint(pos[i]) {
			t.Fatalf("rate-limit event %d has id %s, want its record's position %d", i, ev.ID, pos[i])
		}
		got := opRateLimitEvent(t, ev)
		w := RateLimit{EventType: want.EventType(), Position: uint64(pos[i]), RateLimitCall: want.Call()}
		if !got.At.Equal(w.At) || !got.Reset.Equal(w.Reset) {
			t.Fatalf("%s at %s reset %s, want %s, %s", got.EventType, got.At, got.Reset, w.At, w.Reset)
		}
		got.At, got.Reset, w.At, w.Reset = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if !reflect.DeepEqual(got, w) {
			t.Fatalf("ratelimit data:\ngot  %+v\nwant %+v", got, w)
		}
	}
	if ev := st.event(); ev.Event != "transition" {
		t.Fatalf("after the rate limits %+v, want the job's next transition", ev)
	}
}

func TestRateLimitEventsPassTheJobFiltersAndRateLimitFalseLeavesThemOut(t *testing.T) {
	env := startOps(t, opsTuning{})
	env.accept(domain.PublicDecrypt, 1)
	accepted := env.head()
	rl := env.rateLimit(domain.RateLimitEncountered{RateLimitCall: domain.RateLimitCall{
		Source: "https://rpc.example.com", Attempt: 1, Class: "rate_limited", Status: 429, At: time.Now()}})[0]
	env.poison(env.poisonOf(domain.JobID{}, "", 0, 1))
	poisoned := env.head()

	for _, c := range []struct {
		query string
		want  []eventstore.Position
	}{
		{"", []eventstore.Position{accepted, rl, poisoned}},
		{"kind=input-proof&status=completed", []eventstore.Position{rl, poisoned}},
		{"ratelimit=false", []eventstore.Position{accepted, poisoned}},
		{"ratelimit=true&poison=false", []eventstore.Position{accepted, rl}},
	} {
		t.Run(c.query, func(t *testing.T) {
			st := env.openStream("/v1/transitions?from=0&" + c.query)
			for _, want := range c.want {
				if ev := st.event(); ev.ID != fmt.Sprint(want) {
					t.Fatalf("event %s %s: %s, want id %d", ev.Event, ev.ID, ev.Data, want)
				}
			}
			st.quiet(100 * time.Millisecond)
		})
	}

	env.wantBadFlag("ratelimit")
}
