package api

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	"relayer/projections/projectionstest"
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
		{"kind=public-decrypt,%20user-decrypt&status=tx_in_flight,%20queued", func(k, to string) bool {
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
		{"?kind=input-proof,,", "", "kind"},
		{"?kind=", "", "kind"},
		{"?status=done", "", "status"},
		{"?status=queued&status=", "", "status"},
		{"?kinds=input-proof", "", "kinds"},
		{"?poison=false&replay=1", "", "replay"},
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
	s := serveLoopback(t, env.srv)

	st := opOpenStream(t, s.base+"/v1/transitions")
	if ev, _ := st.next(5 * time.Second); ev.Retry == "" {
		t.Fatalf("no retry hint: %+v", ev)
	}
	env.accept(domain.InputProof, 1)
	st.transitions(1)

	s.stop()
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
	s.returned(t, "a stream held the shutdown up")
}

func TestTheStreamEndsWhenTheStoreCloses(t *testing.T) {
	store := projectionstest.OpenStore(t)
	srv := opServer(t, Deps{Store: store})
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

// A client that stops reading loses its stream, and the stream's slot, at the first write that
// cannot finish within api.stream_write_timeout. The stuck client here is a real TCP connection
// with a tiny receive buffer that reads the stream's head and then nothing; the log then gets
// more than every socket buffer between them can hold. The slot is watched through
// max_streams_per_client = 1: a second stream from the same address is refused while the stuck
// one holds the slot, and accepted once the deadline has ended it.
//
// Without the per-write deadline nothing would end that stream: the test server has no
// http.Server WriteTimeout (and streams clear it anyway), the client keeps its connection open
// and the heartbeat is a write too, so the handler would block in Write for as long as the
// connection lives and the second stream would be refused until the test gives up. (Checked on
// a copy of the tree with sse.go's SetWriteDeadline calls removed: this test then fails.)
func TestAStreamWhoseClientStopsReadingIsClosedAtTheWriteTimeoutAndFreesItsSlot(t *testing.T) {
	const writeTimeout = time.Second
	env := startJT(t, func(c *Config) {
		c.Streams = StreamsConfig{MaxOpen: 16, MaxPerClient: 1, WriteTimeout: writeTimeout}
	})
	secondStream := func() int {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, env.ts.URL+"/v1/transitions", nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close() // a stream that opened ends here: it has served its purpose
		return res.StatusCode
	}

	conn, err := net.Dial("tcp", env.ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.(*net.TCPConn).SetReadBuffer(1024); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, "GET /v1/transitions HTTP/1.1\r\nHost: relayer\r\nAccept: text/event-stream\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	rd := bufio.NewReader(conn)
	res, err := http.ReadResponse(rd, nil)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("the stuck client's stream did not open: %v %v", res, err)
	}
	body := bufio.NewReader(res.Body)
	if line, err := body.ReadString('\n'); err != nil || !strings.HasPrefix(line, "retry: ") {
		t.Fatalf("the stream's head: %q %v", line, err)
	}
	if code := secondStream(); code != http.StatusTooManyRequests {
		t.Fatalf("a second stream while the first is open: %d, want 429 (max_streams_per_client 1)", code)
	}

	// Some 7.5 MB of events, in one append: big poison records (a reason of 60 KiB each) fill
	// the socket buffers (the kernel's grow to a few MB) far faster than thousands of jobs would.
	reason := strings.Repeat("x", 60<<10)
	codec := projections.NewCodec()
	var evs []eventstore.Event
	for i := range 128 {
		ev, err := codec.Encode(domain.MessagePoisoned{Topic: "events.test", Handler: "stuck-client", Reason: reason,
			MessageID: fmt.Sprintf("msg-%d", i), At: env.clock.Now()}, eventstore.Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := env.store.Append(ctx, domain.PoisonStream, eventstore.Any, evs...); err != nil {
		t.Fatal(err)
	}
	appended := time.Now()
	if code := secondStream(); code != http.StatusTooManyRequests {
		t.Fatalf("right after the append, before any write could time out: %d, want 429", code)
	}

	// The slot comes back within the write timeout and a margin (the server first writes until
	// the buffers are full; then one write waits its timeout).
	limit := appended.Add(writeTimeout + 4*time.Second)
	for {
		code := secondStream()
		if code == http.StatusOK {
			break
		}
		if code != http.StatusTooManyRequests {
			t.Fatalf("a second stream: %d", code)
		}
		if time.Now().After(limit) {
			t.Fatalf("the stuck stream still holds its slot %s after the events were appended (write timeout %s)",
				time.Since(appended).Round(time.Millisecond), writeTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("slot released %s after the append", time.Since(appended).Round(time.Millisecond))
}
