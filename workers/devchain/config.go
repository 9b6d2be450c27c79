package devchain

import (
	"cmp"
	"fmt"
	"math"
	"net"
	"strconv"
	"time"

	"relayer/internal/config"
)

// Config says how many simulated KMS nodes and coprocessors the development chain runs, how
// quickly they answer, how blocks are produced and whether JSON-RPC is served. The zero value of
// a field means its default (DefaultConfig); Start fills the defaults in and calls Validate.
//
// The fields with a yaml name are the latency profile's, which `relayer serve` and `relayer
// devchain` take as settings (see latency.go): Profile picks the simulated components' delays
// ("instant", the default, or "production"), and KMSDelay, CoprocessorDelay, ReadinessDelay and
// Jitter set any of them apart from the profile's.
type Config struct {
	// Profile is the latency profile: ProfileInstant (the default: answers within 50-300ms,
	// handles ready at once) or ProfileProduction (delays like the real components').
	Profile Profile `yaml:"profile"`
	// KMSDelay is how long a simulated KMS node typically takes to answer a decryption, and
	// CoprocessorDelay a coprocessor an input proof; each answer waits its component's delay,
	// give or take Jitter. Zero: the profile's (production: 4s and 2s; instant: a delay in
	// [ResponseDelayMin, ResponseDelayMax]).
	KMSDelay         time.Duration `yaml:"kms_delay"`
	CoprocessorDelay time.Duration `yaml:"coprocessor_delay"`
	// ReadinessDelay is how long after a handle's first readiness question the gateway's
	// readiness views (Decryption.is*DecryptionReady) take to say it is ready, give or take
	// Jitter, on the wall clock. Zero: the profile's (production: 2s; instant: ready at once).
	ReadinessDelay time.Duration `yaml:"readiness_delay"`
	// Jitter is how far, as a share of the delay, each drawn delay may be from it (default 0.2:
	// 4s gives 3.2s to 4.8s). 0 means the default.
	Jitter float64 `yaml:"jitter"`

	// KMSNodes is the number of simulated KMS nodes, each with its own signing key (default 4).
	KMSNodes int
	// Threshold is how many distinct KMS signatures complete a decryption (default 3; at most
	// KMSNodes).
	Threshold int
	// Coprocessors is the number of simulated coprocessors (default 3); more than half of them
	// decide an input proof.
	Coprocessors int
	// DissentingCoprocessors makes the last n coprocessors answer every input proof the wrong way
	// (reject what is valid, accept what is not), to show that the majority decides. Default 0;
	// at least a majority of dissenters flips the outcome.
	DissentingCoprocessors int
	// RelayerKeys is the number of funded relayer signing keys (default 1).
	RelayerKeys int
	// ResponseDelayMin and ResponseDelayMax bound the random delay each simulated KMS node and
	// coprocessor waits before answering a request when its component has no delay of its own
	// (KMSDelay, CoprocessorDelay): the instant profile's (defaults 50ms and 300ms).
	ResponseDelayMin time.Duration
	ResponseDelayMax time.Duration
	// BlockDebounce is how long the block producer waits after a transaction arrives before it
	// seals a block, so that transactions sent together share one (default 10ms).
	BlockDebounce time.Duration
	// Heartbeat is the longest time between two blocks: an empty block is sealed when nothing
	// happened for this long, so block timestamps (the contracts' clock) keep advancing
	// (default 1s).
	Heartbeat time.Duration
	// HTTPAddr, when set, serves JSON-RPC (eth, net, web3) over HTTP on this loopback host:port
	// ("127.0.0.1:8545"; port 0 picks a free port, see Chain.HTTPEndpoint).
	HTTPAddr string
	// WSAddr, when set, serves JSON-RPC over WebSocket on this loopback host:port.
	WSAddr string
}

// Defaults of Config.
const (
	DefaultKMSNodes         = 4
	DefaultThreshold        = 3
	DefaultCoprocessors     = 3
	DefaultRelayerKeys      = 1
	DefaultResponseDelayMin = 50 * time.Millisecond
	DefaultResponseDelayMax = 300 * time.Millisecond
	DefaultBlockDebounce    = 10 * time.Millisecond
	DefaultHeartbeat        = time.Second

	maxNodes = 64
	// maxDelay bounds every simulated delay: a longer one is a typo ("4000s"), not a latency.
	maxDelay = time.Hour
)

// DefaultConfig is the configuration `relayer serve` uses for its in-process chain: 4 KMS nodes
// with threshold 3, 3 coprocessors, one relayer key, the instant profile (answers after
// 50-300ms, handles ready at once), no JSON-RPC server.
func DefaultConfig() Config {
	return Config{}.WithDefaults()
}

// WithDefaults returns c with every zero field set to its default, the profile's delays
// included (an unknown profile is left for Validate to report).
func (c Config) WithDefaults() Config {
	c.Profile = cmp.Or(c.Profile, ProfileInstant)
	c.Jitter = cmp.Or(c.Jitter, DefaultJitter)
	if c.Profile == ProfileProduction {
		c.KMSDelay = cmp.Or(c.KMSDelay, ProductionKMSDelay)
		c.CoprocessorDelay = cmp.Or(c.CoprocessorDelay, ProductionCoprocessorDelay)
		c.ReadinessDelay = cmp.Or(c.ReadinessDelay, ProductionReadinessDelay)
	}
	c.KMSNodes = cmp.Or(c.KMSNodes, DefaultKMSNodes)
	if c.Threshold == 0 {
		c.Threshold = min(DefaultThreshold, c.KMSNodes)
	}
	c.Coprocessors = cmp.Or(c.Coprocessors, DefaultCoprocessors)
	c.RelayerKeys = cmp.Or(c.RelayerKeys, DefaultRelayerKeys)
	if c.ResponseDelayMin == 0 && c.ResponseDelayMax == 0 {
		c.ResponseDelayMin, c.ResponseDelayMax = DefaultResponseDelayMin, DefaultResponseDelayMax
	}
	if c.ResponseDelayMax == 0 {
		c.ResponseDelayMax = max(c.ResponseDelayMin, DefaultResponseDelayMax)
	}
	c.BlockDebounce = cmp.Or(c.BlockDebounce, DefaultBlockDebounce)
	c.Heartbeat = cmp.Or(c.Heartbeat, DefaultHeartbeat)
	return c
}

// Validate reports every field that is out of range, after defaults (call WithDefaults first
// when validating a partly filled Config), as a *ConfigError naming each field.
func (c Config) Validate() error {
	var ps config.Problems
	if !c.Profile.valid() {
		ps.Add("profile", "must be %s or %s, got %q", ProfileInstant, ProfileProduction, string(c.Profile))
	}
	for _, d := range []struct {
		field string
		v     time.Duration
	}{{"kms_delay", c.KMSDelay}, {"coprocessor_delay", c.CoprocessorDelay}, {"readiness_delay", c.ReadinessDelay}} {
		if d.v < 0 || d.v > maxDelay {
			ps.Add(d.field, "must be a duration from 0s to %v, got %v", maxDelay, d.v)
		}
	}
	if c.Jitter < 0 || c.Jitter >= 1 || math.IsNaN(c.Jitter) {
		ps.Add("jitter", "must be a share of the delay from 0 up to (not including) 1, got %v", c.Jitter)
	}
	if c.KMSNodes < 1 || c.KMSNodes > maxNodes {
		ps.Add("KMSNodes", "is %d, want 1..%d", c.KMSNodes, maxNodes)
	}
	if c.Threshold < 1 || c.Threshold > c.KMSNodes {
		ps.Add("Threshold", "is %d, want 1..KMSNodes (%d)", c.Threshold, c.KMSNodes)
	}
	if c.Coprocessors < 1 || c.Coprocessors > maxNodes {
		ps.Add("Coprocessors", "is %d, want 1..%d", c.Coprocessors, maxNodes)
	}
	if c.DissentingCoprocessors < 0 || c.DissentingCoprocessors > c.Coprocessors {
		ps.Add("DissentingCoprocessors", "is %d, want 0..Coprocessors (%d)", c.DissentingCoprocessors, c.Coprocessors)
	}
	if c.RelayerKeys < 1 || c.RelayerKeys > maxNodes {
		ps.Add("RelayerKeys", "is %d, want 1..%d", c.RelayerKeys, maxNodes)
	}
	if c.ResponseDelayMin < 0 || c.ResponseDelayMax < c.ResponseDelayMin || c.ResponseDelayMax > maxDelay {
		ps.Add("ResponseDelayMin", "response delays %v..%v, want 0 <= min <= max <= %v", c.ResponseDelayMin, c.ResponseDelayMax, maxDelay)
	}
	if c.BlockDebounce < 0 {
		ps.Add("BlockDebounce", "is %v, want >= 0", c.BlockDebounce)
	}
	if c.Heartbeat <= 0 {
		ps.Add("Heartbeat", "is %v, want > 0", c.Heartbeat)
	}
	if c.HTTPAddr != "" {
		if err := checkLoopback(c.HTTPAddr); err != nil {
			ps.Add("HTTPAddr", "%v", err)
		}
	}
	if c.WSAddr != "" {
		if err := checkLoopback(c.WSAddr); err != nil {
			ps.Add("WSAddr", "%v", err)
		}
	}
	if c.HTTPAddr != "" && c.HTTPAddr == c.WSAddr && !hasPortZero(c.HTTPAddr) {
		ps.Add("WSAddr", "HTTPAddr and WSAddr are both %s; give them different ports", c.HTTPAddr)
	}
	if len(ps) == 0 {
		return nil
	}
	return &ConfigError{Problems: ps}
}

// Problem is one thing wrong with a Config: the field, by its yaml name when it has one (a
// setting of serve's devchain section: "profile", "kms_delay", ...) and by its Go name
// otherwise, and the issue.
type Problem = config.Problem

// ConfigError lists every problem Validate found. Its text is "devchain: field: issue; ...".
type ConfigError struct{ Problems []Problem }

func (e *ConfigError) Error() string { return config.Inline("devchain: ", e.Problems) }

// checkLoopback accepts host:port with a loopback host: the chain's keys are public, so it must
// never listen where another machine can reach it.
func checkLoopback(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("%q: bad port", addr)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%q: the host must be a loopback address such as 127.0.0.1 (the development keys are public)", addr)
	}
	return nil
}

func hasPortZero(addr string) bool {
	_, port, err := net.SplitHostPort(addr)
	return err == nil && port == "0"
}
