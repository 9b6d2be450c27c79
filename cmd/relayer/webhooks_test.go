//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"relayer/domain"
	"relayer/domain/webhook"
	"relayer/eventstore/sqlite"
	"relayer/projections"
)

// The tests of serve's webhooks: registration through the admin API, deliveries by serve's
// workers. The deliveries' own behaviour (order, retries, disabling, leases, signatures checked
// by the Standard Webhooks reference library) is tested in workers/delivery.

const (
	whAdminToken = "webhook-test-admin-token-0123456789abcdef"
	whSecretKey  = "5f4e3d2c1b0a99887766554433221100ffeeddccbbaa99887766554433221100"
)

// whReceiver records every delivery it gets, answering with answer (nil: 204).
type whReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []whDelivery
	answer func(n int) (code int, delay time.Duration)
}

// whDelivery is one request a receiver got.
type whDelivery struct {
	id, timestamp, signature string
	body                     []byte
	tr                       projections.Transition
	code                     int
}

func newWHReceiver(t *testing.T, answer func(n int) (int, time.Duration)) *whReceiver {
	r := &whReceiver{answer: answer}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		d := whDelivery{id: req.Header.Get(webhook.HeaderID), timestamp: req.Header.Get(webhook.HeaderTimestamp),
			signature: req.Header.Get(webhook.HeaderSignature), body: b, code: http.StatusNoContent}
		_ = json.Unmarshal(b, &d.tr)
		r.mu.Lock()
		n := len(r.got)
		var delay time.Duration
		if r.answer != nil {
			d.code, delay = r.answer(n)
		}
		r.got = append(r.got, d)
		r.mu.Unlock()
		if delay > 0 {
			time.Sleep(delay)
		}
		w.WriteHeader(d.code)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *whReceiver) deliveries() []whDelivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// registerWebhook registers url through serve's admin API and returns the endpoint's id and secret.
func registerWebhook(t testing.TB, client *http.Client, base, url string) (string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/admin/webhooks", strings.NewReader(`{"url":"`+url+`","description":"test receiver"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+whAdminToken)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var env struct {
		Result struct {
			Webhook struct {
				ID string `json:"id"`
			} `json:"webhook"`
			Secret string `json:"secret"`
		} `json:"result"`
	}
	if res.StatusCode != http.StatusCreated || json.Unmarshal(b, &env) != nil || env.Result.Secret == "" {
		t.Fatalf("register the webhook: %d %s", res.StatusCode, b)
	}
	return env.Result.Webhook.ID, env.Result.Secret
}

// checkWHSignature checks d's signature with secret (the relayer's own code: the reference
// library's check is workers/delivery's TestTheStandardWebhooksReferenceLibraryVerifiesEveryDelivery).
func checkWHSignature(t testing.TB, d whDelivery, secret string) {
	t.Helper()
	key, _ := webhook.SecretKey(secret)
	ts, err := strconv.ParseInt(d.timestamp, 10, 64)
	if err != nil || !slices.Contains(strings.Split(d.signature, " "), webhook.Sign(key, d.id, time.Unix(ts, 0), d.body)) {
		t.Fatalf("delivery %s: timestamp %q, signature %q: not signed with the endpoint's secret", d.id, d.timestamp, d.signature)
	}
}

func TestServeDeliversEveryTransitionToAnEndpointRegisteredThroughTheAdminAPI(t *testing.T) {
	withEnv(t, "RELAYER_ADMIN_TOKEN="+whAdminToken, "RELAYER_WEBHOOKS_SECRET_KEY="+whSecretKey, "RELAYER_WEBHOOKS_ALLOW_PRIVATE=true")
	dataDir := t.TempDir()
	url, stdout, stderr, stop := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dataDir)
	if !strings.Contains(stdout.String(), "webhooks: on") {
		t.Errorf("serve does not say webhooks are on:\n%s", stdout)
	}
	rcv := newWHReceiver(t, nil)
	client := &http.Client{Timeout: 10 * time.Second}
	id, secret := registerWebhook(t, client, url, rcv.srv.URL+"/relayer")
	load := &crashLoad{client: client, codes: map[int]int{}}
	load.url.Store(&url)
	for range 3 {
		load.submitOne(context.Background()) // an input proof, a user decrypt, a public decrypt
	}
	acked := load.jobs()
	if waitAllTerminal(t, client, url, acked, time.Minute) != nil {
		t.Fatal("the jobs did not end")
	}
	// Each job's transitions, in order, from its acceptance to its end.
	deadline := time.Now().Add(20 * time.Second)
	for {
		ended := 0
		for _, d := range rcv.deliveries() {
			if st, err := domain.ParseStatus(d.tr.To); err == nil && st.Terminal() {
				ended++
			}
		}
		if ended == len(acked) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d jobs' ends delivered within 20 s", ended, len(acked))
		}
		time.Sleep(50 * time.Millisecond)
	}
	byJob := map[string][]projections.Transition{}
	for _, d := range rcv.deliveries() {
		checkWHSignature(t, d, secret)
		byJob[d.tr.JobID] = append(byJob[d.tr.JobID], d.tr)
	}
	for _, j := range acked {
		trs := byJob[j.id]
		if len(trs) == 0 {
			t.Errorf("job %s (%s): nothing delivered", j.id, j.kind)
			continue
		}
		end, _ := domain.ParseStatus(trs[len(trs)-1].To)
		if len(trs) < 2 || trs[0].EventType != "RequestAccepted" || !end.Terminal() ||
			!slices.IsSortedFunc(trs, func(a, b projections.Transition) int { return int(a.Version - b.Version) }) {
			t.Errorf("job %s (%s): deliveries %+v", j.id, j.kind, trs)
		}
	}
	m := scrapeMetrics(t, client, url)
	if m[`relayer_webhook_deliveries_total{webhook="`+id+`"}`] < float64(len(rcv.deliveries())) {
		t.Errorf("relayer_webhook_deliveries_total %v, the receiver got %d", m[`relayer_webhook_deliveries_total{webhook="`+id+`"}`], len(rcv.deliveries()))
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	// The log keeps the secret sealed: relayer replay shows the registration, never the secret.
	secretB64 := strings.TrimPrefix(secret, webhook.SecretPrefix)
	for _, args := range [][]string{{"replay", "--all", "--data-dir", dataDir}, {"replay", "--all", "--json", "--data-dir", dataDir}} {
		var out, errOut bytes.Buffer
		if err := run(context.Background(), args, &out, &errOut); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut.String())
		}
		if !strings.Contains(out.String(), "WebhookRegistered") || strings.Contains(out.String(), secretB64) {
			t.Errorf("%v: shows the registration %v, the secret %v", args, strings.Contains(out.String(), "WebhookRegistered"), strings.Contains(out.String(), secretB64))
		}
	}
	if strings.Contains(stderr.String(), secretB64) || strings.Contains(stdout.String(), secretB64) {
		t.Error("serve's output shows the secret")
	}
}

// The fault test: `relayer serve` (the development chain in its own process) killed with SIGKILL
// and started again while it delivers about a thousand transitions to a receiver that answers 500
// and times out by turns. Every transition of the log must reach the receiver at least once, and
// each job's transitions must arrive in their order (by first delivery). RELAYER_WEBHOOK_FAULTS
// =full is the longer run (1,000 jobs, about 4,600 transitions, ten kills or more; about two minutes).
const webhookFaultsEnvVar = "RELAYER_WEBHOOK_FAULTS"

func TestWebhookDeliveriesSurviveSIGKILLAndAReceiverThatFailsAndTimesOutByTurns(t *testing.T) {
	if testing.Short() {
		t.Skip("webhook fault test: builds the binary and runs processes for about a minute")
	}
	jobs, minKills, drain := 220, 4, 2*time.Minute
	if os.Getenv(webhookFaultsEnvVar) == "full" {
		jobs, minKills, drain = 1000, 10, 8*time.Minute
	}
	began := time.Now()
	dir := t.TempDir()
	bin, env, dc := startCrashRig(t, dir, "RELAYER_ADMIN_TOKEN="+whAdminToken, "RELAYER_WEBHOOKS_SECRET_KEY="+whSecretKey)
	cfgFile := filepath.Join(dir, "relayer.yaml")
	// Attempts time out after 150 ms and wait at most 100 ms between them, so the faults cost
	// seconds, not the long-tail schedule's minutes.
	cfg := crashConfig(dc) + "webhooks: {allow_private: true, timeout: 150ms, retry_cap: 100ms}\n"
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(dir, "data")
	serveArgs := []string{"serve", "--config", cfgFile, "--data-dir", dataDir, "--listen", "127.0.0.1:0"}

	// One request in 16 is answered 500, another one in 16 after 400 ms (a timeout), by turns.
	var answered [3]int // 2xx, 500, timed out
	var amu sync.Mutex
	rcv := newWHReceiver(t, func(n int) (int, time.Duration) {
		amu.Lock()
		defer amu.Unlock()
		switch n % 16 {
		case 5:
			answered[1]++
			return http.StatusInternalServerError, 0
		case 13:
			answered[2]++
			return http.StatusOK, 400 * time.Millisecond
		}
		answered[0]++
		return http.StatusNoContent, 0
	})
	client := &http.Client{Timeout: 10 * time.Second}

	first := startCrashProc(t, "serve#0", bin, env, serveArgs...)
	url := first.await(t, listeningOn, 60*time.Second)[1]
	hookID, secret := registerWebhook(t, client, url, rcv.srv.URL+"/relayer")

	load := &crashLoad{client: client, codes: map[int]int{}}
	load.url.Store(&url)
	_, stopLoad := load.submitters(t, crashSubmitters, jobs)
	rng := killTimingRNG(t)
	p, kills, deliveredAtKills := first, 0, []int{}
	for load.count() < jobs || kills < minKills {
		if time.Since(began) > 5*time.Minute {
			t.Fatalf("after %s, %d jobs acknowledged and %d kills", time.Since(began).Round(time.Second), load.count(), kills)
		}
		time.Sleep(time.Duration(1500+rng.IntN(2000)) * time.Millisecond)
		load.url.Store(nil)
		if p.exited() {
			t.Fatalf("%s ended on its own (%v):\n%s", p.name, p.err, p.stderr.String())
		}
		p.kill()
		kills++
		deliveredAtKills = append(deliveredAtKills, len(rcv.deliveries()))
		p = startCrashProc(t, fmt.Sprintf("serve#%d", kills), bin, env, serveArgs...)
		u := p.await(t, listeningOn, 60*time.Second)[1]
		load.url.Store(&u)
		url = u
	}
	stopLoad()
	acked := load.jobs()
	t.Logf("%d kills (receiver had %v deliveries at each), %d jobs acknowledged in %s", kills, deliveredAtKills, len(acked), time.Since(began).Round(time.Second))

	// The last run drains the jobs and the deliveries, then stops gracefully.
	if left := waitAllTerminal(t, client, url, acked, 2*time.Minute); left != nil {
		t.Fatalf("%d jobs not terminal", len(left))
	}
	lag := `relayer_webhook_lag_positions{webhook="` + hookID + `"}`
	deadline := time.Now().Add(drain)
	for {
		m := scrapeMetrics(t, client, url)
		if v, ok := m[lag]; ok && v == 0 && m[`relayer_webhook_lag_seconds{webhook="`+hookID+`"}`] == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the deliveries did not catch up with the log within %s (%s %v)", drain, lag, m[lag])
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-p.done

	// Every transition of the log, against what the receiver got.
	store, err := sqlite.Open(filepath.Join(dataDir, "relayer.db"), sqlite.Config{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	tracker := projections.NewTransitions(projections.NewCodec(), nil)
	var want []projections.Transition
	for rec, err := range store.ReadAll(context.Background(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		if tr, ok, err := tracker.Next(context.Background(), rec); err != nil {
			t.Fatal(err)
		} else if ok {
			want = append(want, tr)
		}
	}
	got := rcv.deliveries()
	firstAt := map[string]int{} // event id -> index of its first delivery
	for i, d := range got {
		if d.code >= 200 && d.code < 300 {
			checkWHSignature(t, d, secret)
		}
		if _, seen := firstAt[d.id]; !seen {
			firstAt[d.id] = i
		}
	}
	lastVersion := map[string]int64{}
	lastIndex := map[string]int{}
	// The endpoint was registered before the first job: every transition is for it.
	var missing []string
	for _, tr := range want {
		id := webhook.EventID(domain.StreamPrefix+tr.JobID, tr.Version)
		i, ok := firstAt[id]
		if !ok {
			missing = append(missing, fmt.Sprintf("%s v%d (%s)", tr.JobID, tr.Version, tr.EventType))
			continue
		}
		if v, seen := lastVersion[tr.JobID]; seen && (tr.Version <= v || i < lastIndex[tr.JobID]) {
			t.Errorf("job %s: version %d was first delivered after version %d", tr.JobID, tr.Version, v)
		}
		lastVersion[tr.JobID], lastIndex[tr.JobID] = tr.Version, i
	}
	if len(missing) > 0 {
		t.Errorf("%d transitions of the log never delivered, the first: %v", len(missing), missing[:min(5, len(missing))])
	}
	if len(firstAt) < 1000 {
		t.Errorf("%d transitions delivered: the run is meant to make about a thousand", len(firstAt))
	}
	t.Logf("%d transitions in the log, %d delivered (%d requests: %d answered 2xx, %d 500, %d timed out; %d repeats after kills or failures) in %s",
		len(want), len(firstAt), len(got), answered[0], answered[1], answered[2], len(got)-len(firstAt), time.Since(began).Round(time.Second))
}
