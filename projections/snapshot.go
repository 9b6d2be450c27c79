package projections

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

// Snapshot returns WriteSnapshot's JSON.
func (s *Set) Snapshot() ([]byte, error) {
	snap, _, err := s.SnapshotAt()
	return snap, err
}

// SnapshotAt returns WriteSnapshot's JSON and the position of the last event it covers, read
// together: while the Set follows the log (Run), Position read apart from the snapshot may
// already be a later event's (another instance sharing the store appends meanwhile), and `relayer
// rebuild --through` that position would not print the snapshot's digest.
func (s *Set) SnapshotAt() ([]byte, eventstore.Position, error) {
	var b bytes.Buffer
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.writeSnapshot(&b); err != nil {
		return nil, 0, err
	}
	return b.Bytes(), s.pos, nil
}

// WriteSnapshot writes every read model as one canonical JSON document: the checkpoint and
// configuration, the counts, the jobs sorted by id, the queues front
// to back, the pending deadlines in order, and the stats. It depends only on the events applied
// (and the Config), never on when or how they were applied, so a Set that followed the log live
// and one rebuilt from position 0 write the same bytes. Times are RFC 3339 in UTC, durations
// in nanoseconds.
//
// It holds the read lock while it writes, so events wait to be applied meanwhile; at a million
// jobs that is about a second.
func (s *Set) WriteSnapshot(w io.Writer) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.writeSnapshot(w)
}

// writeSnapshot is WriteSnapshot, under the caller's read lock.
func (s *Set) writeSnapshot(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	b := make([]byte, 0, 4096)
	// flush hands the buffer to the writer once it is big; errors surface at the end.
	flush := func() {
		if len(b) > 32<<10 {
			bw.Write(b)
			b = b[:0]
		}
	}

	b = append(b, `{"position":`...)
	b = strconv.AppendUint(b, uint64(s.pos), 10)
	b = append(b, `,"events":`...)
	b = strconv.AppendUint(b, s.events, 10)
	b = append(b, `,"config":{"readinessTimeout":`...)
	b = strconv.AppendInt(b, int64(s.cfg.ReadinessTimeout), 10)
	b = append(b, `,"txInFlightTimeout":`...)
	b = strconv.AppendInt(b, int64(s.cfg.TxInFlightTimeout), 10)
	b = append(b, `,"responseTimeout":`...)
	b = strconv.AppendInt(b, int64(s.cfg.ResponseTimeout), 10)
	b = append(b, `,"processingTimeout":`...)
	b = strconv.AppendInt(b, int64(s.cfg.ProcessingTimeout), 10)
	b = append(b, `,"drainWindow":`...)
	b = strconv.AppendInt(b, int64(s.cfg.DrainWindow), 10)
	b = append(b, `,"durationAlpha":`...)
	b = appendFloat(b, s.cfg.DurationAlpha)
	b = append(b, "}"...)

	// requests: counts, then jobs sorted by id
	b = appendCounts(b, "counts", s.counts)
	b = appendCounts(b, "transitions", s.transitions)

	order := make([]int32, 0, s.jobs.n-s.jobs.dead)
	for i := range s.jobs.n {
		if !s.jobs.at(i).gone() {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(x, y int32) int {
		return bytes.Compare(s.jobs.at(x).id[:], s.jobs.at(y).id[:])
	})
	b = append(b, `,"jobs":[`...)
	for n, i := range order {
		if n > 0 {
			b = append(b, ',')
		}
		b = s.appendJob(b, s.jobs.at(i))
		flush()
	}
	b = append(b, ']')

	b = append(b, `,"queues":{`...)
	for q := ReadinessQueue; q < numQueues; q++ {
		if q > ReadinessQueue {
			b = append(b, ',')
		}
		b = appendJSONString(b, []byte(q.String()))
		b = append(b, ":["...)
		first := true
		s.queues[q].each(func(i int32) {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendJobID(b, s.jobs.at(i).id)
			flush()
		})
		b = append(b, ']')
	}
	b = append(b, '}')

	timers := slices.Clone(s.timers.items)
	slices.SortFunc(timers, func(x, y timerItem) int {
		if x.before(y) {
			return -1
		}
		if y.before(x) {
			return 1
		}
		return 0
	})
	if s.outage != 0 {
		b = append(b, `,"chainOutageSince":`...)
		b = appendTime(b, s.outage)
	}
	b = append(b, `,"timers":[`...)
	for n, it := range timers {
		if n > 0 {
			b = append(b, ',')
		}
		j := s.jobs.at(it.job)
		b = append(b, `{"job":`...)
		b = appendJobID(b, j.id)
		b = append(b, `,"status":"`...)
		b = append(b, j.status.String()...)
		b = append(b, `","enteredAt":`...)
		b = appendTime(b, j.enteredAt(j.status))
		b = append(b, `,"deadline":`...)
		b = appendTime(b, it.due)
		b = append(b, '}')
		flush()
	}
	b = append(b, ']')

	b = s.appendStats(b)
	b = append(b, "}\n"...)
	bw.Write(b)
	return bw.Flush()
}

func (s *Set) appendJob(b []byte, j *job) []byte {
	b = append(b, `{"id":`...)
	b = appendJobID(b, j.id)
	b = append(b, `,"kind":"`...)
	b = append(b, j.kind.String()...)
	b = append(b, `","status":"`...)
	b = append(b, j.status.String()...)
	b = append(b, `","version":`...)
	b = strconv.AppendUint(b, uint64(j.version), 10)
	b = append(b, `,"position":`...)
	b = strconv.AppendUint(b, uint64(j.pos), 10)
	b = append(b, `,"entered":{`...)
	first := true
	for _, st := range domain.Statuses() {
		at := j.enteredAt(st)
		if at == 0 {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, st.String()...)
		b = append(b, `":`...)
		b = appendTime(b, at)
	}
	b = append(b, '}')
	b = append(b, `,"acceptedAt":`...)
	b = appendTime(b, j.acceptedAt())
	if at := j.checkAt(); at != 0 {
		b = append(b, `,"readinessCheckAt":`...)
		b = appendTime(b, at)
	}
	if at := j.retryAt(); at != 0 {
		b = append(b, `,"retryAt":`...)
		b = appendTime(b, at)
	}
	b = append(b, `,"contentHash":`...)
	b = appendJSONString(b, j.appendContentHash(nil))
	for _, f := range [...]struct {
		name  string
		field textField
	}{{"txHash", fieldTxHash}, {"gatewayRequestId", fieldGatewayRequestID}, {"label", fieldLabel}, {"message", fieldMessage},
		{"users", fieldUsers}, {"contracts", fieldContracts}} {
		if v := j.field(f.field); v != "" {
			b = append(b, `,"`...)
			b = append(b, f.name...)
			b = append(b, `":`...)
			b = appendJSONString(b, unpackText(nil, v))
		}
	}
	if n := j.shares(); n > 0 {
		b = append(b, `,"shares":`...)
		b = strconv.AppendUint(b, uint64(n), 10)
	}
	if r := j.field(fieldResult); r != "" {
		b = append(b, `,"result":`...)
		b = unpackText(b, r)
	}
	return append(b, '}')
}

func (s *Set) appendStats(b []byte) []byte {
	st := &s.stats
	b = append(b, `,"stats":{"latestEventAt":`...)
	if st.latest == minSecond {
		b = append(b, "null"...)
	} else {
		b = appendTime(b, st.latest)
	}
	b = append(b, `,"drain":{`...)
	for d, name := range [...]string{"readiness", "tx"} {
		if d > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":{"perSecond":`...)
		r, _ := st.rate(d, -1)
		b = appendFloat(b, r)
		for _, k := range domain.Kinds() {
			b = append(b, `,"`...)
			b = append(b, k.String()...)
			b = append(b, `":`...)
			r, _ := st.rate(d, k.Ordinal())
			b = appendFloat(b, r)
		}
		b = append(b, `,"lastAt":{`...)
		for ki, k := range domain.Kinds() {
			if ki > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = append(b, k.String()...)
			b = append(b, `":`...)
			b = appendOptionalTime(b, st.lastDrain[d][ki])
		}
		b = append(b, "}}"...)
	}
	b = append(b, `},"stages":{`...)
	var window [StageWindow]int64
	for ki, k := range domain.Kinds() {
		if ki > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, k.String()...)
		b = append(b, `":{`...)
		for si := range numStages {
			if si > 0 {
				b = append(b, ',')
			}
			ss := &st.stages[ki][si]
			b = append(b, '"')
			b = append(b, Stage(si).String()...)
			b = append(b, `":{"count":`...)
			b = strconv.AppendUint(b, ss.count, 10)
			b = append(b, `,"sum":`...)
			b = strconv.AppendInt(b, ss.sum, 10)
			b = append(b, `,"ewma":`...)
			b = strconv.AppendInt(b, int64(math.Round(ss.ewma)), 10)
			b = append(b, `,"min":`...)
			b = strconv.AppendInt(b, ss.min, 10)
			b = append(b, `,"max":`...)
			b = strconv.AppendInt(b, ss.max, 10)
			b = append(b, `,"buckets":[`...)
			for i, c := range ss.buckets {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendUint(b, c, 10)
			}
			// The recent window oldest first, and its newest sample's time: what the
			// adaptive Retry-After reads.
			b = append(b, `],"window":[`...)
			for i, d := range ss.window(window[:0]) {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, d, 10)
			}
			b = append(b, `],"lastAt":`...)
			b = appendOptionalTime(b, ss.lastAt)
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	return append(b, "}}"...)
}

// appendOptionalTime appends the time nanos, or null for 0 (never happened).
func appendOptionalTime(b []byte, nanos int64) []byte {
	if nanos == 0 {
		return append(b, "null"...)
	}
	return appendTime(b, nanos)
}

func appendJobID(b []byte, id domain.JobID) []byte {
	b = append(b, '"')
	b = append(b, id.String()...)
	return append(b, '"')
}

func appendTime(b []byte, nanos int64) []byte {
	b = append(b, '"')
	b = time.Unix(0, nanos).UTC().AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendFloat writes f in the shortest form that reads back as f (always finite here).
func appendFloat(b []byte, f float64) []byte {
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// appendJSONString appends s as a JSON string, escaped as encoding/json escapes it (quotes,
// backslashes, control characters, and <, >, & and U+2028/U+2029 for safe embedding in HTML).
func appendJSONString(b []byte, s []byte) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0x0f])
			}
			i++
			start = i
			continue
		}
		// U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
		if c == 0xe2 && i+2 < len(s) && s[i+1] == 0x80 && s[i+2]&^1 == 0xa8 {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[s[i+2]&0x0f])
			i += 3
			start = i
			continue
		}
		i++
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendCounts appends `,"name":{kind:{status:n,...},...}` in the fixed order of kinds and
// statuses.
func appendCounts(b []byte, name string, c Counts) []byte {
	b = append(b, ',')
	b = appendJSONString(b, []byte(name))
	b = append(b, ":{"...)
	for ki, k := range domain.Kinds() {
		if ki > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, []byte(k.String()))
		b = append(b, ":{"...)
		for si, st := range domain.Statuses() {
			if si > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, []byte(st.String()))
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(c.Of(k, st)), 10)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}
