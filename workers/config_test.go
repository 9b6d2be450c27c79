package workers

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"relayer/internal/config"
)

func TestDefaultConfigHoldsEveryDefaultAndNeedsOnlyTheThreshold(t *testing.T) {
	c := DefaultConfig()
	var zero Config
	zero.setDefaults()
	if c.TxAttempts != DefaultTxAttempts || c.Transport.Kind != TransportGoChannel || c.ResponsesCursorEvery != DefaultResponsesCursorEvery ||
		c.ReadinessPollInterval != zero.ReadinessPollInterval || c.Dispatcher != zero.Dispatcher {
		t.Fatalf("DefaultConfig %+v", c)
	}
	var ce *ConfigError
	if err := c.Validate(); !errors.As(err, &ce) || len(ce.Problems) != 1 || ce.Problems[0].Field != "user_decrypt_threshold" {
		t.Fatalf("without a threshold: %v, want one problem at user_decrypt_threshold", err)
	}
	c.UserDecryptThreshold = 2
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestValidateNamesEveryProblemByItsSettingAndKeepsTheTransportsError(t *testing.T) {
	c := Config{UserDecryptThreshold: 1, TxAttempts: 101, TimeoutsPoll: -1, Transport: TransportConfig{Kind: "kafka"}}
	err := c.Validate()
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("want a *ConfigError, got %v", err)
	}
	fields := config.Fields(ce.Problems)
	if !slices.Equal(fields, []string{"tx_attempts", "timeouts_poll", "transport"}) {
		t.Fatalf("problems %v", ce.Problems)
	}
	if !slices.ContainsFunc(ce.Unwrap(), func(e error) bool { return strings.Contains(e.Error(), `transport "kafka": unknown kind`) }) {
		t.Fatalf("%v does not keep the transport's error", err)
	}
	// A mistake in the NATS settings is named by its field.
	c = Config{UserDecryptThreshold: 1, Transport: TransportConfig{NATS: NATSConfig{AckWait: -1}}}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "nats.ack_wait") {
		t.Fatalf("a negative ack wait: %v", err)
	}
}

func TestAnInstanceIsNamedByItsSettingElseByItsHostAndPid(t *testing.T) {
	if got := (FleetConfig{Instance: "relayer-eu-1"}).InstanceName(); got != "relayer-eu-1" {
		t.Errorf("named instance: %q", got)
	}
	if got := (FleetConfig{}).InstanceName(); !strings.HasSuffix(got, fmt.Sprintf(" pid %d", os.Getpid())) {
		t.Errorf("default instance name %q, want the host name and this pid", got)
	}
	if got := (FleetConfig{}).leaseConfig().Holder; got != (FleetConfig{}).InstanceName() {
		t.Errorf("the lease's holder %q is not the instance's name", got)
	}
}
