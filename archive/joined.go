package archive

import (
	"context"
	"iter"

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
// from the live store. The archive's manifest is read when the iteration starts.
func (j Joined) ReadAll(ctx context.Context, after eventstore.Position) iter.Seq2[eventstore.Record, error] {
	return func(yield func(eventstore.Record, error) bool) {
		m, err := LoadManifest(ctx, j.Archive)
		if err != nil {
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
