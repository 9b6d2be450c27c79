package ratelimit

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// APIKeyHeader is the header that names a client. Its value is never logged, echoed or stored:
// the limiter keys the client by a salted hash of it.
const APIKeyHeader = "X-API-Key"

// Middleware limits every request by the class of its method (ClassOf) and the client
// (ClientKey). An allowed request gets RateLimit-Policy and RateLimit headers and holds its
// concurrency slot until next returns, panics included, or gives it back earlier (ReleaseSlot).
// A denied one gets 429 rate_limited (or whatever WithOnDeny writes) and never reaches next.
func (l *Limiter) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.serve(ClassOf(r.Method), next, w, r)
	})
}

// Wrap is Middleware with a fixed class, for routes whose class is not their method's.
func (l *Limiter) Wrap(class Class, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.serve(class, next, w, r)
	})
}

func (l *Limiter) serve(class Class, next http.Handler, w http.ResponseWriter, r *http.Request) {
	if l.unlimited(class, r) {
		// Nothing to count and no header to set: the client need not be known.
		next.ServeHTTP(w, r)
		return
	}
	key, c := l.identify(r)
	release, d := l.acquireFor(key, c, class, l.now(), r)
	defer release()
	d.SetHeaders(w.Header())
	if !d.Allowed {
		if l.onDeny != nil {
			l.onDeny(w, r, d)
			return
		}
		WriteDenied(w, l.requestID(w, r), d)
		return
	}
	next.ServeHTTP(w, r)
}

// unlimited reports whether a request of class is allowed without identifying its client: both
// of the class's limits are off in the configuration in force, and the request has no X-API-Key,
// so no client's own limits can apply (acquireFor would allow it with no headers and no slot).
func (l *Limiter) unlimited(class Class, r *http.Request) bool {
	if class >= numClasses {
		class = ClassWrite
	}
	cs := &l.snap.Load().classes[class]
	return cs.RollingLimit == 0 && cs.ConcurrencyLimit == 0 && APIKey(r) == ""
}

// apiKeyHeaderKey is APIKeyHeader in canonical form, the header map's key: a lookup with it
// skips the canonicalization (which allocates for this name) that Header.Get would do.
var apiKeyHeaderKey = http.CanonicalHeaderKey(APIKeyHeader)

// APIKey is r's X-API-Key (its first value, "" without one), as r.Header.Get(APIKeyHeader)
// reads it but without the allocation.
func APIKey(r *http.Request) string {
	if vs := r.Header[apiKeyHeaderKey]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// ReleaseSlot gives back now the concurrency slot held for r, a request Middleware (or Wrap) let
// through, rather than when its handler returns, and reports whether r held one. r must be the
// request as the limiter passed it on (the handler's own, not a copy made on the way). A handler
// about to wait without working (a long poll, until something changes) calls it, so that its
// waiting takes none of its client's slots; the request stays counted in the rolling window.
// The release when the handler returns then does nothing.
func (l *Limiter) ReleaseSlot(r *http.Request) bool {
	key, _ := l.identify(r)
	sh := &l.shards[maphash.String(l.seed, key)%numShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e, ok := sh.m[key]
	if !ok {
		return false
	}
	for i := range e.cls {
		if e.cls[i].releaseOwned(r) {
			return true
		}
	}
	return false
}

// ClientKey is the key a request is limited by: "key:" and a hex salted SHA-256 of the name of
// the client its X-API-Key names (the client the caller put in the request's context with
// ContextWithClient, else the one the registry of WithAPIKeys names), else "ip:" and the client's
// address (AddressKey). A key no registry knows, or any key without a registry, names no client.
// The salt is random per Limiter, so the key is safe to log and says nothing outside this
// process.
func (l *Limiter) ClientKey(r *http.Request) string {
	key, _ := l.identify(r)
	return key
}

// identify returns the key a request is limited by and, when the caller found its client
// (ContextWithClient), that client. A request without X-API-Key costs no context lookup.
func (l *Limiter) identify(r *http.Request) (string, *Client) {
	if k := APIKey(r); k != "" {
		if c, _ := r.Context().Value(clientContextKey{}).(*Client); c != nil {
			return c.resolve(l, l.snap.Load()).key, c
		}
		if l.apiKeys != nil {
			if name, ok := l.apiKeys(k); ok {
				return l.nameKey(name), nil
			}
		}
	}
	return l.AddressKey(r), nil
}

// AddressKey is the key of the request's address alone, as ClientKey has it without an issued
// API key: for counting anything per address (refused credentials, open streams) the way the
// limits do. The address is the connection's peer (r.RemoteAddr's host); when the peer is one of
// the trusted proxies (Config.TrustedProxies), the client X-Forwarded-For names instead (see
// forwardedClient). IPv6 clients are keyed by their /64, the block one host commonly holds.
func (l *Limiter) AddressKey(r *http.Request) string {
	peer, ok := remoteAddr(r.RemoteAddr)
	if !ok {
		host := r.RemoteAddr
		if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
			host = h
		}
		return "addr:" + host
	}
	if proxies := l.snap.Load().proxies; len(proxies) > 0 && trusted(proxies, peer) {
		if a, ok := forwardedClient(r.Header.Values("X-Forwarded-For"), proxies); ok {
			return ipKey(a)
		}
	}
	return ipKey(peer)
}

// remoteAddr parses a connection's remote address: host and port, or a bare address.
func remoteAddr(s string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr(), true
	}
	host := s
	if h, _, err := net.SplitHostPort(s); err == nil {
		host = h
	}
	a, err := netip.ParseAddr(host)
	return a, err == nil
}

// trusted reports whether a is one of the proxies (IPv4-mapped addresses as their IPv4, zones
// ignored).
func trusted(proxies []netip.Prefix, a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	for _, p := range proxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// forwardedClient reads the X-Forwarded-For chain (every field, in order, each a comma-separated
// list of hops) of a request that came from a trusted proxy, and returns its client: the
// rightmost hop that is not itself a trusted proxy. Each proxy appends the address it got the
// request from, so walking from the right past the trusted proxies reaches the address the
// outermost trusted proxy saw; hops to its left were written by the client (or by proxies nobody
// vouches for) and could be anything, so they are never believed. When every hop is a trusted
// proxy, the leftmost is the client. A hop that does not parse (an obfuscated or "unknown" one,
// garbage) ends the walk with false, and the request is keyed by its peer, the trusted proxy:
// nothing beyond that hop can be believed, and choosing a hop to its right would key by a proxy
// anyway. No hop at all is false too.
func forwardedClient(fields []string, proxies []netip.Prefix) (netip.Addr, bool) {
	var leftmost netip.Addr
	found := false
	for i := len(fields) - 1; i >= 0; i-- {
		f := fields[i]
		if strings.TrimSpace(f) == "" {
			continue // an empty field has no hops
		}
		for {
			j := strings.LastIndexByte(f, ',')
			a, ok := parseHop(f[j+1:])
			if !ok {
				return netip.Addr{}, false
			}
			if !trusted(proxies, a) {
				return a, true
			}
			leftmost, found = a, true
			if j < 0 {
				break
			}
			f = f[:j]
		}
	}
	return leftmost, found
}

// parseHop parses one X-Forwarded-For hop: an address, possibly with a port or in brackets.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil {
		return a, true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr(), true
	}
	if len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']' {
		if a, err := netip.ParseAddr(s[1 : len(s)-1]); err == nil {
			return a, true
		}
	}
	return netip.Addr{}, false
}

func ipKey(a netip.Addr) string {
	a = a.Unmap().WithZone("")
	if a.Is6() {
		p, _ := a.Prefix(64)
		return "ip:" + p.String()
	}
	return "ip:" + a.String()
}

type requestIDKey struct{}

// RequestIDKey is the context key under which the default denied response looks for the
// request's id (a string): context.WithValue(ctx, ratelimit.RequestIDKey, id).
var RequestIDKey any = requestIDKey{}

func requestIDFromContext(_ http.ResponseWriter, r *http.Request) string {
	if id, ok := r.Context().Value(RequestIDKey).(string); ok && id != "" {
		return id
	}
	return NewRequestID()
}

// NewRequestID returns a random (version 4) UUID.
func NewRequestID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (Go >= 1.24)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}

// Label is the error label of a denied request.
const Label = "rate_limited"

// DeniedBody is the JSON body of a denied request, the API's envelope (DESIGN section 7):
// {"status":"failed","requestId":...,"error":{"label":"rate_limited","message":...},
// "retryAfterMs":N}. retryAfterMs is top level, next to status, like result would be; the error
// carries no details (the RateLimit header names the limits).
type DeniedBody struct {
	Status       string      `json:"status"`
	RequestID    string      `json:"requestId"`
	Error        DeniedError `json:"error"`
	RetryAfterMs int         `json:"retryAfterMs"`
}

// DeniedError is the error object of DeniedBody.
type DeniedError struct {
	Label   string `json:"label"`
	Message string `json:"message"`
}

// Body returns the envelope of a denied request.
func (d Decision) Body(requestID string) DeniedBody {
	return DeniedBody{
		Status:       "failed",
		RequestID:    requestID,
		Error:        DeniedError{Label: Label, Message: d.Message()},
		RetryAfterMs: d.RetryAfterMs,
	}
}

// Message is the human-readable reason of a denied request. It names the limits, never the client.
func (d Decision) Message() string {
	var why []string
	if d.Rolling.Denied {
		why = append(why, fmt.Sprintf("at most %d %s requests per %d s", d.Rolling.Limit, d.Class, d.Rolling.WindowSeconds))
	}
	if d.Concurrency.Denied {
		why = append(why, fmt.Sprintf("at most %d %s requests in flight at once", d.Concurrency.Limit, d.Class))
	}
	if len(why) == 0 {
		return "too many requests"
	}
	return "too many requests: a client may make " + strings.Join(why, " and ") +
		"; retry after " + strconv.Itoa(d.RetryAfterMs) + " ms"
}

// WriteDenied writes the standard denied response: headers (as SetHeaders, plus Content-Type and
// Cache-Control: no-store), status 429 and the JSON envelope.
func WriteDenied(w http.ResponseWriter, requestID string, d Decision) {
	h := w.Header()
	d.SetHeaders(h)
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusTooManyRequests)
	_ = json.NewEncoder(w).Encode(d.Body(requestID))
}
