package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"relayer/eventstore"
)

// Space implements eventstore.SpaceReporter: the bytes of the store's file and its write-ahead
// log, and what the filesystem holding them has left for this process.
func (s *Store) Space(ctx context.Context) (eventstore.Space, error) {
	if err := ctx.Err(); err != nil {
		return eventstore.Space{}, err
	}
	var sp eventstore.Space
	for _, p := range []string{s.path, s.path + "-wal"} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return eventstore.Space{}, fmt.Errorf("space of %s: %w", s.path, err)
		}
		sp.Size += fi.Size()
	}
	free, err := freeBytes(filepath.Dir(s.path))
	if err != nil {
		return eventstore.Space{}, fmt.Errorf("space of %s: %w", s.path, err)
	}
	sp.Free = free
	return sp, nil
}
