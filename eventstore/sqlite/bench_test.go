package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"relayer/eventstore"
	"relayer/eventstore/internal/storebench"
)

// Run with: go test -run '^$' -bench . -count=3 ./eventstore/sqlite/
//
// BenchmarkAppend64 measures the store as the relayer uses it: 64 goroutines, each appending
// one event at a time to a new stream, on a durable file (WAL, synchronous=FULL); it reports
// events/s and the appends each transaction carried.
//
// BenchmarkRawBatchedInsert is the ceiling: the same rows written by one goroutine straight
// into the same kind of file (same schema, same pragmas), rawBatch rows per transaction, with
// the writer's own multi-row INSERT statements, no version checks and no hand-off between
// goroutines. BenchmarkAppendVsRaw runs Append64 and this baseline back to back on the same
// b.N and reports both rates and their ratio.
//
// Two more baselines explain the ratio: BenchmarkRawBatchedInsert64 caps transactions at 64
// rows, the most 64 appenders waiting for their acknowledgements can ever put in one
// transaction, and BenchmarkRawBatchedInsertSingleRow batches the common way, one single-row
// INSERT per row.
//
// BenchmarkReadAll measures the read side: ReadAll streaming a log of storebench.ReadLogEvents events,
// in events/s and CPU time per event.

const (
	appenders = 64
	rawBatch  = 256
)

// benchData is a typical event payload (about 120 bytes of JSON).
const benchData = (`{"relayId":"7f9c2d1e-4b3a-4c8e-9f10-2a6b5c4d3e21","amount":125000,"currency":"EUR","attempt":1}`)

func benchEvent() eventstore.Event {
	return eventstore.Event{
		Type:          "relay.requested",
		SchemaVersion: 1,
		Data:          json.RawMessage(benchData),
		Metadata:      eventstore.Metadata{CorrelationID: "corr-0123456789", CausationID: "cmd-0123456789"},
	}
}

// rawInsertMany writes n rows shaped like appendMany's events into a new store file with plain
// batched INSERTs, rowsPerTx rows per transaction, and returns how long it took. With multiRow
// it uses the writer's statements (up to 128 rows each), else one prepared single-row INSERT
// per row.
func rawInsertMany(b *testing.B, path string, n, rowsPerTx int, multiRow bool) time.Duration {
	b.Helper()
	ctx := context.Background()
	// Create the file and its schema the way Open does, then write with a connection of our own.
	s, err := Open(path, Config{})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	cfg := Config{}
	cfg.setDefaults()
	db, err := sql.Open("sqlite", dsn(path, cfg, false))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()

	ev := benchEvent()
	events := newInsertStatements(insertEventsPrefix, eventColumns)
	streams := newInsertStatements(insertStreamsPrefix, 2)
	defer func() {
		for _, st := range append(events.stmts, streams.stmts...) {
			if st != nil {
				st.Close()
			}
		}
	}()
	insert := func(to *insertStatements, args []any) {
		if multiRow {
			if err := to.exec(ctx, conn, args); err != nil { // as the writer does
				b.Fatal(err)
			}
			return
		}
		st, err := to.stmt(ctx, conn, 1)
		if err != nil {
			b.Fatal(err)
		}
		for off := 0; off < len(args); off += to.columns {
			if _, err := st.ExecContext(ctx, args[off:off+to.columns]...); err != nil {
				b.Fatal(err)
			}
		}
	}
	args := make([]any, 0, rowsPerTx*eventColumns)
	streamArgs := make([]any, 0, rowsPerTx*2)
	start := time.Now()
	for done := 0; done < n; {
		rows := min(rowsPerTx, n-done)
		if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
			b.Fatal(err)
		}
		now := time.Now().UnixNano()
		args, streamArgs = args[:0], streamArgs[:0]
		for i := done; i < done+rows; i++ {
			stream := "relay-" + strconv.Itoa(i)
			streamArgs = append(streamArgs, int64(i+1), stream)
			args = append(args, int64(i+1), int64(i+1), stream, int64(0), ev.Type, int64(ev.SchemaVersion),
				[]byte(ev.Data), ev.Metadata.CorrelationID, ev.Metadata.CausationID, now)
		}
		insert(&streams, streamArgs)
		insert(&events, args)
		if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
			b.Fatal(err)
		}
		done += rows
	}
	return time.Since(start)
}

func openBench(b *testing.B) *Store {
	b.Helper()
	s, err := Open(filepath.Join(b.TempDir(), "bench.db"), Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func BenchmarkAppend64(b *testing.B) {
	s := openBench(b)
	b.ResetTimer()
	elapsed := storebench.AppendMany(b, b.N, appenders, benchEvent(), s)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
	storebench.ReportBatches(b, s.w.q)
}

// benchRawInsert inserts b.N raw rows into a new file as rawInsertMany does, rowsPerTx rows per
// transaction, and reports rows/s.
func benchRawInsert(b *testing.B, rowsPerTx int, multiRow bool) {
	path := filepath.Join(b.TempDir(), "raw.db")
	b.ResetTimer()
	elapsed := rawInsertMany(b, path, b.N, rowsPerTx, multiRow)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "rows/s")
}

// BenchmarkRawBatchedInsert is the raw baseline: the writer's multi-row INSERTs, rawBatch rows
// per transaction, with none of the store around them.
func BenchmarkRawBatchedInsert(b *testing.B) {
	benchRawInsert(b, rawBatch, true)
}

// BenchmarkRawBatchedInsert64 is the raw baseline at the transaction size 64 appenders can
// reach at best: the gap between it and BenchmarkRawBatchedInsert is the cost of smaller
// transactions (one fsync per 64 rows instead of 256), the gap between it and
// BenchmarkAppend64 is the cost of the store itself.
func BenchmarkRawBatchedInsert64(b *testing.B) {
	benchRawInsert(b, appenders, true)
}

// BenchmarkRawBatchedInsertSingleRow is the common way to batch inserts, one prepared
// single-row INSERT per row, rawBatch rows per transaction: a weaker baseline than
// BenchmarkRawBatchedInsert, for context only.
func BenchmarkRawBatchedInsertSingleRow(b *testing.B) {
	benchRawInsert(b, rawBatch, false)
}

// BenchmarkAppendVsRaw appends b.N events through the store, then inserts b.N raw rows into
// another file, and reports both rates and their ratio (events/s over rows/s).
func BenchmarkAppendVsRaw(b *testing.B) {
	s := openBench(b)
	rawPath := filepath.Join(b.TempDir(), "raw.db")
	b.ResetTimer()
	appendTime := storebench.AppendMany(b, b.N, appenders, benchEvent(), s)
	rawTime := rawInsertMany(b, rawPath, b.N, rawBatch, true)
	storebench.ReportVsRaw(b, appendTime, rawTime)
	storebench.ReportBatches(b, s.w.q)
}

// readLog returns the path of a store holding storebench.ReadLogEvents events shaped like the relayer's (a
// few events per stream, about 400 bytes of JSON each), creating it on first use. It is cached in
// the system's temporary directory across runs, under a name that says what it holds and in
// which format; it is written under a temporary name and renamed when complete.
func readLog(b *testing.B) string {
	b.Helper()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("relayer-sqlite-readall-v1-format%d-%d.db", FormatVersion, storebench.ReadLogEvents))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	s, err := Open(tmp, Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var batch []eventstore.StreamAppend
	flush := func() {
		_, errs := s.AppendBatch(context.Background(), batch)
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		batch = batch[:0]
	}
	storebench.RelayerLog(storebench.ReadLogEvents, func(_ int, stream string, version int, ev eventstore.Event) {
		batch = append(batch, eventstore.StreamAppend{Stream: stream, Expected: eventstore.Version(version) - 1, Events: []eventstore.Event{ev}})
		if len(batch) >= 4096 {
			flush()
		}
	})
	flush()
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkReadAll measures ReadAll streaming the log with nothing done with the records: one
// op is one event (the log is read again from the start as often as b.N needs), so B/op and
// allocs/op are per event. It reports events/s and the CPU time the process spent per event
// (cpu-ns/event: all goroutines, the read-ahead one included), which says more than the wall
// clock on a busy machine.
func BenchmarkReadAll(b *testing.B) {
	path := readLog(b)
	s, err := Open(path, Config{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storebench.ReadAll(b, s)
}

// BenchmarkSubscribeLive appends b.N events with 64 appenders while two subscriptions follow the
// log live, as the relayer's projections and dispatcher do, and reports the process's CPU time
// per event (cpu-ns/event: the appends, the writer and both subscribers). source=tail is the
// store as it is, its subscribers taking what its writer just committed from the tail;
// source=file is the same store with the tail out of the subscribers' reach, so that they read
// every commit back from the file (a head query and a window query each).
func BenchmarkSubscribeLive(b *testing.B) {
	for _, source := range []string{"file", "tail"} {
		b.Run("source="+source, func(b *testing.B) {
			s := openBench(b)
			if source == "file" {
				s.tail = nil // the writer still fills its own: the cost of filling it is in both
			}
			const subscribers = 2
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var wg sync.WaitGroup
			var got [subscribers]int
			for i := range subscribers {
				wg.Go(func() {
					for _, err := range s.SubscribeAll(ctx, 0) {
						if err != nil {
							if ctx.Err() == nil {
								b.Error(err)
							}
							return
						}
						if got[i]++; got[i] == b.N {
							return
						}
					}
				})
			}
			cpu0, cpuOK := storebench.CPUTime()
			b.ResetTimer()
			storebench.AppendMany(b, b.N, appenders, benchEvent(), s)
			wg.Wait()
			b.StopTimer()
			if cpu1, ok := storebench.CPUTime(); ok && cpuOK {
				b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/event")
			}
		})
	}
}
