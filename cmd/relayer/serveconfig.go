package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"go.yaml.in/yaml/v3"

	"relayer/api"
	"relayer/api/ratelimit"
	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/projections"
	"relayer/workers"
	"relayer/workers/devchain"
	"relayer/workers/devchain/devkeys"
	"relayer/workers/gateway"
)

// The configuration of `relayer serve`: a YAML file (--config), then RELAYER_* environment
// variables, then the command line's flags, each over the one before, over the defaults. Every
// setting of the file has an environment variable: RELAYER_ and its path in capitals with "_"
// for "." (api.queue_capacity is RELAYER_API_QUEUE_CAPACITY, rate_limit.read.rolling_limit is
// RELAYER_RATE_LIMIT_READ_ROLLING_LIMIT). Values are read as YAML (a list may also be written
// "1337,8009"), except that a string setting takes its value as written: a contract address
// 0x00...c0 is not a number, and a URL or a token is never parsed (nor quoted in a problem).
// Everything is checked before anything starts, and every problem is listed.
//
// Without chain.rpc_url, serve runs the development chain in process (DESIGN section 10): no
// other chain setting may then be given, and the timeouts not given explicitly take the
// development profile's (readiness 10s, tx_in_flight 60s, response 20s) instead of production's.
// With chain.rpc_url, chain_id, the three contracts, a signer and user_decrypt_threshold are
// required. An RPC URL may carry an API key: RELAYER_CHAIN_RPC_URL keeps it out of files, and no
// problem ever repeats a URL.
//
// Names follow the admin API's and the packages' JSON names: retry_after takes retryafter's
// (input_proof_throttler_tps, nominal_tx_confirmation_ms, ..., receipt_backoff as a list of
// {elapsed_ms, retry_seconds}) and the admin API's _seconds names of the nominal times;
// rate_limit takes ratelimit's (concurrency_limit, read: {rolling_limit}, retry_policy: ...).
//
//	listen: 127.0.0.1:8080
//	data_dir: ./data
//	store: ""                       # sqlite:PATH or postgres://...; default: relayer.db in data_dir
//	host_chain_ids: [1337]
//	api: {max_body_bytes: 1048576, accept_wait: 2s, queue_capacity: 100000,
//	      max_streams: 256, max_streams_per_client: 8, stream_write_timeout: 30s,
//	      audit_open: true with the development chain, false with an external one,
//	      cors_allowed_origins: [] (e.g. ["https://app.example.org"]; empty: CORS off),
//	      api_key_file: "" (issued API keys: "<name> <sha256 of the key> [write=N] [read=N] [concurrency=N]" per line),
//	      queue_shed_margin: 0, adaptive_retry_after: false}
//	http: {read_header_timeout: 5s, read_timeout: 30s, write_timeout: 30s, idle_timeout: 2m,
//	       shutdown_timeout: 10s, max_header_bytes: 65536}
//	timeouts: {readiness: 5m, tx_in_flight: 2m, response: 30m, drain_window: 1m}
//	chain: {rpc_url: "", ws_url: "", host_rpc_url: "", chain_id: 0,
//	        contracts: {decryption: "", input_verification: "", acl: ""},
//	        signer: {key_env: "", keystore: "", password_file: ""},
//	        confirmation_depth: 0, poll_interval: 1s, receipt_timeout: 2m, user_decrypt_threshold: 0}
//	workers: {readiness_poll_interval: 500ms, tx_attempts: 5, tx_retry_delay: 200ms,
//	          response_buffer_ttl: 10m, timeouts_poll: 1s, transport: gochannel}
//	validation: {max_handles: 256, max_contract_addresses: 10, ...}
//	retry_after: {input_proof_throttler_tps: 10, nominal_readiness_check_seconds: 2, ...}
//	rate_limit: {concurrency_limit: 32, rolling_limit: 100, read: {rolling_limit: 600}, trusted_proxies: [], ...}
//	log: {level: info, format: text}
//	devchain: {rpc_listen: ""}      # 127.0.0.1:8545 serves the development chain's JSON-RPC
//	keys: {public_key: {data_id: "0x...", urls: [...]}, crs_2048: {data_id: "0x...", urls: [...]}}
//	admission: {verify_signatures: true, start_skew: 10s}
//
// Without keys, the development stack serves its development key material (package devkeys)
// under /keys/ and GET /v2/keyurl points at it; with an external chain, keys are needed for the
// public SDK's createInstance (GET /v2/keyurl answers 500 without them).
//
// The admin token is better given by RELAYER_ADMIN_TOKEN than in a file or on the command line,
// and the operator token (operator_token: reads of the audit endpoints, /v1/jobs/{jobId}/events
// and /v1/transitions) by RELAYER_OPERATOR_TOKEN.
type fileConfig struct {
	Listen  string `json:"listen"`
	DataDir string `json:"data_dir"`
	// Store is the event store's URL (sqlite:PATH, postgres://...); empty: relayer.db in
	// DataDir. Its password, if any, is never quoted.
	Store      string `json:"store"`
	AdminToken string `json:"admin_token"`
	// OperatorToken reads the audit endpoints (RELAYER_OPERATOR_TOKEN); see api.Config.
	OperatorToken string            `json:"operator_token"`
	HostChainIDs  []uint64          `json:"host_chain_ids"`
	API           apiSection        `json:"api"`
	HTTP          httpSection       `json:"http"`
	Timeouts      timeoutsSection   `json:"timeouts"`
	Chain         chainSection      `json:"chain"`
	Workers       workersSection    `json:"workers"`
	Validation    validationSection `json:"validation"`
	RetryAfter    retryafter.Config `json:"retry_after"`
	RateLimit     ratelimit.Config  `json:"rate_limit"`
	Log           logSection        `json:"log"`
	Keys          keysSection       `json:"keys"`
	DevChain      devChainSection   `json:"devchain"`
	Admission     admissionSection  `json:"admission"`
}

// admissionSection configures the checks before a request is accepted (api.AdmissionConfig):
// the user's signature of every user decrypt and delegated user decrypt (EIP-712, ERC-1271 for
// contract wallets), and how far ahead of the chain's time a validity window may begin.
type admissionSection struct {
	VerifySignatures bool     `json:"verify_signatures"`
	StartSkew        duration `json:"start_skew"`
}

// devChainSection configures the in-process development chain (without chain.rpc_url).
type devChainSection struct {
	// RPCListen serves the chain's JSON-RPC over HTTP on this loopback host:port, for the public
	// SDK's network setting (createInstance reads the host contracts through it); "" for none.
	RPCListen string `json:"rpc_listen"`
}

// keysSection is what GET /v2/keyurl answers: the network's FHE public key and CRS (2048 bits).
// Without it, the development stack serves its own development key material.
type keysSection struct {
	PublicKey keyMaterialSection `json:"public_key"`
	CRS2048   keyMaterialSection `json:"crs_2048"`
}

type keyMaterialSection struct {
	DataID string   `json:"data_id"`
	URLs   []string `json:"urls"`
}

type apiSection struct {
	MaxBodyBytes       int64    `json:"max_body_bytes"`
	AcceptWait         duration `json:"accept_wait"`
	QueueCapacity      int      `json:"queue_capacity"`
	QueueShedMargin    int      `json:"queue_shed_margin"`
	AdaptiveRetryAfter bool     `json:"adaptive_retry_after"`
	// The /v1/transitions streams' caps (api.StreamsConfig).
	MaxStreams          int      `json:"max_streams"`
	MaxStreamsPerClient int      `json:"max_streams_per_client"`
	StreamWriteTimeout  duration `json:"stream_write_timeout"`
	// AuditOpen serves the audit endpoints without a token; default true with the development
	// chain, false with an external one.
	AuditOpen bool `json:"audit_open"`
	// CORSAllowedOrigins are the web origins whose pages may call the API; empty: CORS is off.
	CORSAllowedOrigins []string `json:"cors_allowed_origins"`
	// APIKeyFile is the registry of issued API keys (names and SHA-256 of the keys).
	APIKeyFile string `json:"api_key_file"`
}

type httpSection struct {
	ReadHeaderTimeout duration `json:"read_header_timeout"`
	ReadTimeout       duration `json:"read_timeout"`
	WriteTimeout      duration `json:"write_timeout"`
	IdleTimeout       duration `json:"idle_timeout"`
	ShutdownTimeout   duration `json:"shutdown_timeout"`
	MaxHeaderBytes    int      `json:"max_header_bytes"`
}

type timeoutsSection struct {
	Readiness   duration `json:"readiness"`
	TxInFlight  duration `json:"tx_in_flight"`
	Response    duration `json:"response"`
	DrainWindow duration `json:"drain_window"`
}

// chainSection is the external gateway chain; without rpc_url, serve runs the development chain.
type chainSection struct {
	RPCURL               string           `json:"rpc_url"`
	WSURL                string           `json:"ws_url"`
	HostRPCURL           string           `json:"host_rpc_url"`
	ChainID              uint64           `json:"chain_id"`
	Contracts            contractsSection `json:"contracts"`
	Signer               signerSection    `json:"signer"`
	ConfirmationDepth    uint64           `json:"confirmation_depth"`
	PollInterval         duration         `json:"poll_interval"`
	ReceiptTimeout       duration         `json:"receipt_timeout"`
	UserDecryptThreshold int              `json:"user_decrypt_threshold"`
}

// contractsSection holds hex addresses.
type contractsSection struct {
	Decryption        string `json:"decryption"`
	InputVerification string `json:"input_verification"`
	ACL               string `json:"acl"`
}

// signerSection is gateway.SignerConfig: never the key itself.
type signerSection struct {
	KeyEnv       string `json:"key_env"`
	Keystore     string `json:"keystore"`
	PasswordFile string `json:"password_file"`
}

type workersSection struct {
	ReadinessPollInterval duration `json:"readiness_poll_interval"`
	TxAttempts            int      `json:"tx_attempts"`
	TxRetryDelay          duration `json:"tx_retry_delay"`
	ResponseBufferTTL     duration `json:"response_buffer_ttl"`
	TimeoutsPoll          duration `json:"timeouts_poll"`
	Transport             string   `json:"transport"`
}

type validationSection struct {
	MaxHandles           int    `json:"max_handles"`
	MaxContractAddresses int    `json:"max_contract_addresses"`
	MaxCiphertextBytes   int    `json:"max_ciphertext_bytes"`
	MaxPublicKeyBytes    int    `json:"max_public_key_bytes"`
	MaxExtraDataBytes    int    `json:"max_extra_data_bytes"`
	MaxDurationDays      uint64 `json:"max_duration_days"`
}

type logSection struct {
	Level  string `json:"level"`
	Format string `json:"format"`
}

// duration reads "30s", "2m", "1h30m".
type duration time.Duration

func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf(`must be a duration such as "30s" or "5m", got %s`, b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf(`must be a duration such as "30s" or "5m", got %q`, s)
	}
	*d = duration(v)
	return nil
}

func (d duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// The development profile's timeouts (DESIGN section 10), the defaults with the development
// chain: short, so that its test handles (never ready, no response) end within seconds.
const (
	devReadinessTimeout  = 10 * time.Second
	devTxInFlightTimeout = 60 * time.Second
	devResponseTimeout   = 20 * time.Second
)

// defaultFileConfig is every setting's default.
func defaultFileConfig() fileConfig {
	a := api.DefaultConfig()
	return fileConfig{
		Listen:       "127.0.0.1:8080",
		DataDir:      "./data",
		HostChainIDs: []uint64{devHostChainID},
		API: apiSection{
			MaxBodyBytes: a.MaxBodyBytes, AcceptWait: duration(a.AcceptWait),
			QueueCapacity: a.QueueCapacity, QueueShedMargin: a.ShedMargin, AdaptiveRetryAfter: a.AdaptiveRetryAfter,
			MaxStreams: a.Streams.MaxOpen, MaxStreamsPerClient: a.Streams.MaxPerClient, StreamWriteTimeout: duration(a.Streams.WriteTimeout),
		},
		HTTP: httpSection{
			ReadHeaderTimeout: duration(a.HTTP.ReadHeaderTimeout), ReadTimeout: duration(a.HTTP.ReadTimeout),
			WriteTimeout: duration(a.HTTP.WriteTimeout), IdleTimeout: duration(a.HTTP.IdleTimeout),
			ShutdownTimeout: duration(a.HTTP.ShutdownTimeout), MaxHeaderBytes: a.HTTP.MaxHeaderBytes,
		},
		Timeouts: timeoutsSection{
			Readiness: duration(projections.DefaultReadinessTimeout), TxInFlight: duration(projections.DefaultTxInFlightTimeout),
			Response: duration(projections.DefaultResponseTimeout), DrainWindow: duration(projections.DefaultDrainWindow),
		},
		Chain: chainSection{PollInterval: duration(gateway.DefaultPollInterval), ReceiptTimeout: duration(gateway.DefaultReceiptTimeout)},
		Workers: workersSection{
			ReadinessPollInterval: duration(workers.DefaultReadinessPollInterval), TxAttempts: workers.DefaultTxAttempts,
			TxRetryDelay: duration(workers.DefaultTxRetryDelay), ResponseBufferTTL: duration(workers.DefaultResponseBufferTTL),
			TimeoutsPoll: duration(workers.DefaultTimeoutsPoll), Transport: workers.TransportGoChannel,
		},
		Validation: validationSection{
			MaxHandles: domain.DefaultMaxHandles, MaxContractAddresses: domain.DefaultMaxContractAddresses,
			MaxCiphertextBytes: domain.DefaultMaxCiphertextBytes, MaxPublicKeyBytes: domain.DefaultMaxPublicKeyBytes,
			MaxExtraDataBytes: domain.DefaultMaxExtraDataBytes, MaxDurationDays: domain.DefaultMaxDurationDays,
		},
		RetryAfter: retryafter.DefaultConfig(),
		RateLimit:  ratelimit.DefaultConfig(),
		Log:        logSection{Level: "info", Format: "text"},
		Admission:  admissionSection{VerifySignatures: true, StartSkew: duration(api.DefaultStartSkew)},
	}
}

// flagNames are serve's flags whose name is not their setting's path with "-" for "_".
var flagNames = map[string]string{"devchain.rpc_listen": "devchain-rpc"}

// devKeys is the development stack's key material, served by the relayer itself.
func devKeys() api.KeysConfig {
	return api.KeysConfig{
		PublicKeyID: devkeys.ID(devkeys.PublicKey), PublicKeyURLs: []string{"/keys/" + devkeys.PublicKeyFile},
		CRSID: devkeys.ID(devkeys.CRS2048), CRSURLs: []string{"/keys/" + devkeys.CRS2048File},
		Files: map[string][]byte{devkeys.PublicKeyFile: devkeys.PublicKey, devkeys.CRS2048File: devkeys.CRS2048},
	}
}

// serveSettings is the checked configuration `serve` runs with.
type serveSettings struct {
	Listen      string
	DataDir     string
	Store       storeLocation
	API         api.Config
	Projections projections.Config
	LogLevel    slog.Level
	LogJSON     bool
	// Chain is the external gateway chain's adapter configuration (checked, zero fields left to
	// the adapter's defaults); nil means the development chain.
	Chain *gateway.Config
	// Workers configures the engine. With the development chain UserDecryptThreshold is 0:
	// serve sets it to the development chain's threshold when the chain has started.
	Workers workers.Config
	// DevChain says that serve runs the development chain in process (no chain.rpc_url); the
	// timeouts not given explicitly then have the development profile's values.
	DevChain bool
	// DevChainRPC is where the development chain serves JSON-RPC over HTTP ("" for nowhere).
	DevChainRPC string
}

// configProblem is one thing wrong with the configuration: the setting's path, where it came
// from, and the issue.
type configProblem struct{ path, origin, issue string }

// configError lists every problem of a configuration.
type configError struct {
	file     string
	problems []configProblem
}

func (e *configError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "invalid configuration (%d problem", len(e.problems))
	if len(e.problems) != 1 {
		b.WriteString("s")
	}
	if e.file != "" {
		b.WriteString("; settings without a source named are from " + e.file)
	}
	b.WriteString("):")
	for _, p := range e.problems {
		b.WriteString("\n  - ")
		b.WriteString(p.path)
		if p.origin != "" {
			b.WriteString(" (" + p.origin + ")")
		}
		b.WriteString(": ")
		b.WriteString(p.issue)
	}
	return b.String()
}

// configSources are where loadServeConfig reads: the file (empty: none), the environment
// (KEY=value entries) and the flags set on the command line (by path).
type configSources struct {
	file  string
	env   []string
	flags map[string]string
}

// envPrefix starts every environment variable of the configuration.
const envPrefix = "RELAYER_"

// loadServeConfig reads and checks the configuration; a *configError lists every problem.
func loadServeConfig(src configSources) (serveSettings, []string, error) {
	var warnings []string
	var problems []configProblem
	origin := map[string]string{}
	tree := map[string]any{}
	if src.file != "" {
		data, err := os.ReadFile(src.file)
		if err != nil {
			return serveSettings{}, nil, &configError{problems: []configProblem{{path: "--config", issue: err.Error()}}}
		}
		var doc any
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return serveSettings{}, nil, &configError{problems: []configProblem{{path: src.file, issue: err.Error()}}}
		}
		switch m := jsonable(doc).(type) {
		case nil:
		case map[string]any:
			tree = m
			var root yaml.Node
			if err := yaml.Unmarshal(data, &root); err == nil {
				keepScalarText(&root, tree, reflect.TypeFor[fileConfig]())
			}
		default:
			return serveSettings{}, nil, &configError{problems: []configProblem{{path: src.file, issue: "must be a YAML mapping of settings"}}}
		}
	}

	known := knownPaths()
	var unknownEnv []string
	for _, kv := range src.env {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, envPrefix) || name == envPrefix+"CONFIG" {
			continue
		}
		path, ok := known[name]
		if !ok {
			unknownEnv = append(unknownEnv, name)
			continue
		}
		var v any
		var err error
		if t := settingType(path); t != nil && t.Kind() == reflect.String && val != "" {
			v = val // as written: an address stays a string, a URL is never parsed
		} else if t != nil && t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String && !strings.HasPrefix(strings.TrimSpace(val), "[") {
			// A list of strings ("a,b", or one element), each as written (an origin "*" is no
			// YAML alias).
			var list []any
			for _, part := range strings.Split(val, ",") {
				list = append(list, strings.TrimSpace(part))
			}
			v = list
		} else {
			v, err = envValue(val)
		}
		if str, isStr := v.(string); err == nil && isStr && isList(path) { // "a,b", or one element
			v, err = envList(str)
		}
		if err != nil {
			problems = append(problems, configProblem{path: path, origin: name, issue: "cannot be read: " + err.Error()})
			continue
		}
		setPath(tree, path, v)
		origin[path] = name
	}
	for path, v := range src.flags {
		setPath(tree, path, v)
		name, ok := flagNames[path]
		if !ok {
			name = strings.ReplaceAll(path, "_", "-")
		}
		origin[path] = "flag --" + name
	}
	secondsAliases(tree)

	fc := defaultFileConfig()
	unread := map[string]bool{}
	for _, p := range decodeTree(tree, &fc, origin) {
		unread[p.path] = true
		problems = append(problems, p)
	}
	for _, name := range unknownEnv {
		if name != fc.Chain.Signer.KeyEnv { // the signer's key: a variable, not a setting
			warnings = append(warnings, fmt.Sprintf("ignoring %s: no such setting", name))
		}
	}
	settings, more := fc.settings(givenPaths(tree))
	for _, p := range more {
		if unread[p.path] {
			continue // a value that could not be read is not checked further
		}
		if p.origin == "" {
			p.origin = originOf(origin, p.path)
		}
		problems = append(problems, p)
	}
	if len(problems) > 0 {
		return serveSettings{}, warnings, &configError{file: src.file, problems: problems}
	}
	return settings, warnings, nil
}

// settings turns the decoded file into what serve runs with, and lists what is invalid. given
// holds the paths of the settings given a value by the file, the environment or a flag (null and
// "" are not values), whatever the value: the development profile replaces only defaults.
func (fc fileConfig) settings(given map[string]bool) (serveSettings, []configProblem) {
	var ps []configProblem
	add := func(path, format string, args ...any) {
		ps = append(ps, configProblem{path: path, issue: fmt.Sprintf(format, args...)})
	}
	devChain := !given["chain.rpc_url"]
	if devChain {
		for _, d := range []struct {
			path string
			dst  *duration
			v    time.Duration
		}{
			{"timeouts.readiness", &fc.Timeouts.Readiness, devReadinessTimeout},
			{"timeouts.tx_in_flight", &fc.Timeouts.TxInFlight, devTxInFlightTimeout},
			{"timeouts.response", &fc.Timeouts.Response, devResponseTimeout},
		} {
			if !given[d.path] {
				*d.dst = duration(d.v)
			}
		}
	}
	a := api.DefaultConfig()
	a.Validation = domain.ValidationConfig{
		HostChainIDs: fc.HostChainIDs, MaxHandles: fc.Validation.MaxHandles, MaxContractAddresses: fc.Validation.MaxContractAddresses,
		MaxCiphertextBytes: fc.Validation.MaxCiphertextBytes, MaxPublicKeyBytes: fc.Validation.MaxPublicKeyBytes,
		MaxExtraDataBytes: fc.Validation.MaxExtraDataBytes, MaxDurationDays: fc.Validation.MaxDurationDays,
	}
	a.MaxBodyBytes = fc.API.MaxBodyBytes
	a.AcceptWait = time.Duration(fc.API.AcceptWait)
	a.QueueCapacity, a.ShedMargin, a.AdaptiveRetryAfter = fc.API.QueueCapacity, fc.API.QueueShedMargin, fc.API.AdaptiveRetryAfter
	a.Streams = api.StreamsConfig{MaxOpen: fc.API.MaxStreams, MaxPerClient: fc.API.MaxStreamsPerClient, WriteTimeout: time.Duration(fc.API.StreamWriteTimeout)}
	a.RetryAfter, a.RateLimit, a.AdminToken, a.OperatorToken = fc.RetryAfter, fc.RateLimit, fc.AdminToken, fc.OperatorToken
	a.AuditOpen = fc.API.AuditOpen
	a.CORSAllowedOrigins = fc.API.CORSAllowedOrigins
	a.APIKeyFile = fc.API.APIKeyFile
	a.Admission = api.AdmissionConfig{VerifySignatures: fc.Admission.VerifySignatures, StartSkew: time.Duration(fc.Admission.StartSkew),
		DecryptionContract: fc.Chain.Contracts.Decryption}
	if devChain {
		// The development chain's Decryption contract is known once it runs: startChain sets
		// it. Until then the check of the rest of the config stands on a placeholder.
		a.Admission.DecryptionContract = "0x" + strings.Repeat("0", 40)
	}
	if a.APIKeyFile != "" {
		if err := api.CheckAPIKeyFile(a.APIKeyFile); err != nil {
			add("api.api_key_file", "%v", err)
		}
	}
	if !given["api.audit_open"] {
		a.AuditOpen = devChain // a development stack's audit is open; a production one's is not
	}
	a.HTTP = api.HTTPConfig{
		ReadHeaderTimeout: time.Duration(fc.HTTP.ReadHeaderTimeout), ReadTimeout: time.Duration(fc.HTTP.ReadTimeout),
		WriteTimeout: time.Duration(fc.HTTP.WriteTimeout), IdleTimeout: time.Duration(fc.HTTP.IdleTimeout),
		ShutdownTimeout: time.Duration(fc.HTTP.ShutdownTimeout), MaxHeaderBytes: fc.HTTP.MaxHeaderBytes,
	}
	a.Keys = api.KeysConfig{
		PublicKeyID: fc.Keys.PublicKey.DataID, PublicKeyURLs: fc.Keys.PublicKey.URLs,
		CRSID: fc.Keys.CRS2048.DataID, CRSURLs: fc.Keys.CRS2048.URLs,
	}
	if devChain && !a.Keys.Configured() && a.Keys.PublicKeyID == "" && a.Keys.CRSID == "" {
		a.Keys = devKeys()
	}
	var ce *api.ConfigError
	if err := a.Validate(); errors.As(err, &ce) {
		// The Decryption contract comes from chain.contracts.decryption, which the chain's
		// settings check and report.
		ce.Problems = slices.DeleteFunc(ce.Problems, func(p api.Problem) bool { return p.Field == "admission.decryption_contract" })
		for _, p := range ce.Problems {
			path := p.Field
			if path == "host_chain_ids" {
				// Validation's limits and host chains are checked together.
				if strings.Contains(p.Issue, "Max") {
					path = "validation"
				}
			}
			add(path, "%s", p.Issue)
		}
	} else if err != nil {
		add("api", "%v", err)
	}
	pc := projections.Config{
		ReadinessTimeout: time.Duration(fc.Timeouts.Readiness), TxInFlightTimeout: time.Duration(fc.Timeouts.TxInFlight),
		ResponseTimeout: time.Duration(fc.Timeouts.Response), DrainWindow: time.Duration(fc.Timeouts.DrainWindow),
	}
	for _, d := range []struct {
		path string
		v    duration
	}{{"timeouts.readiness", fc.Timeouts.Readiness}, {"timeouts.tx_in_flight", fc.Timeouts.TxInFlight}, {"timeouts.response", fc.Timeouts.Response}} {
		if d.v <= 0 {
			add(d.path, "must be a positive duration, got %s", time.Duration(d.v))
		}
	}
	if err := pc.Validate(); err != nil && fc.Timeouts.Readiness > 0 && fc.Timeouts.TxInFlight > 0 && fc.Timeouts.Response > 0 {
		add("timeouts", "%s", strings.TrimPrefix(err.Error(), "projections config: "))
	}
	if host, port, err := net.SplitHostPort(fc.Listen); err != nil || port == "" {
		add("listen", "must be host:port (127.0.0.1:8080, :8080, 127.0.0.1:0 for any free port), got %q", fc.Listen)
	} else if host != "" && net.ParseIP(host) == nil && strings.ContainsAny(host, " /") {
		add("listen", "host %q is not an address or a name", host)
	}
	if strings.TrimSpace(fc.DataDir) == "" {
		add("data_dir", "must name a directory")
	}
	s := serveSettings{Listen: fc.Listen, DataDir: fc.DataDir, API: a, Projections: pc, DevChain: devChain, DevChainRPC: fc.DevChain.RPCListen}
	if loc, err := parseStore(fc.Store, fc.DataDir); err != nil {
		add("store", "%v", err)
	} else {
		s.Store = loc
	}
	if rpc := fc.DevChain.RPCListen; rpc != "" {
		if !devChain {
			add("devchain.rpc_listen", "is set but chain.rpc_url is set too (the development chain runs only without chain.rpc_url)")
		} else if err := (devchain.Config{HTTPAddr: rpc}).WithDefaults().Validate(); err != nil {
			add("devchain.rpc_listen", "%s", strings.TrimPrefix(err.Error(), "devchain: HTTPAddr: "))
		}
	}
	s.Chain = fc.Chain.gateway(given, add)
	s.Workers = fc.Workers.config(s.Chain, fc.Chain.UserDecryptThreshold, add)
	switch strings.ToLower(fc.Log.Level) {
	case "debug":
		s.LogLevel = slog.LevelDebug
	case "info", "":
		s.LogLevel = slog.LevelInfo
	case "warn", "warning":
		s.LogLevel = slog.LevelWarn
	case "error":
		s.LogLevel = slog.LevelError
	default:
		add("log.level", "must be debug, info, warn or error, got %q", fc.Log.Level)
	}
	switch strings.ToLower(fc.Log.Format) {
	case "text", "":
	case "json":
		s.LogJSON = true
	default:
		add("log.format", "must be text or json, got %q", fc.Log.Format)
	}
	return s, ps
}

// gateway checks the chain section and builds the gateway adapter's configuration from it; nil
// means the development chain (no chain.rpc_url), with which no other chain setting may be given.
// No problem quotes a URL: providers put API keys in them.
func (c chainSection) gateway(given map[string]bool, add func(path, format string, args ...any)) *gateway.Config {
	if !given["chain.rpc_url"] {
		var set []string
		for p := range given {
			if strings.HasPrefix(p, "chain.") {
				set = append(set, p)
			}
		}
		sort.Strings(set)
		for _, p := range set {
			add(p, "is set but chain.rpc_url is empty (the development chain is used without chain.rpc_url)")
		}
		return nil
	}
	g := &gateway.Config{
		RPCURL: c.RPCURL, WSURL: c.WSURL, HostRPCURL: c.HostRPCURL, ChainID: c.ChainID,
		Signer:            gateway.SignerConfig{KeyEnv: c.Signer.KeyEnv, KeystoreFile: c.Signer.Keystore, PasswordFile: c.Signer.PasswordFile},
		ConfirmationDepth: c.ConfirmationDepth, PollInterval: time.Duration(c.PollInterval), ReceiptTimeout: time.Duration(c.ReceiptTimeout),
	}
	reported := map[string]bool{}
	for _, a := range []struct {
		path, hex string
		dst       *common.Address
	}{
		{"chain.contracts.decryption", c.Contracts.Decryption, &g.Contracts.Decryption},
		{"chain.contracts.input_verification", c.Contracts.InputVerification, &g.Contracts.InputVerification},
		{"chain.contracts.acl", c.Contracts.ACL, &g.Contracts.ACL},
	} {
		switch {
		case a.hex == "": // the gateway's check says it is not set
		case !common.IsHexAddress(a.hex):
			// Not quoted: a private key pasted here must not reach a log.
			add(a.path, "must be a contract address, 40 hex digits with or without 0x (got %d characters)", len(a.hex))
			reported[a.path] = true
		default:
			*a.dst = common.HexToAddress(a.hex)
		}
	}
	if g.Signer.IsZero() {
		add("chain.signer", "must say where the relayer's signing key comes from: key_env (the name of an environment variable holding it) or keystore with password_file")
	}
	if c.UserDecryptThreshold < 1 {
		add("chain.user_decrypt_threshold", "must be 1 or more with an external chain (how many KMS shares complete a user decrypt: the gateway's threshold), got %d", c.UserDecryptThreshold)
	}
	for _, err := range splitJoined(g.Validate()) {
		path, issue := gatewayProblem(err.Error())
		if !reported[path] {
			add(path, "%s", issue)
		}
	}
	return g
}

// config checks the workers section and builds the engine's configuration. With the
// development chain (g nil) the user decrypt threshold stays 0 for serve to set from the chain.
func (w workersSection) config(g *gateway.Config, threshold int, add func(path, format string, args ...any)) workers.Config {
	cfg := workers.Config{
		Transport:             workers.TransportConfig{Kind: w.Transport},
		ReadinessPollInterval: time.Duration(w.ReadinessPollInterval),
		TxAttempts:            w.TxAttempts,
		TxRetryDelay:          time.Duration(w.TxRetryDelay),
		ResponseBufferTTL:     time.Duration(w.ResponseBufferTTL),
		TimeoutsPoll:          time.Duration(w.TimeoutsPoll),
	}
	if g != nil {
		cfg.UserDecryptThreshold = threshold
	}
	check := cfg
	check.UserDecryptThreshold = max(1, cfg.UserDecryptThreshold) // 0: set at start, or reported with the chain
	for _, err := range splitJoined(check.Validate()) {
		path, issue := workersProblem(err.Error())
		add(path, "%s", issue)
	}
	return cfg
}

// splitJoined returns the errors errors.Join joined in err, one by one.
func splitJoined(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, splitJoined(e)...)
		}
		return out
	}
	return []error{err}
}

// gatewaySettings are gateway.Config's fields by their settings' paths (HostRPCURL before RPCURL:
// the longer name first).
var gatewaySettings = []struct{ field, path string }{
	{"HostRPCURL", "chain.host_rpc_url"}, {"RPCURL", "chain.rpc_url"}, {"WSURL", "chain.ws_url"},
	{"ChainID", "chain.chain_id"},
	{"Contracts.Decryption", "chain.contracts.decryption"},
	{"Contracts.InputVerification", "chain.contracts.input_verification"},
	{"Contracts.ACL", "chain.contracts.acl"},
	{"Signer.KeyEnv", "chain.signer.key_env"}, {"Signer.KeystoreFile", "chain.signer.keystore"},
	{"Signer.PasswordFile", "chain.signer.password_file"},
	{"ConfirmationDepth", "chain.confirmation_depth"}, {"PollInterval", "chain.poll_interval"},
	{"ReceiptTimeout", "chain.receipt_timeout"},
}

var gatewayNames = func() *strings.Replacer {
	var pairs []string
	for _, s := range gatewaySettings {
		pairs = append(pairs, s.field, s.path)
	}
	return strings.NewReplacer(pairs...)
}()

// gatewayProblem turns one of gateway.Config.Validate's problems into the setting it is about
// and the issue, in the settings' names: "gateway: ChainID is 0; ..." is chain.chain_id's
// "is 0; ...". A problem of several settings stays under chain.
func gatewayProblem(msg string) (path, issue string) {
	issue = gatewayNames.Replace(strings.TrimPrefix(msg, "gateway: "))
	for _, s := range gatewaySettings {
		rest, ok := strings.CutPrefix(issue, s.path+" ")
		if !ok {
			continue
		}
		for _, verb := range []string{"is ", "must ", "has ", "holds ", "needs "} {
			if strings.HasPrefix(rest, verb) {
				return s.path, rest
			}
		}
	}
	return "chain", issue
}

// workersPhrases are how workers.Config.Validate names the settings.
var workersPhrases = []struct{ phrase, path string }{
	{"readiness poll interval ", "workers.readiness_poll_interval"},
	{"tx attempts ", "workers.tx_attempts"},
	{"tx retry delay ", "workers.tx_retry_delay"},
	{"user decrypt threshold ", "chain.user_decrypt_threshold"},
	{"response buffer TTL ", "workers.response_buffer_ttl"},
	{"timeouts poll ", "workers.timeouts_poll"},
	{"transport ", "workers.transport"},
}

// workersProblem turns one of workers.Config.Validate's problems into the setting it is about
// and the issue; one it does not recognise stays under workers.
func workersProblem(msg string) (path, issue string) {
	msg = strings.TrimPrefix(msg, "workers: ")
	for _, w := range workersPhrases {
		if rest, ok := strings.CutPrefix(msg, w.phrase); ok {
			return w.path, rest
		}
	}
	return "workers", msg
}

// givenPaths lists the settings tree gives a value: not null, not an empty string.
func givenPaths(tree map[string]any) map[string]bool {
	out := map[string]bool{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			switch x := v.(type) {
			case nil:
			case map[string]any:
				walk(prefix+k+".", x)
			case string:
				if x != "" {
					out[prefix+k] = true
				}
			default:
				out[prefix+k] = true
			}
		}
	}
	walk("", tree)
	return out
}

// keepScalarText puts back into tree the text of the scalars YAML read as numbers or booleans
// where the setting is a string (root is the file's document, t the type tree decodes into):
// YAML reads the address 0x00...c0 as the number 192.
func keepScalarText(n *yaml.Node, tree map[string]any, t reflect.Type) {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode || t.Kind() != reflect.Struct {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		f, ok := fieldByJSONName(t, k.Value)
		if !ok {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case v.Kind == yaml.MappingNode && ft.Kind() == reflect.Struct:
			if sub, isMap := tree[k.Value].(map[string]any); isMap {
				keepScalarText(v, sub, ft)
			}
		case v.Kind == yaml.ScalarNode && ft.Kind() == reflect.String:
			switch v.ShortTag() {
			case "!!int", "!!float", "!!bool":
				tree[k.Value] = v.Value
			}
		}
	}
}

// jsonable turns what yaml decodes into values encoding/json takes (maps keyed by strings).
func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonable(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonable(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = jsonable(e)
		}
		return x
	}
	return v
}

// envValue reads an environment variable's value as YAML.
func envValue(s string) (any, error) {
	var v any
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		return nil, err
	}
	return jsonable(v), nil
}

// envList reads "1337,8009" as a list.
func envList(s string) (any, error) {
	var out []any
	for _, part := range strings.Split(s, ",") {
		v, err := envValue(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// isList reports whether the setting at path is a list.
func isList(path string) bool {
	t := settingType(path)
	return t != nil && t.Kind() == reflect.Slice
}

// settingType is the type of the setting at path; nil when there is none.
func settingType(path string) reflect.Type {
	t := reflect.TypeFor[fileConfig]()
	for _, name := range strings.Split(path, ".") {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil
		}
		f, ok := fieldByJSONName(t, name)
		if !ok {
			return nil
		}
		t = f.Type
	}
	return t
}

// secretSettings are never quoted in a problem: a token, URLs that may carry API keys, and the
// signer's variable name, where a key may have been pasted.
var secretSettings = map[string]bool{
	"admin_token": true, "operator_token": true, "chain.rpc_url": true, "chain.ws_url": true, "chain.host_rpc_url": true,
	"chain.signer.key_env": true,
}

func setPath(tree map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	m := tree
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
}

func originOf(origin map[string]string, path string) string {
	for p := path; p != ""; {
		if o, ok := origin[p]; ok {
			return o
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return ""
}

// retryAfterSecondsNames are the admin API's names of the nominal times in seconds and the
// milliseconds names retryafter.Config stores them under.
var retryAfterSecondsNames = map[string]string{
	"nominal_readiness_check_seconds":           "nominal_readiness_check_ms",
	"nominal_input_proof_processing_seconds":    "nominal_input_proof_processing_ms",
	"nominal_user_decrypt_processing_seconds":   "nominal_user_decrypt_processing_ms",
	"nominal_public_decrypt_processing_seconds": "nominal_public_decrypt_processing_ms",
}

// secondsAliases rewrites retry_after's _seconds settings to the _ms fields.
func secondsAliases(tree map[string]any) {
	ra, ok := tree["retry_after"].(map[string]any)
	if !ok {
		return
	}
	for sec, ms := range retryAfterSecondsNames {
		v, ok := ra[sec]
		if !ok {
			continue
		}
		if f, isNum := toFloat(v); isNum {
			ra[ms] = math.Round(f * 1000)
			delete(ra, sec)
		}
	}
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// knownPaths maps every environment variable of the configuration to its setting's path.
func knownPaths() map[string]string {
	out := map[string]string{}
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := jsonName(f)
			if name == "" {
				continue
			}
			p := prefix + name
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && ft != reflect.TypeFor[time.Time]() {
				walk(p+".", ft)
				continue
			}
			out[envName(p)] = p
		}
	}
	walk("", reflect.TypeFor[fileConfig]())
	for sec := range retryAfterSecondsNames {
		out[envName("retry_after."+sec)] = "retry_after." + sec
	}
	return out
}

func envName(path string) string {
	return envPrefix + strings.ToUpper(strings.NewReplacer(".", "_").Replace(path))
}

func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	name, _, _ := strings.Cut(tag, ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	if name == "" {
		return f.Name
	}
	return name
}

// decodeTree decodes the settings of tree into dst setting by setting, so that every unknown
// setting and every value of the wrong type is listed, not only the first.
func decodeTree(tree map[string]any, dst *fileConfig, origin map[string]string) []configProblem {
	var ps []configProblem
	var walk func(path []string, m map[string]any, t reflect.Type)
	walk = func(path []string, m map[string]any, t reflect.Type) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := append(path[:len(path):len(path)], k)
			dotted := strings.Join(p, ".")
			f, ok := fieldByJSONName(t, k)
			if !ok {
				ps = append(ps, configProblem{path: dotted, origin: originOf(origin, dotted),
					issue: "unknown setting (known here: " + strings.Join(jsonNames(t), ", ") + ")"})
				continue
			}
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if sub, isMap := m[k].(map[string]any); isMap && ft.Kind() == reflect.Struct {
				walk(p, sub, ft)
				continue
			}
			if err := decodeLeaf(p, m[k], dst); err != nil {
				issue := leafIssue(err, f.Type, m[k])
				if secretSettings[dotted] {
					issue = "must be a string" // the value is never shown: it may be a secret
				}
				ps = append(ps, configProblem{path: dotted, origin: originOf(origin, dotted), issue: issue})
			}
		}
	}
	walk(nil, tree, reflect.TypeFor[fileConfig]())
	return ps
}

// decodeLeaf decodes one setting at path into dst.
func decodeLeaf(path []string, v any, dst *fileConfig) error {
	var wrapped any = v
	for i := len(path) - 1; i >= 0; i-- {
		wrapped = map[string]any{path[i]: wrapped}
	}
	b, err := json.Marshal(wrapped)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(dst)
}

func leafIssue(err error, t reflect.Type, v any) string {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) || strings.HasPrefix(err.Error(), "json: ") {
		return fmt.Sprintf("must be %s, got %s", describeType(t), shortValue(v))
	}
	return err.Error()
}

func describeType(t reflect.Type) string {
	if t == reflect.TypeFor[duration]() {
		return `a duration such as "30s"`
	}
	switch t.Kind() {
	case reflect.Pointer:
		return describeType(t.Elem())
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "a whole number"
	case reflect.Uint64, reflect.Uint, reflect.Uint32:
		return "a whole number, 0 or more"
	case reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Struct {
			return "a list of {" + strings.Join(jsonNames(t.Elem()), ", ") + "}"
		}
		switch t.Elem().Kind() {
		case reflect.Uint64, reflect.Uint, reflect.Uint32, reflect.Int, reflect.Int64:
			return "a list of whole numbers"
		}
		return "a list of " + t.Elem().Kind().String() + " values"
	}
	return t.String()
}

func shortValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return s
}

func fieldByJSONName(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); jsonName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func jsonNames(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if n := jsonName(t.Field(i)); n != "" {
			out = append(out, n)
		}
	}
	return out
}
