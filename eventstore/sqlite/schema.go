package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// formatVersion is the store's file format, kept in PRAGMA user_version. Bump it with every
// change to the schema or to how rows are encoded, and teach migrate to upgrade older files.
const formatVersion = 1

// schema is format 1. position is the rowid: the writer assigns head+1, head+2, ... under the
// write lock, so positions follow commit order. recorded_at is Unix nanoseconds, UTC. The
// UNIQUE index on (stream, version) serves stream reads and the writer's version look-ups, and
// stops a second event from ever taking a stream version.
const schema = `
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

// queryer is what formatOf needs of a connection or transaction.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// formatOf returns the file's user_version and how many tables it holds.
func formatOf(ctx context.Context, q queryer) (version, tables int64, err error) {
	if err := q.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return 0, 0, fmt.Errorf("read format version: %w", err)
	}
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table'`).Scan(&tables); err != nil {
		return 0, 0, fmt.Errorf("list tables: %w", err)
	}
	return version, tables, nil
}

// migrate creates the schema in an empty file and checks the format of an existing one. It runs
// on the write connection, under the write lock, so two processes opening a new file at once
// cannot both create it.
func migrate(ctx context.Context, conn *sql.Conn, path string) (err error) {
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return fmt.Errorf("open event store %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(ctx, `ROLLBACK`)
		}
	}()
	version, tables, err := formatOf(ctx, conn)
	if err != nil {
		return fmt.Errorf("open event store %s: %w", path, err)
	}
	switch {
	case version == 0 && tables == 0:
		if _, err := conn.ExecContext(ctx, schema); err != nil {
			return fmt.Errorf("open event store %s: create schema: %w", path, err)
		}
	case version == 0:
		return fmt.Errorf("no event store at %s: the database holds other tables (user_version 0)", path)
	case version > formatVersion:
		return fmt.Errorf("open event store %s: format version %d is newer than this build reads (%d); upgrade the program", path, version, formatVersion)
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		return fmt.Errorf("open event store %s: %w", path, err)
	}
	return nil
}
