package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
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

// fakeFleet is an instance of a fleet as cmd/relayer's fleetLeases reports it.
type fakeFleet FleetHealth

func (f fakeFleet) Fleet() FleetHealth { return FleetHealth(f) }

// An instance of a fleet says in /healthz which leases it holds and which another instance does
// (found by an outside probe: nothing said who held what); alone on a log there is no fleet
// member. The member changes no status.
func TestHealthNamesTheInstanceAndTheLeasesItHoldsInAFleet(t *testing.T) {
	fleet := fakeFleet{Instance: "relayer-b:4242", Leases: []LeaseHealth{
		{Name: "signer-0x01", Epoch: 7}, {Name: "signer-0x02"}, {Name: "webhooks", Epoch: 3}, {Name: "archiver"},
	}}
	srv := opServer(t, Deps{Store: projectionstest.OpenStore(t), Fleet: fleet})
	h := contractChecked(t, srv.Handler())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/healthz", nil))
	var got struct {
		Status string       `json:"status"`
		Fleet  *FleetReport `json:"fleet"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != http.StatusOK || got.Status != "ok" || got.Fleet == nil {
		t.Fatalf("%v: %d %s", err, rec.Code, rec.Body)
	}
	f := got.Fleet
	if f.Instance != "relayer-b:4242" || len(f.Holds) != 2 || f.Holds[0].Name != "signer-0x01" || f.Holds[0].Epoch != 7 ||
		f.Holds[1].Name != "webhooks" || f.Holds[1].Epoch != 3 || len(f.Waits) != 2 || f.Waits[0] != "signer-0x02" || f.Waits[1] != "archiver" {
		t.Fatalf("fleet %+v", *f)
	}

	env := startOps(t, opsTuning{})
	if _, _, body := env.get("/healthz"); strings.Contains(string(body), `"fleet"`) {
		t.Fatalf("alone on a log, /healthz has a fleet member: %s", body)
	}
}
