package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"relayer/domain"
)

// Findings of the outside probe (issue: hardening), each with the test that fails on the
// behaviour it found.

// A web page can make its visitors' browsers POST text/plain, form and multipart bodies to any
// origin without a preflight; only JSON bodies are taken, so such a page cannot submit requests.
func TestAPostWhoseBodyIsNotDeclaredJSONIsRefusedWith415AndChangesNothing(t *testing.T) {
	env := startJT(t, jtAdmin)
	body := jtBody(domain.InputProof, 1)
	for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "", "application/jsonp", "application/json-seq", "application/json; charset=utf-16", "application/json; charset=latin1"} {
		for _, path := range []string{"/v2/input-proof", "/v2/public-decrypt", "/v2/user-decrypt", "/v2/delegated-user-decrypt"} {
			res := env.do("POST", path, body, "Content-Type", ct)
			res.want(t, http.StatusUnsupportedMediaType, labelUnsupportedMediaType)
			if d := res.Env.Error.Details; len(d) != 1 || d[0].Field != "Content-Type" {
				t.Errorf("%s with %q: details %v, want the Content-Type field", path, ct, d)
			}
		}
		res := env.do("POST", "/admin/config", []byte(`{"param":"input_proof_throttler_tps","value":7}`), "Content-Type", ct, "Authorization", "Bearer "+jtToken)
		res.want(t, http.StatusUnsupportedMediaType, labelUnsupportedMediaType)
	}
	if n := env.countEvents("RequestAccepted") + env.countEvents("ConfigChanged"); n != 0 {
		t.Fatalf("%d events appended for refused bodies", n)
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON", "application/json; charset=UTF8"} {
		env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 2), "Content-Type", ct).want(t, http.StatusAccepted, "")
	}
	// An encoded body is refused naming Content-Encoding, not read as malformed JSON (found by an
	// outside probe); identity is no encoding.
	for _, path := range []string{"/v2/input-proof", "/v2/public-decrypt"} {
		res := env.do("POST", path, []byte("\x1f\x8b\x08\x00"), "Content-Encoding", "gzip")
		res.want(t, http.StatusUnsupportedMediaType, labelUnsupportedMediaType)
		if d := res.Env.Error.Details; len(d) != 1 || d[0].Field != "Content-Encoding" {
			t.Errorf("%s with Content-Encoding: gzip: details %v, want the Content-Encoding field", path, d)
		}
	}
	env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 3), "Content-Encoding", "identity").want(t, http.StatusAccepted, "")
}

// The refusal that blocks its client is answered 429 from the block it started, even when the
// block is over by the time the answer is written (a review made the clock jump two seconds at
// each reading: the answer was an empty 200).
func TestTheRefusalThatBlocksItsClientIsAnswered429WhateverTheClockDoesMeanwhile(t *testing.T) {
	env := startJT(t, jtAdmin)
	var mu sync.Mutex
	n := 0
	env.srv.now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		n++
		return env.clock.Now().Add(time.Duration(n) * 2 * time.Second)
	}
	for i := range adminFreeFailures + 1 {
		res := env.do("GET", "/admin/config", nil, "Authorization", "Bearer not-the-token-but-a-guess-of-32-bytes!")
		want := http.StatusUnauthorized
		if i == adminFreeFailures {
			want = http.StatusTooManyRequests
		}
		if res.Code != want || (want == http.StatusTooManyRequests && res.Header.Get("Retry-After") == "") {
			t.Fatalf("refusal %d: %d (Retry-After %q) %q, want %d", i+1, res.Code, res.Header.Get("Retry-After"), res.Body, want)
		}
	}
}

// encoding/json keeps the last of duplicate members silently: a change reviewed as one value
// would apply another.
func TestAnAdminChangeWithADuplicateMemberIsRefusedAndChangesNothing(t *testing.T) {
	env := startJT(t, jtAdmin)
	for _, body := range []string{
		`{"param":"input_proof_throttler_tps","value":5,"value":500}`,
		`{"param":"input_proof_throttler_tps","param":"user_decrypt_throttler_tps","value":5}`,
		// Inside the value too (found by an outside probe: the last retry_seconds won), and in
		// another case, which encoding/json matches to the same field (found by a review).
		`{"param":"receipt_backoff","value":[{"elapsed_ms":0,"retry_seconds":999999,"retry_seconds":4}]}`,
		`{"param":"receipt_backoff","value":[{"elapsed_ms":0,"retry_seconds":2,"RETRY_SECONDS":9}]}`,
	} {
		res := env.admin("POST", body)
		res.want(t, http.StatusBadRequest, domain.LabelMalformedJSON)
		if d := res.Env.Error.Details; len(d) != 1 || d[0].Issue != "appears more than once" {
			t.Errorf("%s: details %v, want the repeated member", body, d)
		}
	}
	if res := env.admin("POST", `{"param":"receipt_backoff","value":[{"elapsed_ms":0,"retry_seconds":9,"retry_seconds":4}]}`); len(res.Env.Error.Details) != 1 ||
		res.Env.Error.Details[0].Field != "value[0].retry_seconds" {
		t.Errorf("a member repeated inside the value: details %v, want the field value[0].retry_seconds", res.Env.Error.Details)
	}
	if n := env.countEvents("ConfigChanged"); n != 0 {
		t.Fatalf("%d changes recorded", n)
	}
}

// A user decrypt submitted first with a forged signature must not capture the genuine request:
// each gets its own job (the content hash covers the signature and the validity window).
func TestAForgedCopyOfAUserDecryptDoesNotCaptureTheGenuineRequestsJob(t *testing.T) {
	env := startJT(t)
	genuine := jtBody(domain.UserDecrypt, 5)
	// The same request with another signature.
	forged := []byte(strings.Replace(string(genuine), fmt.Sprintf("%0128x1b", 6), fmt.Sprintf("%0128x1b", 0xbad), 1))
	if string(forged) == string(genuine) {
		t.Fatal("the test did not forge the signature")
	}
	f := env.do("POST", "/v2/user-decrypt", forged).jobID(t)
	g := env.do("POST", "/v2/user-decrypt", genuine).jobID(t)
	if f == g {
		t.Fatalf("the genuine request joined the forged copy's job %s", f)
	}
}

// GET /docs/ used to answer 405 "GET is not allowed on /docs/ (allowed: GET)".
func TestATrailingSlashIsA404ThatNamesThePathNotA405ThatContradictsItself(t *testing.T) {
	env := startJT(t)
	res := env.do("GET", "/docs/", nil)
	res.want(t, http.StatusNotFound, labelNotFound)
	if !strings.Contains(res.Env.Error.Message, "without the trailing slash: /docs") {
		t.Errorf("message %q", res.Env.Error.Message)
	}
	env.do("DELETE", "/docs", nil).want(t, http.StatusMethodNotAllowed, "method_not_allowed")

	// Found by an outside probe, each answered in the JSON envelope with the right hint: a route
	// of another method with a trailing slash (was 405 "allowed: POST", while POST there was
	// 404), an escaped slash (was told "without the trailing slash").
	for _, c := range []struct{ method, path, want string }{
		{"GET", "/v2/public-decrypt/", "without the trailing slash: /v2/public-decrypt)"},
		{"POST", "/v2/public-decrypt/", "without the trailing slash: /v2/public-decrypt)"},
		{"GET", "/v2/input-proof%2f0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11", "no such endpoint: /v2/input-proof%2f0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11"},
		{"GET", "/ui/%2e%2e", "no such endpoint: /ui/%2e%2e"},
	} {
		res := env.do(c.method, c.path, nil)
		res.want(t, http.StatusNotFound, labelNotFound)
		if !strings.Contains(res.Env.Error.Message, c.want) || strings.Contains(c.want, "no such endpoint") && strings.Contains(res.Env.Error.Message, "trailing slash") {
			t.Errorf("%s %s: %q, want it to say %q", c.method, c.path, res.Env.Error.Message, c.want)
		}
	}
}

// 1,000 wrong admin tokens used to go through in half a second, none logged, nothing slowed.
func TestWrongAdminTokensAreLoggedWithoutTheTokenAndSlowTheirClientDown(t *testing.T) {
	env := startJT(t, jtAdmin)
	wrong := "not-the-token-but-a-guess-of-32-bytes!"
	codes := map[int]int{}
	for range 40 {
		res := env.do("GET", "/admin/config", nil, "Authorization", "Bearer "+wrong)
		codes[res.Code]++
		if res.Code == http.StatusTooManyRequests && res.Header.Get("Retry-After") == "" {
			t.Fatal("a 429 without Retry-After")
		}
	}
	// After adminFreeFailures refusals, the next one blocks the client and is answered 429 with
	// its Retry-After, as the README says (an outside probe found it answered 401 without one).
	if codes[http.StatusUnauthorized] != adminFreeFailures || codes[http.StatusTooManyRequests] != 40-adminFreeFailures {
		t.Fatalf("outcomes %v: want %d refusals, then 429 while blocked", codes, adminFreeFailures)
	}
	// The right token gets through even while the address is blocked: whoever shares the
	// operator's address (a NAT, a proxy) must not lock the operator out.
	env.do("GET", "/admin/config", nil, jtAuth...).want(t, http.StatusOK, "")
	env.clock.Advance(2 * time.Second)
	env.do("GET", "/admin/config", nil, jtAuth...).want(t, http.StatusOK, "")
	logs := env.logs.String()
	if strings.Count(logs, "admin: refused a request without a valid admin token") != adminFreeFailures+1 {
		t.Errorf("refusals logged %d times, want %d:\n%s", strings.Count(logs, "admin: refused"), adminFreeFailures+1, logs)
	}
	if strings.Contains(logs, wrong) || strings.Contains(logs, jtToken) {
		t.Fatal("a token reached the log")
	}
}

func TestAnAdminTokenShorterThan32BytesIsRefusedAtStart(t *testing.T) {
	c := DefaultConfig()
	c.AdminToken = strings.Repeat("a", MinAdminTokenBytes-1)
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "admin_token") || strings.Contains(err.Error(), c.AdminToken) {
		t.Fatalf("Validate = %v: want a problem at admin_token that does not repeat the token", err)
	}
	c.AdminToken = strings.Repeat("a", MinAdminTokenBytes)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

// FuzzAdminConfigBody: whatever the body, the admin API's reader either hands on one parameter
// name and a JSON value, or answers 4xx; it never panics and never answers 5xx.
func FuzzAdminConfigBody(f *testing.F) {
	for _, seed := range []string{
		`{"param":"input_proof_throttler_tps","value":5}`,
		`{"param":"input_proof_throttler_tps","value":5,"value":500}`,
		`{"param":"x","value":{"a":[1,2,{"b":null}]}}`,
		`{"param":1,"value":"x"}`, `{}`, `[]`, `null`, `{"param":`, `{"param":"a","value":1} {}`,
		"\xff\xfe", `{"param":"a","value":1,"who":"me"}`,
	} {
		f.Add([]byte(seed))
	}
	s := &Server{}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/admin/config", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		param, value, ok := s.readChange(w, r)
		if ok {
			if param == "" || !json.Valid(value) {
				t.Fatalf("accepted param %q value %q", param, value)
			}
			if key, dup := duplicateMember(body); dup {
				t.Fatalf("accepted a body with %q twice", key)
			}
			return
		}
		if w.Code < 400 || w.Code >= 500 {
			t.Fatalf("refused with %d", w.Code)
		}
	})
}

// openTestStream opens /v1/transitions with c and returns the status code and a close function.
func openTestStream(t *testing.T, c *http.Client, url string, header ...string) (int, http.Header, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/v1/transitions", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	closeIt := func() { cancel(); res.Body.Close() }
	t.Cleanup(closeIt)
	if res.StatusCode != http.StatusOK {
		_, _ = io.ReadAll(res.Body)
	}
	return res.StatusCode, res.Header, closeIt
}

// clientFrom is an HTTP client whose connections come from local address ip (a second client on
// loopback: 127.0.0.2 reaches a server on 127.0.0.1 on Linux).
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// Open streams used to hold their client's request slots (32 streams made the same client's
// status polls fail with 429), with no cap of their own across clients.
func TestStreamsAreCappedPerClientAndInAllAndDoNotCostTheClientsPolls(t *testing.T) {
	env := startJT(t, func(c *Config) {
		c.Streams = StreamsConfig{MaxOpen: 3, MaxPerClient: 2, WriteTimeout: 5 * time.Second}
		one := 1
		c.RateLimit.Read.ConcurrencyLimit = &one // one request at a time per client
	})
	a := &http.Client{}
	for range 2 {
		if code, _, _ := openTestStream(t, a, env.ts.URL); code != http.StatusOK {
			t.Fatalf("a stream within the caps: %d", code)
		}
	}
	// The client's polls still go through: its streams hold none of its request slots.
	id := env.do("POST", "/v2/public-decrypt", jtBody(domain.PublicDecrypt, 1)).jobID(t)
	env.do("GET", "/v2/public-decrypt/"+id, nil).want(t, http.StatusAccepted, "")

	code, h, _ := openTestStream(t, a, env.ts.URL)
	if code != http.StatusTooManyRequests || h.Get("Retry-After") == "" {
		t.Fatalf("a third stream of one client: %d (Retry-After %q), want 429 with Retry-After", code, h.Get("Retry-After"))
	}
	b := clientFrom("127.0.0.2")
	code, _, closeB := openTestStream(t, b, env.ts.URL)
	if code != http.StatusOK {
		t.Fatalf("another client's stream within the fleet cap: %d", code)
	}
	if code, _, _ := openTestStream(t, b, env.ts.URL); code != http.StatusTooManyRequests {
		t.Fatalf("a stream past the fleet cap of 3: %d, want 429", code)
	}
	closeB()
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, _, _ := openTestStream(t, b, env.ts.URL)
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed stream's slot was not given back: %d", code)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A Last-Event-ID beyond the log's head used to be accepted and wait forever without saying so.
func TestAStreamResumingBeyondTheLogsHeadIsRefusedNamingTheParameter(t *testing.T) {
	env := startJT(t)
	env.do("POST", "/v2/public-decrypt", jtBody(domain.PublicDecrypt, 1)).want(t, http.StatusAccepted, "")
	for _, c := range []struct {
		field, path string
		header      []string
	}{
		{"Last-Event-ID", "/v1/transitions", []string{"Last-Event-ID", "999999"}},
		{"after", "/v1/transitions?after=999999", nil},
		{"from", "/v1/transitions?from=999999", nil},
	} {
		res := env.do("GET", c.path, nil, c.header...)
		res.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
		if d := res.Env.Error.Details; len(d) != 1 || d[0].Field != c.field || !strings.Contains(d[0].Issue, "beyond the log's head") {
			t.Errorf("%s: details %v", c.path, d)
		}
	}
}

// The audit endpoints used to be open to anyone, showing user addresses, signatures, public keys
// and raw transactions of every job.
func TestTheAuditEndpointsTakeTheOperatorTokenUnlessOpenedForDevelopment(t *testing.T) {
	const operator = "operator-token-for-the-tests-0123456789"
	closed := func(c *Config) { c.AuditOpen = false }
	paths := []string{"/v1/jobs/" + domain.NewJobID().String() + "/events", "/v1/transitions?from=0"}

	env := startJT(t, closed)
	for _, p := range paths {
		res := env.do("GET", p, nil)
		res.want(t, http.StatusForbidden, labelForbidden)
		if !strings.Contains(res.Env.Error.Message, "operator_token") {
			t.Errorf("%s: message %q does not say what to configure", p, res.Env.Error.Message)
		}
	}

	env = startJT(t, closed, jtAdmin, func(c *Config) { c.OperatorToken = operator })
	for _, p := range paths {
		env.do("GET", p, nil).want(t, http.StatusUnauthorized, labelUnauthorized)
		env.do("GET", p, nil, "Authorization", "Bearer wrong-"+operator).want(t, http.StatusUnauthorized, labelUnauthorized)
	}
	// The operator token and the admin token both read; events of an unknown job are a 404.
	for _, tok := range []string{operator, jtToken} {
		env.do("GET", paths[0], nil, "Authorization", "Bearer "+tok).want(t, http.StatusNotFound, labelNotFound)
		code, _, _ := openTestStream(t, &http.Client{}, env.ts.URL, "Authorization", "Bearer "+tok)
		if code != http.StatusOK {
			t.Fatalf("the stream with a valid token: %d", code)
		}
	}
	if logs := env.logs.String(); strings.Contains(logs, operator) || !strings.Contains(logs, "operator: refused") {
		t.Errorf("refusals not logged, or the token logged:\n%s", logs)
	}
	// The operator token reads; it does not change anything.
	env.do("POST", "/admin/config", []byte(`{"param":"input_proof_throttler_tps","value":7}`), "Authorization", "Bearer "+operator).
		want(t, http.StatusUnauthorized, labelUnauthorized)
}

// CORS was never configured: browsers could not call the relayer from a dApp's page, and nothing
// said which pages may. It is off by default and an allow-list when configured.
func TestCORSIsOffByDefaultAndAnAllowListWhenConfigured(t *testing.T) {
	const app = "https://app.example.org"
	preflight := func(env *jtEnv, origin string) jtResponse {
		return env.do("OPTIONS", "/v2/input-proof", nil, "Origin", origin, "Access-Control-Request-Method", "POST",
			"Access-Control-Request-Headers", "content-type,zama-sdk-name,zama-sdk-version") // lower-case and sorted, as browsers send them
	}
	off := startJT(t)
	if got := off.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 1), "Origin", app).Header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Fatalf("CORS off, yet Access-Control-Allow-Origin %q", got)
	}
	if got := preflight(off, app).Header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Fatalf("CORS off, yet a preflight allowed %q", got)
	}

	env := startJT(t, func(c *Config) { c.CORSAllowedOrigins = []string{app} })
	pf := preflight(env, app)
	if pf.Header.Get("Access-Control-Allow-Origin") != app || !strings.Contains(strings.ToLower(pf.Header.Get("Access-Control-Allow-Headers")), "zama-sdk-version") {
		t.Fatalf("preflight from an allowed origin: %d %v", pf.Code, pf.Header)
	}
	res := env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 2), "Origin", app)
	res.want(t, http.StatusAccepted, "")
	if res.Header.Get("Access-Control-Allow-Origin") != app || !strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "Retry-After") {
		t.Fatalf("an allowed origin's POST: headers %v (the SDK reads Retry-After)", res.Header)
	}
	if got := preflight(env, "https://evil.example.com").Header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Fatalf("a preflight from another origin was allowed: %q", got)
	}

	c := DefaultConfig()
	c.CORSAllowedOrigins = []string{"*", "https://app.example.org/path", "app.example.org"}
	var ce *ConfigError
	if err := c.Validate(); !errors.As(err, &ce) || len(ce.Problems) != 3 {
		t.Fatalf("Validate = %v: want three problems", err)
	}
}

// An invented X-API-Key used to make its sender a new client. With issued keys, a key not in
// the registry is refused; the registry is hashed at rest and read again when it changes.
func TestOnlyIssuedAPIKeysAreAcceptedAndTheRegistryRotatesWithoutARestart(t *testing.T) {
	const alice, bob = "sk_alice_0123456789abcdef", "sk_bob_fedcba9876543210"
	file := filepath.Join(t.TempDir(), "api-keys")
	klWriteFile(t, file, "# issued keys\nalice "+klHash(alice)+"\n")
	env := startJT(t, func(c *Config) { c.APIKeyFile = file })
	post := func(n uint64, key string) jtResponse {
		return env.do("POST", "/v2/public-decrypt", jtBody(domain.PublicDecrypt, n), "X-API-Key", key)
	}
	post(1, alice).want(t, http.StatusAccepted, "")
	post(2, "sk_invented").want(t, http.StatusUnauthorized, labelUnauthorized)
	post(3, bob).want(t, http.StatusUnauthorized, labelUnauthorized)
	env.do("POST", "/v2/public-decrypt", jtBody(domain.PublicDecrypt, 4)).want(t, http.StatusAccepted, "") // no key: the address

	// Rotation: bob issued, alice revoked, in place.
	klWriteFile(t, file, "bob   "+klHash(bob)+"\n# alice revoked\n")
	env.clock.Advance(3 * time.Second)
	post(5, bob).want(t, http.StatusAccepted, "")
	post(6, alice).want(t, http.StatusUnauthorized, labelUnauthorized)

	// A file that stops parsing leaves the keys as they were.
	klWriteFile(t, file, "bob not-a-hash\n")
	env.clock.Advance(3 * time.Second)
	post(7, bob).want(t, http.StatusAccepted, "")
	logs := env.logs.String()
	if !strings.Contains(logs, "does not parse") {
		t.Errorf("a broken key file was not reported:\n%s", logs)
	}
	for _, secret := range []string{alice, bob, "sk_invented"} {
		if strings.Contains(logs, secret) {
			t.Fatalf("an API key reached the log")
		}
	}
	if n := env.countEvents("RequestAccepted"); n != 4 {
		t.Fatalf("%d jobs accepted, want 4 (refused keys change nothing)", n)
	}
}

func TestAnAPIKeyFileThatDoesNotParseStopsTheServerAtStartNamingEachLine(t *testing.T) {
	file := filepath.Join(t.TempDir(), "api-keys")
	klWriteFile(t, file, "alice sk_live_the_key_itself\nbob\n"+"carol "+strings.Repeat("a", 64)+"\ndave "+strings.Repeat("a", 64)+"\n")
	_, err := loadAPIKeys(file, nil)
	if err == nil {
		t.Fatal("a broken key file loaded")
	}
	for _, want := range []string{"line 1", "line 2", "line 4", "not the key"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "sk_live_the_key_itself") {
		t.Error("the error repeats what may be a key")
	}
}

// Findings of the second outside probe.

// "https://*" passed the ban on "*": the CORS library reads a star inside an origin as a
// wildcard.
func TestAnOriginWithAStarAnywhereIsRefused(t *testing.T) {
	for _, o := range []string{"https://*", "http://*", "https://*.example.org", "*"} {
		c := DefaultConfig()
		c.CORSAllowedOrigins = []string{o}
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "wildcard") {
			t.Errorf("origin %q: Validate = %v, want it refused", o, err)
		}
	}
}

// Six wrong API keys from one address used to lock that address out of the admin API too.
func TestGuessingAPIKeysDoesNotLockTheOperatorsOut(t *testing.T) {
	file := filepath.Join(t.TempDir(), "api-keys")
	klWriteFile(t, file, "acme "+klHash("sk_issued_0123456789abcdef")+"\n")
	env := startJT(t, jtAdmin, func(c *Config) { c.APIKeyFile = file })
	codes := map[int]int{}
	for range 10 {
		codes[env.do("GET", "/v2/keyurl", nil, "X-API-Key", "sk_guessed").Code]++
	}
	if codes[http.StatusTooManyRequests] == 0 {
		t.Fatalf("guessing keys was never slowed: %v", codes)
	}
	env.do("GET", "/admin/config", nil, jtAuth...).want(t, http.StatusOK, "")
}

// A key file rotated in place with the same size and time (cp -p, rsync -t) used to be missed:
// the revoked key stayed valid.
func TestAKeyFileRotatedWithTheSameSizeAndTimeIsReadAgain(t *testing.T) {
	const old, nw = "sk_old_0123456789abcdef", "sk_new_0123456789abcdef"
	file := filepath.Join(t.TempDir(), "api-keys")
	klWriteFile(t, file, "acme "+klHash(old)+"\n")
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	env := startJT(t, func(c *Config) { c.APIKeyFile = file })
	env.do("GET", "/v2/keyurl", nil, "X-API-Key", old).want(t, http.StatusInternalServerError, labelInternal) // past the gate: no key material here
	klWriteFile(t, file, "acme "+klHash(nw)+"\n")
	if err := os.Chtimes(file, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	env.clock.Advance(3 * time.Second)
	env.do("GET", "/v2/keyurl", nil, "X-API-Key", old).want(t, http.StatusUnauthorized, labelUnauthorized)
	env.do("GET", "/v2/keyurl", nil, "X-API-Key", nw).want(t, http.StatusInternalServerError, labelInternal)
}

// A token with white space around it was accepted at start and could never be sent.
func TestATokenWithWhiteSpaceAroundItIsRefusedAtStart(t *testing.T) {
	for _, set := range []func(*Config){
		func(c *Config) { c.AdminToken = strings.Repeat("a", 32) + " " },
		func(c *Config) { c.OperatorToken = " " + strings.Repeat("b", 32) },
		func(c *Config) { c.AdminToken = strings.Repeat(" ", 32) },
	} {
		c := DefaultConfig()
		set(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "white space") {
			t.Errorf("Validate = %v, want the token refused", err)
		}
	}
}

// A user decrypt whose window had ended (or not begun) used to be accepted, sent, reverted by
// the gateway, and polled as 500 transaction_reverted.
func TestAUserDecryptOutsideItsValidityWindowIsRefusedAtSubmission(t *testing.T) {
	env := startJT(t)
	now := env.clock.Now().Unix()
	for _, c := range []struct {
		kind  domain.Kind
		edit  func(m map[string]any)
		field string
	}{
		{domain.UserDecrypt, func(m map[string]any) {
			m["requestValidity"] = map[string]any{"startTimestamp": "1", "durationDays": "1"}
		}, "requestValidity.durationDays"},
		{domain.UserDecrypt, func(m map[string]any) {
			m["requestValidity"] = map[string]any{"startTimestamp": strconv.FormatInt(now+60, 10), "durationDays": "1"}
		}, "requestValidity.startTimestamp"},
		{domain.DelegatedUserDecrypt, func(m map[string]any) {
			m["startTimestamp"] = strconv.FormatInt(now-11*86400, 10)
			m["durationDays"] = "10"
		}, "durationDays"},
		{domain.DelegatedUserDecrypt, func(m map[string]any) { m["startTimestamp"] = strconv.FormatInt(now+1, 10) }, "startTimestamp"},
	} {
		var m map[string]any
		if err := json.Unmarshal(jtBody(c.kind, 9), &m); err != nil {
			t.Fatal(err)
		}
		c.edit(m)
		body, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		res := env.do("POST", "/v2/"+c.kind.String(), body)
		res.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
		if d := res.Env.Error.Details; len(d) != 1 || d[0].Field != c.field {
			t.Errorf("%s: details %v, want %s", c.kind, d, c.field)
		}
	}
	if n := env.countEvents("RequestAccepted"); n != 0 {
		t.Fatalf("%d jobs accepted for windows that do not hold", n)
	}
	// The window that began a day ago and lasts ten holds.
	env.do("POST", "/v2/user-decrypt", jtBody(domain.UserDecrypt, 9)).want(t, http.StatusAccepted, "")
}

// A page may long-poll (DESIGN section 8): the preflight allows Prefer, and a status answer
// exposes the headers that say how long it waited.
func TestCORSLetsAPageLongPoll(t *testing.T) {
	const app = "https://app.example.org"
	env := startJT(t, func(c *Config) { c.CORSAllowedOrigins = []string{app} })
	id := env.accept(domain.PublicDecrypt, 1)
	path := "/v2/public-decrypt/" + id.String()
	pf := env.do("OPTIONS", path, nil, "Origin", app, "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "prefer")
	if pf.Header.Get("Access-Control-Allow-Origin") != app || !strings.Contains(strings.ToLower(pf.Header.Get("Access-Control-Allow-Headers")), "prefer") {
		t.Fatalf("a preflight for Prefer: %d %v", pf.Code, pf.Header)
	}
	res := env.do("GET", path+"?wait=1", nil, "Origin", app)
	exposed := res.Header.Get("Access-Control-Expose-Headers")
	if res.Header.Get(headerWaitApplied) != "1" || !strings.Contains(exposed, headerWaitApplied) || !strings.Contains(exposed, headerPreferenceApplied) {
		t.Fatalf("a long-poll from an allowed origin: Wait-Applied %q, exposed %q", res.Header.Get(headerWaitApplied), exposed)
	}
}
