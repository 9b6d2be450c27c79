package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"relayer/eventstore"
)

func closeCases() []testCase {
	return []testCase{
		{name: "calls after Close fail with ErrClosed", run: testCallsAfterClose},
		{name: "a second Close returns nil", run: testCloseTwice},
		{name: "a subscription ends when the store is closed", run: testCloseEndsSubscription},
		{name: "appends racing with Close either commit or fail with ErrClosed", run: testCloseDuringAppends},
		{name: "events survive closing and reopening the store", run: testReopen},
	}
}

func testCallsAfterClose(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st, _ := s.openOwn(t)
	mustAppend(t, ctx, st, "s", eventstore.NoStream, event("e", 0))
	if err := st.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, eventstore.ErrClosed) {
			t.Errorf("invariant: %s after Close fails with ErrClosed; got %v", what, err)
		}
	}
	_, err := st.Append(ctx, "s", 0, event("e", 1))
	check("Append", err)
	_, err = st.Head(ctx)
	check("Head", err)
	_, err = drain(st.ReadStream(ctx, "s", 0))
	check("ReadStream", err)
	_, err = drain(st.ReadAll(ctx, 0))
	check("ReadAll", err)
	_, err = drain(st.SubscribeAll(ctx, 0))
	check("SubscribeAll", err)
}

func testCloseTwice(t *testing.T, s *suite) {
	st, _ := s.openOwn(t)
	if err := st.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := st.Close(); err != nil {
		t.Fatalf("invariant: a second Close returns nil; got %v", err)
	}
}

func testCloseEndsSubscription(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st, _ := s.openOwn(t)
	mustAppend(t, ctx, st, "s", eventstore.NoStream, event("e", 0))
	caughtUp := make(chan struct{})
	ended := make(chan []error, 1)
	go func() {
		var errs []error
		for _, err := range st.SubscribeAll(ctx, 0) {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			close(caughtUp)
		}
		ended <- errs
	}()
	select {
	case <-caughtUp:
	case <-time.After(s.features.Timeout):
		t.Fatal("invariant: a subscription catches up; it did not yield the stored event")
	}
	if err := st.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	select {
	case errs := <-ended:
		for _, err := range errs {
			if !errors.Is(err, eventstore.ErrClosed) {
				t.Fatalf("invariant: a subscription ended by Close yields nothing but ErrClosed; got %v", err)
			}
		}
	case <-time.After(s.features.Timeout):
		t.Fatal("invariant: Close ends subscriptions; one is still running")
	}
}

func testCloseDuringAppends(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st, loc := s.openOwn(t)
	const writers = 20
	acked := make([]eventstore.Version, writers) // last acknowledged version per writer
	var wg sync.WaitGroup
	started := make(chan struct{}, writers)
	for g := range writers {
		acked[g] = eventstore.NoStream
		wg.Go(func() {
			stream := fmt.Sprintf("w-%d", g)
			for i := 0; ; i++ {
				_, err := st.Append(ctx, stream, acked[g], event("e", i))
				if err != nil {
					if !errors.Is(err, eventstore.ErrClosed) {
						t.Errorf("invariant: an append racing with Close commits or fails with ErrClosed; %s got %v", stream, err)
					}
					return
				}
				acked[g]++
				if i == 0 {
					started <- struct{}{}
				}
			}
		})
	}
	for range writers {
		<-started
	}
	if err := st.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	wg.Wait()
	re := s.reopen(t, loc)
	for g := range writers {
		stream := fmt.Sprintf("w-%d", g)
		recs := collect(t, "read "+stream, re.ReadStream(ctx, stream, 0))
		if eventstore.Version(len(recs))-1 != acked[g] {
			t.Fatalf("invariant: an append that returned nil is stored, one that failed is not; %s has %d events, %d were acknowledged",
				stream, len(recs), acked[g]+1)
		}
		checkStream(t, recs, stream, 0)
	}
}

func testReopen(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st, loc := s.openOwn(t)
	mustAppend(t, ctx, st, "a", eventstore.NoStream, events("e", 0, 3)...)
	last := mustAppend(t, ctx, st, "b", eventstore.NoStream, event("e", 3))
	before := collect(t, "read all", st.ReadAll(ctx, 0))
	if err := st.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	re := s.reopen(t, loc)
	if h := head(t, ctx, re); h != last {
		t.Fatalf("invariant: a reopened store has the same head; got %d, want %d", h, last)
	}
	after := collect(t, "read all", re.ReadAll(ctx, 0))
	if len(after) != len(before) {
		t.Fatalf("invariant: a reopened store has every event; %d before, %d after", len(before), len(after))
	}
	for i := range after {
		b, a := before[i], after[i]
		if a.Stream != b.Stream || a.Version != b.Version || a.Position != b.Position || a.Type != b.Type || !sameJSON(a.Data, b.Data) ||
			!a.Metadata.RecordedAt.Equal(b.Metadata.RecordedAt) {
			t.Fatalf("invariant: a reopened store reads the same events; record %d was %+v, is %+v", i, b, a)
		}
	}
	// Versions continue where they were.
	_, err := re.Append(ctx, "a", eventstore.NoStream, event("e", 9))
	wrongVersion(t, err, "a", eventstore.NoStream, 2)
	if pos := mustAppend(t, ctx, re, "a", 2, event("e", 4)); pos <= last {
		t.Fatalf("invariant: positions keep increasing across reopening; got %d after %d", pos, last)
	}
}
