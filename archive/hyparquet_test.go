package archive_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"relayer/archive"
	"relayer/workers/devchain/nodetest"
)

// TestHyparquetReadsEverySegmentRecordForRecord has the segments read by an implementation of
// Parquet that is not ours (hyparquet with its Zstandard decoder hyparquet-compressors, npm
// packages pinned in package.json; `make test` installs them): the same record count, column
// types and codecs, and every field of every record. Without Node.js or the packages it skips,
// except with CI set, where it fails.
func TestHyparquetReadsEverySegmentRecordForRecord(t *testing.T) {
	node, _ := nodetest.Package(t, "hyparquet")
	nodetest.Package(t, "hyparquet-compressors")
	ctx := context.Background()
	store, err := archive.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log := logOf(200, 7)
	w := writeAll(t, store, log, 400)

	type column struct{ Name, Type, Logical, Codecs string }
	wantColumns := []column{
		{"position", "INT64", "INTEGER", "ZSTD"}, {"stream", "BYTE_ARRAY", "STRING", "ZSTD"},
		{"version", "INT64", "INTEGER", "ZSTD"}, {"type", "BYTE_ARRAY", "STRING", "ZSTD"},
		{"schema_version", "INT32", "INTEGER", "ZSTD"}, {"data", "BYTE_ARRAY", "STRING", "ZSTD"},
		{"correlation_id", "BYTE_ARRAY", "STRING", "ZSTD"}, {"causation_id", "BYTE_ARRAY", "STRING", "ZSTD"},
		{"recorded_at", "INT64", "TIMESTAMP(NANOS)", "ZSTD"},
	}
	next := 0
	for _, seg := range w.Manifest().Segments {
		out, err := exec.CommandContext(ctx, node, filepath.Join("testdata", "read_segment.mjs"),
			filepath.Join(store.String(), seg.File)).Output()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				t.Fatalf("hyparquet on %s: %v\n%s", seg.File, err, ee.Stderr)
			}
			t.Fatal(err)
		}
		var got struct {
			NumRows string
			Columns []column
			Rows    []struct {
				Position      string `json:"position"`
				Stream        string `json:"stream"`
				Version       string `json:"version"`
				Type          string `json:"type"`
				SchemaVersion int    `json:"schema_version"`
				Data          string `json:"data"`
				CorrelationID string `json:"correlation_id"`
				CausationID   string `json:"causation_id"`
				RecordedAt    string `json:"recorded_at"`
			}
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("hyparquet's output for %s: %v", seg.File, err)
		}
		if got.NumRows != strconv.Itoa(seg.Events) || len(got.Rows) != seg.Events {
			t.Fatalf("hyparquet reads %s rows (%d yielded) in %s, the manifest says %d", got.NumRows, len(got.Rows), seg.File, seg.Events)
		}
		if len(got.Columns) != len(wantColumns) {
			t.Fatalf("hyparquet sees columns %+v, want %+v", got.Columns, wantColumns)
		}
		for i, c := range wantColumns {
			if got.Columns[i] != c {
				t.Fatalf("column %d is %+v to hyparquet, want %+v", i, got.Columns[i], c)
			}
		}
		for i, r := range got.Rows {
			want := log[next]
			next++
			at, err := time.Parse(time.RFC3339Nano, r.RecordedAt)
			if err != nil {
				t.Fatalf("%s row %d: recorded_at %q: %v", seg.File, i, r.RecordedAt, err)
			}
			if r.Position != strconv.FormatUint(uint64(want.Position), 10) || r.Stream != want.Stream ||
				r.Version != strconv.FormatInt(int64(want.Version), 10) || r.Type != want.Type ||
				r.SchemaVersion != want.SchemaVersion || r.Data != string(want.Data) ||
				r.CorrelationID != want.Metadata.CorrelationID || r.CausationID != want.Metadata.CausationID ||
				!at.Equal(want.Metadata.RecordedAt.Truncate(time.Millisecond)) {
				t.Fatalf("%s row %d as hyparquet reads it:\n%+v\nwant\n%+v", seg.File, i, r, want)
			}
			var v any
			if err := json.Unmarshal([]byte(r.Data), &v); err != nil {
				t.Fatalf("%s row %d: data is not JSON to hyparquet's reader: %v", seg.File, i, err)
			}
		}
	}
	if next != len(log) {
		t.Fatalf("hyparquet read %d records over all segments, the log has %d", next, len(log))
	}
}
