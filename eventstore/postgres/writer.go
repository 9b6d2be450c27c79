package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

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

	// What the last batch left, for the next batch's guess (see write): the head, whether it
	// is known, whether no other writer had committed since the batch before, and the
	// versions of the streams this writer's recent batches appended to.
	last      int64
	lastKnown bool
	lastAt    time.Time // when the last batch committed
	alone     bool
	known     map[string]eventstore.Version
	fast      struct {
		expected     []eventstore.Version // the guessed versions sent with the insert
		hits, misses int                  // one-round-trip writes that held, and that did not
	}
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
func openWriter(ctx context.Context, connCfg *pgx.ConnConfig, schema string, create bool, sql queries, maxBatch int, onCommit func(), sec secrets, h hooks) (_ *writer, err error) {
	w := &writer{
		connCfg:      connCfg,
		sql:          sql,
		q:            groupcommit.NewQueue(maxBatch, onCommit, func(err error) error { return sec.Scrub(storageFull(err)) }),
		beforeCommit: h.beforeCommit,
		index:        map[string]int{},
		known:        map[string]eventstore.Version{},
	}
	if err := w.connect(ctx); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = w.closeConn()
		}
	}()
	if err := migrate(ctx, w.conn, schema, create); err != nil {
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
	// gone (the server restarted, say): nothing was sent that could commit, or the server
	// ended the session before it ran any of it, so a new connection may try again.
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

// write runs one transaction for reqs. It takes the append lock, learns the head and the
// versions of the batch's streams, checks each append against its own expected version as the
// appends before it in the batch leave its stream, inserts the events of those that pass at
// head+1, head+2, ..., notifies listeners and commits. On success each request holds its result
// (r.ok, r.pos or r.err) for answer; on failure nothing is written.
//
// It takes one round trip when the writer can tell the head and the versions beforehand: no
// other writer committed since its last batch, and each stream's version is one its own commits
// left or the one its first append expects. BEGIN, the lock, an insert that holds only if the
// head and the versions are those, the notification and COMMIT then go in one pipeline. When
// they are not (another writer got in between), the insert writes nothing, and the batch takes
// the two round trips that read the head and the versions first: BEGIN, the lock and the reads
// in one pipeline, the insert, the notification and COMMIT in the next.
func (w *writer) write(reqs []*groupcommit.Req, _ bool) (how groupcommit.Failure, err error) {
	ctx := context.Background()
	if w.conn == nil {
		if err := w.connect(ctx); err != nil {
			w.lastKnown = false
			return failBatch, fmt.Errorf("reconnect: %w", err)
		}
	}
	defer func() {
		if err == nil {
			return
		}
		w.lastKnown = false
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
	rows := &w.rows
	defer rows.reset()

	if w.guess(reqs) {
		w.fast.expected = append(w.fast.expected[:0], w.versions...)
		if w.plan(reqs, w.last) {
			inserted, how, err := w.insertAndCommit(ctx, w.last, true)
			if err != nil {
				return how, err
			}
			if inserted {
				w.fast.hits++
				w.committed(w.last)
				return 0, nil
			}
			// Another writer got in between: nothing was written (the transaction committed
			// empty, without a notification). Read the head and the versions, and write again.
			w.fast.misses++
		}
	}

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
	// Alone: no other writer committed since this one's last batch, so the next batch may
	// expect the head this one leaves.
	w.alone = w.lastKnown && head == w.last

	if !w.plan(reqs, head) {
		// Every append failed its check: there is nothing to commit.
		if _, err := w.conn.Exec(ctx, `ROLLBACK`); err != nil {
			return failBatch, fmt.Errorf("rollback: %w", err)
		}
		w.committed(head)
		return 0, nil
	}
	if _, how, err := w.insertAndCommit(ctx, head, false); err != nil {
		return how, err
	}
	w.committed(head)
	return 0, nil
}

// unknownVersion marks a stream whose version guess cannot tell.
const unknownVersion eventstore.Version = eventstore.Any

// guess fills w.versions with the versions the batch's streams are expected at, and tells
// whether the one-round-trip write may be tried: the writer was alone at its last batch, that
// batch committed within guessWithin, and every stream's version is known, either as its own
// commits left it or as the first append (or guard) of the batch on it expects it. A wrong
// guess costs a round trip, never a wrong write: the insert checks them all.
func (w *writer) guess(reqs []*groupcommit.Req) bool {
	if !w.lastKnown || !w.alone || time.Since(w.lastAt) > guessWithin {
		return false
	}
	versions := w.versions[:0]
	for _, s := range w.streams {
		v, ok := w.known[s]
		if !ok {
			v = unknownVersion
		}
		versions = append(versions, v)
	}
	w.versions = versions
	for _, r := range reqs {
		if r.Guard != nil {
			if i := w.index[r.Guard.Stream]; versions[i] == unknownVersion {
				versions[i] = r.Guard.Version
			}
		}
		if i := w.index[r.Stream]; versions[i] == unknownVersion {
			if r.Expected == eventstore.Any {
				return false
			}
			versions[i] = r.Expected
		}
	}
	return true
}

// plan checks each request against w.versions as the head and the requests before it in the
// batch leave them, records its result (r.OK, r.Err, r.Pos) and its events' rows, and moves
// w.versions on. It tells whether there is a row to insert.
func (w *writer) plan(reqs []*groupcommit.Req, head int64) bool {
	rows, versions := &w.rows, w.versions
	rows.reset()
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
	return len(rows.streams) > 0
}

// committed remembers what the batch just written on head left: the new head and the versions
// of its streams (w.versions after plan), for the next batch's guess.
func (w *writer) committed(head int64) {
	w.last, w.lastKnown, w.lastAt = head+int64(len(w.rows.streams)), true, time.Now()
	if len(w.known)+len(w.streams) > knownStreams {
		clear(w.known)
	}
	for i, s := range w.streams {
		w.known[s] = w.versions[i]
	}
}

// guessWithin is how soon after its last batch a writer may guess. A connection that died
// while idle (a proxy's idle timeout, a network cut) shows it only when the next batch reads
// its answers: one that held COMMIT may have committed, and its callers are told so, where the
// two round trips' first holds no COMMIT and goes again on a new connection. Only a busy writer
// gains from the one round trip, and a busy connection is seldom the one that died unseen.
const guessWithin = time.Second

// knownStreams bounds how many streams' versions the writer remembers for its guesses. Most
// appends go to streams appended to shortly before (a job's transitions); the rest cost two
// round trips when their append does not say the version it expects.
const knownStreams = 1 << 16

// insertAndCommit inserts w.rows at head, notifies and commits. With guessed, the same pipeline
// first begins the transaction and takes the lock, and the insert holds only if the head and
// the versions are still what the guess (w.fast.expected) says; inserted tells whether it did.
// Without it, the transaction is the one round trip 1 began.
func (w *writer) insertAndCommit(ctx context.Context, head int64, guessed bool) (inserted bool, how groupcommit.Failure, err error) {
	rows := &w.rows
	b := &pgx.Batch{}
	if guessed {
		b.Queue(`BEGIN`)
		b.Queue(w.sql.lock, appendLockClass, w.lockKey)
		b.Queue(w.sql.insertIf, head, rows.streams, rows.versions, rows.types, rows.schemaVersions,
			rows.data, rows.correlations, rows.causations, rows.recordedAt, w.streams, w.fast.expected)
	} else {
		b.Queue(w.sql.insert, head, rows.streams, rows.versions, rows.types, rows.schemaVersions,
			rows.data, rows.correlations, rows.causations, rows.recordedAt)
	}
	// The notification goes out when the transaction commits, and only then; a guessed insert
	// that wrote nothing sends none.
	if guessed {
		b.Queue(w.sql.notifyIf, w.channel, head+1, rows.streams[0], rows.versions[0])
	} else {
		b.Queue(w.sql.notify, w.channel)
	}
	if w.beforeCommit == nil {
		b.Queue(`COMMIT`)
	}
	br := w.conn.SendBatch(ctx, b)
	var beginErr, lockErr error
	if guessed {
		_, beginErr = br.Exec()
		_, lockErr = br.Exec()
	}
	tag, insErr := br.Exec()
	_, notErr := br.Exec()
	var comErr error
	if w.beforeCommit == nil {
		_, comErr = br.Exec()
	}
	closeErr := br.Close()
	// The guessed pipeline holds COMMIT (unless a test holds it back): an answer lost with the
	// connection may be that of a transaction that committed.
	sentCommit := guessed && w.beforeCommit == nil
	switch {
	case beginErr != nil && w.conn.IsClosed() && (!sentCommit || isStatementError(beginErr)):
		// Nothing ran: no COMMIT was sent, or the first answer is the FATAL with which the
		// server ended the session before the pipeline (a restart, an administrator).
		return false, failBeforeLock, fmt.Errorf("begin: %w", beginErr)
	case (beginErr != nil || lockErr != nil) && sentCommit && !isStatementError(firstError(beginErr, lockErr)):
		return false, failBatch, maybeCommitted(firstError(beginErr, lockErr))
	case beginErr != nil || lockErr != nil:
		// The server refused BEGIN or the lock and skipped what followed, or no COMMIT was
		// sent: nothing committed.
		return false, failBatch, fmt.Errorf("lock: %w", firstError(beginErr, lockErr))
	case insErr != nil && isStatementError(insErr):
		// The server refused the insert and skipped what followed it: nothing committed.
		return false, failStatement, fmt.Errorf("insert: %w", insErr)
	case notErr != nil && isStatementError(notErr):
		return false, failBatch, fmt.Errorf("notify: %w", notErr)
	case (insErr != nil || notErr != nil) && w.beforeCommit != nil:
		return false, failBatch, fmt.Errorf("insert: %w", firstError(insErr, notErr))
	case insErr != nil || notErr != nil:
		// The connection failed with COMMIT sent: the server may have run it.
		return false, failBatch, maybeCommitted(firstError(insErr, notErr))
	}
	// The unguessed insert writes every row; the guessed one every row or none.
	inserted = !guessed || tag.RowsAffected() == int64(len(rows.streams))
	if w.beforeCommit != nil {
		if inserted {
			w.beforeCommit()
		}
		_, comErr = w.conn.Exec(ctx, `COMMIT`)
	}
	if err := firstError(comErr, closeErr); err != nil {
		// An ERROR from COMMIT means it rolled back. Anything else (the connection failed,
		// the session was ended) may have come after the commit was flushed.
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Severity == "ERROR" {
			return false, failBatch, fmt.Errorf("commit: %w", err)
		}
		return false, failBatch, maybeCommitted(err)
	}
	return inserted, 0, nil
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
