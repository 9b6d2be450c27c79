package api

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/eventstore/postgres"
	"relayer/eventstore/postgres/pgtest"
)

// The API's benchmarks run real HTTP over loopback with benchConns keep-alive connections, one
// client goroutine each, against a real SQLite store and real projections. Run them with
//
//	go test -run '^$' -bench . -benchtime 100000x ./api/
//
// Each reports requests per second (req/s) and the latency percentiles of one request as the
// client sees it (p50-µs, p99-µs).

const benchConns = 64

// benchClient is a client with benchConns keep-alive connections.
func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConns: benchConns, MaxIdleConnsPerHost: benchConns, MaxConnsPerHost: benchConns,
		IdleConnTimeout: time.Minute, DisableCompression: true,
	}}
}

// loadResult is what one load measured.
type loadResult struct {
	n        int
	elapsed  time.Duration
	p50, p99 time.Duration
}

func (r loadResult) perSecond() float64 { return float64(r.n) / r.elapsed.Seconds() }

// add sums two loads; their latency percentiles are combined weighted by their counts.
func (r loadResult) add(o loadResult) loadResult {
	if r.n == 0 {
		return o
	}
	w := func(a, b time.Duration) time.Duration {
		return time.Duration((float64(a)*float64(r.n) + float64(b)*float64(o.n)) / float64(r.n+o.n))
	}
	return loadResult{n: r.n + o.n, elapsed: r.elapsed + o.elapsed, p50: w(r.p50, o.p50), p99: w(r.p99, o.p99)}
}

// benchRounds is how many rounds BenchmarkGetStatus alternates its two loads in.
const benchRounds = 10

// runLoad sends n requests from benchConns goroutines; req builds the i-th request and want is
// the status code every answer must have.
func runLoad(b testing.TB, c *http.Client, n int, req func(i int) *http.Request, want int) loadResult {
	b.Helper()
	return runConns(b, n, want, func() (func(i int) (int, error), func(), error) {
		send := func(i int) (int, error) {
			res, err := c.Do(req(i))
			if err != nil {
				return 0, err
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			return res.StatusCode, nil
		}
		return send, func() {}, nil
	})
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// runRawGets is runLoad for GETs with a minimal HTTP/1.1 client, as a load generator such as wrk
// would be: each of benchConns goroutines keeps one connection alive, writes a request, and reads
// the status line, the headers and the whole body (by Content-Length), checking the status. The
// benchmark runs client and server on the same cores, and net/http's client costs about as much
// CPU as the server; this one costs a fraction of it, so the server's own capacity shows.
func runRawGets(b testing.TB, base string, paths []string, n int, want int) loadResult {
	return runRaw(b, base, n, want, func(w *bufio.Writer, host string, i int) {
		fmt.Fprintf(w, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", paths[i%len(paths)], host)
	})
}

// runRaw sends n requests with runRawGets's minimal client: write writes the i-th request to
// the connection's buffer (which runRaw flushes), and every answer's status must be want.
func runRaw(b testing.TB, base string, n, want int, write func(w *bufio.Writer, host string, i int)) loadResult {
	b.Helper()
	u, err := url.Parse(base)
	if err != nil {
		b.Fatal(err)
	}
	return runConns(b, n, want, func() (func(i int) (int, error), func(), error) {
		conn, err := net.Dial("tcp", u.Host)
		if err != nil {
			return nil, nil, err
		}
		r := bufio.NewReaderSize(conn, 4096)
		w := bufio.NewWriterSize(conn, 1024)
		send := func(i int) (int, error) {
			write(w, u.Host, i)
			if err := w.Flush(); err != nil {
				return 0, err
			}
			return readRawResponse(r)
		}
		return send, func() { conn.Close() }, nil
	})
}

// runConns sends n requests from benchConns goroutines, each with a client of its own from open:
// send sends the i-th request and returns its status once the whole answer is read, and done
// releases the client. A request's latency is its send; every status must be want.
func runConns(b testing.TB, n, want int, open func() (send func(i int) (int, error), done func(), err error)) loadResult {
	b.Helper()
	var next atomic.Int64
	lat := make([][]time.Duration, benchConns)
	var failed atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for g := range benchConns {
		wg.Go(func() {
			send, done, err := open()
			if err != nil {
				failed.Store(err.Error())
				return
			}
			defer done()
			mine := make([]time.Duration, 0, n/benchConns+1)
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					break
				}
				t0 := time.Now()
				code, err := send(i)
				if err != nil {
					failed.Store(err.Error())
					break
				}
				mine = append(mine, time.Since(t0))
				if code != want {
					failed.Store(fmt.Sprintf("status %d, want %d", code, want))
					break
				}
			}
			lat[g] = mine
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	if f := failed.Load(); f != nil {
		b.Fatal(f)
	}
	return loadResult{n: n, elapsed: elapsed, p50: percentile(lat, 0.50), p99: percentile(lat, 0.99)}
}

// percentile is the p-quantile of the latencies every goroutine recorded (0 when there are none).
func percentile(lat [][]time.Duration, p float64) time.Duration {
	all := slices.Concat(lat...)
	if len(all) == 0 {
		return 0
	}
	slices.Sort(all)
	return all[min(len(all)-1, int(p*float64(len(all))))]
}

// readRawResponse reads one HTTP/1.1 response with a Content-Length body and returns its status.
func readRawResponse(r *bufio.Reader) (int, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	code, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	length := -1
	for {
		h, err := r.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if len(h) <= 2 {
			break
		}
		if name, value, ok := bytes.Cut(h, []byte(":")); ok && bytes.EqualFold(name, []byte("Content-Length")) {
			if length, err = strconv.Atoi(string(bytes.TrimSpace(value))); err != nil {
				return 0, fmt.Errorf("bad Content-Length %q", value)
			}
		}
	}
	if length < 0 {
		return 0, fmt.Errorf("response without Content-Length")
	}
	if _, err := r.Discard(length); err != nil {
		return 0, err
	}
	return code, nil
}

// BenchmarkGetStatus polls pending jobs (202 with Retry-After, the hot path of a polling client)
// and, in the same run and with the same load, two trivial handlers: one writing a small fixed
// JSON envelope (ratio: the status GET's rate over its), and one writing a fixed copy of a real
// status answer, the same headers and the same body bytes (ratio-same-answer: what the relayer's
// own work costs, without the cost of the answer's longer text to both ends of the connection).
func BenchmarkGetStatus(b *testing.B) {
	benchStores(b, benchGetStatus)
}

// benchStores runs bench on each store: SQLite, and PostgreSQL in a fresh schema.
func benchStores(b *testing.B, bench func(b *testing.B, open func() (eventstore.Store, error))) {
	b.Run("store=sqlite", func(b *testing.B) { bench(b, nil) })
	b.Run("store=postgres", func(b *testing.B) {
		url := pgtest.URL(b, "relayer_api_bench")
		bench(b, func() (eventstore.Store, error) { return postgres.Open(context.Background(), url, postgres.Config{}) })
	})
}

func benchGetStatus(b *testing.B, open func() (eventstore.Store, error)) {
	env := startJTWith(b, nil, open)
	const jobs = 2000
	paths := make([]string, jobs)
	for i := range jobs {
		k := allKinds()[i%3]
		paths[i] = "/v2/" + k.String() + "/" + env.accept(k, uint64(i)).String()
	}
	trivialBody := []byte(`{"status":"queued","requestId":"00000000-0000-4000-8000-000000000000","result":{"jobId":"00000000-0000-4000-8000-000000000001"}}` + "\n")
	trivial := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write(trivialBody)
	}))
	defer trivial.Close()
	answer := httptest.NewRecorder()
	env.srv.Handler().ServeHTTP(answer, httptest.NewRequest(http.MethodGet, paths[0], nil))
	if answer.Code != http.StatusAccepted {
		b.Fatalf("status %d, want %d", answer.Code, http.StatusAccepted)
	}
	same := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header()["Content-Type"] = answer.Header()["Content-Type"]
		w.Header()["Retry-After"] = answer.Header()["Retry-After"]
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write(answer.Body.Bytes())
	}))
	defer same.Close()
	// Warm up the servers' connections.
	for _, url := range []string{trivial.URL, same.URL, env.ts.URL} {
		runRawGets(b, url, paths, 2*benchConns, http.StatusAccepted)
	}

	// The loads alternate in rounds, so that a change in what else the machine does weighs on
	// all alike and the ratios stay fair.
	b.ResetTimer()
	var tr, sa, st loadResult
	for r := range benchRounds {
		n := b.N / benchRounds
		if r < b.N%benchRounds {
			n++
		}
		tr = tr.add(runRawGets(b, trivial.URL, paths, n, http.StatusAccepted))
		sa = sa.add(runRawGets(b, same.URL, paths, n, http.StatusAccepted))
		st = st.add(runRawGets(b, env.ts.URL, paths, n, http.StatusAccepted))
	}
	b.StopTimer()
	b.ReportMetric(st.perSecond(), "req/s")
	b.ReportMetric(us(st.p50), "p50-µs")
	b.ReportMetric(us(st.p99), "p99-µs")
	b.ReportMetric(tr.perSecond(), "trivial-req/s")
	b.ReportMetric(us(tr.p50), "trivial-p50-µs")
	b.ReportMetric(us(tr.p99), "trivial-p99-µs")
	b.ReportMetric(st.perSecond()/tr.perSecond(), "ratio")
	b.ReportMetric(sa.perSecond(), "same-answer-req/s")
	b.ReportMetric(st.perSecond()/sa.perSecond(), "ratio-same-answer")
}

// BenchmarkGetStatusHandler is BenchmarkGetStatus's server side alone: the API's handler (its
// middleware, the mux, the inbound limiter, the poll) answering pending jobs' status in process,
// with no connection and no client. Its ns/op and allocs/op are what the relayer itself spends on
// a status GET, which on a shared machine the ratio of the other shows only through much noise.
func BenchmarkGetStatusHandler(b *testing.B) {
	env := startJTWith(b, nil, nil)
	reqs := make([]*http.Request, 64)
	for i := range reqs {
		k := allKinds()[i%3]
		reqs[i] = httptest.NewRequest("GET", "/v2/"+k.String()+"/"+env.accept(k, uint64(i)).String(), nil)
	}
	h := env.srv.Handler()
	w := &discardWriter{header: http.Header{}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		clear(w.header)
		w.code = 0
		h.ServeHTTP(w, reqs[i%len(reqs)])
		if w.code != http.StatusAccepted {
			b.Fatalf("status %d, want %d", w.code, http.StatusAccepted)
		}
	}
}

// discardWriter is a ResponseWriter that keeps the status code and the header and drops the body.
type discardWriter struct {
	header http.Header
	code   int
}

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }

// BenchmarkPostDurable submits distinct input proofs (no deduplication): each is an acceptance
// appended durably, then waited for in the projections, before its 202. It uses net/http's client.
func BenchmarkPostDurable(b *testing.B) {
	benchStores(b, benchPostDurable)
}

func benchPostDurable(b *testing.B, open func() (eventstore.Store, error)) {
	// No load shedding: nothing drains the queue here.
	env := startJTWith(b, nil, open, func(c *Config) { c.QueueCapacity = MaxQueueCapacity })
	c := benchClient()
	defer c.CloseIdleConnections()
	var round atomic.Int64
	post := func(i int) *http.Request {
		r, _ := http.NewRequest("POST", env.ts.URL+"/v2/input-proof", bytes.NewReader(benchProofBody(round.Load(), i)))
		r.Header.Set("Content-Type", "application/json")
		return r
	}
	runLoad(b, c, 2*benchConns, post, http.StatusAccepted)
	round.Add(1)
	b.ResetTimer()
	st := runLoad(b, c, b.N, post, http.StatusAccepted)
	b.StopTimer()
	round.Add(1)
	reportPosts(b, env, st)
}

// benchProofBody is the i-th input proof of a round: every (round, i) a distinct request.
func benchProofBody(round int64, i int) []byte {
	return fmt.Appendf(nil, `{"contractChainId":1337,"contractAddress":"0x0000000000000000000000000000000000000002","userAddress":"0x0000000000000000000000000000000000000003","ciphertextWithInputVerification":"0b%08x%016x","extraData":"0x00"}`, round, i)
}

// reportPosts reports a POST load's rate and latencies, after checking that the projections
// hold a job for each of the b.N submissions.
func reportPosts(b *testing.B, env *jtEnv, st loadResult) {
	b.ReportMetric(st.perSecond(), "req/s")
	b.ReportMetric(us(st.p50), "p50-µs")
	b.ReportMetric(us(st.p99), "p99-µs")
	if n := env.set.Counts().InStatus(domain.Processing); n < b.N {
		b.Fatalf("%d jobs in the projections after %d submissions", n, b.N)
	}
}

// BenchmarkPostDurableRawClient is BenchmarkPostDurable on SQLite with runRawGets's minimal
// HTTP/1.1 client instead of net/http's: the same bodies, each acceptance durable before its
// 202. Client and server share the machine's cores, and net/http's client costs a good part of
// what a POST costs in all; this one costs a fraction of it, so the server's own capacity shows
// (the target: a durable POST rate of at least 20k/s).
func BenchmarkPostDurableRawClient(b *testing.B) {
	env := startJTWith(b, nil, nil, func(c *Config) { c.QueueCapacity = MaxQueueCapacity })
	var round atomic.Int64
	post := func(w *bufio.Writer, host string, i int) {
		body := benchProofBody(round.Load(), i)
		fmt.Fprintf(w, "POST /v2/input-proof HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", host, len(body))
		_, _ = w.Write(body)
	}
	runRaw(b, env.ts.URL, 2*benchConns, http.StatusAccepted, post)
	round.Add(1)
	b.ResetTimer()
	st := runRaw(b, env.ts.URL, b.N, http.StatusAccepted, post)
	b.StopTimer()
	round.Add(1)
	reportPosts(b, env, st)
}

// BenchmarkPostDurableUserDecrypt submits distinct user decrypts, each signed as the public SDK
// signs it, with the admission's signature check off and on (the same bodies): what the check
// costs a durable POST. The bodies are signed before the timer starts.
func BenchmarkPostDurableUserDecrypt(b *testing.B) {
	for _, verify := range []bool{false, true} {
		name := "verify=off"
		if verify {
			name = "verify=on"
		}
		b.Run(name, func(b *testing.B) {
			env := startJT(b, func(c *Config) {
				c.QueueCapacity = MaxQueueCapacity
				admConfig(c)
				c.Admission.VerifySignatures = verify
			})
			c := benchClient()
			defer c.CloseIdleConnections()
			user := admKey(b, "bench user")
			warm := 2 * benchConns
			bodies := make([][]byte, warm+b.N)
			for i := range bodies {
				bodies[i] = admBody(b, domain.UserDecrypt, uint64(i), admAddr(user), user, nil)
			}
			post := func(off int) func(i int) *http.Request {
				return func(i int) *http.Request {
					r, _ := http.NewRequest("POST", env.ts.URL+"/v2/user-decrypt", bytes.NewReader(bodies[off+i]))
					r.Header.Set("Content-Type", "application/json")
					return r
				}
			}
			runLoad(b, c, warm, post(0), http.StatusAccepted)
			b.ResetTimer()
			st := runLoad(b, c, b.N, post(warm), http.StatusAccepted)
			b.StopTimer()
			b.ReportMetric(st.perSecond(), "req/s")
			b.ReportMetric(us(st.p50), "p50-µs")
			b.ReportMetric(us(st.p99), "p99-µs")
		})
	}
}

// BenchmarkLongPollWaiters has 10,000 clients long-poll at once (GET ...?wait=60 over raw TCP
// connections from a child process, one pending job each), then moves every job on. It reports
// the server process's live heap and goroutine stack per waiting client, its CPU use while they
// all wait and nothing happens (cores: 0.01 is 1 % of one core) beside the same measure before
// they came, and the wake-up latency, from each job's append returning to its client reading
// the answer. It measures once whatever b.N (its ns/op means nothing); run it with
//
//	go test -run '^$' -bench LongPollWaiters -benchtime 1x ./api/
func BenchmarkLongPollWaiters(b *testing.B) {
	const n = 10_000
	r := lpMeasureWaiters(b, n)
	b.ReportMetric(r.heapPerWaiter, "heap-B/waiter")
	b.ReportMetric(r.stackPerWaiter, "stack-B/waiter")
	b.ReportMetric(r.goroutinesPerWaiter, "goroutines/waiter")
	b.ReportMetric(r.idleCoresBefore, "idle-cores-before")
	b.ReportMetric(r.idleCoresWaiting, "idle-cores-waiting")
	b.ReportMetric(float64(r.p50)/float64(time.Millisecond), "wake-p50-ms")
	b.ReportMetric(float64(r.p99)/float64(time.Millisecond), "wake-p99-ms")
	b.ReportMetric(float64(r.max)/float64(time.Millisecond), "wake-max-ms")
	b.ReportMetric(float64(r.p50FromStart)/float64(time.Millisecond), "wake-p50-from-append-start-ms")
	b.ReportMetric(float64(r.p99FromStart)/float64(time.Millisecond), "wake-p99-from-append-start-ms")
	b.ReportMetric(r.changesPerSecond, "changes/s")
}
