package devchain

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"
)

// Config says how many simulated KMS nodes and coprocessors the development chain runs, how
// quickly they answer, how blocks are produced and whether JSON-RPC is served. The zero value of
// a field means its default (DefaultConfig); Start fills the defaults in and calls Validate.
type Config struct {
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
	// coprocessor waits before answering a request (defaults 50ms and 300ms).
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
)

// DefaultConfig is the configuration `relayer serve` uses for its in-process chain: 4 KMS nodes
// with threshold 3, 3 coprocessors, one relayer key, answers after 50-300ms, no JSON-RPC server.
func DefaultConfig() Config {
	return Config{}.WithDefaults()
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.KMSNodes == 0 {
		c.KMSNodes = DefaultKMSNodes
	}
	if c.Threshold == 0 {
		c.Threshold = min(DefaultThreshold, c.KMSNodes)
	}
	if c.Coprocessors == 0 {
		c.Coprocessors = DefaultCoprocessors
	}
	if c.RelayerKeys == 0 {
		c.RelayerKeys = DefaultRelayerKeys
	}
	if c.ResponseDelayMin == 0 && c.ResponseDelayMax == 0 {
		c.ResponseDelayMin, c.ResponseDelayMax = DefaultResponseDelayMin, DefaultResponseDelayMax
	}
	if c.ResponseDelayMax == 0 {
		c.ResponseDelayMax = max(c.ResponseDelayMin, DefaultResponseDelayMax)
	}
	if c.BlockDebounce == 0 {
		c.BlockDebounce = DefaultBlockDebounce
	}
	if c.Heartbeat == 0 {
		c.Heartbeat = DefaultHeartbeat
	}
	return c
}

// Validate reports every field that is out of range, after defaults (call WithDefaults first
// when validating a partly filled Config).
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.KMSNodes < 1 || c.KMSNodes > maxNodes {
		bad("devchain: KMSNodes is %d, want 1..%d", c.KMSNodes, maxNodes)
	}
	if c.Threshold < 1 || c.Threshold > c.KMSNodes {
		bad("devchain: Threshold is %d, want 1..KMSNodes (%d)", c.Threshold, c.KMSNodes)
	}
	if c.Coprocessors < 1 || c.Coprocessors > maxNodes {
		bad("devchain: Coprocessors is %d, want 1..%d", c.Coprocessors, maxNodes)
	}
	if c.DissentingCoprocessors < 0 || c.DissentingCoprocessors > c.Coprocessors {
		bad("devchain: DissentingCoprocessors is %d, want 0..Coprocessors (%d)", c.DissentingCoprocessors, c.Coprocessors)
	}
	if c.RelayerKeys < 1 || c.RelayerKeys > maxNodes {
		bad("devchain: RelayerKeys is %d, want 1..%d", c.RelayerKeys, maxNodes)
	}
	if c.ResponseDelayMin < 0 || c.ResponseDelayMax < c.ResponseDelayMin {
		bad("devchain: response delays %v..%v, want 0 <= min <= max", c.ResponseDelayMin, c.ResponseDelayMax)
	}
	if c.BlockDebounce < 0 {
		bad("devchain: BlockDebounce is %v, want >= 0", c.BlockDebounce)
	}
	if c.Heartbeat <= 0 {
		bad("devchain: Heartbeat is %v, want > 0", c.Heartbeat)
	}
	if c.HTTPAddr != "" {
		if err := checkLoopback(c.HTTPAddr); err != nil {
			bad("devchain: HTTPAddr: %v", err)
		}
	}
	if c.WSAddr != "" {
		if err := checkLoopback(c.WSAddr); err != nil {
			bad("devchain: WSAddr: %v", err)
		}
	}
	if c.HTTPAddr != "" && c.HTTPAddr == c.WSAddr && !hasPortZero(c.HTTPAddr) {
		bad("devchain: HTTPAddr and WSAddr are both %s; give them different ports", c.HTTPAddr)
	}
	return errors.Join(errs...)
}

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
