package webhook

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// notPublic are the special-purpose ranges, besides those netip classifies, that a request to the
// open internet never needs and a forged one may reach: this network (0/8), shared address space
// (carrier-grade NAT), IETF protocol assignments, the documentation ranges (TEST-NET-1 to 3,
// 2001:db8::/32), benchmarking, the 6to4 relay anycast, reserved (and the broadcast address);
// IPv4-compatible IPv6 (::a.b.c.d, deprecated), IPv4-translated IPv6 (::ffff:0:a.b.c.d, SIIT),
// NAT64, Teredo and 6to4 (each can embed any IPv4
// address, private ones included), IPv6 discard-only, ORCHID and the deprecated site-local
// ranges.
var notPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("192.88.99.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("::/96"),
	netip.MustParsePrefix("::ffff:0:0:0/96"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001::/23"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"),
	netip.MustParsePrefix("fec0::/10"),
}

// AddressAllowed tells whether an endpoint may be reached at a: not loopback, private, link-local
// (cloud metadata services live there), multicast, unspecified or another special-purpose range.
// This is the server-side request forgery guard: an endpoint is a URL an operator gives, and a
// request from the relayer must not reach what only the relayer's network can. The
// webhooks.allow_private setting lifts it (a receiver on the same host or network).
func AddressAllowed(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range notPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// MaxURLBytes bounds an endpoint's URL.
const MaxURLBytes = 2048

// ParseURL checks an endpoint's URL: absolute http or https, with a host, without credentials
// (user:password@: the URL is recorded in the log as given, and a receiver authenticates a
// delivery by its signature), without a fragment, at most MaxURLBytes. It does not resolve the
// host (see AddressAllowed). The problem it returns never repeats the URL.
func ParseURL(raw string) (*url.URL, error) {
	if len(raw) > MaxURLBytes {
		return nil, fmt.Errorf("must be at most %d bytes, got %d", MaxURLBytes, len(raw))
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, fmt.Errorf("is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("must be an http or https URL")
	case u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("must name a host")
	case u.User != nil:
		return nil, fmt.Errorf("must not carry credentials (user:password@): the URL is recorded in the log as given; a receiver authenticates deliveries by their signature")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return nil, fmt.Errorf("must not have a fragment (#...)")
	}
	return u, nil
}
