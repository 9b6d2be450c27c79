package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"relayer/eventstore"
	"relayer/eventstore/internal/groupcommit"
)

var _ eventstore.Store = (*Store)(nil)

// Defaults for the zero fields of Config.
const (
	DefaultSchema       = "eventstore"
	DefaultMaxBatch     = 256
	DefaultMaxReaders   = 4
	DefaultPageSize     = 1000
	DefaultPollInterval = time.Second
)

// Limits Validate enforces.
const (
	maxMaxBatch   = 1 << 16
	maxPageSize   = 1 << 20
	maxMaxReaders = 1024
	// maxIdentifier is PostgreSQL's NAMEDATALEN - 1: longer names are cut short by the server.
	maxIdentifier = 63
)

// Config tunes a Store. The zero value is ready to use: every zero field takes its default.
type Config struct {
	// Schema is the PostgreSQL schema that holds the store's tables; Open creates it when it
	// is missing. Empty means the schema the URL's search_path parameter names, when it names
	// exactly one, else DefaultSchema. Every statement names the schema itself, so the
	// connections' search_path does not matter.
	Schema string
	// MaxBatch is the most appends the writer commits in one transaction. Appends that arrive
	// while a transaction commits wait for the next one, so under load one commit (one WAL
	// flush, one turn of the append lock) covers many appends. Default 256.
	MaxBatch int
	// MaxReaders caps the pool of connections that reads use; the writer and the listener have
	// one connection each besides. The URL's pool_* parameters play no part. Default 4.
	MaxReaders int
	// PageSize is how many events a read fetches per query. ReadStream reads PageSize events
	// at a time; ReadAll and SubscribeAll start with PageSize and double with every query, up
	// to 8 times PageSize (at most 16384, or PageSize if that is more). A read that goes past
	// its first page reads the next one while the caller's loop body runs on the current one;
	// no read holds a connection while it waits for the caller. Default 1000.
	PageSize int
	// PollInterval is how often a caught-up subscriber reads the log again when no
	// notification woke it. Appends through this Store wake its subscribers at once, appends
	// through other processes by LISTEN/NOTIFY; the poll only covers a listening connection
	// that is down. Default 1s.
	PollInterval time.Duration
	// Logger receives the store's few warnings (the listening connection lost and regained).
	// Default slog.Default().
	Logger *slog.Logger
	// Existing opens only a schema that holds a store: Open refuses a missing one with ErrNoStore
	// rather than create it (for the commands that only read, which a mistyped schema must not
	// answer with an empty log).
	Existing bool
}

// ErrNoStore: Config.Existing was set and the schema holds no store.
var ErrNoStore = errors.New("no event store in this schema")

// setDefaults fills the zero fields; searchPath is the URL's search_path parameter.
func (c *Config) setDefaults(searchPath string) {
	c.Schema = cmp.Or(c.Schema, schemaFromSearchPath(searchPath))
	c.MaxBatch = cmp.Or(c.MaxBatch, DefaultMaxBatch)
	c.MaxReaders = cmp.Or(c.MaxReaders, DefaultMaxReaders)
	c.PageSize = cmp.Or(c.PageSize, DefaultPageSize)
	c.PollInterval = cmp.Or(c.PollInterval, DefaultPollInterval)
	c.Logger = cmp.Or(c.Logger, slog.Default())
}

// Validate reports the first field that is out of range. Zero fields are valid: they take
// their defaults.
func (c Config) Validate() error {
	switch {
	case len(c.Schema) > maxIdentifier || strings.ContainsRune(c.Schema, 0) || !utf8.ValidString(c.Schema):
		return fmt.Errorf("postgres config: Schema %+q is not a PostgreSQL name: want UTF-8 without NUL, at most %d bytes (empty for the default)", c.Schema, maxIdentifier)
	case c.MaxBatch < 0 || c.MaxBatch > maxMaxBatch:
		return fmt.Errorf("postgres config: MaxBatch is %d, want 1 to %d (0 for the default %d)", c.MaxBatch, maxMaxBatch, DefaultMaxBatch)
	case c.MaxReaders < 0 || c.MaxReaders > maxMaxReaders:
		return fmt.Errorf("postgres config: MaxReaders is %d, want 1 to %d (0 for the default %d)", c.MaxReaders, maxMaxReaders, DefaultMaxReaders)
	case c.PageSize < 0 || c.PageSize > maxPageSize:
		return fmt.Errorf("postgres config: PageSize is %d, want 1 to %d (0 for the default %d)", c.PageSize, maxPageSize, DefaultPageSize)
	case c.PollInterval < 0:
		return fmt.Errorf("postgres config: PollInterval is %s, want a positive duration (0 for the default %s)", c.PollInterval, DefaultPollInterval)
	}
	return nil
}

// schemaFromSearchPath returns the schema a search_path names when it names exactly one, plain
// or double-quoted, else DefaultSchema.
func schemaFromSearchPath(path string) string {
	path = strings.TrimSpace(path)
	if path == "" || strings.Contains(path, ",") {
		return DefaultSchema
	}
	if len(path) > 2 && path[0] == '"' && path[len(path)-1] == '"' {
		return strings.ReplaceAll(path[1:len(path)-1], `""`, `"`)
	}
	if strings.ContainsAny(path, `" `) || path == "$user" {
		return DefaultSchema
	}
	// Unquoted names fold to lower case, as the server folds them.
	return strings.ToLower(path)
}

// Store is an event store in one PostgreSQL schema. It is safe for concurrent use. Call Close
// when done with it.
type Store struct {
	cfg     Config
	where   string // the database and schema, for messages; never the password
	secrets secrets
	sql     queries

	pool     *pgxpool.Pool
	connCfg  *pgx.ConnConfig // for sessions of their own (LockWriter)
	w        *writer
	listener *listener

	gate    *groupcommit.Gate
	commits *groupcommit.Notifier
}

// hooks are test-only points of entry into a store. The zero value is what Open uses.
type hooks struct {
	// beforeCommit, when set, runs in every append transaction after its events took their
	// positions and before COMMIT.
	beforeCommit func()
}

// Open opens the event store in the PostgreSQL database url reaches (a postgres:// URL or a
// keyword/value connection string, as pgx reads them), creating its schema and tables when
// they are missing and upgrading older ones. Open refuses a schema written by a newer format
// than this build reads. The password the URL holds (or the environment supplies) never
// appears in an error the store returns or a message it logs.
func Open(ctx context.Context, url string, cfg Config) (*Store, error) {
	return open(ctx, url, cfg, hooks{})
}

func open(ctx context.Context, url string, cfg Config, h hooks) (_ *Store, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	poolCfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx masks passwords in what it could parse only on a best-effort basis: say nothing
		// of the URL but where it points, if that much can be read safely.
		return nil, fmt.Errorf("open event store %s: the connection string cannot be parsed (its text is withheld, as it may hold a password)", redactedURL(url))
	}
	conn := poolCfg.ConnConfig
	if !sameUserInfo(url, conn) {
		// A password holding an unencoded '@' (or ':' or '/') moves pgx's idea of where the user
		// part ends: it would take part of the password for the host and print it. Nothing of
		// such a URL is shown.
		return nil, errors.New("open event store: the connection URL's user part does not parse unambiguously (percent-encode '@', ':' and '/' in the password); its text is withheld, as it may hold a password")
	}
	cfg.setDefaults(conn.RuntimeParams["search_path"])
	if err := cfg.Validate(); err != nil { // the schema the URL names
		return nil, err
	}
	if _, ok := conn.RuntimeParams["application_name"]; !ok {
		conn.RuntimeParams["application_name"] = "relayer-eventstore"
	}
	s := &Store{
		cfg:     cfg,
		where:   describe(conn, cfg.Schema),
		secrets: secretsOf(conn),
		connCfg: conn.Copy(),
		commits: groupcommit.NewNotifier(),
	}
	defer func() {
		if err != nil {
			err = s.secrets.Scrub(err)
		}
	}()

	s.sql = newQueries(cfg.Schema)
	w, err := openWriter(ctx, conn, cfg.Schema, !cfg.Existing, s.sql, cfg.MaxBatch, s.commits.Broadcast, s.secrets, h)
	if err != nil {
		return nil, fmt.Errorf("open event store %s: %w", s.where, err)
	}
	defer func() {
		if err != nil {
			_ = w.stop()
		}
	}()
	s.w = w
	s.gate = groupcommit.NewGate(w.q.Reqs(), nil)

	poolCfg.MaxConns = int32(cfg.MaxReaders)
	poolCfg.MinConns = 0
	if s.pool, err = pgxpool.NewWithConfig(ctx, poolCfg); err != nil {
		return nil, fmt.Errorf("open event store %s: %w", s.where, err)
	}
	defer func() {
		if err != nil {
			s.pool.Close()
		}
	}()

	s.listener = newListener(conn, w.channel, s)
	if err := s.listener.start(ctx); err != nil {
		return nil, fmt.Errorf("open event store %s: listen: %w", s.where, err)
	}
	w.start()
	return s, nil
}

// Append implements eventstore.Store. If ctx ends before the writer takes the append into a
// transaction, Append returns ctx's error and writes nothing; once taken, Append waits for the
// commit. Should the connection fail while COMMIT is under way, Append returns an error though
// the events may have been stored (no client of a networked database can know): a retry that
// expects the same version then fails with a version conflict, and reading the stream tells.
func (s *Store) Append(ctx context.Context, stream string, expected eventstore.Version, events ...eventstore.Event) (eventstore.Position, error) {
	return s.append(ctx, nil, stream, expected, events)
}

// AppendGuarded implements eventstore.GuardedAppender: the guard stream's version is read under
// the append lock with the batch's other versions, and checked after the appends before it.
func (s *Store) AppendGuarded(ctx context.Context, guard eventstore.Guard, stream string, expected eventstore.Version, events ...eventstore.Event) (eventstore.Position, error) {
	if err := eventstore.ValidateGuard(stream, guard); err != nil {
		return 0, err
	}
	if !isText(guard.Stream) {
		return 0, fmt.Errorf("%w: guard stream name %+q is not UTF-8 text without NUL bytes", eventstore.ErrInvalidEvent, guard.Stream)
	}
	return s.append(ctx, &guard, stream, expected, events)
}

func (s *Store) append(ctx context.Context, guard *eventstore.Guard, stream string, expected eventstore.Version, events []eventstore.Event) (eventstore.Position, error) {
	if err := eventstore.ValidateAppend(stream, expected, events); err != nil {
		return 0, err
	}
	if err := validateText(stream, events); err != nil {
		return 0, err
	}
	return s.gate.Append(ctx, guard, stream, expected, events)
}

// AppendBatch implements eventstore.BatchAppender: the appends go to the writer in the order
// given, one after the other, so their events take positions in that order; the writer commits
// them in as few transactions as its batches allow.
func (s *Store) AppendBatch(ctx context.Context, appends []eventstore.StreamAppend) ([]eventstore.Position, []error) {
	return s.gate.AppendBatch(ctx, appends, func(a eventstore.StreamAppend) error {
		if err := eventstore.ValidateAppend(a.Stream, a.Expected, a.Events); err != nil {
			return err
		}
		return validateText(a.Stream, a.Events)
	})
}

// validateText rejects what PostgreSQL text and json cannot hold, and what this store cannot
// keep exactly, as invalid events: names that are not UTF-8 or hold NUL bytes, data that is not
// UTF-8, schema versions beyond an integer column and recorded-at times beyond Unix
// nanoseconds (the years 1678 to 2262, as the sqlite store keeps them).
func validateText(stream string, events []eventstore.Event) error {
	if !isText(stream) {
		return fmt.Errorf("%w: stream name %+q is not UTF-8 text without NUL bytes", eventstore.ErrInvalidEvent, stream)
	}
	for i, e := range events {
		switch {
		case !isText(e.Type):
			return fmt.Errorf("%w: event %d for %s has type %+q, not UTF-8 text without NUL bytes", eventstore.ErrInvalidEvent, i, stream, e.Type)
		case !isText(e.Metadata.CorrelationID) || !isText(e.Metadata.CausationID):
			return fmt.Errorf("%w: event %d (%s) for %s has a correlation or causation id that is not UTF-8 text without NUL bytes", eventstore.ErrInvalidEvent, i, e.Type, stream)
		case !utf8.Valid(e.Data):
			return fmt.Errorf("%w: event %d (%s) for %s has data that is not UTF-8", eventstore.ErrInvalidEvent, i, e.Type, stream)
		case e.SchemaVersion > math.MaxInt32:
			return fmt.Errorf("%w: event %d (%s) for %s has schema version %d, want at most %d", eventstore.ErrInvalidEvent, i, e.Type, stream, e.SchemaVersion, math.MaxInt32)
		}
		if err := groupcommit.CheckRecordedAt(stream, i, e); err != nil {
			return err
		}
	}
	return nil
}

func isText(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// Head implements eventstore.Store.
func (s *Store) Head(ctx context.Context) (eventstore.Position, error) {
	if s.isClosed() {
		return 0, fmt.Errorf("head: %w", eventstore.ErrClosed)
	}
	var head int64
	if err := s.pool.QueryRow(ctx, s.sql.head).Scan(&head); err != nil {
		return 0, s.queryErr(ctx, "head", err)
	}
	return eventstore.Position(head), nil
}

// Space implements eventstore.SpaceReporter: the events table's bytes. The room left on the
// server's disk is not visible to a client (Free is -1); the server's own monitoring watches it.
func (s *Store) Space(ctx context.Context) (eventstore.Space, error) {
	if s.isClosed() {
		return eventstore.Space{}, fmt.Errorf("space: %w", eventstore.ErrClosed)
	}
	var size int64
	if err := s.pool.QueryRow(ctx, s.sql.size).Scan(&size); err != nil {
		return eventstore.Space{}, s.queryErr(ctx, "space", err)
	}
	return eventstore.Space{Size: size, Free: -1}, nil
}

// StreamVersion implements eventstore.StreamVersioner.
func (s *Store) StreamVersion(ctx context.Context, stream string) (eventstore.Version, error) {
	if s.isClosed() {
		return eventstore.NoStream, fmt.Errorf("stream version: %w", eventstore.ErrClosed)
	}
	var v int64
	if err := s.pool.QueryRow(ctx, s.sql.version, stream).Scan(&v); err != nil {
		return eventstore.NoStream, s.queryErr(ctx, "stream version", err)
	}
	return eventstore.Version(v), nil
}

// Close lets the appends already submitted commit, stops the writer and the listener, ends
// subscriptions (they yield ErrClosed) and closes the connections. Later calls fail with
// ErrClosed; calling Close again returns nil.
func (s *Store) Close() error {
	if !s.gate.Close() {
		return nil
	}
	errs := []error{s.w.stop(), s.listener.stop()}
	// Reads notice Close between pages and release their connections; the pool waits for them.
	s.pool.Close()
	if err := errors.Join(errs...); err != nil {
		return s.secrets.Scrub(fmt.Errorf("close event store %s: %w", s.where, err))
	}
	return nil
}

// Schema returns the PostgreSQL schema that holds the store.
func (s *Store) Schema() string { return s.cfg.Schema }

func (s *Store) isClosed() bool { return s.gate.Closed() }

// queryErr names a failed read, preferring ErrClosed and ctx's error over the driver's view of
// the same event, with the password scrubbed from the driver's message.
func (s *Store) queryErr(ctx context.Context, what string, err error) error {
	if gone := s.gate.Gone(ctx, what); gone != nil {
		return gone
	}
	return s.secrets.Scrub(fmt.Errorf("%s: %w", what, err))
}

// describe names the database and schema a store lives in, for messages: never the password.
func describe(conn *pgx.ConnConfig, schema string) string {
	return fmt.Sprintf("postgres://%s@%s:%d/%s (schema %s)", conn.User, conn.Host, conn.Port, conn.Database, schema)
}
