// Package devchain is the development chain: an in-process EVM with the gateway contracts
// deployed and simulated KMS nodes and coprocessors answering the relayer's requests, so the
// whole relayer runs, and is tested, on one machine with nothing else installed.
//
// # Using it
//
//	chain, err := devchain.Start(ctx, devchain.DefaultConfig(), logger) // logger may be nil
//	defer chain.Close()
//	client := chain.Client()          // *ethclient.Client, in process
//	addrs := chain.Addresses()        // Decryption, InputVerification, ACL, InputVerifier, KMSVerifier, Wallets
//	key := chain.RelayerKey()         // the relayer's funded signing key (DEVELOPMENT ONLY)
//	dec := contracts.NewDecryption()  // abigen v2 binding (package workers/gateway/contracts)
//	tx, err := bind.Transact(dec.Instance(client, addrs.Decryption),
//		bind.NewKeyedTransactor(key, chain.ChainID()),
//		dec.PackPublicDecryptionRequest(handles, []byte{0}))
//
// Start deploys ACL, Decryption, InputVerification, InputVerifier and KMSVerifier from the
// deployer key (always at the same five addresses, its nonces 0 to 4), then two development
// ERC-1271 wallets (Addresses.Wallets, nonces 5 and 6), and returns once they are on chain. The chain is both the gateway chain (Decryption, InputVerification) and the host
// chain (ACL, InputVerifier, KMSVerifier), with one chain id, 1337. Client is an *ethclient.Client connected
// in process, the same type the gateway adapter gets from ethclient.Dial against a real node, so
// the adapter needs one code path: it serves abigen v2 bindings, log subscriptions,
// SendTransactionSync (eth_sendRawTransactionSync) and raw calls through Client().Client().
// With Config.HTTPAddr / WSAddr the node also serves JSON-RPC (eth, net, web3) on loopback;
// `relayer devchain` runs the chain that way for a relayer in another process.
//
// # The chain
//
// Chain id 1337, every fork active from genesis (go-ethereum's dev-chain rules; the contracts are
// compiled for cancun). It is go-ethereum's simulated backend (see backend.go for why it is
// assembled here rather than taken from ethclient/simulated). Exactly one goroutine seals
// blocks: BlockDebounce after a transaction enters the pool, and an empty block every Heartbeat
// otherwise, so that block timestamps, the contracts' clock, keep moving. A block's timestamp is
// the wall clock's second, or its parent's plus one when that is not later: while more than one
// block a second is sealed, chain time runs ahead of the wall clock (by up to a second per
// block), and catches up when the chain is idle. Everything time-based in the contracts
// (scenario 04, request validity) uses chain time. AdvanceTime jumps it forward for tests.
// Receipts may briefly answer "transaction indexing is in progress" right after the start:
// treat it like NotFound (IsTxIndexingInProgress).
//
// # Keys
//
// Every key is derived from a fixed public seed, keccak256("relayer/devchain/<role>/<index>")
// (DevKey, RelayerDevKey, UserDevKey), and these are funded with a million ether at genesis: the
// deployer (owner of the contracts: Pause, Unpause; DeployerKey), Config.RelayerKeys relayer
// keys (RelayerKeys), Config.KMSNodes KMS signers (KMSKeys), Config.Coprocessors coprocessors
// (CoprocessorKeys) and UserKeys (16) user keys (UserKey(i), role "user"): end users' accounts
// for tests that send their own transactions, such as a delegator's, or a fee spike's
// (FillBlocks: blocks kept full of gas-burning transactions that tip high). Any other DevKey has no
// funds. Addresses are the same on every run. They are development keys: public by
// construction, never to be used on a real chain. The keys, the chain id and the addresses known
// without a running chain (DecryptionAddress, WalletAddress) are package devnet's, which imports
// nothing of the node: a client of a chain in another process (relayer loadgen) uses it, and the
// relayer built without the development chain (-tags nodevchain) links it and not this package.
//
// # Contract wallets
//
// Addresses.Wallets are two contracts.DevWallet deployments: users whose address has code, for
// testing a user-decrypt signature checked through ERC-1271 isValidSignature. Wallets[i] is at
// WalletAddress(i) on every run (known without a running chain) and answers the magic value
// 0x1626ba7e for a 65-byte signature by WalletOwnerKey(i) (UserDevKey(14+i)) of exactly the hash
// asked about, and 0xffffffff otherwise. The ACL treats a wallet like any other account.
//
// # Delegated user decryption
//
// The ACL holds delegations for user decryption as the public host ACL does: a delegator sends
// delegateForUserDecryption(delegate, contract, expiration) (Chain.DelegateForUserDecryption
// sends it from a funded key, RevokeDelegationForUserDecryption undoes it), and
// isHandleDelegatedForUserDecryption(delegator, delegate, contract, handle) is true while the
// delegation has not expired (chain time) and both the delegator and the contract may use the
// handle. Decryption was deployed with the ACL's address (Decryption.acl()) and refuses a
// delegatedUserDecryptionRequest with a pair that is not delegated (UserDecryptNotDelegated).
// An accepted one is a user decryption with the delegate as its user: the same id counter, the
// same UserDecryptionRequest event, so the KMS nodes answer it like any user decryption, with
// shares for the delegate's public key.
//
// # What the public client SDK reads
//
// @zama-fhe/relayer-sdk's createInstance reads the host chain: InputVerifier.eip712Domain(),
// getThreshold(), getCoprocessorSigners(), then the same of KMSVerifier (getKmsSigners). Here
// InputVerifier lists the coprocessors in InputVerification's order with threshold Majority(),
// and reports InputVerification's EIP-712 domain {"InputVerification", "1", 1337, its address};
// KMSVerifier lists the KMS signers in Decryption's order with threshold Threshold(), and reports
// Decryption's domain {"Decryption", "1", 1337, its address}. They are separate deployments, as
// the SDK requires. The SDK's config for this chain is therefore: chainId and gatewayChainId
// 1337, aclContractAddress ACL, kmsContractAddress KMSVerifier, inputVerifierContractAddress
// InputVerifier, verifyingContractAddressDecryption Decryption,
// verifyingContractAddressInputVerification InputVerification (checksummed: Address.Hex()).
// Before a user decryption it asks ACL.persistAllowed, which answers like isAllowed.
//
// # Simulated KMS nodes and coprocessors
//
// A follower goroutine reads the request events block by block and hands each request to every
// KMS node (decryptions) or coprocessor (input proofs). Each answers from its own key, after its
// component's delay (the latency profile's, below), with a signature by its own key over the
// EIP-712 digest the contract checks and the public SDK verifies (contracts.VerifyProofDigest,
// PublicDecryptionDigest, UserDecryptionDigest): a coprocessor signs CiphertextVerification over
// the request's user, contract, contract chain id and extraData; a KMS node answers a public
// decryption with an EMPTY extraData, signed and sent (the SDK verifies PublicDecryptVerification
// with "0x"), and a user decryption share (delegated or not) with the request's extraData.
// Answers are fake but deterministic: PublicDecryptionResult (keccak-derived Plaintext per
// handle), UserDecryptionShare (one per node), InputHandles.
//
// On chain: a public decryption completes (one PublicDecryptionResponse with the signatures)
// when Threshold KMS signers agreed on a result; a user decryption emits one
// UserDecryptionResponse per share and UserDecryptionResponseThresholdReached once, with the
// Threshold-th share; an input proof is decided by a majority of coprocessors
// (VerifyProofResponse with their signatures, or RejectProofResponse).
//
// # Test handles (DESIGN section 10)
//
// A handle whose first bytes are 7e 57 XX, or an input-proof ciphertext whose first bytes are
// 7e 57 XX (contracts.TestHandle, contracts.TestCiphertext):
//
//	01  host ACL views false (delegation too); gateway readiness false; decryption requests
//	    revert (PublicDecryptNotAllowed / UserDecryptNotAllowed, delegated ones too); an input
//	    proof is rejected by the coprocessors (RejectProofResponse)
//	02  readiness false forever; a request sent anyway is never answered
//	03  ready, the request succeeds, nobody ever answers (decryptions and input proofs)
//	04  ready only contracts.ReadyDelay (5 s) of chain time after the chain first saw the handle
//	05  the gateway request reverts with TestScenarioRevert()
//
// Any other handle succeeds. How a 04 handle gets "seen": the Decryption contract records, per
// 04 handle, the block timestamp at which the chain first saw it (handleFirstSeen, event
// HandleRegistered), and its readiness views answer block.timestamp >= firstSeen + 5 (never
// ready while unseen). The chain sees a handle
//
//   - when anyone first asks a readiness view about it (isPublicDecryptionReady,
//     isUserDecryptionReady, isDelegatedUserDecryptionReady): a view cannot write, so the chain
//     watches the questions and registers the handle itself right after the first one (see
//     readiness.go). This is how a relayer meets a 04 handle sent to it with nothing registered
//     beforehand: not ready at its first readiness check, ready about 5 s later;
//   - when an input proof whose ciphertext starts 7e 57 04 is accepted: its handles carry 04 too
//     and InputVerification registers them in the same transaction, which is what happens in the
//     real protocol (an input's ciphertexts reach the gateway after the proof; decrypting them
//     right away is not ready yet);
//   - when a decryption request carries it (a relayer that skips readiness; the KMS nodes then
//     wait for readiness before answering);
//   - when anyone calls Decryption.registerHandles, e.g. Chain.RegisterHandles: what a test does
//     to start the clock of a literal 04 handle before anything asks about it.
//
// # Latency profiles
//
// Config.Profile sets how quickly the simulated components answer (latency.go): "instant", the
// default and the tests', answers within 50-300ms and has every handle ready at once;
// "production" answers like the real components, a KMS node after about 4 s, a coprocessor after
// about 2 s, and the readiness views say ready about 2 s after a handle's first readiness
// question (each give or take Config.Jitter, 20%). KMSDelay, CoprocessorDelay and ReadinessDelay
// set one component's delay apart from the profile's. The fields with a yaml name are the ones
// `relayer devchain` takes as flags (--profile, --kms-delay, ...) and a serve configuration as
// settings.
package devchain
