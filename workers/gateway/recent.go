package gateway

import (
	"context"
	"sync"
	"time"
)

// recent is a value read from the chain, answered again until it is maxAge old: callers that
// find it stale share one read (a caller whose ctx ends while another reads stops waiting), and
// a failed read is not kept, so the next caller reads again. The zero value is ready.
type recent[T any] struct {
	mu      sync.Mutex
	val     T
	readAt  time.Time     // when val was read (wall clock, monotonic); zero: never
	reading chan struct{} // closed when the read in flight ends; nil when none is
}

// get returns the value and its age, reading it with read when there is none younger than
// maxAge. An error is read's, or ctx's while it waited for another caller's read.
func (c *recent[T]) get(ctx context.Context, maxAge time.Duration, read func(context.Context) (T, error)) (T, time.Duration, error) {
	for {
		c.mu.Lock()
		if !c.readAt.IsZero() {
			if age := time.Since(c.readAt); age < maxAge {
				v := c.val
				c.mu.Unlock()
				return v, age, nil
			}
		}
		if wait := c.reading; wait != nil {
			c.mu.Unlock()
			select {
			case <-wait:
				continue // fresh now, or the read failed and this caller tries its own
			case <-ctx.Done():
				var zero T
				return zero, 0, ctx.Err()
			}
		}
		done := make(chan struct{})
		c.reading = done
		c.mu.Unlock()
		return c.read(ctx, done, read)
	}
}

// read reads the value for get, keeping it when the read succeeds, and ends the read in flight
// (done) however read returns, a panic included, so that the callers waiting for it go on.
func (c *recent[T]) read(ctx context.Context, done chan struct{}, read func(context.Context) (T, error)) (v T, age time.Duration, err error) {
	defer func() {
		c.mu.Lock()
		c.reading = nil
		c.mu.Unlock()
		close(done)
	}()
	v, err = read(ctx)
	if err == nil {
		readAt := time.Now()
		c.mu.Lock()
		c.val, c.readAt = v, readAt
		c.mu.Unlock()
	}
	return v, 0, err
}

// forget drops the value, so that the next get reads it (a read in flight is kept when it ends).
func (c *recent[T]) forget() {
	c.mu.Lock()
	c.readAt = time.Time{}
	c.mu.Unlock()
}
