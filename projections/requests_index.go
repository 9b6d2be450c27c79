package projections

import (
	"crypto/sha256"
	"encoding/binary"

	"relayer/domain"
)

// The gateway requests the read models know, for the responses listeners of a fleet's keys: the
// gateway's response logs are one stream for every key, and each key's engine reads them all. A
// response whose request another key's job made, or whose job has ended, is not this engine's to
// keep waiting for its receipt (which it would, holding its block cursor back, until the
// responses' time to live).
//
// requests holds the jobs in receipt_received by their gateway request, keyed by its kind's
// family and its id in the jobs' packed text form (a piece of the job's text while it waits);
// ended the last maxEndedRequests requests whose jobs left receipt_received (see endedRequests).
type requestKey struct {
	family domain.Kind
	id     string
}

// maxEndedRequests bounds the requests remembered after their jobs ended (a late share of a
// user decrypt past its threshold comes seconds after the job ended, not a day).
const maxEndedRequests = 1 << 16

type requestIndex struct {
	requests map[requestKey]domain.JobID
	ended    endedRequests
}

// awaiting records that job waits for the responses of its gateway request id (packed).
func (x *requestIndex) awaiting(k domain.Kind, id string, job domain.JobID) {
	if x.requests == nil {
		x.requests = map[requestKey]domain.JobID{}
	}
	x.requests[requestKey{k.Family(), id}] = job
}

// left records that a job of kind k left receipt_received with gateway request id (packed).
func (x *requestIndex) left(k domain.Kind, id string) {
	key := requestKey{k.Family(), id}
	if _, ok := x.requests[key]; !ok {
		return
	}
	delete(x.requests, key)
	x.ended.add(endedKeyOf(key))
}

// endedKey stands for a requestKey: the first 128 bits of the SHA-256 of its family's ordinal
// and its packed id. Two requests of the ring share a key with a probability below
// 2^32/2^128 = 2^-96 (a birthday bound over the ring's 2^16 entries), and a request looked up
// matches one it is not with a probability below 2^16/2^128 = 2^-112, so a false "ended" is
// negligible; and SHA-256 is not a hash whose collisions an id's author could choose.
type endedKey [16]byte

func endedKeyOf(key requestKey) endedKey {
	var buf [64]byte // on the stack for every id of a realistic length
	b := append(append(buf[:0], byte(key.family.Ordinal())), key.id...)
	sum := sha256.Sum256(b)
	return endedKey(sum[:16])
}

// endedRequests is the set of the last maxEndedRequests requests whose jobs ended: a ring of
// their keys in the order they ended (the oldest is overwritten), and an open-addressing hash
// set (linear probing, no tombstones) of ring places that finds a key in the ring. It costs
// 16 bytes a request in the ring and 8 in the set (1.5 MB when full), where the map of cloned
// ids and the ring of them it replaces held some 190 (12.5 MB).
//
// It answers as a map from key to nothing would that each add sets and each overwrite of the
// ring deletes: a key added again while in the set adds a ring entry but no set entry, and the
// first of its ring entries to be overwritten takes it out of the set.
type endedRequests struct {
	ring []endedKey
	next int // the ring place overwritten next, once the ring is full
	// slots hold a ring place+1, 0 when empty; endedSlots of them.
	slots []uint32
}

// endedSlots keeps the set at most half full.
const endedSlots = 2 * maxEndedRequests

func (e *endedRequests) home(k endedKey) int {
	return int(binary.LittleEndian.Uint64(k[:8]) & (endedSlots - 1))
}

// find returns the set slot that holds k, or the empty slot where k would go and false.
func (e *endedRequests) find(k endedKey) (int, bool) {
	for p := e.home(k); ; p = (p + 1) & (endedSlots - 1) {
		s := e.slots[p]
		if s == 0 {
			return p, false
		}
		if e.ring[s-1] == k {
			return p, true
		}
	}
}

func (e *endedRequests) contains(k endedKey) bool {
	if e.slots == nil {
		return false
	}
	_, ok := e.find(k)
	return ok
}

func (e *endedRequests) add(k endedKey) {
	if e.slots == nil {
		e.slots = make([]uint32, endedSlots)
		e.ring = make([]endedKey, 0, maxEndedRequests)
	}
	place := len(e.ring)
	if place < maxEndedRequests {
		e.ring = append(e.ring, k)
	} else {
		place = e.next
		if p, ok := e.find(e.ring[place]); ok {
			e.remove(p)
		}
		e.ring[place] = k
		e.next = (e.next + 1) % maxEndedRequests
	}
	if p, ok := e.find(k); !ok {
		e.slots[p] = uint32(place) + 1
	}
}

// remove empties set slot p: the slots after it in its probe run move back.
func (e *endedRequests) remove(p int) {
	const mask = endedSlots - 1
	for q := (p + 1) & mask; e.slots[q] != 0; q = (q + 1) & mask {
		// The key at q may move to the hole at p unless its home lies cyclically in (p, q].
		if h := e.home(e.ring[e.slots[q]-1]); (q-h)&mask >= (q-p)&mask {
			e.slots[p], p = e.slots[q], q
		}
	}
	e.slots[p] = 0
}

// GatewayRequest tells what the read models know of the gateway request id of kind k (any kind
// of its family): the job waiting for its responses (awaiting), or that its job has ended (ended,
// among the last requests that did).
func (s *Set) GatewayRequest(k domain.Kind, id string) (job domain.JobID, awaiting, ended bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	key := requestKey{k.Family(), string(packText(nil, []byte(id)))}
	if job, ok := s.reqs.requests[key]; ok {
		return job, true, false
	}
	return domain.JobID{}, false, s.reqs.ended.contains(endedKeyOf(key))
}
