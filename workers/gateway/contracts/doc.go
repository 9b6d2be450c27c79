// Package contracts holds the development gateway and host contracts (Solidity in src/), their
// compiled ABI and bytecode (build/*.abi, build/*.bin) and the go-ethereum abigen v2 bindings
// (*_binding.go), plus hand-written helpers shared by the devchain and the gateway adapter: the
// EIP-712 digests KMS nodes and coprocessors sign (digest.go), the test-handle scenarios
// (scenario.go) and the deployment of the five contracts, wired to one another (deploy.go).
//
// The contracts follow the public gateway's interface for what the relayer uses:
//
//   - Decryption: publicDecryptionRequest(bytes32[] ctHandles, bytes extraData),
//     userDecryptionRequest(CtHandleContractPair[], RequestValidity, ContractsInfo, address
//     userAddress, bytes publicKey, bytes signature, bytes extraData),
//     delegatedUserDecryptionRequest(CtHandleContractPair[], RequestValidity, DelegationAccounts
//     {delegatorAddress, delegateAddress}, ContractsInfo, bytes publicKey, bytes signature, bytes
//     extraData), the readiness views isPublicDecryptionReady, isUserDecryptionReady and
//     isDelegatedUserDecryptionReady, the unified EIP-712 overload userDecryptionRequest(HandleEntry[]
//     {handle, contractAddress, ownerAddress}, address userAddress, bytes publicKey, address[]
//     allowedContracts, RequestValiditySeconds, bytes signature, bytes extraData), announced with
//     the unified UserDecryptionRequest(decryptionId, HandleEntry[], UserDecryptionRequestPayload)
//     event (an entry whose owner is not the user must be delegated to the user on the host ACL),
//     and the KMS-only responses publicDecryptionResponse and
//     userDecryptionResponse. Request ids carry their kind in the top byte: public ids are
//     1<<248 + n, user ids 2<<248 + n (DecryptionKindOf tells them apart). A delegated user
//     decryption is checked like a user one with the delegator in the user's place, plus the host
//     ACL's delegation of every pair (else UserDecryptNotDelegated(delegator, delegate, contract,
//     handle)); it then takes a user id and is announced with UserDecryptionRequest whose
//     userAddress is the DELEGATE (the shares are for the delegate's key), and answered like a
//     user decryption. Decryption knows the ACL from its constructor (acl()).
//   - InputVerification: verifyProofRequest and the coprocessor-only verifyProofResponse /
//     rejectProofResponse, a majority of coprocessors deciding. zkProofIds count from 1.
//   - ACL (host chain): isAllowed(handle, account), persistAllowed(handle, account) (the same
//     answer; the client SDK asks it) and isAllowedForDecryption(handle); delegation for user
//     decryption as the public host ACL has it: delegateForUserDecryption(delegate, contract,
//     uint64 expirationDate) by the delegator (refused for itself as delegate or contract, the
//     delegate as contract, or an expiration not in the future), revokeDelegationForUserDecryption,
//     getUserDecryptionDelegationExpirationDate and isHandleDelegatedForUserDecryption(delegator,
//     delegate, contract, handle): true while block.timestamp < expirationDate and both the
//     delegator and the contract may use the handle.
//   - InputVerifier and KMSVerifier (host chain): what the public client SDK reads at
//     createInstance: getCoprocessorSigners() / getKmsSigners() (the gateway's signers, in its
//     order), getThreshold() and eip712Domain(), which reports the GATEWAY contract's domain
//     (name "InputVerification" / "Decryption", version "1", the gateway chain id and the
//     InputVerification / Decryption address). They verify nothing themselves.
//   - DevWallet (host chain, DEVELOPMENT ONLY): a contract wallet with one owner key
//     (constructor(owner), owner()) answering ERC-1271 isValidSignature(bytes32 hash, bytes
//     signature) with the magic value 0x1626ba7e when signature is the owner's 65-byte signature
//     of exactly hash (v 27/28 or 0/1, s in the lower half of the curve order), and 0xffffffff
//     for anything else, without reverting. It stands for a user whose address has code. The
//     selector of isValidSignature is ERC-1271's, so PackIsValidSignature and
//     UnpackIsValidSignature encode the call to any ERC-1271 wallet.
//
// # Signatures
//
// KMS nodes and coprocessors sign EIP-712 typed data (65 bytes r || s || v, v = 27/28, no
// "\x19Ethereum Signed Message" prefix) under the domain {name, version "1", chainId:
// block.chainid, verifyingContract: the contract}, which Decryption and InputVerification report
// with eip712Domain() (EIP-5267):
//
//   - CiphertextVerification(bytes32[] ctHandles, address userAddress, address contractAddress,
//     uint256 contractChainId, bytes extraData): the response's handles, the rest the REQUEST's
//     (InputVerification remembers it per zkProofId), extraData included, as the SDK verifies it.
//   - PublicDecryptVerification(bytes32[] ctHandles, bytes decryptedResult, bytes extraData): the
//     request's handles, the response's result and extraData (the SDK verifies with "0x", so the
//     devchain's KMS nodes answer with an empty one). Signatures over different messages are
//     never counted together.
//   - UserDecryptResponseVerification(bytes publicKey, bytes32[] ctHandles, bytes
//     userDecryptedShare, bytes extraData): the request's public key and handles, the response's
//     share and extraData.
//
// VerifyProofDigest, PublicDecryptionDigest and UserDecryptionDigest compute them in Go; the
// contracts' views verifyProofDigest, publicDecryptionDigest and userDecryptionDigest on chain.
//
// Decryption and InputVerification are pausable by their owner (the deployer): while paused,
// request functions revert with EnforcedPause(), which the adapter maps to protocol_paused.
// Every revert is a custom error; the bindings decode them (e.g. UnpackError on the binding, or
// the generated <Contract><Error> types with their ErrorID).
//
// # Regenerating
//
// The compiler is solc 0.8.30 from npm, pinned in the repository's package.json and
// package-lock.json. From the repository root:
//
//	npm ci                             # once, installs node_modules/solc
//	go generate ./workers/gateway/...  # compile.js, then abigen --v2 (the go.mod tool version)
//
// abigen v2 names the result type of a multi-value method after the method alone, so each
// contract's eip712Domain is bound with --alias as <Contract>Eip712Domain
// (PackDecryptionEip712Domain, DecryptionEip712DomainOutput, ...) to keep one package compiling.
// Decryption's overloads of userDecryptionRequest and of the UserDecryptionRequest event are
// aliased too (abigen would add "0" to whichever solc lists second): the legacy ones keep the
// plain names, the unified EIP-712 ones are PackUnifiedUserDecryptionRequest and
// DecryptionUnifiedUserDecryptionRequest.
//
// TestGeneratedFilesMatchTheSolidity fails when the committed ABI, bytecode or bindings differ
// from what the sources produce; it runs `npm ci` itself when node_modules is missing.
package contracts

//go:generate node compile.js
//go:generate go tool abigen --v2 --pkg contracts --type ACL --abi build/ACL.abi --bin build/ACL.bin --out acl_binding.go
//go:generate go tool abigen --v2 --pkg contracts --type Decryption --alias eip712Domain=DecryptionEip712Domain,userDecryptionRequest=unifiedUserDecryptionRequest,userDecryptionRequest0=userDecryptionRequest,UserDecryptionRequest0=UnifiedUserDecryptionRequest --abi build/Decryption.abi --bin build/Decryption.bin --out decryption_binding.go
//go:generate go tool abigen --v2 --pkg contracts --type InputVerification --alias eip712Domain=InputVerificationEip712Domain --abi build/InputVerification.abi --bin build/InputVerification.bin --out inputverification_binding.go
//go:generate go tool abigen --v2 --pkg contracts --type InputVerifier --alias eip712Domain=InputVerifierEip712Domain --abi build/InputVerifier.abi --bin build/InputVerifier.bin --out inputverifier_binding.go
//go:generate go tool abigen --v2 --pkg contracts --type KMSVerifier --alias eip712Domain=KMSVerifierEip712Domain --abi build/KMSVerifier.abi --bin build/KMSVerifier.bin --out kmsverifier_binding.go
//go:generate go tool abigen --v2 --pkg contracts --type DevWallet --abi build/DevWallet.abi --bin build/DevWallet.bin --out devwallet_binding.go
