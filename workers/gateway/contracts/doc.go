// Package contracts holds the development gateway contracts (Solidity in src/), their compiled
// ABI and bytecode (build/*.abi, build/*.bin) and the go-ethereum abigen v2 bindings
// (*_binding.go), plus hand-written helpers shared by the devchain and the gateway adapter: the
// digests KMS nodes and coprocessors sign (digest.go) and the test-handle scenarios (scenario.go).
//
// The contracts follow the public gateway's interface for what the relayer uses:
//
//   - Decryption: publicDecryptionRequest(bytes32[] ctHandles, bytes extraData),
//     userDecryptionRequest(CtHandleContractPair[], RequestValidity, ContractsInfo, address
//     userAddress, bytes publicKey, bytes signature, bytes extraData), the readiness views
//     isPublicDecryptionReady and isUserDecryptionReady, and the KMS-only responses
//     publicDecryptionResponse and userDecryptionResponse. Request ids carry their kind in the top
//     byte: public ids are 1<<248 + n, user ids 2<<248 + n (DecryptionKindOf tells them apart).
//   - InputVerification: verifyProofRequest and the coprocessor-only verifyProofResponse /
//     rejectProofResponse, a majority of coprocessors deciding. zkProofIds count from 1.
//   - ACL (host chain): isAllowed(handle, account) and isAllowedForDecryption(handle).
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
// TestGeneratedFilesMatchTheSolidity fails when the committed ABI, bytecode or bindings differ
// from what the sources produce; it runs `npm ci` itself when node_modules is missing.
package contracts

//go:generate node compile.js
//go:generate go tool abigen --v2 --pkg contracts --type ACL --abi build/ACL.abi --bin build/ACL.bin --out acl_binding.go
//go:generate go tool abigen --v2 --pkg contracts --type Decryption --abi build/Decryption.abi --bin build/Decryption.bin --out decryption_binding.go
//go:generate go tool abigen --v2 --pkg contracts --type InputVerification --abi build/InputVerification.abi --bin build/InputVerification.bin --out inputverification_binding.go
