// Package domain holds what a relayer request is and how it may change: the request kinds, the
// seven statuses, the events of the lifecycle, the commands that produce them, and the pure
// functions Decide (state + command -> events or a typed error) and Evolve (state + event ->
// state). It also validates the four request payloads, computes the content hash that makes
// submissions idempotent and the job ids, and holds the pure half of admission: the EIP-712 data
// a user signs for a user decryption and the recovery of the address that signed it
// (signature.go). The events outside the request streams (runtime configuration, poisoned
// messages, chain outages, rate limits, the signing keys' pauses and nonce corrections:
// system.go) are defined here too, for the log's codec.
//
// The package is pure: no I/O, no clock (every command carries its time), no imports of the rest
// of the project. Beside the standard library it imports only what the standard library lacks:
// golang.org/x/crypto's legacy Keccak-256, a secp256k1 recovery (decred's, in Go; with cgo,
// libsecp256k1 through go-ethereum's binding) and uuid; imports_test.go holds it to that list.
// Workers and handlers load a stream, Evolve it into a State, Decide, and append the result with
// the stream's expected version (projections.Executor).
package domain
