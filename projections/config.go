package projections

import (
	"fmt"
	"time"
)

// Defaults for the zero fields of Config.
const (
	DefaultReadinessTimeout  = 5 * time.Minute
	DefaultTxInFlightTimeout = 2 * time.Minute
	DefaultResponseTimeout   = 30 * time.Minute
	DefaultDrainWindow       = time.Minute
	DefaultDurationAlpha     = 0.1
)

// maxDrainWindow bounds the drain window: the window keeps one bucket per second.
const maxDrainWindow = time.Hour

// Config sets the deadlines the timers projection computes and how the stats projection
// summarises what it observes. The zero value is ready to use: every zero field takes its
// default. A live Set and a rebuild must use the same Config to give the same snapshot (the
// snapshot records it).
type Config struct {
	// ReadinessTimeout is how long a decrypt may stay queued, counted from its acceptance,
	// before the timeout worker ends it. Default 5m.
	ReadinessTimeout time.Duration
	// TxInFlightTimeout is how long a job may stay in tx_in_flight before recovery looks at its
	// transaction. Default 2m.
	TxInFlightTimeout time.Duration
	// ResponseTimeout is how long a job may wait in receipt_received for its response.
	// Default 30m.
	ResponseTimeout time.Duration
	// DrainWindow is the sliding window, in event time, over which drain rates are measured.
	// Whole seconds, 1s to 1h. Default 1m.
	DrainWindow time.Duration
	// DurationAlpha is the weight of a new sample in the moving average of each stage's
	// duration, in (0, 1]. Default 0.1.
	DurationAlpha float64
	// FullDecode makes Run and Rebuild decode every event with the full codec, checking every
	// field of every event, instead of the projections' own decoder, which reads only the fields
	// the read models use and checks the rest for JSON syntax only. The read models are the
	// same either way; full decoding is several times slower. For audits.
	FullDecode bool
}

func (c *Config) setDefaults() {
	if c.ReadinessTimeout == 0 {
		c.ReadinessTimeout = DefaultReadinessTimeout
	}
	if c.TxInFlightTimeout == 0 {
		c.TxInFlightTimeout = DefaultTxInFlightTimeout
	}
	if c.ResponseTimeout == 0 {
		c.ResponseTimeout = DefaultResponseTimeout
	}
	if c.DrainWindow == 0 {
		c.DrainWindow = DefaultDrainWindow
	}
	if c.DurationAlpha == 0 {
		c.DurationAlpha = DefaultDurationAlpha
	}
}

// Validate reports the first field that is out of range. Zero fields are valid: they take their
// defaults.
func (c Config) Validate() error {
	switch {
	case c.ReadinessTimeout < 0:
		return fmt.Errorf("projections config: ReadinessTimeout is %s, want a positive duration (0 for the default %s)", c.ReadinessTimeout, DefaultReadinessTimeout)
	case c.TxInFlightTimeout < 0:
		return fmt.Errorf("projections config: TxInFlightTimeout is %s, want a positive duration (0 for the default %s)", c.TxInFlightTimeout, DefaultTxInFlightTimeout)
	case c.ResponseTimeout < 0:
		return fmt.Errorf("projections config: ResponseTimeout is %s, want a positive duration (0 for the default %s)", c.ResponseTimeout, DefaultResponseTimeout)
	case c.DrainWindow < 0 || c.DrainWindow > maxDrainWindow || c.DrainWindow%time.Second != 0:
		return fmt.Errorf("projections config: DrainWindow is %s, want whole seconds from 1s to %s (0 for the default %s)", c.DrainWindow, maxDrainWindow, DefaultDrainWindow)
	case c.DurationAlpha < 0 || c.DurationAlpha > 1 || c.DurationAlpha != c.DurationAlpha:
		return fmt.Errorf("projections config: DurationAlpha is %g, want a weight in (0, 1] (0 for the default %g)", c.DurationAlpha, DefaultDurationAlpha)
	}
	return nil
}
