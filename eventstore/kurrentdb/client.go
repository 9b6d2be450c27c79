package kurrentdb

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/EventStore/EventStore-Client-Go/v4/esdb"

	"relayer/eventstore"
)

// This file is how the store talks to the client (v4.2.0) without inheriting its failure
// modes. The client runs a goroutine, its connection state machine, that hands out connections
// and, when a call fails with Unavailable, looks for the server again (discovery). Two things
// follow, both read in its impl.go:
//
//   - A call waits for the state machine without a context: to get a connection, and, when it
//     fails with Unavailable, to tell it to reconnect. While discovery runs, no context ends
//     that wait.
//   - When discovery fails (MaxDiscoverAttempts attempts, 10 by default: a few seconds when the
//     server refuses connections), the state machine marks the client closed and returns. Calls
//     made later fail at once with ErrorCodeConnectionClosed, before sending anything; but a
//     call that was already waiting to hand it a message waits forever.
//
// So every call into the client runs on a goroutine of its own, which the caller stops waiting
// for when its context ends, and under a guard: a call that stays inside the client longer than
// discovery can last (stuckAfter) is taken for stuck, released, and the client replaced. A client
// that answers ErrorCodeConnectionClosed is replaced too. A replaced client is left unclosed:
// closing it would panic the goroutines still blocked sending to it.

// errStuck reports a call the client held longer than its discovery can last.
var errStuck = errors.New("the client made no progress (it stops for good when it cannot find the server in time); a new client takes the next calls")

// stuckAfter is how long discovery can last for conf, plus the longest call: no call that is
// merely slow stays inside the client longer. Discovery makes MaxDiscoverAttempts attempts,
// DiscoveryInterval apart; an attempt tries each candidate node, reading its gossip (in a
// cluster) and its features, GossipTimeout each.
func stuckAfter(conf *esdb.Configuration) time.Duration {
	nodes := time.Duration(max(1, len(conf.GossipSeeds)))
	gossip := time.Duration(max(1, conf.GossipTimeout)) * time.Second
	attempt := nodes*2*gossip + time.Duration(max(0, conf.DiscoveryInterval))*time.Millisecond
	call := 10 * time.Second // the client's default deadline
	if conf.DefaultDeadline != nil {
		call = max(call, *conf.DefaultDeadline)
	}
	return time.Duration(max(1, conf.MaxDiscoverAttempts))*attempt + call + 5*time.Second
}

func (s *Store) newClient() (*esdb.Client, error) {
	conf := s.conf
	return esdb.NewClient(&conf)
}

// guard is one call admitted to a client. Its goroutine enters before each step that runs
// inside the client and leaves after it; a step that lasts stuckAfter marks the call stuck
// (closing stuck), releases it, so that Close does not wait for it, and replaces the client.
type guard struct {
	s      *Store
	client *esdb.Client
	stuck  chan struct{}

	release func() // once

	mu     sync.Mutex
	inside bool
	timer  *time.Timer
}

// admit admits a call and returns its guard, or ErrClosed once Close began. The call's
// goroutine must call release when it is done with the client.
func (s *Store) admit() (*guard, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, eventstore.ErrClosed
	}
	s.calls.Add(1)
	g := &guard{s: s, client: s.client, stuck: make(chan struct{}), release: sync.OnceFunc(s.calls.Done)}
	g.timer = time.AfterFunc(time.Hour, g.fire)
	g.timer.Stop()
	return g, nil
}

func (g *guard) enter() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inside = true
	g.timer.Reset(g.s.stuckAfter)
}

func (g *guard) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inside = false
	g.timer.Stop()
}

// done ends the call: its goroutine is done with the client.
func (g *guard) done() {
	g.leave()
	g.release()
}

func (g *guard) fire() {
	g.mu.Lock()
	if !g.inside {
		g.mu.Unlock()
		return
	}
	g.inside = false
	close(g.stuck)
	g.mu.Unlock()
	// Taint before release: once released, Close may close the client, which would panic the
	// goroutine still blocked sending to it.
	g.s.mu.Lock()
	g.s.tainted[g.client] = true
	g.s.mu.Unlock()
	g.release()
	g.s.replace(g.client, fmt.Sprintf("a call made no progress inside the client for %s", g.s.stuckAfter))
}

// renew replaces a client that answered err, when err says it stopped for good: every call on
// it fails with ErrorCodeConnectionClosed, before sending anything. It reports whether a call
// that failed so may be made again.
func (s *Store) renew(dead *esdb.Client, err error) bool {
	if code, ok := clientCode(err); !ok || code != esdb.ErrorCodeConnectionClosed {
		return false
	}
	return s.replace(dead, "the client stopped after it failed to find the server")
}

// replace puts a new client in place of old, unless that happened already, and reports whether
// calls may go on (the store is open and has a client other than old).
func (s *Store) replace(old *esdb.Client, why string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if s.client != old {
		return true
	}
	c, err := s.newClient()
	if err != nil {
		s.cfg.Logger.Warn("kurrentdb: cannot make a new client", "store", s.where, "error", s.secrets.ScrubString(err.Error()))
		return false
	}
	s.client = c
	s.cfg.Logger.Warn("kurrentdb: "+why+"; calls go through a new client", "store", s.where)
	return true
}

// closeClient closes a client that no call is inside any more, unless a call got stuck in it.
func (s *Store) closeClient(c *esdb.Client) {
	s.mu.Lock()
	tainted := s.tainted[c]
	s.mu.Unlock()
	if tainted {
		s.cfg.Logger.Warn("kurrentdb: the client holds calls stuck in it and is left unclosed", "store", s.where)
		return
	}
	c.Close()
}

func (s *Store) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// opContext returns a context that ends with ctx or when Close begins.
func (s *Store) opContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.life, cancel)
	return ctx, func() {
		stop()
		cancel()
	}
}

// await makes one call into the client on a goroutine of its own, under a guard, and returns its
// result, ctx's error as soon as ctx ends, or errStuck. It returns the client the call was made
// on (nil when none was admitted).
func await[T any](ctx context.Context, s *Store, call func(*esdb.Client) (T, error)) (_ T, client *esdb.Client, _ error) {
	var zero T
	g, err := s.admit()
	if err != nil {
		return zero, nil, err
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer g.done()
		g.enter()
		v, err := call(g.client)
		g.leave()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, g.client, r.err
	case <-g.stuck:
		return zero, g.client, errStuck
	case <-ctx.Done():
		select {
		case r := <-done: // finished as ctx ended: take the result
			return r.v, g.client, r.err
		default:
			return zero, g.client, ctx.Err()
		}
	}
}
