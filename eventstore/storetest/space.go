package storetest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"

	"relayer/eventstore"
)

func spaceCases() []testCase {
	return []testCase{
		{name: "the size a store reports grows with what is appended, and the room left is known or -1", run: testSpaceGrows},
	}
}

func testSpaceGrows(t *testing.T, s *suite) {
	ctx := s.ctx(t)
	st := s.fresh(t)
	sr := offers[eventstore.SpaceReporter](t, st, "report its space")
	before, err := sr.Space(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const n, size = 5, 200 << 10
	for i := range n {
		// Random hex: nothing a store's compression could shrink.
		b := make([]byte, size/2)
		_, _ = rand.Read(b)
		big := eventstore.Event{Type: "big", SchemaVersion: 1, Data: json.RawMessage(`"` + hex.EncodeToString(b) + `"`)}
		mustAppend(t, ctx, st, fmt.Sprintf("space-%d", i), eventstore.NoStream, big)
	}
	after, err := sr.Space(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if before.Size < 0 || after.Size < before.Size+n*size {
		t.Errorf("size %d before and %d after appending %d bytes: want it to grow", before.Size, after.Size, n*size)
	}
	if after.Free < -1 || (after.Free == 0 && before.Free == 0) {
		t.Errorf("room left %d then %d: want the filesystem's, or -1 when the store cannot tell", before.Free, after.Free)
	}
}
