package projections

import "relayer/domain"

// QueueMembers returns the jobs waiting in queue q, front to back: the order in which workers
// pick them up. Recovery at start re-dispatches them in this order.
func (s *Set) QueueMembers(q Queue) []domain.JobID {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if q == NotQueued || q >= numQueues {
		return nil
	}
	out := make([]domain.JobID, 0, s.queues[q].len())
	s.queues[q].each(func(i int32) { out = append(out, s.jobs.at(i).id) })
	return out
}

// QueueFront returns the first n jobs waiting in queue q, front to back: the i-th has i jobs ahead
// of it. It reads no further than the n-th, however long the queue.
func (s *Set) QueueFront(q Queue, n int) []Job {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if q == NotQueued || q >= numQueues || n <= 0 {
		return nil
	}
	out := make([]Job, 0, min(n, s.queues[q].len()))
	s.queues[q].first(n, func(i int32) { out = append(out, s.jobView(s.jobs.at(i))) })
	return out
}

// InStatus returns every job whose current status is st, in order of acceptance. It walks every
// job the projections hold: for recovery at start, not for requests.
func (s *Set) InStatus(st domain.Status) []Job {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []Job
	for i := int32(0); i < s.jobs.n; i++ {
		if j := s.jobs.at(i); j.status == st {
			out = append(out, s.jobView(j))
		}
	}
	return out
}
