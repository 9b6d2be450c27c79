package devchain_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/ethclient"

	"relayer/workers/devchain"
	"relayer/workers/devchain/devchaintest"
	"relayer/workers/gateway/contracts"
)

// waitFirstSeen waits until the chain has registered h (handleFirstSeen > 0) and returns when,
// in chain time.
func waitFirstSeen(t *testing.T, ctx context.Context, g contracts.Bound, h [32]byte) uint64 {
	t.Helper()
	deadline := time.Now().Add(eventWait)
	for {
		if seen := call(t, ctx, g.DecryptionAt, g.Decryption.PackHandleFirstSeen(h), g.Decryption.UnpackHandleFirstSeen).Uint64(); seen > 0 {
			return seen
		}
		if time.Now().After(deadline) {
			t.Fatalf("the chain did not register %x within %v of the first readiness question", h, eventWait)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// Scenario 04 as DESIGN section 10 documents it: a relayer's readiness question is what starts
// the 5 s, with nothing registered beforehand, through each of the three readiness views.
func TestAFirstReadinessQuestionAboutAnUnregistered04HandleStartsItsFiveSeconds(t *testing.T) {
	t.Parallel()
	c := shared
	g := bindings(c)
	// Each view runs as a subtest of its own, with its own t and context.
	views := []struct {
		name string
		ask  func(t *testing.T, ctx context.Context, h [32]byte, block *big.Int) bool
	}{
		{"isPublicDecryptionReady", func(t *testing.T, ctx context.Context, h [32]byte, b *big.Int) bool {
			return mustCall(t, ctx, g.DecryptionAt, b, g.Decryption.PackIsPublicDecryptionReady([][32]byte{h}, nil), g.Decryption.UnpackIsPublicDecryptionReady)
		}},
		{"isUserDecryptionReady", func(t *testing.T, ctx context.Context, h [32]byte, b *big.Int) bool {
			pairs := []contracts.DecryptionCtHandleContractPair{{CtHandle: h, ContractAddress: testContract}}
			return mustCall(t, ctx, g.DecryptionAt, b, g.Decryption.PackIsUserDecryptionReady(testUser, pairs, nil), g.Decryption.UnpackIsUserDecryptionReady)
		}},
		{"isDelegatedUserDecryptionReady", func(t *testing.T, ctx context.Context, h [32]byte, b *big.Int) bool {
			pairs := []contracts.DecryptionCtHandleContractPair{{CtHandle: h, ContractAddress: testContract}}
			accounts := contracts.DecryptionDelegationAccounts{DelegatorAddress: testUser, DelegateAddress: testContract}
			return mustCall(t, ctx, g.DecryptionAt, b, g.Decryption.PackIsDelegatedUserDecryptionReady(accounts, pairs, nil), g.Decryption.UnpackIsDelegatedUserDecryptionReady)
		}},
	}
	for _, v := range views {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			ctx := testContext(t)
			h := contracts.TestHandle(contracts.ScenarioReadyAfterDelay, seed(t))
			if v.ask(t, ctx, h, nil) {
				t.Fatal("an unregistered 04 handle is ready at its first question")
			}
			seen := waitFirstSeen(t, ctx, g, h)
			// Block by block (the heartbeat seals one a second): not ready before first seen +
			// 5 s of chain time, ready from then on.
			deadline := time.Now().Add(eventWait)
			for {
				head, err := c.Client().HeaderByNumber(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				got, want := v.ask(t, ctx, h, head.Number), head.Time >= seen+5
				if got != want {
					t.Fatalf("block %v (time %d, first seen %d): ready = %v, want %v", head.Number, head.Time, seen, got, want)
				}
				if got {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("not ready within %v", eventWait)
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}

// A relayer in another process asks over JSON-RPC: the chain sees those questions too.
func TestAReadinessQuestionOverJSONRPCRegistersA04HandleToo(t *testing.T) {
	t.Parallel()
	c, cl := startHTTPChain(t)
	ctx := testContext(t)
	dec := contracts.NewDecryption()
	overHTTP := dec.Instance(cl, c.Addresses().Decryption)
	h := contracts.TestHandle(contracts.ScenarioReadyAfterDelay, seed(t))
	ready, err := bind.Call(overHTTP, &bind.CallOpts{Context: ctx}, dec.PackIsPublicDecryptionReady([][32]byte{h}, nil), dec.UnpackIsPublicDecryptionReady)
	if err != nil || ready {
		t.Fatalf("first question over HTTP: ready %v, %v; want false", ready, err)
	}
	waitFirstSeen(t, ctx, bindings(c), h)
}

// The chain answers eth_call in place of the node: everything else must reach the caller as the
// node gave it, a revert's reason included, in process and over JSON-RPC.
func TestEthCallPassesRevertsAndOtherViewsThroughUnchanged(t *testing.T) {
	t.Parallel()
	c, cl := startHTTPChain(t)
	ctx := testContext(t)
	dec := contracts.NewDecryption()
	reverting := dec.PackPublicDecryptionRequest([][32]byte{contracts.TestHandle(contracts.ScenarioRevert, seed(t))}, nil)
	for name, client := range map[string]*ethclient.Client{"in process": c.Client(), "JSON-RPC": cl} {
		at := dec.Instance(client, c.Addresses().Decryption)
		_, err := bind.Call(at, &bind.CallOpts{Context: ctx, From: c.Addresses().ACL}, reverting, func([]byte) (bool, error) { return true, nil })
		re, ok := contracts.DecodeRevert(err)
		if !ok || re.Name != "TestScenarioRevert" {
			t.Errorf("%s: eth_call of a reverting request: %v (decoded %v), want TestScenarioRevert", name, err, re)
		}
		threshold, err := bind.Call(at, &bind.CallOpts{Context: ctx}, dec.PackThreshold(), dec.UnpackThreshold)
		if err != nil || threshold.Int64() != int64(c.Threshold()) {
			t.Errorf("%s: threshold() = %v, %v; want %d", name, threshold, err, c.Threshold())
		}
	}
}

// The production profile's readiness: the gateway says "not ready" for an ordinary handle until
// the readiness delay has passed since its first question, then ready.
func TestWithAReadinessDelayAnOrdinaryHandleIsNotReadyAtItsFirstQuestionThenReady(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Profile = devchain.ProfileProduction
	cfg.KMSDelay, cfg.CoprocessorDelay, cfg.ReadinessDelay = 50*time.Millisecond, 50*time.Millisecond, 300*time.Millisecond
	c := devchaintest.Start(t, cfg, testLogger())
	ctx := testContext(t)
	g := bindings(c)
	h := contracts.TestHandle(contracts.ScenarioNone, seed(t))
	ask := func() bool {
		return call(t, ctx, g.DecryptionAt, g.Decryption.PackIsPublicDecryptionReady([][32]byte{h}, nil), g.Decryption.UnpackIsPublicDecryptionReady)
	}
	if ask() {
		t.Fatal("ready at the first question, with a readiness delay")
	}
	deadline := time.Now().Add(eventWait)
	for !ask() {
		if time.Now().After(deadline) {
			t.Fatalf("an ordinary handle is not ready %v after its first question (readiness delay %v)", eventWait, cfg.ReadinessDelay)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A denied handle stays denied: the delay only ever holds an answer back.
	denied := contracts.TestHandle(contracts.ScenarioDenied, seed(t))
	time.Sleep(400 * time.Millisecond)
	if call(t, ctx, g.DecryptionAt, g.Decryption.PackIsPublicDecryptionReady([][32]byte{denied}, nil), g.Decryption.UnpackIsPublicDecryptionReady) {
		t.Fatal("a denied handle is ready")
	}
}

func TestTheProductionProfileHasTheRealComponentsDelaysAndExplicitDelaysWin(t *testing.T) {
	t.Parallel()
	d := devchain.DefaultConfig()
	if d.Profile != devchain.ProfileInstant || d.KMSDelay != 0 || d.CoprocessorDelay != 0 || d.ReadinessDelay != 0 || d.Jitter != 0.2 {
		t.Fatalf("DefaultConfig() profile: %+v", d)
	}
	p := devchain.Config{Profile: devchain.ProfileProduction}.WithDefaults()
	if p.KMSDelay != 4*time.Second || p.CoprocessorDelay != 2*time.Second || p.ReadinessDelay != 2*time.Second || p.Jitter != 0.2 {
		t.Fatalf("production: %+v", p)
	}
	if got, want := p.LatencySummary(), "KMS nodes 3.2s-4.8s, coprocessors 1.6s-2.4s, readiness 1.6s-2.4s"; got != want {
		t.Errorf("production summary %q, want %q", got, want)
	}
	if got, want := d.LatencySummary(), "KMS nodes 50ms-300ms, coprocessors 50ms-300ms, readiness at once"; got != want {
		t.Errorf("instant summary %q, want %q", got, want)
	}
	o := devchain.Config{Profile: devchain.ProfileProduction, KMSDelay: 8 * time.Second, Jitter: 0.5}.WithDefaults()
	if o.KMSDelay != 8*time.Second || o.CoprocessorDelay != 2*time.Second || o.Jitter != 0.5 {
		t.Fatalf("production with kms_delay 8s, jitter 0.5: %+v", o)
	}
	i := devchain.Config{ReadinessDelay: time.Second}.WithDefaults()
	if i.Profile != devchain.ProfileInstant || i.ReadinessDelay != time.Second || i.KMSDelay != 0 {
		t.Fatalf("instant with readiness_delay 1s: %+v", i)
	}
}

func TestAnInvalidProfileOrDelayIsRefusedNamingItsField(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cfg   devchain.Config
		field string
	}{
		{devchain.Config{Profile: "fast"}, "profile"},
		{devchain.Config{KMSDelay: -time.Second}, "kms_delay"},
		{devchain.Config{CoprocessorDelay: 2 * time.Hour}, "coprocessor_delay"},
		{devchain.Config{ReadinessDelay: -1}, "readiness_delay"},
		{devchain.Config{Jitter: 1}, "jitter"},
		{devchain.Config{Jitter: -0.1}, "jitter"},
	} {
		err := c.cfg.WithDefaults().Validate()
		var ce *devchain.ConfigError
		if !errors.As(err, &ce) || len(ce.Problems) != 1 || ce.Problems[0].Field != c.field {
			t.Errorf("Validate(%+v) = %v, want one problem at %s", c.cfg, err, c.field)
			continue
		}
		if !strings.Contains(err.Error(), "devchain: "+c.field+": ") {
			t.Errorf("%q does not name %s", err, c.field)
		}
		if _, err := devchain.Start(context.Background(), c.cfg, nil); err == nil {
			t.Errorf("Start(%+v) succeeded", c.cfg)
		}
	}
}

// mustCall calls at block (nil: the latest).
func mustCall[T any](t *testing.T, ctx context.Context, at *bind.BoundContract, block *big.Int, data []byte, unpack func([]byte) (T, error)) T {
	t.Helper()
	v, err := bind.Call(at, &bind.CallOpts{Context: ctx, BlockNumber: block}, data, unpack)
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	return v
}
