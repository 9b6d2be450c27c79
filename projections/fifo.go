package projections

// fifo is a queue of jobs in order of arrival that answers "how many jobs are ahead of this one"
// in O(log n), however jobs leave it: from the front (served), or from anywhere (failed, timed
// out, picked up out of order).
//
// Each arrival takes the next slot of an append-only array; a Fenwick tree over the slots counts
// the jobs still present, so a job's position is the prefix count up to its slot. Arrivals are
// append-only because the projections apply events in global order, so "entered later" is
// "applied later" and a new arrival always goes to the back. Leaving marks the slot dead; when
// dead slots outnumber live ones the array is compacted and the live jobs renumbered, which
// costs O(n) once per n departures.
type fifo struct {
	// slots[i] is the job index in slot i, or -1 when that job has left.
	slots []int32
	// tree is the Fenwick tree over slots (1-based: tree[i] covers slots (i-lowbit(i), i]).
	tree []int32
	live int
}

// minCompact is the fewest dead slots worth compacting; below it the array is small anyway.
const minCompact = 1024

func (q *fifo) len() int { return q.live }

// prefix returns how many jobs are present in slots [0, n).
func (q *fifo) prefix(n int) int {
	s := int32(0)
	for i := n; i > 0; i &= i - 1 {
		s += q.tree[i]
	}
	return int(s)
}

// push puts job at the back and returns its slot.
func (q *fifo) push(job int32) int32 {
	if q.tree == nil {
		q.tree = []int32{0}
	}
	slot := len(q.slots)
	q.slots = append(q.slots, job)
	i := slot + 1
	// tree[i] covers slots (i-lowbit(i), i]: every one before slot i-1 in that range, plus this
	// new, present one.
	q.tree = append(q.tree, int32(1+q.prefix(i-1)-q.prefix(i-(i&-i))))
	q.live++
	return int32(slot)
}

// ahead returns the number of jobs present before slot.
func (q *fifo) ahead(slot int32) int { return q.prefix(int(slot)) }

// remove takes the job in slot out. When the queue compacts, renumber is called for every job
// still present with its new slot.
func (q *fifo) remove(slot int32, renumber func(job, slot int32)) {
	q.slots[slot] = -1
	for i := int(slot) + 1; i < len(q.tree); i += i & -i {
		q.tree[i]--
	}
	q.live--
	if dead := len(q.slots) - q.live; dead >= minCompact && dead > q.live {
		q.compact(renumber)
	}
}

func (q *fifo) compact(renumber func(job, slot int32)) {
	n := 0
	for _, j := range q.slots {
		if j >= 0 {
			q.slots[n] = j
			renumber(j, int32(n))
			n++
		}
	}
	q.slots = q.slots[:n]
	// Every slot is present: build the tree in O(n) by pushing each node's count to its parent.
	q.tree = q.tree[:n+1]
	for i := 1; i <= n; i++ {
		q.tree[i] = 1
	}
	q.tree[0] = 0
	for i := 1; i <= n; i++ {
		if p := i + (i & -i); p <= n {
			q.tree[p] += q.tree[i]
		}
	}
	// Release the backing arrays when the queue has shrunk a lot since it peaked.
	if cap(q.slots) > 4*n+minCompact {
		q.slots = append([]int32(nil), q.slots...)
		q.tree = append([]int32(nil), q.tree...)
	}
}

// each calls f for every job present, front to back.
func (q *fifo) each(f func(job int32)) { q.first(q.live, f) }

// first calls f for the first n jobs present, front to back.
func (q *fifo) first(n int, f func(job int32)) {
	for _, j := range q.slots {
		if n <= 0 {
			return
		}
		if j >= 0 {
			f(j)
			n--
		}
	}
}
