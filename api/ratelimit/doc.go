// Package ratelimit owns the relayer's inbound rate limits (DESIGN section 9, ADR 0010): per
// client, per route class, a concurrency limit and a rolling-window limit, the 429 rate_limited
// answer to a request over them, and the headers that let clients pace themselves.
//
// A client is the issued API key its X-API-Key names (the Client the caller found and put in
// the request's context, ContextWithClient, or the one WithAPIKeys' registry names; held here only
// as a salted hash of its name, never logged or echoed) or, otherwise, its address: the
// connection's peer, or, when the peer is one of the trusted_proxies, the rightmost
// X-Forwarded-For hop that is not itself a trusted proxy (a client can write the header, but not
// the hops a trusted proxy appends). A key the registry does not know names no client: anyone can
// invent a header. Requests fall into two classes, each with its own limits and counters: writes
// (POST: submissions) and reads (GET: status polls, expected to be frequent). An issued key may
// have limits of its own (ClientLimits: a partner's larger write quota, say) that replace the
// server's for that client only; what it does not name, the window lengths and the retry policy
// stay the server's.
//
// The rolling limit is an exact sliding log (the start times of the client's newest requests,
// at most the limit of them), so a denied client is told exactly when the oldest request leaves
// the window. When a concurrency slot frees is not known, so that hint comes from the client's
// deny streak by ADR 0010's formula (retryafter.RetryAfterMs: capped exponential backoff with
// real random jitter that never passes the cap; retryafter.DenyTracker: streak per key, decayed
// on allow). When both limits deny, the larger hint wins. A denied request gets status 429,
// Retry-After (whole seconds, at least 1, ⌈retryAfterMs/1000⌉), the API's envelope with a
// top-level retryAfterMs, and RateLimit-Policy / RateLimit headers in the syntax of
// draft-ietf-httpapi-ratelimit-headers; allowed requests get the two RateLimit headers too.
//
// Memory is bounded: idle clients (nothing in flight, no request within the longest window) are
// dropped as the limiter goes (Sweep for quiet spells); at most max_keys clients are tracked, the
// least recently seen evicted first (which forgets its window: it fails open for that client); a
// log holds at most the client's rolling limit of 8-byte timestamps and shrinks as requests
// leave the window (under 4n+16 for n requests in it); a client holds at most its concurrency
// limit of slots; deny streaks live in a retryafter.DenyTracker bounded by max_keys. So memory
// is about max_keys × a few hundred bytes plus 32 bytes per request admitted in the last window.
// Configuration changes at runtime (SetConfig, SetParam) keep every counter. Nothing here is
// durable: counters and streaks reset on restart.
//
// The package imports only the standard library and relayer/domain/retryafter; Acquire is the
// core without HTTP, with the time passed in, and the clock and randomness are injectable.
package ratelimit
