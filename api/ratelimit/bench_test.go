package ratelimit

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkAllow measures one allowed request through the core: Acquire and release, with both
// limits on and the rolling window sliding (every request pushes one timestamp and lets one go).
func BenchmarkAllow(b *testing.B) {
	cfg := DefaultConfig()
	cfg.RollingLimit, cfg.RollingWindowSeconds = 100_000, 1 // steady state: 50 000 in the window
	b.Run("one_client", func(b *testing.B) {
		l := mustNew(b, cfg)
		now := t0
		b.ReportAllocs()
		for b.Loop() {
			now = now.Add(20 * time.Microsecond)
			release, d := l.Acquire("client", ClassWrite, now)
			if !d.Allowed {
				b.Fatal(d)
			}
			release()
		}
	})
	// A client with limits of its own (an issued key's): resolved once, then as cheap.
	b.Run("one_client_own_limits", func(b *testing.B) {
		l := mustNew(b, cfg)
		c := &Client{Name: "partner", Limits: ClientLimits{Write: OwnLimits{RollingLimit: ptr(MaxLimit)}}}
		now := t0
		b.ReportAllocs()
		for b.Loop() {
			now = now.Add(20 * time.Microsecond)
			release, d := l.acquire("client", c, ClassWrite, now)
			if !d.Allowed {
				b.Fatal(d)
			}
			release()
		}
	})
	b.Run("1000_clients", func(b *testing.B) {
		l := mustNew(b, cfg)
		keys := make([]string, 1000)
		for i := range keys {
			keys[i] = fmt.Sprint("client-", i)
		}
		now := t0
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			now = now.Add(time.Microsecond)
			release, d := l.Acquire(keys[i%len(keys)], ClassWrite, now)
			if !d.Allowed {
				b.Fatal(d)
			}
			release()
			i++
		}
	})
	b.Run("parallel", func(b *testing.B) {
		c := cfg
		c.RollingLimit = 0 // the clock is frozen here; only the concurrency limit
		l := mustNew(b, c)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			key := fmt.Sprintf("client-%p", pb)
			for pb.Next() {
				release, d := l.Acquire(key, ClassWrite, t0)
				if !d.Allowed {
					b.Error(d)
					return
				}
				release()
			}
		})
	})
}

// BenchmarkDeny measures a denied request: the exact rolling hint, or the deny streak's backoff.
func BenchmarkDeny(b *testing.B) {
	b.Run("rolling", func(b *testing.B) {
		l := mustNew(b, cfgWith(0, 1, 10))
		l.Acquire("client", ClassWrite, t0)
		b.ReportAllocs()
		for b.Loop() {
			if _, d := l.Acquire("client", ClassWrite, t0); d.Allowed {
				b.Fatal(d)
			}
		}
	})
	b.Run("concurrency", func(b *testing.B) {
		l := mustNew(b, cfgWith(1, 0, 10))
		hold, _ := l.Acquire("client", ClassWrite, t0)
		defer hold()
		b.ReportAllocs()
		for b.Loop() {
			if _, d := l.Acquire("client", ClassWrite, t0); d.Allowed {
				b.Fatal(d)
			}
		}
	})
}

// BenchmarkMiddleware is an allowed request through the HTTP middleware (key derivation,
// headers), without the network.
func BenchmarkMiddleware(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Read.RollingLimit = nil
	cfg.RollingLimit = 0
	l := mustNew(b, cfg)
	h := l.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for _, withKey := range []bool{false, true} {
		b.Run(fmt.Sprint("api_key_", withKey), func(b *testing.B) {
			req := httptest.NewRequest("GET", "/v2/input-proof/x", nil)
			if withKey {
				req.Header.Set(APIKeyHeader, "sk_live_0123456789abcdef")
			}
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
			}
		})
	}
	// An issued key whose client, with limits of its own, the caller put in the context (as the
	// API's key gate does): its internal key and limits come from the client's cache.
	b.Run("api_key_client_in_context", func(b *testing.B) {
		req := httptest.NewRequest("GET", "/v2/input-proof/x", nil)
		req.Header.Set(APIKeyHeader, "sk_live_0123456789abcdef")
		c := &Client{Name: "partner", Limits: ClientLimits{Read: OwnLimits{ConcurrencyLimit: ptr(64)}}}
		req = req.WithContext(ContextWithClient(req.Context(), c))
		b.ReportAllocs()
		for b.Loop() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
		}
	})
}
