package projections

import (
	"strings"

	"relayer/domain"
)

// The gateway requests the read models know, for the responses listeners of a fleet's keys: the
// gateway's response logs are one stream for every key, and each key's engine reads them all. A
// response whose request another key's job made, or whose job has ended, is not this engine's to
// keep waiting for its receipt (which it would, holding its block cursor back, until the
// responses' time to live).
//
// requests holds the jobs in receipt_received by their gateway request; ended the last
// maxEndedRequests requests whose jobs left receipt_received, oldest first in endedRing. A
// request is keyed by its kind's family and its id in the jobs' packed text form: a piece of the
// job's text while it waits, a copy once it ended (a piece would keep the whole text in memory
// after the job's text moved to a block of ended texts, jobTable.ended).
type requestKey struct {
	family domain.Kind
	id     string
}

// maxEndedRequests bounds the requests remembered after their jobs ended (a late share of a
// user decrypt past its threshold comes seconds after the job ended, not a day).
const maxEndedRequests = 1 << 16

type requestIndex struct {
	requests  map[requestKey]domain.JobID
	ended     map[requestKey]struct{}
	endedRing []requestKey
	next      int
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
	key.id = strings.Clone(id) // not a piece of the job's text, which it would keep in memory
	if x.ended == nil {
		x.ended = map[requestKey]struct{}{}
	}
	if len(x.endedRing) < maxEndedRequests {
		x.endedRing = append(x.endedRing, key)
	} else {
		delete(x.ended, x.endedRing[x.next])
		x.endedRing[x.next] = key
		x.next = (x.next + 1) % maxEndedRequests
	}
	x.ended[key] = struct{}{}
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
	_, ended = s.reqs.ended[key]
	return domain.JobID{}, false, ended
}
