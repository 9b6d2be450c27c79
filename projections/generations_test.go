package projections

import (
	"fmt"
	"testing"
	"time"

	"relayer/domain"
)

// Generations finds the first generation of a content the read models hold neither as a job nor
// as a retired id, whatever the count: a content whose jobs failed thousands of times is looked
// up in a few dozen probes, and retired generations count as taken.
func TestGenerationsIsTheFirstGenerationNotHeldOrRetired(t *testing.T) {
	h := newHarness(t, Config{})
	hash := fmt.Sprintf("%064x", 99)
	req := domain.Request{PublicDecrypt: &domain.PublicDecryptRequest{CiphertextHandles: []string{"0x03"}, ExtraData: "0x00"}}
	if n := h.s.Generations(hash); n != 0 {
		t.Fatalf("no job yet: %d generations, want 0", n)
	}
	checks := map[uint32]bool{1: true, 2: true, 3: true, 4: true, 5: true, 63: true, 64: true, 65: true, 1000: true, 4097: true}
	for g := uint32(0); g < 4097; g++ {
		id := domain.JobIDFor(hash, g)
		h.do(id, domain.Accept{At: h.at(time.Duration(g) * time.Millisecond), JobID: id, Request: req, ContentHash: hash})
		h.do(id, domain.Fail{At: h.at(time.Duration(g)*time.Millisecond + 1), Label: "internal_error"})
		if g%7 == 3 {
			if err := h.retire(id); err != nil {
				t.Fatal(err)
			}
		}
		if checks[g+1] {
			if n := h.s.Generations(hash); n != g+1 {
				t.Fatalf("generations 0 to %d held (every seventh retired): Generations says %d", g, n)
			}
		}
	}
	if n := h.s.Generations(fmt.Sprintf("%064x", 100)); n != 0 {
		t.Fatalf("another content: %d generations, want 0", n)
	}
}
