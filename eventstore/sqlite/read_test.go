package sqlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"strings"
	"testing"
	"time"

	"relayer/eventstore"
	"relayer/eventstore/internal/columns"
)

// fill appends n events to one stream, numbered in their data.
func fill(t *testing.T, s *Store, stream string, n int) {
	t.Helper()
	v := eventstore.NoStream
	for first := 0; first < n; first += 100 {
		var evs []eventstore.Event
		for i := first; i < min(first+100, n); i++ {
			evs = append(evs, eventstore.Event{Type: "e", SchemaVersion: 1, Data: fmt.Appendf(nil, `{"n":%d,"pad":"%s"}`, i, strings.Repeat("x", i%50))})
		}
		if _, err := s.Append(t.Context(), stream, v, evs...); err != nil {
			t.Fatal(err)
		}
		v += eventstore.Version(len(evs))
	}
}

// settle waits for the goroutine count to drop back to at most want: database/sql's own
// goroutines for a query (context watchers) end just after the query does.
func settle(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > want {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), want, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestReadAheadEndsWithTheRead(t *testing.T) {
	s, _ := newStore(t, Config{PageSize: 5, PollInterval: 20 * time.Millisecond})
	fill(t, s, "s", 200)
	ctx := t.Context()
	baseline := runtime.NumGoroutine()

	reads := map[string]func(context.Context) iter.Seq2[eventstore.Record, error]{
		"ReadAll":      func(ctx context.Context) iter.Seq2[eventstore.Record, error] { return s.ReadAll(ctx, 0) },
		"ReadStream":   func(ctx context.Context) iter.Seq2[eventstore.Record, error] { return s.ReadStream(ctx, "s", 0) },
		"SubscribeAll": func(ctx context.Context) iter.Seq2[eventstore.Record, error] { return s.SubscribeAll(ctx, 0) },
	}
	check := func(what string) {
		t.Helper()
		if n := s.readAheads.Load(); n != 0 {
			t.Fatalf("%s: %d read-ahead goroutines outlive the read", what, n)
		}
	}
	for name, read := range reads {
		// The caller breaks out in the middle, at every offset within a page.
		for stop := 1; stop < 40; stop++ {
			n := 0
			for _, err := range read(ctx) {
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if n++; n == stop {
					break
				}
			}
			check(fmt.Sprintf("%s, break after %d", name, stop))
		}

		// ctx ends in the middle: the read yields ctx's error and stops.
		cctx, cancel := context.WithCancel(ctx)
		n := 0
		var last error
		for _, err := range read(cctx) {
			if err != nil {
				last = err
				continue
			}
			if n++; n == 12 {
				cancel()
			}
		}
		cancel()
		if !errors.Is(last, context.Canceled) {
			t.Fatalf("%s: a read whose ctx ends yields ctx's error last; got %v after %d records", name, last, n)
		}
		check(name + ", cancelled")

		// The loop body panics.
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("%s: the panic went missing", name)
				}
			}()
			n := 0
			for range read(ctx) {
				if n++; n == 17 {
					panic("boom")
				}
			}
		}()
		check(name + ", panic")
	}

	// ReadAll and ReadStream to the end.
	for _, name := range []string{"ReadAll", "ReadStream"} {
		n := 0
		for r, err := range reads[name](ctx) {
			if err != nil {
				t.Fatal(err)
			}
			if r.Version != eventstore.Version(n) {
				t.Fatalf("%s: record %d is version %d", name, n, r.Version)
			}
			n++
		}
		if n != 200 {
			t.Fatalf("%s: %d records, want 200", name, n)
		}
		check(name + ", to the end")
	}
	settle(t, baseline)
}

func TestReadAheadEndsWhenTheStoreCloses(t *testing.T) {
	for _, subscribe := range []bool{false, true} {
		s, _ := newStore(t, Config{PageSize: 3, PollInterval: 20 * time.Millisecond})
		fill(t, s, "s", 50)
		read := s.ReadAll
		if subscribe {
			read = s.SubscribeAll
		}
		var last error
		n := 0
		for _, err := range read(t.Context(), 0) {
			if err != nil {
				last = err
				continue
			}
			if n++; n == 7 {
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
			}
			if n > 1000 {
				t.Fatal("the read goes on after Close")
			}
		}
		if !errors.Is(last, eventstore.ErrClosed) {
			t.Fatalf("a read (subscribe %v) across Close ends with ErrClosed; got %v", subscribe, last)
		}
		if n := s.readAheads.Load(); n != 0 {
			t.Fatalf("%d read-ahead goroutines outlive Close", n)
		}
	}
}

func TestRecordsOutliveTheRead(t *testing.T) {
	s, _ := newStore(t, Config{PageSize: 4})
	fill(t, s, "a", 300)
	fill(t, s, "b", 300)
	var kept []eventstore.Record
	for r, err := range s.ReadAll(t.Context(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, r)
	}
	// Read everything again, and more, so that any buffer the first read used is reused.
	for range 3 {
		for _, err := range s.ReadStream(t.Context(), "b", 0) {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(kept) != 600 {
		t.Fatalf("want 600 records, got %d", len(kept))
	}
	for i, r := range kept {
		want := fmt.Appendf(nil, `{"n":%d,"pad":"%s"}`, i%300, strings.Repeat("x", (i%300)%50))
		if !bytes.Equal(r.Data, want) {
			t.Fatalf("record %d kept data %s, want %s", i, r.Data, want)
		}
		if cap(r.Data) != len(r.Data) {
			t.Fatalf("record %d: Data has spare capacity %d, so appending to it would overwrite the next record", i, cap(r.Data)-len(r.Data))
		}
	}
	before := string(kept[1].Data)
	_ = append(kept[0].Data, "garbage"...)
	if string(kept[1].Data) != before {
		t.Fatal("appending to one record's Data changed the next one's")
	}
}

// Data is checked to be JSON when it is appended, not again on reads: data damaged in the file
// afterwards is yielded as it is stored, and eventstore.CheckData (as the codec and the
// projections' decoder) reports it as a corrupt record.
func TestDataIsNotCheckedAgainOnReads(t *testing.T) {
	ctx := t.Context()
	s, path := newStore(t, Config{PageSize: 2})
	appendEach(t, s, 6)
	db := rawDB(t, path)
	exec(t, db, `UPDATE events SET data = x'' WHERE position = 2`)
	exec(t, db, `UPDATE events SET data = '' WHERE position = 3`)
	exec(t, db, `UPDATE events SET data = '{"as":"text"}' WHERE position = 4`)
	exec(t, db, `UPDATE events SET data = '{"as":' WHERE position = 5`)
	want := map[eventstore.Position]string{2: ``, 3: ``, 4: `{"as":"text"}`, 5: `{"as":`}
	var bad []eventstore.Position
	for r, err := range s.ReadAll(ctx, 0) {
		if err != nil {
			t.Fatalf("a row whose columns read back yields its record, whatever its data; got %v", err)
		}
		if w, ok := want[r.Position]; ok && string(r.Data) != w {
			t.Fatalf("position %d: data reads back as it is stored, %q; got %q", r.Position, w, r.Data)
		}
		if err := eventstore.CheckData(r); err != nil {
			var re *eventstore.RecordError
			if !errors.As(err, &re) || !errors.Is(err, eventstore.ErrCorruptRecord) || !strings.Contains(err.Error(), "not valid JSON") || re.Position != r.Position {
				t.Fatalf("want a RecordError for data that is not JSON, got %v", err)
			}
			bad = append(bad, re.Position)
		}
	}
	if fmt.Sprint(bad) != "[2 3 5]" {
		t.Fatalf("empty data and broken JSON are corrupt records; got errors for %v", bad)
	}
}

func TestPageGrowth(t *testing.T) {
	for _, c := range []struct{ pageSize, from, want int }{
		{1000, 1000, 2000},
		{1000, 4000, 8000},
		{1000, 8000, 8000},
		{7, 7, 14},
		{7, 56, 56},
		{4096, 8192, 16384},
		{4096, 16384, 16384},
		{20000, 20000, 20000},
	} {
		s := &Store{cfg: Config{PageSize: c.pageSize}}
		if got := s.grow(c.from); got != c.want {
			t.Errorf("PageSize %d: after a full page of %d, want %d, got %d", c.pageSize, c.from, c.want, got)
		}
	}
}

// TestGapsInPositionsAreJumped reads a log whose positions have holes, as rows deleted or
// inserted by hand leave: ReadAll and SubscribeAll read windows of positions, and must neither
// miss the events after a hole nor walk a huge one window by window.
func TestGapsInPositionsAreJumped(t *testing.T) {
	ctx := t.Context()
	s, path := newStore(t, Config{PageSize: 2, PollInterval: 20 * time.Millisecond})
	appendEach(t, s, 10)
	db := rawDB(t, path)
	exec(t, db, `DELETE FROM events WHERE position BETWEEN 3 AND 7`)
	const far = 1_000_000_000_000
	exec(t, db, `INSERT INTO streams (id, name) VALUES (1000, 'far')`)
	exec(t, db, `INSERT INTO events (position, stream_id, stream, version, type, schema_version, data, recorded_at) VALUES (?, 1000, 'far', 0, 'e', 1, CAST('{}' AS BLOB), 0)`, far)
	if pos, err := s.Append(ctx, "far", 0, ev(1)); err != nil || pos != far+1 {
		t.Fatalf("append after the far row: position %d, %v", pos, err)
	}
	want := fmt.Sprint([]eventstore.Position{1, 2, 8, 9, 10, far, far + 1})

	done := make(chan struct{})
	go func() {
		defer close(done)
		var got []eventstore.Position
		for r, err := range s.ReadAll(ctx, 0) {
			if err != nil {
				t.Errorf("ReadAll: %v", err)
				return
			}
			got = append(got, r.Position)
		}
		if fmt.Sprint(got) != want {
			t.Errorf("ReadAll yields %v, want %v", got, want)
		}
		got = got[:0]
		for r, err := range s.ReadAll(ctx, 8) {
			if err != nil {
				t.Errorf("ReadAll after 8: %v", err)
				return
			}
			got = append(got, r.Position)
		}
		if fmt.Sprint(got) != fmt.Sprint([]eventstore.Position{9, 10, far, far + 1}) {
			t.Errorf("ReadAll after 8 yields %v", got)
		}

		got = got[:0]
		subCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		for r, err := range s.SubscribeAll(subCtx, 0) {
			if err != nil {
				t.Errorf("SubscribeAll: %v", err)
				return
			}
			got = append(got, r.Position)
			if len(got) == 7 {
				// A live event after the gap arrives too.
				go s.Append(ctx, "far", 1, ev(2))
			}
			if len(got) == 8 {
				break
			}
		}
		if fmt.Sprint(got[:7]) != want || got[7] != far+2 {
			t.Errorf("SubscribeAll yields %v, want %v then %d", got, want, far+2)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("reading across a gap of positions does not end")
	}
}

func TestPageFunctionIsPrivate(t *testing.T) {
	s, path := newStore(t, Config{})
	fill(t, s, "s", 3)
	q := `SELECT ` + pageFunction + `(1, ` + columns.List + `) FROM events`
	if _, err := rawDB(t, path).Exec(q); err == nil || !strings.Contains(err.Error(), "no such function") {
		t.Fatalf("connections of the driver everyone shares must not see %s; got %v", pageFunction, err)
	}
	// On the store's own connections, it refuses a token no read holds.
	if _, err := s.readers.Exec(q); err == nil || !strings.Contains(err.Error(), errNotPaging.Error()) {
		t.Fatalf("%s outside a read fails; got %v", pageFunction, err)
	}
}

// A store keeps the numbers of the streams it met: a number never changes, so what another
// Store on the same file appends later is still read, and a stream that did not exist when a
// read looked for it is found once it does.
func TestCachedStreamNumbersFollowAnotherWriter(t *testing.T) {
	ctx := t.Context()
	a, path := newStore(t, Config{})
	b, err := Open(path, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Append(ctx, "y", eventstore.NoStream, ev(0)); err != nil {
		t.Fatal(err)
	}
	for range a.ReadStream(ctx, "x", 0) {
		t.Fatal("x has no events yet")
	}
	if v, err := a.StreamVersion(ctx, "y"); err != nil || v != 0 {
		t.Fatalf("y's version: %d, %v; want 0", v, err)
	}
	if _, err := b.Append(ctx, "x", eventstore.NoStream, ev(0), ev(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Append(ctx, "y", 0, ev(1), ev(2)); err != nil {
		t.Fatal(err)
	}
	for stream, want := range map[string]eventstore.Version{"x": 1, "y": 2} {
		if v, err := a.StreamVersion(ctx, stream); err != nil || v != want {
			t.Fatalf("%s's version read through the other store: %d, %v; want %d", stream, v, err, want)
		}
		n := 0
		for r, err := range a.ReadStream(ctx, stream, 0) {
			if err != nil || r.Stream != stream || r.Version != eventstore.Version(n) {
				t.Fatalf("%s read through the other store: %+v, %v", stream, r, err)
			}
			n++
		}
		if n != int(want)+1 {
			t.Fatalf("%s read through the other store: %d events, want %d", stream, n, want+1)
		}
	}
	if id, ok := a.ids.get("y"); !ok || id != 1 {
		t.Fatalf("a read keeps the number of the stream it looked up: %d, %v", id, ok)
	}
}
