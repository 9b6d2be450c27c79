package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/cors"

	"relayer/api/ratelimit"
	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/domain/webhook"
	"relayer/eventstore"
	"relayer/projections"
)

// Deps are what the API stands on.
type Deps struct {
	Store       eventstore.Store
	Projections *projections.Set
	Logger      *slog.Logger
	// Now is the clock (time.Now when nil); tests inject their own.
	Now func() time.Time
	// Collectors are more Prometheus collectors (the workers', say) that GET /metrics exposes
	// beside the API's families, registered in the server's own registry. A collector whose
	// families clash with another's (a duplicate name, or the same name with other labels or
	// help) makes New fail; New does not take nil collectors.
	Collectors []prometheus.Collector
	// Chain is the chain side of admission (the chain's time, contract wallets' signatures);
	// nil: the server's clock, and signatures by keys only (see projections.Submitter). The
	// health and signer routes also ask it for what it can tell (ChainHealthSource,
	// SigningKeysSource).
	Chain ChainChecks
	// Fleet tells /healthz which instance of a fleet this is and which leases it holds; nil
	// alone on a log.
	Fleet FleetSource
}

// Server serves the HTTP API. Build it with New; Handler is the whole API, Serve runs it.
type Server struct {
	cfg   Config
	store eventstore.Store
	set   *projections.Set
	codec *eventstore.Codec
	exec  *projections.Executor
	sub   *projections.Submitter // the submission command, over exec and set
	log   *slog.Logger
	now   func() time.Time
	mux   *http.ServeMux
	// polls are the status polls' routes by their path up to the job id ("/v2/input-proof/"),
	// which route finds without the mux.
	polls   map[string]pollRoute
	metrics *metrics
	limiter *ratelimit.Limiter
	chain   ChainChecks
	fleet   FleetSource
	// hints follows the jobs this instance accepted, for the overview's hint accuracy.
	hints hintTracker
	// fullLogged is when a full store was last logged (unix nanoseconds; see storageFull).
	fullLogged atomic.Int64

	// rt is the runtime configuration (see runtime.go): read with one atomic load per request,
	// replaced whole by the admin API.
	rt atomic.Pointer[runtimeConfig]
	// adminMu serializes admin changes in this process; config is the config stream as this
	// process has folded it (the configuration it started with, then every change), under it.
	adminMu sync.Mutex
	config  eventstore.Folded[*runtimeConfig]
	// adminDigest is the SHA-256 of the admin token (compared in constant time), adminWho the
	// identity recorded in ConfigChanged events; adminOn is false without a token.
	adminDigest [32]byte
	adminWho    string
	adminOn     bool
	// operatorDigest is the operator token's SHA-256; operatorOn is false without one.
	operatorDigest [32]byte
	operatorOn     bool
	// adminFails slows down clients whose admin (or operator) requests are refused; keyFails
	// those whose API keys are: a client guessing keys does not lock the operators out.
	adminFails refusals
	keyFails   refusals
	// apiKeys is the registry of issued API keys; nil without Config.APIKeyFile.
	apiKeys *apiKeyring
	// streams counts the open /v1/transitions streams.
	streams streamSlots

	// hooksMu serializes the webhook endpoints' changes in this process; hooks is the webhooks
	// stream as this process has folded it, under it. lookupHost resolves an endpoint's host.
	hooksMu    sync.Mutex
	hooks      eventstore.Folded[webhook.Registry]
	lookupHost func(ctx context.Context, host string) ([]netip.Addr, error)

	// observed caches the adaptive Retry-After parameters (see adaptive.go).
	observed atomic.Pointer[observedConfig]

	handler http.Handler
	routes  []Route
	// keyETags are the entity tags of the key files served under /keys/.
	keyETags map[string]string
}

// Route is one registered endpoint, listed for the OpenAPI check and the docs.
type Route struct {
	Method  string
	Pattern string // net/http pattern path, e.g. /v2/input-proof/{jobId}
	Name    string
	handler http.HandlerFunc
}

// pollRoute is a status poll's route: its mux pattern and its handler.
type pollRoute struct {
	pattern string
	handler http.HandlerFunc
}

// route serves r with the mux's route for it, finding a status poll's (GET /v2/{kind}/{jobId},
// most of the requests a relayer answers) without the mux: a path made of a poll route's prefix
// and a segment of a UUID's characters is one the mux would match to that route as it stands
// (no cleaning, no redirect), so the route's handler serves it directly, the job id in the call
// (pathJobID reads it there) and r.Pattern set as the mux sets it.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.RawPath == "" {
		p := r.URL.Path
		if i := strings.LastIndexByte(p, '/'); i >= 0 && len(p)-i-1 == 36 && uuidChars(p[i+1:]) {
			if pr, ok := s.polls[p[:i+1]]; ok {
				if c := callOf(w); c != nil {
					c.jobID = p[i+1:]
					r.Pattern = pr.pattern
					pr.handler(w, r)
					return
				}
			}
		}
	}
	s.mux.ServeHTTP(w, r)
}

// uuidChars tells whether s holds only a UUID's characters: hexadecimal digits and hyphens.
func uuidChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' || c == '-') {
			return false
		}
	}
	return true
}

// New builds the server over deps with cfg (start from DefaultConfig). It folds the config
// stream, so runtime parameters changed through the admin API before a restart apply again.
// The projections should be running (Set.Run) or caught up before the server takes requests.
func New(ctx context.Context, cfg Config, deps Deps) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.Store == nil || deps.Projections == nil {
		return nil, errors.New("api: New needs a store and projections")
	}
	s := &Server{
		cfg:   cfg,
		store: deps.Store,
		set:   deps.Projections,
		codec: projections.NewCodec(),
		log:   deps.Logger,
		now:   deps.Now,
		chain: deps.Chain,
		fleet: deps.Fleet,
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.exec = &projections.Executor{Store: s.store, Codec: s.codec}
	s.sub = &projections.Submitter{Executor: s.exec, Set: s.set, Chain: deps.Chain, Admission: cfg.Admission,
		AcceptWait: cfg.AcceptWait, Now: s.now, Log: s.log}
	s.hooks = eventstore.NewFolded(webhook.NewRegistry())
	s.lookupHost = lookupHostDefault
	s.keyETags = keyFileETags(cfg.Keys.Files)
	s.metrics = newMetrics()
	if err := s.metrics.register(s.set, s.store, deps.Collectors); err != nil {
		return nil, err
	}
	if cfg.AdminToken != "" {
		s.adminOn = true
		s.adminDigest = sha256.Sum256([]byte(cfg.AdminToken))
		s.adminWho = adminIdentity(cfg.AdminToken)
	}
	if cfg.OperatorToken != "" {
		s.operatorOn = true
		s.operatorDigest = sha256.Sum256([]byte(cfg.OperatorToken))
	}
	s.config = eventstore.NewFolded(&runtimeConfig{
		retry:    cfg.RetryAfter.Clone(),
		adaptive: cfg.AdaptiveRetryAfter,
		capacity: cfg.QueueCapacity,
		margin:   cfg.ShedMargin,
		rate:     cfg.RateLimit.Clone(),
		retention: func() domain.Retention {
			if cfg.Retention == (domain.Retention{}) {
				return domain.DefaultRetention()
			}
			return cfg.Retention
		}(),
	})
	s.rt.Store(s.config.State)
	changes := s.set.NotifyStream(domain.ConfigStream)
	if err := s.restoreConfig(ctx); err != nil {
		return nil, err
	}
	go s.followConfig(ctx, changes)
	limOpts := []ratelimit.Option{ratelimit.WithClock(s.now), ratelimit.WithRequestID(func(w http.ResponseWriter, _ *http.Request) string { return requestID(w) })}
	if cfg.APIKeyFile != "" {
		ring, err := loadAPIKeys(cfg.APIKeyFile, s.log)
		if err != nil {
			return nil, err
		}
		s.apiKeys = ring
		limOpts = append(limOpts, ratelimit.WithAPIKeys(func(key string) (string, bool) { return s.apiKeys.lookup(key, s.now()) }))
	}
	lim, err := ratelimit.New(s.runtime().rate, limOpts...)
	if err != nil {
		return nil, fmt.Errorf("api: rate limiter: %w", err)
	}
	s.limiter = lim

	s.routes = slices.Concat(s.jobRoutes(), s.keyRoutes(), s.adminRoutes(), s.webhookRoutes(), s.opsRoutes(), s.uiRoutes())
	s.mux = http.NewServeMux()
	for _, r := range s.routes {
		s.mux.HandleFunc(r.Method+" "+r.Pattern, r.handler)
	}
	// Every other path gets the JSON envelope's 404 instead of net/http's text one.
	s.mux.HandleFunc("/", s.notFound)
	s.polls = map[string]pollRoute{}
	for _, r := range s.routes {
		// A GET route of a literal path and a trailing {jobId}: the polls.
		if prefix, ok := strings.CutSuffix(r.Pattern, "{jobId}"); ok && r.Method == http.MethodGet && !strings.Contains(prefix, "{") {
			s.polls[prefix] = pollRoute{pattern: r.Method + " " + r.Pattern, handler: r.handler}
		}
	}
	s.handler = withRequestID(s.instrument(s.recoverer(http.HandlerFunc(s.route))))
	if len(cfg.CORSAllowedOrigins) > 0 {
		s.handler = corsFor(cfg.CORSAllowedOrigins).Handler(s.handler)
	}
	return s, nil
}

// runtime returns the runtime configuration in force.
func (s *Server) runtime() *runtimeConfig { return s.rt.Load() }

// Tuning returns a copy of the Retry-After policy in force: the configured one, as the admin API
// last set it in this process (not the adaptive one, which replaces rates and times with those
// observed). Workers read their live tuning from it (the readiness concurrency, the TX rate per
// kind); it costs one atomic load and a copy, so they may call it for every job. The copy is
// theirs to modify.
func (s *Server) Tuning() retryafter.Config { return s.runtime().retry.Clone() }

// Routes lists every endpoint the server registers.
func (s *Server) Routes() []Route { return append([]Route(nil), s.routes...) }

// Handler is the whole API, with its middleware: a request id per call, metrics, and a
// recoverer that turns a panic into 500 internal_server_error.
func (s *Server) Handler() http.Handler { return s.handler }

// AdminEnabled reports whether the admin API is on (an admin token is configured).
func (s *Server) AdminEnabled() bool { return s.adminOn }

// HTTPServer returns an http.Server for the API with the configured timeouts. Streams (responses
// with Content-Type text/event-stream, see clearDeadlines) lift the read and write deadlines for
// their own connection.
func (s *Server) HTTPServer() *http.Server {
	h := s.cfg.HTTP
	return &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: h.ReadHeaderTimeout,
		ReadTimeout:       h.ReadTimeout,
		WriteTimeout:      h.WriteTimeout,
		IdleTimeout:       h.IdleTimeout,
		MaxHeaderBytes:    h.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// Serve answers on ln until ctx ends, then shuts down gracefully: it stops accepting, ends the
// streams (their request contexts are cancelled), lets requests in flight finish for up to
// HTTP.ShutdownTimeout and then cuts the rest. It returns nil after a clean shutdown.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := s.HTTPServer()
	base, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	srv.BaseContext = func(net.Listener) context.Context { return base }
	srv.RegisterOnShutdown(cancelBase)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.HTTP.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		s.log.Warn("graceful shutdown cut short", "err", err)
		_ = srv.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// adminIdentity is the identity recorded for changes made with token: "admin-" and a short
// digest, so that changes made with different tokens can be told apart without recording the
// token (nor enough of its hash to help guess it).
func adminIdentity(token string) string {
	d := sha256.Sum256([]byte("relayer admin identity\x00" + token))
	return "admin-" + hex.EncodeToString(d[:4])
}

// notFound answers paths no route has: 405 method_not_allowed when the path exists with other
// methods, 404 not_found otherwise.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	// The escaped path, as the mux matches it: an escaped slash (%2f) separates no segments.
	p := r.URL.EscapedPath()
	var allowed []string
	// slashOnly: the path matches routes only without its trailing slash.
	slashOnly := strings.HasSuffix(p, "/") && p != "/"
	for _, rt := range s.routes {
		if pathMatches(rt.Pattern, p) {
			if !contains(allowed, rt.Method) {
				allowed = append(allowed, rt.Method)
			}
			if strings.HasSuffix(rt.Pattern, "/") || strings.HasSuffix(rt.Pattern, "...}") {
				slashOnly = false
			}
		}
	}
	if len(allowed) > 0 && slashOnly {
		// GET /docs/ for GET /docs, or GET /v2/public-decrypt/ for its POST: the path is what is
		// wrong, whatever the method.
		writeError(w, r, http.StatusNotFound, labelNotFound,
			fmt.Sprintf("no such endpoint: %s (without the trailing slash: %s)", p, strings.TrimRight(p, "/")), nil)
		return
	}
	if contains(allowed, r.Method) {
		writeError(w, r, http.StatusNotFound, labelNotFound, "no such endpoint: "+p, nil)
		return
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeError(w, r, http.StatusMethodNotAllowed, "method_not_allowed",
			fmt.Sprintf("%s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, strings.Join(allowed, ", ")), nil)
		return
	}
	writeError(w, r, http.StatusNotFound, labelNotFound, "no such endpoint: "+p, nil)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pathMatches reports whether path matches a net/http pattern path ("/v2/x/{id}",
// "/files/{rest...}", "/static/").
func pathMatches(pattern, path string) bool {
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	xs := strings.Split(strings.Trim(path, "/"), "/")
	for i, p := range ps {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "...}") {
			return true
		}
		if i >= len(xs) {
			return false
		}
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			if xs[i] == "" {
				return false
			}
			continue
		}
		if p != xs[i] {
			return false
		}
	}
	if strings.HasSuffix(pattern, "/") && pattern != "/" {
		return len(xs) >= len(ps)
	}
	return len(xs) == len(ps)
}

// corsFor answers the browsers of pages from origins: preflights for the API's methods and the
// headers the public SDK sends, and the response headers its code reads (Retry-After above all:
// a browser hides it from a page of another origin unless exposed).
func corsFor(origins []string) *cors.Cors {
	return cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: []string{http.MethodGet, http.MethodPost, http.MethodHead},
		AllowedHeaders: []string{"Content-Type", "Authorization", "X-API-Key", "X-Correlation-ID", "Last-Event-ID",
			"ZAMA-SDK-VERSION", "ZAMA-SDK-NAME", "Prefer"},
		ExposedHeaders: []string{"Retry-After", "X-Correlation-Id", "RateLimit", "RateLimit-Policy",
			headerWaitApplied, headerPreferenceApplied},
		MaxAge: 600,
	})
}
