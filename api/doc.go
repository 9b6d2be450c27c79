// Package api is the relayer's HTTP interface: the public relayer's v2 endpoints (submit and poll
// input proofs, user decrypts, delegated user decrypts and public decrypts; the key material's
// URLs, and the development key material itself), the audit and operator endpoints (a job's
// events, the live transitions stream, runtime configuration), and health and metrics.
//
// It answers every status query from the projections, never from the log, and changes requests
// only through the projections' Executor (load, decide, append with the expected version). It
// must never import the workers: the API and the workers meet through the store and the
// projections.
package api
