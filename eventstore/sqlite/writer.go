package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	sqlitedrv "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"relayer/eventstore"
	"relayer/eventstore/internal/groupcommit"
	"relayer/eventstore/internal/readahead"
)

// maxInsertRows is the most rows one INSERT statement carries (10 parameters a row, far below
// SQLite's limit of 32766 parameters). Larger batches take several statements.
const maxInsertRows = 128

// gatherIdleRounds is how many times in a row gather yields without seeing a new append before
// it commits what it has. With 0 and no budget, callers answered by one commit miss the next
// batch and two cohorts alternate (BenchmarkAppend64: 33 appends a transaction); 1 merges them
// (about 50); more gains nothing measurable.
const gatherIdleRounds = 1

// gatherBudget bounds how long gather waits for the previous batch's callers. Measured with
// BenchmarkAppend64 (64 closed-loop appenders, 2 cores): without it transactions carry about
// 45 appends, with 100µs about 56 and throughput is about 6% higher (median of 12 paired
// runs); 200µs gains nothing more. A commit's fsync takes about 300µs here.
const gatherBudget = 100 * time.Microsecond

// maxCachedStreams bounds the writer's cache of streams; past it the cache starts over.
const maxCachedStreams = 1 << 16

// writer owns the only write connection. Its goroutine takes the appends waiting in reqs, up to
// maxBatch, and commits them in one transaction.
type writer struct {
	path string
	db   *sql.DB
	conn *sql.Conn
	q    *groupcommit.Queue
	ops  chan func() // other writes (RemoveStreams) on conn, run between batches
	ids  *streamIDs  // the store's, for its reads: fed with the streams each batch wrote
	tail *tail       // the store's, for its subscriptions: fed with the events each batch wrote

	begin, commitStmt *sql.Stmt
	state             *sql.Stmt // head position, last stream number and data_version
	lookup            *sql.Stmt // streams' numbers and versions
	insertEvents      insertStatements
	insertStreams     insertStatements

	// streams caches the numbers and versions of streams as this connection last committed or
	// read them. It is only trusted while PRAGMA data_version, which changes when another
	// connection commits, stays at dataVersion. A stream's number never changes, but another
	// process may have created the stream or moved its version: the whole cache goes.
	streams     map[string]streamState
	dataVersion int64

	// scratch, reused from batch to batch
	current    map[string]streamState
	missing    []string
	args       []any
	streamArgs []any
	committed  []eventstore.Record // the batch's events, for the tail once it commits
}

// streamState is what the writer knows of a stream: its number (0 while it has none: a stream
// gets one with its first events) and its version.
type streamState struct {
	id      int64
	version eventstore.Version
}

// noStream is the state of a stream that has no events.
var noStream = streamState{version: eventstore.NoStream}

func openWriter(path string, cfg Config, onCommit func(), ids *streamIDs, tail *tail) (_ *writer, err error) {
	db, err := sql.Open("sqlite", dsn(path, cfg, false))
	if err != nil {
		return nil, fmt.Errorf("open event store %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	w := &writer{
		path:          path,
		db:            db,
		q:             groupcommit.NewQueue(cfg.MaxBatch, onCommit, storageFull),
		ops:           make(chan func()),
		ids:           ids,
		tail:          tail,
		streams:       map[string]streamState{},
		current:       map[string]streamState{},
		insertEvents:  newInsertStatements(insertEventsPrefix, eventColumns),
		insertStreams: newInsertStatements(insertStreamsPrefix, 2),
	}
	defer func() {
		if err != nil {
			_ = w.closeConn()
		}
	}()
	ctx := context.Background()
	if w.conn, err = db.Conn(ctx); err != nil {
		return nil, fmt.Errorf("open event store %s: %w", path, err)
	}
	var mode string
	if err := w.conn.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
		return nil, fmt.Errorf("open event store %s: %w", path, err)
	}
	if !strings.EqualFold(mode, "wal") {
		return nil, fmt.Errorf("open event store %s: journal mode is %s, want wal", path, mode)
	}
	if err := migrate(ctx, w.conn, path); err != nil {
		return nil, err
	}
	prepare := func(query string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var st *sql.Stmt
		st, err = w.conn.PrepareContext(ctx, query)
		return st
	}
	w.begin = prepare(`BEGIN IMMEDIATE`)
	w.commitStmt = prepare(`COMMIT`)
	w.state = prepare(`SELECT coalesce((SELECT max(position) FROM events), 0), coalesce((SELECT max(id) FROM streams), 0), (SELECT data_version FROM pragma_data_version)`)
	// One query per batch finds the numbers and versions of the streams the cache does not
	// know, as one JSON object of the streams that exist: the correlated max() seeks the last
	// index entry of each stream, however long it is, and new streams cost no row.
	w.lookup = prepare(lookupQuery)
	if err != nil {
		return nil, fmt.Errorf("open event store %s: prepare: %w", path, err)
	}
	w.dataVersion = -1
	return w, nil
}

// bitsFor returns k with 1<<k == n for a power of two n.
func bitsFor(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// start runs the writer goroutine.
func (w *writer) start() {
	w.q.Start(w.gather, w.commit, w.ops, func() {
		// The op wrote without going through the cache: forget it. (writeOp started the tail
		// over before the op ran, and nothing was added to it since.)
		clear(w.streams)
		w.dataVersion = -1
	})
}

// gather adds the appends waiting in reqs to w.batch, up to maxBatch, so that one fsync covers
// as many appends as possible. The callers the previous commit answered are often about to
// append again (a closed loop of appenders); when that commit carried more than one append,
// gather gives them up to gatherBudget to come back, like PostgreSQL's commit_delay with
// commit_siblings. A lone appender never waits. Then, while appends keep arriving, it yields
// the processor between rounds and takes them too.
func (w *writer) gather() {
	w.q.Take()
	if back := w.q.LastBatch; back > 1 {
		target := len(w.q.Batch) + back
		deadline := time.Now().Add(gatherBudget)
		for !w.q.Full(target) && time.Now().Before(deadline) {
			runtime.Gosched()
			w.q.Take()
		}
	}
	w.q.Gather(gatherIdleRounds)
}

// stop ends the writer goroutine, if it runs, and closes the connection. The caller must make
// sure no Append is waiting for an answer (Store.Close waits for them first).
func (w *writer) stop() error {
	w.q.Stop()
	return w.closeConn()
}

func (w *writer) closeConn() error {
	var errs []error
	all := append([]*sql.Stmt{w.begin, w.commitStmt, w.state, w.lookup}, w.insertEvents.stmts...)
	for _, st := range append(all, w.insertStreams.stmts...) {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	if w.conn != nil {
		errs = append(errs, w.conn.Close())
	}
	errs = append(errs, w.db.Close())
	return errors.Join(errs...)
}

// storageFull turns SQLite's "disk full" into eventstore.ErrStorageFull.
func storageFull(err error) error {
	if isFull(err) {
		return fmt.Errorf("%w: %w", eventstore.ErrStorageFull, err)
	}
	return err
}

// How a transaction attempt failed (see groupcommit.Failure).
const (
	// failBatch: BEGIN or COMMIT failed; nothing else can succeed now.
	failBatch = groupcommit.FailBatch
	// failStatement: a statement inside the transaction failed (an oversized event, say); the
	// appends may succeed on their own, away from the one that broke it.
	failStatement = groupcommit.FailStatement
	// failGuess: a stream guessed to be new already exists; the batch can be redone with
	// look-ups.
	failGuess = groupcommit.FailRetry
)

// commit writes one batch and answers its callers.
func (w *writer) commit(batch []*groupcommit.Req) {
	w.q.Commit(batch, w.write, w.q.Fail)
}

// write runs one transaction for reqs: each append is checked against its own expected version,
// as left by the appends before it in the batch, the ones that pass are inserted, and the
// transaction commits. On success each request holds its result (r.ok, r.pos or r.err) for
// answer. On failure nothing is written and the cache is dropped.
//
// The number and version of a stream come from the cache, or else from one look-up query for
// the batch. A stream that gets its first events is numbered next after the last one, and its
// name goes into the streams table. With guess, a stream the cache does not know whose first
// append in the batch expects NoStream is taken to be new without a look-up: if the guess is
// wrong, inserting its name breaks the UNIQUE index on streams' names, and write fails with
// failGuess for commit to redo the batch without guessing.
func (w *writer) write(reqs []*groupcommit.Req, guess bool) (how groupcommit.Failure, err error) {
	ctx := context.Background()
	if _, err := w.begin.ExecContext(ctx); err != nil {
		return failBatch, fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if err != nil {
			_, _ = w.conn.ExecContext(ctx, `ROLLBACK`)
			clear(w.streams)
			w.dataVersion = -1
		}
	}()

	var head, lastStream, dataVersion int64
	if err := w.state.QueryRowContext(ctx).Scan(&head, &lastStream, &dataVersion); err != nil {
		return failStatement, fmt.Errorf("read head: %w", err)
	}
	if dataVersion != w.dataVersion {
		// Another connection committed since this one last looked: the cache may be stale, and
		// the tail may hold rows it changed.
		clear(w.streams)
		w.tail.reset()
		w.dataVersion = dataVersion
	}

	current := w.current
	clear(current)
	missing := w.missing[:0]
	guessed := false
	// A guard is checked against a stream's real version, never a guess: a guard stream that an
	// earlier append of the batch guessed to be new is looked up after all (only an insert at
	// version 0 would expose a wrong guess, and a guarded append inserts nothing into its guard).
	var guessedAt map[string]bool
	need := func(stream string, mayGuess bool) {
		if _, ok := current[stream]; ok {
			if !mayGuess && guessedAt[stream] {
				delete(guessedAt, stream)
				missing = append(missing, stream)
			}
			return
		}
		if st, ok := w.streams[stream]; ok {
			current[stream] = st
			return
		}
		current[stream] = noStream
		if mayGuess {
			guessed = true
			if guessedAt == nil {
				guessedAt = map[string]bool{}
			}
			guessedAt[stream] = true
			return
		}
		missing = append(missing, stream)
	}
	for _, r := range reqs {
		need(r.Stream, guess && r.Expected == eventstore.NoStream)
		if r.Guard != nil {
			need(r.Guard.Stream, false)
		}
	}
	w.missing = missing
	defer clear(w.missing)
	if err := w.lookupStreams(ctx, missing, current); err != nil {
		return failStatement, err
	}
	now := time.Now().UnixNano()
	args, streamArgs, committed := w.args[:0], w.streamArgs[:0], w.committed[:0]
	for _, r := range reqs {
		if r.Guard != nil {
			if err := eventstore.CheckGuard(r.Stream, *r.Guard, current[r.Guard.Stream].version); err != nil {
				r.OK, r.Err = false, err
				continue
			}
		}
		st := current[r.Stream]
		if err := eventstore.CheckExpected(r.Stream, r.Expected, st.version); err != nil {
			r.OK, r.Err = false, err
			continue
		}
		r.OK, r.Err = true, nil
		if st.id == 0 {
			lastStream++
			st.id = lastStream
			streamArgs = append(streamArgs, st.id, r.Stream)
		}
		for i, e := range r.Events {
			head++
			recordedAt := now
			if !e.Metadata.RecordedAt.IsZero() {
				recordedAt = e.Metadata.RecordedAt.UnixNano()
			}
			version := int64(st.version) + 1 + int64(i)
			args = append(args,
				head,
				st.id,
				r.Stream,
				version,
				e.Type,
				int64(e.SchemaVersion),
				[]byte(e.Data),
				nullString(e.Metadata.CorrelationID),
				nullString(e.Metadata.CausationID),
				recordedAt,
			)
			// As a read of the row gives it back (see scanner.decode).
			committed = append(committed, eventstore.Record{
				Stream: r.Stream, Version: eventstore.Version(version), Position: eventstore.Position(head),
				Type: e.Type, SchemaVersion: e.SchemaVersion, Data: readahead.CopyData(&w.tail.arena, []byte(e.Data)),
				Metadata: eventstore.Metadata{CorrelationID: e.Metadata.CorrelationID, CausationID: e.Metadata.CausationID,
					RecordedAt: time.Unix(0, recordedAt).UTC()},
			})
		}
		st.version += eventstore.Version(len(r.Events))
		current[r.Stream] = st
		r.Pos = eventstore.Position(head)
	}
	w.args, w.streamArgs, w.committed = args, streamArgs, committed
	defer func() { clear(w.args); clear(w.streamArgs); clear(w.committed) }()

	// The new streams first: a wrong guess breaks the UNIQUE index on their names.
	for _, ins := range []struct {
		what   string
		to     *insertStatements
		values []any
	}{{"insert streams", &w.insertStreams, streamArgs}, {"insert events", &w.insertEvents, args}} {
		if err := ins.to.exec(ctx, w.conn, ins.values); err != nil {
			if guessed && isUniqueViolation(err) {
				return failGuess, fmt.Errorf("%s: %w", ins.what, err)
			}
			return failStatement, fmt.Errorf("%s: %w", ins.what, err)
		}
	}

	if _, err := w.commitStmt.ExecContext(ctx); err != nil {
		return failBatch, fmt.Errorf("commit: %w", err)
	}

	if len(w.streams)+len(current) > maxCachedStreams {
		clear(w.streams)
	}
	for s, st := range current {
		if st.version != eventstore.NoStream {
			w.streams[s] = st
		}
	}
	w.ids.addCommitted(current)
	w.tail.add(committed)
	return 0, nil
}

// isFull reports SQLite's SQLITE_FULL: the disk (or the database's page limit) is full, and the
// transaction was rolled back.
func isFull(err error) bool {
	var se *sqlitedrv.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL
}

func isUniqueViolation(err error) bool {
	var se *sqlitedrv.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE
}

// lookupStreams sets current[stream] for each of streams that exists.
func (w *writer) lookupStreams(ctx context.Context, streams []string, current map[string]streamState) error {
	if len(streams) == 0 {
		return nil
	}
	names, err := json.Marshal(streams)
	if err != nil {
		return fmt.Errorf("read streams: %w", err)
	}
	var found string
	if err := w.lookup.QueryRowContext(ctx, string(names)).Scan(&found); err != nil {
		return fmt.Errorf("read streams: %w", err)
	}
	if found == "{}" {
		return nil
	}
	states := map[string][2]int64{}
	if err := json.Unmarshal([]byte(found), &states); err != nil {
		return fmt.Errorf("read streams: %w", err)
	}
	for stream, st := range states {
		current[stream] = streamState{id: st[0], version: eventstore.Version(st[1])}
	}
	return nil
}

// lookupQuery takes a JSON array of stream names and returns one JSON object mapping those
// that exist to their number and version (-1 for a numbered stream without events, which only
// a hand-edited file has). The correlated max() seeks the last index entry of each stream,
// however long it is; MATERIALIZED keeps SQLite from running it twice.
const lookupQuery = `WITH v AS MATERIALIZED (` +
	`SELECT s.name AS name, s.id AS id, coalesce((SELECT max(version) FROM events WHERE stream_id = s.id), -1) AS version ` +
	`FROM json_each(?) AS j JOIN streams AS s ON s.name = j.value) ` +
	`SELECT json_group_object(name, json_array(id, version)) FROM v`

// The writer's INSERTs, and the number of parameters per inserted event.
const (
	insertEventsPrefix  = `INSERT INTO events (position, stream_id, stream, version, type, schema_version, data, correlation_id, causation_id, recorded_at) VALUES `
	insertStreamsPrefix = `INSERT INTO streams (id, name) VALUES `
	eventColumns        = 10
)

// chunk returns the largest power of two no greater than n or maxInsertRows.
func chunk(n int) int {
	c := 1
	for c*2 <= n && c*2 <= maxInsertRows {
		c *= 2
	}
	return c
}

// insertStatements are the multi-row INSERTs of one table, prepared on first use: stmts[k]
// inserts 1<<k rows.
type insertStatements struct {
	prefix  string // INSERT INTO ... VALUES
	columns int
	stmts   []*sql.Stmt
}

func newInsertStatements(prefix string, columns int) insertStatements {
	return insertStatements{prefix: prefix, columns: columns, stmts: make([]*sql.Stmt, bitsFor(maxInsertRows)+1)}
}

// exec inserts the rows whose values args holds, columns values a row, in as few statements
// as the powers of two allow.
func (is *insertStatements) exec(ctx context.Context, conn *sql.Conn, args []any) error {
	rows := len(args) / is.columns
	for done := 0; done < rows; {
		n := chunk(rows - done)
		st, err := is.stmt(ctx, conn, n)
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		if _, err := st.ExecContext(ctx, args[done*is.columns:(done+n)*is.columns]...); err != nil {
			return err
		}
		done += n
	}
	return nil
}

// stmt returns the prepared INSERT for n rows, n a power of two.
func (is *insertStatements) stmt(ctx context.Context, conn *sql.Conn, n int) (*sql.Stmt, error) {
	k := bitsFor(n)
	if st := is.stmts[k]; st != nil {
		return st, nil
	}
	row := "(?" + strings.Repeat(", ?", is.columns-1) + ")"
	var b strings.Builder
	b.WriteString(is.prefix)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	st, err := conn.PrepareContext(ctx, b.String())
	if err != nil {
		return nil, err
	}
	is.stmts[k] = st
	return st, nil
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}
