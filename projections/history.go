package projections

import (
	"encoding/json"
	"fmt"
	"sort"

	"relayer/domain"
	"relayer/eventstore"
)

// The running history is what the read models add up over every event they apply and never
// take back: the events applied, the transitions entered, and the stats' drain rates and stage
// durations. A retired job leaves the read models, but what its events added to the history
// stays; a Set folded from a live store that no longer holds those events would miss it, and
// its snapshot would differ from the running instance's and from a rebuild of the whole log.
//
// So the archiver records its Set's history, as of the position AsOf the Set had reached, in a
// domain.HistoryCarried appended with each ArchiveAdvanced, and a Set that applies one takes it
// over: it sets its history to the one carried, then replays on it what the events after AsOf
// added, which it keeps in a log of history operations (histLog). A Set that followed the whole
// log held that very history at AsOf and replays what it did itself: nothing changes for it. A
// Set folded from the live store alone ends with the same history as of the latest one: the
// events after its AsOf are all live (every event that leaves the live store, a retired job's
// or a superseded housekeeping one, is at or below the archived horizon, which the archiver's
// Set had reached), so both replay the same operations.

// histOpKind names an operation on the running history.
type histOpKind uint8

const (
	opEvent      histOpKind = iota // an event applied
	opSeen                         // an event's time a, seen (stats.latest)
	opTransition                   // a job of kind entered status arg
	opObserve                      // a sample of stage arg of kind, from a to b; flag: during a chain outage
	opDrained                      // a departure of kind from drain arg at a; flag: it left a backlog
)

// histOp is one operation on the running history, with everything it read outside the history
// when it was first done, so that replaying it does the same.
type histOp struct {
	pos  eventstore.Position // the position of the event that did it
	a, b int64
	// outages and outageSince are the chain outages as they stood at a departure (opDrained).
	// The slice is shared, not copied: stats.outages only ever appends past its end or drops
	// its front.
	outages     [][2]int64
	outageSince int64
	op          histOpKind
	kind, arg   uint8
	flag        bool
}

// histLogKeep is how many of the latest history operations a Set keeps at least (it keeps up
// to twice as many between trims). A HistoryCarried is appended a few milliseconds after the
// archiver read its Set's history: the operations between must all be kept, which this leaves
// room for at any rate of events.
const histLogKeep = 1 << 14

// histLog is the latest history operations, in order.
type histLog struct {
	ops []histOp
	// dropped is the position of the latest operation dropped from the front (0: none).
	dropped eventstore.Position
}

func (l *histLog) add(op histOp) {
	if len(l.ops) >= 2*histLogKeep {
		cut := len(l.ops) - histLogKeep
		l.dropped = l.ops[cut-1].pos
		l.ops = l.ops[:copy(l.ops, l.ops[cut:])]
	}
	l.ops = append(l.ops, op)
}

// hist does op, for the event at pos, and logs it; s.mu is held.
func (s *Set) hist(pos eventstore.Position, op histOp) {
	op.pos = pos
	s.do(&op)
	s.hlog.add(op)
}

// do applies op to the running history.
func (s *Set) do(op *histOp) {
	switch op.op {
	case opEvent:
		s.events++
	case opSeen:
		s.stats.seen(op.a)
	case opTransition:
		s.transitions[op.kind][op.arg]++
	case opObserve:
		s.stats.stages[op.kind][op.arg].observe(op.b-op.a, op.b, s.stats.alpha, op.flag)
	case opDrained:
		s.stats.drained(int(op.arg), int(op.kind), op.a, op.flag, op.outages, op.outageSince)
	}
}

// observe records a sample of stage st of kind k, from from to to (nothing when the stage's
// start was never recorded).
func (s *Set) observe(rec *eventstore.Record, k domain.Kind, st Stage, from, to int64) {
	if from == 0 {
		return
	}
	s.hist(rec.Position, histOp{op: opObserve, kind: uint8(k.Ordinal()), arg: uint8(st), a: from, b: to, flag: s.stats.duringOutage(from, to)})
}

// drained records a departure of kind k from drain d's queue at at (see stats.drained).
func (s *Set) drained(rec *eventstore.Record, d int, k domain.Kind, at int64, backlog bool) {
	s.hist(rec.Position, histOp{op: opDrained, kind: uint8(k.Ordinal()), arg: uint8(d), a: at, flag: backlog,
		outages: s.stats.outages, outageSince: s.stats.outageSince})
}

// History returns the running history as of the position the Set has reached, in the form a
// domain.HistoryCarried carries it.
func (s *Set) History() (eventstore.Position, json.RawMessage, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	h := historyJSON{Position: uint64(s.pos), Events: s.events, Transitions: s.transitions, Latest: s.stats.latest}
	for d := range h.Drains {
		w := &s.stats.drains[d]
		h.Drains[d] = drainJSON{Latest: w.latest, Last: s.stats.lastDrain[d], Backlog: s.stats.backlog[d]}
		for _, b := range w.buckets {
			if b.n != ([numKinds]uint32{}) {
				h.Drains[d].Buckets = append(h.Drains[d].Buckets, bucketJSON{Sec: b.sec, N: b.n, Busy: b.busy})
			}
		}
	}
	var buf [StageWindow]int64
	for k := range h.Stages {
		for st := range h.Stages[k] {
			ss := &s.stats.stages[k][st]
			h.Stages[k][st] = stageJSON{Count: ss.count, Sum: ss.sum, EWMA: ss.ewma, Min: ss.min, Max: ss.max, Buckets: ss.buckets,
				Window: ss.window(buf[:0]), Ring: ss.ring, LastAt: ss.lastAt}
		}
	}
	b, err := json.Marshal(h)
	return s.pos, b, err
}

// applyHistory applies a HistoryCarried; s.mu is held. When the operations since its AsOf are
// no longer all kept (more than histLogKeep of them came between: never at any real rate), the
// Set keeps its own history.
func (s *Set) applyHistory(rec *eventstore.Record) error {
	var e domain.HistoryCarried
	if err := json.Unmarshal(rec.Data, &e); err != nil {
		return err
	}
	asOf := eventstore.Position(e.AsOf)
	if asOf >= rec.Position {
		return fmt.Errorf("a history as of position %d carried at position %d", asOf, rec.Position)
	}
	var h historyJSON
	if err := json.Unmarshal(e.History, &h); err != nil {
		return fmt.Errorf("the history carried: %w", err)
	}
	if h.Position != e.AsOf {
		return fmt.Errorf("the history carried is as of position %d, the event says %d", h.Position, e.AsOf)
	}
	st := s.stats
	for d := range h.Drains {
		dj := &h.Drains[d]
		w := newWindow(s.cfg.DrainWindow)
		w.latest = dj.Latest
		size := int64(len(w.buckets))
		for _, b := range dj.Buckets {
			if at := &w.buckets[((b.Sec%size)+size)%size]; at.n == ([numKinds]uint32{}) || at.sec < b.Sec {
				*at = windowBucket{sec: b.Sec, n: b.N, busy: b.Busy}
			}
		}
		st.drains[d], st.lastDrain[d], st.backlog[d] = w, dj.Last, dj.Backlog
	}
	for k := range h.Stages {
		for sg := range h.Stages[k] {
			sj := &h.Stages[k][sg]
			if want := min(sj.Ring, StageWindow); uint64(len(sj.Window)) != want {
				return fmt.Errorf("the history carried: %d samples in the window of %s/%s, its ring says %d",
					len(sj.Window), domain.Kinds()[k], Stage(sg), want)
			}
			ss := stageStat{count: sj.Count, sum: sj.Sum, ewma: sj.EWMA, min: sj.Min, max: sj.Max, buckets: sj.Buckets, ring: sj.Ring, lastAt: sj.LastAt}
			n := uint64(len(sj.Window))
			for i, v := range sj.Window {
				ss.recent[(sj.Ring-n+uint64(i))%StageWindow] = v
			}
			st.stages[k][sg] = ss
		}
	}
	if asOf < s.hlog.dropped {
		return nil
	}
	st.latest = h.Latest
	s.stats, s.events, s.transitions = st, h.Events, h.Transitions
	ops := s.hlog.ops
	for i := sort.Search(len(ops), func(i int) bool { return ops[i].pos > asOf }); i < len(ops); i++ {
		s.do(&ops[i])
	}
	return nil
}

// CarriedHistoryHolds reports whether a history as of position asOf, carried by a
// HistoryCarried at position at (which this Set has applied), is taken over by every Set that
// applies it: the history operations between are at most histLogKeep, which every Set keeps
// whatever it applied before. The archiver carries the history again when it is not, so that read
// models folded from the live store alone never keep a history short of what the log added up.
func (s *Set) CarriedHistoryHolds(asOf, at eventstore.Position) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if asOf < s.hlog.dropped {
		return false
	}
	ops := s.hlog.ops
	from := sort.Search(len(ops), func(i int) bool { return ops[i].pos > asOf })
	to := sort.Search(len(ops), func(i int) bool { return ops[i].pos >= at })
	return to-from <= histLogKeep
}

// historyJSON is the running history as a HistoryCarried holds it. Times are unix nanoseconds.
type historyJSON struct {
	Position    uint64                         `json:"position"`
	Events      uint64                         `json:"events"`
	Transitions Counts                         `json:"transitions"`
	Latest      int64                          `json:"latest"`
	Drains      [2]drainJSON                   `json:"drains"`
	Stages      [numKinds][numStages]stageJSON `json:"stages"`
}

type drainJSON struct {
	Latest  int64           `json:"latest"`
	Buckets []bucketJSON    `json:"buckets,omitempty"`
	Last    [numKinds]int64 `json:"last"`
	Backlog [numKinds]bool  `json:"backlog"`
}

type bucketJSON struct {
	Sec  int64            `json:"sec"`
	N    [numKinds]uint32 `json:"n"`
	Busy [numKinds]int64  `json:"busy"`
}

type stageJSON struct {
	Count   uint64             `json:"count"`
	Sum     int64              `json:"sum"`
	EWMA    float64            `json:"ewma"`
	Min     int64              `json:"min"`
	Max     int64              `json:"max"`
	Buckets [numBuckets]uint64 `json:"buckets"`
	// Window is the ring's samples, oldest first; Ring how many samples it ever took.
	Window []int64 `json:"window"`
	Ring   uint64  `json:"ring"`
	LastAt int64   `json:"lastAt"`
}
