package sqlite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"relayer/eventstore"
)

const selectColumns = `SELECT position, stream, version, type, schema_version, data, correlation_id, causation_id, recorded_at FROM events `

const (
	streamPageQuery = selectColumns + `WHERE stream = ? AND version > ? ORDER BY version LIMIT ?`
	// streamFirstPageQuery differs from streamPageQuery by >=: the first page includes from.
	streamFirstPageQuery = selectColumns + `WHERE stream = ? AND version >= ? ORDER BY version LIMIT ?`
	allPageQuery         = selectColumns + `WHERE position > ? AND position <= ? ORDER BY position LIMIT ?`
	subscribePageQuery   = selectColumns + `WHERE position > ? ORDER BY position LIMIT ?`
)

// row is one fetched event: the record, or why it cannot be read, and its raw keys for paging.
type row struct {
	rec        eventstore.Record
	err        error
	rawVersion any // the version column as stored, to page on even when it is corrupt
}

// fetch runs one page query and reads the whole page, so no connection stays busy while the
// caller's loop body runs.
func (s *Store) fetch(ctx context.Context, query string, args ...any) ([]row, error) {
	rows, err := s.readers.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var page []row
	var v [9]any
	for rows.Next() {
		if err := rows.Scan(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]); err != nil {
			return nil, err
		}
		rec, err := decode(v)
		page = append(page, row{rec: rec, err: err, rawVersion: v[2]})
	}
	return page, rows.Err()
}

// decode turns a row's columns into a Record. A value of the wrong type or out of range gives
// a *eventstore.RecordError wrapping eventstore.ErrCorruptRecord that names the row.
func decode(v [9]any) (eventstore.Record, error) {
	var rec eventstore.Record
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	pos, ok := v[0].(int64)
	if !ok || pos < 1 {
		bad("position is %s", describe(v[0]))
	}
	rec.Position = eventstore.Position(pos)
	if rec.Stream, ok = text(v[1]); !ok || rec.Stream == "" {
		bad("stream is %s", describe(v[1]))
	}
	rec.Version = eventstore.NoStream
	if version, ok := v[2].(int64); ok && version >= 0 {
		rec.Version = eventstore.Version(version)
	} else {
		bad("version is %s", describe(v[2]))
	}
	if rec.Type, ok = text(v[3]); !ok || rec.Type == "" {
		bad("type is %s", describe(v[3]))
	}
	if sv, ok := v[4].(int64); ok && sv >= 1 && int64(int(sv)) == sv {
		rec.SchemaVersion = int(sv)
	} else {
		bad("schema version is %s", describe(v[4]))
	}
	switch data := v[5].(type) {
	case []byte:
		rec.Data = data
	case string:
		rec.Data = json.RawMessage(data)
	default:
		bad("data is %s", describe(v[5]))
	}
	if rec.Data != nil && !json.Valid(rec.Data) {
		bad("data is not valid JSON")
	}
	if rec.Metadata.CorrelationID, ok = optionalText(v[6]); !ok {
		bad("correlation id is %s", describe(v[6]))
	}
	if rec.Metadata.CausationID, ok = optionalText(v[7]); !ok {
		bad("causation id is %s", describe(v[7]))
	}
	if nanos, ok := v[8].(int64); ok {
		rec.Metadata.RecordedAt = time.Unix(0, nanos).UTC()
	} else {
		bad("recorded-at is %s", describe(v[8]))
	}

	if problems != nil {
		return rec, &eventstore.RecordError{
			Stream:   rec.Stream,
			Version:  rec.Version,
			Position: rec.Position,
			Err:      fmt.Errorf("%w: %s", eventstore.ErrCorruptRecord, strings.Join(problems, "; ")),
		}
	}
	return rec, nil
}

func text(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case []byte:
		return string(t), true
	}
	return "", false
}

func optionalText(v any) (string, bool) {
	if v == nil {
		return "", true
	}
	return text(v)
}

// describe names a stored value for an error message without dumping it.
func describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return fmt.Sprintf("the integer %d", t)
	case float64:
		return fmt.Sprintf("the real %g", t)
	case string:
		if len(t) > 32 {
			t = t[:32] + "..."
		}
		return fmt.Sprintf("the text %q", t)
	case []byte:
		return fmt.Sprintf("a %d-byte blob", len(t))
	default:
		return fmt.Sprintf("a %T", v)
	}
}

func (s *Store) readStream(ctx context.Context, stream string, from eventstore.Version) iter.Seq2[eventstore.Record, error] {
	return func(yield func(eventstore.Record, error) bool) {
		what := "read stream " + stream
		query := streamFirstPageQuery
		var key any = int64(max(from, 0))
		for {
			if s.isClosed() || ctx.Err() != nil {
				yield(eventstore.Record{}, s.queryErr(ctx, what, nil))
				return
			}
			page, err := s.fetch(ctx, query, stream, key, s.cfg.PageSize)
			if err != nil {
				yield(eventstore.Record{}, s.queryErr(ctx, what, err))
				return
			}
			for _, r := range page {
				if !yield(r.rec, r.err) {
					return
				}
			}
			if len(page) < s.cfg.PageSize {
				return
			}
			query, key = streamPageQuery, page[len(page)-1].rawVersion
		}
	}
}

func (s *Store) readAll(ctx context.Context, after eventstore.Position) iter.Seq2[eventstore.Record, error] {
	return func(yield func(eventstore.Record, error) bool) {
		const what = "read all"
		head, err := s.Head(ctx)
		if err != nil {
			yield(eventstore.Record{}, err)
			return
		}
		last := after
		for last < head {
			if s.isClosed() || ctx.Err() != nil {
				yield(eventstore.Record{}, s.queryErr(ctx, what, nil))
				return
			}
			page, err := s.fetch(ctx, allPageQuery, int64(last), int64(head), s.cfg.PageSize)
			if err != nil {
				yield(eventstore.Record{}, s.queryErr(ctx, what, err))
				return
			}
			for _, r := range page {
				last = r.rec.Position
				if !yield(r.rec, r.err) {
					return
				}
			}
			if len(page) < s.cfg.PageSize {
				return
			}
		}
	}
}

func (s *Store) subscribeAll(ctx context.Context, after eventstore.Position) iter.Seq2[eventstore.Record, error] {
	return func(yield func(eventstore.Record, error) bool) {
		const what = "subscribe"
		last := after
		timer := time.NewTimer(s.cfg.PollInterval)
		defer timer.Stop()
		// pause waits for the next commit through this store, the poll interval, the end of ctx
		// or Close, whichever comes first.
		pause := func(wake <-chan struct{}) {
			timer.Reset(s.cfg.PollInterval)
			select {
			case <-wake:
			case <-timer.C:
			case <-ctx.Done():
			case <-s.done:
			}
		}
		for {
			// Take the commit signal before reading, so a commit that lands after the read
			// still wakes the wait below.
			wake := s.commits.wait()
			if s.isClosed() || ctx.Err() != nil {
				yield(eventstore.Record{}, s.queryErr(ctx, what, nil))
				return
			}
			page, err := s.fetch(ctx, subscribePageQuery, int64(last), s.cfg.PageSize)
			if err != nil {
				err = s.queryErr(ctx, what, err)
				if !yield(eventstore.Record{}, err) || errors.Is(err, eventstore.ErrClosed) || ctx.Err() != nil {
					return
				}
				pause(nil)
				continue
			}
			for _, r := range page {
				last = r.rec.Position
				if !yield(r.rec, r.err) {
					return
				}
			}
			if len(page) < s.cfg.PageSize {
				pause(wake)
			}
		}
	}
}
