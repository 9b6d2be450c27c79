package ratelimit

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// withClients puts the client of each issued key (by X-API-Key) in the request's context, as
// the API's key gate does, in front of the limiter's middleware.
func withClients(l *Limiter, clients map[string]*Client) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		inner := l.Middleware(h)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if c, ok := clients[r.Header.Get(APIKeyHeader)]; ok {
				r = r.WithContext(ContextWithClient(r.Context(), c))
			}
			inner.ServeHTTP(w, r)
		})
	}
}

// partnerAndPlain serves a limiter enforcing cfg to two issued keys: sk_partner names a client
// with the limits own, sk_plain one with none of its own.
func partnerAndPlain(t *testing.T, cfg Config, own ClientLimits) *server {
	l := mustNew(t, cfg)
	partner := &Client{Name: "partner", Limits: own}
	plain := &Client{Name: "plain"}
	return newServer(t, l, withClients(l, map[string]*Client{"sk_partner": partner, "sk_plain": plain}))
}

func key(k string) map[string]string { return map[string]string{APIKeyHeader: k} }

// count sends n requests and returns how many were allowed (the others must be 429).
func count(t *testing.T, s *server, method string, n int, header map[string]string) int {
	t.Helper()
	ok := 0
	for range n {
		switch r := do(t, s.Client(), method, s.URL, header); r.status {
		case 200:
			ok++
		case 429:
		default:
			t.Fatalf("status %d", r.status)
		}
	}
	return ok
}

func TestAClientsOwnRollingLimitReplacesTheServersForThatClientOnlyOverHTTP(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RollingLimit = 2 // writes; reads keep their 600
	s := partnerAndPlain(t, cfg, ClientLimits{Write: OwnLimits{RollingLimit: ptr(5)}})

	if got := count(t, s, "POST", 8, key("sk_partner")); got != 5 {
		t.Errorf("the partner's own write limit 5: %d of 8 allowed", got)
	}
	if got := count(t, s, "POST", 4, key("sk_plain")); got != 2 {
		t.Errorf("a key without limits of its own has the server's 2: %d of 4 allowed", got)
	}
	if got := count(t, s, "POST", 4, nil); got != 2 {
		t.Errorf("an address has the server's 2: %d of 4 allowed", got)
	}

	// The partner's 429 speaks of its own numbers, with the server's window.
	r := do(t, s.Client(), "POST", s.URL, key("sk_partner"))
	b := checkDenied(t, r)
	if p := r.header.Get("RateLimit-Policy"); !strings.HasPrefix(p, `"write-rolling";q=5;w=10`) {
		t.Errorf("RateLimit-Policy %q, want the partner's q=5 and the server's w=10", p)
	}
	if !strings.Contains(b.Error.Message, "at most 5 write requests per 10 s") {
		t.Errorf("message %q", b.Error.Message)
	}
	// Reads inherit the server's limits: the partner named only writes.
	if r := do(t, s.Client(), "GET", s.URL, key("sk_partner")); r.status != 200 || !strings.HasPrefix(r.header.Get("RateLimit-Policy"), `"read-rolling";q=600;w=10`) {
		t.Errorf("partner's read: %d %q", r.status, r.header.Get("RateLimit-Policy"))
	}
}

func TestZeroTurnsALimitOffForThatClientOnly(t *testing.T) {
	cfg := cfgWith(1, 2, 10)
	l := mustNew(t, cfg)
	noRolling := &Client{Name: "no-rolling", Limits: ClientLimits{Write: OwnLimits{RollingLimit: ptr(0)}}}
	noConc := &Client{Name: "no-concurrency", Limits: ClientLimits{
		Write: OwnLimits{ConcurrencyLimit: ptr(0)}, Read: OwnLimits{ConcurrencyLimit: ptr(0)}}}
	plain := &Client{Name: "plain"}

	for i := range 50 {
		release, d := l.acquire(noRolling.Name, noRolling, ClassWrite, t0.Add(time.Duration(i)*time.Millisecond))
		if !d.Allowed || d.Rolling.Limit != 0 || d.Concurrency.Limit != 1 {
			t.Fatalf("rolling off: request %d: %+v", i, d)
		}
		release()
	}
	var held []func()
	for i := range 2 {
		release, d := l.acquire(noConc.Name, noConc, ClassWrite, t0)
		if !d.Allowed || d.Concurrency.Limit != 0 {
			t.Fatalf("concurrency off: request %d: %+v", i, d)
		}
		held = append(held, release)
	}
	if _, d := l.acquire(noConc.Name, noConc, ClassWrite, t0); d.Allowed || !d.Rolling.Denied || d.Concurrency.Denied {
		t.Errorf("concurrency off, rolling still 2: %+v", d)
	}
	hold, _ := l.acquire(plain.Name, plain, ClassWrite, t0)
	if _, d := l.acquire(plain.Name, plain, ClassWrite, t0); d.Allowed || !d.Concurrency.Denied {
		t.Errorf("the server's concurrency limit 1 still holds for others: %+v", d)
	}
	hold()
	for _, r := range held {
		r()
	}
}

func TestAClientInheritsTheServersLimitsAsTheyChangeAndKeepsItsOwn(t *testing.T) {
	l := mustNew(t, cfgWith(4, 2, 10))
	// hit acquires and releases one request of the partner's.
	hit := func(c *Client) Decision {
		release, d := l.acquire("partner", c, ClassWrite, t0)
		release()
		return d
	}
	c := &Client{Name: "partner", Limits: ClientLimits{Write: OwnLimits{RollingLimit: ptr(5)}}}
	if d := hit(c); d.Rolling.Limit != 5 || d.Concurrency.Limit != 4 {
		t.Fatalf("%+v", d)
	}
	first := c.cache.Load()
	for range 3 {
		hit(c)
	}
	if c.cache.Load() != first {
		t.Error("the client's limits were resolved again without any change")
	}
	// The server's concurrency limit changes: the partner, who did not name it, follows; its
	// own rolling limit stays, and its four requests still count.
	if _, err := l.SetParam("concurrency_limit", 1); err != nil {
		t.Fatal(err)
	}
	hold, d := l.acquire("partner", c, ClassWrite, t0)
	if d.Concurrency.Limit != 1 || d.Rolling.Limit != 5 || !d.Allowed || d.Rolling.Remaining != 0 {
		t.Errorf("after SetParam: %+v", d)
	}
	hold()
	if c.cache.Load() == first {
		t.Error("the cache outlived the configuration it was resolved for")
	}
	// The registry changes the client's entry (a new Client, the same name): the new limit
	// applies at once, and the requests already made still count.
	c2 := &Client{Name: "partner", Limits: ClientLimits{Write: OwnLimits{RollingLimit: ptr(7)}}}
	allowed := 0
	for range 4 {
		if d := hit(c2); d.Allowed {
			allowed++
		}
	}
	if allowed != 2 {
		t.Errorf("raised to 7 with 5 in the window: %d more allowed, want 2", allowed)
	}
}

func TestOwnLimitsOutOfRangeAreTakenAsTheNearestBound(t *testing.T) {
	l := mustNew(t, cfgWith(4, 2, 10))
	c := &Client{Name: "odd", Limits: ClientLimits{Write: OwnLimits{RollingLimit: ptr(-3), ConcurrencyLimit: ptr(MaxLimit * 10)}}}
	if _, d := l.acquire("", c, ClassWrite, t0); d.Rolling.Limit != 0 || d.Concurrency.Limit != MaxLimit {
		t.Errorf("%+v", d)
	}
}

// The keys of one client are the same however it is found (the context or the registry), so
// counters do not split when the caller starts putting clients in the context.
func TestAClientInTheContextIsKeyedAsTheRegistryKeysItsName(t *testing.T) {
	l := mustNew(t, DefaultConfig(), WithAPIKeys(issued))
	byRegistry := &http.Request{Header: http.Header{}, RemoteAddr: "192.0.2.1:1"}
	byRegistry.Header.Set(APIKeyHeader, "sk_live_secret_AAAA")
	byContext := byRegistry.WithContext(ContextWithClient(t.Context(), &Client{Name: "alice"}))
	if a, b := l.ClientKey(byRegistry), l.ClientKey(byContext); a != b || !strings.HasPrefix(a, "key:") {
		t.Errorf("registry %q, context %q", a, b)
	}
	// The context is read only with X-API-Key: a request without one is its address.
	noKey := (&http.Request{Header: http.Header{}, RemoteAddr: "192.0.2.1:1"}).WithContext(byContext.Context())
	if got := l.ClientKey(noKey); got != "ip:192.0.2.1" {
		t.Errorf("no key: %q", got)
	}
}

// A client without limits of its own costs no allocation per request beyond an address's, and
// one with limits of its own none either once they are resolved.
func TestClientsCostNoAllocationPerRequest(t *testing.T) {
	l := mustNew(t, cfgWith(0, 100_000, 10)) // rolling only: release allocates nothing
	plain := &Client{Name: "plain"}
	own := &Client{Name: "own", Limits: ClientLimits{Write: OwnLimits{RollingLimit: ptr(MaxLimit)}}}
	now := t0
	for _, tc := range []struct {
		name string
		c    *Client
	}{{"none", nil}, {"plain", plain}, {"own limits", own}} {
		key := "k-" + tc.name
		l.acquire(key, tc.c, ClassWrite, now) // resolve, create the entry
		allocs := testing.AllocsPerRun(1000, func() {
			now = now.Add(time.Microsecond)
			l.acquire(key, tc.c, ClassWrite, now)
		})
		// The log grows by doubling: amortised, well under one allocation per request.
		if allocs >= 0.1 {
			t.Errorf("%s: %v allocations per request", tc.name, allocs)
		}
	}
}

func TestWithTheServersLimitsOffOnlyAClientWithLimitsOfItsOwnIsLimited(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RollingLimit, cfg.ConcurrencyLimit = 0, 0
	cfg.Write, cfg.Read = Override{}, Override{}
	s := partnerAndPlain(t, cfg, ClientLimits{Read: OwnLimits{RollingLimit: ptr(1)}})

	if got := count(t, s, "GET", 3, key("sk_partner")); got != 1 {
		t.Errorf("the partner's own read limit 1: %d of 3 allowed", got)
	}
	for _, h := range []map[string]string{nil, key("sk_plain"), key("sk_unknown")} {
		if got := count(t, s, "GET", 3, h); got != 3 {
			t.Errorf("%v: no limit is on, yet %d of 3 allowed", h, got)
		}
		if r := do(t, s.Client(), "GET", s.URL, h); r.header.Get("RateLimit") != "" || r.header.Get("RateLimit-Policy") != "" {
			t.Errorf("%v: no limit is on, yet RateLimit %q, RateLimit-Policy %q", h, r.header.Get("RateLimit"), r.header.Get("RateLimit-Policy"))
		}
	}
}
