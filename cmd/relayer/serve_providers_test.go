package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"relayer/workers/devchain"
	"relayer/workers/devchain/devchaintest"
	"relayer/workers/devchain/faultproxy"
	"relayer/workers/gateway/contracts"
)

// serve with two providers given by RELAYER_CHAIN_PROVIDERS (URLs carrying keys): /metrics
// follows each provider's health by its place and host, a provider that stops answering is
// shown unhealthy while the chain stays reachable, and comes back; no key reaches the metrics
// or serve's output.
func TestServeFollowsEachProviderOfTheListAndShowsItInTheMetrics(t *testing.T) {
	dev := devchaintest.Start(t, devchain.Config{HTTPAddr: "127.0.0.1:0"}, nil)
	var err error
	var proxies [2]*faultproxy.Proxy
	for i := range proxies {
		if proxies[i], err = faultproxy.New(dev.HTTPEndpoint()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = proxies[i].Close() })
	}

	const keyEnv = "PROVIDERS_TEST_RELAYER_KEY"
	a := dev.Addresses()
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "relayer.yaml")
	cfg := fmt.Sprintf(`host_chain_ids: [%d]
chain:
  chain_id: %d
  contracts: {decryption: "%s", input_verification: "%s", acl: "%s"}
  signer: {key_env: %s}
  user_decrypt_threshold: %d
  call_timeout: 3s
`, contracts.DevHostChainID, dev.ChainID().Uint64(), a.Decryption.Hex(), a.InputVerification.Hex(), a.ACL.Hex(), keyEnv, dev.Threshold())
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	// The keys in the userinfo and the query (the development chain's node serves no other path).
	keyed := func(p *faultproxy.Proxy) string {
		u, err := url.Parse(withRPCSecrets(t, p.URL()))
		if err != nil {
			t.Fatal(err)
		}
		u.Path = ""
		return u.String()
	}
	withEnv(t, fmt.Sprintf(`RELAYER_CHAIN_PROVIDERS=[{url: %q, weight: 3}, {url: %q}]`, keyed(proxies[0]), keyed(proxies[1])))
	t.Setenv(keyEnv, hex.EncodeToString(crypto.FromECDSA(dev.RelayerKey())))
	base, stdout, stderr, stop := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data"), "--config", cfgFile)

	healthy := func(i int) string {
		return fmt.Sprintf(`relayer_rpc_provider_healthy{endpoint="http://%s",provider="%d"}`, proxies[i].Addr(), i+1)
	}
	waitMetric := func(sample string, want float64) {
		t.Helper()
		for end := time.Now().Add(30 * time.Second); metricValue(t, base, sample) != want; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("%s is %g after 30 s, want %g", sample, metricValue(t, base, sample), want)
			}
		}
	}
	waitMetric(healthy(0), 1)
	waitMetric(healthy(1), 1)

	if err := proxies[0].SetMode(faultproxy.Refuse); err != nil {
		t.Fatal(err)
	}
	waitMetric(healthy(0), 0)
	if v := metricValue(t, base, "relayer_chain_reachable"); v != 1 {
		t.Errorf("relayer_chain_reachable = %g while the second provider answers, want 1", v)
	}
	if v := metricValue(t, base, fmt.Sprintf(`relayer_rpc_provider_errors_total{endpoint="http://%s",provider="1"}`, proxies[0].Addr())); v < 1 {
		t.Errorf("the refusing provider's errors: %g, want at least 1", v)
	}
	// /healthz: the chain is up, and says which provider is paused (by scheme and host only).
	hres, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	hbody, _ := io.ReadAll(hres.Body)
	hres.Body.Close()
	var health struct {
		Chain struct {
			Status    string `json:"status"`
			Providers []struct {
				Provider, Endpoint, Status string
			} `json:"providers"`
		} `json:"chain"`
	}
	if err := json.Unmarshal(hbody, &health); err != nil || hres.StatusCode != http.StatusOK || health.Chain.Status != "ok" ||
		len(health.Chain.Providers) != 2 || health.Chain.Providers[0].Status != "paused" || health.Chain.Providers[1].Status != "ok" ||
		health.Chain.Providers[1].Endpoint != "http://"+proxies[1].Addr() {
		t.Errorf("/healthz with the first provider refusing: %d %s, want 200 with the chain ok, provider 1 paused and 2 ok", hres.StatusCode, hbody)
	}
	checkNoRPCSecret(t, "/healthz", string(hbody))
	if err := proxies[0].SetMode(faultproxy.Pass); err != nil {
		t.Fatal(err)
	}
	waitMetric(healthy(0), 1)

	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, family := range []string{"relayer_rpc_provider_requests_total", "relayer_rpc_provider_latency_seconds_count", "relayer_rpc_provider_head_lag_blocks"} {
		if !strings.Contains(string(body), family+`{endpoint="http://`+proxies[1].Addr()+`",provider="2"}`) {
			t.Errorf("/metrics has no %s for the second provider", family)
		}
	}
	checkNoRPCSecret(t, "/metrics", string(body))
	if err := stop(); err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr)
	}
	checkNoRPCSecret(t, "serve's output", stdout.String()+stderr.String())
}
