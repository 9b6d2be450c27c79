package config

import (
	"testing"
	"time"
)

func TestProblemsAreListedInTheOrderTheyWereFound(t *testing.T) {
	var ps Problems
	ps.Add("a", "is %d, want %s", 3, "less")
	ps.Add("b.c", "is not set")
	want := Problems{{Field: "a", Issue: "is 3, want less"}, {Field: "b.c", Issue: "is not set"}}
	if len(ps) != len(want) || ps[0] != want[0] || ps[1] != want[1] {
		t.Fatalf("got %v, want %v", ps, want)
	}
}

func TestADurationOutsideItsBoundsIsAProblemAndOneInsideIsNot(t *testing.T) {
	var ps Problems
	ps.Duration("low", 0, time.Millisecond, time.Hour)
	ps.Duration("at_lo", time.Millisecond, time.Millisecond, time.Hour)
	ps.Duration("at_hi", time.Hour, time.Millisecond, time.Hour)
	ps.Duration("high", 2*time.Hour, time.Millisecond, time.Hour)
	want := Problems{
		{Field: "low", Issue: "must be a duration from 1ms to 1h0m0s, got 0s"},
		{Field: "high", Issue: "must be a duration from 1ms to 1h0m0s, got 2h0m0s"},
	}
	if len(ps) != len(want) || ps[0] != want[0] || ps[1] != want[1] {
		t.Fatalf("got %v, want %v", ps, want)
	}
}

func TestInlineSeparatesProblemsWithSemicolons(t *testing.T) {
	ps := []Problem{{Field: "rpc_url", Issue: "has no host"}, {Field: "chain_id", Issue: "is 0"}}
	if got, want := Inline("gateway: ", ps), "gateway: rpc_url: has no host; chain_id: is 0"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestLinesPutsEachProblemOnAnIndentedLineOfItsOwn(t *testing.T) {
	ps := []Problem{{Field: "api.max_streams", Issue: "must be 1 <= value"}, {Field: "admin_token", Issue: "is short"}}
	got := Lines("invalid API configuration:", ps)
	want := "invalid API configuration:\n  api.max_streams: must be 1 <= value\n  admin_token: is short"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
