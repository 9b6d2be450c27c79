package main

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"relayer/domain"
	"relayer/workers/devchain/devnet"
	"relayer/workers/gateway/contracts"
	"relayer/workers/upstream"
)

const loadgenUsage = `Usage: relayer loadgen [--url http://127.0.0.1:8080] [--rate 2] [--duration 1m | --jobs N]
                       [--mix input-proof=1,public-decrypt=1,user-decrypt=1] [--scenarios none=1]
                       [--poll-interval 1s] [--wait 25] [--json]
                       [--admin-token T --nominal-factor F] [--operator-token T]

Offers jobs to a relayer at a steady rate, a mix of kinds and development-chain scenarios, and
follows every job with three kinds of client side by side: one that waits as long as each
Retry-After says, one that polls every --poll-interval, and one that long-polls until the job ends (?until=done&wait=). For
each kind of client it reports the status requests per job, the lag from the job's terminal
event to the moment the client saw it (mean and p90), that lag as a share of the mean job
duration, and its errors. The terminal event's time comes from GET /v1/jobs/{jobId}/events,
open to this machine on a development stack, else given the operator token
(--operator-token or RELAYER_OPERATOR_TOKEN). The requests are made for the development chain
(handles and ciphertexts of host chain 1337, user decrypts signed by development user keys).

With --admin-token (or RELAYER_ADMIN_TOKEN), --nominal-factor F first multiplies every nominal
time of the Retry-After policy (nominal_* in /admin/config) by F, to show how the hints cope
with a configuration that is wrong, and puts them back when the run ends.
`

// loadClient is one kind of client that follows a job.
type loadClient int

const (
	obeysRetryAfter loadClient = iota // sleeps as long as each Retry-After says
	pollsFixed                        // polls every --poll-interval
	longPolls                         // GET ?until=done&wait=N, again at once while the job is pending
	loadClients
)

func (c loadClient) String() string {
	return [...]string{"retry-after", "fixed-interval", "long-poll"}[c]
}

// loadConfig is what the flags ask of a run.
type loadConfig struct {
	url           string
	rate          float64
	duration      time.Duration // 0 when jobs is set
	jobs          int           // 0 when duration is set
	mix           []weighted[domain.Kind]
	scenarios     []weighted[contracts.Scenario]
	pollInterval  time.Duration
	wait          int // long-poll seconds
	follow        time.Duration
	json          bool
	adminToken    string
	operatorToken string
	nominalFactor float64
	decryption    string
	seed          uint64
}

type weighted[T any] struct {
	name   string
	value  T
	weight float64
}

// runLoadgen is `relayer loadgen`.
func runLoadgen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseLoadgenFlags(args, stdout, stderr)
	if err != nil {
		return err
	}
	lg := newLoadgen(cfg)
	if cfg.nominalFactor != 1 {
		restore, err := lg.scaleNominal(ctx, stderr)
		if err != nil {
			return &exitError{code: 1, err: fmt.Errorf("loadgen: --nominal-factor: %w", err)}
		}
		defer restore()
	}
	rep := lg.run(ctx)
	if cfg.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		rep.print(stdout)
	}
	if ctx.Err() != nil {
		return &exitError{code: 1, err: errors.New("loadgen: interrupted; the report covers the jobs offered so far")}
	}
	if rep.JobsOffered > 0 && rep.JobsAccepted == 0 {
		// A dead or wrong --url, or a relayer refusing everything: a script must not pass.
		return &exitError{code: 1, err: fmt.Errorf("loadgen: none of the %d jobs offered was accepted (the report says why)", rep.JobsOffered)}
	}
	return nil
}

func parseLoadgenFlags(args []string, stdout, stderr io.Writer) (loadConfig, error) {
	fs := newFlagSet("loadgen", loadgenUsage)
	cfg := loadConfig{}
	fs.StringVar(&cfg.url, "url", "http://127.0.0.1:8080", "the relayer's base `URL`")
	fs.Float64Var(&cfg.rate, "rate", 2, "jobs offered per second")
	fs.DurationVar(&cfg.duration, "duration", 0, "how long jobs are offered (default 1m unless --jobs is given)")
	fs.IntVar(&cfg.jobs, "jobs", 0, "how many jobs are offered (instead of --duration)")
	mix := fs.String("mix", "input-proof=1,public-decrypt=1,user-decrypt=1", "the kinds offered, with their weights")
	scenarios := fs.String("scenarios", "none=1", "the development-chain scenarios of the jobs, with their weights: none, 01 (denied or rejected), 02 (never ready), 03 (no response), 04 (ready after 5 s), 05 (reverts)")
	fs.DurationVar(&cfg.pollInterval, "poll-interval", time.Second, "how often the fixed-interval client polls")
	fs.IntVar(&cfg.wait, "wait", 25, "the long-poll client's wait, in whole `seconds` (1 to 60; the relayer may grant less)")
	fs.DurationVar(&cfg.follow, "follow", 2*time.Minute, "how long a client follows a job before it gives up (an error)")
	fs.BoolVar(&cfg.json, "json", false, "print the report as JSON, for scripts")
	fs.StringVar(&cfg.adminToken, "admin-token", "", "the admin API's bearer token (env RELAYER_ADMIN_TOKEN, preferred), for --nominal-factor")
	fs.StringVar(&cfg.operatorToken, "operator-token", "", "the operator token (env RELAYER_OPERATOR_TOKEN, preferred), to read job histories where the audit endpoints are closed")
	fs.Float64Var(&cfg.nominalFactor, "nominal-factor", 1, "multiply every nominal time of the Retry-After policy by this during the run (needs the admin token)")
	fs.StringVar(&cfg.decryption, "decryption", devnet.DecryptionAddress().Hex(), "the Decryption contract users sign user decrypts for (the development chain's by default)")
	fs.Uint64Var(&cfg.seed, "seed", 1, "random seed of the kinds' and scenarios' draws")
	if err := parseFlagsOnly(fs, args, stdout, stderr); err != nil {
		return cfg, err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if cfg.adminToken == "" {
		cfg.adminToken = os.Getenv("RELAYER_ADMIN_TOKEN")
	}
	if cfg.operatorToken == "" {
		cfg.operatorToken = os.Getenv("RELAYER_OPERATOR_TOKEN")
	}

	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if u, err := url.Parse(cfg.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("--url must be an http or https URL such as http://127.0.0.1:8080, got %s", shownURL(cfg.url))
	}
	cfg.url = strings.TrimRight(cfg.url, "/")
	if !(cfg.rate > 0 && cfg.rate <= 1000) {
		bad("--rate must be more than 0 and at most 1000 jobs a second, got %v", cfg.rate)
	}
	switch {
	case given["duration"] && given["jobs"]:
		bad("--duration and --jobs: give one of them, not both")
	case given["jobs"] && (cfg.jobs < 1 || cfg.jobs > 1_000_000):
		bad("--jobs must be from 1 to 1000000, got %d", cfg.jobs)
	case given["duration"] && (cfg.duration <= 0 || cfg.duration > 24*time.Hour):
		bad("--duration must be more than 0 and at most 24h, got %v", cfg.duration)
	case !given["duration"] && !given["jobs"]:
		cfg.duration = time.Minute
	}
	var err error
	if cfg.mix, err = parseWeights(*mix, parseLoadKind); err != nil {
		bad("--mix: %v", err)
	}
	if cfg.scenarios, err = parseWeights(*scenarios, parseLoadScenario); err != nil {
		bad("--scenarios: %v", err)
	}
	if cfg.pollInterval < 10*time.Millisecond || cfg.pollInterval > time.Hour {
		bad("--poll-interval must be from 10ms to 1h, got %v", cfg.pollInterval)
	}
	if cfg.wait < 1 || cfg.wait > 60 {
		bad("--wait must be a whole number of seconds from 1 to 60, got %d", cfg.wait)
	}
	if cfg.follow < time.Second {
		bad("--follow must be at least 1s, got %v", cfg.follow)
	}
	if !(cfg.nominalFactor > 0 && cfg.nominalFactor <= 100) {
		bad("--nominal-factor must be more than 0 and at most 100, got %v", cfg.nominalFactor)
	} else if cfg.nominalFactor != 1 && cfg.adminToken == "" {
		bad("--nominal-factor %v needs the admin token (--admin-token or RELAYER_ADMIN_TOKEN)", cfg.nominalFactor)
	}
	if !common.IsHexAddress(cfg.decryption) {
		bad("--decryption must be a contract address (0x and 40 hex digits), got %q", cfg.decryption)
	}
	if len(problems) > 0 {
		return cfg, usageErrorf("loadgen: %s", strings.Join(problems, "; "))
	}
	return cfg, nil
}

// parseWeights reads "name=weight,name=weight" (a bare name weighs 1).
func parseWeights[T any](s string, parse func(string) (T, error)) ([]weighted[T], error) {
	var out []weighted[T]
	total := 0.0
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, w, hasWeight := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		v, err := parse(name)
		if err != nil {
			return nil, err
		}
		weight := 1.0
		if hasWeight {
			weight, err = strconv.ParseFloat(strings.TrimSpace(w), 64)
			if err != nil || weight < 0 || math.IsInf(weight, 0) || math.IsNaN(weight) {
				return nil, fmt.Errorf("the weight of %s must be a number >= 0, got %q", name, w)
			}
		}
		if slices.ContainsFunc(out, func(x weighted[T]) bool { return x.name == name }) {
			return nil, fmt.Errorf("%s is given twice", name)
		}
		out = append(out, weighted[T]{name: name, value: v, weight: weight})
		total += weight
	}
	if total <= 0 {
		return nil, fmt.Errorf("no weight above 0 in %q", s)
	}
	return out, nil
}

// loadKinds are the kinds loadgen can offer: a delegated user decrypt needs a delegation on the
// chain first.
var loadKinds = []domain.Kind{domain.InputProof, domain.PublicDecrypt, domain.UserDecrypt}

func parseLoadKind(s string) (domain.Kind, error) {
	for _, k := range loadKinds {
		if k.String() == s {
			return k, nil
		}
	}
	return domain.Kind{}, fmt.Errorf("unknown kind %q (want input-proof, public-decrypt or user-decrypt)", s)
}

func parseLoadScenario(s string) (contracts.Scenario, error) {
	if s == "none" || s == "00" {
		return contracts.ScenarioNone, nil
	}
	for sc := contracts.ScenarioDenied; sc <= contracts.ScenarioRevert; sc++ {
		if s == fmt.Sprintf("%02x", uint8(sc)) {
			return sc, nil
		}
	}
	return contracts.ScenarioNone, fmt.Errorf("unknown scenario %q (want none, 01, 02, 03, 04 or 05)", s)
}

func pick[T any](rng *rand.Rand, ws []weighted[T]) weighted[T] {
	total := 0.0
	for _, w := range ws {
		total += w.weight
	}
	x := rng.Float64() * total
	for _, w := range ws {
		if x < w.weight {
			return w
		}
		x -= w.weight
	}
	return ws[len(ws)-1]
}

// loadgen runs one load.
type loadgen struct {
	cfg    loadConfig
	client *http.Client
	runID  string // makes this run's handles and ciphertexts its own
}

func newLoadgen(cfg loadConfig) *loadgen {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 1024, 1024
	return &loadgen{
		cfg:    cfg,
		client: &http.Client{Transport: tr, Timeout: time.Duration(cfg.wait)*time.Second + 30*time.Second},
		runID:  strconv.FormatInt(time.Now().UnixNano(), 36),
	}
}

// loadJob is one job offered, and what each client saw of it.
type loadJob struct {
	index    int
	kind     weighted[domain.Kind]
	scenario weighted[contracts.Scenario]

	refused string // why the submission was not accepted ("" when it was)
	id      string
	posted  time.Time     // when the 202 arrived
	hint    time.Duration // the 202's Retry-After

	watch [loadClients]loadWatch

	// From the job's history: when it was accepted and when it ended, and how.
	accepted, ended time.Time
	status          string
	historyErr      string
}

// loadWatch is what one client saw of a job.
type loadWatch struct {
	requests    int
	rateLimited int
	errors      int
	seen        time.Time // when it received the job's final answer (zero: never)
}

func (lg *loadgen) run(ctx context.Context) *loadReport {
	start := time.Now()
	rng := rand.New(rand.NewPCG(lg.cfg.seed, 0x10ad))
	interval := time.Duration(float64(time.Second) / lg.cfg.rate)
	var jobs []*loadJob
	var wg sync.WaitGroup
	for i := 0; lg.cfg.jobs == 0 || i < lg.cfg.jobs; i++ {
		at := start.Add(time.Duration(i) * interval)
		if lg.cfg.jobs == 0 && at.Sub(start) >= lg.cfg.duration {
			break
		}
		if !pause(ctx, time.Until(at)) {
			break
		}
		j := &loadJob{index: i, kind: pick(rng, lg.cfg.mix), scenario: pick(rng, lg.cfg.scenarios)}
		jobs = append(jobs, j)
		wg.Go(func() { lg.drive(ctx, j) })
	}
	offered := time.Since(start)
	wg.Wait()
	return lg.report(jobs, offered)
}

// drive submits one job, follows it with every kind of client and reads its history.
func (lg *loadgen) drive(ctx context.Context, j *loadJob) {
	body, err := lg.body(j)
	if err != nil {
		j.refused = "body: " + err.Error()
		return
	}
	res, err := lg.do(ctx, http.MethodPost, lg.cfg.url+"/v2/"+j.kind.value.String(), body, "")
	if err != nil {
		j.refused = err.Error()
		return
	}
	if res.code != http.StatusAccepted {
		j.refused = fmt.Sprintf("%d %s", res.code, res.label())
		return
	}
	var env struct {
		Result struct {
			JobID string `json:"jobId"`
		} `json:"result"`
	}
	if err := json.Unmarshal(res.body, &env); err != nil || env.Result.JobID == "" {
		j.refused = "202 without a job id"
		return
	}
	j.id, j.posted, j.hint = env.Result.JobID, res.at, res.retryAfter(time.Second)
	var wg sync.WaitGroup
	for c := range loadClients {
		wg.Go(func() { j.watch[c] = lg.follow(ctx, j, c) })
	}
	wg.Wait()
	lg.history(ctx, j)
}

// follow is one client following job j until it sees its final answer, or gives up.
func (lg *loadgen) follow(ctx context.Context, j *loadJob, c loadClient) loadWatch {
	var w loadWatch
	status := lg.cfg.url + "/v2/" + j.kind.value.String() + "/" + j.id
	var delay time.Duration // before the first GET: the POST's hint, the interval, or none
	switch c {
	case obeysRetryAfter:
		delay = j.hint
	case pollsFixed:
		delay = lg.cfg.pollInterval
	case longPolls:
		status += "?until=done&wait=" + strconv.Itoa(lg.cfg.wait) // one request for the answer (api: until)
	}
	giveUp := j.posted.Add(lg.cfg.follow)
	for {
		if !pause(ctx, delay) {
			w.errors++ // interrupted before the end
			return w
		}
		if time.Now().After(giveUp) {
			w.errors++
			return w
		}
		res, err := lg.do(ctx, http.MethodGet, status, nil, "")
		w.requests++
		switch {
		case err != nil:
			w.errors++
			delay = lg.cfg.pollInterval
			continue
		case res.code == http.StatusOK || res.final(j.id):
			w.seen = res.at
			return w
		case res.code == http.StatusNotFound && res.archived():
			// The job ended and left the live store before this client saw its end (a
			// retention window shorter than the client's wait): asking again cannot help.
			w.errors++
			return w
		case res.code == http.StatusAccepted:
			switch c {
			case obeysRetryAfter:
				delay = res.retryAfter(time.Second)
			case pollsFixed:
				delay = lg.cfg.pollInterval
			case longPolls:
				delay = 0
			}
		case res.code == http.StatusTooManyRequests:
			w.rateLimited++
			delay = res.retryAfter(time.Second)
		default:
			w.errors++
			delay = lg.cfg.pollInterval
		}
	}
}

// history reads the job's events: when it was accepted, and its terminal event.
func (lg *loadgen) history(ctx context.Context, j *loadJob) {
	token := lg.cfg.operatorToken
	token = cmp.Or(token, lg.cfg.adminToken)
	for attempt := 0; ; attempt++ {
		res, err := lg.do(ctx, http.MethodGet, lg.cfg.url+"/v1/jobs/"+j.id+"/events", nil, token)
		if err != nil {
			j.historyErr = err.Error()
			return
		}
		if res.code == http.StatusTooManyRequests && attempt < 10 {
			if !pause(ctx, res.retryAfter(time.Second)) {
				j.historyErr = "interrupted"
				return
			}
			continue
		}
		if res.code != http.StatusOK {
			j.historyErr = fmt.Sprintf("GET /v1/jobs/{jobId}/events: %d %s", res.code, res.label())
			return
		}
		var env struct {
			Result struct {
				Events []struct {
					RecordedAt  time.Time `json:"recordedAt"`
					StatusAfter string    `json:"statusAfter"`
				} `json:"events"`
			} `json:"result"`
		}
		if err := json.Unmarshal(res.body, &env); err != nil || len(env.Result.Events) == 0 {
			j.historyErr = "an unreadable job history"
			return
		}
		evs := env.Result.Events
		j.accepted = evs[0].RecordedAt
		for _, e := range evs {
			if s, err := domain.ParseStatus(e.StatusAfter); err == nil && s.Terminal() {
				j.ended, j.status = e.RecordedAt, e.StatusAfter
			}
		}
		if j.ended.IsZero() {
			j.historyErr = "no terminal event in the job's history"
		}
		return
	}
}

// body is the request of job j, valid for the development chain: unique handles and
// ciphertexts of host chain 1337 carrying the job's scenario, user decrypts signed by a
// development user key.
func (lg *loadgen) body(j *loadJob) ([]byte, error) {
	seed := fmt.Sprintf("loadgen/%s/%d", lg.runID, j.index)
	s := j.scenario.value
	contract := "0x00000000000000000000000000000000000000c0"
	switch j.kind.value {
	case domain.InputProof:
		return json.Marshal(map[string]any{
			"contractChainId": devnet.ChainID, "contractAddress": contract,
			"userAddress":                     "0x00000000000000000000000000000000000000a1",
			"ciphertextWithInputVerification": hex.EncodeToString(contracts.TestCiphertext(s, seed, 32)),
			"extraData":                       "0x00",
		})
	case domain.PublicDecrypt:
		h := contracts.TestHandle(s, seed)
		return json.Marshal(map[string]any{"ciphertextHandles": []string{"0x" + hex.EncodeToString(h[:])}, "extraData": "0x00"})
	case domain.UserDecrypt:
		h := contracts.TestHandle(s, seed)
		key := devnet.UserDevKey(j.index % 8)
		return signBodyFor(domain.UserDecrypt, map[string]any{
			"handleContractPairs": []any{map[string]any{"handle": "0x" + hex.EncodeToString(h[:]), "contractAddress": contract}},
			"requestValidity":     map[string]any{"startTimestamp": strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10), "durationDays": "1"},
			"contractsChainId":    devnet.ChainID,
			"contractAddresses":   []string{contract},
			"userAddress":         crypto.PubkeyToAddress(key.PublicKey).Hex(),
			"publicKey":           "2000000000000000abcd",
			"extraData":           "0x00",
		}, key, lg.cfg.decryption)
	}
	return nil, fmt.Errorf("loadgen does not offer %s", j.kind.value)
}

// signBodyFor returns body (a user decrypt or delegated user decrypt of kind, as JSON) with its
// "signature" made by key over the EIP-712 typed data the public SDK has users sign, under the
// Decryption contract decryption, as ethers (and so the SDK) sends it.
func signBodyFor(kind domain.Kind, body map[string]any, key *ecdsa.PrivateKey, decryption string) ([]byte, error) {
	body["signature"] = strings.Repeat("00", 65)
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := domain.ParseRequest(kind, raw, domain.ValidationConfig{HostChainIDs: []uint64{devnet.ChainID}})
	if err != nil {
		return nil, err
	}
	sr, ok, err := domain.SignedPart(req, decryption)
	if err != nil || !ok {
		return nil, fmt.Errorf("the typed data of a %s: ok %v, %v", kind, ok, err)
	}
	sig, err := crypto.Sign(sr.Digest[:], key)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	body["signature"] = hex.EncodeToString(sig)
	return json.Marshal(body)
}

// loadResponse is one answer, read whole.
type loadResponse struct {
	code   int
	header http.Header
	body   []byte
	at     time.Time // when it was read
}

// do sends body (JSON, or nil) to u with token, and reads the whole answer.
func (lg *loadgen) do(ctx context.Context, method, u string, body []byte, token string) (loadResponse, error) {
	req, err := apiRequest(ctx, method, u, body, token)
	if err != nil {
		return loadResponse{}, err
	}
	res, err := lg.client.Do(req)
	if err != nil {
		return loadResponse{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return loadResponse{}, err
	}
	return loadResponse{code: res.StatusCode, header: res.Header, body: b, at: time.Now()}, nil
}

// retryAfter is the answer's Retry-After (delay-seconds or an HTTP date), or fallback.
func (r loadResponse) retryAfter(fallback time.Duration) time.Duration {
	v := strings.TrimSpace(r.header.Get("Retry-After"))
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return fallback
}

// final says whether a failed answer is job id's own end (a timeout, a revert, a denial), as
// opposed to a refusal of the request (rate limited, not found, an internal error).
func (r loadResponse) final(id string) bool {
	var env struct {
		Status string `json:"status"`
		Error  struct {
			JobID string `json:"jobId"`
		} `json:"error"`
	}
	return r.code >= 400 && json.Unmarshal(r.body, &env) == nil && env.Status == "failed" && env.Error.JobID == id
}

// archived reports whether r is the relayer's 404 for a job its archiver retired.
func (r loadResponse) archived() bool {
	var env struct {
		Error struct {
			Label   string `json:"label"`
			Message string `json:"message"`
		} `json:"error"`
	}
	return r.code == http.StatusNotFound && json.Unmarshal(r.body, &env) == nil &&
		env.Error.Label == "not_found" && strings.Contains(env.Error.Message, "was archived")
}

func (r loadResponse) label() string {
	var env struct {
		Error struct {
			Label string `json:"label"`
		} `json:"error"`
	}
	if json.Unmarshal(r.body, &env) == nil && env.Error.Label != "" {
		return env.Error.Label
	}
	return http.StatusText(r.code)
}

// scaleNominal multiplies every nominal time of the Retry-After policy by the factor through
// /admin/config, and returns what puts them back.
func (lg *loadgen) scaleNominal(ctx context.Context, log io.Writer) (restore func(), err error) {
	res, err := lg.do(ctx, http.MethodGet, lg.cfg.url+"/admin/config", nil, lg.cfg.adminToken)
	if err != nil {
		return nil, err
	}
	if res.code != http.StatusOK {
		return nil, fmt.Errorf("GET /admin/config: %d %s", res.code, res.label())
	}
	var env struct {
		Result struct {
			Params []struct {
				Name  string `json:"name"`
				Value any    `json:"value"`
				Unit  string `json:"unit"`
			} `json:"params"`
		} `json:"result"`
	}
	if err := json.Unmarshal(res.body, &env); err != nil {
		return nil, fmt.Errorf("GET /admin/config: %w", err)
	}
	type change struct {
		name     string
		old, new float64
	}
	var changes []change
	for _, p := range env.Result.Params {
		v, isNumber := p.Value.(float64)
		if !strings.HasPrefix(p.Name, "nominal_") || !isNumber {
			continue
		}
		scaled := v * lg.cfg.nominalFactor
		switch p.Unit {
		case "ms":
			scaled = math.Round(scaled)
		default: // seconds, to the millisecond the policy keeps
			scaled = math.Round(scaled*1000) / 1000
		}
		changes = append(changes, change{p.Name, v, scaled})
	}
	if len(changes) == 0 {
		return nil, errors.New("GET /admin/config lists no nominal_* parameter")
	}
	set := func(ctx context.Context, name string, v float64) error {
		body, _ := json.Marshal(map[string]any{"param": name, "value": v})
		res, err := lg.do(ctx, http.MethodPost, lg.cfg.url+"/admin/config", body, lg.cfg.adminToken)
		if err != nil {
			return err
		}
		if res.code != http.StatusOK {
			return fmt.Errorf("POST /admin/config %s=%v: %d %s", name, v, res.code, res.label())
		}
		return nil
	}
	restore = func() {
		// Put back even after an interrupt: a fresh deadline, not the run's context.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, c := range changes {
			if err := set(ctx, c.name, c.old); err != nil {
				fmt.Fprintf(log, "loadgen: could not put %s back to %v: %v\n", c.name, c.old, err)
			}
		}
	}
	for i, c := range changes {
		if err := set(ctx, c.name, c.new); err != nil {
			changes = changes[:i]
			restore()
			return nil, err
		}
		fmt.Fprintf(log, "loadgen: %s %v -> %v for the run\n", c.name, c.old, c.new)
	}
	return restore, nil
}

// loadReport is the run's report; its JSON is loadgen --json's output.
type loadReport struct {
	URL                 string             `json:"url"`
	RatePerSecond       float64            `json:"ratePerSecond"`
	OfferedSeconds      float64            `json:"offeredSeconds"`
	Mix                 map[string]float64 `json:"mix"`
	Scenarios           map[string]float64 `json:"scenarios"`
	PollIntervalSeconds float64            `json:"pollIntervalSeconds"`
	LongPollWaitSeconds int                `json:"longPollWaitSeconds"`
	NominalFactor       float64            `json:"nominalFactor"`
	JobsOffered         int                `json:"jobsOffered"`
	JobsAccepted        int                `json:"jobsAccepted"`
	// Refused counts the submissions not accepted, by reason ("429 rate_limited", ...).
	Refused map[string]int `json:"refused"`
	// Terminal counts the accepted jobs by their final status, from their histories;
	// HistoryErrors the jobs whose history could not be read (no lag is known for them).
	Terminal      map[string]int        `json:"terminal"`
	HistoryErrors int                   `json:"historyErrors"`
	JobDurationMs loadStats             `json:"jobDurationMs"`
	ByKind        map[string]*kindStats `json:"byKind"`
	Clients       []clientReport        `json:"clients"`
}

// loadStats summarise durations in milliseconds.
type loadStats struct {
	N    int     `json:"n"`
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P90  float64 `json:"p90"`
	Max  float64 `json:"max"`
}

type kindStats struct {
	Jobs          int                    `json:"jobs"`
	JobDurationMs loadStats              `json:"jobDurationMs"`
	Clients       map[string]clientBrief `json:"clients"`
}

type clientBrief struct {
	RequestsPerJob float64 `json:"requestsPerJob"`
	LagMeanMs      float64 `json:"lagMeanMs"`
}

// clientReport is what one kind of client saw over the run.
type clientReport struct {
	Client string `json:"client"`
	// Jobs are the accepted jobs it followed; Seen those whose final answer it received.
	Jobs int `json:"jobs"`
	Seen int `json:"seen"`
	// Requests are its status requests (GETs), RequestsPerJob their mean per job followed.
	Requests       int     `json:"requests"`
	RequestsPerJob float64 `json:"requestsPerJob"`
	// LagMs is from each job's terminal event to the moment the client had the final answer.
	LagMs loadStats `json:"lagMs"`
	// LagShare is the mean lag over the mean job duration (accepted to terminal), of the jobs
	// whose lag is known.
	LagShare    float64 `json:"lagShare"`
	RateLimited int     `json:"rateLimited"`
	Errors      int     `json:"errors"`
}

func (lg *loadgen) report(jobs []*loadJob, offered time.Duration) *loadReport {
	rep := &loadReport{
		URL: redactedURL(lg.cfg.url), RatePerSecond: lg.cfg.rate, OfferedSeconds: offered.Seconds(),
		Mix: map[string]float64{}, Scenarios: map[string]float64{},
		PollIntervalSeconds: lg.cfg.pollInterval.Seconds(), LongPollWaitSeconds: lg.cfg.wait,
		NominalFactor: lg.cfg.nominalFactor, JobsOffered: len(jobs),
		Refused: map[string]int{}, Terminal: map[string]int{}, ByKind: map[string]*kindStats{},
	}
	for _, w := range lg.cfg.mix {
		rep.Mix[w.name] = w.weight
	}
	for _, w := range lg.cfg.scenarios {
		rep.Scenarios[w.name] = w.weight
	}
	var durations []time.Duration
	kindDurations := map[string][]time.Duration{}
	for _, j := range jobs {
		if j.refused != "" {
			rep.Refused[j.refused]++
			continue
		}
		rep.JobsAccepted++
		k := j.kind.name
		if rep.ByKind[k] == nil {
			rep.ByKind[k] = &kindStats{Clients: map[string]clientBrief{}}
		}
		rep.ByKind[k].Jobs++
		if j.historyErr != "" {
			rep.HistoryErrors++
			continue
		}
		rep.Terminal[j.status]++
		d := j.ended.Sub(j.accepted)
		durations = append(durations, d)
		kindDurations[k] = append(kindDurations[k], d)
	}
	rep.JobDurationMs = summarise(durations)
	for k, ds := range kindDurations {
		rep.ByKind[k].JobDurationMs = summarise(ds)
	}
	for c := range loadClients {
		cr := clientReport{Client: c.String()}
		var lags, lagDurations []time.Duration
		kindReq, kindJobs := map[string]int{}, map[string]int{}
		kindLag := map[string][]time.Duration{}
		for _, j := range jobs {
			if j.refused != "" {
				continue
			}
			w := j.watch[c]
			cr.Jobs++
			cr.Requests += w.requests
			cr.RateLimited += w.rateLimited
			cr.Errors += w.errors
			kindReq[j.kind.name] += w.requests
			kindJobs[j.kind.name]++
			if w.seen.IsZero() {
				continue
			}
			cr.Seen++
			if j.historyErr == "" {
				lag := w.seen.Sub(j.ended)
				lags = append(lags, lag)
				lagDurations = append(lagDurations, j.ended.Sub(j.accepted))
				kindLag[j.kind.name] = append(kindLag[j.kind.name], lag)
			}
		}
		if cr.Jobs > 0 {
			cr.RequestsPerJob = float64(cr.Requests) / float64(cr.Jobs)
		}
		cr.LagMs = summarise(lags)
		if d := summarise(lagDurations); d.Mean > 0 {
			cr.LagShare = cr.LagMs.Mean / d.Mean
		}
		for k, n := range kindJobs {
			rep.ByKind[k].Clients[c.String()] = clientBrief{
				RequestsPerJob: float64(kindReq[k]) / float64(n),
				LagMeanMs:      summarise(kindLag[k]).Mean,
			}
		}
		rep.Clients = append(rep.Clients, cr)
	}
	return rep
}

// summarise gives the mean, p90 (nearest rank) and max of ds, in milliseconds.
func summarise(ds []time.Duration) loadStats {
	if len(ds) == 0 {
		return loadStats{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	ms := func(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 } // to the microsecond
	rank := int(math.Ceil(0.9*float64(len(s)))) - 1
	return loadStats{N: len(s), Min: ms(s[0]), Mean: ms(sum / time.Duration(len(s))), P90: ms(s[rank]), Max: ms(s[len(s)-1])}
}

func (rep *loadReport) print(w io.Writer) {
	weights := func(m map[string]float64) string {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			parts = append(parts, fmt.Sprintf("%s=%g", k, m[k]))
		}
		return strings.Join(parts, ",")
	}
	counts := func(m map[string]int) string {
		if len(m) == 0 {
			return "none"
		}
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
		return strings.Join(parts, ", ")
	}
	secs := func(ms float64) string { return strconv.FormatFloat(ms/1000, 'f', 3, 64) + "s" }
	fmt.Fprintf(w, "loadgen: %d jobs offered at %g/s over %.1fs to %s\n", rep.JobsOffered, rep.RatePerSecond, rep.OfferedSeconds, rep.URL)
	fmt.Fprintf(w, "  mix %s; scenarios %s; poll interval %gs; long-poll wait %ds; nominal times x%g\n",
		weights(rep.Mix), weights(rep.Scenarios), rep.PollIntervalSeconds, rep.LongPollWaitSeconds, rep.NominalFactor)
	fmt.Fprintf(w, "  accepted %d; refused: %s; terminal: %s; histories unreadable: %d\n",
		rep.JobsAccepted, counts(rep.Refused), counts(rep.Terminal), rep.HistoryErrors)
	fmt.Fprintf(w, "  job duration (accepted to terminal event): mean %s, p90 %s, max %s\n\n",
		secs(rep.JobDurationMs.Mean), secs(rep.JobDurationMs.P90), secs(rep.JobDurationMs.Max))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "client\trequests/job\tlag mean\tlag p90\tlag max\tlag/duration\tseen\trate-limited\terrors")
	for _, c := range rep.Clients {
		fmt.Fprintf(tw, "%s\t%.2f\t%s\t%s\t%s\t%.1f%%\t%d/%d\t%d\t%d\n", c.Client, c.RequestsPerJob,
			secs(c.LagMs.Mean), secs(c.LagMs.P90), secs(c.LagMs.Max), 100*c.LagShare, c.Seen, c.Jobs, c.RateLimited, c.Errors)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := "kind\tjobs\tduration mean"
	for _, c := range rep.Clients {
		header += "\t" + c.Client + " req/job, lag"
	}
	fmt.Fprintln(tw, header)
	for _, k := range slices.Sorted(maps.Keys(rep.ByKind)) {
		ks := rep.ByKind[k]
		line := fmt.Sprintf("%s\t%d\t%s", k, ks.Jobs, secs(ks.JobDurationMs.Mean))
		for _, c := range rep.Clients {
			b := ks.Clients[c.Client]
			line += fmt.Sprintf("\t%.2f, %s", b.RequestsPerJob, secs(b.LagMeanMs))
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

// pause waits d (nothing when d <= 0), or returns false when ctx ends first.
func pause(ctx context.Context, d time.Duration) bool {
	return upstream.RealClock().Sleep(ctx, d) == nil
}
