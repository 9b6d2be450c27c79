package gateway

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"relayer/internal/config"
	"relayer/workers/upstream"
)

// Config says which chain and contracts the adapter talks to, where its signing key comes from
// and how it sends transactions and follows logs. A zero field takes its default (setDefaults);
// Dial and New fill the defaults in and call Validate. The fields with a yaml name are
// configuration settings (serve's chain section); Validate names its problems by them, and the
// other fields by their names in snake_case.
type Config struct {
	// RPCURL is the gateway chain's JSON-RPC endpoint over HTTP(S), used by Dial: a list of one
	// provider of weight 1 (set it or Providers, not both). Providers put API keys in its
	// userinfo, path or query: the adapter never logs it and never lets it into an error (only
	// the scheme and host are named).
	RPCURL string `yaml:"rpc_url"`
	// Providers are several JSON-RPC endpoints (HTTP(S)) of the gateway chain, used by Dial
	// instead of RPCURL: reads go to a healthy one, chosen by weight; a signed transaction goes to
	// every healthy one; a failing one is paused and retried with backoff (see pool). Their URLs
	// are secrets as RPCURL is.
	Providers []Provider `yaml:"providers"`
	// MaxHeadLag is how many blocks a provider's head may be behind the best provider's before
	// its reads go elsewhere (default 5).
	MaxHeadLag uint64 `yaml:"max_head_lag"`
	// WSURL is an optional JSON-RPC endpoint over WebSocket (ws:// or wss://) for new-head
	// subscriptions; without it the listener polls every PollInterval.
	WSURL string `yaml:"ws_url"`
	// HostRPCURL is the JSON-RPC endpoint (HTTP(S)) of the host chain where the ACL contract
	// lives; empty means RPCURL (the development chain is both).
	HostRPCURL string `yaml:"host_rpc_url"`

	// ChainID is the gateway chain's id; Dial and New refuse a node that reports another one.
	ChainID uint64 `yaml:"chain_id"`
	// Contracts are the gateway and host ACL contract addresses.
	Contracts Contracts `yaml:"contracts"`
	// Signer says where the signing key comes from. Empty: no signer (views and the listener
	// work, Prepare answers ErrNoSigner) unless WithSigner gives one.
	Signer SignerConfig

	// GasMarginPercent is added to the gas estimate of a request (default 20: limit = estimate *
	// 1.2), because a transaction's gas use can grow between estimate and inclusion. 0 means
	// the default.
	GasMarginPercent int
	// MaxGasLimit refuses a request whose gas limit (with the margin) exceeds it (default 10M).
	MaxGasLimit uint64
	// MaxFeePerGas caps a transaction's max fee per gas, in wei (default 500 gwei). A base fee
	// above it makes Prepare fail with ErrFeeCapExceeded instead of signing a transaction that
	// would wait in the pool.
	MaxFeePerGas uint64 `yaml:"max_fee_per_gas"`
	// MaxPriorityFeePerGas caps the tip per gas, in wei (default 10 gwei).
	MaxPriorityFeePerGas uint64 `yaml:"max_priority_fee_per_gas"`
	// BumpAfterBlocks: a sent transaction still not mined after this many new blocks, whose fees
	// the chain has left behind (its fee cap under the base fee, or its tip under nine tenths of
	// the node's suggestion) or that the node does not hold, is reported stalled by Broadcast
	// (ErrStalled), so that the caller replaces it with higher fees (Replacement); one in the
	// node's pool whose fees still meet the chain's waits on (default 5; -1: never, Broadcast
	// waits for the receipt until ReceiptTimeout).
	BumpAfterBlocks int `yaml:"bump_after_blocks"`
	// FeeBumpPercent is how much a replacement raises both fees, at least (default 12: a
	// go-ethereum node takes a replacement only when both are at least 10% higher; the rest covers
	// nodes that round).
	FeeBumpPercent int `yaml:"fee_bump_percent"`

	// ConfirmationDepth is how many blocks the listener stays behind the head: it delivers block
	// n once the head is at least n+ConfirmationDepth. 0 delivers the head itself; reorgs are
	// handled either way (see Listener), depth only makes them rarer.
	ConfirmationDepth uint64 `yaml:"confirmation_depth"`
	// PollInterval is how often the listener polls for new blocks without a new-head
	// subscription (with one, it polls 10 times less often, as a safety net) (default 1s). A
	// receipt is polled again when a new head is seen, and at least every 10 PollIntervals
	// without one.
	PollInterval time.Duration `yaml:"poll_interval"`
	// ReceiptPollMin is the shortest wait between receipt polls after eth_sendRawTransaction;
	// it doubles up to PollInterval (default 100ms). Between those bounds a poll waits for a new
	// head.
	ReceiptPollMin time.Duration
	// ReceiptTimeout bounds how long Broadcast waits for a receipt (default 2m); past it,
	// Broadcast answers ErrReceiptTimeout and the transaction may still be mined.
	ReceiptTimeout time.Duration `yaml:"receipt_timeout"`
	// MaxBlockRange bounds the blocks of one eth_getLogs query, hence of one Batch (default 1000).
	MaxBlockRange uint64
	// ReorgWindow is how many blocks back the listener remembers the hashes of delivered blocks
	// to find a fork point (default 128).
	ReorgWindow uint64
	// GapFillDelay is how long a released nonce below others waits to be reused by a Prepare
	// before the adapter fills it with a zero-value transfer to itself (default 3s).
	GapFillDelay time.Duration

	// CallTimeout bounds every JSON-RPC call the adapter and its listener make (views,
	// estimates, sends, receipts, logs, heads), retries included, whatever the caller's context
	// (default 10s): a node that accepts connections and never answers fails the call with
	// ErrTransport after it instead of holding it forever.
	CallTimeout time.Duration `yaml:"call_timeout"`

	// Upstream bounds the retries of every JSON-RPC call over HTTP (see package upstream).
	Upstream upstream.Config
}

// Provider is one JSON-RPC endpoint of the gateway chain.
type Provider struct {
	// URL is the endpoint over HTTP(S); a secret (it may carry an API key).
	URL string `yaml:"url" json:"url"`
	// Weight is the provider's share of the reads among the healthy providers (default 1).
	Weight int `yaml:"weight" json:"weight"`
}

// maxProviderWeight bounds Provider.Weight: a share, not a count.
const maxProviderWeight = 1000

// Endpoints are the providers Dial connects to: Providers, or RPCURL as a list of one; their
// zero weights are 1.
func (c Config) Endpoints() []Provider {
	if len(c.Providers) == 0 {
		if c.RPCURL == "" {
			return nil
		}
		return []Provider{{URL: c.RPCURL, Weight: 1}}
	}
	out := slices.Clone(c.Providers)
	for i := range out {
		if out[i].Weight == 0 {
			out[i].Weight = 1
		}
	}
	return out
}

// Contracts are the addresses of the contracts the adapter calls.
type Contracts struct {
	// Decryption is the gateway's Decryption contract (public and user decryption).
	Decryption common.Address `yaml:"decryption"`
	// InputVerification is the gateway's InputVerification contract (input proofs).
	InputVerification common.Address `yaml:"input_verification"`
	// ACL is the host chain's ACL contract (isAllowed, isAllowedForDecryption).
	ACL common.Address `yaml:"acl"`
}

// Defaults of Config.
const (
	DefaultGasMarginPercent     = 20
	DefaultMaxGasLimit          = 10_000_000
	DefaultMaxFeePerGas         = 500_000_000_000 // 500 gwei
	DefaultMaxPriorityFeePerGas = 10_000_000_000  // 10 gwei
	DefaultPollInterval         = time.Second
	DefaultReceiptPollMin       = 100 * time.Millisecond
	DefaultReceiptTimeout       = 2 * time.Minute
	DefaultMaxBlockRange        = 1000
	DefaultReorgWindow          = 128
	DefaultGapFillDelay         = 3 * time.Second
	DefaultCallTimeout          = 10 * time.Second
	DefaultBumpAfterBlocks      = 5
	DefaultFeeBumpPercent       = 12
	DefaultMaxHeadLag           = 5

	maxGasMarginPercent = 1000
	// A call timeout below a few hundred milliseconds fails healthy calls; one above a few
	// minutes is no bound at all.
	minCallTimeout = 100 * time.Millisecond
	maxCallTimeout = 10 * time.Minute
)

func (c *Config) setDefaults() {
	c.GasMarginPercent = cmp.Or(c.GasMarginPercent, DefaultGasMarginPercent)
	c.MaxGasLimit = cmp.Or(c.MaxGasLimit, DefaultMaxGasLimit)
	c.MaxFeePerGas = cmp.Or(c.MaxFeePerGas, DefaultMaxFeePerGas)
	c.MaxPriorityFeePerGas = cmp.Or(c.MaxPriorityFeePerGas, DefaultMaxPriorityFeePerGas)
	c.PollInterval = cmp.Or(c.PollInterval, DefaultPollInterval)
	if c.ReceiptPollMin == 0 {
		c.ReceiptPollMin = min(DefaultReceiptPollMin, c.PollInterval)
	}
	c.ReceiptTimeout = cmp.Or(c.ReceiptTimeout, DefaultReceiptTimeout)
	c.MaxBlockRange = cmp.Or(c.MaxBlockRange, DefaultMaxBlockRange)
	c.ReorgWindow = cmp.Or(c.ReorgWindow, DefaultReorgWindow)
	c.GapFillDelay = cmp.Or(c.GapFillDelay, DefaultGapFillDelay)
	c.CallTimeout = cmp.Or(c.CallTimeout, DefaultCallTimeout)
	c.BumpAfterBlocks = cmp.Or(c.BumpAfterBlocks, DefaultBumpAfterBlocks)
	c.FeeBumpPercent = cmp.Or(c.FeeBumpPercent, DefaultFeeBumpPercent)
	c.MaxHeadLag = cmp.Or(c.MaxHeadLag, DefaultMaxHeadLag)
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	c.setDefaults()
	return c
}

// Problem is one thing wrong with a Config: the field ("rpc_url", "contracts.acl"; "signer"
// for the signer's) and what is wrong with it.
type Problem = config.Problem

// ConfigError lists every problem Validate found.
type ConfigError struct{ Problems []Problem }

func (e *ConfigError) Error() string { return config.Inline("gateway: ", e.Problems) }

// Validate reports every problem of c at once as a *ConfigError, after defaults. The URLs are
// optional here (New takes a client); Dial requires RPCURL. No problem contains a URL's secrets
// or a key.
func (c Config) Validate() error {
	c.setDefaults()
	var ps config.Problems

	checkURL := func(field, raw string, schemes ...string) {
		if raw == "" {
			return
		}
		u, err := url.Parse(raw)
		if err != nil {
			ps.Add(field, "is not a URL") // url.Parse's error quotes the URL: not repeated
			return
		}
		ok := false
		for _, s := range schemes {
			ok = ok || strings.EqualFold(u.Scheme, s)
		}
		if !ok {
			ps.Add(field, "must be a %s URL (has scheme %q)", strings.Join(schemes, " or "), u.Scheme)
		}
		if u.Host == "" {
			ps.Add(field, "has no host")
		}
	}
	checkURL("rpc_url", c.RPCURL, "http", "https")
	checkURL("ws_url", c.WSURL, "ws", "wss")
	checkURL("host_rpc_url", c.HostRPCURL, "http", "https")
	if c.HostRPCURL != "" && c.RPCURL == "" && len(c.Providers) == 0 {
		ps.Add("host_rpc_url", "is set but neither rpc_url nor providers is")
	}
	if c.RPCURL != "" && len(c.Providers) > 0 {
		ps.Add("providers", "is set and rpc_url too: give one provider as rpc_url, or every provider under providers")
	}
	for i, p := range c.Providers {
		field := fmt.Sprintf("providers[%d]", i)
		if p.URL == "" {
			ps.Add(field+".url", "is empty")
		}
		checkURL(field+".url", p.URL, "http", "https")
		if p.Weight < 0 || p.Weight > maxProviderWeight {
			ps.Add(field+".weight", "is %d, want 1..%d (0 means 1)", p.Weight, maxProviderWeight)
		}
		for j := range i {
			if p.URL != "" && c.Providers[j].URL == p.URL {
				ps.Add(field+".url", "is the same URL as providers[%d].url", j)
			}
		}
	}

	if c.ChainID == 0 {
		ps.Add("chain_id", "is 0; set the gateway chain's id")
	}
	zero := common.Address{}
	if c.Contracts.Decryption == zero {
		ps.Add("contracts.decryption", "is not set")
	}
	if c.Contracts.InputVerification == zero {
		ps.Add("contracts.input_verification", "is not set")
	}
	if c.Contracts.ACL == zero {
		ps.Add("contracts.acl", "is not set")
	}
	if c.Contracts.Decryption != zero && c.Contracts.Decryption == c.Contracts.InputVerification {
		ps.Add("contracts.decryption", "is the same address as contracts.input_verification")
	}
	// The signer's problems (signer.go) are plain errors naming its fields (Signer.KeyEnv, ...):
	// they are the signer's, whole, without the package's prefix.
	for _, err := range c.Signer.problems() {
		ps.Add("signer", "%s", strings.TrimPrefix(err.Error(), "gateway: "))
	}

	if c.GasMarginPercent < 0 || c.GasMarginPercent > maxGasMarginPercent {
		ps.Add("gas_margin_percent", "is %d, want 0..%d", c.GasMarginPercent, maxGasMarginPercent)
	}
	if c.MaxGasLimit < 21_000 {
		ps.Add("max_gas_limit", "is %d, want at least 21000", c.MaxGasLimit)
	}
	if c.MaxPriorityFeePerGas > c.MaxFeePerGas {
		ps.Add("max_priority_fee_per_gas", "is %d wei, above max_fee_per_gas (%d wei)", c.MaxPriorityFeePerGas, c.MaxFeePerGas)
	}
	if c.BumpAfterBlocks < -1 {
		ps.Add("bump_after_blocks", "is %d, want a number of blocks, or -1 for never", c.BumpAfterBlocks)
	}
	if c.FeeBumpPercent < 10 || c.FeeBumpPercent > 1000 {
		ps.Add("fee_bump_percent", "is %d, want 10..1000 (nodes refuse a replacement less than 10%% dearer)", c.FeeBumpPercent)
	}
	if c.PollInterval < 0 {
		ps.Add("poll_interval", "is %v, want > 0", c.PollInterval)
	}
	if c.ReceiptPollMin < 0 || c.ReceiptPollMin > c.PollInterval {
		ps.Add("receipt_poll_min", "is %v, want 0 < receipt_poll_min <= poll_interval (%v)", c.ReceiptPollMin, c.PollInterval)
	}
	if c.ReceiptTimeout < 0 {
		ps.Add("receipt_timeout", "is %v, want > 0", c.ReceiptTimeout)
	}
	if c.GapFillDelay < 0 {
		ps.Add("gap_fill_delay", "is %v, want > 0", c.GapFillDelay)
	}
	if c.CallTimeout < minCallTimeout || c.CallTimeout > maxCallTimeout {
		ps.Add("call_timeout", "is %v, want %v..%v", c.CallTimeout, minCallTimeout, maxCallTimeout)
	}
	if err := c.Upstream.Validate(); err != nil {
		ps.Add("upstream", "%v", err)
	}
	if len(ps) == 0 {
		return nil
	}
	return &ConfigError{Problems: ps}
}

// Format prints c with its URLs reduced to scheme and host (providers put API keys in the
// userinfo, path and query), so that a Config can be logged with any verb.
func (c Config) Format(f fmt.State, verb rune) {
	type plain Config // no methods: no recursion
	c.RPCURL, c.WSURL, c.HostRPCURL = redactURL(c.RPCURL), redactURL(c.WSURL), redactURL(c.HostRPCURL)
	c.Providers = slices.Clone(c.Providers)
	for i := range c.Providers {
		c.Providers[i].URL = redactURL(c.Providers[i].URL)
	}
	_, _ = fmt.Fprintf(f, fmt.FormatString(f, verb), plain(c))
}

// redactURL keeps a URL's scheme and host and marks anything else as redacted.
func redactURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "[redacted]"
	}
	out := upstream.SourceName(u)
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		out += "/[redacted]"
	}
	return out
}
