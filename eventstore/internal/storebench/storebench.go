// Package storebench is what the SQLite and PostgreSQL stores' benchmarks share: appenders
// racing to append, a log streamed by ReadAll, and the process's CPU time, which says more
// than the wall clock on a busy machine. Only benchmarks import it.
package storebench

import (
	"context"
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
