package archive

import (
	"context"
	"fmt"
	"iter"

	"relayer/domain"
	"relayer/eventstore"
)

// Summary is what Verify found in a sound archive.
type Summary struct {
	Segments int
	Events   int
	Jobs     int // summed per segment: a job whose events span two segments counts in each
	Bytes    int64
	// First and Last bound the positions the archive covers (0 and 0 when it is empty).
	First, Last eventstore.Position
}

// Verify checks the archive's manifest against every segment file: the manifest's ranges in
// order without overlap or hole, and each file present, of the listed size and SHA-256, a
// readable Parquet file with the listed numbers of records and jobs, its positions increasing
// within its range. The first failure is returned, naming the segment. Files the manifest does
// not list are not checked: they are uncommitted, and the next Writer's Open removes them.
func Verify(ctx context.Context, store Store) (Summary, error) {
	m, err := LoadManifest(ctx, store)
	if err != nil {
		return Summary{}, err
	}
	var sum Summary
	for _, seg := range m.Segments {
		if err := ctx.Err(); err != nil {
			return Summary{}, err
		}
		if _, err := loadSegment(ctx, store, seg); err != nil {
			return Summary{}, fmt.Errorf("archive %s: %w", store, err)
		}
		sum.Segments++
		sum.Events += seg.Events
		sum.Jobs += seg.Jobs
		sum.Bytes += seg.Bytes
	}
	if len(m.Segments) > 0 {
		sum.First, sum.Last = m.Segments[0].First, m.Last()
	}
	return sum, nil
}

// Read yields the archived records whose position is greater than after, in position order,
// as eventstore.Store's ReadAll does, so that a replay can read the archive and then the live
// store as one log. Each segment is checked against the manifest (size, SHA-256, counts) before
// any of its records is yielded; a failure is yielded as the last error.
func Read(ctx context.Context, store Store, after eventstore.Position) iter.Seq2[eventstore.Record, error] {
	return func(yield func(eventstore.Record, error) bool) {
		m, err := LoadManifest(ctx, store)
		if err != nil {
			yield(eventstore.Record{}, err)
			return
		}
		for _, seg := range m.Segments {
			if seg.Last <= after {
				continue
			}
			if err := ctx.Err(); err != nil {
				yield(eventstore.Record{}, err)
				return
			}
			records, err := loadSegment(ctx, store, seg)
			if err != nil {
				yield(eventstore.Record{}, fmt.Errorf("archive %s: %w", store, err))
				return
			}
			for _, r := range records {
				if r.Position <= after {
					continue
				}
				if !yield(r, nil) {
					return
				}
			}
		}
	}
}

// ExportJob yields the archived records of one job's stream, in version order.
func ExportJob(ctx context.Context, store Store, id domain.JobID) iter.Seq2[eventstore.Record, error] {
	stream := id.Stream()
	return func(yield func(eventstore.Record, error) bool) {
		for r, err := range Read(ctx, store, 0) {
			if err != nil {
				yield(eventstore.Record{}, err)
				return
			}
			if r.Stream == stream && !yield(r, nil) {
				return
			}
		}
	}
}
