package kurrentdb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/EventStore/EventStore-Client-Go/v4/esdb"
	"github.com/google/uuid"

	"relayer/eventstore"
)

var _ eventstore.Store = (*Store)(nil)

// Defaults for the zero fields of Config.
const (
	DefaultPageSize      = 500
	DefaultRetryInterval = 250 * time.Millisecond
)

// Limits Validate enforces, and the longest wait between two attempts to resubscribe.
const (
	maxPageSize     = 1 << 16
	maxPrefix       = 256
	maxRetryBackoff = 32
)

// closeGrace bounds how long Close waits for the calls to the server under way (appends, and
// reads ending after Close cancelled them) before it leaves the connection to close once they
// are done. A healthy call ends long before: an append has the client's 10s deadline.
const closeGrace = 30 * time.Second

// Config tunes a Store. The zero value is ready to use: every zero field takes its default.
type Config struct {
	// StreamPrefix is prepended to the name of every stream the store writes or reads, and
	// taken off the names it yields; ReadAll, SubscribeAll and Head see only the streams under
	// it. KurrentDB has one $all per server, so the prefix is how several stores share one
	// server, each seeing an empty log at first: relayers of different deployments, or the
	// conformance suite's stores. Choose prefixes none of which starts another (end them with a
	// separator, "staging/"). Empty means the whole server. It may not start with "$", which
	// marks KurrentDB's system streams.
	StreamPrefix string
	// PageSize is how many events one read call asks the server for. Default 500.
	PageSize int
	// RetryInterval is how long a subscription waits before it subscribes again after the
	// server dropped it; the wait doubles with each failure in a row, up to 32 times
	// RetryInterval, and is drawn at random below that (full jitter, so that subscribers
	// dropped together do not come back together). Default 250ms.
	RetryInterval time.Duration
	// Logger receives the store's warnings (a subscription dropped and resumed, a client
	// replaced) and, at debug level, the client's own log lines. Default slog.Default().
	Logger *slog.Logger
}

// setDefaults fills the zero fields.
func (c *Config) setDefaults() {
	c.PageSize = cmp.Or(c.PageSize, DefaultPageSize)
	c.RetryInterval = cmp.Or(c.RetryInterval, DefaultRetryInterval)
	c.Logger = cmp.Or(c.Logger, slog.Default())
}

// Validate reports the first field that is out of range. Zero fields are valid: they take
// their defaults.
func (c Config) Validate() error {
	switch {
	case strings.HasPrefix(c.StreamPrefix, "$"):
		return fmt.Errorf("kurrentdb config: StreamPrefix %q starts with $, which marks KurrentDB's system streams", c.StreamPrefix)
	case len(c.StreamPrefix) > maxPrefix || !utf8.ValidString(c.StreamPrefix):
		return fmt.Errorf("kurrentdb config: StreamPrefix %+q: want UTF-8, at most %d bytes", c.StreamPrefix, maxPrefix)
	case c.PageSize < 0 || c.PageSize > maxPageSize:
		return fmt.Errorf("kurrentdb config: PageSize is %d, want 1 to %d (0 for the default %d)", c.PageSize, maxPageSize, DefaultPageSize)
	case c.RetryInterval < 0:
		return fmt.Errorf("kurrentdb config: RetryInterval is %s, want a positive duration (0 for the default %s)", c.RetryInterval, DefaultRetryInterval)
	}
	return nil
}

// Store is an event store on a KurrentDB server (or cluster), under one stream prefix. It is
// safe for concurrent use. Call Close when done with it.
type Store struct {
	cfg     Config
	names   names
	where   string // the server, for messages; never the password
	secrets secrets
	conf    esdb.Configuration // what every client of the store is made from

	// life ends when Close begins: reads and subscriptions end with it.
	life context.Context
	stop context.CancelFunc

	// stuckAfter is how long a call may stay inside the client before the store takes the
	// client for stopped (see guard).
	stuckAfter time.Duration

	// mark lets Head read back no further than where the previous Head read from.
	headMu sync.Mutex
	mark   headMark

	// floor lets ReadAll skip the events of $all below the store's first (see readFloor).
	floorMu sync.Mutex
	floor   *esdb.Position

	// mu guards client, closed and tainted. calls counts the calls admitted to a client and
	// not yet released (see guard); Close waits for them before it closes the client, unless a
	// call got stuck in it (tainted).
	mu      sync.Mutex
	client  *esdb.Client
	closed  bool
	calls   sync.WaitGroup
	tainted map[*esdb.Client]bool
}

// Open opens the event store on the KurrentDB server that url reaches: a connection string
// (esdb://, esdb+discover://, or the same as kurrentdb://, kurrentdb+discover://, kurrent://,
// kurrent+discover://), as the client reads it. Open reads the server once, so that a wrong
// address or credentials fail here rather than at the first append. The password the URL holds
// never appears in an error the store returns or a line it logs.
func Open(ctx context.Context, url string, cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	conf, sec, where, err := parseURL(url)
	if err != nil {
		return nil, err
	}
	s := &Store{cfg: cfg, names: names{cfg.StreamPrefix}, where: where, secrets: sec, stuckAfter: stuckAfter(conf), tainted: map[*esdb.Client]bool{}}
	conf.Logger = s.clientLog
	s.conf = *conf
	s.life, s.stop = context.WithCancel(context.Background())
	if s.client, err = s.newClient(); err != nil {
		s.stop()
		return nil, s.secrets.Scrub(fmt.Errorf("open event store %s: %w", s.where, err))
	}
	if _, _, err := s.lastEvent(ctx); err != nil {
		s.abandon()
		return nil, s.secrets.Scrub(fmt.Errorf("open event store %s: %w", s.where, err))
	}
	return s, nil
}

// clientLog takes the client's log lines, at debug level: the client logs every cancelled call
// as an error. The store logs what matters itself.
func (s *Store) clientLog(level esdb.LogLevel, format string, args ...any) {
	if !s.cfg.Logger.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	s.cfg.Logger.Debug("kurrentdb client", "level", level, "message", s.secrets.ScrubString(fmt.Sprintf(format, args...)), "store", s.where)
}

// Append implements eventstore.Store. Each event becomes a KurrentDB event with a new random id,
// content type JSON, the event's type and data, and user metadata holding its schema version,
// correlation and causation ids and any recorded-at given (see doc.go). When ctx ends before the
// server answers, Append returns ctx's error, and the events may or may not have been stored: a
// retry that expects the same version then fails with a version conflict, and reading the
// stream tells.
func (s *Store) Append(ctx context.Context, stream string, expected eventstore.Version, events ...eventstore.Event) (eventstore.Position, error) {
	if err := eventstore.ValidateAppend(stream, expected, events); err != nil {
		return 0, err
	}
	if err := validateEvents(stream, events); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("append %s: %w", stream, err)
	}
	proposed := make([]esdb.EventData, len(events))
	for i, e := range events {
		meta, err := encodeMetadata(e)
		if err != nil {
			return 0, fmt.Errorf("%w: event %d (%s) for %s: metadata: %v", eventstore.ErrInvalidEvent, i, e.Type, stream, err)
		}
		proposed[i] = esdb.EventData{
			EventID:     uuid.New(),
			EventType:   e.Type,
			ContentType: esdb.ContentTypeJson,
			Data:        e.Data,
			Metadata:    meta,
		}
	}
	opts := esdb.AppendToStreamOptions{ExpectedRevision: expectedRevision(expected)}
	full := s.names.full(stream)
	for attempt := 0; ; attempt++ {
		res, client, err := await(ctx, s, func(c *esdb.Client) (*esdb.WriteResult, error) {
			return c.AppendToStream(ctx, full, opts, proposed...)
		})
		if err == nil {
			pos, ok := positionOf(res.CommitPosition)
			if !ok {
				return 0, fmt.Errorf("append %s: the server reported commit position %d for the appended events", stream, res.CommitPosition)
			}
			s.setHeadMark(headMark{head: pos})
			return pos, nil
		}
		if isConflict, actual, known := conflict(err); isConflict {
			if !known {
				// A client whose message no longer names the actual version: read it. The
				// stream may have moved on since the conflict; the version read is no older.
				if actual, err = s.lastVersion(ctx, stream); err != nil {
					return 0, s.secrets.Scrub(fmt.Errorf("append %s: version conflict, and reading the actual version failed: %w", stream, err))
				}
			}
			return 0, &eventstore.WrongExpectedVersionError{Stream: stream, Expected: expected, Actual: actual}
		}
		// A dead client sent nothing: the append is safe to make again, once, on a new one.
		if attempt == 0 && client != nil && s.renew(client, err) {
			continue
		}
		if errors.Is(err, eventstore.ErrClosed) {
			return 0, fmt.Errorf("append %s: %w", stream, err)
		}
		if code, ok := clientCode(err); ok && code == esdb.ErrorCodeStreamDeleted {
			return 0, fmt.Errorf("append %s: %w", stream, ErrRemoved)
		}
		if errors.Is(err, errStuck) {
			return 0, fmt.Errorf("append %s to %s: %w; the events may or may not have been stored", stream, s.where, err)
		}
		if ctx.Err() != nil {
			return 0, fmt.Errorf("append %s: %w", stream, ctx.Err())
		}
		return 0, s.secrets.Scrub(fmt.Errorf("append %s to %s: %w", stream, s.where, err))
	}
}

// lastVersion reads the version of a stream's last event, NoStream when it has none.
func (s *Store) lastVersion(ctx context.Context, stream string) (eventstore.Version, error) {
	v := eventstore.NoStream
	err := s.read(ctx, func(ctx context.Context, c *esdb.Client) (*esdb.ReadStream, error) {
		return c.ReadStream(ctx, s.names.full(stream), esdb.ReadStreamOptions{Direction: esdb.Backwards, From: esdb.End{}}, 1)
	}, func(ev *esdb.ResolvedEvent) bool {
		v = eventstore.Version(ev.OriginalEvent().EventNumber)
		return false
	})
	if isGone(err) {
		return eventstore.NoStream, nil
	}
	return v, err
}

// Head implements eventstore.Store: the position of the store's last event, found by reading $all
// backwards from its end past the events of other prefixes and the system's (the client has no
// server-side filter for reads; see doc.go), down to where the store's previous Head read from
// at most: no event of the store is below that but the one Head found then.
func (s *Store) Head(ctx context.Context) (eventstore.Position, error) {
	ctx, stop := s.opContext(ctx)
	defer stop()
	mark := s.headMark()
	head := mark.head
	var newest *esdb.Position
	err := s.scanBackwards(ctx, func(ev *esdb.RecordedEvent) bool {
		p := ev.Position
		if newest == nil {
			newest = &p
		}
		if mark.read && !before(mark.from, p) {
			return false // read before: the head then is the head below it
		}
		pos, ok := positionOf(p.Commit)
		if !ok || !s.names.ours(ev.StreamID, ev.EventType) {
			return true
		}
		head = max(head, pos)
		return false
	})
	if err != nil {
		return 0, s.readErr(ctx, "head", err)
	}
	if newest != nil {
		s.setHeadMark(headMark{head: head, from: *newest, read: true})
	}
	return head, nil
}

// headMark is what the store's Heads learnt: its last event (head) at or below the $all
// position an earlier Head read back from (from, when read), and any later one Append wrote.
type headMark struct {
	head eventstore.Position
	from esdb.Position
	read bool
}

func (s *Store) headMark() headMark {
	s.headMu.Lock()
	defer s.headMu.Unlock()
	return s.mark
}

func (s *Store) setHeadMark(m headMark) {
	s.headMu.Lock()
	defer s.headMu.Unlock()
	s.mark.head = max(s.mark.head, m.head)
	if m.read && (!s.mark.read || before(s.mark.from, m.from)) {
		s.mark.from, s.mark.read = m.from, true
	}
}

// Close lets the appends under way finish, ends reads and subscriptions (they yield ErrClosed)
// and closes the connection. Later calls fail with ErrClosed; calling Close again returns nil.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	client := s.client
	s.mu.Unlock()
	s.stop()
	done := make(chan struct{})
	go func() {
		s.calls.Wait()
		close(done)
	}()
	timer := time.NewTimer(closeGrace)
	defer timer.Stop()
	select {
	case <-done:
		s.closeClient(client)
		return nil
	case <-timer.C:
		go func() {
			<-done
			s.closeClient(client)
		}()
		return fmt.Errorf("close event store %s: calls to the server did not end within %s; the connection closes once they do", s.where, closeGrace)
	}
}

// abandon closes a store Open gives up on, without waiting: the client closes once the call
// that failed is done with it.
func (s *Store) abandon() {
	s.mu.Lock()
	s.closed = true
	client := s.client
	s.mu.Unlock()
	s.stop()
	go func() {
		s.calls.Wait()
		s.closeClient(client)
	}()
}

// Prefix returns the stream prefix of the store (Config.StreamPrefix).
func (s *Store) Prefix() string { return s.names.prefix }

// readErr names a failed read, preferring ctx's error and ErrClosed over the client's view of
// the same event, with the password scrubbed from the client's message.
func (s *Store) readErr(ctx context.Context, what string, err error) error {
	switch {
	case errors.Is(err, eventstore.ErrClosed):
		return fmt.Errorf("%s: %w", what, eventstore.ErrClosed)
	case s.life.Err() != nil && ctx.Err() != nil:
		return fmt.Errorf("%s: %w", what, eventstore.ErrClosed)
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w", what, ctx.Err())
	default:
		return s.secrets.Scrub(fmt.Errorf("%s from %s: %w", what, s.where, err))
	}
}
