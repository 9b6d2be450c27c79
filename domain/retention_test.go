package domain

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// retention.enabled takes what the other boolean parameters take (true, false, 1, 0), and its
// refusal says so (an outside probe found 1 accepted under a message that allowed only true or
// false).
func TestRetentionEnabledTakesTheBooleansItsRefusalNames(t *testing.T) {
	r := DefaultRetention()
	for raw, want := range map[string]bool{"false": false, "0": false, "true": true, "1": true} {
		next, _, after, err := r.With(RetentionPrefix+"enabled", json.RawMessage(raw))
		if err != nil || next.Enabled != want || string(after) != map[bool]string{true: "true", false: "false"}[want] {
			t.Fatalf("enabled = %s: %+v, %s, %v; want %v", raw, next.Enabled, after, err, want)
		}
	}
	_, _, _, err := r.With(RetentionPrefix+"enabled", json.RawMessage(`"yes"`))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Details) != 1 || !strings.Contains(ve.Details[0].Issue, "true or false (or 1 or 0)") {
		t.Fatalf("enabled = \"yes\": %v; want a refusal naming every value taken", err)
	}
	for _, p := range r.Params() {
		if p.Name == RetentionPrefix+"enabled" && p.Constraint != "true or false (or 1 or 0)" {
			t.Fatalf("the listed constraint %q does not name 1 and 0", p.Constraint)
		}
	}
}
