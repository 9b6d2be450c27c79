package api

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"relayer/domain"
	"relayer/projections"
	"relayer/projections/projectionstest"
)

// Issued API keys with limits of their own (api_key_file's write=, read=, concurrency= fields),
// over a real server, a real key file and loopback HTTP.

// klKeys are the test's keys, by client name.
var klKeys = map[string]string{
	"partner":   "sk_partner_0123456789abcdef",
	"plain":     "sk_plain_0123456789abcdef",
	"unlimited": "sk_unlimited_0123456789abcdef",
	"free":      "sk_free_0123456789abcdef",
}

// klLine is the key file's line of client name, with fields after the hash.
func klLine(name string, fields ...string) string {
	return strings.Join(append([]string{name, klHash(klKeys[name])}, fields...), " ") + "\n"
}

// klHash is key's hash as a key file holds it: SHA-256, in hex.
func klHash(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:])
}

// klWriteFile writes the key file file, lines in order.
func klWriteFile(t *testing.T, file string, lines ...string) {
	t.Helper()
	if err := os.WriteFile(file, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
}

// klStart starts a server over the key file holding lines, with the server's own rate limits
// set by limits (jtConfig turns them all off).
func klStart(t *testing.T, limits func(*Config), lines ...string) (*jtEnv, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "api-keys")
	klWriteFile(t, file, lines...)
	return startJT(t, limits, func(c *Config) { c.APIKeyFile = file }), file
}

// serverWrites2 sets the server's write rolling_limit to 2 per 10 s, every other limit off.
func serverWrites2(c *Config) {
	two := 2
	c.RateLimit.Write.RollingLimit = &two
}

// klSubmitter submits distinct public decrypts as the client named (its key from klKeys in
// X-API-Key; "" for no key).
func klSubmitter(env *jtEnv) *jtSubmitter {
	return &jtSubmitter{env: env, header: func(name string) []string { return []string{"X-API-Key", klKeys[name]} }}
}

func TestAKeyWithItsOwnWriteLimitGetsExactlyThatManySubmissionsPerWindow(t *testing.T) {
	env, _ := klStart(t, serverWrites2, klLine("partner", "write=5"), klLine("plain"))
	s := klSubmitter(env)

	if got := s.accepted(t, "partner", 8); got != 5 {
		t.Errorf("partner (write=5): %d of 8 submissions accepted, want 5", got)
	}
	if got := s.accepted(t, "plain", 4); got != 2 {
		t.Errorf("a key without limits of its own: %d of 4 accepted, want the server's 2", got)
	}
	if got := s.accepted(t, "", 4); got != 2 {
		t.Errorf("no key (the address): %d of 4 accepted, want the server's 2", got)
	}

	// The partner's 429 carries its own numbers, with the server's window.
	r := s.submit("partner")
	r.want(t, http.StatusTooManyRequests, labelRateLimited)
	if p := r.Header.Get("RateLimit-Policy"); p != `"write-rolling";q=5;w=10` {
		t.Errorf("RateLimit-Policy %q, want the partner's q=5 with the server's w=10", p)
	}
	if rl := r.Header.Get("RateLimit"); rl != `"write-rolling";r=0;t=10` {
		t.Errorf("RateLimit %q", rl)
	}
	if r.retryAfter(t) != 10 || r.Env.RetryAfterMs == nil || *r.Env.RetryAfterMs != 10_000 {
		t.Errorf("Retry-After %q, retryAfterMs %v: want the exact 10 s until the window frees", r.Header.Get("Retry-After"), r.Env.RetryAfterMs)
	}
	if !strings.Contains(r.Env.Error.Message, "at most 5 write requests per 10 s") {
		t.Errorf("message %q", r.Env.Error.Message)
	}
	if p := s.submit("plain").Header.Get("RateLimit-Policy"); p != `"write-rolling";q=2;w=10` {
		t.Errorf("plain's RateLimit-Policy %q", p)
	}

	// The window is the server's: after 10 s the partner has its 5 again.
	env.clock.Advance(10 * time.Second)
	if got := s.accepted(t, "partner", 6); got != 5 {
		t.Errorf("next window: %d of 6 accepted, want 5", got)
	}
	if n := env.countEvents("RequestAccepted"); n != 5+2+2+5 {
		t.Errorf("%d jobs accepted, want 14 (refused submissions change nothing)", n)
	}
}

func TestRewritingTheKeyFileChangesAKeysLimitWithoutARestart(t *testing.T) {
	env, file := klStart(t, serverWrites2, klLine("partner", "write=5"))
	s := klSubmitter(env)
	if got := s.accepted(t, "partner", 6); got != 5 {
		t.Fatalf("write=5: %d of 6 accepted", got)
	}

	// Raised to 8: the five in the window still count, three more fit.
	klWriteFile(t, file, klLine("partner", "write=8"))
	env.clock.Advance(3 * time.Second) // past the file's recheck; the window (10 s) still holds all
	if got := s.accepted(t, "partner", 5); got != 3 {
		t.Errorf("raised to write=8 with 5 in the window: %d of 5 accepted, want 3", got)
	}
	r := s.submit("partner")
	if p := r.Header.Get("RateLimit-Policy"); r.Code != http.StatusTooManyRequests || p != `"write-rolling";q=8;w=10` {
		t.Errorf("%d %q", r.Code, p)
	}

	// The field removed: the key has the server's limit again.
	klWriteFile(t, file, klLine("partner"))
	env.clock.Advance(10 * time.Second) // a fresh window, and the file read again
	if got := s.accepted(t, "partner", 4); got != 2 {
		t.Errorf("without its field: %d of 4 accepted, want the server's 2", got)
	}

	// A file that stops parsing keeps the limits as they were, and says why.
	klWriteFile(t, file, klLine("partner", "write=lots"))
	env.clock.Advance(10 * time.Second)
	if got := s.accepted(t, "partner", 4); got != 2 {
		t.Errorf("after a bad rewrite: %d of 4 accepted, want the 2 in force", got)
	}
	if logs := env.logs.String(); !strings.Contains(logs, "does not parse") || !strings.Contains(logs, "line 1") {
		t.Errorf("the bad rewrite was not reported with its line:\n%s", logs)
	}
}

func TestABadLimitFieldInTheKeyFileIsRefusedWithItsLineNumber(t *testing.T) {
	file := filepath.Join(t.TempDir(), "api-keys")
	key := klKeys["partner"]
	klWriteFile(t, file,
		"# own limits\n",
		klLine("partner", "write=5", "read=100", "concurrency=0"), // line 2: fine
		klLine("plain", "burst=10"),                               // line 3: unknown field
		klLine("unlimited", "write=5", "write=6"),                 // line 4: given twice
		klLine("free", "write=-1"),                                // line 5: negative
		"carol "+strings.Repeat("c", 64)+" read=100001\n",         // line 6: beyond MaxLimit
		"dave "+strings.Repeat("d", 64)+" concurrency=2.5\n",      // line 7: not whole
		"erin "+strings.Repeat("e", 64)+" "+key+"\n",              // line 8: a key pasted, no '='
		"frank "+strings.Repeat("f", 64)+" "+key+"==\n",           // line 9: a base64 key with '='
	)
	_, err := loadAPIKeys(file, nil)
	if err == nil {
		t.Fatal("a key file with bad limit fields loaded")
	}
	msg := err.Error()
	for _, want := range []string{
		`line 3: plain: unknown field "burst"`,
		"line 4: unlimited: write is given twice",
		"line 5: free: write must be a whole number from 0",
		"line 6: carol: read must be a whole number from 0 (off for this key) to 100000, got 100001",
		"line 7: dave: concurrency must be a whole number",
		"line 8: erin: field 1 after the hash is not name=value",
		"line 9: frank: unknown field before '='",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "line 2") || strings.Contains(msg, "line 1:") {
		t.Errorf("a good line was refused:\n%s", msg)
	}
	if strings.Contains(msg, key) || strings.Contains(msg, "sk_partner") {
		t.Errorf("the error repeats a key:\n%s", msg)
	}
	if err := CheckAPIKeyFile(file); err == nil || err.Error() != msg {
		t.Errorf("the start-up check differs: %v", err)
	}

	// The server does not start over it.
	cfg := jtConfig()
	cfg.APIKeyFile = file
	set, err := projections.New(projections.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(t.Context(), cfg, Deps{Store: projectionstest.OpenStore(t), Projections: set}); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("New = %v, want the key file refused", err)
	}
}

func TestZeroTurnsThatLimitOffForThatKeyOnly(t *testing.T) {
	t.Run("write=0", func(t *testing.T) {
		env, _ := klStart(t, serverWrites2, klLine("unlimited", "write=0"), klLine("plain"))
		s := klSubmitter(env)
		if got := s.accepted(t, "unlimited", 12); got != 12 {
			t.Errorf("write=0: %d of 12 accepted, want all", got)
		}
		if r := s.submit("unlimited"); r.Header.Get("RateLimit-Policy") != "" {
			t.Errorf("no limit on: RateLimit-Policy %q", r.Header.Get("RateLimit-Policy"))
		}
		if got := s.accepted(t, "plain", 4); got != 2 {
			t.Errorf("another key: %d of 4 accepted, want the server's 2", got)
		}
	})
	t.Run("concurrency=0", func(t *testing.T) {
		env, _ := klStart(t, func(c *Config) { c.RateLimit.ConcurrencyLimit = 1 }, klLine("free", "concurrency=0"), klLine("plain"))
		s := klSubmitter(env)

		plainHeld := klHold(t, env, "plain", 1001)
		r := s.submit("plain")
		r.want(t, http.StatusTooManyRequests, labelRateLimited)
		if p := r.Header.Get("RateLimit-Policy"); p != `"write-concurrency";q=1;qu="concurrent-requests"` {
			t.Errorf("plain's 429: RateLimit-Policy %q", p)
		}

		freeHeld := []func() int{klHold(t, env, "free", 1002), klHold(t, env, "free", 1003)}
		if r := s.submit("free"); r.Code != http.StatusAccepted || r.Header.Get("RateLimit-Policy") != "" {
			t.Errorf("concurrency=0 with two in flight: %d %q", r.Code, r.Header.Get("RateLimit-Policy"))
		}
		for _, finish := range append(freeHeld, plainHeld) {
			if code := finish(); code != http.StatusAccepted {
				t.Errorf("a held submission ended with %d", code)
			}
		}
		if r := s.submit("plain"); r.Code != http.StatusAccepted {
			t.Errorf("plain's slot was not freed: %d", r.Code)
		}
	})
}

// klHold starts a submission of client name over a raw connection with "Expect: 100-continue"
// and returns once the server asked for the body: the handler is reading it, so the request has
// passed the key gate and the limiter and holds its concurrency slot. finish sends the body and
// returns the status.
func klHold(t *testing.T, env *jtEnv, name string, n uint64) (finish func() int) {
	t.Helper()
	conn, err := net.Dial("tcp", env.ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	body := jtBody(domain.PublicDecrypt, n)
	fmt.Fprintf(conn, "POST /v2/public-decrypt HTTP/1.1\r\nHost: relayer\r\nContent-Type: application/json\r\n"+
		"Content-Length: %d\r\nX-API-Key: %s\r\nExpect: 100-continue\r\n\r\n", len(body), klKeys[name])
	rd := bufio.NewReader(conn)
	status, err := rd.ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 100 ") {
		t.Fatalf("%s: want 100 Continue (the request in its handler), got %q, %v", name, status, err)
	}
	if blank, err := rd.ReadString('\n'); err != nil || blank != "\r\n" {
		t.Fatalf("after 100 Continue: %q, %v", blank, err)
	}
	return func() int {
		t.Helper()
		if _, err := conn.Write(body); err != nil {
			t.Fatal(err)
		}
		res, err := http.ReadResponse(rd, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		conn.Close()
		return res.StatusCode
	}
}
