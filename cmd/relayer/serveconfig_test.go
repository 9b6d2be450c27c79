package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"relayer/api"
	"relayer/projections"
	"relayer/workers"
	"relayer/workers/gateway"
)

// writeConfig writes a configuration file in a fresh directory and returns its path.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "relayer.yaml")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// configProblems loads src, which must be invalid, and returns its problems and the error's text.
func configProblems(t *testing.T, src configSources) ([]configProblem, string) {
	t.Helper()
	_, _, err := loadServeConfig(src)
	var ce *configError
	if !errors.As(err, &ce) {
		t.Fatalf("want a *configError, got %v", err)
	}
	return ce.problems, err.Error()
}

// problemAt returns the issues listed for path.
func problemAt(ps []configProblem, path string) []string {
	var out []string
	for _, p := range ps {
		if p.path == path {
			out = append(out, p.issue)
		}
	}
	return out
}

const (
	decryptionAddr = "0x00000000000000000000000000000000000000d0" // YAML would read it as the number 208
	inputVerifAddr = "0x1111111111111111111111111111111111111111"
	aclAddr        = "0xAbCdEf0123456789aBcDeF0123456789AbCdEf01"
	secretRPCURL   = "https://user:s3cret@node.example/key123"
)

func TestWithoutAChainTheDevelopmentChainAndItsShortTimeoutsAreTheDefaults(t *testing.T) {
	s, warnings, err := loadServeConfig(configSources{})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("err %v, warnings %v", err, warnings)
	}
	if !s.DevChain || s.Chain != nil {
		t.Fatalf("want the development chain, got DevChain %v, Chain %v", s.DevChain, s.Chain)
	}
	p := s.Projections
	if p.ReadinessTimeout != 10*time.Second || p.ResponseTimeout != 20*time.Second || p.TxInFlightTimeout != 60*time.Second {
		t.Fatalf("the development profile's timeouts are readiness 10s, response 20s, tx_in_flight 60s; got %s, %s, %s",
			p.ReadinessTimeout, p.ResponseTimeout, p.TxInFlightTimeout)
	}
	if p.DrainWindow != projections.DefaultDrainWindow {
		t.Fatalf("drain window %s, want the default %s", p.DrainWindow, projections.DefaultDrainWindow)
	}
	w := s.Workers
	if w.UserDecryptThreshold != 0 {
		t.Fatalf("with the development chain serve sets the threshold at start; got %d", w.UserDecryptThreshold)
	}
	if w.TxAttempts != workers.DefaultTxAttempts || w.Transport.Kind != workers.TransportGoChannel ||
		w.ReadinessPollInterval != workers.DefaultReadinessPollInterval || w.ResponseBufferTTL != workers.DefaultResponseBufferTTL {
		t.Fatalf("workers %+v", w)
	}
}

func TestATimeoutGivenExplicitlyWinsOverTheDevelopmentProfileEvenAtTheProductionDefault(t *testing.T) {
	file := writeConfig(t, "timeouts:\n  readiness: 3m\n  tx_in_flight: 2m # production's default, given: it stays\n")
	s, _, err := loadServeConfig(configSources{file: file, env: []string{"RELAYER_TIMEOUTS_RESPONSE=45s"}})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Projections
	if !s.DevChain || p.ReadinessTimeout != 3*time.Minute || p.TxInFlightTimeout != 2*time.Minute || p.ResponseTimeout != 45*time.Second {
		t.Fatalf("readiness %s (file), tx_in_flight %s (file), response %s (env); want 3m, 2m, 45s",
			p.ReadinessTimeout, p.TxInFlightTimeout, p.ResponseTimeout)
	}

	s, _, err = loadServeConfig(configSources{flags: map[string]string{"timeouts.readiness": "7s"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Projections.ReadinessTimeout != 7*time.Second || s.Projections.ResponseTimeout != 20*time.Second {
		t.Fatalf("a flag wins, the rest keeps the profile: readiness %s, response %s", s.Projections.ReadinessTimeout, s.Projections.ResponseTimeout)
	}
}

func TestAnExternalChainBuildsTheGatewayConfigAndKeepsTheProductionTimeouts(t *testing.T) {
	file := writeConfig(t, `
chain:
  rpc_url: https://gateway.example:8545
  ws_url: wss://gateway.example:8546
  chain_id: 54321
  contracts:
    decryption: `+decryptionAddr+`
    input_verification: "`+inputVerifAddr+`"
    acl: `+aclAddr+`
  signer: {key_env: RELAYER_SIGNER_KEY}
  confirmation_depth: 2
  poll_interval: 3s
  user_decrypt_threshold: 3
workers:
  tx_attempts: 7
`)
	env := []string{"RELAYER_SIGNER_KEY=" + strings.Repeat("ab", 32), "RELAYER_CHAIN_RECEIPT_TIMEOUT=90s"}
	s, warnings, err := loadServeConfig(configSources{file: file, env: env})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Fatalf("the signer's key variable is not an unknown setting; warnings %v", warnings)
	}
	if s.DevChain || s.Chain == nil {
		t.Fatal("chain.rpc_url given: want the external chain")
	}
	g := *s.Chain
	if g.RPCURL != "https://gateway.example:8545" || g.WSURL != "wss://gateway.example:8546" || g.ChainID != 54321 {
		t.Fatalf("gateway %+v", g)
	}
	if g.Contracts.Decryption != common.HexToAddress(decryptionAddr) || g.Contracts.InputVerification != common.HexToAddress(inputVerifAddr) ||
		g.Contracts.ACL != common.HexToAddress(aclAddr) {
		t.Fatalf("contracts %+v", g.Contracts)
	}
	if g.Signer.KeyEnv != "RELAYER_SIGNER_KEY" || g.ConfirmationDepth != 2 || g.PollInterval != 3*time.Second || g.ReceiptTimeout != 90*time.Second {
		t.Fatalf("gateway %+v", g)
	}
	if err := g.Validate(); err != nil {
		t.Fatalf("the built gateway config does not validate: %v", err)
	}
	if s.Workers.UserDecryptThreshold != 3 || s.Workers.TxAttempts != 7 {
		t.Fatalf("workers %+v", s.Workers)
	}
	p := s.Projections
	if p.ReadinessTimeout != projections.DefaultReadinessTimeout || p.ResponseTimeout != projections.DefaultResponseTimeout ||
		p.TxInFlightTimeout != projections.DefaultTxInFlightTimeout {
		t.Fatalf("an external chain keeps production's timeouts; got readiness %s, response %s, tx_in_flight %s",
			p.ReadinessTimeout, p.ResponseTimeout, p.TxInFlightTimeout)
	}
}

func TestEveryChainSettingHasAnEnvironmentVariable(t *testing.T) {
	known := knownPaths()
	for _, name := range []string{
		"RELAYER_CHAIN_RPC_URL", "RELAYER_CHAIN_CHAIN_ID", "RELAYER_CHAIN_CONTRACTS_DECRYPTION", "RELAYER_CHAIN_CONTRACTS_ACL",
		"RELAYER_CHAIN_SIGNER_KEY_ENV", "RELAYER_CHAIN_SIGNER_PASSWORD_FILE", "RELAYER_CHAIN_USER_DECRYPT_THRESHOLD",
		"RELAYER_WORKERS_TRANSPORT", "RELAYER_WORKERS_TX_RETRY_DELAY",
	} {
		if _, ok := known[name]; !ok {
			t.Errorf("no setting for %s", name)
		}
	}

	dir := t.TempDir()
	env := []string{
		"RELAYER_CHAIN_RPC_URL=http://127.0.0.1:8545",
		"RELAYER_CHAIN_CHAIN_ID=54321",
		"RELAYER_CHAIN_CONTRACTS_DECRYPTION=" + decryptionAddr,
		"RELAYER_CHAIN_CONTRACTS_INPUT_VERIFICATION=" + inputVerifAddr,
		"RELAYER_CHAIN_CONTRACTS_ACL=" + aclAddr,
		"RELAYER_CHAIN_SIGNER_KEYSTORE=" + filepath.Join(dir, "key.json"),
		"RELAYER_CHAIN_SIGNER_PASSWORD_FILE=" + filepath.Join(dir, "password"),
		"RELAYER_CHAIN_USER_DECRYPT_THRESHOLD=2",
		"RELAYER_WORKERS_TX_RETRY_DELAY=1s",
	}
	s, warnings, err := loadServeConfig(configSources{env: env})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("err %v, warnings %v", err, warnings)
	}
	if s.Chain == nil || s.Chain.Contracts.Decryption != common.HexToAddress(decryptionAddr) || s.Chain.ChainID != 54321 {
		t.Fatalf("chain %+v", s.Chain)
	}
	if s.Chain.Signer.KeystoreFile != filepath.Join(dir, "key.json") || s.Chain.Signer.PasswordFile != filepath.Join(dir, "password") {
		t.Fatalf("signer %v", s.Chain.Signer)
	}
	if s.Workers.UserDecryptThreshold != 2 || s.Workers.TxRetryDelay != time.Second {
		t.Fatalf("workers %+v", s.Workers)
	}
}

func TestAnInvalidChainAndWorkersConfigurationListsEveryProblemByItsPath(t *testing.T) {
	file := writeConfig(t, `
chain:
  rpc_url: https://gateway.example
  chain_id: 0
  contracts:
    decryption: `+decryptionAddr+`
    input_verification: `+inputVerifAddr+`
    acl: 0x123
  signer: {key_env: RELAYER_SIGNER_KEY}
  user_decrypt_threshold: 0
workers:
  tx_attempts: -1
`)
	ps, msg := configProblems(t, configSources{file: file, env: []string{"RELAYER_WORKERS_TRANSPORT=kafka"}})
	for _, want := range []struct{ path, issue string }{
		{"chain.contracts.acl", "must be a contract address"},
		{"chain.chain_id", "is 0"},
		{"chain.user_decrypt_threshold", "must be 1 or more"},
		{"workers.tx_attempts", "-1, want 1..100"},
		{"workers.transport", `transport "kafka": unknown kind`},
	} {
		issues := problemAt(ps, want.path)
		if len(issues) != 1 || !strings.Contains(issues[0], want.issue) {
			t.Errorf("want one problem at %s saying %q, got %q; all:\n%s", want.path, want.issue, issues, msg)
		}
	}
	if len(ps) != 5 {
		t.Errorf("want 5 problems, got %d:\n%s", len(ps), msg)
	}
	if !strings.Contains(msg, "workers.transport (RELAYER_WORKERS_TRANSPORT)") {
		t.Errorf("the problem does not name the variable it came from:\n%s", msg)
	}
}

func TestSeveralProvidersAreAnExternalChainReadFromTheFileOrTheirVariable(t *testing.T) {
	chain := `
chain:
  chain_id: 54321
  contracts: {decryption: ` + decryptionAddr + `, input_verification: "` + inputVerifAddr + `", acl: ` + aclAddr + `}
  signer: {key_env: RELAYER_SIGNER_KEY}
  user_decrypt_threshold: 3
`
	env := []string{"RELAYER_SIGNER_KEY=" + strings.Repeat("ab", 32)}
	for _, src := range []configSources{
		{file: writeConfig(t, chain+"  providers: [{url: \"https://a.example/v3/KEYA\", weight: 3}, {url: \"https://b.example/KEYB\"}]\n  max_head_lag: 8\n"), env: env},
		{file: writeConfig(t, chain), env: append(env, `RELAYER_CHAIN_PROVIDERS=[{url: "https://a.example/v3/KEYA", weight: 3}, {url: "https://b.example/KEYB"}]`, "RELAYER_CHAIN_MAX_HEAD_LAG=8")},
	} {
		s, warnings, err := loadServeConfig(src)
		if err != nil || len(warnings) != 0 {
			t.Fatalf("err %v, warnings %v", err, warnings)
		}
		if s.DevChain || s.Chain == nil {
			t.Fatal("providers without rpc_url: want the external chain, not the development chain")
		}
		want := []gateway.Provider{{URL: "https://a.example/v3/KEYA", Weight: 3}, {URL: "https://b.example/KEYB", Weight: 1}}
		if got := s.Chain.Endpoints(); !slices.Equal(got, want) || s.Chain.MaxHeadLag != 8 {
			t.Fatalf("endpoints %v, max head lag %d", got, s.Chain.MaxHeadLag)
		}
	}
	ps, msg := configProblems(t, configSources{file: writeConfig(t, chain+"  rpc_url: https://c.example/KEYC\n  providers: [{url: \"https://a.example/v3/KEYA\", weight: 1001}]\n"), env: env})
	if p := problemAt(ps, "chain.providers"); len(p) != 1 || !strings.Contains(p[0], "rpc_url too") {
		t.Errorf("want providers and rpc_url refused together, got %q:\n%s", p, msg)
	}
	if p := problemAt(ps, "chain.providers[0].weight"); len(p) != 1 || !strings.Contains(p[0], "is 1001") {
		t.Errorf("want the weight named, got %q:\n%s", p, msg)
	}
	if strings.Contains(msg, "KEY") {
		t.Errorf("a provider's key reached a problem:\n%s", msg)
	}
}

func TestAChainSettingWithoutAnRPCURLIsRefused(t *testing.T) {
	file := writeConfig(t, "chain:\n  rpc_url: \"\"\n  user_decrypt_threshold: 2\n  contracts: {acl: "+aclAddr+"}\n")
	ps, msg := configProblems(t, configSources{file: file, env: []string{"RELAYER_CHAIN_WS_URL=wss://gateway.example"}})
	for _, path := range []string{"chain.ws_url", "chain.user_decrypt_threshold", "chain.contracts.acl"} {
		issues := problemAt(ps, path)
		if len(issues) != 1 || !strings.Contains(issues[0], "is set but chain.rpc_url is empty") {
			t.Errorf("want %s refused without chain.rpc_url, got %q:\n%s", path, issues, msg)
		}
	}
	if len(ps) != 3 || !strings.Contains(msg, "chain.ws_url (RELAYER_CHAIN_WS_URL)") {
		t.Errorf("want 3 problems, the variable named:\n%s", msg)
	}
}

func TestNoProblemOrWarningEverShowsAnRPCURL(t *testing.T) {
	cases := []struct {
		name string
		file string
		env  []string
	}{
		{"a valid URL, other problems", "chain: {rpc_url: \"" + secretRPCURL + "\", chain_id: 0}\n", nil},
		{"the URL in a variable", "", []string{"RELAYER_CHAIN_RPC_URL=" + secretRPCURL, "RELAYER_CHAIN_CHAIN_ID=many"}},
		{"a URL YAML cannot read", "", []string{"RELAYER_CHAIN_RPC_URL=" + secretRPCURL + "?q={[*&", "RELAYER_TIMEOUTS_RESPONSE=x"}},
		{"an http URL as ws_url", "chain: {rpc_url: \"" + secretRPCURL + "\", ws_url: \"" + secretRPCURL + "\"}\n", nil},
		{"a host URL without an RPC URL", "chain: {host_rpc_url: \"" + secretRPCURL + "\"}\n", nil},
		{"a URL in a list", "chain: {rpc_url: [\"" + secretRPCURL + "\"]}\n", nil},
		{"a URL with a bad scheme", "chain: {rpc_url: \"ftp://user:s3cret@node.example/key123\"}\n", nil},
		{"a URL that is not one", "chain: {rpc_url: \"https://user:s3cret@node.example:port/key123\"}\n", nil},
		{"a misspelt variable", "", []string{"RELAYER_CHAIN_RPCURL=" + secretRPCURL}},
		{"providers and rpc_url both", "chain: {rpc_url: \"" + secretRPCURL + "\", providers: [{url: \"" + secretRPCURL + "\"}]}\n", nil},
		{"a provider with a bad scheme and weight", "", []string{"RELAYER_CHAIN_PROVIDERS=[{url: \"ftp://user:s3cret@node.example/key123\", weight: -2}]"}},
		{"providers that are not a list", "", []string{"RELAYER_CHAIN_PROVIDERS=" + secretRPCURL}},
		{"a NATS URL with credentials and a path", "workers: {transport: nats, nats: {url: \"nats://user:s3cret@nats.example:4222/key123\"}}\n", nil},
		{"a NATS URL that YAML reads as a list", "workers: {nats: {url: [\"nats://user:s3cret@nats.example:4222\"]}}\n", nil},
		{"a valid chain, printed", "", []string{"RELAYER_CHAIN_RPC_URL=" + secretRPCURL, "RELAYER_CHAIN_HOST_RPC_URL=" + secretRPCURL,
			"RELAYER_CHAIN_CHAIN_ID=1", "RELAYER_CHAIN_CONTRACTS_DECRYPTION=" + decryptionAddr, "RELAYER_CHAIN_CONTRACTS_INPUT_VERIFICATION=" + inputVerifAddr,
			"RELAYER_CHAIN_CONTRACTS_ACL=" + aclAddr, "RELAYER_CHAIN_SIGNER_KEY_ENV=K", "RELAYER_CHAIN_USER_DECRYPT_THRESHOLD=1", "RELAYER_NOPE=" + secretRPCURL}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := configSources{env: c.env}
			if c.file != "" {
				src.file = writeConfig(t, c.file)
			}
			s, warnings, err := loadServeConfig(src)
			text := fmt.Sprint(err, warnings)
			if s.Chain != nil {
				text += fmt.Sprintf(" %v %+v %#v", *s.Chain, *s.Chain, *s.Chain)
			}
			if err == nil && len(warnings) == 0 {
				t.Fatal("want a problem or a warning")
			}
			for _, secret := range []string{"s3cret", "key123"} {
				if strings.Contains(text, secret) {
					t.Fatalf("%q is shown:\n%s", secret, text)
				}
			}
		})
	}
}

func TestTheDevelopmentStackServesItsOwnKeyMaterialUnlessKeysAreConfigured(t *testing.T) {
	s, _, err := loadServeConfig(configSources{})
	if err != nil {
		t.Fatal(err)
	}
	k := s.API.Keys
	if !k.Configured() || len(k.Files) != 2 || k.PublicKeyURLs[0] != "/keys/public_key.bin" || k.CRSURLs[0] != "/keys/crs2048.bin" {
		t.Fatalf("development keys %+v: want the embedded public key and CRS under /keys/", k)
	}
	if len(k.Files["crs2048.bin"]) < 1<<20 || len(k.Files["public_key.bin"]) < 1<<10 {
		t.Fatalf("the embedded key material is %d and %d bytes", len(k.Files["public_key.bin"]), len(k.Files["crs2048.bin"]))
	}

	id := "0x" + strings.Repeat("ab", 32)
	s, _, err = loadServeConfig(configSources{env: []string{
		"RELAYER_KEYS_PUBLIC_KEY_DATA_ID=" + id, "RELAYER_KEYS_PUBLIC_KEY_URLS=https://keys.example.org/pk,https://mirror.example.org/pk",
		"RELAYER_KEYS_CRS_2048_DATA_ID=" + id, "RELAYER_KEYS_CRS_2048_URLS=https://keys.example.org/crs",
	}})
	if err != nil {
		t.Fatal(err)
	}
	k = s.API.Keys
	if len(k.Files) != 0 || len(k.PublicKeyURLs) != 2 || k.PublicKeyURLs[1] != "https://mirror.example.org/pk" || k.CRSURLs[0] != "https://keys.example.org/crs" || k.CRSID != id {
		t.Fatalf("configured keys %+v", k)
	}
}

func TestKeySettingsAndTheDevelopmentChainsRPCAreCheckedAtStart(t *testing.T) {
	ps, _ := configProblems(t, configSources{env: []string{
		"RELAYER_KEYS_PUBLIC_KEY_DATA_ID=0x04", "RELAYER_KEYS_PUBLIC_KEY_URLS=ftp://keys.example.org/pk",
		"RELAYER_DEVCHAIN_RPC_LISTEN=0.0.0.0:8545",
	}})
	for _, path := range []string{"keys.public_key.data_id", "keys.public_key.urls[0]", "keys.crs_2048.urls", "devchain.rpc_listen"} {
		if len(problemAt(ps, path)) == 0 {
			t.Errorf("no problem at %s in %v", path, ps)
		}
	}
	ps, _ = configProblems(t, configSources{env: []string{"RELAYER_CHAIN_RPC_URL=http://127.0.0.1:1", "RELAYER_DEVCHAIN_RPC_LISTEN=127.0.0.1:8545"}})
	if len(problemAt(ps, "devchain.rpc_listen")) == 0 {
		t.Errorf("devchain.rpc_listen with an external chain: no problem in %v", ps)
	}
	s, _, err := loadServeConfig(configSources{flags: map[string]string{"devchain.rpc_listen": "127.0.0.1:0"}})
	if err != nil || s.DevChainRPC != "127.0.0.1:0" {
		t.Fatalf("--devchain-rpc 127.0.0.1:0: %v, %q", err, s.DevChainRPC)
	}
}

// A broken API key file used to be found only after the store was opened and the chain started.
func TestAnAPIKeyFileThatDoesNotParseIsAConfigurationProblem(t *testing.T) {
	file := writeConfig(t, "acme not-a-sha256\n")
	ps, _ := configProblems(t, configSources{env: []string{"RELAYER_API_API_KEY_FILE=" + file}})
	if got := problemAt(ps, "api.api_key_file"); len(got) != 1 || !strings.Contains(got[0], "line 1") {
		t.Fatalf("problems %v: want one at api.api_key_file naming line 1", ps)
	}
}

// externalChainEnv is a valid external chain, given by the environment.
func externalChainEnv(more ...string) []string {
	return append([]string{
		"RELAYER_CHAIN_RPC_URL=" + secretRPCURL, "RELAYER_CHAIN_CHAIN_ID=54321",
		"RELAYER_CHAIN_CONTRACTS_DECRYPTION=" + decryptionAddr, "RELAYER_CHAIN_CONTRACTS_INPUT_VERIFICATION=" + inputVerifAddr,
		"RELAYER_CHAIN_CONTRACTS_ACL=" + aclAddr, "RELAYER_CHAIN_SIGNER_KEY_ENV=RELAYER_SIGNER_KEY", "RELAYER_CHAIN_USER_DECRYPT_THRESHOLD=2",
	}, more...)
}

// The settings are the fields with a yaml name of the packages' Configs (and of serveconfig.go's
// few sections of its own): a name given in a package adds a setting, its variable and its line
// in serve --help, which must then be added here, to settingDocs and to the list in
// serveconfig.go.
func TestServeHelpListsEverySettingAndNoOther(t *testing.T) {
	want := strings.Fields(`
		listen data_dir store admin_token operator_token host_chain_ids
		api.max_body_bytes api.accept_wait api.queue_capacity api.queue_shed_margin api.adaptive_retry_after
		api.audit_open api.max_streams api.max_streams_per_client api.stream_write_timeout api.api_key_file
		api.cors_allowed_origins
		http.read_header_timeout http.read_timeout http.write_timeout http.idle_timeout http.shutdown_timeout
		http.max_header_bytes
		timeouts.readiness timeouts.tx_in_flight timeouts.response timeouts.processing timeouts.drain_window
		chain.rpc_url chain.ws_url chain.host_rpc_url chain.chain_id chain.contracts.decryption
		chain.contracts.input_verification chain.contracts.acl chain.signer.key_env chain.signer.keystore
		chain.signer.password_file chain.signer.kms.key_id chain.signer.kms.region chain.signer.kms.endpoint
		chain.providers chain.max_head_lag chain.extra_signers chain.confirmation_depth chain.poll_interval chain.receipt_timeout chain.call_timeout
		chain.max_fee_per_gas chain.max_priority_fee_per_gas chain.bump_after_blocks chain.fee_bump_percent
		chain.user_decrypt_threshold
		workers.readiness_poll_interval workers.tx_attempts workers.tx_retry_delay workers.response_buffer_ttl
		workers.timeouts_poll workers.balance_floor_wei workers.balance_interval workers.nonce_check_interval workers.transport workers.fleet.enabled workers.fleet.instance workers.fleet.lease_duration
		workers.fleet.lease_renew workers.nats.url workers.nats.credentials_file workers.nats.prefix workers.nats.ack_wait
		workers.nats.redelivery_delay workers.nats.max_deliver workers.nats.max_ack_pending workers.nats.max_age
		workers.nats.replicas
		validation.max_handles validation.max_contract_addresses validation.max_ciphertext_bytes
		validation.max_public_key_bytes validation.max_extra_data_bytes validation.max_duration_days
		retry_after.input_proof_throttler_tps retry_after.user_decrypt_throttler_tps
		retry_after.public_decrypt_throttler_tps retry_after.readiness_max_concurrency retry_after.readiness_drain_rate
		retry_after.nominal_readiness_check_ms retry_after.nominal_input_proof_processing_ms
		retry_after.nominal_user_decrypt_processing_ms retry_after.nominal_public_decrypt_processing_ms
		retry_after.nominal_tx_confirmation_ms retry_after.retry_after_safety_margin retry_after.retry_after_min_seconds
		retry_after.retry_after_max_seconds retry_after.receipt_backoff retry_after.retry_after_adaptive_min_samples
		retry_after.retry_after_adaptive_stale_after_seconds
		retry_after.nominal_readiness_check_seconds retry_after.nominal_input_proof_processing_seconds
		retry_after.nominal_user_decrypt_processing_seconds retry_after.nominal_public_decrypt_processing_seconds
		rate_limit.concurrency_limit rate_limit.concurrency_timeout_seconds rate_limit.rolling_limit
		rate_limit.rolling_window_seconds rate_limit.max_keys rate_limit.trusted_proxies rate_limit.trust_forwarded_for
		rate_limit.write.concurrency_limit rate_limit.write.concurrency_timeout_seconds rate_limit.write.rolling_limit
		rate_limit.write.rolling_window_seconds rate_limit.read.concurrency_limit
		rate_limit.read.concurrency_timeout_seconds rate_limit.read.rolling_limit rate_limit.read.rolling_window_seconds
		rate_limit.retry_policy.concurrency.base_ms rate_limit.retry_policy.concurrency.max_ms
		rate_limit.retry_policy.concurrency.factor rate_limit.retry_policy.concurrency.jitter_ms
		rate_limit.retry_policy.concurrency.window_fraction rate_limit.retry_policy.rolling.base_ms
		rate_limit.retry_policy.rolling.max_ms rate_limit.retry_policy.rolling.factor
		rate_limit.retry_policy.rolling.jitter_ms rate_limit.retry_policy.rolling.window_fraction
		log.level log.format devchain.rpc_listen devchain.profile devchain.kms_delay devchain.coprocessor_delay
		devchain.readiness_delay devchain.jitter
		keys.public_key.data_id keys.public_key.urls keys.crs_2048.data_id keys.crs_2048.urls
		admission.verify_signatures admission.start_skew
		webhooks.secret_key webhooks.allow_private webhooks.timeout webhooks.retry_cap webhooks.disable_after
		webhooks.rotation_overlap webhooks.max_endpoints
		retention.enabled retention.archive retention.window.input_proof retention.window.user_decrypt
		retention.window.public_decrypt retention.window.delegated_user_decrypt retention.batch retention.interval`)
	stdout, stderr, code := runCLI(t, "serve", "--help")
	if code != 0 {
		t.Fatalf("serve --help: exit %d: %s", code, stderr)
	}
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^  ([a-z0-9_.]+)(?: = |  \()`).FindAllStringSubmatch(stdout, -1) {
		listed = append(listed, m[1])
	}
	slices.Sort(listed)
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Fatalf("serve --help lists\n%v\nwant\n%v", listed, want)
	}
	known := knownPaths()
	for _, p := range want {
		if known[envName(p)] != p {
			t.Errorf("%s has no variable %s", p, envName(p))
		}
	}
}

func TestServeHelpListsEverySettingTheLoaderKnowsWithItsDefaultAndVariable(t *testing.T) {
	withEnv(t, "RELAYER_ADMIN_TOKEN=tok-never-in-help-5d1c-0123456789abcdef", "RELAYER_TIMEOUTS_RESPONSE=9m")
	stdout, stderr, code := runCLI(t, "serve", "--help")
	if code != 0 {
		t.Fatalf("serve --help: exit %d: %s", code, stderr)
	}
	known := knownPaths() // the loader's own table: variable -> path
	if len(known) < 100 {
		t.Fatalf("the loader knows %d settings: fewer than serve has", len(known))
	}
	for env, path := range known {
		if !strings.Contains(stdout, "\n  "+path+" = ") && !strings.Contains(stdout, "\n  "+path+"  (") {
			t.Errorf("serve --help does not list the setting %s", path)
		}
		if !strings.Contains(stdout, "("+env+")") {
			t.Errorf("serve --help does not give %s's variable %s", path, env)
		}
		if settingDocs[path] == "" {
			t.Errorf("the setting %s has no line in settingDocs", path)
		}
	}
	for path := range settingDocs {
		if known[envName(path)] != path {
			t.Errorf("settingDocs describes %s, which the loader does not know", path)
		}
	}
	if got := len(settingPaths()); got != len(known) {
		t.Errorf("serve --help lists %d settings, the loader knows %d", got, len(known))
	}
	// The defaults are serve's, from the packages, not the environment's values.
	for _, want := range []string{
		"\n  listen = 127.0.0.1:8080  (RELAYER_LISTEN)",
		"\n  timeouts.response = 30m  (RELAYER_TIMEOUTS_RESPONSE)",
		"\n  api.queue_capacity = 100000  (RELAYER_API_QUEUE_CAPACITY)",
		"\n  chain.call_timeout = 10s  (RELAYER_CHAIN_CALL_TIMEOUT)",
		"\n  workers.nats.url = nats://127.0.0.1:4222  (RELAYER_WORKERS_NATS_URL)",
		"\n  validation.max_handles = 32  (RELAYER_VALIDATION_MAX_HANDLES)",
		"\n  retry_after.nominal_user_decrypt_processing_seconds = 4  (",
		"\n  rate_limit.read.rolling_limit = 600  (",
		"default [{elapsed_ms: 0, retry_seconds: 4}, {elapsed_ms: 60000, retry_seconds: 10},",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("serve --help lacks %q", want)
		}
	}
	if !strings.Contains(strings.Join(strings.Fields(stdout), " "), "times out, at most 30 days (development chain: 20s; 0: the default)") {
		t.Errorf("serve --help does not give the development chain's response timeout")
	}
	for _, leak := range []string{"tok-never-in-help", "9m  (RELAYER_TIMEOUTS_RESPONSE)", "(not documented)"} {
		if strings.Contains(stdout+stderr, leak) {
			t.Errorf("serve --help shows %q", leak)
		}
	}
}

func TestAPackagesProblemsAreListedUnderTheirSettingsPaths(t *testing.T) {
	file := writeConfig(t, `
host_chain_ids: [0, 5, 5]
validation: {max_handles: -1}
timeouts: {readiness: 0s, drain_window: 2h}
workers: {readiness_poll_interval: -1s}
chain: {confirmation_depth: 2, poll_interval: -1s}
`)
	ps, msg := configProblems(t, configSources{file: file, env: externalChainEnv("RELAYER_CHAIN_CHAIN_ID=0")})
	for _, want := range []struct{ path, issue string }{
		{"host_chain_ids", "must not contain 0"},
		{"host_chain_ids", "lists 5 more than once"},
		{"validation.max_handles", "must not be negative"},
		{"timeouts.readiness", "must be a positive duration, got 0s"}, // serve's, not the package's "0 for the default"
		{"timeouts.drain_window", "is 2h0m0s, want whole seconds"},
		{"workers.readiness_poll_interval", "-1s is negative"},
		{"chain.chain_id", "is 0"},
		{"chain.poll_interval", "is -1s, want > 0"},
		{"chain", "receipt_poll_min: is -1s"}, // not a setting: told under its section
	} {
		if !slices.ContainsFunc(problemAt(ps, want.path), func(issue string) bool { return strings.Contains(issue, want.issue) }) {
			t.Errorf("no problem at %s saying %q:\n%s", want.path, want.issue, msg)
		}
	}
	if len(ps) != 9 {
		t.Errorf("want 9 problems, got %d:\n%s", len(ps), msg)
	}
	if !strings.Contains(msg, "chain.chain_id (RELAYER_CHAIN_CHAIN_ID)") {
		t.Errorf("the problem does not name the variable it came from:\n%s", msg)
	}
}

func TestASignerProblemNamesTheVariablesItCameFromAndNeverAPastedKey(t *testing.T) {
	key := strings.Repeat("ab", 32)
	ps, msg := configProblems(t, configSources{env: externalChainEnv("RELAYER_CHAIN_SIGNER_KEY_ENV=0x" + key)})
	if issues := problemAt(ps, "chain.signer"); len(issues) != 1 || !strings.Contains(issues[0], "looks like a private key") {
		t.Errorf("want one problem at chain.signer, got %q:\n%s", issues, msg)
	}
	if !strings.Contains(msg, "chain.signer (RELAYER_CHAIN_SIGNER_KEY_ENV)") || strings.Contains(msg, key) {
		t.Errorf("want the variable named and the key never shown:\n%s", msg)
	}

	ps, msg = configProblems(t, configSources{env: externalChainEnv("RELAYER_CHAIN_SIGNER_KEYSTORE=/keys/k.json")})
	if issues := problemAt(ps, "chain.signer"); len(issues) != 2 ||
		!strings.Contains(msg, "chain.signer (RELAYER_CHAIN_SIGNER_KEYSTORE, RELAYER_CHAIN_SIGNER_KEY_ENV)") {
		t.Errorf("want two problems at chain.signer naming both variables:\n%s", msg)
	}
}

func TestAStoreURLIsNeverQuoted(t *testing.T) {
	for _, file := range []string{"store: [\"postgres://relayer:s3cret@db.example/relayer\"]\n", "store: {url: \"postgres://relayer:s3cret@db.example/relayer\"}\n"} {
		ps, msg := configProblems(t, configSources{file: writeConfig(t, file)})
		if len(problemAt(ps, "store")) != 1 || strings.Contains(msg, "s3cret") {
			t.Errorf("want one problem at store, the URL never shown:\n%s", msg)
		}
	}
}

// An empty variable is no value, for a duration as for any setting: the default stands (here
// the development profile's).
func TestAnEmptyVariableLeavesTheDefault(t *testing.T) {
	s, _, err := loadServeConfig(configSources{env: []string{"RELAYER_TIMEOUTS_READINESS=", "RELAYER_API_ACCEPT_WAIT=", "RELAYER_API_QUEUE_CAPACITY="}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Projections.ReadinessTimeout != devReadinessTimeout || s.API.AcceptWait != api.DefaultAcceptWait || s.API.QueueCapacity != api.DefaultQueueCapacity {
		t.Fatalf("readiness %s, accept_wait %s, queue_capacity %d: want the defaults", s.Projections.ReadinessTimeout, s.API.AcceptWait, s.API.QueueCapacity)
	}
}

// A duration given as the bare number 0, in the file or a variable, is the default, as the
// problems' hints ("0 for the default") say; any other bare number is refused.
func TestAZeroDurationIsTheDefault(t *testing.T) {
	file := writeConfig(t, "workers:\n  nonce_check_interval: 0\n")
	s, _, err := loadServeConfig(configSources{file: file, env: []string{"RELAYER_WORKERS_BALANCE_INTERVAL=0"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Workers.NonceCheckInterval != 0 || s.Workers.BalanceInterval != 0 {
		t.Fatalf("nonce_check_interval %s, balance_interval %s: want 0 (the default)", s.Workers.NonceCheckInterval, s.Workers.BalanceInterval)
	}
	_, _, err = loadServeConfig(configSources{env: []string{"RELAYER_WORKERS_NONCE_CHECK_INTERVAL=10"}})
	if err == nil || !strings.Contains(err.Error(), "workers.nonce_check_interval") {
		t.Fatalf("a bare 10: %v, want a problem naming workers.nonce_check_interval", err)
	}
}

// The development stack's audit endpoints are open to this machine only: listening beyond
// loopback closes them unless api.audit_open says otherwise; a trusted-proxy list that trusts
// everyone is warned about.
func TestTheDevelopmentStacksAuditIsOpenOnlyOnLoopbackAndAnOpenProxyListIsWarnedAbout(t *testing.T) {
	for listen, want := range map[string]bool{"127.0.0.1:8080": true, "localhost:8080": true, "[::1]:8080": true, "0.0.0.0:8080": false, ":8080": false, "192.0.2.7:8080": false} {
		s, _, err := loadServeConfig(configSources{flags: map[string]string{"listen": listen}})
		if err != nil {
			t.Fatal(err)
		}
		if s.API.AuditOpen != want {
			t.Fatalf("listen %s: audit open %v, want %v", listen, s.API.AuditOpen, want)
		}
	}
	s, _, err := loadServeConfig(configSources{env: []string{"RELAYER_LISTEN=0.0.0.0:8080", "RELAYER_API_AUDIT_OPEN=true"}})
	if err != nil || !s.API.AuditOpen {
		t.Fatalf("audit_open given: %v, %v", s.API.AuditOpen, err)
	}
	_, warnings, err := loadServeConfig(configSources{env: []string{"RELAYER_RATE_LIMIT_TRUSTED_PROXIES=10.0.0.1,0.0.0.0/0"}})
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "every client can then choose its identity") {
		t.Fatalf("warnings %q, %v", warnings, err)
	}
}

func TestAFleetNeedsAnExternalChainAndAPostgreSQLStore(t *testing.T) {
	file := writeConfig(t, "workers:\n  fleet:\n    enabled: true\n    lease_duration: 1s\n    lease_renew: 1s\n")
	ps, msg := configProblems(t, configSources{file: file})
	issues := problemAt(ps, "workers.fleet.enabled")
	if len(issues) != 2 || !strings.Contains(msg, "relayer devchain") || !strings.Contains(msg, "postgres://") {
		t.Errorf("want the fleet refused without an external chain and without PostgreSQL:\n%s", msg)
	}
	if f := problemAt(ps, "workers.fleet"); len(f) != 1 || !strings.Contains(f[0], "at most a third of the duration") {
		t.Errorf("want the lease's renewal checked against its duration, got %q:\n%s", f, msg)
	}
}

// The instances of a fleet archive by turns: the archive each would make in its own data
// directory would split the log's archive over the machines.
func TestAFleetThatRetainsNeedsAnArchiveItsInstancesShare(t *testing.T) {
	base := "store: postgres://postgres@127.0.0.1:5432/test\nworkers:\n  fleet: {enabled: true}\n"
	ps, msg := configProblems(t, configSources{file: writeConfig(t, base)})
	if p := problemAt(ps, "retention.archive"); len(p) != 1 || !strings.Contains(p[0], "s3://") {
		t.Errorf("want a fleet without an archive refused, got %q:\n%s", p, msg)
	}
	for _, ok := range []string{"retention: {archive: s3://relayer-archive/fleet}\n", "retention: {archive: /srv/shared/archive}\n", "retention: {enabled: false}\n"} {
		ps, msg := configProblems(t, configSources{file: writeConfig(t, base+ok)})
		if p := problemAt(ps, "retention.archive"); len(p) != 0 {
			t.Errorf("%s: want no archive problem, got %q:\n%s", ok, p, msg)
		}
	}
	// One instance archives into its data directory, as before.
	if _, _, err := loadServeConfig(configSources{file: writeConfig(t, "store: postgres://postgres@127.0.0.1:5432/test\n")}); err != nil {
		t.Errorf("one instance on PostgreSQL with the default archive: %v", err)
	}
}

func TestAFleetsExtraSignersAreReadAndCheckedAndTheirVariablesAreNotSettings(t *testing.T) {
	chain := `
store: postgres://postgres@127.0.0.1:5432/test
chain:
  rpc_url: http://127.0.0.1:8545
  chain_id: 54321
  contracts: {decryption: ` + decryptionAddr + `, input_verification: "` + inputVerifAddr + `", acl: ` + aclAddr + `}
  signer: {key_env: RELAYER_SIGNER_KEY}
  user_decrypt_threshold: 3
`
	env := []string{"RELAYER_SIGNER_KEY=" + strings.Repeat("ab", 32), "RELAYER_SIGNER_KEY_1=" + strings.Repeat("cd", 32),
		"RELAYER_SIGNER_KEY_2=" + strings.Repeat("ef", 32)}
	file := writeConfig(t, chain+"  extra_signers: [{key_env: RELAYER_SIGNER_KEY_1}, {key_env: RELAYER_SIGNER_KEY_2}]\nworkers:\n  fleet: {enabled: true}\nretention: {archive: s3://relayer-archive/fleet}\n")
	s, warnings, err := loadServeConfig(configSources{file: file, env: env})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("err %v, warnings %v (the keys' variables are not settings)", err, warnings)
	}
	if len(s.ExtraSigners) != 2 || s.ExtraSigners[0].KeyEnv != "RELAYER_SIGNER_KEY_1" || s.ExtraSigners[1].KeyEnv != "RELAYER_SIGNER_KEY_2" {
		t.Fatalf("extra signers %v", s.ExtraSigners)
	}

	// Without the fleet, and with an entry that names no key.
	file = writeConfig(t, chain+"  extra_signers: [{key_env: RELAYER_SIGNER_KEY_1}, {}]\n")
	ps, msg := configProblems(t, configSources{file: file, env: env})
	if p := problemAt(ps, "chain.extra_signers"); len(p) != 1 || !strings.Contains(p[0], "workers.fleet.enabled") {
		t.Errorf("want extra signers refused without a fleet, got %q:\n%s", p, msg)
	}
	if p := problemAt(ps, "chain.extra_signers[1]"); len(p) != 1 || !strings.Contains(p[0], "key_env") {
		t.Errorf("want the empty entry named, got %q:\n%s", p, msg)
	}
	if strings.Contains(msg, strings.Repeat("cd", 32)) {
		t.Errorf("a key reached a problem:\n%s", msg)
	}
}

// A signer may be an AWS KMS key, in the file or through its variables, for chain.signer and
// for each of a fleet's extra signers; its problems name the setting, it is one key source among
// the others, and nothing that may be a key or a credential is quoted.
func TestAKMSSignerIsASettingOfEachKeyCheckedAndExclusive(t *testing.T) {
	const arn = "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"
	s, warnings, err := loadServeConfig(configSources{env: externalChainEnv("RELAYER_CHAIN_SIGNER_KEY_ENV=",
		"RELAYER_CHAIN_SIGNER_KMS_KEY_ID="+arn, "RELAYER_CHAIN_SIGNER_KMS_ENDPOINT=http://127.0.0.1:4599")})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("err %v, warnings %v", err, warnings)
	}
	if k := s.Chain.Signer.KMS; k.KeyID != arn || k.Endpoint != "http://127.0.0.1:4599" || s.Chain.Signer.KeyEnv != "" {
		t.Fatalf("signer %+v", s.Chain.Signer)
	}

	chain := `
store: postgres://postgres@127.0.0.1:5432/test
workers:
  fleet: {enabled: true}
retention: {enabled: false}
chain:
  rpc_url: http://127.0.0.1:8545
  chain_id: 54321
  contracts: {decryption: ` + decryptionAddr + `, input_verification: "` + inputVerifAddr + `", acl: ` + aclAddr + `}
  user_decrypt_threshold: 3
`
	file := writeConfig(t, chain+`  signer: {kms: {key_id: alias/relayer-0, region: eu-west-1}}
  extra_signers: [{kms: {key_id: alias/relayer-1, region: eu-west-1}}, {key_env: RELAYER_SIGNER_KEY_2}]
`)
	s, _, err = loadServeConfig(configSources{file: file})
	if err != nil {
		t.Fatal(err)
	}
	if s.Chain.Signer.KMS.KeyID != "alias/relayer-0" || len(s.ExtraSigners) != 2 || s.ExtraSigners[0].KMS.KeyID != "alias/relayer-1" ||
		s.ExtraSigners[0].KMS.Region != "eu-west-1" || s.ExtraSigners[1].KeyEnv != "RELAYER_SIGNER_KEY_2" {
		t.Fatalf("signer %+v, extra signers %+v", s.Chain.Signer, s.ExtraSigners)
	}

	key := strings.Repeat("cd", 32)
	file = writeConfig(t, chain+`  signer: {key_env: RELAYER_SIGNER_KEY, kms: {key_id: alias/relayer-0}}
  extra_signers: [{kms: {region: eu-west-1}}, {kms: {key_id: "`+key+`", endpoint: "https://AKID:hunter2@kms.example"}}]
`)
	ps, msg := configProblems(t, configSources{file: file})
	if p := problemAt(ps, "chain.signer"); len(p) != 1 || !strings.Contains(p[0], "Signer.KMS and Signer.KeyEnv are both set") {
		t.Errorf("want the two key sources of chain.signer refused, got %q:\n%s", p, msg)
	}
	if p := problemAt(ps, "chain.extra_signers[0]"); len(p) != 1 || !strings.Contains(p[0], "Signer.KMS.KeyID is not set") {
		t.Errorf("want the missing key id of extra_signers[0] named, got %q:\n%s", p, msg)
	}
	if p := problemAt(ps, "chain.extra_signers[1]"); len(p) != 2 || !strings.Contains(msg, "looks like a private key") || !strings.Contains(msg, "carries credentials") {
		t.Errorf("want the pasted key and the credentials of extra_signers[1] refused, got %q:\n%s", p, msg)
	}
	if strings.Contains(msg, key) || strings.Contains(msg, "hunter2") {
		t.Errorf("a key or a credential reached a problem:\n%s", msg)
	}

	// A list that cannot be read is not quoted either: it may hold a key.
	file = writeConfig(t, chain+"  signer: {key_env: RELAYER_SIGNER_KEY}\n  extra_signers: [{kms: {key_id: \""+key+"\", secret_access_key: x}}]\n")
	ps, msg = configProblems(t, configSources{file: file})
	if p := problemAt(ps, "chain.extra_signers"); len(p) != 1 || strings.Contains(msg, key) {
		t.Errorf("want one problem at chain.extra_signers, the value never shown, got %q:\n%s", p, msg)
	}
}

// The nominal times in seconds (the admin API's names, listed by serve --help) are given in the
// file or the environment, and the precedence holds across the two names: the environment over
// the file. Two names of one time with different values in one source are refused, naming both; the
// environment's _SECONDS variables made serve panic (found by an outside probe), and a file's
// _seconds beat the environment's _ms.
func TestTheNominalTimesInSecondsTakeTheirPlaceInThePrecedence(t *testing.T) {
	ms := func(src configSources) int64 {
		t.Helper()
		s, _, err := loadServeConfig(src)
		if err != nil {
			t.Fatal(err)
		}
		return s.API.RetryAfter.ReadinessCheckMs
	}
	env := "RELAYER_RETRY_AFTER_NOMINAL_READINESS_CHECK_SECONDS"
	if got := ms(configSources{env: []string{env + "=3"}}); got != 3000 {
		t.Fatalf("%s=3: %d ms, want 3000", env, got)
	}
	if got := ms(configSources{env: []string{env + "=0.25"}}); got != 250 {
		t.Fatalf("%s=0.25: %d ms, want 250", env, got)
	}
	file := writeConfig(t, "retry_after:\n  nominal_readiness_check_seconds: 7\n")
	if got := ms(configSources{file: file}); got != 7000 {
		t.Fatalf("the file's 7 s: %d ms", got)
	}
	if got := ms(configSources{file: file, env: []string{"RELAYER_RETRY_AFTER_NOMINAL_READINESS_CHECK_MS=500"}}); got != 500 {
		t.Fatalf("the environment's 500 ms over the file's 7 s: %d ms", got)
	}
	if got := ms(configSources{file: writeConfig(t, "retry_after:\n  nominal_readiness_check_ms: 900\n"), env: []string{env + "=2"}}); got != 2000 {
		t.Fatalf("the environment's 2 s over the file's 900 ms: %d ms", got)
	}
	if got := ms(configSources{env: []string{env + "=2", "RELAYER_RETRY_AFTER_NOMINAL_READINESS_CHECK_MS=2000"}}); got != 2000 {
		t.Fatalf("both names with one value: %d ms", got)
	}

	ps, text := configProblems(t, configSources{file: writeConfig(t, "retry_after:\n  nominal_readiness_check_ms: 1000\n  nominal_readiness_check_seconds: 7\n")})
	if got := problemAt(ps, "retry_after.nominal_readiness_check_seconds"); len(got) != 1 || !strings.Contains(got[0], "nominal_readiness_check_ms") {
		t.Fatalf("both names in the file with two values: %s", text)
	}
	ps, text = configProblems(t, configSources{env: []string{env + "=3", "RELAYER_RETRY_AFTER_NOMINAL_READINESS_CHECK_MS=500"}})
	if len(ps) != 1 || !strings.Contains(text, env) || !strings.Contains(text, "RELAYER_RETRY_AFTER_NOMINAL_READINESS_CHECK_MS") {
		t.Fatalf("both names in the environment with two values: %s", text)
	}
	ps, text = configProblems(t, configSources{env: []string{env + "=soon"}})
	if got := problemAt(ps, "retry_after.nominal_readiness_check_seconds"); len(got) != 1 || !strings.Contains(text, env) {
		t.Fatalf("%s=soon: %s", env, text)
	}
	ps, text = configProblems(t, configSources{file: writeConfig(t, "retry_after:\n  nominal_readiness_check_seconds: soon\n")})
	if got := problemAt(ps, "retry_after.nominal_readiness_check_seconds"); len(got) != 1 || !strings.Contains(got[0], "number of seconds") {
		t.Fatalf("the file's soon: %s", text)
	}
}

// A timeout beyond 30 days is refused (found by an outside probe: timeouts.readiness: 1000000h was
// taken, and such jobs never timed out), and serve --help says which settings take 0 for their
// default.
func TestATimeoutBeyondThirtyDaysIsRefused(t *testing.T) {
	ps, text := configProblems(t, configSources{file: writeConfig(t, "timeouts:\n  readiness: 1000000h\n")})
	if got := problemAt(ps, "timeouts.readiness"); len(got) != 1 || !strings.Contains(got[0], "at most 720h0m0s") {
		t.Fatalf("a readiness timeout of 1000000h: %s", text)
	}
	if _, _, err := loadServeConfig(configSources{file: writeConfig(t, "timeouts:\n  readiness: 720h\n")}); err != nil {
		t.Fatalf("a readiness timeout of 30 days: %v", err)
	}
	// The webhooks' too (found by an outside probe: disable_after: 0s was taken silently).
	for _, path := range []string{"timeouts.drain_window", "workers.tx_attempts", "workers.readiness_poll_interval",
		"webhooks.timeout", "webhooks.retry_cap", "webhooks.disable_after", "webhooks.rotation_overlap", "webhooks.max_endpoints"} {
		if !strings.Contains(settingDocs[path], "0: the default") {
			t.Errorf("serve --help does not say that %s takes 0 for its default: %q", path, settingDocs[path])
		}
	}
}

// A token given in the configuration file is taken with a warning naming the variable to use
// instead, and the file's mode when others may read it (found by an outside probe: the help says
// "never in a file", and nothing was said). The warning never shows the token.
func TestATokenInTheFileIsTakenWithAWarning(t *testing.T) {
	const token = "file-admin-token-0123456789abcdef0123"
	file := writeConfig(t, "admin_token: "+token+"\n")
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	s, warnings, err := loadServeConfig(configSources{file: file})
	if err != nil {
		t.Fatal(err)
	}
	if s.API.AdminToken != token {
		t.Fatalf("the file's token was not taken")
	}
	joined := strings.Join(warnings, "\n")
	if !strings.Contains(joined, "admin_token is given in the file") || !strings.Contains(joined, "RELAYER_ADMIN_TOKEN") ||
		!strings.Contains(joined, "mode 0644") || strings.Contains(joined, token) {
		t.Fatalf("warnings: %q", warnings)
	}
	// Given through the variable as well, the variable wins, and the file that still holds a
	// token is warned about all the same.
	s, warnings, err = loadServeConfig(configSources{file: file, env: []string{"RELAYER_ADMIN_TOKEN=" + token + "-env"}})
	if err != nil || s.API.AdminToken != token+"-env" || !strings.Contains(strings.Join(warnings, "\n"), "admin_token is given in the file") {
		t.Fatalf("the variable given too: %v, warnings %q", err, warnings)
	}
	// No token in the file: nothing is said.
	_, warnings, err = loadServeConfig(configSources{file: writeConfig(t, "listen: 127.0.0.1:0\n"), env: []string{"RELAYER_ADMIN_TOKEN=" + token}})
	if err != nil || strings.Contains(strings.Join(warnings, "\n"), "is given in the file") {
		t.Fatalf("a token from the variable alone: %v, warnings %q", err, warnings)
	}
}
