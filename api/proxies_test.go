package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/internal/config"
)

// rate_limit.trusted_proxies over a real server and loopback HTTP: the test's connections come
// from 127.0.0.1, which plays the proxy in front of the relayer.

// pxServer starts a server whose write rolling_limit is 2 per 10 s (every other limit off),
// with proxies as its trusted proxies.
func pxServer(t *testing.T, proxies []string, edit ...func(*Config)) *jtEnv {
	t.Helper()
	return startJT(t, append([]func(*Config){func(c *Config) {
		serverWrites2(c)
		c.RateLimit.TrustedProxies = proxies
	}}, edit...)...)
}

// pxSubmitter submits distinct public decrypts with the X-Forwarded-For header given (none for
// "").
func pxSubmitter(env *jtEnv) *jtSubmitter {
	return &jtSubmitter{env: env, header: func(xff string) []string { return []string{"X-Forwarded-For", xff} }}
}

func TestBehindATrustedProxyEachForwardedClientHasItsOwnBudget(t *testing.T) {
	env := pxServer(t, []string{"127.0.0.1/32"})
	s := pxSubmitter(env)
	for _, c := range []struct {
		name, xff string
		want      int
	}{
		{"client A", "203.0.113.1", 2},
		{"client B, another budget", "203.0.113.2", 2},
		{"client A again, the same budget", "203.0.113.1", 0},
		{"client A with a forged hop in front: still A", "198.51.100.9, 203.0.113.1", 0},
		{"client A behind a second trusted hop: still A", "203.0.113.1, 127.0.0.1", 0},
		{"an IPv6 client", "2001:db8:1:2::1", 2},
		{"another address of its /64: the same budget", "2001:db8:1:2::ffff", 0},
		{"the next /64: another budget", "2001:db8:1:3::1", 2},
		{"no header: the proxy itself", "", 2},
		{"a malformed hop: the proxy itself, already spent", "203.0.113.3, not-an-address", 0},
	} {
		if got := s.accepted(t, c.xff, 3); got != c.want {
			t.Errorf("%s (X-Forwarded-For %q): %d of 3 accepted, want %d", c.name, c.xff, got, c.want)
		}
	}
}

func TestWithoutTrustedProxiesXForwardedForIsIgnored(t *testing.T) {
	for _, tc := range []struct {
		name    string
		proxies []string
	}{
		{"an empty list", nil},
		{"a list without the peer (a client sending its own header)", []string{"10.0.0.0/8", "::1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := pxSubmitter(pxServer(t, tc.proxies))
			if got := s.accepted(t, "203.0.113.1", 3); got != 2 {
				t.Fatalf("%d of 3 accepted", got)
			}
			// A forged header per request buys nothing: every one is the peer's.
			if got := s.accepted(t, "203.0.113.2", 1) + s.accepted(t, "203.0.113.3", 1) + s.accepted(t, "", 1); got != 0 {
				t.Errorf("forged X-Forwarded-For headers bought %d submissions", got)
			}
		})
	}
}

// The streams' per-client cap and the refused-credential counting key by AddressKey, so they
// follow the trusted proxies too: two clients behind the proxy each open their stream.
func TestStreamsCountClientsBehindATrustedProxySeparately(t *testing.T) {
	env := pxServer(t, []string{"127.0.0.1"}, func(c *Config) { c.Streams.MaxPerClient = 1 })
	open := func(xff string) int {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		req, err := http.NewRequestWithContext(ctx, "GET", env.ts.URL+"/v1/transitions", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Forwarded-For", xff)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Body.Close() })
		return res.StatusCode
	}
	if a, b, again := open("203.0.113.1"), open("203.0.113.2"), open("203.0.113.1"); a != 200 || b != 200 || again != 429 {
		t.Errorf("streams: A %d, B %d, A again %d; want 200, 200, 429", a, b, again)
	}
}

func TestATrustedProxyThatIsNotAnAddressIsRefusedNamingItsIndex(t *testing.T) {
	c := DefaultConfig()
	c.RateLimit.TrustedProxies = []string{"10.0.0.0/8", "lb.internal", "192.0.2.0/24", "300.1.1.1"}
	err := c.Validate()
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("Validate = %v, want a *ConfigError", err)
	}
	fields := config.Fields(ce.Problems)
	if strings.Join(fields, ",") != "rate_limit.trusted_proxies[1],rate_limit.trusted_proxies[3]" {
		t.Errorf("problems %v: want entries 1 and 3", ce.Problems)
	}

	on := true
	c = DefaultConfig()
	c.RateLimit.TrustForwardedFor = &on
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "rate_limit.trust_forwarded_for: replaced by trusted_proxies") {
		t.Errorf("trust_forwarded_for: %v", err)
	}
}

// The admin API changes the numbers and keeps the list; trust_forwarded_for is no parameter any
// more, and a change of it recorded by an older version is skipped when the server starts.
func TestTheAdminAPIKeepsTheTrustedProxiesAndRefusesTrustForwardedFor(t *testing.T) {
	env := pxServer(t, []string{"127.0.0.1"}, jtAdmin)
	ps := jtParams(t, env.admin("GET", ""))
	for name := range ps {
		if strings.Contains(name, "forwarded") || strings.Contains(name, "proxies") {
			t.Errorf("GET /admin/config lists %s", name)
		}
	}
	r := env.admin("POST", `{"param":"rate_limit.trust_forwarded_for","value":1}`)
	r.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
	if !strings.Contains(string(r.Body), "replaced by trusted_proxies") {
		t.Errorf("the refusal does not say what replaced it: %s", r.Body)
	}

	env.admin("POST", `{"param":"rate_limit.write.rolling_limit","value":3}`).want(t, http.StatusOK, "")
	s := pxSubmitter(env)
	if a, b := s.accepted(t, "203.0.113.1", 4), s.accepted(t, "203.0.113.2", 4); a != 3 || b != 3 {
		t.Errorf("after the admin's change: A %d, B %d of 4 accepted, want 3 each (the new limit, the proxies kept)", a, b)
	}

	// An older version recorded trust_forwarded_for = 1; the restarted server skips it.
	ev, err := env.srv.codec.Encode(domain.ConfigChanged{Param: "rate_limit.trust_forwarded_for",
		Old: json.RawMessage("0"), New: json.RawMessage("1"), Who: "admin-old", At: env.clock.Now()}, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := env.store.Append(ctx, domain.ConfigStream, eventstore.Any, ev); err != nil {
		t.Fatal(err)
	}
	env.restart()
	if logs := env.logs.String(); !strings.Contains(logs, "no longer applies") || !strings.Contains(logs, "trust_forwarded_for") {
		t.Errorf("the old change was not reported as skipped:\n%s", logs)
	}
	// s goes on over the restarted env, its numbering too, so no submission repeats a job.
	if a, b := s.accepted(t, "203.0.113.4", 4), s.accepted(t, "203.0.113.5", 4); a != 3 || b != 3 {
		t.Errorf("after the restart: A %d, B %d of 4 accepted, want 3 each", a, b)
	}
}
