package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"relayer/eventstore"
)

func readCases() []testCase {
	return []testCase{
		{name: "reading a missing stream yields nothing", run: testReadMissing},
		{name: "reading a stream from a middle version yields the rest in order", run: testReadStreamMiddle},
		{name: "reading a stream from past its end yields nothing", run: testReadStreamPastEnd},
		{name: "an empty store has head 0 and ReadAll yields nothing", run: testEmptyStore},
		{name: "ReadAll yields every event in commit order with strictly increasing positions", run: testReadAllOrder},
		{name: "ReadAll after a middle position yields only the later events", run: testReadAllMiddle},
		{name: "ReadAll after the head yields nothing", run: testReadAllPastHead},
		{name: "reads cross page boundaries without losing or repeating events", run: testLargeReads},
		{name: "breaking out of a read releases it", run: testBreakRead},
		{name: "a read with a cancelled context yields the context's error", run: testCancelledRead},
		{name: "ReadAll ends while appends go on", run: testReadAllEnds},
	}
}

func testReadMissing(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	if recs := collect(t, "read missing", st.ReadStream(ctx, "missing", 0)); len(recs) != 0 {
		t.Fatalf("invariant: a missing stream yields nothing; got %d events", len(recs))
	}
	mustAppend(t, ctx, st, "other", eventstore.NoStream, event("e", 0))
	if recs := collect(t, "read missing", st.ReadStream(ctx, "missing", 0)); len(recs) != 0 {
		t.Fatalf("invariant: a missing stream yields nothing, whatever other streams hold; got %d events", len(recs))
	}
	// A stream whose name is a prefix of another is a different stream.
	if recs := collect(t, "read oth", st.ReadStream(ctx, "oth", 0)); len(recs) != 0 {
		t.Fatalf("invariant: streams match by whole name; reading oth yielded %d events of other", len(recs))
	}
}

func testReadStreamMiddle(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	mustAppend(t, ctx, st, "s", eventstore.NoStream, events("e", 0, 4)...)
	mustAppend(t, ctx, st, "noise", eventstore.NoStream, events("e", 100, 3)...)
	mustAppend(t, ctx, st, "s", 3, events("e", 4, 6)...)
	recs := collect(t, "read s from 3", st.ReadStream(ctx, "s", 3))
	if len(recs) != 7 {
		t.Fatalf("invariant: ReadStream from version 3 of a 10-event stream yields 7 events; got %d", len(recs))
	}
	checkStream(t, recs, "s", 3)
	for _, r := range recs {
		if numberOf(r.Data) != int(r.Version) {
			t.Fatalf("invariant: version %d holds the event appended as number %d", r.Version, numberOf(r.Data))
		}
	}
	last := collect(t, "read s from 9", st.ReadStream(ctx, "s", 9))
	if len(last) != 1 || last[0].Version != 9 {
		t.Fatalf("invariant: ReadStream from the last version yields just that event; got %d events", len(last))
	}
}

func testReadStreamPastEnd(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	mustAppend(t, ctx, st, "s", eventstore.NoStream, events("e", 0, 3)...)
	for _, from := range []eventstore.Version{3, 4, 1000} {
		if recs := collect(t, "read s", st.ReadStream(ctx, "s", from)); len(recs) != 0 {
			t.Fatalf("invariant: ReadStream from version %d of a 3-event stream yields nothing; got %d events", from, len(recs))
		}
	}
}

func testEmptyStore(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	if h := head(t, ctx, st); h != 0 {
		t.Fatalf("invariant: an empty store's head is 0; got %d", h)
	}
	if recs := collect(t, "read all", st.ReadAll(ctx, 0)); len(recs) != 0 {
		t.Fatalf("invariant: ReadAll of an empty store yields nothing; got %d events", len(recs))
	}
}

func testReadAllOrder(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	type ack struct {
		stream string
		first  eventstore.Version
		n      int
		pos    eventstore.Position
	}
	var acks []ack
	versions := map[string]eventstore.Version{}
	for i := range 30 {
		stream := fmt.Sprintf("s-%d", i%4)
		v, ok := versions[stream]
		if !ok {
			v = eventstore.NoStream
		}
		n := 1 + i%3
		pos := mustAppend(t, ctx, st, stream, v, events("e", i*10, n)...)
		acks = append(acks, ack{stream, v + 1, n, pos})
		versions[stream] = v + eventstore.Version(n)
	}
	recs := collect(t, "read all", st.ReadAll(ctx, 0))
	checkOrder(t, "ReadAll", recs)
	i := 0
	for _, a := range acks {
		for k := range a.n {
			if i >= len(recs) {
				t.Fatalf("invariant: ReadAll yields every committed event; it stopped after %d", len(recs))
			}
			r := recs[i]
			if r.Stream != a.stream || r.Version != a.first+eventstore.Version(k) {
				t.Fatalf("invariant: ReadAll yields events in commit order; record %d is %s@%d, want %s@%d", i, r.Stream, r.Version, a.stream, a.first+eventstore.Version(k))
			}
			i++
		}
		if recs[i-1].Position != a.pos {
			t.Fatalf("invariant: the position Append returned is the position ReadAll shows; %s@%d is at %d, Append said %d", a.stream, recs[i-1].Version, recs[i-1].Position, a.pos)
		}
	}
	if i != len(recs) {
		t.Fatalf("invariant: ReadAll yields only committed events; %d appended, %d read", i, len(recs))
	}
}

func testReadAllMiddle(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	for i := range 10 {
		mustAppend(t, ctx, st, fmt.Sprintf("s-%d", i), eventstore.NoStream, event("e", i))
	}
	all := collect(t, "read all", st.ReadAll(ctx, 0))
	mid := all[3].Position
	rest := collect(t, "read all after middle", st.ReadAll(ctx, mid))
	if len(rest) != 6 {
		t.Fatalf("invariant: ReadAll after the 4th event's position yields the 6 later events; got %d", len(rest))
	}
	for i, r := range rest {
		if r.Position != all[4+i].Position || r.Stream != all[4+i].Stream {
			t.Fatalf("invariant: ReadAll after a position yields exactly the events after it, in order; record %d is %s at %d, want %s at %d",
				i, r.Stream, r.Position, all[4+i].Stream, all[4+i].Position)
		}
	}
	// A position between two events (positions need not be contiguous) works too.
	if between := collect(t, "read all after middle", st.ReadAll(ctx, all[4].Position-1)); len(between) < 6 || between[0].Position <= mid {
		t.Fatalf("invariant: ReadAll after a position never yields it or earlier ones")
	}
}

func testReadAllPastHead(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	last := mustAppend(t, ctx, st, "s", eventstore.NoStream, events("e", 0, 3)...)
	for _, after := range []eventstore.Position{last, last + 1, last + 1000} {
		if recs := collect(t, "read all", st.ReadAll(ctx, after)); len(recs) != 0 {
			t.Fatalf("invariant: ReadAll after the head (%d) yields nothing; after %d it yielded %d events", last, after, len(recs))
		}
	}
}

// largeCount is more than one page for the usual page sizes (100 to 1000 rows).
const largeCount = 2345

func testLargeReads(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	v := eventstore.NoStream
	for first := 0; first < largeCount; first += 500 {
		n := min(500, largeCount-first)
		mustAppend(t, ctx, st, "big", v, events("e", first, n)...)
		mustAppend(t, ctx, st, fmt.Sprintf("small-%d", first), eventstore.NoStream, event("e", -1))
		v += eventstore.Version(n)
	}
	recs := collect(t, "read big", st.ReadStream(ctx, "big", 0))
	if len(recs) != largeCount {
		t.Fatalf("invariant: ReadStream yields every event of a long stream; want %d, got %d", largeCount, len(recs))
	}
	checkStream(t, recs, "big", 0)
	from := collect(t, "read big from 1234", st.ReadStream(ctx, "big", 1234))
	if len(from) != largeCount-1234 {
		t.Fatalf("invariant: ReadStream from a middle version of a long stream yields the rest; want %d, got %d", largeCount-1234, len(from))
	}
	checkStream(t, from, "big", 1234)
	all := collect(t, "read all", st.ReadAll(ctx, 0))
	if want := largeCount + (largeCount+499)/500; len(all) != want {
		t.Fatalf("invariant: ReadAll yields every event of a long log; want %d, got %d", want, len(all))
	}
	checkOrder(t, "ReadAll", all)
	rest := collect(t, "read all from middle", st.ReadAll(ctx, all[1500].Position))
	if len(rest) != len(all)-1501 {
		t.Fatalf("invariant: ReadAll after a middle position of a long log yields the rest; want %d, got %d", len(all)-1501, len(rest))
	}
}

func testBreakRead(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	mustAppend(t, ctx, st, "s", eventstore.NoStream, events("e", 0, 10)...)
	// Many more broken reads than any sensible connection pool: a read that kept its
	// connection after the break would make the later ones hang until the timeout.
	for i := range 50 {
		// An error is the case's failure where it happened, not a seeming hang at the end.
		for _, err := range st.ReadAll(ctx, 0) {
			if err != nil {
				t.Fatalf("broken read %d of $all: %v", i, err)
			}
			break
		}
		for _, err := range st.ReadStream(ctx, "s", 2) {
			if err != nil {
				t.Fatalf("broken read %d of s: %v", i, err)
			}
			break
		}
	}
	if recs := collect(t, "read all", st.ReadAll(ctx, 0)); len(recs) != 10 {
		t.Fatalf("invariant: reads after broken reads see the whole log; got %d events", len(recs))
	}
	mustAppend(t, ctx, st, "s", 9, event("e", 10))
}

func testCancelledRead(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	mustAppend(t, ctx, st, "s", eventstore.NoStream, events("e", 0, 5)...)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	reads := map[string]func() (int, error){
		"ReadAll": func() (int, error) { return drain(st.ReadAll(cancelled, 0)) },
		"ReadStream": func() (int, error) {
			return drain(st.ReadStream(cancelled, "s", 0))
		},
	}
	for name, read := range reads {
		n, err := read()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("invariant: %s with a cancelled context yields the context's error; got %v after %d records", name, err, n)
		}
	}
}

// drain iterates seq to its end and returns how many records came before the first error.
func drain(seq func(func(eventstore.Record, error) bool)) (int, error) {
	n := 0
	for _, err := range seq {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func testReadAllEnds(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	mustAppend(t, ctx, st, "s", eventstore.NoStream, events("e", 0, 100)...)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		v := eventstore.Version(99)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := st.Append(ctx, "s", v, events("e", int(v)+1, 5)...); err != nil {
				t.Errorf("append while reading: %v", err)
				return
			}
			v += 5
		}
	})
	defer func() {
		close(stop)
		wg.Wait()
	}()
	for range 5 {
		recs := collect(t, "read all while appending", st.ReadAll(ctx, 0))
		if len(recs) < 100 {
			t.Fatalf("invariant: ReadAll yields at least what was committed before it began; got %d of 100", len(recs))
		}
		checkStream(t, recs, "s", 0)
	}
}
