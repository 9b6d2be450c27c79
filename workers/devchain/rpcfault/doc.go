// Package rpcfault is an HTTP reverse proxy on loopback that fronts a node's JSON-RPC and fails
// some of its calls the way RPC providers do: it rate-limits them (429, with each of the ways a
// provider says how long to wait), answers 502, 503 or 504 without asking the node, hangs up
// before forwarding, hangs up after the node has executed the call (the answer is lost), or
// holds the answer back. Tests put it between the relayer and the development chain to check
// that the relayer retries what it may, waits as long as it is told, and never sends a job twice.
//
// Its sibling faultproxy fails whole connections (refused, black-holed) and never reads a byte;
// rpcfault works one HTTP request at a time and reads each request's body (to see which methods
// it calls), so it speaks HTTP/1.1 only.
//
// # Which calls fail
//
// Each HTTP request gets a fault with probability Config.Rate, drawn from a math/rand/v2 source
// seeded with Config.Seed; the fault is drawn uniformly from Config.Faults (every fault when
// empty). A JSON-RPC batch is one HTTP request: a fault applies to all its calls. With
// Config.Methods, only requests that call one of those methods can get a fault. Requests take
// their draws in the order the proxy reads them, so a test that sends its requests one at a time
// gets the same faults on every run. SetConfig changes all of it while the proxy runs.
//
// # Waits
//
// Every rate limit and the 503 with Retry-After ask for Config.Wait (1s by default), rounded up
// to whole seconds, which is all delay-seconds and HTTP-dates can say. A date (and an
// X-RateLimit-Reset) is the first whole second at least that wait after the proxy answered, so a
// client never reads a wait that is already over, nor one shorter than Wait counted from when it
// sent the request; it may read up to a second more.
//
// # WebSockets
//
// Upgrade requests (a WebSocket, on the same port as HTTP or on a proxy of their own) are
// forwarded without faults, and once upgraded their frames pass through unread. The one fault a
// WebSocket can get is its end: with Config.WebSocketLifetime the proxy closes each WebSocket
// after a random lifetime, without a close frame, as a provider that drops its connections.
//
// # What it never does
//
// It listens on 127.0.0.1 and nowhere else; it is for tests only. It never logs, and never
// copies a request body, header or URL into an answer (a JSON-RPC error it makes up carries the
// ids of the calls it answers and nothing else of the request). A request it does not fault is
// forwarded as it came, and its answer is passed back as the node gave it.
package rpcfault
