package kurrentdb

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/EventStore/EventStore-Client-Go/v4/esdb"
	"github.com/EventStore/EventStore-Client-Go/v4/protos/streams"

	"relayer/eventstore"
	"relayer/eventstore/storetest"
)

// These tests check the removal and pruning against fakeServer's reading of KurrentDB (see
// there): tombstones, truncate-before, and $all keeping what they removed until a scavenge.

// rawAll is every event of $all, as a client that knows nothing of the store reads it.
func rawAll(t *testing.T, c *esdb.Client) []*esdb.RecordedEvent {
	t.Helper()
	rs, err := c.ReadAll(t.Context(), esdb.ReadAllOptions{From: esdb.Start{}}, math.MaxInt32)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var out []*esdb.RecordedEvent
	for {
		ev, err := rs.Recv()
		if err != nil {
			return out
		}
		out = append(out, ev.OriginalEvent())
	}
}

// subscribeUntil collects what SubscribeAll(after) yields up to the event at last.
func subscribeUntil(t *testing.T, s *Store, after, last eventstore.Position) []eventstore.Record {
	t.Helper()
	return storetest.SubscribeUntil(t, s, after, func(r eventstore.Record) bool { return r.Position >= last })
}

func streamsOf(recs []eventstore.Record) string {
	var out []string
	for _, r := range recs {
		out = append(out, fmt.Sprintf("%s@%d", r.Stream, r.Version))
	}
	return strings.Join(out, " ")
}

func TestRemovedEventsStayInAllUntilAScavengeAndAreNeverReadAgain(t *testing.T) {
	f := newFakeServer(t)
	s := openOn(t, f.url, Config{StreamPrefix: "p/"})
	raw := rawClient(t, f.url)
	first := mustAppend(t, s, "job", eventstore.NoStream, ev(0), ev(1), ev(2))
	mustAppend(t, s, "cursor", eventstore.NoStream, ev(0), ev(1), ev(2))
	mustAppend(t, s, "other", eventstore.NoStream, ev(0))
	tail := mustAppend(t, s, "tail", eventstore.NoStream, ev(0))
	got, err := s.RemoveStreams(t.Context(), []string{"job"}, tail)
	if err != nil || !slices.Equal(got.Streams, []string{"job"}) || got.Events != 3 {
		t.Fatalf("removal: %+v, %v; want job's 3 events", got, err)
	}
	if n, err := s.PruneStreams(t.Context(), []eventstore.Prune{{Stream: "cursor", Before: math.MaxInt64}}, tail); err != nil || n != 2 {
		t.Fatalf("prune: %d, %v; want cursor's first 2", n, err)
	}
	inAll := func() (n int) {
		for _, e := range rawAll(t, raw) {
			if (e.StreamID == "p/job" && e.EventType == "e") || (e.StreamID == "p/cursor" && e.EventNumber < 2) {
				n++
			}
		}
		return n
	}
	if n := inAll(); n != 5 {
		t.Fatalf("$all holds %d of the removed events before a scavenge; the fake keeps all 5 as KurrentDB does", n)
	}
	const want = "cursor@2 other@0 tail@0"
	check := func(when string) {
		t.Helper()
		if got := streamsOf(collect(t, s.ReadAll(t.Context(), 0))); got != want {
			t.Errorf("%s, ReadAll(0) yields %q, want %q", when, got, want)
		}
		if got := streamsOf(collect(t, s.ReadAll(t.Context(), first))); got != want {
			t.Errorf("%s, ReadAll from a removed event yields %q, want %q", when, got, want)
		}
		if got := streamsOf(subscribeUntil(t, s, 0, tail)); got != want {
			t.Errorf("%s, SubscribeAll(0) yields %q, want %q", when, got, want)
		}
		// A store opened afresh knows nothing of the removal but what the server holds.
		other := openOn(t, f.url, Config{StreamPrefix: "p/"})
		if got := streamsOf(collect(t, other.ReadAll(t.Context(), 0))); got != want {
			t.Errorf("%s, another store's ReadAll(0) yields %q, want %q", when, got, want)
		}
	}
	check("before a scavenge")
	if f.scavenge() == 0 || inAll() != 0 {
		t.Fatalf("the scavenge left %d removed events in $all", inAll())
	}
	check("after a scavenge")
}

func TestReadersLookAtStreamsOnlyBelowTheRemovalHorizon(t *testing.T) {
	f := newFakeServer(t)
	s := openOn(t, f.url, Config{StreamPrefix: "p/"})
	reads := func() (n int) {
		f.mu.Lock()
		defer f.mu.Unlock()
		for name, k := range f.streamReads {
			if strings.HasPrefix(name, "p/") { // the store's streams, not the metadata streams
				n += k
			}
		}
		f.streamReads = nil
		return n
	}
	for i := range 5 {
		mustAppend(t, s, fmt.Sprintf("old-%d", i), eventstore.NoStream, ev(i))
	}
	horizon := mustAppend(t, s, "old-5", eventstore.NoStream, ev(5))
	reads()
	if n := len(collect(t, s.ReadAll(t.Context(), 0))); n != 6 || reads() != 0 {
		t.Fatalf("with nothing ever removed, ReadAll read %d events and looked at streams", n)
	}
	if _, err := s.RemoveStreams(t.Context(), []string{"old-0"}, horizon-1); err != nil {
		t.Fatal(err)
	}
	var newer []eventstore.Position
	for i := range 5 {
		newer = append(newer, mustAppend(t, s, fmt.Sprintf("new-%d", i), eventstore.NoStream, ev(i)))
	}
	reads()
	if got := collect(t, s.ReadAll(t.Context(), horizon)); len(got) != 5 {
		t.Fatalf("ReadAll above the horizon yields %d events, want 5", len(got))
	}
	if n := reads(); n != 0 {
		t.Errorf("ReadAll above the horizon read %d streams; want none", n)
	}
	if got := subscribeUntil(t, s, horizon, newer[4]); len(got) != 5 {
		t.Fatalf("SubscribeAll above the horizon yields %d events, want 5", len(got))
	}
	if n := reads(); n != 0 {
		t.Errorf("SubscribeAll above the horizon read %d streams; want none", n)
	}
	if got := collect(t, s.ReadAll(t.Context(), 0)); len(got) != 10 {
		t.Fatalf("ReadAll(0) yields %d events, want the 10 not removed", len(got))
	}
	if n := reads(); n == 0 || n > 6 {
		t.Errorf("ReadAll(0) read %d streams; want one read for each stream below the horizon", n)
	}
}

// A read under way when another instance removes a stream whose events lie on both sides of the
// horizon the read began with skips them all: having found the stream's first events gone, it
// does not yield the later ones above that horizon (read models would get a job's events
// without its acceptance).
func TestAReadThatFoundAStreamRemovedSkipsItsEventsAboveTheHorizonItBeganWith(t *testing.T) {
	f := newFakeServer(t)
	s := openOn(t, f.url, Config{StreamPrefix: "p/"})
	ctx := t.Context()
	mustAppend(t, s, "before", eventstore.NoStream, ev(0))
	mustAppend(t, s, "job", eventstore.NoStream, ev(0))
	old := mustAppend(t, s, "x", eventstore.NoStream, ev(0))
	mustAppend(t, s, "pad", eventstore.NoStream, ev(0))
	if _, err := s.RemoveStreams(ctx, []string{"x"}, old); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "job", 0, ev(1), ev(2))
	tail := mustAppend(t, s, "tail", eventstore.NoStream, ev(0))

	next, stop := iter.Pull2(s.ReadAll(ctx, 0))
	defer stop()
	first, err, ok := next()
	if !ok || err != nil {
		t.Fatalf("the read's first record: %v, %v", ok, err)
	}
	got := []eventstore.Record{first}
	if _, err := s.RemoveStreams(ctx, []string{"job"}, tail); err != nil {
		t.Fatal(err)
	}
	for {
		rec, err, ok := next()
		if !ok {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec)
	}
	if want := "before@0 pad@0 tail@0"; streamsOf(got) != want {
		t.Fatalf("the read yields %s; want %s (the job removed under the read, none of its events)", streamsOf(got), want)
	}
}

func TestAStreamThatTookAnEventSinceTheCheckIsKept(t *testing.T) {
	f := newFakeServer(t)
	s := openOn(t, f.url, Config{StreamPrefix: "p/"})
	raw := rawClient(t, f.url)
	mustAppend(t, s, "job", eventstore.NoStream, ev(0), ev(1))
	tail := mustAppend(t, s, "tail", eventstore.NoStream, ev(0))
	f.set(func(f *fakeServer) {
		f.beforeDelete = func(stream string) {
			meta, _ := encodeMetadata(ev(2))
			if _, err := raw.AppendToStream(context.Background(), stream, esdb.AppendToStreamOptions{},
				esdb.EventData{EventType: "e", ContentType: esdb.ContentTypeJson, Data: []byte(`{"n":2}`), Metadata: meta}); err != nil {
				t.Error(err)
			}
		}
	})
	got, err := s.RemoveStreams(t.Context(), []string{"job"}, tail)
	if err != nil || len(got.Streams) != 0 || got.Events != 0 {
		t.Fatalf("removal raced by an append: %+v, %v; want nothing removed and no error", got, err)
	}
	if n := len(collect(t, s.ReadStream(t.Context(), "job", 0))); n != 3 {
		t.Fatalf("job yields %d events, want its 3", n)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.tombstones) != 1 {
		t.Fatalf("the server saw %d tombstones, want 1", len(f.tombstones))
	}
	if r, ok := f.tombstones[0].ExpectedStreamRevision.(*streams.TombstoneReq_Options_Revision); !ok || r.Revision != 1 {
		t.Fatalf("the tombstone expected %#v, want the revision of the last event seen (1)", f.tombstones[0].ExpectedStreamRevision)
	}
}

func TestARemovedStreamsNameIsNeverUsedAgain(t *testing.T) {
	f := newFakeServer(t)
	s := openOn(t, f.url, Config{StreamPrefix: "p/"})
	mustAppend(t, s, "job", eventstore.NoStream, ev(0))
	tail := mustAppend(t, s, "tail", eventstore.NoStream, ev(0))
	if _, err := s.RemoveStreams(t.Context(), []string{"job"}, tail); err != nil {
		t.Fatal(err)
	}
	for _, expected := range []eventstore.Version{eventstore.Any, eventstore.NoStream, 0} {
		if _, err := s.Append(t.Context(), "job", expected, ev(1)); !errors.Is(err, ErrRemoved) {
			t.Errorf("an append to the removed stream expecting %s: %v, want ErrRemoved", expected, err)
		}
	}
	if v, err := eventstore.LastVersion(t.Context(), s, "job"); err != nil || v != eventstore.NoStream {
		t.Errorf("the removed stream is at %s (%v), want no stream", v, err)
	}
	if v, err := s.lastVersion(t.Context(), "job"); err != nil || v != eventstore.NoStream {
		t.Errorf("the removed stream's last version reads %s (%v), want no stream", v, err)
	}
}

func TestBadNamesAreRefusedAndNothingIsRemoved(t *testing.T) {
	f := newFakeServer(t)
	s := openOn(t, f.url, Config{})
	mustAppend(t, s, "job", eventstore.NoStream, ev(0))
	tail := mustAppend(t, s, "tail", eventstore.NoStream, ev(0))
	for _, bad := range [][]string{{"job", ""}, {"job", "$stats-x"}, {"job", "\xff"}} {
		if _, err := s.RemoveStreams(t.Context(), bad, tail); !errors.Is(err, eventstore.ErrInvalidEvent) {
			t.Errorf("removal of %q: %v, want ErrInvalidEvent", bad, err)
		}
		if _, err := s.PruneStreams(t.Context(), []eventstore.Prune{{Stream: "job", Before: 1}, {Stream: bad[1], Before: 1}}, tail); !errors.Is(err, eventstore.ErrInvalidEvent) {
			t.Errorf("prune of %q: %v, want ErrInvalidEvent", bad[1], err)
		}
	}
	f.mu.Lock()
	tombstones, metadata := len(f.tombstones), len(f.byStream["$$job"])+len(f.byStream["$$$removed"])
	f.mu.Unlock()
	if tombstones != 0 || metadata != 0 {
		t.Fatalf("refused calls wrote %d tombstones and %d metadata events", tombstones, metadata)
	}
	if n := len(collect(t, s.ReadStream(t.Context(), "job", 0))); n != 1 {
		t.Fatalf("job yields %d events, want its 1", n)
	}
}

func TestPruningByTypeTruncatesOnlyUpToTheFirstEventToKeep(t *testing.T) {
	f := newFakeServer(t)
	s := openOn(t, f.url, Config{StreamPrefix: "p/"})
	typed := func(typ string) eventstore.Event { e := ev(0); e.Type = typ; return e }
	// versions 0..5: a b a a b a
	last := mustAppend(t, s, "retention", eventstore.NoStream, typed("a"), typed("b"), typed("a"), typed("a"), typed("b"), typed("a"))
	versions := func() []eventstore.Version {
		var out []eventstore.Version
		for _, r := range collect(t, s.ReadStream(t.Context(), "retention", 0)) {
			out = append(out, r.Version)
		}
		return out
	}
	// Truncate-before cannot leave version 1 (b) behind: only version 0 goes.
	n, err := s.PruneStreams(t.Context(), []eventstore.Prune{{Stream: "retention", Before: 5, Types: []string{"a"}}}, last)
	if got := versions(); err != nil || n != 1 || !slices.Equal(got, []eventstore.Version{1, 2, 3, 4, 5}) {
		t.Fatalf("pruning a below 5: %d, %v, versions %v; want 1 pruned, [1 2 3 4 5] kept", n, err, got)
	}
	// Two prunes of the stream name the union of their events.
	n, err = s.PruneStreams(t.Context(), []eventstore.Prune{
		{Stream: "retention", Before: 4, Types: []string{"a"}},
		{Stream: "retention", Before: 5, Types: []string{"b"}},
	}, last)
	if got := versions(); err != nil || n != 4 || !slices.Equal(got, []eventstore.Version{5}) {
		t.Fatalf("pruning a below 4 and b below 5: %d, %v, versions %v; want 4 pruned, [5] kept", n, err, got)
	}
}

func TestPruningKeepsTheStreamsOtherMetadata(t *testing.T) {
	f := newFakeServer(t)
	s := openOn(t, f.url, Config{StreamPrefix: "p/"})
	raw := rawClient(t, f.url)
	var meta esdb.StreamMetadata
	meta.SetMaxAge(time.Hour)
	meta.AddCustomProperty("owner", "ops")
	if _, err := raw.SetStreamMetadata(t.Context(), "p/cursor", esdb.AppendToStreamOptions{}, meta); err != nil {
		t.Fatal(err)
	}
	last := mustAppend(t, s, "cursor", eventstore.NoStream, ev(0), ev(1), ev(2))
	if n, err := s.PruneStreams(t.Context(), []eventstore.Prune{{Stream: "cursor", Before: math.MaxInt64}}, last); err != nil || n != 2 {
		t.Fatalf("prune: %d, %v", n, err)
	}
	got, err := raw.GetStreamMetadata(t.Context(), "p/cursor", esdb.ReadStreamOptions{Direction: esdb.Backwards, From: esdb.End{}})
	if err != nil {
		t.Fatal(err)
	}
	if tb := got.TruncateBefore(); tb == nil || *tb != 2 || got.MaxAge() == nil || *got.MaxAge() != time.Hour || got.CustomProperty("owner") != "ops" {
		t.Fatalf("the metadata after pruning: $tb %v, max age %v, owner %v; want $tb 2 beside the others", tb, got.MaxAge(), got.CustomProperty("owner"))
	}
}

func TestAStreamSoftDeletedByAnotherClientReadsAsEmptyAndGoesOnFromItsRevision(t *testing.T) {
	f := newFakeServer(t)
	s := openOn(t, f.url, Config{StreamPrefix: "p/"})
	raw := rawClient(t, f.url)
	mustAppend(t, s, "s", eventstore.NoStream, ev(0), ev(1))
	if _, err := raw.DeleteStream(t.Context(), "p/s", esdb.DeleteStreamOptions{ExpectedRevision: esdb.Revision(0)}); err == nil {
		t.Fatal("a soft delete expecting a revision the stream is past succeeded")
	}
	if _, err := raw.DeleteStream(t.Context(), "p/s", esdb.DeleteStreamOptions{ExpectedRevision: esdb.Revision(1)}); err != nil {
		t.Fatal(err)
	}
	if n := len(collect(t, s.ReadStream(t.Context(), "s", 0))); n != 0 {
		t.Fatalf("the soft-deleted stream yields %d events", n)
	}
	mustAppend(t, s, "s", eventstore.Any, ev(2))
	if got := streamsOf(collect(t, s.ReadStream(t.Context(), "s", 0))); got != "s@2" {
		t.Fatalf("after an append, the soft-deleted stream reads %q, want its revisions going on (s@2)", got)
	}
}

func TestASubscriptionThatCannotTellWhetherAnEventWasRemovedSubscribesAgainBeforeIt(t *testing.T) {
	f := newFakeServer(t)
	s := openOn(t, f.url, Config{StreamPrefix: "p/", RetryInterval: time.Millisecond, Logger: quiet})
	mustAppend(t, s, "job", eventstore.NoStream, ev(0))
	mustAppend(t, s, "keep", eventstore.NoStream, ev(1))
	tail := mustAppend(t, s, "tail", eventstore.NoStream, ev(2))
	if _, err := s.RemoveStreams(t.Context(), []string{"job"}, tail); err != nil {
		t.Fatal(err)
	}
	f.set(func(f *fakeServer) { f.failStreamReads = map[string]int{"p/keep": 2} })
	subs := func() int {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.subscriptions
	}
	before := subs()
	if got := streamsOf(subscribeUntil(t, s, 0, tail)); got != "keep@0 tail@0" {
		t.Fatalf("the subscription yields %q, want keep's event once, then tail's", got)
	}
	if n := subs() - before; n < 3 {
		t.Fatalf("the subscription subscribed %d times; the failed look-ups went untested", n)
	}
}
