package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"relayer/eventstore"
	"relayer/eventstore/internal/columns"
	"relayer/eventstore/internal/storebench"
)

// Run with: go test -run '^$' -bench . -benchtime 20000x -count 3 ./eventstore/postgres/
//
// BenchmarkAppend64 measures the store as the relayer uses it: 64 goroutines, each appending
// one event (about 300 bytes) at a time to a new stream, durably (synchronous_commit on); it
// reports events/s and the appends each transaction carried.
//
// BenchmarkAppendVsRaw runs Append64 and, on the same b.N, the raw baseline: the same rows
// inserted into a table of the same shape (same columns, same indexes) over the same number of
// connections as appenders (64), each connection committing multi-row INSERTs of rawRowsPerTx
// rows, with positions from a shared counter and no version checks, no ordering and no
// lock. It reports both rates and their ratio (events/s over rows/s).
//
// BenchmarkAppend64TwoStores is Append64 through two stores on one schema (as two processes
// would be), 32 appenders each: their writers take turns at the append lock.
//
// BenchmarkReadAll measures ReadAll streaming a log of storebench.ReadLogEvents events, in events/s and
// this process's CPU time per event (the server's share is not in it).

const (
	appenders    = 64
	rawRowsPerTx = 64
)

// benchData is a typical event payload: with the type and the ids, about 300 bytes an event.
var benchData = json.RawMessage(`{"jobId":"7f9c2d1e-4b3a-4c8e-9f10-2a6b5c4d3e21","kind":"input-proof","status":"processing",` +
	`"contentHash":"0x5be8c3a1d07f4e2b9c6a1f0e3d2b7c4a5be8c3a1d07f4e2b9c6a1f0e3d2b7c4a","gatewayRequestId":"gw-123456789","attempt":1}`)

func benchEvent() eventstore.Event {
	return eventstore.Event{
		Type:          "relay.requested",
		SchemaVersion: 1,
		Data:          benchData,
		Metadata:      eventstore.Metadata{CorrelationID: "corr-0123456789abcdef", CausationID: "cmd-0123456789abcdef"},
	}
}

func openBench(b *testing.B, loc string) *Store {
	b.Helper()
	s, err := Open(context.Background(), loc, Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func BenchmarkAppend64(b *testing.B) {
	s := openBench(b, withSchema(testURL(), newSchema(b)))
	b.ResetTimer()
	elapsed := storebench.AppendMany(b, b.N, appenders, benchEvent(), s)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
	storebench.ReportBatches(b, s.w.q)
}

func BenchmarkAppend64TwoStores(b *testing.B) {
	loc := withSchema(testURL(), newSchema(b))
	s1, s2 := openBench(b, loc), openBench(b, loc)
	b.ResetTimer()
	elapsed := storebench.AppendMany(b, b.N, appenders, benchEvent(), s1, s2)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
	storebench.ReportBatches(b, s1.w.q, s2.w.q)
}

// rawInsertMany inserts n rows shaped like appendMany's events into a table shaped like the
// store's, over conns connections, each committing multi-row INSERTs of rowsPerTx rows, and
// returns how long it took.
func rawInsertMany(b *testing.B, schema string, n, conns, rowsPerTx int) time.Duration {
	b.Helper()
	ctx := context.Background()
	// Create the store's table the way Open does, then a copy of it to write to.
	s, err := Open(ctx, withSchema(testURL(), schema), Config{})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	raw := pgx.Identifier{schema, "raw_events"}.Sanitize()
	cfg, err := pgxpool.ParseConfig(testURL())
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = int32(conns)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `CREATE TABLE `+raw+` (LIKE `+pgx.Identifier{schema, "events"}.Sanitize()+` INCLUDING ALL)`); err != nil {
		b.Fatal(err)
	}
	var q strings.Builder
	q.WriteString(`INSERT INTO ` + raw + ` (` + columns.List + `) VALUES `)
	for i := range rowsPerTx {
		if i > 0 {
			q.WriteString(", ")
		}
		p := i * columns.Count
		fmt.Fprintf(&q, "($%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d)", p+1, p+2, p+3, p+4, p+5, p+6, p+7, p+8, p+9)
	}
	insert := q.String()

	ev := benchEvent()
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range conns {
		wg.Go(func() {
			args := make([]any, 0, rowsPerTx*columns.Count)
			for {
				first := next.Add(int64(rowsPerTx)) - int64(rowsPerTx)
				if first >= int64(n) {
					return
				}
				args = args[:0]
				now := time.Now().UnixNano()
				for i := first; i < first+int64(rowsPerTx); i++ {
					// Past n, fill the statement with rows of their own; they are few (less
					// than rowsPerTx) and the rate counts only n.
					args = append(args, i+1, "relay-"+strconv.FormatInt(i, 10), int64(0), ev.Type, int32(ev.SchemaVersion),
						[]byte(ev.Data), ev.Metadata.CorrelationID, ev.Metadata.CausationID, now)
				}
				// One statement outside an explicit transaction commits on its own.
				if _, err := pool.Exec(ctx, insert, args...); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// BenchmarkRawInsert64 is the raw baseline alone.
func BenchmarkRawInsert64(b *testing.B) {
	schema := newSchema(b)
	b.ResetTimer()
	elapsed := rawInsertMany(b, schema, b.N, appenders, rawRowsPerTx)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "rows/s")
}

// BenchmarkAppendVsRaw appends b.N events through the store, then inserts b.N raw rows into
// another schema, and reports both rates and their ratio (events/s over rows/s).
func BenchmarkAppendVsRaw(b *testing.B) {
	s := openBench(b, withSchema(testURL(), newSchema(b)))
	rawSchema := newSchema(b)
	b.ResetTimer()
	appendTime := storebench.AppendMany(b, b.N, appenders, benchEvent(), s)
	rawTime := rawInsertMany(b, rawSchema, b.N, appenders, rawRowsPerTx)
	storebench.ReportVsRaw(b, appendTime, rawTime)
	storebench.ReportBatches(b, s.w.q)
}

// readLog returns the location of a store holding storebench.ReadLogEvents events shaped like the
// relayer's (a few events per stream, about 400 bytes of JSON each), written straight into
// the table with COPY.
func readLog(b *testing.B) string {
	b.Helper()
	ctx := context.Background()
	schema := newSchema(b)
	loc := withSchema(testURL(), schema)
	s, err := Open(ctx, loc, Config{})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, testURL())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	var rows [][]any
	storebench.RelayerLog(storebench.ReadLogEvents, func(pos int, stream string, version int, ev eventstore.Event) {
		m := ev.Metadata
		rows = append(rows, []any{int64(pos), stream, int64(version), ev.Type, int32(ev.SchemaVersion), string(ev.Data), m.CorrelationID, m.CausationID, m.RecordedAt.UnixNano()})
	})
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{schema, "events"}, strings.Split(columns.List, ", "), pgx.CopyFromRows(rows)); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `VACUUM ANALYZE `+pgx.Identifier{schema, "events"}.Sanitize()); err != nil {
		b.Fatal(err)
	}
	return loc
}

// BenchmarkReadAll measures ReadAll streaming the log with nothing done with the records: one
// op is one event (the log is read again from the start as often as b.N needs), so B/op and
// allocs/op are per event. It reports events/s and the CPU time this process spent per event
// (cpu-ns/event: all goroutines, the read-ahead one included); the server's share is not in it.
func BenchmarkReadAll(b *testing.B) {
	loc := readLog(b)
	s := openBench(b, loc)
	storebench.ReadAll(b, s)
}
