package archive

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"relayer/domain"
	"relayer/eventstore"
)

// ManifestName is the manifest's file name in a store.
const ManifestName = "manifest.json"

// manifestFormat is the version of the manifest's layout, written in it.
const manifestFormat = 1

// Manifest lists an archive's committed segments in position order: each segment's range
// starts right after the one before it ends.
type Manifest struct {
	Format   int       `json:"format"`
	Segments []Segment `json:"segments"`
}

// Segment describes one committed segment file.
type Segment struct {
	// File is the segment's file name in the store.
	File string `json:"file"`
	// First and Last bound the range of global positions the segment covers, both included.
	// Every record in it lies in the range; the range may hold positions that are not archived
	// (events that stay live, or that no store ever gave).
	First eventstore.Position `json:"first"`
	Last  eventstore.Position `json:"last"`
	// Events is the number of records in the file.
	Events int `json:"events"`
	// Jobs is the number of distinct job streams (domain.StreamPrefix) among them.
	Jobs int `json:"jobs"`
	// Bytes is the file's size.
	Bytes int64 `json:"bytes"`
	// SHA256 is the hex SHA-256 of the file.
	SHA256 string `json:"sha256"`
}

func (s Segment) String() string {
	return fmt.Sprintf("segment %s (positions %d..%d)", s.File, s.First, s.Last)
}

// segmentName is the file name of the segment covering first..last: fixed-width, so that names
// sort in position order.
func segmentName(first, last eventstore.Position) string {
	return fmt.Sprintf("segment-%020d-%020d.parquet", first, last)
}

func isSegmentName(name string) bool {
	return strings.HasPrefix(name, "segment-") && strings.HasSuffix(name, ".parquet")
}

// describe builds the manifest entry of a segment file.
func describe(first, last eventstore.Position, records []eventstore.Record, file []byte) Segment {
	sum := sha256.Sum256(file)
	return Segment{
		File:   segmentName(first, last),
		First:  first,
		Last:   last,
		Events: len(records),
		Jobs:   countJobs(records),
		Bytes:  int64(len(file)),
		SHA256: hex.EncodeToString(sum[:]),
	}
}

func countJobs(records []eventstore.Record) int {
	jobs := make(map[string]struct{})
	for _, r := range records {
		if strings.HasPrefix(r.Stream, domain.StreamPrefix) {
			jobs[r.Stream] = struct{}{}
		}
	}
	return len(jobs)
}

// LoadManifest reads the store's manifest and checks its order; a store without one has an
// empty manifest.
func LoadManifest(ctx context.Context, store Store) (Manifest, error) {
	b, err := store.Get(ctx, ManifestName)
	if errors.Is(err, ErrNotFound) {
		return Manifest{Format: manifestFormat}, nil
	}
	if err != nil {
		return Manifest{}, fmt.Errorf("archive %s: read the manifest: %w", store, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return Manifest{}, fmt.Errorf("archive %s: manifest: %w", store, err)
	}
	if m.Format != manifestFormat {
		return Manifest{}, fmt.Errorf("archive %s: manifest format %d, this relayer reads %d", store, m.Format, manifestFormat)
	}
	if err := m.check(); err != nil {
		return Manifest{}, fmt.Errorf("archive %s: manifest: %w", store, err)
	}
	return m, nil
}

// check reports an entry that is malformed, out of order, overlapping or leaving a hole.
func (m Manifest) check() error {
	for i, s := range m.Segments {
		switch {
		case s.First == 0 || s.Last < s.First:
			return fmt.Errorf("%s: empty or reversed range", s)
		case s.File != segmentName(s.First, s.Last):
			return fmt.Errorf("%s: file name does not match the range (want %s)", s, segmentName(s.First, s.Last))
		case s.Events < 0 || s.Jobs < 0 || s.Jobs > s.Events || s.Bytes <= 0 || len(s.SHA256) != 64:
			return fmt.Errorf("%s: malformed counts, size or checksum", s)
		case uint64(s.Events) > uint64(s.Last-s.First)+1:
			return fmt.Errorf("%s: %d events cannot fit %d positions", s, s.Events, s.Last-s.First+1)
		}
		if i == 0 {
			continue
		}
		prev := m.Segments[i-1]
		if s.First <= prev.Last {
			return fmt.Errorf("%s overlaps %s, or comes before it", s, prev)
		}
		if s.First != prev.Last+1 {
			return fmt.Errorf("hole between %s and %s: positions %d..%d are in no segment", prev, s, prev.Last+1, s.First-1)
		}
	}
	return nil
}

// Last is the last position the archive covers, 0 when it is empty.
func (m Manifest) Last() eventstore.Position {
	if len(m.Segments) == 0 {
		return 0
	}
	return m.Segments[len(m.Segments)-1].Last
}

func (m Manifest) has(file string) bool {
	for _, s := range m.Segments {
		if s.File == file {
			return true
		}
	}
	return false
}

func saveManifest(ctx context.Context, store Store, m Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := store.Put(ctx, ManifestName, append(b, '\n')); err != nil {
		return fmt.Errorf("archive %s: write the manifest: %w", store, err)
	}
	return nil
}
