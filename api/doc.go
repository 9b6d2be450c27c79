// Package api is the relayer's HTTP interface: the public relayer's v2 endpoints (submit and poll
// input proofs, user decrypts, delegated user decrypts and public decrypts; the key material's
// URLs, and the development key material itself) and its v3 user decrypt (the unified EIP-712
// envelope, a user decrypt job like v2's), the audit and operator endpoints (job search, a job's
// events, cancelling and retrying jobs one by one or as a search selects them, the live
// transitions stream, the overview and the operators' dashboard, runtime configuration, the
// webhook endpoints' registration), the API's documentation, and health, liveness, version and
// metrics.
//
// It answers every status query from the projections, never from the log, and changes requests
// only through the projections' Executor (load, decide, append with the expected version); a
// runtime configuration change and a webhook endpoint's registration are appended to their
// streams the same way (eventstore.Update). A submission is parsed here, then handed to the
// submission command (projections.Submitter: admission, deduplication, load shedding,
// acceptance), whose answer or refusal is rendered here; what admission needs of the chain (its
// time, a contract wallet's ERC-1271 answer) goes through the ChainChecks port, which
// cmd/relayer wires to the gateway adapter.
// The inbound rate limits are package ratelimit's. It must never import the workers: the API
// and the workers meet through the store and the projections.
package api
