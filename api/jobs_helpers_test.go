package api

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/eventstore/sqlite"
	"relayer/internal/syncbuf"
	"relayer/projections"
)

// Helpers of the job, admin and server tests. Their names start with jt so they cannot collide
// with the other test files of the package.

// jtClock is a settable clock, safe for concurrent use.
type jtClock struct{ ns atomic.Int64 }

func newJTClock(t time.Time) *jtClock {
	c := &jtClock{}
	c.ns.Store(t.UnixNano())
	return c
}

func (c *jtClock) Now() time.Time               { return time.Unix(0, c.ns.Load()).UTC() }
func (c *jtClock) Set(t time.Time)              { c.ns.Store(t.UnixNano()) }
func (c *jtClock) Advance(d time.Duration)      { c.ns.Add(int64(d)) }
func (c *jtClock) At(d time.Duration) domain.At { return domain.At{At: c.Now().Add(d)} }

// jtEpoch is the tests' starting time.
var jtEpoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// jtStart is the user decrypts' validity start: a day before the test clock's epoch, so their
// 10-day windows hold while the tests run.
var jtStart = strconv.FormatInt(jtEpoch.Add(-24*time.Hour).Unix(), 10)

// jtEnv is a server over a real SQLite store in a temporary directory and real projections that
// follow it, served over loopback HTTP.
type jtEnv struct {
	t      testing.TB
	path   string
	cfg    Config
	store  eventstore.Store
	set    *projections.Set
	srv    *Server
	ts     *httptest.Server
	clock  *jtClock
	exec   *projections.Executor
	logs   *jtLogBuffer
	stop   context.CancelFunc
	runErr chan error
	// chain is Deps.Chain (nil: none); set by startJTChain.
	chain ChainChecks
	// openStore opens the store (nil: the SQLite file at path).
	openStore func() (eventstore.Store, error)
}

// jtConfig is DefaultConfig with the inbound rate limiter off (the tests send many requests
// from one address) unless a test turns it on.
func jtConfig() Config {
	cfg := DefaultConfig()
	cfg.RateLimit.ConcurrencyLimit = 0
	cfg.RateLimit.RollingLimit = 0
	zero := 0
	cfg.RateLimit.Read.RollingLimit = &zero
	cfg.RateLimit.Write.RollingLimit = &zero
	cfg.Validation.HostChainIDs = []uint64{1337, 8009}
	cfg.AuditOpen = true // as the development stack serves them; security_test.go closes them
	return cfg
}

func startJT(tb testing.TB, edit ...func(*Config)) *jtEnv {
	tb.Helper()
	return startJTChain(tb, nil, edit...)
}

// startJTChain is startJT with chain as the admission's chain port.
func startJTChain(tb testing.TB, chain ChainChecks, edit ...func(*Config)) *jtEnv {
	tb.Helper()
	return startJTWith(tb, chain, nil, edit...)
}

// startJTWith is startJT with chain as the admission's chain port and the store open opens
// (nil: a SQLite file in a temporary directory).
func startJTWith(tb testing.TB, chain ChainChecks, open func() (eventstore.Store, error), edit ...func(*Config)) *jtEnv {
	tb.Helper()
	cfg := jtConfig()
	for _, e := range edit {
		e(&cfg)
	}
	env := &jtEnv{t: tb, path: filepath.Join(tb.TempDir(), "relayer.db"), cfg: cfg, clock: newJTClock(jtEpoch), chain: chain, openStore: open}
	env.open()
	tb.Cleanup(env.close)
	return env
}

// open opens the store, runs the projections until they caught up, and starts the server.
func (e *jtEnv) open() {
	tb := e.t
	tb.Helper()
	var store eventstore.Store
	var err error
	if e.openStore != nil {
		store, err = e.openStore()
	} else {
		store, err = sqlite.Open(e.path, sqlite.Config{})
	}
	if err != nil {
		tb.Fatal(err)
	}
	set, err := projections.New(projections.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.store, e.set, e.stop, e.runErr = store, set, cancel, make(chan error, 1)
	go func() { e.runErr <- set.Run(ctx, store) }()
	head, err := store.Head(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if err := set.WaitFor(wctx, head); err != nil {
		tb.Fatal(err)
	}
	e.logs = &jtLogBuffer{}
	logger := slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if _, bench := tb.(*testing.B); bench {
		logger = slog.New(slog.DiscardHandler) // as a production server at level warn would
	}
	e.srv, err = New(ctx, e.cfg, Deps{Store: store, Projections: set, Now: e.clock.Now, Logger: logger, Chain: e.chain})
	if err != nil {
		tb.Fatal(err)
	}
	e.ts = httptest.NewServer(contractChecked(tb, e.srv.Handler()))
	e.exec = &projections.Executor{Store: store, Codec: projections.NewCodec()}
}

func (e *jtEnv) close() {
	if e.ts == nil {
		return
	}
	e.ts.Close()
	e.stop()
	if err := <-e.runErr; err != nil && !errors.Is(err, context.Canceled) {
		e.t.Errorf("projections stopped: %v", err)
	}
	if err := e.store.Close(); err != nil {
		e.t.Errorf("close store: %v", err)
	}
	e.ts = nil
}

// restart closes everything and opens a new server, new projections and the store again from
// the same file.
func (e *jtEnv) restart() {
	e.t.Helper()
	e.close()
	e.open()
}

// jtListen listens on a new loopback port, for a server a test runs itself.
func jtListen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// jtServing is a Server serving (Server.Serve) on a loopback port of its own, as serve runs it.
type jtServing struct {
	base   string             // the server's URL, http://127.0.0.1:port
	stop   context.CancelFunc // ends Serve's context: the server shuts down
	served chan error         // Serve's error, once it returned
}

// serveLoopback serves srv on a new loopback port until stop is called or the test ends.
func serveLoopback(t *testing.T, srv *Server) *jtServing {
	t.Helper()
	ln := jtListen(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s := &jtServing{base: "http://" + ln.Addr().String(), stop: cancel, served: make(chan error, 1)}
	go func() { s.served <- srv.Serve(ctx, ln) }()
	return s
}

// returned fails the test unless Serve returns, without an error, within 5 s of now; held says
// what would have held the shutdown up.
func (s *jtServing) returned(t *testing.T, held string) {
	t.Helper()
	select {
	case err := <-s.served:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("Serve did not return: %s", held)
	}
}

// jtLogBuffer collects the server's logs.
type jtLogBuffer = syncbuf.Buffer

// jtResponse is a response read whole.
type jtResponse struct {
	Code   int
	Header http.Header
	Body   []byte
	Env    jtEnvelope
}

// jtEnvelope is the envelope with result kept raw.
type jtEnvelope struct {
	Status    string          `json:"status"`
	RequestID string          `json:"requestId"`
	Result    json.RawMessage `json:"result"`
	Error     *struct {
		Label   string              `json:"label"`
		Message string              `json:"message"`
		Details []domain.FieldIssue `json:"details"`
		Cause   string              `json:"cause"`
	} `json:"error"`
	RetryAfterMs *int `json:"retryAfterMs"`
}

func (e *jtEnv) do(method, path string, body []byte, header ...string) jtResponse {
	e.t.Helper()
	return jtDo(e.t, http.DefaultClient, e.ts.URL, method, path, body, header...)
}

func jtDo(tb testing.TB, c *http.Client, base, method, path string, body []byte, header ...string) jtResponse {
	tb.Helper()
	r, err := jtTry(c, base, method, path, body, header...)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// jtTry is jtDo for goroutines other than the test's: it returns its error.
func jtTry(c *http.Client, base, method, path string, body []byte, header ...string) (jtResponse, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		return jtResponse{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json") // as clients send it; header may override
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		return jtResponse{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return jtResponse{}, err
	}
	r := jtResponse{Code: res.StatusCode, Header: res.Header, Body: b}
	if len(b) > 0 && b[0] == '{' {
		if err := json.Unmarshal(b, &r.Env); err != nil {
			return r, fmt.Errorf("%s %s: body is not an envelope: %v\n%s", method, path, err, b)
		}
	}
	return r, nil
}

// jtResult decodes r's result as a T, failing the test when it does not decode.
func jtResult[T any](tb testing.TB, r jtResponse) T {
	tb.Helper()
	var v T
	if err := json.Unmarshal(r.Env.Result, &v); err != nil {
		tb.Fatalf("result as %T: %v\n%s", v, err, r.Body)
	}
	return v
}

// jobIDOf is the result's jobId of a 202, or "".
func (r jtResponse) jobIDOf() string {
	var res struct {
		JobID string `json:"jobId"`
	}
	_ = json.Unmarshal(r.Env.Result, &res)
	return res.JobID
}

// jobID is the result's jobId of a 202.
func (r jtResponse) jobID(tb testing.TB) string {
	tb.Helper()
	var res struct {
		JobID string `json:"jobId"`
	}
	if err := json.Unmarshal(r.Env.Result, &res); err != nil || res.JobID == "" {
		tb.Fatalf("no jobId in %s", r.Body)
	}
	return res.JobID
}

func (r jtResponse) retryAfter(tb testing.TB) int {
	tb.Helper()
	var n int
	if _, err := fmt.Sscan(r.Header.Get("Retry-After"), &n); err != nil {
		tb.Fatalf("Retry-After %q: %v", r.Header.Get("Retry-After"), err)
	}
	return n
}

func (r jtResponse) want(tb testing.TB, code int, label string) {
	tb.Helper()
	if r.Code != code {
		tb.Fatalf("status %d, want %d: %s", r.Code, code, r.Body)
	}
	if label != "" && (r.Env.Error == nil || r.Env.Error.Label != label) {
		tb.Fatalf("want label %s: %s", label, r.Body)
	}
	if r.Env.RequestID == "" {
		tb.Fatalf("no requestId: %s", r.Body)
	}
}

// --- bodies -------------------------------------------------------------------------------

// jtHandle is a handle of host chain 1337 made from n.
func jtHandle(n uint64) string {
	var b [32]byte
	binary.BigEndian.PutUint64(b[0:8], n)
	b[8] = 0x5e
	binary.BigEndian.PutUint64(b[22:30], 1337)
	b[30] = 0x05
	return "0x" + hex.EncodeToString(b[:])
}

func jtAddr(n uint64) string { return fmt.Sprintf("0x%040x", n+1) }

// jtBody returns a valid body of kind k; different n give different content hashes.
func jtBody(k domain.Kind, n uint64) []byte {
	var m map[string]any
	switch k {
	case domain.InputProof:
		m = map[string]any{
			"contractChainId":                 1337,
			"contractAddress":                 jtAddr(1),
			"userAddress":                     jtAddr(2),
			"ciphertextWithInputVerification": fmt.Sprintf("0a%016x", n),
			"extraData":                       "0x00",
		}
	case domain.PublicDecrypt:
		m = map[string]any{"ciphertextHandles": []string{jtHandle(n)}, "extraData": "0x00"}
	case domain.DelegatedUserDecrypt:
		m = map[string]any{
			"handleContractPairs": []any{map[string]any{"handle": jtHandle(n), "contractAddress": jtAddr(1)}},
			"contractsChainId":    "1337",
			"contractAddresses":   []string{jtAddr(1)},
			"delegatorAddress":    jtAddr(2),
			"delegateAddress":     jtAddr(3),
			"startTimestamp":      jtStart,
			"durationDays":        "10",
			"signature":           fmt.Sprintf("%0128x1b", n+1),
			"publicKey":           "2000000000000000abcd",
			"extraData":           "0x00",
		}
	default:
		m = map[string]any{
			"handleContractPairs": []any{map[string]any{"handle": jtHandle(n), "contractAddress": jtAddr(1)}},
			"requestValidity":     map[string]any{"startTimestamp": jtStart, "durationDays": "10"},
			"contractsChainId":    1337,
			"contractAddresses":   []string{jtAddr(1)},
			"userAddress":         jtAddr(2),
			"signature":           fmt.Sprintf("%0128x1b", n+1),
			"publicKey":           "2000000000000000abcd",
			"extraData":           "0x00",
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// jtEdited applies edit (when not nil) to the body m and returns m as JSON.
func jtEdited(tb testing.TB, m map[string]any, edit func(m map[string]any)) []byte {
	tb.Helper()
	if edit != nil {
		edit(m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// jtRequest is the parsed request of jtBody(k, n).
func jtRequest(tb testing.TB, k domain.Kind, n uint64) domain.Request {
	tb.Helper()
	req, err := domain.ParseRequest(k, jtBody(k, n), domain.ValidationConfig{HostChainIDs: []uint64{1337}})
	if err != nil {
		tb.Fatal(err)
	}
	return req
}

// jtSubmitter submits distinct public decrypts, counting them so that no two share a job; each
// is sent as a client who, with the request header header(who) (none when who is "").
type jtSubmitter struct {
	env    *jtEnv
	header func(who string) []string
	n      uint64
}

// submit submits the next public decrypt as who.
func (s *jtSubmitter) submit(who string) jtResponse {
	s.env.t.Helper()
	s.n++
	var header []string
	if who != "" {
		header = s.header(who)
	}
	return s.env.do("POST", "/v2/public-decrypt", jtBody(domain.PublicDecrypt, s.n), header...)
}

// accepted submits n times as who and returns how many were accepted; every other answer must
// be 429 rate_limited.
func (s *jtSubmitter) accepted(t *testing.T, who string, n int) int {
	t.Helper()
	ok := 0
	for range n {
		switch r := s.submit(who); r.Code {
		case http.StatusAccepted:
			ok++
		case http.StatusTooManyRequests:
			r.want(t, http.StatusTooManyRequests, labelRateLimited)
		default:
			t.Fatalf("as %q: status %d: %s", who, r.Code, r.Body)
		}
	}
	return ok
}

// --- driving jobs -------------------------------------------------------------------------

// accept accepts a job of kind k directly through the Executor (as another instance would) at
// the clock's time, and waits for the projections to show it.
func (e *jtEnv) accept(k domain.Kind, n uint64) domain.JobID {
	e.t.Helper()
	req := jtRequest(e.t, k, n)
	id := domain.NewJobID()
	e.exec1(id, domain.Accept{At: e.clock.At(0), JobID: id, Request: req, ContentHash: domain.ContentHash(req)})
	return id
}

// exec1 executes commands on job id, in order, and waits for the projections to apply them.
func (e *jtEnv) exec1(id domain.JobID, cmds ...domain.Command) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, c := range cmds {
		out, err := e.exec.Execute(ctx, id, c, eventstore.Metadata{CorrelationID: "test"})
		if err != nil {
			e.t.Fatalf("%s on %s: %v", c.CommandName(), id, err)
		}
		if err := e.set.WaitFor(ctx, out.Position); err != nil {
			e.t.Fatal(err)
		}
	}
}

// Commands that move a job along, at the clock's time.
func (e *jtEnv) sign(n int) domain.SignTransaction {
	return domain.SignTransaction{At: e.clock.At(0), From: jtAddr(99), Nonce: uint64(n), TxHash: fmt.Sprintf("0x%064x", n+1), RawTx: "0x02f8"}
}

func (e *jtEnv) receipt(n int) domain.RecordReceipt {
	return domain.RecordReceipt{At: e.clock.At(0), TxHash: fmt.Sprintf("0x%064x", n+1), BlockNumber: 7, GatewayRequestID: fmt.Sprint(n + 1)}
}

// proofHint is the Retry-After, in seconds, of GET /v2/input-proof/<id>.
func (e *jtEnv) proofHint(id domain.JobID) int {
	e.t.Helper()
	return e.do("GET", "/v2/input-proof/"+id.String(), nil).retryAfter(e.t)
}

// appendTo encodes evs and appends them to stream at version expected, as a worker or the engine
// would, then waits until set has passed them; it returns the last one's position.
func appendTo(tb testing.TB, store eventstore.Store, set *projections.Set, stream string, expected eventstore.Version, evs ...eventstore.Typed) eventstore.Position {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	codec := projections.NewCodec()
	batch := make([]eventstore.Event, len(evs))
	for i, ev := range evs {
		enc, err := codec.Encode(ev, eventstore.Metadata{})
		if err != nil {
			tb.Fatal(err)
		}
		batch[i] = enc
	}
	pos, err := store.Append(ctx, stream, expected, batch...)
	if err != nil {
		tb.Fatal(err)
	}
	if err := set.WaitFor(ctx, pos); err != nil {
		tb.Fatalf("the projections did not pass the %s records: %v", stream, err)
	}
	return pos
}

// countEvents counts the events of type typ in the whole log.
func (e *jtEnv) countEvents(typ string) int {
	e.t.Helper()
	n := 0
	for rec, err := range e.store.ReadAll(context.Background(), 0) {
		if err != nil {
			e.t.Fatal(err)
		}
		if rec.Type == typ {
			n++
		}
	}
	return n
}
