package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"

	"relayer/eventstore"
)

// writerLockClass is the first key of the writer lock, pg_try_advisory_lock(class, oid of the
// events table): apart from the append lock's class, so that holding one never waits on the
// other. It spells "evwr".
const writerLockClass int32 = 0x65767772

// ErrWriterLocked is wrapped by LockWriter's error when another session holds the writer lock.
var ErrWriterLocked = errors.New("the event store has a writer already")

// LockWriter takes the store's writer lock: a session-level advisory lock, held on a
// connection of its own until release is called or the session ends (the process dies, the
// connection drops), so that one process at a time drives the store, as the file lock does for
// SQLite. who describes the holder (a command, its pid, where it listens); it is the session's
// application_name, and a second LockWriter fails with ErrWriterLocked naming it. The lock is
// the store's alone (its events table's oid is the second key): stores in other schemas are
// locked apart. Appends do not check it: it is for processes that agree to take it.
//
// If the lock's connection drops, the lock is gone with it; lost is closed then, so that the
// holder can stop writing.
func (s *Store) LockWriter(ctx context.Context, who string) (release func(), lost <-chan struct{}, err error) {
	if s.isClosed() {
		return nil, nil, fmt.Errorf("lock the writer of %s: %w", s.where, eventstore.ErrClosed)
	}
	cfg := s.connCfg.Copy()
	if len(who) > 63 { // application_name's limit
		who = who[:63]
	}
	cfg.RuntimeParams["application_name"] = who
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, nil, s.secrets.scrub(fmt.Errorf("lock the writer of %s: %w", s.where, err))
	}
	var oid uint32
	var got bool
	err = conn.QueryRow(ctx, `SELECT $1::regclass::oid`, pgx.Identifier{s.cfg.Schema, "events"}.Sanitize()).Scan(&oid)
	if err == nil {
		// The oid's bits as the lock's signed second key, as the append lock takes it.
		err = conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1::integer, $2::integer)`, writerLockClass, int32(oid)).Scan(&got)
	}
	if err != nil {
		_ = conn.Close(context.WithoutCancel(ctx))
		return nil, nil, s.secrets.scrub(fmt.Errorf("lock the writer of %s: %w", s.where, err))
	}
	if !got {
		var holder string
		_ = conn.QueryRow(ctx, `SELECT coalesce(a.application_name, '') FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::bigint::oid AND l.objid = $2::bigint::oid AND l.objsubid = 2 LIMIT 1`,
			int64(uint32(writerLockClass)), int64(oid)).Scan(&holder)
		_ = conn.Close(context.WithoutCancel(ctx))
		if holder == "" {
			holder = "another session"
		}
		return nil, nil, fmt.Errorf("%w: %s is in use by %s", ErrWriterLocked, s.where, holder)
	}
	done := make(chan struct{})
	watchCtx, stopWatch := context.WithCancel(context.Background())
	go func() {
		// The session holds the lock; a read that fails means the session is gone.
		defer close(done)
		for {
			_, err := conn.Exec(watchCtx, `SELECT pg_sleep(5)`)
			if err != nil {
				return
			}
		}
	}()
	var once sync.Once
	release = func() {
		once.Do(func() {
			stopWatch()
			<-done
			// Closing the session releases its advisory locks.
			_ = conn.Close(context.Background())
		})
	}
	return release, done, nil
}
