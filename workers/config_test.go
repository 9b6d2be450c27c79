package workers

import (
	"errors"
	"slices"
	"testing"
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
	c := Config{UserDecryptThreshold: 1, TxAttempts: 101, TimeoutsPoll: -1, Transport: TransportConfig{Kind: TransportNATS}}
	err := c.Validate()
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("want a *ConfigError, got %v", err)
	}
	var fields []string
	for _, p := range ce.Problems {
		fields = append(fields, p.Field)
	}
	if !slices.Equal(fields, []string{"tx_attempts", "timeouts_poll", "transport"}) {
		t.Fatalf("problems %v", ce.Problems)
	}
	if !errors.Is(err, ErrTransportNotBuilt) {
		t.Fatalf("%v does not wrap ErrTransportNotBuilt", err)
	}
}
