// Package committest checks how a store's writer commits one batch of appends, for the tests of
// the SQLite and PostgreSQL stores: each hands it its writer's commit, on a store of its own.
package committest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"relayer/eventstore"
	"relayer/eventstore/internal/groupcommit"
)

// Event is a valid event whose data is {"n": n}.
func Event(n int) eventstore.Event {
	return eventstore.Event{Type: "e", SchemaVersion: 1, Data: []byte(fmt.Sprintf(`{"n":%d}`, n))}
}

// Request is the request of an append whose caller waits for as long as it takes.
func Request(stream string, expected eventstore.Version, evs ...eventstore.Event) *groupcommit.Req {
	return groupcommit.NewReq(context.Background(), stream, expected, nil, evs)
}

// EachAppendAgainstItsOwnVersion commits, on an empty store, one append and then a batch whose
// appends see the streams as the appends before them in the batch leave them: some pass, some
// conflict, and each gets its own answer.
func EachAppendAgainstItsOwnVersion(t *testing.T, commit func([]*groupcommit.Req)) {
	t.Helper()
	commit([]*groupcommit.Req{Request("seed", eventstore.NoStream, Event(0))})

	batch := []*groupcommit.Req{
		Request("a", eventstore.NoStream, Event(0), Event(1)), // ok: a@0..1
		Request("a", 1, Event(2)),                             // ok: sees the append before it, a@2
		Request("a", eventstore.NoStream, Event(9)),           // conflict: a is at 2
		Request("b", 5, Event(9)),                             // conflict: b is missing
		Request("seed", 0, Event(1)),                          // ok: seed@1
		Request("seed", 0, Event(9)),                          // conflict: seed is at 1
		Request("a", eventstore.Any, Event(3)),                // ok: a@3
	}
	commit(batch)
	wantOK := []eventstore.Position{3, 4, 0, 0, 5, 0, 6}
	wantConflict := map[int][2]eventstore.Version{2: {eventstore.NoStream, 2}, 3: {5, eventstore.NoStream}, 5: {0, 1}}
	for i, r := range batch {
		<-r.Done()
		if c, ok := wantConflict[i]; ok {
			var wev *eventstore.WrongExpectedVersionError
			if !errors.As(r.Err, &wev) || wev.Expected != c[0] || wev.Actual != c[1] {
				t.Fatalf("append %d: want a conflict expected %s actual %s, got %v", i, c[0], c[1], r.Err)
			}
			continue
		}
		if r.Err != nil || r.Pos != wantOK[i] {
			t.Fatalf("append %d: want position %d, got %d, %v", i, wantOK[i], r.Pos, r.Err)
		}
	}
}

// OneFailingAppend commits, on an empty store that refuses every insert into the stream
// "poison" with an error saying "poisoned", a batch of three appends with the poisoned one in
// the middle: it fails with its own error, and the other two are stored (three events). The
// positions the failed insert took are taken again, so the log has no holes: stored, which
// counts the store's events and returns the highest position, must say 3 events up to 3.
func OneFailingAppend(t *testing.T, commit func([]*groupcommit.Req), stored func() (n, maxPos int64, err error)) {
	t.Helper()
	batch := []*groupcommit.Req{
		Request("a", eventstore.NoStream, Event(0)),
		Request("poison", eventstore.NoStream, Event(0)),
		Request("b", eventstore.NoStream, Event(0), Event(1)),
	}
	commit(batch)
	for i, r := range batch {
		<-r.Done()
		if i == 1 {
			if r.Err == nil || !strings.Contains(r.Err.Error(), "poisoned") || !strings.Contains(r.Err.Error(), "poison") {
				t.Fatalf("the failing append gets its own error; got %v", r.Err)
			}
			continue
		}
		if r.Err != nil {
			t.Fatalf("append %d must not fail with the poisoned one: %v", i, r.Err)
		}
	}
	if n, maxPos, err := stored(); err != nil || n != 3 || maxPos != 3 {
		t.Fatalf("want 3 events at positions 1..3, got %d up to %d (%v)", n, maxPos, err)
	}
}
