package upstream

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
)

// Class is what a call's outcome means for retrying it.
type Class uint8

const (
	// OK: the upstream answered and there is nothing to retry. For HTTP that is any status below
	// 400; a JSON-RPC error that is not a limit, inside such a response, is the caller's business.
	OK Class = iota
	// RateLimited: the upstream refused because of the client's rate or quota (HTTP 429, JSON-RPC
	// -32005 and the providers' rate-limit errors). Retryable, after the server's wait if it gave
	// one; reported with the RateLimit* events.
	RateLimited
	// ServerError: a transient failure on the server's side (408, 500, 502, 503, 504 and the other
	// 5xx listed at Classify). Retryable, after the server's wait if it gave one.
	ServerError
	// TransportError: the exchange itself failed (connection refused or reset, timeouts, EOF).
	// Retryable.
	TransportError
	// Permanent: retrying cannot help (501, other 4xx, JSON-RPC errors that are not limits,
	// malformed URLs, certificate errors, errors not known to be transient).
	Permanent
	// Canceled: the caller's context was canceled or its deadline passed. Not retryable.
	Canceled
)

var classNames = [...]string{OK: "ok", RateLimited: "rate_limited", ServerError: "server_error",
	TransportError: "transport_error", Permanent: "permanent", Canceled: "canceled"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// Retryable reports whether a call that ended in this class may be tried again.
func (c Class) Retryable() bool {
	return c == RateLimited || c == ServerError || c == TransportError
}

// MarshalText makes a Class read as its name in JSON and logs.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// RPCError is a JSON-RPC 2.0 error object.
type RPCError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("json-rpc error %d: %s", e.Code, e.Message) }

// JSON-RPC codes that mean a rate limit.
const (
	// CodeLimitExceeded is EIP-1474's "limit exceeded": "request exceeds defined limit".
	CodeLimitExceeded = -32005
	// codeHTTPTooManyRequests: some providers (Alchemy among them) put 429 in the JSON-RPC code.
	codeHTTPTooManyRequests = 429
)

// rateLimitPhrases are matched, lowercased, inside a JSON-RPC error message. They are the words
// providers use for a rate or quota limit, whatever code they attach.
var rateLimitPhrases = []string{
	"rate limit", "ratelimit", "rate-limit", "rate exceeded", "too many requests",
	"request limit", "requests limit", "limit exceeded", "limit reached", "exceeded its compute units",
	"capacity exceeded", "quota exceeded", "exceeded quota",
}

// sizeLimitPhrases mark a "limit" that is about one request being too big (eth_getLogs ranges,
// result sizes, gas) rather than about the rate: retrying the same request cannot succeed, the
// caller must ask for less. They win over rateLimitPhrases and over code -32005 (Infura, for one,
// answers "query returned more than 10000 results" with -32005).
var sizeLimitPhrases = []string{
	"returned more than", "more than 10000", "block range", "range limit", "range is too",
	"range too", "response size", "result size", "too many results", "response is too big",
	"gas limit", "out of gas", "intrinsic gas", "gas required", "too large", "batch size",
	"batch limit",
}

// IsRateLimit reports whether a JSON-RPC error is a rate or quota limit: code -32005 (EIP-1474
// "limit exceeded") or 429, or a message with one of the common rate-limit phrases ("rate limit",
// "too many requests", "limit exceeded", "request limit reached", "exceeded its compute units",
// ...). A limit on the size of the request or its answer ("query returned more than 10000
// results", "block range", "gas limit", "batch size", "too large") is not a rate limit, whatever
// its code.
func (e *RPCError) IsRateLimit() bool {
	if e == nil {
		return false
	}
	msg := strings.ToLower(e.Message)
	for _, p := range sizeLimitPhrases {
		if strings.Contains(msg, p) {
			return false
		}
	}
	if e.Code == CodeLimitExceeded || e.Code == codeHTTPTooManyRequests {
		return true
	}
	for _, p := range rateLimitPhrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// Classify says what one attempt's outcome means: its HTTP status (0 if there was no response),
// the JSON-RPC error in the response body (nil if none) and the transport error (nil if none).
//
// The transport error decides first: the context's cancellation or deadline is Canceled (the
// caller's deadline is spent, so a retry could not complete either); connection refused, reset
// or aborted, broken pipe, unreachable hosts, timeouts, EOF and closed connections are
// TransportError; bad certificates, a TLS handshake with a non-TLS server, a host that does not
// exist and every error not known to be transient are Permanent (the job-level Schedule is the
// safety net for those, not a tight retry loop).
//
// Then the response: 429 and a JSON-RPC rate-limit error (RPCError.IsRateLimit, also when it
// comes with a 4xx or 5xx status) are RateLimited; 408, 500, 502, 503, 504 and every other 5xx
// except 501, 505, 506, 508, 510 and 511 (which describe a request the server will never serve)
// are ServerError — the others include the 52x of CDNs in front of RPC providers; 501 and every
// other status from 400 up are Permanent; a JSON-RPC error that is not a limit is Permanent; the
// rest is OK. A 503 is a ServerError even with a Retry-After: the wait is honoured all the same,
// but only rate limits produce the RateLimit* events.
func Classify(statusCode int, rpcErr *RPCError, err error) Class {
	if err != nil {
		return classifyError(err)
	}
	if statusCode == http.StatusTooManyRequests || rpcErr.IsRateLimit() {
		return RateLimited
	}
	switch {
	case statusCode == http.StatusRequestTimeout:
		return ServerError
	case statusCode >= 500 && statusCode <= 599:
		switch statusCode {
		case http.StatusNotImplemented, http.StatusHTTPVersionNotSupported,
			http.StatusVariantAlsoNegotiates, http.StatusLoopDetected, http.StatusNotExtended,
			http.StatusNetworkAuthenticationRequired:
			return Permanent
		}
		return ServerError
	case statusCode >= 400:
		return Permanent
	}
	if rpcErr != nil {
		return Permanent
	}
	return OK
}

func classifyError(err error) Class {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Canceled
	}
	// Permanent before transient: a certificate error is also a net.Error.
	var (
		unknownAuthority x509.UnknownAuthorityError
		hostname         x509.HostnameError
		invalid          x509.CertificateInvalidError
		verification     *tls.CertificateVerificationError
		recordHeader     tls.RecordHeaderError
		dnsErr           *net.DNSError
		addrErr          *net.AddrError
	)
	switch {
	case errors.As(err, &unknownAuthority), errors.As(err, &hostname), errors.As(err, &invalid),
		errors.As(err, &verification), errors.As(err, &recordHeader), errors.As(err, &addrErr):
		return Permanent
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return Permanent
		}
		return TransportError
	}
	for _, target := range []error{
		io.EOF, io.ErrUnexpectedEOF, net.ErrClosed, syscall.ECONNREFUSED, syscall.ECONNRESET,
		syscall.ECONNABORTED, syscall.EPIPE, syscall.ETIMEDOUT, syscall.EHOSTUNREACH,
		syscall.ENETUNREACH, syscall.ENETDOWN, syscall.EHOSTDOWN,
	} {
		if errors.Is(err, target) {
			return TransportError
		}
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return TransportError
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && (opErr.Op == "dial" || opErr.Op == "read" || opErr.Op == "write") {
		return TransportError
	}
	// net/http reports some transient failures only as text (its error values are unexported).
	msg := strings.ToLower(err.Error())
	for _, p := range []string{
		"server closed idle connection", "connection reset", "broken pipe",
		"transport connection broken", "connection refused", "use of closed network connection",
		"http2: server sent goaway", "stream error", "unexpected eof",
	} {
		if strings.Contains(msg, p) {
			return TransportError
		}
	}
	return Permanent
}
