package workers

import (
	"cmp"
	"fmt"
	"math/big"
	"os"
	"strings"
	"time"

	"relayer/internal/config"
	"relayer/workers/lease"
)

// Config configures the relayer's workers (Engine). The zero value of a field takes its
// default; UserDecryptThreshold has none and must be set. The throughput limits are not here:
// the readiness concurrency C and the per-kind TX rate D are the Retry-After policy's
// readiness_max_concurrency and *_throttler_tps (Deps.Tuning), so the hints the API gives and
// the pace the workers keep are one setting, changeable at run time through the admin API.
type Config struct {
	Transport  TransportConfig
	Router     RouterConfig
	Dispatcher DispatcherConfig

	// ReadinessPollInterval is how often a readiness check asks the gateway again whether a
	// decrypt is ready. Default 500ms.
	ReadinessPollInterval time.Duration `yaml:"readiness_poll_interval"`
	// TxAttempts is how many times in a row a job's transaction is prepared, or its recorded
	// bytes broadcast, while each try fails on a passing error (the node unreachable, overloaded,
	// rate limiting, ...). When they are spent the job is not failed for the node's trouble: one
	// whose transaction could not be prepared waits on the long-tail schedule (RetryScheduled)
	// and is tried again, one whose broadcast kept failing stays in tx_in_flight for the timeouts
	// worker to send again; only bytes the node refused every time (underpriced, unfunded,
	// rejected) fail the job, their nonce given back. A replacement (fee bump) starts the count
	// again. Default 5.
	TxAttempts int `yaml:"tx_attempts"`
	// TxRetryDelay is the base of the wait between two of those tries: after the n-th failure
	// the wait is drawn at random up to TxRetryDelay * 2^(n-1), capped at 10s (full jitter). It
	// is also the pause, jittered between half of it and all of it, before the tx worker tries
	// again to read or record a job after the log failed. docs/RETRIES.md lists each. Default
	// 200ms.
	TxRetryDelay time.Duration `yaml:"tx_retry_delay"`
	// UserDecryptThreshold is how many distinct KMS shares complete a user decrypt. Required.
	UserDecryptThreshold int
	// ResponseBufferTTL is how long a gateway response whose request id no job has recorded
	// (yet) is kept, waiting for the receipt that names it. Default 10m.
	ResponseBufferTTL time.Duration `yaml:"response_buffer_ttl"`
	// TimeoutsPoll is the longest the timeouts worker sleeps between two looks at the timers.
	// Default 1s.
	TimeoutsPoll time.Duration `yaml:"timeouts_poll"`
	// ResponsesCursorEvery saves the gateway block cursor at most this often while the
	// listener only passes empty blocks (a cursor that moved with responses is saved at once).
	// Default 1m: an idle relayer adds 1,440 cursor events a day to the log rather than one per
	// block, and a restart reads at most a minute of empty blocks again.
	ResponsesCursorEvery time.Duration
	// BalanceFloorWei is the balance guard's floor, in wei (decimal digits): a signing key whose
	// balance is below it is paused (SignerPaused) and takes no new transaction until its balance
	// is back above the floor plus a tenth (SignerResumed). Empty (the default): the automatic
	// floor, BalanceFloorJobs times the reserve of the key's costliest recent transaction (its gas
	// limit times its max fee per gas: what a node wants the balance to cover before it takes
	// the transaction); none before the key's first transaction. "0": never paused (a
	// transaction the node refuses for funds then fails its job with insufficient_balance).
	BalanceFloorWei string `yaml:"balance_floor_wei"`
	// BalanceInterval is how often the balance guard reads the key's balance; it reads it after
	// every receipt and every refusal for funds too, at most once a second. Default 15s.
	BalanceInterval time.Duration `yaml:"balance_interval"`
	// NonceCheckInterval is how often each key's nonces are checked against the chain while the
	// relayer runs (another sender's transactions skipped, transactions a node lost sent again,
	// unused nonces filled; each correction a NonceCorrected in the key's stream); they are
	// checked at once, at most once a second, after the node answers "nonce too low", "nonce too
	// high" or "already known". Default 10s.
	NonceCheckInterval time.Duration `yaml:"nonce_check_interval"`
	// Fleet lets several instances share one store (Leader).
	Fleet FleetConfig `yaml:"fleet"`
}

// FleetConfig lets several serve instances share one store: every instance answers the API
// from its own projections, and the engine runs under leases kept in the log (package lease):
// with one key the whole engine under "engine", with several each key's part of it under
// "signer-<address>" (Leader); when a holder dies or stops renewing, another instance takes over
// after LeaseDuration and recovers the jobs as a restart would.
type FleetConfig struct {
	// Enabled runs the engine under the lease. Off: the engine runs in this process alone.
	Enabled bool `yaml:"enabled"`
	// Instance names this instance in the lease's events. Default: host name and pid.
	Instance string `yaml:"instance"`
	// LeaseDuration is how long the engine's holder keeps the lease after it last renewed it:
	// the longest the fleet's engine stands still after its holder died. Default 10s.
	LeaseDuration time.Duration `yaml:"lease_duration"`
	// LeaseRenew is how often the holder renews (at most a third of LeaseDuration). Default
	// LeaseDuration/5.
	LeaseRenew time.Duration `yaml:"lease_renew"`
}

// leaseConfig is the engine lease's configuration.
func (f FleetConfig) leaseConfig() lease.Config {
	return lease.Config{Name: EngineLease, Holder: f.InstanceName(), Duration: f.LeaseDuration, Renew: f.LeaseRenew}
}

// InstanceName is Instance, or its default: the host name and the process id.
func (f FleetConfig) InstanceName() string {
	if f.Instance != "" {
		return f.Instance
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s pid %d", host, os.Getpid())
}

// EngineLease names the lease the fleet's engine runs under.
const EngineLease = "engine"

// Defaults of Config.
const (
	DefaultReadinessPollInterval = 500 * time.Millisecond
	DefaultTxAttempts            = 5
	DefaultTxRetryDelay          = 200 * time.Millisecond
	DefaultResponseBufferTTL     = 10 * time.Minute
	DefaultTimeoutsPoll          = time.Second
	DefaultResponsesCursorEvery  = time.Minute
	DefaultBalanceInterval       = 15 * time.Second
	DefaultNonceCheckInterval    = 10 * time.Second
	// BalanceFloorJobs is how many of its costliest recent transactions the automatic floor
	// keeps a key able to pay for (BalanceFloorWei).
	BalanceFloorJobs = 10
)

// DefaultConfig returns every field's default; UserDecryptThreshold, which has none, is 0.
func DefaultConfig() Config {
	var c Config
	c.setDefaults()
	return c
}

func (c *Config) setDefaults() {
	c.ReadinessPollInterval = cmp.Or(c.ReadinessPollInterval, DefaultReadinessPollInterval)
	c.TxAttempts = cmp.Or(c.TxAttempts, DefaultTxAttempts)
	c.TxRetryDelay = cmp.Or(c.TxRetryDelay, DefaultTxRetryDelay)
	c.ResponseBufferTTL = cmp.Or(c.ResponseBufferTTL, DefaultResponseBufferTTL)
	c.TimeoutsPoll = cmp.Or(c.TimeoutsPoll, DefaultTimeoutsPoll)
	c.ResponsesCursorEvery = cmp.Or(c.ResponsesCursorEvery, DefaultResponsesCursorEvery)
	c.BalanceInterval = cmp.Or(c.BalanceInterval, DefaultBalanceInterval)
	c.NonceCheckInterval = cmp.Or(c.NonceCheckInterval, DefaultNonceCheckInterval)
	c.Transport.setDefaults()
	c.Dispatcher.setDefaults()
}

// minBalanceInterval: a node is not asked for a balance more often than this.
const minBalanceInterval = 100 * time.Millisecond

// balanceFloor reads BalanceFloorWei: nil for the automatic floor.
func (c Config) balanceFloor() (*big.Int, error) {
	if c.BalanceFloorWei == "" {
		return nil, nil
	}
	f, ok := new(big.Int).SetString(c.BalanceFloorWei, 10)
	if !ok || f.Sign() < 0 || strings.TrimLeft(c.BalanceFloorWei, "0123456789") != "" {
		return nil, fmt.Errorf("%q is not a whole number of wei (decimal digits only; empty for the automatic floor, 0 to never pause a key)", c.BalanceFloorWei)
	}
	return f, nil
}

// Problem is one thing wrong with a Config: the field, by its yaml name ("tx_attempts") or, for
// a field without one, its name in snake_case ("user_decrypt_threshold"; "transport", "router"
// and "dispatcher" for those parts), and what is wrong with it.
type Problem = config.Problem

// ConfigError lists every problem Validate found. It unwraps to the errors of the transport,
// router and dispatcher configurations.
type ConfigError struct {
	Problems []Problem
	parts    []error
}

func (e *ConfigError) Error() string { return config.Inline("workers: ", e.Problems) }

func (e *ConfigError) Unwrap() []error { return e.parts }

// Validate reports every problem of c as a *ConfigError; zero fields are valid except
// UserDecryptThreshold.
func (c Config) Validate() error {
	var ps config.Problems
	var parts []error
	if c.ReadinessPollInterval < 0 {
		ps.Add("readiness_poll_interval", "%s is negative", c.ReadinessPollInterval)
	}
	if c.TxAttempts < 0 || c.TxAttempts > 100 {
		ps.Add("tx_attempts", "%d, want 1..100 (0 for the default %d)", c.TxAttempts, DefaultTxAttempts)
	}
	if c.TxRetryDelay < 0 {
		ps.Add("tx_retry_delay", "%s is negative", c.TxRetryDelay)
	}
	if c.UserDecryptThreshold < 1 {
		ps.Add("user_decrypt_threshold", "%d, want 1 or more (the gateway's KMS threshold)", c.UserDecryptThreshold)
	}
	if c.ResponseBufferTTL < 0 {
		ps.Add("response_buffer_ttl", "%s is negative", c.ResponseBufferTTL)
	}
	if c.TimeoutsPoll < 0 {
		ps.Add("timeouts_poll", "%s is negative", c.TimeoutsPoll)
	}
	if c.ResponsesCursorEvery < 0 {
		ps.Add("responses_cursor_every", "%s is negative", c.ResponsesCursorEvery)
	}
	if _, err := c.balanceFloor(); err != nil {
		ps.Add("balance_floor_wei", "%v", err)
	}
	if c.BalanceInterval < 0 || c.BalanceInterval > 0 && c.BalanceInterval < minBalanceInterval {
		ps.Add("balance_interval", "%s, want %s or more (0 for the default %s)", c.BalanceInterval, minBalanceInterval, DefaultBalanceInterval)
	}
	if c.NonceCheckInterval < 0 || c.NonceCheckInterval > 0 && c.NonceCheckInterval < minBalanceInterval {
		ps.Add("nonce_check_interval", "%s, want %s or more (0 for the default %s)", c.NonceCheckInterval, minBalanceInterval, DefaultNonceCheckInterval)
	}
	if c.Fleet.Enabled {
		if err := c.Fleet.leaseConfig().Validate(); err != nil {
			ps.Add("fleet", "%s", strings.TrimPrefix(err.Error(), "lease: "))
		}
	}
	for _, part := range []struct {
		field string
		err   error
	}{{"transport", c.Transport.Validate()}, {"router", c.Router.Validate()}, {"dispatcher", c.Dispatcher.Validate()}} {
		if part.err != nil {
			ps.Add(part.field, "%v", part.err)
			parts = append(parts, part.err)
		}
	}
	if len(ps) == 0 {
		return nil
	}
	return &ConfigError{Problems: ps, parts: parts}
}
