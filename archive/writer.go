package archive

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"relayer/eventstore"
)

var (
	// ErrOverlap reports a segment whose range overlaps one the manifest holds.
	ErrOverlap = errors.New("range overlaps an archived segment")
	// ErrConflict reports a range the manifest holds with different content.
	ErrConflict = errors.New("range archived with different content")
	// ErrGap reports a segment that does not start right after the archive's last position.
	ErrGap = errors.New("range does not start where the archive ends")
)

// Writer adds segments to an archive. Only one Writer may write to an archive at a time (the
// archiver is one process); it is not safe for concurrent use.
type Writer struct {
	store    Store
	manifest Manifest
	log      *slog.Logger
}

// Open loads the store's manifest and removes what a killed writer left behind: temporary files
// and segment files the manifest does not list (written, but never committed). log may be nil.
func Open(ctx context.Context, store Store, log *slog.Logger) (*Writer, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m, err := LoadManifest(ctx, store)
	if err != nil {
		return nil, err
	}
	names, err := store.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("archive %s: list: %w", store, err)
	}
	for _, name := range names {
		stray := strings.HasSuffix(name, tempSuffix) || (isSegmentName(name) && !m.has(name))
		if !stray {
			continue
		}
		log.Warn("archive: removing a file an interrupted run left uncommitted", "archive", store.String(), "file", name)
		if err := store.Delete(ctx, name); err != nil {
			return nil, fmt.Errorf("archive %s: remove the uncommitted %s: %w", store, name, err)
		}
	}
	return &Writer{store: store, manifest: m, log: log}, nil
}

// Manifest returns the archive's manifest as the writer last committed it.
func (w *Writer) Manifest() Manifest {
	m := w.manifest
	m.Segments = slices.Clone(m.Segments)
	return m
}

// Check reads the store's manifest again and lists the store: the manifest must be the one this
// Writer committed last, and every segment it lists must be there. It reads no segment (Verify
// does), so that a caller about to rely on the archive, the archiver before it removes anything
// from the live store, can afford it every time: a manifest edited, or a segment file removed,
// since the Writer was opened is reported.
func (w *Writer) Check(ctx context.Context) error {
	m, err := LoadManifest(ctx, w.store)
	if err != nil {
		return err
	}
	if m.Format != w.manifest.Format || !slices.Equal(m.Segments, w.manifest.Segments) {
		what := fmt.Sprintf("it lists %d segments up to position %d, the writer committed %d up to %d",
			len(m.Segments), m.Last(), len(w.manifest.Segments), w.manifest.Last())
		for i := range min(len(m.Segments), len(w.manifest.Segments)) {
			if got, want := m.Segments[i], w.manifest.Segments[i]; got != want {
				what = fmt.Sprintf("its entry %d is %s, %d events, %d bytes, SHA-256 %s; the writer committed %s, %d events, %d bytes, SHA-256 %s",
					i, got, got.Events, got.Bytes, got.SHA256, want, want.Events, want.Bytes, want.SHA256)
				break
			}
		}
		return fmt.Errorf("archive %s: the manifest changed under the writer (%s)", w.store, what)
	}
	names, err := w.store.List(ctx)
	if err != nil {
		return fmt.Errorf("archive %s: list: %w", w.store, err)
	}
	present := make(map[string]bool, len(names))
	for _, name := range names {
		present[name] = true
	}
	for _, seg := range m.Segments {
		if !present[seg.File] {
			return fmt.Errorf("archive %s: %s: the file is missing", w.store, seg)
		}
	}
	return nil
}

// Write archives records as the segment covering positions first..last: the records in
// strictly increasing position order, all within the range (which may hold positions that are
// not archived). The range must start right after the archive's last (anywhere, for the first
// segment). Write returns once the segment is durable, read back equal to records, and listed in
// the manifest.
//
// Writing a range the manifest already holds with the same records does nothing and returns its
// entry (an archiver resuming after a kill repeats its last write); with different content it
// fails with ErrConflict. A range overlapping another fails with ErrOverlap, one leaving a hole
// with ErrGap.
func (w *Writer) Write(ctx context.Context, first, last eventstore.Position, records []eventstore.Record) (Segment, error) {
	if first == 0 || last < first {
		return Segment{}, fmt.Errorf("archive %s: range %d..%d: want 1 <= first <= last", w.store, first, last)
	}
	for i, r := range records {
		if r.Position < first || r.Position > last {
			return Segment{}, fmt.Errorf("archive %s: record %s@%d at position %d is outside the range %d..%d",
				w.store, r.Stream, r.Version, r.Position, first, last)
		}
		if i > 0 && r.Position <= records[i-1].Position {
			return Segment{}, fmt.Errorf("archive %s: record at position %d follows position %d: want increasing positions",
				w.store, r.Position, records[i-1].Position)
		}
	}
	file, err := encodeSegment(records, segmentCodec)
	if err != nil {
		return Segment{}, fmt.Errorf("archive %s: %w", w.store, err)
	}
	seg := describe(first, last, records, file)

	for _, s := range w.manifest.Segments {
		if s.First == first && s.Last == last {
			// The same bytes, or (after a change of the Parquet library's output) the same
			// records: a repeat of a committed write.
			if s.SHA256 == seg.SHA256 || readBack(ctx, w.store, s, records) == nil {
				return s, nil
			}
			return Segment{}, fmt.Errorf("archive %s: %s: %w", w.store, s, ErrConflict)
		}
		if first <= s.Last && s.First <= last {
			return Segment{}, fmt.Errorf("archive %s: positions %d..%d and %s: %w", w.store, first, last, s, ErrOverlap)
		}
	}
	if end := w.manifest.Last(); end != 0 && first != end+1 {
		return Segment{}, fmt.Errorf("archive %s: positions %d..%d: the archive ends at %d, the next segment starts at %d: %w",
			w.store, first, last, end, end+1, ErrGap)
	}

	if err := w.store.Put(ctx, seg.File, file); err != nil {
		return Segment{}, fmt.Errorf("archive %s: write %s: %w", w.store, seg, err)
	}
	if err := readBack(ctx, w.store, seg, records); err != nil {
		// Not committed: the next Open would remove it anyway.
		_ = w.store.Delete(ctx, seg.File)
		return Segment{}, fmt.Errorf("archive %s: %w", w.store, err)
	}
	next := w.Manifest()
	next.Segments = append(next.Segments, seg)
	if err := saveManifest(ctx, w.store, next); err != nil {
		return Segment{}, err
	}
	w.manifest = next
	w.log.Info("archive: segment committed", "archive", w.store.String(), "file", seg.File,
		"first", uint64(seg.First), "last", uint64(seg.Last), "events", seg.Events, "jobs", seg.Jobs, "bytes", seg.Bytes)
	return seg, nil
}

// readBack reads the segment from the store and compares it with what was written.
func readBack(ctx context.Context, store Store, seg Segment, want []eventstore.Record) error {
	got, err := loadSegment(ctx, store, seg)
	if err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	if len(got) != len(want) {
		return fmt.Errorf("read back %s: %d records, wrote %d", seg, len(got), len(want))
	}
	for i := range got {
		if diff := sameRecord(got[i], want[i]); diff != "" {
			return fmt.Errorf("read back %s: record %d (position %d) differs in its %s", seg, i, want[i].Position, diff)
		}
	}
	return nil
}

// loadSegment reads a segment file and checks it against its manifest entry: size, SHA-256,
// record count, job count, and positions increasing within the range.
func loadSegment(ctx context.Context, store Store, seg Segment) ([]eventstore.Record, error) {
	file, err := store.Get(ctx, seg.File)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", seg, err)
	}
	if int64(len(file)) != seg.Bytes {
		return nil, fmt.Errorf("%s: %d bytes, the manifest says %d", seg, len(file), seg.Bytes)
	}
	sum := sha256.Sum256(file)
	if hex.EncodeToString(sum[:]) != seg.SHA256 {
		return nil, fmt.Errorf("%s: SHA-256 %x, the manifest says %s", seg, sum, seg.SHA256)
	}
	records, err := decodeSegment(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", seg, err)
	}
	if len(records) != seg.Events {
		return nil, fmt.Errorf("%s: %d records, the manifest says %d", seg, len(records), seg.Events)
	}
	for i, r := range records {
		if r.Position < seg.First || r.Position > seg.Last {
			return nil, fmt.Errorf("%s: record at position %d is outside the range", seg, r.Position)
		}
		if i > 0 && r.Position <= records[i-1].Position {
			return nil, fmt.Errorf("%s: record at position %d follows position %d", seg, r.Position, records[i-1].Position)
		}
	}
	if n := countJobs(records); n != seg.Jobs {
		return nil, fmt.Errorf("%s: %d jobs, the manifest says %d", seg, n, seg.Jobs)
	}
	return records, nil
}
