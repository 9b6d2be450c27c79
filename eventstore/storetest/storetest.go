// Package storetest is the conformance suite every eventstore backend runs: the invariants of
// eventstore.Store (gapless versions, expected-version checks, global order, subscriptions that
// never skip or repeat, durability) checked against real stores.
//
// A backend's test file calls Run once with an Opener for that backend and the Features it
// promises, and wires HelperProcess into its TestMain for the cross-process tests:
//
//	func TestMain(m *testing.M) {
//		storetest.HelperProcess(opener)
//		os.Exit(m.Run())
//	}
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, opener, storetest.Features{CrossProcessDurability: true, SharedLocation: true})
//	}
//
// Every case opens fresh stores, so cases run in parallel. Case names are sentences that state
// the invariant; a failure message names the invariant that broke.
package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"testing"
	"time"

	"relayer/eventstore"
)

// Opener tells the suite how to make and reach stores of one backend.
type Opener struct {
	// New prepares the location of a new, empty store (a file path, a database URL, a schema
	// name, ...) and returns it. It runs in the test process and may use t (t.TempDir,
	// t.Cleanup). The location must be usable from a child process.
	New func(t testing.TB) string
	// Open opens the store at a location New returned. Opened again after Close, a location
	// must give back the same events. Open may run in a child process (see HelperProcess), so
	// it must depend on nothing but the location and the environment.
	Open func(location string) (eventstore.Store, error)
	// OpenWithCommitDelay is optional. It opens the store at location like Open, except that
	// every append transaction calls delay after its events took their positions and before
	// it commits. It is a test-only hook, for a backend that can offer one: the delay widens
	// the window in which a backend whose positions do not follow commit order would let a
	// subscriber skip an event, so the case of processes appending under a subscriber uses it
	// in the appending processes.
	OpenWithCommitDelay func(location string, delay func()) (eventstore.Store, error)
}

// Features says what a backend promises beyond the Store contract; the suite runs the cases for
// each promise and skips them otherwise.
type Features struct {
	// CrossProcessDurability promises that an append acknowledged to a process survives that
	// process being killed (SIGKILL) right after. The case re-executes the test binary, so the
	// backend's TestMain must call HelperProcess.
	CrossProcessDurability bool
	// SharedLocation promises that two stores open on one location at the same time (as two
	// processes would) act as one: each sees the other's appends, subscriptions included, and
	// expected versions hold across both. With CrossProcessDurability (whose HelperProcess
	// wiring it needs) it also runs the case of several processes appending at once under a
	// subscriber.
	SharedLocation bool
	// Timeout bounds every wait in the suite: a subscriber seeing an event, a child process
	// acknowledging appends, a read finishing. Default 15s.
	Timeout time.Duration
}

// suite carries Run's arguments to the cases.
type suite struct {
	open     Opener
	features Features
}

type testCase struct {
	name string
	run  func(t *testing.T, s *suite)
	// serial cases do not call t.Parallel: they measure concurrency of their own.
	serial bool
}

// Run runs the conformance suite against the backend open reaches.
func Run(t *testing.T, open Opener, features Features) {
	if open.New == nil || open.Open == nil {
		t.Fatal("storetest: Opener needs both New and Open")
	}
	if features.Timeout <= 0 {
		features.Timeout = 15 * time.Second
	}
	s := &suite{open: open, features: features}
	groups := []struct {
		name  string
		cases []testCase
	}{
		{"appending", appendCases()},
		{"guarding", guardCases()},
		{"reading", readCases()},
		{"concurrency", concurrencyCases()},
		{"subscribing", subscribeCases()},
		{"closing", closeCases()},
		{"durability", durabilityCases()},
		{"shared location", sharedCases()},
		{"space", spaceCases()},
		{"removing", removeCases()},
		{"pruning", pruneCases()},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, c := range g.cases {
				t.Run(c.name, func(t *testing.T) {
					if !c.serial {
						t.Parallel()
					}
					c.run(t, s)
				})
			}
		})
	}
}

// fresh opens a new, empty store, closed when the test ends.
func (s *suite) fresh(t *testing.T) eventstore.Store {
	t.Helper()
	st, _ := s.freshAt(t)
	return st
}

// freshAt is fresh that also returns the location, for reopening.
func (s *suite) freshAt(t *testing.T) (eventstore.Store, string) {
	t.Helper()
	loc := s.open.New(t)
	return s.reopen(t, loc), loc
}

// openOwn opens a new, empty store that the test closes itself, and returns its location for
// reopening.
func (s *suite) openOwn(t *testing.T) (eventstore.Store, string) {
	t.Helper()
	loc := s.open.New(t)
	st, err := s.open.Open(loc)
	if err != nil {
		t.Fatal(err)
	}
	return st, loc
}

// reopen opens the store at loc, closed when the test ends.
func (s *suite) reopen(t *testing.T, loc string) eventstore.Store {
	t.Helper()
	st, err := s.open.Open(loc)
	if err != nil {
		t.Fatalf("open store at %s: %v", loc, err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("close store at %s: %v", loc, err)
		}
	})
	return st
}

// offers returns st as T, one of the interfaces a store may offer besides Store, or skips the
// test: "the store does not " + what.
func offers[T any](t *testing.T, st eventstore.Store, what string) T {
	t.Helper()
	v, ok := st.(T)
	if !ok {
		t.Skip("the store does not " + what)
	}
	return v
}

// ctx is the test's context bounded by the suite's timeout.
func (s *suite) ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), s.features.Timeout)
	t.Cleanup(cancel)
	return ctx
}

// event builds a valid event whose data is {"n": n}.
func event(typ string, n int) eventstore.Event {
	return eventstore.Event{Type: typ, SchemaVersion: 1, Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n))}
}

// events builds count valid events numbered from first.
func events(typ string, first, count int) []eventstore.Event {
	out := make([]eventstore.Event, count)
	for i := range out {
		out[i] = event(typ, first+i)
	}
	return out
}

// numberOf returns n from data {"n": n}, or -1.
func numberOf(data json.RawMessage) int {
	var v struct{ N *int }
	if json.Unmarshal(data, &v) != nil || v.N == nil {
		return -1
	}
	return *v.N
}

func mustAppend(t *testing.T, ctx context.Context, st eventstore.Store, stream string, expected eventstore.Version, evs ...eventstore.Event) eventstore.Position {
	t.Helper()
	pos, err := st.Append(ctx, stream, expected, evs...)
	if err != nil {
		t.Fatalf("append %d events to %s expecting %s: %v", len(evs), stream, expected, err)
	}
	return pos
}

// collect reads a whole iteration; the first error fails the test.
func collect(t *testing.T, what string, seq iter.Seq2[eventstore.Record, error]) []eventstore.Record {
	t.Helper()
	var out []eventstore.Record
	for r, err := range seq {
		if err != nil {
			t.Fatalf("%s: error after %d records: %v", what, len(out), err)
		}
		out = append(out, r)
	}
	return out
}

func head(t *testing.T, ctx context.Context, st eventstore.Store) eventstore.Position {
	t.Helper()
	h, err := st.Head(ctx)
	if err != nil {
		t.Fatalf("head: %v", err)
	}
	return h
}

// sameJSON compares JSON by value, so that backends that normalise JSON (jsonb) pass.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// wrongVersion asserts that err is a version conflict with the given values.
func wrongVersion(t *testing.T, err error, stream string, expected, actual eventstore.Version) {
	t.Helper()
	if err == nil {
		t.Fatalf("invariant: an append expecting %s on %s (at %s) must fail, but it succeeded", expected, stream, actual)
	}
	if !errors.Is(err, eventstore.ErrWrongExpectedVersion) {
		t.Fatalf("invariant: a version conflict matches ErrWrongExpectedVersion; got %v", err)
	}
	var wev *eventstore.WrongExpectedVersionError
	if !errors.As(err, &wev) {
		t.Fatalf("invariant: a version conflict unwraps to *WrongExpectedVersionError; got %T: %v", err, err)
	}
	if wev.Stream != stream || wev.Expected != expected || wev.Actual != actual {
		t.Fatalf("invariant: the conflict names the stream, the expected and the actual version: want {%s %s %s}, got {%s %s %s}",
			stream, expected, actual, wev.Stream, wev.Expected, wev.Actual)
	}
}

// checkStream asserts that recs are the events of stream with versions from first on, gapless,
// with strictly increasing positions.
func checkStream(t *testing.T, recs []eventstore.Record, stream string, first eventstore.Version) {
	t.Helper()
	for i, r := range recs {
		if r.Stream != stream {
			t.Fatalf("invariant: ReadStream(%s) yields only that stream; record %d is from %q", stream, i, r.Stream)
		}
		if want := first + eventstore.Version(i); r.Version != want {
			t.Fatalf("invariant: versions are gapless and in order; record %d of %s has version %s, want %s", i, stream, r.Version, want)
		}
		if i > 0 && r.Position <= recs[i-1].Position {
			t.Fatalf("invariant: positions increase along a stream; %s@%d has position %d after %d", stream, r.Version, r.Position, recs[i-1].Position)
		}
	}
}

// checkOrder asserts that positions strictly increase.
func checkOrder(t *testing.T, what string, recs []eventstore.Record) {
	t.Helper()
	for i := 1; i < len(recs); i++ {
		if recs[i].Position <= recs[i-1].Position {
			t.Fatalf("invariant: %s yields strictly increasing positions; record %d has position %d after %d", what, i, recs[i].Position, recs[i-1].Position)
		}
	}
}
