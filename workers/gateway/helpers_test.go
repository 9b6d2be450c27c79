package gateway_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"relayer/domain"
	"relayer/workers/devchain"
	"relayer/workers/devchain/devchaintest"
	"relayer/workers/gateway"
	"relayer/workers/gateway/contracts"
)

// eventWait bounds the wait for an event the chain owes; sharedKeys is how many relayer keys
// the shared chain lends (nextKey).
const (
	eventWait  = 30 * time.Second
	sharedKeys = 40
)

// shared is one chain, served over HTTP and WebSocket, for every test that does not pause it.
// Each test borrows its own relayer key (nextKey), so nonce sequences never meet.
var (
	shared *devchain.Chain
	keys   chan *ecdsa.PrivateKey
)

func TestMain(m *testing.M) {
	devchaintest.Main(m, chainConfig(true), testLogger(), func(c *devchain.Chain) {
		shared = c
		keys = make(chan *ecdsa.PrivateKey, sharedKeys)
		for _, k := range c.RelayerKeys() {
			keys <- k
		}
	})
}

func chainConfig(serve bool) devchain.Config {
	cfg := devchaintest.Config()
	cfg.RelayerKeys = sharedKeys
	if serve {
		cfg.HTTPAddr, cfg.WSAddr = "127.0.0.1:0", "127.0.0.1:0"
	}
	return cfg
}

// testLogger logs to stderr when GATEWAY_TEST_LOG is set.
func testLogger() *slog.Logger { return devchaintest.Logger("GATEWAY_TEST_LOG") }

func testContext(t *testing.T) context.Context { return devchaintest.Context(t, 90*time.Second) }

// nextKey lends the test a relayer key of the shared chain that no running test uses; it goes
// back when the test ends (after the test's adapters are closed: cleanups run last first).
func nextKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	select {
	case k := <-keys:
		t.Cleanup(func() { keys <- k })
		return k
	case <-time.After(eventWait):
		t.Fatalf("no relayer key free after %v: raise sharedKeys (%d)", eventWait, sharedKeys)
		return nil
	}
}

// baseConfig is the adapter configuration for chain c, with quick polls.
func baseConfig(c *devchain.Chain) gateway.Config {
	a := c.Addresses()
	return gateway.Config{
		RPCURL:         c.HTTPEndpoint(),
		WSURL:          c.WSEndpoint(),
		ChainID:        c.ChainID().Uint64(),
		Contracts:      gateway.Contracts{Decryption: a.Decryption, InputVerification: a.InputVerification, ACL: a.ACL},
		PollInterval:   100 * time.Millisecond,
		ReceiptPollMin: 20 * time.Millisecond,
		ReceiptTimeout: 45 * time.Second,
		GapFillDelay:   300 * time.Millisecond,
		ReorgWindow:    16,
	}
}

// dial connects an adapter to the shared chain over HTTP (and WS) with key; mod (may be nil)
// changes the configuration first.
func dial(t *testing.T, key *ecdsa.PrivateKey, mod func(*gateway.Config), opts ...gateway.Option) *gateway.Adapter {
	t.Helper()
	cfg := baseConfig(shared)
	if mod != nil {
		mod(&cfg)
	}
	opts = append([]gateway.Option{gateway.WithSigner(gateway.NewSigner(key))}, opts...)
	ad, err := gateway.Dial(testContext(t), cfg, testLogger(), opts...)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(ad.Close)
	return ad
}

// --- requests ---------------------------------------------------------------------------

var (
	appContract = common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	userAddr    = common.HexToAddress("0x000000000000000000000000000000000000b0b0")
)

var seeds atomic.Int64

// uniqueSeed makes handles and ciphertexts no earlier run in this process used (-count=n): a
// scenario-04 handle is "seen" once per chain.
func uniqueSeed(t *testing.T) string { return fmt.Sprintf("%s#%d", t.Name(), seeds.Add(1)) }

func hexHandle(h [32]byte) string { return "0x" + hex.EncodeToString(h[:]) }

func publicRequest(handles ...[32]byte) domain.Request {
	r := &domain.PublicDecryptRequest{ExtraData: "0x00"}
	for _, h := range handles {
		r.CiphertextHandles = append(r.CiphertextHandles, hexHandle(h))
	}
	return domain.Request{PublicDecrypt: r}
}

// appPairs pairs each of handles with appContract.
func appPairs(handles [][32]byte) []domain.HandleContractPair {
	var pairs []domain.HandleContractPair
	for _, h := range handles {
		pairs = append(pairs, domain.HandleContractPair{Handle: hexHandle(h), ContractAddress: appContract.Hex()})
	}
	return pairs
}

// testPublicKey is a request's placeholder public key, made from what: its hash behind the
// prefix 2000000000000000 that every public key of these tests carries.
func testPublicKey(what string) string {
	return "2000000000000000" + hex.EncodeToString(crypto.Keccak256([]byte(what)))
}

// userRequest is a user decrypt by userAddr of handles in appContract.
func userRequest(handles ...[32]byte) domain.Request {
	r := &domain.UserDecryptRequest{
		RequestValidity:     domain.RequestValidity{StartTimestamp: uint64(time.Now().Add(-time.Hour).Unix()), DurationDays: 1},
		ContractsChainID:    devchain.ChainID,
		ContractAddresses:   []string{appContract.Hex()},
		UserAddress:         userAddr.Hex(),
		Signature:           hex.EncodeToString(make([]byte, 65)),
		PublicKey:           testPublicKey("user public key"),
		ExtraData:           "0x00",
		HandleContractPairs: appPairs(handles),
	}
	return domain.Request{UserDecrypt: r}
}

// delegatedRequest is a delegated user decrypt of delegator's handles in appContract, for
// delegate. The delegation itself is delegateFor's.
func delegatedRequest(delegator, delegate common.Address, handles ...[32]byte) domain.Request {
	r := &domain.DelegatedUserDecryptRequest{
		ContractsChainID:    devchain.ChainID,
		ContractAddresses:   []string{appContract.Hex()},
		DelegatorAddress:    delegator.Hex(),
		DelegateAddress:     delegate.Hex(),
		StartTimestamp:      uint64(time.Now().Add(-time.Hour).Unix()),
		DurationDays:        1,
		Signature:           hex.EncodeToString(make([]byte, 65)),
		PublicKey:           testPublicKey("delegate public key"),
		ExtraData:           "0x00",
		HandleContractPairs: appPairs(handles),
	}
	return domain.Request{DelegatedUserDecrypt: r}
}

// delegation is a delegator (a funded user key of the shared chain) and a delegate of its own
// for one test: delegates are never shared, so tests do not see each other's delegations.
type delegation struct {
	key       *ecdsa.PrivateKey
	delegator common.Address
	delegate  common.Address
}

func newDelegation(t *testing.T) delegation {
	k := shared.UserKey(0)
	return delegation{key: k, delegator: crypto.PubkeyToAddress(k.PublicKey),
		delegate: common.BytesToAddress(crypto.Keccak256([]byte("gateway-test/delegate/" + uniqueSeed(t)))[12:])}
}

// grant delegates appContract's user decryptions from d.delegator to d.delegate for an hour.
func (d delegation) grant(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := shared.DelegateForUserDecryption(ctx, d.key, d.delegate, appContract, headTime(t, ctx).Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
}

func inputRequest(ciphertext []byte) domain.Request {
	return domain.Request{InputProof: &domain.InputProofRequest{
		ContractChainID: devchain.ChainID,
		ContractAddress: appContract.Hex(),
		UserAddress:     userAddr.Hex(),
		Ciphertext:      hex.EncodeToString(ciphertext),
		ExtraData:       "0x00",
	}}
}

// --- listening ----------------------------------------------------------------------------

// events follows the adapter's listener from cursor in the background and hands every event
// out on a channel; the listener stops with the test.
type events struct {
	ch      chan gateway.Event
	mu      sync.Mutex
	batches []gateway.Batch
	errs    []error
}

func listen(t *testing.T, ad *gateway.Adapter, from gateway.Cursor) *events {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	e := &events{ch: make(chan gateway.Event, 1024)}
	go func() {
		defer close(done)
		for b, err := range ad.Listen(ctx, from) {
			e.mu.Lock()
			if err != nil {
				e.errs = append(e.errs, err)
			} else {
				e.batches = append(e.batches, b)
			}
			e.mu.Unlock()
			for _, ev := range b.Events {
				select {
				case e.ch <- ev:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return e
}

// until collects the events with request id until done says the collection is complete, or
// fails the test after eventWait.
func (e *events) until(t *testing.T, id *big.Int, done func([]gateway.Event) bool) []gateway.Event {
	t.Helper()
	var got []gateway.Event
	timeout := time.After(eventWait)
	for !done(got) {
		select {
		case ev := <-e.ch:
			if ev.RequestID.Cmp(id) == 0 {
				got = append(got, ev)
			}
		case <-timeout:
			e.mu.Lock()
			errs := e.errs
			e.mu.Unlock()
			t.Fatalf("after %v, events for request %#x: %v (listener errors: %v)", eventWait, id, got, errs)
		}
	}
	return got
}

// none asserts that no event for id arrives within devchaintest.QuietWindow.
func (e *events) none(t *testing.T, id *big.Int) {
	t.Helper()
	quiet := time.After(devchaintest.QuietWindow)
	for {
		select {
		case ev := <-e.ch:
			if ev.RequestID.Cmp(id) == 0 {
				t.Fatalf("request %#x was answered, want no answer: %v", id, ev)
			}
		case <-quiet:
			return
		}
	}
}

func ofType(evs []gateway.Event, typ gateway.EventType) []gateway.Event {
	var out []gateway.Event
	for _, ev := range evs {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// --- errors -------------------------------------------------------------------------------

func wantKind(t *testing.T, err, kind error) *gateway.TxError {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("error %v, want %v", err, kind)
	}
	var te *gateway.TxError
	if !errors.As(err, &te) {
		t.Fatalf("error %T %v is not a *gateway.TxError", err, err)
	}
	return te
}

// sendRaw puts a signed transaction in the pool without waiting (eth_sendRawTransaction).
func sendRaw(t *testing.T, ctx context.Context, raw []byte) {
	t.Helper()
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		t.Fatal(err)
	}
	if err := shared.Client().SendTransaction(ctx, tx); err != nil {
		t.Fatalf("eth_sendRawTransaction: %v", err)
	}
}

// wantThresholdShares waits for the responses of user decryption request id: the threshold
// reached, and at least the threshold's shares, each signed by a distinct KMS signer over the
// request's public key (hex, no 0x) and handles.
func wantThresholdShares(t *testing.T, evs *events, id *big.Int, publicKeyHex string, handles [][32]byte) {
	t.Helper()
	threshold := shared.Threshold()
	got := evs.until(t, id, func(e []gateway.Event) bool {
		return len(ofType(e, gateway.UserDecryptionResponseThresholdReached)) == 1 &&
			len(ofType(e, gateway.UserDecryptionResponse)) >= threshold
	})
	publicKey, err := hex.DecodeString(publicKeyHex)
	if err != nil {
		t.Fatal(err)
	}
	signers := map[common.Address]bool{}
	for _, ev := range ofType(got, gateway.UserDecryptionResponse) {
		sh := ev.UserDecryptionShare
		digest := contracts.UserDecryptionDigest(shared.ChainID(), shared.Addresses().Decryption, publicKey, handles, sh.Share, sh.ExtraData)
		signer, err := contracts.RecoverSigner(digest, sh.Signature)
		if err != nil || signer != sh.Signer || !isKMSSigner(signer) {
			t.Fatalf("share %d signed by %s (%v), event says %s: want a KMS signer over the request's key and handles", sh.Index, signer, err, sh.Signer)
		}
		signers[signer] = true
	}
	if len(signers) < threshold {
		t.Fatalf("shares from %d distinct KMS signers, want %d", len(signers), threshold)
	}
}

// sendUserDecryption prepares req, a user decryption of kind k (its v2, delegated or unified
// form), checks the prepared transaction, broadcasts it and checks its receipt is a user
// decryption's; evs follow the gateway's events from before it was sent.
func sendUserDecryption(t *testing.T, ctx context.Context, ad *gateway.Adapter, req domain.Request, k domain.Kind) (*events, *gateway.Receipt) {
	t.Helper()
	cursor, err := ad.HeadCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	evs := listen(t, ad, cursor)
	p, err := ad.Prepare(ctx, req)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	checkPrepared(t, p, k)
	if q, err := ad.DecodePrepared(p.Raw); err != nil || q.Kind != k {
		t.Fatalf("DecodePrepared: %+v, %v; want kind %s", q, err, k)
	}
	rec, err := ad.Broadcast(ctx, p)
	if err != nil {
		t.Fatalf("Broadcast: %v", err)
	}
	if rec.Kind != domain.UserDecrypt || contracts.DecryptionKindOf(rec.RequestID) != contracts.DecryptionKindUser {
		t.Fatalf("receipt kind %s, id %#x: want a user decryption's", rec.Kind, rec.RequestID)
	}
	return evs, rec
}

// mustPrepare prepares req with ad, failing the test if it cannot.
func mustPrepare(t *testing.T, ctx context.Context, ad *gateway.Adapter, req domain.Request) *gateway.Prepared {
	t.Helper()
	p, err := ad.Prepare(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
