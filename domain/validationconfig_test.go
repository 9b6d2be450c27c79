package domain

import (
	"errors"
	"slices"
	"testing"
)

func TestValidationConfigProblemsNameTheirFields(t *testing.T) {
	err := ValidationConfig{HostChainIDs: []uint64{0, 3, 3}, MaxPublicKeyBytes: -1}.Validate()
	var ve *ValidationConfigError
	if !errors.As(err, &ve) || !errors.Is(err, ErrInvalidValidationConfig) {
		t.Fatalf("want a *ValidationConfigError wrapping ErrInvalidValidationConfig, got %v", err)
	}
	want := []FieldIssue{
		{Field: "host_chain_ids", Issue: "must not contain 0"},
		{Field: "host_chain_ids", Issue: "lists 3 more than once"},
		{Field: "max_public_key_bytes", Issue: "must not be negative (0 means the default)"},
	}
	if !slices.Equal(ve.Problems, want) {
		t.Fatalf("problems %v, want %v", ve.Problems, want)
	}
}
