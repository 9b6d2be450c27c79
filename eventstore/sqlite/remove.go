package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"relayer/eventstore"
)

// removeChunk is how many streams one DELETE statement names (one parameter each).
const removeChunk = 256

// RemoveStreams implements eventstore.Remover. It runs on the writer's connection, between two
// batches of appends, as one transaction: the streams are checked (every event at or below
// upTo, none the log's last) and their events and names deleted together, so a crash leaves
// each stream whole or gone. The streams table keeps the row of its highest number, so that a
// number is never given to another stream. After the commit, PRAGMA incremental_vacuum and a
// checkpoint of the write-ahead log return the freed pages to the filesystem (files created with format 2 use auto_vacuum = INCREMENTAL;
// in an older file the pages are reused by later appends instead).
func (s *Store) RemoveStreams(ctx context.Context, streams []string, upTo eventstore.Position) (eventstore.Removal, error) {
	var out eventstore.Removal
	err := s.writeOp(ctx, "remove streams", func(conn *sql.Conn) (err error) {
		out, err = removeStreams(ctx, conn, streams, upTo)
		return err
	})
	if err != nil {
		return eventstore.Removal{}, err
	}
	s.ids.forget(out.Streams)
	return out, nil
}

// writeOp runs op on the writer's connection, between two batches of appends, and reports its
// failure as what failed (a full disk as eventstore.ErrStorageFull).
func (s *Store) writeOp(ctx context.Context, what string, op func(*sql.Conn) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := s.gate.Enter(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer s.gate.Leave()

	var (
		err  error
		done = make(chan struct{})
	)
	run := func() {
		defer close(done)
		// The op may remove events the tail holds: it starts over before, not only after.
		s.tail.reset()
		err = op(s.w.conn)
	}
	select {
	case s.w.ops <- run:
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
	<-done
	if err != nil {
		if isFull(err) {
			err = fmt.Errorf("%w: %w", eventstore.ErrStorageFull, err)
		}
		return fmt.Errorf("%s from %s: %w", what, s.path, err)
	}
	return nil
}

func removeStreams(ctx context.Context, conn *sql.Conn, streams []string, upTo eventstore.Position) (out eventstore.Removal, err error) {
	if len(streams) == 0 {
		return out, nil
	}
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return out, err
	}
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
			out = eventstore.Removal{}
		}
	}()
	var head, lastStream int64
	if err := conn.QueryRowContext(ctx, `SELECT coalesce((SELECT max(position) FROM events), 0), coalesce((SELECT max(id) FROM streams), 0)`).Scan(&head, &lastStream); err != nil {
		return out, err
	}
	limit := int64(upTo)
	if limit >= head {
		limit = head - 1 // the log's last event stays
	}
	var ids []any
	for _, name := range streams {
		var id int64
		var last sql.NullInt64 // NULL: a stream row without events (the highest number, kept)
		err := conn.QueryRowContext(ctx, `SELECT s.id, (SELECT e.position FROM events AS e WHERE e.stream_id = s.id ORDER BY e.version DESC LIMIT 1)
			FROM streams AS s WHERE s.name = ?`, name).Scan(&id, &last)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue
		case err != nil:
			return out, err
		case !last.Valid:
			continue
		}
		if last.Int64 > limit {
			continue
		}
		ids = append(ids, id)
		out.Streams = append(out.Streams, name)
	}
	for start := 0; start < len(ids); start += removeChunk {
		chunk := ids[start:min(start+removeChunk, len(ids))]
		in := strings.TrimSuffix(strings.Repeat("?,", len(chunk)), ",")
		res, err := conn.ExecContext(ctx, `DELETE FROM events WHERE stream_id IN (`+in+`)`, chunk...)
		if err != nil {
			return out, err
		}
		n, _ := res.RowsAffected()
		out.Events += n
		args := append(append(make([]any, 0, len(chunk)+1), chunk...), lastStream) // never into ids' array
		if _, err := conn.ExecContext(ctx, `DELETE FROM streams WHERE id IN (`+in+`) AND id <> ?`, args...); err != nil {
			return out, err
		}
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		return out, err
	}
	if len(ids) > 0 {
		vacuum(ctx, conn)
	}
	return out, nil
}

// vacuum gives the pages freed by a committed removal back to the filesystem. It runs outside
// the transaction: a failure only leaves the pages free for later appends. The vacuum moves the
// freed pages through the write-ahead log; the checkpoint gives them back to the filesystem (a
// reader in progress may keep it from truncating the log, which the next removal or SQLite's
// own checkpoint then does).
func vacuum(ctx context.Context, conn *sql.Conn) {
	ctx = context.WithoutCancel(ctx)
	_, _ = conn.ExecContext(ctx, `PRAGMA incremental_vacuum`)
	_, _ = conn.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
}

// forget drops removed streams from the cache.
func (c *streamIDs) forget(streams []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range streams {
		delete(c.m, s)
	}
}
