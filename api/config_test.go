package api

import (
	"errors"
	"testing"
)

// The host chains are a setting of their own (host_chain_ids), the limits are validation's.
func TestValidationProblemsAreNamedByTheirSettings(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Validation.HostChainIDs = []uint64{0}
	cfg.Validation.MaxHandles = -1
	var ce *ConfigError
	if err := cfg.Validate(); !errors.As(err, &ce) {
		t.Fatalf("Validate: %v", err)
	}
	got := map[string]string{}
	for _, p := range ce.Problems {
		got[p.Field] = p.Issue
	}
	if got["host_chain_ids"] != "must not contain 0" || got["validation.max_handles"] != "must not be negative (0 means the default)" || len(got) != 2 {
		t.Fatalf("problems %v", ce.Problems)
	}
}
