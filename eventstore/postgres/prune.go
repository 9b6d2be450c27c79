package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"relayer/eventstore"
)

// PruneStreams implements eventstore.Pruner with one transaction: each stream's superseded
// events go in one DELETE, below both the version named and the stream's last version as the
// transaction reads it, so the last event stays (an append committed meanwhile only makes the
// event read as the last one superseded too, and it is kept). A plain VACUUM follows, as after
// RemoveStreams.
func (s *Store) PruneStreams(ctx context.Context, prunes []eventstore.Prune, upTo eventstore.Position) (int64, error) {
	if s.isClosed() {
		return 0, fmt.Errorf("prune streams: %w", eventstore.ErrClosed)
	}
	if err := eventstore.ValidatePrunes(prunes); err != nil {
		return 0, err
	}
	if len(prunes) == 0 {
		return 0, nil
	}
	events := pgx.Identifier{s.cfg.Schema, "events"}.Sanitize()
	var n int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for _, p := range prunes {
			types := p.Types
			if types == nil {
				types = []string{}
			}
			tag, err := tx.Exec(ctx, `DELETE FROM `+events+` WHERE stream = $1 AND position <= $3
				AND version < least($2, (SELECT max(version) FROM `+events+` WHERE stream = $1))
				AND (cardinality($4::text[]) = 0 OR type = ANY($4::text[]))`, p.Stream, int64(p.Before), int64(upTo), types)
			if err != nil {
				return fmt.Errorf("delete from %s: %w", p.Stream, err)
			}
			n += tag.RowsAffected()
		}
		return nil
	})
	if err != nil {
		return 0, s.queryErr(ctx, "prune streams", err)
	}
	if n > 0 {
		_, _ = s.pool.Exec(ctx, `VACUUM `+events)
	}
	return n, nil
}
