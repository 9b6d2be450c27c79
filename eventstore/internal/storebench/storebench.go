// Package storebench is what the SQLite and PostgreSQL stores' benchmarks share: appenders
// racing to append, a log streamed by ReadAll, and the process's CPU time, which says more
// than the wall clock on a busy machine. Only benchmarks import it.
package storebench

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"relayer/eventstore"
	"relayer/eventstore/internal/groupcommit"
)

// AppendMany appends n copies of ev, one per Append to a new stream ("relay-" and its number),
// from appenders goroutines spread over stores, and returns how long it took.
func AppendMany(b *testing.B, n, appenders int, ev eventstore.Event, stores ...eventstore.Store) time.Duration {
	b.Helper()
	ctx := context.Background()
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for g := range appenders {
		s := stores[g%len(stores)]
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				if _, err := s.Append(ctx, "relay-"+strconv.FormatInt(i, 10), eventstore.NoStream, ev); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// ReportBatches reports how many appends the writers' transactions carried on average
// (appends/tx).
func ReportBatches(b *testing.B, queues ...*groupcommit.Queue) {
	var batches, batched int64
	for _, q := range queues {
		batches += q.Batches.Load()
		batched += q.Batched.Load()
	}
	if batches > 0 {
		b.ReportMetric(float64(batched)/float64(batches), "appends/tx")
	}
}

// ReadLogEvents is the size of BenchmarkReadAll's log.
const ReadLogEvents = 200_000

// RelayerLog makes a log of n events shaped like the relayer's: job streams of a few events
// each (RequestAccepted to RequestCompleted), about 400 bytes of JSON per event. It hands add
// each event with its position (from 1), stream and version, in log order; every call makes
// the same log.
func RelayerLog(n int, add func(pos int, stream string, version int, ev eventstore.Event)) {
	types := []string{"RequestAccepted", "ReadinessCheckStarted", "ReadinessPassed", "TransactionSigned", "ReceiptRecorded", "RequestCompleted"}
	rng := rand.New(rand.NewPCG(1, 2))
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for pos := 1; pos <= n; {
		job := fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), rng.IntN(1<<12), rng.Uint64()&(1<<48-1))
		for v := 0; v < len(types) && pos <= n; v++ {
			at = at.Add(time.Duration(rng.IntN(int(time.Second))))
			hash := fmt.Sprintf("%016x%016x%016x%016x", rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64())
			data := fmt.Sprintf(`{"jobId":%q,"at":%q,"kind":"input-proof","status":"processing","contentHash":"0x%s","txHash":"0x%s","gatewayRequestId":"gw-%d","label":"attempt %d","message":"relayed to the gateway, waiting for its answer"}`,
				job, at.Format(time.RFC3339Nano), hash, hash[:64], rng.IntN(1e9), v)
			add(pos, "job-"+job, v, eventstore.Event{Type: types[v], SchemaVersion: 1, Data: json.RawMessage(data),
				Metadata: eventstore.Metadata{CorrelationID: "corr-" + job, CausationID: fmt.Sprintf("cmd-%d", pos), RecordedAt: at}})
			pos++
		}
	}
}

// ReportVsRaw reports the rates of b.N appends that took appendTime and of b.N raw rows that
// took rawTime, and their ratio (events/s over rows/s).
func ReportVsRaw(b *testing.B, appendTime, rawTime time.Duration) {
	events := float64(b.N) / appendTime.Seconds()
	rows := float64(b.N) / rawTime.Seconds()
	b.ReportMetric(events, "events/s")
	b.ReportMetric(rows, "rows/s")
	b.ReportMetric(events/rows, "ratio")
}

// ReadAll streams s's log with ReadAll, doing nothing with the records: one op is one event
// (the log is read again from the start as often as b.N needs), so B/op and allocs/op are per
// event. It reports events/s and the CPU time this process spent per event (cpu-ns/event: all
// goroutines, the read-ahead one included).
func ReadAll(b *testing.B, s eventstore.Store) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, cpuOK := CPUTime()
	n := 0
	for n < b.N {
		for _, err := range s.ReadAll(ctx, 0) {
			if err != nil {
				b.Fatal(err)
			}
			if n++; n == b.N {
				break
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	if cpu1, ok := CPUTime(); ok && cpuOK {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/event")
	}
}
