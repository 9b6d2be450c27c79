package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"go.yaml.in/yaml/v3"

	"relayer/api"
	"relayer/api/ratelimit"
	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/domain/webhook"
	"relayer/projections"
	"relayer/workers"
	"relayer/workers/gateway"
)

// The configuration of `relayer serve`: a YAML file (--config), then RELAYER_* environment
// variables, then the command line's flags, each over the one before, over the defaults. Every
// setting of the file has an environment variable: RELAYER_ and its path in capitals with "_"
// for "." (api.queue_capacity is RELAYER_API_QUEUE_CAPACITY, rate_limit.read.rolling_limit is
// RELAYER_RATE_LIMIT_READ_ROLLING_LIMIT). Values are read as YAML (a list may also be written
// "1337,8009"), except that a string setting takes its value as written: a contract address
// 0x00...c0 is not a number, and a URL or a token is never parsed (nor quoted in a problem).
// Everything is checked before anything starts, and every problem is listed, with where it came
// from.
//
// Without chain.rpc_url (or chain.providers), serve runs the development chain in process (DESIGN section 10): no
// other chain setting may then be given, and the timeouts not given explicitly take the
// development profile's (readiness 10s, tx_in_flight 60s, response 20s) instead of production's.
// A build without the development chain (-tags nodevchain) has no such default: chain.rpc_url is
// required, and the devchain section has rpc_listen only, refused.
// With chain.rpc_url, chain_id, the three contracts, a signer and user_decrypt_threshold are
// required. An RPC URL may carry an API key: RELAYER_CHAIN_RPC_URL keeps it out of files, and no
// problem ever repeats a URL.
//
// The sections are the packages' own Configs, their defaults and their checks: api is api.Config,
// http api.HTTPConfig, timeouts projections.Config, chain gateway.Config, workers workers.Config,
// retry_after retryafter.Config, rate_limit ratelimit.Config; a setting is a field with a yaml
// name there (see settingFields), and a package's Validate names each problem by its field, which
// serve lists under the section's path. Names follow the admin API's: retry_after takes
// retryafter's JSON names (input_proof_throttler_tps, nominal_tx_confirmation_ms, ...,
// receipt_backoff as a list of {elapsed_ms, retry_seconds}) and the admin API's _seconds names of
// the nominal times; rate_limit takes ratelimit's (concurrency_limit, read: {rolling_limit},
// retry_policy: ...).
//
//	listen: 127.0.0.1:8080
//	data_dir: ./data
//	store: ""                       # sqlite:PATH or postgres://...; default: relayer.db in data_dir
//	host_chain_ids: [1337]
//	api: {max_body_bytes: 1048576, accept_wait: 2s, queue_capacity: 100000,
//	      max_streams: 256, max_streams_per_client: 8, stream_write_timeout: 30s,
//	      audit_open: true with the development chain on a loopback listen address, else false,
//	      cors_allowed_origins: [] (e.g. ["https://app.example.org"]; empty: CORS off),
//	      api_key_file: "" (issued API keys: "<name> <sha256 of the key> [write=N] [read=N] [concurrency=N]" per line),
//	      queue_shed_margin: 0, adaptive_retry_after: true}
//	http: {read_header_timeout: 5s, read_timeout: 30s, write_timeout: 30s, idle_timeout: 2m,
//	       shutdown_timeout: 10s, max_header_bytes: 65536}
//	timeouts: {readiness: 5m, tx_in_flight: 2m, response: 30m, processing: 30m, drain_window: 1m}
//	chain: {rpc_url: "", ws_url: "", host_rpc_url: "", chain_id: 0,
//	        providers: [] (several RPC providers instead of rpc_url: [{url: "https://...", weight: 2}, {url: ...}]),
//	        max_head_lag: 5,  # blocks a provider may be behind the best before its reads go elsewhere
//	        contracts: {decryption: "", input_verification: "", acl: ""},
//	        signer: {key_env: "", keystore: "", password_file: "",   # one of key_env, keystore or kms
//	                 kms: {key_id: "", region: "", endpoint: ""}},      # AWS KMS; credentials from the AWS environment
//	        extra_signers: [] (a fleet's further keys, each {key_env: ...}, {keystore: ..., password_file: ...} or {kms: {key_id: ...}}),
//	        confirmation_depth: 0, poll_interval: 1s, receipt_timeout: 2m, user_decrypt_threshold: 0,
//	        max_fee_per_gas: 500000000000, max_priority_fee_per_gas: 10000000000,  # wei
//	        bump_after_blocks: 5, fee_bump_percent: 12}
//	workers: {readiness_poll_interval: 500ms, tx_attempts: 5, tx_retry_delay: 200ms,
//	          response_buffer_ttl: 10m, timeouts_poll: 1s, transport: gochannel,  # or nats
//	          balance_floor_wei: "",  # wei; empty: 10 x the key's costliest recent transaction's reserve; 0: never pause a key
//	          balance_interval: 15s, nonce_check_interval: 10s,
//	          nats: {url: nats://127.0.0.1:4222, prefix: relayer, ack_wait: 30s, ...},
//	          fleet: {enabled: false, instance: "", lease_duration: 10s, lease_renew: 2s}}
//	validation: {max_handles: 32, max_contract_addresses: 10, ...}
//	retry_after: {input_proof_throttler_tps: 10, nominal_readiness_check_seconds: 2, ...}
//	rate_limit: {concurrency_limit: 32, rolling_limit: 100, read: {rolling_limit: 600}, trusted_proxies: [], ...}
//	log: {level: info, format: text}
//	devchain: {rpc_listen: "",      # 127.0.0.1:8545 serves the development chain's JSON-RPC
//	           profile: instant,    # or production: the simulated components' latencies
//	           kms_delay: 0s, coprocessor_delay: 0s, readiness_delay: 0s, jitter: 0.2}  # 0: the profile's
//	keys: {public_key: {data_id: "0x...", urls: [...]}, crs_2048: {data_id: "0x...", urls: [...]}}
//	admission: {verify_signatures: true, start_skew: 0s}
//	retention: {enabled: true, archive: "",  # a directory or s3://bucket/prefix; default: archive in data_dir
//	            window: {input_proof: 168h, user_decrypt: 168h, public_decrypt: 8760h, delegated_user_decrypt: 168h},
//	            batch: 2000, interval: 1m}
//	webhooks: {secret_key: "",        # 32 bytes, hex or base64 (openssl rand -hex 32); empty: webhooks off
//	           allow_private: false,  # loopback, private, link-local endpoints (a receiver on this host)
//	           timeout: 10s,          # one delivery attempt
//	           retry_cap: 1h,         # the longest wait between attempts (long-tail schedule, jittered)
//	           disable_after: 24h,    # failing this long: WebhookDisabled, relayer_webhook_disabled 1
//	           rotation_overlap: 24h, # a rotated-out secret still signs this long
//	           max_endpoints: 100}
//
// Without keys, the development stack serves its development key material (package devkeys)
// under /keys/ and GET /v2/keyurl points at it; with an external chain, keys are needed for the
// public SDK's createInstance (GET /v2/keyurl answers 500 without them).
//
// The admin token is better given by RELAYER_ADMIN_TOKEN than in a file or on the command line,
// and the operator token (operator_token: reads of the audit endpoints, /v1/jobs/{jobId}/events
// and /v1/transitions) by RELAYER_OPERATOR_TOKEN; so is webhooks.secret_key (the key that seals
// the webhook endpoints' signing secrets in the log) by RELAYER_WEBHOOKS_SECRET_KEY. Every
// instance sharing a log needs the same one; with another, the endpoints registered before cannot
// be signed for (their deliveries fail, and the endpoints are disabled after disable_after).
type fileConfig struct {
	Listen  string `yaml:"listen"`
	DataDir string `yaml:"data_dir"`
	// Store is the event store's URL (sqlite:PATH, postgres://...); empty: relayer.db in
	// DataDir. Its password, if any, is never quoted.
	Store string `yaml:"store"`
	// AdminToken, OperatorToken (reads of the audit endpoints) and HostChainIDs are api.Config's,
	// at the root of the file.
	AdminToken    string             `yaml:"admin_token"`
	OperatorToken string             `yaml:"operator_token"`
	HostChainIDs  []uint64           `yaml:"host_chain_ids"`
	API           api.Config         `yaml:"api"` // its fields with a yaml name; the others are the sections below
	HTTP          api.HTTPConfig     `yaml:"http"`
	Timeouts      projections.Config `yaml:"timeouts"`
	Chain         chainSection       `yaml:"chain"`
	Workers       workersSection     `yaml:"workers"`
	Validation    validationSection  `yaml:"validation"`
	RetryAfter    retryafter.Config  `yaml:"retry_after"`
	RateLimit     ratelimit.Config   `yaml:"rate_limit"`
	Log           logSection         `yaml:"log"`
	Keys          keysSection        `yaml:"keys"`
	DevChain      devChainSection    `yaml:"devchain"`
	Admission     admissionSection   `yaml:"admission"`
	// Webhooks is domain/webhook.Config: the admin API's registrations and the deliveries
	// (workers/delivery) both read it.
	Webhooks webhook.Config `yaml:"webhooks"`
	// Retention is domain.Retention and where the archive lives (workers/archiver).
	Retention retentionSection `yaml:"retention"`
}

// retentionSection is the retention policy (domain.Retention: on by default, the reference's
// windows) and the archive the jobs past it go to: a directory or an s3:// URL; empty, the
// directory archive in data_dir.
type retentionSection struct {
	Enabled  bool             `yaml:"enabled"`
	Archive  string           `yaml:"archive"`
	Window   retentionWindows `yaml:"window"`
	Batch    int              `yaml:"batch"`
	Interval time.Duration    `yaml:"interval"`
}

// retentionWindows are the windows by kind, counted from the moment a job ended.
type retentionWindows struct {
	InputProof           time.Duration `yaml:"input_proof"`
	UserDecrypt          time.Duration `yaml:"user_decrypt"`
	PublicDecrypt        time.Duration `yaml:"public_decrypt"`
	DelegatedUserDecrypt time.Duration `yaml:"delegated_user_decrypt"`
}

func retentionDefaults() retentionSection {
	r := domain.DefaultRetention()
	return retentionSection{Enabled: r.Enabled, Batch: r.Batch, Interval: r.Interval, Window: retentionWindows{
		InputProof: r.Window(domain.InputProof), UserDecrypt: r.Window(domain.UserDecrypt),
		PublicDecrypt: r.Window(domain.PublicDecrypt), DelegatedUserDecrypt: r.Window(domain.DelegatedUserDecrypt)}}
}

func (r retentionSection) policy() domain.Retention {
	p := domain.Retention{Enabled: r.Enabled, Batch: r.Batch, Interval: r.Interval}
	p.Windows[domain.InputProof.Ordinal()] = r.Window.InputProof
	p.Windows[domain.UserDecrypt.Ordinal()] = r.Window.UserDecrypt
	p.Windows[domain.PublicDecrypt.Ordinal()] = r.Window.PublicDecrypt
	p.Windows[domain.DelegatedUserDecrypt.Ordinal()] = r.Window.DelegatedUserDecrypt
	return p
}

// chainSection is the external gateway chain; without rpc_url, serve runs the development chain.
type chainSection struct {
	Gateway gateway.Config `yaml:",inline"`
	Signer  signerSection  `yaml:"signer"`
	// ExtraSigners are a fleet's further signing keys (workers.fleet.enabled): the jobs are split
	// over signer and these, each key driven by one instance at a time under its own lease.
	ExtraSigners []signerSection `yaml:"extra_signers"`
	// UserDecryptThreshold is workers.Config's: how many KMS shares complete a user decrypt (the
	// gateway's threshold).
	UserDecryptThreshold int `yaml:"user_decrypt_threshold"`
}

// workersSection configures the engine; transport names workers.TransportConfig's kind.
type workersSection struct {
	Config    workers.Config `yaml:",inline"`
	Transport string         `yaml:"transport"`
	// NATS is the nats transport's (workers.NATSConfig): its URL may carry credentials.
	NATS workers.NATSConfig `yaml:"nats"`
}

// signerSection, validationSection and admissionSection name the fields of gateway.SignerConfig,
// domain.ValidationConfig and projections.AdmissionConfig, which have no yaml names of their own:
// each converts into its package's type, so the compiler keeps it in step.

// signerSection is gateway.SignerConfig: never the key itself, nor AWS credentials (the AWS
// SDK's standard chain gives those to a KMS key).
type signerSection struct {
	KeyEnv       string            `yaml:"key_env" json:"key_env"`
	KeystoreFile string            `yaml:"keystore" json:"keystore"`
	PasswordFile string            `yaml:"password_file" json:"password_file"`
	KMS          gateway.KMSConfig `yaml:"kms" json:"kms"`
}

// validationSection is domain.ValidationConfig; its host chains are host_chain_ids, at the root.
type validationSection struct {
	HostChainIDs         []uint64
	MaxHandles           int    `yaml:"max_handles"`
	MaxContractAddresses int    `yaml:"max_contract_addresses"`
	MaxCiphertextBytes   int    `yaml:"max_ciphertext_bytes"`
	MaxPublicKeyBytes    int    `yaml:"max_public_key_bytes"`
	MaxExtraDataBytes    int    `yaml:"max_extra_data_bytes"`
	MaxDurationDays      uint64 `yaml:"max_duration_days"`
}

// admissionSection is projections.AdmissionConfig: the checks before a request is accepted, the
// user's signature of every user decrypt and delegated user decrypt (EIP-712, ERC-1271 for
// contract wallets), and how far ahead of the chain's time a validity window may begin. The
// Decryption contract is chain.contracts.decryption.
type admissionSection struct {
	VerifySignatures   bool `yaml:"verify_signatures"`
	DecryptionContract string
	StartSkew          time.Duration `yaml:"start_skew"`
}

// keysSection is what GET /v2/keyurl answers (api.KeysConfig, by key): the network's FHE public
// key and CRS (2048 bits). Without it, the development stack serves its own development key
// material.
type keysSection struct {
	PublicKey keyMaterialSection `yaml:"public_key"`
	CRS2048   keyMaterialSection `yaml:"crs_2048"`
}

type keyMaterialSection struct {
	DataID string   `yaml:"data_id"`
	URLs   []string `yaml:"urls"`
}

func (k keysSection) config() api.KeysConfig {
	return api.KeysConfig{PublicKeyID: k.PublicKey.DataID, PublicKeyURLs: k.PublicKey.URLs, CRSID: k.CRS2048.DataID, CRSURLs: k.CRS2048.URLs}
}

// devChainSection configures the in-process development chain (without chain.rpc_url): its
// JSON-RPC listener, and devchain.Config's settings (the latency profile: profile, kms_delay,
// coprocessor_delay, readiness_delay, jitter). A build without the development chain
// (devchain_off.go) has rpc_listen only, and refuses it.
type devChainSection struct {
	// RPCListen serves the chain's JSON-RPC over HTTP on this loopback host:port, for the public
	// SDK's network setting (createInstance reads the host contracts through it); "" for none.
	RPCListen string         `yaml:"rpc_listen"`
	Chain     devChainConfig `yaml:",inline"`
}

type logSection struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
}

// The development profile's timeouts (DESIGN section 10), the defaults with the development
// chain: short, so that its test handles (never ready, no response) end within seconds.
const (
	devReadinessTimeout  = 10 * time.Second
	devTxInFlightTimeout = 60 * time.Second
	devResponseTimeout   = 20 * time.Second
	devProcessingTimeout = 60 * time.Second
)

// defaultFileConfig is every setting's default: the packages' own. The chain's and validation's
// are zero, which the gateway adapter and the request parser take as their defaults (the
// adapter's receipt poll follows poll_interval).
func defaultFileConfig() fileConfig {
	a := api.DefaultConfig()
	w := workers.DefaultConfig()
	return fileConfig{
		Listen:       "127.0.0.1:8080",
		DataDir:      "./data",
		HostChainIDs: []uint64{devHostChainID},
		API:          a,
		HTTP:         a.HTTP,
		Timeouts:     projections.DefaultConfig(),
		Workers:      workersSection{Config: w, Transport: w.Transport.Kind},
		RetryAfter:   a.RetryAfter,
		RateLimit:    a.RateLimit,
		Log:          logSection{Level: "info", Format: "text"},
		Admission:    admissionSection{VerifySignatures: true, StartSkew: projections.DefaultStartSkew},
		Webhooks:     webhook.Config{}.WithDefaults(),
		Retention:    retentionDefaults(),
	}
}

// noDevChain is why a build without the development chain (-tags nodevchain, devchain_off.go)
// refuses what needs it.
const noDevChain = "this relayer was built without the development chain (-tags nodevchain)"

// flagNames are serve's flags whose name is not their setting's path with "-" for "_".
var flagNames = map[string]string{"devchain.rpc_listen": "devchain-rpc"}

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
	// ExtraSigners are the fleet's keys beside Chain.Signer (chain.extra_signers).
	ExtraSigners []gateway.SignerConfig
	// Workers configures the engine. With the development chain UserDecryptThreshold is 0:
	// serve sets it to the development chain's threshold when the chain has started.
	Workers workers.Config
	// DevChain says that serve runs the development chain in process (no chain.rpc_url); the
	// timeouts not given explicitly then have the development profile's values.
	DevChain bool
	// DevChainRPC is where the development chain serves JSON-RPC over HTTP ("" for nowhere).
	DevChainRPC string
	// DevChainConfig is the development chain's configuration (its latency profile), without
	// the JSON-RPC listener (DevChainRPC).
	DevChainConfig devChainConfig
	// Retention is the retention policy serve's archiver starts with; Archive where it archives
	// (a directory or an s3:// URL).
	Retention domain.Retention
	Archive   string
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
	var fileTokens []string // the tokens the file gives, which no file should hold
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
			problems = append(problems, secondsAliases(tree)...)
			for _, path := range []string{"admin_token", "operator_token"} {
				if v, given := tree[path]; given && v != nil && v != "" {
					fileTokens = append(fileTokens, path)
				}
			}
		default:
			return serveSettings{}, nil, &configError{problems: []configProblem{{path: src.file, issue: "must be a YAML mapping of settings"}}}
		}
	}

	known := knownPaths()
	var unknownEnv []string
	envSeconds := map[string]envAlias{} // the _ms settings the environment gives in seconds
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
		if ms, isAlias := secondsAlias(path); isAlias {
			// A nominal time in seconds: the setting in milliseconds, unless the environment
			// gives that one too with another value.
			v, err := envValue(val)
			msv, isNum := secondsToMs(v)
			if err != nil || !isNum {
				problems = append(problems, configProblem{path: path, origin: name, issue: "must be a number of seconds, got " + strconv.Quote(val)})
				continue
			}
			envSeconds[ms] = envAlias{name: name, ms: msv}
			continue
		}
		var v any
		var err error
		if t := settingType(path); asWritten(t) && val != "" {
			v = val // an address stays a string, a URL is never parsed
		} else if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String && !strings.HasPrefix(strings.TrimSpace(val), "[") {
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
	for _, ms := range slices.Sorted(maps.Keys(envSeconds)) {
		a := envSeconds[ms]
		if given, both := origin[ms]; both && strings.HasPrefix(given, envPrefix) {
			if f, _ := toFloat(getPath(tree, ms)); f != a.ms.(float64) {
				problems = append(problems, configProblem{path: ms, origin: a.name + " and " + given,
					issue: "are two names of one setting with different values: give one"})
				continue
			}
		}
		setPath(tree, ms, a.ms)
		origin[ms] = a.name
	}
	for path, v := range src.flags {
		setPath(tree, path, v)
		name, ok := flagNames[path]
		if !ok {
			name = strings.ReplaceAll(path, "_", "-")
		}
		origin[path] = "flag --" + name
	}

	fc := defaultFileConfig()
	unread := map[string]bool{}
	for _, p := range decodeTree(tree, &fc, origin) {
		unread[p.path] = true
		problems = append(problems, p)
	}
	for _, name := range unknownEnv {
		if !fc.Chain.isKeyEnv(name) { // a signer's key: a variable, not a setting
			warnings = append(warnings, fmt.Sprintf("ignoring %s: no such setting", name))
		}
	}
	for _, path := range fileTokens {
		w := fmt.Sprintf("%s is given in the file %s: a file is easily copied, backed up or committed; give the token through %s", path, src.file, envName(path))
		if info, err := os.Stat(src.file); err == nil && info.Mode().Perm()&0o077 != 0 {
			w += fmt.Sprintf(" (the file's mode %04o lets other users read it)", info.Mode().Perm())
		}
		warnings = append(warnings, w)
	}
	settings, more := fc.settings(givenPaths(tree))
	for _, tp := range fc.RateLimit.TrustedProxies {
		if pfx, err := netip.ParsePrefix(tp); err == nil && pfx.Bits() == 0 {
			warnings = append(warnings, fmt.Sprintf("rate_limit.trusted_proxies holds %s: every client can then choose its identity with X-Forwarded-For; list only the proxies in front of the relayer", tp))
		}
	}
	for _, p := range more {
		if unread[p.path] || unread[parentPath(p.path)] {
			continue // a value that could not be read (or its list) is not checked further
		}
		p.origin = originOf(origin, p.path)
		problems = append(problems, p)
	}
	if len(problems) > 0 {
		return serveSettings{}, warnings, &configError{file: src.file, problems: problems}
	}
	return settings, warnings, nil
}

// checks collects the problems of the decoded configuration.
type checks []configProblem

func (c *checks) add(path, format string, args ...any) {
	*c = append(*c, configProblem{path: path, issue: fmt.Sprintf(format, args...)})
}

// fromPackage lists the problems of a package's Validate, each under section's path and its
// field's ("chain" and "chain_id": chain.chain_id; api.Config names them from the root, section
// ""). A field that is not a setting (a default of the package's) is told under its nearest
// section that is, and one at a path already reported is left out: serve's own check said it.
func (c *checks) fromPackage(section string, err error) {
	before := len(*c)
	for _, p := range packageProblems(err) {
		field := strings.TrimPrefix(section+"."+p.Field, ".")
		path, issue := field, p.Issue
		for path != section && settingType(path) == nil {
			path = parentPath(path)
		}
		if path != field {
			issue = strings.TrimPrefix(strings.TrimPrefix(field, path), ".") + ": " + issue
		}
		if !slices.ContainsFunc((*c)[:before], func(q configProblem) bool { return q.path == path }) {
			c.add(path, "%s", issue)
		}
	}
}

// packageProblems are the problems err lists: each package's Validate reports them with the
// field they are about; an error of another kind is one problem without a field.
func packageProblems(err error) []api.Problem {
	var (
		ae *api.ConfigError
		pe *projections.ConfigError
		we *workers.ConfigError
		ge *gateway.ConfigError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ae):
		return ae.Problems
	case errors.As(err, &pe):
		return pe.Problems
	case errors.As(err, &we):
		return we.Problems
	case errors.As(err, &ge):
		return ge.Problems
	}
	return []api.Problem{{Issue: err.Error()}}
}

// settings turns the decoded file into what serve runs with, and lists what is invalid. given
// holds the paths of the settings given a value by the file, the environment or a flag (null and
// "" are not values), whatever the value: the development profile replaces only defaults.
func (fc fileConfig) settings(given map[string]bool) (serveSettings, []configProblem) {
	var c checks
	// Without chain.rpc_url or chain.providers serve runs the development chain, in a build that has it; one that has
	// not needs the external chain's settings, each of which the chain's check below names.
	external := given["chain.rpc_url"] || given["chain.providers"]
	devChain := devChainBuilt && !external
	if !devChainBuilt && !external {
		c.add("chain.rpc_url", "is required: %s, so serve needs an external chain: chain.rpc_url (or chain.providers), chain.chain_id, "+
			"chain.contracts (decryption, input_verification, acl), chain.signer (key_env, or keystore with password_file) "+
			"and chain.user_decrypt_threshold (or their RELAYER_CHAIN_* variables); the build without the tag runs the "+
			"development chain in process", noDevChain)
	}

	a := fc.API
	a.HTTP, a.RetryAfter, a.RateLimit = fc.HTTP, fc.RetryAfter, fc.RateLimit
	a.AdminToken, a.OperatorToken = fc.AdminToken, fc.OperatorToken
	a.Validation = domain.ValidationConfig(fc.Validation)
	a.Validation.HostChainIDs = fc.HostChainIDs
	a.Admission = projections.AdmissionConfig(fc.Admission)
	a.Webhooks = fc.Webhooks
	a.Retention = fc.Retention.policy()
	// The development chain's Decryption contract is known once it runs (startRelayer sets it);
	// until then the zero address stands in, as it does for an external chain's not given, which
	// the chain's check reports.
	a.Admission.DecryptionContract = fc.Chain.Gateway.Contracts.Decryption.Hex()
	if !given["api.audit_open"] {
		// A development stack's audit is open, but only to this machine: one listening beyond
		// loopback would show every user's address, signature and key to the network.
		a.AuditOpen = devChain && loopbackListen(fc.Listen)
	}
	a.Keys = fc.Keys.config()
	if devChain && !a.Keys.Configured() && a.Keys.PublicKeyID == "" && a.Keys.CRSID == "" {
		a.Keys = devKeys()
	}
	if a.APIKeyFile != "" {
		if err := api.CheckAPIKeyFile(a.APIKeyFile); err != nil {
			c.add("api.api_key_file", "%v", err)
		}
	}
	c.fromPackage("", a.Validate())

	pc := fc.Timeouts
	for _, t := range []struct {
		name string
		v    *time.Duration
		dev  time.Duration
	}{
		{"readiness", &pc.ReadinessTimeout, devReadinessTimeout},
		{"tx_in_flight", &pc.TxInFlightTimeout, devTxInFlightTimeout},
		{"response", &pc.ResponseTimeout, devResponseTimeout},
		{"processing", &pc.ProcessingTimeout, devProcessingTimeout},
	} {
		if devChain && !given["timeouts."+t.name] {
			*t.v = t.dev
		}
		if *t.v <= 0 { // 0 would be the package's default: production's, not what was written
			c.add("timeouts."+t.name, "must be a positive duration, got %s", *t.v)
		}
	}
	c.fromPackage("timeouts", pc.Validate())

	if host, port, err := net.SplitHostPort(fc.Listen); err != nil || port == "" {
		c.add("listen", "must be host:port (127.0.0.1:8080, :8080, 127.0.0.1:0 for any free port), got %q", fc.Listen)
	} else if host != "" && net.ParseIP(host) == nil && strings.ContainsAny(host, " /") {
		c.add("listen", "host %q is not an address or a name", host)
	}
	if strings.TrimSpace(fc.DataDir) == "" {
		c.add("data_dir", "must name a directory")
	}
	s := serveSettings{Listen: fc.Listen, DataDir: fc.DataDir, API: a, Projections: pc, DevChain: devChain, DevChainRPC: fc.DevChain.RPCListen}
	if loc, err := parseStore(fc.Store, fc.DataDir); err != nil {
		c.add("store", "%v", err)
	} else {
		s.Store = loc
	}
	s.DevChainConfig = fc.DevChain.Chain
	s.Retention, s.Archive = fc.Retention.policy(), fc.Retention.Archive
	if s.Archive == "" {
		s.Archive = filepath.Join(fc.DataDir, "archive")
	}
	for _, p := range s.Retention.Problems() {
		// The admin API's names (retention.window.input-proof, seconds) are the file's
		// retention.window.input_proof.
		path := strings.ReplaceAll(strings.TrimPrefix(p.Field, domain.RetentionPrefix), "-", "_")
		c.add("retention."+path, "%s", p.Issue)
	}
	if devChain {
		c.fromPackage("devchain", validateDevChain(fc.DevChain))
	} else {
		unused := "is set but chain.rpc_url is set too (the development chain runs only without chain.rpc_url)"
		if !devChainBuilt {
			unused = "is set but " + noDevChain
		}
		for _, p := range slices.Sorted(maps.Keys(given)) {
			if strings.HasPrefix(p, "devchain.") {
				c.add(p, "%s", unused)
			}
		}
	}
	s.Chain = fc.Chain.gateway(devChain, given, &c)
	for i, es := range fc.Chain.ExtraSigners {
		sc := gateway.SignerConfig(es)
		path := fmt.Sprintf("chain.extra_signers[%d]", i)
		if sc.IsZero() {
			c.add(path, "must say where the key comes from: %s", signerSources)
			continue
		}
		for _, err := range signerProblems(sc) {
			c.add(path, "%s", err)
		}
		s.ExtraSigners = append(s.ExtraSigners, sc)
	}

	s.Workers = fc.Workers.Config
	s.Workers.Transport.Kind = fc.Workers.Transport
	s.Workers.Transport.NATS = fc.Workers.NATS
	if s.Chain != nil {
		s.Workers.UserDecryptThreshold = fc.Chain.UserDecryptThreshold
	}
	check := s.Workers
	check.UserDecryptThreshold = max(1, check.UserDecryptThreshold) // 0: set at start, or reported with the chain
	c.fromPackage("workers", check.Validate())
	if len(fc.Chain.ExtraSigners) > 0 && !s.Workers.Fleet.Enabled {
		c.add("chain.extra_signers", "several keys are driven by a fleet: set workers.fleet.enabled (a fleet of one instance drives them all)")
	}
	if s.Workers.Fleet.Enabled {
		if s.Chain == nil {
			c.add("workers.fleet.enabled", "several instances drive one external chain: run the development chain in its own process (relayer devchain) and set chain.rpc_url")
		}
		if s.Store.scheme != "" && s.Store.scheme != "postgres" {
			c.add("workers.fleet.enabled", "several instances share a PostgreSQL store: set store to a postgres:// URL (the store is %s)", s.Store.scheme)
		}
		if s.Retention.Enabled && strings.TrimSpace(fc.Retention.Archive) == "" {
			c.add("retention.archive", "the instances of a fleet archive by turns (under the archiver's lease), so they need one archive they all reach: "+
				"set retention.archive to an s3:// URL or a folder they share, or retention.enabled to false")
		}
	}

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
		c.add("log.level", "must be debug, info, warn or error, got %q", fc.Log.Level)
	}
	switch strings.ToLower(fc.Log.Format) {
	case "text", "":
	case "json":
		s.LogJSON = true
	default:
		c.add("log.format", "must be text or json, got %q", fc.Log.Format)
	}
	return s, c
}

// isKeyEnv tells whether name is the variable of one of the section's signing keys.
func (cs chainSection) isKeyEnv(name string) bool {
	if name == cs.Signer.KeyEnv {
		return true
	}
	for _, es := range cs.ExtraSigners {
		if name == es.KeyEnv {
			return true
		}
	}
	return false
}

// gateway checks the chain section and returns the gateway adapter's configuration; nil means the
// development chain (devChain: no chain.rpc_url), with which no other chain setting may be given.
// No problem quotes a URL: providers put API keys in them.
func (cs chainSection) gateway(devChain bool, given map[string]bool, c *checks) *gateway.Config {
	if devChain {
		for _, p := range slices.Sorted(maps.Keys(given)) {
			if strings.HasPrefix(p, "chain.") {
				c.add(p, "is set but chain.rpc_url is empty (the development chain is used without chain.rpc_url)")
			}
		}
		return nil
	}
	g := cs.Gateway
	g.Signer = gateway.SignerConfig(cs.Signer)
	if g.Signer.IsZero() {
		c.add("chain.signer", "must say where the relayer's signing key comes from: %s", signerSources)
	}
	if cs.UserDecryptThreshold < 1 {
		c.add("chain.user_decrypt_threshold", "must be 1 or more with an external chain (how many KMS shares complete a user decrypt: the gateway's threshold), got %d", cs.UserDecryptThreshold)
	}
	c.fromPackage("chain", g.Validate())
	return &g
}

// signerSources are the ways a signer names its key, as a problem tells them.
const signerSources = "key_env (the name of an environment variable holding it), keystore with password_file, or kms.key_id (an AWS KMS key)"

// signerProblems are the problems gateway.SignerConfig's Validate finds (each names its field,
// never a key), one by one.
func signerProblems(sc gateway.SignerConfig) []string {
	err := sc.Validate()
	if err == nil {
		return nil
	}
	var out []string
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			out = append(out, strings.TrimPrefix(e.Error(), "gateway: "))
		}
		return out
	}
	return []string{strings.TrimPrefix(err.Error(), "gateway: ")}
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

// A setting is a field with a yaml name or, without one, a json name (retry_after and rate_limit
// keep the admin API's JSON names); a field with neither is not a setting. A field tagged
// ",inline" lends its struct's settings to the struct that holds it. A struct is a section of
// settings; everything else, durations ("30s") and contract addresses (hex) included, is one
// setting, decoded whole (a list of structs, such as receipt_backoff, by its json names).
type settingField struct {
	name  string
	index []int
	typ   reflect.Type
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	addressType  = reflect.TypeFor[common.Address]()
)

// settingFields are the settings of the struct type t, in field order.
func settingFields(t reflect.Type) []settingField {
	var out []settingField
	for i := range t.NumField() {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("yaml")
		if !ok {
			tag = f.Tag.Get("json")
		}
		name, opts, _ := strings.Cut(tag, ",")
		switch {
		case !f.IsExported() || name == "-":
		case name == "" && slices.Contains(strings.Split(opts, ","), "inline"):
			for _, sub := range settingFields(f.Type) {
				sub.index = append([]int{i}, sub.index...)
				out = append(out, sub)
			}
		case name != "":
			out = append(out, settingField{name: name, index: []int{i}, typ: f.Type})
		}
	}
	return out
}

func settingNamed(t reflect.Type, name string) (settingField, bool) {
	for _, f := range settingFields(t) {
		if f.name == name {
			return f, true
		}
	}
	return settingField{}, false
}

func settingNames(t reflect.Type) []string {
	var out []string
	for _, f := range settingFields(t) {
		out = append(out, f.name)
	}
	return out
}

// isSection reports whether t holds settings rather than being one.
func isSection(t reflect.Type) bool { return t.Kind() == reflect.Struct }

// asWritten reports whether a setting of type t takes its text as written: strings (a URL, a
// token) and contract addresses, which YAML would read as numbers.
func asWritten(t reflect.Type) bool {
	return t != nil && (t.Kind() == reflect.String || t == addressType)
}

// keepScalarText puts back into tree the text of the scalars YAML read as numbers or booleans
// where the setting takes its text as written (root is the file's document, t the type tree
// decodes into): YAML reads the address 0x00...c0 as the number 192.
func keepScalarText(n *yaml.Node, tree map[string]any, t reflect.Type) {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode || !isSection(t) {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		f, ok := settingNamed(t, k.Value)
		if !ok {
			continue
		}
		switch {
		case v.Kind == yaml.MappingNode && isSection(f.typ):
			if sub, isMap := tree[k.Value].(map[string]any); isMap {
				keepScalarText(v, sub, f.typ)
			}
		case v.Kind == yaml.ScalarNode && asWritten(f.typ):
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

// settingType is the type of the setting or section at path ("" is the file; an index, as in
// retry_after.receipt_backoff[0].elapsed_ms, names an element); nil when there is none.
func settingType(path string) reflect.Type {
	t := reflect.TypeFor[fileConfig]()
	if path == "" {
		return t
	}
	for _, name := range strings.Split(path, ".") {
		name, index, _ := strings.Cut(name, "[")
		if !isSection(t) {
			return nil
		}
		f, ok := settingNamed(t, name)
		if !ok {
			return nil
		}
		t = f.typ
		if index != "" {
			if t.Kind() != reflect.Slice {
				return nil
			}
			t = t.Elem()
		}
	}
	return t
}

// parentPath is the section that holds the setting at path ("" for the file).
func parentPath(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

// secretSettings are never quoted in a problem: tokens, URLs that may carry API keys or a
// password, and the signers' settings, where a key may have been pasted.
var secretSettings = map[string]bool{
	"admin_token": true, "operator_token": true, "store": true,
	"chain.rpc_url": true, "chain.ws_url": true, "chain.host_rpc_url": true, "chain.providers": true, "chain.signer.key_env": true,
	"chain.signer.kms.key_id": true, "chain.signer.kms.endpoint": true, "chain.extra_signers": true,
	"workers.nats.url": true, "webhooks.secret_key": true,
}

// getPath is the value at path in tree (nil when there is none).
func getPath(tree map[string]any, path string) any {
	parts := strings.Split(path, ".")
	m := tree
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			return nil
		}
		m = next
	}
	return m[parts[len(parts)-1]]
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

// originOf names where the setting at path came from: the environment variable or the flag that
// gave it or its section; for a problem about a section, those of the settings given under it.
// "" is the file.
func originOf(origin map[string]string, path string) string {
	for p := path; p != ""; p = parentPath(p) {
		if o, ok := origin[p]; ok {
			return o
		}
	}
	var below []string
	for p, o := range origin {
		if strings.HasPrefix(p, path+".") && !slices.Contains(below, o) {
			below = append(below, o)
		}
	}
	slices.Sort(below)
	return strings.Join(below, ", ")
}

// retryAfterSecondsNames are the admin API's names of the nominal times in seconds and the
// milliseconds names retryafter.Config stores them under.
var retryAfterSecondsNames = map[string]string{
	"nominal_readiness_check_seconds":           "nominal_readiness_check_ms",
	"nominal_input_proof_processing_seconds":    "nominal_input_proof_processing_ms",
	"nominal_user_decrypt_processing_seconds":   "nominal_user_decrypt_processing_ms",
	"nominal_public_decrypt_processing_seconds": "nominal_public_decrypt_processing_ms",
}

// secondsAliases rewrites a file's retry_after _seconds settings to the _ms fields. A _seconds
// setting that is not a number, or that the file gives beside its _ms setting with another value,
// is a problem.
func secondsAliases(tree map[string]any) []configProblem {
	ra, ok := tree["retry_after"].(map[string]any)
	if !ok {
		return nil
	}
	var ps []configProblem
	for _, sec := range slices.Sorted(maps.Keys(retryAfterSecondsNames)) {
		v, given := ra[sec]
		if !given {
			continue
		}
		ms := retryAfterSecondsNames[sec]
		msv, isNum := secondsToMs(v)
		if !isNum {
			ps = append(ps, configProblem{path: "retry_after." + sec, issue: fmt.Sprintf("must be a number of seconds, got %v", v)})
			delete(ra, sec)
			continue
		}
		if other, both := ra[ms]; both {
			if f, _ := toFloat(other); f != msv.(float64) {
				ps = append(ps, configProblem{path: "retry_after." + sec,
					issue: fmt.Sprintf("sets the same time as retry_after.%s (%v ms) to %v s: give one of them", ms, other, v)})
				delete(ra, sec)
				continue
			}
		}
		ra[ms] = msv
		delete(ra, sec)
	}
	return ps
}

// secondsAlias is the retry_after _ms setting that the _seconds setting at path gives in seconds.
func secondsAlias(path string) (string, bool) {
	name, ok := strings.CutPrefix(path, "retry_after.")
	if !ok {
		return "", false
	}
	ms, ok := retryAfterSecondsNames[name]
	return "retry_after." + ms, ok
}

// secondsToMs is v, a number of seconds, in milliseconds (a float64).
func secondsToMs(v any) (any, bool) {
	f, ok := toFloat(v)
	if !ok {
		return nil, false
	}
	return math.Round(f * 1000), true
}

// envAlias is a _ms setting the environment gives in seconds: the variable, and the value in
// milliseconds.
type envAlias struct {
	name string
	ms   any
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

// knownPaths maps every environment variable of the configuration to its setting's path: the
// settings serve --help lists (settingPaths), retry_after's _seconds names among them.
func knownPaths() map[string]string {
	out := map[string]string{}
	for _, p := range settingPaths() {
		out[envName(p)] = p
	}
	return out
}

func envName(path string) string {
	return envPrefix + strings.ToUpper(strings.NewReplacer(".", "_").Replace(path))
}

// decodeTree decodes the settings of tree into dst setting by setting, so that every unknown
// setting and every value of the wrong type is listed, not only the first.
func decodeTree(tree map[string]any, dst *fileConfig, origin map[string]string) []configProblem {
	var ps []configProblem
	var walk func(prefix string, m map[string]any, v reflect.Value)
	walk = func(prefix string, m map[string]any, v reflect.Value) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			path := prefix + k
			f, ok := settingNamed(v.Type(), k)
			if !ok {
				ps = append(ps, configProblem{path: path, origin: originOf(origin, path),
					issue: "unknown setting (known here: " + strings.Join(settingNames(v.Type()), ", ") + ")"})
				continue
			}
			fv := v.FieldByIndex(f.index)
			if sub, isMap := m[k].(map[string]any); isMap && fv.Kind() == reflect.Struct {
				walk(path+".", sub, fv)
				continue
			}
			if issue := decodeSetting(m[k], fv); issue != "" {
				if secretSettings[path] {
					issue = "must be " + describeType(fv.Type()) // the value is never shown: it may be a secret
				}
				ps = append(ps, configProblem{path: path, origin: originOf(origin, path), issue: issue})
			}
		}
	}
	walk("", tree, reflect.ValueOf(dst).Elem())
	return ps
}

// decodeSetting decodes the value v of one setting into dst; it returns what is wrong with v, or
// "". A null changes nothing.
func decodeSetting(v any, dst reflect.Value) string {
	if v == nil {
		return ""
	}
	s, isString := v.(string)
	switch dst.Type() {
	case durationType:
		if isZeroNumber(v) {
			dst.SetInt(0) // a bare 0 (YAML's number, or the variable "0"): the default, as the hints say
			return ""
		}
		d, err := time.ParseDuration(s)
		if !isString || err != nil {
			return fmt.Sprintf("must be %s, got %s", describeType(durationType), shortValue(v))
		}
		dst.SetInt(int64(d))
		return ""
	case addressType:
		// Never quoted: a private key pasted here must not reach a log.
		if !isString {
			return "must be " + describeType(addressType)
		}
		if !common.IsHexAddress(s) {
			return fmt.Sprintf("must be %s (got %d characters)", describeType(addressType), len(s))
		}
		dst.Set(reflect.ValueOf(common.HexToAddress(s)))
		return ""
	}
	b, err := json.Marshal(v)
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		err = dec.Decode(dst.Addr().Interface())
	}
	if err != nil {
		return fmt.Sprintf("must be %s, got %s", describeType(dst.Type()), shortValue(v))
	}
	return ""
}

// isZeroNumber tells a setting's value that is the number 0.
func isZeroNumber(v any) bool {
	switch n := v.(type) {
	case int:
		return n == 0
	case int64:
		return n == 0
	case uint64:
		return n == 0
	case float64:
		return n == 0
	}
	return false
}

func describeType(t reflect.Type) string {
	switch t {
	case durationType:
		return `a duration such as "30s" or "5m"`
	case addressType:
		return "a contract address, 40 hex digits with or without 0x"
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
	case reflect.Struct:
		return "a mapping of settings (" + strings.Join(settingNames(t), ", ") + ")"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Struct {
			return "a list of {" + strings.Join(settingNames(t.Elem()), ", ") + "}"
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

// loopbackListen reports whether a listen address (host:port) takes connections from this
// machine only: a loopback address or "localhost". An empty host listens everywhere.
func loopbackListen(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil || host == "" {
		return false
	}
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}
