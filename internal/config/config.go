// Package config holds what the relayer's packages share to validate their Config: the Problem a
// Validate reports for one setting, the list it collects them in, and the two ways a ConfigError
// prints them. It owns no configuration: each package keeps its own Config, defaults, ConfigError
// type and error texts, so that callers still tell one package's problems from another's with
// errors.As. It must never import a package of the relayer, since every one of them may use it.
package config

import (
	"fmt"
	"strings"
	"time"
)

// Problem is one thing wrong with a configuration: the setting it is about (named as the package
// documents: its yaml name, a dotted path, or its Go name) and what is wrong with it. It maps
// onto the API's error details ({"field", "issue"}).
type Problem struct {
	Field string `json:"field"`
	Issue string `json:"issue"`
}

// Fields is the setting each of ps is about, in order.
func Fields(ps []Problem) []string {
	fields := make([]string, len(ps))
	for i, p := range ps {
		fields[i] = p.Field
	}
	return fields
}

// Problems collects what a Validate finds, in the order it checks. The zero value is empty and
// ready to use.
type Problems []Problem

// Add records a problem of field, its issue formatted as by fmt.Sprintf.
func (ps *Problems) Add(field, format string, args ...any) {
	*ps = append(*ps, Problem{Field: field, Issue: fmt.Sprintf(format, args...)})
}

// Duration records a problem of field unless lo <= v <= hi.
func (ps *Problems) Duration(field string, v, lo, hi time.Duration) {
	if v < lo || v > hi {
		ps.Add(field, "must be a duration from %s to %s, got %s", lo, hi, v)
	}
}

// Inline is prefix followed by every problem as "field: issue", separated by "; ": the one-line
// text of a package's ConfigError ("gateway: rpc_url: ...; signer: ...").
func Inline(prefix string, ps []Problem) string {
	var b strings.Builder
	b.WriteString(prefix)
	for i, p := range ps {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Field + ": " + p.Issue)
	}
	return b.String()
}

// Lines is head followed by every problem as "field: issue" on a line of its own, indented by
// two spaces: the text of a ConfigError an operator reads whole ("invalid API configuration:").
func Lines(head string, ps []Problem) string {
	var b strings.Builder
	b.WriteString(head)
	for _, p := range ps {
		b.WriteString("\n  " + p.Field + ": " + p.Issue)
	}
	return b.String()
}
