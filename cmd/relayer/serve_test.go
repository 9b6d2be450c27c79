package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// syncBuffer is devchain_test.go's.

// listeningOn is serve's line saying where it listens, and its URL.
var listeningOn = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)

// withEnv runs f with serve reading env instead of the process's environment.
func withEnv(t *testing.T, env ...string) {
	t.Helper()
	prev := serveEnviron
	serveEnviron = func() []string { return env }
	t.Cleanup(func() { serveEnviron = prev })
}

// startServe runs `relayer serve` with args until the returned stop is called, and returns the
// URL it printed.
func startServe(t *testing.T, args ...string) (url string, stdout, stderr *syncBuffer, stop func() error) {
	t.Helper()
	stdout, stderr = &syncBuffer{}, &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"serve"}, args...), stdout, stderr) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if m := listeningOn.FindStringSubmatch(stdout.String()); m != nil {
			url = m[1]
			break
		}
		select {
		case err := <-done:
			cancel()
			t.Fatalf("serve ended before listening: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("serve did not start:\n%s\n%s", stdout, stderr)
		}
	}
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(15 * time.Second):
			t.Fatal("serve did not stop within 15 s of its context ending")
			return nil
		}
	}
	t.Cleanup(func() { _ = stop() })
	return url, stdout, stderr, stop
}

func TestServeStartsOnAFreePortAnswersAPostAndAGetAndStopsWhenItsContextEnds(t *testing.T) {
	withEnv(t, "RELAYER_ADMIN_TOKEN=tok-do-not-print-7f3a-0123456789abcdef")
	dir := filepath.Join(t.TempDir(), "data")
	url, stdout, stderr, stop := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir)
	for _, want := range []string{"relayer.db", "admin API: on", "curl -si -X POST " + url + "/v2/input-proof", "dashboard: " + url + "/ui"} {
		if !strings.Contains(stdout.String(), want) {
			t.Fatalf("the start banner does not say %q:\n%s", want, stdout)
		}
	}
	body := `{"contractChainId":1337,"contractAddress":"0x00000000000000000000000000000000000000c0","userAddress":"0x00000000000000000000000000000000000000a1","ciphertextWithInputVerification":"0a0b0c","extraData":"0x00"}`
	id := accepted(t, "POST", url+"/v2/input-proof", []byte(body))
	res, err := http.Get(url + "/v2/input-proof/" + id)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted || res.Header.Get("Retry-After") == "" {
		t.Fatalf("GET: %d Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	req, _ := http.NewRequest("GET", url+"/admin/config", nil)
	req.Header.Set("Authorization", "Bearer tok-do-not-print-7f3a-0123456789abcdef")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("admin with the token from the environment: %d", res.StatusCode)
	}
	if err := stop(); err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr)
	}
	if _, err := http.Get(url + "/v2/input-proof/" + id); err == nil {
		t.Fatal("still answering after the context ended")
	}
	if strings.Contains(stdout.String()+stderr.String(), "tok-do-not-print-7f3a-0123456789abcdef") {
		t.Fatal("the admin token was printed")
	}
	if _, err := os.Stat(filepath.Join(dir, "relayer.db")); err != nil {
		t.Fatal(err)
	}
}

func TestServeTakesItsSettingsFromAFileTheEnvironmentAndFlagsInThatOrder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "relayer.yaml")
	if err := os.WriteFile(file, []byte(`
listen: 127.0.0.1:1
data_dir: `+filepath.Join(dir, "from-file")+`
host_chain_ids: [1337, 8009]
api:
  queue_capacity: 5000
retry_after:
  input_proof_throttler_tps: 25
  nominal_readiness_check_seconds: 1.5
  receipt_backoff:
    - {elapsed_ms: 0, retry_seconds: 3}
    - {elapsed_ms: 60000, retry_seconds: 9}
rate_limit:
  read:
    rolling_limit: 900
  retry_policy:
    concurrency: {base_ms: 40}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, warnings, err := loadServeConfig(configSources{
		file:  file,
		env:   []string{"RELAYER_API_QUEUE_CAPACITY=7000", "RELAYER_HOST_CHAIN_IDS=1337,9000", "RELAYER_LISTEN=127.0.0.1:2", "RELAYER_NOPE=1", "HOME=/root"},
		flags: map[string]string{"listen": "127.0.0.1:0"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.Listen != "127.0.0.1:0" || s.DataDir != filepath.Join(dir, "from-file") || s.API.QueueCapacity != 7000 {
		t.Fatalf("settings %+v", s)
	}
	if got := s.API.Validation.HostChainIDs; len(got) != 2 || got[1] != 9000 {
		t.Fatalf("host chains %v", got)
	}
	ra := s.API.RetryAfter
	if ra.InputProofTPS != 25 || ra.ReadinessCheckMs != 1500 || len(ra.ReceiptBackoff) != 2 || ra.ReceiptBackoff[1].RetrySeconds != 9 {
		t.Fatalf("retry_after %+v", ra)
	}
	rl := s.API.RateLimit
	if rl.Read.RollingLimit == nil || *rl.Read.RollingLimit != 900 || rl.RetryPolicy.Concurrency.BaseMs != 40 || rl.RetryPolicy.Concurrency.MaxMs != 2000 {
		t.Fatalf("rate_limit %+v", rl)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "RELAYER_NOPE") {
		t.Fatalf("warnings %v", warnings)
	}
}

func TestServeRefusesAnInvalidConfigurationListingEveryProblem(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(file, []byte(`
listen: nowhere
admin_token: [1, 2]
host_chain_ids: [0]
colour: blue
api:
  accept_wait: 5
  queue_capacity: many
  max_body_bytes: 0
http:
  write_timeout: forever
timeouts:
  response: -1s
retry_after:
  input_proof_throttler_tps: 0
  retry_after_safety_margin: 2
  warp: 9
  receipt_backoff: [{elapsed_ms: 5, retry_seconds: 0}]
rate_limit:
  rolling_window_seconds: 0
  read: {rolling_limit: -1}
log:
  level: loud
`), 0o600); err != nil {
		t.Fatal(err)
	}
	withEnv(t, "RELAYER_API_QUEUE_SHED_MARGIN=lots")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"serve", "--config", file, "--data-dir", filepath.Join(dir, "data")}, &stdout, &stderr)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 2 {
		t.Fatalf("want exit code 2, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"listen", "admin_token", "host_chain_ids", "colour: unknown setting", "api.accept_wait", "api.queue_capacity",
		"api.max_body_bytes", "http.write_timeout", "timeouts.response", "retry_after.input_proof_throttler_tps",
		"retry_after.retry_after_safety_margin", "retry_after.warp: unknown setting", "retry_after.receipt_backoff[0].elapsed_ms",
		"retry_after.receipt_backoff[0].retry_seconds", "rate_limit.rolling_window_seconds", "rate_limit.read.rolling_limit",
		"log.level", "api.queue_shed_margin (RELAYER_API_QUEUE_SHED_MARGIN)",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not list %q:\n%s", want, msg)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); err == nil {
		t.Fatal("an invalid configuration still opened the store")
	}
}

// A second serve on the same store used to take over and make the running one exit on a
// checkpoint conflict. It must be refused at once, naming the running one, which goes on.
func TestASecondServeOnTheSameStoreExitsAtOnceNamingTheRunningOneWhichGoesOn(t *testing.T) {
	dir := t.TempDir()
	url, _, _, _ := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir)

	var stdout, stderr syncBuffer
	began := time.Now()
	err := run(context.Background(), []string{"serve", "--listen", "127.0.0.1:0", "--data-dir", dir}, &stdout, &stderr)
	if err == nil {
		t.Fatal("a second serve on the same store started")
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("the second serve took %v to give up: it must not start the chain first", took)
	}
	msg := err.Error()
	if !strings.Contains(msg, "in use by relayer serve, pid") || !strings.Contains(msg, dir) {
		t.Errorf("the refusal %q does not name the running serve and the store", msg)
	}
	if strings.Contains(stdout.String(), "listening on") {
		t.Errorf("the second serve listened:\n%s", stdout.String())
	}
	// The first one still answers.
	res, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatalf("the running serve no longer answers: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("the running serve's health: %d", res.StatusCode)
	}
}

// A second serve on the same port and store (the same serve started twice) is refused for the
// port, which is taken first, and named the running serve as the store's lock would (a review
// found the running process no longer named once the port was taken first).
func TestASecondServeOnTheSamePortAndStoreNamesTheRunningOne(t *testing.T) {
	dir := t.TempDir()
	url, _, _, _ := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir)
	var stdout, stderr syncBuffer
	err := run(context.Background(), []string{"serve", "--listen", strings.TrimPrefix(url, "http://"), "--data-dir", dir}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "listen on") || !strings.Contains(err.Error(), "in use by relayer serve, pid") {
		t.Fatalf("a second serve on the same port and store: %v", err)
	}
}

// A taken port used to be found only after the chain and the workers had started.
func TestServeRefusesATakenPortBeforeStartingAnything(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var stdout, stderr syncBuffer
	began := time.Now()
	dataDir := filepath.Join(t.TempDir(), "data")
	err = run(context.Background(), []string{"serve", "--listen", ln.Addr().String(), "--data-dir", dataDir}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "listen on "+ln.Addr().String()) {
		t.Fatalf("serve on a taken port: %v", err)
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("serve took %v to report the taken port", took)
	}
	if strings.Contains(stderr.String(), "development chain started") {
		t.Errorf("the chain started before the port was checked:\n%s", stderr.String())
	}
	// Nothing is left behind (found by an outside probe: an empty store and its lock file).
	if _, err := os.Stat(dataDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("serve refused for its port left %s behind (%v)", dataDir, err)
	}
}
