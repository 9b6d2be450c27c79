package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"relayer/domain"
	"relayer/workers/gateway/contracts"
)

// A full disk degrades the relayer and never stops it. serve runs with its store on a small
// filesystem (a tmpfs this test mounts) and takes public decrypts until the disk is full: new
// requests are then refused with 503 storage_full and a Retry-After, status reads are answered,
// and the process stays up. The filesystem then grows, as when an operator frees space: every
// acknowledged job completes without anyone restarting anything, and new requests are accepted.
func TestAFullDiskRefusesNewRequestsAndTheRelayerResumesByItself(t *testing.T) {
	if testing.Short() {
		t.Skip("full-disk test: builds the binary and fills a filesystem")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	mountSmallDisk(t, data, "2m")
	bin := buildRelayer(t, dir)
	cfgFile := filepath.Join(dir, "relayer.yaml")
	cfg := `retry_after: {input_proof_throttler_tps: 100, user_decrypt_throttler_tps: 100, public_decrypt_throttler_tps: 100, readiness_max_concurrency: 100}
rate_limit: {concurrency_limit: 0, rolling_limit: 0, read: {concurrency_limit: 0, rolling_limit: 0}}
`
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	serve := startCrashProc(t, "serve", bin, crashEnv(""), "serve", "--config", cfgFile, "--data-dir", data, "--listen", "127.0.0.1:0")
	url := serve.await(t, listeningOn, 90*time.Second)[1]
	client := &http.Client{Timeout: 10 * time.Second}

	// Submitters until the disk refuses: every 202 is an acknowledged job.
	var (
		mu      sync.Mutex
		acked   []crashJob
		full    atomic.Int64
		refusal struct {
			body       []byte
			retryAfter string
		}
		seq atomic.Int64
	)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for ctx.Err() == nil && full.Load() < 20 {
				body := crashBody(domain.PublicDecrypt, contracts.ScenarioNone, fmt.Sprintf("full-%d", seq.Add(1)))
				code, id, b, ra := postJob(ctx, client, url, body)
				switch code {
				case http.StatusAccepted:
					mu.Lock()
					acked = append(acked, crashJob{id: id, kind: domain.PublicDecrypt, scenario: contracts.ScenarioNone})
					mu.Unlock()
				case http.StatusServiceUnavailable:
					if full.Add(1) == 1 {
						mu.Lock()
						refusal.body, refusal.retryAfter = b, ra
						mu.Unlock()
					}
				default:
					t.Errorf("POST answered %d: %s", code, b)
					cancel()
				}
			}
		})
	}
	wg.Wait()
	if full.Load() == 0 {
		t.Fatalf("the disk never filled: %d jobs acknowledged", len(acked))
	}
	t.Logf("%d jobs acknowledged before the disk was full", len(acked))
	var env struct {
		Status string `json:"status"`
		Error  struct {
			Label   string `json:"label"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(refusal.body, &env); err != nil || env.Status != "failed" || env.Error.Label != "storage_full" {
		t.Fatalf("refusal %s (%v), want status failed and label storage_full", refusal.body, err)
	}
	if refusal.retryAfter == "" {
		t.Error("the 503 storage_full carries no Retry-After")
	}

	// Full: reads are answered and the process stays up while the workers find no room.
	time.Sleep(3 * time.Second)
	if serve.exited() {
		t.Fatalf("serve exited on a full disk (%v):\n%s", serve.err, serve.stderr.String())
	}
	for _, path := range []string{"/v2/public-decrypt/" + acked[0].id, "/v2/public-decrypt/" + acked[len(acked)-1].id, "/healthz"} {
		res, err := client.Get(url + path)
		if err != nil {
			t.Fatalf("GET %s on a full disk: %v", path, err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusAccepted {
			t.Fatalf("GET %s on a full disk: %d %s", path, res.StatusCode, b)
		}
	}

	m := scrapeMetrics(t, client, url)
	if free, ok := m["relayer_store_free_bytes"]; !ok || free > 256<<10 {
		t.Errorf("relayer_store_free_bytes %v (exported %v) on a full 2 MB disk, want under 256 KiB", free, ok)
	}
	if m["relayer_store_size_bytes"] <= 0 || m["relayer_store_full_refusals_total"] < 1 {
		t.Errorf("relayer_store_size_bytes %v, relayer_store_full_refusals_total %v: want both positive",
			m["relayer_store_size_bytes"], m["relayer_store_full_refusals_total"])
	}

	// Space returns: everything acknowledged completes, with nobody restarting anything.
	growDisk(t, data, "64m")
	if why := waitAllTerminal(t, client, url, acked, 2*time.Minute); why != nil {
		t.Fatalf("jobs not terminal after space returned: %v", firstFew(why, 5))
	}
	for _, j := range acked {
		if _, state := pollJob(client, url, j); state != "succeeded" {
			t.Fatalf("job %s ended %s, want succeeded", j.id, state)
		}
	}
	if code, _, b, _ := postJob(context.Background(), client, url, crashBody(domain.PublicDecrypt, contracts.ScenarioNone, "after-full")); code != http.StatusAccepted {
		t.Fatalf("a new request once space returned: %d %s", code, b)
	}
	if serve.exited() {
		t.Fatalf("serve exited (%v):\n%s", serve.err, serve.stderr.String())
	}
	if free := scrapeMetrics(t, client, url)["relayer_store_free_bytes"]; free < 32<<20 {
		t.Errorf("relayer_store_free_bytes %v once the disk grew to 64 MB", free)
	}
	serve.stop(t)
}

// postJob submits a public decrypt: the status code, the job id of a 202, the body and the
// Retry-After header.
func postJob(ctx context.Context, client *http.Client, url string, body []byte) (code int, id string, b []byte, retryAfter string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v2/public-decrypt", bytes.NewReader(body))
	if err != nil {
		return 0, "", []byte(err.Error()), ""
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return 0, "", []byte(err.Error()), ""
	}
	defer res.Body.Close()
	b, _ = io.ReadAll(res.Body)
	var env struct {
		Result struct {
			JobID string `json:"jobId"`
		} `json:"result"`
	}
	_ = json.Unmarshal(b, &env)
	return res.StatusCode, env.Result.JobID, b, res.Header.Get("Retry-After")
}

// mountSmallDisk mounts a tmpfs of size at dir, unmounted when the test ends. Mounting needs
// root: without it the test is skipped, except in CI, where it fails.
func mountSmallDisk(t *testing.T, dir, size string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		msg := fmt.Sprintf("a small filesystem for the store (mount -t tmpfs needs root): %v %s", err, bytes.TrimSpace(out))
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
}

// growDisk gives the tmpfs at dir a new size.
func growDisk(t *testing.T, dir, size string) {
	t.Helper()
	if out, err := exec.Command("mount", "-o", "remount,size="+size, dir).CombinedOutput(); err != nil {
		t.Fatalf("grow %s: %v %s", dir, err, out)
	}
}

// firstFew is up to n entries of m, for a failure message.
func firstFew(m map[string]string, n int) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if len(out) == n {
			break
		}
		out[k] = v
	}
	return out
}
