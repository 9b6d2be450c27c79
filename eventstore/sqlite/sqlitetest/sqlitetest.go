// Package sqlitetest writes SQLite event store files in the formats earlier builds wrote, row by
// row with their own DDL, so that upgrade tests start from a real old file rather than from one
// the current store made. It is for tests only; nothing of the relayer's own imports it.
package sqlitetest

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"relayer/eventstore"
)

// format1 is the schema of format 1, as the store created it: the events keyed by
// (stream name, version).
const format1 = `
CREATE TABLE events (
	position       INTEGER PRIMARY KEY,
	stream         TEXT    NOT NULL,
	version        INTEGER NOT NULL,
	type           TEXT    NOT NULL,
	schema_version INTEGER NOT NULL,
	data           BLOB    NOT NULL,
	correlation_id TEXT,
	causation_id   TEXT,
	recorded_at    INTEGER NOT NULL,
	UNIQUE (stream, version)
);
PRAGMA user_version = 1;
`

// WriteFormat1 creates the file at path (which must not exist) as a format-1 store holding
// records, each at its own stream, version and position, in WAL mode as the store kept it. An
// empty correlation or causation id is stored as NULL, as the store did.
func WriteFormat1(ctx context.Context, path string, records []eventstore.Record) error {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=rwc&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, format1); err != nil {
		return fmt.Errorf("create format 1: %w", err)
	}
	insert, err := tx.PrepareContext(ctx, `INSERT INTO events (position, stream, version, type, schema_version, data, correlation_id, causation_id, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insert.Close()
	null := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	for _, r := range records {
		if _, err := insert.ExecContext(ctx, int64(r.Position), r.Stream, int64(r.Version), r.Type, r.SchemaVersion,
			[]byte(r.Data), null(r.Metadata.CorrelationID), null(r.Metadata.CausationID), r.Metadata.RecordedAt.UnixNano()); err != nil {
			return fmt.Errorf("insert %s@%d: %w", r.Stream, r.Version, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return db.Close()
}

// History returns n records of streams streams interleaved at random (seeded, so the same
// every time), as a log of that many appends of one event each would hold: gapless versions
// per stream, positions 1 to n, some metadata missing, times exact to the nanosecond.
func History(seed uint64, streams, n int) []eventstore.Record {
	rng := rand.New(rand.NewPCG(seed, seed))
	names := make([]string, streams)
	for i := range names {
		names[i] = fmt.Sprintf("request-%016x%016x", rng.Uint64(), rng.Uint64())
	}
	next := make([]eventstore.Version, streams)
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	out := make([]eventstore.Record, 0, n)
	for pos := 1; pos <= n; pos++ {
		i := rng.IntN(streams)
		at = at.Add(time.Duration(rng.IntN(int(time.Second))))
		r := eventstore.Record{
			Stream:        names[i],
			Version:       next[i],
			Position:      eventstore.Position(pos),
			Type:          fmt.Sprintf("Event%d", rng.IntN(6)),
			SchemaVersion: 1 + rng.IntN(2),
			Data:          fmt.Appendf(nil, `{"stream":%q,"n":%d,"pad":"%x"}`, names[i], pos, rng.Uint64()),
			Metadata:      eventstore.Metadata{RecordedAt: at},
		}
		if rng.IntN(3) > 0 {
			r.Metadata.CorrelationID = fmt.Sprintf("corr-%d", i)
			r.Metadata.CausationID = fmt.Sprintf("cmd-%d", pos)
		}
		next[i]++
		out = append(out, r)
	}
	return out
}
