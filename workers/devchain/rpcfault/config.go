package rpcfault

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// Fault is what the proxy does to one HTTP request instead of forwarding it unchanged. It is
// closed: the values below are the only faults.
type Fault struct{ f uint8 }

var (
	// RetryAfterSeconds answers 429 with Retry-After as delay-seconds ("1").
	RetryAfterSeconds = Fault{1}
	// RetryAfterIMFFixdate answers 429 with Retry-After as an IMF-fixdate
	// ("Sun, 06 Nov 1994 08:49:37 GMT", http.TimeFormat).
	RetryAfterIMFFixdate = Fault{2}
	// RetryAfterRFC850 answers 429 with Retry-After as an obsolete RFC 850 date
	// ("Sunday, 06-Nov-94 08:49:37 GMT").
	RetryAfterRFC850 = Fault{3}
	// RetryAfterAsctime answers 429 with Retry-After as an obsolete asctime date
	// ("Sun Nov  6 08:49:37 1994").
	RetryAfterAsctime = Fault{4}
	// XRateLimitReset answers 429 without Retry-After but with X-RateLimit-Limit: 100,
	// X-RateLimit-Remaining: 0 and X-RateLimit-Reset, the Unix second the quota comes back.
	XRateLimitReset = Fault{5}
	// RPCLimit429 answers 429 with no wait in its headers and, as its body, JSON-RPC error
	// -32005 "limit exceeded" for each call.
	RPCLimit429 = Fault{6}
	// RPCLimit200 answers 200 with JSON-RPC error -32005 "limit exceeded" for each call, as
	// providers that rate-limit inside JSON-RPC do.
	RPCLimit200 = Fault{7}
	// BadGateway answers 502.
	BadGateway = Fault{8}
	// Unavailable answers 503 without Retry-After.
	Unavailable = Fault{9}
	// UnavailableRetryAfter answers 503 with Retry-After as delay-seconds.
	UnavailableRetryAfter = Fault{10}
	// GatewayTimeout answers 504.
	GatewayTimeout = Fault{11}
	// DropBefore closes the client's connection without an answer; the node never sees the
	// request.
	DropBefore = Fault{12}
	// DropAfter forwards the request, reads the node's whole answer and closes the client's
	// connection without passing it on: the node executed the call (an eth_sendRawTransaction
	// is in its pool) and the client cannot know.
	DropAfter = Fault{13}
	// Slow forwards the request, reads the node's whole answer and passes it on after
	// Config.SlowDelay.
	Slow = Fault{14}
)

var faultNames = [...]string{"none", "retry_after_seconds", "retry_after_imf_fixdate",
	"retry_after_rfc850", "retry_after_asctime", "x_ratelimit_reset", "rpc_limit_429",
	"rpc_limit_200", "bad_gateway", "unavailable", "unavailable_retry_after", "gateway_timeout",
	"drop_before", "drop_after", "slow"}

func (f Fault) String() string {
	if int(f.f) < len(faultNames) {
		return faultNames[f.f]
	}
	return fmt.Sprintf("fault(%d)", f.f)
}

func (f Fault) valid() bool { return f.f >= 1 && int(f.f) < len(faultNames) }

// AllFaults is every fault, in the order they are declared.
func AllFaults() []Fault {
	out := make([]Fault, 0, len(faultNames)-1)
	for i := 1; i < len(faultNames); i++ {
		out = append(out, Fault{uint8(i)})
	}
	return out
}

// Config says which requests get a fault and how the faults behave. A zero field takes its
// default; the zero Config forwards everything.
type Config struct {
	// Rate is the probability, from 0 to 1, that an HTTP request gets a fault (default 0).
	Rate float64
	// Seed seeds the random source that picks the requests and their faults.
	Seed uint64
	// Faults are the faults a request can get, each equally likely: list one twice to make it
	// twice as likely. Empty: every fault (AllFaults).
	Faults []Fault
	// Methods, when not empty, are the only JSON-RPC methods whose calls can get a fault: a
	// request gets one only if it calls one of them (a batch, in any of its calls). The others
	// are forwarded and do not use up a draw.
	Methods []string
	// Wait is the wait every rate limit and UnavailableRetryAfter ask for (default 1s), rounded
	// up to whole seconds.
	Wait time.Duration
	// SlowDelay is how long Slow holds an answer back (default 2s).
	SlowDelay time.Duration
	// WebSocketLifetime, when positive, ends each WebSocket connection after a lifetime drawn
	// uniformly from [WebSocketLifetime/2, WebSocketLifetime]. Zero: WebSockets last as long as
	// their ends want.
	WebSocketLifetime time.Duration
}

func (c *Config) setDefaults() {
	if len(c.Faults) == 0 {
		c.Faults = AllFaults()
	}
	c.Wait = cmp.Or(c.Wait, time.Second)
	c.SlowDelay = cmp.Or(c.SlowDelay, 2*time.Second)
}

// Validate reports the first field that is out of range, after defaults are applied.
func (c Config) Validate() error {
	c.setDefaults()
	switch {
	case math.IsNaN(c.Rate) || c.Rate < 0 || c.Rate > 1:
		return fmt.Errorf("rpcfault: Rate %v: must be from 0 to 1", c.Rate)
	case c.Wait < 0:
		return fmt.Errorf("rpcfault: Wait %v: must not be negative", c.Wait)
	case c.SlowDelay < 0:
		return fmt.Errorf("rpcfault: SlowDelay %v: must not be negative", c.SlowDelay)
	case c.WebSocketLifetime < 0:
		return fmt.Errorf("rpcfault: WebSocketLifetime %v: must not be negative", c.WebSocketLifetime)
	}
	for _, f := range c.Faults {
		if !f.valid() {
			return fmt.Errorf("rpcfault: Faults: %v is not a fault", f)
		}
	}
	return nil
}

// withDefaults is c with its defaults, owning its slices (the caller may change its own).
func (c Config) withDefaults() Config {
	c.Faults = slices.Clone(c.Faults)
	c.Methods = slices.Clone(c.Methods)
	c.setDefaults()
	return c
}

// eligible reports whether a request with these calls can get a fault.
func (c *Config) eligible(calls []call) bool {
	if len(c.Methods) == 0 {
		return true
	}
	for _, cl := range calls {
		if slices.Contains(c.Methods, cl.Method) {
			return true
		}
	}
	return false
}

// Counts is what the proxy did since it started.
type Counts struct {
	// Requests is how many HTTP requests the proxy read, WebSocket upgrades apart.
	Requests int64
	// Passed is how many of them it forwarded without a fault.
	Passed int64
	// Faults is how many got each fault (a fault none got is absent). Passed and the Faults add
	// up to Requests.
	Faults map[Fault]int64
	// WebSockets is how many WebSocket upgrades the proxy forwarded.
	WebSockets int64
	// WebSocketDrops is how many WebSockets it ended when their lifetime was over.
	WebSocketDrops int64
}

// Faulted is how many requests got a fault, of any kind.
func (c Counts) Faulted() int64 {
	var n int64
	for _, v := range c.Faults {
		n += v
	}
	return n
}
