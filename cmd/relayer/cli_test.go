package main

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// usageCommands are the commands the top-level usage lists: every one of them is tested, so a
// command added to the usage is tested without a change here.
func usageCommands(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  relayer (\w+)`).FindAllStringSubmatch(usage, -1) {
		seen[m[1]] = true
	}
	if len(seen) < 9 {
		t.Fatalf("the usage lists %d commands, fewer than main.go runs:\n%s", len(seen), usage)
	}
	return slices.Sorted(maps.Keys(seen))
}

// runBinary runs the built relayer with args and returns its output and exit status.
func runBinary(t *testing.T, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Env = crashEnv("") // no RELAYER_* setting of the test's environment
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("relayer %v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

func TestEveryCommandAnswersHelpWithItsUsageOnStdoutAndExitStatus0(t *testing.T) {
	bin := buildRelayer(t, t.TempDir())
	check := func(args []string, wants ...string) {
		t.Helper()
		stdout, stderr, code := runBinary(t, bin, args...)
		if code != 0 || stderr != "" {
			t.Errorf("relayer %s: exit status %d, stderr %q; want 0 and nothing on stderr", strings.Join(args, " "), code, stderr)
		}
		for _, want := range wants {
			if !strings.Contains(stdout, want) {
				t.Errorf("relayer %s: the usage on stdout lacks %q:\n%s", strings.Join(args, " "), want, stdout)
			}
		}
		// Go's flag package makes a `quoted` word of a flag's usage its placeholder; one left
		// in the text reads wrong.
		if strings.ContainsAny(stdout, "`") {
			t.Errorf("relayer %s: a backquote is left in the usage:\n%s", strings.Join(args, " "), stdout)
		}
	}
	for _, h := range []string{"-h", "--help", "help"} {
		check([]string{h}, "Usage:", "relayer serve", "relayer devchain", "relayer COMMAND -h")
	}
	for _, c := range usageCommands(t) {
		for _, h := range []string{"-h", "--help"} {
			check([]string{c, h}, "Usage: relayer "+c)
		}
	}
	check([]string{"serve", "--help"}, "-config FILE\n", "the YAML configuration FILE", "-store URL\n", "-listen ADDR\n",
		"timeouts.response = 30m  (RELAYER_TIMEOUTS_RESPONSE)")
	check([]string{"devchain", "-h"}, "-http ADDR\n", "-profile instant|production\n")
	check([]string{"rebuild", "-h"}, "-config FILE\n", "-through POSITION\n")

	// A mistake still goes to stderr with the usage, with exit status 2.
	for _, c := range usageCommands(t) {
		stdout, stderr, code := runBinary(t, bin, c, "--no-such-flag")
		if code != 2 || stdout != "" || !strings.Contains(stderr, "flag provided but not defined: -no-such-flag") ||
			!strings.Contains(stderr, "Usage: relayer "+c) {
			t.Errorf("relayer %s --no-such-flag: exit status %d, stdout %q, stderr %q; want 2, nothing, the problem and the usage",
				c, code, stdout, stderr)
		}
	}
}

func TestACommandThatTakesOnlyFlagsRefusesAnArgumentNamingIt(t *testing.T) {
	for _, cmd := range []string{"serve", "watch", "jobs list", "demo", "replay", "rebuild", "migrate", "archive verify",
		"archive export", "devchain", "loadgen", "version"} {
		args := append(strings.Fields(cmd), "stray")
		err := run(t.Context(), args, io.Discard, io.Discard)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 || err.Error() != cmd+`: unexpected argument "stray"` {
			t.Errorf("relayer %s: %v; want exit status 2 and %q", strings.Join(args, " "), err, cmd+`: unexpected argument "stray"`)
		}
	}
}

// logKeys are the attribute keys of one log/slog text line (time, level, msg and the rest), in
// order; a value may be quoted, with escapes.
func logKeys(line string) []string {
	var keys []string
	for i := 0; i < len(line); {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		j := i
		for j < len(line) && line[j] != '=' && line[j] != ' ' {
			j++
		}
		if j >= len(line) || line[j] != '=' {
			i = j
			continue
		}
		keys = append(keys, line[i:j])
		j++
		if j < len(line) && line[j] == '"' {
			for j++; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' {
					j++
				}
			}
			j++
		} else {
			for j < len(line) && line[j] != ' ' {
				j++
			}
		}
		i = j
	}
	return keys
}

func TestLogKeysReadsQuotedValuesWhole(t *testing.T) {
	got := logKeys(`time=2026-01-01T00:00:00Z level=INFO msg="a b=c \"d e=f\"" component=devchain x="" y=1`)
	if want := []string{"time", "level", "msg", "component", "x", "y"}; !slices.Equal(got, want) {
		t.Fatalf("logKeys = %v, want %v", got, want)
	}
}

// checkLogKeys reports every line of log that carries an attribute twice, and counts the lines
// it checked by component.
func checkLogKeys(t *testing.T, log string) (checked map[string]int) {
	t.Helper()
	checked = map[string]int{}
	for _, line := range strings.Split(log, "\n") {
		if !strings.HasPrefix(line, "time=") {
			continue
		}
		seen := map[string]bool{}
		component := ""
		for i, k := range logKeys(line) {
			if seen[k] {
				t.Errorf("attribute %s (key %d) twice in the log line %q", k, i, line)
			}
			seen[k] = true
		}
		if m := regexp.MustCompile(` component=(\S+)`).FindStringSubmatch(line); m != nil {
			component = m[1]
		}
		checked[component]++
	}
	return checked
}

// The development chain's lines once carried component=devchain twice, and the workers' parts'
// component=workers beside their own.
func TestServeLogLinesCarryEachAttributeOnce(t *testing.T) {
	withEnv(t, "RELAYER_LOG_LEVEL=debug")
	url, _, stderr, stop := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(t.TempDir(), "data"))
	jobID := postInputProof(t, url)
	jobResult(t, "input-proof "+jobID, url+"/v2/input-proof/"+jobID, stderr)
	if err := stop(); err != nil {
		t.Fatalf("serve: %v", err)
	}
	checked := checkLogKeys(t, stderr.String())
	for _, c := range []string{"devchain", "workers", "dispatcher", "router", "gateway"} {
		if checked[c] == 0 {
			t.Errorf("no log line of component %s was checked: %v\n%s", c, checked, stderr)
		}
	}
}

const inputProofBody = `{"contractChainId":1337,"contractAddress":"0x00000000000000000000000000000000000000c0","userAddress":"0x00000000000000000000000000000000000000a1","ciphertextWithInputVerification":"0a0b0c","extraData":"0x00"}`

// httpGet GETs url and returns the answer with its whole body (closed); a request that fails
// fails the test.
func httpGet(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	return httpGetWith(t, http.DefaultClient, url)
}

// httpGetWith is httpGet with client.
func httpGetWith(t *testing.T, client *http.Client, url string) (*http.Response, []byte) {
	t.Helper()
	res, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res, b
}

// postInputProof submits an input proof to serve at url and returns its job id.
func postInputProof(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Post(url+"/v2/input-proof", "application/json", strings.NewReader(inputProofBody))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`"jobId":"([0-9a-f-]{36})"`).FindSubmatch(b)
	if res.StatusCode != http.StatusAccepted || m == nil {
		t.Fatalf("POST /v2/input-proof: %d %s", res.StatusCode, b)
	}
	return string(m[1])
}
