// Package redact keeps the passwords of a store's connection out of the errors it returns and
// the lines it logs, for the eventstore backends that connect to a server (PostgreSQL,
// KurrentDB).
package redact

import (
	"errors"
	"net/url"
	"slices"
	"strings"

	"relayer/eventstore"
)

// Redacted replaces a secret wherever a message would show it.
const Redacted = "[redacted]"

// Secrets are the passwords a store connects with, in every form a message could show them.
type Secrets []string

// Add records pw in its plain form and the escaped forms a URL gives it.
func (s *Secrets) Add(pw string) {
	if pw == "" {
		return
	}
	s.AddForms(pw, url.QueryEscape(pw), url.PathEscape(pw), url.UserPassword("", pw).String()[1:])
}

// AddForms records each of forms that is not empty and not recorded yet.
func (s *Secrets) AddForms(forms ...string) {
	for _, form := range forms {
		if form != "" && !slices.Contains(*s, form) {
			*s = append(*s, form)
		}
	}
}

// ScrubString replaces every secret in msg: everywhere for one of standAlone's length or more,
// and where no letter or digit stands beside it for a shorter one (a password as a message shows
// it stands between delimiters: '=' and ' ', ':' and '@', quotes), so that a short password is
// not cut out of other words, which would garble the message and give the password away ("Q" in
// "SQLSTATE" made "S[redacted]LSTATE").
func (s Secrets) ScrubString(msg string) string {
	for _, secret := range s {
		if len(secret) >= standAlone {
			msg = strings.ReplaceAll(msg, secret, Redacted)
			continue
		}
		var b strings.Builder
		rest := msg
		var prev byte // the last byte written, 0 before the first
		for {
			i := strings.Index(rest, secret)
			if i < 0 {
				b.WriteString(rest)
				break
			}
			if i > 0 {
				prev = rest[i-1]
			}
			end := i + len(secret)
			b.WriteString(rest[:i])
			if !isWordByte(prev) && (end == len(rest) || !isWordByte(rest[end])) {
				b.WriteString(Redacted)
				prev = ']'
			} else {
				b.WriteString(secret)
				prev = secret[len(secret)-1]
			}
			rest = rest[end:]
		}
		msg = b.String()
	}
	return msg
}

// standAlone is the length from which a secret is replaced wherever it appears.
const standAlone = 8

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// Scrub returns err, or, when its message shows a secret, an error whose message has each one
// replaced. The scrubbed error still matches what err matches with errors.Is (ErrClosed,
// context.Canceled, ...), but it does not unwrap: the errors inside would show the secret.
func (s Secrets) Scrub(err error) error {
	if err == nil || len(s) == 0 {
		return err
	}
	msg := err.Error()
	clean := s.ScrubString(msg)
	if clean == msg {
		return err
	}
	return &scrubbedError{msg: clean, err: err}
}

// scrubbedError is an error with the secrets cut out of its message.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }

// Is makes errors.Is see through to the original error.
func (e *scrubbedError) Is(target error) bool { return errors.Is(e.err, target) }

// As lets errors.As find the store's own error types in the original error: they carry the
// caller's stream names and versions, nothing of the connection, so they may show what looked
// like a password (a stream named like it, or a short password that is a common word).
func (e *scrubbedError) As(target any) bool {
	switch target.(type) {
	case **eventstore.WrongExpectedVersionError, **eventstore.RecordError:
		return errors.As(e.err, target)
	}
	return false
}
