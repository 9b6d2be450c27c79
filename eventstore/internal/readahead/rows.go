package readahead

import (
	"context"
	"iter"
	"strings"

	"relayer/eventstore"
)

// UpToHead is a store's ReadAll of the records after after: it reads the log's head with head
// when the read starts, and read yields the records up to it. A head that cannot be read is
// yielded as the read's error; a read from the head or past it yields nothing.
func UpToHead(ctx context.Context, after eventstore.Position, head func(context.Context) (eventstore.Position, error),
	read func(yield func(eventstore.Record, error) bool, head eventstore.Position)) iter.Seq2[eventstore.Record, error] {
	return func(yield func(eventstore.Record, error) bool) {
		h, err := head(ctx)
		if err != nil {
			yield(eventstore.Record{}, err)
			return
		}
		if after >= h {
			return
		}
		read(yield, h)
	}
}

// Row is one fetched event: the record, or why it cannot be read.
type Row struct {
	Rec eventstore.Record
	Err error
}

// Page is what one page query returned: its rows, and why the read stopped after them. A
// backend's page embeds it.
type Page struct {
	Rows []Row
	// Err is why the read stopped after Rows.
	Err error
}

// Add appends an empty row for the scanner to fill and returns it.
func (p *Page) Add() *Row {
	p.Rows = append(p.Rows, Row{})
	return &p.Rows[len(p.Rows)-1]
}

// Yield yields the page's records in order. It reports whether the caller wants more.
func (p *Page) Yield(yield func(eventstore.Record, error) bool) bool {
	for i := range p.Rows {
		r := &p.Rows[i]
		if !yield(r.Rec, r.Err) {
			return false
		}
	}
	return true
}

// YieldUntilError yields the page's records, then its error if it has one, and reports
// whether the read goes on: as a consumer for Pages, it stops a read at its first error.
func (p *Page) YieldUntilError(yield func(eventstore.Record, error) bool) bool {
	if !p.Yield(yield) {
		return false
	}
	if p.Err != nil {
		yield(eventstore.Record{}, p.Err)
		return false
	}
	return true
}

// slabSize is the size of the blocks that events' data is copied into. A Record's Data must
// outlive the read (the caller may keep it), so it cannot be the driver's buffer, which the
// next row reuses; copying it into shared slabs costs one allocation per few dozen events
// instead of one per event. A caller that keeps one record keeps its slab alive: at most
// slabSize bytes.
const (
	slabSize = 32 << 10
	// ownAlloc is the size from which data gets an allocation of its own, so that big events
	// waste no slab space and cannot pin a slab of small ones.
	ownAlloc = slabSize / 8
)

// Arena hands out copies of events' data carved from slabs. Slabs are never reused: a copy
// stays valid for as long as anything refers to it. The zero value is ready to use.
type Arena struct{ slab []byte }

// CopyData returns a copy of b from a's current slab (or a new one).
func CopyData[T string | []byte](a *Arena, b T) []byte {
	if len(b) >= ownAlloc {
		return append(make([]byte, 0, len(b)), b...)
	}
	if cap(a.slab)-len(a.slab) < len(b) {
		a.slab = make([]byte, 0, slabSize)
	}
	start := len(a.slab)
	a.slab = append(a.slab, b...)
	// The capacity stops at the copy's end: appending to one Record's Data cannot overwrite
	// the next one's.
	return a.slab[start:len(a.slab):len(a.slab)]
}

// maxTypes bounds a Types: a log of more event types than that pays one allocation per event for
// the others, like a log without interning.
const maxTypes = 256

// Types interns the event types a read's scanner meets, so that the read's records share their
// Type strings. The zero value is ready to use; it is used by one goroutine at a time.
type Types struct{ m map[string]string }

// Intern returns the type whose bytes are b (the driver's, which the next row reuses).
func (t *Types) Intern(b []byte) string {
	if s, ok := t.m[string(b)]; ok {
		return s
	}
	return t.add(string(b))
}

// InternText returns the type whose text is s, a view of memory the next row reuses.
func (t *Types) InternText(s string) string {
	if u, ok := t.m[s]; ok {
		return u
	}
	return t.add(strings.Clone(s))
}

// add keeps the new type s while there is room, and returns it.
func (t *Types) add(s string) string {
	if t.m == nil {
		t.m = make(map[string]string)
	}
	if len(t.m) < maxTypes {
		t.m[s] = s
	}
	return s
}
