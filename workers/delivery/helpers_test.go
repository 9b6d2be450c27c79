package delivery

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"relayer/domain"
	"relayer/domain/webhook"
	"relayer/eventstore"
	"relayer/eventstore/sqlite"
	"relayer/internal/syncbuf"
	"relayer/projections"
	"relayer/projections/projectionstest"
	"relayer/workers"
)

// dtKey is the tests' webhooks.secret_key.
const dtKey = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

// dtEnv is a SQLite log in a temporary directory, jobs driven through it with the Executor, and
// receivers that record what they are sent.
type dtEnv struct {
	t     testing.TB
	store *sqlite.Store
	exec  *projections.Executor
	codec *eventstore.Codec
	base  time.Time
	logs  *syncBuffer
}

func newDT(t testing.TB) *dtEnv {
	t.Helper()
	store := projectionstest.OpenStore(t)
	codec := projections.NewCodec()
	return &dtEnv{t: t, store: store, exec: &projections.Executor{Store: store, Codec: codec}, codec: codec,
		base: time.Now().UTC(), logs: &syncBuffer{}}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes (the service's log).
type syncBuffer = syncbuf.Buffer

// job drives a new input proof through its four transitions (processing, tx_in_flight,
// receipt_received, completed) and returns its id.
func (e *dtEnv) job(n int) domain.JobID {
	e.t.Helper()
	id := domain.NewJobID()
	at := func(d int) domain.At { return domain.At{At: e.base.Add(time.Duration(n*10+d) * time.Millisecond)} }
	req := domain.Request{InputProof: &domain.InputProofRequest{ContractChainID: 1337, ContractAddress: "0x01", UserAddress: "0x02", Ciphertext: "aa", ExtraData: "0x00"}}
	hash := fmt.Sprintf("0x%064x", n+1)
	for _, cmd := range []domain.Command{
		domain.Accept{At: at(0), JobID: id, Request: req, ContentHash: hash},
		domain.SignTransaction{At: at(1), From: "0xa1", Nonce: uint64(n), TxHash: fmt.Sprintf("0x%064x", 1000+n), RawTx: "0xf86c"},
		domain.RecordReceipt{At: at(2), TxHash: fmt.Sprintf("0x%064x", 1000+n), BlockNumber: 7, GatewayRequestID: fmt.Sprint(n)},
		domain.Complete{At: at(3), Result: domain.Result{InputProof: &domain.InputProofResult{Accepted: true, Handles: []string{}, Signatures: []string{}, ExtraData: "0x00"}}},
	} {
		if _, err := e.exec.Execute(context.Background(), id, cmd, eventstore.Metadata{}); err != nil {
			e.t.Fatalf("job %d: %s: %v", n, cmd.CommandName(), err)
		}
	}
	return id
}

// jobs runs n jobs, numbered from first.
func (e *dtEnv) jobs(first, n int) []domain.JobID {
	var ids []domain.JobID
	for i := range n {
		ids = append(ids, e.job(first+i))
	}
	return ids
}

func dtKeyOf(t testing.TB) webhook.Key {
	k, err := webhook.ParseKey(dtKey)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// change appends the event decide returns on the webhooks stream, as the admin API does.
func (e *dtEnv) change(decide func(webhook.Registry) (webhook.Event, error)) {
	e.t.Helper()
	f := eventstore.NewFolded(webhook.NewRegistry())
	if err := f.Catch(context.Background(), e.store, e.codec, webhook.Stream, foldRegistry); err != nil {
		e.t.Fatal(err)
	}
	if _, err := eventstore.Update(context.Background(), e.store, e.codec, webhook.Stream, &f, foldRegistry, func(r webhook.Registry) ([]eventstore.Typed, error) {
		ev, err := decide(r)
		return []eventstore.Typed{ev}, err
	}, eventstore.Metadata{}, nil, 3); err != nil {
		e.t.Fatal(err)
	}
}

// register registers an endpoint at url with filter, deliveries starting after the log's head,
// and returns its id and secret.
func (e *dtEnv) register(url string, filter webhook.Filter) (string, string) {
	e.t.Helper()
	id := fmt.Sprintf("ep-%d", time.Now().UnixNano())
	secret, err := webhook.NewSecret(rand.Reader)
	if err != nil {
		e.t.Fatal(err)
	}
	sealed, err := webhook.Seal(dtKeyOf(e.t), id, secret, rand.Reader)
	if err != nil {
		e.t.Fatal(err)
	}
	head, err := e.store.Head(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	e.change(func(r webhook.Registry) (webhook.Event, error) {
		return r.Register(webhook.Register{ID: id, URL: url, Filter: filter, Secret: sealed, After: uint64(head), Who: "admin-test", At: time.Now()})
	})
	return id, secret
}

// rotate gives endpoint id a new secret, the old one signing for overlap more.
func (e *dtEnv) rotate(id string, overlap time.Duration) string {
	e.t.Helper()
	secret, _ := webhook.NewSecret(rand.Reader)
	sealed, err := webhook.Seal(dtKeyOf(e.t), id, secret, rand.Reader)
	if err != nil {
		e.t.Fatal(err)
	}
	e.change(func(r webhook.Registry) (webhook.Event, error) {
		return r.Rotate(webhook.Rotate{ID: id, Secret: sealed, Overlap: overlap, Who: "admin-test", At: time.Now()})
	})
	return secret
}

// dtConfig is a configuration for tests: loopback allowed, short timeouts and retries.
func dtConfig() Config {
	return Config{
		Webhooks:   webhook.Config{SecretKey: dtKey, AllowPrivate: true, Timeout: 500 * time.Millisecond, RetryCap: 40 * time.Millisecond, DisableAfter: time.Hour},
		Checkpoint: workers.CheckpointConfig{Interval: 50 * time.Millisecond},
		Poll:       50 * time.Millisecond,
	}
}

// start runs a service with cfg over the env's store (deps.Store is set) until the test ends or
// the returned stop is called.
func (e *dtEnv) start(cfg Config, deps Deps) (*Service, func()) {
	e.t.Helper()
	deps.Store = e.store
	if deps.Logger == nil {
		deps.Logger = slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	s, err := New(cfg, deps)
	if err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					e.t.Errorf("Run: %v", err)
				}
			case <-time.After(15 * time.Second):
				e.t.Error("the service did not stop within 15 s")
			}
		})
	}
	e.t.Cleanup(stop)
	return s, stop
}

// transitions are every transition of the log, in order.
func (e *dtEnv) transitions() []projections.Transition {
	e.t.Helper()
	tr := projections.NewTransitions(e.codec, nil)
	var out []projections.Transition
	for rec, err := range e.store.ReadAll(context.Background(), 0) {
		if err != nil {
			e.t.Fatal(err)
		}
		if m, ok, err := tr.Next(context.Background(), rec); err != nil {
			e.t.Fatal(err)
		} else if ok {
			out = append(out, m)
		}
	}
	return out
}

// delivery is one request a receiver got.
type delivery struct {
	id, timestamp, signature string
	body                     []byte
	tr                       projections.Transition
	at                       time.Time
}

// receiver records what it is sent; answer decides each answer (nil: 204).
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []delivery
	answer func(n int, d delivery) int
}

func newReceiver(t testing.TB, answer func(n int, d delivery) int) *receiver {
	r := &receiver{answer: answer}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		d := delivery{id: req.Header.Get(webhook.HeaderID), timestamp: req.Header.Get(webhook.HeaderTimestamp),
			signature: req.Header.Get(webhook.HeaderSignature), body: b, at: time.Now()}
		_ = json.Unmarshal(b, &d.tr)
		r.mu.Lock()
		n := len(r.got)
		r.got = append(r.got, d)
		r.mu.Unlock()
		code := http.StatusNoContent
		if r.answer != nil {
			code = r.answer(n, d)
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// count is how many requests the receiver got.
func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

// waitFor waits until cond holds, failing the test after three times limit.
func waitFor(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	// Three times the limit the test names: a loaded CI machine is slow, and the wait ends as
	// soon as cond holds, so only a failing wait is longer.
	limit *= 3
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// firstDeliveries keeps the first delivery of each event id, in the order they came.
func firstDeliveries(ds []delivery) []delivery {
	seen := map[string]bool{}
	var out []delivery
	for _, d := range ds {
		if !seen[d.id] {
			seen[d.id] = true
			out = append(out, d)
		}
	}
	return out
}

// checkSigned checks that d carries a valid signature by one of secrets for every secret given.
func checkSigned(t testing.TB, d delivery, secrets ...string) {
	t.Helper()
	var ts int64
	if _, err := fmt.Sscan(d.timestamp, &ts); err != nil {
		t.Fatalf("webhook-timestamp %q", d.timestamp)
	}
	sigs := strings.Split(d.signature, " ")
	for _, s := range secrets {
		key, err := webhook.SecretKey(s)
		if err != nil {
			t.Fatal(err)
		}
		want := webhook.Sign(key, d.id, time.Unix(ts, 0), d.body)
		if !slices.Contains(sigs, want) {
			t.Fatalf("delivery %s is not signed with a secret it should be (signatures %q)", d.id, d.signature)
		}
	}
}

// metric reads one series of the service's collectors.
func metric(t testing.TB, s *Service, name, webhookID string) float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	for _, c := range s.Collectors() {
		if err := reg.Register(c); err != nil {
			t.Fatal(err)
		}
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "webhook" && l.GetValue() == webhookID {
					if m.GetCounter() != nil {
						return m.GetCounter().GetValue()
					}
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	return -1
}
