package gateway

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A value is read once while fresh, again when stale or forgotten, and a read that fails or
// panics leaves nothing behind: the next caller reads, and no caller waits on it.
func TestRecentReadsOnceWhileFreshAndAgainAfterAFailureOrAPanic(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var c recent[int]
	reads := 0
	read := func(context.Context) (int, error) { reads++; return reads, nil }
	for range 3 {
		if v, _, err := c.get(ctx, time.Minute, read); err != nil || v != 1 {
			t.Fatalf("get = %d, %v; want 1 (one read while fresh)", v, err)
		}
	}
	c.forget()
	if v, _, _ := c.get(ctx, time.Minute, read); v != 2 {
		t.Fatalf("after forget, get = %d, want 2 (read again)", v)
	}

	c.forget()
	if _, _, err := c.get(ctx, time.Minute, func(context.Context) (int, error) { return 0, errors.New("node down") }); err == nil {
		t.Fatal("a failed read returned no error")
	}
	if v, _, _ := c.get(ctx, time.Minute, read); v != 3 {
		t.Fatalf("after a failed read, get = %d, want 3 (read again)", v)
	}

	c.forget()
	func() {
		defer func() { _ = recover() }()
		_, _, _ = c.get(ctx, time.Minute, func(context.Context) (int, error) { panic("the client panicked") })
	}()
	if v, _, err := c.get(ctx, time.Minute, read); err != nil || v != 4 {
		t.Fatalf("after a read that panicked, get = %d, %v; want 4 (read again, nobody waiting on the dead read)", v, err)
	}
}
