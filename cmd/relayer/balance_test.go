package main

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The balance guard's floor is a whole number of wei, read from a YAML number (beyond 64 bits
// too) or a variable; anything else is refused naming the setting and what it wants.
func TestTheBalanceFloorIsReadAsWeiAndAnythingElseIsRefusedByItsPath(t *testing.T) {
	file := writeConfig(t, "workers:\n  balance_floor_wei: 20000000000000000000000000\n  balance_interval: 5s\n")
	s, _, err := loadServeConfig(configSources{file: file})
	if err != nil {
		t.Fatal(err)
	}
	if s.Workers.BalanceFloorWei != "20000000000000000000000000" || s.Workers.BalanceInterval != 5*time.Second {
		t.Fatalf("read floor %q, interval %v", s.Workers.BalanceFloorWei, s.Workers.BalanceInterval)
	}
	for _, bad := range []string{"1.5", "-1", "1e18", "ten"} {
		ps, msg := configProblems(t, configSources{env: []string{"RELAYER_WORKERS_BALANCE_FLOOR_WEI=" + bad}})
		issues := problemAt(ps, "workers.balance_floor_wei")
		if len(issues) != 1 || !strings.Contains(issues[0], "not a whole number of wei") {
			t.Errorf("floor %q: want one problem at workers.balance_floor_wei, got %q; all:\n%s", bad, issues, msg)
		}
	}
	ps, msg := configProblems(t, configSources{env: []string{"RELAYER_WORKERS_BALANCE_INTERVAL=1ms"}})
	if issues := problemAt(ps, "workers.balance_interval"); len(issues) != 1 || !strings.Contains(issues[0], "want 100ms or more") {
		t.Errorf("interval 1ms: got %q; all:\n%s", issues, msg)
	}
}

// serve on the development chain with a floor above its key's million ether: the key is paused
// from the start (/healthz 503 names it and its balance, /metrics shows its balance and the
// pause), a request is still accepted with a hint and waits. Served again on the same log with a
// floor the key clears, the key resumes and the request completes: nothing accepted was lost.
func TestServeWithAKeyBelowTheFloorAcceptsRequestsSaysWhyInHealthAndCompletesThemOnceItResumes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	withEnv(t, "RELAYER_WORKERS_BALANCE_FLOOR_WEI=2000000000000000000000000", "RELAYER_WORKERS_BALANCE_INTERVAL=200ms")
	url, _, _, stop := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir)

	get := func(url, path string) (int, string) {
		t.Helper()
		res, b := httpGet(t, url+path)
		return res.StatusCode, string(b)
	}
	deadline := time.Now().Add(20 * time.Second)
	var health struct {
		Status  string `json:"status"`
		Signers *struct {
			Status string `json:"status"`
			Reason string `json:"reason"`
			Paused []struct {
				Address string `json:"address"`
			} `json:"paused"`
		} `json:"signers"`
	}
	var code int
	var body string
	for time.Now().Before(deadline) {
		code, body = get(url, "/healthz")
		if err := json.Unmarshal([]byte(body), &health); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		if health.Signers != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code != http.StatusServiceUnavailable || health.Status != "down" || health.Signers == nil || health.Signers.Status != "down" ||
		len(health.Signers.Paused) != 1 || !strings.Contains(health.Signers.Reason, "floor 2000000000000000000000000 wei") {
		t.Fatalf("/healthz with the only key below the floor: %d %s", code, body)
	}
	key := health.Signers.Paused[0].Address
	_, metrics := get(url, "/metrics")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`relayer_signer_balance_wei\{address="` + key + `"\} [0-9.e+]+`),
		regexp.MustCompile(`relayer_signer_paused\{address="` + key + `"\} 1`),
		regexp.MustCompile(`relayer_signer_balance_floor_wei\{address="` + key + `"\} 2e\+24`),
	} {
		if !want.MatchString(metrics) {
			t.Errorf("/metrics has no line matching %s", want)
		}
	}

	res, err := http.Post(url+"/v2/input-proof", "application/json", strings.NewReader(
		`{"contractChainId":1337,"contractAddress":"0x00000000000000000000000000000000000000c0","userAddress":"0x00000000000000000000000000000000000000a1","ciphertextWithInputVerification":"0a0b0c0e","extraData":"0x00"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted || res.Header.Get("Retry-After") == "" {
		t.Fatalf("POST while no key can send: %d Retry-After %q %s", res.StatusCode, res.Header.Get("Retry-After"), b)
	}
	var accepted struct {
		Result struct {
			JobID string `json:"jobId"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &accepted); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if code, body := get(url, "/v2/input-proof/"+accepted.Result.JobID); code != http.StatusAccepted {
		t.Fatalf("the job while its key is paused: %d %s, want 202 (waiting)", code, body)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	withEnv(t, "RELAYER_WORKERS_BALANCE_FLOOR_WEI=1000000000000000000", "RELAYER_WORKERS_BALANCE_INTERVAL=200ms")
	url, _, _, _ = startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir)
	deadline = time.Now().Add(30 * time.Second)
	for {
		code, body := get(url, "/v2/input-proof/"+accepted.Result.JobID)
		if code == http.StatusOK {
			break
		}
		if code != http.StatusAccepted || time.Now().After(deadline) {
			t.Fatalf("the job after the key resumed: %d %s, want it to complete", code, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, body := get(url, "/healthz"); code != http.StatusOK || strings.Contains(body, `"signers"`) {
		t.Fatalf("/healthz once the key resumed: %d %s", code, body)
	}
}
