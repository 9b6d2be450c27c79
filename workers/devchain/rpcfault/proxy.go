package rpcfault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"
)

const (
	// dialTimeout bounds the dial of the node for each forwarded request.
	dialTimeout = 5 * time.Second
	// maxRequestBody is the largest request body the proxy reads; a larger one is answered
	// 413. JSON-RPC requests are far smaller.
	maxRequestBody = 32 << 20
)

// quiet is the log of the proxy's server and forwarder: the proxy never logs.
var quiet = log.New(io.Discard, "", 0)

// errAnswerLost is how DropAfter tells the forwarder's error handler to hang up.
var errAnswerLost = errors.New("rpcfault: answer dropped")

// Proxy forwards HTTP requests and WebSockets on Addr to its node, failing some requests as its
// Config says. Its methods are safe for concurrent use.
type Proxy struct {
	addr      string // the proxy's host:port
	url       string // the node's URL with addr as its host
	server    *http.Server
	forwarder *httputil.ReverseProxy
	transport *http.Transport
	// stop cancels every request's context: forwards, answers held back and WebSockets end.
	stop     context.CancelFunc
	served   chan struct{} // closed when server.Serve returns
	handlers sync.WaitGroup

	mu     sync.Mutex
	cfg    Config // with defaults
	rnd    *rand.Rand
	counts Counts
	closed bool
}

// New starts a proxy on 127.0.0.1 (a free port) for the node at target, an http:// or ws:// URL.
// Close stops it.
func New(target string, cfg Config) (*Proxy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	node, err := url.Parse(target)
	if err != nil {
		return nil, fmt.Errorf("rpcfault: target: %w", err)
	}
	if node.Host == "" || (node.Scheme != "http" && node.Scheme != "ws") {
		return nil, fmt.Errorf("rpcfault: target %q: want an http:// or ws:// URL", target)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("rpcfault: listen: %w", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	cfg = cfg.withDefaults()
	p := &Proxy{
		addr:   ln.Addr().String(),
		stop:   stop,
		served: make(chan struct{}),
		cfg:    cfg,
		rnd:    newRand(cfg.Seed),
		counts: Counts{Faults: map[Fault]int64{}},
	}
	public := *node
	public.Host = p.addr
	p.url = public.String()

	p.transport = &http.Transport{
		DialContext: (&net.Dialer{Timeout: dialTimeout}).DialContext,
		// The client's Accept-Encoding goes to the node as it came; the proxy asks for nothing
		// the client did not, and so never unpacks an answer.
		DisableCompression:  true,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     30 * time.Second,
	}
	// A WebSocket's upgrade is an HTTP request: the forwarder sends both to the node over HTTP.
	host := node.Host
	p.forwarder = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host, r.Out.Host = "http", host, ""
		},
		Transport:      p.transport,
		ModifyResponse: holdAnswer,
		ErrorHandler:   forwardFailed,
		ErrorLog:       quiet,
	}
	p.server = &http.Server{
		Handler:           http.HandlerFunc(p.serve),
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          quiet,
	}
	go func() {
		defer close(p.served)
		_ = p.server.Serve(ln)
	}()
	return p, nil
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }

// Addr is the proxy's address, host:port on 127.0.0.1.
func (p *Proxy) Addr() string { return p.addr }

// URL is the target as New was given it (http:// or ws://, path and query included) with the
// proxy's address in place of the node's: the URL to give a client instead of the node's.
func (p *Proxy) URL() string { return p.url }

// SetConfig replaces the proxy's Config from the next request on, and restarts its random
// sequence from cfg.Seed. A request already under way keeps the fault it got. An invalid cfg is
// an error and changes nothing.
func (p *Proxy) SetConfig(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg = cfg.withDefaults()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cfg, p.rnd = cfg, newRand(cfg.Seed)
	return nil
}

// Counts is what the proxy did since it started (SetConfig does not reset it).
func (p *Proxy) Counts() Counts {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.counts
	c.Faults = make(map[Fault]int64, len(p.counts.Faults))
	for f, n := range p.counts.Faults {
		c.Faults[f] = n
	}
	return c
}

// Close stops the proxy: it stops listening, ends every request and WebSocket under way (an
// answer held back is not sent) and waits for them. It is safe to call more than once.
func (p *Proxy) Close() error {
	p.mu.Lock()
	first := !p.closed
	p.closed = true
	p.mu.Unlock()
	if first {
		p.stop()
		_ = p.server.Close()
	}
	<-p.served
	p.handlers.Wait()
	p.transport.CloseIdleConnections()
	return nil
}

// enter registers a request's handler; false once the proxy is closed.
func (p *Proxy) enter() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.handlers.Add(1)
	return true
}

// plan is what the proxy does with one request: its fault (the zero Fault: none) and the
// settings of the Config it was drawn from.
type plan struct {
	fault     Fault
	wait      time.Duration
	slowDelay time.Duration
}

// planKey carries a forwarded request's plan to holdAnswer and forwardFailed.
type planKey struct{}

// draw counts a request and gives it its plan.
func (p *Proxy) draw(calls []call) plan {
	p.mu.Lock()
	defer p.mu.Unlock()
	cfg := &p.cfg
	p.counts.Requests++
	pl := plan{wait: cfg.Wait, slowDelay: cfg.SlowDelay}
	if cfg.Rate > 0 && cfg.eligible(calls) && p.rnd.Float64() < cfg.Rate {
		pl.fault = cfg.Faults[p.rnd.IntN(len(cfg.Faults))]
		p.counts.Faults[pl.fault]++
	} else {
		p.counts.Passed++
	}
	return pl
}

// drawLifetime counts a WebSocket and gives it its lifetime, 0 for as long as it lasts.
func (p *Proxy) drawLifetime() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts.WebSockets++
	longest := p.cfg.WebSocketLifetime
	if longest <= 0 {
		return 0
	}
	return longest/2 + time.Duration(p.rnd.Int64N(int64(longest-longest/2)+1))
}

func (p *Proxy) countWebSocketDrop() {
	p.mu.Lock()
	p.counts.WebSocketDrops++
	p.mu.Unlock()
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	if !p.enter() {
		hangUp(w)
		return
	}
	defer p.handlers.Done()
	if isUpgrade(r.Header) {
		p.serveWebSocket(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err != nil {
		if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
			http.Error(w, http.StatusText(http.StatusRequestEntityTooLarge), http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, http.StatusText(http.StatusBadRequest), http.StatusBadRequest)
		}
		return
	}
	calls, batch := parseCalls(body)
	pl := p.draw(calls)
	switch pl.fault {
	case Fault{}, DropAfter, Slow:
		r.Body = io.NopCloser(bytes.NewReader(body))
		p.forwarder.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), planKey{}, pl)))
	case DropBefore:
		hangUp(w)
	default:
		pl.answer(w, calls, batch, time.Now())
	}
}

// serveWebSocket forwards an upgrade and, once upgraded, the WebSocket's frames both ways. When
// its lifetime is over the forwarder's context ends, which closes both of its connections.
func (p *Proxy) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	lifetime := p.drawLifetime()
	if lifetime == 0 {
		p.forwarder.ServeHTTP(w, r)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	end := time.AfterFunc(lifetime, func() {
		p.countWebSocketDrop()
		cancel()
	})
	defer end.Stop()
	p.forwarder.ServeHTTP(w, r.WithContext(ctx))
}

// holdAnswer is the forwarder's ModifyResponse: for DropAfter and Slow it reads the node's whole
// answer first, then hangs up (through forwardFailed) or waits before letting it through.
func holdAnswer(res *http.Response) error {
	ctx := res.Request.Context()
	pl, _ := ctx.Value(planKey{}).(plan)
	if pl.fault != DropAfter && pl.fault != Slow {
		return nil
	}
	body, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if err != nil {
		return err
	}
	if pl.fault == DropAfter {
		return errAnswerLost
	}
	held := time.NewTimer(pl.slowDelay)
	defer held.Stop()
	select {
	case <-held.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	return nil
}

// forwardFailed is the forwarder's ErrorHandler. DropAfter hangs up, and so does a request whose
// context ended (its client left, its WebSocket's lifetime is over, or the proxy is closing:
// an answer held back is then not sent). A node that could not be reached gets 502, as from any
// gateway.
func forwardFailed(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errAnswerLost) || r.Context().Err() != nil {
		hangUp(w)
		return
	}
	w.WriteHeader(http.StatusBadGateway)
}

// hangUp closes the client's connection without an answer.
func hangUp(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// Not a connection of its own to close (the proxy serves HTTP/1.1 only, so this is not
		// expected): abort the answer instead, which the server does without a word.
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// isUpgrade reports whether a request asks to switch protocols (Connection: Upgrade, with an
// Upgrade field), as a WebSocket's opening handshake does.
func isUpgrade(h http.Header) bool {
	if h.Get("Upgrade") == "" {
		return false
	}
	for _, v := range h.Values("Connection") {
		for token := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(token), "upgrade") {
				return true
			}
		}
	}
	return false
}
