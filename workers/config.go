package workers

import (
	"errors"
	"fmt"
	"time"
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
	ReadinessPollInterval time.Duration
	// TxAttempts is how many times a send that failed on a retryable error (the node
	// unreachable, underpriced, ...) is tried before the job fails with transaction_failed.
	// Default 5.
	TxAttempts int
	// TxRetryDelay is the wait before the second attempt; it doubles after each. Default 200ms.
	TxRetryDelay time.Duration
	// UserDecryptThreshold is how many distinct KMS shares complete a user decrypt. Required.
	UserDecryptThreshold int
	// ResponseBufferTTL is how long a gateway response whose request id no job has recorded
	// (yet) is kept, waiting for the receipt that names it. Default 10m.
	ResponseBufferTTL time.Duration
	// TimeoutsPoll is the longest the timeouts worker sleeps between two looks at the timers.
	// Default 1s.
	TimeoutsPoll time.Duration
	// ResponsesCursorEvery saves the gateway block cursor at most this often while the
	// listener only passes empty blocks (a cursor that moved with responses is saved at once).
	// Default 1m: an idle relayer adds 1,440 cursor events a day to the log rather than one per
	// block, and a restart reads at most a minute of empty blocks again.
	ResponsesCursorEvery time.Duration
}

// Defaults of Config.
const (
	DefaultReadinessPollInterval = 500 * time.Millisecond
	DefaultTxAttempts            = 5
	DefaultTxRetryDelay          = 200 * time.Millisecond
	DefaultResponseBufferTTL     = 10 * time.Minute
	DefaultTimeoutsPoll          = time.Second
	DefaultResponsesCursorEvery  = time.Minute
)

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

// Validate reports every problem of c (joined); zero fields are valid except
// UserDecryptThreshold.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("workers: "+format, args...)) }
	if c.ReadinessPollInterval < 0 {
		bad("readiness poll interval %s is negative", c.ReadinessPollInterval)
	}
	if c.TxAttempts < 0 || c.TxAttempts > 100 {
		bad("tx attempts %d, want 1..100 (0 for the default %d)", c.TxAttempts, DefaultTxAttempts)
	}
	if c.TxRetryDelay < 0 {
		bad("tx retry delay %s is negative", c.TxRetryDelay)
	}
	if c.UserDecryptThreshold < 1 {
		bad("user decrypt threshold %d, want 1 or more (the gateway's KMS threshold)", c.UserDecryptThreshold)
	}
	if c.ResponseBufferTTL < 0 {
		bad("response buffer TTL %s is negative", c.ResponseBufferTTL)
	}
	if c.TimeoutsPoll < 0 {
		bad("timeouts poll %s is negative", c.TimeoutsPoll)
	}
	if c.ResponsesCursorEvery < 0 {
		bad("responses cursor interval %s is negative", c.ResponsesCursorEvery)
	}
	for _, err := range []error{c.Transport.Validate(), c.Router.Validate(), c.Dispatcher.Validate()} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
