package eventstore_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"relayer/eventstore"
)

type itemAdded struct {
	SKU string `json:"sku"`
	Qty int    `json:"qty"`
}

func (itemAdded) EventType() string { return "ItemAdded" }

type itemRemoved struct {
	SKU string `json:"sku"`
}

func (itemRemoved) EventType() string { return "ItemRemoved" }

func newCodec(t *testing.T, addedVersion int) *eventstore.Codec {
	t.Helper()
	c := eventstore.NewCodec()
	if err := eventstore.Register[itemAdded](c, addedVersion); err != nil {
		t.Fatal(err)
	}
	if err := eventstore.Register[itemRemoved](c, 1); err != nil {
		t.Fatal(err)
	}
	return c
}

func record(typ string, schema int, data string) eventstore.Record {
	return eventstore.Record{Stream: "cart-1", Version: 4, Position: 99, Type: typ, SchemaVersion: schema, Data: json.RawMessage(data)}
}

func TestAnEncodedEventDecodesToTheSameValue(t *testing.T) {
	c := newCodec(t, 1)
	md := eventstore.Metadata{CorrelationID: "corr", CausationID: "cause"}
	ev, err := c.Encode(itemAdded{SKU: "a", Qty: 2}, md)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Type != "ItemAdded" || ev.SchemaVersion != 1 || ev.Metadata != md {
		t.Fatalf("encoded event = %+v", ev)
	}
	got, err := c.Decode(eventstore.Record{Type: ev.Type, SchemaVersion: ev.SchemaVersion, Data: ev.Data})
	if err != nil {
		t.Fatal(err)
	}
	if got != (itemAdded{SKU: "a", Qty: 2}) {
		t.Fatalf("decoded %#v", got)
	}
}

func TestEncodingAnUnregisteredTypeFails(t *testing.T) {
	c := eventstore.NewCodec()
	if _, err := c.Encode(itemAdded{}, eventstore.Metadata{}); !errors.Is(err, eventstore.ErrUnknownEventType) {
		t.Fatalf("err = %v, want ErrUnknownEventType", err)
	}
}

func TestRegisteringATypeTwiceOrWithoutAVersionFails(t *testing.T) {
	c := newCodec(t, 1)
	if err := eventstore.Register[itemAdded](c, 1); err == nil {
		t.Fatal("second registration of ItemAdded accepted")
	}
	if err := eventstore.Register[itemAdded](eventstore.NewCodec(), 0); err == nil {
		t.Fatal("schema version 0 accepted")
	}
}

// decodeFails checks that a bad record gives a RecordError naming its stream, version and
// position and wrapping want.
func decodeFails(t *testing.T, c *eventstore.Codec, r eventstore.Record, want error) {
	t.Helper()
	_, err := c.Decode(r)
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
	var re *eventstore.RecordError
	if !errors.As(err, &re) || re.Stream != r.Stream || re.Version != r.Version || re.Position != r.Position {
		t.Fatalf("err = %#v, want a RecordError naming %s@%d position %d", err, r.Stream, r.Version, r.Position)
	}
	for _, s := range []string{"cart-1", "@4", "position 99"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %q", err, s)
		}
	}
}

func TestAnUnknownEventTypeIsAnErrorNamingTheEvent(t *testing.T) {
	decodeFails(t, newCodec(t, 1), record("ItemShipped", 1, `{}`), eventstore.ErrUnknownEventType)
}

func TestANewerSchemaVersionIsAnError(t *testing.T) {
	decodeFails(t, newCodec(t, 1), record("ItemAdded", 2, `{"sku":"a"}`), eventstore.ErrUnknownSchemaVersion)
	decodeFails(t, newCodec(t, 1), record("ItemAdded", 0, `{"sku":"a"}`), eventstore.ErrUnknownSchemaVersion)
}

func TestCorruptDataIsAnError(t *testing.T) {
	decodeFails(t, newCodec(t, 1), record("ItemAdded", 1, `{"sku":`), eventstore.ErrCorruptRecord)
	decodeFails(t, newCodec(t, 1), record("ItemAdded", 1, `{"qty":"many"}`), eventstore.ErrCorruptRecord)
}

func TestOldSchemaVersionsAreUpcastStepByStep(t *testing.T) {
	c := newCodec(t, 3)
	// v1 had "item" instead of "sku"; v2 had no quantity (it was always 1).
	must(t, c.Upcast("ItemAdded", 1, func(d json.RawMessage) (json.RawMessage, error) {
		var v1 struct{ Item string }
		if err := json.Unmarshal(d, &v1); err != nil {
			return nil, err
		}
		return json.Marshal(map[string]string{"sku": v1.Item})
	}))
	must(t, c.Upcast("ItemAdded", 2, func(d json.RawMessage) (json.RawMessage, error) {
		var v2 map[string]any
		if err := json.Unmarshal(d, &v2); err != nil {
			return nil, err
		}
		v2["qty"] = 1
		return json.Marshal(v2)
	}))
	got, err := c.Decode(record("ItemAdded", 1, `{"item":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got != (itemAdded{SKU: "x", Qty: 1}) {
		t.Fatalf("upcast v1 = %#v", got)
	}
	got, err = c.Decode(record("ItemAdded", 2, `{"sku":"y"}`))
	if err != nil || got != (itemAdded{SKU: "y", Qty: 1}) {
		t.Fatalf("upcast v2 = %#v, %v", got, err)
	}
}

func TestAMissingUpcasterIsAnError(t *testing.T) {
	c := newCodec(t, 3)
	must(t, c.Upcast("ItemAdded", 2, func(d json.RawMessage) (json.RawMessage, error) { return d, nil }))
	decodeFails(t, c, record("ItemAdded", 1, `{}`), eventstore.ErrUnknownSchemaVersion)
}

func TestAFailingUpcasterIsAnError(t *testing.T) {
	c := newCodec(t, 2)
	must(t, c.Upcast("ItemAdded", 1, func(json.RawMessage) (json.RawMessage, error) { return nil, errors.New("no") }))
	decodeFails(t, c, record("ItemAdded", 1, `{}`), eventstore.ErrCorruptRecord)
}

func TestAnUpcasterMustStepFromAnOlderVersion(t *testing.T) {
	c := newCodec(t, 2)
	if err := c.Upcast("ItemAdded", 2, nil); err == nil {
		t.Fatal("upcaster from the current version accepted")
	}
	if err := c.Upcast("Nope", 1, nil); !errors.Is(err, eventstore.ErrUnknownEventType) {
		t.Fatalf("upcaster for an unknown type: %v", err)
	}
}

func TestExpectedVersionRules(t *testing.T) {
	cases := []struct {
		title            string
		expected, actual eventstore.Version
		ok               bool
	}{
		{"NoStream matches an empty stream", eventstore.NoStream, eventstore.NoStream, true},
		{"NoStream fails on an existing stream", eventstore.NoStream, 0, false},
		{"Any matches an empty stream", eventstore.Any, eventstore.NoStream, true},
		{"Any matches any version", eventstore.Any, 7, true},
		{"an exact version matches itself", 3, 3, true},
		{"an exact version fails on an older stream", 3, 2, false},
		{"an exact version fails on a newer stream", 3, 4, false},
		{"an exact version fails on an empty stream", 0, eventstore.NoStream, false},
	}
	for _, tc := range cases {
		t.Run(tc.title, func(t *testing.T) {
			err := eventstore.CheckExpected("s", tc.expected, tc.actual)
			if (err == nil) != tc.ok {
				t.Fatalf("CheckExpected(%s, %s) = %v", tc.expected, tc.actual, err)
			}
			if err != nil {
				var we *eventstore.WrongExpectedVersionError
				if !errors.Is(err, eventstore.ErrWrongExpectedVersion) || !errors.As(err, &we) || we.Expected != tc.expected || we.Actual != tc.actual || we.Stream != "s" {
					t.Fatalf("error %#v does not carry stream, expected and actual", err)
				}
			}
		})
	}
}

func TestInvalidAppendsAreRejectedWithTheReason(t *testing.T) {
	ok := eventstore.Event{Type: "T", SchemaVersion: 1, Data: json.RawMessage(`{}`)}
	cases := []struct {
		title    string
		stream   string
		expected eventstore.Version
		events   []eventstore.Event
		want     string
	}{
		{"an empty stream name", "", eventstore.Any, []eventstore.Event{ok}, "empty stream name"},
		{"no events", "s", eventstore.Any, nil, "no events"},
		{"an expected version below Any", "s", -3, []eventstore.Event{ok}, "not a version"},
		{"an event without a type", "s", eventstore.Any, []eventstore.Event{{SchemaVersion: 1, Data: json.RawMessage(`{}`)}}, "no type"},
		{"an event without a schema version", "s", eventstore.Any, []eventstore.Event{{Type: "T", Data: json.RawMessage(`{}`)}}, "schema version"},
		{"an event with invalid JSON", "s", eventstore.Any, []eventstore.Event{{Type: "T", SchemaVersion: 1, Data: json.RawMessage(`{`)}}, "invalid JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.title, func(t *testing.T) {
			err := eventstore.ValidateAppend(tc.stream, tc.expected, tc.events)
			if !errors.Is(err, eventstore.ErrInvalidEvent) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrInvalidEvent mentioning %q", err, tc.want)
			}
		})
	}
	if err := eventstore.ValidateAppend("s", eventstore.NoStream, []eventstore.Event{ok}); err != nil {
		t.Fatalf("a valid append was rejected: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
