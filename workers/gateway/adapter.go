package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"relayer/workers/gateway/contracts"
	"relayer/workers/upstream"
)

// Adapter is the relayer's connection to the gateway chain: it prepares and broadcasts the
// gateway requests of one signing key, reads receipts, answers the readiness and ACL views and
// follows the response events. Its methods are safe for concurrent use.
type Adapter struct {
	cfg Config
	log *slog.Logger
	// baseLog is the logger as given, for the listeners (which name their own component).
	baseLog *slog.Logger
	client  *node          // every call
	heads   HeadSubscriber // new-head subscriptions; nil: the listener polls
	host    *node          // the host chain's ACL
	owned   []*ethclient.Client
	// health is the chain's reachability, shared with the adapters WithKey makes.
	health  *tracker
	signer  Signer
	chainID *big.Int
	redact  redactor

	decryption        *contracts.Decryption
	inputVerification *contracts.InputVerification
	acl               *contracts.ACL

	nonces nonceSequence
	// sentRaw holds the latest transaction this process sent with each nonce the chain has not
	// mined yet, to send again to a node that lost it (HealNonces); under sentMu.
	sentMu  sync.Mutex
	sentRaw map[uint64][]byte
	// nonceKick asks for a check of the nonces now (the node answered "nonce too low", "nonce
	// too high" or "already known"): NonceChecks.
	nonceKick chan struct{}
	head      recent[*types.Header] // the latest header, for ChainTime and the fees
	tip       recent[*big.Int]      // the node's latest tip suggestion, for the fees
	syncSend  atomic.Int32          // syncUnknown, syncSupported, syncUnsupported
	// sends bounds the transactions being handed to the node at once with
	// eth_sendRawTransactionSync (maxSends), which holds its connection while the node waits
	// for the receipt, and handovers those handed over with eth_sendRawTransaction
	// (maxHandovers; see send): together they never take more than three quarters of the
	// connections, whatever the burst, so that receipt polls, views and the listener keep
	// theirs.
	sends, handovers chan struct{}

	runCtx    context.Context // ends at Close: background gap filling
	stop      context.CancelFunc
	gapMu     sync.Mutex
	gapTimer  *time.Timer
	closeOnce sync.Once
}

// The HTTP connections to a node: at most maxConnsPerNode at once (a call beyond waits for one,
// within its deadline), all kept open for reuse (net/http keeps 2 idle by default), so that a
// node that stops answering neither gets a new connection per call nor leaves sockets behind by
// the thousand. A node that does not accept a connection within dialTimeout, or send a
// response's headers within the call timeout, fails the call.
const (
	maxConnsPerNode = 64
	// maxSends and maxHandovers are how many transactions are handed to the node at once
	// (Adapter.sends, Adapter.handovers).
	maxSends     = maxConnsPerNode / 2
	maxHandovers = maxConnsPerNode / 4
	dialTimeout  = 5 * time.Second
	tlsTimeout   = 5 * time.Second
)

const (
	syncUnknown int32 = iota
	syncSupported
	syncUnsupported
)

// Option configures Dial and New.
type Option func(*options)

type options struct {
	signer   Signer
	upstream []upstream.Option
	host     *ethclient.Client
	heads    HeadSubscriber
	// providers are Dial's, each with its probe's client; nil: New's client alone.
	providers *pool
	health    *tracker // Dial's, which its transports consult; nil: a new one
}

// WithSigner signs with s instead of the key Config.Signer points to.
func WithSigner(s Signer) Option { return func(o *options) { o.signer = s } }

// WithUpstream passes options (a Sink for the rate-limit events, a Clock, ...) to the upstream
// Transport that Dial puts under every JSON-RPC call over HTTP.
func WithUpstream(opts ...upstream.Option) Option {
	return func(o *options) { o.upstream = append(o.upstream, opts...) }
}

// WithHostClient makes New read the ACL through c instead of the gateway client.
func WithHostClient(c *ethclient.Client) Option { return func(o *options) { o.host = c } }

// WithHeads makes the listener wake on s's new heads. New uses its client by default when it
// supports subscriptions (in process, WebSocket); Dial uses the WSURL client.
func WithHeads(s HeadSubscriber) Option { return func(o *options) { o.heads = s } }

// Dial connects to Config.RPCURL over HTTP(S) through an upstream.Transport (classification,
// server waits, backoff with jitter and rate-limit events for every call), to Config.WSURL for
// new-head subscriptions when set, and to Config.HostRPCURL for the ACL when set. ctx bounds the
// connection and the start-up checks (chain id, contract code). Close releases the connections.
func Dial(ctx context.Context, cfg Config, logger *slog.Logger, opts ...Option) (*Adapter, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	endpoints := cfg.Endpoints()
	if len(endpoints) == 0 {
		return nil, errors.New("gateway: Dial needs Config.RPCURL or Config.Providers")
	}
	o := buildOptions(opts)
	urls := []string{cfg.WSURL, cfg.HostRPCURL}
	for _, e := range endpoints {
		urls = append(urls, e.URL)
	}
	redact := newRedactor(urls...)
	var owned []*ethclient.Client
	closeAll := func() {
		for _, c := range owned {
			c.Close()
		}
	}
	log := orDiscard(logger)
	o.health = newTracker(log.With("component", "gateway"))
	// transport is an HTTP transport to a node; gated, it opens no new connection during an
	// outage (idle ones are still used): calls queued for a connection then fail at once instead
	// of each dialling a blackholed node in turn. The health probes' are not gated: they end the
	// outage.
	transport := func(gated bool) *http.Transport {
		t := http.DefaultTransport.(*http.Transport).Clone()
		dialer := &net.Dialer{Timeout: min(dialTimeout, cfg.CallTimeout), KeepAlive: 30 * time.Second}
		t.DialContext = dialer.DialContext
		if gated {
			t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				if since, down := o.health.outage(); down {
					return nil, &UnreachableError{Since: since}
				}
				return dialer.DialContext(ctx, network, addr)
			}
		}
		t.TLSHandshakeTimeout = min(tlsTimeout, cfg.CallTimeout)
		t.ResponseHeaderTimeout = cfg.CallTimeout
		t.MaxConnsPerHost, t.MaxIdleConnsPerHost, t.MaxIdleConns = maxConnsPerNode, maxConnsPerNode, 2*maxConnsPerNode
		return t
	}
	upCfg := cfg.Upstream
	if len(endpoints) > 1 {
		// A provider that keeps failing is retried for half the call's deadline at most: the
		// other half is the next provider's.
		if upCfg.MaxElapsed == 0 || upCfg.MaxElapsed > cfg.CallTimeout/2 {
			upCfg.MaxElapsed = cfg.CallTimeout / 2
		}
	}
	dialHTTP := func(what, raw string) (*ethclient.Client, error) {
		t, err := upstream.NewTransport(transport(true), upCfg, o.upstream...)
		if err != nil {
			return nil, fmt.Errorf("gateway: upstream transport: %w", err)
		}
		// The client's timeout bounds a call with its retries, as the node wrapper's deadline does.
		rc, err := rpc.DialOptions(ctx, raw, rpc.WithHTTPClient(&http.Client{Transport: t, Timeout: cfg.CallTimeout}))
		if err != nil {
			return nil, fmt.Errorf("gateway: dial the %s node: %w", what, redact.scrub(err))
		}
		c := ethclient.NewClient(rc)
		owned = append(owned, c)
		return c, nil
	}
	var providers []*provider
	for i, e := range endpoints {
		what := "gateway"
		if len(endpoints) > 1 {
			what = fmt.Sprintf("gateway (provider %d)", i+1)
		}
		client, err := dialHTTP(what, e.URL)
		if err != nil {
			closeAll()
			return nil, err
		}
		// The health probe has a connection of its own, without retries: it measures the node,
		// not the queue of calls for connections.
		pt := transport(false)
		pt.MaxConnsPerHost, pt.MaxIdleConnsPerHost = 2, 2
		prc, err := rpc.DialOptions(ctx, e.URL, rpc.WithHTTPClient(&http.Client{Transport: pt, Timeout: probeTimeout}))
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("gateway: dial the %s node: %w", what, redact.scrub(err))
		}
		probe := ethclient.NewClient(prc)
		owned = append(owned, probe)
		providers = append(providers, &provider{endpoint: sourceName(e.URL), weight: e.Weight, c: client, probe: probe})
	}
	o.providers = newPool(log.With("component", "gateway"), cfg.MaxHeadLag, providers...)
	if o.host == nil && cfg.HostRPCURL != "" && cfg.HostRPCURL != cfg.RPCURL {
		var err error
		if o.host, err = dialHTTP("host", cfg.HostRPCURL); err != nil {
			closeAll()
			return nil, err
		}
	}
	if o.heads == nil && cfg.WSURL != "" {
		rc, err := rpc.DialOptions(ctx, cfg.WSURL)
		if err != nil {
			// Subscriptions only wake the listener up sooner: poll rather than refuse to start.
			log.Warn("no WebSocket connection; the listener polls", "node", sourceName(cfg.WSURL), "err", redact.scrub(err))
		} else {
			ws := ethclient.NewClient(rc)
			owned = append(owned, ws)
			o.heads = ws
		}
	}
	a, err := newAdapter(ctx, nil, cfg, log, o, redact)
	if err != nil {
		closeAll()
		return nil, err
	}
	a.owned = owned
	return a, nil
}

// New builds an Adapter on an existing client, e.g. the development chain's in-process
// Chain.Client(). The caller keeps ownership of client (Close does not close it).
func New(ctx context.Context, client *ethclient.Client, cfg Config, logger *slog.Logger, opts ...Option) (*Adapter, error) {
	if client == nil {
		return nil, errors.New("gateway: New needs a client")
	}
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := buildOptions(opts)
	if o.heads == nil && client.Client().SupportsSubscriptions() {
		o.heads = client
	}
	return newAdapter(ctx, client, cfg, orDiscard(logger), o, newRedactor(cfg.RPCURL, cfg.WSURL, cfg.HostRPCURL))
}

func buildOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// newAdapter builds the adapter on o.providers (Dial's), or on client alone (New's).
func newAdapter(ctx context.Context, client *ethclient.Client, cfg Config, log *slog.Logger, o options, redact redactor) (*Adapter, error) {
	health := o.health
	if health == nil {
		health = newTracker(log.With("component", "gateway"))
	}
	gw := singleNode(client, cfg.CallTimeout, health, redact, log)
	if o.providers != nil {
		gw = &node{pool: o.providers, timeout: cfg.CallTimeout, health: health, redact: redact}
	}
	a := &Adapter{
		cfg:               cfg,
		log:               log.With("component", "gateway"),
		baseLog:           log,
		client:            gw,
		host:              gw,
		health:            health,
		heads:             o.heads,
		signer:            o.signer,
		chainID:           new(big.Int).SetUint64(cfg.ChainID),
		redact:            redact,
		decryption:        contracts.NewDecryption(),
		inputVerification: contracts.NewInputVerification(),
		acl:               contracts.NewACL(),
		sends:             make(chan struct{}, maxSends),
		handovers:         make(chan struct{}, maxHandovers),
		nonceKick:         make(chan struct{}, 1),
	}
	if o.host != nil && o.host != client {
		// Another chain's node: its calls have the deadline but say nothing of the gateway's.
		a.host = singleNode(o.host, cfg.CallTimeout, nil, redact, log)
	}
	if a.signer == nil && !cfg.Signer.IsZero() {
		s, err := LoadSigner(ctx, cfg.Signer)
		if err != nil {
			return nil, err
		}
		a.signer = s
	}
	if err := a.checkChain(ctx); err != nil {
		return nil, err
	}
	a.runCtx, a.stop = context.WithCancel(context.Background())
	probes := *gw
	probes.timeout = min(probeTimeout, cfg.CallTimeout)
	go gw.pool.runProbes(a.runCtx, &probes)
	attrs := []any{"chain_id", cfg.ChainID, "decryption", cfg.Contracts.Decryption,
		"input_verification", cfg.Contracts.InputVerification, "acl", cfg.Contracts.ACL,
		"subscriptions", a.heads != nil}
	switch {
	case o.providers != nil && len(o.providers.ps) == 1:
		attrs = append(attrs, "node", o.providers.ps[0].endpoint)
	case o.providers != nil:
		nodes := make([]string, len(o.providers.ps))
		for i, p := range o.providers.ps {
			nodes[i] = p.endpoint
		}
		attrs = append(attrs, "providers", nodes)
	}
	if a.signer != nil {
		attrs = append(attrs, "signer", a.signer.Address())
		if k, ok := a.signer.(*KMSSigner); ok {
			attrs = append(attrs, "kms_key", k.KeyARN())
		}
	}
	a.log.Info("gateway adapter ready", attrs...)
	return a, nil
}

// checkChain refuses a node of another chain, and addresses without contract code. It reads
// the head too, for the health tracker.
func (a *Adapter) checkChain(ctx context.Context) error {
	id, err := a.client.ChainID(ctx)
	if err != nil {
		return a.classify("read the chain id", err)
	}
	if _, err := a.client.BlockNumber(ctx); err != nil {
		return a.classify("read the head", err)
	}
	if id.Cmp(a.chainID) != 0 {
		return fmt.Errorf("gateway: the node's chain id is %s, the configuration says %s", id, a.chainID)
	}
	for _, c := range []struct {
		name string
		at   common.Address
		on   *node
	}{
		{"Decryption", a.cfg.Contracts.Decryption, a.client},
		{"InputVerification", a.cfg.Contracts.InputVerification, a.client},
		{"ACL", a.cfg.Contracts.ACL, a.host},
	} {
		code, err := c.on.CodeAt(ctx, c.at, nil)
		if err != nil {
			return a.classify("read the code of "+c.name, err)
		}
		if len(code) == 0 {
			return fmt.Errorf("gateway: no contract code at Contracts.%s %s", c.name, c.at)
		}
	}
	return nil
}

// Close stops background work and closes the connections Dial opened. It is safe to call twice.
func (a *Adapter) Close() {
	a.closeOnce.Do(func() {
		a.stop()
		a.gapMu.Lock()
		if a.gapTimer != nil {
			a.gapTimer.Stop()
		}
		a.gapMu.Unlock()
		for _, c := range a.owned {
			c.Close()
		}
	})
}

// WithKey is an adapter for signing key s on a's connections and contracts: its own nonce
// sequence and background gap filling, the same node, listener, views and chain health (one
// chain: a's health probe and tracker). A fleet with several keys drives each through its own
// (DESIGN section 11). Closing it stops its gap filling; the connections and the probe stay a's.
func (a *Adapter) WithKey(s Signer) *Adapter {
	b := &Adapter{
		cfg: a.cfg, log: a.log, baseLog: a.baseLog, client: a.client, heads: a.heads, host: a.host,
		health: a.health, signer: s, chainID: a.chainID, redact: a.redact,
		decryption: a.decryption, inputVerification: a.inputVerification, acl: a.acl,
		sends:     a.sends, // the same node's connections: one bound for every key
		handovers: a.handovers,
		nonceKick: make(chan struct{}, 1),
	}
	b.syncSend.Store(a.syncSend.Load())
	b.runCtx, b.stop = context.WithCancel(context.Background())
	return b
}

// Address is the signer's address (zero without a signer).
func (a *Adapter) Address() common.Address {
	if a.signer == nil {
		return common.Address{}
	}
	return a.signer.Address()
}

// ChainID is the gateway chain's id.
func (a *Adapter) ChainID() *big.Int { return new(big.Int).Set(a.chainID) }

// Config is the configuration the adapter runs with, defaults filled in.
func (a *Adapter) Config() Config { return a.cfg }

// sourceName names an RPC endpoint by scheme and host only (see upstream.SourceName).
func sourceName(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "[unparsable URL]"
	}
	return upstream.SourceName(u)
}
