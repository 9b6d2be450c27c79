package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"relayer/eventstore"
)

// RemoveStreams implements eventstore.Remover with one transaction under the append lock: no
// append commits while it checks the streams and deletes their events, so a stream that takes
// an event above upTo (or the log's last event) meanwhile is either seen and kept or not
// appended to until the removal commits. A VACUUM of the events table follows, so that later
// rows reuse the freed space: the table stops growing at the horizon, though its files shrink
// only with VACUUM FULL, an operator's choice.
func (s *Store) RemoveStreams(ctx context.Context, streams []string, upTo eventstore.Position) (eventstore.Removal, error) {
	if s.isClosed() {
		return eventstore.Removal{}, fmt.Errorf("remove streams: %w", eventstore.ErrClosed)
	}
	if len(streams) == 0 {
		return eventstore.Removal{}, nil
	}
	events := pgx.Identifier{s.cfg.Schema, "events"}.Sanitize()
	var out eventstore.Removal
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, s.sql.lock, appendLockClass, s.w.lockKey); err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		var head int64
		if err := tx.QueryRow(ctx, s.sql.head).Scan(&head); err != nil {
			return fmt.Errorf("head: %w", err)
		}
		limit := min(int64(upTo), head-1) // the log's last event stays
		rows, err := tx.Query(ctx, `WITH keep AS (SELECT DISTINCT stream FROM `+events+` WHERE stream = ANY($1) AND position > $2)
			DELETE FROM `+events+` WHERE stream = ANY($1) AND stream NOT IN (SELECT stream FROM keep) RETURNING stream`, streams, limit)
		if err != nil {
			return fmt.Errorf("delete: %w", err)
		}
		removed := map[string]bool{}
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				rows.Close()
				return err
			}
			removed[name] = true
			out.Events++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("delete: %w", err)
		}
		for _, name := range streams {
			if removed[name] {
				out.Streams = append(out.Streams, name)
				delete(removed, name) // a name given twice is listed once
			}
		}
		return nil
	})
	if err != nil {
		return eventstore.Removal{}, s.queryErr(ctx, "remove streams", err)
	}
	if out.Events > 0 {
		// A plain VACUUM (never FULL: it would lock out the appends) makes the deleted rows'
		// space reusable now rather than when autovacuum comes by. It needs the table's owner;
		// without that right the removal stands, and autovacuum frees the space later.
		_, _ = s.pool.Exec(ctx, `VACUUM `+events)
	}
	return out, nil
}
