package postgres

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"relayer/eventstore"
	"relayer/eventstore/internal/groupcommit"
	"relayer/eventstore/internal/groupcommit/committest"
)

// commitOne commits r alone with w and returns its answer.
func commitOne(t *testing.T, w *writer, r *groupcommit.Req) (eventstore.Position, error) {
	t.Helper()
	w.commit([]*groupcommit.Req{r})
	<-r.Done()
	return r.Pos, r.Err
}

// mustCommit commits r alone with w and fails the test unless it is stored at want.
func mustCommit(t *testing.T, w *writer, r *groupcommit.Req, want eventstore.Position) {
	t.Helper()
	if pos, err := commitOne(t, w, r); err != nil || pos != want {
		t.Fatalf("append to %s: want position %d, got %d, %v", r.Stream, want, pos, err)
	}
}

// fastCounts reads w's one-round-trip hits and misses (the writer goroutine is not running:
// the test is the only caller of w.commit).
func fastCounts(w *writer) (hits, misses int) { return w.fast.hits, w.fast.misses }

func TestAWriterAloneAppendsInOneRoundTrip(t *testing.T) {
	w, _ := batchWriter(t)
	// Two batches in the usual two round trips: the first learns the head, the second that no
	// other writer came in between.
	mustCommit(t, w, committest.Request("a", eventstore.NoStream, committest.Event(0)), 1)
	mustCommit(t, w, committest.Request("b", eventstore.NoStream, committest.Event(0)), 2)
	if hits, misses := fastCounts(w); hits != 0 || misses != 0 {
		t.Fatalf("the first two batches read the head first; got %d one-round-trip writes, %d misses", hits, misses)
	}
	// Streams the writer appended to, new streams, exact versions, Any on a known stream.
	mustCommit(t, w, committest.Request("a", 0, committest.Event(1)), 3)
	mustCommit(t, w, committest.Request("c", eventstore.NoStream, committest.Event(0), committest.Event(1)), 5)
	mustCommit(t, w, committest.Request("b", eventstore.Any, committest.Event(1)), 6)
	if hits, misses := fastCounts(w); hits != 3 || misses != 0 {
		t.Fatalf("a writer alone writes in one round trip; got %d one-round-trip writes, %d misses", hits, misses)
	}
	// Conflicts are told as before, from what the writer knows, checked by the server.
	_, err := commitOne(t, w, committest.Request("a", 0, committest.Event(9)))
	var wev *eventstore.WrongExpectedVersionError
	if !errors.As(err, &wev) || wev.Expected != 0 || wev.Actual != 1 {
		t.Fatalf("want a conflict expected 0 actual 1, got %v", err)
	}
	// A batch of appends that see the ones before them, guards and conflicts, in one round trip.
	guarded := func(g eventstore.Version, stream string) *groupcommit.Req {
		return groupcommit.NewReq(t.Context(), stream, eventstore.NoStream, &eventstore.Guard{Stream: "b", Version: g}, []eventstore.Event{committest.Event(0)})
	}
	batch := []*groupcommit.Req{
		committest.Request("a", eventstore.Any, committest.Event(2)),      // a@2 at 7
		committest.Request("a", eventstore.NoStream, committest.Event(9)), // conflict: a is at 2
		committest.Request("d", eventstore.NoStream, committest.Event(0)), // d@0 at 8
		guarded(1, "e"), // e@0 at 9: b is at 1
		guarded(0, "f"), // refused: b is not at 0
	}
	w.commit(batch)
	for i, want := range []eventstore.Position{7, 0, 8, 9, 0} {
		r := batch[i]
		<-r.Done()
		switch {
		case want > 0 && (r.Err != nil || r.Pos != want):
			t.Fatalf("append %d: want position %d, got %d, %v", i, want, r.Pos, r.Err)
		case want == 0 && i == 1 && !errors.As(r.Err, &wev):
			t.Fatalf("append %d: want a version conflict, got %v", i, r.Err)
		case want == 0 && i == 4 && !errors.Is(r.Err, eventstore.ErrGuard):
			t.Fatalf("append %d: want a refused guard, got %v", i, r.Err)
		}
	}
	if hits, misses := fastCounts(w); hits != 4 || misses != 0 {
		t.Fatalf("a writer alone writes in one round trip; got %d one-round-trip writes, %d misses", hits, misses)
	}
}

func TestAnotherWritersCommitTurnsTheGuessIntoTwoRoundTrips(t *testing.T) {
	w, s := batchWriter(t)
	ctx := t.Context()
	for i, stream := range []string{"a", "b", "c"} {
		mustCommit(t, w, committest.Request(stream, eventstore.NoStream, committest.Event(0)), eventstore.Position(i+1))
	}
	// The store's own writer is another writer on the same events table: it moves the head
	// and stream a on.
	if _, err := s.Append(ctx, "a", 0, committest.Event(1)); err != nil {
		t.Fatal(err)
	}
	hits, misses := fastCounts(w)
	// w still expects a at 0 and the head at 3: its guessed insert must write nothing, and the
	// batch be checked against what the table holds.
	_, err := commitOne(t, w, committest.Request("a", 0, committest.Event(9)))
	var wev *eventstore.WrongExpectedVersionError
	if !errors.As(err, &wev) || wev.Actual != 1 {
		t.Fatalf("an append expecting a version another writer moved on is a conflict at its actual version; got %v", err)
	}
	mustCommit(t, w, committest.Request("b", eventstore.Any, committest.Event(1)), 5)
	mustCommit(t, w, committest.Request("c", 0, committest.Event(1)), 6)
	h, m := fastCounts(w)
	if m != misses+1 || h != hits+1 {
		t.Fatalf("want one miss (the head had moved) and then, alone again, one-round-trip writes; got %d hits, %d misses after %d, %d", h, m, hits, misses)
	}
	// The log has no hole and no event twice.
	conn := rawConn(t)
	var n, maxPos int64
	if err := conn.QueryRow(ctx, `SELECT count(*), max(position) FROM `+s.Schema()+`.events`).Scan(&n, &maxPos); err != nil || n != 6 || maxPos != 6 {
		t.Fatalf("want 6 events up to position 6, got %d up to %d (%v)", n, maxPos, err)
	}
}

// A guessed insert that wrote nothing commits no notification: the subscribers of every store on
// the schema wake up once, for the batch written after it, not for the empty transaction too.
func TestAMissedGuessSendsNoNotification(t *testing.T) {
	w, s := batchWriter(t)
	ctx := t.Context()
	listener := rawConn(t)
	exec(t, listener, `LISTEN `+pgx.Identifier{w.channel}.Sanitize())
	// notifications counts the notifications that arrive within a short wait.
	notifications := func() int {
		n := 0
		for {
			wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			_, err := listener.WaitForNotification(wctx)
			cancel()
			if err != nil {
				if ctx.Err() != nil {
					t.Fatal(ctx.Err())
				}
				return n
			}
			n++
		}
	}
	for i, stream := range []string{"a", "b", "c"} {
		mustCommit(t, w, committest.Request(stream, eventstore.NoStream, committest.Event(0)), eventstore.Position(i+1))
	}
	if _, err := s.Append(ctx, "d", eventstore.NoStream, committest.Event(0)); err != nil {
		t.Fatal(err)
	}
	if n := notifications(); n != 4 {
		t.Fatalf("four commits, %d notifications", n)
	}
	_, misses := fastCounts(w)
	mustCommit(t, w, committest.Request("a", 0, committest.Event(1)), 5)
	if _, m := fastCounts(w); m != misses+1 {
		t.Fatalf("the guess did not miss (%d misses, %d before)", m, misses)
	}
	if n := notifications(); n != 1 {
		t.Fatalf("a batch written after a missed guess: %d notifications, want 1", n)
	}
	// A guess that hits notifies as before (the batch after the miss learns that the writer is
	// alone again; the one after it guesses).
	mustCommit(t, w, committest.Request("b", 0, committest.Event(1)), 6)
	hits, _ := fastCounts(w)
	mustCommit(t, w, committest.Request("c", 0, committest.Event(1)), 7)
	if h, _ := fastCounts(w); h != hits+1 {
		t.Fatal("the last batch did not take the one round trip")
	}
	if n := notifications(); n != 2 {
		t.Fatalf("two batches, the second in one round trip: %d notifications, want 2", n)
	}
}

func TestRemovedStreamsAreSeenByTheGuessedInsert(t *testing.T) {
	w, s := batchWriter(t)
	ctx := t.Context()
	for i, stream := range []string{"a", "b", "c"} {
		mustCommit(t, w, committest.Request(stream, eventstore.NoStream, committest.Event(0)), eventstore.Position(i+1))
	}
	// Stream a loses its events below the head: the head stays, a's version does not.
	if _, err := s.RemoveStreams(ctx, []string{"a"}, 3); err != nil {
		t.Fatal(err)
	}
	// w remembers a at 0; the server has no a. An append to a at any version writes a@0.
	mustCommit(t, w, committest.Request("a", eventstore.Any, committest.Event(1)), 4)
	var version int64
	if err := rawConn(t).QueryRow(ctx, `SELECT max(version) FROM `+s.Schema()+`.events WHERE stream = 'a'`).Scan(&version); err != nil || version != 0 {
		t.Fatalf("want a at version 0 after its removal and one append, got %d (%v)", version, err)
	}
	_, err := commitOne(t, w, committest.Request("b", 1, committest.Event(9)))
	var wev *eventstore.WrongExpectedVersionError
	if !errors.As(err, &wev) || wev.Actual != 0 {
		t.Fatalf("want a conflict at b's actual version 0, got %v", err)
	}
}

// cutConn is a connection that, once cut is set, takes in the server's replies up to the next
// ReadyForQuery (the server ran all it was sent, COMMIT included) and then fails, as a network
// cut between the server's answer and the client would.
type cutConn struct {
	net.Conn
	cut *atomic.Bool
}

func (c *cutConn) Read(p []byte) (int, error) {
	if !c.cut.CompareAndSwap(true, false) {
		return c.Conn.Read(p)
	}
	// ReadyForQuery: 'Z', length 5. Under TLS it never shows: the deadline ends the wait.
	_ = c.Conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	var seen []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(seen, []byte{'Z', 0, 0, 0, 5}) {
		n, err := c.Conn.Read(buf)
		seen = append(seen, buf[:n]...)
		if err != nil {
			break
		}
	}
	_ = c.Conn.Close()
	return 0, errors.New("connection cut")
}

// cutWriter is batchWriter with a connection that the test can cut (see cutConn).
func cutWriter(t *testing.T) (*writer, *Store, *atomic.Bool) {
	t.Helper()
	s, _ := newStore(t, Config{})
	cfg := s.w.connCfg.Copy()
	dial, cut := cfg.DialFunc, &atomic.Bool{}
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &cutConn{Conn: c, cut: cut}, nil
	}
	w, err := openWriter(t.Context(), cfg, s.Schema(), true, s.sql, DefaultMaxBatch, func() {}, nil, hooks{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.stop() })
	return w, s, cut
}

// The one round trip sends COMMIT with BEGIN: a connection that fails before BEGIN's answer
// is read may have committed, and the batch must not be written again.
func TestAConnectionLostAfterTheOneRoundTripCommittedIsNotWrittenAgain(t *testing.T) {
	for _, expected := range []eventstore.Version{eventstore.Any, 0} {
		t.Run(expected.String(), func(t *testing.T) {
			w, s, cut := cutWriter(t)
			for i, stream := range []string{"a", "b", "c"} {
				mustCommit(t, w, committest.Request(stream, eventstore.NoStream, committest.Event(0)), eventstore.Position(i+1))
			}
			if hits, _ := fastCounts(w); hits != 1 {
				t.Fatalf("want the third batch in one round trip, got %d", hits)
			}
			cut.Store(true)
			pos, err := commitOne(t, w, committest.Request("a", expected, committest.Event(1)))
			var n int64
			if qErr := rawConn(t).QueryRow(t.Context(), `SELECT count(*) FROM `+pgx.Identifier{s.Schema(), "events"}.Sanitize()+` WHERE stream = 'a'`).Scan(&n); qErr != nil {
				t.Fatal(qErr)
			}
			if n != 2 {
				t.Fatalf("the append is stored once; a has %d events (the append was answered %d, %v)", n, pos, err)
			}
			if (err == nil && pos != 4) || (err != nil && !strings.Contains(err.Error(), "may have been stored")) {
				t.Fatalf("the append, stored at 4, is answered 4 or as maybe stored; got %d, %v", pos, err)
			}
		})
	}
}

// A session the server ended while the writer was idle answers the one round trip with its
// FATAL before running any of it: the batch goes again on a new connection, as it does from
// the two round trips' first.
func TestTheOneRoundTripOnASessionTheServerEndedGoesAgain(t *testing.T) {
	w, _ := batchWriter(t)
	for i, stream := range []string{"a", "b", "c"} {
		mustCommit(t, w, committest.Request(stream, eventstore.NoStream, committest.Event(0)), eventstore.Position(i+1))
	}
	exec(t, rawConn(t), `SELECT pg_terminate_backend($1)`, w.conn.PgConn().PID())
	time.Sleep(50 * time.Millisecond)
	mustCommit(t, w, committest.Request("a", 0, committest.Event(1)), 4)
	if hits, _ := fastCounts(w); hits != 1 {
		t.Fatalf("want the third batch in one round trip and the fourth on a new connection in two; got %d in one", hits)
	}
}

// A writer idle for longer than guessWithin does not guess: its connection may have died unseen,
// and only the two round trips' first, which holds no COMMIT, can go again on a new one.
func TestAnIdleWriterDoesNotGuess(t *testing.T) {
	w, _ := batchWriter(t)
	for i, stream := range []string{"a", "b", "c"} {
		mustCommit(t, w, committest.Request(stream, eventstore.NoStream, committest.Event(0)), eventstore.Position(i+1))
	}
	time.Sleep(guessWithin + 100*time.Millisecond)
	mustCommit(t, w, committest.Request("a", 0, committest.Event(1)), 4)
	mustCommit(t, w, committest.Request("b", 0, committest.Event(1)), 5)
	if hits, misses := fastCounts(w); hits != 2 || misses != 0 {
		t.Fatalf("want one-round-trip writes for the third and the fifth batch only (the fourth came after the writer was idle); got %d, %d misses", hits, misses)
	}
}
