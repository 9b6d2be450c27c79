package workers

import (
	"context"
	"errors"
	"log/slog"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
)

// waitLimit bounds a wait for something that should happen soon; generous, for CI machines under
// load (a wait ends as soon as its condition holds).
const waitLimit = 30 * time.Second

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

var codec = projections.NewCodec()

// appendEvents appends events to job's stream and returns the position of the last one.
func appendEvents(t *testing.T, s eventstore.Store, job domain.JobID, expected eventstore.Version, corr string, evs ...domain.Event) eventstore.Position {
	t.Helper()
	var out []eventstore.Event
	for _, e := range evs {
		enc, err := codec.Encode(e, eventstore.Metadata{CorrelationID: corr, CausationID: "test"})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, enc)
	}
	pos, err := s.Append(context.Background(), job.Stream(), expected, out...)
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

func hdr(job domain.JobID) domain.EventHeader {
	return domain.EventHeader{JobID: job, At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func newTransport(t *testing.T) *Transport {
	t.Helper()
	tr, err := NewTransport(TransportConfig{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	return tr
}

// collector acknowledges and keeps every message of some topics.
type collector struct {
	mu   sync.Mutex
	msgs []*message.Message
}

func collect(t *testing.T, tr *Transport, topics ...string) *collector {
	t.Helper()
	c := &collector{}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, topic := range topics {
		ch, err := tr.Subscriber.Subscribe(ctx, topic)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range ch {
				c.mu.Lock()
				c.msgs = append(c.msgs, m)
				c.mu.Unlock()
				m.Ack()
			}
		}()
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
	return c
}

func (c *collector) snapshot() []*message.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*message.Message(nil), c.msgs...)
}

func (c *collector) waitFor(t *testing.T, n int) []*message.Message {
	t.Helper()
	eventually(t, func() bool { return len(c.snapshot()) >= n }, "collector to receive messages")
	return c.snapshot()
}

func eventually(t testing.TB, cond func() bool, what string) {
	t.Helper()
	eventuallyWithin(t, waitLimit, cond, what)
}

// eventuallyWithin is eventually with its own bound, for a condition that a backoff of the code
// under test may hold back longer than waitLimit.
func eventuallyWithin(t testing.TB, limit time.Duration, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// runDispatcher runs d until the returned stop is called (or the test ends); stop returns Run's
// error.
func runDispatcher(t *testing.T, d *Dispatcher) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() { cancel(); err = <-done })
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

// startRouter runs a router on tr with the handlers register adds, and waits until it runs.
func startRouter(t *testing.T, tr *Transport, cfg RouterConfig, register func(*Router)) *Router {
	t.Helper()
	r, err := NewRouter(cfg, tr, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	register(r)
	done := make(chan error, 1)
	go func() { done <- r.Run(context.Background()) }()
	select {
	case <-r.Running():
	case err := <-done:
		t.Fatalf("router stopped: %v", err)
	case <-time.After(waitLimit):
		t.Fatal("router did not start")
	}
	t.Cleanup(func() {
		_ = r.Close()
		if err := <-done; err != nil {
			t.Errorf("router: %v", err)
		}
	})
	return r
}

// crashableStore fails appends once crashed, as if the process died before writing.
type crashableStore struct {
	eventstore.Store
	crashed atomic.Bool
}

var errCrashed = errors.New("crashed")

func (s *crashableStore) Append(ctx context.Context, stream string, expected eventstore.Version, evs ...eventstore.Event) (eventstore.Position, error) {
	if s.crashed.Load() {
		return 0, errCrashed
	}
	return s.Store.Append(ctx, stream, expected, evs...)
}

// readStream reads stream back from s: each record and what decode makes of it.
func readStream[T any](t testing.TB, s eventstore.Store, stream string, decode func(eventstore.Record) (T, error)) ([]eventstore.Record, []T) {
	t.Helper()
	var recs []eventstore.Record
	var out []T
	for rec, err := range s.ReadStream(context.Background(), stream, 0) {
		if err != nil {
			t.Fatal(err)
		}
		v, err := decode(rec)
		if err != nil {
			t.Fatal(err)
		}
		recs, out = append(recs, rec), append(out, v)
	}
	return recs, out
}

// domainEvent decodes rec with the engine's codec, for readStream.
func (env *engineEnv) domainEvent(rec eventstore.Record) (domain.Event, error) {
	return projections.DecodeEvent(env.exec.Codec, rec)
}

// gather is every metric family of cs.
func gather(t *testing.T, cs []prometheus.Collector) []*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(cs...)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// findMetric is the metric name among cs with a label whose value is one match accepts, and
// whether there is one.
func findMetric(t *testing.T, cs []prometheus.Collector, name, label string, match func(string) bool) (*dto.Metric, bool) {
	t.Helper()
	for _, f := range gather(t, cs) {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && match(l.GetValue()) {
					return m, true
				}
			}
		}
	}
	return nil, false
}

// wantFeesRaised fails the test unless each fee of a replacement (the first of a pair) is at least
// percent above the fee it replaces (the second); what names the fee in the failure.
func wantFeesRaised(t *testing.T, what string, percent int64, fees [][2]*big.Int) {
	t.Helper()
	for _, f := range fees {
		if new(big.Int).Mul(f[0], big.NewInt(100)).Cmp(new(big.Int).Mul(f[1], big.NewInt(100+percent))) < 0 {
			t.Fatalf("%s %s is not %d%% above %s", what, f[0], percent, f[1])
		}
	}
}
