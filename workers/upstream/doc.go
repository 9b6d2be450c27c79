// Package upstream owns what happens when the relayer calls something it does not control: a
// JSON-RPC node, an RPC provider or another HTTP service. It decides whether a failed call may be
// tried again (Classify), how long to wait first (the server's Retry-After, RateLimit or
// X-RateLimit-* answer when it gives one, otherwise capped exponential backoff with random
// jitter), how many times and for how long to keep trying (Config), and it reports rate limiting
// to the caller as events (RateLimitEncountered, RateLimitBackoff, RateLimitRecovered,
// RateLimitGaveUp) through a Sink. Transport packages all of it as an http.RoundTripper, so the
// go-ethereum adapter gets it for every JSON-RPC call by handing Transport to its HTTP client.
// Backoff is the same capped, jittered backoff for the loops that retry on their own (a
// reconnection, a resubscription, a write that must not be lost): every retry in the relayer
// waits one way, and docs/RETRIES.md lists each with its bounds. Schedule is the long-tail
// timetable for re-trying one step of a job over minutes to hours.
//
// What it must never do:
//
//   - import anything but the standard library (the go-ethereum adapter imports this package,
//     never the reverse);
//   - append to the event log, or know about jobs and streams: it hands events to the caller's
//     Sink, which decides what to record;
//   - put a secret in an event or an error: upstreams are named by scheme and host only (URL
//     userinfo, path and query are dropped, because RPC providers carry API keys in all three),
//     and no request header, request body or URL is ever copied into an error;
//   - retry early: a server's requested wait is honoured in full or the call gives up with the
//     last answer, it is never shortened to fit a cap;
//   - retry what cannot succeed (501, other 4xx, JSON-RPC errors that are not limits, the
//     caller's cancellation), or retry without bounds (attempts and total time are both capped);
//   - sleep on the wall clock in tests: time and randomness are injectable (Clock, Rand).
//
// Retrying JSON-RPC over HTTP POST is safe for what the relayer sends. Reads (eth_call,
// eth_getLogs, eth_getTransactionReceipt, ...) have no side effects. eth_sendRawTransaction
// carries bytes that were signed once: re-sending them names the same transaction (same hash,
// same nonce), so a node that already has it answers "already known" or "nonce too low" and
// never creates a second transaction. The gateway adapter must treat those answers after a
// retry as "the transaction is in", which it has to do anyway for crash recovery. Transport is
// therefore not meant for endpoints whose POSTs are not idempotent.
package upstream
