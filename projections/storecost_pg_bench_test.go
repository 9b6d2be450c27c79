package projections

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"relayer/eventstore"
	"relayer/eventstore/postgres"
	"relayer/eventstore/postgres/pgtest"
)

// BenchmarkStoreCostPostgres is BenchmarkStoreCost on PostgreSQL (run it with -benchtime 1x):
// the same history from 64 goroutines, written by
//
//   - event-store: our PostgreSQL store, as serve opens it;
//   - status-table: the reference's design, a jobs table with a status column, an INSERT for
//     the acceptance and an UPDATE ... WHERE id = ? AND status = ? per later command, each
//     statement its own transaction, from a pool of 64 connections;
//   - status-table-grouped: the same statements committed by one writer, up to 64 per
//     transaction, sent in one round trip (a pgx batch);
//   - status-table-grouped-indexed: the same with the index on status its queue queries need.
//
// Each design writes into a fresh schema of the test database. It reports transitions/s, this
// process's CPU per transition (the server's is not in it) and the WAL the server wrote per
// transition (pg_current_wal_insert_lsn before and after: anything else the server did
// meanwhile counts too).
func BenchmarkStoreCostPostgres(b *testing.B) {
	queues, transitions := storeCostHistory(b)
	runStoreCost(b, queues, transitions, storeCostDesigns(writePostgresEventStore, writePostgresStatusTable), storeCostTarget{
		cpuMetric: "client-cpu-µs/transition", bytesMetric: "wal-bytes/transition",
		// A fresh schema of the test database; the WAL the server wrote meanwhile.
		open: func(b *testing.B) (string, func() int64) {
			url := pgtest.URL(b, "storecost")
			lsn0 := walInsertLSN(b, url)
			return url, func() int64 { return walSince(b, url, lsn0) }
		},
	})
}

func walInsertLSN(b *testing.B, url string) string {
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(context.Background())
	var lsn string
	if err := conn.QueryRow(context.Background(), `SELECT pg_current_wal_insert_lsn()::text`).Scan(&lsn); err != nil {
		b.Fatal(err)
	}
	return lsn
}

func walSince(b *testing.B, url, lsn string) int64 {
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int64
	if err := conn.QueryRow(context.Background(), `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::bigint`, lsn).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

func writePostgresEventStore(b *testing.B, url string, queues [][]encodedAppend) {
	ctx := context.Background()
	store, err := postgres.Open(ctx, url, postgres.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	run(b, queues, func(a *encodedAppend) error {
		_, err := store.Append(ctx, a.stream, a.expected, a.events...)
		return err
	})
}

// writePostgresStatusTable writes the history as status changes of a jobs table: each
// statement its own transaction from 64 connections, or (grouped) committed by one writer up
// to 64 at a time.
func writePostgresStatusTable(b *testing.B, url string, queues [][]encodedAppend, grouped, indexed bool) {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = int32(len(queues))
	if grouped {
		cfg.MaxConns = 1
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{cfg.ConnConfig.RuntimeParams["search_path"]}.Sanitize()); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE jobs (id text PRIMARY KEY, status text NOT NULL, detail bytea NOT NULL, created_at bigint NOT NULL, updated_at bigint NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	if indexed {
		if _, err := pool.Exec(ctx, `CREATE INDEX jobs_status ON jobs (status, updated_at)`); err != nil {
			b.Fatal(err)
		}
	}
	const (
		insert = `INSERT INTO jobs (id, status, detail, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)`
		update = `UPDATE jobs SET status = $1, detail = $2, updated_at = $3 WHERE id = $4 AND status = $5`
	)
	// statement returns a's statement and its arguments.
	statement := func(a *encodedAppend) (string, []any) {
		now := time.Now().UnixNano()
		if a.expected == eventstore.NoStream {
			return insert, []any{a.job.String(), a.status, a.payload, now, now}
		}
		return update, []any{a.status, a.payload, now, a.job.String(), a.before}
	}
	checkOne := func(a *encodedAppend, rows int64) error {
		if a.expected != eventstore.NoStream && rows != 1 {
			return fmt.Errorf("update %s from %s: %d rows", a.job, a.before, rows)
		}
		return nil
	}
	if !grouped {
		run(b, queues, func(a *encodedAppend) error {
			q, args := statement(a)
			tag, err := pool.Exec(ctx, q, args...)
			if err != nil {
				return err
			}
			return checkOne(a, tag.RowsAffected())
		})
		return
	}
	// One writer, one transaction and one round trip (a pgx batch) a batch.
	runGrouped(b, queues, func(batch []*encodedAppend) error {
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			var pb pgx.Batch
			for _, a := range batch {
				q, args := statement(a)
				pb.Queue(q, args...)
			}
			res := tx.SendBatch(ctx, &pb)
			for _, a := range batch {
				tag, err := res.Exec()
				if err == nil {
					err = checkOne(a, tag.RowsAffected())
				}
				if err != nil {
					_ = res.Close()
					return err
				}
			}
			return res.Close()
		})
	})
}
