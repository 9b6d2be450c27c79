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
