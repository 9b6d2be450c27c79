package ratelimit

import (
	"net/http"
	"slices"
)

// Times here are nanoseconds since the limiter's epoch (monotonic when the clock is).

// ring is the sliding log of one client's requests in one class: the start times of its newest
// requests, oldest first, never more than the rolling limit of them. Keeping only the newest
// `limit` loses nothing: the next request is admitted once the oldest kept one leaves the window,
// and that instant is known exactly. The buffer grows on demand up to the limit and shrinks as
// requests leave the window, so it holds at most about four times the requests in the window.
type ring struct {
	buf     []int64
	head, n int
}

func (r *ring) at(i int) int64 {
	j := r.head + i
	if j >= len(r.buf) {
		j -= len(r.buf)
	}
	return r.buf[j]
}

func (r *ring) pop() {
	r.head++
	if r.head == len(r.buf) {
		r.head = 0
	}
	r.n--
}

// expire drops the requests that started at or before cutoff (now - window): a request counts
// while now - start < window.
func (r *ring) expire(cutoff int64) {
	for r.n > 0 && r.buf[r.head] <= cutoff {
		r.pop()
	}
	if r.n == 0 {
		r.head = 0
	}
	// Give memory back as a burst leaves the window: the buffer stays under 4n+16 entries
	// (halving only at a quarter full keeps it amortised O(1)).
	for len(r.buf) > 16 && r.n < len(r.buf)/4 {
		r.resize(len(r.buf) / 2)
	}
}

// trim keeps the newest limit entries (the limit may have been lowered at runtime) and gives
// back a buffer far larger than the limit needs.
func (r *ring) trim(limit int) {
	for r.n > limit {
		r.pop()
	}
	if len(r.buf) > 2*limit && len(r.buf) > 8 {
		r.resize(max(r.n, limit))
	}
}

func (r *ring) push(t int64, limit int) {
	if r.n == len(r.buf) {
		r.resize(min(max(2*len(r.buf), 4), max(limit, r.n+1)))
	}
	j := r.head + r.n
	if j >= len(r.buf) {
		j -= len(r.buf)
	}
	r.buf[j] = t
	r.n++
}

func (r *ring) resize(c int) {
	nb := make([]int64, c)
	for i := range r.n {
		nb[i] = r.at(i)
	}
	r.buf, r.head = nb, 0
}

// classState is one client's state in one class.
type classState struct {
	log ring
	// held are the slots in flight, in acquisition order.
	held []slot
	// streak: the deny tracker may hold a concurrency deny streak for this client and class, so
	// an allowed request must decay it. Keeps the tracker's lock off the common path.
	streak bool
}

// slot is a concurrency slot in flight: when it was taken, and the request that holds it (nil
// for Acquire's, which have no request).
type slot struct {
	at    int64
	owner *http.Request
}

// expireHeld drops the slots taken at or before cutoff (now - timeout): they no longer count.
// Their late release finds nothing to remove.
func (s *classState) expireHeld(cutoff int64) {
	i := 0
	for i < len(s.held) && s.held[i].at <= cutoff {
		i++
	}
	if i > 0 {
		s.held = slices.Delete(s.held, 0, i) // clears the tail: no request stays referenced
	}
}

// releaseHeld removes one slot of owner taken at t. Acquire's slots taken at the same instant
// are interchangeable.
func (s *classState) releaseHeld(t int64, owner *http.Request) {
	for i, v := range s.held {
		if v.at == t && v.owner == owner {
			s.held = slices.Delete(s.held, i, i+1)
			return
		}
	}
}

// releaseOwned removes the slot request owner holds, and reports whether there was one.
func (s *classState) releaseOwned(owner *http.Request) bool {
	for i, v := range s.held {
		if v.owner == owner {
			s.held = slices.Delete(s.held, i, i+1)
			return true
		}
	}
	return false
}
