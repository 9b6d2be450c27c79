package archive

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"relayer/domain"
	"relayer/eventstore"
)

// Joined is the whole log of a store some of whose events left for an archive: the archive's
// records up to its last position (the archived horizon: the archive is a complete prefix of
// the log), then the live store's after it, each with its original position. Its ReadAll is
// what a replay or a rebuild of the whole log reads; everything else is the live store's.
type Joined struct {
	eventstore.Store
	Archive Store
}

// ReadAll yields the records after position after: from the archive up to its horizon, then
// from the live store. The archive's manifest is read when the iteration starts, and checked
// against the segment the live store recorded last (CheckRecorded): an archive that lost
// segments, or another log's, is an error, not a log with a hole.
func (j Joined) ReadAll(ctx context.Context, after eventstore.Position) iter.Seq2[eventstore.Record, error] {
	return func(yield func(eventstore.Record, error) bool) {
		// What the log recorded first, then the manifest: a segment is committed to the manifest
		// before it is recorded, so a manifest read after the record lists it, however busy the
		// archiver of a running serve.
		rec, err := recordedSegment(ctx, j.Store)
		if err != nil {
			yield(eventstore.Record{}, err)
			return
		}
		m, err := LoadManifest(ctx, j.Archive)
		if err != nil {
			yield(eventstore.Record{}, err)
			return
		}
		if err := checkRecorded(j.Archive, m, rec); err != nil {
			yield(eventstore.Record{}, err)
			return
		}
		horizon := m.Last()
		if after < horizon {
			for r, err := range Read(ctx, j.Archive, after) {
				if !yield(r, err) || err != nil {
					return
				}
			}
			after = horizon
		}
		for r, err := range j.Store.ReadAll(ctx, after) {
			if !yield(r, err) || err != nil {
				return
			}
		}
	}
}

// CheckRecorded checks that the archive is the one the live store's log was archived to, up to
// where the log says: its manifest must list the segment of the newest ArchiveAdvanced in the live
// store's retention stream, with the same range and SHA-256. An archive that ends before it (lost
// segments, an older copy) or holds another file there (another log's archive, an edited
// manifest) fails, naming the recorded segment. A live store that recorded nothing passes.
func CheckRecorded(ctx context.Context, arch Store, live eventstore.Store) error {
	rec, err := recordedSegment(ctx, live)
	if err != nil {
		return err
	}
	m, err := LoadManifest(ctx, arch)
	if err != nil {
		return err
	}
	return checkRecorded(arch, m, rec)
}

// recordedSegment is the newest ArchiveAdvanced of the live store's retention stream, nil when
// there is none.
func recordedSegment(ctx context.Context, live eventstore.Store) (*domain.ArchiveAdvanced, error) {
	var rec *domain.ArchiveAdvanced
	for r, err := range live.ReadStream(ctx, domain.RetentionStream, 0) {
		if err != nil {
			return nil, fmt.Errorf("read the live store's %s stream: %w", domain.RetentionStream, err)
		}
		if r.Type != (domain.ArchiveAdvanced{}).EventType() {
			continue
		}
		var a domain.ArchiveAdvanced
		if err := json.Unmarshal(r.Data, &a); err != nil {
			return nil, fmt.Errorf("the live store's %s stream: %s at version %d: %w", domain.RetentionStream, r.Type, r.Version, err)
		}
		rec = &a
	}
	return rec, nil
}

func checkRecorded(arch Store, m Manifest, rec *domain.ArchiveAdvanced) error {
	if rec == nil {
		return nil
	}
	for _, s := range m.Segments {
		if s.File == rec.File {
			if uint64(s.First) != rec.First || uint64(s.Last) != rec.Last || s.SHA256 != rec.SHA256 {
				return fmt.Errorf("archive %s: the log recorded %s (positions %d..%d) with SHA-256 %s, the manifest lists %s with %s: it is another log's archive, or its manifest was edited",
					arch, rec.File, rec.First, rec.Last, rec.SHA256, s, s.SHA256)
			}
			return nil
		}
	}
	return fmt.Errorf("archive %s ends at position %d, but the log records it archived up to %d (%s): it lost segments, or it is another log's archive",
		arch, m.Last(), rec.Last, rec.File)
}
