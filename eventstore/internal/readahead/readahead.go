// Package readahead reads a sequence of pages one page ahead of their consumer, for the
// eventstore backends that read the log page by page (SQLite, PostgreSQL).
package readahead

import "context"

// Pages yields the pages that next reads, in order, to consume until next says there are no
// more or consume stops. next fills the page it is given (recording in it why it failed, if it
// did) and reports whether to read another one after it; newPage makes an empty page.
//
// The first page is read on the caller's goroutine, so a short read (most stream reads, every
// live page of a subscription) costs no goroutine. When there is more to read, a goroutine of
// the read's own reads one page ahead of the caller: while the caller goes through a page, the
// next one is read. The two pages take turns, so a read never holds more than two. The
// goroutine holds whatever next takes (a connection) only while next runs, never while it waits
// for the caller, and ends before Pages returns, whether the pages ran out, the caller stopped,
// ctx ended or consume panicked. started and ended, when not nil, run when the goroutine starts
// and ends (a backend counts its read-aheads with them).
//
// Pages returns false when ctx ended while the goroutine waited, so that no page says why: the
// caller reports ctx's error.
func Pages[P any](ctx context.Context, newPage func() *P, next func(context.Context, *P) bool, consume func(*P) bool, started, ended func()) bool {
	first := newPage()
	more := next(ctx, first)
	if !consume(first) || !more {
		return true
	}

	ctx, cancel := context.WithCancel(ctx)
	full := make(chan *P, 1)
	free := make(chan *P, 2)
	free <- first
	free <- newPage()
	done := make(chan struct{})
	var finished bool // set by the goroutine before it closes full, read after
	if started != nil {
		started()
	}
	go func() {
		defer close(done)
		if ended != nil {
			defer ended()
		}
		defer close(full)
		for {
			var p *P
			select {
			case p = <-free:
			case <-ctx.Done():
				return
			}
			more := next(ctx, p)
			select {
			case full <- p:
			case <-ctx.Done():
				return
			}
			if !more {
				finished = true
				return
			}
		}
	}()
	defer func() {
		cancel()
		<-done
	}()
	for p := range full {
		if !consume(p) {
			return true
		}
		free <- p // never blocks: there are two pages and free holds two
	}
	return finished
}

// Page sizes. A read starts with its store's page size; ReadAll and SubscribeAll double it with
// every page, up to growthLimit times the page size (and no more than maxGrownPage events,
// unless the page size is more), since a caller streaming the log is better served by fewer,
// bigger queries. The pages are bounded, so the memory a read holds is too.
const (
	growthLimit  = 8
	maxGrownPage = 1 << 14
)

// Grow returns the page size after a page of limit events, for a store whose page size is
// pageSize.
func Grow(limit, pageSize int) int {
	return min(2*limit, max(pageSize, min(growthLimit*pageSize, maxGrownPage)))
}
