package devchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"relayer/workers/devchain/devnet"
	"relayer/workers/gateway/contracts"
)

// devFunds is what every development key starts with: a million ether.
var devFunds = new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(1_000_000_000_000_000_000))

// Addresses are where Start deployed the contracts. They are the same on every run (the deployer
// key and its nonces are fixed). The chain plays both parts: Decryption and InputVerification
// are the gateway chain's, ACL, InputVerifier and KMSVerifier the host chain's (what the public
// client SDK's config calls aclContractAddress, inputVerifierContractAddress and
// kmsContractAddress; its verifyingContractAddressDecryption and
// verifyingContractAddressInputVerification are Decryption and InputVerification).
type Addresses struct {
	// Deployment holds Decryption, InputVerification, ACL, InputVerifier and KMSVerifier.
	contracts.Deployment
	// Wallets (host) are two development ERC-1271 contract wallets (contracts.DevWallet): users
	// whose address has code. Wallets[i] is at WalletAddress(i) and accepts the signatures of
	// WalletOwnerKey(i), which is UserDevKey(14+i).
	Wallets [devnet.Wallets]common.Address
}

// Chain is a running development chain. Its methods are safe for concurrent use.
type Chain struct {
	cfg     Config
	log     *slog.Logger
	backend *backend
	client  *ethclient.Client
	chainID *big.Int
	addrs   Addresses

	deployerKey *ecdsa.PrivateKey
	relayerKeys []*ecdsa.PrivateKey
	kmsKeys     []*ecdsa.PrivateKey
	// kmsSeed is the secret the simulated KMS nodes share for their user decryption sharings
	// (kmssim.Committee.Seed): derived from their keys.
	kmsSeed         []byte
	coprocessorKeys []*ecdsa.PrivateKey
	userKeys        []*ecdsa.PrivateKey
	deployer        *txSender

	sendersMu sync.Mutex
	senders   map[common.Address]*txSender // the users' keys, one sequence each

	// bound are the deployed contracts' bindings (deploy).
	bound contracts.Bound

	httpEndpoint string
	wsEndpoint   string

	readiness *readinessSim // the gateway's readiness questions (readiness.go)

	advance chan advanceRequest // to the block producer
	drop    chan chan struct{}  // to the block producer: empty the pool (DropPending)
	runCtx  context.Context     // ends when Close begins
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	lifeMu  sync.Mutex
	closing bool // Close has begun: no new background work (background)

	closeOnce sync.Once
	closeErr  error
}

// Start starts a development chain: the simulated backend (chain id 1337, the development keys
// funded), its one block-producing goroutine, the contracts deployed by the deployer key,
// and the simulated KMS nodes and coprocessors following the chain's request events. ctx bounds
// the start only; the chain runs until Close. logger may be nil (no logs).
func Start(ctx context.Context, cfg Config, logger *slog.Logger) (*Chain, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Chain{
		cfg:             cfg,
		log:             logger.With("component", "devchain"),
		chainID:         big.NewInt(ChainID),
		deployerKey:     DevKey(RoleDeployer, 0),
		relayerKeys:     devKeys(RoleRelayer, cfg.RelayerKeys),
		kmsKeys:         devKeys(RoleKMS, cfg.KMSNodes),
		coprocessorKeys: devKeys(RoleCoprocessor, cfg.Coprocessors),
		userKeys:        devKeys(RoleUser, UserKeys),
		senders:         map[common.Address]*txSender{},
		advance:         make(chan advanceRequest),
		drop:            make(chan chan struct{}),
	}
	for _, k := range c.kmsKeys {
		c.kmsSeed = crypto.Keccak256(c.kmsSeed, crypto.FromECDSA(k))
	}
	var err error
	if c.readiness, err = newReadinessSim(); err != nil {
		return nil, err
	}
	alloc := types.GenesisAlloc{}
	for _, k := range c.allKeys() {
		alloc[crypto.PubkeyToAddress(k.PublicKey)] = types.Account{Balance: devFunds}
	}
	if c.backend, err = newBackend(alloc, cfg.HTTPAddr, cfg.WSAddr); err != nil {
		return nil, err
	}
	if cfg.HTTPAddr != "" {
		c.httpEndpoint = c.backend.node.HTTPEndpoint()
	}
	if cfg.WSAddr != "" {
		c.wsEndpoint = c.backend.node.WSEndpoint()
	}
	c.client = c.backend.client
	c.deployer = newTxSender(c.client, c.deployerKey, c.chainID)

	runCtx, cancel := context.WithCancel(context.Background())
	c.runCtx, c.cancel = runCtx, cancel
	pending, sub := c.subscribePending(runCtx)
	c.wg.Add(1)
	go c.produceBlocks(runCtx, pending, sub)

	if err := c.deploy(ctx); err != nil {
		_ = c.Close()
		return nil, err
	}
	// From now on the chain sees the readiness questions (readiness.go).
	answer := callAnswerer(c.answerCall)
	c.backend.gate.answer.Store(&answer)
	head, err := c.client.BlockNumber(ctx)
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("devchain: read the head: %w", err)
	}
	c.startSimulators(runCtx, head+1)
	c.log.Info("development chain started", "chain_id", ChainID,
		"decryption", c.addrs.Decryption, "input_verification", c.addrs.InputVerification, "acl", c.addrs.ACL,
		"input_verifier", c.addrs.InputVerifier, "kms_verifier", c.addrs.KMSVerifier, "wallets", c.addrs.Wallets,
		"kms_nodes", cfg.KMSNodes, "threshold", cfg.Threshold, "coprocessors", cfg.Coprocessors,
		"profile", cfg.Profile, "latencies", cfg.LatencySummary(),
		"http", c.httpEndpoint, "ws", c.wsEndpoint)
	return c, nil
}

func (c *Chain) allKeys() []*ecdsa.PrivateKey {
	keys := []*ecdsa.PrivateKey{c.deployerKey}
	keys = append(keys, c.relayerKeys...)
	keys = append(keys, c.kmsKeys...)
	keys = append(keys, c.coprocessorKeys...)
	return append(keys, c.userKeys...)
}

// deploy deploys ACL, Decryption, InputVerification, InputVerifier and KMSVerifier
// (contracts.Deploy, in that order, so at the deployer's nonces 0 to 4), then the two
// development wallets (nonces 5 and 6: after the others, so that adding them moved no address),
// from the deployer key. The host verifiers list the gateway's signers in its registration order
// and report its domains: the gateway chain is this chain.
func (c *Chain) deploy(ctx context.Context) error {
	deployOne := func(name, bin string, input []byte) (common.Address, error) {
		var addr common.Address
		tx, err := c.deployer.send(ctx, func(opts *bind.TransactOpts) (*types.Transaction, error) {
			a, tx, err := bind.DeployContract(opts, common.FromHex(bin), c.client, input)
			addr = a
			return tx, err
		})
		if err != nil {
			return common.Address{}, fmt.Errorf("devchain: deploy %s: %w", name, err)
		}
		if _, err := c.waitSuccess(ctx, tx.Hash()); err != nil {
			return common.Address{}, fmt.Errorf("devchain: deploy %s: %w", name, err)
		}
		return addr, nil
	}
	var err error
	signers := contracts.Signers{KMS: c.KMSSigners(), Threshold: c.cfg.Threshold, Coprocessors: c.Coprocessors(), Majority: c.Majority()}
	if c.addrs.Deployment, err = contracts.Deploy(deployOne, signers, c.chainID); err != nil {
		return err
	}
	if c.addrs.Decryption != DecryptionAddress() {
		return fmt.Errorf("devchain: Decryption is at %s, not at DecryptionAddress() %s", c.addrs.Decryption, DecryptionAddress())
	}
	wallet := contracts.NewDevWallet()
	for i := range c.addrs.Wallets {
		owner := crypto.PubkeyToAddress(WalletOwnerKey(i).PublicKey)
		if c.addrs.Wallets[i], err = deployOne(fmt.Sprintf("DevWallet %d", i), contracts.DevWalletMetaData.Bin,
			wallet.PackConstructor(owner)); err != nil {
			return err
		}
		if c.addrs.Wallets[i] != WalletAddress(i) {
			return fmt.Errorf("devchain: DevWallet %d is at %s, not at WalletAddress(%d) %s", i, c.addrs.Wallets[i], i, WalletAddress(i))
		}
	}
	c.bound = contracts.Bind(c.client, c.addrs.Deployment)
	return nil
}

// Close stops the simulators and the block producer, then the chain. It is safe to call twice.
func (c *Chain) Close() error {
	c.closeOnce.Do(func() {
		c.lifeMu.Lock()
		c.closing = true
		c.lifeMu.Unlock()
		if c.cancel != nil {
			c.cancel()
		}
		c.wg.Wait()
		c.closeErr = c.backend.close()
		c.log.Info("development chain stopped")
	})
	return c.closeErr
}

// background runs f in a goroutine that Close waits for, with a context that ends when Close
// begins; false (f not run) once Close has begun.
func (c *Chain) background(f func(ctx context.Context)) bool {
	c.lifeMu.Lock()
	defer c.lifeMu.Unlock()
	if c.closing || c.runCtx == nil {
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f(c.runCtx)
	}()
	return true
}

// Client is a go-ethereum client of the chain, connected in process: the same *ethclient.Client
// the gateway adapter gets from ethclient.Dial against a real node. It serves abigen v2 bindings
// (bind.ContractBackend, bind.DeployBackend), subscriptions (SubscribeFilterLogs,
// SubscribeNewHead), SendTransactionSync (eth_sendRawTransactionSync) and raw calls through
// Client().Client(). Close closes it.
func (c *Chain) Client() *ethclient.Client { return c.client }

// ChainID is 1337.
func (c *Chain) ChainID() *big.Int { return new(big.Int).Set(c.chainID) }

// Addresses are the deployed contracts' addresses.
func (c *Chain) Addresses() Addresses { return c.addrs }

// Config is the configuration the chain runs with, defaults filled in.
func (c *Chain) Config() Config { return c.cfg }

// RelayerKey is the first relayer signing key, funded at genesis. DEVELOPMENT ONLY: it is
// derived from a public seed (RelayerDevKey(0)) and is the same on every run.
func (c *Chain) RelayerKey() *ecdsa.PrivateKey { return c.relayerKeys[0] }

// RelayerKeys are all Config.RelayerKeys relayer signing keys (RelayerDevKey(0..n-1)).
func (c *Chain) RelayerKeys() []*ecdsa.PrivateKey {
	return append([]*ecdsa.PrivateKey(nil), c.relayerKeys...)
}

// DeployerKey is the contracts' owner (it can pause and unpause). DEVELOPMENT ONLY.
func (c *Chain) DeployerKey() *ecdsa.PrivateKey { return c.deployerKey }

// KMSSigners are the registered KMS signer addresses, in node order.
func (c *Chain) KMSSigners() []common.Address { return contracts.SignerAddresses(c.kmsKeys) }

// KMSKeys are the simulated KMS nodes' keys, in node order. DEVELOPMENT ONLY.
func (c *Chain) KMSKeys() []*ecdsa.PrivateKey { return append([]*ecdsa.PrivateKey(nil), c.kmsKeys...) }

// Coprocessors are the registered coprocessor addresses, in order.
func (c *Chain) Coprocessors() []common.Address { return contracts.SignerAddresses(c.coprocessorKeys) }

// CoprocessorKeys are the simulated coprocessors' keys, in order. DEVELOPMENT ONLY.
func (c *Chain) CoprocessorKeys() []*ecdsa.PrivateKey {
	return append([]*ecdsa.PrivateKey(nil), c.coprocessorKeys...)
}

// UserKey is user key number i (UserDevKey(i)), funded at genesis for i in 0..UserKeys-1: an end
// user's account for tests that send their own transactions, such as a delegator's ACL
// delegation. It panics for another i (that key would have no funds). DEVELOPMENT ONLY.
func (c *Chain) UserKey(i int) *ecdsa.PrivateKey {
	if i < 0 || i >= len(c.userKeys) {
		panic(fmt.Sprintf("devchain: UserKey(%d): only user keys 0..%d are funded", i, len(c.userKeys)-1))
	}
	return c.userKeys[i]
}

// Threshold is how many distinct KMS signatures complete a decryption.
func (c *Chain) Threshold() int { return c.cfg.Threshold }

// Majority is how many agreeing coprocessors decide an input proof.
func (c *Chain) Majority() int { return c.cfg.Coprocessors/2 + 1 }

// HTTPEndpoint is the JSON-RPC over HTTP URL ("http://127.0.0.1:8545"), or "" when not served.
func (c *Chain) HTTPEndpoint() string { return c.httpEndpoint }

// WSEndpoint is the JSON-RPC over WebSocket URL ("ws://127.0.0.1:8546"), or "" when not served.
func (c *Chain) WSEndpoint() string { return c.wsEndpoint }

// HeadTime is the timestamp of the latest block: the clock the contracts see. It runs ahead of
// the wall clock when more than one block a second is sealed.
func (c *Chain) HeadTime(ctx context.Context) (time.Time, error) {
	h, err := c.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(int64(h.Time), 0), nil
}

// WaitReceipt polls for the receipt of txHash until it exists or ctx ends.
func (c *Chain) WaitReceipt(ctx context.Context, txHash common.Hash) (*types.Receipt, error) {
	return waitReceipt(ctx, c.client, txHash)
}

func waitReceipt(ctx context.Context, client *ethclient.Client, txHash common.Hash) (*types.Receipt, error) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		r, err := client.TransactionReceipt(ctx, txHash)
		if err == nil {
			return r, nil
		}
		if !errors.Is(err, ethereum.NotFound) && !IsTxIndexingInProgress(err) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// IsTxIndexingInProgress reports go-ethereum's answer to eth_getTransactionReceipt while it is
// still indexing transactions (right after the chain starts): "not known yet", like NotFound.
func IsTxIndexingInProgress(err error) bool {
	return err != nil && strings.Contains(err.Error(), "transaction indexing is in progress")
}

// waitSuccess waits for the receipt and fails when the transaction reverted.
func (c *Chain) waitSuccess(ctx context.Context, txHash common.Hash) (*types.Receipt, error) {
	r, err := c.WaitReceipt(ctx, txHash)
	if err != nil {
		return nil, err
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return r, fmt.Errorf("transaction %s reverted", txHash)
	}
	return r, nil
}

// RegisterHandles makes the chain "see" handles now (Decryption.registerHandles, sent by the
// deployer key): a scenario-04 handle becomes ready contracts.ReadyDelay of chain time later.
// Other handles are unaffected. It returns once the transaction is in a block.
func (c *Chain) RegisterHandles(ctx context.Context, handles ...[32]byte) error {
	tx, err := c.deployer.send(ctx, func(opts *bind.TransactOpts) (*types.Transaction, error) {
		return bind.Transact(c.bound.DecryptionAt, opts, c.bound.Decryption.PackRegisterHandles(handles))
	})
	if err != nil {
		return fmt.Errorf("devchain: register handles: %w", err)
	}
	if _, err := c.waitSuccess(ctx, tx.Hash()); err != nil {
		return fmt.Errorf("devchain: register handles: %w", err)
	}
	return nil
}

// Fund sends wei to the account to from the deployer key (a million ether at genesis) and
// returns once the transfer is in a block: a key the chain did not make, such as a relayer key
// kept in AWS KMS, pays for its transactions with it.
func (c *Chain) Fund(ctx context.Context, to common.Address, wei *big.Int) error {
	tx, err := c.deployer.send(ctx, func(opts *bind.TransactOpts) (*types.Transaction, error) {
		head, err := c.client.HeaderByNumber(ctx, nil)
		if err != nil {
			return nil, err
		}
		tip, err := c.client.SuggestGasTipCap(ctx)
		if err != nil {
			return nil, err
		}
		tx, err := opts.Signer(opts.From, types.NewTx(&types.DynamicFeeTx{
			ChainID: c.chainID, Nonce: opts.Nonce.Uint64(), GasTipCap: tip,
			GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip),
			Gas:       21_000, To: &to, Value: wei,
		}))
		if err != nil {
			return nil, err
		}
		if err := c.client.SendTransaction(ctx, tx); err != nil {
			return nil, err
		}
		return tx, nil
	})
	if err != nil {
		return fmt.Errorf("devchain: fund %s: %w", to, err)
	}
	if _, err := c.waitSuccess(ctx, tx.Hash()); err != nil {
		return fmt.Errorf("devchain: fund %s: %w", to, err)
	}
	return nil
}

// Pause pauses Decryption and InputVerification (as their owner): their request functions then
// revert with EnforcedPause() until Unpause. Responses are still accepted.
func (c *Chain) Pause(ctx context.Context) error {
	return c.ownerCall(ctx, "pause", c.bound.Decryption.PackPause(), c.bound.InputVerification.PackPause())
}

// Unpause undoes Pause.
func (c *Chain) Unpause(ctx context.Context) error {
	return c.ownerCall(ctx, "unpause", c.bound.Decryption.PackUnpause(), c.bound.InputVerification.PackUnpause())
}

func (c *Chain) ownerCall(ctx context.Context, what string, decData, inputData []byte) error {
	var hashes []common.Hash
	for _, call := range []struct {
		at   *bind.BoundContract
		data []byte
	}{{c.bound.DecryptionAt, decData}, {c.bound.InputVerificationAt, inputData}} {
		tx, err := c.deployer.send(ctx, func(opts *bind.TransactOpts) (*types.Transaction, error) {
			return bind.Transact(call.at, opts, call.data)
		})
		if err != nil {
			return fmt.Errorf("devchain: %s: %w", what, err)
		}
		hashes = append(hashes, tx.Hash())
	}
	for _, h := range hashes {
		if _, err := c.waitSuccess(ctx, h); err != nil {
			return fmt.Errorf("devchain: %s: %w", what, err)
		}
	}
	return nil
}

// DelegateForUserDecryption sends, from delegatorKey, the host ACL's
// delegateForUserDecryption(delegate, contract, expiration): delegate may then user-decrypt, until
// expiration (whole seconds of chain time, which can run ahead of the wall clock; see the package
// documentation), the delegator's handles that contract may use. It returns once the
// transaction is in a block; a refusal is the ACL's decoded revert (SenderCannotBeDelegate,
// ExpirationDateInThePast, ...). delegatorKey must be funded: UserKey(i) is.
func (c *Chain) DelegateForUserDecryption(ctx context.Context, delegatorKey *ecdsa.PrivateKey, delegate, contract common.Address, expiration time.Time) error {
	if expiration.Unix() <= 0 {
		return fmt.Errorf("devchain: delegate for user decryption: expiration %v is not after 1970", expiration)
	}
	return c.aclCall(ctx, delegatorKey, "delegate for user decryption",
		c.bound.ACL.PackDelegateForUserDecryption(delegate, contract, uint64(expiration.Unix())))
}

// RevokeDelegationForUserDecryption sends, from delegatorKey, the host ACL's
// revokeDelegationForUserDecryption(delegate, contract), and returns once it is in a block.
func (c *Chain) RevokeDelegationForUserDecryption(ctx context.Context, delegatorKey *ecdsa.PrivateKey, delegate, contract common.Address) error {
	return c.aclCall(ctx, delegatorKey, "revoke delegation for user decryption",
		c.bound.ACL.PackRevokeDelegationForUserDecryption(delegate, contract))
}

func (c *Chain) aclCall(ctx context.Context, key *ecdsa.PrivateKey, what string, data []byte) error {
	tx, err := c.senderOf(key).send(ctx, func(opts *bind.TransactOpts) (*types.Transaction, error) {
		return bind.Transact(c.bound.ACLAt, opts, data)
	})
	if err != nil {
		if re, ok := contracts.DecodeRevert(err); ok {
			err = re
		}
		return fmt.Errorf("devchain: %s: %w", what, err)
	}
	if _, err := c.waitSuccess(ctx, tx.Hash()); err != nil {
		return fmt.Errorf("devchain: %s: %w", what, err)
	}
	return nil
}

// senderOf is key's one nonce sequence in this chain, so that concurrent calls from one key
// (parallel tests sharing a user key) do not take the same nonce.
func (c *Chain) senderOf(key *ecdsa.PrivateKey) *txSender {
	from := crypto.PubkeyToAddress(key.PublicKey)
	c.sendersMu.Lock()
	defer c.sendersMu.Unlock()
	s, ok := c.senders[from]
	if !ok {
		s = newTxSender(c.client, key, c.chainID)
		c.senders[from] = s
	}
	return s
}
