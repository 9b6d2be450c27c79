package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"relayer/workers/devchain/faultproxy"
	"relayer/workers/devchain/faultproxy/faultproxytest"
	"relayer/workers/gateway"
)

// newFaultProxy puts a fault proxy (refuse, blackhole) in front of the shared chain's HTTP
// endpoint.
func newFaultProxy(t *testing.T) *faultproxy.Proxy {
	t.Helper()
	return faultproxytest.Start(t, shared.HTTPEndpoint())
}

// dialThrough dials an adapter to the shared chain through proxy, over HTTP only.
func dialThrough(t *testing.T, proxy *faultproxy.Proxy, mod func(*gateway.Config)) *gateway.Adapter {
	t.Helper()
	return dial(t, nextKey(t), func(c *gateway.Config) {
		c.RPCURL, c.WSURL = proxy.URL(), ""
		if mod != nil {
			mod(c)
		}
	})
}

func TestACallToABlackholedNodeEndsWithinTheCallTimeoutAndConnectionsStayBounded(t *testing.T) {
	t.Parallel()
	const callTimeout = time.Second
	proxy := newFaultProxy(t)
	ad := dialThrough(t, proxy, func(c *gateway.Config) { c.CallTimeout = callTimeout })
	handle := [32]byte{1}
	if _, err := ad.ACLAllowed(testContext(t), handle, common.Address{2}); err != nil {
		t.Fatalf("through the proxy before the fault: %v", err)
	}

	faultproxytest.SetMode(t, proxy, faultproxy.Blackhole)
	before := proxy.Accepted()
	// The callers' context has no deadline of its own.
	ctx := testContext(t)
	const calls = 400
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	start := time.Now()
	for range calls {
		wg.Go(func() {
			_, err := ad.ACLAllowed(ctx, handle, common.Address{2})
			errs <- err
		})
	}
	wg.Wait()
	took := time.Since(start)
	close(errs)
	if took > callTimeout+4*time.Second {
		t.Errorf("the slowest of %d calls to a blackholed node took %v; the call timeout is %v", calls, took, callTimeout)
	}
	for err := range errs {
		if !errors.Is(err, gateway.ErrTransport) {
			t.Fatalf("a call to a blackholed node: got %v, want ErrTransport (the node's silence, not the caller's cancellation)", err)
		}
		// No answer within the call timeout, or, once the outage is seen, no connection tried.
		var te *gateway.CallTimeoutError
		var ue *gateway.UnreachableError
		if !errors.As(err, &te) && !errors.As(err, &ue) {
			t.Fatalf("want a *CallTimeoutError or an *UnreachableError in %v", err)
		}
	}
	// The adapter keeps at most 64 connections for calls (and 2 for the health probe), and opens
	// none once the outage is seen (the first timeouts): the calls still queued then fail at
	// once instead of each dialling the black hole in turn. Without the bound, every call has a
	// connection of its own.
	accepted := proxy.Accepted() - before
	t.Logf("%d concurrent calls to a blackholed node: %d connections accepted; all ended after %v", calls, accepted, took)
	if accepted > 64+16 { // + the probe's, and dials started as the outage was being seen
		t.Errorf("%d concurrent calls to a blackholed node opened %d connections; want at most 64 and the probe's", calls, accepted)
	}
}

// outageLog collects an adapter's outage changes.
type outageLog struct {
	mu      sync.Mutex
	changes []gateway.OutageChange
	signal  chan struct{}
}

func watchOutages(t *testing.T, ad *gateway.Adapter) *outageLog {
	l := &outageLog{signal: make(chan struct{}, 16)}
	t.Cleanup(ad.OnOutage(func(c gateway.OutageChange) {
		l.mu.Lock()
		l.changes = append(l.changes, c)
		l.mu.Unlock()
		l.signal <- struct{}{}
	}))
	return l
}

// await waits up to within for the n-th change and returns it with how long it took.
func (l *outageLog) await(t *testing.T, n int, within time.Duration) (gateway.OutageChange, time.Duration) {
	t.Helper()
	start := time.Now()
	deadline := time.After(within)
	for {
		l.mu.Lock()
		if len(l.changes) >= n {
			c := l.changes[n-1]
			l.mu.Unlock()
			return c, time.Since(start)
		}
		l.mu.Unlock()
		select {
		case <-l.signal:
		case <-deadline:
			t.Fatalf("no outage change #%d within %v; changes so far %+v", n, within, l.snapshot())
		}
	}
}

func (l *outageLog) snapshot() []gateway.OutageChange {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]gateway.OutageChange(nil), l.changes...)
}

func TestAnOutageIsReportedWithinSecondsOfItsStartAndOfItsEndOnceEachForARefusingAndABlackholedNode(t *testing.T) {
	t.Parallel()
	proxy := newFaultProxy(t)
	ad := dialThrough(t, proxy, nil) // the default call timeout; the probe's is 2s
	key := ad.WithKey(gateway.NewSigner(nextKey(t)))
	t.Cleanup(key.Close)
	changes := watchOutages(t, ad)
	if h := ad.Health(); !h.Reachable || h.LastSuccess.IsZero() || h.HeadAt.IsZero() {
		t.Fatalf("a fresh adapter: %+v", h)
	}
	// The specification is 5 s each way; the bound leaves room for a loaded machine.
	const within = 10 * time.Second

	for _, fault := range []faultproxy.Mode{faultproxy.Refuse, faultproxy.Blackhole} {
		n := len(changes.snapshot())
		faultAt := time.Now()
		faultproxytest.SetMode(t, proxy, fault)
		down, took := changes.await(t, n+1, within)
		if !down.Down || down.At.Before(faultAt.Add(-probeSlack)) || !down.Since.Equal(down.At) {
			t.Fatalf("%s: the first change is %+v; want the outage's start, after the fault at %v", fault, down, faultAt)
		}
		t.Logf("%s: outage seen after %v (starts %v after the fault)", fault, took, down.At.Sub(faultAt))
		for _, a := range []*gateway.Adapter{ad, key} {
			if h := a.Health(); h.Reachable || !h.Since.Equal(down.Since) {
				t.Fatalf("%s: health during the outage %+v (a WithKey adapter shares its parent's)", fault, h)
			}
		}

		endAt := time.Now()
		faultproxytest.SetMode(t, proxy, faultproxy.Pass)
		up, took := changes.await(t, n+2, within)
		if up.Down || !up.Since.Equal(down.Since) || up.At.Before(endAt) || up.Duration() <= 0 {
			t.Fatalf("%s: the second change is %+v; want the end of the outage that started at %v", fault, up, down.Since)
		}
		t.Logf("%s: end seen after %v; outage %v", fault, took, up.Duration())
		if h := ad.Health(); !h.Reachable || !h.Since.IsZero() || h.LastSuccess.Before(up.At) {
			t.Fatalf("%s: health after the outage %+v", fault, h)
		}
	}
	// Once each: nothing more while the node answers.
	time.Sleep(1500 * time.Millisecond)
	if got := changes.snapshot(); len(got) != 4 {
		t.Fatalf("want exactly a start and an end per fault, got %+v", got)
	}
	if h := ad.Health(); h.Outages != 2 {
		t.Fatalf("outages counted %d, want 2", h.Outages)
	}
}

// probeSlack allows for a probe sent just before the fault that fails because of it.
const probeSlack = 3 * time.Second

func TestTheChainHealthMetricsFollowAnOutage(t *testing.T) {
	t.Parallel()
	proxy := newFaultProxy(t)
	ad := dialThrough(t, proxy, nil)
	changes := watchOutages(t, ad)
	value := func(name string) float64 {
		t.Helper()
		for _, c := range ad.Collectors() {
			ch := make(chan prometheus.Metric, 64) // a provider collector sends several
			c.Collect(ch)
			close(ch)
			for m := range ch {
				if !strings.Contains(m.Desc().String(), `"`+name+`"`) {
					continue
				}
				var out dto.Metric
				if err := m.Write(&out); err != nil {
					t.Fatal(err)
				}
				if out.Counter != nil {
					return out.Counter.GetValue()
				}
				return out.Gauge.GetValue()
			}
		}
		t.Fatalf("no metric %s", name)
		return 0
	}
	if value("relayer_chain_reachable") != 1 || value("relayer_chain_outages_total") != 0 ||
		value("relayer_chain_last_success_timestamp_seconds") < float64(time.Now().Add(-time.Minute).Unix()) ||
		value("relayer_chain_head_age_seconds") < 0 {
		t.Fatal("before the outage: want reachable, no outage, a recent success and a head")
	}
	faultproxytest.SetMode(t, proxy, faultproxy.Refuse)
	changes.await(t, 1, 10*time.Second)
	if value("relayer_chain_reachable") != 0 || value("relayer_chain_outages_total") != 1 {
		t.Fatal("during the outage: want unreachable and one outage")
	}
	faultproxytest.SetMode(t, proxy, faultproxy.Pass)
	changes.await(t, 2, 10*time.Second)
	if value("relayer_chain_reachable") != 1 || value("relayer_chain_outages_total") != 1 {
		t.Fatal("after the outage: want reachable and one outage")
	}
}

func TestACallerDeadlineLongerThanTheCallTimeoutIsCutToIt(t *testing.T) {
	t.Parallel()
	proxy := newFaultProxy(t)
	ad := dialThrough(t, proxy, func(c *gateway.Config) { c.CallTimeout = time.Second })
	faultproxytest.SetMode(t, proxy, faultproxy.Blackhole)
	// The caller's own deadline, first, stays ErrCanceled (the outage is not seen yet).
	ctx, cancel := context.WithTimeout(testContext(t), 100*time.Millisecond)
	defer cancel()
	if _, err := ad.HeadCursor(ctx); !errors.Is(err, gateway.ErrCanceled) {
		t.Fatalf("the caller's deadline first: %v, want ErrCanceled", err)
	}
	ctx, cancel = context.WithTimeout(testContext(t), time.Minute)
	defer cancel()
	start := time.Now()
	_, err := ad.HeadCursor(ctx)
	if took := time.Since(start); !errors.Is(err, gateway.ErrTransport) || took > 6*time.Second {
		t.Fatalf("HeadCursor on a blackholed node with a minute's deadline: %v after %v; want ErrTransport after about 1s", err, took)
	}
}

// A burst of calls larger than the adapter's connection pool, to a node that answers each in
// 300 ms: calls that time out while still waiting for a connection of the relayer's own pool
// never reached the node, and start no outage (an outage would stop the calls draining the
// burst, as every held send does after a real outage). The node's answer is the chain's own
// head, read once and served from memory, so that its pace is the test's, not the machine's.
func TestCallsThatTimeOutWaitingForAConnectionStartNoOutage(t *testing.T) {
	t.Parallel()
	direct, err := rpc.Dial(shared.HTTPEndpoint())
	if err != nil {
		t.Fatal(err)
	}
	var head json.RawMessage
	if err := direct.Call(&head, "eth_getBlockByNumber", "latest", false); err != nil {
		t.Fatal(err)
	}
	direct.Close()
	p := newRPCProxy(t, shared.HTTPEndpoint())
	p.setHook(func(w http.ResponseWriter, method string, id json.RawMessage) bool {
		if method != "eth_getBlockByNumber" {
			return false
		}
		time.Sleep(300 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, head)
		return true
	})
	ad := dial(t, nextKey(t), func(c *gateway.Config) { c.RPCURL, c.WSURL, c.CallTimeout = p.srv.URL, "", 2*time.Second })
	outages := watchOutages(t, ad)
	ctx := testContext(t)
	var wg sync.WaitGroup
	var ok, timedOut atomic.Int64
	for range 640 { // ten rounds of the pool's 64 connections at 300 ms: 3 s, past the 2 s timeout
		wg.Go(func() {
			if _, err := ad.HeadCursor(ctx); err == nil {
				ok.Add(1)
			} else if errors.Is(err, gateway.ErrTransport) {
				timedOut.Add(1)
			}
		})
	}
	wg.Wait()
	t.Logf("%d calls answered, %d timed out waiting for a connection", ok.Load(), timedOut.Load())
	if timedOut.Load() == 0 || ok.Load() == 0 {
		t.Fatalf("%d answered, %d timed out: the burst did not congest the pool, the test proves nothing", ok.Load(), timedOut.Load())
	}
	if got := outages.snapshot(); len(got) != 0 || !ad.Health().Reachable {
		t.Fatalf("congestion of the relayer's own pool started an outage: %+v", got)
	}
}
