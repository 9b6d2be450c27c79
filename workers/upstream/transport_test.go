package upstream

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

const (
	rpcRequest = `{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0x02f8b1"]}`
	rpcResult  = `{"jsonrpc":"2.0","id":1,"result":"0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060"}`
	rpcLimited = `{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"limit exceeded"}}`
)

// rpcServer answers each request with the next of its steps (the last one repeats) and records
// the request bodies.
type rpcServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
	steps  []http.HandlerFunc
}

func newRPCServer(t *testing.T, steps ...http.HandlerFunc) *rpcServer {
	t.Helper()
	s := &rpcServer{steps: steps}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, string(b))
		i := len(s.bodies) - 1
		s.mu.Unlock()
		s.steps[min(i, len(s.steps)-1)](w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *rpcServer) Bodies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

// respond answers with status, body and headers given as name, value pairs.
func respond(status int, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Add(headers[i], headers[i+1])
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// transportConfig: server waits become hint + 100ms (maxRand draws the whole BaseDelay), own
// backoff after attempt n is 100ms x 2^(n-1) for server errors and 1s x 2^(n-1) for rate limits.
var transportConfig = Config{MaxAttempts: 4, BaseDelay: 100 * time.Millisecond, RateLimitBaseDelay: time.Second,
	MaxDelay: 10 * time.Second}

type harness struct {
	clock  *fakeClock
	sink   *recordingSink
	tr     *Transport
	client *http.Client
}

func newHarness(t *testing.T, cfg Config, base http.RoundTripper, opts ...Option) *harness {
	t.Helper()
	h := &harness{clock: newFakeClock(), sink: &recordingSink{}}
	if base == nil {
		ht := &http.Transport{}
		t.Cleanup(ht.CloseIdleConnections)
		base = ht
	}
	opts = append([]Option{WithClock(h.clock), WithSink(h.sink), WithRand(maxRand{})}, opts...)
	tr, err := NewTransport(base, cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	h.tr = tr
	h.client = &http.Client{Transport: tr}
	return h
}

func (h *harness) post(t *testing.T, target, body string) (*http.Response, string, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return h.do(req)
}

func (h *harness) do(req *http.Request) (*http.Response, string, error) {
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

func TestEveryFormOfServerWaitIsHonouredBeforeTheRetryThatSucceeds(t *testing.T) {
	at := t0.Add(7 * time.Second)
	cases := []struct {
		name     string
		headers  []string
		wait     time.Duration
		waitFrom string
	}{
		{"Retry-After in seconds", []string{"Retry-After", "7"}, 7 * time.Second, HeaderRetryAfter},
		{"Retry-After as an IMF-fixdate", []string{"Retry-After", at.Format("Mon, 02 Jan 2006 15:04:05 GMT")}, 7 * time.Second, HeaderRetryAfter},
		{"Retry-After as an RFC 850 date", []string{"Retry-After", at.Format("Monday, 02-Jan-06 15:04:05 GMT")}, 7 * time.Second, HeaderRetryAfter},
		{"Retry-After as an asctime date", []string{"Retry-After", at.Format("Mon Jan _2 15:04:05 2006")}, 7 * time.Second, HeaderRetryAfter},
		{"Retry-After as a date in the past", []string{"Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT"}, 0, HeaderRetryAfter},
		{"RateLimit with RateLimit-Policy", []string{"RateLimit-Policy", `"default";q=100;w=60`, "RateLimit", `"default";r=0;t=7`}, 7 * time.Second, HeaderRateLimit},
		{"RateLimit in the draft 07 form", []string{"RateLimit", "limit=100, remaining=0, reset=7"}, 7 * time.Second, HeaderRateLimit},
		{"the RateLimit-Reset trio", []string{"RateLimit-Limit", "100", "RateLimit-Remaining", "0", "RateLimit-Reset", "7"}, 7 * time.Second, HeaderRateLimitTrio},
		{"X-RateLimit-Reset as an epoch", []string{"X-RateLimit-Limit", "100", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", strconv.FormatInt(at.Unix(), 10)}, 7 * time.Second, HeaderXRateLimit},
		{"X-RateLimit-Reset as a delta", []string{"X-RateLimit-Limit", "100", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "7"}, 7 * time.Second, HeaderXRateLimit},
		{"Retry-After over X-RateLimit-Reset", []string{"Retry-After", "7", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "60"}, 7 * time.Second, HeaderRetryAfter},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newRPCServer(t, respond(429, `{"error":"slow down"}`, c.headers...), respond(200, rpcResult))
			h := newHarness(t, transportConfig, nil)
			resp, body, err := h.post(t, srv.URL, rpcRequest)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != 200 || body != rpcResult {
				t.Fatalf("got %d %q", resp.StatusCode, body)
			}
			want := []time.Duration{c.wait + 100*time.Millisecond}
			if !slices.Equal(h.clock.Sleeps(), want) {
				t.Fatalf("sleeps %v, want %v", h.clock.Sleeps(), want)
			}
			if bodies := srv.Bodies(); len(bodies) != 2 || bodies[0] != rpcRequest || bodies[1] != rpcRequest {
				t.Fatalf("the request body was not replayed intact: %q", bodies)
			}
			wantTypes := []EventType{RateLimitEncountered, RateLimitBackoff, RateLimitRecovered}
			if !slices.Equal(h.sink.Types(), wantTypes) {
				t.Fatalf("events %v, want %v", h.sink.Types(), wantTypes)
			}
			ev := h.sink.Events()
			if enc := ev[0]; enc.WaitFrom != c.waitFrom || enc.Wait != c.wait || !enc.ServerWait || enc.StatusCode != 429 ||
				enc.Source != SourceName(mustParse(t, srv.URL)) {
				t.Fatalf("Encountered = %+v", enc)
			}
			if rec := ev[2]; rec.Attempt != 2 || rec.TotalBackoff != want[0] {
				t.Fatalf("Recovered = %+v", rec)
			}
		})
	}
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestAnInvalidRetryAfterIsIgnoredForTheClientsOwnBackoff(t *testing.T) {
	for _, v := range []string{"Mon, 01 Jan 2025 00:00:07 GMT", "Wed, 01 Jan 2025 00:00:07 gmt", "1.5", "-1", "5 0"} {
		srv := newRPCServer(t, respond(429, "", "Retry-After", v), respond(200, rpcResult))
		h := newHarness(t, transportConfig, nil)
		if _, _, err := h.post(t, srv.URL, rpcRequest); err != nil {
			t.Fatal(err)
		}
		if want := []time.Duration{time.Second}; !slices.Equal(h.clock.Sleeps(), want) {
			t.Errorf("Retry-After %q: sleeps %v, want %v", v, h.clock.Sleeps(), want)
		}
		if enc := h.sink.Events()[0]; enc.ServerWait || enc.WaitFrom != "" {
			t.Errorf("Retry-After %q: Encountered = %+v", v, enc)
		}
	}
}

func TestTransientServerErrorsAreRetriedWithoutRateLimitEvents(t *testing.T) {
	for _, status := range []int{500, 502, 503, 504, 408} {
		srv := newRPCServer(t, respond(status, "busy"), respond(200, rpcResult))
		h := newHarness(t, transportConfig, nil)
		resp, body, err := h.post(t, srv.URL, rpcRequest)
		if err != nil || resp.StatusCode != 200 || body != rpcResult {
			t.Fatalf("%d: got %v, %q, %v", status, resp, body, err)
		}
		if want := []time.Duration{100 * time.Millisecond}; !slices.Equal(h.clock.Sleeps(), want) {
			t.Errorf("%d: sleeps %v, want %v", status, h.clock.Sleeps(), want)
		}
		if len(srv.Bodies()) != 2 || len(h.sink.Events()) != 0 {
			t.Errorf("%d: %d requests, events %v", status, len(srv.Bodies()), h.sink.Types())
		}
	}
}

func TestA503WithRetryAfterWaitsAsAsked(t *testing.T) {
	srv := newRPCServer(t, respond(503, "maintenance", "Retry-After", "2"), respond(200, rpcResult))
	h := newHarness(t, transportConfig, nil)
	if _, _, err := h.post(t, srv.URL, rpcRequest); err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{2100 * time.Millisecond}; !slices.Equal(h.clock.Sleeps(), want) {
		t.Fatalf("sleeps %v, want %v", h.clock.Sleeps(), want)
	}
}

func TestNotImplementedAndClientErrorsAreNotRetried(t *testing.T) {
	for _, status := range []int{501, 400, 401, 403, 404, 413} {
		answer := `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request"}}`
		srv := newRPCServer(t, respond(status, answer, "Retry-After", "1"))
		h := newHarness(t, transportConfig, nil)
		resp, body, err := h.post(t, srv.URL, rpcRequest)
		if err != nil {
			t.Fatalf("%d: %v", status, err)
		}
		if resp.StatusCode != status || body != answer {
			t.Errorf("%d: got %d %q", status, resp.StatusCode, body)
		}
		if len(srv.Bodies()) != 1 || len(h.clock.Sleeps()) != 0 || len(h.sink.Events()) != 0 {
			t.Errorf("%d: %d requests, sleeps %v, events %v", status, len(srv.Bodies()), h.clock.Sleeps(), h.sink.Types())
		}
	}
}

func TestAJSONRPCLimitErrorInA200IsRetriedAndTheFinalBodyIsIntact(t *testing.T) {
	srv := newRPCServer(t, respond(200, rpcLimited), respond(200, rpcResult))
	h := newHarness(t, transportConfig, nil)
	resp, body, err := h.post(t, srv.URL, rpcRequest)
	if err != nil || resp.StatusCode != 200 || body != rpcResult {
		t.Fatalf("got %v, %q, %v", resp, body, err)
	}
	if want := []time.Duration{time.Second}; !slices.Equal(h.clock.Sleeps(), want) {
		t.Fatalf("sleeps %v, want %v", h.clock.Sleeps(), want)
	}
	ev := h.sink.Events()
	if len(ev) != 3 || ev[0].Type != RateLimitEncountered || ev[0].RPCCode != CodeLimitExceeded || ev[0].StatusCode != 200 {
		t.Fatalf("events %+v", ev)
	}
}

func TestAnOrdinaryJSONRPCErrorIsHandedBackUntouched(t *testing.T) {
	reverted := `{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted","data":"0x08c379a0"}}`
	srv := newRPCServer(t, respond(200, reverted))
	h := newHarness(t, transportConfig, nil)
	resp, body, err := h.post(t, srv.URL, rpcRequest)
	if err != nil || resp.StatusCode != 200 || body != reverted {
		t.Fatalf("got %v, %q, %v", resp, body, err)
	}
	if len(srv.Bodies()) != 1 || len(h.sink.Events()) != 0 {
		t.Fatalf("%d requests, events %v", len(srv.Bodies()), h.sink.Types())
	}
}

func TestABatchWithOneRateLimitedAnswerIsRetriedWhole(t *testing.T) {
	batchReq := `[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"},{"jsonrpc":"2.0","id":2,"method":"eth_chainId"}]`
	limited := `[{"jsonrpc":"2.0","id":1,"result":"0x10"},{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Too Many Requests"}}]`
	good := `[{"jsonrpc":"2.0","id":1,"result":"0x10"},{"jsonrpc":"2.0","id":2,"result":"0x1"}]`
	srv := newRPCServer(t, respond(200, limited), respond(200, good))
	h := newHarness(t, transportConfig, nil)
	_, body, err := h.post(t, srv.URL, batchReq)
	if err != nil || body != good {
		t.Fatalf("got %q, %v", body, err)
	}
	if b := srv.Bodies(); len(b) != 2 || b[1] != batchReq {
		t.Fatalf("bodies %q", b)
	}
}

func TestALargeSuccessfulBodyIsHandedBackWithoutBeingInspected(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":1,"result":"0x` + strings.Repeat("ab", 4096) + `"}`
	srv := newRPCServer(t, respond(200, big))
	cfg := transportConfig
	cfg.MaxInspectBody = 1024
	h := newHarness(t, cfg, nil)
	_, body, err := h.post(t, srv.URL, rpcRequest)
	if err != nil || body != big {
		t.Fatalf("body of %d bytes, %v", len(body), err)
	}
	// Also when the length is not announced: the part read is put back in front of the rest.
	srv2 := newRPCServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for i := 0; i < len(big); i += 500 {
			_, _ = io.WriteString(w, big[i:min(i+500, len(big))])
			w.(http.Flusher).Flush()
		}
	})
	_, body, err = h.post(t, srv2.URL, rpcRequest)
	if err != nil || body != big {
		t.Fatalf("chunked: body of %d bytes, %v", len(body), err)
	}
}

func TestWhenRetriesRunOutTheLastAnswerIsReturnedAsTheServerSentIt(t *testing.T) {
	srv := newRPCServer(t, respond(429, `{"message":"quota"}`, "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "0"))
	h := newHarness(t, transportConfig, nil)
	resp, body, err := h.post(t, srv.URL, rpcRequest)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 429 || body != `{"message":"quota"}` || resp.Header.Get("X-RateLimit-Limit") != "10" {
		t.Fatalf("got %d %q %v", resp.StatusCode, body, resp.Header)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}
	if len(srv.Bodies()) != 4 || !slices.Equal(h.clock.Sleeps(), want) {
		t.Fatalf("%d requests, sleeps %v; want 4, %v", len(srv.Bodies()), h.clock.Sleeps(), want)
	}
	wantTypes := []EventType{RateLimitEncountered, RateLimitBackoff, RateLimitEncountered, RateLimitBackoff,
		RateLimitEncountered, RateLimitBackoff, RateLimitEncountered, RateLimitGaveUp}
	if !slices.Equal(h.sink.Types(), wantTypes) {
		t.Fatalf("events %v, want %v", h.sink.Types(), wantTypes)
	}
	ev := h.sink.Events()
	for i, e := range ev[:len(ev)-1] {
		if e.Attempt != i/2+1 || e.Limit != 10 || e.Remaining != 0 {
			t.Errorf("event %d = %+v", i, e)
		}
	}
	if g := ev[len(ev)-1]; g.Reason != ReasonAttempts || g.Attempt != 4 || g.TotalBackoff != 7*time.Second {
		t.Fatalf("GaveUp = %+v", g)
	}
}

func TestAServerWaitLongerThanTheBudgetReturnsTheAnswerAtOnce(t *testing.T) {
	srv := newRPCServer(t, respond(429, "later", "Retry-After", "3600"))
	h := newHarness(t, transportConfig, nil)
	resp, body, err := h.post(t, srv.URL, rpcRequest)
	if err != nil || resp.StatusCode != 429 || body != "later" || resp.Header.Get("Retry-After") != "3600" {
		t.Fatalf("got %v, %q, %v", resp, body, err)
	}
	if len(srv.Bodies()) != 1 || len(h.clock.Sleeps()) != 0 {
		t.Fatalf("%d requests, sleeps %v", len(srv.Bodies()), h.clock.Sleeps())
	}
	if !slices.Equal(h.sink.Types(), []EventType{RateLimitEncountered, RateLimitGaveUp}) {
		t.Fatalf("events %v", h.sink.Types())
	}
}

func TestADroppedConnectionIsRetried(t *testing.T) {
	var n atomic.Int32
	srv := newRPCServer(t, func(w http.ResponseWriter, _ *http.Request) {
		if n.Add(1) == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		respond(200, rpcResult)(w, nil)
	})
	h := newHarness(t, transportConfig, nil)
	_, body, err := h.post(t, srv.URL, rpcRequest)
	if err != nil || body != rpcResult {
		t.Fatalf("got %q, %v", body, err)
	}
	if want := []time.Duration{100 * time.Millisecond}; !slices.Equal(h.clock.Sleeps(), want) {
		t.Fatalf("sleeps %v, want %v", h.clock.Sleeps(), want)
	}
	if b := srv.Bodies(); len(b) != 2 || b[1] != rpcRequest {
		t.Fatalf("bodies %q", b)
	}
}

func TestARefusedConnectionIsRetriedThenReportedWithoutSecrets(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	target := "http://alice:hunter2pass@" + addr + "/v3/PROJECTKEY123?apikey=QUERYKEY456"
	h := newHarness(t, transportConfig, nil)
	_, _, err = h.post(t, target, rpcRequest)
	if err == nil {
		t.Fatal("want an error")
	}
	var e *Error
	if !errors.As(err, &e) || e.Class != TransportError || e.Attempts != 4 || e.Reason != ReasonAttempts {
		t.Fatalf("err = %v", err)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("err = %v, want it to unwrap to ECONNREFUSED", err)
	}
	if e.Source != "http://"+addr {
		t.Fatalf("source %q", e.Source)
	}
	// http.Client wraps the error in a url.Error with the URL (as Redacted: the password is
	// hidden, the rest is not); the Transport's own message must hold none of the secrets.
	for _, secret := range []string{"alice", "hunter2pass", "PROJECTKEY123", "QUERYKEY456"} {
		if strings.Contains(e.Error(), secret) {
			t.Errorf("%q leaks %q", e.Error(), secret)
		}
	}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}
	if !slices.Equal(h.clock.Sleeps(), want) {
		t.Fatalf("sleeps %v, want %v", h.clock.Sleeps(), want)
	}
}

// roundTripFunc is a base transport written in the test.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// trackedBody records whether it was closed.
type trackedBody struct {
	io.Reader
	closed atomic.Bool
}

func (b *trackedBody) Close() error { b.closed.Store(true); return nil }

func TestABaseErrorThatNamesTheURLIsScrubbed(t *testing.T) {
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return nil, &url.Error{Op: "Post", URL: r.URL.String(), Err: syscall.ECONNRESET}
	})
	h := newHarness(t, Config{MaxAttempts: 2}, base)
	req, _ := http.NewRequest(http.MethodPost, "https://user:pw-secret@rpc.example/v2/KEYINPATH?key=KEYINQUERY", strings.NewReader("{}"))
	_, err := h.tr.RoundTrip(req)
	if err == nil {
		t.Fatal("want an error")
	}
	for _, secret := range []string{"pw-secret", "KEYINPATH", "KEYINQUERY", "user:"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%q leaks %q", err.Error(), secret)
		}
	}
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("err = %v, want it to unwrap to ECONNRESET", err)
	}
	for _, ev := range h.sink.Events() {
		if strings.Contains(ev.Source, "KEY") {
			t.Errorf("event source %q", ev.Source)
		}
	}
}

func TestEventsNameTheUpstreamWithoutItsSecrets(t *testing.T) {
	srv := newRPCServer(t, respond(429, ""), respond(200, rpcResult))
	u := mustParse(t, srv.URL)
	h := newHarness(t, transportConfig, nil)
	target := "http://alice:hunter2pass@" + u.Host + "/v3/PROJECTKEY123?apikey=QUERYKEY456"
	if _, _, err := h.post(t, target, rpcRequest); err != nil {
		t.Fatal(err)
	}
	for _, ev := range h.sink.Events() {
		if ev.Source != "http://"+u.Host {
			t.Fatalf("source %q", ev.Source)
		}
	}
	srv2 := newRPCServer(t, respond(429, ""), respond(200, rpcResult))
	named := newHarness(t, transportConfig, nil, WithName("mainnet-primary"))
	if _, _, err := named.post(t, srv2.URL+"/v3/PROJECTKEY123", rpcRequest); err != nil {
		t.Fatal(err)
	}
	if ev := named.sink.Events(); len(ev) == 0 || ev[0].Source != "mainnet-primary" {
		t.Fatalf("events %+v", ev)
	}
}

func TestARequestWithoutGetBodyIsBufferedAndReplayed(t *testing.T) {
	srv := newRPCServer(t, respond(503, ""), respond(502, ""), respond(200, rpcResult))
	h := newHarness(t, transportConfig, nil)
	req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
	body := &trackedBody{Reader: strings.NewReader(rpcRequest)}
	req.Body, req.GetBody, req.ContentLength = body, nil, int64(len(rpcRequest))
	_, got, err := h.do(req)
	if err != nil || got != rpcResult {
		t.Fatalf("got %q, %v", got, err)
	}
	if b := srv.Bodies(); len(b) != 3 || b[0] != rpcRequest || b[1] != rpcRequest || b[2] != rpcRequest {
		t.Fatalf("bodies %q", b)
	}
	if !body.closed.Load() {
		t.Fatal("the caller's body must be closed")
	}
}

func TestARequestWithGetBodyIsReplayedFromIt(t *testing.T) {
	srv := newRPCServer(t, respond(503, ""), respond(503, ""), respond(200, rpcResult))
	h := newHarness(t, transportConfig, nil)
	req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader([]byte(rpcRequest)))
	var calls atomic.Int32
	getBody := req.GetBody
	req.GetBody = func() (io.ReadCloser, error) { calls.Add(1); return getBody() }
	if _, _, err := h.do(req); err != nil {
		t.Fatal(err)
	}
	if calls.Load() < 2 {
		t.Fatalf("GetBody called %d times, want at least once per retry", calls.Load())
	}
	if b := srv.Bodies(); len(b) != 3 || b[2] != rpcRequest {
		t.Fatalf("bodies %q", b)
	}
}

func TestABodyTooLargeToBufferIsSentOnceWithoutRetries(t *testing.T) {
	srv := newRPCServer(t, respond(429, "no", "Retry-After", "1"), respond(200, rpcResult))
	cfg := transportConfig
	cfg.MaxReplayBody = 16
	h := newHarness(t, cfg, nil)
	req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
	req.Body = io.NopCloser(strings.NewReader(rpcRequest))
	resp, got, err := h.do(req)
	if err != nil || resp.StatusCode != 429 || got != "no" {
		t.Fatalf("got %v, %q, %v", resp, got, err)
	}
	if b := srv.Bodies(); len(b) != 1 || b[0] != rpcRequest {
		t.Fatalf("bodies %q", b)
	}
}

func TestCancellingDuringTheWaitReturnsTheCancellation(t *testing.T) {
	srv := newRPCServer(t, respond(429, "", "Retry-After", "5"))
	h := newHarness(t, transportConfig, nil)
	ctx, cancel := context.WithCancel(context.Background())
	h.clock.onSleep = func(time.Duration) { cancel() }
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(rpcRequest))
	resp, err := h.tr.RoundTrip(req)
	if resp != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, %v", resp, err)
	}
	if len(srv.Bodies()) != 1 {
		t.Fatalf("%d requests", len(srv.Bodies()))
	}
	if !slices.Equal(h.sink.Types(), []EventType{RateLimitEncountered, RateLimitBackoff, RateLimitGaveUp}) {
		t.Fatalf("events %v", h.sink.Types())
	}
}

func TestACanceledRequestIsNotSentAndItsBodyIsClosed(t *testing.T) {
	var sent atomic.Int32
	base := roundTripFunc(func(*http.Request) (*http.Response, error) { sent.Add(1); return nil, errors.New("unreachable") })
	h := newHarness(t, transportConfig, base)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://node", nil)
	body := &trackedBody{Reader: strings.NewReader("{}")}
	req.Body = body
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("{}")), nil }
	if _, err := h.tr.RoundTrip(req); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if sent.Load() != 0 || !body.closed.Load() {
		t.Fatalf("sent %d, body closed %v", sent.Load(), body.closed.Load())
	}
}

func TestDiscardedAnswersAreClosedAndTheKeptOneIsNot(t *testing.T) {
	var bodies []*trackedBody
	var mu sync.Mutex
	statuses := []int{429, 503, 200}
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		b := &trackedBody{Reader: strings.NewReader(rpcResult)}
		bodies = append(bodies, b)
		status := statuses[len(bodies)-1]
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"text/plain"}}, Body: b, Request: r}, nil
	})
	h := newHarness(t, transportConfig, base)
	req, _ := http.NewRequest(http.MethodPost, "http://node", strings.NewReader(rpcRequest))
	resp, err := h.tr.RoundTrip(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("got %v, %v", resp, err)
	}
	if len(bodies) != 3 || !bodies[0].closed.Load() || !bodies[1].closed.Load() || bodies[2].closed.Load() {
		t.Fatalf("closed: %v %v %v", bodies[0].closed.Load(), bodies[1].closed.Load(), bodies[2].closed.Load())
	}
	resp.Body.Close()
}

// failingReader yields some bytes, then fails as a connection cut mid-body does.
type failingReader struct{ done bool }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.done {
		return 0, io.ErrUnexpectedEOF
	}
	r.done = true
	return copy(p, `{"jsonrpc":"2.0","id":1,"res`), nil
}

func TestAnAnswerCutOffMidBodyIsRetried(t *testing.T) {
	var n atomic.Int32
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		h := http.Header{"Content-Type": {"application/json"}}
		if n.Add(1) == 1 {
			return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(&failingReader{}), ContentLength: -1, Request: r}, nil
		}
		return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader(rpcResult)), Request: r}, nil
	})
	h := newHarness(t, transportConfig, base)
	req, _ := http.NewRequest(http.MethodPost, "http://node", strings.NewReader(rpcRequest))
	resp, err := h.tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if string(b) != rpcResult || n.Load() != 2 {
		t.Fatalf("got %q after %d attempts", b, n.Load())
	}
}

func TestTheTransportWorksOnTheRealClock(t *testing.T) {
	srv := newRPCServer(t, respond(429, "", "Retry-After", "0"), respond(503, ""), respond(200, rpcResult))
	ht := &http.Transport{}
	t.Cleanup(ht.CloseIdleConnections)
	tr, err := NewTransport(ht, Config{BaseDelay: time.Millisecond, RateLimitBaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	resp, err := client.Post(srv.URL, "application/json", strings.NewReader(rpcRequest))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != rpcResult || len(srv.Bodies()) != 3 {
		t.Fatalf("got %d %q after %d requests", resp.StatusCode, b, len(srv.Bodies()))
	}
}

func TestConcurrentCallsShareOneTransport(t *testing.T) {
	var n atomic.Int32
	srv := newRPCServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 1 {
			respond(429, "", "Retry-After", "1")(w, r)
			return
		}
		respond(200, rpcResult)(w, r)
	})
	h := newHarness(t, Config{MaxAttempts: 20, MaxElapsed: time.Hour}, nil)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(rpcRequest))
			resp, body, err := h.do(req)
			if err != nil || resp.StatusCode != 200 || body != rpcResult {
				t.Errorf("got %v, %q, %v", resp, body, err)
			}
		}()
	}
	wg.Wait()
}

func TestNewTransportRejectsAnInvalidConfig(t *testing.T) {
	if _, err := NewTransport(nil, Config{MaxAttempts: -1}); err == nil {
		t.Fatal("want an error")
	}
	tr, err := NewTransport(nil, Config{})
	if err != nil || tr.base != http.DefaultTransport {
		t.Fatalf("got %v, %v", tr, err)
	}
}
