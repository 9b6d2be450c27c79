package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
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
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	enc, err := projections.NewCodec().Encode(fix, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	signer, err := env.store.Append(ctx, domain.SignerStream(key), eventstore.NoStream, enc)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.set.WaitFor(ctx, signer); err != nil {
		t.Fatal(err)
	}

	st := env.openStream("/v1/transitions?from=0&kind=input-proof")
	ev := st.event()
	if ev.Event != "signer" || ev.ID != fmt.Sprint(signer) {
		t.Fatalf("first event with kind=input-proof: %+v, want the signer event at %d", ev, signer)
	}
	var got Signer
	dec := json.NewDecoder(bytes.NewReader([]byte(ev.Data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("signer data %q: %v", ev.Data, err)
	}
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

	code, _, body := env.get("/v1/transitions?signer=maybe")
	var e Envelope
	if err := json.Unmarshal(body, &e); err != nil || code != http.StatusBadRequest || e.Error == nil ||
		len(e.Error.Details) != 1 || e.Error.Details[0].Field != "signer" {
		t.Fatalf("signer=maybe: %d %s", code, body)
	}
}
