package delivery

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"relayer/domain/webhook"
	"relayer/projections"
	"relayer/workers/devchain/nodetest"
)

// nodeReceiver is testdata/receiver.mjs running: what it printed, line by line.
type nodeReceiver struct {
	url     string
	secrets string // the file it reads the secrets from
	mu      sync.Mutex
	lines   []nodeDelivery
}

// nodeDelivery is one request as the Node receiver saw it.
type nodeDelivery struct {
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Verified  []bool `json:"verified"`
	Body      string `json:"body"`
}

func startNodeReceiver(t *testing.T) *nodeReceiver {
	t.Helper()
	node, root := nodetest.Package(t, "standardwebhooks")
	r := &nodeReceiver{secrets: filepath.Join(t.TempDir(), "secrets")}
	if err := os.WriteFile(r.secrets, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "receiver.mjs"))
	cmd.Env = append(os.Environ(), "SECRETS_FILE="+r.secrets, "NODE_MODULES_ROOT="+root)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start node: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	port := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		listening := regexp.MustCompile(`^listening (\d+)$`)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				port <- m[1]
				continue
			}
			var d nodeDelivery
			if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
				t.Errorf("the receiver printed %q", sc.Text())
				continue
			}
			r.mu.Lock()
			r.lines = append(r.lines, d)
			r.mu.Unlock()
		}
	}()
	select {
	case p := <-port:
		r.url = "http://127.0.0.1:" + p + "/webhooks"
	case <-time.After(20 * time.Second):
		t.Fatal("the Node receiver did not start within 20 s")
	}
	return r
}

func (r *nodeReceiver) setSecrets(t *testing.T, secrets ...string) {
	t.Helper()
	if err := os.WriteFile(r.secrets, []byte(strings.Join(secrets, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (r *nodeReceiver) got() []nodeDelivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]nodeDelivery(nil), r.lines...)
}

// TestTheStandardWebhooksReferenceLibraryVerifiesEveryDelivery checks the deliveries' signatures
// with an implementation that is not ours: the npm package standardwebhooks (pinned in
// package.json), in a Node receiver (testdata/receiver.mjs) that verifies each request with
// new Webhook(secret).verify(body, headers). It needs Node.js and `npm ci` (make test runs it):
// outside CI it skips without them, with CI set it fails.
func TestTheStandardWebhooksReferenceLibraryVerifiesEveryDelivery(t *testing.T) {
	rcv := startNodeReceiver(t)
	env := newDT(t)
	id, secret := env.register(rcv.url, webhook.Filter{})
	rcv.setSecrets(t, secret)
	env.start(dtConfig(), Deps{})
	env.jobs(0, 5)
	waitFor(t, 20*time.Second, "20 deliveries verified", func() bool { return len(rcv.got()) >= 20 })
	want := env.transitions()
	got := rcv.got()
	for i, d := range got {
		if len(d.Verified) != 1 || !d.Verified[0] {
			t.Fatalf("delivery %d (%s) does not verify with the endpoint's secret", i, d.ID)
		}
		var tr projections.Transition
		if err := json.Unmarshal([]byte(d.Body), &tr); err != nil || tr != want[i] {
			t.Fatalf("delivery %d is %s, want %+v", i, d.Body, want[i])
		}
	}

	// During a rotation's overlap each secret verifies a delivery alone: a receiver may switch
	// at any moment.
	next := env.rotate(id, time.Hour)
	rcv.setSecrets(t, secret, next)
	time.Sleep(300 * time.Millisecond) // the manager folds the rotation
	env.jobs(5, 2)
	waitFor(t, 20*time.Second, "28 deliveries", func() bool { return len(rcv.got()) >= 28 })
	for _, d := range rcv.got()[20:] {
		if len(d.Verified) != 2 || !d.Verified[0] || !d.Verified[1] {
			t.Fatalf("during the overlap, delivery %s verified with the old and new secret: %v, want both", d.ID, d.Verified)
		}
	}

	// The library refuses what is not ours: a body changed after signing, a stranger's secret.
	last := rcv.got()[len(rcv.got())-1]
	for _, bad := range []struct {
		name          string
		body, sigFrom string
	}{
		{"a changed body", strings.Replace(last.Body, `"completed"`, `"failure"`, 1), next},
		{"a stranger's secret", last.Body, "whsec_" + strings.Repeat("QUFB", 8)},
	} {
		key, _ := webhook.SecretKey(bad.sigFrom)
		ts := time.Now()
		sig := webhook.Sign(key, last.ID, ts, []byte(last.Body))
		req, _ := http.NewRequest(http.MethodPost, rcv.url, strings.NewReader(bad.body))
		req.Header.Set(webhook.HeaderID, last.ID)
		req.Header.Set(webhook.HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
		req.Header.Set(webhook.HeaderSignature, sig)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: the reference library accepted it (%d)", bad.name, res.StatusCode)
		}
	}
}
