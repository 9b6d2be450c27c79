package api

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

// Events of a signing key's stream (the balance guard's, the nonce corrections) come on the
// transitions stream as "signer" events, in the log's order, with the key and the event as the
// log holds it; they pass the job filters, and signer=false leaves them out.
func TestSignerEventsComeOnTheTransitionsStreamAndSignerFalseLeavesThemOut(t *testing.T) {
	env := startOps(t, opsTuning{})
	env.accept(domain.PublicDecrypt, 1)
	accepted := env.head()

	key := "0x51A0c906F2A6F0820C4A54D4C7745C85f8f26861"
	fix := domain.NonceCorrected{Address: key, Action: "skipped", From: 4, To: 7, Pending: 7,
		Reason: "another sender used the key", At: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)}
	signer := appendTo(t, env.store, env.set, domain.SignerStream(key), eventstore.NoStream, fix)

	st := env.openStream("/v1/transitions?from=0&kind=input-proof")
	ev := st.event()
	if ev.Event != "signer" || ev.ID != fmt.Sprint(signer) {
		t.Fatalf("first event with kind=input-proof: %+v, want the signer event at %d", ev, signer)
	}
	got := opEventData[Signer](t, ev, "signer")
	var back domain.NonceCorrected
	if err := json.Unmarshal(got.Event, &back); err != nil {
		t.Fatal(err)
	}
	if got.Address != strings.ToLower(key) || got.EventType != "NonceCorrected" || got.Position != uint64(signer) ||
		back.Action != fix.Action || back.From != fix.From || back.To != fix.To || back.Reason != fix.Reason || !back.At.Equal(fix.At) {
		t.Fatalf("signer data %+v (event %+v), want the key %s's NonceCorrected %+v at %d", got, back, key, fix, signer)
	}
	st.quiet(100 * time.Millisecond)

	st = env.openStream("/v1/transitions?from=0&signer=false")
	if ev := st.event(); ev.ID != fmt.Sprint(accepted) {
		t.Fatalf("signer=false: %+v, want the acceptance at %d", ev, accepted)
	}
	st.quiet(100 * time.Millisecond)

	env.wantBadFlag("signer")
}
