package upstream

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
)

func TestHTTPStatusesAreClassified(t *testing.T) {
	cases := []struct {
		status int
		want   Class
	}{
		{200, OK}, {204, OK}, {301, OK}, {304, OK},
		{429, RateLimited},
		{408, ServerError}, {500, ServerError}, {502, ServerError}, {503, ServerError}, {504, ServerError},
		{507, ServerError}, {520, ServerError}, {522, ServerError}, {524, ServerError}, {599, ServerError},
		{501, Permanent}, {505, Permanent}, {506, Permanent}, {508, Permanent}, {510, Permanent}, {511, Permanent},
		{400, Permanent}, {401, Permanent}, {403, Permanent}, {404, Permanent}, {405, Permanent},
		{409, Permanent}, {413, Permanent}, {418, Permanent}, {425, Permanent}, {451, Permanent},
	}
	for _, c := range cases {
		if got := Classify(c.status, nil, nil); got != c.want {
			t.Errorf("Classify(%d) = %v, want %v", c.status, got, c.want)
		}
	}
}

func TestOnlyRateLimitsServerErrorsAndTransportErrorsAreRetryable(t *testing.T) {
	for c, want := range map[Class]bool{OK: false, RateLimited: true, ServerError: true,
		TransportError: true, Permanent: false, Canceled: false} {
		if c.Retryable() != want {
			t.Errorf("%v.Retryable() = %v", c, !want)
		}
	}
}

func TestJSONRPCRateLimitErrorsAreRecognisedByCodeAndByMessage(t *testing.T) {
	cases := []struct {
		err  RPCError
		want bool
	}{
		{RPCError{Code: -32005, Message: "limit exceeded"}, true},
		{RPCError{Code: -32005, Message: "daily request count exceeded, request rate limited"}, true},
		{RPCError{Code: -32005, Message: "project ID request rate exceeded"}, true},
		{RPCError{Code: 429, Message: "Your app has exceeded its compute units per second capacity."}, true},
		{RPCError{Code: -32007, Message: "100/second request limit reached - reduce calls per second"}, true},
		{RPCError{Code: -32000, Message: "Too Many Requests"}, true},
		{RPCError{Code: -32603, Message: "rate limit exceeded, retry in 1s"}, true},
		{RPCError{Code: -32016, Message: "over rate limit"}, true},
		{RPCError{Code: -32000, Message: "ratelimited"}, true},
		// Size limits are not rate limits, whatever their code.
		{RPCError{Code: -32005, Message: "query returned more than 10000 results"}, false},
		{RPCError{Code: -32005, Message: "block range limit exceeded"}, false},
		{RPCError{Code: -32000, Message: "exceed maximum block range: 5000"}, false},
		{RPCError{Code: -32000, Message: "response size limit exceeded"}, false},
		{RPCError{Code: -32000, Message: "gas limit exceeded"}, false},
		{RPCError{Code: -32000, Message: "batch limit exceeded"}, false},
		// Ordinary JSON-RPC errors.
		{RPCError{Code: 3, Message: "execution reverted"}, false},
		{RPCError{Code: -32000, Message: "nonce too low"}, false},
		{RPCError{Code: -32000, Message: "already known"}, false},
		{RPCError{Code: -32601, Message: "the method eth_foo does not exist/is not available"}, false},
		{RPCError{Code: -32602, Message: "invalid argument 0"}, false},
	}
	for _, c := range cases {
		e := c.err
		if got := e.IsRateLimit(); got != c.want {
			t.Errorf("IsRateLimit(%d %q) = %v, want %v", e.Code, e.Message, got, c.want)
		}
		want := Permanent
		if c.want {
			want = RateLimited
		}
		if got := Classify(200, &e, nil); got != want {
			t.Errorf("Classify(200, %d %q) = %v, want %v", e.Code, e.Message, got, want)
		}
	}
	var none *RPCError
	if none.IsRateLimit() {
		t.Error("a nil RPCError is not a rate limit")
	}
}

func TestAJSONRPCRateLimitWinsOverA4xxStatus(t *testing.T) {
	if got := Classify(400, &RPCError{Code: -32005, Message: "limit exceeded"}, nil); got != RateLimited {
		t.Fatalf("got %v", got)
	}
	if got := Classify(400, &RPCError{Code: -32602, Message: "invalid params"}, nil); got != Permanent {
		t.Fatalf("got %v", got)
	}
	if got := Classify(503, &RPCError{Code: 3, Message: "execution reverted"}, nil); got != ServerError {
		t.Fatalf("got %v", got)
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestTransportErrorsAreClassified(t *testing.T) {
	wrap := func(err error) error { return &url.Error{Op: "Post", URL: "http://node", Err: err} }
	dial := func(err error) error {
		return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", err)}
	}
	cases := []struct {
		name string
		err  error
		want Class
	}{
		{"connection refused", wrap(dial(syscall.ECONNREFUSED)), TransportError},
		{"connection reset", wrap(&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}), TransportError},
		{"broken pipe", wrap(&net.OpError{Op: "write", Net: "tcp", Err: syscall.EPIPE}), TransportError},
		{"host unreachable", wrap(dial(syscall.EHOSTUNREACH)), TransportError},
		{"a network timeout", wrap(timeoutErr{}), TransportError},
		{"os deadline exceeded", wrap(os.ErrDeadlineExceeded), TransportError},
		{"EOF", wrap(io.EOF), TransportError},
		{"unexpected EOF", wrap(io.ErrUnexpectedEOF), TransportError},
		{"closed connection", wrap(net.ErrClosed), TransportError},
		{"an idle connection the server closed", errors.New("http: server closed idle connection"), TransportError},
		{"a temporary DNS failure", wrap(&net.DNSError{Err: "server misbehaving", Name: "node", IsTemporary: true}), TransportError},
		{"a host that does not exist", wrap(&net.DNSError{Err: "no such host", Name: "node", IsNotFound: true}), Permanent},
		{"an unknown certificate authority", wrap(x509.UnknownAuthorityError{}), Permanent},
		{"a certificate for another host", wrap(x509.HostnameError{Host: "node"}), Permanent},
		{"an unsupported scheme", errors.New(`unsupported protocol scheme "ftp"`), Permanent},
		{"an unknown error", errors.New("something else"), Permanent},
		{"the caller's cancellation", wrap(context.Canceled), Canceled},
		{"the caller's deadline", wrap(context.DeadlineExceeded), Canceled},
		{"a cancellation wrapped twice", fmt.Errorf("call: %w", wrap(context.Canceled)), Canceled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Classify(0, nil, c.err); got != c.want {
				t.Errorf("Classify(%v) = %v, want %v", c.err, got, c.want)
			}
		})
	}
}

func TestClassesReadAsTheirNames(t *testing.T) {
	if RateLimited.String() != "rate_limited" || TransportError.String() != "transport_error" {
		t.Fatal(RateLimited.String(), TransportError.String())
	}
	if b, _ := Canceled.MarshalText(); string(b) != "canceled" {
		t.Fatal(string(b))
	}
	if Class(99).String() != "class(99)" {
		t.Fatal(Class(99).String())
	}
}
