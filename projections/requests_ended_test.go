package projections

import (
	"math/rand/v2"
	"testing"

	"relayer/domain"
)

// TestTheEndedRequestsAnswerAsTheMapTheyReplaced adds requests, many of them again, past the
// ring's size, and checks after each that the set holds what a map that each add sets and each
// overwrite of the ring deletes would hold.
func TestTheEndedRequestsAnswerAsTheMapTheyReplaced(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var set endedRequests
	model := map[endedKey]bool{}
	var ring []endedKey
	next := 0
	key := func(n int) endedKey {
		return endedKeyOf(requestKey{domain.UserDecrypt, string(packText(nil, []byte{byte(n), byte(n >> 8), byte(n >> 16)}))})
	}
	for i := range 3 * maxEndedRequests {
		k := key(r.IntN(2 * maxEndedRequests))
		set.add(k)
		if len(ring) < maxEndedRequests {
			ring = append(ring, k)
		} else {
			delete(model, ring[next])
			ring[next], next = k, (next+1)%maxEndedRequests
		}
		model[k] = true
		probe := []int{r.IntN(2 * maxEndedRequests), r.IntN(2 * maxEndedRequests)}
		if i%(maxEndedRequests/2) == 0 {
			probe = probe[:0]
			for n := range 2 * maxEndedRequests {
				probe = append(probe, n)
			}
		}
		for _, n := range probe {
			if k := key(n); set.contains(k) != model[k] {
				t.Fatalf("after %d adds: request %d ended %v, want %v", i+1, n, set.contains(k), model[k])
			}
		}
	}
	if key(1) == endedKeyOf(requestKey{domain.PublicDecrypt, string(packText(nil, []byte{1, 0, 0}))}) {
		t.Fatal("a request's key does not depend on its family")
	}
}
