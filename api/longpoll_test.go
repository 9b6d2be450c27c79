package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"relayer/api/ratelimit"
	"relayer/domain"
	"relayer/eventstore"
)

// lpResult is a response and when it arrived.
type lpResult struct {
	res jtResponse
	err error
	at  time.Time
}

// lpGet sends a GET from a goroutine of its own; its result arrives on the channel.
func lpGet(env *jtEnv, path string, header ...string) <-chan lpResult {
	out := make(chan lpResult, 1)
	go func() {
		r, err := jtTry(http.DefaultClient, env.ts.URL, "GET", path, nil, header...)
		out <- lpResult{r, err, time.Now()}
	}()
	return out
}

// lpAwait returns the result of an lpGet, failing the test after 10 s.
func lpAwait(tb testing.TB, ch <-chan lpResult) lpResult {
	tb.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			tb.Fatal(r.err)
		}
		return r
	case <-time.After(10 * time.Second):
		tb.Fatal("no answer in 10 s")
	}
	return lpResult{}
}

// lpNotYet fails the test if the GET answered already.
func lpNotYet(tb testing.TB, ch <-chan lpResult, why string) {
	tb.Helper()
	select {
	case r := <-ch:
		tb.Fatalf("answered %d before %s: %s", r.res.Code, why, r.res.Body)
	default:
	}
}

// lpWatchers waits until the projections count n watchers.
func lpWatchers(tb testing.TB, env *jtEnv, n int) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for env.set.Watchers() != n {
		if time.Now().After(deadline) {
			tb.Fatalf("%d watchers, want %d", env.set.Watchers(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// lpSameAsPlain fails the test unless got answers as a GET without a wait answers now: the same
// status code, Retry-After and body (the request id aside).
func lpSameAsPlain(tb testing.TB, env *jtEnv, path string, got jtResponse) {
	tb.Helper()
	plain := env.do("GET", path, nil)
	norm := func(r jtResponse) string { return strings.Replace(string(r.Body), r.Env.RequestID, "<request-id>", 1) }
	if got.Code != plain.Code || got.Header.Get("Retry-After") != plain.Header.Get("Retry-After") || norm(got) != norm(plain) {
		tb.Fatalf("the long poll answered\n  %d Retry-After %q %s\nwhere a plain GET answers\n  %d Retry-After %q %s",
			got.Code, got.Header.Get("Retry-After"), got.Body, plain.Code, plain.Header.Get("Retry-After"), plain.Body)
	}
}

func lpState(tb testing.TB, r jtResponse) string {
	tb.Helper()
	var res struct {
		State string `json:"state"`
	}
	_ = json.Unmarshal(r.Env.Result, &res)
	return res.State
}

func TestAWaitingGetIsAnsweredByItsJobsStatusChangeWithTheNewStatus(t *testing.T) {
	env := startJT(t)
	id := env.accept(domain.PublicDecrypt, 1)
	path := "/v2/public-decrypt/" + id.String()
	steps := []struct {
		cmd  domain.Command
		code int
		want string // the state of a 202
	}{
		{domain.PassReadiness{At: env.clock.At(0)}, http.StatusAccepted, "processing"},
		{env.sign(1), http.StatusAccepted, "tx_in_flight"},
		{env.receipt(1), http.StatusAccepted, "receipt_received"},
		{domain.Complete{At: env.clock.At(0), Result: domain.Result{PublicDecrypt: &domain.PublicDecryptResult{
			DecryptedValue: "0x2a", Signatures: []string{"0xcc"}, ExtraData: "0x00"}}}, http.StatusOK, ""},
	}
	for _, step := range steps {
		got := lpGet(env, path+"?wait=20")
		lpWatchers(t, env, 1)
		time.Sleep(20 * time.Millisecond)
		lpNotYet(t, got, "the job changed")
		appended := time.Now()
		env.exec1(id, step.cmd)
		r := lpAwait(t, got)
		// Woken by the change, not by the end of the 20 s wait; how fast is the benchmarks' to
		// say (BenchmarkLongPollWaiters, relayer loadgen), not a unit test's on a shared machine.
		if lat := r.at.Sub(appended); lat > 5*time.Second {
			t.Errorf("%s: answered %s after the append: not woken by the change", step.cmd.CommandName(), lat)
		} else {
			t.Logf("%s: answered %s after the append began", step.cmd.CommandName(), lat.Round(10*time.Microsecond))
		}
		r.res.want(t, step.code, "")
		if step.want != "" && lpState(t, r.res) != step.want {
			t.Fatalf("%s: state %q, want %q: %s", step.cmd.CommandName(), lpState(t, r.res), step.want, r.res.Body)
		}
		if r.res.Header.Get(headerWaitApplied) != "20" {
			t.Fatalf("Wait-Applied %q, want 20", r.res.Header.Get(headerWaitApplied))
		}
		lpSameAsPlain(t, env, path, r.res)
		lpWatchers(t, env, 0)
	}
}

func TestAWaitWithoutAChangeAnswersThePending202WithItsRetryAfterWhenItEnds(t *testing.T) {
	env := startJT(t)
	id := env.accept(domain.InputProof, 1)
	path := "/v2/input-proof/" + id.String()
	start := time.Now()
	r := lpAwait(t, lpGet(env, path+"?wait=1"))
	if took := r.at.Sub(start); took < time.Second || took > 2500*time.Millisecond {
		t.Fatalf("answered after %s, want about the 1 s wait", took)
	}
	r.res.want(t, http.StatusAccepted, "")
	if lpState(t, r.res) != "processing" || r.res.retryAfter(t) < 1 {
		t.Fatalf("state %q, Retry-After %q: %s", lpState(t, r.res), r.res.Header.Get("Retry-After"), r.res.Body)
	}
	lpSameAsPlain(t, env, path, r.res)
	lpWatchers(t, env, 0)
}

func TestAJobThatEndedOrThatIsUnknownIsAnsweredAtOnce(t *testing.T) {
	env := startJT(t)
	done := env.accept(domain.InputProof, 1)
	env.exec1(done, env.sign(1), env.receipt(1), domain.Complete{At: env.clock.At(0), Result: domain.Result{InputProof: &domain.InputProofResult{
		Accepted: true, Handles: []string{jtHandle(1)}, Signatures: []string{"0xaa"}, ExtraData: "0x00"}}})
	failed := env.accept(domain.PublicDecrypt, 2)
	env.exec1(failed, domain.TimeOutReadiness{At: env.clock.At(0)})
	cases := []struct {
		path string
		code int
	}{
		{"/v2/input-proof/" + done.String(), http.StatusOK},
		{"/v2/public-decrypt/" + failed.String(), http.StatusServiceUnavailable},
		{"/v2/public-decrypt/" + done.String(), http.StatusNotFound}, // a job of another kind
		{"/v2/public-decrypt/0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11", http.StatusNotFound},
	}
	for _, c := range cases {
		for _, header := range [][]string{nil, {"Prefer", "wait=30"}} {
			p := c.path
			if header == nil {
				p += "?wait=30"
			}
			start := time.Now()
			r := lpAwait(t, lpGet(env, p, header...))
			if took := r.at.Sub(start); took > 500*time.Millisecond {
				t.Fatalf("%s %v: answered after %s, want at once", p, header, took)
			}
			if r.res.Code != c.code {
				t.Fatalf("%s %v: %d, want %d: %s", p, header, r.res.Code, c.code, r.res.Body)
			}
			lpSameAsPlain(t, env, c.path, r.res)
		}
	}
	lpWatchers(t, env, 0)
}

func TestThePreferHeaderWaitsAndSaysSoInPreferenceApplied(t *testing.T) {
	env := startJT(t)
	id := env.accept(domain.PublicDecrypt, 1)
	path := "/v2/public-decrypt/" + id.String()

	for _, prefer := range []string{"wait=1", `respond-async, WAIT = "1" ; strict`} {
		start := time.Now()
		r := lpAwait(t, lpGet(env, path, "Prefer", prefer))
		if took := r.at.Sub(start); took < time.Second || took > 2500*time.Millisecond {
			t.Fatalf("Prefer: %s: answered after %s, want about 1 s", prefer, took)
		}
		if got := r.res.Header.Get(headerPreferenceApplied); got != "wait=1" {
			t.Fatalf("Prefer: %s: Preference-Applied %q, want wait=1", prefer, got)
		}
		if r.res.Header.Get(headerWaitApplied) != "" {
			t.Fatal("a preference answered with Wait-Applied")
		}
		lpSameAsPlain(t, env, path, r.res)
	}

	// Woken by the change, like the query's wait.
	got := lpGet(env, path, "Prefer", "wait=20")
	lpWatchers(t, env, 1)
	appended := time.Now()
	env.exec1(id, domain.PassReadiness{At: env.clock.At(0)})
	r := lpAwait(t, got)
	if lat := r.at.Sub(appended); lat > 5*time.Second || lpState(t, r.res) != "processing" {
		t.Fatalf("answered %s after the change with state %q", lat, lpState(t, r.res))
	}

	// The query wins over the header: no wait, and no Preference-Applied.
	start := time.Now()
	r = lpAwait(t, lpGet(env, path+"?wait=0", "Prefer", "wait=5"))
	if took := r.at.Sub(start); took > 500*time.Millisecond {
		t.Fatalf("?wait=0 with Prefer: wait=5 answered after %s, want at once", took)
	}
	if r.res.Header.Get(headerWaitApplied) != "0" || r.res.Header.Get(headerPreferenceApplied) != "" {
		t.Fatalf("Wait-Applied %q, Preference-Applied %q: want 0 and none", r.res.Header.Get(headerWaitApplied), r.res.Header.Get(headerPreferenceApplied))
	}
	lpSameAsPlain(t, env, path, r.res)
}

func TestAMalformedWaitPreferenceIsIgnored(t *testing.T) {
	cases := []struct {
		values []string
		secs   int64
		ok     bool
	}{
		{[]string{"wait=5"}, 5, true},
		{[]string{"Wait=5"}, 5, true},
		{[]string{" wait = 5 "}, 5, true},
		{[]string{`wait="5"`}, 5, true},
		{[]string{"respond-async", "wait=7;x=y"}, 7, true},
		{[]string{`foo="a,wait=3", wait=4`}, 4, true},
		{[]string{"wait=99999999999999999999999"}, 1<<31 - 1, true},
		{[]string{"wait=007"}, 7, true},
		{nil, 0, false},
		{[]string{""}, 0, false},
		{[]string{"wait"}, 0, false},
		{[]string{"wait="}, 0, false},
		{[]string{"wait=abc"}, 0, false},
		{[]string{"wait=-1"}, 0, false},
		{[]string{"wait=1.5"}, 0, false},
		{[]string{"wait=abc, wait=5"}, 0, false}, // only the first occurrence counts
		{[]string{"wait=5", "wait=9"}, 5, true},
		{[]string{"return=minimal; wait=3"}, 0, false}, // a parameter of another preference
	}
	for _, c := range cases {
		secs, ok := preferredWait(c.values)
		if secs != c.secs || ok != c.ok {
			t.Errorf("Prefer %q: %d %v, want %d %v", c.values, secs, ok, c.secs, c.ok)
		}
	}
}

func TestTheWaitIsCappedAtAMinuteAndBelowTheServersWriteTimeout(t *testing.T) {
	caps := []struct {
		read, write time.Duration
		want        time.Duration
	}{
		{DefaultReadTimeout, DefaultWriteTimeout, 28 * time.Second},
		{time.Hour, time.Hour, time.Minute},
		{time.Second, time.Hour, time.Minute}, // the read timeout does not bound a GET's handler
		{time.Hour, 10 * time.Second, 8 * time.Second},
		{time.Hour, 3500 * time.Millisecond, time.Second},
		{time.Hour, 2 * time.Second, 0},
	}
	for _, c := range caps {
		s := &Server{cfg: DefaultConfig()}
		s.cfg.HTTP.ReadTimeout, s.cfg.HTTP.WriteTimeout = c.read, c.write
		if got := s.longPollCap(); got != c.want {
			t.Errorf("read timeout %s, write timeout %s: cap %s, want %s", c.read, c.write, got, c.want)
		}
	}

	env := startJT(t, func(c *Config) { c.HTTP.WriteTimeout = 3 * time.Second })
	id := env.accept(domain.PublicDecrypt, 1)
	path := "/v2/public-decrypt/" + id.String()
	for _, c := range []struct {
		path, header, value string
		wantHeader, want    string
	}{
		{path + "?wait=60", "", "", headerWaitApplied, "1"},
		{path, "Prefer", "wait=99999999999999", headerPreferenceApplied, "wait=1"},
	} {
		start := time.Now()
		var header []string
		if c.header != "" {
			header = []string{c.header, c.value}
		}
		r := lpAwait(t, lpGet(env, c.path, header...))
		if took := r.at.Sub(start); took < time.Second || took > 2500*time.Millisecond {
			t.Fatalf("%s %s: answered after %s, want the 1 s cap", c.path, c.value, took)
		}
		if got := r.res.Header.Get(c.wantHeader); got != c.want {
			t.Fatalf("%s: %q, want %q", c.wantHeader, got, c.want)
		}
		r.res.want(t, http.StatusAccepted, "")
	}
}

func TestALongPollThroughTheServersOwnHTTPServerOutlivesTheReadTimeoutAndBeatsTheWriteTimeout(t *testing.T) {
	env := startJT(t, func(c *Config) { c.HTTP.ReadTimeout, c.HTTP.WriteTimeout = time.Second, 4*time.Second })
	id := env.accept(domain.PublicDecrypt, 1)
	ln := jtListen(t)
	srv := env.srv.HTTPServer()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	start := time.Now()
	res, err := jtTry(http.DefaultClient, "http://"+ln.Addr().String(), "GET", "/v2/public-decrypt/"+id.String()+"?wait=60", nil)
	if err != nil {
		t.Fatalf("the long poll was cut: %v", err)
	}
	took := time.Since(start)
	if got := res.Header.Get(headerWaitApplied); got != "2" {
		t.Fatalf("Wait-Applied %q, want 2 (the 4 s write timeout less the margin)", got)
	}
	if took < 2*time.Second || took > 3500*time.Millisecond {
		t.Fatalf("answered after %s, want the 2 s granted (past the 1 s read timeout)", took)
	}
	res.want(t, http.StatusAccepted, "")
	lpSameAsPlain(t, env, "/v2/public-decrypt/"+id.String(), res)
}

func TestAnotherJobsChangeOrAChangeOfNoStatusDoesNotAnswerTheWaitEarly(t *testing.T) {
	env := startJT(t)
	a := env.accept(domain.PublicDecrypt, 1)
	b := env.accept(domain.PublicDecrypt, 2)
	path := "/v2/public-decrypt/" + a.String()
	start := time.Now()
	got := lpGet(env, path+"?wait=1")
	lpWatchers(t, env, 1)
	env.exec1(b, domain.PassReadiness{At: env.clock.At(0)})  // another job's status
	env.exec1(a, domain.StartReadiness{At: env.clock.At(0)}) // a's queue, not its status
	env.exec1(b, env.sign(2))                                // another job's again
	time.Sleep(100 * time.Millisecond)
	lpNotYet(t, got, "its wait ended (another job changed, or the job changed no status)")
	r := lpAwait(t, got)
	if took := r.at.Sub(start); took < time.Second {
		t.Fatalf("answered after %s, before the 1 s wait ended", took)
	}
	r.res.want(t, http.StatusAccepted, "")
	if lpState(t, r.res) != "queued" {
		t.Fatalf("state %q, want queued", lpState(t, r.res))
	}
	lpSameAsPlain(t, env, path, r.res) // readiness_in_progress now, as a plain GET says
}

func TestAClientThatGoesAwayReleasesItsWatcher(t *testing.T) {
	env := startJT(t)
	id := env.accept(domain.PublicDecrypt, 1)
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", env.ts.URL+"/v2/public-decrypt/"+id.String()+"?wait=30", nil)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
		}
		errc <- err
	}()
	lpWatchers(t, env, 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the client's request ended with %v, want its cancellation", err)
	}
	start := time.Now()
	lpWatchers(t, env, 0)
	t.Logf("the watcher was released %s after the client went away", time.Since(start).Round(time.Microsecond))
}

func TestAServerShuttingDownAnswersItsWaitingPollsAtOnce(t *testing.T) {
	env := startJT(t)
	id := env.accept(domain.PublicDecrypt, 1)
	s := serveLoopback(t, env.srv)
	got := make(chan lpResult, 1)
	go func() {
		r, err := jtTry(http.DefaultClient, s.base, "GET", "/v2/public-decrypt/"+id.String()+"?wait=20", nil)
		got <- lpResult{r, err, time.Now()}
	}()
	lpWatchers(t, env, 1)
	stopped := time.Now()
	s.stop()
	r := lpAwait(t, got)
	if took := r.at.Sub(stopped); took > time.Second {
		t.Fatalf("answered %s after the shutdown began, want at once", took)
	}
	r.res.want(t, http.StatusAccepted, "")
	if lpState(t, r.res) != "queued" {
		t.Fatalf("state %q, want queued", lpState(t, r.res))
	}
	s.returned(t, "a waiting poll held the shutdown up")
	lpWatchers(t, env, 0)
}

func TestBadWaitValuesAre400NamingWait(t *testing.T) {
	env := startJT(t)
	id := env.accept(domain.PublicDecrypt, 1)
	path := "/v2/public-decrypt/" + id.String()
	for _, q := range []string{"wait=abc", "wait=-1", "wait=61", "wait=3600", "wait=99999999999999999999", "wait=1e3",
		"wait=", "wait", "wait=1.5", "wait=+5", "wait=%20", "wait=%zz", "wait=0x10", "wait=1&wait=2", "w%61it=abc"} {
		r := env.do("GET", path+"?"+q, nil)
		r.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
		if d := r.Env.Error.Details; len(d) != 1 || d[0].Field != "wait" {
			t.Fatalf("?%s: details %v, want one naming wait", q, d)
		}
		if r.Header.Get(headerWaitApplied) != "" {
			t.Fatalf("?%s: refused with Wait-Applied", q)
		}
	}
	// In range, percent-encoded: fine.
	r := env.do("GET", path+"?w%61it=%30", nil)
	r.want(t, http.StatusAccepted, "")
	if r.Header.Get(headerWaitApplied) != "0" {
		t.Fatalf("?w%%61it=%%30: Wait-Applied %q, want 0", r.Header.Get(headerWaitApplied))
	}
}

func TestAWaitingPollHoldsNoSlotOfTheInboundRateLimiter(t *testing.T) {
	one := 1
	env := startJT(t, func(c *Config) { c.RateLimit.Read.ConcurrencyLimit = &one })
	a := env.accept(domain.PublicDecrypt, 1)
	b := env.accept(domain.PublicDecrypt, 2)
	// The client's one read slot is free again once a wait began (it registers its watcher,
	// reads the job, then gives the slot back).
	slotFree := func() {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			release, d := env.srv.limiter.Acquire("ip:127.0.0.1", ratelimit.ClassRead, env.clock.Now())
			release()
			if d.Allowed {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the waiting poll still holds the client's read slot after 5 s")
			}
			time.Sleep(time.Millisecond)
		}
	}
	first := lpGet(env, "/v2/public-decrypt/"+a.String()+"?wait=20")
	lpWatchers(t, env, 1)
	slotFree()
	second := lpGet(env, "/v2/public-decrypt/"+b.String()+"?wait=20")
	lpWatchers(t, env, 2)
	slotFree()
	// Two waits in flight and a concurrency limit of one read: neither holds the slot.
	env.do("GET", "/v2/public-decrypt/"+a.String(), nil).want(t, http.StatusAccepted, "")
	env.exec1(a, domain.PassReadiness{At: env.clock.At(0)})
	env.exec1(b, domain.PassReadiness{At: env.clock.At(0)})
	for _, ch := range []<-chan lpResult{first, second} {
		r := lpAwait(t, ch)
		r.res.want(t, http.StatusAccepted, "")
		if lpState(t, r.res) != "processing" {
			t.Fatalf("state %q, want processing", lpState(t, r.res))
		}
	}
	// And the slots all came back.
	env.do("GET", "/v2/public-decrypt/"+a.String(), nil).want(t, http.StatusAccepted, "")
}

func TestAGetWithoutAWaitIsAnsweredByteForByteAsBefore(t *testing.T) {
	got := lpPlainGetTranscript(t)
	if got == lpGoldenPlainGets {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(lpGoldenPlainGets, "\n")
	for i := range max(len(gl), len(wl)) {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("line %d differs from the answers recorded before long polls existed:\n got %q\nwant %q\n\nwhole transcript:\n%s", i+1, g, w, got)
		}
	}
}

// --- plain GETs, byte for byte (BEGIN TRANSCRIPT) --------------------------------------------

// lpRaw sends one request over a new TCP connection, as written, and returns the whole response
// as the server wrote it (the connection closes after it).
func lpRaw(tb testing.TB, base, path string, header ...string) string {
	tb.Helper()
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	req := "GET " + path + " HTTP/1.1\r\nHost: " + u.Host + "\r\n"
	for i := 0; i+1 < len(header); i += 2 {
		req += header[i] + ": " + header[i+1] + "\r\n"
	}
	req += "Connection: close\r\n\r\n"
	if _, err := conn.Write([]byte(req)); err != nil {
		tb.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := io.ReadAll(conn)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

var (
	lpDate = regexp.MustCompile(`(?m)^Date: .*\r$`)
	lpUUID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
)

// lpPlainGetTranscript answers a set of GETs without a wait (pending jobs in each stage, a
// result, a failure, an unknown job, a malformed id, unrelated query parameters, Prefer headers
// without a well-formed wait, and the inbound rate limiter's headers) and returns the raw
// responses, with the Date header, the request ids and the job ids replaced by placeholders.
func lpPlainGetTranscript(t *testing.T) string {
	var out strings.Builder
	names := map[string]string{}
	for _, limited := range []bool{false, true} {
		env := startJT(t, func(c *Config) {
			if limited {
				c.RateLimit = DefaultConfig().RateLimit
			}
		})
		queued := env.accept(domain.PublicDecrypt, 1)
		inTx := env.accept(domain.InputProof, 2)
		flight := env.accept(domain.InputProof, 3)
		env.exec1(flight, env.sign(3))
		env.clock.Advance(7 * time.Second)
		done := env.accept(domain.InputProof, 4)
		env.exec1(done, env.sign(4), env.receipt(4), domain.Complete{At: env.clock.At(0), Result: domain.Result{InputProof: &domain.InputProofResult{
			Accepted: true, Handles: []string{jtHandle(4)}, Signatures: []string{"0xaa"}, ExtraData: "0x00"}}})
		failed := env.accept(domain.PublicDecrypt, 5)
		env.exec1(failed, domain.TimeOutReadiness{At: env.clock.At(0)})
		env.clock.Advance(3 * time.Second)
		for i, id := range []domain.JobID{queued, inTx, flight, done, failed} {
			names[id.String()] = fmt.Sprintf("<job%d>", i+1)
		}
		cases := []struct {
			path   string
			header []string
		}{
			{"/v2/public-decrypt/" + queued.String(), nil},
			{"/v2/input-proof/" + inTx.String(), nil},
			{"/v2/input-proof/" + flight.String(), nil},
			{"/v2/input-proof/" + done.String(), nil},
			{"/v2/public-decrypt/" + failed.String(), nil},
			{"/v2/public-decrypt/0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11", nil},
			{"/v2/public-decrypt/not-a-uuid", nil},
			{"/v2/public-decrypt/" + queued.String() + "?foo=bar&waiting=1&w%zz", nil},
			{"/v2/public-decrypt/" + queued.String(), []string{"Prefer", "respond-async, return=minimal"}},
			{"/v2/public-decrypt/" + queued.String(), []string{"Prefer", "wait=abc"}},
			{"/v2/public-decrypt/" + queued.String(), []string{"Prefer", "wait=-1, wait=5"}},
			{"/v2/input-proof/" + done.String(), []string{"Prefer", "wait"}},
		}
		if limited {
			// The limiter's headers: a poll, and a poll with a malformed wait preference.
			cases = []struct {
				path   string
				header []string
			}{cases[0], cases[9]}
		}
		for _, c := range cases {
			raw := lpRaw(t, env.ts.URL, c.path, c.header...)
			raw = lpDate.ReplaceAllString(raw, "Date: <date>\r")
			raw = lpUUID.ReplaceAllStringFunc(raw, func(s string) string {
				if n, ok := names[s]; ok {
					return n
				}
				if s == "0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11" {
					return s
				}
				return "<request-id>"
			})
			path := lpUUID.ReplaceAllStringFunc(c.path, func(s string) string {
				if n, ok := names[s]; ok {
					return n
				}
				return s
			})
			fmt.Fprintf(&out, "### limited=%v GET %s %q\n%s\n", limited, path, c.header, raw)
		}
	}
	return strings.ReplaceAll(out.String(), "\r", "")
}

// (END TRANSCRIPT)

// lpGoldenPlainGets is lpPlainGetTranscript as the server answered before long polls existed
// (recorded from the commit before them), but for the hints: the Retry-After policy changed since
// (issue 13: a queued decrypt's ETA counts its readiness check, 5 -> 7 s; hints round to the
// nearest second with no margin by default, 3 -> 2 s for an input proof in tx_in_flight).
const lpGoldenPlainGets = `### limited=false GET /v2/public-decrypt/<job1> []
HTTP/1.1 202 Accepted
Content-Type: application/json
Retry-After: 6
Date: <date>
Content-Length: 257
Connection: close

{"status":"queued","requestId":"<request-id>","result":{"jobId":"<job1>","state":"queued","etaSeconds":7,"elapsedSeconds":10,"retryAfterSeconds":6,"queue":"readiness","queuePosition":0,"queueLength":1}}

### limited=false GET /v2/input-proof/<job2> []
HTTP/1.1 202 Accepted
Content-Type: application/json
Retry-After: 2
Date: <date>
Content-Length: 254
Connection: close

{"status":"queued","requestId":"<request-id>","result":{"jobId":"<job2>","state":"processing","etaSeconds":3,"elapsedSeconds":10,"retryAfterSeconds":2,"queue":"tx","queuePosition":0,"queueLength":1}}

### limited=false GET /v2/input-proof/<job3> []
HTTP/1.1 202 Accepted
Content-Type: application/json
Retry-After: 2
Date: <date>
Content-Length: 209
Connection: close

{"status":"queued","requestId":"<request-id>","result":{"jobId":"<job3>","state":"tx_in_flight","etaSeconds":2,"elapsedSeconds":10,"retryAfterSeconds":2}}

### limited=false GET /v2/input-proof/<job4> []
HTTP/1.1 200 OK
Content-Type: application/json
Date: <date>
Content-Length: 223
Connection: close

{"status":"succeeded","requestId":"<request-id>","result":{"accepted":true,"handles":["0x00000000000000045e0000000000000000000000000000000000000005390500"],"signatures":["0xaa"],"extraData":"0x00"}}

### limited=false GET /v2/public-decrypt/<job5> []
HTTP/1.1 503 Service Unavailable
Content-Type: application/json
Date: <date>
Content-Length: 256
Connection: close

{"status":"failed","requestId":"<request-id>","error":{"label":"readiness_check_timed_out","message":"the ciphertexts were not ready for decryption in time; submit the request again","jobId":"<job5>"}}

### limited=false GET /v2/public-decrypt/0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11 []
HTTP/1.1 404 Not Found
Content-Type: application/json
Date: <date>
Content-Length: 172
Connection: close

{"status":"failed","requestId":"<request-id>","error":{"label":"not_found","message":"no public-decrypt job 0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11"}}

### limited=false GET /v2/public-decrypt/not-a-uuid []
HTTP/1.1 400 Bad Request
Content-Type: application/json
Date: <date>
Content-Length: 233
Connection: close

{"status":"failed","requestId":"<request-id>","error":{"label":"validation_failed","message":"invalid job id","details":[{"field":"jobId","issue":"must be a UUID like 0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11"}]}}

### limited=false GET /v2/public-decrypt/<job1>?foo=bar&waiting=1&w%zz []
HTTP/1.1 202 Accepted
Content-Type: application/json
Retry-After: 6
Date: <date>
Content-Length: 257
Connection: close

{"status":"queued","requestId":"<request-id>","result":{"jobId":"<job1>","state":"queued","etaSeconds":7,"elapsedSeconds":10,"retryAfterSeconds":6,"queue":"readiness","queuePosition":0,"queueLength":1}}

### limited=false GET /v2/public-decrypt/<job1> ["Prefer" "respond-async, return=minimal"]
HTTP/1.1 202 Accepted
Content-Type: application/json
Retry-After: 6
Date: <date>
Content-Length: 257
Connection: close

{"status":"queued","requestId":"<request-id>","result":{"jobId":"<job1>","state":"queued","etaSeconds":7,"elapsedSeconds":10,"retryAfterSeconds":6,"queue":"readiness","queuePosition":0,"queueLength":1}}

### limited=false GET /v2/public-decrypt/<job1> ["Prefer" "wait=abc"]
HTTP/1.1 202 Accepted
Content-Type: application/json
Retry-After: 6
Date: <date>
Content-Length: 257
Connection: close

{"status":"queued","requestId":"<request-id>","result":{"jobId":"<job1>","state":"queued","etaSeconds":7,"elapsedSeconds":10,"retryAfterSeconds":6,"queue":"readiness","queuePosition":0,"queueLength":1}}

### limited=false GET /v2/public-decrypt/<job1> ["Prefer" "wait=-1, wait=5"]
HTTP/1.1 202 Accepted
Content-Type: application/json
Retry-After: 6
Date: <date>
Content-Length: 257
Connection: close

{"status":"queued","requestId":"<request-id>","result":{"jobId":"<job1>","state":"queued","etaSeconds":7,"elapsedSeconds":10,"retryAfterSeconds":6,"queue":"readiness","queuePosition":0,"queueLength":1}}

### limited=false GET /v2/input-proof/<job4> ["Prefer" "wait"]
HTTP/1.1 200 OK
Content-Type: application/json
Date: <date>
Content-Length: 223
Connection: close

{"status":"succeeded","requestId":"<request-id>","result":{"accepted":true,"handles":["0x00000000000000045e0000000000000000000000000000000000000005390500"],"signatures":["0xaa"],"extraData":"0x00"}}

### limited=true GET /v2/public-decrypt/<job1> []
HTTP/1.1 202 Accepted
Content-Type: application/json
Ratelimit: "read-rolling";r=599;t=10, "read-concurrency";r=31
Ratelimit-Policy: "read-rolling";q=600;w=10, "read-concurrency";q=32;qu="concurrent-requests"
Retry-After: 6
Date: <date>
Content-Length: 257
Connection: close

{"status":"queued","requestId":"<request-id>","result":{"jobId":"<job1>","state":"queued","etaSeconds":7,"elapsedSeconds":10,"retryAfterSeconds":6,"queue":"readiness","queuePosition":0,"queueLength":1}}

### limited=true GET /v2/public-decrypt/<job1> ["Prefer" "wait=abc"]
HTTP/1.1 202 Accepted
Content-Type: application/json
Ratelimit: "read-rolling";r=598;t=10, "read-concurrency";r=31
Ratelimit-Policy: "read-rolling";q=600;w=10, "read-concurrency";q=32;qu="concurrent-requests"
Retry-After: 6
Date: <date>
Content-Length: 257
Connection: close

{"status":"queued","requestId":"<request-id>","result":{"jobId":"<job1>","state":"queued","etaSeconds":7,"elapsedSeconds":10,"retryAfterSeconds":6,"queue":"readiness","queuePosition":0,"queueLength":1}}

`

// --- many waiters (BenchmarkLongPollWaiters) -----------------------------------------------

// lpWaitersReport is what lpMeasureWaiters measured.
type lpWaitersReport struct {
	n int
	// Server process, after a full collection, with the n clients waiting, per waiter: live heap,
	// goroutine stacks, goroutines.
	heapPerWaiter, stackPerWaiter, goroutinesPerWaiter float64
	// CPU time the server process used (user + system) per second of wall time, idle, before the
	// clients came and while they waited: in cores (0.01 is 1 % of one core).
	idleCoresBefore, idleCoresWaiting float64
	// Wake-up latency of each client: from its job's append returning (and, for the upper
	// bound, from the append's start) to the client reading its answer's last byte.
	p50, p99, max, p50FromStart, p99FromStart time.Duration
	// How fast the changes were appended (statuses changed per second).
	changesPerSecond float64
}

// lpIdle is how long the idle CPU is measured.
const lpIdle = 3 * time.Second

// lpMeasureWaiters has n clients long-poll n pending jobs at once over raw TCP connections from a
// child process (this test binary, running TestLongPollWaitersClientProcess): each side needs a
// file descriptor per connection, and one process could not hold both ends of 10,000 under a
// 20,000 limit; it also keeps the clients' memory and CPU out of the server's numbers. Once all
// wait, it measures the server process's memory and idle CPU, then moves every job on (one
// status change each) and measures when each client got its answer.
func lpMeasureWaiters(tb testing.TB, n int) lpWaitersReport {
	env := startJT(tb, func(c *Config) {
		// Long enough for the longest wait (60 s) and the time it takes to connect everybody.
		c.HTTP.ReadTimeout, c.HTTP.WriteTimeout = 2*time.Minute, 2*time.Minute
	})
	ids := make([]domain.JobID, n)
	lpParallel(tb, n, func(i int) error {
		ids[i] = domain.NewJobID()
		req := jtRequest(tb, domain.PublicDecrypt, uint64(i))
		_, err := env.exec.Execute(context.Background(), ids[i], domain.Accept{At: env.clock.At(0), JobID: ids[i], Request: req, ContentHash: domain.ContentHash(req)},
			eventstore.Metadata{CorrelationID: "bench"})
		return err
	})
	head, err := env.store.Head(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	if err := env.set.WaitFor(context.Background(), head); err != nil {
		tb.Fatal(err)
	}

	dir := tb.TempDir()
	var paths strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&paths, "/v2/public-decrypt/%s?wait=60\n", id)
	}
	pathsFile, outFile := filepath.Join(dir, "paths"), filepath.Join(dir, "out")
	if err := os.WriteFile(pathsFile, []byte(paths.String()), 0o644); err != nil {
		tb.Fatal(err)
	}

	rep := lpWaitersReport{n: n}
	heap0, stack0, g0 := lpMemory()
	rep.idleCoresBefore = lpIdleCores(lpIdle)

	cmd := exec.Command(os.Args[0], "-test.run=^TestLongPollWaitersClientProcess$", "-test.count=1", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), "LP_WAITERS_ADDR="+strings.TrimPrefix(env.ts.URL, "http://"), "LP_WAITERS_PATHS="+pathsFile, "LP_WAITERS_OUT="+outFile)
	var childOut strings.Builder
	cmd.Stdout, cmd.Stderr = &childOut, &childOut
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	childDone := false
	defer func() {
		if !childDone {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	start := time.Now()
	for env.set.Watchers() < n {
		select {
		case err := <-exited:
			childDone = true
			tb.Fatalf("the clients' process ended with %v before all waited (%d of %d):\n%s", err, env.set.Watchers(), n, childOut.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Since(start) > 2*time.Minute {
			tb.Fatalf("%d of %d clients wait after 2 min", env.set.Watchers(), n)
		}
	}
	tb.Logf("%d clients waiting %s after the clients' process started", n, time.Since(start).Round(time.Millisecond))
	heap1, stack1, g1 := lpMemory()
	rep.heapPerWaiter = (float64(heap1) - float64(heap0)) / float64(n)
	rep.stackPerWaiter = (float64(stack1) - float64(stack0)) / float64(n)
	rep.goroutinesPerWaiter = float64(g1-g0) / float64(n)
	rep.idleCoresWaiting = lpIdleCores(lpIdle)
	if w := env.set.Watchers(); w != n {
		tb.Fatalf("%d watchers after the idle spell, want %d: some answered early", w, n)
	}

	began, appended := make([]int64, n), make([]int64, n)
	wakeStart := time.Now()
	lpParallel(tb, n, func(i int) error {
		began[i] = time.Now().UnixNano()
		_, err := env.exec.Execute(context.Background(), ids[i], domain.PassReadiness{At: env.clock.At(0)}, eventstore.Metadata{CorrelationID: "bench"})
		appended[i] = time.Now().UnixNano()
		return err
	})
	rep.changesPerSecond = float64(n) / time.Since(wakeStart).Seconds()
	select {
	case err := <-exited:
		childDone = true
		if err != nil {
			tb.Fatalf("the clients' process: %v\n%s", err, childOut.String())
		}
	case <-time.After(2 * time.Minute):
		tb.Fatal("the clients did not all get their answers in 2 min")
	}
	out, err := os.ReadFile(outFile)
	if err != nil {
		tb.Fatal(err)
	}
	var fromDone, fromStart []time.Duration
	for line := range strings.Lines(string(out)) {
		var i, code int
		var at int64
		if _, err := fmt.Sscan(line, &i, &code, &at); err != nil {
			tb.Fatalf("clients' result %q: %v", line, err)
		}
		if code != http.StatusAccepted {
			tb.Fatalf("client %d got %d, want the 202 of its job's new status", i, code)
		}
		fromDone = append(fromDone, max(time.Duration(at-appended[i]), 0))
		fromStart = append(fromStart, time.Duration(at-began[i]))
	}
	if len(fromDone) != n {
		tb.Fatalf("%d answers, want %d", len(fromDone), n)
	}
	lat := [][]time.Duration{fromDone}
	rep.p50, rep.p99, rep.max = percentile(lat, 0.50), percentile(lat, 0.99), percentile(lat, 1)
	rep.p50FromStart, rep.p99FromStart = percentile([][]time.Duration{fromStart}, 0.50), percentile([][]time.Duration{fromStart}, 0.99)
	lpWatchers(tb, env, 0)
	return rep
}

// lpParallel runs f(0..n-1) on 32 goroutines and fails the test with the first error.
func lpParallel(tb testing.TB, n int, f func(i int) error) {
	tb.Helper()
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		tb.Fatal(err)
	}
}

// lpMemory returns the live heap, the goroutine stacks and the goroutines after a full collection.
func lpMemory() (heap, stack uint64, goroutines int) {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, m.StackInuse, runtime.NumGoroutine()
}

// lpIdleCores sleeps d and returns the CPU time the process used meanwhile per second.
func lpIdleCores(d time.Duration) float64 {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	c0, t0 := cpu(), time.Now()
	time.Sleep(d)
	return float64(cpu()-c0) / float64(time.Since(t0))
}

// TestLongPollWaitersClientProcess is the clients of lpMeasureWaiters, in a process of their own;
// it does nothing unless started by it. It opens one connection per path, sends each a GET, and
// once every answer came writes "index status unix-nanoseconds" per answer.
func TestLongPollWaitersClientProcess(t *testing.T) {
	addr := os.Getenv("LP_WAITERS_ADDR")
	if addr == "" {
		t.Skip("the clients of BenchmarkLongPollWaiters: run by it")
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil && lim.Cur < lim.Max {
		lim.Cur = lim.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
	b, err := os.ReadFile(os.Getenv("LP_WAITERS_PATHS"))
	if err != nil {
		t.Fatal(err)
	}
	paths := strings.Fields(string(b))
	codes, at := make([]int, len(paths)), make([]int64, len(paths))
	var answered sync.WaitGroup
	var failed atomic.Value
	// Connect from a few goroutines (the listen backlog is finite); each connection's reader
	// then waits for its answer.
	lpParallel(t, len(paths), func(i int) error {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			return err
		}
		if _, err := conn.Write([]byte("GET " + paths[i] + " HTTP/1.1\r\nHost: " + addr + "\r\n\r\n")); err != nil {
			return err
		}
		answered.Go(func() {
			defer conn.Close()
			code, err := readRawResponse(bufio.NewReaderSize(conn, 1024))
			at[i], codes[i] = time.Now().UnixNano(), code
			if err != nil {
				failed.Store(fmt.Errorf("client %d: %w", i, err))
			}
		})
		return nil
	})
	answered.Wait()
	if err := failed.Load(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for i := range paths {
		fmt.Fprintf(&out, "%d %d %d\n", i, codes[i], at[i])
	}
	if err := os.WriteFile(os.Getenv("LP_WAITERS_OUT"), []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A long-poll's wait is the client's choice, not the server's slowness: the request-duration
// histogram leaves it out, and relayer_long_poll_wait_seconds and relayer_long_poll_waiting
// show it.
func TestALongPollsWaitIsMeasuredApartFromTheRequestDuration(t *testing.T) {
	env := startJT(t)
	id := env.accept(domain.PublicDecrypt, 1)
	got := lpGet(env, "/v2/public-decrypt/"+id.String()+"?wait=1")
	lpWatchers(t, env, 1)
	if v := lpMetric(t, env, `relayer_long_poll_waiting`); v != 1 {
		t.Fatalf("relayer_long_poll_waiting %v with one client waiting", v)
	}
	lpAwait(t, got)
	if n, sum := lpMetric(t, env, `relayer_long_poll_wait_seconds_count`), lpMetric(t, env, `relayer_long_poll_wait_seconds_sum`); n != 1 || sum < 1 {
		t.Fatalf("relayer_long_poll_wait_seconds: count %v, sum %v; want one wait of a second", n, sum)
	}
	route := `relayer_http_request_duration_seconds_sum{code="202",method="GET",route="/v2/public-decrypt/{jobId}"}`
	if d := lpMetric(t, env, route); d >= 0.5 {
		t.Fatalf("the request duration holds the wait: %v s", d)
	}
}

// lpMetric reads one sample of /metrics by its exact name and labels.
func lpMetric(tb testing.TB, env *jtEnv, series string) float64 {
	tb.Helper()
	res := env.do("GET", "/metrics", nil)
	for _, line := range strings.Split(string(res.Body), "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil {
				tb.Fatal(err)
			}
			return v
		}
	}
	tb.Fatalf("no %s in /metrics", series)
	return 0
}

// until=done holds a wait through the job's steps until the job ends: one request for the
// answer. A wrong until is refused naming it.
func TestAWaitUntilDoneIsAnsweredOnlyWhenTheJobEnds(t *testing.T) {
	env := startJT(t)
	id := env.accept(domain.PublicDecrypt, 1)
	path := "/v2/public-decrypt/" + id.String()
	got := lpGet(env, path+"?wait=20&until=done")
	lpWatchers(t, env, 1)
	for _, cmd := range []domain.Command{domain.PassReadiness{At: env.clock.At(0)}, env.sign(1), env.receipt(1)} {
		env.exec1(id, cmd)
		lpWatchers(t, env, 1) // watching again after the step
		time.Sleep(20 * time.Millisecond)
		lpNotYet(t, got, "the job ended (it is only at "+cmd.CommandName()+")")
	}
	env.exec1(id, domain.Complete{At: env.clock.At(0), Result: domain.Result{PublicDecrypt: &domain.PublicDecryptResult{
		DecryptedValue: "0x2a", Signatures: []string{"0xcc"}, ExtraData: "0x00"}}})
	r := lpAwait(t, got)
	r.res.want(t, http.StatusOK, "")
	lpSameAsPlain(t, env, path, r.res)
	lpWatchers(t, env, 0)

	for _, q := range []string{"?wait=5&until=soon", "?wait=5&until=done&until=change"} {
		res := env.do("GET", path+q, nil)
		res.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
		if len(res.Env.Error.Details) != 1 || res.Env.Error.Details[0].Field != "until" {
			t.Fatalf("%s: %s", q, res.Body)
		}
	}
}
