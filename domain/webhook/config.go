package webhook

import (
	"cmp"
	"strings"
	"time"

	"relayer/internal/config"
)

// Config is the webhooks section of serve's configuration, what the admin API (registration,
// rotation) and the delivery worker (workers/delivery) both read. The zero value of a field takes
// its default; without SecretKey webhooks are off: nothing can be registered, and endpoints
// registered before cannot be signed for (and so are not delivered to).
type Config struct {
	// SecretKey seals the endpoints' signing secrets in the log (see Key): 64 hex digits or the
	// base64 of 32 bytes; `openssl rand -hex 32` makes one. Every instance sharing a log needs the
	// same one. Never printed; give it as RELAYER_WEBHOOKS_SECRET_KEY rather than in a file.
	SecretKey string `yaml:"secret_key"`
	// AllowPrivate lets endpoints be loopback, private, link-local and other non-public addresses
	// (AddressAllowed), for a receiver on the relayer's own host or network. Off, such an endpoint
	// is refused when registered and every delivery's connection is refused too (a name that
	// resolves elsewhere later, DNS rebinding, is caught there).
	AllowPrivate bool `yaml:"allow_private"`
	// Timeout bounds one delivery attempt, from the connection to the end of the answer's
	// headers. Default 10s.
	Timeout time.Duration `yaml:"timeout"`
	// RetryCap caps the wait between two attempts of a failing delivery, which follows the
	// long-tail schedule (5 s, 10 s, 30 s, 1 min, 3 min, ... growing to hours), jittered.
	// Default 1h.
	RetryCap time.Duration `yaml:"retry_cap"`
	// DisableAfter disables an endpoint (WebhookDisabled, and the relayer_webhook_disabled
	// gauge) once its deliveries have failed without a success for this long. Default 24h.
	DisableAfter time.Duration `yaml:"disable_after"`
	// RotationOverlap is how long a rotated-out secret still signs deliveries, unless the
	// rotation asks for another overlap. Default 24h.
	RotationOverlap time.Duration `yaml:"rotation_overlap"`
	// MaxEndpoints bounds the endpoints registered at once (deleted ones do not count); each
	// one follows the log on its own. Default 100.
	MaxEndpoints int `yaml:"max_endpoints"`
}

// Defaults of Config.
const (
	DefaultTimeout         = 10 * time.Second
	DefaultRetryCap        = time.Hour
	DefaultDisableAfter    = 24 * time.Hour
	DefaultRotationOverlap = 24 * time.Hour
	DefaultMaxEndpoints    = 100
	// MaxRotationOverlap bounds an overlap: two secrets valid for longer defeat rotating.
	MaxRotationOverlap = 30 * 24 * time.Hour
)

// WithDefaults returns c with every zero field at its default.
func (c Config) WithDefaults() Config {
	c.Timeout = cmp.Or(c.Timeout, DefaultTimeout)
	c.RetryCap = cmp.Or(c.RetryCap, DefaultRetryCap)
	c.DisableAfter = cmp.Or(c.DisableAfter, DefaultDisableAfter)
	c.RotationOverlap = cmp.Or(c.RotationOverlap, DefaultRotationOverlap)
	c.MaxEndpoints = cmp.Or(c.MaxEndpoints, DefaultMaxEndpoints)
	return c
}

// Enabled tells whether webhooks are on: a sealing key is configured.
func (c Config) Enabled() bool { return strings.TrimSpace(c.SecretKey) != "" }

// Key is the sealing key; the zero Key when webhooks are off. c must be valid.
func (c Config) Key() Key {
	if !c.Enabled() {
		return Key{}
	}
	k, _ := ParseKey(c.SecretKey)
	return k
}

// Problem is one thing wrong with a Config: the setting's name (as in the webhooks section) and
// what is wrong with it.
type Problem = config.Problem

// ConfigError lists every problem Validate found.
type ConfigError struct{ Problems []Problem }

func (e *ConfigError) Error() string {
	return config.Lines("invalid webhooks configuration:", e.Problems)
}

// Validate reports every problem of c, after defaults, as a *ConfigError; nil if c is usable.
// No problem repeats the key.
func (c Config) Validate() error {
	d := c.WithDefaults()
	var ps config.Problems
	if c.Enabled() {
		if _, err := ParseKey(c.SecretKey); err != nil {
			ps.Add("secret_key", "%v", err)
		}
	}
	ps.Duration("timeout", d.Timeout, 10*time.Millisecond, 5*time.Minute)
	ps.Duration("retry_cap", d.RetryCap, time.Millisecond, 24*time.Hour)
	ps.Duration("disable_after", d.DisableAfter, 100*time.Millisecond, 30*24*time.Hour)
	ps.Duration("rotation_overlap", d.RotationOverlap, 0, MaxRotationOverlap)
	if d.MaxEndpoints < 1 || d.MaxEndpoints > 10_000 {
		ps.Add("max_endpoints", "must be 1 <= value <= 10000, got %d", d.MaxEndpoints)
	}
	if len(ps) == 0 {
		return nil
	}
	return &ConfigError{Problems: ps}
}
