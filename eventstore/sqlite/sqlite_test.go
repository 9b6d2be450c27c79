package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"relayer/eventstore"
	"relayer/eventstore/internal/groupcommit"
	"relayer/eventstore/internal/groupcommit/committest"
	"relayer/eventstore/storetest"
)

// opener reaches stores in files under the test's temporary directory, with the default config.
func opener() storetest.Opener {
	return storetest.Opener{
		New:  func(t testing.TB) string { return filepath.Join(t.TempDir(), "events.db") },
		Open: func(path string) (eventstore.Store, error) { return Open(path, Config{}) },
	}
}

func TestMain(m *testing.M) {
	storetest.HelperProcess(opener())
	os.Exit(m.Run())
}

func TestConformance(t *testing.T) {
	storetest.Run(t, opener(), storetest.Features{CrossProcessDurability: true, SharedLocation: true})
}

// TestConformanceSmallPagesAndBatches runs the suite again with tiny pages and batches, so that
// paging and batch boundaries fall everywhere.
func TestConformanceSmallPagesAndBatches(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	small := storetest.Opener{
		New: opener().New,
		Open: func(path string) (eventstore.Store, error) {
			return Open(path, Config{PageSize: 7, MaxBatch: 3, MaxReaders: 2, PollInterval: 50 * time.Millisecond})
		},
	}
	storetest.Run(t, small, storetest.Features{SharedLocation: true})
}

func newStore(t *testing.T, cfg Config) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events.db")
	s, err := Open(path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// appendEach appends ev(0) to ev(n-1) to the stream "s", one append each.
func appendEach(t *testing.T, s *Store, n int) {
	t.Helper()
	for i := range n {
		if _, err := s.Append(t.Context(), "s", eventstore.Version(i)-1, ev(i)); err != nil {
			t.Fatal(err)
		}
	}
}

func ev(n int) eventstore.Event {
	return eventstore.Event{Type: "e", SchemaVersion: 1, Data: json.RawMessage(`{"n":` + string(rune('0'+n%10)) + `}`)}
}

// rawDB opens the file with a plain connection, to damage it as another program could.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func exec(t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func TestCorruptRowsYieldRecordErrors(t *testing.T) {
	ctx := t.Context()
	s, path := newStore(t, Config{PageSize: 2})
	appendEach(t, s, 8)
	db := rawDB(t, path)
	damage := map[eventstore.Position]string{
		2: `UPDATE events SET data = 2.5 WHERE position = 2`,
		3: `UPDATE events SET recorded_at = 'yesterday' WHERE position = 3`,
		4: `UPDATE events SET schema_version = 0 WHERE position = 4`,
		5: `UPDATE events SET type = '' WHERE position = 5`,
		6: `UPDATE events SET correlation_id = x'00ff' , data = 17 WHERE position = 6`,
	}
	for _, q := range damage {
		exec(t, db, q)
	}

	check := func(what string, seq func(func(eventstore.Record, error) bool)) {
		t.Helper()
		var good []eventstore.Position
		bad := map[eventstore.Position]bool{}
		for r, err := range seq {
			if err == nil {
				good = append(good, r.Position)
				continue
			}
			var re *eventstore.RecordError
			if !errors.As(err, &re) || !errors.Is(err, eventstore.ErrCorruptRecord) {
				t.Fatalf("%s: a damaged row yields a *RecordError wrapping ErrCorruptRecord; got %T %v", what, err, err)
			}
			if re.Stream != "s" || re.Version != eventstore.Version(re.Position)-1 || damage[re.Position] == "" {
				t.Fatalf("%s: the error names the damaged row's stream, version and position; got %+v", what, re)
			}
			if !strings.Contains(err.Error(), "s@") {
				t.Errorf("%s: the message names the event: %v", what, err)
			}
			bad[re.Position] = true
		}
		if len(bad) != len(damage) {
			t.Fatalf("%s: every damaged row yields an error, none is skipped; got errors for %v", what, bad)
		}
		if want := []eventstore.Position{1, 7, 8}; len(good) != len(want) || good[0] != 1 || good[1] != 7 || good[2] != 8 {
			t.Fatalf("%s: a caller that goes on after an error gets the rows after it; got %v, want %v", what, good, want)
		}
	}
	check("ReadAll", s.ReadAll(ctx, 0))
	check("ReadStream", s.ReadStream(ctx, "s", 0))
	subCtx, cancel := context.WithCancel(ctx)
	n := 0
	check("SubscribeAll", func(yield func(eventstore.Record, error) bool) {
		for r, err := range s.SubscribeAll(subCtx, 0) {
			if n++; n == 8 {
				cancel()
			}
			if errors.Is(err, context.Canceled) || !yield(r, err) {
				return
			}
		}
	})
}

func TestCorruptVersionDoesNotStallPaging(t *testing.T) {
	ctx := t.Context()
	s, path := newStore(t, Config{PageSize: 1})
	appendEach(t, s, 4)
	exec(t, rawDB(t, path), `UPDATE events SET version = 'two' WHERE position = 3`)
	done := make(chan struct{})
	var errs []error
	var got []eventstore.Version
	go func() {
		defer close(done)
		for r, err := range s.ReadStream(ctx, "s", 0) {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			got = append(got, r.Version)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ReadStream over a row with a text version never ends")
	}
	var re *eventstore.RecordError
	if len(errs) != 1 || !errors.As(errs[0], &re) || re.Position != 3 || re.Stream != "s" {
		t.Fatalf("want one RecordError for position 3, got %v", errs)
	}
	if len(got) != 3 {
		t.Fatalf("want the 3 good events, got versions %v", got)
	}
}

func TestReadOnly(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()

	missing := filepath.Join(dir, "missing.db")
	_, err := Open(missing, Config{ReadOnly: true})
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "no event store at "+missing) {
		t.Fatalf("read-only Open of a missing file says there is no store at the path; got %v", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("read-only Open must not create the file (stat: %v)", err)
	}

	path := filepath.Join(dir, "events.db")
	w, err := Open(path, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Append(ctx, "s", eventstore.NoStream, ev(0)); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, Config{ReadOnly: true, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Append(ctx, "s", 0, ev(1)); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Append on a read-only store fails with ErrReadOnly; got %v", err)
	}
	// A read-only store has no writer to wake it: it must poll to follow the other store.
	subCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n := 0
	for rec, err := range r.SubscribeAll(subCtx, 0) {
		if err != nil {
			t.Fatalf("subscribe on a read-only store: %v", err)
		}
		n++
		if n == 1 {
			if _, err := w.Append(ctx, "s", 0, ev(1)); err != nil {
				t.Fatal(err)
			}
		}
		if n == 2 {
			if rec.Version != 1 {
				t.Fatalf("want s@1, got %s@%d", rec.Stream, rec.Version)
			}
			break
		}
	}
	if h, err := r.Head(ctx); err != nil || h != 2 {
		t.Fatalf("Head on a read-only store: %d, %v", h, err)
	}
}

func TestReadOnlyEmptyDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path, Config{ReadOnly: true})
	if err == nil || !strings.Contains(err.Error(), "no event store at "+path) {
		t.Fatalf("read-only Open of an empty file says there is no store; got %v", err)
	}
}

func TestMissingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "there")
	_, err := Open(filepath.Join(dir, "events.db"), Config{})
	if err == nil || !strings.Contains(err.Error(), "directory "+dir+" does not exist") {
		t.Fatalf("Open in a missing directory names the directory; got %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open must not create the directory (stat: %v)", err)
	}
}

func TestNewerFormatIsRefused(t *testing.T) {
	s, path := newStore(t, Config{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	exec(t, db, fmt.Sprintf(`PRAGMA user_version = %d`, FormatVersion+1))
	db.Close()
	for _, cfg := range []Config{{}, {ReadOnly: true}} {
		_, err := Open(path, cfg)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("format version %d is newer", FormatVersion+1)) || !strings.Contains(err.Error(), path) {
			t.Fatalf("Open (read-only %v) refuses a newer format, naming the file; got %v", cfg.ReadOnly, err)
		}
	}
}

func TestForeignFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.db")
	db := rawDB(t, other)
	exec(t, db, `CREATE TABLE accounts (id INTEGER PRIMARY KEY)`)
	db.Close()
	for _, cfg := range []Config{{}, {ReadOnly: true}} {
		if _, err := Open(other, cfg); err == nil || !strings.Contains(err.Error(), "no event store") || !strings.Contains(err.Error(), other) {
			t.Fatalf("Open (read-only %v) refuses a database of something else; got %v", cfg.ReadOnly, err)
		}
	}

	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, []byte(strings.Repeat("this is not a database\n", 200)), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []Config{{}, {ReadOnly: true}} {
		if _, err := Open(junk, cfg); err == nil || !strings.Contains(err.Error(), junk) {
			t.Fatalf("Open (read-only %v) of a file that is not SQLite fails naming it; got %v", cfg.ReadOnly, err)
		}
	}

	if _, err := Open(dir, Config{}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("Open of a directory fails clearly; got %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Fatalf("the zero Config is valid: %v", err)
	}
	bad := []struct {
		field string
		cfg   Config
	}{
		{"MaxBatch", Config{MaxBatch: -1}},
		{"MaxBatch", Config{MaxBatch: 1 << 20}},
		{"BusyTimeout", Config{BusyTimeout: -time.Second}},
		{"BusyTimeout", Config{BusyTimeout: time.Microsecond}},
		{"PollInterval", Config{PollInterval: -time.Millisecond}},
		{"PageSize", Config{PageSize: -5}},
		{"MaxReaders", Config{MaxReaders: -1}},
	}
	for _, b := range bad {
		err := b.cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), b.field) {
			t.Errorf("Validate(%+v) must name %s; got %v", b.cfg, b.field, err)
		}
		if _, err := Open(filepath.Join(t.TempDir(), "x.db"), b.cfg); err == nil {
			t.Errorf("Open with %+v must fail", b.cfg)
		}
	}
	cfg := Config{}
	cfg.setDefaults()
	if cfg.MaxBatch != DefaultMaxBatch || cfg.BusyTimeout != DefaultBusyTimeout || cfg.PollInterval != DefaultPollInterval ||
		cfg.PageSize != DefaultPageSize || cfg.MaxReaders != DefaultMaxReaders {
		t.Fatalf("setDefaults fills every zero field: %+v", cfg)
	}
}

func TestFileIsWALAndSchemaVersioned(t *testing.T) {
	s, path := newStore(t, Config{})
	if _, err := s.Append(t.Context(), "s", eventstore.NoStream, ev(0)); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	var mode string
	var version int
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q (%v), want wal", mode, err)
	}
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != FormatVersion {
		t.Fatalf("user_version %d (%v), want %d", version, err, FormatVersion)
	}
}

func TestTimesAreUTCAndNanosecondExact(t *testing.T) {
	ctx := t.Context()
	s, _ := newStore(t, Config{})
	given := time.Date(2031, 5, 6, 7, 8, 9, 123456789, time.FixedZone("X", -7*3600))
	e := ev(0)
	e.Metadata.RecordedAt = given
	if _, err := s.Append(ctx, "s", eventstore.NoStream, e, ev(1)); err != nil {
		t.Fatal(err)
	}
	for r, err := range s.ReadStream(ctx, "s", 0) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Metadata.RecordedAt.Location() != time.UTC {
			t.Fatalf("recorded-at comes back in UTC; got %s", r.Metadata.RecordedAt.Location())
		}
		if r.Version == 0 && !r.Metadata.RecordedAt.Equal(given) {
			t.Fatalf("recorded-at keeps nanoseconds; got %s, want %s", r.Metadata.RecordedAt, given)
		}
	}
	e.Metadata.RecordedAt = time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := s.Append(ctx, "s", 1, e); !errors.Is(err, eventstore.ErrInvalidEvent) {
		t.Fatalf("a recorded-at this store cannot keep is an invalid event; got %v", err)
	}
}

func TestStreamNamesAreUTF8WithoutNUL(t *testing.T) {
	s, _ := newStore(t, Config{})
	for _, name := range []string{"a\x00b", "bad\xffutf8"} {
		if _, err := s.Append(t.Context(), name, eventstore.NoStream, ev(0)); !errors.Is(err, eventstore.ErrInvalidEvent) {
			t.Fatalf("stream name %+q is an invalid event; got %v", name, err)
		}
	}
	if h, _ := s.Head(t.Context()); h != 0 {
		t.Fatalf("rejected appends write nothing; head is %d", h)
	}
}

// batchWriter opens a writer whose goroutine is not running, so a test can hand it batches.
func batchWriter(t *testing.T) (*writer, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "events.db")
	cfg := Config{}
	cfg.setDefaults()
	commits := 0
	w, err := openWriter(path, cfg, func() { commits++ }, &streamIDs{}, &tail{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.stop() })
	return w, path
}

func TestBatchChecksEachAppendAgainstItsOwnVersion(t *testing.T) {
	w, _ := batchWriter(t)
	committest.EachAppendAgainstItsOwnVersion(t, w.commit)
}

func TestNewStreamGuessIsCheckedByTheIndex(t *testing.T) {
	w, _ := batchWriter(t)
	w.commit([]*groupcommit.Req{committest.Request("old", eventstore.NoStream, ev(0), ev(1))})
	clear(w.streams) // as after a restart: "old" is not cached, so it is guessed new

	batch := []*groupcommit.Req{
		committest.Request("new", eventstore.NoStream, ev(0)), // ok: new@0
		committest.Request("old", eventstore.NoStream, ev(9)), // conflict: old is at 1 (the guess was wrong)
		committest.Request("old", 1, ev(2)),                   // ok: old@2
		committest.Request("new", 0, ev(1)),                   // ok: new@1
	}
	w.commit(batch)
	wantPos := []eventstore.Position{3, 0, 4, 5}
	for i, r := range batch {
		<-r.Done()
		if i == 1 {
			var wev *eventstore.WrongExpectedVersionError
			if !errors.As(r.Err, &wev) || wev.Actual != 1 {
				t.Fatalf("a NoStream append to a stream that exists but is not cached conflicts with its real version; got %v", r.Err)
			}
			continue
		}
		if r.Err != nil || r.Pos != wantPos[i] {
			t.Fatalf("append %d: want position %d, got %d, %v", i, wantPos[i], r.Pos, r.Err)
		}
	}
}

func TestOneFailingInsertDoesNotFailTheBatch(t *testing.T) {
	w, path := batchWriter(t)
	exec(t, rawDB(t, path), `CREATE TRIGGER poison BEFORE INSERT ON events WHEN NEW.stream = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned'); END`)
	committest.OneFailingAppend(t, w.commit, func() (n, maxPos int64, err error) {
		err = rawDB(t, path).QueryRow(`SELECT count(*), max(position) FROM events`).Scan(&n, &maxPos)
		return n, maxPos, err
	})
}

// A disk that fills (here: the writer's page limit, which makes SQLite answer SQLITE_FULL as a
// full disk does) fails the append with eventstore.ErrStorageFull and stores nothing; once space
// returns, appends succeed again on the same store, with no gap in the positions.
func TestAppendOnAFullDiskFailsWithErrStorageFullAndResumes(t *testing.T) {
	s, _ := newStore(t, Config{})
	ctx := context.Background()
	ev := func(n int) eventstore.Event {
		return eventstore.Event{Type: "Filled", SchemaVersion: 1, Data: json.RawMessage(`"` + strings.Repeat("x", n) + `"`)}
	}
	if _, err := s.Append(ctx, "s-0", eventstore.NoStream, ev(10)); err != nil {
		t.Fatal(err)
	}
	var pages int64
	if err := s.w.conn.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.conn.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
	head, err := s.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Append(ctx, "s-1", eventstore.NoStream, ev(64<<10))
	if !errors.Is(err, eventstore.ErrStorageFull) {
		t.Fatalf("append on a full disk: %v, want ErrStorageFull", err)
	}
	if h, err := s.Head(ctx); err != nil || h != head {
		t.Fatalf("head %d (%v) after the failed append, want %d: something was stored", h, err, head)
	}
	if _, err := s.w.conn.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", pages+1000)); err != nil {
		t.Fatal(err)
	}
	pos, err := s.Append(ctx, "s-1", eventstore.NoStream, ev(64<<10))
	if err != nil {
		t.Fatalf("append once space returned: %v", err)
	}
	if pos != head+1 {
		t.Fatalf("position %d, want %d", pos, head+1)
	}
}

// A closed store is one file: the WAL is checkpointed into it and removed, so the file can be
// copied or renamed without the events its WAL held (as the benchmarks' cached logs are).
func TestClosingLeavesOneSelfContainedFile(t *testing.T) {
	s, path := newStore(t, Config{})
	appendEach(t, s, 50)
	for _, err := range s.ReadAll(t.Context(), 0) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("after Close the WAL is gone; stat: %v", err)
	}
	moved := filepath.Join(t.TempDir(), "moved.db")
	if err := os.Rename(path, moved); err != nil {
		t.Fatal(err)
	}
	r, err := Open(moved, Config{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if v, err := r.StreamVersion(t.Context(), "s"); err != nil || v != 49 {
		t.Fatalf("the moved file holds every event: version %d, %v; want 49", v, err)
	}
}

// AppendBatch makes Append's checks: a recorded-at time beyond Unix nanoseconds would be stored
// wrapped (read back as another year), a stream name with a NUL byte could not be read back.
func TestAppendBatchRefusesWhatAppendRefuses(t *testing.T) {
	s, _ := newStore(t, Config{})
	far := eventstore.Event{Type: "t", SchemaVersion: 1, Data: json.RawMessage(`1`),
		Metadata: eventstore.Metadata{RecordedAt: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)}}
	appends := []eventstore.StreamAppend{
		{Stream: "far", Expected: eventstore.NoStream, Events: []eventstore.Event{far}},
		{Stream: "c\x00d", Expected: eventstore.NoStream, Events: []eventstore.Event{ev(1)}},
		{Stream: "ok", Expected: eventstore.NoStream, Events: []eventstore.Event{ev(2)}},
	}
	for _, a := range appends[:2] {
		if _, err := s.Append(t.Context(), a.Stream, a.Expected, a.Events...); !errors.Is(err, eventstore.ErrInvalidEvent) {
			t.Fatalf("Append to %q: %v, want ErrInvalidEvent", a.Stream, err)
		}
	}
	_, errs := s.AppendBatch(t.Context(), appends)
	for i, err := range errs[:2] {
		if !errors.Is(err, eventstore.ErrInvalidEvent) {
			t.Errorf("AppendBatch's append to %q: %v, want ErrInvalidEvent", appends[i].Stream, err)
		}
	}
	if errs[2] != nil {
		t.Errorf("the valid append of the batch: %v", errs[2])
	}
	var streams []string
	for r, err := range s.ReadAll(t.Context(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		streams = append(streams, r.Stream)
	}
	if len(streams) != 1 || streams[0] != "ok" {
		t.Errorf("the log holds %q, want only the valid append", streams)
	}
}
