package delivery

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"relayer/domain/webhook"
)

// ErrRefusedAddress reports a connection refused because its address is not public (see
// webhook.AddressAllowed) and webhooks.allow_private is off.
var ErrRefusedAddress = errors.New("refused a non-public address (webhooks.allow_private is off)")

// maxAnswerBytes is how much of an answer's body is read (to reuse the connection); the rest is
// dropped with the connection.
const maxAnswerBytes = 64 << 10

// guardAddress is the dialer's Control: it refuses every address webhook.AddressAllowed does not
// allow, as the connection is made, so that a host that resolves elsewhere after registration
// gets no further than the dial.
func guardAddress(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %q is not an address", ErrRefusedAddress, address)
	}
	if !webhook.AddressAllowed(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrRefusedAddress, ap.Addr().Unmap())
	}
	return nil
}

// newClient is the deliveries' HTTP client: timeout bounds an attempt whole (connection, TLS,
// request, answer), no proxy from the environment, no redirect followed (a redirect is a failed
// delivery), and unless allowPrivate every connection's address checked.
func newClient(timeout time.Duration, allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		dialer.Control = guardAddress
	}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			DialContext:           dialer.DialContext,
			TLSHandshakeTimeout:   timeout,
			ResponseHeaderTimeout: timeout,
			MaxIdleConnsPerHost:   2,
			IdleConnTimeout:       90 * time.Second,
			ForceAttemptHTTP2:     true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
