package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	sqlitedrv "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"relayer/eventstore"
)

// maxInsertRows is the most rows one INSERT statement carries (9 parameters a row, far below
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

// maxCachedStreams bounds the writer's cache of stream versions; past it the cache starts over.
const maxCachedStreams = 1 << 16

// appendReq is one Append call on its way through the writer.
type appendReq struct {
	ctx      context.Context
	stream   string
	expected eventstore.Version
	guard    *eventstore.Guard // nil for a plain append
	events   []eventstore.Event
	done     chan struct{} // closed once pos and err are set

	pos eventstore.Position
	err error
	ok  bool // passed its version check in the batch being built
}

// writer owns the only write connection. Its goroutine takes the appends waiting in reqs, up to
// maxBatch, and commits them in one transaction.
type writer struct {
	path      string
	db        *sql.DB
	conn      *sql.Conn
	reqs      chan *appendReq
	quit      chan struct{}
	exited    chan struct{}
	maxBatch  int
	onCommit  func()
	running   bool // start was called
	lastBatch int  // appends in the previous batch, for gather

	// batches and batched count transactions and the appends they carried, for benchmarks.
	batches, batched atomic.Int64

	begin, commitStmt *sql.Stmt
	state             *sql.Stmt   // head position and data_version
	lookup            *sql.Stmt   // a stream's version
	inserts           []*sql.Stmt // inserts[k] inserts 1<<k rows; prepared on first use

	// versions caches stream versions as this connection last committed or read them. It is
	// only trusted while PRAGMA data_version, which changes when another connection commits,
	// stays at dataVersion.
	versions    map[string]eventstore.Version
	dataVersion int64

	// scratch, reused from batch to batch
	batch   []*appendReq
	live    []*appendReq
	current map[string]eventstore.Version
	missing []string
	args    []any
}

func openWriter(path string, cfg Config, onCommit func()) (_ *writer, err error) {
	db, err := sql.Open("sqlite", dsn(path, cfg, false))
	if err != nil {
		return nil, fmt.Errorf("open event store %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	w := &writer{
		path:     path,
		db:       db,
		reqs:     make(chan *appendReq, cfg.MaxBatch),
		quit:     make(chan struct{}),
		exited:   make(chan struct{}),
		maxBatch: cfg.MaxBatch,
		onCommit: onCommit,
		versions: map[string]eventstore.Version{},
		current:  map[string]eventstore.Version{},
		inserts:  make([]*sql.Stmt, bitsFor(maxInsertRows)+1),
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
	w.state = prepare(`SELECT coalesce((SELECT max(position) FROM events), 0), (SELECT data_version FROM pragma_data_version)`)
	// One query per batch finds the versions of the streams the cache does not know, as one
	// JSON object of the streams that exist: the correlated max() seeks the last index entry of
	// each stream, however long it is, and new streams cost no row.
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

// run is the writer goroutine.
func (w *writer) run() {
	defer close(w.exited)
	for {
		var first *appendReq
		select {
		case first = <-w.reqs:
		case <-w.quit:
			// Close lets every admitted Append finish before it quits the writer, so nothing
			// should be left; answer anything that is, rather than leave a caller hanging.
			for {
				select {
				case r := <-w.reqs:
					r.finish(0, fmt.Errorf("append %s: %w", r.stream, eventstore.ErrClosed))
				default:
					return
				}
			}
		}
		w.batch = append(w.batch[:0], first)
		w.gather()
		w.commit(w.batch)
		w.lastBatch = len(w.batch)
		w.batches.Add(1)
		w.batched.Add(int64(len(w.batch)))
		clear(w.batch)
	}
}

// start runs the writer goroutine.
func (w *writer) start() {
	w.running = true
	go w.run()
}

// gather adds the appends waiting in reqs to w.batch, up to maxBatch, so that one fsync covers
// as many appends as possible. The callers the previous commit answered are often about to
// append again (a closed loop of appenders); when that commit carried more than one append,
// gather gives them up to gatherBudget to come back, like PostgreSQL's commit_delay with
// commit_siblings. A lone appender never waits. Then, while appends keep arriving, it yields
// the processor between rounds and takes them too.
func (w *writer) gather() {
	w.drain()
	if back := w.lastBatch; back > 1 {
		target := min(len(w.batch)+back, w.maxBatch)
		deadline := time.Now().Add(gatherBudget)
		for len(w.batch) < target && time.Now().Before(deadline) {
			runtime.Gosched()
			w.drain()
		}
	}
	idle := 0
	for len(w.batch) < w.maxBatch {
		before := len(w.batch)
		w.drain()
		if len(w.batch) == before {
			idle++
			if idle > gatherIdleRounds {
				return
			}
		} else {
			idle = 0
		}
		runtime.Gosched()
	}
}

func (w *writer) drain() {
	for len(w.batch) < w.maxBatch {
		select {
		case r := <-w.reqs:
			w.batch = append(w.batch, r)
		default:
			return
		}
	}
}

// stop ends the writer goroutine, if it runs, and closes the connection. The caller must make
// sure no Append is waiting for an answer (Store.Close waits for them first).
func (w *writer) stop() error {
	if w.running {
		close(w.quit)
		<-w.exited
	}
	return w.closeConn()
}

func (w *writer) closeConn() error {
	var errs []error
	for _, st := range append([]*sql.Stmt{w.begin, w.commitStmt, w.state, w.lookup}, w.inserts...) {
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

func (r *appendReq) finish(pos eventstore.Position, err error) {
	r.pos, r.err = pos, err
	close(r.done)
}

// failure says how a transaction attempt failed, and so what commit may try next.
type failure int

const (
	// failBatch: BEGIN or COMMIT failed; nothing else can succeed now.
	failBatch failure = iota + 1
	// failStatement: a statement inside the transaction failed; the appends may succeed on
	// their own, away from the one that broke it.
	failStatement
	// failGuess: a stream guessed to be new already exists; the batch can be redone with
	// look-ups.
	failGuess
)

// commit writes one batch and answers its callers.
func (w *writer) commit(batch []*appendReq) {
	live := w.live[:0]
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.finish(0, fmt.Errorf("append %s: %w", r.stream, err))
			continue
		}
		live = append(live, r)
	}
	w.live = live
	defer clear(w.live)
	if len(live) == 0 {
		return
	}
	how, err := w.write(live, true)
	if how == failGuess {
		how, err = w.write(live, false)
	}
	switch {
	case err == nil:
		w.answer(live)
	case how == failStatement && len(live) > 1:
		// Retry each append in its own transaction, so that one bad append (an oversized
		// event, say) cannot fail the others.
		for _, r := range live {
			one := []*appendReq{r}
			if _, err := w.write(one, false); err != nil {
				r.finish(0, fmt.Errorf("append %s: %w", r.stream, err))
				continue
			}
			w.answer(one)
		}
	default:
		for _, r := range live {
			r.finish(0, fmt.Errorf("append %s: %w", r.stream, err))
		}
	}
}

// answer tells the callers of a committed batch their results and wakes subscribers.
func (w *writer) answer(reqs []*appendReq) {
	wrote := false
	for _, r := range reqs {
		if r.ok {
			wrote = true
			r.finish(r.pos, nil)
		} else {
			r.finish(0, r.err)
		}
	}
	if wrote {
		w.onCommit()
	}
}

// write runs one transaction for reqs: each append is checked against its own expected version,
// as left by the appends before it in the batch, the ones that pass are inserted, and the
// transaction commits. On success each request holds its result (r.ok, r.pos or r.err) for
// answer. On failure nothing is written and the cache is dropped.
//
// The version of a stream comes from the cache, or else from one look-up query for the batch.
// With guess, a stream the cache does not know whose first append in the batch expects NoStream
// is taken to be new without a look-up: every stream that exists has an event at version 0, so
// if the guess is wrong inserting that append's version 0 breaks the UNIQUE (stream, version)
// index, and write fails with failGuess for commit to redo the batch without guessing.
func (w *writer) write(reqs []*appendReq, guess bool) (how failure, err error) {
	ctx := context.Background()
	if _, err := w.begin.ExecContext(ctx); err != nil {
		return failBatch, fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if err != nil {
			_, _ = w.conn.ExecContext(ctx, `ROLLBACK`)
			clear(w.versions)
			w.dataVersion = -1
		}
	}()

	var head, dataVersion int64
	if err := w.state.QueryRowContext(ctx).Scan(&head, &dataVersion); err != nil {
		return failStatement, fmt.Errorf("read head: %w", err)
	}
	if dataVersion != w.dataVersion {
		// Another connection committed since this one last looked: the cache may be stale.
		clear(w.versions)
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
		if v, ok := w.versions[stream]; ok {
			current[stream] = v
			return
		}
		current[stream] = eventstore.NoStream
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
		need(r.stream, guess && r.expected == eventstore.NoStream)
		if r.guard != nil {
			need(r.guard.Stream, false)
		}
	}
	w.missing = missing
	defer clear(w.missing)
	if err := w.lookupVersions(ctx, missing, current); err != nil {
		return failStatement, err
	}
	now := time.Now().UnixNano()
	args := w.args[:0]
	rows := 0
	for _, r := range reqs {
		if r.guard != nil {
			if err := eventstore.CheckGuard(r.stream, *r.guard, current[r.guard.Stream]); err != nil {
				r.ok, r.err = false, err
				continue
			}
		}
		actual := current[r.stream]
		if err := eventstore.CheckExpected(r.stream, r.expected, actual); err != nil {
			r.ok, r.err = false, err
			continue
		}
		r.ok, r.err = true, nil
		for i, e := range r.events {
			head++
			rows++
			recordedAt := now
			if !e.Metadata.RecordedAt.IsZero() {
				recordedAt = e.Metadata.RecordedAt.UnixNano()
			}
			args = append(args,
				head,
				r.stream,
				int64(actual)+1+int64(i),
				e.Type,
				int64(e.SchemaVersion),
				[]byte(e.Data),
				nullString(e.Metadata.CorrelationID),
				nullString(e.Metadata.CausationID),
				recordedAt,
			)
		}
		current[r.stream] = actual + eventstore.Version(len(r.events))
		r.pos = eventstore.Position(head)
	}
	w.args = args
	defer func() { clear(w.args) }()

	for done := 0; done < rows; {
		n := chunk(rows - done)
		st, err := w.insertStmt(ctx, n)
		if err != nil {
			return failStatement, fmt.Errorf("prepare insert: %w", err)
		}
		if _, err := st.ExecContext(ctx, args[done*columns:(done+n)*columns]...); err != nil {
			if guessed && isUniqueViolation(err) {
				return failGuess, fmt.Errorf("insert: %w", err)
			}
			return failStatement, fmt.Errorf("insert: %w", err)
		}
		done += n
	}

	if _, err := w.commitStmt.ExecContext(ctx); err != nil {
		return failBatch, fmt.Errorf("commit: %w", err)
	}

	if len(w.versions)+len(current) > maxCachedStreams {
		clear(w.versions)
	}
	for s, v := range current {
		if v != eventstore.NoStream {
			w.versions[s] = v
		}
	}
	return 0, nil
}

func isUniqueViolation(err error) bool {
	var se *sqlitedrv.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE
}

// lookupVersions sets current[stream] for each of streams that has events.
func (w *writer) lookupVersions(ctx context.Context, streams []string, current map[string]eventstore.Version) error {
	if len(streams) == 0 {
		return nil
	}
	names, err := json.Marshal(streams)
	if err != nil {
		return fmt.Errorf("read stream versions: %w", err)
	}
	var found string
	if err := w.lookup.QueryRowContext(ctx, string(names)).Scan(&found); err != nil {
		return fmt.Errorf("read stream versions: %w", err)
	}
	if found == "{}" {
		return nil
	}
	versions := map[string]int64{}
	if err := json.Unmarshal([]byte(found), &versions); err != nil {
		return fmt.Errorf("read stream versions: %w", err)
	}
	for stream, v := range versions {
		current[stream] = eventstore.Version(v)
	}
	return nil
}

// lookupQuery takes a JSON array of stream names and returns one JSON object of the versions of
// those that exist. The correlated max() seeks the last index entry of each stream, however
// long it is; MATERIALIZED keeps SQLite from running it twice.
const lookupQuery = `WITH v AS MATERIALIZED (` +
	`SELECT j.value AS name, (SELECT max(version) FROM events WHERE stream = j.value) AS version FROM json_each(?) AS j) ` +
	`SELECT json_group_object(name, version) FROM v WHERE version IS NOT NULL`

// columns is the number of parameters per inserted row.
const columns = 9

// chunk returns the largest power of two no greater than n or maxInsertRows.
func chunk(n int) int {
	c := 1
	for c*2 <= n && c*2 <= maxInsertRows {
		c *= 2
	}
	return c
}

// insertStmt returns the prepared INSERT for n rows, n a power of two.
func (w *writer) insertStmt(ctx context.Context, n int) (*sql.Stmt, error) {
	k := bitsFor(n)
	if st := w.inserts[k]; st != nil {
		return st, nil
	}
	var b strings.Builder
	b.WriteString(`INSERT INTO events (position, stream, version, type, schema_version, data, correlation_id, causation_id, recorded_at) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?)")
	}
	st, err := w.conn.PrepareContext(ctx, b.String())
	if err != nil {
		return nil, err
	}
	w.inserts[k] = st
	return st, nil
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}
