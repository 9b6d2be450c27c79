package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
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
	for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "", "application/jsonp", "application/json-seq"} {
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
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON"} {
		env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 2), "Content-Type", ct).want(t, http.StatusAccepted, "")
	}
}

// encoding/json keeps the last of duplicate members silently: a change reviewed as one value
// would apply another.
func TestAnAdminChangeWithADuplicateMemberIsRefusedAndChangesNothing(t *testing.T) {
	env := startJT(t, jtAdmin)
	for _, body := range []string{
		`{"param":"input_proof_throttler_tps","value":5,"value":500}`,
		`{"param":"input_proof_throttler_tps","param":"user_decrypt_throttler_tps","value":5}`,
	} {
		res := env.admin("POST", body)
		res.want(t, http.StatusBadRequest, domain.LabelMalformedJSON)
		if d := res.Env.Error.Details; len(d) != 1 || d[0].Issue != "appears more than once" {
			t.Errorf("%s: details %v, want the repeated member", body, d)
		}
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
	forged := []byte(strings.Replace(string(genuine), fmt.Sprintf("%0130x", 6), fmt.Sprintf("%0130x", 0xbad), 1))
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
	if codes[http.StatusUnauthorized] != adminFreeFailures+1 || codes[http.StatusTooManyRequests] != 40-adminFreeFailures-1 {
		t.Fatalf("outcomes %v: want %d refusals, then 429 while blocked", codes, adminFreeFailures+1)
	}
	// Blocked even with the right token until the block ends (guessing gains nothing).
	env.do("GET", "/admin/config", nil, "Authorization", "Bearer "+jtToken).want(t, http.StatusTooManyRequests, labelRateLimited)
	env.clock.Advance(2 * time.Second)
	env.do("GET", "/admin/config", nil, "Authorization", "Bearer "+jtToken).want(t, http.StatusOK, "")
	logs := env.logs.String()
	if strings.Count(logs, "admin: refused a request without the admin token") != adminFreeFailures+1 {
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
