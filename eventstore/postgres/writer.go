package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"relayer/eventstore"
	"relayer/eventstore/internal/groupcommit"
)

// appendLockClass is the first key of the append lock, pg_advisory_xact_lock(class, oid of the
// events table): the table's oid makes the lock one store's own, the class keeps it apart from
// other programs' two-key advisory locks. It spells "evst".
const appendLockClass int32 = 0x65767374

// gatherIdleRounds is how many times in a row gather yields without seeing a new append before
// it commits what it has.
const gatherIdleRounds = 1

// idleInTransactionTimeout is the writer session's idle_in_transaction_session_timeout. A
// writer holds the append lock from its first statement to COMMIT, a few round trips; should its
// process freeze in between (stopped, swapped out), the server ends the session after this long
// and every other writer can go on.
const idleInTransactionTimeout = "10s"

// storageFull turns PostgreSQL's "disk full" into eventstore.ErrStorageFull.
func storageFull(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == diskFull {
		return fmt.Errorf("%w: %w", eventstore.ErrStorageFull, err)
	}
	return err
}

// writer owns the store's write connection. Its goroutine takes the appends waiting in reqs, up
// to maxBatch, and commits them in one transaction under the append lock.
type writer struct {
	connCfg      *pgx.ConnConfig
	conn         *pgx.Conn // nil after a connection failure, until the next batch reconnects
	sql          queries
	lockKey      int32  // the events table's oid, as the lock's second key
	channel      string // what commits NOTIFY and the listener LISTENs to
	q            *groupcommit.Queue
	beforeCommit func() // test hook: see hooks

	// scratch, reused from batch to batch
	streams  []string
	index    map[string]int // stream -> its place in streams
	versions []eventstore.Version
	rows     insertRows
}

// insertRows are the insert statement's arrays, one element per event.
type insertRows struct {
	streams, types, correlations, causations []string
	versions                                 []int64
	schemaVersions                           []int32
	data                                     [][]byte
	recordedAt                               []pgtype.Int8
}

func (r *insertRows) reset() {
	clear(r.streams)
	clear(r.types)
	clear(r.correlations)
	clear(r.causations)
	clear(r.data)
	r.streams, r.types, r.correlations, r.causations = r.streams[:0], r.types[:0], r.correlations[:0], r.causations[:0]
	r.versions, r.schemaVersions, r.data, r.recordedAt = r.versions[:0], r.schemaVersions[:0], r.data[:0], r.recordedAt[:0]
}

func (r *insertRows) add(stream string, version eventstore.Version, e eventstore.Event) {
	r.streams = append(r.streams, stream)
	r.versions = append(r.versions, int64(version))
	r.types = append(r.types, e.Type)
	r.schemaVersions = append(r.schemaVersions, int32(e.SchemaVersion))
	r.data = append(r.data, e.Data)
	r.correlations = append(r.correlations, e.Metadata.CorrelationID)
	r.causations = append(r.causations, e.Metadata.CausationID)
	at := pgtype.Int8{}
	if !e.Metadata.RecordedAt.IsZero() {
		at = pgtype.Int8{Int64: e.Metadata.RecordedAt.UnixNano(), Valid: true}
	}
	r.recordedAt = append(r.recordedAt, at)
}

// openWriter connects the write connection, brings the schema up to date through it and
// learns the events table's oid, which names the append lock and the notification channel.
// A failed append's error reaches its caller scrubbed of sec.
func openWriter(ctx context.Context, connCfg *pgx.ConnConfig, schema string, sql queries, maxBatch int, onCommit func(), sec secrets, h hooks) (_ *writer, err error) {
	w := &writer{
		connCfg:      connCfg,
		sql:          sql,
		q:            groupcommit.NewQueue(maxBatch, onCommit, func(err error) error { return sec.Scrub(storageFull(err)) }),
		beforeCommit: h.beforeCommit,
		index:        map[string]int{},
	}
	if err := w.connect(ctx); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = w.closeConn()
		}
	}()
	if err := migrate(ctx, w.conn, schema); err != nil {
		return nil, err
	}
	var oid uint32
	if err := w.conn.QueryRow(ctx, `SELECT $1::regclass::oid`, pgx.Identifier{schema, "events"}.Sanitize()).Scan(&oid); err != nil {
		return nil, fmt.Errorf("find the events table: %w", err)
	}
	w.lockKey = int32(oid) // the bits of the oid; the lock takes a signed integer
	w.channel = "relayer_eventstore_" + strconv.FormatUint(uint64(oid), 10)
	return w, nil
}

// connect opens the write connection, making sure that a commit waits for the WAL flush: a
// database or role that turned synchronous_commit off would make acknowledged appends
// losable. Settings stronger than on (remote_write, remote_apply) are kept.
func (w *writer) connect(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, w.connCfg)
	if err != nil {
		return err
	}
	var sync string
	if err := conn.QueryRow(ctx, `SHOW synchronous_commit`).Scan(&sync); err != nil {
		_ = conn.Close(ctx)
		return fmt.Errorf("read synchronous_commit: %w", err)
	}
	set := `SET idle_in_transaction_session_timeout = '` + idleInTransactionTimeout + `'`
	if sync == "off" {
		set += `; SET synchronous_commit = on`
	}
	if _, err := conn.Exec(ctx, set); err != nil {
		_ = conn.Close(ctx)
		return fmt.Errorf("configure the write session: %w", err)
	}
	w.conn = conn
	return nil
}

// start runs the writer goroutine.
func (w *writer) start() {
	w.q.Start(func() { w.q.Gather(gatherIdleRounds) }, w.commit, nil, nil)
}

// stop ends the writer goroutine, if it runs, and closes the connection. The caller must make
// sure no Append is waiting for an answer (Store.Close waits for them first).
func (w *writer) stop() error {
	w.q.Stop()
	return w.closeConn()
}

func (w *writer) closeConn() error {
	if w.conn == nil {
		return nil
	}
	err := w.conn.Close(context.Background())
	w.conn = nil
	return err
}

// How a transaction attempt failed (see groupcommit.Failure).
const (
	// failBatch: the connection or the transaction itself failed; nothing else can succeed now.
	failBatch = groupcommit.FailBatch
	// failStatement: the insert failed; the appends may succeed on their own, away from the
	// one that broke it.
	failStatement = groupcommit.FailStatement
	// failBeforeLock: the transaction failed before it took the lock, on a connection that is
	// gone (the server restarted, say): nothing was sent that could commit, so a new
	// connection may try again.
	failBeforeLock = groupcommit.FailRetry
)

// commit writes one batch and answers its callers.
func (w *writer) commit(batch []*groupcommit.Req) {
	w.q.Commit(batch, w.write, w.fail)
}

// fail answers an append whose own transaction failed. A unique violation means that the
// stream version it was to take is taken: only a writer that ignores the append lock (another
// program, an old build) can do that, as under the lock the versions read are exact; it is a
// version conflict like any other, reported with the stream's version as it is now.
func (w *writer) fail(r *groupcommit.Req, err error) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == uniqueViolation && w.conn != nil {
		var actual int64
		if qErr := w.conn.QueryRow(context.Background(), w.sql.version, r.Stream).Scan(&actual); qErr == nil {
			w.q.Finish(r, 0, &eventstore.WrongExpectedVersionError{Stream: r.Stream, Expected: r.Expected, Actual: eventstore.Version(actual)})
			return
		}
	}
	w.q.Fail(r, err)
}

const (
	// uniqueViolation is PostgreSQL's SQLSTATE for a duplicate key.
	uniqueViolation = "23505"
	// diskFull is PostgreSQL's SQLSTATE for a write that found no space on its disk.
	diskFull = "53100"
)

// write runs one transaction for reqs. It takes the append lock, reads the head and the
// versions of the batch's streams, checks each append against its own expected version as the
// appends before it in the batch leave its stream, inserts the events of those that pass at
// head+1, head+2, ..., notifies listeners and commits. On success each request holds its result
// (r.ok, r.pos or r.err) for answer; on failure nothing is written.
//
// It takes two round trips: BEGIN, the lock and the reads go in one pipeline, the insert, the
// notification and COMMIT in the next.
func (w *writer) write(reqs []*groupcommit.Req, _ bool) (how groupcommit.Failure, err error) {
	ctx := context.Background()
	if w.conn == nil {
		if err := w.connect(ctx); err != nil {
			return failBatch, fmt.Errorf("reconnect: %w", err)
		}
	}
	defer func() {
		if err == nil {
			return
		}
		if w.conn.IsClosed() {
			_ = w.closeConn()
		} else if _, rbErr := w.conn.Exec(ctx, `ROLLBACK`); rbErr != nil {
			_ = w.closeConn()
		}
	}()

	streams := w.streams[:0]
	clear(w.index)
	for _, r := range reqs {
		if _, ok := w.index[r.Stream]; !ok {
			w.index[r.Stream] = len(streams)
			streams = append(streams, r.Stream)
		}
		if r.Guard == nil {
			continue
		}
		if _, ok := w.index[r.Guard.Stream]; !ok {
			w.index[r.Guard.Stream] = len(streams)
			streams = append(streams, r.Guard.Stream)
		}
	}
	w.streams = streams
	defer clear(w.streams)

	// Round trip 1: the lock, then the head and the versions as they are under it. Each
	// statement of a READ COMMITTED transaction sees what committed before it began, so the
	// reads see every transaction that released the lock before this one took it.
	var head int64
	versions := w.versions[:0]
	{
		b := &pgx.Batch{}
		b.Queue(`BEGIN`)
		b.Queue(w.sql.lock, appendLockClass, w.lockKey)
		b.Queue(w.sql.state, streams)
		br := w.conn.SendBatch(ctx, b)
		var raw []int64
		_, err1 := br.Exec()
		_, err2 := br.Exec()
		err3 := br.QueryRow().Scan(&head, &raw)
		if err := errors.Join(err1, err2, err3, br.Close()); err != nil {
			if err1 != nil && w.conn.IsClosed() {
				return failBeforeLock, fmt.Errorf("begin: %w", err1)
			}
			return failBatch, fmt.Errorf("lock and read versions: %w", firstError(err1, err2, err3, err))
		}
		if len(raw) != len(streams) {
			return failBatch, fmt.Errorf("read versions: got %d for %d streams", len(raw), len(streams))
		}
		for _, v := range raw {
			versions = append(versions, eventstore.Version(v))
		}
	}
	w.versions = versions

	rows := &w.rows
	rows.reset()
	defer rows.reset()
	for _, r := range reqs {
		if r.Guard != nil {
			if err := eventstore.CheckGuard(r.Stream, *r.Guard, versions[w.index[r.Guard.Stream]]); err != nil {
				r.OK, r.Err = false, err
				continue
			}
		}
		i := w.index[r.Stream]
		actual := versions[i]
		if err := eventstore.CheckExpected(r.Stream, r.Expected, actual); err != nil {
			r.OK, r.Err = false, err
			continue
		}
		r.OK, r.Err = true, nil
		for k, e := range r.Events {
			rows.add(r.Stream, actual+1+eventstore.Version(k), e)
		}
		versions[i] = actual + eventstore.Version(len(r.Events))
		r.Pos = eventstore.Position(head + int64(len(rows.streams)))
	}
	if len(rows.streams) == 0 {
		// Every append failed its check: there is nothing to commit.
		if _, err := w.conn.Exec(ctx, `ROLLBACK`); err != nil {
			return failBatch, fmt.Errorf("rollback: %w", err)
		}
		return 0, nil
	}

	// Round trip 2: the insert, the notification and, unless a test holds the commit back,
	// COMMIT. The notification goes out when the transaction commits, and only then.
	b := &pgx.Batch{}
	b.Queue(w.sql.insert, head, rows.streams, rows.versions, rows.types, rows.schemaVersions,
		rows.data, rows.correlations, rows.causations, rows.recordedAt)
	b.Queue(w.sql.notify, w.channel)
	if w.beforeCommit == nil {
		b.Queue(`COMMIT`)
	}
	br := w.conn.SendBatch(ctx, b)
	_, insErr := br.Exec()
	_, notErr := br.Exec()
	var comErr error
	if w.beforeCommit == nil {
		_, comErr = br.Exec()
	}
	closeErr := br.Close()
	switch {
	case insErr != nil && isStatementError(insErr):
		// The server refused the insert and skipped what followed it: nothing committed.
		return failStatement, fmt.Errorf("insert: %w", insErr)
	case notErr != nil && isStatementError(notErr):
		return failBatch, fmt.Errorf("notify: %w", notErr)
	case (insErr != nil || notErr != nil) && w.beforeCommit != nil:
		return failBatch, fmt.Errorf("insert: %w", firstError(insErr, notErr))
	case insErr != nil || notErr != nil:
		// The connection failed with COMMIT sent: the server may have run it.
		return failBatch, maybeCommitted(firstError(insErr, notErr))
	}
	if w.beforeCommit != nil {
		w.beforeCommit()
		_, comErr = w.conn.Exec(ctx, `COMMIT`)
	}
	if err := firstError(comErr, closeErr); err != nil {
		// An ERROR from COMMIT means it rolled back. Anything else (the connection failed,
		// the session was ended) may have come after the commit was flushed.
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Severity == "ERROR" {
			return failBatch, fmt.Errorf("commit: %w", err)
		}
		return failBatch, maybeCommitted(err)
	}
	return 0, nil
}

// maybeCommitted describes a failure that left the outcome of COMMIT unknown.
func maybeCommitted(err error) error {
	return fmt.Errorf("commit: %w (the events may have been stored: the connection failed while COMMIT was under way)", err)
}

// isStatementError reports an error the server sent for the insert (a value it refused, a
// constraint, or the session ended by an administrator), as opposed to a connection that failed
// on the client's side: the transaction surely failed, and the appends may be tried again one
// by one (on a new connection, if the session ended).
func isStatementError(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr)
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
