package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// One writer per store: a second LockWriter on the same store fails naming the holder, stores
// in other schemas lock apart, and the lock goes when released or when its session dies.
func TestTheWriterLockAdmitsOneWriterPerStore(t *testing.T) {
	requireDB(t)
	a, loc := newStore(t, Config{})
	b, err := Open(t.Context(), loc, Config{}) // the same store, as a second process opens it
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	other, _ := newStore(t, Config{})

	release, lost, err := a.LockWriter(t.Context(), "relayer serve, pid 101, listening on 127.0.0.1:8080, since 2026-11-26T05:03:01Z")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = b.LockWriter(t.Context(), "relayer serve, pid 202")
	if !errors.Is(err, ErrWriterLocked) || !strings.HasSuffix(err.Error(), "in use by relayer serve, pid 101, listening on 127.0.0.1:8080") {
		t.Fatalf("a second writer: %v; want ErrWriterLocked naming the first", err)
	}
	releaseOther, _, err := other.LockWriter(t.Context(), "relayer serve, pid 303")
	if err != nil {
		t.Fatalf("a store in another schema is locked apart: %v", err)
	}
	releaseOther()

	release()
	release() // twice is fine
	select {
	case <-lost:
	default:
		t.Fatal("lost is not closed after release")
	}
	releaseB, lostB, err := b.LockWriter(t.Context(), "relayer serve, pid 202")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	defer releaseB()

	// The lock's session killed (a network cut, an operator): lost says so, and the lock is free.
	conn := rawConn(t)
	exec(t, conn, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'relayer serve, pid 202'`)
	select {
	case <-lostB:
	case <-time.After(10 * time.Second):
		t.Fatal("lost is not closed after the lock's session ended")
	}
	r, _, err := a.LockWriter(context.Background(), "relayer serve, pid 404")
	if err != nil {
		t.Fatalf("after the holder's session ended: %v", err)
	}
	r()
}

// A password with an unencoded '@' splits differently for pgx and for URL readers: pgx took the
// rest of the password for the host and printed it. Such a URL is refused, showing nothing.
func TestAPasswordWithAnUnencodedAtSignIsRefusedWithoutShowingIt(t *testing.T) {
	for _, u := range []string{
		"postgres://postgres:p@ss@word@127.0.0.1:5999/test?sslmode=disable",
		"postgres://postgres:S3cr@tPW@127.0.0.1:5999/test?sslmode=disable",
		"postgresql://postgres:a/b@127.0.0.1:5999/test",
	} {
		_, err := Open(context.Background(), u, Config{})
		if err == nil {
			t.Fatalf("%s was accepted", u)
		}
		for _, part := range []string{"ss@word", "tPW", "S3cr", "a/b"} {
			if strings.Contains(u, part) && strings.Contains(err.Error(), part) {
				t.Fatalf("the error shows %q: %v", part, err)
			}
		}
	}
}

// A fleet's instances share the writer lock, and a lone writer is kept out while any holds it,
// and keeps them out while it holds it.
func TestTheFleetLockIsSharedAndExcludesALoneWriter(t *testing.T) {
	requireDB(t)
	a, loc := newStore(t, Config{})
	b, err := Open(t.Context(), loc, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	relA, _, err := a.LockFleet(t.Context(), "relayer serve (fleet), pid 1")
	if err != nil {
		t.Fatal(err)
	}
	relB, _, err := b.LockFleet(t.Context(), "relayer serve (fleet), pid 2")
	if err != nil {
		t.Fatalf("a second instance of the fleet: %v", err)
	}
	if _, _, err := a.LockWriter(t.Context(), "relayer migrate, pid 3"); !errors.Is(err, ErrWriterLocked) || !strings.Contains(err.Error(), "relayer serve (fleet)") {
		t.Fatalf("a lone writer beside a fleet: %v; want ErrWriterLocked naming an instance", err)
	}
	relA()
	relB()
	relW, _, err := a.LockWriter(t.Context(), "relayer serve, pid 4")
	if err != nil {
		t.Fatalf("a lone writer once the fleet is gone: %v", err)
	}
	if _, _, err := b.LockFleet(t.Context(), "relayer serve (fleet), pid 5"); !errors.Is(err, ErrWriterLocked) {
		t.Fatalf("an instance of a fleet beside a lone writer: %v", err)
	}
	relW()
}
