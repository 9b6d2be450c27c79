package sqlite

import (
	"sync"

	"relayer/eventstore"
	"relayer/eventstore/internal/readahead"
)

// The store's subscriptions take the events its own writer just committed from memory.
//
// A subscription that has caught up waits for a commit, then reads what it brought from the
// file: a query for the head and a window query, per commit and per subscriber (the projections,
// the dispatcher, every SSE client). The writer has those very events in hand when it commits,
// so it keeps the last of them in a tail, and a subscriber whose next position the tail holds
// takes them from there. The tail only ever holds a run of consecutive positions that this
// writer committed one batch after the other: when the file's head moved between two of its
// batches (another process appended) or a write operation ran on the writer's connection
// (RemoveStreams), it starts over, and a subscriber behind its start reads the file as before.
// What another process appends is still found by the subscribers' polls (Config.PollInterval)
// or, sooner, by the gap it leaves before this writer's next batch. What another process removes
// (RemoveStreams, PruneStreams) may still be yielded, until this writer's next batch, to a
// subscriber behind it: as it would have been had that subscriber read it before the removal.
//
// The records of the tail are shared by every subscriber that takes them: their data must not be
// written to (no reader does; eventstore.Record's data is read-only to its readers).

// Bounds of the tail: a subscriber further behind reads the file. The bytes are those of the
// events' data and strings; an event larger than the bound alone starts the tail over after it.
const (
	maxTailEvents = 4096
	maxTailBytes  = 8 << 20
)

// tailSize is what rec counts against maxTailBytes.
func tailSize(rec *eventstore.Record) int {
	return len(rec.Data) + len(rec.Stream) + len(rec.Type) + len(rec.Metadata.CorrelationID) + len(rec.Metadata.CausationID)
}

// tail is the last events the writer committed, at consecutive positions, oldest first.
type tail struct {
	mu    sync.RWMutex
	recs  []eventstore.Record
	bytes int

	// arena holds the copies of the events' data (the writer's goroutine only).
	arena readahead.Arena
}

// add appends the records of a committed batch (consecutive positions, ascending). A batch that
// does not follow the tail's last record starts it over.
func (t *tail) add(recs []eventstore.Record) {
	if len(recs) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := len(t.recs); n > 0 && t.recs[n-1].Position+1 != recs[0].Position {
		t.clearLocked()
	}
	for i := range recs {
		size := tailSize(&recs[i])
		if size > maxTailBytes {
			// Too large to keep: the tail goes on after it.
			t.clearLocked()
			continue
		}
		t.bytes += size
		t.recs = append(t.recs, recs[i])
	}
	drop := 0
	for len(t.recs)-drop > maxTailEvents || t.bytes > maxTailBytes {
		t.bytes -= tailSize(&t.recs[drop])
		drop++
	}
	if drop > 0 {
		clear(t.recs[:drop]) // let their data go
		t.recs = t.recs[drop:]
	}
}

// reset empties the tail: the file changed under the writer's batches.
func (t *tail) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clearLocked()
}

func (t *tail) clearLocked() {
	clear(t.recs)
	t.recs, t.bytes = t.recs[:0], 0
}

// after adds to p the records after position last, at most limit of them, and reports whether
// the tail holds position last+1's place: then what it added (perhaps nothing, when last is its
// end) is everything the writer committed after last. When it does not (last is before the
// tail's start, or the tail is empty), it adds nothing.
func (t *tail) after(last eventstore.Position, limit int, p *page) (covered bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	n := len(t.recs)
	if n == 0 {
		return false
	}
	first, end := t.recs[0].Position, t.recs[n-1].Position
	if last+1 < first || last > end {
		return false
	}
	for _, rec := range t.recs[last+1-first : min(n, int(last+1-first)+limit)] {
		p.Add().Rec = rec
	}
	return true
}
