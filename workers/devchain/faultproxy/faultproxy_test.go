package faultproxy_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"relayer/workers/devchain/faultproxy"
	"relayer/workers/devchain/faultproxy/faultproxytest"
)

// echoServer echoes every connection's bytes back until the client closes; accepted counts its
// connections.
type echoServer struct {
	ln       net.Listener
	accepted atomic.Int64
}

func newEcho(t *testing.T) *echoServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &echoServer{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			e.accepted.Add(1)
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return e
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// roundTrip writes msg and reads as many bytes back within limit.
func roundTrip(c net.Conn, msg string, limit time.Duration) (string, error) {
	_ = c.SetDeadline(time.Now().Add(limit))
	defer c.SetDeadline(time.Time{})
	if _, err := io.WriteString(c, msg); err != nil {
		return "", err
	}
	b := make([]byte, len(msg))
	_, err := io.ReadFull(c, b)
	return string(b), err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// get GETs url on a fresh connection (no keep-alive: a connection the black hole took stays
// dead, and a pooled one would hide what a new connection meets).
func get(url string, timeout time.Duration) (string, error) {
	client := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := client.Get(url)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return string(b), err
}

func newHTTP(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "block 42")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestProxy(t *testing.T) {
	t.Run("pass forwards bytes both ways, and the client's half-close reaches the target", func(t *testing.T) {
		e := newEcho(t)
		p := faultproxytest.Start(t, e.ln.Addr().String())
		c := dial(t, p.Addr())
		for _, msg := range []string{"eth_blockNumber", strings.Repeat("x", 100_000)} {
			got, err := roundTrip(c, msg, 2*time.Second)
			if err != nil || got != msg {
				t.Fatalf("echo of %d bytes through the proxy: %d bytes back, %v", len(msg), len(got), err)
			}
		}
		// The echo server ends its side when it reads the client's FIN: the client reads EOF.
		if err := c.(*net.TCPConn).CloseWrite(); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if n, err := c.Read(make([]byte, 1)); n != 0 || err != io.EOF {
			t.Fatalf("after the client's half-close: read %d bytes, %v; want EOF", n, err)
		}
		if got := p.Accepted(); got != 1 {
			t.Errorf("Accepted() = %d after one connection", got)
		}
	})

	t.Run("pass forwards HTTP at the URL that names the proxy instead of the target", func(t *testing.T) {
		srv := newHTTP(t)
		p := faultproxytest.Start(t, srv.URL+"/rpc")
		if want := "http://" + p.Addr() + "/rpc"; p.URL() != want {
			t.Fatalf("URL() = %q, want %q", p.URL(), want)
		}
		body, err := get(p.URL(), 2*time.Second)
		if err != nil || body != "block 42" {
			t.Fatalf("GET through the proxy: %q, %v", body, err)
		}
	})

	t.Run("a delay holds every answer back by it, whole, and zero forwards at once again", func(t *testing.T) {
		srv := newHTTP(t)
		p := faultproxytest.Start(t, srv.URL)
		p.SetDelay(400 * time.Millisecond)
		began := time.Now()
		body, err := get(p.URL(), 5*time.Second)
		if err != nil || body != "block 42" {
			t.Fatalf("GET through the slowed proxy: %q, %v", body, err)
		}
		if took := time.Since(began); took < 400*time.Millisecond {
			t.Errorf("GET through a proxy delaying 400ms answered in %s", took)
		}
		p.SetDelay(0)
		began = time.Now()
		if _, err := get(p.URL(), 350*time.Millisecond); err != nil {
			t.Errorf("GET after the delay was lifted: %v (took %s), want an answer within 350ms", err, time.Since(began))
		}
	})

	t.Run("refuse refuses new connections and closes the open ones", func(t *testing.T) {
		e := newEcho(t)
		p := faultproxytest.Start(t, e.ln.Addr().String())
		open := dial(t, p.Addr())
		if _, err := roundTrip(open, "ping", 2*time.Second); err != nil {
			t.Fatal(err)
		}
		faultproxytest.SetMode(t, p, faultproxy.Refuse)
		_ = open.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := open.Read(make([]byte, 1)); err == nil || isTimeout(err) {
			t.Errorf("an open connection under refuse: read %v, want it closed (EOF or reset)", err)
		}
		_, err := net.DialTimeout("tcp", p.Addr(), time.Second)
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("a new connection under refuse: %v, want connection refused", err)
		}
	})

	t.Run("blackhole accepts a new connection, answers nothing and leaves the client hanging until its own deadline", func(t *testing.T) {
		srv := newHTTP(t)
		p := faultproxytest.Start(t, srv.URL)
		faultproxytest.SetMode(t, p, faultproxy.Blackhole)
		began := time.Now()
		_, err := get(p.URL(), 300*time.Millisecond)
		if !isTimeout(err) {
			t.Fatalf("GET under blackhole: %v, want the client's timeout", err)
		}
		if waited := time.Since(began); waited < 250*time.Millisecond {
			t.Errorf("GET under blackhole ended after %s, before the client's deadline", waited)
		}
		c := dial(t, p.Addr())
		if _, err := roundTrip(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 300*time.Millisecond); !isTimeout(err) {
			t.Errorf("raw request under blackhole: %v, want the reader's timeout (never an answer, never a close)", err)
		}
		if got := p.Accepted(); got != 2 {
			t.Errorf("Accepted() = %d, want 2: the black hole accepts", got)
		}
	})

	t.Run("blackhole stops an open connection both ways, and it stays dead when the mode changes back", func(t *testing.T) {
		e := newEcho(t)
		p := faultproxytest.Start(t, e.ln.Addr().String())
		c := dial(t, p.Addr())
		if _, err := roundTrip(c, "before", 2*time.Second); err != nil {
			t.Fatal(err)
		}
		faultproxytest.SetMode(t, p, faultproxy.Blackhole)
		if _, err := roundTrip(c, "during", 300*time.Millisecond); !isTimeout(err) {
			t.Fatalf("open connection under blackhole: %v, want a timeout", err)
		}
		faultproxytest.SetMode(t, p, faultproxy.Pass)
		if _, err := roundTrip(c, "after", 300*time.Millisecond); !isTimeout(err) {
			t.Errorf("the connection the black hole took, after pass: %v, want a timeout still", err)
		}
		if got, err := roundTrip(dial(t, p.Addr()), "fresh", 2*time.Second); err != nil || got != "fresh" {
			t.Errorf("a new connection after pass: %q, %v", got, err)
		}
	})

	t.Run("switching back to pass restores service at the same address", func(t *testing.T) {
		srv := newHTTP(t)
		p := faultproxytest.Start(t, srv.URL)
		for _, fault := range []faultproxy.Mode{faultproxy.Refuse, faultproxy.Blackhole, faultproxy.Refuse} {
			faultproxytest.SetMode(t, p, fault)
			if _, err := get(p.URL(), 200*time.Millisecond); err == nil {
				t.Fatalf("GET under %v succeeded", fault)
			}
			faultproxytest.SetMode(t, p, faultproxy.Pass)
			if body, err := get(p.URL(), 2*time.Second); err != nil || body != "block 42" {
				t.Fatalf("GET after %v then pass: %q, %v", fault, body, err)
			}
		}
	})

	t.Run("a target that pushes unasked (a WebSocket subscription) reaches the client in pass and not in blackhole", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			for {
				if _, err := io.WriteString(c, "head\n"); err != nil {
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
		p := faultproxytest.Start(t, ln.Addr().String())
		c := dial(t, p.Addr())
		r := bufio.NewReader(c)
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if line, err := r.ReadString('\n'); err != nil || line != "head\n" {
			t.Fatalf("pushed line in pass: %q, %v", line, err)
		}
		faultproxytest.SetMode(t, p, faultproxy.Blackhole)
		// What was on its way before the switch may still arrive; then nothing.
		_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		_, _ = io.Copy(io.Discard, r)
		_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		if n, err := r.Read(make([]byte, 1)); n != 0 || !isTimeout(err) {
			t.Errorf("pushed bytes under blackhole: read %d, %v; want nothing until the deadline", n, err)
		}
	})

	t.Run("close ends every connection, stops listening and may be called twice", func(t *testing.T) {
		e := newEcho(t)
		p := faultproxytest.Start(t, e.ln.Addr().String())
		live := dial(t, p.Addr())
		if _, err := roundTrip(live, "x", 2*time.Second); err != nil {
			t.Fatal(err)
		}
		faultproxytest.SetMode(t, p, faultproxy.Blackhole)
		hung := dial(t, p.Addr())
		done := make(chan struct{})
		go func() {
			_ = p.Close()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("Close did not return with a black-holed connection open")
		}
		for name, c := range map[string]net.Conn{"forwarded": live, "black-holed": hung} {
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
			if _, err := c.Read(make([]byte, 1)); err == nil || isTimeout(err) {
				t.Errorf("%s connection after Close: read %v, want it closed", name, err)
			}
		}
		if _, err := net.DialTimeout("tcp", p.Addr(), time.Second); err == nil {
			t.Error("a connection after Close was accepted")
		}
		if err := p.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if err := p.SetMode(faultproxy.Pass); err == nil {
			t.Error("SetMode after Close succeeded")
		}
	})

	t.Run("a target that cannot be dialled closes the client's connection", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		gone := ln.Addr().String()
		_ = ln.Close()
		p := faultproxytest.Start(t, gone)
		c := dial(t, p.Addr())
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil || isTimeout(err) {
			t.Errorf("read with the target down: %v, want the connection closed", err)
		}
	})

	t.Run("new refuses a target without a port, and an unknown mode", func(t *testing.T) {
		for _, target := range []string{"127.0.0.1", "http://127.0.0.1/"} {
			if p, err := faultproxy.New(target); err == nil {
				_ = p.Close()
				t.Errorf("New(%q) succeeded", target)
			}
		}
		p := faultproxytest.Start(t, "127.0.0.1:1")
		if err := p.SetMode(faultproxy.Mode{}); err == nil {
			t.Error("SetMode(Mode{}) succeeded")
		}
		if got := p.Mode(); got != faultproxy.Pass {
			t.Errorf("Mode() = %v, want pass", got)
		}
	})
}
