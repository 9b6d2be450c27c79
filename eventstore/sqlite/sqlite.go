// Package sqlite is the eventstore backend on SQLite (modernc.org/sqlite, pure Go, no cgo).
//
// One file holds the whole log. The file runs in WAL mode with synchronous=FULL, so an append is
// on disk when Append returns. A single writer goroutine owns the only write connection and
// commits the appends waiting for it together, in one transaction (group commit), each checked
// against its own expected version; reads and subscriptions use a separate pool of read
// connections, which WAL lets run alongside the writer. ReadAll and SubscribeAll, which stream
// the log, take each page in one call of an aggregate SQL function of the store's own and read
// the next page while the caller works through the current one (see read.go and pagefunc.go).
// A subscription that has caught up takes what its own store's writer commits next from memory
// (see tail.go).
//
// Several processes may open the same file: each has its own writer and SQLite's write lock
// orders their transactions. Subscribers see appends made through their own Store at once and
// appends made by other processes within Config.PollInterval.
package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"relayer/eventstore"
	"relayer/eventstore/internal/groupcommit"
)

var _ eventstore.Store = (*Store)(nil)

// ErrReadOnly reports an append to a store opened with Config.ReadOnly.
var ErrReadOnly = errors.New("event store opened read-only")

// Defaults for the zero fields of Config.
const (
	DefaultMaxBatch     = 256
	DefaultBusyTimeout  = 5 * time.Second
	DefaultPollInterval = 500 * time.Millisecond
	DefaultPageSize     = 1000
	DefaultMaxReaders   = 4
)

// Limits Validate enforces.
const (
	maxMaxBatch   = 1 << 16
	maxPageSize   = 1 << 20
	maxMaxReaders = 1024
)

// Config tunes a Store. The zero value is ready to use: every zero field takes its default.
type Config struct {
	// MaxBatch is the most appends the writer commits in one transaction. Appends that arrive
	// while a transaction commits wait for the next one, so under load each fsync covers many
	// appends. Default 256.
	MaxBatch int
	// ReadOnly opens an existing store for reading only: Open fails when the file does not
	// exist, and Append fails with ErrReadOnly.
	ReadOnly bool
	// BusyTimeout is how long a connection waits for a lock held by another connection (another
	// process writing to the same file, a checkpoint) before it fails. Default 5s.
	BusyTimeout time.Duration
	// PollInterval is how often a caught-up subscriber reads the log again to see events that
	// other processes appended to the same file. Appends through this Store wake its
	// subscribers at once. Default 500ms.
	PollInterval time.Duration
	// PageSize is how many events a read fetches per query. ReadStream reads PageSize events
	// at a time; ReadAll and SubscribeAll read windows of positions that start at PageSize and
	// double with every query, up to 8 times PageSize (at most 16384, or PageSize if that is
	// more), so streaming the log takes few queries; a caught-up subscription goes back to
	// PageSize. A read that goes past its first page reads the next one while the caller's
	// loop body runs on the current one, so at most two pages per read sit in memory. No read
	// holds a connection while it waits for the caller. Default 1000.
	PageSize int
	// MaxReaders caps the number of read connections. Default 4.
	MaxReaders int
}

// setDefaults fills the zero fields.
func (c *Config) setDefaults() {
	c.MaxBatch = cmp.Or(c.MaxBatch, DefaultMaxBatch)
	c.BusyTimeout = cmp.Or(c.BusyTimeout, DefaultBusyTimeout)
	c.PollInterval = cmp.Or(c.PollInterval, DefaultPollInterval)
	c.PageSize = cmp.Or(c.PageSize, DefaultPageSize)
	c.MaxReaders = cmp.Or(c.MaxReaders, DefaultMaxReaders)
}

// Validate reports the first field that is out of range. Zero fields are valid: they take
// their defaults.
func (c Config) Validate() error {
	switch {
	case c.MaxBatch < 0 || c.MaxBatch > maxMaxBatch:
		return fmt.Errorf("sqlite config: MaxBatch is %d, want 1 to %d (0 for the default %d)", c.MaxBatch, maxMaxBatch, DefaultMaxBatch)
	case c.BusyTimeout < 0:
		return fmt.Errorf("sqlite config: BusyTimeout is %s, want a positive duration (0 for the default %s)", c.BusyTimeout, DefaultBusyTimeout)
	case c.BusyTimeout > 0 && c.BusyTimeout < time.Millisecond:
		return fmt.Errorf("sqlite config: BusyTimeout is %s, want at least 1ms (SQLite counts in milliseconds)", c.BusyTimeout)
	case c.PollInterval < 0:
		return fmt.Errorf("sqlite config: PollInterval is %s, want a positive duration (0 for the default %s)", c.PollInterval, DefaultPollInterval)
	case c.PageSize < 0 || c.PageSize > maxPageSize:
		return fmt.Errorf("sqlite config: PageSize is %d, want 1 to %d (0 for the default %d)", c.PageSize, maxPageSize, DefaultPageSize)
	case c.MaxReaders < 0 || c.MaxReaders > maxMaxReaders:
		return fmt.Errorf("sqlite config: MaxReaders is %d, want 1 to %d (0 for the default %d)", c.MaxReaders, maxMaxReaders, DefaultMaxReaders)
	}
	return nil
}

// Store is an event store in one SQLite file. It is safe for concurrent use. Call Close when
// done with it.
type Store struct {
	path string
	cfg  Config

	readers *sql.DB
	reads   *readRegistry // the reads in progress, for pageFunction
	ids     *streamIDs    // shared with the writer
	tail    *tail         // shared with the writer (nil when read-only)
	stmts   *statements   // prepared on readers
	w       *writer       // nil when read-only
	// readAheads counts the goroutines reading pages ahead of their callers (for tests).
	readAheads atomic.Int64

	gate    *groupcommit.Gate
	commits *groupcommit.Notifier
}

// Open opens the event store in the SQLite file at path, creating the file and its schema when
// they are missing (the parent directory must exist). With cfg.ReadOnly the file must already
// hold an event store. Open refuses a file written in another format than this build's: a newer
// one needs a newer program, an older one an Upgrade first (the error wraps ErrOldFormat).
func Open(path string, cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	if path == "" {
		return nil, errors.New("open event store: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open event store %s: %w", path, err)
	}
	if err := checkLocation(abs, cfg.ReadOnly); err != nil {
		return nil, err
	}

	s := &Store{path: abs, cfg: cfg, ids: &streamIDs{}, commits: groupcommit.NewNotifier()}
	if cfg.ReadOnly {
		s.gate = groupcommit.NewGate(nil, fmt.Errorf("%s: %w", abs, ErrReadOnly))
	} else {
		s.tail = &tail{}
		w, err := openWriter(abs, cfg, s.commits.Broadcast, s.ids, s.tail)
		if err != nil {
			return nil, err
		}
		s.w = w
		s.gate = groupcommit.NewGate(w.q.Reqs(), nil)
	}

	s.reads = newReadRegistry()
	readers, err := openReaders(abs, cfg, s.reads)
	if err == nil {
		s.stmts, err = prepareStatements(context.Background(), readers)
		if err != nil {
			_ = readers.Close()
			err = fmt.Errorf("open event store %s: %w", abs, err)
		}
	}
	if err != nil {
		if s.w != nil {
			_ = s.w.stop()
		}
		return nil, err
	}
	s.readers = readers
	if s.w != nil {
		s.w.start()
	}
	return s, nil
}

// openReaders opens the pool of read-only connections and checks, through one of them, that
// the file holds an event store this build can read.
func openReaders(path string, cfg Config, reads *readRegistry) (*sql.DB, error) {
	db := sql.OpenDB(readConnector{dsn: dsn(path, cfg, true), d: newReadDriver(reads)})
	db.SetMaxOpenConns(cfg.MaxReaders)
	db.SetMaxIdleConns(cfg.MaxReaders)
	db.SetConnMaxIdleTime(time.Minute)
	if err := checkReadable(db, path); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// checkLocation gives the clear errors SQLite would not: a missing directory, or a missing file
// for a read-only store.
func checkLocation(path string, readOnly bool) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("open event store %s: directory %s does not exist (create it first): %w", path, dir, fs.ErrNotExist)
	case err != nil:
		return fmt.Errorf("open event store %s: %w", path, err)
	case !st.IsDir():
		return fmt.Errorf("open event store %s: %s is not a directory", path, dir)
	}
	st, err = os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if readOnly {
			return fmt.Errorf("no event store at %s: %w", path, fs.ErrNotExist)
		}
	case err != nil:
		return fmt.Errorf("open event store %s: %w", path, err)
	case st.IsDir():
		return fmt.Errorf("open event store %s: is a directory, want a file", path)
	}
	return nil
}

// dsn builds the driver's name for path: a file: URI, so that SQLite's own mode parameter
// applies, with the pragmas every connection needs.
func dsn(path string, cfg Config, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", cfg.BusyTimeout.Milliseconds()))
	if readOnly {
		q.Set("mode", "ro")
	} else {
		q.Set("mode", "rwc")
		// Before WAL mode writes the file's first page: it takes effect only in a new file
		// (schema.go), and changes nothing in an existing one.
		q.Add("_pragma", "auto_vacuum(INCREMENTAL)")
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(FULL)")
	}
	// SQLite decodes %HH in URI paths; escape the characters that would end or change the path.
	esc := strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(filepath.ToSlash(path))
	return "file:" + esc + "?" + q.Encode()
}

// checkReadable makes sure a read connection sees an event store this build can read.
func checkReadable(db *sql.DB, path string) error {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open event store %s: %w", path, err)
	}
	defer conn.Close()
	version, tables, err := formatOf(ctx, conn)
	switch {
	case err != nil:
		return fmt.Errorf("open event store %s: %w", path, err)
	case version == 0 && tables == 0:
		return fmt.Errorf("no event store at %s: the database is empty: %w", path, fs.ErrNotExist)
	}
	return checkFormat(path, version, tables)
}

// Append implements eventstore.Store. If ctx ends before the writer takes the append into a
// transaction, Append returns ctx's error and writes nothing; once taken, Append waits for the
// commit, so its result is never ambiguous.
func (s *Store) Append(ctx context.Context, stream string, expected eventstore.Version, events ...eventstore.Event) (eventstore.Position, error) {
	return s.append(ctx, nil, stream, expected, events)
}

// AppendGuarded implements eventstore.GuardedAppender: the guard is checked in the writer's
// transaction, after the appends before it.
func (s *Store) AppendGuarded(ctx context.Context, guard eventstore.Guard, stream string, expected eventstore.Version, events ...eventstore.Event) (eventstore.Position, error) {
	if err := eventstore.ValidateGuard(stream, guard); err != nil {
		return 0, err
	}
	return s.append(ctx, &guard, stream, expected, events)
}

func (s *Store) append(ctx context.Context, guard *eventstore.Guard, stream string, expected eventstore.Version, events []eventstore.Event) (eventstore.Position, error) {
	if err := validateAppend(stream, expected, events); err != nil {
		return 0, err
	}
	return s.gate.Append(ctx, guard, stream, expected, events)
}

// AppendBatch implements eventstore.BatchAppender: the appends go to the writer in the order
// given, one after the other, so their events take positions in that order; the writer commits
// them in as few transactions as its batches allow.
func (s *Store) AppendBatch(ctx context.Context, appends []eventstore.StreamAppend) ([]eventstore.Position, []error) {
	return s.gate.AppendBatch(ctx, appends, func(a eventstore.StreamAppend) error {
		return validateAppend(a.Stream, a.Expected, a.Events)
	})
}

// validateAppend checks one append, of Append or of AppendBatch: eventstore's checks, and what
// this store cannot keep exactly (a stream name that is not UTF-8 or holds NUL bytes, a
// recorded-at time beyond Unix nanoseconds).
func validateAppend(stream string, expected eventstore.Version, events []eventstore.Event) error {
	if err := eventstore.ValidateAppend(stream, expected, events); err != nil {
		return err
	}
	if !utf8.ValidString(stream) || strings.ContainsRune(stream, 0) {
		return fmt.Errorf("%w: stream name %+q is not UTF-8 text without NUL bytes", eventstore.ErrInvalidEvent, stream)
	}
	for i, e := range events {
		if err := groupcommit.CheckRecordedAt(stream, i, e); err != nil {
			return err
		}
	}
	return nil
}

// Head implements eventstore.Store.
func (s *Store) Head(ctx context.Context) (eventstore.Position, error) {
	if s.isClosed() {
		return 0, fmt.Errorf("head: %w", eventstore.ErrClosed)
	}
	var head int64
	if err := s.stmts.head.QueryRowContext(ctx).Scan(&head); err != nil {
		return 0, s.queryErr(ctx, "head", err)
	}
	return eventstore.Position(head), nil
}

// StreamVersion implements eventstore.StreamVersioner.
func (s *Store) StreamVersion(ctx context.Context, stream string) (eventstore.Version, error) {
	if s.isClosed() {
		return eventstore.NoStream, fmt.Errorf("stream version: %w", eventstore.ErrClosed)
	}
	var id, v int64
	var err error
	if known, ok := s.ids.get(stream); ok {
		err = s.stmts.version.QueryRowContext(ctx, known).Scan(&v)
	} else {
		// By name, learning the stream's number for the reads that follow.
		err = s.stmts.stream.QueryRowContext(ctx, stream).Scan(&id, &v)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return eventstore.NoStream, nil
		case err == nil:
			s.ids.add(stream, id)
		}
	}
	if err != nil {
		return eventstore.NoStream, s.queryErr(ctx, "stream version", err)
	}
	return eventstore.Version(v), nil
}

// streamIDs maps stream names to their numbers for the reads, which then go straight to the
// (stream_id, version) index instead of through the names' index first. A number never changes
// once its stream is committed, so an entry is never stale: the cache needs no invalidation,
// whoever else writes the file. Entries come from the writer, for the streams it committed,
// and from StreamVersion; ReadStream only uses them. Past maxCachedStreams it starts over.
type streamIDs struct {
	mu sync.RWMutex
	m  map[string]int64
}

func (c *streamIDs) get(stream string) (int64, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	id, ok := c.m[stream]
	return id, ok
}

func (c *streamIDs) add(stream string, id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.makeRoom(1)
	c.m[stream] = id
}

// addCommitted adds the streams of a committed batch that have events.
func (c *streamIDs) addCommitted(streams map[string]streamState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.makeRoom(len(streams))
	for stream, st := range streams {
		if st.version != eventstore.NoStream {
			c.m[stream] = st.id
		}
	}
}

func (c *streamIDs) makeRoom(n int) {
	if c.m == nil || len(c.m)+n > maxCachedStreams {
		c.m = make(map[string]int64)
	}
}

// Close lets the appends already submitted commit, stops the writer, ends subscriptions (they
// yield ErrClosed) and closes the connections. Later calls fail with ErrClosed; calling Close
// again returns nil.
func (s *Store) Close() error {
	if !s.gate.Close() {
		return nil
	}
	// The read connections close first: the last connection to a file checkpoints the WAL into
	// it and removes the WAL, and only the writer's may (the readers' are read-only), so a
	// closed store is one self-contained file that can be copied or renamed.
	errs := []error{s.stmts.close(), s.readers.Close()}
	if s.w != nil {
		errs = append(errs, s.w.stop())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close event store %s: %w", s.path, err)
	}
	return nil
}

// Path returns the absolute path of the store's file.
func (s *Store) Path() string { return s.path }

func (s *Store) isClosed() bool { return s.gate.Closed() }

// queryErr names a failed read, preferring ErrClosed and ctx's error over the driver's view of
// the same event.
func (s *Store) queryErr(ctx context.Context, what string, err error) error {
	if gone := s.gate.Gone(ctx, what); gone != nil {
		return gone
	}
	return fmt.Errorf("%s: %w", what, err)
}
