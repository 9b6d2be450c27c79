// Package gateway is the relayer's go-ethereum adapter to the gateway chain. It owns:
//
//   - the connection: Dial puts an upstream.Transport under every JSON-RPC call over HTTP
//     (classification of 429/5xx/limit errors, server waits, backoff with jitter, rate-limit
//     events to an injectable Sink), over at most 64 reused connections, and uses WebSocket,
//     when configured, for new-head subscriptions; New takes an existing *ethclient.Client such
//     as the development chain's. Every call, the listener's included, has a deadline of
//     Config.CallTimeout whatever the caller's context (node.go); a call the node leaves
//     unanswered fails with ErrTransport (*CallTimeoutError), not ErrCanceled;
//   - several RPC providers (providers.go, Config.Providers; RPCURL is a list of one): health
//     per provider (failures, latency, head lag), reads from a healthy one by weight with
//     fail-over within the call's deadline, a failing provider paused and retried with backoff,
//     each signed transaction sent to every healthy one (the same bytes), relayer_rpc_provider_*
//     metrics; the adapter calls its node as one client, so no call site knows of providers;
//   - the chain's health (health.go): whether the node can be reached, from every call's outcome
//     and a probe every second; Health, OnOutage (each outage's start and end, logged once at
//     ERROR and once at INFO) and Prometheus Collectors (relayer_chain_*). During an outage no
//     new connection is opened (UnreachableError, an ErrTransport): calls fail at once;
//   - the signer, behind one small interface (Signer: an address, and 65-byte [R || S || V]
//     signatures of 32-byte digests): a hex key from an environment variable or a keystore file
//     held in memory (KeySigner), or an AWS KMS secp256k1 key that never leaves KMS (KMSSigner,
//     kms.go), chosen by Config.Signer. A transaction is signed by its types.Signer hash and
//     tx.WithSignature, and its sender checked against the signer's address; a signer that
//     fails (KMS unreachable, throttled) is ErrSigner, retryable, with nothing signed;
//   - the gateway requests: Prepare encodes a domain request (publicDecryptionRequest,
//     userDecryptionRequest, delegatedUserDecryptionRequest, verifyProofRequest), estimates its
//     gas (a revert is classified before anything is signed), takes a nonce from the key's one
//     sequence and signs an EIP-1559 transaction, returning its raw bytes, hash, nonce and
//     sender so that the caller records them first; Broadcast sends those bytes
//     (eth_sendRawTransactionSync where the node has it, else eth_sendRawTransaction and receipt
//     polls) and returns the gateway request id from the receipt's request event (a delegated
//     user decrypt is announced, and answered, as a user decryption: its Receipt.Kind is
//     UserDecrypt, the kind's Family()); a unified (v3) user decrypt goes to the unified
//     userDecryptionRequest overload and is announced with the unified UserDecryptionRequest
//     event;
//   - the classification of every outcome into *TxError with errors.Is-able kinds (ErrPaused for
//     EnforcedPause(), ErrReverted with the decoded custom error, ErrNonceTooLow,
//     ErrUnderpriced, ErrTransport, ...; see errors.go);
//   - receipts for recovery (ReceiptByHash: found, pending in the pool, not found), and the kind
//     of a recorded transaction (DecodePrepared: from the contract and function called, so
//     DelegatedUserDecrypt for a delegated one);
//   - the readiness and ACL views (IsPublicDecryptionReady, IsUserDecryptionReady,
//     IsUnifiedUserDecryptionReady, IsDelegatedUserDecryptionReady, ACLAllowed,
//     ACLAllowedForDecryption, ACLDelegated);
//   - the chain's side of a user decrypt's admission (admission.go): ChainTime, the gateway
//     chain's time for the validity window (the latest header, re-read at most once a second),
//     and WalletSignature, an ERC-1271 contract wallet's verdict on a signature (host chain);
//   - the response listener (Listen): decoded response events block range by block range from a
//     cursor the caller commits after handling each batch, with a confirmation depth and
//     re-delivery after reorgs.
//
// # Exactly one transaction per job
//
// The adapter signs a gateway request only in Prepare, once per call, and never re-signs:
// Broadcast, a retry after a lost answer and crash recovery (DecodePrepared of the recorded
// bytes, then Broadcast) all send the same bytes, which name the same transaction, so a node can
// only answer "already known" or "nonce too low", and Broadcast turns both into the one
// transaction's receipt when it is the one mined. Sending those bytes to several providers at
// once changes nothing: one hash, one nonce, at most one transaction mined. Replacement re-signs
// the same call at the same nonce with higher fees (a fee bump): of the transactions of one nonce
// at most one is mined. The only other transactions it signs are zero-value transfers to its own
// address: the fillings of a nonce the caller released (see nonce.go), and a cancel's no-op
// (CancelReplacement), which replaces a job's request at its nonce so that, if it is the one
// mined, no request is made at all (its Receipt says NoOp). They carry no request.
//
// # Nonces
//
// One sequence per adapter, hence per key: seeded from the chain's pending nonce, handed out
// under a mutex, released nonces reused lowest first (or filled after Config.GapFillDelay),
// re-read from the chain after "nonce too low" (another sender) or "nonce too high", and
// checked against the chain while the relayer runs (HealNonces, heal.go: another sender's nonces
// skipped, transactions a node lost sent again, nonces nothing holds filled). Drive one key from
// one adapter in one process; more keys means more adapters (they can share a client).
//
// # What it must never do
//
//   - log, print or return its signing key: the key lives only in a KeySigner (or in KMS),
//     whose String, GoString, Format, LogValue and MarshalText show the address; Config holds
//     where the key is (a variable name, file paths, a KMS key id and Region), never the key
//     nor AWS credentials (the SDK's standard chain supplies them); no error quotes a key, a
//     password or a credential;
//   - let an RPC URL's secrets out: providers put API keys in the userinfo, path and query, and
//     go-ethereum's HTTP errors (*url.Error) quote the whole URL, so every error leaving the
//     adapter is scrubbed and names the node by scheme and host only;
//   - send a second transaction for a job: see above;
//   - append to the event log or know about jobs: it returns what happened and the caller
//     records it.
//
// # Testing
//
// The tests run on the in-process development chain (workers/devchain) through its real HTTP
// and WebSocket JSON-RPC endpoints, and the KMS signer's against a real KMS emulator, local-kms
// (package kmstest; `make local-kms` installs the version go.mod pins). The reorg handling is
// tested with a ChainReader that wraps the real client and rewrites block hashes from a height
// on, because the development chain cannot reorganise.
package gateway
