package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"relayer/api"
	"relayer/domain"
	"relayer/workers"
	"relayer/workers/upstream"
)

// The secrets an RPC provider's URL carries, in its userinfo, path and query.
var rpcSecrets = []string{"alice-user", "s3cr3t-pass-7f3a", "PATHKEY0123456789", "QUERYKEY9876543210", "/v3", "apikey"}

// withRPCSecrets is base with a provider's API keys in its userinfo, path and query.
func withRPCSecrets(t *testing.T, base string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("alice-user", "s3cr3t-pass-7f3a")
	u.Path = "/v3/PATHKEY0123456789"
	u.RawQuery = "apikey=QUERYKEY9876543210"
	return u.String()
}

func checkNoRPCSecret(t *testing.T, what, s string) {
	t.Helper()
	for _, secret := range rpcSecrets {
		if strings.Contains(s, secret) {
			t.Errorf("%s holds %q:\n%s", what, secret, s)
		}
	}
}

// rateLimitingServer answers 429 with Retry-After: 1 to its first `limited` requests, then a
// JSON-RPC result.
func rateLimitingServer(t *testing.T, limited int64) *httptest.Server {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= limited {
			w.Header().Set("Retry-After", "1")
			w.Header().Set("X-RateLimit-Limit", "10")
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"0x539"}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestWatchPrintsTheRateLimitsOfUpstreamCallsOnOneReadableLineEach(t *testing.T) {
	env := startWatchEnv(t)
	// The recorder serve runs, on the watch test's real store, behind a real upstream Transport
	// calling a real server that limits the first call.
	rec, err := workers.NewRateLimitRecorder(env.store, workers.RateLimitRecorderConfig{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rec.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	stdout, stderr, _ := startWatch(t, "--url", env.ts.URL)
	waitFor(t, "watch to open the stream", func() bool { return env.streams.Load() >= 1 })
	jsonOut, jsonErr, _ := startWatch(t, "--url", env.ts.URL, "--json")
	quiet, quietErr, _ := startWatch(t, "--url", env.ts.URL, "--ratelimit=false")
	waitFor(t, "the other watches to open their streams", func() bool { return env.streams.Load() >= 3 })

	srv := rateLimitingServer(t, 1)
	tr, err := upstream.NewTransport(nil, upstream.Config{BaseDelay: time.Millisecond}, upstream.WithSink(rec))
	if err != nil {
		t.Fatal(err)
	}
	res, err := (&http.Client{Transport: tr}).Post(withRPCSecrets(t, srv.URL), "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200 after the limit", res.StatusCode)
	}
	// The recorder appends on its own goroutine: once the three events are in the log, a job's
	// transitions follow them.
	waitFor(t, "the rate limits to reach the log", func() bool {
		n := 0
		for _, err := range env.store.ReadStream(context.Background(), domain.RateLimitStream, 0) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		return n == 3
	})
	env.history(0)

	source := "http://" + srv.Listener.Addr().String()
	lines := waitLines(t, stdout, stderr, 4)
	for i, want := range []string{
		"ratelimit encountered source=" + source + " status=429 retry-after=1s attempt=1 limit=10 remaining=0",
		"ratelimit backoff source=" + source + " status=429 wait=1", // 1s and the jitter, up to a millisecond
		"ratelimit recovered source=" + source + " status=200 attempts=2 total-backoff=1",
	} {
		f := strings.SplitN(lines[i], "  ", 3)
		if len(f) != 3 || !strings.HasPrefix(f[2], want) {
			t.Errorf("line %d %q, want it to start with a time, a position and %q", i, lines[i], want)
		}
		if _, err := time.Parse("2006-01-02T15:04:05.000Z07:00", f[0]); err != nil {
			t.Errorf("line %d %q: %v", i, lines[i], err)
		}
	}
	if !strings.Contains(lines[1], "wait-from=Retry-After attempt=1") || !strings.Contains(lines[2], " elapsed=") {
		t.Errorf("backoff %q, recovered %q", lines[1], lines[2])
	}
	if !strings.Contains(lines[3], "RequestAccepted") {
		t.Errorf("line 3 %q, want the job's acceptance after the rate limits", lines[3])
	}
	checkNoRPCSecret(t, "watch's lines", stdout.String())

	// --json prints the data lines as the stream sends them.
	jl := waitLines(t, jsonOut, jsonErr, 4)
	var r api.RateLimit
	if err := json.Unmarshal([]byte(jl[0]), &r); err != nil || r.EventType != "RateLimitEncountered" || r.Source != source ||
		r.Status != 429 || r.WaitMs != 1000 || r.WaitFrom != "Retry-After" {
		t.Errorf("--json's first line %q (%v)", jl[0], err)
	}
	checkNoRPCSecret(t, "watch --json's lines", jsonOut.String())

	// --ratelimit=false leaves them out.
	ql := waitLines(t, quiet, quietErr, 1)
	if strings.Contains(ql[0], "ratelimit") || !strings.Contains(ql[0], "RequestAccepted") {
		t.Errorf("--ratelimit=false printed %q first, want the job's acceptance", ql[0])
	}
}

func TestARateLimitLineSaysWhatEachPhaseOfACallTells(t *testing.T) {
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	limit, remaining := int64(100), int64(0)
	src := "https://rpc.example.com"
	for _, c := range []struct {
		ev   domain.RateLimitEvent
		want string
	}{
		{domain.RateLimitEncountered{RateLimitCall: domain.RateLimitCall{Source: src, Attempt: 1, Class: "rate_limited", Status: 429,
			WaitMs: 1000, WaitFrom: "Retry-After", At: at}},
			"ratelimit encountered source=https://rpc.example.com status=429 retry-after=1s attempt=1"},
		{domain.RateLimitEncountered{RateLimitCall: domain.RateLimitCall{Source: src, Instance: "host-a pid 7", Attempt: 2,
			Class: "rate_limited", Status: 200, RPCCode: -32005, WaitMs: 30000, WaitFrom: "X-RateLimit", Header: "X-RateLimit",
			Limit: &limit, Remaining: &remaining, Reset: at.Add(30 * time.Second), WindowMs: 60000, Policy: "default", At: at}},
			`ratelimit encountered source=https://rpc.example.com instance="host-a pid 7" status=200 rpc-code=-32005 wait=30s ` +
				`wait-from=X-RateLimit attempt=2 limit=100 remaining=0 reset=2026-05-01T09:00:30Z window=1m0s policy=default`},
		{domain.RateLimitBackoff{RateLimitCall: domain.RateLimitCall{Source: src, Attempt: 2, Class: "server_error", Status: 503,
			WaitMs: 2250, TotalBackoffMs: 3250, ElapsedMs: 3300, At: at}},
			"ratelimit backoff source=https://rpc.example.com status=503 class=server_error wait=2.25s attempt=2 total-backoff=3.25s"},
		{domain.RateLimitRecovered{RateLimitCall: domain.RateLimitCall{Source: src, Attempt: 3, Class: "ok", Status: 200,
			TotalBackoffMs: 3250, ElapsedMs: 3400, At: at}},
			"ratelimit recovered source=https://rpc.example.com status=200 attempts=3 total-backoff=3.25s elapsed=3.4s"},
		{domain.RateLimitGaveUp{RateLimitCall: domain.RateLimitCall{Source: src, Attempt: 1, Class: "rate_limited", Status: 429,
			WaitMs: 120000, WaitFrom: "Retry-After", ElapsedMs: 5, Reason: "time budget exhausted", At: at}},
			`ratelimit gave-up source=https://rpc.example.com status=429 wait=2m0s wait-from=Retry-After attempts=1 elapsed=5ms reason="time budget exhausted"`},
	} {
		got := rateLimitLine(api.RateLimit{EventType: c.ev.EventType(), Position: 42, RateLimitCall: c.ev.Call()})
		if want := "2026-05-01T09:00:00.000Z  42  " + c.want; got != want {
			t.Errorf("%s:\ngot  %s\nwant %s", c.ev.EventType(), got, want)
		}
	}
}
