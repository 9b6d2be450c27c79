package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
	"relayer/workers/upstream"
)

// rpcProxy is a real HTTP server in front of the shared chain's real JSON-RPC endpoint: it
// forwards every call, except those its hook answers itself (a node without a method, a rate
// limit). It counts the methods it saw.
type rpcProxy struct {
	srv    *httptest.Server
	target string

	mu      sync.Mutex
	methods map[string]int
	hook    func(w http.ResponseWriter, method string, id json.RawMessage) bool
}

func newRPCProxy(t *testing.T, target string) *rpcProxy {
	t.Helper()
	p := &rpcProxy{target: target, methods: map[string]int{}}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *rpcProxy) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var call struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(body, &call) // a batch has no single method: forwarded as is
	p.mu.Lock()
	p.methods[call.Method]++
	hook := p.hook
	p.mu.Unlock()
	if hook != nil && hook(w, call.Method, call.ID) {
		return
	}
	resp, err := http.Post(p.target, "application/json", bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

func (p *rpcProxy) setHook(h func(w http.ResponseWriter, method string, id json.RawMessage) bool) {
	p.mu.Lock()
	p.hook = h
	p.mu.Unlock()
}

func (p *rpcProxy) count(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.methods[method]
}

func TestANodeWithoutSendRawTransactionSyncIsDetectedOnceAndTheFallbackPollsTheReceipt(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	proxy := newRPCProxy(t, shared.HTTPEndpoint())
	proxy.setHook(func(w http.ResponseWriter, method string, id json.RawMessage) bool {
		if method != "eth_sendRawTransactionSync" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"the method %s does not exist/is not available"}}`, id, method)
		return true
	})
	// HTTP only: the listener polls eth_getLogs.
	ad := dial(t, nextKey(t), func(c *gateway.Config) { c.RPCURL, c.WSURL = proxy.srv.URL, "" })
	cursor, err := ad.HeadCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	evs := listen(t, ad, cursor)

	p1 := mustPrepare(t, ctx, ad, publicRequest(contracts.TestHandle(contracts.ScenarioNone, t.Name())))
	rec1, err := ad.Broadcast(ctx, p1)
	if err != nil {
		t.Fatalf("Broadcast through a node without eth_sendRawTransactionSync: %v", err)
	}
	p2 := mustPrepare(t, ctx, ad, silentRequest(t.Name()+"/2"))
	if _, err := ad.Broadcast(ctx, p2); err != nil {
		t.Fatal(err)
	}
	// A re-broadcast through the fallback is idempotent too ("nonce too low", ours is mined).
	again, err := ad.Broadcast(ctx, p1)
	if err != nil || again.RequestID.Cmp(rec1.RequestID) != 0 {
		t.Fatalf("re-broadcast: %v, %+v", err, again)
	}
	if n := proxy.count("eth_sendRawTransactionSync"); n != 1 {
		t.Fatalf("eth_sendRawTransactionSync was tried %d times, want once", n)
	}
	if n := proxy.count("eth_sendRawTransaction"); n != 3 {
		t.Fatalf("eth_sendRawTransaction was sent %d times, want 3", n)
	}
	if proxy.count("eth_getTransactionReceipt") < 2 {
		t.Fatal("no receipt polls")
	}
	// The listener, polling over HTTP, delivers the response.
	got := evs.until(t, rec1.RequestID, func(e []gateway.Event) bool { return len(e) > 0 })
	if got[0].Type != gateway.PublicDecryptionResponse {
		t.Fatalf("response %v", got[0])
	}
	if proxy.count("eth_subscribe") != 0 {
		t.Fatal("subscribed over HTTP")
	}
}

// sinkRecorder keeps the rate-limit events it is given.
type sinkRecorder struct {
	mu     sync.Mutex
	events []upstream.Event
}

func (s *sinkRecorder) Record(_ context.Context, e upstream.Event) {
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
}

func (s *sinkRecorder) of(typ upstream.EventType) []upstream.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []upstream.Event
	for _, e := range s.events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func TestEveryJSONRPCCallOverHTTPGoesThroughTheUpstreamTransport(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	proxy := newRPCProxy(t, shared.HTTPEndpoint())
	sink := &sinkRecorder{}
	ad := dial(t, nextKey(t), func(c *gateway.Config) {
		c.RPCURL, c.WSURL = proxy.srv.URL+"/v3/PATHSECRET?apikey=QUERYSECRET", ""
	}, gateway.WithUpstream(upstream.WithSink(sink)))

	// The next eth_call is refused once with 429 and Retry-After: 1, then forwarded (the health
	// probe's eth_blockNumber goes through).
	var limited sync.Once
	proxy.setHook(func(w http.ResponseWriter, method string, id json.RawMessage) bool {
		if method != "eth_call" {
			return false
		}
		hit := false
		limited.Do(func() {
			hit = true
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		})
		return hit
	})
	start := time.Now()
	ok, err := ad.ACLAllowedForDecryption(ctx, contracts.TestHandle(contracts.ScenarioNone, t.Name()))
	if err != nil || !ok {
		t.Fatalf("a call answered 429 once: %v, %v", ok, err)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Fatalf("the call came back after %v, before the server's Retry-After of 1s", waited)
	}
	enc := sink.of(upstream.RateLimitEncountered)
	if len(enc) != 1 || enc[0].StatusCode != http.StatusTooManyRequests || !enc[0].ServerWait || enc[0].Wait != time.Second {
		t.Fatalf("RateLimitEncountered events: %+v", enc)
	}
	if enc[0].Source != proxy.srv.URL || strings.Contains(fmt.Sprint(sink.events), "SECRET") {
		t.Fatalf("events name the node %q; want scheme and host only, no secret: %+v", enc[0].Source, sink.events)
	}
	if len(sink.of(upstream.RateLimitRecovered)) != 1 {
		t.Fatalf("no RateLimitRecovered: %+v", sink.events)
	}
}

func TestErrorsAndLogsNameTheNodeBySchemeAndHostOnly(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	var logs bytes.Buffer
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(b []byte) (int, error) {
		logMu.Lock()
		defer logMu.Unlock()
		return logs.Write(b)
	}), &slog.HandlerOptions{Level: slog.LevelDebug}))
	secrets := []string{"pa55word", "PATHSECRET", "QUERYSECRET"}
	proxy := newRPCProxy(t, shared.HTTPEndpoint())
	host := strings.TrimPrefix(proxy.srv.URL, "http://")
	secretURL := "http://user:pa55word@" + host + "/v3/PATHSECRET?apikey=QUERYSECRET"

	cfg := baseConfig(shared)
	cfg.RPCURL, cfg.WSURL = secretURL, "ws://"+host+"/ws/PATHSECRET?apikey=QUERYSECRET"
	cfg.Upstream = upstream.Config{MaxAttempts: 2, BaseDelay: 10 * time.Millisecond}
	ad, err := gateway.Dial(ctx, cfg, logger, gateway.WithSigner(gateway.NewSigner(nextKey(t))))
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer ad.Close()
	proxy.srv.Close() // the node goes away

	var errs []error
	_, err = ad.ACLAllowed(ctx, contracts.TestHandle(0, "x"), userAddr)
	errs = append(errs, err)
	_, err = ad.Prepare(ctx, silentRequest(t.Name()))
	errs = append(errs, err)
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	for _, err := range ad.Listen(lctx, gateway.Cursor{Block: 1}) {
		errs = append(errs, err)
		break
	}
	cancel()
	_, err = gateway.Dial(ctx, cfg, logger)
	errs = append(errs, err)

	for i, err := range errs {
		if err == nil {
			t.Fatalf("call %d succeeded against a closed node", i)
		}
		msg := fmt.Sprintf("%v %+v", err, err)
		for _, s := range secrets {
			if strings.Contains(msg, s) {
				t.Fatalf("error %d shows %q: %s", i, s, msg)
			}
		}
		if i < 3 && !errors.Is(err, gateway.ErrTransport) {
			t.Fatalf("error %d is not a transport error: %v", i, err)
		}
		if !strings.Contains(msg, host) && !strings.Contains(msg, "[redacted]") {
			t.Fatalf("error %d does not name the node: %s", i, msg)
		}
	}
	logMu.Lock()
	out := logs.String()
	logMu.Unlock()
	for _, s := range secrets {
		if strings.Contains(out, s) {
			t.Fatalf("logs show %q:\n%s", s, out)
		}
	}
	if !strings.Contains(out, "node=http://"+host) {
		t.Fatalf("logs do not name the node by scheme and host:\n%s", out)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
