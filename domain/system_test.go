package domain

import (
	"encoding/json"
	"testing"
	"time"
)

func TestAPoisonedMessageEncodesWithTheFieldNamesTheStreamAndTheWorkersShare(t *testing.T) {
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	full := MessagePoisoned{Topic: "events.RequestAccepted", Handler: "h", Reason: "bad", Stream: "request-x",
		Type: "RequestAccepted", Position: 42, MessageID: "m", At: at}
	b, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"topic":"events.RequestAccepted","handler":"h","reason":"bad","stream":"request-x","eventType":"RequestAccepted","position":42,"messageId":"m","at":"2026-05-01T09:00:00Z"}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var back MessagePoisoned
	if err := json.Unmarshal(b, &back); err != nil || back != full {
		t.Fatalf("round trip: %+v, %v", back, err)
	}

	// A message that carried no event of the log says nothing of one.
	b, _ = json.Marshal(MessagePoisoned{Topic: "gateway.responses", Handler: "h", Reason: "bad", MessageID: "m", At: at})
	if want := `{"topic":"gateway.responses","handler":"h","reason":"bad","messageId":"m","at":"2026-05-01T09:00:00Z"}`; string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	if (MessagePoisoned{}).EventType() != "MessagePoisoned" || PoisonStream != "poison" {
		t.Fatal("the poison stream's name or event type changed: records already written would be lost")
	}
}

func TestRateLimitEventsEncodeFlatWithTheFieldNamesTheStreamAndWatchShare(t *testing.T) {
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	limit, remaining := int64(100), int64(0)
	full := RateLimitEncountered{RateLimitCall{Source: "https://rpc.example.com", Instance: "relayer-1", Attempt: 1,
		Class: "rate_limited", Status: 429, RPCCode: -32005, WaitMs: 1000, WaitFrom: "Retry-After", Header: "X-RateLimit",
		Policy: "default", Limit: &limit, Remaining: &remaining, Reset: at.Add(30 * time.Second), WindowMs: 60000,
		TotalBackoffMs: 250, ElapsedMs: 12, At: at}}
	b, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"source":"https://rpc.example.com","instance":"relayer-1","attempt":1,"class":"rate_limited","status":429,` +
		`"rpcCode":-32005,"waitMs":1000,"waitFrom":"Retry-After","header":"X-RateLimit","policy":"default","limit":100,` +
		`"remaining":0,"reset":"2026-05-01T09:00:30Z","windowMs":60000,"totalBackoffMs":250,"elapsedMs":12,"at":"2026-05-01T09:00:00Z"}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var back RateLimitEncountered
	if err := json.Unmarshal(b, &back); err != nil || *back.Limit != 100 || *back.Remaining != 0 || back.Source != full.Source ||
		!back.Reset.Equal(full.Reset) || back.WaitFrom != "Retry-After" {
		t.Fatalf("round trip: %+v, %v", back, err)
	}

	// What was not stated is left out: a quota nobody told, a backoff of the relayer's own.
	b, _ = json.Marshal(RateLimitGaveUp{RateLimitCall{Source: "https://rpc.example.com", Attempt: 5, Class: "rate_limited",
		Status: 429, Reason: "attempts exhausted", At: at}})
	if want := `{"source":"https://rpc.example.com","attempt":5,"class":"rate_limited","status":429,"totalBackoffMs":0,` +
		`"elapsedMs":0,"reason":"attempts exhausted","at":"2026-05-01T09:00:00Z"}`; string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}

	for ev, name := range map[RateLimitEvent]string{RateLimitEncountered{}: "RateLimitEncountered", RateLimitBackoff{}: "RateLimitBackoff",
		RateLimitRecovered{}: "RateLimitRecovered", RateLimitGaveUp{}: "RateLimitGaveUp"} {
		if ev.EventType() != name {
			t.Errorf("%T is %q, want %q: records already written would be lost", ev, ev.EventType(), name)
		}
	}
	if RateLimitStream != "ratelimit" {
		t.Fatal("the rate-limit stream's name changed: records already written would be lost")
	}
}
