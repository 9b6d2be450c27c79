package archive_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/parquet-go/parquet-go/compress"

	"relayer/archive"
)

// BenchmarkWriteSegment archives a log of five-event jobs in segments of 10,000 events to a
// directory: encoding, the fsynced write, the read-back comparison and the manifest's update,
// all that a committed segment costs. It reports events/s, and the bytes per event of the
// Parquet file against the records as JSON (encoding/json of eventstore.Record, the size of the
// same records in a JSON-lines export).
func BenchmarkWriteSegment(b *testing.B) {
	const perSegment = 10_000
	log := logOf(perSegment/5, 9)[:perSegment]
	jsonBytes := 0
	for _, r := range log {
		j, err := json.Marshal(r)
		if err != nil {
			b.Fatal(err)
		}
		jsonBytes += len(j) + 1
	}
	ctx := context.Background()
	var parquetBytes int64
	segments := 0
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		store, err := archive.NewDir(fmt.Sprintf("%s/%d", b.TempDir(), segments))
		if err != nil {
			b.Fatal(err)
		}
		w, err := archive.Open(ctx, store, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		seg, err := w.Write(ctx, log[0].Position, log[len(log)-1].Position, log)
		if err != nil {
			b.Fatal(err)
		}
		parquetBytes = seg.Bytes
		segments++
	}
	b.ReportMetric(float64(segments*perSegment)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(parquetBytes)/perSegment, "parquet-B/event")
	b.ReportMetric(float64(jsonBytes)/perSegment, "json-B/event")
	b.ReportMetric(float64(jsonBytes)/float64(parquetBytes), "json/parquet")
}

// BenchmarkReadSegment reads the archive back (Read: checksum, decode, yield) from a directory.
func BenchmarkReadSegment(b *testing.B) {
	const perSegment = 10_000
	log := logOf(perSegment/5, 9)[:perSegment]
	ctx := context.Background()
	store, err := archive.NewDir(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	w, err := archive.Open(ctx, store, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.Write(ctx, log[0].Position, log[len(log)-1].Position, log); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	n := 0
	for b.Loop() {
		for _, err := range archive.Read(ctx, store, 0) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkEncodeSegment encodes 10,000 events with the segment codec (Zstandard) and with
// Snappy, the baseline, in the same run: events/s of encoding alone and bytes per event.
func BenchmarkEncodeSegment(b *testing.B) {
	const perSegment = 10_000
	log := logOf(perSegment/5, 9)[:perSegment]
	for _, c := range []struct {
		name  string
		codec compress.Codec
	}{{"zstd", archive.SegmentCodec}, {"snappy", archive.SnappyCodec}} {
		b.Run(c.name, func(b *testing.B) {
			var size int
			for b.Loop() {
				file, err := archive.EncodeSegment(log, c.codec)
				if err != nil {
					b.Fatal(err)
				}
				size = len(file)
			}
			b.ReportMetric(float64(b.N*perSegment)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(size)/perSegment, "B/event")
		})
	}
}
