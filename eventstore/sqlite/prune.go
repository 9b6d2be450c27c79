package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"relayer/eventstore"
)

// PruneStreams implements eventstore.Pruner. It runs on the writer's connection, between two
// batches of appends, as one transaction; each stream's superseded events go in one DELETE over
// the (stream_id, version) index, below both the version named and the stream's last version,
// so the last event stays. The freed pages go back to the filesystem as RemoveStreams's do.
func (s *Store) PruneStreams(ctx context.Context, prunes []eventstore.Prune, upTo eventstore.Position) (int64, error) {
	if err := eventstore.ValidatePrunes(prunes); err != nil {
		return 0, err
	}
	var n int64
	err := s.writeOp(ctx, "prune streams", func(conn *sql.Conn) (err error) {
		n, err = pruneStreams(ctx, conn, prunes, upTo)
		return err
	})
	return n, err
}

func pruneStreams(ctx context.Context, conn *sql.Conn, prunes []eventstore.Prune, upTo eventstore.Position) (n int64, err error) {
	if len(prunes) == 0 {
		return 0, nil
	}
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
			n = 0
		}
	}()
	for _, p := range prunes {
		var id, last int64
		err := conn.QueryRowContext(ctx, `SELECT s.id, coalesce((SELECT max(version) FROM events WHERE stream_id = s.id), -1)
			FROM streams AS s WHERE s.name = ?`, p.Stream).Scan(&id, &last)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue
		case err != nil:
			return 0, err
		}
		before := min(int64(p.Before), last) // the stream's last event stays
		if before <= 0 {
			continue
		}
		q := `DELETE FROM events WHERE stream_id = ? AND version < ? AND position <= ?`
		args := []any{id, before, int64(upTo)}
		if len(p.Types) > 0 {
			q += ` AND type IN (` + strings.TrimSuffix(strings.Repeat("?,", len(p.Types)), ",") + `)`
			for _, t := range p.Types {
				args = append(args, t)
			}
		}
		res, err := conn.ExecContext(ctx, q, args...)
		if err != nil {
			return 0, err
		}
		k, _ := res.RowsAffected()
		n += k
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		return 0, err
	}
	if n > 0 {
		vacuum(ctx, conn)
	}
	return n, nil
}
