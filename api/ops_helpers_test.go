package api

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/projections/projectionstest"
)

// Helpers of the operator endpoints' tests (events, transitions, metrics, health, docs). Their
// names start with op so they cannot collide with the other test files of the package.

// opEnv is a server over a real SQLite store in a temporary directory and real projections that
// follow it, served over loopback HTTP. Every request carries the env's tuning (short
// heartbeats, small lag thresholds), and every /v1/transitions handler signals streamEnded when
// it returns.
type opEnv struct {
	t           *testing.T
	store       eventstore.Store
	set         *projections.Set
	srv         *Server
	ts          *httptest.Server
	exec        *projections.Executor
	tuning      opsTuning
	streamEnded chan struct{}
	// h gives the commands' times and runs them.
	h *projectionstest.Harness
}

// opConfig is DefaultConfig with the inbound rate limiter off: jtConfig with DefaultConfig's
// host chains.
func opConfig() Config {
	cfg := jtConfig()
	cfg.Validation = DefaultConfig().Validation
	return cfg
}

func startOps(t *testing.T, tuning opsTuning) *opEnv {
	t.Helper()
	h := projectionstest.New(t, projections.Config{})
	e := &opEnv{t: t, store: h.Store, set: h.Set, exec: h.Exec, h: h, tuning: tuning, streamEnded: make(chan struct{}, 64)}
	ctx, cancel := context.WithCancel(context.Background())
	var err error
	e.srv, err = New(ctx, opConfig(), Deps{Store: h.Store, Projections: h.Set})
	if err != nil {
		t.Fatal(err)
	}
	h2 := contractChecked(t, e.srv.Handler())
	e.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h2.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), opsTuningKey{}, e.tuning)))
		if r.URL.Path == "/v1/transitions" {
			e.streamEnded <- struct{}{}
		}
	}))
	t.Cleanup(func() {
		e.ts.Close()
		cancel()
	})
	return e
}

// opNewServer builds a server with opConfig over deps, without serving it; deps without
// projections gets new ones, which do not run.
func opNewServer(t *testing.T, deps Deps) (*Server, error) {
	t.Helper()
	if deps.Projections == nil {
		set, err := projections.New(projections.Config{})
		if err != nil {
			t.Fatal(err)
		}
		deps.Projections = set
	}
	return New(t.Context(), opConfig(), deps)
}

// opServer is opNewServer for a server that must build.
func opServer(t *testing.T, deps Deps) *Server {
	t.Helper()
	srv, err := opNewServer(t, deps)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// now returns the time of the next command.
func (e *opEnv) now() domain.At { return e.h.At() }

// run executes commands on job id in order, and waits for the projections to apply them.
func (e *opEnv) run(id domain.JobID, cmds ...domain.Command) {
	e.t.Helper()
	e.h.Run(e.t, id, cmds...)
}

// opRequest is a request of kind k; different n give different content hashes.
func opRequest(k domain.Kind, n int) domain.Request {
	handle := fmt.Sprintf("0x%064x", n+1)
	addr := fmt.Sprintf("0x%040x", n+1)
	switch k {
	case domain.InputProof:
		return domain.Request{InputProof: &domain.InputProofRequest{ContractChainID: 1337, ContractAddress: addr,
			UserAddress: addr, Ciphertext: fmt.Sprintf("0a%08x", n), ExtraData: "0x00"}}
	case domain.PublicDecrypt:
		return domain.Request{PublicDecrypt: &domain.PublicDecryptRequest{CiphertextHandles: []string{handle}, ExtraData: "0x00"}}
	default:
		return domain.Request{UserDecrypt: &domain.UserDecryptRequest{
			HandleContractPairs: []domain.HandleContractPair{{Handle: handle, ContractAddress: addr}},
			RequestValidity:     domain.RequestValidity{StartTimestamp: 1700000000, DurationDays: 1},
			ContractsChainID:    1337, ContractAddresses: []string{addr}, UserAddress: addr,
			Signature: strings.Repeat("ab", 65), PublicKey: "abcd", ExtraData: "0x00"}}
	}
}

// accept starts a job of kind k.
func (e *opEnv) accept(k domain.Kind, n int) domain.JobID {
	e.t.Helper()
	id := domain.NewJobID()
	req := opRequest(k, n)
	e.run(id, domain.Accept{At: e.now(), JobID: id, Request: req, ContentHash: domain.ContentHash(req)})
	return id
}

// toProcessing moves an accepted job to processing (decrypts pass readiness; input proofs start
// there).
func (e *opEnv) toProcessing(id domain.JobID, k domain.Kind) {
	e.t.Helper()
	if k.NeedsReadiness() {
		e.run(id, domain.StartReadiness{At: e.now()}, domain.PassReadiness{At: e.now()})
	}
}

// toReceipt moves a job in processing to receipt_received.
func (e *opEnv) toReceipt(id domain.JobID, n int) {
	e.t.Helper()
	tx := fmt.Sprintf("0x%064x", 1000+n)
	e.run(id,
		domain.SignTransaction{At: e.now(), From: "0x" + strings.Repeat("9", 40), Nonce: uint64(n), TxHash: tx, RawTx: "0x02f8"},
		domain.RecordReceipt{At: e.now(), TxHash: tx, BlockNumber: 7, GatewayRequestID: fmt.Sprint(n + 1)})
}

// complete completes a job in receipt_received.
func (e *opEnv) complete(id domain.JobID, k domain.Kind) {
	e.t.Helper()
	switch k {
	case domain.InputProof:
		e.run(id, domain.Complete{At: e.now(), Result: domain.Result{InputProof: &domain.InputProofResult{
			Accepted: true, Handles: []string{"0x01"}, Signatures: []string{"0x02"}, ExtraData: "0x00"}}})
	case domain.PublicDecrypt:
		e.run(id, domain.Complete{At: e.now(), Result: domain.Result{PublicDecrypt: &domain.PublicDecryptResult{
			DecryptedValue: "0x2a", Signatures: []string{"0x03"}, ExtraData: "0x00"}}})
	default:
		e.run(id, domain.RecordShare{At: e.now(), Threshold: 1, Share: domain.Share{Signer: "kms-1", Payload: "p", Signature: "s", ExtraData: "0x00"}})
	}
}

// lifecycle takes a new job of kind k all the way to completed.
func (e *opEnv) lifecycle(k domain.Kind, n int) domain.JobID {
	e.t.Helper()
	id := e.accept(k, n)
	e.toProcessing(id, k)
	e.toReceipt(id, n)
	e.complete(id, k)
	return id
}

// get does a GET and reads the whole answer.
func (e *opEnv) get(path string, header ...string) (int, http.Header, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.ts.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return res.StatusCode, res.Header, b
}

// wantBadFlag checks that GET /v1/transitions with flag=maybe (not a boolean) is refused with a
// 400 whose one detail names flag.
func (e *opEnv) wantBadFlag(flag string) {
	e.t.Helper()
	code, _, body := e.get("/v1/transitions?" + flag + "=maybe")
	var got Envelope
	if err := json.Unmarshal(body, &got); err != nil || code != http.StatusBadRequest || got.Error == nil ||
		len(got.Error.Details) != 1 || got.Error.Details[0].Field != flag {
		e.t.Fatalf("%s=maybe: %d %s", flag, code, body)
	}
}

// opGetJSON does a GET of path and decodes its answer as a T, failing the test when it does not
// decode; it returns the status, the answer and its body.
func opGetJSON[T any](e *opEnv, path string) (int, T, []byte) {
	e.t.Helper()
	code, _, body := e.get(path)
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		e.t.Fatalf("GET %s: the answer is not a %T: %v: %s", path, v, err, body)
	}
	return code, v, body
}

// head is the store's head.
func (e *opEnv) head() eventstore.Position {
	e.t.Helper()
	h, err := e.store.Head(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return h
}

// --- Server-Sent Events client --------------------------------------------------------------

// opSSEEvent is one thing a stream sent: an event (ID, Event, Data, Retry), or a comment.
type opSSEEvent struct {
	ID, Event, Data, Retry string
	Comment                string
}

// opStream is an open /v1/transitions stream, read by a goroutine into events.
type opStream struct {
	t      *testing.T
	res    *http.Response
	events chan opSSEEvent
	cancel context.CancelFunc
}

// openStream opens GET path and checks it is an event stream.
func (e *opEnv) openStream(path string, header ...string) *opStream {
	e.t.Helper()
	return opOpenStream(e.t, e.ts.URL+path, header...)
}

func opOpenStream(t *testing.T, url string, header ...string) *opStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		cancel()
		t.Fatalf("GET %s: %d %s: %s", url, res.StatusCode, res.Header.Get("Content-Type"), b)
	}
	s := &opStream{t: t, res: res, events: make(chan opSSEEvent, 1024), cancel: cancel}
	go s.read()
	t.Cleanup(s.close)
	return s
}

// read parses the stream (the text/event-stream format) until it ends, then closes events.
func (s *opStream) read() {
	defer close(s.events)
	sc := bufio.NewScanner(s.res.Body)
	var cur opSSEEvent
	pending := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if pending {
				s.events <- cur
			}
			cur, pending = opSSEEvent{}, false
		case strings.HasPrefix(line, ":"):
			s.events <- opSSEEvent{Comment: strings.TrimSpace(line[1:])}
		default:
			name, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			pending = true
			switch name {
			case "id":
				cur.ID = value
			case "event":
				cur.Event = value
			case "data":
				cur.Data += value
			case "retry":
				cur.Retry = value
			}
		}
	}
}

func (s *opStream) close() {
	s.cancel()
	s.res.Body.Close()
}

// next returns the next event or comment, failing the test after timeout; ok is false when the
// stream ended.
func (s *opStream) next(timeout time.Duration) (opSSEEvent, bool) {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		return ev, ok
	case <-time.After(timeout):
		s.t.Fatalf("nothing on the stream for %s", timeout)
		return opSSEEvent{}, false
	}
}

// transitions reads n transition events, skipping comments and the retry hint.
func (s *opStream) transitions(n int) []opTransition {
	s.t.Helper()
	var out []opTransition
	for len(out) < n {
		ev, ok := s.next(5 * time.Second)
		if !ok {
			s.t.Fatalf("the stream ended after %d of %d transitions", len(out), n)
		}
		if ev.Comment != "" || ev.Event == "" {
			continue
		}
		if ev.Event != "transition" {
			s.t.Fatalf("event %q, want transition", ev.Event)
		}
		var tr opTransition
		if err := json.Unmarshal([]byte(ev.Data), &tr); err != nil {
			s.t.Fatalf("data %q: %v", ev.Data, err)
		}
		if ev.ID != fmt.Sprint(tr.Position) {
			s.t.Fatalf("id %s but position %d", ev.ID, tr.Position)
		}
		tr.ID = ev.ID
		out = append(out, tr)
	}
	return out
}

// opEventData decodes the data of a stream event named name as a T, failing the test when the
// event has another name or its data a field T does not know.
func opEventData[T any](t *testing.T, ev opSSEEvent, name string) T {
	t.Helper()
	if ev.Event != name {
		t.Fatalf("event %q (%s), want %s", ev.Event, ev.Data, name)
	}
	var v T
	dec := json.NewDecoder(strings.NewReader(ev.Data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s data %q: %v", name, ev.Data, err)
	}
	return v
}

// quiet checks that no transition arrives within d (comments may).
func (s *opStream) quiet(d time.Duration) {
	s.t.Helper()
	deadline := time.After(d)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				s.t.Fatal("the stream ended")
			}
			if ev.Event != "" {
				s.t.Fatalf("unexpected event %+v", ev)
			}
		case <-deadline:
			return
		}
	}
}

// opTransition is a transition event's data, as the test reads it.
type opTransition struct {
	ID        string    `json:"-"`
	JobID     string    `json:"jobId"`
	Kind      string    `json:"kind"`
	From      string    `json:"from"`
	To        string    `json:"to"`
	EventType string    `json:"eventType"`
	At        time.Time `json:"at"`
	Version   int64     `json:"version"`
	Position  uint64    `json:"position"`
	Label     string    `json:"label"`
}

// opExpected computes, from the whole log (ReadAll), the transitions a stream that starts after
// position after must send, with the filter keep. From is set only where the stream can know it:
// for transitions of jobs whose previous transition the stream also saw (or an acceptance,
// which has none).
func (e *opEnv) opExpected(after eventstore.Position, keep func(kind, to string) bool) []opTransition {
	e.t.Helper()
	last := map[string]string{} // status after the job's latest transition
	seenAt := map[string]bool{} // the stream saw a transition of the job
	var out []opTransition
	for _, t := range projectionstest.Transitions(e.t, e.store) {
		j := t.Job.String()
		from := last[j]
		last[j] = t.To.String()
		if t.Rec.Position <= after {
			continue
		}
		tr := opTransition{ID: fmt.Sprint(t.Rec.Position), JobID: j, Kind: t.Kind.String(), To: t.To.String(), EventType: t.Rec.Type,
			At: t.Event.Header().At, Version: int64(t.Rec.Version), Position: uint64(t.Rec.Position), Label: domain.LabelOf(t.Event)}
		if seenAt[j] {
			tr.From = from
		}
		seenAt[j] = true
		if keep == nil || keep(tr.Kind, tr.To) {
			out = append(out, tr)
		}
	}
	return out
}

// opSameTransitions fails the test at the first difference.
func opSameTransitions(t *testing.T, what string, want, got []opTransition) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d transitions, want %d\ngot  %+v\nwant %+v", what, len(got), len(want), got, want)
	}
	for i := range want {
		w, g := want[i], got[i]
		if !w.At.Equal(g.At) {
			t.Fatalf("%s: transition %d at %s, want %s", what, i, g.At, w.At)
		}
		w.At, g.At = time.Time{}, time.Time{}
		if w != g {
			t.Fatalf("%s: transition %d:\ngot  %+v\nwant %+v", what, i, g, w)
		}
	}
}

// opDecode decodes a record into its domain event.
func opDecode(rec eventstore.Record) (domain.Event, error) {
	return projections.DecodeEvent(projections.NewCodec(), rec)
}
