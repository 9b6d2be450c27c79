package api

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"relayer/api/ratelimit"
	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/domain/webhook"
	"relayer/internal/config"
	"relayer/projections"
)

// Defaults of DefaultConfig.
const (
	// DefaultMaxBodyBytes bounds a submission's body: larger ones are refused with 413.
	DefaultMaxBodyBytes = 1 << 20
	// DefaultAcceptWait bounds how long a POST waits for the projections to show the job it
	// accepted before it answers (it answers 202 either way: the job is durable).
	DefaultAcceptWait = 2 * time.Second
	// DefaultQueueCapacity is the length of the queue a new job joins (the readiness queue for
	// decrypts, the TX queue for input proofs) at which submissions are shed with 429.
	DefaultQueueCapacity = 100_000
	// DefaultShedMargin is subtracted from the capacity: shedding starts at capacity - margin.
	DefaultShedMargin = 0

	DefaultReadHeaderTimeout = 5 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 30 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultShutdownTimeout   = 10 * time.Second
	DefaultMaxHeaderBytes    = 64 << 10
)

// Limits of a valid Config.
const (
	// MinAdminTokenBytes is the shortest admin token accepted: a short one can be guessed.
	MinAdminTokenBytes = 32
	MaxQueueCapacity   = 100_000_000
	maxBodyLimit       = 64 << 20
	maxWait            = time.Minute
)

// Config sets the API's limits, timeouts and parameters. Start from DefaultConfig; Validate lists
// every problem at once, each by its path in serve's configuration. There, the fields with a yaml
// name are the api section's settings, and the others sections of their own (http, retry_after,
// rate_limit, keys, admission, validation, webhooks) or settings at the root (admin_token,
// operator_token, host_chain_ids).
type Config struct {
	// Validation is what request bodies are checked against: the host chain ids (at least one)
	// and the payload limits.
	Validation domain.ValidationConfig
	// MaxBodyBytes bounds a submission's body (413 request_too_large beyond it).
	MaxBodyBytes int64 `yaml:"max_body_bytes"`
	// AcceptWait bounds the wait for the projections after an accepted submission.
	AcceptWait time.Duration `yaml:"accept_wait"`

	// QueueCapacity and ShedMargin: a submission that would start a new job is refused with 429
	// rate_limited when the queue it would join holds QueueCapacity - ShedMargin jobs or more.
	// Both are runtime parameters (queue_capacity, queue_shed_margin).
	QueueCapacity int `yaml:"queue_capacity"`
	ShedMargin    int `yaml:"queue_shed_margin"`

	// RetryAfter is the Retry-After policy's parameters, changeable at run time.
	RetryAfter retryafter.Config
	// AdaptiveRetryAfter feeds the policy with the drain rates and stage durations the stats
	// projection observed, each only while enough fresh samples back it (the retry_after
	// section's retry_after_adaptive_min_samples and retry_after_adaptive_stale_after_seconds;
	// the nominal value otherwise). On by default; retry_after_adaptive at run time.
	AdaptiveRetryAfter bool `yaml:"adaptive_retry_after"`

	// RateLimit is the inbound per-client limiter's configuration (its limits at 0 turn it off).
	RateLimit ratelimit.Config

	// AdminToken is the bearer token of /admin; empty turns the admin API off (403). It is never
	// logged, printed or stored.
	AdminToken string

	// HTTP hardens the server (see Server.HTTPServer).
	HTTP HTTPConfig

	// OperatorToken is the bearer token of the audit endpoints (/v1/jobs/{jobId}/events and
	// /v1/transitions), which show user addresses, signatures, public keys and raw transactions:
	// reads only, separate from the admin token (which is accepted there too). Never logged.
	OperatorToken string
	// AuditOpen serves the audit endpoints to anyone, as a development stack does; without it
	// and without OperatorToken they answer 403.
	AuditOpen bool `yaml:"audit_open"`

	// Keys is what GET /v2/keyurl answers, and the key material the relayer serves itself.
	Keys KeysConfig

	// Streams bounds the /v1/transitions streams.
	Streams StreamsConfig `yaml:",inline"`

	// APIKeyFile is the registry of issued API keys (see apikeys.go): names and the SHA-256 of
	// each key, read again when it changes. Empty: X-API-Key names no client; clients are their
	// addresses.
	APIKeyFile string `yaml:"api_key_file"`

	// Admission is what the checks before acceptance need (projections.Submitter): signatures
	// of user decrypts, the validity window's skew.
	Admission AdmissionConfig

	// CORSAllowedOrigins are the web origins ("https://app.example.org") whose pages may call
	// the API from a browser (the public SDK's web build). Empty: CORS is off, and browsers keep
	// other origins' pages from reading any answer.
	CORSAllowedOrigins []string `yaml:"cors_allowed_origins"`

	// Webhooks is the webhooks section (domain/webhook.Config): the key that seals the
	// endpoints' secrets in the log, whether private addresses are allowed, the rotation's
	// overlap and how many endpoints there may be. The admin API registers endpoints with it;
	// the delivery worker (workers/delivery) reads the same section.
	Webhooks webhook.Config

	// Retention is the retention policy the archiver (workers/archiver) starts with: the admin
	// API lists it and records its changes (retention.* parameters) in the config stream, which
	// the archiver follows. Zero: domain.DefaultRetention.
	Retention domain.Retention
}

// StreamsConfig bounds the Server-Sent Events streams. Streams do not take the inbound rate
// limiter's slots (a client's open stream must not cost its status polls); these caps do.
type StreamsConfig struct {
	// MaxOpen is how many streams the server keeps open at once, all clients together; one more
	// is refused with 429 rate_limited and a Retry-After.
	MaxOpen int `yaml:"max_streams"`
	// MaxPerClient is how many streams one client (address) keeps open at once.
	MaxPerClient int `yaml:"max_streams_per_client"`
	// WriteTimeout bounds each write to a stream: a client that stops reading loses its stream
	// (and its slot) instead of holding it forever.
	WriteTimeout time.Duration `yaml:"stream_write_timeout"`
}

// Defaults of StreamsConfig.
const (
	DefaultMaxStreams          = 256
	DefaultMaxStreamsPerClient = 8
	DefaultStreamWriteTimeout  = 30 * time.Second
)

// HTTPConfig are the http.Server's timeouts and limits.
type HTTPConfig struct {
	ReadHeaderTimeout time.Duration `yaml:"read_header_timeout"`
	// ReadTimeout and WriteTimeout bound a whole request and response; streams (Server-Sent
	// Events) clear both for their own connection.
	ReadTimeout  time.Duration `yaml:"read_timeout"`
	WriteTimeout time.Duration `yaml:"write_timeout"`
	IdleTimeout  time.Duration `yaml:"idle_timeout"`
	// ShutdownTimeout bounds the graceful shutdown: requests still running then are cut.
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout"`
	MaxHeaderBytes  int           `yaml:"max_header_bytes"`
}

// DefaultConfig returns the defaults: the development host chain 1337, 1 MiB bodies, the seed's
// Retry-After parameters with the adaptive mode on, the rate limiter's defaults, no admin token.
func DefaultConfig() Config {
	return Config{
		Validation:    domain.ValidationConfig{HostChainIDs: []uint64{1337}},
		MaxBodyBytes:  DefaultMaxBodyBytes,
		AcceptWait:    DefaultAcceptWait,
		QueueCapacity: DefaultQueueCapacity,
		ShedMargin:    DefaultShedMargin,
		RetryAfter:    retryafter.DefaultConfig(),
		Retention:     domain.DefaultRetention(),
		// Observations replace the nominal values only while they are trusted (enough samples,
		// fresh ones), so hints follow what the relayer really does when the nominal times are
		// wrong, and the nominal values stand in until there is enough to go on.
		AdaptiveRetryAfter: true,
		RateLimit:          ratelimit.DefaultConfig(),
		Streams:            StreamsConfig{MaxOpen: DefaultMaxStreams, MaxPerClient: DefaultMaxStreamsPerClient, WriteTimeout: DefaultStreamWriteTimeout},
		HTTP: HTTPConfig{
			ReadHeaderTimeout: DefaultReadHeaderTimeout,
			ReadTimeout:       DefaultReadTimeout,
			WriteTimeout:      DefaultWriteTimeout,
			IdleTimeout:       DefaultIdleTimeout,
			ShutdownTimeout:   DefaultShutdownTimeout,
			MaxHeaderBytes:    DefaultMaxHeaderBytes,
		},
	}
}

// Problem is one thing wrong with a Config: the setting's name and what is wrong with it.
type Problem = config.Problem

// ConfigError lists every problem Validate found.
type ConfigError struct{ Problems []Problem }

func (e *ConfigError) Error() string { return config.Lines("invalid API configuration:", e.Problems) }

// Validate reports every problem of c at once as a *ConfigError; nil if c is usable. Names are
// those of the YAML configuration (see cmd/relayer serve).
func (c Config) Validate() error {
	var ps config.Problems
	var ve *domain.ValidationConfigError
	if err := c.Validation.Validate(); errors.As(err, &ve) {
		for _, p := range ve.Problems {
			if p.Field == "host_chain_ids" {
				ps.Add(p.Field, "%s", p.Issue)
			} else {
				ps.Add("validation."+p.Field, "%s", p.Issue)
			}
		}
	} else if err != nil {
		ps.Add("validation", "%v", err)
	}
	if c.MaxBodyBytes < 1 || c.MaxBodyBytes > maxBodyLimit {
		ps.Add("api.max_body_bytes", "must be 1 <= value <= %d, got %d", maxBodyLimit, c.MaxBodyBytes)
	}
	ps.Duration("api.accept_wait", c.AcceptWait, time.Millisecond, maxWait)
	ps.Duration("http.read_header_timeout", c.HTTP.ReadHeaderTimeout, time.Millisecond, time.Hour)
	ps.Duration("http.read_timeout", c.HTTP.ReadTimeout, time.Millisecond, time.Hour)
	ps.Duration("http.write_timeout", c.HTTP.WriteTimeout, time.Millisecond, time.Hour)
	ps.Duration("http.idle_timeout", c.HTTP.IdleTimeout, time.Millisecond, time.Hour)
	ps.Duration("http.shutdown_timeout", c.HTTP.ShutdownTimeout, time.Millisecond, time.Hour)
	if c.HTTP.MaxHeaderBytes < 1<<10 || c.HTTP.MaxHeaderBytes > 1<<20 {
		ps.Add("http.max_header_bytes", "must be 1024 <= value <= 1048576, got %d", c.HTTP.MaxHeaderBytes)
	}
	if issue := capacityIssue(c.QueueCapacity); issue != "" {
		ps.Add("api.queue_capacity", "%s", issue)
	}
	if issue := marginIssue(c.ShedMargin, c.QueueCapacity); issue != "" {
		ps.Add("api.queue_shed_margin", "%s", issue)
	}
	// Both packages report a *retryafter.ValidationError (ratelimit's is an alias of it).
	for _, sub := range []struct {
		prefix string
		err    error
	}{{"retry_after", c.RetryAfter.Validate()}, {"rate_limit", c.RateLimit.Validate()}} {
		if sub.err == nil {
			continue
		}
		var ve *retryafter.ValidationError
		if !errors.As(sub.err, &ve) {
			ps.Add(sub.prefix, "%v", sub.err)
			continue
		}
		for _, p := range ve.Problems {
			ps.Add(sub.prefix+"."+p.Param, "%s", p.Issue)
		}
	}
	if c.Streams.MaxOpen < 1 || c.Streams.MaxOpen > 1_000_000 {
		ps.Add("api.max_streams", "must be 1 <= value <= 1000000, got %d", c.Streams.MaxOpen)
	}
	if c.Streams.MaxPerClient < 1 || c.Streams.MaxPerClient > c.Streams.MaxOpen {
		ps.Add("api.max_streams_per_client", "must be 1 <= value <= api.max_streams (%d), got %d", c.Streams.MaxOpen, c.Streams.MaxPerClient)
	}
	if c.Streams.WriteTimeout < time.Second || c.Streams.WriteTimeout > time.Hour {
		ps.Add("api.stream_write_timeout", "must be a duration from 1s to 1h, got %s", c.Streams.WriteTimeout)
	}
	for _, tok := range []struct{ name, v string }{{"admin_token", c.AdminToken}, {"operator_token", c.OperatorToken}} {
		if tok.v != strings.TrimSpace(tok.v) {
			ps.Add(tok.name, "must not begin or end with white space (HTTP drops it: the token could never be sent)")
		}
	}
	if n := len(c.AdminToken); n > 0 && n < MinAdminTokenBytes {
		ps.Add("admin_token", "must be at least %d bytes, got %d (generate one: openssl rand -hex 32)", MinAdminTokenBytes, n)
	}
	for i, o := range c.CORSAllowedOrigins {
		if issue := originIssue(o); issue != "" {
			ps.Add(fmt.Sprintf("api.cors_allowed_origins[%d]", i), "%s", issue)
		}
	}
	if n := len(c.OperatorToken); n > 0 && n < MinAdminTokenBytes {
		ps.Add("operator_token", "must be at least %d bytes, got %d (generate one: openssl rand -hex 32)", MinAdminTokenBytes, n)
	}
	if c.OperatorToken != "" && c.OperatorToken == c.AdminToken {
		ps.Add("operator_token", "must differ from the admin token (it grants reads only)")
	}
	ps = append(ps, c.Keys.problems()...)
	var ae *projections.ConfigError // the only error AdmissionConfig.Validate returns
	if errors.As(c.Admission.Validate(), &ae) {
		for _, p := range ae.Problems {
			ps.Add("admission."+p.Field, "%s", p.Issue)
		}
	}
	var we *webhook.ConfigError
	if err := c.Webhooks.Validate(); errors.As(err, &we) {
		for _, p := range we.Problems {
			ps.Add("webhooks."+p.Field, "%s", p.Issue)
		}
	} else if err != nil {
		ps.Add("webhooks", "%v", err)
	}
	if len(ps) == 0 {
		return nil
	}
	return &ConfigError{Problems: ps}
}

const (
	capacityConstraint = "whole number, 1 <= value <= 100000000"
	marginConstraint   = "whole number, 0 <= value < queue_capacity"
)

func capacityIssue(v int) string {
	if v < 1 || v > MaxQueueCapacity {
		return fmt.Sprintf("must be a %s, got %d", capacityConstraint, v)
	}
	return ""
}

func marginIssue(margin, capacity int) string {
	if margin < 0 || margin >= max(capacity, 1) {
		return fmt.Sprintf("must be a %s (%d), got %d", marginConstraint, capacity, margin)
	}
	return ""
}

// originIssue says what is wrong with a CORS origin: it must be scheme://host[:port], nothing
// else (no wildcard: the list is an allow-list).
func originIssue(o string) string {
	u, err := url.Parse(o)
	switch {
	case strings.Contains(o, "*"):
		return `must be an origin such as "https://app.example.org", without "*": a wildcard would let other web pages in`
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return fmt.Sprintf("must be an origin such as \"https://app.example.org\", got %q", o)
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return fmt.Sprintf("must be scheme://host[:port] only, without a path, query or user, got %q", o)
	}
	return ""
}

// AdmissionConfig is what the admission checks of the submission command need besides the
// request (projections.Submitter, which runs them).
type AdmissionConfig = projections.AdmissionConfig

// ChainChecks is the chain side of admission, the submission command's port, which cmd/relayer
// wires to the gateway adapter (Deps.Chain).
type ChainChecks = projections.ChainChecks
