package ratelimit

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
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
// concurrency slot until next returns, panics included. A denied one gets 429 rate_limited (or
// whatever WithOnDeny writes) and never reaches next.
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
	release, d := l.Acquire(l.ClientKey(r), class, l.now())
	defer release()
	d.SetHeaders(w.Header())
	if !d.Allowed {
		if l.onDeny != nil {
			l.onDeny(w, r, d)
			return
		}
		WriteDenied(w, l.requestID(r), d)
		return
	}
	next.ServeHTTP(w, r)
}

// ClientKey is the key a request is limited by: "key:" and a hex salted SHA-256 of the client
// its X-API-Key names in the registry of issued keys (WithAPIKeys), else "ip:" and the client's
// address (r.RemoteAddr's host, or with trust_forwarded_for the first X-Forwarded-For hop when it
// parses). A key the registry does not know, or any key without a registry, names no client.
// IPv6 clients are keyed by their /64, the block one host commonly holds. The salt is random per
// Limiter, so the key is safe to log and says nothing outside this process.
func (l *Limiter) ClientKey(r *http.Request) string {
	if k := r.Header.Get(APIKeyHeader); k != "" && l.apiKeys != nil {
		if client, ok := l.apiKeys(k); ok {
			h := sha256.New()
			h.Write(l.salt[:])
			h.Write([]byte(client))
			var sum [sha256.Size]byte
			return "key:" + hex.EncodeToString(h.Sum(sum[:0])[:16])
		}
	}
	return l.AddressKey(r)
}

// AddressKey is the key of the request's address alone, as ClientKey has it without an issued
// API key: for counting anything per address (refused credentials, open streams) the way the
// limits do.
func (l *Limiter) AddressKey(r *http.Request) string {
	if l.snap.Load().cfg.TrustForwardedFor {
		if a, ok := forwardedFor(r.Header); ok {
			return ipKey(a)
		}
	}
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		return ipKey(ap.Addr())
	}
	host := r.RemoteAddr
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		host = h
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return ipKey(a)
	}
	return "addr:" + host
}

// forwardedFor parses the first hop of the first X-Forwarded-For field: an address, possibly
// with a port or in brackets.
func forwardedFor(h http.Header) (netip.Addr, bool) {
	v := h.Get("X-Forwarded-For")
	if v == "" {
		return netip.Addr{}, false
	}
	first, _, _ := strings.Cut(v, ",")
	first = strings.TrimSpace(first)
	if a, err := netip.ParseAddr(first); err == nil {
		return a, true
	}
	if ap, err := netip.ParseAddrPort(first); err == nil {
		return ap.Addr(), true
	}
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(first, "["), "]")); err == nil {
		return a, true
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

func requestIDFromContext(r *http.Request) string {
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
