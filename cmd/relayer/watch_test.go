package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"relayer/api"
	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/projections/projectionstest"
)

// wEnv is the real API server over a real SQLite store and projections, on loopback HTTP. It
// counts the /v1/transitions requests it received (so a test knows when watch is connected).
type wEnv struct {
	t       *testing.T
	store   eventstore.Store
	set     *projections.Set
	exec    *projections.Executor
	handler http.Handler
	ts      *httptest.Server
	streams atomic.Int64
	// h gives the commands' times and runs them.
	h *projectionstest.Harness
}

func startWatchEnv(t *testing.T) *wEnv {
	t.Helper()
	h := projectionstest.New(t, projections.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	// The audit endpoints closed, as on a production relayer: watch sends the operator token
	// it finds in RELAYER_OPERATOR_TOKEN.
	cfg := api.DefaultConfig()
	cfg.OperatorToken = "operator-token-of-the-watch-tests-0123"
	t.Setenv("RELAYER_OPERATOR_TOKEN", cfg.OperatorToken)
	srv, err := api.New(ctx, cfg, api.Deps{Store: h.Store, Projections: h.Set})
	if err != nil {
		t.Fatal(err)
	}
	e := &wEnv{t: t, store: h.Store, set: h.Set, exec: h.Exec, h: h}
	hd := srv.Handler()
	e.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/transitions" {
			e.streams.Add(1)
		}
		hd.ServeHTTP(w, r)
	})
	e.ts = httptest.NewServer(e.handler)
	t.Cleanup(func() {
		e.ts.CloseClientConnections()
		e.ts.Close()
		cancel()
	})
	return e
}

func (e *wEnv) now() domain.At { return e.h.At() }

func (e *wEnv) run(id domain.JobID, cmds ...domain.Command) {
	e.t.Helper()
	e.h.Run(e.t, id, cmds...)
}

// job accepts a new job of kind k (input-proof or public-decrypt) and takes it to processing.
func (e *wEnv) job(k domain.Kind, n int) domain.JobID {
	e.t.Helper()
	id := domain.NewJobID()
	var req domain.Request
	if k == domain.InputProof {
		addr := fmt.Sprintf("0x%040x", n+1)
		req = domain.Request{InputProof: &domain.InputProofRequest{ContractChainID: 1337, ContractAddress: addr,
			UserAddress: addr, Ciphertext: fmt.Sprintf("0a%08x", n), ExtraData: "0x00"}}
	} else {
		req = domain.Request{PublicDecrypt: &domain.PublicDecryptRequest{
			CiphertextHandles: []string{fmt.Sprintf("0x%064x", n+1)}, ExtraData: "0x00"}}
	}
	e.run(id, domain.Accept{At: e.now(), JobID: id, Request: req, ContentHash: domain.ContentHash(req)})
	if k.NeedsReadiness() {
		e.run(id, domain.StartReadiness{At: e.now()}, domain.PassReadiness{At: e.now()})
	}
	return id
}

// finish signs a transaction for a job in processing, then fails it or completes it.
func (e *wEnv) finish(id domain.JobID, k domain.Kind, n int, fail bool) {
	e.t.Helper()
	tx := fmt.Sprintf("0x%064x", 1000+n)
	e.run(id, domain.SignTransaction{At: e.now(), From: "0x" + strings.Repeat("9", 40), Nonce: uint64(n), TxHash: tx, RawTx: "0x02f8"})
	if fail {
		e.run(id, domain.Fail{At: e.now(), Label: domain.LabelInternalServerError, Message: "boom"})
		return
	}
	e.run(id, domain.RecordReceipt{At: e.now(), TxHash: tx, BlockNumber: 7, GatewayRequestID: fmt.Sprint(n + 1)})
	if k == domain.InputProof {
		e.run(id, domain.Complete{At: e.now(), Result: domain.Result{InputProof: &domain.InputProofResult{
			Accepted: true, Handles: []string{"0x01"}, Signatures: []string{"0x02"}, ExtraData: "0x00"}}})
	} else {
		e.run(id, domain.Complete{At: e.now(), Result: domain.Result{PublicDecrypt: &domain.PublicDecryptResult{
			DecryptedValue: "0x2a", Signatures: []string{"0x03"}, ExtraData: "0x00"}}})
	}
}

// history runs a few jobs of both kinds, one failing, from n on.
func (e *wEnv) history(n int) {
	e.t.Helper()
	a := e.job(domain.PublicDecrypt, n)
	b := e.job(domain.InputProof, n+1)
	e.finish(a, domain.PublicDecrypt, n, false)
	e.finish(b, domain.InputProof, n+1, true)
}

func (e *wEnv) head() uint64 {
	e.t.Helper()
	h, err := e.store.Head(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return uint64(h)
}

// expected reads the store's whole log and returns, in order, the transitions after position
// after that keep lets through, as the stream should deliver them (From is left out: it depends
// on what the stream has seen).
func (e *wEnv) expected(after uint64, keep func(kind, to string) bool) []api.Transition {
	e.t.Helper()
	var out []api.Transition
	for _, t := range projectionstest.Transitions(e.t, e.store) {
		if uint64(t.Rec.Position) <= after {
			continue
		}
		tr := api.Transition{JobID: t.Job.String(), Kind: t.Kind.String(), To: t.To.String(), EventType: t.Rec.Type,
			At: t.Event.Header().At, Position: uint64(t.Rec.Position), Label: domain.LabelOf(t.Event)}
		if keep == nil || keep(tr.Kind, tr.To) {
			out = append(out, tr)
		}
	}
	return out
}

// startWatch runs `relayer watch` with args until the test ends (or stop is called).
func startWatch(t *testing.T, args ...string) (stdout, stderr *syncBuffer, stop func() error) {
	t.Helper()
	stdout, stderr = &syncBuffer{}, &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"watch"}, args...), stdout, stderr) }()
	stopped := false
	var result error
	stop = func() error {
		if stopped {
			return result
		}
		stopped = true
		cancel()
		select {
		case result = <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("watch did not stop within 5 s of its context ending")
		}
		return result
	}
	t.Cleanup(func() { _ = stop() })
	return stdout, stderr, stop
}

// waitFor polls cond until it holds or 30 s pass (generous for a loaded CI machine).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func outputLines(b *syncBuffer) []string {
	s := strings.TrimRight(b.String(), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// waitLines waits until watch printed n lines and returns them.
func waitLines(t *testing.T, out, errOut *syncBuffer, n int) []string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		lines := outputLines(out)
		if len(lines) >= n {
			return lines
		}
		if time.Now().After(deadline) {
			t.Fatalf("watch printed %d lines, want %d:\n%s\nstderr:\n%s", len(lines), n, out, errOut)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkHuman checks human lines against the expected transitions, field by field.
func checkHuman(t *testing.T, lines []string, want []api.Transition) {
	t.Helper()
	if len(lines) != len(want) {
		t.Fatalf("watch printed %d lines, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i, w := range want {
		f := strings.Split(lines[i], "  ")
		wantFields := []string{w.At.UTC().Format("2006-01-02T15:04:05.000Z07:00"), strconv.FormatUint(w.Position, 10),
			w.JobID, w.Kind, "", w.EventType}
		if w.Label != "" {
			wantFields = append(wantFields, w.Label)
		}
		if len(f) != len(wantFields) {
			t.Fatalf("line %d %q has %d fields, want %d", i, lines[i], len(f), len(wantFields))
		}
		for j, wf := range wantFields {
			if j == 4 {
				if !strings.HasSuffix(f[j], " -> "+w.To) {
					t.Fatalf("line %d %q: transition %q does not end in -> %s", i, lines[i], f[j], w.To)
				}
				continue
			}
			if f[j] != wf {
				t.Fatalf("line %d %q: field %d is %q, want %q", i, lines[i], j, f[j], wf)
			}
		}
	}
}

func TestWatchPrintsEveryTransitionFromAPositionInOrderWithItsFields(t *testing.T) {
	env := startWatchEnv(t)
	env.history(0)
	mid := env.head()
	env.history(2)
	stdout, stderr, _ := startWatch(t, "--url", env.ts.URL, "--from", "0")
	want := env.expected(0, nil)
	lines := waitLines(t, stdout, stderr, len(want))
	checkHuman(t, lines, want)
	if got := strings.Split(lines[0], "  ")[4]; got != "- -> "+want[0].To {
		t.Fatalf("an acceptance shows %q, want no from status", got)
	}

	// --from starts after the position.
	stdout2, stderr2, _ := startWatch(t, "--url", env.ts.URL, "--from", strconv.FormatUint(mid, 10))
	want2 := env.expected(mid, nil)
	if len(want2) == 0 || len(want2) >= len(want) {
		t.Fatalf("the test's history is wrong: %d then %d", len(want), len(want2))
	}
	checkHuman(t, waitLines(t, stdout2, stderr2, len(want2)), want2)

	// Live transitions follow, and nothing is printed twice.
	env.history(4)
	want = env.expected(0, nil)
	checkHuman(t, waitLines(t, stdout, stderr, len(want)), want)
}

func TestWatchStartsLiveOnlyByDefault(t *testing.T) {
	env := startWatchEnv(t)
	env.history(0)
	start := env.head()
	stdout, stderr, _ := startWatch(t, "--url", env.ts.URL+"/")
	waitFor(t, "watch to open the stream", func() bool { return env.streams.Load() >= 1 })
	env.history(2)
	want := env.expected(start, nil)
	checkHuman(t, waitLines(t, stdout, stderr, len(want)), want)
}

func TestWatchPassesTheKindAndStatusFiltersThrough(t *testing.T) {
	env := startWatchEnv(t)
	env.history(0)
	env.history(2)
	stdout, stderr, _ := startWatch(t, "--url", env.ts.URL, "--from", "0", "--kind", "public-decrypt")
	want := env.expected(0, func(k, _ string) bool { return k == "public-decrypt" })
	checkHuman(t, waitLines(t, stdout, stderr, len(want)), want)

	stdout, stderr, _ = startWatch(t, "--url", env.ts.URL, "--from", "0", "--status", "completed,failure")
	want = env.expected(0, func(_, to string) bool { return to == "completed" || to == "failure" })
	checkHuman(t, waitLines(t, stdout, stderr, len(want)), want)
}

func TestWatchWithJSONPrintsTheDataLinesAsReceived(t *testing.T) {
	env := startWatchEnv(t)
	env.history(0)
	stdout, stderr, _ := startWatch(t, "--url", env.ts.URL, "--from", "0", "--json")
	want := env.expected(0, nil)
	lines := waitLines(t, stdout, stderr, len(want))
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(lines), len(want))
	}
	for i, l := range lines {
		var got api.Transition
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatalf("line %d %q is not JSON: %v", i, l, err)
		}
		w := want[i]
		if got.Position != w.Position || got.JobID != w.JobID || got.Kind != w.Kind || got.To != w.To ||
			got.EventType != w.EventType || !got.At.Equal(w.At) || got.Label != w.Label {
			t.Fatalf("line %d is %+v, want %+v", i, got, w)
		}
		if !strings.Contains(l, `"jobId":`) || !strings.Contains(l, `"version":`) || strings.Contains(l, "data:") {
			t.Fatalf("line %d %q is not the data line", i, l)
		}
	}
}

func TestWatchResumesAfterADroppedConnectionWithoutDuplicatesOrGaps(t *testing.T) {
	env := startWatchEnv(t)
	target, _ := url.Parse(env.ts.URL)
	proxy := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target) },
		FlushInterval: -1,
	})
	t.Cleanup(proxy.Close)
	env.history(0)
	stdout, stderr, _ := startWatch(t, "--url", proxy.URL, "--from", "0")
	first := env.expected(0, nil)
	waitLines(t, stdout, stderr, len(first))

	// Sever every connection and write more while watch is away.
	proxy.CloseClientConnections()
	env.history(2)
	waitFor(t, "watch to notice the drop", func() bool { return strings.Contains(stderr.String(), "retrying in") })
	env.history(4)
	if !strings.Contains(stderr.String(), "resuming after position "+strconv.FormatUint(first[len(first)-1].Position, 10)) {
		t.Fatalf("the notice does not say where watch resumes:\n%s", stderr)
	}
	want := env.expected(0, nil)
	lines := waitLines(t, stdout, stderr, len(want))
	checkHuman(t, lines, want)
	if n := env.streams.Load(); n < 2 {
		t.Fatalf("the server saw %d stream requests, want a reconnection", n)
	}

	// A second drop, mid-stream, with a burst after it.
	proxy.CloseClientConnections()
	env.history(6)
	want = env.expected(0, nil)
	checkHuman(t, waitLines(t, stdout, stderr, len(want)), want)
}

func TestWatchKeepsRetryingUntilTheServerStartsAndSaysSoEachTime(t *testing.T) {
	env := startWatchEnv(t)
	env.history(0)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	stdout, stderr, _ := startWatch(t, "--url", "http://"+addr, "--from", "0", "--retry-delay", "20ms")
	waitFor(t, "two notices", func() bool { return strings.Count(stderr.String(), "cannot reach") >= 2 })
	if !strings.Contains(stderr.String(), "retrying in") {
		t.Fatalf("stderr:\n%s", stderr)
	}
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	late := &httptest.Server{Listener: ln, Config: &http.Server{Handler: env.handler}}
	late.Start()
	t.Cleanup(func() { late.CloseClientConnections(); late.Close() })
	want := env.expected(0, nil)
	checkHuman(t, waitLines(t, stdout, stderr, len(want)), want)
}

func TestWatchExitsWithTheServersMessageWhenTheServerRefusesTheStream(t *testing.T) {
	env := startWatchEnv(t)
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := run(ctx, []string{"watch", "--url", env.ts.URL, "--kind", "input-proof,bogus"}, &stdout, &stderr)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("err %v, want exit 1", err)
	}
	if !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), `unknown kind "bogus"`) {
		t.Fatalf("the error does not carry the server's message: %v", err)
	}
}

func TestWatchRefusesBadFlagsWithExitCode2(t *testing.T) {
	for _, args := range [][]string{
		{"--bogus"},
		{"--from", "-1"},
		{"--from", "x"},
		{"--url", "ftp://127.0.0.1:1"},
		{"--url", "127.0.0.1:8080"},
		{"extra"},
		{"--json=maybe"},
		{"--retry-delay", "0s"},
		{"--retry-delay", "1m"},
	} {
		var stdout, stderr syncBuffer
		err := run(context.Background(), append([]string{"watch"}, args...), &stdout, &stderr)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 {
			t.Fatalf("watch %v: err %v, want exit 2", args, err)
		}
		if stdout.String() != "" {
			t.Fatalf("watch %v printed %q", args, stdout.String())
		}
	}
}

func TestWatchStopsQuietlyWhenItsContextEnds(t *testing.T) {
	env := startWatchEnv(t)
	_, stderr, stop := startWatch(t, "--url", env.ts.URL)
	waitFor(t, "watch to open the stream", func() bool { return env.streams.Load() >= 1 })
	if err := stop(); err != nil {
		t.Fatalf("watch: %v\n%s", err, stderr)
	}
}

func TestTheWatchSSEParserJoinsDataLinesSkipsCommentsAndReadsRetry(t *testing.T) {
	var p sseParser
	var got []sseEvent
	for _, l := range []string{"retry: 1500", "", ": heartbeat", "", "id: 7", "event: transition", "data: a", "data:b", "", "data", "", "id: x\x00", ""} {
		if ev, ok := p.line(l); ok {
			got = append(got, ev)
		}
	}
	if p.retry != 1500*time.Millisecond {
		t.Fatalf("retry %s", p.retry)
	}
	if len(got) != 2 || got[0].id != 7 || !got[0].hasID || got[0].event != "transition" || got[0].data != "a\nb" ||
		got[1].hasID || got[1].event != "message" || got[1].data != "" {
		t.Fatalf("%+v", got)
	}
}

// A signing key's event (a nonce correction) is printed on one line with the key, its type and
// its fields; --signer=false leaves it out.
func TestWatchPrintsSignerEventsUnlessSignerIsFalse(t *testing.T) {
	env := startWatchEnv(t)
	key := "0x51a0c906f2a6f0820c4a54d4c7745c85f8f26861"
	enc, err := projections.NewCodec().Encode(domain.NonceCorrected{Address: key, Action: "resent", Nonces: []uint64{5, 6}, Pending: 5,
		Reason: "the node held none of these transactions", At: env.h.Clock.Now()}, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	pos, err := env.store.Append(context.Background(), domain.SignerStream(key), eventstore.NoStream, enc)
	if err != nil {
		t.Fatal(err)
	}
	env.history(0)
	stdout, stderr, _ := startWatch(t, "--url", env.ts.URL, "--from", "0")
	want := env.expected(0, nil)
	lines := waitLines(t, stdout, stderr, len(want)+1)
	wantLine := fmt.Sprintf("2026-05-01T09:00:00.000Z  %d  signer %s  NonceCorrected action=resent nonces=[5,6] pending=5 reason=%q",
		pos, key, "the node held none of these transactions")
	if lines[0] != wantLine {
		t.Fatalf("first line %q, want %q", lines[0], wantLine)
	}
	checkHuman(t, lines[1:], want)

	stdout2, stderr2, _ := startWatch(t, "--url", env.ts.URL, "--from", "0", "--signer=false")
	checkHuman(t, waitLines(t, stdout2, stderr2, len(want)), want)
}

// No message of watch shows the password of the --url's user part (found by an outside probe).
func TestWatchShowsNoPasswordOfItsURL(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there
	_, stderr, _ := startWatch(t, "--url", "http://user:WatchSecret@"+addr, "--from", "0", "--retry-delay", "20ms")
	waitFor(t, "two notices", func() bool { return strings.Count(stderr.String(), "cannot reach") >= 2 })
	if strings.Contains(stderr.String(), "WatchSecret") || !strings.Contains(stderr.String(), "user:xxxxx@") {
		t.Fatalf("stderr shows the password, or not the redacted URL:\n%s", stderr)
	}
	var out, errOut syncBuffer
	err = run(context.Background(), []string{"watch", "--url", "ftp://user:WatchSecret@" + addr}, &out, &errOut)
	if err == nil || strings.Contains(err.Error()+errOut.String(), "WatchSecret") {
		t.Fatalf("a refused --url: %v, %s; want an error without the password", err, errOut.String())
	}
}

// A stream that starts below the jobs retired to the archive begins with an "archived" event:
// watch notes it on its standard error, once, and prints the transitions the stream has.
func TestWatchNotesThatRetiredJobsAreInTheArchive(t *testing.T) {
	env := startWatchEnv(t)
	env.history(0)
	upTo := env.head()
	ev, err := projections.NewCodec().Encode(domain.JobsRetired{UpTo: upTo, At: env.now().At}, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	pos, err := env.store.Append(context.Background(), domain.RetentionStream, eventstore.NoStream, ev)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.set.WaitFor(context.Background(), pos); err != nil {
		t.Fatal(err)
	}
	env.history(2)
	stdout, stderr, _ := startWatch(t, "--url", env.ts.URL, "--from", "0")
	want := env.expected(0, nil)
	checkHuman(t, waitLines(t, stdout, stderr, len(want)), want)
	note := fmt.Sprintf("note: the transitions of the jobs retired at or below position %d are in the archive", upTo)
	if n := strings.Count(stderr.String(), note); n != 1 {
		t.Fatalf("the note appears %d times on standard error, want once:\n%s", n, stderr.String())
	}
	if strings.Contains(stdout.String(), "archived") {
		t.Fatalf("the note went to standard output:\n%s", stdout.String())
	}
}
