package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"relayer/eventstore"
)

func appendCases() []testCase {
	return []testCase{
		{name: "versions start at 0 and are gapless", run: testGaplessVersions},
		{name: "an append returns the position of its last event", run: testAppendPosition},
		{name: "an append expecting NoStream creates the stream", run: testNoStreamCreates},
		{name: "an append expecting NoStream fails on an existing stream", run: testNoStreamOnExisting},
		{name: "an append expecting a version fails on a missing stream with Actual NoStream", run: testVersionOnMissing},
		{name: "an append expecting a stale or future version fails with the expected and actual versions", run: testStaleVersion},
		{name: "an append expecting the current version succeeds", run: testCurrentVersion},
		{name: "an append expecting Any appends to a missing or an existing stream", run: testAny},
		{name: "a failed append writes nothing", run: testFailedAppendWritesNothing},
		{name: "an append with an ended context returns its error and writes nothing", run: testAppendWithEndedContext},
		{name: "invalid appends are rejected and change nothing", run: testInvalidAppends},
		{name: "events keep their type, schema version and data", run: testEventRoundTrip},
		{name: "metadata keeps the correlation and causation ids", run: testMetadataIDs},
		{name: "recorded-at is set at commit when zero and kept when given", run: testRecordedAt},
		{name: "streams have independent versions", run: testIndependentStreams},
		{name: "a batch of appends takes positions in the order given, each append checked on its own", run: testAppendBatch},
		{name: "a stream's last version is found, by the store's query or by reads", run: testLastVersion},
	}
}

// testAppendBatch runs for stores that offer eventstore.BatchAppender.
func testAppendBatch(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	ba := offers[eventstore.BatchAppender](t, st, "offer AppendBatch")
	mustAppend(t, ctx, st, "b", eventstore.NoStream, event("created", 0))
	batch := []eventstore.StreamAppend{
		{Stream: "a", Expected: eventstore.NoStream, Events: events("e", 1, 2)},
		{Stream: "b", Expected: 0, Events: events("e", 3, 1)},
		{Stream: "a", Expected: 1, Events: events("e", 4, 1)},             // the same stream again, after its first part
		{Stream: "b", Expected: 5, Events: events("e", 5, 1)},             // a stale expectation: fails alone
		{Stream: "", Expected: eventstore.Any, Events: events("e", 6, 1)}, // invalid: fails alone
		{Stream: "c", Expected: eventstore.Any, Events: events("e", 7, 2)},
	}
	pos, errs := ba.AppendBatch(ctx, batch)
	if len(pos) != len(batch) || len(errs) != len(batch) {
		t.Fatalf("AppendBatch returned %d positions and %d errors for %d appends", len(pos), len(errs), len(batch))
	}
	for i, want := range []bool{true, true, true, false, false, true} {
		if (errs[i] == nil) != want {
			t.Fatalf("invariant: each append of a batch is checked on its own; append %d: %v", i, errs[i])
		}
	}
	if !errors.Is(errs[3], eventstore.ErrWrongExpectedVersion) || !errors.Is(errs[4], eventstore.ErrInvalidEvent) {
		t.Fatalf("the failed appends' errors: %v; %v", errs[3], errs[4])
	}
	if !(pos[0] < pos[1] && pos[1] < pos[2] && pos[2] < pos[5]) {
		t.Fatalf("invariant: a batch's appends take positions in the order given; got %v", pos)
	}
	var got []int
	for _, r := range collect(t, "read all", st.ReadAll(ctx, 0)) {
		got = append(got, numberOf(r.Data))
	}
	if want := []int{0, 1, 2, 3, 4, 7, 8}; !slices.Equal(got, want) {
		t.Fatalf("invariant: the log holds the batch in its order; events %v, want %v", got, want)
	}
	if a := collect(t, "read a", st.ReadStream(ctx, "a", 0)); len(a) != 3 || a[2].Version != 2 {
		t.Fatalf("stream a: %d events", len(a))
	}
}

func testGaplessVersions(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	mustAppend(t, ctx, st, "order-1", eventstore.NoStream, event("created", 0))
	mustAppend(t, ctx, st, "order-1", 0, events("changed", 1, 3)...)
	mustAppend(t, ctx, st, "order-1", eventstore.Any, events("changed", 4, 2)...)
	mustAppend(t, ctx, st, "order-1", 5, event("closed", 6))
	recs := collect(t, "read order-1", st.ReadStream(ctx, "order-1", 0))
	if len(recs) != 7 {
		t.Fatalf("invariant: every appended event is stored; want 7 events in order-1, got %d", len(recs))
	}
	checkStream(t, recs, "order-1", 0)
	for i, r := range recs {
		if n := numberOf(r.Data); n != i {
			t.Fatalf("invariant: a stream keeps its events in append order; version %d holds event %d", r.Version, n)
		}
	}
}

func testAppendPosition(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	p1 := mustAppend(t, ctx, st, "a", eventstore.NoStream, events("e", 0, 3)...)
	p2 := mustAppend(t, ctx, st, "b", eventstore.NoStream, events("e", 3, 2)...)
	recs := collect(t, "read all", st.ReadAll(ctx, 0))
	if len(recs) != 5 {
		t.Fatalf("invariant: ReadAll yields every event; want 5, got %d", len(recs))
	}
	if recs[2].Position != p1 || recs[4].Position != p2 {
		t.Fatalf("invariant: Append returns the position of its last event; got %d and %d, the events are at %d and %d",
			p1, p2, recs[2].Position, recs[4].Position)
	}
	if p1 < 1 {
		t.Fatalf("invariant: positions start after 0; the first append returned %d", p1)
	}
	if h := head(t, ctx, st); h != p2 {
		t.Fatalf("invariant: Head is the position of the last committed event; got %d, want %d", h, p2)
	}
}

func testNoStreamCreates(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	mustAppend(t, ctx, st, "new", eventstore.NoStream, event("e", 0))
	recs := collect(t, "read new", st.ReadStream(ctx, "new", 0))
	if len(recs) != 1 || recs[0].Version != 0 {
		t.Fatalf("invariant: an append expecting NoStream creates the stream at version 0; read %v", recs)
	}
}

func testNoStreamOnExisting(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	mustAppend(t, ctx, st, "s", eventstore.NoStream, events("e", 0, 2)...)
	_, err := st.Append(ctx, "s", eventstore.NoStream, event("e", 2))
	wrongVersion(t, err, "s", eventstore.NoStream, 1)
}

func testVersionOnMissing(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	_, err := st.Append(ctx, "missing", 0, event("e", 0))
	wrongVersion(t, err, "missing", 0, eventstore.NoStream)
	_, err = st.Append(ctx, "missing", 3, event("e", 0))
	wrongVersion(t, err, "missing", 3, eventstore.NoStream)
}

func testStaleVersion(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	mustAppend(t, ctx, st, "s", eventstore.NoStream, events("e", 0, 3)...)
	_, err := st.Append(ctx, "s", 0, event("e", 3))
	wrongVersion(t, err, "s", 0, 2)
	_, err = st.Append(ctx, "s", 1, event("e", 3))
	wrongVersion(t, err, "s", 1, 2)
	_, err = st.Append(ctx, "s", 7, event("e", 3))
	wrongVersion(t, err, "s", 7, 2)
}

func testCurrentVersion(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	mustAppend(t, ctx, st, "s", eventstore.NoStream, event("e", 0))
	for v := range eventstore.Version(5) {
		mustAppend(t, ctx, st, "s", v, event("e", int(v)+1))
	}
	recs := collect(t, "read s", st.ReadStream(ctx, "s", 0))
	if len(recs) != 6 {
		t.Fatalf("invariant: appends expecting the current version all succeed; want 6 events, got %d", len(recs))
	}
	checkStream(t, recs, "s", 0)
}

func testAny(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	mustAppend(t, ctx, st, "s", eventstore.Any, event("e", 0))
	mustAppend(t, ctx, st, "s", eventstore.Any, events("e", 1, 2)...)
	recs := collect(t, "read s", st.ReadStream(ctx, "s", 0))
	if len(recs) != 3 {
		t.Fatalf("invariant: appends expecting Any always succeed; want 3 events, got %d", len(recs))
	}
	checkStream(t, recs, "s", 0)
}

func testAppendWithEndedContext(t *testing.T, s *suite) {
	st := s.fresh(t)
	ended, cancel := context.WithCancel(s.ctx(t))
	cancel()
	if _, err := st.Append(ended, "s", eventstore.NoStream, event("e", 0)); !errors.Is(err, context.Canceled) {
		t.Fatalf("invariant: Append with an ended context returns its error; got %v", err)
	}
	if h := head(t, s.ctx(t), st); h != 0 {
		t.Fatalf("invariant: Append with an ended context writes nothing; head %d", h)
	}
}

func testFailedAppendWritesNothing(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	mustAppend(t, ctx, st, "s", eventstore.NoStream, events("e", 0, 2)...)
	mustAppend(t, ctx, st, "other", eventstore.NoStream, event("e", 100))
	before := collect(t, "read all", st.ReadAll(ctx, 0))
	h := head(t, ctx, st)

	_, err := st.Append(ctx, "s", 0, events("e", 2, 3)...)
	wrongVersion(t, err, "s", 0, 1)
	_, err = st.Append(ctx, "s", eventstore.NoStream, events("e", 2, 3)...)
	wrongVersion(t, err, "s", eventstore.NoStream, 1)

	if got := head(t, ctx, st); got != h {
		t.Fatalf("invariant: a failed append writes nothing; head moved from %d to %d", h, got)
	}
	after := collect(t, "read all", st.ReadAll(ctx, 0))
	if len(after) != len(before) {
		t.Fatalf("invariant: a failed append writes nothing; the log went from %d to %d events", len(before), len(after))
	}
	// The stream still takes the append it expects.
	mustAppend(t, ctx, st, "s", 1, event("e", 2))
	checkStream(t, collect(t, "read s", st.ReadStream(ctx, "s", 0)), "s", 0)
}

func testInvalidAppends(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	mustAppend(t, ctx, st, "s", eventstore.NoStream, event("e", 0))
	h := head(t, ctx, st)
	good := event("e", 1)
	cases := []struct {
		name     string
		stream   string
		expected eventstore.Version
		events   []eventstore.Event
	}{
		{"empty stream name", "", eventstore.Any, []eventstore.Event{good}},
		{"no events", "s", 0, nil},
		{"empty type", "s", 0, []eventstore.Event{{SchemaVersion: 1, Data: json.RawMessage(`{}`)}}},
		{"schema version 0", "s", 0, []eventstore.Event{{Type: "e", Data: json.RawMessage(`{}`)}}},
		{"invalid JSON", "s", 0, []eventstore.Event{{Type: "e", SchemaVersion: 1, Data: json.RawMessage(`{"n":`)}}},
		{"no data", "s", 0, []eventstore.Event{{Type: "e", SchemaVersion: 1}}},
		{"expected version below Any", "s", eventstore.Any - 1, []eventstore.Event{good}},
		{"one invalid event among valid ones", "s", 0, []eventstore.Event{good, {Type: "e", SchemaVersion: 1, Data: json.RawMessage(`nope`)}, good}},
		{"invalid event on a new stream", "fresh", eventstore.NoStream, []eventstore.Event{{Type: "", SchemaVersion: 1, Data: json.RawMessage(`{}`)}}},
	}
	for _, c := range cases {
		_, err := st.Append(ctx, c.stream, c.expected, c.events...)
		if !errors.Is(err, eventstore.ErrInvalidEvent) {
			t.Errorf("invariant: an append with %s is rejected with ErrInvalidEvent; got %v", c.name, err)
		}
	}
	if got := head(t, ctx, st); got != h {
		t.Fatalf("invariant: a rejected append writes nothing; head moved from %d to %d", h, got)
	}
	if recs := collect(t, "read fresh", st.ReadStream(ctx, "fresh", 0)); len(recs) != 0 {
		t.Fatalf("invariant: a rejected append writes nothing; stream fresh has %d events", len(recs))
	}
	if recs := collect(t, "read s", st.ReadStream(ctx, "s", 0)); len(recs) != 1 {
		t.Fatalf("invariant: a rejected append writes nothing; stream s has %d events, want 1", len(recs))
	}
}

func testEventRoundTrip(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	in := []eventstore.Event{
		{Type: "payment.captured", SchemaVersion: 3, Data: json.RawMessage(`{"amount":125000,"currency":"EUR","note":"héllo \"wörld\" ✓","tags":["a","b"],"nested":{"x":null,"y":1.5}}`)},
		{Type: "t", SchemaVersion: 1, Data: json.RawMessage(`[]`)},
		{Type: "t", SchemaVersion: 1, Data: json.RawMessage(`"just a string"`)},
		{Type: "t", SchemaVersion: 1, Data: json.RawMessage(`{}`)},
	}
	mustAppend(t, ctx, st, "round-trip/with:odd chars ✓", eventstore.NoStream, in...)
	recs := collect(t, "read", st.ReadStream(ctx, "round-trip/with:odd chars ✓", 0))
	if len(recs) != len(in) {
		t.Fatalf("invariant: every appended event is stored; want %d, got %d", len(in), len(recs))
	}
	for i, r := range recs {
		if r.Stream != "round-trip/with:odd chars ✓" || r.Type != in[i].Type || r.SchemaVersion != in[i].SchemaVersion || !sameJSON(r.Data, in[i].Data) {
			t.Fatalf("invariant: an event reads back as appended; event %d: got %s %s v%d %s, want %s v%d %s",
				i, r.Stream, r.Type, r.SchemaVersion, r.Data, in[i].Type, in[i].SchemaVersion, in[i].Data)
		}
	}
}

func testMetadataIDs(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	a := event("e", 0)
	a.Metadata = eventstore.Metadata{CorrelationID: "corr-1", CausationID: "cmd-7"}
	b := event("e", 1)
	b.Metadata = eventstore.Metadata{CorrelationID: "corr-1"}
	c := event("e", 2)
	mustAppend(t, ctx, st, "s", eventstore.NoStream, a, b, c)
	recs := collect(t, "read s", st.ReadStream(ctx, "s", 0))
	if len(recs) != 3 {
		t.Fatalf("want 3 events, got %d", len(recs))
	}
	for i, want := range []eventstore.Metadata{a.Metadata, b.Metadata, c.Metadata} {
		got := recs[i].Metadata
		if got.CorrelationID != want.CorrelationID || got.CausationID != want.CausationID {
			t.Fatalf("invariant: metadata reads back as appended; event %d has correlation %q causation %q, want %q %q",
				i, got.CorrelationID, got.CausationID, want.CorrelationID, want.CausationID)
		}
	}
}

func testRecordedAt(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	given := time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.FixedZone("UTC+2", 2*3600))
	withTime := event("e", 1)
	withTime.Metadata.RecordedAt = given
	before := time.Now()
	mustAppend(t, ctx, st, "s", eventstore.NoStream, event("e", 0), withTime)
	after := time.Now()
	recs := collect(t, "read s", st.ReadStream(ctx, "s", 0))
	if len(recs) != 2 {
		t.Fatalf("want 2 events, got %d", len(recs))
	}
	// Allow for a store whose clock is not this process's clock (a database server).
	const skew = 5 * time.Second
	if set := recs[0].Metadata.RecordedAt; set.Before(before.Add(-skew)) || set.After(after.Add(skew)) {
		t.Fatalf("invariant: the store sets recorded-at at commit when it is zero; got %s, the append ran from %s to %s", set, before, after)
	}
	if got := recs[1].Metadata.RecordedAt; !got.Equal(given) {
		t.Fatalf("invariant: a recorded-at given by the caller is kept; got %s, want %s", got, given)
	}
}

func testIndependentStreams(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	mustAppend(t, ctx, st, "a", eventstore.NoStream, event("e", 0))
	mustAppend(t, ctx, st, "b", eventstore.NoStream, events("e", 0, 3)...)
	mustAppend(t, ctx, st, "a", 0, event("e", 1))
	_, err := st.Append(ctx, "a", 2, event("e", 9))
	wrongVersion(t, err, "a", 2, 1)
	mustAppend(t, ctx, st, "b", 2, event("e", 3))
	a := collect(t, "read a", st.ReadStream(ctx, "a", 0))
	b := collect(t, "read b", st.ReadStream(ctx, "b", 0))
	if len(a) != 2 || len(b) != 4 {
		t.Fatalf("invariant: each stream counts its own versions; a has %d events (want 2), b has %d (want 4)", len(a), len(b))
	}
	checkStream(t, a, "a", 0)
	checkStream(t, b, "b", 0)
}
