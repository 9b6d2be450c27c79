package sqlite

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"relayer/eventstore"
	"relayer/eventstore/storetest"
)

// tailRecs makes n records at positions from, from+1, ... with data of size bytes each.
func tailRecs(from eventstore.Position, n, size int) []eventstore.Record {
	out := make([]eventstore.Record, n)
	for i := range out {
		out[i] = eventstore.Record{Stream: "s", Position: from + eventstore.Position(i), Data: make(json.RawMessage, size)}
	}
	return out
}

// tailAfter returns the positions t.after gives after last, and whether it covered last.
func tailAfter(t *tail, last eventstore.Position, limit int) ([]eventstore.Position, bool) {
	var p page
	covered := t.after(last, limit, &p)
	var out []eventstore.Position
	for _, r := range p.Rows {
		out = append(out, r.Rec.Position)
	}
	return out, covered
}

func TestTailHoldsConsecutivePositionsAndStartsOverAtAGap(t *testing.T) {
	var tl tail
	if got, covered := tailAfter(&tl, 0, 10); covered || got != nil {
		t.Fatalf("an empty tail covers nothing; got %v, %v", got, covered)
	}
	tl.add(tailRecs(5, 3, 1)) // 5, 6, 7
	tl.add(tailRecs(8, 2, 1)) // 8, 9
	for _, c := range []struct {
		last    eventstore.Position
		limit   int
		want    []eventstore.Position
		covered bool
	}{
		{3, 10, nil, false}, // 4 is not in the tail: read the file
		{4, 10, []eventstore.Position{5, 6, 7, 8, 9}, true},
		{6, 2, []eventstore.Position{7, 8}, true}, // at most limit
		{9, 10, nil, true},   // at the end: nothing new from this writer
		{10, 10, nil, false}, // beyond it (another process's events were read)
	} {
		got, covered := tailAfter(&tl, c.last, c.limit)
		if covered != c.covered || !reflect.DeepEqual(got, c.want) {
			t.Errorf("after %d (limit %d): got %v covered %v, want %v covered %v", c.last, c.limit, got, covered, c.want, c.covered)
		}
	}
	tl.add(tailRecs(12, 1, 1)) // 10 and 11 were another writer's: start over at 12
	if got, covered := tailAfter(&tl, 9, 10); covered || got != nil {
		t.Errorf("after a gap the tail no longer covers what came before it; got %v, %v", got, covered)
	}
	if got, covered := tailAfter(&tl, 11, 10); !covered || !reflect.DeepEqual(got, []eventstore.Position{12}) {
		t.Errorf("after a gap the tail starts at the new batch; got %v, %v", got, covered)
	}
	tl.reset()
	if got, covered := tailAfter(&tl, 11, 10); covered || got != nil {
		t.Errorf("a reset tail covers nothing; got %v, %v", got, covered)
	}
}

func TestTailKeepsItsBounds(t *testing.T) {
	var tl tail
	for i := range 3 {
		tl.add(tailRecs(eventstore.Position(1+i*maxTailEvents), maxTailEvents, 1))
	}
	if len(tl.recs) != maxTailEvents || tl.recs[0].Position != 2*maxTailEvents+1 {
		t.Fatalf("the tail keeps the last %d events; holds %d from %d", maxTailEvents, len(tl.recs), tl.recs[0].Position)
	}
	if _, covered := tailAfter(&tl, 2*maxTailEvents-1, 1); covered {
		t.Error("a subscriber behind the tail's start reads the file")
	}

	var big tail
	size := maxTailBytes/4 - len("s") // with the stream name, four fit exactly
	big.add(tailRecs(1, 10, size))
	if big.bytes > maxTailBytes || len(big.recs) != 4 || big.recs[0].Position != 7 {
		t.Fatalf("the tail keeps at most %d bytes of data: holds %d bytes in %d events from %d", maxTailBytes, big.bytes, len(big.recs), big.recs[0].Position)
	}
	// An event over the bound alone is not kept: the tail starts over after it.
	huge := tail{}
	recs := tailRecs(1, 3, 1)
	recs[1].Data = make(json.RawMessage, maxTailBytes+1)
	huge.add(recs)
	if got, covered := tailAfter(&huge, 2, 10); !covered || !reflect.DeepEqual(got, []eventstore.Position{3}) || huge.bytes > maxTailBytes {
		t.Errorf("after an event over the bound the tail holds what follows it; got %v covered %v, %d bytes", got, covered, huge.bytes)
	}
	if _, covered := tailAfter(&huge, 1, 10); covered {
		t.Error("the event over the bound is read from the file")
	}

	// The strings count too (ids of a MiB each, say).
	strs := tail{}
	recs = tailRecs(1, 16, 1)
	for i := range recs {
		recs[i].Metadata.CausationID = strings.Repeat("c", 1<<20)
	}
	strs.add(recs)
	held := 0
	for _, r := range strs.recs {
		held += tailSize(&r)
	}
	if held > maxTailBytes || held != strs.bytes {
		t.Errorf("the tail holds %d bytes of data and strings (it counts %d), over its bound of %d", held, strs.bytes, maxTailBytes)
	}
}

// subscribeN reads the first n records a subscription yields, calling appendMore after each
// one before it.
func subscribeN(t *testing.T, s *Store, after eventstore.Position, n int, appendMore func()) []eventstore.Record {
	t.Helper()
	seen := 0
	return storetest.SubscribeUntil(t, s, after, func(eventstore.Record) bool {
		if seen++; seen == n {
			return true
		}
		appendMore()
		return false
	})
}

func TestSubscribersTakeTheWritersOwnCommitsFromTheTailAsTheFileHoldsThem(t *testing.T) {
	s, _ := newStore(t, Config{PollInterval: time.Hour})
	ctx := t.Context()
	recorded := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.FixedZone("X", 3600))
	events := []eventstore.Event{
		{Type: "a", SchemaVersion: 1, Data: json.RawMessage(`{"n":1}`)},
		{Type: "b", SchemaVersion: 2, Data: json.RawMessage(`{"n":2,"s":"é"}`),
			Metadata: eventstore.Metadata{CorrelationID: "corr", CausationID: "cause", RecordedAt: recorded}},
		{Type: "a", SchemaVersion: 1, Data: json.RawMessage(`[]`), Metadata: eventstore.Metadata{CorrelationID: "c2"}},
	}
	if _, err := s.Append(ctx, "first", eventstore.NoStream, events[0]); err != nil {
		t.Fatal(err)
	}
	// The subscription reads the file up to the head, then waits for commits: the next events
	// come from the tail, whose records are then the very ones it holds. (Each append waits a
	// little, so that the subscription has caught up with the file and waits.)
	i := 0
	got := subscribeN(t, s, 0, 6, func() {
		time.Sleep(20 * time.Millisecond)
		i++
		stream := fmt.Sprintf("s%d", i%2)
		if _, err := s.Append(ctx, stream, eventstore.Any, events[i%len(events)]); err != nil {
			t.Fatal(err)
		}
	})
	fromTail := 0
	for _, r := range got[1:] {
		for _, tr := range s.tail.recs {
			if tr.Position == r.Position && unsafe.SliceData(tr.Data) == unsafe.SliceData(r.Data) {
				fromTail++
			}
		}
	}
	if fromTail == 0 {
		t.Fatal("the events committed while the subscription waited come from the tail: none of 5 did")
	}
	t.Logf("%d of 5 events came from the tail", fromTail)
	var file []eventstore.Record
	for r, err := range s.ReadAll(ctx, 0) {
		if err != nil {
			t.Fatal(err)
		}
		file = append(file, r)
	}
	if len(file) != len(got) {
		t.Fatalf("the file holds %d events, the subscription gave %d", len(file), len(got))
	}
	for k := range file {
		if !reflect.DeepEqual(file[k], got[k]) {
			t.Errorf("event %d: the subscription gave\n%+v\nthe file holds\n%+v", k, got[k], file[k])
		}
	}
}

// A second store on the same file is another process's writer: what it appends between this
// store's batches is read from the file, in order, without waiting for a poll.
func TestSubscribersReadAnotherWritersEventsBetweenTheirOwnWithoutAPoll(t *testing.T) {
	s, path := newStore(t, Config{PollInterval: time.Hour})
	other, err := Open(path, Config{PollInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	ctx := t.Context()
	if _, err := s.Append(ctx, "mine", eventstore.NoStream, ev(1)); err != nil {
		t.Fatal(err)
	}
	step := 0
	got := subscribeN(t, s, 0, 5, func() {
		step++
		// After each event: the other writer appends, then this one, so every batch of this
		// store's writer follows a gap.
		if _, err := other.Append(ctx, fmt.Sprintf("theirs-%d", step), eventstore.NoStream, ev(2)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Append(ctx, "mine", eventstore.Any, ev(3)); err != nil {
			t.Fatal(err)
		}
	})
	for k, r := range got {
		if r.Position != eventstore.Position(k+1) {
			t.Fatalf("the subscription yields every position in order; got %d at %d", r.Position, k)
		}
		if theirs := r.Stream != "mine"; theirs != (k%2 == 1) {
			t.Errorf("position %d: stream %s", r.Position, r.Stream)
		}
	}
}
