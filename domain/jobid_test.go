package domain

import (
	"testing"

	"github.com/google/uuid"
)

func TestJobIDsDerivedFromAContentHashAreStableAndDistinctPerGeneration(t *testing.T) {
	h1 := ContentHash(Request{PublicDecrypt: &PublicDecryptRequest{CiphertextHandles: []string{"0x" + "ab"}, ExtraData: "0x00"}})
	h2 := ContentHash(Request{PublicDecrypt: &PublicDecryptRequest{CiphertextHandles: []string{"0x" + "cd"}, ExtraData: "0x00"}})
	if JobIDFor(h1, 0) != JobIDFor(h1, 0) {
		t.Fatal("the same hash and generation derived two ids")
	}
	seen := map[JobID]string{}
	for _, h := range []string{h1, h2} {
		for g := range uint32(50) {
			id := JobIDFor(h, g)
			if prev, dup := seen[id]; dup {
				t.Fatalf("%s generation %d derived the id of %s", h, g, prev)
			}
			seen[id] = h
			if v := uuid.UUID(id).Version(); v != 5 {
				t.Fatalf("a derived id is a version %d UUID, want 5 (name-based)", v)
			}
			if back, err := ParseJobID(id.String()); err != nil || back != id {
				t.Fatalf("%s does not parse back: %v", id, err)
			}
		}
	}
	// Pinned, so that the derivation cannot change under a running deployment's jobs.
	if got := JobIDFor("00", 0).String(); got != pinnedJobID {
		t.Fatalf("JobIDFor(\"00\", 0) = %s, want %s", got, pinnedJobID)
	}
}

const pinnedJobID = "e955d30e-d21f-5af3-a9d9-a3798500c752"
