package rpcfault_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/rpc"

	"relayer/workers/devchain/rpcfault"
	"relayer/workers/devchain/rpcfault/rpcfaulttest"
	"relayer/workers/upstream"
)

// service is the node's "test" JSON-RPC namespace.
type service struct{ calls atomic.Int64 }

// Echo is test_echo: it counts the call and answers its argument.
func (s *service) Echo(v string) string {
	s.calls.Add(1)
	return v
}

// Hang is the subscription test_subscribe("hang"): it never sends a notification.
func (s *service) Hang(ctx context.Context) (*rpc.Subscription, error) {
	n, ok := rpc.NotifierFromContext(ctx)
	if !ok {
		return nil, rpc.ErrNotificationsUnsupported
	}
	return n.CreateSubscription(), nil
}

// node is the proxies' target: go-ethereum's JSON-RPC server on loopback, over HTTP and
// WebSocket on one port, recording what each HTTP request asked for.
type node struct {
	url string // http://127.0.0.1:port
	svc *service

	mu   sync.Mutex
	seen []seenRequest
}

type seenRequest struct {
	uri  string
	body []byte
}

func newNode(t *testing.T) *node {
	t.Helper()
	n := &node{svc: &service{}}
	server := rpc.NewServer()
	if err := server.RegisterName("test", n.svc); err != nil {
		t.Fatal(err)
	}
	ws := server.WebsocketHandler([]string{"*"})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "" {
			ws.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		n.mu.Lock()
		n.seen = append(n.seen, seenRequest{uri: r.URL.RequestURI(), body: body})
		n.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		server.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(server.Stop) // first: it ends the WebSockets the test server's Close would wait for
	n.url = ts.URL
	return n
}

func (n *node) requests() []seenRequest {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]seenRequest(nil), n.seen...)
}

// only is a Config that gives every request the fault f.
func only(f rpcfault.Fault) rpcfault.Config {
	return rpcfault.Config{Rate: 1, Faults: []rpcfault.Fault{f}}
}

const echoCall = `{"jsonrpc":"2.0","id":7,"method":"test_echo","params":["hello"]}`

// post sends body to url on a connection of its own, so that a connection the proxy closes
// cannot touch another request.
func post(url, body string) (*http.Response, []byte, error) {
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	res, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, b, err
}

func mustPost(t *testing.T, url, body string) (*http.Response, []byte) {
	t.Helper()
	res, b, err := post(url, body)
	if err != nil {
		t.Fatalf("POST through the proxy: %v", err)
	}
	return res, b
}

func TestNew(t *testing.T) {
	t.Run("the URL is the target's, scheme, path and query kept, with the proxy's loopback address", func(t *testing.T) {
		for _, tc := range []struct{ target, scheme, rest string }{
			{"http://127.0.0.1:8545/rpc/v1?key=k", "http://", "/rpc/v1?key=k"},
			{"ws://localhost:8546", "ws://", ""},
		} {
			p := rpcfaulttest.Start(t, tc.target, rpcfault.Config{})
			host, _, err := net.SplitHostPort(p.Addr())
			if err != nil || host != "127.0.0.1" {
				t.Errorf("Addr() = %q: want 127.0.0.1:port", p.Addr())
			}
			if want := tc.scheme + p.Addr() + tc.rest; p.URL() != want {
				t.Errorf("URL() = %q, want %q", p.URL(), want)
			}
		}
	})

	t.Run("a target that is not an http or ws URL, or an invalid Config, is refused", func(t *testing.T) {
		for _, target := range []string{"127.0.0.1:8545", "https://127.0.0.1:8545", "http://", "ftp://x:1"} {
			if p, err := rpcfault.New(target, rpcfault.Config{}); err == nil {
				_ = p.Close()
				t.Errorf("New(%q) accepted", target)
			}
		}
		for _, cfg := range []rpcfault.Config{
			{Rate: -0.1}, {Rate: 1.5}, {Wait: -time.Second}, {SlowDelay: -1},
			{WebSocketLifetime: -1}, {Faults: []rpcfault.Fault{{}}},
		} {
			if err := cfg.Validate(); err == nil {
				t.Errorf("Validate(%+v) = nil", cfg)
			}
			if p, err := rpcfault.New("http://127.0.0.1:8545", cfg); err == nil {
				_ = p.Close()
				t.Errorf("New with %+v accepted", cfg)
			}
		}
	})
}

func TestForwarding(t *testing.T) {
	t.Run("at rate 0 every request reaches the node unchanged and its answer comes back unchanged", func(t *testing.T) {
		n := newNode(t)
		p := rpcfaulttest.Start(t, n.url+"/rpc/v1?key=k", rpcfault.Config{Seed: 1})
		batch := `[{"jsonrpc":"2.0","id":1,"method":"test_echo","params":["a"]},` +
			`{"jsonrpc":"2.0","id":"two","method":"test_echo","params":["b"]}]`
		for _, body := range []string{echoCall, batch} {
			_, direct := mustPost(t, n.url, body)
			res, got := mustPost(t, p.URL(), body)
			if res.StatusCode != http.StatusOK || !bytes.Equal(got, direct) {
				t.Errorf("through the proxy: %d %s, want the node's own answer %s", res.StatusCode, got, direct)
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type through the proxy = %q", ct)
			}
			seen := n.requests()
			last := seen[len(seen)-1]
			if last.uri != "/rpc/v1?key=k" || string(last.body) != body {
				t.Errorf("the node saw %s %s, want /rpc/v1?key=k %s", last.uri, last.body, body)
			}
		}
		if got := n.svc.calls.Load(); got != 6 {
			t.Errorf("the node executed %d calls, want 6 (3 direct, 3 proxied)", got)
		}
		if c := p.Counts(); c.Requests != 2 || c.Passed != 2 || c.Faulted() != 0 {
			t.Errorf("Counts() = %+v, want 2 requests, both passed", c)
		}
	})

	t.Run("with Methods only the calls to those methods, alone or in a batch, get a fault", func(t *testing.T) {
		n := newNode(t)
		cfg := only(rpcfault.BadGateway)
		cfg.Methods = []string{"test_send"}
		p := rpcfaulttest.Start(t, n.url, cfg)
		if res, _ := mustPost(t, p.URL(), echoCall); res.StatusCode != http.StatusOK {
			t.Errorf("test_echo, not in Methods: %d, want 200", res.StatusCode)
		}
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"test_send","params":[]}`,
			`[` + echoCall + `,{"jsonrpc":"2.0","id":2,"method":"test_send","params":[]}]`,
		} {
			if res, _ := mustPost(t, p.URL(), body); res.StatusCode != http.StatusBadGateway {
				t.Errorf("%s: %d, want 502", body, res.StatusCode)
			}
		}
		if c := p.Counts(); c.Requests != 3 || c.Passed != 1 || c.Faults[rpcfault.BadGateway] != 2 {
			t.Errorf("Counts() = %+v", c)
		}
	})
}

func TestRateLimits(t *testing.T) {
	forms := []struct {
		fault  rpcfault.Fault
		status int
		// layout is the HTTP-date form of Retry-After, "" when it is not a date.
		layout string
		// from is the header family upstream takes the wait from, "" when there is none.
		from string
	}{
		{fault: rpcfault.RetryAfterSeconds, status: 429, from: upstream.HeaderRetryAfter},
		{fault: rpcfault.RetryAfterIMFFixdate, status: 429, layout: http.TimeFormat, from: upstream.HeaderRetryAfter},
		{fault: rpcfault.RetryAfterRFC850, status: 429, layout: "Monday, 02-Jan-06 15:04:05 GMT", from: upstream.HeaderRetryAfter},
		{fault: rpcfault.RetryAfterAsctime, status: 429, layout: time.ANSIC, from: upstream.HeaderRetryAfter},
		{fault: rpcfault.XRateLimitReset, status: 429, from: upstream.HeaderXRateLimit},
		{fault: rpcfault.RPCLimit429, status: 429},
		{fault: rpcfault.RPCLimit200, status: 200},
	}

	for _, wait := range []time.Duration{0, 1500 * time.Millisecond} {
		want := time.Second // the default
		if wait != 0 {
			want = (wait + time.Second - 1) / time.Second * time.Second // rounded up to whole seconds
		}
		for _, form := range forms {
			t.Run(form.fault.String()+" with Wait="+wait.String()+": its status, and a wait, when it gives one, of at least "+want.String()+" from when the request was sent", func(t *testing.T) {
				n := newNode(t)
				cfg := only(form.fault)
				cfg.Wait = wait
				p := rpcfaulttest.Start(t, n.url, cfg)
				sent := time.Now()
				res, _ := mustPost(t, p.URL(), echoCall)
				received := time.Now()
				if res.StatusCode != form.status {
					t.Fatalf("status %d, want %d", res.StatusCode, form.status)
				}
				retryAfter := res.Header.Get("Retry-After")
				switch {
				case form.fault == rpcfault.RetryAfterSeconds:
					d, ok := upstream.ParseRetryAfter(retryAfter, received)
					if secs := strconv.Itoa(int(want / time.Second)); !ok || retryAfter != secs || d != want {
						t.Errorf("Retry-After %q: %v %v, want delay-seconds %s", retryAfter, d, ok, secs)
					}
				case form.layout != "":
					if _, err := time.Parse(form.layout, retryAfter); err != nil {
						t.Errorf("Retry-After %q is not in the form %q: %v", retryAfter, form.layout, err)
					}
					std, err := http.ParseTime(retryAfter)
					ours, ok := upstream.ParseHTTPDate(retryAfter, received)
					if err != nil || !ok || !std.Equal(ours) {
						t.Fatalf("Retry-After %q: net/http reads %v (%v), upstream %v (%v)", retryAfter, std, err, ours, ok)
					}
					if ours.Before(sent.Add(want)) {
						t.Errorf("Retry-After %q is before the request was sent plus %v (%v)", retryAfter, want, sent)
					}
					if d, ok := upstream.ParseRetryAfter(retryAfter, time.Now()); !ok || d <= 0 {
						t.Errorf("Retry-After %q read now: %v %v, want a wait not yet over", retryAfter, d, ok)
					}
				case form.fault == rpcfault.XRateLimitReset:
					info := upstream.ParseRateLimit(res.Header, received)
					if info.Header != upstream.HeaderXRateLimit || info.Limit != 100 || info.Remaining != 0 {
						t.Errorf("X-RateLimit-* read as %+v", info)
					}
					if info.Reset.Before(sent.Add(want)) {
						t.Errorf("X-RateLimit-Reset %v is before the request was sent plus %v (%v)", info.Reset, want, sent)
					}
					if retryAfter != "" {
						t.Errorf("Retry-After %q beside X-RateLimit-*", retryAfter)
					}
				default:
					if retryAfter != "" || res.Header.Get("X-RateLimit-Reset") != "" {
						t.Errorf("a JSON-RPC limit with a wait in its headers: %v", res.Header)
					}
				}
				if got := n.svc.calls.Load(); got != 0 {
					t.Errorf("the node executed %d calls; a rate limit is answered without it", got)
				}
			})
		}
	}

	for _, form := range forms {
		t.Run(form.fault.String()+" is a rate limit to upstream.Transport", func(t *testing.T) {
			n := newNode(t)
			p := rpcfaulttest.Start(t, n.url, only(form.fault))
			var (
				mu     sync.Mutex
				events []upstream.Event
			)
			sink := upstream.SinkFunc(func(_ context.Context, e upstream.Event) {
				mu.Lock()
				events = append(events, e)
				mu.Unlock()
			})
			tr, err := upstream.NewTransport(&http.Transport{}, upstream.Config{MaxAttempts: 1}, upstream.WithSink(sink))
			if err != nil {
				t.Fatal(err)
			}
			res, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Post(p.URL(), "application/json", strings.NewReader(echoCall))
			if err != nil {
				t.Fatal(err)
			}
			_ = res.Body.Close()
			mu.Lock()
			defer mu.Unlock()
			if len(events) == 0 || events[0].Type != upstream.RateLimitEncountered || events[0].Class != upstream.RateLimited {
				t.Fatalf("events %+v, want RateLimitEncountered first", events)
			}
			e := events[0]
			if e.ServerWait != (form.from != "") || e.WaitFrom != form.from {
				t.Errorf("the wait came from %q (server wait %v), want %q", e.WaitFrom, e.ServerWait, form.from)
			}
			if form.from != "" && e.Wait <= 0 {
				t.Errorf("server wait %v: want one not yet over", e.Wait)
			}
		})
	}

	t.Run("a JSON-RPC limit answers each call of a batch with its id", func(t *testing.T) {
		n := newNode(t)
		p := rpcfaulttest.Start(t, n.url, only(rpcfault.RPCLimit200))
		res, body := mustPost(t, p.URL(), `[{"jsonrpc":"2.0","id":1,"method":"test_echo","params":["a"]},`+
			`{"jsonrpc":"2.0","id":"x","method":"test_echo","params":["b"]}]`)
		var got []struct {
			ID    json.RawMessage
			Error upstream.RPCError
		}
		if err := json.Unmarshal(body, &got); err != nil || res.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("body %s: %v", body, err)
		}
		if len(got) != 2 || string(got[0].ID) != "1" || string(got[1].ID) != `"x"` {
			t.Fatalf("answers %s, want one for id 1 and one for id \"x\"", body)
		}
		for _, g := range got {
			if g.Error.Code != upstream.CodeLimitExceeded || !g.Error.IsRateLimit() {
				t.Errorf("error %+v, want -32005, a rate limit", g.Error)
			}
		}
		_, single := mustPost(t, p.URL(), echoCall)
		if want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32005,"message":"limit exceeded"}}`; string(single) != want {
			t.Errorf("single call: %s, want %s", single, want)
		}
	})
}

func TestServerErrors(t *testing.T) {
	for _, tc := range []struct {
		fault      rpcfault.Fault
		status     int
		retryAfter string
	}{
		{rpcfault.BadGateway, 502, ""},
		{rpcfault.Unavailable, 503, ""},
		{rpcfault.UnavailableRetryAfter, 503, "1"},
		{rpcfault.GatewayTimeout, 504, ""},
	} {
		t.Run(tc.fault.String()+" answers its status without asking the node", func(t *testing.T) {
			n := newNode(t)
			p := rpcfaulttest.Start(t, n.url, only(tc.fault))
			res, _ := mustPost(t, p.URL(), echoCall)
			if res.StatusCode != tc.status || res.Header.Get("Retry-After") != tc.retryAfter {
				t.Errorf("%d Retry-After %q, want %d %q", res.StatusCode, res.Header.Get("Retry-After"), tc.status, tc.retryAfter)
			}
			if c := upstream.Classify(res.StatusCode, nil, nil); c != upstream.ServerError {
				t.Errorf("upstream classifies it %v, want server_error", c)
			}
			if got := n.svc.calls.Load(); got != 0 {
				t.Errorf("the node executed %d calls", got)
			}
		})
	}
}

func TestDropsAndDelays(t *testing.T) {
	t.Run("drop before: the client's connection closes unanswered and the node never sees the call", func(t *testing.T) {
		n := newNode(t)
		p := rpcfaulttest.Start(t, n.url, only(rpcfault.DropBefore))
		_, _, err := post(p.URL(), echoCall)
		if err == nil {
			t.Fatal("the request was answered")
		}
		if c := upstream.Classify(0, nil, err); c != upstream.TransportError {
			t.Errorf("%v: upstream classifies it %v, want transport_error", err, c)
		}
		if got := n.svc.calls.Load(); got != 0 {
			t.Errorf("the node executed %d calls, want 0", got)
		}
	})

	t.Run("drop after: the node executed the call and the client's connection closes unanswered", func(t *testing.T) {
		n := newNode(t)
		p := rpcfaulttest.Start(t, n.url, only(rpcfault.DropAfter))
		_, _, err := post(p.URL(), echoCall)
		if err == nil {
			t.Fatal("the request was answered")
		}
		if c := upstream.Classify(0, nil, err); c != upstream.TransportError {
			t.Errorf("%v: upstream classifies it %v, want transport_error", err, c)
		}
		if got := n.svc.calls.Load(); got != 1 {
			t.Errorf("the node executed %d calls, want 1", got)
		}
	})

	t.Run("slow: the node answers at once and the client gets the answer SlowDelay later", func(t *testing.T) {
		n := newNode(t)
		cfg := only(rpcfault.Slow)
		cfg.SlowDelay = time.Second
		p := rpcfaulttest.Start(t, n.url, cfg)
		type result struct {
			body []byte
			err  error
		}
		done := make(chan result, 1)
		sent := time.Now()
		go func() {
			_, b, err := post(p.URL(), echoCall)
			done <- result{b, err}
		}()
		for n.svc.calls.Load() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		select {
		case r := <-done:
			t.Fatalf("answered %v after the node, before SlowDelay: %s %v", time.Since(sent), r.body, r.err)
		default:
		}
		r := <-done
		if took := time.Since(sent); took < cfg.SlowDelay {
			t.Errorf("answered after %v, want at least %v", took, cfg.SlowDelay)
		}
		if want := `{"jsonrpc":"2.0","id":7,"result":"hello"}`; r.err != nil || strings.TrimSpace(string(r.body)) != want {
			t.Errorf("answer %s %v, want %s", r.body, r.err, want)
		}
	})

	t.Run("Close ends an answer held back at once, and the client gets no answer", func(t *testing.T) {
		n := newNode(t)
		cfg := only(rpcfault.Slow)
		cfg.SlowDelay = time.Minute
		p, err := rpcfault.New(n.url, cfg)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, _, err := post(p.URL(), echoCall)
			done <- err
		}()
		for n.svc.calls.Load() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		began := time.Now()
		_ = p.Close()
		select {
		case err := <-done:
			if err == nil {
				t.Error("the held answer was sent")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the client still waits after Close")
		}
		if took := time.Since(began); took > 5*time.Second {
			t.Errorf("Close took %v", took)
		}
		_ = p.Close() // a second Close is harmless
	})
}

func TestCountsAndConfig(t *testing.T) {
	t.Run("the same seed gives the same faults, Counts add up, and every fault comes up", func(t *testing.T) {
		n := newNode(t)
		cfg := rpcfault.Config{Rate: 0.5, Seed: 42, SlowDelay: time.Millisecond}
		const requests = 300
		var runs [2]rpcfault.Counts
		for i := range runs {
			p := rpcfaulttest.Start(t, n.url, cfg)
			for range requests {
				_, _, _ = post(p.URL(), echoCall)
			}
			runs[i] = p.Counts()
		}
		c := runs[0]
		if !reflect.DeepEqual(runs[0], runs[1]) {
			t.Errorf("two proxies with seed 42 differ:\n%+v\n%+v", runs[0], runs[1])
		}
		if c.Requests != requests || c.Passed+c.Faulted() != requests {
			t.Errorf("Counts() = %+v: want %d requests, passed and faulted adding up to them", c, requests)
		}
		if c.Passed < requests/4 || c.Passed > 3*requests/4 {
			t.Errorf("%d of %d passed at rate 0.5", c.Passed, requests)
		}
		for _, f := range rpcfault.AllFaults() {
			if c.Faults[f] == 0 {
				t.Errorf("%v never came up in %d faults", f, c.Faulted())
			}
		}
	})

	t.Run("SetConfig changes the faults of the next requests, and an invalid Config changes nothing", func(t *testing.T) {
		n := newNode(t)
		p := rpcfaulttest.Start(t, n.url, rpcfault.Config{})
		status := func() int {
			t.Helper()
			res, _ := mustPost(t, p.URL(), echoCall)
			return res.StatusCode
		}
		if got := status(); got != 200 {
			t.Fatalf("at rate 0: %d", got)
		}
		if err := p.SetConfig(only(rpcfault.GatewayTimeout)); err != nil {
			t.Fatal(err)
		}
		if got := status(); got != 504 {
			t.Errorf("after SetConfig(504 at rate 1): %d", got)
		}
		if err := p.SetConfig(rpcfault.Config{Rate: 2}); err == nil {
			t.Error("SetConfig(Rate 2) accepted")
		}
		if got := status(); got != 504 {
			t.Errorf("after an invalid SetConfig: %d, want the previous Config's 504", got)
		}
		if err := p.SetConfig(rpcfault.Config{}); err != nil {
			t.Fatal(err)
		}
		if got := status(); got != 200 {
			t.Errorf("after SetConfig(rate 0): %d", got)
		}
		if c := p.Counts(); c.Requests != 4 || c.Passed != 2 || c.Faults[rpcfault.GatewayTimeout] != 2 {
			t.Errorf("Counts() = %+v", c)
		}
	})
}

func TestWebSocket(t *testing.T) {
	t.Run("a WebSocket passes through without faults, whatever the rate", func(t *testing.T) {
		n := newNode(t)
		p := rpcfaulttest.Start(t, "ws"+strings.TrimPrefix(n.url, "http"), rpcfault.Config{Rate: 1})
		if !strings.HasPrefix(p.URL(), "ws://") {
			t.Fatalf("URL() = %q, want ws://", p.URL())
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		client, err := rpc.DialWebsocket(ctx, p.URL(), "")
		if err != nil {
			t.Fatal(err)
		}
		defer client.Close()
		for i := range 20 {
			var got string
			if err := client.CallContext(ctx, &got, "test_echo", strconv.Itoa(i)); err != nil || got != strconv.Itoa(i) {
				t.Fatalf("call %d over the WebSocket: %q %v", i, got, err)
			}
		}
		if c := p.Counts(); c.WebSockets != 1 || c.Requests != 0 || c.WebSocketDrops != 0 {
			t.Errorf("Counts() = %+v, want one WebSocket and no HTTP request", c)
		}
	})

	t.Run("with a lifetime the proxy ends a WebSocket, and its subscriber sees the end", func(t *testing.T) {
		n := newNode(t)
		const lifetime = 400 * time.Millisecond
		p := rpcfaulttest.Start(t, "ws"+strings.TrimPrefix(n.url, "http"), rpcfault.Config{WebSocketLifetime: lifetime})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		began := time.Now()
		client, err := rpc.DialWebsocket(ctx, p.URL(), "")
		if err != nil {
			t.Fatal(err)
		}
		defer client.Close()
		sub, err := client.Subscribe(ctx, "test", make(chan struct{}), "hang")
		if err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-sub.Err():
			if err == nil {
				t.Error("the subscription ended without an error")
			}
		case <-ctx.Done():
			t.Fatal("the WebSocket outlived its lifetime")
		}
		if took := time.Since(began); took < lifetime/2 {
			t.Errorf("the WebSocket ended after %v, before half its lifetime", took)
		}
		if c := p.Counts(); c.WebSockets != 1 || c.WebSocketDrops != 1 {
			t.Errorf("Counts() = %+v, want one WebSocket, dropped", c)
		}
	})
}
