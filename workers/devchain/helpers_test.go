package devchain_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"relayer/workers/devchain"
	"relayer/workers/devchain/devchaintest"
	"relayer/workers/gateway/contracts"
)

// eventWait bounds the wait for an answer the chain owes.
const eventWait = 20 * time.Second

// testConfig is a chain that answers quickly (devchaintest.Config).
func testConfig() devchain.Config { return devchaintest.Config() }

// shared is one chain for the tests that do not change its state for others (no pause).
var shared *devchain.Chain

func TestMain(m *testing.M) {
	devchaintest.Main(m, testConfig(), testLogger(), func(c *devchain.Chain) { shared = c })
}

// testLogger logs the chains' simulators to stderr when DEVCHAIN_TEST_LOG is set.
func testLogger() *slog.Logger { return devchaintest.Logger("DEVCHAIN_TEST_LOG") }

func testContext(t *testing.T) context.Context { return devchaintest.Context(t, 45*time.Second) }

// sender sends a key's transactions one at a time, as the relayer's adapter will: the nonce is
// read from the pool under a lock, so parallel tests sharing a key do not collide.
type sender struct {
	chain *devchain.Chain
	key   *ecdsa.PrivateKey
	from  common.Address
}

var senderLocks sync.Map // common.Address -> *sync.Mutex

func newSender(c *devchain.Chain, key *ecdsa.PrivateKey) *sender {
	return &sender{chain: c, key: key, from: crypto.PubkeyToAddress(key.PublicKey)}
}

func (s *sender) send(ctx context.Context, at *bind.BoundContract, data []byte) (*types.Transaction, error) {
	mu, _ := senderLocks.LoadOrStore(s.from, new(sync.Mutex))
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	opts := bind.NewKeyedTransactor(s.key, s.chain.ChainID())
	opts.Context = ctx
	return bind.Transact(at, opts, data)
}

// mustSucceed sends data and returns the successful receipt.
func (s *sender) mustSucceed(t *testing.T, ctx context.Context, at *bind.BoundContract, data []byte) *types.Receipt {
	t.Helper()
	tx, err := s.send(ctx, at, data)
	if err != nil {
		if re, ok := contracts.DecodeRevert(err); ok {
			err = re
		}
		t.Fatalf("send: %v", err)
	}
	r, err := s.chain.WaitReceipt(ctx, tx.Hash())
	if err != nil {
		t.Fatalf("receipt of %s: %v", tx.Hash(), err)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("transaction %s reverted", tx.Hash())
	}
	return r
}

// mustRevert sends data and returns the decoded custom error it was refused with.
func (s *sender) mustRevert(t *testing.T, ctx context.Context, at *bind.BoundContract, data []byte) *contracts.RevertError {
	t.Helper()
	tx, err := s.send(ctx, at, data)
	if err == nil {
		t.Fatalf("transaction %s was sent; want a revert", tx.Hash())
	}
	re, ok := contracts.DecodeRevert(err)
	if !ok {
		t.Fatalf("send failed without a decodable revert: %v", err)
	}
	return re
}

// bindings are c's contracts, bound on its client.
func bindings(c *devchain.Chain) contracts.Bound {
	return contracts.Bind(c.Client(), c.Addresses().Deployment)
}

// onShared is where a test of the shared chain starts: the chain, the test's context, the
// gateway's bindings and a sender of the relayer's key.
func onShared(t *testing.T) (*devchain.Chain, context.Context, contracts.Bound, *sender) {
	t.Helper()
	return shared, testContext(t), bindings(shared), newSender(shared, shared.RelayerKey())
}

func call[T any](t *testing.T, ctx context.Context, at *bind.BoundContract, data []byte, unpack func([]byte) (T, error)) T {
	t.Helper()
	v, err := bind.Call(at, &bind.CallOpts{Context: ctx}, data, unpack)
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	return v
}

// requestID finds the id of the first event with topic0 emitted by addr in r.
func requestID(t *testing.T, r *types.Receipt, addr common.Address, topic0 common.Hash) *big.Int {
	t.Helper()
	for _, l := range r.Logs {
		if l.Address == addr && len(l.Topics) > 1 && l.Topics[0] == topic0 {
			return l.Topics[1].Big()
		}
	}
	t.Fatalf("no request event %s in the receipt", topic0)
	return nil
}

// requestDecryptions requests a public and a user decryption of h, by testUser for testContract,
// and returns their request ids.
func requestDecryptions(t *testing.T, ctx context.Context, c *devchain.Chain, g contracts.Bound, relayer *sender, h [32]byte) (pubID, usrID *big.Int) {
	t.Helper()
	pub := relayer.mustSucceed(t, ctx, g.DecryptionAt, g.Decryption.PackPublicDecryptionRequest([][32]byte{h}, nil))
	usr := relayer.mustSucceed(t, ctx, g.DecryptionAt, userRequest(g, [][32]byte{h}, testContract, testUser, []byte("pk")))
	return requestID(t, pub, c.Addresses().Decryption, contracts.TopicPublicDecryptionRequest),
		requestID(t, usr, c.Addresses().Decryption, contracts.TopicUserDecryptionRequest)
}

// verifyProof requests the verification of ct, for testContract and testUser on the host chain
// 1337 with extraData, and waits for the proof to be verified: it returns the request id, the
// VerifyProofResponse event and the log that carried it.
func verifyProof(t *testing.T, ctx context.Context, c *devchain.Chain, g contracts.Bound, relayer *sender, ct, extraData []byte) (*big.Int, *contracts.InputVerificationVerifyProofResponse, types.Log) {
	t.Helper()
	r := relayer.mustSucceed(t, ctx, g.InputVerificationAt, g.InputVerification.PackVerifyProofRequest(big.NewInt(1337), testContract, testUser, ct, extraData))
	id := requestID(t, r, c.Addresses().InputVerification, contracts.TopicVerifyProofRequest)
	logs := waitLogs(t, ctx, c, c.Addresses().InputVerification, contracts.TopicVerifyProofResponse, id, 1)
	ev, err := g.InputVerification.UnpackVerifyProofResponseEvent(&logs[0])
	if err != nil {
		t.Fatal(err)
	}
	return id, ev, logs[0]
}

// logsOf returns the logs with topic0 and id (topic1) that addr emitted so far.
func logsOf(t *testing.T, ctx context.Context, c *devchain.Chain, addr common.Address, topic0 common.Hash, id *big.Int) []types.Log {
	t.Helper()
	logs, err := c.Client().FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: big.NewInt(0),
		Addresses: []common.Address{addr},
		Topics:    [][]common.Hash{{topic0}, {common.BigToHash(id)}},
	})
	if err != nil {
		t.Fatalf("FilterLogs: %v", err)
	}
	return logs
}

// waitLogs waits until at least n such logs exist and returns them.
func waitLogs(t *testing.T, ctx context.Context, c *devchain.Chain, addr common.Address, topic0 common.Hash, id *big.Int, n int) []types.Log {
	t.Helper()
	deadline := time.Now().Add(eventWait)
	for {
		logs := logsOf(t, ctx, c, addr, topic0, id)
		if len(logs) >= n {
			return logs
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %d events %s for id %#x, want %d", eventWait, len(logs), topic0, id, n)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// assertQuiet checks that no log with topic0 and id appears during devchaintest.QuietWindow.
func assertQuiet(t *testing.T, ctx context.Context, c *devchain.Chain, addr common.Address, id *big.Int, topics ...common.Hash) {
	t.Helper()
	deadline := time.Now().Add(devchaintest.QuietWindow)
	for time.Now().Before(deadline) {
		for _, topic := range topics {
			if logs := logsOf(t, ctx, c, addr, topic, id); len(logs) > 0 {
				t.Fatalf("event %s for id %#x appeared; want none", topic, id)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkShare checks a user decryption share of handles for publicKey: it comes from a KMS node
// not in seen, which it joins, and it is the share that node owes. It returns the node's index
// and the digest the node signs.
func checkShare(t *testing.T, c *devchain.Chain, seen map[common.Address]bool, ev *contracts.DecryptionUserDecryptionResponse,
	handles [][32]byte, publicKey []byte) (int, common.Hash) {
	t.Helper()
	node := indexOf(c.KMSSigners(), ev.KmsSigner)
	if node < 0 || seen[ev.KmsSigner] {
		t.Fatalf("share from %s: not a distinct KMS node", ev.KmsSigner)
	}
	seen[ev.KmsSigner] = true
	if want := devchain.UserDecryptionShare(handles, publicKey, node); !bytes.Equal(ev.UserDecryptedShare, want) {
		t.Errorf("node %d share = %x, want %x", node, ev.UserDecryptedShare, want)
	}
	return node, contracts.UserDecryptionDigest(c.ChainID(), c.Addresses().Decryption, publicKey, handles, ev.UserDecryptedShare, ev.ExtraData)
}

func indexOf(list []common.Address, a common.Address) int {
	for i, x := range list {
		if x == a {
			return i
		}
	}
	return -1
}

// userRequest packs a userDecryptionRequest of handles allowed for contract, by user.
func userRequest(g contracts.Bound, handles [][32]byte, contract, user common.Address, publicKey []byte) []byte {
	pairs, validity, info := decryptionOf(handles, contract)
	return g.Decryption.PackUserDecryptionRequest(pairs, validity, info, user, publicKey, make([]byte, 65), []byte{0x00})
}

// delegatedRequest packs a delegatedUserDecryptionRequest of delegator's handles allowed for
// contract, for delegate.
func delegatedRequest(g contracts.Bound, handles [][32]byte, contract, delegator, delegate common.Address, publicKey []byte) []byte {
	pairs, validity, info := decryptionOf(handles, contract)
	accounts := contracts.DecryptionDelegationAccounts{DelegatorAddress: delegator, DelegateAddress: delegate}
	return g.Decryption.PackDelegatedUserDecryptionRequest(pairs, validity, accounts, info, publicKey, make([]byte, 65), []byte{0x00})
}

// decryptionOf is what every user decryption request of handles allowed for contract carries:
// the handle-contract pairs, a validity window that began a minute ago and lasts a day, and the
// host chain's contracts (contract alone).
func decryptionOf(handles [][32]byte, contract common.Address) ([]contracts.DecryptionCtHandleContractPair, contracts.DecryptionRequestValidity, contracts.DecryptionContractsInfo) {
	pairs := make([]contracts.DecryptionCtHandleContractPair, len(handles))
	for i, h := range handles {
		pairs[i] = contracts.DecryptionCtHandleContractPair{CtHandle: h, ContractAddress: contract}
	}
	validity := contracts.DecryptionRequestValidity{
		StartTimestamp: big.NewInt(time.Now().Add(-time.Minute).Unix()),
		DurationDays:   big.NewInt(1),
	}
	info := contracts.DecryptionContractsInfo{ChainId: big.NewInt(int64(contracts.DevHostChainID)), Addresses: []common.Address{contract}}
	return pairs, validity, info
}

// startHTTPChain starts a chain of the test's own that also serves JSON-RPC over HTTP, and
// returns it with a client of that endpoint; both are closed when the test ends.
func startHTTPChain(t *testing.T) (*devchain.Chain, *ethclient.Client) {
	t.Helper()
	cfg := testConfig()
	cfg.HTTPAddr = "127.0.0.1:0"
	c := devchaintest.Start(t, cfg, testLogger())
	cl, err := ethclient.DialContext(testContext(t), c.HTTPEndpoint())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return c, cl
}

func dial(ctx context.Context, url string) (*ethclient.Client, error) {
	return ethclient.DialContext(ctx, url)
}

// seed makes test handles and ciphertexts unique to one run of one test, so that -count=N runs
// against the shared chain do not meet handles an earlier run registered.
func seed(t *testing.T) string {
	return fmt.Sprintf("%s/%d", t.Name(), seedCounter.Add(1))
}

var seedCounter atomic.Int64

var (
	testContract = common.HexToAddress("0x00000000000000000000000000000000c0ffee01")
	testUser     = common.HexToAddress("0x00000000000000000000000000000000000a11ce")
)
