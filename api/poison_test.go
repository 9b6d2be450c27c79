package api

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
)

// poison appends m to the poison stream, as a worker does, and waits until the projections
// have passed it (they skip it, but their checkpoint moves on). It returns the record's position.
func (e *opEnv) poison(m domain.MessagePoisoned) eventstore.Position {
	e.t.Helper()
	return appendTo(e.t, e.store, e.set, domain.PoisonStream, eventstore.Any, m)
}

// poisonOf is a poisoned message about the event at pos of job id's stream (no job when id is
// the zero JobID).
func (e *opEnv) poisonOf(id domain.JobID, typ string, pos eventstore.Position, n int) domain.MessagePoisoned {
	m := domain.MessagePoisoned{Topic: "events." + typ, Handler: "handler-" + typ,
		Reason: fmt.Sprintf("gave up (%d):\nsecond line \"quoted\"", n), Type: typ, Position: uint64(pos),
		MessageID: fmt.Sprintf("msg-%d", n), At: e.now().At}
	if !id.IsZero() {
		m.Stream = id.Stream()
	}
	return m
}

// wantPoisoned is the data a poison event of m must carry.
func wantPoisoned(m domain.MessagePoisoned) Poisoned {
	p := Poisoned{Topic: m.Topic, Handler: m.Handler, Reason: m.Reason, EventType: m.Type,
		Position: m.Position, MessageID: m.MessageID, At: m.At}
	if id, ok := domain.JobIDFromStream(m.Stream); ok {
		p.JobID = id.String()
	}
	return p
}

// event returns the next event the stream sends, skipping comments and the retry hint.
func (s *opStream) event() opSSEEvent {
	s.t.Helper()
	for {
		ev, ok := s.next(5 * time.Second)
		if !ok {
			s.t.Fatal("the stream ended")
		}
		if ev.Comment == "" && ev.Event != "" {
			return ev
		}
	}
}

// opPoisonEvent decodes a poison event, checking its name and that it is one line of JSON.
func opPoisonEvent(t *testing.T, ev opSSEEvent) Poisoned {
	t.Helper()
	return opEventData[Poisoned](t, ev, "poison")
}

func samePoisoned(t *testing.T, got, want Poisoned) {
	t.Helper()
	if !got.At.Equal(want.At) {
		t.Fatalf("poison at %s, want %s", got.At, want.At)
	}
	got.At, want.At = time.Time{}, time.Time{}
	if got != want {
		t.Fatalf("poison data:\ngot  %+v\nwant %+v", got, want)
	}
}

func TestAPoisonedMessageComesOnTheTransitionsStreamInLogOrderWithItsPositionAsID(t *testing.T) {
	env := startOps(t, opsTuning{})
	st := env.openStream("/v1/transitions")
	if ev, _ := st.next(5 * time.Second); ev.Retry == "" {
		t.Fatalf("the stream opens with %+v, want a retry hint", ev)
	}

	start := env.head()
	a := env.accept(domain.PublicDecrypt, 1)
	accepted := env.head()
	m := env.poisonOf(a, "RequestAccepted", accepted, 1)
	at := env.poison(m)
	env.toProcessing(a, domain.PublicDecrypt)

	if ev := st.event(); ev.Event != "transition" || ev.ID != fmt.Sprint(accepted) {
		t.Fatalf("first %+v, want the acceptance at %d", ev, accepted)
	}
	ev := st.event()
	samePoisoned(t, opPoisonEvent(t, ev), wantPoisoned(m))
	if ev.ID != fmt.Sprint(at) {
		t.Fatalf("poison id %s, want the poison record's position %d", ev.ID, at)
	}
	// Then the job's transitions after it, From and all: the stream saw the acceptance.
	live := env.opExpected(start, nil)[1:]
	opSameTransitions(t, "live, after the poison event", live, st.transitions(len(live)))
	st.quiet(100 * time.Millisecond)
	st.close()

	// Resumed after the poison event: what follows it, and not it again.
	after := env.openStream("/v1/transitions", "Last-Event-ID", fmt.Sprint(at))
	want := env.opExpected(at, nil)
	opSameTransitions(t, "after the poison event", want, after.transitions(len(want)))
	after.quiet(100 * time.Millisecond)

	// Resumed just before it: it comes first.
	before := env.openStream("/v1/transitions", "Last-Event-ID", fmt.Sprint(at-1))
	ev = before.event()
	samePoisoned(t, opPoisonEvent(t, ev), wantPoisoned(m))
	opSameTransitions(t, "before the poison event", want, before.transitions(len(want)))
	before.quiet(100 * time.Millisecond)
}

func TestPoisonEventsPassTheStatusFilterAndTheKindFilterUnlessTheirJobIsOfAnotherKind(t *testing.T) {
	env := startOps(t, opsTuning{})
	pub := env.accept(domain.PublicDecrypt, 1)
	pubAt := env.head()
	usr := env.accept(domain.UserDecrypt, 2)
	usrAt := env.head()
	pPub := env.poison(env.poisonOf(pub, "RequestAccepted", pubAt, 1))
	pUsr := env.poison(env.poisonOf(usr, "RequestAccepted", usrAt, 2))
	pNone := env.poison(env.poisonOf(domain.JobID{}, "", 0, 3))                     // no job: a gateway response, say
	pLost := env.poison(env.poisonOf(domain.NewJobID(), "RequestAccepted", 999, 4)) // a job nobody knows

	for _, c := range []struct {
		query string
		want  []eventstore.Position // the ids sent, in order
	}{
		{"", []eventstore.Position{pubAt, usrAt, pPub, pUsr, pNone, pLost}},
		{"kind=user-decrypt", []eventstore.Position{usrAt, pUsr, pNone, pLost}},
		{"kind=public-decrypt&status=queued", []eventstore.Position{pubAt, pPub, pNone, pLost}},
		{"status=completed", []eventstore.Position{pPub, pUsr, pNone, pLost}},
		{"poison=false", []eventstore.Position{pubAt, usrAt}},
		{"poison=true&kind=input-proof", []eventstore.Position{pNone, pLost}},
		// Started after both acceptances: the kinds come from the projections.
		{fmt.Sprintf("after=%d&kind=user-decrypt", usrAt), []eventstore.Position{pUsr, pNone, pLost}},
	} {
		t.Run(c.query, func(t *testing.T) {
			st := env.openStream("/v1/transitions?from=0&" + c.query)
			for _, want := range c.want {
				ev := st.event()
				if ev.ID != fmt.Sprint(want) {
					t.Fatalf("event %s %s: %s, want id %d", ev.Event, ev.ID, ev.Data, want)
				}
				if wantName := map[bool]string{true: "poison", false: "transition"}[want >= pPub]; ev.Event != wantName {
					t.Fatalf("event %s at %s, want %s", ev.Event, ev.ID, wantName)
				}
			}
			st.quiet(100 * time.Millisecond)
		})
	}

	env.wantBadFlag("poison")
}

// The projections must not see poisoned messages nor upstream rate limits: a log with poison and
// rate-limit records builds, live and rebuilt (with either decoder), the same read models as the
// same log without them.
func TestPoisonAndRateLimitRecordsLeaveTheProjectionsAndTheirRebuildsUnchanged(t *testing.T) {
	env := startOps(t, opsTuning{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for n, k := range []domain.Kind{domain.InputProof, domain.PublicDecrypt, domain.UserDecrypt} {
		id := env.accept(k, n)
		env.poison(env.poisonOf(id, "RequestAccepted", env.head(), n))
		env.toProcessing(id, k)
		env.rateLimit(domain.RateLimitEncountered{RateLimitCall: domain.RateLimitCall{Source: "https://rpc.example.com",
			Attempt: 1, Class: "rate_limited", Status: 429, At: env.now().At}},
			domain.RateLimitRecovered{RateLimitCall: domain.RateLimitCall{Source: "https://rpc.example.com",
				Attempt: 2, Class: "ok", Status: 200, At: env.now().At}})
		env.toReceipt(id, n)
		env.poison(env.poisonOf(id, "ReceiptRecorded", env.head(), 10+n))
		if n != 1 {
			env.complete(id, k)
		}
	}
	env.poison(env.poisonOf(domain.JobID{}, "", 0, 99))

	live, err := env.set.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, full := range []bool{false, true} {
		rebuilt, _, err := projections.Rebuild(ctx, env.store, projections.Config{FullDecode: full})
		if err != nil {
			t.Fatalf("rebuild (full decode %v) over poison and rate-limit records: %v", full, err)
		}
		snap, err := rebuilt.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(live, snap) {
			t.Fatalf("full decode %v: the rebuilt snapshot differs from the live one", full)
		}
	}

	// The same log without its poison and rate-limit records (the others keep their positions).
	without, err := projections.New(projections.Config{})
	if err != nil {
		t.Fatal(err)
	}
	codec := projections.NewCodec()
	poisons, limits := 0, 0
	for rec, err := range env.store.ReadAll(ctx, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if rec.Stream == domain.PoisonStream || rec.Stream == domain.RateLimitStream {
			if _, err := codec.Decode(rec); err != nil {
				t.Fatalf("the codec cannot read a %s record: %v", rec.Stream, err)
			}
			if rec.Stream == domain.PoisonStream {
				poisons++
			} else {
				limits++
			}
			continue
		}
		e, err := projections.DecodeEvent(codec, rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := without.Apply(rec, e); err != nil {
			t.Fatal(err)
		}
	}
	if poisons != 7 || limits != 6 {
		t.Fatalf("%d poison and %d rate-limit records in the log, want 7 and 6", poisons, limits)
	}
	snap, err := without.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// Only the checkpoint and the count of events applied may differ.
	models := func(b []byte) []byte { return b[bytes.Index(b, []byte(`"config"`)):] }
	if !bytes.Equal(models(live), models(snap)) {
		t.Fatal("the poison or rate-limit records changed a read model")
	}
	if env.set.Events() != without.Events()+uint64(poisons+limits) {
		t.Fatalf("%d events applied with the poison and rate-limit records, %d without", env.set.Events(), without.Events())
	}
}
