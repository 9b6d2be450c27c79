package main

import (
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"relayer/domain"
	"relayer/workers"
)

// settingDocs says in one line what each setting of serve's configuration does, by path. The
// list of settings, their defaults and their environment variables in `serve --help` come from
// the loader itself (settingPaths, settingDefaults, envName); a test checks that this table
// names every setting the loader knows and nothing else, so a setting added to a package's
// Config without a line here fails the tests.
var settingDocs = map[string]string{
	"listen":         "the HTTP API's host:port (--listen); 127.0.0.1:0 takes any free port",
	"data_dir":       "directory of the SQLite event store relayer.db when store is empty (--data-dir)",
	"store":          "the event store's URL: sqlite:PATH, postgres://... or kurrentdb://...; empty: relayer.db in data_dir (--store; give a password through the variable)",
	"admin_token":    "bearer token of /admin/config and of cancelling jobs, at least 32 bytes; empty: the admin API is off (give it through the variable, never in a file)",
	"operator_token": "bearer token of the audit endpoints (/v1/jobs, /v1/jobs/{jobId}/events, /v1/transitions, /v1/overview), at least 32 bytes",
	"host_chain_ids": "the host chains served: a request naming another is refused (400 host_chain_id_not_supported)",

	"api.max_body_bytes":         "the largest submission body accepted (413 beyond it)",
	"api.accept_wait":            "how long a POST waits for the read models to show the job it accepted before it answers 202",
	"api.queue_capacity":         "a submission that would start a job is refused (429) once its queue holds this many jobs, less queue_shed_margin",
	"api.queue_shed_margin":      "subtracted from queue_capacity: shedding starts that many jobs earlier",
	"api.adaptive_retry_after":   "hints use the observed drain rates and stage durations while enough fresh samples back them, else the nominal retry_after values",
	"api.audit_open":             "serve the audit endpoints to anyone; default true only with the development chain on a loopback listen address",
	"api.max_streams":            "/v1/transitions streams open at once, all clients together",
	"api.max_streams_per_client": "/v1/transitions streams one client may keep open at once",
	"api.stream_write_timeout":   "a stream whose client stops reading for this long is closed",
	"api.api_key_file":           "file of issued API keys, one \"<name> <sha256 of the key> [write=N] [read=N] [concurrency=N]\" per line; empty: clients are their addresses",
	"api.cors_allowed_origins":   "web origins whose pages may call the API from a browser; empty: CORS off",

	"http.read_header_timeout": "time allowed to read a request's headers",
	"http.read_timeout":        "time allowed to read a whole request (streams excepted)",
	"http.write_timeout":       "time allowed to write a whole response (streams excepted); long-polls wait at most 2s less",
	"http.idle_timeout":        "how long an idle keep-alive connection stays open",
	"http.shutdown_timeout":    "on SIGINT or SIGTERM, how long requests in flight may still run",
	"http.max_header_bytes":    "the largest request headers accepted",

	"timeouts.readiness":    fmt.Sprintf("a decrypt still queued this long after its acceptance times out, at most 30 days (development chain: %s; 0: the default)", compactDuration(devReadinessTimeout)),
	"timeouts.tx_in_flight": fmt.Sprintf("a job in tx_in_flight this long has its transaction looked at by recovery, at most 30 days (development chain: %s; 0: the default)", compactDuration(devTxInFlightTimeout)),
	"timeouts.response":     fmt.Sprintf("a job waiting this long in receipt_received for its response times out, at most 30 days (development chain: %s; 0: the default)", compactDuration(devResponseTimeout)),
	"timeouts.processing":   fmt.Sprintf("a job in processing this long whose transaction could not be prepared fails, at most 30 days (development chain: %s; 0: the default)", compactDuration(devProcessingTimeout)),
	"timeouts.drain_window": "the window the queues' drain rates are measured over, whole seconds, 1s to 1h (0: the default)",

	"chain.rpc_url":                      "the gateway chain's JSON-RPC URL over HTTP(S); empty: the in-process development chain (give a URL with an API key through the variable)",
	"chain.ws_url":                       "optional JSON-RPC over WebSocket, for new-head subscriptions; without it the listener polls",
	"chain.providers":                    "several JSON-RPC URLs of the gateway chain instead of rpc_url, each {url, weight}: reads by weight from the healthy ones, transactions sent to all healthy ones (give it through the variable: URLs carry API keys)",
	"chain.max_head_lag":                 "blocks a provider's head may be behind the best provider's before its reads go elsewhere (default 5)",
	"chain.host_rpc_url":                 "JSON-RPC URL of the host chain holding the ACL contract; empty: the gateway chain's (rpc_url or providers)",
	"chain.chain_id":                     "the gateway chain's id, required with rpc_url; a node reporting another is refused",
	"chain.contracts.decryption":         "the gateway's Decryption contract address",
	"chain.contracts.input_verification": "the gateway's InputVerification contract address",
	"chain.contracts.acl":                "the host chain's ACL contract address",
	"chain.max_fee_per_gas":              "the highest fee per gas a transaction may offer, in wei",
	"chain.max_priority_fee_per_gas":     "the highest tip per gas, in wei",
	"chain.bump_after_blocks":            "a transaction not mined after this many new blocks, outbid by the chain's fees or not in the node's pool, is replaced with higher fees (-1: never)",
	"chain.fee_bump_percent":             "how much a replacement raises both fees, at least, in percent",
	"chain.confirmation_depth":           "how many blocks the response listener stays behind the head",
	"chain.poll_interval":                "how often the listener polls for new blocks without a WebSocket subscription",
	"chain.receipt_timeout":              "how long a send waits for its receipt",
	"chain.call_timeout":                 "bounds every JSON-RPC call to the chain, retries included",
	"chain.signer.key_env":               "the name of the environment variable holding the signing key (never the key itself)",
	"chain.signer.keystore":              "an encrypted keystore file holding the signing key, with password_file",
	"chain.signer.password_file":         "the file holding the keystore's password",
	"chain.signer.kms.key_id":            "an AWS KMS secp256k1 key (id, ARN or alias) that signs instead of a key held here; credentials from the AWS environment",
	"chain.signer.kms.region":            "the AWS KMS key's region (not needed with an ARN or AWS_REGION)",
	"chain.signer.kms.endpoint":          "another KMS endpoint URL than AWS's (a KMS emulator, say)",
	"chain.extra_signers":                "a fleet's further signing keys, each {key_env} or {keystore, password_file} (needs workers.fleet.enabled)",
	"chain.user_decrypt_threshold":       "how many KMS shares complete a user decrypt (the gateway's threshold); required with rpc_url",

	"workers.readiness_poll_interval": "how often a readiness check asks the gateway again whether a decrypt is ready (0: the default)",
	"workers.tx_attempts":             "tries of a send that failed on a retryable error before the job fails with transaction_failed (at least 1; 0: the default)",
	"workers.tx_retry_delay":          "the wait before a send's second try; it doubles after each (0: the default)",
	"workers.response_buffer_ttl":     "how long a gateway response whose request no job has recorded yet is kept for its receipt (0: the default)",
	"workers.balance_floor_wei":       "a signing key whose balance falls below this many wei is paused (its jobs wait) until topped up to a tenth above it; empty: 10 times the reserve of its costliest recent transaction; 0: never paused",
	"workers.balance_interval":        "how often each signing key's balance is read (also after every receipt, at most once a second; 0: the default)",
	"workers.nonce_check_interval":    "how often each signing key's nonces are checked against the chain (also after a nonce refusal, at most once a second; 0: the default)",
	"workers.timeouts_poll":           "the longest the timeouts worker sleeps between two looks at the deadlines (0: the default)",
	"workers.fleet.enabled":           "several serve instances share one PostgreSQL store; the engine runs under a lease kept in the log",
	"workers.fleet.instance":          "this instance's name in the lease's events; empty: host name and pid",
	"workers.fleet.lease_duration":    "how long a lease outlives its last renewal: the longest the work stands still after its holder died; 0: 10s",
	"workers.fleet.lease_renew":       "how often the holder renews its lease; 0: a fifth of lease_duration",
	"workers.transport":               "what carries the workers' messages: gochannel (in process) or nats (NATS JetStream, for a fleet)",
	"workers.nats.url":                "the NATS server, or several separated by commas (may carry credentials: give it through the variable)",
	"workers.nats.credentials_file":   "a NATS credentials file (user JWT and NKey seed)",
	"workers.nats.prefix":             "names the stream and starts every subject; instances that share the work share it",
	"workers.nats.ack_wait":           "how long the server waits for a message's ack before it delivers it again",
	"workers.nats.redelivery_delay":   "how long a nacked message waits before it is delivered again",
	"workers.nats.max_deliver":        "the most deliveries of one message (-1: no limit)",
	"workers.nats.max_ack_pending":    "messages of a topic delivered and not yet acked, over all instances",
	"workers.nats.max_age":            "the longest the stream keeps a message not every consumer acked",
	"workers.nats.replicas":           "copies of the stream in a JetStream cluster, 1 to 5",

	"validation.max_handles":            "the most ciphertext handles (or handle-contract pairs) in one request (400 beyond it)",
	"validation.max_contract_addresses": "the most contractAddresses in a user decrypt",
	"validation.max_ciphertext_bytes":   "the largest input-proof ciphertext, in decoded bytes",
	"validation.max_public_key_bytes":   "the largest user-decrypt publicKey, in decoded bytes",
	"validation.max_extra_data_bytes":   "the largest extraData, in decoded bytes",
	"validation.max_duration_days":      "the longest requestValidity.durationDays",

	"retry_after.input_proof_throttler_tps":                 "D for input proofs: transactions started per second, and the drain rate the hints assume (runtime parameter)",
	"retry_after.user_decrypt_throttler_tps":                "D for user decrypts, delegated ones included (runtime parameter)",
	"retry_after.public_decrypt_throttler_tps":              "D for public decrypts (runtime parameter)",
	"retry_after.readiness_max_concurrency":                 "C: readiness checks running at once (runtime parameter)",
	"retry_after.readiness_drain_rate":                      "the readiness queue's drain rate the hints assume, per second; 0: readiness_max_concurrency per second",
	"retry_after.nominal_readiness_check_ms":                "R: the nominal time of one readiness check, in ms",
	"retry_after.nominal_readiness_check_seconds":           "nominal_readiness_check_ms in seconds (the admin API's name)",
	"retry_after.nominal_input_proof_processing_ms":         "P for input proofs: the coprocessors' nominal answer time after the receipt, in ms",
	"retry_after.nominal_input_proof_processing_seconds":    "nominal_input_proof_processing_ms in seconds (the admin API's name)",
	"retry_after.nominal_user_decrypt_processing_ms":        "P for user decrypts: the KMS nodes' nominal answer time after the receipt, in ms",
	"retry_after.nominal_user_decrypt_processing_seconds":   "nominal_user_decrypt_processing_ms in seconds (the admin API's name)",
	"retry_after.nominal_public_decrypt_processing_ms":      "P for public decrypts, in ms",
	"retry_after.nominal_public_decrypt_processing_seconds": "nominal_public_decrypt_processing_ms in seconds (the admin API's name)",
	"retry_after.nominal_tx_confirmation_ms":                "T: the nominal time from send to receipt, in ms",
	"retry_after.retry_after_safety_margin":                 "M: every computed hint is multiplied by 1+M",
	"retry_after.retry_after_min_seconds":                   "the shortest Retry-After given to a pending job",
	"retry_after.retry_after_max_seconds":                   "the longest Retry-After given to a pending job",
	"retry_after.receipt_backoff":                           "the hints of a job in receipt_received past its expected answer: from elapsed_ms on, retry_seconds",
	"retry_after.retry_after_adaptive_min_samples":          "samples an observation needs before the adaptive hints trust it",
	"retry_after.retry_after_adaptive_stale_after_seconds":  "the adaptive hints trust an observation only while its newest sample is at most this old",

	"rate_limit.concurrency_limit":                        "requests one client may have in flight at once, per class (0: off)",
	"rate_limit.concurrency_timeout_seconds":              "a held slot stops counting after this long (streams); also caps the concurrency hint",
	"rate_limit.rolling_limit":                            "requests one client may start per rolling window, per class (0: off)",
	"rate_limit.rolling_window_seconds":                   "the rolling window's length",
	"rate_limit.write.concurrency_limit":                  "concurrency_limit for writes (submissions); unset: the base value",
	"rate_limit.write.concurrency_timeout_seconds":        "concurrency_timeout_seconds for writes; unset: the base value",
	"rate_limit.write.rolling_limit":                      "rolling_limit for writes; unset: the base value",
	"rate_limit.write.rolling_window_seconds":             "rolling_window_seconds for writes; unset: the base value",
	"rate_limit.read.concurrency_limit":                   "concurrency_limit for reads (status polls); unset: the base value",
	"rate_limit.read.concurrency_timeout_seconds":         "concurrency_timeout_seconds for reads; unset: the base value",
	"rate_limit.read.rolling_limit":                       "rolling_limit for reads; unset: the base value",
	"rate_limit.read.rolling_window_seconds":              "rolling_window_seconds for reads; unset: the base value",
	"rate_limit.retry_policy.concurrency.base_ms":         "the first Retry-After of a client refused by a concurrency limit, in ms",
	"rate_limit.retry_policy.concurrency.max_ms":          "the longest such hint, in ms",
	"rate_limit.retry_policy.concurrency.factor":          "how much each refusal in a row multiplies the hint",
	"rate_limit.retry_policy.concurrency.jitter_ms":       "random jitter added to the hint, in ms",
	"rate_limit.retry_policy.concurrency.window_fraction": "not used by concurrency limits (validated only)",
	"rate_limit.retry_policy.rolling.base_ms":             "validated only: a rolling limit's hint is the exact time its window frees a slot",
	"rate_limit.retry_policy.rolling.max_ms":              "validated only (see rolling.base_ms)",
	"rate_limit.retry_policy.rolling.factor":              "validated only (see rolling.base_ms)",
	"rate_limit.retry_policy.rolling.jitter_ms":           "validated only (see rolling.base_ms)",
	"rate_limit.retry_policy.rolling.window_fraction":     "validated only (see rolling.base_ms)",
	"rate_limit.trusted_proxies":                          "proxies in front of the relayer (prefixes or addresses) whose X-Forwarded-For is believed; empty: the header is ignored",
	"rate_limit.trust_forwarded_for":                      "no longer a setting: refused when true (use trusted_proxies)",
	"rate_limit.max_keys":                                 "the most clients tracked at once",
	"log.level":                                           "debug, info, warn or error",
	"log.format":                                          "text or json",
	"keys.public_key.data_id":                             "GET /v2/keyurl's FHE public key id (0x and 64 hex digits); empty with the development chain: its own key material",
	"keys.public_key.urls":                                "where clients download the FHE public key",
	"keys.crs_2048.data_id":                               "GET /v2/keyurl's CRS (2048 bits) id",
	"keys.crs_2048.urls":                                  "where clients download the CRS",
	"devchain.rpc_listen":                                 "serve the development chain's JSON-RPC over HTTP on this loopback host:port, for the public SDK (--devchain-rpc)",
	"devchain.profile":                                    "the simulated components' latencies: instant (answers within 50-300ms) or production (like the real ones)",
	"devchain.kms_delay":                                  "a simulated KMS node's typical answer time; 0: the profile's (production: 4s)",
	"devchain.coprocessor_delay":                          "a simulated coprocessor's typical answer time; 0: the profile's (production: 2s)",
	"devchain.readiness_delay":                            "how long a handle takes to be ready; 0: the profile's (production: 2s)",
	"devchain.jitter":                                     "how far each drawn delay may be from the typical one, as a share of it",
	"admission.verify_signatures":                         "check the user's EIP-712 signature (ERC-1271 for contract wallets) of every user decrypt before accepting it",
	"admission.start_skew":                                "how far past the chain's time a user decrypt's validity window may begin",
	"webhooks.secret_key":                                 "the key (64 hex digits) that seals the webhook endpoints' signing secrets in the log; empty: webhooks are off (give it through the variable; every instance needs the same)",
	"webhooks.allow_private":                              "let endpoints resolve to loopback, private or link-local addresses (a receiver on the relayer's own network)",
	"webhooks.timeout":                                    "how long a delivery waits for the endpoint's answer; 0: the default",
	"webhooks.retry_cap":                                  "the longest wait between two attempts at one delivery (the long-tail schedule, jittered); 0: the default",
	"webhooks.disable_after":                              "an endpoint failing this long without a success is disabled (WebhookDisabled); 0: the default",
	"webhooks.rotation_overlap":                           "how long a rotated secret still signs beside the new one, unless the rotation says otherwise; 0: the default",
	"webhooks.max_endpoints":                              "how many endpoints may be registered at once; 0: the default",
	"retention.enabled":                                   "move jobs that ended longer ago than their kind's window from the live store to the archive (nothing is destroyed: relayer replay --archive reads both)",
	"retention.archive":                                   "where the archive lives: a directory or an s3://bucket/prefix URL (credentials from the AWS environment); empty: archive in data_dir",
	"retention.window.input_proof":                        "how long an input proof that ended stays in the live store",
	"retention.window.user_decrypt":                       "how long a user decrypt that ended stays in the live store",
	"retention.window.public_decrypt":                     "how long a public decrypt that ended stays in the live store",
	"retention.window.delegated_user_decrypt":             "how long a delegated user decrypt that ended stays in the live store",
	"retention.batch":                                     "the most events one archive segment holds, and the most jobs one removal names",
	"retention.interval":                                  "how often the archiver looks for work once it has caught up",
}

// settingPaths are the paths of every setting of serve's configuration, in the order of the
// file's sections and fields, with retry_after's _seconds names after the _ms fields they set.
func settingPaths() []string {
	seconds := map[string]string{}
	for sec, ms := range retryAfterSecondsNames {
		seconds["retry_after."+ms] = "retry_after." + sec
	}
	var out []string
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for _, f := range settingFields(t) {
			if isSection(f.typ) {
				walk(prefix+f.name+".", f.typ)
				continue
			}
			out = append(out, prefix+f.name)
			if alias, ok := seconds[prefix+f.name]; ok {
				out = append(out, alias)
			}
		}
	}
	walk("", reflect.TypeFor[fileConfig]())
	return out
}

// settingDefaults is every setting's default as serve runs with it: defaultFileConfig, with the
// values the packages give the zero fields of the chain, the development chain, the NATS
// transport and the request limits.
func settingDefaults() fileConfig {
	fc := defaultFileConfig()
	fc.Chain.Gateway = fc.Chain.Gateway.WithDefaults()
	fc.DevChain.Chain = devChainDefaults(fc.DevChain.Chain)
	fc.Workers.NATS = workers.DefaultConfig().Transport.NATS
	v := &fc.Validation
	v.MaxHandles, v.MaxContractAddresses = domain.DefaultMaxHandles, domain.DefaultMaxContractAddresses
	v.MaxCiphertextBytes, v.MaxPublicKeyBytes = domain.DefaultMaxCiphertextBytes, domain.DefaultMaxPublicKeyBytes
	v.MaxExtraDataBytes, v.MaxDurationDays = domain.DefaultMaxExtraDataBytes, domain.DefaultMaxDurationDays
	return fc
}

// settingDefault is the default of the setting at path, as serve --help shows it.
func settingDefault(fc fileConfig, path string) string {
	for sec, ms := range retryAfterSecondsNames {
		if path == "retry_after."+sec {
			v, _ := settingValue(fc, "retry_after."+ms)
			return strconv.FormatFloat(float64(v.Int())/1000, 'f', -1, 64)
		}
	}
	v, ok := settingValue(fc, path)
	if !ok {
		return "?"
	}
	return formatSetting(v)
}

// settingValue is the value of the setting at path in fc.
func settingValue(fc fileConfig, path string) (reflect.Value, bool) {
	v := reflect.ValueOf(fc)
	for _, name := range strings.Split(path, ".") {
		f, ok := settingNamed(v.Type(), name)
		if !ok {
			return reflect.Value{}, false
		}
		v = v.FieldByIndex(f.index)
	}
	return v, true
}

// formatSetting writes a setting's value as it would be written in the file.
func formatSetting(v reflect.Value) string {
	switch v.Type() {
	case durationType:
		return compactDuration(time.Duration(v.Int()))
	case addressType:
		if a := v.Interface().(common.Address); a != (common.Address{}) {
			return a.Hex()
		}
		return `""`
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return "unset"
		}
		return formatSetting(v.Elem())
	case reflect.String:
		if v.Len() == 0 {
			return `""`
		}
		return v.String()
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int64, reflect.Int32:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'f', -1, 64)
	case reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = formatSetting(v.Index(i))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case reflect.Struct:
		var parts []string
		for _, f := range settingFields(v.Type()) {
			parts = append(parts, f.name+": "+formatSetting(v.FieldByIndex(f.index)))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v.Interface())
}

// compactDuration writes d without its trailing zero units: 2m, not 2m0s.
func compactDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// writeSettingsHelp lists every setting of serve's configuration: its path, its environment
// variable, its default and what it does, section by section.
func writeSettingsHelp(w io.Writer) {
	fmt.Fprint(w, `
Settings: each can be given in the YAML file (--config; a dotted path is a nested key:
api.queue_capacity is "api: {queue_capacity: ...}") or by its environment variable, RELAYER_ and
the path in capitals (a list may be written 1337,8009 there). Flags win over the environment,
which wins over the file. A zero value that stands for a package's own default says so below.
`)
	defaults := settingDefaults()
	section := ""
	for _, p := range settingPaths() {
		if s, _, ok := strings.Cut(p, "."); ok && s != section {
			section = s
			fmt.Fprintf(w, "\n%s:\n", s)
		} else if !ok && section == "" {
			section = "."
			fmt.Fprintf(w, "\n(top level):\n")
		}
		doc := settingDocs[p]
		if doc == "" {
			doc = "(not documented)"
		}
		// A long default (a table) goes below, with the meaning.
		if def := settingDefault(defaults, p); len(def) <= 40 {
			fmt.Fprintf(w, "  %s = %s  (%s)\n", p, def, envName(p))
		} else {
			fmt.Fprintf(w, "  %s  (%s)\n", p, envName(p))
			doc = "default " + def + "; " + doc
		}
		for _, line := range wrapWords(doc, 92) {
			fmt.Fprintf(w, "      %s\n", line)
		}
	}
}

// wrapWords breaks s into lines of at most width characters, at spaces.
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
