package archive

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"

	"relayer/eventstore"
)

// row is one record as a Parquet row. The columns are named for the queries an auditor writes
// (DuckDB: SELECT stream, type, recorded_at FROM 'segment-*.parquet' WHERE ...). Positions and
// versions are signed 64-bit, which every Parquet reader knows; recorded_at keeps the store's
// nanoseconds, in UTC; data is the event's JSON, byte for byte.
type row struct {
	Position      int64  `parquet:"position,delta"`
	Stream        string `parquet:"stream,dict"`
	Version       int64  `parquet:"version,delta"`
	Type          string `parquet:"type,dict"`
	SchemaVersion int32  `parquet:"schema_version"`
	Data          string `parquet:"data"`
	CorrelationID string `parquet:"correlation_id,dict"`
	CausationID   string `parquet:"causation_id"`
	RecordedAt    int64  `parquet:"recorded_at,timestamp(nanosecond),delta"`
}

// Segment files are Zstandard-compressed: on five-event jobs a file is about 40% smaller than
// with Snappy, at a half to a fifth of its encoding rate, still far above what archiving needs
// (BenchmarkEncodeSegment, docs/BENCHMARKS.md); and the readers an auditor uses decode it
// (DuckDB, Arrow, Spark, Polars natively; hyparquet with hyparquet-compressors).
var segmentCodec compress.Codec = &parquet.Zstd

// encodeSegment writes records as one Parquet file, compressed with codec. A record whose data
// is not JSON (damaged in the store since its append: reads do not check it) is refused.
func encodeSegment(records []eventstore.Record, codec compress.Codec) ([]byte, error) {
	rows := make([]row, len(records))
	for i, r := range records {
		if uint64(r.Position) > math.MaxInt64 || r.Version < 0 {
			return nil, fmt.Errorf("record %s@%d (position %d): position or version out of range", r.Stream, r.Version, r.Position)
		}
		if err := eventstore.CheckData(r); err != nil {
			return nil, err
		}
		at := r.Metadata.RecordedAt
		if at.Before(minRecordedAt) || at.After(maxRecordedAt) {
			return nil, fmt.Errorf("record %s@%d (position %d): recorded at %v, outside the years 1678 to 2262 a nanosecond timestamp holds",
				r.Stream, r.Version, r.Position, at)
		}
		rows[i] = row{
			Position:      int64(r.Position),
			Stream:        r.Stream,
			Version:       int64(r.Version),
			Type:          r.Type,
			SchemaVersion: int32(r.SchemaVersion),
			Data:          string(r.Data),
			CorrelationID: r.Metadata.CorrelationID,
			CausationID:   r.Metadata.CausationID,
			RecordedAt:    at.UnixNano(),
		}
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf,
		parquet.Compression(codec),
		parquet.CreatedBy("relayer archive", "1", ""),
	)
	if _, err := w.Write(rows); err != nil {
		return nil, fmt.Errorf("encode segment: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("encode segment: %w", err)
	}
	return buf.Bytes(), nil
}

var (
	minRecordedAt = time.Unix(0, math.MinInt64).Add(time.Second)
	maxRecordedAt = time.Unix(0, math.MaxInt64).Add(-time.Second)
)

// decodeSegment reads a Parquet file written by encodeSegment.
func decodeSegment(data []byte) (records []eventstore.Record, err error) {
	// parquet-go panics on some malformed input; a corrupt file is an error, not a crash.
	defer func() {
		if p := recover(); p != nil {
			records, err = nil, fmt.Errorf("decode segment: %v", p)
		}
	}()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("decode segment: %w", err)
	}
	r := parquet.NewGenericReader[row](f)
	defer r.Close()
	n := r.NumRows()
	if n < 0 || n > int64(len(data)) { // a row takes at least a byte: a larger count is corrupt
		return nil, fmt.Errorf("decode segment: %d rows in %d bytes", n, len(data))
	}
	rows := make([]row, n)
	read := 0
	for read < len(rows) {
		k, err := r.Read(rows[read:])
		read += k
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("decode segment: %w", err)
		}
		if k == 0 {
			break
		}
	}
	if read != len(rows) {
		return nil, fmt.Errorf("decode segment: read %d of %d rows", read, len(rows))
	}
	records = make([]eventstore.Record, len(rows))
	for i, x := range rows {
		records[i] = eventstore.Record{
			Stream:        x.Stream,
			Version:       eventstore.Version(x.Version),
			Position:      eventstore.Position(x.Position),
			Type:          x.Type,
			SchemaVersion: int(x.SchemaVersion),
			Data:          []byte(x.Data),
			Metadata: eventstore.Metadata{
				CorrelationID: x.CorrelationID,
				CausationID:   x.CausationID,
				RecordedAt:    time.Unix(0, x.RecordedAt).UTC(),
			},
		}
	}
	return records, nil
}

// sameRecord reports how a differs from b, or "" when they are the same record.
func sameRecord(a, b eventstore.Record) string {
	switch {
	case a.Stream != b.Stream:
		return "stream"
	case a.Version != b.Version:
		return "version"
	case a.Position != b.Position:
		return "position"
	case a.Type != b.Type:
		return "type"
	case a.SchemaVersion != b.SchemaVersion:
		return "schema version"
	case !bytes.Equal(a.Data, b.Data):
		return "data"
	case a.Metadata.CorrelationID != b.Metadata.CorrelationID:
		return "correlation id"
	case a.Metadata.CausationID != b.Metadata.CausationID:
		return "causation id"
	case !a.Metadata.RecordedAt.Equal(b.Metadata.RecordedAt):
		return "recorded at"
	}
	return ""
}
