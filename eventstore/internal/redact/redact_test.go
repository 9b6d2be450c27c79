package redact

import "testing"

// A short password is cut out only where it stands alone: cut out of other words, it garbled the
// message and gave itself away ("S[redacted]LSTATE" shows that the password is "Q"; found by an
// outside probe). A long one is cut out wherever it appears.
func TestScrubStringCutsAShortSecretOnlyWhereItStandsAlone(t *testing.T) {
	var s Secrets
	s.Add("Q")
	s.Add("LongSecret123")
	for in, want := range map[string]string{
		`FATAL: role "u" does not exist (SQLSTATE 28000)`: `FATAL: role "u" does not exist (SQLSTATE 28000)`,
		"host=db password=Q user=u":                       "host=db password=[redacted] user=u",
		"postgres://u:Q@db/x":                             "postgres://u:[redacted]@db/x",
		`password "Q"`:                                    `password "[redacted]"`,
		"Q":                                               "[redacted]",
		"Q Q QQ":                                          "[redacted] [redacted] QQ",
		"xLongSecret123y":                                 "x[redacted]y",
		"u:LongSecret123@db":                              "u:[redacted]@db",
	} {
		if got := s.ScrubString(in); got != want {
			t.Errorf("ScrubString(%q) = %q, want %q", in, got, want)
		}
	}
}
