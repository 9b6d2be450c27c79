package gateway_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"relayer/internal/config"
	"relayer/workers/gateway"
	"relayer/workers/upstream"
)

func TestConfigDefaultsFillEveryZeroField(t *testing.T) {
	t.Parallel()
	c := gateway.Config{}.WithDefaults()
	if c.GasMarginPercent != 20 || c.MaxGasLimit != 10_000_000 || c.MaxFeePerGas != 500_000_000_000 ||
		c.MaxPriorityFeePerGas != 10_000_000_000 || c.PollInterval != time.Second || c.ReceiptPollMin != 100*time.Millisecond ||
		c.ReceiptTimeout != 2*time.Minute || c.MaxBlockRange != 1000 || c.ReorgWindow != 128 || c.GapFillDelay != 3*time.Second ||
		c.ConfirmationDepth != 0 {
		t.Fatalf("defaults: %+v", c)
	}
	set := gateway.Config{GasMarginPercent: 50, PollInterval: 50 * time.Millisecond}.WithDefaults()
	if set.GasMarginPercent != 50 || set.PollInterval != 50*time.Millisecond || set.ReceiptPollMin != 50*time.Millisecond {
		t.Fatalf("set fields were changed: %+v", set)
	}
}

func TestValidateAcceptsACompleteConfigAndListsEveryProblemOfABadOne(t *testing.T) {
	t.Parallel()
	good := baseConfig(shared)
	good.Signer = gateway.SignerConfig{KeyEnv: "RELAYER_SIGNER_KEY"}
	if err := good.Validate(); err != nil {
		t.Fatalf("a complete config: %v", err)
	}

	bad := gateway.Config{
		RPCURL:               "ftp://node.example/v3/KEYINPATH",
		WSURL:                "http://node.example",
		ChainID:              0,
		Contracts:            gateway.Contracts{Decryption: common.HexToAddress("0x01"), InputVerification: common.HexToAddress("0x01")},
		Signer:               gateway.SignerConfig{KeyEnv: "RELAYER KEY", KeystoreFile: "/keys/k.json"},
		GasMarginPercent:     -5,
		MaxGasLimit:          100,
		MaxFeePerGas:         10,
		MaxPriorityFeePerGas: 20,
		PollInterval:         -time.Second,
		ReceiptTimeout:       -time.Second,
		GapFillDelay:         -time.Second,
		BumpAfterBlocks:      -3,
		FeeBumpPercent:       5,
		Upstream:             upstream.Config{MaxAttempts: -1},
	}
	err := bad.Validate()
	if err == nil {
		t.Fatal("a bad config passed")
	}
	for _, want := range []string{
		"rpc_url: must be a http or https URL", "ws_url: must be a ws or wss URL", "chain_id: is 0",
		"contracts.acl: is not set", "is the same address", "KeyEnv must be an environment variable name",
		"both set", "needs Signer.PasswordFile", "gas_margin_percent: is -5", "max_gas_limit: is 100",
		"max_priority_fee_per_gas: is 20 wei, above max_fee_per_gas (10 wei)", "poll_interval", "receipt_timeout",
		"gap_fill_delay", "upstream", "bump_after_blocks: is -3", "fee_bump_percent: is 5",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Validate does not say %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "KEYINPATH") {
		t.Fatalf("Validate shows the URL's path: %v", err)
	}
}

func TestAPrintedConfigShowsItsURLsBySchemeAndHostOnly(t *testing.T) {
	t.Parallel()
	c := gateway.Config{
		RPCURL:     "https://user:PASSWORD@rpc.example:8545/v3/PATHKEY?apikey=QUERYKEY",
		WSURL:      "wss://rpc.example/ws/PATHKEY",
		HostRPCURL: "https://host.example",
		ChainID:    54321,
	}
	out := fmt.Sprintf("%v | %+v | %#v | %s", c, c, c, c)
	for _, secret := range []string{"PASSWORD", "PATHKEY", "QUERYKEY", "user"} {
		if strings.Contains(out, secret) {
			t.Fatalf("a printed Config shows %q: %s", secret, out)
		}
	}
	for _, want := range []string{"https://rpc.example:8545/[redacted]", "wss://rpc.example/[redacted]", "https://host.example", "54321"} {
		if !strings.Contains(out, want) {
			t.Fatalf("a printed Config lacks %q: %s", want, out)
		}
	}
}

func TestValidateNamesEveryProblemByItsSetting(t *testing.T) {
	t.Parallel()
	c := gateway.Config{
		RPCURL: "https://node.example", ChainID: 0,
		Contracts: gateway.Contracts{Decryption: common.HexToAddress("0x01"), InputVerification: common.HexToAddress("0x02")},
		Signer:    gateway.SignerConfig{KeystoreFile: "/keys/k.json"}, PollInterval: -time.Second,
	}
	var ce *gateway.ConfigError
	if err := c.Validate(); !errors.As(err, &ce) {
		t.Fatalf("want a *gateway.ConfigError, got %v", err)
	}
	fields := config.Fields(ce.Problems)
	// receipt_poll_min follows poll_interval when it is not set.
	if want := []string{"chain_id", "contracts.acl", "signer", "poll_interval", "receipt_poll_min"}; !slices.Equal(fields, want) {
		t.Fatalf("problems %v, want fields %v", ce.Problems, want)
	}
}
