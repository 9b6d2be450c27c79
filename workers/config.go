package workers

import (
	"fmt"
	"os"
	"strings"
	"time"

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
	// TxAttempts is how many times a send that failed on a retryable error (the node
	// unreachable, underpriced, ...) is tried before the job fails with transaction_failed.
	// Default 5.
	TxAttempts int `yaml:"tx_attempts"`
	// TxRetryDelay is the wait before the second attempt; it doubles after each. Default 200ms.
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
)

// DefaultConfig returns every field's default; UserDecryptThreshold, which has none, is 0.
func DefaultConfig() Config {
	var c Config
	c.setDefaults()
	return c
}

func (c *Config) setDefaults() {
	if c.ReadinessPollInterval == 0 {
		c.ReadinessPollInterval = DefaultReadinessPollInterval
	}
	if c.TxAttempts == 0 {
		c.TxAttempts = DefaultTxAttempts
	}
	if c.TxRetryDelay == 0 {
		c.TxRetryDelay = DefaultTxRetryDelay
	}
	if c.ResponseBufferTTL == 0 {
		c.ResponseBufferTTL = DefaultResponseBufferTTL
	}
	if c.TimeoutsPoll == 0 {
		c.TimeoutsPoll = DefaultTimeoutsPoll
	}
	if c.ResponsesCursorEvery == 0 {
		c.ResponsesCursorEvery = DefaultResponsesCursorEvery
	}
	c.Transport.setDefaults()
	c.Dispatcher.setDefaults()
}

// Problem is one thing wrong with a Config: the field, by its yaml name ("tx_attempts") or, for
// a field without one, its name in snake_case ("user_decrypt_threshold"; "transport", "router"
// and "dispatcher" for those parts), and what is wrong with it.
type Problem struct {
	Field string `json:"field"`
	Issue string `json:"issue"`
}

// ConfigError lists every problem Validate found. It unwraps to the errors of the transport,
// router and dispatcher configurations.
type ConfigError struct {
	Problems []Problem
	parts    []error
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString("workers: ")
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Field + ": " + p.Issue)
	}
	return b.String()
}

func (e *ConfigError) Unwrap() []error { return e.parts }

// Validate reports every problem of c as a *ConfigError; zero fields are valid except
// UserDecryptThreshold.
func (c Config) Validate() error {
	e := &ConfigError{}
	bad := func(field, format string, args ...any) {
		e.Problems = append(e.Problems, Problem{Field: field, Issue: fmt.Sprintf(format, args...)})
	}
	if c.ReadinessPollInterval < 0 {
		bad("readiness_poll_interval", "%s is negative", c.ReadinessPollInterval)
	}
	if c.TxAttempts < 0 || c.TxAttempts > 100 {
		bad("tx_attempts", "%d, want 1..100 (0 for the default %d)", c.TxAttempts, DefaultTxAttempts)
	}
	if c.TxRetryDelay < 0 {
		bad("tx_retry_delay", "%s is negative", c.TxRetryDelay)
	}
	if c.UserDecryptThreshold < 1 {
		bad("user_decrypt_threshold", "%d, want 1 or more (the gateway's KMS threshold)", c.UserDecryptThreshold)
	}
	if c.ResponseBufferTTL < 0 {
		bad("response_buffer_ttl", "%s is negative", c.ResponseBufferTTL)
	}
	if c.TimeoutsPoll < 0 {
		bad("timeouts_poll", "%s is negative", c.TimeoutsPoll)
	}
	if c.ResponsesCursorEvery < 0 {
		bad("responses_cursor_every", "%s is negative", c.ResponsesCursorEvery)
	}
	if c.Fleet.Enabled {
		if err := c.Fleet.leaseConfig().Validate(); err != nil {
			bad("fleet", "%s", strings.TrimPrefix(err.Error(), "lease: "))
		}
	}
	for _, part := range []struct {
		field string
		err   error
	}{{"transport", c.Transport.Validate()}, {"router", c.Router.Validate()}, {"dispatcher", c.Dispatcher.Validate()}} {
		if part.err != nil {
			bad(part.field, "%v", part.err)
			e.parts = append(e.parts, part.err)
		}
	}
	if len(e.Problems) == 0 {
		return nil
	}
	return e
}
