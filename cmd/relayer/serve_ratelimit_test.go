package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"relayer/domain"
	"relayer/eventstore/sqlite"
	"relayer/projections"
	"relayer/workers/devchain"
	"relayer/workers/devchain/devchaintest"
	"relayer/workers/gateway/contracts"
)

// limitingProxy forwards JSON-RPC to target (whatever path and query the client used: a
// provider's key lives there) after answering 429, Retry-After: 0, to the first `limited`
// requests. It counts the 429s it sent.
func limitingProxy(t *testing.T, target string, limited int64) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(u)
		r.Out.URL.Path, r.Out.URL.RawPath, r.Out.URL.RawQuery = u.Path, "", ""
		r.Out.Header.Del("Authorization")
	}}
	var seen, refused atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if seen.Add(1) <= limited {
			refused.Add(1)
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &refused
}

func TestServeRecordsTheRateLimitsItsChainCallsMeetInTheLogTheMetricsAndTheStream(t *testing.T) {
	dev := devchaintest.Start(t, devchain.Config{HTTPAddr: "127.0.0.1:0"}, nil)
	proxy, refused := limitingProxy(t, dev.HTTPEndpoint(), 3)
	source := "http://" + proxy.Listener.Addr().String()

	// The RPC URL carries a provider's keys in its userinfo, path and query.
	const keyEnv, token = "RATELIMIT_TEST_RELAYER_KEY", "operator-token-of-the-ratelimit-test-0123"
	a := dev.Addresses()
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "relayer.yaml")
	cfg := fmt.Sprintf(`host_chain_ids: [%d]
chain:
  rpc_url: %q
  chain_id: %d
  contracts: {decryption: "%s", input_verification: "%s", acl: "%s"}
  signer: {key_env: %s}
  user_decrypt_threshold: %d
`, contracts.DevHostChainID, withRPCSecrets(t, proxy.URL), dev.ChainID().Uint64(), a.Decryption.Hex(), a.InputVerification.Hex(),
		a.ACL.Hex(), keyEnv, dev.Threshold())
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	withEnv(t, "RELAYER_OPERATOR_TOKEN="+token)
	t.Setenv("RELAYER_OPERATOR_TOKEN", token)                                // watch's
	t.Setenv(keyEnv, hex.EncodeToString(crypto.FromECDSA(dev.RelayerKey()))) // the signer reads the process's
	dataDir := filepath.Join(dir, "data")
	base, stdout, stderr, stop := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--config", cfgFile)
	if refused.Load() != 3 {
		t.Fatalf("the proxy refused %d calls, want 3 (serve dialled through it)", refused.Load())
	}

	// /metrics counts them by source, at once.
	scrape := func() string {
		res, err := http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	metrics := scrape()
	label := `{source="` + source + `"}`
	if v := metricValue(t, base, "relayer_upstream_ratelimit_encountered_total"+label); v != 3 {
		t.Errorf("relayer_upstream_ratelimit_encountered_total%s = %g, want 3", label, v)
	}
	if v := metricValue(t, base, "relayer_upstream_ratelimit_recovered_total"+label); v < 1 {
		t.Errorf("relayer_upstream_ratelimit_recovered_total%s = %g, want at least 1", label, v)
	}
	// No call gave up, and the configured node's series is there at 0 all the same (the
	// recorder starts it), so that a rate over it sees the first one.
	for _, family := range []string{"relayer_upstream_ratelimit_backoff_seconds_total" + label,
		"relayer_upstream_ratelimit_gave_up_total" + label + " 0",
		`relayer_upstream_ratelimit_events_dropped_total{reason="buffer_full"} 0`} {
		if !strings.Contains(metrics, family) {
			t.Errorf("/metrics has no %s", family)
		}
	}
	checkNoRPCSecret(t, "/metrics", metrics)

	// relayer watch shows them, from the transitions stream.
	out, errOut, _ := startWatch(t, "--url", base, "--from", "0")
	first := waitLines(t, out, errOut, 1)[0]
	if want := "ratelimit encountered source=" + source + " status=429 retry-after=0s attempt=1"; !strings.Contains(first, want) {
		t.Errorf("watch's first line %q, want %q", first, want)
	}

	if err := stop(); err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr)
	}
	checkNoRPCSecret(t, "serve's output", stdout.String()+stderr.String())
	checkNoRPCSecret(t, "watch's output", out.String())

	// The log holds them, in their stream, with no secret.
	store, err := sqlite.Open(filepath.Join(dataDir, storeFile), sqlite.Config{})
	if err != nil {
		t.Fatal(err)
	}
	codec := projections.NewCodec()
	counts := map[string]int{}
	for rec, err := range store.ReadStream(context.Background(), domain.RateLimitStream, 0) {
		if err != nil {
			t.Fatal(err)
		}
		v, err := codec.Decode(rec)
		if err != nil {
			t.Fatal(err)
		}
		e := v.(domain.RateLimitEvent)
		if c := e.Call(); c.Source != source || c.Instance != "" {
			t.Errorf("%s from %q (instance %q), want %q and no instance", rec.Type, c.Source, c.Instance, source)
		}
		checkNoRPCSecret(t, "the log's "+rec.Type, string(rec.Data))
		counts[rec.Type]++
	}
	_ = store.Close()
	if counts["RateLimitEncountered"] != 3 || counts["RateLimitRecovered"] < 1 || counts["RateLimitBackoff"] != 3 {
		t.Errorf("the rate-limit stream holds %v, want 3 encounters, 3 backoffs and a recovery", counts)
	}

	// replay and rebuild read the log with its rate-limit stream; rebuild gives serve's digest.
	replayOut, replayErr, code := runCLI(t, "replay", "--all", "--data-dir", dataDir)
	if code != 0 || !strings.Contains(replayOut, "RateLimitEncountered") {
		t.Errorf("replay --all: exit %d, stderr %s", code, replayErr)
	}
	checkNoRPCSecret(t, "replay's output", replayOut)
	checkRebuilds(t, servedDigest(t, stdout), "--data-dir", dataDir, "--config", cfgFile)
}
