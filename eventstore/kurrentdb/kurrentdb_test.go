package kurrentdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"testing"
	"time"

	"relayer/eventstore"
	"relayer/eventstore/storetest"
)

// envURL names the KurrentDB server the conformance suite runs against.
const envURL = "KURRENTDB_URL"

// startHint says how to run the conformance suite against a KurrentDB server.
const startHint = `no KurrentDB server: set ` + envURL + ` to run the conformance suite against one, e.g.
	docker run --rm -d -p 2113:2113 docker.kurrent.io/kurrent-latest/kurrentdb:latest --insecure --run-projections=All
	` + envURL + `='esdb://localhost:2113?tls=false' go test ./eventstore/kurrentdb/
Each case writes under a stream prefix of its own and leaves its events on the server: use a throwaway one.`

// newPrefix returns a stream prefix no other store uses.
func newPrefix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "storetest-" + hex.EncodeToString(b[:]) + "/"
}

// opener reaches stores under fresh stream prefixes of the server at url. A location is a
// prefix: it is all a child process needs besides the environment, from which TestMain takes
// the server, and it never shows the URL (nor a password in it) in a failure message.
func opener(url string, cfg Config) storetest.Opener {
	return storetest.Opener{
		New: func(testing.TB) string { return newPrefix() },
		Open: func(prefix string) (eventstore.Store, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cfg := cfg
			cfg.StreamPrefix = prefix
			return Open(ctx, url, cfg)
		},
	}
}

func TestMain(m *testing.M) {
	storetest.HelperProcess(opener(os.Getenv(envURL), Config{}))
	os.Exit(m.Run())
}

// TestConformance runs the conformance suite against the KurrentDB server KURRENTDB_URL names.
// Without one it skips, even under CI=true (where the postgres suite fails instead): no
// KurrentDB server runs on our CI machines, and none can be installed there, so CI never runs
// this suite. Run it by hand against a server of your own (startHint).
func TestConformance(t *testing.T) {
	url := os.Getenv(envURL)
	if url == "" {
		t.Skip(startHint)
	}
	storetest.Run(t, opener(url, Config{}), storetest.Features{
		CrossProcessDurability: true,
		SharedLocation:         true,
		// Head and ReadAll read past the events of every other case on the one server.
		Timeout: 60 * time.Second,
	})
}

// quiet is a logger for stores whose warnings a test provokes on purpose.
var quiet = slog.New(slog.DiscardHandler)

// TestConformanceOnFakeServer runs the suite against fakeServer, all cases on one server, each
// under its own prefix, as against a real one. It checks this package and its use of the client
// (the client's own code runs) against this package's reading of the server, not KurrentDB: see
// fakeServer. The cross-process cases need a server that outlives the test process; they run
// only in TestConformance.
func TestConformanceOnFakeServer(t *testing.T) {
	f := newFakeServer(t)
	storetest.Run(t, opener(f.url, Config{}), storetest.Features{SharedLocation: true, Timeout: 60 * time.Second}) // a bound for a loaded machine, as below
}

// TestConformanceOnFakeServerWithDropsAndSmallPages runs the suite again with small pages, so
// that page boundaries fall everywhere, and with a server that drops every subscription after a
// few events, so that every subscribing case resumes subscriptions many times: no event may be
// skipped or repeated across a resumption.
func TestConformanceOnFakeServerWithDropsAndSmallPages(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	f := newFakeServer(t)
	f.set(func(f *fakeServer) { f.dropEvery = 7 })
	cfg := Config{PageSize: 40, RetryInterval: time.Millisecond, Logger: quiet}
	storetest.Run(t, opener(f.url, cfg), storetest.Features{SharedLocation: true, Timeout: 60 * time.Second})
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subscriptions < 100 {
		t.Fatalf("the suite's subscriptions were resumed only %d times; the drops did not happen", f.subscriptions)
	}
}
