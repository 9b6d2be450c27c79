package gateway_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"

	"relayer/workers/devchain/faultproxy"
	"relayer/workers/devchain/faultproxy/faultproxytest"
	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
)

// dialProviders dials an adapter to the shared chain through providers, over HTTP only.
func dialProviders(t *testing.T, providers []gateway.Provider, mod func(*gateway.Config)) *gateway.Adapter {
	t.Helper()
	return dial(t, nextKey(t), func(c *gateway.Config) {
		c.RPCURL, c.WSURL, c.Providers = "", "", providers
		if mod != nil {
			mod(c)
		}
	})
}

// eventuallyWithin waits for cond, failing the test after limit.
func eventuallyWithin(t *testing.T, limit time.Duration, cond func() bool, what string) {
	t.Helper()
	for end := time.Now().Add(limit); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("not within %v: %s", limit, what)
		}
	}
}

func TestConfigTakesSeveralProvidersOrOneRPCURLAndNamesEveryProblemWithoutAURL(t *testing.T) {
	t.Parallel()
	good := baseConfig(shared)
	good.RPCURL = ""
	good.Providers = []gateway.Provider{{URL: "https://a.example/v3/SECRETA", Weight: 3}, {URL: "https://b.example/SECRETB"}}
	if err := good.Validate(); err != nil {
		t.Fatalf("two providers: %v", err)
	}
	if e := good.Endpoints(); len(e) != 2 || e[0].Weight != 3 || e[1].Weight != 1 {
		t.Fatalf("endpoints %+v, want weights 3 and 1 (a zero weight is 1)", e)
	}
	if e := baseConfig(shared).Endpoints(); len(e) != 1 || e[0].URL != shared.HTTPEndpoint() || e[0].Weight != 1 {
		t.Fatalf("rpc_url's endpoints %+v, want a list of one", e)
	}
	if printed := fmt.Sprintf("%v %+v", good, good); strings.Contains(printed, "SECRET") {
		t.Fatalf("a printed config shows a provider's key: %s", printed)
	}

	bad := baseConfig(shared)
	bad.Providers = []gateway.Provider{
		{URL: "https://a.example/SECRETA", Weight: -1},
		{URL: "ftp://b.example/SECRETB"},
		{URL: "https://a.example/SECRETA", Weight: 2000},
		{},
	}
	err := bad.Validate()
	var ce *gateway.ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("Validate: %v, want a *ConfigError", err)
	}
	want := map[string]string{
		"providers":           "rpc_url too",
		"providers[0].weight": "is -1",
		"providers[1].url":    "must be a http or https URL",
		"providers[2].url":    "same URL as providers[0].url",
		"providers[2].weight": "is 2000",
		"providers[3].url":    "is empty",
	}
	got := map[string]string{}
	for _, p := range ce.Problems {
		got[p.Field] += p.Issue + "; "
	}
	for field, issue := range want {
		if !strings.Contains(got[field], issue) {
			t.Errorf("%s: %q, want it to say %q", field, got[field], issue)
		}
	}
	if strings.Contains(err.Error(), "SECRET") {
		t.Errorf("a problem quotes a provider's URL: %v", err)
	}
}

// Reads go to the provider that answers: the heavier provider refuses, every read still gets
// its answer (from the other) at once, the refusing one is paused, the chain is not declared
// unreachable; slowed past the probe's timeout it is paused again; healed, it is healthy again.
func TestAFailingProviderIsPausedWhileTheOtherServesAndResumesWhenItAnswers(t *testing.T) {
	t.Parallel()
	flaky, steady := newFaultProxy(t), newFaultProxy(t)
	ad := dialProviders(t, []gateway.Provider{{URL: flaky.URL(), Weight: 1000}, {URL: steady.URL(), Weight: 1}},
		func(c *gateway.Config) { c.CallTimeout = 5 * time.Second })
	outages := watchOutages(t, ad)
	ctx := testContext(t)
	read := func(what string) {
		t.Helper()
		if _, err := ad.ACLAllowed(ctx, [32]byte{1}, common.Address{2}); err != nil {
			t.Fatalf("a read while %s: %v", what, err)
		}
	}
	read("both answer")
	eventuallyWithin(t, 30*time.Second, func() bool { return ad.Providers()[0].Healthy && ad.Providers()[1].Healthy }, "both providers healthy")

	faultproxytest.SetMode(t, flaky, faultproxy.Refuse)
	for range 20 {
		read("the heavier provider refuses")
	}
	eventuallyWithin(t, 30*time.Second, func() bool { return ad.Providers()[0].Paused }, "the refusing provider paused")
	served := ad.Providers()[1].Requests
	for range 20 {
		read("the heavier provider is paused")
	}
	if ps := ad.Providers(); ps[1].Requests < served+20 || ps[0].Healthy || !ps[1].Healthy {
		t.Errorf("providers while the first is paused: %+v, want the second to take every read", ps)
	}

	faultproxytest.SetMode(t, flaky, faultproxy.Pass)
	eventuallyWithin(t, 45*time.Second, func() bool { return ad.Providers()[0].Healthy }, "the provider healthy again once it answers")

	flaky.SetDelay(2500 * time.Millisecond) // slower than the probe's 2 s timeout
	failures := ad.Providers()[0].Failures
	eventuallyWithin(t, 30*time.Second, func() bool { p := ad.Providers()[0]; return p.Paused && p.Failures > failures }, "the slow provider paused")
	began := time.Now()
	for range 10 {
		read("the heavier provider is slow")
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("10 reads took %v while the slow provider was paused, want them served by the other", took)
	}
	flaky.SetDelay(0)
	eventuallyWithin(t, 45*time.Second, func() bool { return ad.Providers()[0].Healthy }, "the healed provider healthy again")

	if h := ad.Health(); !h.Reachable || h.Outages != 0 || len(outages.snapshot()) != 0 {
		t.Errorf("chain health %+v, outages %v: want no outage while a provider answered", h, outages.snapshot())
	}
}

// A transaction goes to every healthy provider, the same bytes; one that answers "already
// known" (it heard of it from the other) is no error: the receipt comes.
func TestATransactionGoesToEveryHealthyProviderAndAnAlreadyKnownFromOneIsNoError(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	took, knew := newRPCProxy(t, shared.HTTPEndpoint()), newRPCProxy(t, shared.HTTPEndpoint())
	knew.setHook(func(w http.ResponseWriter, method string, id json.RawMessage) bool {
		if method != "eth_sendRawTransactionSync" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"already known"}}`, id)
		return true
	})
	ad := dialProviders(t, []gateway.Provider{{URL: took.srv.URL}, {URL: knew.srv.URL}}, nil)
	eventuallyWithin(t, 30*time.Second, func() bool { return ad.Providers()[0].Healthy && ad.Providers()[1].Healthy }, "both providers healthy")

	p := mustPrepare(t, ctx, ad, publicRequest(contracts.TestHandle(contracts.ScenarioNone, uniqueSeed(t))))
	rec, err := ad.Broadcast(ctx, p)
	if err != nil {
		t.Fatalf("Broadcast with one provider answering already known: %v", err)
	}
	if rec.TxHash != p.Hash {
		t.Fatalf("receipt of %s, want %s", rec.TxHash, p.Hash)
	}
	if took.count("eth_sendRawTransactionSync") != 1 || knew.count("eth_sendRawTransactionSync") != 1 {
		t.Fatalf("sends: %d and %d, want one to each provider", took.count("eth_sendRawTransactionSync"), knew.count("eth_sendRawTransactionSync"))
	}
	// Sent again (a recovery after a crash): mined, so "nonce too low" from the one and "already
	// known" from the other; ours, so the same receipt.
	again, err := ad.Broadcast(ctx, p)
	if err != nil || again.TxHash != p.Hash {
		t.Fatalf("re-broadcast: %+v, %v; want the same receipt", again, err)
	}
}

func TestEveryProviderHasItsMetricsNamedByPlaceAndHostOnly(t *testing.T) {
	t.Parallel()
	a, b := newRPCProxy(t, shared.HTTPEndpoint()), newRPCProxy(t, shared.HTTPEndpoint())
	ad := dialProviders(t, []gateway.Provider{{URL: a.srv.URL + "/v3/SECRETKEY", Weight: 2}, {URL: b.srv.URL + "/?apikey=SECRETKEY"}}, nil)
	eventuallyWithin(t, 30*time.Second, func() bool { return ad.Providers()[0].Requests > 0 && ad.Providers()[1].Requests > 0 }, "calls to both providers")
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(ad.Collectors()...)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, f := range families {
		fmt.Fprintln(&text, f.String())
	}
	if strings.Contains(text.String(), "SECRETKEY") {
		t.Fatalf("a provider's key in the metrics:\n%s", text.String())
	}
	series := map[string]map[string]float64{} // name: provider label: value
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if series[f.GetName()] == nil {
				series[f.GetName()] = map[string]float64{}
			}
			series[f.GetName()][labels["provider"]+" "+labels["endpoint"]] = m.GetGauge().GetValue() + m.GetCounter().GetValue() + float64(m.GetSummary().GetSampleCount())
		}
	}
	keys := []string{"1 " + a.srv.URL, "2 " + b.srv.URL}
	for _, name := range []string{"relayer_rpc_provider_requests_total", "relayer_rpc_provider_errors_total",
		"relayer_rpc_provider_latency_seconds", "relayer_rpc_provider_healthy", "relayer_rpc_provider_head_lag_blocks"} {
		for _, k := range keys {
			if _, ok := series[name][k]; !ok || len(series[name]) != 2 {
				t.Errorf("%s: series %v, want one per provider labelled %q", name, series[name], keys)
			}
		}
	}
	for _, k := range keys {
		if series["relayer_rpc_provider_healthy"][k] != 1 || series["relayer_rpc_provider_requests_total"][k] == 0 ||
			series["relayer_rpc_provider_latency_seconds"][k] == 0 {
			t.Errorf("provider %s: healthy %v, requests %v, latency samples %v; want healthy, with answered calls", k,
				series["relayer_rpc_provider_healthy"][k], series["relayer_rpc_provider_requests_total"][k], series["relayer_rpc_provider_latency_seconds"][k])
		}
	}
}
