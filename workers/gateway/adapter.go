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
	signer  *Signer
	chainID *big.Int
	redact  redactor

	decryption        *contracts.Decryption
	inputVerification *contracts.InputVerification
	acl               *contracts.ACL

	nonces   nonceSequence
	clock    chainClock   // ChainTime's cached latest header
	syncSend atomic.Int32 // syncUnknown, syncSupported, syncUnsupported
	// sends bounds the transactions being handed to the node at once (maxSends): a send
	// (eth_sendRawTransactionSync holds its connection while the node waits for the receipt)
	// never takes more than half the connections, whatever the burst, so that receipt polls,
	// views and the listener keep theirs.
	sends chan struct{}

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
	// maxSends is how many transactions are handed to the node at once (Adapter.sends).
	maxSends    = maxConnsPerNode / 2
	dialTimeout = 5 * time.Second
	tlsTimeout  = 5 * time.Second
)

const (
	syncUnknown int32 = iota
	syncSupported
	syncUnsupported
)

// Option configures Dial and New.
type Option func(*options)

type options struct {
	signer   *Signer
	upstream []upstream.Option
	host     *ethclient.Client
	heads    HeadSubscriber
	probe    *ethclient.Client // the health probe's client; nil: the gateway client
	health   *tracker          // Dial's, which its transports consult; nil: a new one
}

// WithSigner signs with s instead of the key Config.Signer points to.
func WithSigner(s *Signer) Option { return func(o *options) { o.signer = s } }

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
	if cfg.RPCURL == "" {
		return nil, errors.New("gateway: Dial needs Config.RPCURL")
	}
	o := buildOptions(opts)
	redact := newRedactor(cfg.RPCURL, cfg.WSURL, cfg.HostRPCURL)
	var owned []*ethclient.Client
	closeAll := func() {
		for _, c := range owned {
			c.Close()
		}
	}
	log := orDiscard(logger)
	o.health = newTracker(log.With("component", "gateway"))
	// transport is an HTTP transport to the node; gated, it opens no new connection during an
	// outage (idle ones are still used): calls queued for a connection then fail at once instead
	// of each dialling a blackholed node in turn. The health probe's is not gated: it ends the
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
	dialHTTP := func(what, raw string) (*ethclient.Client, error) {
		t, err := upstream.NewTransport(transport(true), cfg.Upstream, o.upstream...)
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
	client, err := dialHTTP("gateway", cfg.RPCURL)
	if err != nil {
		return nil, err
	}
	if o.host == nil && cfg.HostRPCURL != "" && cfg.HostRPCURL != cfg.RPCURL {
		if o.host, err = dialHTTP("host", cfg.HostRPCURL); err != nil {
			closeAll()
			return nil, err
		}
	}
	// The health probe has a connection of its own, without retries: it measures the node, not
	// the queue of calls for connections.
	pt := transport(false)
	pt.MaxConnsPerHost, pt.MaxIdleConnsPerHost = 2, 2
	prc, err := rpc.DialOptions(ctx, cfg.RPCURL, rpc.WithHTTPClient(&http.Client{Transport: pt, Timeout: probeTimeout}))
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("gateway: dial the gateway node: %w", redact.scrub(err))
	}
	o.probe = ethclient.NewClient(prc)
	owned = append(owned, o.probe)
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
	a, err := newAdapter(ctx, client, cfg, log, o, redact)
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

func newAdapter(ctx context.Context, client *ethclient.Client, cfg Config, log *slog.Logger, o options, redact redactor) (*Adapter, error) {
	health := o.health
	if health == nil {
		health = newTracker(log.With("component", "gateway"))
	}
	gw := &node{c: client, timeout: cfg.CallTimeout, health: health, redact: redact}
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
	}
	if o.host != nil && o.host != client {
		// Another chain's node: its calls have the deadline but say nothing of the gateway's.
		a.host = &node{c: o.host, timeout: cfg.CallTimeout, redact: redact}
	}
	if a.signer == nil && !cfg.Signer.IsZero() {
		s, err := LoadSigner(cfg.Signer)
		if err != nil {
			return nil, err
		}
		a.signer = s
	}
	if err := a.checkChain(ctx); err != nil {
		return nil, err
	}
	a.runCtx, a.stop = context.WithCancel(context.Background())
	probe := o.probe
	if probe == nil {
		probe = client
	}
	go a.runProbe(a.runCtx, &node{c: probe, timeout: min(probeTimeout, cfg.CallTimeout), health: health, decisive: true, redact: redact})
	attrs := []any{"chain_id", cfg.ChainID, "decryption", cfg.Contracts.Decryption,
		"input_verification", cfg.Contracts.InputVerification, "acl", cfg.Contracts.ACL,
		"subscriptions", a.heads != nil}
	if cfg.RPCURL != "" {
		attrs = append(attrs, "node", sourceName(cfg.RPCURL))
	}
	if a.signer != nil {
		attrs = append(attrs, "signer", a.signer.Address())
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
func (a *Adapter) WithKey(s *Signer) *Adapter {
	b := &Adapter{
		cfg: a.cfg, log: a.log, baseLog: a.baseLog, client: a.client, heads: a.heads, host: a.host,
		health: a.health, signer: s, chainID: a.chainID, redact: a.redact,
		decryption: a.decryption, inputVerification: a.inputVerification, acl: a.acl,
		sends: a.sends, // the same node's connections: one bound for every key
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
