package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"relayer/eventstore/internal/columns"
)

// migrations returns the store's schema as steps: step i brings a schema at format version i to
// version i+1. Add steps; never change one that has shipped. The version a schema is at is
// kept in its store_migrations table.
//
// Format 1. position is assigned by the writer, head+1, head+2, ..., under the append lock (see
// writer.go), so positions are gapless and follow commit order. recorded_at is Unix
// nanoseconds, UTC, as the sqlite store keeps it: any time.Time in the years 1678 to 2262 comes
// back exactly (timestamptz would keep microseconds). data is json, not jsonb: the server
// checks it and keeps the text as given, byte for byte, and reads need not check it again. The
// UNIQUE (stream, version) index serves stream reads and the writer's version look-ups, and
// stops a second event from ever taking a stream version. The CHECKs keep rows a reader could
// not return as records out of the table.
func migrations(schema string) []string {
	q := pgx.Identifier{schema}.Sanitize()
	return []string{
		`CREATE TABLE ` + q + `.events (
			position       bigint  PRIMARY KEY CHECK (position >= 1),
			stream         text    NOT NULL CHECK (stream <> ''),
			version        bigint  NOT NULL CHECK (version >= 0),
			type           text    NOT NULL CHECK (type <> ''),
			schema_version integer NOT NULL CHECK (schema_version >= 1),
			data           json    NOT NULL,
			correlation_id text,
			causation_id   text,
			recorded_at    bigint  NOT NULL,
			UNIQUE (stream, version)
		)`,
	}
}

// migrateLockKey is the advisory lock that orders the migrations of one schema; the key is
// computed by the server from this prefix and the schema name (advisory locks taken with one
// bigint key never conflict with the two-integer append lock).
const migrateLockKey = `relayer eventstore migrate `

// migrate creates the schema, its tables and anything newer formats add, in one transaction
// under an advisory lock on the schema's name, so that two stores opening a new schema at once
// cannot both create it. It refuses a schema at a newer format than this build knows, and, unless
// create, one that holds no store (ErrNoStore), creating nothing.
func migrate(ctx context.Context, conn *pgx.Conn, schema string, create bool) (err error) {
	q := pgx.Identifier{schema}.Sanitize()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, migrateLockKey+schema); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}
	// Create only what is missing: CREATE ... IF NOT EXISTS would need the right to create
	// even when everything exists already.
	var hasSchema, hasTable bool
	if err := tx.QueryRow(ctx, `SELECT to_regnamespace($1) IS NOT NULL, to_regclass($2) IS NOT NULL`,
		q, q+`.store_migrations`).Scan(&hasSchema, &hasTable); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if !hasTable && !create {
		return ErrNoStore
	}
	if !hasSchema {
		if _, err := tx.Exec(ctx, `CREATE SCHEMA `+q); err != nil {
			return fmt.Errorf("migrate: create schema: %w", err)
		}
	}
	if !hasTable {
		if _, err := tx.Exec(ctx, `CREATE TABLE `+q+`.store_migrations (
			version    integer     PRIMARY KEY,
			applied_at timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
			return fmt.Errorf("migrate: create store_migrations: %w", err)
		}
	}
	var version int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM `+q+`.store_migrations`).Scan(&version); err != nil {
		return fmt.Errorf("migrate: read format version: %w", err)
	}
	steps := migrations(schema)
	if version > len(steps) {
		return fmt.Errorf("format version %d is newer than this build reads (%d); upgrade the program", version, len(steps))
	}
	for v := version; v < len(steps); v++ {
		if _, err := tx.Exec(ctx, steps[v]); err != nil {
			return fmt.Errorf("migrate to format version %d: %w", v+1, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO `+q+`.store_migrations (version) VALUES ($1)`, v+1); err != nil {
			return fmt.Errorf("migrate to format version %d: %w", v+1, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("migrate: commit: %w", err)
	}
	return nil
}

// queries are the store's statements, with its schema written in (statements cannot take a
// schema as a parameter). pgx prepares each once per connection.
type queries struct {
	head string
	// size is the bytes of the events table with its indexes and TOAST.
	size string
	// lock takes the append lock (see writer.go): the class and the events table's oid.
	lock string
	// state reads the head and the versions of the streams in $1 (-1 for a stream with no
	// events), under the lock.
	state string
	// insert writes one batch of events: $1 is the head before them, the arrays hold one
	// element per event; a NULL recorded-at is the statement's time.
	insert string
	// insertIf is insert when the head is still $1 and the streams in $10 are still at the
	// versions in $11 (-1 for no events), and inserts nothing otherwise: the writer's one-round-
	// trip append, with the head and versions it expects (see writer.go).
	insertIf string
	notify   string
	// notifyIf is notify when the event at position $2 is in stream $3 at version $4: after a
	// guessed insert, it notifies when the insert wrote its first row, and not for a
	// transaction that wrote nothing (the subscribers would wake up for nothing).
	notifyIf string
	// version reads the version of stream $1, -1 when it has no events.
	version string
	// allPage reads the events at positions after $1 up to $2, at most $3 of them.
	allPage string
	// streamPage reads the events of stream $1 from version $2 on, at most $3 of them.
	streamPage string
}

func newQueries(schema string) queries {
	events := pgx.Identifier{schema, "events"}.Sanitize()
	insert := `INSERT INTO ` + events + ` (` + columns.List + `) ` +
		`SELECT $1::bigint + r.n, r.stream, r.version, r.type, r.schema_version, r.data, ` +
		`nullif(r.correlation_id, ''), nullif(r.causation_id, ''), ` +
		`coalesce(r.recorded_at, (extract(epoch FROM statement_timestamp()) * 1000000)::bigint * 1000) ` +
		`FROM unnest($2::text[], $3::bigint[], $4::text[], $5::integer[], $6::json[], $7::text[], $8::text[], $9::bigint[]) ` +
		`WITH ORDINALITY AS r(stream, version, type, schema_version, data, correlation_id, causation_id, recorded_at, n)`
	return queries{
		head: `SELECT coalesce(max(position), 0) FROM ` + events,
		size: `SELECT pg_total_relation_size('` + strings.ReplaceAll(events, "'", "''") + `'::regclass)`,
		lock: `SELECT pg_advisory_xact_lock($1::integer, $2::integer)`,
		state: `SELECT (SELECT coalesce(max(position), 0) FROM ` + events + `), ` +
			`(SELECT coalesce(array_agg(v.version ORDER BY s.i), '{}') FROM unnest($1::text[]) WITH ORDINALITY AS s(stream, i) ` +
			`CROSS JOIN LATERAL (SELECT coalesce(max(e.version), -1) AS version FROM ` + events + ` e WHERE e.stream = s.stream) v)`,
		insert: insert,
		notify: `SELECT pg_notify($1, '')`,
		notifyIf: `SELECT pg_notify($1, '') WHERE EXISTS (SELECT 1 FROM ` + events +
			` WHERE position = $2 AND stream = $3 AND version = $4)`,
		insertIf: insert + ` WHERE (SELECT coalesce(max(position), 0) FROM ` + events + `) = $1 ` +
			`AND NOT EXISTS (SELECT 1 FROM unnest($10::text[], $11::bigint[]) AS g(stream, version) ` +
			`WHERE (SELECT coalesce(max(e.version), -1) FROM ` + events + ` e WHERE e.stream = g.stream) <> g.version)`,
		version:    `SELECT coalesce(max(version), -1) FROM ` + events + ` WHERE stream = $1`,
		allPage:    `SELECT ` + columns.List + ` FROM ` + events + ` WHERE position > $1 AND position <= $2 ORDER BY position LIMIT $3`,
		streamPage: `SELECT ` + columns.List + ` FROM ` + events + ` WHERE stream = $1 AND version >= $2 ORDER BY version LIMIT $3`,
	}
}
