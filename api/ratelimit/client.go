package ratelimit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync/atomic"
)

// Client is a client an issued API key names, as the caller's registry holds it: its name (never
// the key) and the limits of its own. The limiter caches in it what it derives from it (the
// client's internal key, and its limits resolved against the configuration in force), so a
// registry must hand out a *Client and never modify one it has handed out: a changed entry is a
// new Client, which is also how the cache learns of the change.
type Client struct {
	Name   string
	Limits ClientLimits

	cache atomic.Pointer[clientCache]
}

// ClientLimits are a client's own limits, one OwnLimits per class. A set field replaces the
// server's value of that limit for this client; a nil one inherits the server's value as it is at
// the time, so SetConfig changes it for this client too. Window lengths, slot timeouts and the
// retry policy are always the server's: a client's entry expires as everyone's does. 0 turns the
// limit off for the client; a value outside 0..MaxLimit is taken as the nearest bound.
type ClientLimits struct {
	Write, Read OwnLimits
}

// OwnLimits are a client's own limits in one class; nil inherits the server's.
type OwnLimits struct {
	ConcurrencyLimit *int
	RollingLimit     *int
}

func (c *ClientLimits) of(class Class) *OwnLimits {
	if class == ClassRead {
		return &c.Read
	}
	return &c.Write
}

// clientCache is what a limiter derived from a Client, valid while the limiter's configuration
// is the one of generation gen.
type clientCache struct {
	l   *Limiter
	gen uint64
	key string // ClientKey's value
	// own: some class has a limit of the client's own, and classes holds every class resolved;
	// otherwise the limiter uses its snapshot's classes.
	own     bool
	classes [numClasses]classSnap
}

// resolve returns c's cache for l's configuration s, derived again only when l or s changed.
// Concurrent calls may both derive it; either result is right.
func (c *Client) resolve(l *Limiter, s *snapshot) *clientCache {
	prev := c.cache.Load()
	if prev != nil && prev.l == l && prev.gen == s.gen {
		return prev
	}
	cc := &clientCache{l: l, gen: s.gen}
	if prev != nil && prev.l == l {
		cc.key = prev.key // the name is the same: only the configuration changed
	} else {
		cc.key = l.nameKey(c.Name)
	}
	for _, class := range Classes() {
		o := c.Limits.of(class)
		lim := s.classes[class].Limits
		if o.ConcurrencyLimit != nil {
			lim.ConcurrencyLimit, cc.own = clampLimit(*o.ConcurrencyLimit), true
		}
		if o.RollingLimit != nil {
			lim.RollingLimit, cc.own = clampLimit(*o.RollingLimit), true
		}
		cc.classes[class] = newClassSnap(class, lim)
	}
	c.cache.Store(cc)
	return cc
}

func clampLimit(v int) int { return min(max(v, 0), MaxLimit) }

// nameKey is the internal key of the client an issued API key names: "key:" and a hex salted
// SHA-256 of its name.
func (l *Limiter) nameKey(name string) string {
	h := sha256.New()
	h.Write(l.salt[:])
	h.Write([]byte(name))
	var sum [sha256.Size]byte
	return "key:" + hex.EncodeToString(h.Sum(sum[:0])[:16])
}

type clientContextKey struct{}

// ContextWithClient returns a copy of ctx carrying c, the client a caller found for a request's
// X-API-Key in its own registry (the API's key gate, which checks every key anyway). A request
// with X-API-Key whose context carries a client is that client for the limiter, with its own
// limits, and WithAPIKeys' registry is not asked: the gate and the limiter cannot disagree about
// a key revoked between two lookups. c must not be nil.
func ContextWithClient(ctx context.Context, c *Client) context.Context {
	return context.WithValue(ctx, clientContextKey{}, c)
}
