package projections

import (
	"encoding/binary"
	"encoding/hex"
	"hash/maphash"
	"slices"
	"strings"
	"unsafe"

	"relayer/domain"
	"relayer/eventstore"
)

// numKinds is how many request kinds there are; arrays indexed by Kind.Ordinal() use it.
const numKinds = domain.NumKinds

// textField names one of the variable-length strings a job keeps, in the order they are laid out
// in a job's text.
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
	// fieldContentHash holds a content hash that is not 64 lowercase hex digits (none that
	// domain.ContentHash makes): those are kept as 32 bytes in job.hash.
	fieldContentHash
	// fieldRetryAt holds, while a retry is pending (flagRetry), its time: 8 bytes, big-endian
	// unix nanoseconds, not packed text.
	fieldRetryAt
	numTextFields
)

// numEntered is how many entry times a job keeps: one per status that is not terminal, and one
// for the terminal status it ended in (a job enters at most one).
const numEntered = 5

const endedSlot = numEntered - 1

// job is everything the projections keep about one request. It is shared by the four read
// models, so that a job costs one record, one slot of the id index and no per-job maps. Every
// field is fixed-size except the text, which holds packed strings (see pack.go) and, when set,
// the rare fields that would otherwise cost every job their room: a retry's time, a content hash
// that is not hex.
type job struct {
	id domain.JobID
	// pos is the global position of the job's last event.
	pos eventstore.Position
	// entered[i] is when the job last entered the status of ordinal i, for the statuses that
	// are not terminal, and entered[endedSlot] when it entered its terminal status (unix
	// nanoseconds, from the event's At; 0 when it never did). Read it with enteredAt.
	entered [numEntered]int64
	// extra is, for a kind that needs a readiness check, when a readiness worker last picked
	// the job up (checkAt); for the others, when the job was accepted once a reset sent it back
	// to its initial status (flagMoved; acceptedAt).
	extra int64
	// hash is the content hash as bytes, when flagHash says so (see setContentHash).
	hash [32]byte
	// textData points at the job's text (nil when it is ""): the packed text fields in order,
	// each preceded by its length as a uvarint, up to the last that is not empty. It is the
	// first byte of a string, which it keeps alive as the string would. The record keeps no
	// length (a string would cost it 8 bytes more: 136 bytes a record, not 128): flags' high
	// bits count the fields, and text adds up their lengths (see text and setText).
	textData *byte
	// version is the stream version of the job's last event.
	version uint32
	// slot is the job's place in the fifo of queue while queue is not NotQueued (-1 when it is,
	// until shares counts in it: see shares).
	slot int32
	// timer is the job's index in the timer heap, -1 when it has no deadline.
	timer  int32
	kind   domain.Kind
	status domain.Status
	queue  Queue
	flags  jobFlags
}

type jobFlags uint8

// The high four bits of a job's flags count the fields of its text (0 to numTextFields).
const (
	textFieldsShift          = 4
	textFieldsMask  jobFlags = 0xff << textFieldsShift & 0xff
)

// A text's count of fields fits in textFieldsMask, and the flags below it (these fail to compile
// when they do not).
var (
	_ = [1]struct{}{}[numTextFields>>(8-textFieldsShift)]
	_ = [1]struct{}{}[flagRetry>>textFieldsShift]
)

const (
	// flagHash: the content hash is in hash (otherwise in fieldContentHash).
	flagHash jobFlags = 1 << iota
	// flagMoved: the job re-entered its initial status, and extra is when it was accepted.
	flagMoved
	// flagRetry: a retry is pending, at the time in fieldRetryAt.
	flagRetry
)

// maxShares is where the count of a job's shares stops.
const maxShares = 1<<16 - 1

// shares is how many user decrypt shares arrived. They arrive in receipt_received, after which
// a job joins no queue again, so the count is kept in slot, which no queue needs any more.
func (j *job) shares() int32 {
	if j.queue != NotQueued {
		return 0
	}
	return max(j.slot, 0)
}

// addShare counts a share that arrived (up to maxShares); the job is in receipt_received.
func (j *job) addShare() {
	if n := j.shares(); n < maxShares {
		j.slot = n + 1
	}
}

// acceptedAt is when the job was accepted (unix nanoseconds): its entry into its initial
// status, until a reset sends an input proof back to processing (setEntered keeps it then).
func (j *job) acceptedAt() int64 {
	if j.flags&flagMoved != 0 {
		return j.extra
	}
	return j.entered[j.kind.InitialStatus().Ordinal()]
}

// checkAt is when a readiness worker last picked the job up (0 when none did).
func (j *job) checkAt() int64 {
	if j.kind.NeedsReadiness() {
		return j.extra
	}
	return 0
}

// retryAt is when a step of the job that failed for a passing reason is tried again
// (RetryScheduled; 0 when none is pending): it holds until the job's status changes.
func (j *job) retryAt() int64 {
	if j.flags&flagRetry == 0 {
		return 0
	}
	return int64(binary.BigEndian.Uint64([]byte(j.field(fieldRetryAt))))
}

// setRetryAt sets retryAt (0: none pending).
func (j *job) setRetryAt(at int64) {
	if at == 0 {
		if j.flags&flagRetry != 0 {
			j.flags &^= flagRetry
			j.setPacked(fieldRetryAt, nil, numTextFields, nil)
		}
		return
	}
	j.flags |= flagRetry
	j.setPacked(fieldRetryAt, binary.BigEndian.AppendUint64(nil, uint64(at)), numTextFields, nil)
}

// enteredAt is when the job last entered status st (unix nanoseconds; 0 when it never did).
func (j *job) enteredAt(st domain.Status) int64 {
	if o := st.Ordinal(); o < endedSlot {
		return j.entered[o]
	}
	if st == j.status {
		return j.entered[endedSlot]
	}
	return 0
}

// setEntered records that the job entered status st at at.
func (j *job) setEntered(st domain.Status, at int64) {
	o := min(st.Ordinal(), endedSlot)
	if st == j.kind.InitialStatus() && j.status != st && !j.kind.NeedsReadiness() && j.flags&flagMoved == 0 {
		// Re-entered (not accepted): keep when the job was accepted.
		j.extra, j.flags = j.entered[o], j.flags|flagMoved
	}
	j.entered[o] = at
}

// lastEntered is the latest of the job's entry times.
func (j *job) lastEntered() int64 { return slices.Max(j.entered[:]) }

// text returns the job's packed text.
func (j *job) text() string {
	n := 0
	for range j.flags >> textFieldsShift {
		// Every field is whole in memory: its length is read byte by byte up to its last.
		l, w := 0, 0
		for shift := 0; ; shift += 7 {
			b := *(*byte)(unsafe.Add(unsafe.Pointer(j.textData), n+w))
			w++
			l |= int(b&0x7f) << shift
			if b < 0x80 {
				break
			}
		}
		n += w + l
	}
	return unsafe.String(j.textData, n)
}

// setText makes t, which holds fields text fields, the job's text.
func (j *job) setText(t string, fields int) {
	j.textData = nil
	if fields > 0 {
		j.textData = unsafe.StringData(t)
	}
	j.flags = j.flags&^textFieldsMask | jobFlags(fields)<<textFieldsShift
}

// field returns the packed form of text field f.
func (j *job) field(f textField) string {
	t := j.text()
	for g := textField(0); len(t) > 0; g++ {
		n, w := fieldLen(t)
		if g == f {
			return t[w : w+n]
		}
		t = t[w+n:]
	}
	return ""
}

// fieldLen reads the length that starts a field of t: the length and its own width.
func fieldLen(t string) (int, int) {
	if t[0] < 0x80 {
		return int(t[0]), 1
	}
	n, w := binary.Uvarint([]byte(t[:min(len(t), binary.MaxVarintLen32)]))
	return int(n), w
}

// setField replaces text field f with the packed form of v. The new text is one allocation; the
// old one becomes garbage (a job's text changes a handful of times in its life).
func (j *job) setField(f textField, v []byte, scratch []byte) []byte {
	scratch = packText(scratch[:0], v)
	j.setPacked(f, scratch, numTextFields, nil)
	return scratch
}

// setParties sets the two party fields of a job in one allocation.
func (j *job) setParties(users, contracts []byte, scratch []byte) []byte {
	scratch = packText(scratch[:0], users)
	n := len(scratch)
	scratch = packText(scratch, contracts)
	j.setPacked(fieldUsers, scratch[:n], fieldContracts, scratch[n:])
	return scratch
}

// setPacked replaces field f with the packed p, and field g (unless numTextFields) with q.
func (j *job) setPacked(f textField, p []byte, g textField, q []byte) {
	var fields [numTextFields]string
	t := j.text()
	for k := textField(0); len(t) > 0; k++ {
		n, w := fieldLen(t)
		fields[k], t = t[w:w+n], t[w+n:]
	}
	size, last := 0, -1
	for k := range fields {
		n := len(fields[k])
		switch textField(k) {
		case f:
			n = len(p)
		case g:
			n = len(q)
		}
		if n > 0 {
			last = k
		}
		size += n + uvarintLen(n)
	}
	var b strings.Builder
	b.Grow(size)
	var lb [binary.MaxVarintLen64]byte
	for k := range last + 1 {
		switch textField(k) {
		case f:
			b.Write(binary.AppendUvarint(lb[:0], uint64(len(p))))
			b.Write(p)
		case g:
			b.Write(binary.AppendUvarint(lb[:0], uint64(len(q))))
			b.Write(q)
		default:
			b.Write(binary.AppendUvarint(lb[:0], uint64(len(fields[k]))))
			b.WriteString(fields[k])
		}
	}
	j.setText(b.String(), last+1)
}

func uvarintLen(n int) int {
	w := 1
	for ; n >= 0x80; n >>= 7 {
		w++
	}
	return w
}

// setContentHash sets the job's content hash: as 32 bytes when it is 64 lowercase hex digits,
// as domain.ContentHash makes it, otherwise as a text field.
func (j *job) setContentHash(h []byte, scratch []byte) []byte {
	if raw, ok := hashBytesOf(h); ok {
		j.hash = raw
		j.flags |= flagHash
		return scratch
	}
	return j.setField(fieldContentHash, h, scratch)
}

// hashBytesOf returns the 32 bytes that h, 64 lowercase hex digits, stands for; false for any
// other h.
func hashBytesOf[S ~string | ~[]byte](h S) (raw [32]byte, ok bool) {
	if len(h) != 2*len(raw) {
		return raw, false
	}
	for i := range raw {
		hi, lo := lowerHex[h[2*i]], lowerHex[h[2*i+1]]
		if hi == notHex || lo == notHex {
			return raw, false
		}
		raw[i] = hi<<4 | lo
	}
	return raw, true
}

// appendContentHash appends the job's content hash as it was given.
func (j *job) appendContentHash(b []byte) []byte {
	if j.flags&flagHash != 0 {
		return hex.AppendEncode(b, j.hash[:])
	}
	return unpackText(b, j.field(fieldContentHash))
}

// chunkBits sets the size of a job chunk (4096 jobs). Jobs live in fixed chunks rather than one
// growing slice, so that adding a job never copies the table (a copy of a million 128-byte
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
// job was retired is released, and the id index shrinks once it holds few enough. Jobs end and
// retire roughly in order of acceptance, so a relayer whose retention keeps pace holds the
// chunks of its horizon only.
type jobTable struct {
	chunks [][]job
	// retiredIn counts the retired jobs of each chunk; a chunk whose count reaches chunkSize is
	// released (chunks[c] becomes nil).
	retiredIn []int32
	n         int32
	// dead counts the slots of retired jobs (see retire.go).
	dead  int32
	index idIndex
	// endedTexts gathers the texts of the jobs that ended, by kind (see endedTexts).
	endedTexts [numKinds]endedTexts
	// vacant is what at returns for an index in a released chunk: a job that is gone (kind
	// zero). Callers only read it (the walks over every index): no queue, timer or lookup holds
	// an index of a released chunk.
	vacant job
}

func newJobTable() jobTable {
	return jobTable{index: idIndex{seed: maphash.MakeSeed()}, vacant: job{slot: -1, timer: -1}}
}

func (t *jobTable) at(i int32) *job {
	c := t.chunks[i>>chunkBits]
	if c == nil {
		return &t.vacant
	}
	return &c[i&chunkMask]
}

func (t *jobTable) lookup(id domain.JobID) (int32, *job, bool) {
	i, ok := t.index.find(t, id)
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
	j := t.at(i)
	j.id = id
	j.slot, j.timer = -1, -1
	t.index.insert(t, i)
	return i, j
}

// retire frees job i, which waits in no queue and has no timer: its record is zeroed (kind
// zero: gone), its id leaves the index, and its chunk is released once every job in it is
// retired.
func (t *jobTable) retire(i int32) {
	t.index.remove(t, i)
	j := t.at(i)
	*j = job{id: j.id, slot: -1, timer: -1}
	t.dead++
	c := i >> chunkBits
	if t.retiredIn[c]++; t.retiredIn[c] == chunkSize {
		t.chunks[c] = nil
	}
}

// idIndex finds a job's index by its id: an open-addressing hash table (linear probing) of
// job indices, 4 bytes a slot at a load of 3/8 to 3/4, that keeps no copy of the ids (it
// compares with the job records), where a map from id to index would cost some 35 bytes a job.
// The hash is seeded per process, as a map's, so that ids chosen to collide cannot make long
// probe runs.
type idIndex struct {
	seed maphash.Seed
	// slots hold index+1 of a job, 0 when empty; their number is a power of two (or none).
	slots []int32
	n     int
}

// minIndexSlots is the smallest table the index keeps once it has grown.
const minIndexSlots = 1024

func (x *idIndex) home(id domain.JobID) int {
	return int(maphash.Bytes(x.seed, id[:])) & (len(x.slots) - 1)
}

func (x *idIndex) find(t *jobTable, id domain.JobID) (int32, bool) {
	if len(x.slots) == 0 {
		return -1, false
	}
	mask := len(x.slots) - 1
	for p := x.home(id); ; p = (p + 1) & mask {
		s := x.slots[p]
		if s == 0 {
			return -1, false
		}
		if t.at(s-1).id == id {
			return s - 1, true
		}
	}
}

// insert adds job i, whose id the index does not hold.
func (x *idIndex) insert(t *jobTable, i int32) {
	if 4*(x.n+1) > 3*len(x.slots) {
		x.resize(t, max(2*len(x.slots), minIndexSlots))
	}
	x.place(t.at(i).id, i)
	x.n++
}

func (x *idIndex) place(id domain.JobID, i int32) {
	mask := len(x.slots) - 1
	p := x.home(id)
	for x.slots[p] != 0 {
		p = (p + 1) & mask
	}
	x.slots[p] = i + 1
}

// remove takes job i, which the index holds, out of it: the slots after it in its probe run
// move back (no tombstones), and the table shrinks once it is an eighth full.
func (x *idIndex) remove(t *jobTable, i int32) {
	mask := len(x.slots) - 1
	p := x.home(t.at(i).id)
	for x.slots[p] != i+1 {
		p = (p + 1) & mask
	}
	for q := (p + 1) & mask; x.slots[q] != 0; q = (q + 1) & mask {
		// The job at q may move to the hole at p unless its home lies cyclically in (p, q].
		if h := x.home(t.at(x.slots[q] - 1).id); (q-h)&mask >= (q-p)&mask {
			x.slots[p], p = x.slots[q], q
		}
	}
	x.slots[p] = 0
	if x.n--; len(x.slots) > minIndexSlots && 8*x.n < len(x.slots) {
		x.resize(t, len(x.slots)/2)
	}
}

func (x *idIndex) resize(t *jobTable, size int) {
	old := x.slots
	x.slots = make([]int32, size)
	for _, s := range old {
		if s != 0 {
			x.place(t.at(s-1).id, s-1)
		}
	}
}

// len is how many jobs the index holds.
func (x *idIndex) len() int { return x.n }

// ended takes note that job i ended: its text will not change again.
func (t *jobTable) ended(i int32) {
	j := t.at(i)
	text := j.text()
	if text == "" {
		return
	}
	e := &t.endedTexts[j.kind.Ordinal()]
	e.jobs = append(e.jobs, i)
	if e.bytes += len(text); e.bytes >= endedBlock {
		e.flush(t)
	}
}

// endedTexts gathers the texts of jobs that ended, which never change again, and once they add
// up to endedBlock bytes copies them back to back into one string that the jobs' texts become
// substrings of: an ended job's text then costs its length, where an allocation of its own
// costs the allocator's size class for it (some 20 bytes more a job). The block is freed once
// every job in it has retired; the blocks are by kind because each kind retires after a window
// of its own, so that a block's jobs retire at about the same time.
type endedTexts struct {
	jobs  []int32
	bytes int
}

// endedBlock is the size of the blocks of ended jobs' texts (some four thousand jobs): large
// enough that rounding a block up to whole pages costs a job less than a byte.
const endedBlock = 1 << 20

func (e *endedTexts) flush(t *jobTable) {
	var b strings.Builder
	b.Grow(e.bytes)
	for _, i := range e.jobs {
		b.WriteString(t.at(i).text()) // "" for a job retired since
	}
	block := b.String()
	for _, i := range e.jobs {
		j := t.at(i)
		if n := len(j.text()); n > 0 {
			j.setText(block[:n], int(j.flags>>textFieldsShift))
			block = block[n:]
		}
	}
	e.jobs, e.bytes = e.jobs[:0], 0
}
