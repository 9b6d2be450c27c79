package projections

import (
	"strings"

	"relayer/domain"
	"relayer/eventstore"
)

// numKinds is how many request kinds there are; arrays indexed by Kind.Ordinal() use it.
const numKinds = domain.NumKinds

// textField names one of the variable-length strings a job keeps, in the order they are laid out
// in job.text.
type textField uint8

const (
	fieldTxHash textField = iota
	fieldGatewayRequestID
	fieldLabel
	fieldMessage
	fieldResult
	// fieldUsers and fieldContracts are the request's parties (see parties.go).
	fieldUsers
	fieldContracts
	numTextFields
)

// job is everything the projections keep about one request. It is shared by the four read
// models, so that a job costs one record, one map entry and no per-job maps. Every field is
// fixed-size except hash and text, which hold packed strings (see pack.go).
type job struct {
	id domain.JobID
	// pos is the global position of the job's last event.
	pos eventstore.Position
	// entered[st.Ordinal()] is when the job last entered status st (unix nanoseconds, from the
	// event's At; 0 when it never did).
	entered [domain.NumStatuses]int64
	// accepted is when the job was accepted (unix nanoseconds): entered of its initial status
	// moves when a reset sends an input proof back to processing; this does not.
	accepted int64
	// checkAt is when a readiness worker last picked the job up (0 when none did).
	checkAt int64
	// retryAt is when a step of the job that failed for a passing reason is tried again
	// (RetryScheduled; 0 when none is pending): it holds until the job's status changes.
	retryAt int64
	// hash is the packed content hash.
	hash string
	// text holds the packed text fields back to back; ends[f] is where field f ends in it.
	text string
	ends [numTextFields]uint32
	// version is the stream version of the job's last event.
	version uint32
	// slot is the job's place in the fifo of queue (when queue is not NotQueued).
	slot int32
	// timer is the job's index in the timer heap, -1 when it has no deadline.
	timer  int32
	shares uint16
	kind   domain.Kind
	status domain.Status
	queue  Queue
}

// field returns the packed form of text field f.
func (j *job) field(f textField) string {
	start := uint32(0)
	if f > 0 {
		start = j.ends[f-1]
	}
	return j.text[start:j.ends[f]]
}

// setField replaces text field f with the packed form of v. The new text is one allocation; the
// old one becomes garbage (a job's text changes a handful of times in its life).
func (j *job) setField(f textField, v []byte, scratch []byte) []byte {
	scratch = packText(scratch[:0], v)
	old := j.field(f)
	start := j.ends[f] - uint32(len(old))
	var b strings.Builder
	b.Grow(len(j.text) - len(old) + len(scratch))
	b.WriteString(j.text[:start])
	b.Write(scratch)
	b.WriteString(j.text[j.ends[f]:])
	j.text = b.String()
	delta := uint32(len(scratch)) - uint32(len(old)) // wraps when shrinking; the sum below wraps back
	for g := f; g < numTextFields; g++ {
		j.ends[g] += delta
	}
	return scratch
}

// setParties sets the two party fields of a job that has no text yet (one just accepted) in one
// allocation.
func (j *job) setParties(users, contracts []byte, scratch []byte) []byte {
	scratch = packText(scratch[:0], users)
	n := len(scratch)
	scratch = packText(scratch, contracts)
	j.text = string(scratch)
	for g := fieldUsers; g < numTextFields; g++ {
		j.ends[g] = uint32(len(scratch))
	}
	j.ends[fieldUsers] = uint32(n)
	return scratch
}

// chunkBits sets the size of a job chunk (4096 jobs). Jobs live in fixed chunks rather than one
// growing slice, so that adding a job never copies the table (a copy of a million 160-byte
// records would stall the projections and briefly double their memory), and so that a pointer
// to a job stays valid while others are added.
const (
	chunkBits = 12
	chunkSize = 1 << chunkBits
	chunkMask = chunkSize - 1
)

// jobTable holds every job ever accepted, indexed by a dense int32 in order of acceptance.
//
// A retired job's index is never given to another job (the queues, timers and search cursors
// hold indices), but its memory is freed: its record is zeroed at once, a chunk whose every
// job was retired is released, and the id index is rebuilt once it has deleted more entries
// than it holds (a Go map never shrinks by itself). Jobs end and retire roughly in order of
// acceptance, so a relayer whose retention keeps pace holds the chunks of its horizon only.
type jobTable struct {
	chunks [][]job
	// retiredIn counts the retired jobs of each chunk; a chunk whose count reaches chunkSize is
	// released (chunks[c] becomes nil).
	retiredIn []int32
	n         int32
	// dead counts the slots of retired jobs (see retire.go).
	dead  int32
	index map[domain.JobID]int32
	// deleted counts the index's deletions since it was last rebuilt.
	deleted int
	// vacant is what at returns for an index in a released chunk: a job that is gone (kind
	// zero). Callers only read it (the walks over every index): no queue, timer or lookup holds
	// an index of a released chunk.
	vacant job
}

func newJobTable() jobTable {
	return jobTable{index: make(map[domain.JobID]int32), vacant: job{slot: -1, timer: -1}}
}

func (t *jobTable) at(i int32) *job {
	c := t.chunks[i>>chunkBits]
	if c == nil {
		return &t.vacant
	}
	return &c[i&chunkMask]
}

func (t *jobTable) lookup(id domain.JobID) (int32, *job, bool) {
	i, ok := t.index[id]
	if !ok {
		return -1, nil, false
	}
	return i, t.at(i), true
}

// add appends a new job with id and returns its index.
func (t *jobTable) add(id domain.JobID) (int32, *job) {
	i := t.n
	if int(i>>chunkBits) == len(t.chunks) {
		t.chunks = append(t.chunks, make([]job, chunkSize))
		t.retiredIn = append(t.retiredIn, 0)
	}
	t.n++
	t.index[id] = i
	j := t.at(i)
	j.id = id
	j.slot, j.timer = -1, -1
	return i, j
}

// retire frees job i, which waits in no queue and has no timer: its record is zeroed (kind
// zero: gone), its id leaves the index, and its chunk is released once every job in it is
// retired.
func (t *jobTable) retire(i int32) {
	j := t.at(i)
	delete(t.index, j.id)
	*j = job{id: j.id, slot: -1, timer: -1}
	t.dead++
	c := i >> chunkBits
	if t.retiredIn[c]++; t.retiredIn[c] == chunkSize {
		t.chunks[c] = nil
	}
	if t.deleted++; t.deleted > 1024 && t.deleted > len(t.index) {
		m := make(map[domain.JobID]int32, len(t.index))
		for id, k := range t.index {
			m[id] = k
		}
		t.index, t.deleted = m, 0
	}
}
