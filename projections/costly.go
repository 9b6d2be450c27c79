package projections

import (
	"time"

	"relayer/domain"
)

// costlyFailures is what the read models keep of a content whose jobs ended without a result
// after their transaction was sent: how many did, and when the last of them ended (unix ns).
type costlyFailures struct {
	n    uint32
	last int64
}

// costlyEnd tells whether job j, ended, ended without a result after its transaction was sent:
// a failure that cost a transaction (see ContentBackoff).
func costlyEnd(j *job) bool {
	return EndedWithoutResult(j.status) && j.enteredAt(domain.TxInFlight) != 0
}

// noteCostly counts job j's costly end at at (unix ns) for its content. Under mu.
func (s *Set) noteCostly(j *job, at int64) {
	if s.costly == nil {
		s.costly = map[string]costlyFailures{}
	}
	var buf [64]byte
	hash := string(j.appendContentHash(buf[:0]))
	c := s.costly[hash]
	c.n++
	c.last = max(c.last, at)
	s.costly[hash] = c
}

// forgetCostly takes job j's costly end out of its content's count, as j is retired: the read
// models count the jobs they hold, as a rebuild from the live log would. The last end stays the
// latest seen: were the latest costly job retired before older ones of its content (retirement
// goes by age, so it is not), a rebuild would find an earlier one. Under mu.
func (s *Set) forgetCostly(j *job) {
	var buf [64]byte
	hash := j.appendContentHash(buf[:0])
	c, ok := s.costly[string(hash)]
	switch {
	case !ok:
	case c.n <= 1:
		delete(s.costly, string(hash))
	default:
		c.n--
		s.costly[string(hash)] = c
	}
}

// CostlyFailures is how many jobs of content hash ended without a result after their
// transaction was sent, among the jobs the read models hold, and when the last of them ended
// (zero when none did).
func (s *Set) CostlyFailures(hash string) (uint32, time.Time) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c, ok := s.costly[hash]
	if !ok {
		return 0, time.Time{}
	}
	return c.n, time.Unix(0, c.last)
}
