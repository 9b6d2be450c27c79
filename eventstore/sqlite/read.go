package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"relayer/eventstore"
	"relayer/eventstore/internal/columns"
	"relayer/eventstore/internal/readahead"
)

const selectColumns = `SELECT ` + columns.List + ` FROM events `

// Stream reads take their rows one by one, through database/sql, LIMIT rows at a time, from the
// (stream_id, version) index: by the stream's number when the store knows it (see streamIDs),
// else by its name, through the names' index first. ReadAll and SubscribeAll, which stream the
// log, read a window of positions at a time, the whole window in one call of the aggregate
// pageFunction (see pagefunc.go). Positions are the table's rowids, so a window is a range scan
// of the table itself.
const (
	streamPageQuery = selectColumns + `WHERE stream_id = ? AND version > ? ORDER BY version LIMIT ?`
	// streamFirstPageQuery differs from streamPageQuery by >=: the first page includes from.
	streamFirstPageQuery = selectColumns + `WHERE stream_id = ? AND version >= ? ORDER BY version LIMIT ?`
	// The same by the stream's name: (SELECT ...) is NULL, which matches no event, when there is
	// no such stream.
	streamPageByNameQuery      = selectColumns + `WHERE stream_id = (SELECT id FROM streams WHERE name = ?) AND version > ? ORDER BY version LIMIT ?`
	streamFirstPageByNameQuery = selectColumns + `WHERE stream_id = (SELECT id FROM streams WHERE name = ?) AND version >= ? ORDER BY version LIMIT ?`
	// streamQuery finds a stream's number and version (-1 when it has no events) by its name.
	streamQuery = `SELECT id, coalesce((SELECT max(version) FROM events WHERE stream_id = streams.id), -1) FROM streams WHERE name = ?`
	// windowQuery reads the events at positions after ?2 up to ?3 into the page of the read
	// whose token is ?1. There is no ORDER BY: the range scan of the rowids yields them in
	// order, which pageFunction checks.
	windowQuery = `SELECT ` + pageFunction + `(?1, ` + columns.List + `) FROM events WHERE position > ?2 AND position <= ?3`
	// nextPositionQuery finds the first event after a window that held none, so that a gap in
	// the positions (rows deleted by hand) is jumped rather than walked.
	nextPositionQuery = `SELECT coalesce(min(position), 0) FROM events WHERE position > ?`
	headQuery         = `SELECT coalesce(max(position), 0) FROM events`
	// versionQuery reads the version of the stream numbered ? (-1 when it has no events) from
	// the index's last entry for it.
	versionQuery = `SELECT coalesce(max(version), -1) FROM events WHERE stream_id = ?`
)

// statements are the reads prepared once on the read pool (database/sql prepares each again on
// every connection that runs it, once).
type statements struct {
	streamPage, streamFirstPage, streamPageByName, streamFirstPageByName *sql.Stmt
	stream, window, nextPosition, head, version                          *sql.Stmt
}

func (st *statements) all() []**sql.Stmt {
	return []**sql.Stmt{&st.streamPage, &st.streamFirstPage, &st.streamPageByName, &st.streamFirstPageByName,
		&st.stream, &st.window, &st.nextPosition, &st.head, &st.version}
}

var statementQueries = []string{streamPageQuery, streamFirstPageQuery, streamPageByNameQuery, streamFirstPageByNameQuery,
	streamQuery, windowQuery, nextPositionQuery, headQuery, versionQuery}

func prepareStatements(ctx context.Context, db *sql.DB) (*statements, error) {
	st := &statements{}
	for i, stmt := range st.all() {
		var err error
		if *stmt, err = db.PrepareContext(ctx, statementQueries[i]); err != nil {
			st.close()
			return nil, fmt.Errorf("prepare %q: %w", statementQueries[i], err)
		}
	}
	return st, nil
}

func (st *statements) close() error {
	var errs []error
	for _, stmt := range st.all() {
		if *stmt != nil {
			errs = append(errs, (*stmt).Close())
		}
	}
	return errors.Join(errs...)
}

// kind is the storage class of a value SQLite returned.
type kind uint8

const (
	kindNull kind = iota
	kindInteger
	kindReal
	kindText
	kindBlob
	kindOther // a value no SQLite storage class gives; odd names its Go type
)

// column holds one value of a row as SQLite returned it, with its storage class, instead of
// converting it: a conversion would quietly turn the text '17' into a number or a number into
// text, where the store must report a value of the wrong class as a corrupt record. As a
// sql.Scanner it gets the driver's value straight, with no boxing and no copy; pageFunction
// sets it from its arguments.
type column struct {
	kind kind
	i    int64
	f    float64
	s    string // a Record may keep it, once it is the scanner's own (see own)
	b    []byte // owned by the driver or SQLite: valid until the next row, never kept
	odd  string
}

// Scan implements sql.Scanner. It never fails: the checks come later, with the whole row at hand.
func (c *column) Scan(src any) error {
	c.set(src)
	return nil
}

func (c *column) set(src any) {
	switch v := src.(type) {
	case int64:
		c.kind, c.i = kindInteger, v
	case string:
		c.kind, c.s = kindText, v
	case []byte:
		c.kind, c.b = kindBlob, v
	case nil:
		c.kind = kindNull
	case float64:
		c.kind, c.f = kindReal, v
	default:
		c.kind, c.odd = kindOther, fmt.Sprintf("%T", v)
	}
}

// text returns a text (or blob) value as a string.
func (c *column) text() (string, bool) {
	switch c.kind {
	case kindText:
		return c.s, true
	case kindBlob:
		return string(c.b), true
	}
	return "", false
}

func (c *column) optionalText() (string, bool) {
	if c.kind == kindNull {
		return "", true
	}
	return c.text()
}

// key returns the value as database/sql takes it for a query argument, to page on.
func (c *column) key() any {
	switch c.kind {
	case kindInteger:
		return c.i
	case kindReal:
		return c.f
	case kindText:
		return c.s
	case kindBlob:
		return append([]byte(nil), c.b...)
	}
	return nil
}

// describe names a stored value for an error message without dumping it.
func (c *column) describe() string {
	switch c.kind {
	case kindNull:
		return "NULL"
	case kindInteger:
		return fmt.Sprintf("the integer %d", c.i)
	case kindReal:
		return fmt.Sprintf("the real %g", c.f)
	case kindText:
		t := c.s
		if len(t) > 32 {
			t = t[:32] + "..."
		}
		return fmt.Sprintf("the text %q", t)
	case kindBlob:
		return fmt.Sprintf("a %d-byte blob", len(c.b))
	default:
		return "a " + c.odd
	}
}

// scanner reads rows into Records. It belongs to one read and is used by one goroutine at a
// time.
type scanner struct {
	cols  [columns.Count]column
	dest  [columns.Count]any
	arena readahead.Arena
	// token names the read to pageFunction, which fills page while a page query runs.
	token int64
	page  *page
	// types interns the event types seen so far, so that records share their Type strings.
	types readahead.Types
}

// own makes the text values of a row that pageFunction is given the scanner's own: they are
// views of SQLite's memory, which the next row reuses. The stream and the two ids are copied
// into one new string, which the record's three strings share (one allocation instead of
// three); the type is interned. The data is left alone: decode copies it into the arena. Blobs
// are never kept as they are (text and key copy them).
func (sc *scanner) own() {
	c := &sc.cols
	if t := &c[columns.Type]; t.kind == kindText {
		t.s = sc.types.InternText(t.s)
	}
	owned := [...]int{columns.Stream, columns.CorrelationID, columns.CausationID}
	n := 0
	for _, i := range owned {
		if c[i].kind == kindText {
			n += len(c[i].s)
		}
	}
	var b strings.Builder
	b.Grow(n)
	var ends [len(owned)]int
	for k, i := range owned {
		if c[i].kind == kindText {
			b.WriteString(c[i].s)
		}
		ends[k] = b.Len()
	}
	all, start := b.String(), 0
	for k, i := range owned {
		if c[i].kind == kindText {
			c[i].s = all[start:ends[k]]
		}
		start = ends[k]
	}
}

func newScanner() *scanner {
	sc := &scanner{}
	for i := range sc.cols {
		sc.dest[i] = &sc.cols[i]
	}
	return sc
}

// page is what one query returned: a window of the log (fetchPage) or a page of a stream
// (fetchRows).
type page struct {
	readahead.Page
	// limit is the LIMIT a page of rows was read with: a page with fewer rows is the last one.
	limit int
	// lastVersion is the version column of the last row as stored, to page a stream read on
	// even when it is corrupt.
	lastVersion any
}

func (p *page) short() bool { return len(p.Rows) < p.limit }

func (p *page) reset() {
	p.Rows, p.limit, p.lastVersion, p.Err = p.Rows[:0], 0, nil, nil
}

// fetchPage reads the events at positions after..through into p, in one call of pageFunction:
// no connection stays busy while the caller's loop body runs.
func (sc *scanner) fetchPage(ctx context.Context, p *page, stmt *sql.Stmt, after, through eventstore.Position) error {
	p.reset()
	sc.page = p
	defer func() { sc.page = nil }()
	var n int64
	if err := stmt.QueryRowContext(ctx, sc.token, int64(after), int64(through)).Scan(&n); err != nil {
		p.reset()
		return err
	}
	if n != int64(len(p.Rows)) {
		p.reset()
		return fmt.Errorf("%s counted %d rows, the page holds %d", pageFunction, n, len(p.Rows))
	}
	clear(p.Rows[len(p.Rows):cap(p.Rows)]) // drop what a longer page before left behind
	return nil
}

// fetchRows runs one page query of rows and reads the whole page, so no connection stays busy
// while the caller's loop body runs.
func (sc *scanner) fetchRows(ctx context.Context, p *page, stmt *sql.Stmt, limit int, args ...any) error {
	p.reset()
	p.limit = limit
	rows, err := stmt.QueryContext(ctx, append(args, limit)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(sc.dest[:]...); err != nil {
			p.reset()
			return err
		}
		r := p.Add()
		r.Err = sc.decode(&r.Rec)
	}
	if err := rows.Err(); err != nil {
		p.reset()
		return err
	}
	if len(p.Rows) > 0 {
		p.lastVersion = sc.cols[columns.Version].key()
	}
	clear(p.Rows[len(p.Rows):cap(p.Rows)]) // drop what a longer page before left behind
	return nil
}

// decode turns the scanned row into a Record. A value of the wrong type or out of range gives
// a *eventstore.RecordError wrapping eventstore.ErrCorruptRecord that names the row. The data
// is not checked to be JSON: it was when it was appended, and the reader that parses it reports
// data that does not parse (see eventstore.Store).
func (sc *scanner) decode(rec *eventstore.Record) error {
	c := &sc.cols
	*rec = eventstore.Record{Version: eventstore.NoStream}
	ok := true

	pos := &c[columns.Position]
	if pos.kind == kindInteger {
		rec.Position = eventstore.Position(pos.i)
	}
	ok = ok && pos.kind == kindInteger && pos.i >= 1
	// Stream, type and the ids are strings the scanner owns already: the record shares them.
	rec.Stream, ok = textOK(&c[columns.Stream], ok, true)
	if v := &c[columns.Version]; v.kind == kindInteger && v.i >= 0 {
		rec.Version = eventstore.Version(v.i)
	} else {
		ok = false
	}
	rec.Type, ok = textOK(&c[columns.Type], ok, true)
	if sv := &c[columns.SchemaVersion]; sv.kind == kindInteger && sv.i >= 1 && int64(int(sv.i)) == sv.i {
		rec.SchemaVersion = int(sv.i)
	} else {
		ok = false
	}
	switch d := &c[columns.Data]; d.kind {
	case kindBlob:
		rec.Data = readahead.CopyData(&sc.arena, d.b)
	case kindText:
		rec.Data = readahead.CopyData(&sc.arena, d.s)
	default:
		ok = false
	}
	rec.Metadata.CorrelationID, ok = textOK(&c[columns.CorrelationID], ok, false)
	rec.Metadata.CausationID, ok = textOK(&c[columns.CausationID], ok, false)
	if t := &c[columns.RecordedAt]; t.kind == kindInteger {
		rec.Metadata.RecordedAt = time.Unix(0, t.i).UTC()
	} else {
		ok = false
	}
	if ok {
		return nil
	}
	return sc.problems(rec)
}

// textOK reads a text column into a string and folds its validity into ok.
func textOK(c *column, ok, required bool) (string, bool) {
	if c.kind == kindText && (c.s != "" || !required) {
		return c.s, ok
	}
	var s string
	var good bool
	if required {
		s, good = c.text()
		good = good && s != ""
	} else {
		s, good = c.optionalText()
	}
	return s, ok && good
}

// problems lists everything wrong with the scanned row, for a row decode found fault with.
func (sc *scanner) problems(rec *eventstore.Record) error {
	c := &sc.cols
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if pos := &c[columns.Position]; pos.kind != kindInteger || pos.i < 1 {
		bad("position is %s", pos.describe())
	}
	if s, ok := c[columns.Stream].text(); !ok || s == "" {
		bad("stream is %s", c[columns.Stream].describe())
	}
	if v := &c[columns.Version]; v.kind != kindInteger || v.i < 0 {
		bad("version is %s", v.describe())
	}
	if s, ok := c[columns.Type].text(); !ok || s == "" {
		bad("type is %s", c[columns.Type].describe())
	}
	if sv := &c[columns.SchemaVersion]; sv.kind != kindInteger || sv.i < 1 || int64(int(sv.i)) != sv.i {
		bad("schema version is %s", sv.describe())
	}
	if d := &c[columns.Data]; d.kind != kindBlob && d.kind != kindText {
		bad("data is %s", d.describe())
	}
	if _, ok := c[columns.CorrelationID].optionalText(); !ok {
		bad("correlation id is %s", c[columns.CorrelationID].describe())
	}
	if _, ok := c[columns.CausationID].optionalText(); !ok {
		bad("causation id is %s", c[columns.CausationID].describe())
	}
	if t := &c[columns.RecordedAt]; t.kind != kindInteger {
		bad("recorded-at is %s", t.describe())
	}
	return eventstore.CorruptRecord(*rec, problems...)
}

// grow returns the page size after a page of limit events (readahead.Grow).
func (s *Store) grow(limit int) int { return readahead.Grow(limit, s.cfg.PageSize) }

// readPages reads pages ahead of consume (readahead.Pages).
func (s *Store) readPages(ctx context.Context, next func(context.Context, *page) bool, consume func(*page) bool) bool {
	return readahead.Pages(ctx, func() *page { return &page{} }, next, consume, func() { s.readAheads.Add(1) }, func() { s.readAheads.Add(-1) })
}

// ReadStream implements eventstore.Store. A row that cannot be read back yields a
// *eventstore.RecordError wrapping eventstore.ErrCorruptRecord; the caller may stop or go on.
// The data is not checked to be JSON again (see eventstore.Store).
func (s *Store) ReadStream(ctx context.Context, stream string, from eventstore.Version) iter.Seq2[eventstore.Record, error] {
	return func(yield func(eventstore.Record, error) bool) {
		what := "read stream " + stream
		// By number when the store knows it: one index seek fewer per page.
		first, more, arg := s.stmts.streamFirstPageByName, s.stmts.streamPageByName, any(stream)
		if id, ok := s.ids.get(stream); ok {
			first, more, arg = s.stmts.streamFirstPage, s.stmts.streamPage, id
		}
		sc := newScanner()
		stmt := first
		var key any = int64(max(from, 0))
		next := func(ctx context.Context, p *page) bool {
			if s.isClosed() || ctx.Err() != nil {
				p.reset()
				p.Err = s.queryErr(ctx, what, nil)
				return false
			}
			if err := sc.fetchRows(ctx, p, stmt, s.cfg.PageSize, arg, key); err != nil {
				p.Err = s.queryErr(ctx, what, err)
				return false
			}
			if p.short() {
				return false
			}
			stmt, key = more, p.lastVersion
			return true
		}
		if !s.readPages(ctx, next, func(p *page) bool { return p.YieldUntilError(yield) }) {
			yield(eventstore.Record{}, s.queryErr(ctx, what, ctx.Err()))
		}
	}
}

// window returns the end of the window of at most limit positions after last, up to head.
func window(last, head eventstore.Position, limit int) eventstore.Position {
	return last + min(head-last, eventstore.Position(limit))
}

// nextPosition returns the position of the first event after pos, 0 when there is none.
func (s *Store) nextPosition(ctx context.Context, pos eventstore.Position) (eventstore.Position, error) {
	var next int64
	if err := s.stmts.nextPosition.QueryRowContext(ctx, int64(pos)).Scan(&next); err != nil {
		return 0, err
	}
	return eventstore.Position(next), nil
}

// ReadAll implements eventstore.Store. It reads up to the head as it was when the read started.
// A row that cannot be read back yields a *eventstore.RecordError wrapping
// eventstore.ErrCorruptRecord; the caller may stop or go on. The data is not checked to be JSON
// again (see eventstore.Store).
func (s *Store) ReadAll(ctx context.Context, after eventstore.Position) iter.Seq2[eventstore.Record, error] {
	return readahead.UpToHead(ctx, after, s.Head, func(yield func(eventstore.Record, error) bool, head eventstore.Position) {
		const what = "read all"
		sc := newScanner()
		s.reads.register(sc)
		defer s.reads.release(sc)
		last, limit := after, s.cfg.PageSize
		// next reads the next window that holds events, up to head.
		next := func(ctx context.Context, p *page) bool {
			for {
				if s.isClosed() || ctx.Err() != nil {
					p.reset()
					p.Err = s.queryErr(ctx, what, nil)
					return false
				}
				end := window(last, head, limit)
				if err := sc.fetchPage(ctx, p, s.stmts.window, last, end); err != nil {
					p.Err = s.queryErr(ctx, what, err)
					return false
				}
				last, limit = end, s.grow(limit)
				if len(p.Rows) > 0 {
					return last < head
				}
				next, err := s.nextPosition(ctx, end)
				if err != nil {
					p.Err = s.queryErr(ctx, what, err)
					return false
				}
				if next == 0 || next > head {
					return false
				}
				last = next - 1
			}
		}
		if !s.readPages(ctx, next, func(p *page) bool { return p.YieldUntilError(yield) }) {
			yield(eventstore.Record{}, s.queryErr(ctx, what, ctx.Err()))
		}
	})
}

// SubscribeAll implements eventstore.Store. Besides ctx's error, it ends by yielding an error
// matching eventstore.ErrClosed when the store is closed. A failed query yields its error; a
// caller that goes on iterating gets a retry after PollInterval from the same position.
func (s *Store) SubscribeAll(ctx context.Context, after eventstore.Position) iter.Seq2[eventstore.Record, error] {
	return func(yield func(eventstore.Record, error) bool) {
		const what = "subscribe"
		sc := newScanner()
		s.reads.register(sc)
		defer s.reads.release(sc)
		last, limit := after, s.cfg.PageSize
		var timer *time.Timer
		defer func() {
			if timer != nil {
				timer.Stop()
			}
		}()
		// pause waits for the next commit through this store, the poll interval, the end of ctx
		// or Close, whichever comes first, and says whether a commit ended it.
		pause := func(ctx context.Context, wake <-chan struct{}) (committed bool) {
			if timer == nil {
				timer = time.NewTimer(s.cfg.PollInterval)
			} else {
				timer.Reset(s.cfg.PollInterval)
			}
			select {
			case <-wake:
				return true
			case <-timer.C:
			case <-ctx.Done():
			case <-s.gate.Done():
			}
			return false
		}
		// Whether to wait before the next read: after a failed one, for the poll interval; once
		// caught up, for a commit (wake, taken before the head was read).
		var failed, caughtUp bool
		var wake <-chan struct{}
		// Whether the subscription may take its next events from the tail: it was woken by a
		// commit of this store's writer, or took its last page from the tail, and no poll or
		// read of the file came since (see tail). A subscription reads the file until it has
		// caught up with it, so whatever the file held when it started is read from the file.
		var ownCommits bool
		// next reads the next window that holds events, waiting for them when caught up. It
		// fails when a query does, and says whether a caller that goes on gets a retry.
		next := func(ctx context.Context, p *page) bool {
			fail := func(err error) bool {
				p.reset()
				p.Err, failed = s.queryErr(ctx, what, err), true
				return !errors.Is(p.Err, eventstore.ErrClosed) && ctx.Err() == nil
			}
			for {
				switch {
				case failed:
					pause(ctx, nil)
					ownCommits = false
				case caughtUp:
					// A poll: the file may hold another process's events.
					ownCommits = pause(ctx, wake)
				}
				failed, caughtUp = false, false
				// Take the commit signal before reading, so a commit that lands after the read
				// still wakes the wait after it.
				wake = s.commits.Wait()
				if s.isClosed() || ctx.Err() != nil {
					p.reset()
					p.Err = s.queryErr(ctx, what, nil)
					return false
				}
				if ownCommits && s.tail != nil {
					p.reset()
					if s.tail.after(last, limit, p) {
						if len(p.Rows) > 0 {
							last = p.Rows[len(p.Rows)-1].Rec.Position
							return true
						}
						// Nothing after last but what another process may have appended: the
						// next poll finds that.
						caughtUp = true
						continue
					}
				}
				ownCommits = false
				var head int64
				if err := s.stmts.head.QueryRowContext(ctx).Scan(&head); err != nil {
					return fail(err)
				}
				if eventstore.Position(head) <= last {
					caughtUp, limit = true, s.cfg.PageSize // back to small pages for live events
					continue
				}
				end := window(last, eventstore.Position(head), limit)
				if err := sc.fetchPage(ctx, p, s.stmts.window, last, end); err != nil {
					return fail(err)
				}
				// Positions are handed out above the head, so no event can appear in the window
				// later: the next read starts after it.
				last, limit = end, s.grow(limit)
				if len(p.Rows) > 0 {
					return true
				}
				next, err := s.nextPosition(ctx, end)
				if err != nil {
					return fail(err)
				}
				if next > 0 {
					last = max(last, next-1)
				}
			}
		}
		consume := func(p *page) bool {
			if !p.Yield(yield) {
				return false
			}
			if p.Err != nil {
				return yield(eventstore.Record{}, p.Err) && !errors.Is(p.Err, eventstore.ErrClosed) && ctx.Err() == nil
			}
			return true
		}
		if !s.readPages(ctx, next, consume) {
			yield(eventstore.Record{}, s.queryErr(ctx, what, ctx.Err()))
		}
	}
}
