package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
)

// opPosition parses an SSE id.
func opPosition(t *testing.T, id string) eventstore.Position {
	t.Helper()
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil {
		t.Fatalf("id %q: %v", id, err)
	}
	return eventstore.Position(n)
}

func TestTheTransitionsStreamDeliversTransitionsLiveInOrderWithTheirPositionsAsIDs(t *testing.T) {
	env := startOps(t, opsTuning{})
	env.lifecycle(domain.InputProof, 0) // before the stream opens: not sent
	start := env.head()

	st := env.openStream("/v1/transitions")
	first, _ := st.next(5 * time.Second)
	if first.Retry == "" {
		t.Fatalf("the stream opens with %+v, want a retry hint", first)
	}
	if got := st.res.Header.Get("Cache-Control"); got != "no-cache" {
		t.Fatalf("Cache-Control %q", got)
	}

	early := env.accept(domain.UserDecrypt, 1)
	time.Sleep(50 * time.Millisecond)
	a := env.accept(domain.PublicDecrypt, 2)
	env.toProcessing(a, domain.PublicDecrypt)
	ip := env.accept(domain.InputProof, 3)
	env.toProcessing(early, domain.UserDecrypt)
	env.toReceipt(a, 2)
	env.complete(a, domain.PublicDecrypt)
	env.run(ip, domain.Fail{At: env.now(), Label: domain.LabelInternalServerError, Message: "boom"})

	want := env.opExpected(start, nil)
	if len(want) != 9 {
		t.Fatalf("the test's history has %d transitions, want 9", len(want))
	}
	got := st.transitions(len(want))
	opSameTransitions(t, "live", want, got)
	if got[0].From != "" || got[2].From != "queued" || got[len(got)-1].Label != domain.LabelInternalServerError {
		t.Fatalf("from/label: %+v", got)
	}
	st.quiet(100 * time.Millisecond)
}

func TestAStreamStartedBeforeAJobsAcceptanceStillKnowsItsKindAndFrom(t *testing.T) {
	env := startOps(t, opsTuning{})
	old := env.accept(domain.PublicDecrypt, 1)
	after := env.head()
	st := env.openStream(fmt.Sprintf("/v1/transitions?from=%d&kind=public-decrypt", after))
	env.toProcessing(old, domain.PublicDecrypt)
	env.toReceipt(old, 1)
	got := st.transitions(3)
	want := env.opExpected(after, nil)
	opSameTransitions(t, "mid-life", want, got)
	if got[0].Kind != "public-decrypt" || got[0].From != "" || got[1].From != "processing" {
		t.Fatalf("%+v", got)
	}
}

func TestTheTransitionsStreamFiltersByKindAndStatus(t *testing.T) {
	env := startOps(t, opsTuning{})
	for n, k := range []domain.Kind{domain.InputProof, domain.PublicDecrypt, domain.UserDecrypt, domain.PublicDecrypt} {
		env.lifecycle(k, n)
	}
	failed := env.accept(domain.PublicDecrypt, 9)
	env.run(failed, domain.FailReadiness{At: env.now(), Label: domain.LabelNotAllowedOnHostACL})

	cases := []struct {
		query string
		keep  func(kind, to string) bool
	}{
		{"kind=public-decrypt", func(k, _ string) bool { return k == "public-decrypt" }},
		{"status=completed,failure", func(_, to string) bool { return to == "completed" || to == "failure" }},
		{"kind=input-proof&kind=user-decrypt&status=processing", func(k, to string) bool {
			return (k == "input-proof" || k == "user-decrypt") && to == "processing"
		}},
		{"kind=public-decrypt,%20user-decrypt&status=tx_in_flight,,queued", func(k, to string) bool {
			return k != "input-proof" && (to == "tx_in_flight" || to == "queued")
		}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			want := env.opExpected(0, c.keep)
			st := env.openStream("/v1/transitions?from=0&" + c.query)
			got := st.transitions(len(want))
			opSameTransitions(t, c.query, want, got)
			st.quiet(100 * time.Millisecond)
		})
	}
}

func TestTheTransitionsStreamRefusesUnknownFiltersAndPositionsWith400NamingTheParameter(t *testing.T) {
	env := startOps(t, opsTuning{})
	cases := []struct {
		query, header, field string
	}{
		{"?kind=input-proof,bogus", "", "kind"},
		{"?status=done", "", "status"},
		{"?from=-1", "", "from"},
		{"?after=x", "", "after"},
		{"", "12abc", "Last-Event-ID"},
	}
	for _, c := range cases {
		var header []string
		if c.header != "" {
			header = []string{"Last-Event-ID", c.header}
		}
		code, h, body := env.get("/v1/transitions"+c.query, header...)
		var got Envelope
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatalf("%s: %v: %s", c.query, err, body)
		}
		if code != http.StatusBadRequest || !strings.HasPrefix(h.Get("Content-Type"), "application/json") ||
			got.Error == nil || got.Error.Label != domain.LabelValidationFailed ||
			len(got.Error.Details) != 1 || got.Error.Details[0].Field != c.field {
			t.Fatalf("%s %s: %d %s", c.query, c.header, code, body)
		}
	}
}

func TestAResumedStreamYieldsExactlyTheTransitionsAfterLastEventID(t *testing.T) {
	env := startOps(t, opsTuning{})
	for n := range 4 {
		env.lifecycle(domain.Kinds()[n%3], n)
	}
	all := env.opExpected(0, nil)

	st := env.openStream("/v1/transitions?from=0")
	got := st.transitions(len(all))
	opSameTransitions(t, "from 0", all, got)
	st.close()

	for _, cut := range []int{0, 5, len(all) - 1} {
		last := got[cut].ID
		resumed := env.openStream("/v1/transitions?from=0", "Last-Event-ID", last) // the header wins
		// Some more history while the resumed stream runs: it must follow on with no gap.
		id := env.accept(domain.PublicDecrypt, 100+cut)
		env.toProcessing(id, domain.PublicDecrypt)

		// What a stream that starts after last must send, from the whole log: every later
		// transition, with from where that stream can know it.
		tail := env.opExpected(opPosition(t, last), nil)
		rgot := resumed.transitions(len(tail))
		opSameTransitions(t, "after "+last, tail, rgot)
		resumed.quiet(100 * time.Millisecond)
		resumed.close()
	}

	// ?after= is the same as Last-Event-ID for clients that cannot set headers.
	mid := got[3].ID
	byQuery := env.openStream("/v1/transitions?after=" + mid)
	want := env.opExpected(opPosition(t, mid), nil)
	opSameTransitions(t, "after="+mid, want, byQuery.transitions(len(want)))
}

func TestAnIdleStreamSendsHeartbeats(t *testing.T) {
	env := startOps(t, opsTuning{heartbeat: 30 * time.Millisecond})
	st := env.openStream("/v1/transitions")
	beats := 0
	for beats < 3 {
		ev, ok := st.next(2 * time.Second)
		if !ok {
			t.Fatal("the stream ended")
		}
		if ev.Comment == "heartbeat" {
			beats++
		} else if ev.Retry == "" {
			t.Fatalf("unexpected %+v", ev)
		}
	}
	// Heartbeats do not get in the way of events.
	id := env.accept(domain.InputProof, 1)
	if tr := st.transitions(1); tr[0].JobID != id.String() || tr[0].To != "processing" {
		t.Fatalf("%+v", tr)
	}
}

func TestTheStreamHandlerReturnsWhenTheClientDisconnects(t *testing.T) {
	env := startOps(t, opsTuning{heartbeat: time.Hour})
	for i := range 3 {
		st := env.openStream("/v1/transitions?from=0")
		if ev, _ := st.next(5 * time.Second); ev.Retry == "" {
			t.Fatalf("no retry hint: %+v", ev)
		}
		if i == 1 {
			env.accept(domain.PublicDecrypt, i)
			st.transitions(1)
		}
		st.close()
		select {
		case <-env.streamEnded:
		case <-time.After(5 * time.Second):
			t.Fatal("the stream's handler did not return after the client disconnected")
		}
	}
}

func TestTheStreamEndsCleanlyWhenTheServerShutsDown(t *testing.T) {
	env := startOps(t, opsTuning{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- env.srv.Serve(ctx, ln) }()

	st := opOpenStream(t, "http://"+ln.Addr().String()+"/v1/transitions")
	if ev, _ := st.next(5 * time.Second); ev.Retry == "" {
		t.Fatalf("no retry hint: %+v", ev)
	}
	env.accept(domain.InputProof, 1)
	st.transitions(1)

	cancel()
	deadline := time.After(5 * time.Second)
	for ended := false; !ended; {
		select {
		case ev, ok := <-st.events:
			if !ok {
				ended = true
			} else if ev.Event != "" {
				t.Fatalf("unexpected %+v", ev)
			}
		case <-deadline:
			t.Fatal("the stream did not end when the server shut down")
		}
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return: a stream held the shutdown up")
	}
}

func TestTheStreamEndsWhenTheStoreCloses(t *testing.T) {
	store := opOpenStore(t)
	set, err := projections.New(projections.Config{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(t.Context(), opConfig(), Deps{Store: store, Projections: set})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	st := opOpenStream(t, ts.URL+"/v1/transitions?from=0")
	if ev, _ := st.next(5 * time.Second); ev.Retry == "" {
		t.Fatalf("no retry hint: %+v", ev)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-st.events:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the stream did not end when its store closed")
		}
	}
}

func TestAHeadOfTheStreamAnswersHeadersOnly(t *testing.T) {
	env := startOps(t, opsTuning{})
	res, err := http.Head(env.ts.URL + "/v1/transitions")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("%d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
}
