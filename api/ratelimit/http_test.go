package ratelimit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"relayer/internal/sfv"
)

// server runs the limiter's middleware over real loopback HTTP. The handler answers 200 "ok";
// ?block=<name> waits until the test closes gates[name]; ?panic=1 panics.
type server struct {
	*httptest.Server
	entered chan string
	gates   map[string]chan struct{}
}

func newServer(t *testing.T, l *Limiter, wrap func(http.Handler) http.Handler) *server {
	t.Helper()
	s := &server{entered: make(chan string, 16), gates: map[string]chan struct{}{}}
	for _, g := range []string{"a", "b", "c"} {
		s.gates[g] = make(chan struct{})
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("panic") == "1" {
			panic("handler failure")
		}
		if g := r.URL.Query().Get("block"); g != "" {
			s.entered <- g
			<-s.gates[g]
		}
		_, _ = io.WriteString(w, "ok")
	})
	if wrap == nil {
		wrap = l.Middleware
	}
	s.Server = httptest.NewUnstartedServer(wrap(h))
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the panic test's stack trace
	s.Start()
	t.Cleanup(s.Close)
	return s
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func do(t *testing.T, c *http.Client, method, url string, header map[string]string) response {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{res.StatusCode, res.Header, b}
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// checkDenied checks a 429 against the contract and returns its body.
func checkDenied(t *testing.T, r response) DeniedBody {
	t.Helper()
	if r.status != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429; body %s", r.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var raw map[string]any
	if err := json.Unmarshal(r.body, &raw); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
	for _, k := range []string{"status", "requestId", "error", "retryAfterMs"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("body %s lacks %s", r.body, k)
		}
	}
	if e, _ := raw["error"].(map[string]any); e == nil || e["details"] != nil || e["retryAfterMs"] != nil {
		t.Errorf("error object %v", raw["error"])
	}
	var b DeniedBody
	_ = json.Unmarshal(r.body, &b)
	if b.Status != "failed" || b.Error.Label != "rate_limited" || b.Error.Message == "" || b.RetryAfterMs < 1 {
		t.Errorf("body %+v", b)
	}
	ra := r.header.Get("Retry-After")
	secs, err := strconv.Atoi(ra)
	if err != nil || strconv.Itoa(secs) != ra || secs < 1 {
		t.Errorf("Retry-After %q is not an integer >= 1", ra)
	}
	if want := (b.RetryAfterMs + 999) / 1000; secs != want {
		t.Errorf("Retry-After %d s, body %d ms: want ⌈ms/1000⌉ = %d", secs, b.RetryAfterMs, want)
	}
	checkRateLimitHeaders(t, r.header)
	return b
}

// checkRateLimitHeaders parses RateLimit-Policy and RateLimit as structured-field Lists (with the
// parser the relayer reads its providers' fields with) and checks the draft's rules: policy items
// are Strings with an Integer q (and w, qu where present); RateLimit items are Strings naming a
// listed policy, with an Integer r >= 0 and t >= 0; a Retry-After never points before a t.
func checkRateLimitHeaders(t *testing.T, h http.Header) (policy, limit []sfv.Item) {
	t.Helper()
	policy, ok := sfv.ParseList(h.Get("RateLimit-Policy"))
	if !ok || len(policy) == 0 {
		t.Fatalf("RateLimit-Policy %q is not a structured-field List", h.Get("RateLimit-Policy"))
	}
	integer := func(v sfv.Value, ok bool) (int64, bool) { return v.Int, ok && v.Kind == sfv.Integer }
	names := map[string]bool{}
	for _, it := range policy {
		if it.Value.Kind != sfv.String {
			t.Errorf("policy item %+v is not a String", it.Value)
		}
		name := it.Value.Str
		names[name] = true
		if q, ok := integer(it.Param("q")); !ok || q < 0 {
			t.Errorf("policy %s: q = %v", name, q)
		}
		if w, ok := it.Param("w"); ok && (w.Kind != sfv.Integer || w.Int < 1) {
			t.Errorf("policy %s: w = %+v", name, w)
		}
		if qu, ok := it.Param("qu"); ok && (qu.Kind != sfv.String || qu.Str != "concurrent-requests" && qu.Str != "requests") {
			t.Errorf("policy %s: qu = %+v", name, qu)
		}
	}
	limit, ok = sfv.ParseList(h.Get("RateLimit"))
	if !ok || len(limit) == 0 {
		t.Fatalf("RateLimit %q is not a structured-field List", h.Get("RateLimit"))
	}
	retryAfter, _ := strconv.Atoi(h.Get("Retry-After"))
	for _, it := range limit {
		name := it.Value.Str
		if it.Value.Kind != sfv.String || !names[name] {
			t.Errorf("RateLimit item %+v names no listed policy", it.Value)
		}
		if r, ok := integer(it.Param("r")); !ok || r < 0 {
			t.Errorf("%s: r = %v", name, r)
		}
		if tv, ok := it.Param("t"); ok {
			if tv.Kind != sfv.Integer || tv.Int < 0 || (h.Get("Retry-After") != "" && int64(retryAfter) < tv.Int) {
				t.Errorf("%s: t = %+v with Retry-After %d", name, tv, retryAfter)
			}
		}
	}
	return policy, limit
}

func TestARequestOverTheRollingLimitGets429WithTheExactHintOverHTTP(t *testing.T) {
	clock := newClock()
	cfg := DefaultConfig()
	cfg.Read.RollingLimit = ptr(2)
	l := mustNew(t, cfg, WithClock(clock.Now))
	s := newServer(t, l, nil)
	c := s.Client()

	r := do(t, c, "GET", s.URL, nil)
	if r.status != 200 || string(r.body) != "ok" {
		t.Fatalf("%d %s", r.status, r.body)
	}
	policy, limit := checkRateLimitHeaders(t, r.header)
	if got := r.header.Get("RateLimit-Policy"); got != `"read-rolling";q=2;w=10, "read-concurrency";q=32;qu="concurrent-requests"` {
		t.Errorf("RateLimit-Policy %q", got)
	}
	if len(policy) != 2 || len(limit) != 2 {
		t.Errorf("policy %v, limit %v", policy, limit)
	}
	if got := r.header.Get("RateLimit"); got != `"read-rolling";r=1;t=10, "read-concurrency";r=31` {
		t.Errorf("RateLimit %q", got)
	}
	if r.header.Get("Retry-After") != "" {
		t.Error("Retry-After on an allowed response")
	}

	clock.Advance(1500 * time.Millisecond)
	if r = do(t, c, "GET", s.URL, nil); r.status != 200 || r.header.Get("RateLimit") != `"read-rolling";r=0;t=9, "read-concurrency";r=31` {
		t.Fatalf("%d %q", r.status, r.header.Get("RateLimit"))
	}
	clock.Advance(2300 * time.Millisecond) // +3.8 s: the first request leaves at +10 s, in 6.2 s
	r = do(t, c, "GET", s.URL, nil)
	b := checkDenied(t, r)
	if b.RetryAfterMs != 6200 || r.header.Get("Retry-After") != "7" {
		t.Errorf("hint %d ms, Retry-After %s; want exactly 6200 ms, 7 s", b.RetryAfterMs, r.header.Get("Retry-After"))
	}
	if !uuidRE.MatchString(b.RequestID) {
		t.Errorf("requestId %q", b.RequestID)
	}
	if got := r.header.Get("RateLimit"); got != `"read-rolling";r=0;t=7, "read-concurrency";r=32` {
		t.Errorf("RateLimit %q", got)
	}
	// Writes have their own budget.
	if r = do(t, c, "POST", s.URL, nil); r.status != 200 || !strings.HasPrefix(r.header.Get("RateLimit"), `"write-rolling";r=99;`) {
		t.Errorf("a write after reads: %d %q", r.status, r.header.Get("RateLimit"))
	}
	clock.Advance(6200 * time.Millisecond)
	if r = do(t, c, "GET", s.URL, nil); r.status != 200 {
		t.Errorf("at the hinted time: %d %s", r.status, r.body)
	}
}

func TestConcurrencyLimitDeniesWhileHandlersRunAndFreesTheSlotWhenTheyReturnOverHTTP(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ConcurrencyLimit = 2
	l := mustNew(t, cfg)
	s := newServer(t, l, nil)
	c := s.Client()
	done := make(chan response, 2)
	for _, g := range []string{"a", "b"} {
		go func() {
			res, err := c.Get(s.URL + "?block=" + g)
			if err != nil {
				done <- response{status: -1}
				return
			}
			res.Body.Close()
			done <- response{status: res.StatusCode}
		}()
		<-s.entered
	}
	b := checkDenied(t, do(t, c, "GET", s.URL, nil))
	if b.RetryAfterMs < 50 || b.RetryAfterMs > 2000 || !strings.Contains(b.Error.Message, "in flight") {
		t.Errorf("a concurrency deny: %+v", b)
	}
	close(s.gates["a"])
	if r := <-done; r.status != 200 {
		t.Fatalf("blocked request: %d", r.status)
	}
	if r := do(t, c, "GET", s.URL, nil); r.status != 200 {
		t.Errorf("after a handler returned: %d %s", r.status, r.body)
	}
	close(s.gates["b"])
	<-done
}

func TestASlotIsFreedWhenTheHandlerPanics(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ConcurrencyLimit = 1
	l := mustNew(t, cfg)
	s := newServer(t, l, nil)
	c := s.Client()
	for range 3 {
		if _, err := c.Get(s.URL + "?panic=1"); err == nil {
			t.Fatal("a panicking handler answered")
		}
	}
	if r := do(t, c, "GET", s.URL, nil); r.status != 200 {
		t.Fatalf("after panics: %d %s", r.status, r.body)
	}
	if _, d := l.Acquire(l.ClientKey(httptest.NewRequest("GET", "/", nil)), ClassRead, time.Now()); d.Concurrency.InFlight != 1 {
		t.Errorf("slots in flight: %+v", d.Concurrency)
	}
}

// clientFrom returns a client whose connections come from the loopback address ip.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// issued is a registry of two issued keys, A and B, naming clients "alice" and "bob".
func issued(key string) (string, bool) {
	switch key {
	case "sk_live_secret_AAAA":
		return "alice", true
	case "sk_live_secret_BBBB":
		return "bob", true
	}
	return "", false
}

func TestEachIssuedAPIKeyAndEachAddressHasItsOwnQuota(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RollingLimit = 1
	l := mustNew(t, cfg, WithAPIKeys(issued))
	s := newServer(t, l, nil)
	const keyA, keyB = "sk_live_secret_AAAA", "sk_live_secret_BBBB"
	from1, from2 := clientFrom("127.0.0.1"), clientFrom("127.0.0.2")
	if _, err := from2.Get(s.URL); err != nil {
		t.Skipf("cannot connect from 127.0.0.2: %v", err)
	}
	clients := []struct {
		name   string
		c      *http.Client
		header map[string]string
	}{
		{"key A from 127.0.0.1", from1, map[string]string{APIKeyHeader: keyA}},
		{"key B from 127.0.0.1", from1, map[string]string{APIKeyHeader: keyB}},
		{"no key from 127.0.0.1", from1, nil},
		{"key A from 127.0.0.2 (the same client as before)", from2, map[string]string{APIKeyHeader: keyA}},
		{"an invented key from 127.0.0.1 (no client: the address's quota)", from1, map[string]string{APIKeyHeader: "sk_invented"}},
	}
	want := []int{200, 200, 200, 429, 429}
	for i, cl := range clients {
		if r := do(t, cl.c, "POST", s.URL, cl.header); r.status != want[i] {
			t.Errorf("%s: first POST %d, want %d", cl.name, r.status, want[i])
		}
	}
	// 127.0.0.2 without a key was not touched by key A's request from there (only GET before).
	if r := do(t, from2, "POST", s.URL, nil); r.status != 200 {
		t.Errorf("no key from 127.0.0.2: %d", r.status)
	}
	for _, cl := range clients {
		r := do(t, cl.c, "POST", s.URL, cl.header)
		checkDenied(t, r)
		for _, secret := range []string{keyA, keyB, "secret"} {
			if strings.Contains(string(r.body), secret) || strings.Contains(fmt.Sprint(r.header), secret) {
				t.Errorf("%s: the API key is echoed: %s %v", cl.name, r.body, r.header)
			}
		}
	}
	withKey := &http.Request{Header: http.Header{}, RemoteAddr: "127.0.0.1:5"}
	withKey.Header.Set(APIKeyHeader, keyA)
	k := l.ClientKey(withKey)
	if strings.Contains(k, "secret") || strings.Contains(k, "alice") || !strings.HasPrefix(k, "key:") || len(k) != 4+32 {
		t.Errorf("internal key %q", k)
	}
	if other := mustNew(t, cfg, WithAPIKeys(issued)).ClientKey(withKey); other == k {
		t.Error("the key hash is not salted per limiter")
	}
}

// A header anyone can invent used to make anyone a new client: 300 POSTs with a fresh key each
// all passed a limit of 100. Without issued keys, X-API-Key names no client.
func TestInventedAPIKeysDoNotBypassTheAddressQuota(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RollingLimit = 100
	for _, l := range []*Limiter{mustNew(t, cfg), mustNew(t, cfg, WithAPIKeys(issued))} {
		s := newServer(t, l, nil)
		ok := 0
		for i := range 300 {
			if r := do(t, http.DefaultClient, "POST", s.URL, map[string]string{APIKeyHeader: fmt.Sprintf("invented-%d", i)}); r.status == 200 {
				ok++
			}
		}
		if ok != 100 {
			t.Errorf("%d of 300 POSTs with invented keys passed, want the address's 100", ok)
		}
	}
}

func TestXForwardedForIsHonouredOnlyFromATrustedProxyAndReadFromTheRight(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TrustedProxies = []string{"10.0.0.0/8", "192.0.2.1", "2001:db8:ffff::/48"}
	l := mustNew(t, cfg)
	for _, tc := range []struct {
		name, peer string
		xff        []string // the X-Forwarded-For fields, in order
		want       string
	}{
		{"an untrusted peer's forged header is ignored", "203.0.113.9:5000", []string{"198.51.100.1"}, "ip:203.0.113.9"},
		{"an untrusted peer that is in a trusted hop's prefix is still the peer", "203.0.113.9:5000", []string{"10.0.0.7"}, "ip:203.0.113.9"},
		{"a trusted peer without the header is itself", "10.0.0.5:5000", nil, "ip:10.0.0.5"},
		{"client, trusted proxy: the client", "10.0.0.5:5000", []string{"198.51.100.1, 10.1.1.1"}, "ip:198.51.100.1"},
		{"forged, real client: the real client, the rightmost untrusted hop", "10.0.0.5:5000", []string{"6.6.6.6, 198.51.100.1"}, "ip:198.51.100.1"},
		{"forged hops in earlier fields are as unbelieved", "10.0.0.5:5000", []string{"6.6.6.6", "198.51.100.2, 10.0.0.9"}, "ip:198.51.100.2"},
		{"every hop trusted: the leftmost", "10.0.0.5:5000", []string{"10.0.0.1, 192.0.2.1"}, "ip:10.0.0.1"},
		{"a malformed hop where the walk stops: the peer", "10.0.0.5:5000", []string{"198.51.100.1, unknown, 10.0.0.2"}, "ip:10.0.0.5"},
		{"an empty hop where the walk stops: the peer", "10.0.0.5:5000", []string{"198.51.100.1,,10.0.0.2"}, "ip:10.0.0.5"},
		{"a malformed hop beyond the client is never read", "10.0.0.5:5000", []string{"garbage, 198.51.100.1"}, "ip:198.51.100.1"},
		{"an empty header: the peer", "10.0.0.5:5000", []string{""}, "ip:10.0.0.5"},
		{"a hop with a port", "10.0.0.5:5000", []string{"198.51.100.3:5555"}, "ip:198.51.100.3"},
		{"a bracketed IPv6 hop with a port, by its /64", "10.0.0.5:5000", []string{"[2001:db8:1:2::7]:443"}, "ip:2001:db8:1:2::/64"},
		{"a bracketed IPv6 hop, by its /64", "10.0.0.5:5000", []string{"[2001:db8:1:2::8]"}, "ip:2001:db8:1:2::/64"},
		{"an IPv6 trusted peer and client", "[2001:db8:ffff::1]:443", []string{"2001:db8:1:2:aaaa::1, 2001:db8:ffff:1::2"}, "ip:2001:db8:1:2::/64"},
		{"an IPv4-mapped peer is its IPv4 address", "[::ffff:10.0.0.5]:80", []string{"198.51.100.4"}, "ip:198.51.100.4"},
		{"an IPv4-mapped trusted hop is skipped", "10.0.0.5:5000", []string{"198.51.100.5, ::ffff:10.0.0.3"}, "ip:198.51.100.5"},
		{"a single trusted address, not its neighbour", "192.0.2.2:5000", []string{"198.51.100.6"}, "ip:192.0.2.2"},
	} {
		r := &http.Request{RemoteAddr: tc.peer, Header: http.Header{}}
		for _, v := range tc.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := l.AddressKey(r); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if got := l.ClientKey(r); got != tc.want {
			t.Errorf("%s: ClientKey %q, want %q", tc.name, got, tc.want)
		}
	}

	// Without trusted proxies (the default), the header is never read; the list changes at run time.
	r := &http.Request{RemoteAddr: "10.0.0.5:5000", Header: http.Header{"X-Forwarded-For": {"198.51.100.1"}}}
	if err := l.SetConfig(DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	if got := l.AddressKey(r); got != "ip:10.0.0.5" {
		t.Errorf("no trusted proxies: %q", got)
	}
}

// With a trusted proxy in front, a client behind it has its own quota whatever it writes in
// X-Forwarded-For itself: the hop the proxy appends is the one believed.
func TestAClientBehindATrustedProxyCannotBuyQuotaWithAForgedHeaderOverHTTP(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RollingLimit = 1
	cfg.TrustedProxies = []string{"127.0.0.1"}
	s := newServer(t, mustNew(t, cfg), nil)
	c := s.Client()
	xff := func(v string) map[string]string { return map[string]string{"X-Forwarded-For": v} }
	if r := do(t, c, "POST", s.URL, xff("203.0.113.1")); r.status != 200 {
		t.Fatal(r.status)
	}
	// The same client (as the proxy appended it) with a forged hop of its own in front.
	if r := do(t, c, "POST", s.URL, xff("198.51.100.77, 203.0.113.1")); r.status != 429 {
		t.Errorf("a forged leftmost hop bought a new quota: %d", r.status)
	}
	if r := do(t, c, "POST", s.URL, xff("203.0.113.2")); r.status != 200 {
		t.Errorf("another client behind the proxy: %d", r.status)
	}
}

func TestTheDeniedResponseTakesTheRequestIDFromTheContext(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RollingLimit = 0
	cfg.Read.RollingLimit = ptr(1)
	l := mustNew(t, cfg)
	s := newServer(t, l, func(h http.Handler) http.Handler {
		inner := l.Middleware(h)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			inner.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), RequestIDKey, "req-123")))
		})
	})
	do(t, s.Client(), "GET", s.URL, nil)
	if b := checkDenied(t, do(t, s.Client(), "GET", s.URL, nil)); b.RequestID != "req-123" {
		t.Errorf("requestId %q", b.RequestID)
	}
	// With the write class's rolling limit off, its RateLimit only has the concurrency item.
	if r := do(t, s.Client(), "POST", s.URL, nil); r.status != 200 || r.header.Get("RateLimit-Policy") != `"write-concurrency";q=32;qu="concurrent-requests"` {
		t.Errorf("%d %q", r.status, r.header.Get("RateLimit-Policy"))
	}
}

func TestTheOnDenyHookWritesTheResponseWithTheHeadersAlreadySet(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RollingLimit = 1
	var got Decision
	l := mustNew(t, cfg,
		WithRequestID(func(http.ResponseWriter, *http.Request) string { return "custom-id" }),
		WithOnDeny(func(w http.ResponseWriter, r *http.Request, d Decision) {
			got = d
			if w.Header().Get("Retry-After") == "" || w.Header().Get("RateLimit") == "" {
				t.Error("headers not set before the hook")
			}
			w.Header().Set("X-Hook", "1")
			WriteDenied(w, "hook-"+r.Method, d)
		}))
	s := newServer(t, l, nil)
	do(t, s.Client(), "POST", s.URL, nil)
	r := do(t, s.Client(), "POST", s.URL, nil)
	if b := checkDenied(t, r); b.RequestID != "hook-POST" || r.header.Get("X-Hook") != "1" {
		t.Errorf("%+v %v", b, r.header)
	}
	if got.Allowed || !got.Rolling.Denied || got.Class != ClassWrite {
		t.Errorf("hook got %+v", got)
	}
}

func TestWrapLimitsARouteByTheClassItIsGiven(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RollingLimit = 1 // writes: 1; reads: 600
	l := mustNew(t, cfg)
	s := newServer(t, l, func(h http.Handler) http.Handler { return l.Wrap(ClassWrite, h) })
	do(t, s.Client(), "GET", s.URL, nil)
	if r := do(t, s.Client(), "GET", s.URL, nil); r.status != 429 || !strings.HasPrefix(r.header.Get("RateLimit"), `"write-rolling"`) {
		t.Errorf("%d %q", r.status, r.header.Get("RateLimit"))
	}
}

func TestRequestIDsAreRandomUUIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := NewRequestID()
		if !uuidRE.MatchString(id) || seen[id] {
			t.Fatalf("%q", id)
		}
		seen[id] = true
	}
}

func TestClientKeysFromRemoteAddresses(t *testing.T) {
	l := mustNew(t, DefaultConfig())
	for addr, want := range map[string]string{
		"192.0.2.7:5555":          "ip:192.0.2.7",
		"[::ffff:192.0.2.7]:1":    "ip:192.0.2.7",
		"[2001:db8:1:2:3::9]:443": "ip:2001:db8:1:2::/64",
		"[fe80::1%eth0]:80":       "ip:fe80::/64",
		"192.0.2.8":               "ip:192.0.2.8",
		"@unix":                   "addr:@unix",
	} {
		if got := l.ClientKey(&http.Request{RemoteAddr: addr, Header: http.Header{}}); got != want {
			t.Errorf("%s: %q, want %q", addr, got, want)
		}
	}
}
