package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// FormatVersion is the store's file format, kept in PRAGMA user_version. Bump it with every
// change to the schema or to how rows are encoded, and add the step that upgrades the format
// before it to upgrades.
const FormatVersion = 2

// ErrOldFormat reports a file written in an older format than this build reads: Upgrade brings
// it to FormatVersion (relayer migrate does).
var ErrOldFormat = errors.New("event store file in an older format")

// schema is format 2.
//
// auto_vacuum = INCREMENTAL (set by the write connection's first pragma, before the file has a
// page, the only time it can be) lets
// RemoveStreams give the pages of removed streams back to the filesystem with PRAGMA
// incremental_vacuum, so that a store whose old events leave for an archive stops growing.
//
// streams numbers the streams in the order they were created: a name is looked up once, when
// an append first meets the stream, and the events refer to its number. Job streams are named
// by content hashes, so their names arrive in random order; an index keyed by the names would
// take every append to a random page of it, and each commit rewrites every page it touched.
// Keyed by (stream_id, version), the events of the jobs in flight sit together at the end of
// the index, which is where the appends go; only a stream's creation touches the name index.
//
// events.position is the rowid: the writer assigns head+1, head+2, ... under the write lock, so
// positions follow commit order and a read of the log is a range scan of the table. The stream
// name is kept in each event as well, so that reading the log needs no join: it costs its bytes
// once, at the end of the table, where the appends write anyway. recorded_at is Unix
// nanoseconds, UTC. The UNIQUE index on (stream_id, version) serves stream reads and the
// writer's version look-ups, and stops a second event from ever taking a stream version.
const schema = format2Streams + format2Events + `PRAGMA user_version = 2;`

// format2Streams and format2Events are format 2's tables, as a new file gets them and as the
// upgrade from format 1 makes them: a later format adds its own, and these stay as they are.
const (
	format2Streams = `
CREATE TABLE streams (
	id   INTEGER PRIMARY KEY,
	name TEXT    NOT NULL UNIQUE
);
`
	format2Events = `
CREATE TABLE events (
	position       INTEGER PRIMARY KEY,
	stream_id      INTEGER NOT NULL,
	stream         TEXT    NOT NULL,
	version        INTEGER NOT NULL,
	type           TEXT    NOT NULL,
	schema_version INTEGER NOT NULL,
	data           BLOB    NOT NULL,
	correlation_id TEXT,
	causation_id   TEXT,
	recorded_at    INTEGER NOT NULL,
	UNIQUE (stream_id, version)
);
`
)

// upgrades[v] brings a file of format v+1 to format v+2, inside the caller's transaction. Add
// steps; never change one that has shipped.
var upgrades = []string{
	// 1 to 2: number the streams in the order of their first events, and rebuild the events
	// table with the numbers, keyed by (stream_id, version).
	format2Streams + `
INSERT INTO streams (name) SELECT stream FROM events GROUP BY stream ORDER BY min(position);
ALTER TABLE events RENAME TO events_format1;
` + format2Events + `
INSERT INTO events (position, stream_id, stream, version, type, schema_version, data, correlation_id, causation_id, recorded_at)
	SELECT e.position, s.id, e.stream, e.version, e.type, e.schema_version, e.data, e.correlation_id, e.causation_id, e.recorded_at
	FROM events_format1 AS e JOIN streams AS s ON s.name = e.stream ORDER BY e.position;
DROP TABLE events_format1;
PRAGMA user_version = 2;
`,
}

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

// checkFormat says why a file of this format and number of tables cannot be opened as it is.
// An empty file (no tables, user_version 0) passes: the writer creates the schema in it.
func checkFormat(path string, version, tables int64) error {
	switch {
	case version == 0 && tables > 0:
		return fmt.Errorf("no event store at %s: the database holds other tables (user_version 0)", path)
	case version > FormatVersion:
		return fmt.Errorf("open event store %s: format version %d is newer than this build reads (%d); upgrade the program", path, version, FormatVersion)
	case version > 0 && version < FormatVersion:
		return &oldFormatError{path: path, version: version}
	}
	return nil
}

// oldFormatError is checkFormat's answer for a file of an older format; it matches
// ErrOldFormat.
type oldFormatError struct {
	path    string
	version int64
}

func (e *oldFormatError) Error() string {
	return fmt.Sprintf("open event store %s: format version %d is older than this build reads (%d); upgrade the file first: relayer migrate --store sqlite:%s",
		e.path, e.version, FormatVersion, e.path)
}

func (e *oldFormatError) Is(target error) bool { return target == ErrOldFormat }

// migrate creates the schema in an empty file and checks the format of an existing one. It runs
// on the write connection, under the write lock, so two processes opening a new file at once
// cannot both create it. It never upgrades a file: that is Upgrade's, run on purpose.
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
	if err := checkFormat(path, version, tables); err != nil {
		return err
	}
	if version == 0 {
		if _, err := conn.ExecContext(ctx, schema); err != nil {
			return fmt.Errorf("open event store %s: create schema: %w", path, err)
		}
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		return fmt.Errorf("open event store %s: %w", path, err)
	}
	return nil
}

// Upgrade brings the event store file at path to FormatVersion in place, in one transaction:
// a failure leaves the file as it was. It reports the format the file had. A file at
// FormatVersion is left alone; a missing, empty or foreign file, or one of a newer format, is
// refused. No Store may have the file open meanwhile: an open Store of the old format would
// fail its next write, and the caller should hold the writer's lock (relayer migrate does).
func Upgrade(ctx context.Context, path string) (from int, err error) {
	if err := checkLocation(path, true); err != nil {
		return 0, err
	}
	cfg := Config{}
	cfg.setDefaults()
	db, err := sql.Open("sqlite", dsn(path, cfg, false))
	if err != nil {
		return 0, fmt.Errorf("upgrade event store %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("upgrade event store %s: %w", path, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return 0, fmt.Errorf("upgrade event store %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
		}
	}()
	version, tables, err := formatOf(ctx, conn)
	if err != nil {
		return 0, fmt.Errorf("upgrade event store %s: %w", path, err)
	}
	if version == 0 && tables == 0 {
		return 0, fmt.Errorf("no event store at %s: the database is empty", path)
	}
	if err := checkFormat(path, version, tables); err != nil && !errors.Is(err, ErrOldFormat) {
		return int(version), err
	}
	// No step may lose an event: the count before and after is checked before committing.
	count := func() (n int64, err error) {
		err = conn.QueryRowContext(ctx, `SELECT count(*) FROM events`).Scan(&n)
		return n, err
	}
	before, err := count()
	if err != nil {
		return int(version), fmt.Errorf("upgrade event store %s: %w", path, err)
	}
	for v := version; v < FormatVersion; v++ {
		if _, err := conn.ExecContext(ctx, upgrades[v-1]); err != nil {
			return int(version), fmt.Errorf("upgrade event store %s from format %d to %d: %w", path, v, v+1, err)
		}
		after, err := count()
		switch {
		case err != nil:
			return int(version), fmt.Errorf("upgrade event store %s from format %d to %d: %w", path, v, v+1, err)
		case after != before:
			return int(version), fmt.Errorf("upgrade event store %s from format %d to %d: %d events before, %d after; nothing was changed", path, v, v+1, before, after)
		}
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		return int(version), fmt.Errorf("upgrade event store %s: commit: %w", path, err)
	}
	return int(version), nil
}
