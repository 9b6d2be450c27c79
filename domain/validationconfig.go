package domain

import "strings"

// ValidationConfigError lists every problem ValidationConfig.Validate found, each with the
// field it is about in snake_case, as configurations name it ("host_chain_ids", "max_handles").
// It wraps ErrInvalidValidationConfig.
type ValidationConfigError struct{ Problems []FieldIssue }

func (e *ValidationConfigError) Error() string {
	var b strings.Builder
	b.WriteString(ErrInvalidValidationConfig.Error())
	for i, p := range e.Problems {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(p.Field + ": " + p.Issue)
	}
	return b.String()
}

func (e *ValidationConfigError) Unwrap() error { return ErrInvalidValidationConfig }
