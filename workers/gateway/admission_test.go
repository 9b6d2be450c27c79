package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"relayer/workers/devchain"
	"relayer/workers/devchain/devchaintest"
	"relayer/workers/gateway"
	"relayer/workers/upstream"
)

// viewAdapter dials the shared chain through a counting proxy, over HTTP only, without a
// signer and with one attempt per call (a refused connection fails at once).
func viewAdapter(t *testing.T) (*gateway.Adapter, *rpcProxy) {
	t.Helper()
	proxy := newRPCProxy(t, shared.HTTPEndpoint())
	cfg := baseConfig(shared)
	cfg.RPCURL, cfg.WSURL = proxy.srv.URL, ""
	cfg.Upstream = upstream.Config{MaxAttempts: 1}
	ad, err := gateway.Dial(testContext(t), cfg, testLogger())
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(ad.Close)
	return ad, proxy
}

func TestChainTimeIsTheLatestBlockTimeAdvancedByTheWallClockAndReadsTheChainAtMostOnceASecond(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	ad, proxy := viewAdapter(t)
	reads := func() int { return proxy.count("eth_getBlockByNumber") }
	before := reads()

	first, err := ad.ChainTime(ctx)
	if err != nil {
		t.Fatal(err)
	}
	head := headTime(t, ctx)
	if d := first.Sub(head); d < -2*time.Second || d > 2*time.Second {
		t.Fatalf("ChainTime %v is %v from the latest block's time %v", first, d, head)
	}

	// Fresh: no call, and the answers move with the wall clock.
	start := time.Now()
	t1, err := ad.ChainTime(ctx)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	for range 100 {
		if _, err := ad.ChainTime(ctx); err != nil {
			t.Fatal(err)
		}
	}
	t2, err := ad.ChainTime(ctx)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	if n := reads() - before; n != 1 {
		t.Fatalf("%d header reads for 103 calls within a second, want 1", n)
	}
	if d := t2.Sub(t1); d < 100*time.Millisecond || d > elapsed {
		t.Fatalf("two answers %v apart, with %v of wall clock between the calls (at least 100ms)", d, elapsed)
	}

	// Stale after a second: read again.
	time.Sleep(time.Second)
	if _, err := ad.ChainTime(ctx); err != nil {
		t.Fatal(err)
	}
	if n := reads() - before; n != 2 {
		t.Fatalf("%d header reads after the cache aged a second, want 2", n)
	}
}

func TestConcurrentChainTimeCallersShareOneHeaderRead(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	ad, proxy := viewAdapter(t)
	before := proxy.count("eth_getBlockByNumber")

	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			if _, err := ad.ChainTime(ctx); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := proxy.count("eth_getBlockByNumber") - before; n != 1 {
		t.Fatalf("16 concurrent callers made %d header reads, want 1", n)
	}
}

func TestTransactionsSignedWithinASecondShareOneReadOfTheBaseFeeAndTheTip(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	proxy := newRPCProxy(t, shared.HTTPEndpoint())
	ad := dial(t, nextKey(t), func(c *gateway.Config) { c.RPCURL, c.WSURL = proxy.srv.URL, "" })
	headers := func() int { return proxy.count("eth_getBlockByNumber") }
	tips := func() int { return proxy.count("eth_maxPriorityFeePerGas") }
	h0, t0 := headers(), tips()

	start := time.Now()
	var prepared []*gateway.Prepared
	for i := range 8 {
		p, err := ad.Prepare(ctx, silentRequest(fmt.Sprintf("%s#%d", t.Name(), i)))
		if err != nil {
			t.Fatal(err)
		}
		prepared = append(prepared, p)
	}
	if time.Since(start) < time.Second {
		if h, tp := headers()-h0, tips()-t0; h != 1 || tp != 1 {
			t.Fatalf("8 transactions signed within a second read the header %d times and the tip %d times, want 1 and 1", h, tp)
		}
	}
	// The fees are the chain's: every transaction pays the tip and twice the base fee plus it.
	head, err := shared.Client().HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prepared {
		if p.GasFeeCap.Cmp(head.BaseFee) <= 0 || p.GasTipCap.Sign() <= 0 {
			t.Fatalf("fee cap %s, tip %s against a base fee of %s", p.GasFeeCap, p.GasTipCap, head.BaseFee)
		}
		ad.Release(p)
	}

	// Stale after a second: read again.
	time.Sleep(time.Second)
	p, err := ad.Prepare(ctx, silentRequest(t.Name()+"#late"))
	if err != nil {
		t.Fatal(err)
	}
	if h, tp := headers()-h0, tips()-t0; h < 2 || tp < 2 {
		t.Fatalf("a transaction signed a second later read the header %d and the tip %d times in all, want at least 2 each", h, tp)
	}

	// A node that refuses the fees: the next transaction reads them again at once.
	proxy.setHook(func(w http.ResponseWriter, method string, id json.RawMessage) bool {
		if !strings.HasPrefix(method, "eth_sendRawTransaction") {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"max fee per gas less than block base fee"}}`, id)
		return true
	})
	if _, err := ad.Broadcast(ctx, p); !errors.Is(err, gateway.ErrUnderpriced) {
		t.Fatalf("Broadcast refused for its fees: %v, want ErrUnderpriced", err)
	}
	ad.Release(p) // refused: these bytes are never sent
	proxy.setHook(nil)
	h1, t1 := headers(), tips()
	p, err = ad.Prepare(ctx, silentRequest(t.Name()+"#after-refusal"))
	if err != nil {
		t.Fatal(err)
	}
	ad.Release(p)
	if h, tp := headers()-h1, tips()-t1; h != 1 || tp != 1 {
		t.Fatalf("the transaction after a refusal for its fees read the header %d and the tip %d times, want 1 and 1", h, tp)
	}
}

// highS is sig with s mirrored into the upper half of the curve order and v flipped: it
// recovers the same key, and OpenZeppelin-style checks refuse it as malleable.
func highS(sig []byte) []byte {
	n, _ := new(big.Int).SetString("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", 16)
	out := append([]byte(nil), sig...)
	new(big.Int).Sub(n, new(big.Int).SetBytes(sig[32:64])).FillBytes(out[32:64])
	out[64] = 27 + 28 - sig[64]
	return out
}

func TestWalletSignatureAsksAContractWalletAndNotAnAccountWithoutCode(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	ad, _ := viewAdapter(t)
	wallet := shared.Addresses().Wallets[0]
	digest := crypto.Keccak256Hash([]byte("user decrypt " + uniqueSeed(t)))
	own := devchaintest.WalletSignature(t, 0, digest)

	for _, tc := range []struct {
		name           string
		account        common.Address
		sig            []byte
		hasCode, valid bool
	}{
		{"an account without code", crypto.PubkeyToAddress(devchain.WalletOwnerKey(0).PublicKey), own, false, false},
		{"the wallet, its owner's signature", wallet, own, true, true},
		{"the wallet, its owner's signature with v 0/1", wallet, append(own[:64:64], own[64]-27), true, true},
		{"the wallet, another key's signature", wallet, devchaintest.WalletSignature(t, 1, digest), true, false},
		{"the other wallet, the first wallet's owner's signature", shared.Addresses().Wallets[1], own, true, false},
		{"the wallet, a 64-byte signature", wallet, own[:64], true, false},
		{"the wallet, a high-s signature", wallet, highS(own), true, false},
		// The ACL has no isValidSignature and no fallback: a revert without data.
		{"a contract that is not a wallet", shared.Addresses().ACL, own, true, false},
	} {
		hasCode, valid, err := ad.WalletSignature(ctx, tc.account, digest, tc.sig)
		if err != nil || hasCode != tc.hasCode || valid != tc.valid {
			t.Errorf("%s: WalletSignature = (hasCode %v, valid %v, %v), want (%v, %v, nil)",
				tc.name, hasCode, valid, err, tc.hasCode, tc.valid)
		}
	}
}

func TestWalletSignatureTakesTheWalletsAnswersAsVerdictsAndTheNodesFailuresAsErrors(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	wallet := shared.Addresses().Wallets[0]
	digest := crypto.Keccak256Hash([]byte("user decrypt " + uniqueSeed(t)))
	sig := devchaintest.WalletSignature(t, 0, digest)
	// word is a result of one 32-byte word starting with the hex digits prefix.
	word := func(prefix string) string { return `"result":"0x` + prefix + strings.Repeat("0", 64-len(prefix)) + `"` }

	for _, tc := range []struct {
		name string
		// answer is the JSON-RPC answer's member after the id: "result":... or "error":...
		answer string
		// kind is the error's kind; nil: a verdict, (true, false).
		kind error
	}{
		{"a revert with data", `"error":{"code":3,"message":"execution reverted","data":"0x08c379a0` +
			`0000000000000000000000000000000000000000000000000000000000000020` +
			`0000000000000000000000000000000000000000000000000000000000000003` +
			`6e6f700000000000000000000000000000000000000000000000000000000000"}`, nil},
		{"a revert without data", `"error":{"code":-32000,"message":"execution reverted"}`, nil},
		{"the gas cap exhausted", `"error":{"code":-32000,"message":"out of gas"}`, nil},
		{"another bytes4", word("ffffffff"), nil},
		{"the magic value not ABI-encoded", `"result":"0x1626ba7e"`, nil},
		{"an empty return", `"result":"0x"`, nil},
		{"a node error that is no answer of the wallet", `"error":{"code":-32000,"message":"header not found"}`, gateway.ErrRejected},
		{"a node overloaded", `"error":{"code":-32005,"message":"limit exceeded"}`, gateway.ErrTransport},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ad, proxy := viewAdapter(t)
			proxy.setHook(func(w http.ResponseWriter, method string, id json.RawMessage) bool {
				if method != "eth_call" {
					return false
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,%s}`, id, tc.answer)
				return true
			})
			hasCode, valid, err := ad.WalletSignature(ctx, wallet, digest, sig)
			if tc.kind == nil {
				if err != nil || !hasCode || valid {
					t.Fatalf("WalletSignature = (hasCode %v, valid %v, %v), want the refusal (true, false, nil)", hasCode, valid, err)
				}
				return
			}
			wantKind(t, err, tc.kind)
		})
	}

	// The same proxy answering the magic value as a wallet does (ABI-encoded bytes4): valid.
	ad, proxy := viewAdapter(t)
	proxy.setHook(func(w http.ResponseWriter, method string, id json.RawMessage) bool {
		if method != "eth_call" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,%s}`, id, word("1626ba7e"))
		return true
	})
	if hasCode, valid, err := ad.WalletSignature(ctx, wallet, crypto.Keccak256Hash([]byte("any")), nil); err != nil || !hasCode || !valid {
		t.Fatalf("an ABI-encoded magic value: WalletSignature = (%v, %v, %v), want (true, true, nil)", hasCode, valid, err)
	}
}

func TestAnUnreachableNodeOrAnEndedContextIsAnErrorNotAVerdict(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	wallet := shared.Addresses().Wallets[0]
	digest := crypto.Keccak256Hash([]byte("user decrypt " + uniqueSeed(t)))
	sig := devchaintest.WalletSignature(t, 0, digest)

	// The node goes away: its port refuses connections.
	ad, proxy := viewAdapter(t)
	proxy.srv.Close()
	if _, _, err := ad.WalletSignature(ctx, wallet, digest, sig); !gateway.Retryable(wantKind(t, err, gateway.ErrTransport)) {
		t.Fatalf("WalletSignature with the node gone: %v is not retryable", err)
	}
	if _, err := ad.ChainTime(ctx); !gateway.Retryable(wantKind(t, err, gateway.ErrTransport)) {
		t.Fatalf("ChainTime with the node gone: %v is not retryable", err)
	}

	// The caller gives up: its context ends before the node answers.
	live, _ := viewAdapter(t)
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := live.WalletSignature(gone, wallet, digest, sig); !gateway.Retryable(wantKind(t, err, gateway.ErrCanceled)) {
		t.Fatalf("WalletSignature with its context ended: %v is not retryable", err)
	}
	if _, err := live.ChainTime(gone); !gateway.Retryable(wantKind(t, err, gateway.ErrCanceled)) {
		t.Fatalf("ChainTime with its context ended: %v is not retryable", err)
	}
}

// bodyRecorder is an HTTP transport that keeps the JSON-RPC requests it forwards.
type bodyRecorder struct {
	mu     sync.Mutex
	bodies []string
}

func (r *bodyRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.bodies = append(r.bodies, string(body))
	r.mu.Unlock()
	req.Body = io.NopCloser(bytes.NewReader(body))
	return http.DefaultTransport.RoundTrip(req)
}

func TestTheWalletIsCalledWithTheGasCap(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	rec := &bodyRecorder{}
	rc, err := rpc.DialOptions(ctx, shared.HTTPEndpoint(), rpc.WithHTTPClient(&http.Client{Transport: rec}))
	if err != nil {
		t.Fatal(err)
	}
	client := ethclient.NewClient(rc)
	t.Cleanup(client.Close)
	ad, err := gateway.New(ctx, client, baseConfig(shared), testLogger())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ad.Close)
	digest := crypto.Keccak256Hash([]byte("user decrypt " + uniqueSeed(t)))
	if _, valid, err := ad.WalletSignature(ctx, shared.Addresses().Wallets[0], digest, devchaintest.WalletSignature(t, 0, digest)); err != nil || !valid {
		t.Fatalf("WalletSignature = (valid %v, %v), want valid", valid, err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, b := range rec.bodies {
		var call struct {
			Method string `json:"method"`
			Params []json.RawMessage
		}
		if err := json.Unmarshal([]byte(b), &call); err != nil || call.Method != "eth_call" {
			continue
		}
		var msg struct {
			Gas string `json:"gas"`
		}
		if err := json.Unmarshal(call.Params[0], &msg); err != nil {
			t.Fatal(err)
		}
		if msg.Gas != "0x3d090" { // 250,000
			t.Fatalf("isValidSignature was called with gas %q, want 0x3d090 (250,000)", msg.Gas)
		}
		return
	}
	t.Fatalf("no eth_call among %d requests", len(rec.bodies))
}
