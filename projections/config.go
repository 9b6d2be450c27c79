package projections

import (
	"cmp"
	"time"

	"relayer/internal/config"
)

// Defaults for the zero fields of Config.
const (
	DefaultReadinessTimeout  = 5 * time.Minute
	DefaultTxInFlightTimeout = 2 * time.Minute
	DefaultResponseTimeout   = 30 * time.Minute
	DefaultProcessingTimeout = 30 * time.Minute
	DefaultDrainWindow       = time.Minute
	DefaultDurationAlpha     = 0.1
)

// MaxTimeout bounds the timeouts: a job is never left waiting longer than 30 days (a larger one
// meant that the jobs never timed out).
const MaxTimeout = 30 * 24 * time.Hour

// maxDrainWindow bounds the drain window: the window keeps one bucket per second.
const maxDrainWindow = time.Hour

// Config sets the deadlines the timers projection computes and how the stats projection
// summarises what it observes. The zero value is ready to use: every zero field takes its
// default. A live Set and a rebuild must use the same Config to give the same snapshot (the
// snapshot records it). The fields with a yaml name are configuration settings (serve's
// timeouts section); Validate names its problems by them.
type Config struct {
	// ReadinessTimeout is how long a decrypt may stay queued, counted from its acceptance,
	// before the timeout worker ends it. Default 5m.
	ReadinessTimeout time.Duration `yaml:"readiness"`
	// TxInFlightTimeout is how long a job may stay in tx_in_flight before recovery looks at its
	// transaction. Default 2m.
	TxInFlightTimeout time.Duration `yaml:"tx_in_flight"`
	// ResponseTimeout is how long a job may wait in receipt_received for its response.
	// Default 30m.
	ResponseTimeout time.Duration `yaml:"response"`
	// ProcessingTimeout is how long a job may stay in processing, counted from when it entered
	// it, before the timeouts worker looks at it: a job whose transaction could not be prepared
	// meanwhile (its retries scheduled for a passing failure of the chain, or a paused gateway)
	// fails with the label its retries named; one that only waits its turn in the TX queue is
	// left to wait. Default 30m.
	ProcessingTimeout time.Duration `yaml:"processing"`
	// DrainWindow is the sliding window, in event time, over which drain rates are measured.
	// Whole seconds, 1s to 1h. Default 1m.
	DrainWindow time.Duration `yaml:"drain_window"`
	// DurationAlpha is the weight of a new sample in the moving average of each stage's
	// duration, in (0, 1]. Default 0.1.
	DurationAlpha float64
	// FullDecode makes Run and Rebuild decode every event with the full codec, checking every
	// field of every event, instead of the projections' own decoder, which reads only the fields
	// the read models use and checks the rest for JSON syntax only. The read models are the
	// same either way; full decoding is several times slower. For audits.
	FullDecode bool
}

// DefaultConfig returns every field's default.
func DefaultConfig() Config {
	var c Config
	c.setDefaults()
	return c
}

func (c *Config) setDefaults() {
	c.ReadinessTimeout = cmp.Or(c.ReadinessTimeout, DefaultReadinessTimeout)
	c.TxInFlightTimeout = cmp.Or(c.TxInFlightTimeout, DefaultTxInFlightTimeout)
	c.ResponseTimeout = cmp.Or(c.ResponseTimeout, DefaultResponseTimeout)
	c.ProcessingTimeout = cmp.Or(c.ProcessingTimeout, DefaultProcessingTimeout)
	c.DrainWindow = cmp.Or(c.DrainWindow, DefaultDrainWindow)
	c.DurationAlpha = cmp.Or(c.DurationAlpha, DefaultDurationAlpha)
}

// Problem is one thing wrong with a Config: the field, by its yaml name ("readiness",
// "drain_window"; "duration_alpha" for the one without), and what is wrong with it.
type Problem = config.Problem

// ConfigError lists every problem Validate found.
type ConfigError struct{ Problems []Problem }

func (e *ConfigError) Error() string { return config.Inline("projections config: ", e.Problems) }

// Validate reports every field that is out of range as a *ConfigError. Zero fields are valid:
// they take their defaults.
func (c Config) Validate() error {
	var ps config.Problems
	for _, t := range []struct {
		field  string
		v, def time.Duration
	}{
		{"readiness", c.ReadinessTimeout, DefaultReadinessTimeout},
		{"tx_in_flight", c.TxInFlightTimeout, DefaultTxInFlightTimeout},
		{"response", c.ResponseTimeout, DefaultResponseTimeout},
		{"processing", c.ProcessingTimeout, DefaultProcessingTimeout},
	} {
		if t.v < 0 || t.v > MaxTimeout {
			ps.Add(t.field, "is %s, want a positive duration of at most %s (0 for the default %s)", t.v, MaxTimeout, t.def)
		}
	}
	if c.DrainWindow < 0 || c.DrainWindow > maxDrainWindow || c.DrainWindow%time.Second != 0 {
		ps.Add("drain_window", "is %s, want whole seconds from 1s to %s (0 for the default %s)", c.DrainWindow, maxDrainWindow, DefaultDrainWindow)
	}
	if c.DurationAlpha < 0 || c.DurationAlpha > 1 || c.DurationAlpha != c.DurationAlpha {
		ps.Add("duration_alpha", "is %g, want a weight in (0, 1] (0 for the default %g)", c.DurationAlpha, DefaultDurationAlpha)
	}
	if len(ps) == 0 {
		return nil
	}
	return &ConfigError{Problems: ps}
}
