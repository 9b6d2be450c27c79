package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
)

// fakeSigningKeys is cmd/relayer's chain port as far as the balance guard goes: a reachable
// chain and the relayer's signing keys.
type fakeSigningKeys struct {
	fakeChainHealth
	keys []string
}

func (f *fakeSigningKeys) SigningKeys() []string { return f.keys }

// appendSigner appends ev to key's balance guard stream, as the engine does, and waits for the
// projections to apply it.
func (e *jtEnv) appendSigner(key string, ev eventstore.Typed) {
	e.t.Helper()
	appendTo(e.t, e.store, e.set, domain.SignerStream(key), eventstore.Any, ev)
}

// signersHealth is GET /healthz as the balance guard's tests read it.
type signersHealth struct {
	Status  string `json:"status"`
	Signers *struct {
		Status  string `json:"status"`
		Keys    int    `json:"keys"`
		Sending int    `json:"sending"`
		Paused  []struct {
			Address    string    `json:"address"`
			BalanceWei string    `json:"balanceWei"`
			FloorWei   string    `json:"floorWei"`
			Since      time.Time `json:"since"`
		} `json:"paused"`
		Reason string `json:"reason"`
	} `json:"signers"`
}

func (e *jtEnv) signersHealth() (int, signersHealth, string) {
	e.t.Helper()
	res := e.do("GET", "/healthz", nil)
	var h signersHealth
	if err := json.Unmarshal(res.Body, &h); err != nil {
		e.t.Fatalf("%v: %s", err, res.Body)
	}
	return res.Code, h, string(res.Body)
}

// With two signing keys, one paused by the balance guard halves the rate the hints count on
// (the per-kind D is split over the keys) and /healthz names it, still 200; both paused, /healthz
// is 503 down and says why (the keys and their balances), new requests are still accepted with a
// hint that counts the pause as an outage (never shorter than without it), and a job whose
// processing deadline came while its key was paused fails with insufficient_balance (503).
func TestPausedSigningKeysThinTheHintsAndHealthSaysWhyWhenNoneCanSend(t *testing.T) {
	const keyA, keyB = "0x00000000000000000000000000000000000000aa", "0x00000000000000000000000000000000000000bb"
	chain := &fakeSigningKeys{keys: []string{keyA, keyB}}
	chain.set(ChainHealth{Reachable: true, LastSuccess: time.Now()})
	env := startJTChain(t, chain)

	eta := func() time.Duration {
		return env.srv.estimate(env.srv.rt.Load(), domain.InputProof, domain.Processing,
			projections.Location{Queue: projections.TxQueue, Ahead: 100, Length: 101}, 101, 0).ETA
	}
	full := eta()
	if code, h, body := env.signersHealth(); code != http.StatusOK || h.Signers != nil {
		t.Fatalf("no key paused: %d %s, want 200 without a signers member", code, body)
	}

	pausedAt := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	env.appendSigner(keyA, domain.SignerPaused{Address: keyA, BalanceWei: "900", FloorWei: "1000", Reason: "below", At: pausedAt})
	code, h, body := env.signersHealth()
	if code != http.StatusOK || h.Status != "ok" || h.Signers == nil || h.Signers.Status != "ok" || h.Signers.Keys != 2 ||
		h.Signers.Sending != 1 || len(h.Signers.Paused) != 1 || h.Signers.Paused[0].Address != keyA ||
		h.Signers.Paused[0].BalanceWei != "900" || h.Signers.Paused[0].FloorWei != "1000" || !h.Signers.Paused[0].Since.Equal(pausedAt) {
		t.Fatalf("one of two keys paused: %d %s", code, body)
	}
	// The operators' overview (the dashboard's source) names the paused key too.
	ov := env.do("GET", "/v1/overview", nil)
	ov.want(t, http.StatusOK, "")
	var o struct {
		Result Overview `json:"result"`
	}
	if err := json.Unmarshal(ov.Body, &o); err != nil || o.Result.Signers == nil || len(o.Result.Signers.Paused) != 1 || o.Result.Signers.Paused[0].Address != keyA {
		t.Fatalf("the overview with one key paused: %s (%v), want its signers naming %s", ov.Body, err, keyA)
	}
	// 100 jobs ahead at D = 10/s take 10 s; at the one sending key's 5/s, 20 s.
	if half := eta(); half-full != 10*time.Second {
		t.Fatalf("one of two keys paused: ETA %v, without the pause %v; want 10 s more", half, full)
	}

	env.appendSigner(keyB, domain.SignerPaused{Address: keyB, BalanceWei: "12", FloorWei: "1000", Reason: "below", At: time.Now().UTC()})
	code, h, body = env.signersHealth()
	if code != http.StatusServiceUnavailable || h.Status != "down" || h.Signers == nil || h.Signers.Status != "down" ||
		h.Signers.Sending != 0 || len(h.Signers.Paused) != 2 ||
		!strings.Contains(h.Signers.Reason, keyA+" (900 wei, floor 1000 wei)") || !strings.Contains(h.Signers.Reason, keyB+" (12 wei, floor 1000 wei)") {
		t.Fatalf("both keys paused: %d %s, want 503 down naming both keys and their balances", code, body)
	}
	if none := env.srv.estimate(env.srv.rt.Load(), domain.InputProof, domain.Processing,
		projections.Location{Queue: projections.TxQueue, Ahead: 100, Length: 101}, 101, 0); none.ETA <= full || none.Outage < time.Second {
		t.Fatalf("no key can send: ETA %v (outage part %v), want more than %v with the pause counted as an outage", none.ETA, none.Outage, full)
	}
	before := env.countEvents("RequestAccepted")
	res := env.do("POST", "/v2/input-proof", jtBody(domain.InputProof, 1))
	res.want(t, http.StatusAccepted, "")
	if res.retryAfter(t) < 1 || env.countEvents("RequestAccepted") != before+1 {
		t.Fatalf("a request while no key can send: Retry-After %q, %d jobs accepted before, %d after", res.Header.Get("Retry-After"), before, env.countEvents("RequestAccepted"))
	}

	waited := env.accept(domain.InputProof, 2)
	env.exec1(waited, domain.ScheduleRetry{At: env.clock.At(0), Step: "prepare", Attempt: 1, Label: domain.LabelInsufficientBalance,
		Reason: "the signing key " + keyA + " is paused: its balance 900 wei is below the floor 1000 wei", NextAt: env.clock.Now().Add(time.Second)},
		domain.ExpireProcessing{At: env.clock.At(0), Label: domain.LabelInsufficientBalance, Message: "its key was paused until the deadline"})
	env.do("GET", "/v2/input-proof/"+waited.String(), nil).want(t, http.StatusServiceUnavailable, domain.LabelInsufficientBalance)

	env.appendSigner(keyA, domain.SignerResumed{Address: keyA, BalanceWei: "5000", ResumeWei: "1100", PausedSince: pausedAt, At: time.Now().UTC()})
	if code, h, body := env.signersHealth(); code != http.StatusOK || h.Signers == nil || h.Signers.Sending != 1 || len(h.Signers.Paused) != 1 || h.Signers.Paused[0].Address != keyB {
		t.Fatalf("key A topped up: %d %s, want 200 with key B alone paused", code, body)
	}
	env.appendSigner(keyB, domain.SignerResumed{Address: keyB, BalanceWei: "5000", ResumeWei: "1100", At: time.Now().UTC()})
	if code, h, body := env.signersHealth(); code != http.StatusOK || h.Signers != nil {
		t.Fatalf("both keys topped up: %d %s, want 200 without a signers member", code, body)
	}
	if got := eta(); got != full {
		t.Fatalf("both keys topped up: ETA %v, want %v again", got, full)
	}
}
