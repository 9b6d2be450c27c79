// Package faultproxy is a TCP proxy on loopback that fronts a node (the development chain's
// JSON-RPC over HTTP or WebSocket: it moves bytes, so both work) and can be told, at run time, to
// fail the way a real RPC provider fails: refuse connections as a stopped node does, or accept
// them and never answer as a hung one does. Tests put it between `relayer serve` and the chain.
//
// It owns its listener and the connections it accepted and dialled; it never parses or changes
// the bytes it forwards, and it is for tests only: it listens on 127.0.0.1 and nowhere else.
package faultproxy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Mode is how the proxy treats connections. It is closed: Pass, Refuse and Blackhole are the only
// modes.
type Mode struct{ m uint8 }

var (
	// Pass forwards every connection to the target, bytes unchanged in both directions.
	Pass = Mode{1}
	// Refuse stops listening, so a new connection is refused (ECONNREFUSED), and closes every
	// open connection, as a node that stopped does.
	Refuse = Mode{2}
	// Blackhole accepts connections, reads and discards what they send, and never answers nor
	// closes them; open connections stop forwarding in both directions, as a node that hangs.
	// A connection the black hole took stays dead after the mode changes (what it sent is lost,
	// and so is its answer): only its client's own deadline, or Refuse, or Close ends it.
	Blackhole = Mode{3}
)

var modeNames = [...]string{"", "pass", "refuse", "blackhole"}

func (m Mode) String() string {
	if int(m.m) < len(modeNames) && m.m != 0 {
		return modeNames[m.m]
	}
	return "none"
}

// dialTimeout bounds the dial of the target for each connection accepted in Pass; a connection
// whose target cannot be dialled is closed.
const dialTimeout = 5 * time.Second

// relistenFor is how long SetMode keeps trying to take the proxy's address back when it leaves
// Refuse (the port is held by the TIME_WAIT of the connections Refuse closed, so it is normally
// taken at once).
const relistenFor = 2 * time.Second

// Proxy forwards connections on Addr to its target, in the mode SetMode last set (Pass at first),
// each answer held back by the delay SetDelay last set (none at first). Its methods are safe for
// concurrent use.
type Proxy struct {
	target   string // host:port
	addr     string // the proxy's host:port, fixed for its life
	url      string // the target's URL with addr as its host, or addr
	accepted atomic.Int64
	delay    atomic.Int64   // nanoseconds each chunk from the target waits before it is forwarded
	wg       sync.WaitGroup // accept loops and connection goroutines

	mu     sync.Mutex
	mode   Mode
	ln     net.Listener // nil while refusing and once closed
	conns  map[*conn]struct{}
	closed bool
}

// conn is one accepted connection and, unless the black hole took it at once, its dial of the
// target.
type conn struct {
	client net.Conn
	dead   atomic.Bool
	delay  *atomic.Int64 // the proxy's

	mu       sync.Mutex
	upstream net.Conn // nil until dialled, and for a connection accepted in Blackhole
	closed   bool
}

// New starts a proxy in Pass on 127.0.0.1 (a free port) for target, a host:port or a URL
// (http://, ws://, ...: only its host and port are used). Close stops it.
func New(target string) (*Proxy, error) {
	hostport, rewrite := target, ""
	if u, err := url.Parse(target); err == nil && u.Scheme != "" && u.Host != "" {
		hostport, rewrite = u.Host, target
		if u.Port() == "" {
			return nil, fmt.Errorf("faultproxy: target %q has no port", target)
		}
	}
	if _, _, err := net.SplitHostPort(hostport); err != nil {
		return nil, fmt.Errorf("faultproxy: target %q: %w", target, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen: %w", err)
	}
	p := &Proxy{target: hostport, addr: ln.Addr().String(), mode: Pass, ln: ln, conns: map[*conn]struct{}{}}
	p.url = p.addr
	if rewrite != "" {
		u, _ := url.Parse(rewrite)
		u.Host = p.addr
		p.url = u.String()
	}
	p.wg.Add(1)
	go p.accept(ln)
	return p, nil
}

// Addr is the proxy's address, host:port; it stays the same through every mode.
func (p *Proxy) Addr() string { return p.addr }

// URL is the target as New was given it with the proxy's address in place of the target's: the
// URL to give a client instead of the node's (Addr when the target was a host:port).
func (p *Proxy) URL() string { return p.url }

// Accepted is how many connections the proxy has accepted since it started, in every mode: a
// test reads connection churn from it.
func (p *Proxy) Accepted() int64 { return p.accepted.Load() }

// Mode is the mode SetMode last set.
func (p *Proxy) Mode() Mode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

// SetMode switches the proxy to m. Leaving Refuse listens on Addr again; the error says it could
// not (the proxy then stays in Refuse). SetMode on a closed proxy is an error.
func (p *Proxy) SetMode(m Mode) error {
	if m != Pass && m != Refuse && m != Blackhole {
		return fmt.Errorf("faultproxy: unknown mode %v", m)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("faultproxy: closed")
	}
	switch {
	case m == Refuse:
		p.shut()
	case p.ln == nil:
		ln, err := relisten(p.addr)
		if err != nil {
			return fmt.Errorf("faultproxy: leave refuse: %w", err)
		}
		p.ln = ln
		p.wg.Add(1)
		go p.accept(ln)
	}
	if m == Blackhole {
		for c := range p.conns {
			c.kill()
		}
	}
	p.mode = m
	return nil
}

// shut stops listening and closes every connection; p.mu is held.
func (p *Proxy) shut() {
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.close()
		delete(p.conns, c)
	}
}

// relisten takes addr back, retrying for relistenFor.
func relisten(addr string) (net.Listener, error) {
	deadline := time.Now().Add(relistenFor)
	for {
		ln, err := net.Listen("tcp", addr)
		if err == nil || time.Now().After(deadline) {
			return ln, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// SetDelay holds back every chunk of an answer (bytes from the target) by d from now on, as a
// slow or overloaded provider answers: a request still gets its whole answer, d late. Zero
// forwards at once again. Requests are forwarded at once either way.
func (p *Proxy) SetDelay(d time.Duration) { p.delay.Store(int64(max(d, 0))) }

// Close stops the proxy: it stops listening, closes every connection and waits for its
// goroutines. It is safe to call more than once.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		p.shut()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return nil
}

func (p *Proxy) accept(ln net.Listener) {
	defer p.wg.Done()
	for {
		client, err := ln.Accept()
		if err != nil {
			// Closed by Refuse or Close; a temporary failure (EMFILE) ends this loop too, which
			// a test sees as refused connections.
			return
		}
		p.accepted.Add(1)
		p.wg.Add(1)
		go p.handle(client)
	}
}

// handle dials the target for a connection accepted in Pass and forwards both ways; in
// Blackhole it only reads and discards.
func (p *Proxy) handle(client net.Conn) {
	defer p.wg.Done()
	c := &conn{client: client, delay: &p.delay}
	if !p.track(c) {
		return
	}
	defer p.untrack(c)
	if !c.dead.Load() {
		up, err := net.DialTimeout("tcp", p.target, dialTimeout)
		if err != nil || !c.setUpstream(up) {
			return
		}
	}
	if c.dead.Load() {
		// Accepted in Blackhole, or the black hole came while the target was dialled.
		_, _ = io.Copy(io.Discard, client)
		return
	}
	var both sync.WaitGroup
	both.Go(func() { c.pipe(c.upstream, c.client, true) })
	both.Go(func() { c.pipe(c.client, c.upstream, false) })
	both.Wait()
}

// track registers c in the current mode: in Refuse or once the proxy is closed it closes c and
// reports false; in Blackhole c is dead from the start.
func (p *Proxy) track(c *conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.mode == Refuse {
		c.close()
		return false
	}
	p.conns[c] = struct{}{}
	if p.mode == Blackhole {
		c.kill()
	}
	return true
}

func (p *Proxy) untrack(c *conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.close()
}

// pipe copies src to dst until src ends; once c is dead it keeps reading src and discards what
// it reads, and leaves dst alone, so that the client is neither answered nor closed.
// fromClient says src is the client.
func (c *conn) pipe(dst, src net.Conn, fromClient bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if d := time.Duration(c.delay.Load()); n > 0 && d > 0 && !fromClient {
			time.Sleep(d)
		}
		if n > 0 && !c.dead.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil && err == nil {
				err = werr
			}
		}
		if err != nil {
			break
		}
	}
	switch {
	case c.dead.Load() && fromClient:
		// The client went away (or Refuse or Close closed it): nothing is left to hold open.
		c.close()
	case c.dead.Load():
		// The target's side of a dead connection ended: the client keeps hanging.
	default:
		// One direction ended: pass the end on, and let the other direction finish (closing
		// the client here could reset it before it read the last of the answer).
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
	}
}

// setUpstream gives c its dial of the target; false when c was closed meanwhile (the dial is
// closed too). A dial c gets after it died is closed at once.
func (c *conn) setUpstream(up net.Conn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		_ = up.Close()
		return false
	}
	if c.dead.Load() {
		_ = up.Close()
		return true
	}
	c.upstream = up
	return true
}

// kill makes c a black hole: nothing more is forwarded either way and its dial of the target is
// closed; the client's connection stays open.
func (c *conn) kill() {
	if c.dead.Swap(true) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.upstream != nil {
		_ = c.upstream.Close()
	}
}

// close closes both sides of c.
func (c *conn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	_ = c.client.Close()
	if c.upstream != nil {
		_ = c.upstream.Close()
	}
}
