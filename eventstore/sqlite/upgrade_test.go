package sqlite

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"relayer/eventstore"
	"relayer/eventstore/sqlite/sqlitetest"
)

// sameRecord reports whether two records are the same event at the same place in the log.
func sameRecord(a, b eventstore.Record) bool {
	return a.Stream == b.Stream && a.Version == b.Version && a.Position == b.Position && a.Type == b.Type &&
		a.SchemaVersion == b.SchemaVersion && bytes.Equal(a.Data, b.Data) && a.Metadata.CorrelationID == b.Metadata.CorrelationID &&
		a.Metadata.CausationID == b.Metadata.CausationID && a.Metadata.RecordedAt.Equal(b.Metadata.RecordedAt)
}

// readAll returns the whole log of s.
func readAll(t *testing.T, s *Store) []eventstore.Record {
	t.Helper()
	var out []eventstore.Record
	for r, err := range s.ReadAll(t.Context(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestAnOldFormatFileIsRefusedUntilUpgraded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.db")
	if err := sqlitetest.WriteFormat1(t.Context(), path, sqlitetest.History(1, 5, 20)); err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []Config{{}, {ReadOnly: true}} {
		_, err := Open(path, cfg)
		if !errors.Is(err, ErrOldFormat) || !strings.Contains(err.Error(), "format version 1 is older than this build reads (2)") ||
			!strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "relayer migrate") {
			t.Fatalf("Open (read-only %v) of a format-1 file refuses it, naming the file, the formats and the way to upgrade; got %v", cfg.ReadOnly, err)
		}
	}
	var version int
	if err := rawDB(t, path).QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != 1 {
		t.Fatalf("a refused open leaves the file at format 1; user_version %d (%v)", version, err)
	}
}

func TestUpgradeKeepsEveryEventAndNumbersStreamsInCreationOrder(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "events.db")
	history := sqlitetest.History(7, 40, 600)
	if err := sqlitetest.WriteFormat1(ctx, path, history); err != nil {
		t.Fatal(err)
	}
	from, err := Upgrade(ctx, path)
	if err != nil || from != 1 {
		t.Fatalf("Upgrade: from format %d, %v; want from 1", from, err)
	}

	s, err := Open(path, Config{PageSize: 7})
	if err != nil {
		t.Fatalf("the upgraded file opens: %v", err)
	}
	defer s.Close()
	got := readAll(t, s)
	if len(got) != len(history) {
		t.Fatalf("ReadAll after the upgrade: %d events, want %d", len(got), len(history))
	}
	for i := range history {
		if !sameRecord(got[i], history[i]) {
			t.Fatalf("event %d after the upgrade:\n got %+v\nwant %+v", i, got[i], history[i])
		}
	}
	var order []string
	last := map[string]eventstore.Version{}
	byStream := map[string][]eventstore.Record{}
	for _, r := range history {
		if _, ok := last[r.Stream]; !ok {
			order = append(order, r.Stream)
		}
		last[r.Stream] = r.Version
		byStream[r.Stream] = append(byStream[r.Stream], r)
	}
	for stream, want := range byStream {
		var n int
		for r, err := range s.ReadStream(ctx, stream, 0) {
			if err != nil || n >= len(want) || !sameRecord(r, want[n]) {
				t.Fatalf("ReadStream(%s) after the upgrade: event %d is %+v, %v", stream, n, r, err)
			}
			n++
		}
		if n != len(want) {
			t.Fatalf("ReadStream(%s) after the upgrade: %d events, want %d", stream, n, len(want))
		}
		if v, err := s.StreamVersion(ctx, stream); err != nil || v != last[stream] {
			t.Fatalf("StreamVersion(%s) after the upgrade: %d, %v; want %d", stream, v, err, last[stream])
		}
	}
	rows, err := rawDB(t, path).Query(`SELECT id, name FROM streams ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var numbered []string
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			t.Fatal(err)
		}
		if id != int64(len(numbered)+1) {
			t.Fatalf("stream %s numbered %d, want %d", name, id, len(numbered)+1)
		}
		numbered = append(numbered, name)
	}
	if fmt.Sprint(numbered) != fmt.Sprint(order) {
		t.Fatalf("streams are numbered in the order of their first events:\n got %v\nwant %v", numbered, order)
	}

	// The upgraded file takes appends as a new one would: versions go on, a stream that exists
	// is not created twice, a new stream gets the next number.
	old := order[0]
	if _, err := s.Append(ctx, old, eventstore.NoStream, ev(0)); !errors.Is(err, eventstore.ErrWrongExpectedVersion) {
		t.Fatalf("creating %s again after the upgrade conflicts; got %v", old, err)
	}
	if pos, err := s.Append(ctx, old, last[old], ev(1)); err != nil || pos != eventstore.Position(len(history)+1) {
		t.Fatalf("appending to %s at version %d after the upgrade: position %d, %v", old, last[old]+1, pos, err)
	}
	if _, err := s.Append(ctx, "request-new", eventstore.NoStream, ev(2)); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := rawDB(t, path).QueryRow(`SELECT id FROM streams WHERE name = 'request-new'`).Scan(&id); err != nil || id != int64(len(order)+1) {
		t.Fatalf("a stream created after the upgrade is numbered %d (%v), want %d", id, err, len(order)+1)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if from, err := Upgrade(ctx, path); err != nil || from != FormatVersion {
		t.Fatalf("Upgrade of a file at the current format leaves it alone; got from %d, %v", from, err)
	}
}

func TestAFailedUpgradeLeavesTheFileAsItWas(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "events.db")
	history := sqlitetest.History(3, 4, 30)
	if err := sqlitetest.WriteFormat1(ctx, path, history); err != nil {
		t.Fatal(err)
	}
	// A table in the way of the upgrade's third statement: the first two have run by then.
	exec(t, rawDB(t, path), `CREATE TABLE events_format1 (x INTEGER)`)
	if _, err := Upgrade(ctx, path); err == nil || !strings.Contains(err.Error(), "from format 1 to 2") {
		t.Fatalf("Upgrade fails on the table in its way, naming the step; got %v", err)
	}
	db := rawDB(t, path)
	var version, streams, events int
	if err := db.QueryRow(`SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_schema WHERE name = 'streams'), (SELECT count(*) FROM events)`).Scan(&version, &streams, &events); err != nil {
		t.Fatal(err)
	}
	if version != 1 || streams != 0 || events != len(history) {
		t.Fatalf("after a failed upgrade: format %d, streams table %d, %d events; want format 1, no streams table, %d events", version, streams, events, len(history))
	}
}

func TestUpgradeRefusesWhatItCannotUpgrade(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	if _, err := Upgrade(ctx, filepath.Join(dir, "missing.db")); err == nil || !strings.Contains(err.Error(), "no event store") {
		t.Fatalf("Upgrade of a missing file: %v", err)
	}
	other := filepath.Join(dir, "other.db")
	exec(t, rawDB(t, other), `CREATE TABLE accounts (id INTEGER PRIMARY KEY)`)
	if _, err := Upgrade(ctx, other); err == nil || !strings.Contains(err.Error(), "other tables") {
		t.Fatalf("Upgrade of a database of something else: %v", err)
	}
	_, newer := newStore(t, Config{})
	exec(t, rawDB(t, newer), fmt.Sprintf(`PRAGMA user_version = %d`, FormatVersion+1))
	if _, err := Upgrade(ctx, newer); err == nil || !strings.Contains(err.Error(), "newer than this build reads") {
		t.Fatalf("Upgrade of a newer format: %v", err)
	}
}
