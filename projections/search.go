package projections

import (
	"math"
	"strings"
	"time"

	"relayer/domain"
)

// Search finds jobs by what an operator knows of them (GET /v1/jobs), newest first. Jobs are
// numbered in order of acceptance, which is the log's order, so the numbering (and a cursor made
// of it) is the same on every instance that follows the log and after a rebuild. A search walks
// the jobs from the newest (or from the cursor) down, comparing packed fields in place, and reads
// at most MaxScan jobs a call, so that a rare filter over millions of jobs holds the read lock
// for a bounded time: a page may then hold fewer jobs than asked for, with a cursor to go on.

// MaxScan is how many jobs one Search call reads at most.
const MaxScan = 200_000

// Query selects jobs. Every field set narrows the search; the zero Query selects every job.
type Query struct {
	Kinds    []domain.Kind
	Statuses []domain.Status
	// Label is the exact label of a failed or timed-out job.
	Label string
	// User is one of the job's users and Contract one of its contracts (lowercase 0x-hex
	// addresses; see parties.go); ContentHash the request's content hash.
	User, Contract, ContentHash string
	// CreatedFrom and CreatedTo bound when the job was accepted (Job.AcceptedAt), UpdatedFrom and UpdatedTo when it
	// last changed status: from inclusive, to exclusive; a zero time does not bound.
	CreatedFrom, CreatedTo, UpdatedFrom, UpdatedTo time.Time
	// Before is a cursor: only jobs accepted before the one numbered Before are read (0: from
	// the newest).
	Before int32
	// Limit is how many jobs a page holds at most (at least 1).
	Limit int
}

// Found is a job a search found, with its parties.
type Found struct {
	Job
	Users, Contracts []string
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// Page is one page of a search: the jobs found, newest first, and Next, the cursor of the next
// page (0 when the search has read every job).
type Page struct {
	Jobs    []Found
	Next    int32
	Scanned int
	// Behind says that the cursor names jobs this Set has not applied yet (a cursor from another
	// instance that is ahead of this one): the page is empty, and the search should be asked
	// again once this Set caught up.
	Behind bool
}

// Search returns the page of jobs q selects.
func (s *Set) Search(q Query) Page {
	var kinds, statuses uint32
	for _, k := range q.Kinds {
		kinds |= 1 << k.Ordinal()
	}
	for _, st := range q.Statuses {
		statuses |= 1 << st.Ordinal()
	}
	packed := func(v string) string { return string(packText(nil, []byte(v))) }
	label := packed(q.Label)
	hash := contentHashQuery(q.ContentHash)
	// An address packs to a hex run of its own wherever it stands in a comma-joined list, so
	// a list holds it when the packed list holds the address's packed run.
	user, contract := addressRun(q.User), addressRun(q.Contract)
	limit := max(q.Limit, 1)
	from, to := nanos(q.CreatedFrom), nanos(q.CreatedTo)
	ufrom, uto := nanos(q.UpdatedFrom), nanos(q.UpdatedTo)

	s.mu.RLock()
	defer s.mu.RUnlock()
	i := s.jobs.n
	if q.Before > i {
		return Page{Behind: true}
	}
	if q.Before > 0 {
		i = q.Before
	}
	var p Page
	for i > 0 && len(p.Jobs) < limit && p.Scanned < MaxScan {
		i--
		p.Scanned++
		j := s.jobs.at(i)
		if j.gone() {
			continue
		}
		if kinds != 0 && kinds&(1<<j.kind.Ordinal()) == 0 || statuses != 0 && statuses&(1<<j.status.Ordinal()) == 0 {
			continue
		}
		if q.Label != "" && j.field(fieldLabel) != label || q.ContentHash != "" && !hash.matches(j) {
			continue
		}
		if q.User != "" && !strings.Contains(j.field(fieldUsers), user) || q.Contract != "" && !strings.Contains(j.field(fieldContracts), contract) {
			continue
		}
		created, updated := j.acceptedAt(), j.lastEntered()
		if from != 0 && created < from || to != 0 && created >= to || ufrom != 0 && updated < ufrom || uto != 0 && updated >= uto {
			continue
		}
		v := Found{Job: s.jobView(j), CreatedAt: nanosTime(created), UpdatedAt: nanosTime(updated)}
		v.Users = splitField(j.field(fieldUsers))
		v.Contracts = splitField(j.field(fieldContracts))
		p.Jobs = append(p.Jobs, v)
	}
	if i > 0 {
		p.Next = i
	}
	return p
}

// addressRun is the packed hex run of a 0x-address, which its packed form ends with; "" stays "".
func addressRun(a string) string {
	if a == "" {
		return ""
	}
	if digits, ok := strings.CutPrefix(a, "0x"); ok {
		if p := packText(nil, []byte(digits)); len(p) > 0 && p[0]&hexFlag != 0 {
			return string(p) // the run past "0x"
		}
	}
	return string(packText(nil, []byte(a)))
}

// hashQuery is a content hash searched for, in the two forms a job may keep it in.
type hashQuery struct {
	raw    [32]byte
	isRaw  bool
	packed string
}

func contentHashQuery(h string) hashQuery {
	raw, ok := hashBytesOf(h)
	return hashQuery{raw: raw, isRaw: ok, packed: string(packText(nil, []byte(h)))}
}

// matches reports whether job j has the content hash.
func (q hashQuery) matches(j *job) bool {
	if j.flags&flagHash != 0 {
		return q.isRaw && j.hash == q.raw
	}
	return !q.isRaw && j.field(fieldContentHash) == q.packed
}

func splitField(p string) []string {
	if p == "" {
		return []string{}
	}
	return strings.Split(unpackString(p), ",")
}

// nanos is t in unix nanoseconds, 0 for the zero time, and saturated at the ends of the range
// (1678 to 2262) instead of wrapping around.
func nanos(t time.Time) int64 {
	switch {
	case t.IsZero():
		return 0
	case t.Before(time.Unix(0, math.MinInt64+1)):
		return math.MinInt64 + 1
	case t.After(time.Unix(0, math.MaxInt64)):
		return math.MaxInt64
	}
	return t.UnixNano()
}
