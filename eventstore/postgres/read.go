package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"relayer/eventstore"
	"relayer/eventstore/internal/columns"
	"relayer/eventstore/internal/readahead"
)

// page is what one query returned.
type page struct {
	readahead.Page
	// lastKey is the paging column (position or version) of the last row, as stored.
	lastKey int64
}

func (p *page) reset() {
	clear(p.Rows)
	p.Rows, p.lastKey, p.Err = p.Rows[:0], 0, nil
}

// scanner turns the rows of one read into Records. It is used by one goroutine at a time.
type scanner struct {
	arena readahead.Arena
	// types interns the event types seen so far, so that records share their Type strings.
	types readahead.Types
	// stream is the stream of the last row, which the next row of a stream read (or of the same
	// append) shares.
	stream string
}

// fetch runs one page query and reads the whole page, so that no connection stays busy while
// the caller's loop body runs. key is the column the read pages on.
func (sc *scanner) fetch(ctx context.Context, pool queryer, p *page, key int, query string, args ...any) error {
	p.reset()
	rows, err := pool.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	fds := rows.FieldDescriptions()
	if len(fds) != columns.Count {
		return fmt.Errorf("the page query returned %d columns, want %d", len(fds), columns.Count)
	}
	for rows.Next() {
		vals := rows.RawValues()
		r := p.Add()
		r.Err = sc.decode(fds, vals, &r.Rec)
		if k, ok := intValue(fds[key], vals[key]); ok {
			p.lastKey = k
		}
	}
	if err := rows.Err(); err != nil {
		p.reset()
		return err
	}
	return nil
}

// queryer is what fetch needs of the pool.
type queryer interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// decode turns one row into a Record. A value out of range gives a *eventstore.RecordError
// wrapping eventstore.ErrCorruptRecord that names the row and says what is wrong. The table's
// types and CHECKs keep such rows out; decode does not trust them to.
func (sc *scanner) decode(fds []pgconn.FieldDescription, vals [][]byte, rec *eventstore.Record) error {
	*rec = eventstore.Record{Version: eventstore.NoStream}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	if pos, ok := intValue(fds[columns.Position], vals[columns.Position]); ok && pos >= 1 {
		rec.Position = eventstore.Position(pos)
	} else {
		bad("position is %s", describeValue(fds[columns.Position], vals[columns.Position]))
	}
	if v, ok := intValue(fds[columns.Version], vals[columns.Version]); ok && v >= 0 {
		rec.Version = eventstore.Version(v)
	} else {
		bad("version is %s", describeValue(fds[columns.Version], vals[columns.Version]))
	}
	if b := vals[columns.Stream]; len(b) > 0 {
		if string(b) != sc.stream {
			sc.stream = string(b)
		}
		rec.Stream = sc.stream
	} else {
		bad("stream is %s", describeValue(fds[columns.Stream], b))
	}
	if b := vals[columns.Type]; len(b) > 0 {
		rec.Type = sc.types.Intern(b)
	} else {
		bad("type is %s", describeValue(fds[columns.Type], b))
	}
	if sv, ok := intValue(fds[columns.SchemaVersion], vals[columns.SchemaVersion]); ok && sv >= 1 && int64(int(sv)) == sv {
		rec.SchemaVersion = int(sv)
	} else {
		bad("schema version is %s", describeValue(fds[columns.SchemaVersion], vals[columns.SchemaVersion]))
	}
	if b := vals[columns.Data]; b != nil {
		rec.Data = readahead.CopyData(&sc.arena, b)
	} else {
		bad("data is NULL")
	}
	rec.Metadata.CorrelationID, rec.Metadata.CausationID = sc.ids(vals[columns.CorrelationID], vals[columns.CausationID])
	if at, ok := intValue(fds[columns.RecordedAt], vals[columns.RecordedAt]); ok {
		rec.Metadata.RecordedAt = time.Unix(0, at).UTC()
	} else {
		bad("recorded-at is %s", describeValue(fds[columns.RecordedAt], vals[columns.RecordedAt]))
	}
	if problems == nil {
		return nil
	}
	return eventstore.CorruptRecord(*rec, problems...)
}

// ids returns the correlation and causation ids, sharing one allocation.
func (sc *scanner) ids(corr, caus []byte) (string, string) {
	if len(corr)+len(caus) == 0 {
		return "", ""
	}
	both := string(corr) + string(caus)
	return both[:len(corr)], both[len(corr):]
}

// intValue reads an integer column in the format the server sent it.
func intValue(fd pgconn.FieldDescription, b []byte) (int64, bool) {
	if b == nil {
		return 0, false
	}
	if fd.Format == pgx.BinaryFormatCode {
		switch len(b) {
		case 8:
			return int64(binary.BigEndian.Uint64(b)), true
		case 4:
			return int64(int32(binary.BigEndian.Uint32(b))), true
		case 2:
			return int64(int16(binary.BigEndian.Uint16(b))), true
		}
		return 0, false
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	return n, err == nil
}

// describeValue names a stored value for an error message without dumping it.
func describeValue(fd pgconn.FieldDescription, b []byte) string {
	switch {
	case b == nil:
		return "NULL"
	case fd.Format == pgx.BinaryFormatCode:
		return fmt.Sprintf("a %d-byte value", len(b))
	case len(b) > 32:
		return fmt.Sprintf("%q...", b[:32])
	default:
		return fmt.Sprintf("%q", b)
	}
}

// grow returns the page size after a page of limit events (readahead.Grow).
func (s *Store) grow(limit int) int { return readahead.Grow(limit, s.cfg.PageSize) }

// readPages reads pages ahead of consume (readahead.Pages).
func (s *Store) readPages(ctx context.Context, next func(context.Context, *page) bool, consume func(*page) bool) bool {
	return readahead.Pages(ctx, func() *page { return &page{} }, next, consume, nil, nil)
}

// gone says why a read cannot go on before its next query: the store is closed or ctx ended.
func (s *Store) gone(ctx context.Context, p *page, what string) bool {
	if !s.isClosed() && ctx.Err() == nil {
		return false
	}
	p.reset()
	p.Err = s.queryErr(ctx, what, nil)
	return true
}

// ReadStream implements eventstore.Store. A row that cannot be read back yields a
// *eventstore.RecordError wrapping eventstore.ErrCorruptRecord; the caller may stop or go on.
func (s *Store) ReadStream(ctx context.Context, stream string, from eventstore.Version) iter.Seq2[eventstore.Record, error] {
	return func(yield func(eventstore.Record, error) bool) {
		what := "read stream " + stream
		sc := &scanner{}
		from := int64(max(from, 0))
		next := func(ctx context.Context, p *page) bool {
			if s.gone(ctx, p, what) {
				return false
			}
			if err := sc.fetch(ctx, s.pool, p, columns.Version, s.sql.streamPage, stream, from, s.cfg.PageSize); err != nil {
				p.Err = s.queryErr(ctx, what, err)
				return false
			}
			if len(p.Rows) < s.cfg.PageSize {
				return false
			}
			from = p.lastKey + 1
			return true
		}
		if !s.readPages(ctx, next, func(p *page) bool { return p.YieldUntilError(yield) }) {
			yield(eventstore.Record{}, s.queryErr(ctx, what, ctx.Err()))
		}
	}
}

// rangeReader returns a next function for readPages that reads the events at positions after
// *after up to through, pages growing from PageSize, advancing *after as it goes.
func (s *Store) rangeReader(sc *scanner, what string, after *eventstore.Position, through eventstore.Position) func(context.Context, *page) bool {
	limit := s.cfg.PageSize
	return func(ctx context.Context, p *page) bool {
		if s.gone(ctx, p, what) {
			return false
		}
		if err := sc.fetch(ctx, s.pool, p, columns.Position, s.sql.allPage, int64(*after), int64(through), limit); err != nil {
			p.Err = s.queryErr(ctx, what, err)
			return false
		}
		if len(p.Rows) < limit {
			// Every event up to through is read (positions are gapless, but a short page
			// ends the read just as well if rows were deleted by hand).
			*after = through
			return false
		}
		*after, limit = eventstore.Position(p.lastKey), s.grow(limit)
		return *after < through
	}
}

// ReadAll implements eventstore.Store. It reads up to the head as it was when the read started.
// A row that cannot be read back yields a *eventstore.RecordError wrapping
// eventstore.ErrCorruptRecord; the caller may stop or go on.
func (s *Store) ReadAll(ctx context.Context, after eventstore.Position) iter.Seq2[eventstore.Record, error] {
	return readahead.UpToHead(ctx, after, s.Head, func(yield func(eventstore.Record, error) bool, head eventstore.Position) {
		const what = "read all"
		cursor := after
		next := s.rangeReader(&scanner{}, what, &cursor, head)
		if !s.readPages(ctx, next, func(p *page) bool { return p.YieldUntilError(yield) }) {
			yield(eventstore.Record{}, s.queryErr(ctx, what, ctx.Err()))
		}
	})
}

// SubscribeAll implements eventstore.Store. Besides ctx's error, it ends by yielding an error
// matching eventstore.ErrClosed when the store is closed. A failed query yields its error; a
// caller that goes on iterating gets a retry after PollInterval from the same position.
//
// It reads up to the head, waits for a commit (a notification, an append through
// this store, or the poll interval), and reads up to the new head, for as long as the caller
// iterates. Positions are taken under the append lock and the lock is released only once the
// transaction is visible, so every position up to the head it reads is committed and nothing
// can appear below it later: reading from the last position yielded never skips an event.
func (s *Store) SubscribeAll(ctx context.Context, after eventstore.Position) iter.Seq2[eventstore.Record, error] {
	return func(yield func(eventstore.Record, error) bool) {
		const what = "subscribe"
		sc := &scanner{}
		last := after
		timer := time.NewTimer(s.cfg.PollInterval)
		defer timer.Stop()
		// pause waits for wake, the poll interval, the end of ctx or Close, whichever comes
		// first.
		pause := func(wake <-chan struct{}) {
			timer.Reset(s.cfg.PollInterval)
			select {
			case <-wake:
			case <-timer.C:
			case <-ctx.Done():
			case <-s.gate.Done():
			}
		}
		for {
			// Take the commit signal before reading the head, so that a commit after the read
			// still ends the wait after it.
			wake := s.commits.Wait()
			if s.isClosed() || ctx.Err() != nil {
				yield(eventstore.Record{}, s.queryErr(ctx, what, nil))
				return
			}
			var head int64
			if err := s.pool.QueryRow(ctx, s.sql.head).Scan(&head); err != nil {
				err = s.queryErr(ctx, what, err)
				if !yield(eventstore.Record{}, err) || errors.Is(err, eventstore.ErrClosed) || ctx.Err() != nil {
					return
				}
				pause(nil)
				continue
			}
			if eventstore.Position(head) <= last {
				pause(wake)
				continue
			}
			var stop, failed bool
			cursor := last
			consume := func(p *page) bool {
				if !p.Yield(yield) {
					stop = true
					return false
				}
				if len(p.Rows) > 0 {
					last = max(last, eventstore.Position(p.lastKey))
				}
				if p.Err != nil {
					if !yield(eventstore.Record{}, p.Err) || errors.Is(p.Err, eventstore.ErrClosed) || ctx.Err() != nil {
						stop = true
					}
					failed = true
					return false
				}
				return true
			}
			finished := s.readPages(ctx, s.rangeReader(sc, what, &cursor, eventstore.Position(head)), consume)
			switch {
			case stop:
				return
			case !finished && !failed:
				// ctx ended while the read-ahead waited: no page said so.
				yield(eventstore.Record{}, s.queryErr(ctx, what, ctx.Err()))
				return
			case failed:
				pause(nil)
			default:
				last = max(last, eventstore.Position(head))
			}
		}
	}
}
