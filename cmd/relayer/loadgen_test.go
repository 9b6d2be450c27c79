package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// adminParams reads GET /admin/config: the parameters' values by name, and the version.
func adminParams(t *testing.T, url, token string) (map[string]any, int64) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url+"/admin/config", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var env struct {
		Result struct {
			Params []struct {
				Name  string `json:"name"`
				Value any    `json:"value"`
			} `json:"params"`
			Version int64 `json:"version"`
		} `json:"result"`
	}
	if res.StatusCode != http.StatusOK || json.Unmarshal(body, &env) != nil {
		t.Fatalf("GET /admin/config: %d %s", res.StatusCode, body)
	}
	out := map[string]any{}
	for _, p := range env.Result.Params {
		out[p.Name] = p.Value
	}
	return out, env.Result.Version
}

// TestLoadgenAgainstServeEveryJobCompletesAndEveryClientSeesIt runs loadgen against serve as
// `make run` starts it (the instant profile), a short run of every kind with the nominal times
// halved for the run: every job completes, each kind of client sees every end, the figures are
// sane, and the nominal times are back as they were afterwards.
func TestLoadgenAgainstServeEveryJobCompletesAndEveryClientSeesIt(t *testing.T) {
	const token = "loadgen-test-admin-token-0123456789abcdef"
	withEnv(t, "RELAYER_ADMIN_TOKEN="+token)
	url, _, serveErr, _ := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(t.TempDir(), "data"))
	before, version := adminParams(t, url, token)

	const jobs = 9
	var stdout, stderr syncBuffer
	err := run(context.Background(), []string{"loadgen", "--url", url, "--jobs", "9", "--rate", "10", "--json",
		"--poll-interval", "200ms", "--wait", "10", "--admin-token", token, "--nominal-factor", "0.5"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("loadgen: %v\n%s\nserve:\n%s", err, stderr.String(), serveErr)
	}
	var rep loadReport
	if err := json.Unmarshal([]byte(stdout.String()), &rep); err != nil {
		t.Fatalf("loadgen --json printed %v:\n%s", err, stdout.String())
	}
	if rep.JobsOffered != jobs || rep.JobsAccepted != jobs || len(rep.Refused) != 0 || rep.HistoryErrors != 0 || rep.Terminal["completed"] != jobs {
		t.Fatalf("jobs: offered %d, accepted %d, refused %v, unreadable histories %d, terminal %v; want all %d completed",
			rep.JobsOffered, rep.JobsAccepted, rep.Refused, rep.HistoryErrors, rep.Terminal, jobs)
	}
	if len(rep.ByKind) != 3 {
		t.Errorf("kinds offered %v, want the three of the default mix", rep.ByKind)
	}
	if d := rep.JobDurationMs; d.N != jobs || d.Min <= 0 || d.Mean < d.Min || d.P90 < d.Min || d.Max < d.P90 {
		t.Errorf("job durations %+v: not a distribution of %d positive durations", d, jobs)
	}
	clients := map[string]clientReport{}
	for _, c := range rep.Clients {
		clients[c.Client] = c
		if c.Jobs != jobs || c.Seen != jobs || c.Errors != 0 {
			t.Errorf("%s: followed %d, saw %d ends, %d errors; want %d, %d, 0", c.Client, c.Jobs, c.Seen, c.Errors, jobs, jobs)
		}
		if c.RequestsPerJob < 1 {
			t.Errorf("%s: %.2f requests per job, fewer than the one that saw the end", c.Client, c.RequestsPerJob)
		}
		if l := c.LagMs; l.N != jobs || l.Min < 0 || l.Mean < l.Min || l.P90 < l.Min || l.Max < l.P90 || c.LagShare < 0 {
			t.Errorf("%s: lag %+v, share %v: a client saw an end before it happened, or the figures disagree", c.Client, l, c.LagShare)
		}
	}
	// The long-poll client waits until=done: one request per job, another only when a job
	// outlasts the wait (none does on the instant profile).
	if lp, ok := clients["long-poll"]; !ok || lp.RequestsPerJob > 1.2 {
		t.Errorf("long-poll client: %+v; want at most 1.2 requests per job", lp)
	}
	if len(clients) != 3 {
		t.Errorf("clients %v, want retry-after, fixed-interval and long-poll", clients)
	}

	after, version2 := adminParams(t, url, token)
	scaled := 0
	for name, v := range before {
		if strings.HasPrefix(name, "nominal_") {
			scaled++
			if after[name] != v {
				t.Errorf("%s is %v after the run, was %v", name, after[name], v)
			}
			if !strings.Contains(stderr.String(), name) {
				t.Errorf("loadgen did not say it changed %s:\n%s", name, stderr.String())
			}
		}
	}
	if scaled == 0 || version2 != version+2*int64(scaled) {
		t.Errorf("config version %d -> %d for %d nominal times: want each changed and put back", version, version2, scaled)
	}

	var text strings.Builder
	rep.print(&text)
	for _, want := range []string{"9 jobs offered", "completed 9", "requests/job", "retry-after", "fixed-interval", "long-poll", "user-decrypt"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, text.String())
		}
	}
}

func TestLoadgenRefusesBadFlagsNamingThem(t *testing.T) {
	t.Setenv("RELAYER_ADMIN_TOKEN", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "0"}, "--rate"},
		{[]string{"--duration", "10s", "--jobs", "3"}, "--duration and --jobs"},
		{[]string{"--jobs", "0"}, "--jobs"},
		{[]string{"--mix", "input-proof=1,coffee=2"}, `--mix: unknown kind "coffee"`},
		{[]string{"--mix", "input-proof=-1"}, "--mix: the weight of input-proof"},
		{[]string{"--mix", "input-proof=0"}, "--mix: no weight above 0"},
		{[]string{"--scenarios", "09"}, `--scenarios: unknown scenario "09"`},
		{[]string{"--poll-interval", "1ms"}, "--poll-interval"},
		{[]string{"--wait", "61"}, "--wait"},
		{[]string{"--url", "ftp://relayer.example"}, "--url"},
		{[]string{"--nominal-factor", "2"}, "--nominal-factor 2 needs the admin token"},
		{[]string{"--nominal-factor", "-1", "--admin-token", "x"}, "--nominal-factor must be"},
		{[]string{"--decryption", "0x1234"}, "--decryption"},
		{[]string{"stray"}, `unexpected argument "stray"`},
	} {
		_, stderr, code := runCLI(t, append([]string{"loadgen"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("loadgen %v: exit %d, %q; want exit 2 naming %q", c.args, code, stderr, c.want)
		}
	}
}

// A client that polls less often than the relayer's retention window finds the job archived (404
// saying so): loadgen counts it as an error and stops following the job, rather than poll until
// --follow gives up (found probing retention from outside: 460 requests for 4 jobs).
func TestLoadgenStopsFollowingAJobArchivedBeforeItsClientSawItsEnd(t *testing.T) {
	withEnv(t, "RELAYER_RETENTION_WINDOW_INPUT_PROOF=1s", "RELAYER_RETENTION_INTERVAL=50ms")
	url, _, serveErr, _ := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(t.TempDir(), "data"))
	const jobs = 2
	var stdout, stderr syncBuffer
	began := time.Now()
	// The fixed-interval client's first poll comes 8 s after the POST, long after the job ended
	// (a quarter of a second) and left the live store (a second later).
	err := run(context.Background(), []string{"loadgen", "--url", url, "--jobs", "2", "--rate", "10", "--json",
		"--mix", "input-proof=1", "--poll-interval", "8s", "--follow", "60s"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("loadgen: %v\n%s\nserve:\n%s", err, stderr.String(), serveErr)
	}
	if took := time.Since(began); took > 40*time.Second {
		t.Errorf("loadgen ran %s: it followed archived jobs until --follow gave up", took.Round(time.Second))
	}
	var rep loadReport
	if err := json.Unmarshal([]byte(stdout.String()), &rep); err != nil {
		t.Fatalf("loadgen --json printed %v:\n%s", err, stdout.String())
	}
	for _, c := range rep.Clients {
		if c.Client != "fixed-interval" {
			continue
		}
		if c.Jobs != jobs || c.Seen != 0 || c.Errors != jobs || c.RequestsPerJob != 1 {
			t.Errorf("fixed-interval client: followed %d, saw %d ends, %d errors, %.2f requests per job; want %d, 0, %d, 1 (one 404 each, then stop)",
				c.Jobs, c.Seen, c.Errors, c.RequestsPerJob, jobs, jobs)
		}
		return
	}
	t.Fatalf("no fixed-interval client in the report: %+v", rep.Clients)
}

// A run none of whose jobs was accepted (a dead or wrong --url) exits 1, so that a script does not
// pass on it, and no message shows the password of the --url's user part (found by an outside
// probe: exit 0, and the password printed in the report).
func TestLoadgenExitsWith1WhenNoJobIsAcceptedAndShowsNoPassword(t *testing.T) {
	t.Setenv("RELAYER_ADMIN_TOKEN", "")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there
	for _, json := range []bool{false, true} {
		args := []string{"loadgen", "--url", "http://user:LoadgenSecret@" + addr, "--jobs", "2", "--rate", "100", "--follow", "1s"}
		if json {
			args = append(args, "--json")
		}
		stdout, stderr, code := runCLI(t, args...)
		if code != 1 || !strings.Contains(stderr, "none of the 2 jobs offered was accepted") {
			t.Errorf("json %v: exit %d, stderr %q; want exit 1 saying no job was accepted", json, code, stderr)
		}
		if strings.Contains(stdout+stderr, "LoadgenSecret") {
			t.Errorf("json %v: the output shows the password:\n%s\n%s", json, stdout, stderr)
		}
	}
	_, stderr, code := runCLI(t, "loadgen", "--url", "ftp://user:LoadgenSecret@"+addr)
	if code != 2 || strings.Contains(stderr, "LoadgenSecret") {
		t.Errorf("a refused --url: exit %d, %q; want exit 2 without the password", code, stderr)
	}
}
