package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"relayer/eventstore"
)

// writerLockClass is the first key of the writer lock, pg_try_advisory_lock(class, oid of the
// events table): apart from the append lock's class, so that holding one never waits on the
// other. It spells "evwr".
const writerLockClass int32 = 0x65767772

// maxApplicationName is the longest application_name PostgreSQL keeps (NAMEDATALEN - 1).
const maxApplicationName = 63

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
	return s.lockWriter(ctx, who, false)
}

// LockFleet takes the writer lock shared, for one instance of a fleet that writes the store
// together (their own leases keep them from doing the same work): any number of instances hold
// it at once, and it excludes LockWriter's holder both ways, so that a lone writer (a serve not
// in a fleet, a migration) never runs beside a fleet.
func (s *Store) LockFleet(ctx context.Context, who string) (release func(), lost <-chan struct{}, err error) {
	return s.lockWriter(ctx, who, true)
}

func (s *Store) lockWriter(ctx context.Context, who string, shared bool) (release func(), lost <-chan struct{}, err error) {
	if s.isClosed() {
		return nil, nil, fmt.Errorf("lock the writer of %s: %w", s.where, eventstore.ErrClosed)
	}
	cfg := s.connCfg.Copy()
	if len(who) > maxApplicationName {
		// Cut at the last ", " that fits, so that what is kept reads whole ("relayer serve, pid
		// 7, listening on ..." loses its tail, not half a word).
		cut := who[:maxApplicationName]
		if i := strings.LastIndex(cut, ", "); i > 0 {
			cut = cut[:i]
		}
		who = cut
	}
	cfg.RuntimeParams["application_name"] = who
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, nil, s.secrets.Scrub(fmt.Errorf("lock the writer of %s: %w", s.where, err))
	}
	var oid uint32
	var got bool
	var unlockSQL string
	err = conn.QueryRow(ctx, `SELECT $1::regclass::oid`, pgx.Identifier{s.cfg.Schema, "events"}.Sanitize()).Scan(&oid)
	if err == nil {
		// The oid's bits as the lock's signed second key, as the append lock takes it.
		try, unlock := `SELECT pg_try_advisory_lock($1::integer, $2::integer)`, `SELECT pg_advisory_unlock($1::integer, $2::integer)`
		if shared {
			try, unlock = `SELECT pg_try_advisory_lock_shared($1::integer, $2::integer)`, `SELECT pg_advisory_unlock_shared($1::integer, $2::integer)`
		}
		unlockSQL = unlock
		err = conn.QueryRow(ctx, try, writerLockClass, int32(oid)).Scan(&got)
	}
	if err != nil {
		_ = conn.Close(context.WithoutCancel(ctx))
		return nil, nil, s.secrets.Scrub(fmt.Errorf("lock the writer of %s: %w", s.where, err))
	}
	if !got {
		var holder string
		_ = conn.QueryRow(ctx, `SELECT coalesce(a.application_name, '') FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::bigint::oid AND l.objid = $2::bigint::oid AND l.objsubid = 2 LIMIT 1`,
			int64(uint32(writerLockClass)), int64(oid)).Scan(&holder)
		_ = conn.Close(context.WithoutCancel(ctx))
		holder = cmp.Or(holder, "another session")
		return nil, nil, fmt.Errorf("%w: %s is in use by %s", ErrWriterLocked, s.where, holder)
	}
	done, stop := make(chan struct{}), make(chan struct{})
	go func() {
		// The session holds the lock; a ping that fails means the session is gone. Nothing is
		// ever cancelled on the connection (pgx closes a connection whose query is cancelled,
		// and the server would then release the lock only when the session ends, later).
		defer close(done)
		t := time.NewTicker(writerLockPing)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			pctx, cancel := context.WithTimeout(context.Background(), writerLockPing)
			err := conn.Ping(pctx)
			cancel()
			if err != nil {
				return
			}
		}
	}()
	var once sync.Once
	release = func() {
		once.Do(func() {
			close(stop)
			<-done
			// Unlocked before the session closes: the server releases a closed session's locks
			// only once its backend has gone, which a next writer could otherwise race.
			uctx, cancel := context.WithTimeout(context.Background(), writerLockPing)
			_, _ = conn.Exec(uctx, unlockSQL, writerLockClass, int32(oid))
			cancel()
			_ = conn.Close(context.Background())
		})
	}
	return release, done, nil
}

// writerLockPing is how often the writer lock's session is checked, and how long a check or
// the unlock may take.
const writerLockPing = 2 * time.Second
