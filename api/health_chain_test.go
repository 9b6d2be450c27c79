package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"relayer/projections/projectionstest"
)

// fakeChainHealth is a chain port (ChainChecks) that can tell the chain's health, as
// cmd/relayer's does on the gateway adapter.
type fakeChainHealth struct {
	mu sync.Mutex
	h  ChainHealth
}

func (f *fakeChainHealth) ChainTime(context.Context) (time.Time, error) { return time.Now(), nil }

func (f *fakeChainHealth) WalletSignature(context.Context, [20]byte, [32]byte, []byte) (bool, bool, error) {
	return false, false, nil
}

func (f *fakeChainHealth) ChainHealth() ChainHealth {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.h
}

func (f *fakeChainHealth) set(h ChainHealth) {
	f.mu.Lock()
	f.h = h
	f.mu.Unlock()
}

// chainHealthBody is GET /healthz's chain member as the tests read it.
type chainHealthBody struct {
	Status string `json:"status"`
	Chain  *struct {
		Status         string     `json:"status"`
		Head           *uint64    `json:"head"`
		HeadAgeSeconds *float64   `json:"headAgeSeconds"`
		LastSuccess    *time.Time `json:"lastSuccess"`
		OutageSince    *time.Time `json:"outageSince"`
	} `json:"chain"`
	Dependencies map[string]string `json:"dependencies"`
}

func getChainHealth(t *testing.T, h http.Handler) (int, chainHealthBody, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/healthz", nil))
	var got chainHealthBody
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, rec.Body)
	}
	return rec.Code, got, rec.Body.String()
}

func TestHealthIsDownWith503WhileTheChainCannotBeReachedAndOKAgainAfter(t *testing.T) {
	chain := &fakeChainHealth{}
	srv := opServer(t, Deps{Store: projectionstest.OpenStore(t), Chain: chain})
	last := time.Now().Add(-300 * time.Millisecond).UTC().Truncate(time.Millisecond)
	chain.set(ChainHealth{Reachable: true, LastSuccess: last, Head: 42, HeadAge: 1500 * time.Millisecond, HeadKnown: true})
	code, got, body := getChainHealth(t, srv.Handler())
	if code != http.StatusOK || got.Status != "ok" || got.Chain == nil || got.Chain.Status != "ok" ||
		got.Chain.Head == nil || *got.Chain.Head != 42 || got.Chain.HeadAgeSeconds == nil || *got.Chain.HeadAgeSeconds != 1.5 ||
		got.Chain.LastSuccess == nil || !got.Chain.LastSuccess.Equal(last) || got.Chain.OutageSince != nil {
		t.Fatalf("a reachable chain: %d %s", code, body)
	}

	since := last.Add(100 * time.Millisecond)
	chain.set(ChainHealth{Since: since, LastSuccess: last, Head: 42, HeadAge: 9 * time.Second, HeadKnown: true})
	code, got, body = getChainHealth(t, srv.Handler())
	if code != http.StatusServiceUnavailable || got.Status != "down" || got.Chain == nil || got.Chain.Status != "down" ||
		got.Chain.OutageSince == nil || !got.Chain.OutageSince.Equal(since) || got.Chain.LastSuccess == nil || !got.Chain.LastSuccess.Equal(last) ||
		got.Dependencies["chain"] != "fail" || got.Dependencies["store"] != "ok" {
		t.Fatalf("an unreachable chain: want 503 down with the outage's start, got %d %s", code, body)
	}
	opWantLive(t, srv.Handler(), "during an outage") // liveness does not depend on the chain

	chain.set(ChainHealth{Reachable: true, LastSuccess: time.Now()})
	if code, got, body := getChainHealth(t, srv.Handler()); code != http.StatusOK || got.Status != "ok" || got.Chain == nil ||
		got.Chain.Status != "ok" || got.Chain.OutageSince != nil || got.Chain.Head != nil || got.Dependencies["chain"] != "ok" {
		t.Fatalf("the chain back (no head seen yet): %d %s", code, body)
	}
}

func TestHealthWithoutAChainHealthSourceHasNoChainMember(t *testing.T) {
	env := startOps(t, opsTuning{})
	code, got, body := opGetJSON[chainHealthBody](env, "/healthz")
	if code != http.StatusOK || got.Status != "ok" || got.Chain != nil {
		t.Fatalf("%d %s", code, body)
	}
}
