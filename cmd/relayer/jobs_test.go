package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"relayer/api"
	"relayer/workers/gateway/contracts"
)

func TestJobsListFindsJobsByUserAndShowPrintsAHistory(t *testing.T) {
	const operatorToken = "jobs-cli-operator-token-0123456789abcdef"
	withEnv(t, "RELAYER_OPERATOR_TOKEN="+operatorToken, "RELAYER_API_AUDIT_OPEN=false")
	url, _, _, _ := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--devchain-rpc", freeLoopbackAddr(t))
	var ids []string
	for i := range 3 {
		body := fmt.Sprintf(`{"contractChainId":1337,"contractAddress":"0x00000000000000000000000000000000000000c0","userAddress":"0x00000000000000000000000000000000000000a%d","ciphertextWithInputVerification":"0a0b0c0%d","extraData":"0x00"}`, i, i)
		res, err := http.Post(url+"/v2/input-proof", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var env struct{ Result struct{ JobID string } }
		err = json.NewDecoder(res.Body).Decode(&env)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusAccepted {
			t.Fatalf("POST: %d %v", res.StatusCode, err)
		}
		ids = append(ids, env.Result.JobID)
	}
	jobs := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(context.Background(), append([]string{"jobs"}, args...), &out, &errOut)
		return out.String() + errOut.String(), err
	}

	// Without the token the audit endpoints refuse, and the CLI says what to set.
	t.Setenv("RELAYER_OPERATOR_TOKEN", "")
	if out, err := jobs("list", "--url", url); err == nil || !strings.Contains(err.Error(), "RELAYER_OPERATOR_TOKEN") {
		t.Fatalf("without the token: %v\n%s", err, out)
	}
	t.Setenv("RELAYER_OPERATOR_TOKEN", operatorToken)

	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := jobs("list", "--url", url, "--status", "completed")
		if err != nil {
			t.Fatalf("jobs list: %v\n%s", err, out)
		}
		if strings.Count(out, "input-proof") == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the three jobs did not complete:\n%s", out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	out, err := jobs("list", "--url", url, "--user", "0x00000000000000000000000000000000000000a1", "--json")
	if err != nil {
		t.Fatalf("jobs list --user: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var found struct {
		JobID         string   `json:"jobId"`
		UserAddresses []string `json:"userAddresses"`
	}
	if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &found) != nil || found.JobID != ids[1] {
		t.Fatalf("by user, want only %s:\n%s", ids[1], out)
	}
	out, err = jobs("list", "--url", url, "--limit", "1", "--all")
	if err != nil || strings.Count(out, "input-proof") != 3 || !strings.Contains(out, ids[0]) {
		t.Fatalf("--limit 1 --all: %v\n%s", err, out)
	}
	out, err = jobs("show", "--url", url, ids[2])
	if err != nil || !strings.Contains(out, "RequestAccepted") || !strings.Contains(out, "RequestCompleted") || !strings.Contains(out, "completed after 4 events") {
		t.Fatalf("jobs show: %v\n%s", err, out)
	}
	// --json prints the API's history whole, the fields the table leaves out too.
	out, err = jobs("show", "--url", url, "--json", ids[2])
	var h api.JobEvents
	if err != nil || json.Unmarshal([]byte(out), &h) != nil || h.JobID != ids[2] || len(h.Events) != 4 ||
		h.Events[0].Type != "RequestAccepted" || h.Events[0].SchemaVersion == 0 || h.Events[0].CorrelationID == "" {
		t.Fatalf("jobs show --json: %v\n%s", err, out)
	}
	// A filter the relayer refuses is named by its flag, with the usage's exit code 2 (found by
	// an outside probe: "userAddress must be ...", exit code 1).
	for _, c := range []struct{ flag, value string }{
		{"--kind", "proof"}, {"--user", "0x12"}, {"--created-after", "yesterday"},
	} {
		out, err = jobs("list", "--url", url, c.flag, c.value)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), c.flag+" (") {
			t.Fatalf("jobs list %s %s: %v\n%s", c.flag, c.value, err, out)
		}
	}
	for _, help := range [][]string{{"list", "-h"}, {"show", "--help"}, {"--help"}} {
		if out, err := jobs(help...); err != nil || !strings.Contains(out, "Usage") && !strings.Contains(out, "-url") {
			t.Errorf("jobs %v: %v\n%s", help, err, out)
		}
	}
}

// TestCancelStopsAStuckJobOnARunningRelayerWhichSendsNothingForIt cancels, through the CLI, public
// decrypts whose handles are never ready (the development chain's scenario 02) while serve's
// engine runs: they end cancelled, no transaction is recorded for them, and the engine goes on
// with the next job.
func TestCancelStopsAStuckJobOnARunningRelayerWhichSendsNothingForIt(t *testing.T) {
	const adminToken = "jobs-cli-admin-token-0123456789abcdef01"
	withEnv(t, "RELAYER_ADMIN_TOKEN="+adminToken, "RELAYER_TIMEOUTS_READINESS=60s", "RELAYER_API_AUDIT_OPEN=false")
	url, _, stderr, _ := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--devchain-rpc", freeLoopbackAddr(t))
	post := func(handle [32]byte) string { return mustPostPublicDecrypt(t, url, handle) }
	var stuck []string
	for i := range 3 {
		stuck = append(stuck, post(contracts.TestHandle(contracts.ScenarioNeverReady, fmt.Sprint("cancel-", i))))
	}
	cli := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(context.Background(), append([]string{"jobs"}, args...), &out, &errOut)
		return out.String() + errOut.String(), err
	}
	t.Setenv("RELAYER_OPERATOR_TOKEN", "")
	t.Setenv("RELAYER_ADMIN_TOKEN", adminToken)
	out, err := cli("cancel", "--url", url, "--reason", "handles never ready", "--kind", "public-decrypt", "--dry-run")
	if err != nil || !strings.Contains(out, "3 jobs would be cancelled") {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	// A reason the relayer refuses is the command line's mistake: named by its flag, exit code 2,
	// and no "run the same command again to go on" (found by an outside probe).
	out, err = cli("cancel", "--url", url, "--reason", "bell\a", "--kind", "public-decrypt")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), "--reason (reason)") || strings.Contains(out, "before the error") {
		t.Fatalf("a refused reason: %v\n%s", err, out)
	}
	if out, err := cli("cancel", "--url", url, "--reason", "handle never ready", stuck[0]); err != nil || !strings.Contains(out, "cancelled "+stuck[0]) {
		t.Fatalf("cancel one: %v\n%s", err, out)
	}
	if out, err := cli("cancel", "--url", url, "--reason", "handles never ready", "--kind", "public-decrypt", "--limit", "1"); err != nil || !strings.Contains(out, "2 jobs cancelled") {
		t.Fatalf("bulk cancel: %v\n%s", err, out)
	}
	if out, err := cli("cancel", "--url", url, "--reason", "again", stuck[1]); err == nil || !strings.Contains(err.Error(), "not_cancellable") {
		t.Fatalf("a second cancel: %v\n%s", err, out)
	}
	// The engine goes on: an ordinary decrypt completes, and none of the cancelled jobs gets a
	// transaction.
	ok := post(contracts.TestHandle(contracts.ScenarioNone, "after-cancel"))
	jobResult(t, "the decrypt after the cancels", url+"/v2/public-decrypt/"+ok, stderr)
	if strings.Contains(stderr.String(), "level=ERROR") || strings.Contains(stderr.String(), "poison") {
		t.Errorf("serve logged an error after the cancels:\n%s", tail(stderr.String(), 3000))
	}
	// show reads the audit endpoints (closed here) with the admin token when no operator token is
	// set: the API takes either.
	t.Setenv("RELAYER_OPERATOR_TOKEN", "")
	for _, id := range stuck {
		out, err := cli("show", "--url", url, id)
		if err != nil || !strings.Contains(out, "JobCancelled") || strings.Contains(out, "TransactionSigned") {
			t.Errorf("job %s: %v\n%s", id, err, out)
		}
		res, err := http.Get(url + "/v2/public-decrypt/" + id)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusConflict {
			t.Errorf("polling cancelled job %s: %d, want 409", id, res.StatusCode)
		}
	}
}

// TestRetryRetriesTimedOutJobsAsNewJobsOnARunningRelayer retries, through the CLI, public
// decrypts whose handles were never ready in time (they timed out): one by id, then the rest in
// bulk after a dry run, each as a new job linked both ways; a second retry and a retry of a
// completed job are refused with the API's label.
func TestRetryRetriesTimedOutJobsAsNewJobsOnARunningRelayer(t *testing.T) {
	const adminToken = "jobs-cli-admin-token-0123456789abcdef02"
	withEnv(t, "RELAYER_ADMIN_TOKEN="+adminToken, "RELAYER_TIMEOUTS_READINESS=1s")
	url, _, _, _ := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--devchain-rpc", freeLoopbackAddr(t))
	post := func(handle [32]byte) string { return mustPostPublicDecrypt(t, url, handle) }
	waitStatus := func(id string, code int) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			res, err := http.Get(url + "/v2/public-decrypt/" + id)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode == code {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %s: %d, want %d", id, res.StatusCode, code)
			}
		}
	}
	var late []string
	for i := range 3 {
		late = append(late, post(contracts.TestHandle(contracts.ScenarioNeverReady, fmt.Sprint("retry-", i))))
	}
	done := post(contracts.TestHandle(contracts.ScenarioNone, "retry-done"))
	waitStatus(done, http.StatusOK)
	for _, id := range late {
		waitStatus(id, http.StatusServiceUnavailable) // readiness_check_timed_out
	}
	cli := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(context.Background(), append([]string{"jobs"}, args...), &out, &errOut)
		return out.String() + errOut.String(), err
	}
	t.Setenv("RELAYER_OPERATOR_TOKEN", adminToken)
	t.Setenv("RELAYER_ADMIN_TOKEN", adminToken)
	if out, err := cli("retry", "--help"); err != nil || !strings.Contains(out, "retry makes a queued or processing job") {
		t.Fatalf("retry --help: %v\n%s", err, out)
	}
	if _, err := cli("retry", "--url", url, late[0]); err == nil || !strings.Contains(err.Error(), "--reason is required") {
		t.Fatalf("retry without a reason: %v", err)
	}
	out, err := cli("retry", "--url", url, "--reason", "handle registered", late[0])
	if err != nil || !strings.Contains(out, "retried "+late[0]) || !strings.Contains(out, "as the new job ") {
		t.Fatalf("retry one: %v\n%s", err, out)
	}
	if _, err := cli("retry", "--url", url, "--reason", "again", late[0]); err == nil || !strings.Contains(err.Error(), "already_retried") {
		t.Fatalf("a second retry: %v", err)
	}
	if _, err := cli("retry", "--url", url, "--reason", "again", done); err == nil || !strings.Contains(err.Error(), "job_completed") {
		t.Fatalf("a retry of a completed job: %v", err)
	}
	out, err = cli("retry", "--url", url, "--reason", "handles registered", "--status", "timed_out", "--dry-run")
	if err != nil || !strings.Contains(out, "3 jobs would be retried") {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	// The bulk run, page by page, prints each page's answer as JSON: the one retried already is
	// skipped, the two others retried as new jobs.
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), []string{"jobs", "retry", "--url", url, "--reason", "handles registered", "--status", "timed_out", "--limit", "1", "--json"}, &stdout, &stderr)
	out = stdout.String()
	if err != nil || !strings.Contains(stderr.String(), "skipped "+late[0]+": the job was already retried, as ") {
		t.Fatalf("bulk retry: %v\n%s%s", err, out, stderr.String())
	}
	newJobs := map[string]string{}
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var page struct {
			Retried []struct{ JobID, NewJobID string }
			Skipped []struct{ JobID, Reason string }
		}
		if err := dec.Decode(&page); err != nil {
			t.Fatalf("bulk retry --json: %v\n%s", err, out)
		}
		for _, j := range page.Retried {
			newJobs[j.JobID] = j.NewJobID
		}
	}
	if len(newJobs) != 2 || newJobs[late[1]] == "" || newJobs[late[2]] == "" {
		t.Fatalf("bulk retry made %v, want new jobs for %s and %s\n%s", newJobs, late[1], late[2], out)
	}
	// Linked both ways: the old job's history names the new job, the new job's first event the old.
	for old, next := range newJobs {
		out, err := cli("show", "--url", url, "--json", old)
		if err != nil || !strings.Contains(out, `"JobRetried"`) || !strings.Contains(out, next) {
			t.Errorf("old job %s: %v\n%s", old, err, out)
		}
		out, err = cli("show", "--url", url, "--json", next)
		if err != nil || !strings.Contains(out, `"retryOf"`) || !strings.Contains(out, old) {
			t.Errorf("new job %s: %v\n%s", next, err, out)
		}
	}
}

// mustPostPublicDecrypt submits a public decrypt of handle and returns its job id; anything but
// a 202 fails the test.
func mustPostPublicDecrypt(t *testing.T, url string, handle [32]byte) string {
	t.Helper()
	body := fmt.Sprintf(`{"ciphertextHandles":["0x%x"],"extraData":"0x00"}`, handle)
	code, id, b, _ := postJob(context.Background(), http.DefaultClient, url, []byte(body))
	if code != http.StatusAccepted || id == "" {
		t.Fatalf("POST: %d %s", code, b)
	}
	return id
}
