package projections

// timerHeap is a min-heap of deadlines, one per job that has one, ordered by deadline and then
// by order of acceptance (the job index), so equal deadlines come out in a fixed order. Each job
// records its index in the heap (job.timer), so a deadline is moved or dropped in O(log n) when
// the job changes status; the heap never holds a stale entry and its size is the number of jobs
// waiting on a deadline.
type timerHeap struct {
	items []timerItem
}

type timerItem struct {
	due int64 // unix nanoseconds
	job int32
}

func (a timerItem) before(b timerItem) bool {
	return a.due < b.due || (a.due == b.due && a.job < b.job)
}

// set gives job i the deadline due, adding or moving its entry.
func (h *timerHeap) set(t *jobTable, i int32, due int64) {
	j := t.at(i)
	if j.timer < 0 {
		j.timer = int32(len(h.items))
		h.items = append(h.items, timerItem{due: due, job: i})
		h.up(t, int(j.timer))
		return
	}
	k := int(j.timer)
	old := h.items[k].due
	h.items[k].due = due
	if due < old {
		h.up(t, k)
	} else {
		h.down(t, k)
	}
}

// clear drops job i's deadline, if it has one.
func (h *timerHeap) clear(t *jobTable, i int32) {
	j := t.at(i)
	k := int(j.timer)
	if k < 0 {
		return
	}
	j.timer = -1
	last := len(h.items) - 1
	if k != last {
		h.items[k] = h.items[last]
		t.at(h.items[k].job).timer = int32(k)
	}
	h.items = h.items[:last]
	if k < last {
		if !h.up(t, k) {
			h.down(t, k)
		}
	}
}

// up moves the item at k towards the root; it reports whether it moved.
func (h *timerHeap) up(t *jobTable, k int) bool {
	moved := false
	it := h.items[k]
	for k > 0 {
		p := (k - 1) / 2
		if !it.before(h.items[p]) {
			break
		}
		h.items[k] = h.items[p]
		t.at(h.items[k].job).timer = int32(k)
		k = p
		moved = true
	}
	h.items[k] = it
	t.at(it.job).timer = int32(k)
	return moved
}

func (h *timerHeap) down(t *jobTable, k int) {
	it := h.items[k]
	n := len(h.items)
	for {
		c := 2*k + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h.items[r].before(h.items[c]) {
			c = r
		}
		if !h.items[c].before(it) {
			break
		}
		h.items[k] = h.items[c]
		t.at(h.items[k].job).timer = int32(k)
		k = c
	}
	h.items[k] = it
	t.at(it.job).timer = int32(k)
}

// fix restores the heap's order after any number of items' deadlines changed.
func (h *timerHeap) fix(t *jobTable) {
	for k := len(h.items)/2 - 1; k >= 0; k-- {
		h.down(t, k)
	}
}

// due returns, in order, up to limit items whose deadline is at or before now. It does not
// change the heap (it runs under a read lock): it walks the heap best-first from the root with a
// small heap of candidates, and never descends below an item that is not due, so it costs
// O(k log k) for k results (keep, when set, passes over the items it refuses).
func (h *timerHeap) due(now int64, limit int, keep func(timerItem) bool) []timerItem {
	if limit <= 0 || len(h.items) == 0 || h.items[0].due > now {
		return nil
	}
	var out []timerItem
	cand := []int{0} // indices into h.items, a min-heap by the items they point at
	less := func(a, b int) bool { return h.items[cand[a]].before(h.items[cand[b]]) }
	for len(cand) > 0 && len(out) < limit {
		k := cand[0]
		// pop the smallest candidate
		last := len(cand) - 1
		cand[0] = cand[last]
		cand = cand[:last]
		for p := 0; ; {
			c := 2*p + 1
			if c >= len(cand) {
				break
			}
			if c+1 < len(cand) && less(c+1, c) {
				c++
			}
			if !less(c, p) {
				break
			}
			cand[p], cand[c] = cand[c], cand[p]
			p = c
		}
		if keep == nil || keep(h.items[k]) {
			out = append(out, h.items[k])
		}
		for _, c := range [2]int{2*k + 1, 2*k + 2} {
			if c < len(h.items) && h.items[c].due <= now {
				cand = append(cand, c)
				for q := len(cand) - 1; q > 0; {
					p := (q - 1) / 2
					if !less(q, p) {
						break
					}
					cand[p], cand[q] = cand[q], cand[p]
					q = p
				}
			}
		}
	}
	return out
}
