// Package retryafter owns the relayer's polling policy: how many seconds a client should wait
// before it asks again about a job (the Retry-After header and result.etaSeconds), and how long a
// client whose request was refused by an inbound rate limit should back off (retryAfterMs).
//
// It implements the formulas of the seed design "dynamic Retry-After" — one queue for input
// proofs (TX throttler, drained at D per second), two for decrypts (readiness queue drained at C
// per second, then the TX queue) — with the safety margin M and the [min, max] clamp, and departs
// from it where its hints were wrong on average (measured, issue 13; Compute says why): a decrypt
// in the readiness queue counts its own readiness check R, a ReceiptReceived job is told its
// remaining processing time P − E until it is late (E > 2P), and only then the backoff table
// B(E), hints are rounded to the nearest second rather than up, and M defaults to 0. The seed's
// worked tables are still its test vectors, each row checked for the seed's ETA and "× 1.2"
// column and for the new hint.
// Beyond the seed, Adaptive replaces nominal times and drain rates with observed ones while they
// are trusted (enough samples in a recent window, the newest no older than a staleness horizon;
// Adaptations says which value is in force and why), and deny.go implements ADR 0010's
// deny-streak backoff for inbound limits.
//
// Everything here is pure except DenyTracker: no I/O, no clock (callers pass the job's elapsed
// time and "now"), no global state, no randomness that is not injected, and no imports outside the
// standard library but relayer/domain, whose Kind and Status it uses as they are. Arithmetic is done in integer milliseconds with exact
// rational steps (128-bit intermediates), so an exact value such as 3000 ms becomes 3 s and never
// 4 s. Config values are resolved to 1 ms, rates to 0.001 per second and the margin to 1e-6.
//
// The package must never read the event log, a projection or a clock itself: the caller gathers
// the job's position p, the TX queue length Q and the elapsed time E from the queues and timers
// projections and hands them over in an Input.
package retryafter
