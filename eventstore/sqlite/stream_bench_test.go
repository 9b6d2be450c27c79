package sqlite

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"relayer/eventstore/internal/storebench"
)

// BenchmarkReadStream reads whole streams (six events each) of BenchmarkReadAll's log, picked at
// random, as the API reads a job's history and the executor loads a job before deciding: one op
// is one stream read to its end. first-read reads them through a store that has not met them
// (as after a restart); known through one that has (serve's case: its writer appended them),
// here by asking each stream's version first. BenchmarkStreamVersion reads a random stream's
// version.
func BenchmarkReadStream(b *testing.B) {
	for _, known := range []bool{false, true} {
		name := "first-read"
		if known {
			name = "known"
		}
		b.Run(name, func(b *testing.B) {
			s, streams := openReadLog(b)
			ctx := context.Background()
			if known {
				for _, stream := range streams {
					if _, err := s.StreamVersion(ctx, stream); err != nil {
						b.Fatal(err)
					}
				}
			}
			rng := rand.New(rand.NewPCG(3, 4))
			b.ReportAllocs()
			b.ResetTimer()
			cpu0, _ := storebench.CPUTime()
			events := 0
			for b.Loop() {
				for _, err := range s.ReadStream(ctx, streams[rng.IntN(len(streams))], 0) {
					if err != nil {
						b.Fatal(err)
					}
					events++
				}
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			reportCPU(b, cpu0)
		})
	}
}

func BenchmarkStreamVersion(b *testing.B) {
	s, streams := openReadLog(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, _ := storebench.CPUTime()
	for b.Loop() {
		if v, err := s.StreamVersion(ctx, streams[rng.IntN(len(streams))]); err != nil || v < 0 {
			b.Fatal(v, err)
		}
	}
	reportCPU(b, cpu0)
}

// reportCPU reports the CPU time the process spent per op since cpu0 (all goroutines: the
// read-ahead one included), which says more than the wall clock on a busy machine.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	if cpu1, ok := storebench.CPUTime(); ok {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
	}
}

// openReadLog opens BenchmarkReadAll's log read-only and lists its streams.
func openReadLog(b *testing.B) (*Store, []string) {
	b.Helper()
	s, err := Open(readLog(b), Config{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	var streams []string
	for r, err := range s.ReadAll(context.Background(), 0) {
		if err != nil {
			b.Fatal(err)
		}
		if r.Version == 0 {
			streams = append(streams, r.Stream)
		}
	}
	return s, streams
}
