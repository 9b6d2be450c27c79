package postgres

import (
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"relayer/eventstore"
)

// redacted replaces a password wherever an error message would show it.
const redacted = "[redacted]"

// secrets are the passwords the store connects with, in the forms a message could show them:
// as given, and escaped as in a URL. Whatever supplied them (the URL, PGPASSWORD, a password
// file), none may reach an error the store returns or a line it logs.
type secrets []string

func secretsOf(conn *pgx.ConnConfig) secrets {
	var s secrets
	add := func(pw string) {
		if pw == "" {
			return
		}
		for _, form := range []string{pw, url.QueryEscape(pw), url.PathEscape(pw), url.UserPassword("", pw).String()[1:]} {
			if form != "" && !slices.Contains(s, form) {
				s = append(s, form)
			}
		}
	}
	add(conn.Password)
	return s
}

// scrub returns err, or, when its message shows a secret, an error whose message has each one
// replaced. The scrubbed error still matches what err matches with errors.Is (ErrClosed,
// context.Canceled, ...), but it does not unwrap: the errors inside would show the secret.
func (s secrets) scrub(err error) error {
	if err == nil || len(s) == 0 {
		return err
	}
	msg := err.Error()
	clean := msg
	for _, secret := range s {
		clean = strings.ReplaceAll(clean, secret, redacted)
	}
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

// redactedURL shows where a connection string points without its password or parameters (a
// parameter may be a password too), or nothing of it when it is not a URL.
func redactedURL(conn string) string {
	u, err := url.Parse(conn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Opaque != "" {
		return "(connection string withheld)"
	}
	safe := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	if u.User != nil {
		safe.User = url.User(u.User.Username())
	}
	return safe.String()
}

// sameUserInfo reports whether a postgres:// URL's user and password, as net/url reads them,
// are the ones pgx read into conn, and its host holds no '@'. A keyword/value connection string
// has no such ambiguity: true.
func sameUserInfo(raw string, conn *pgx.ConnConfig) bool {
	if !strings.HasPrefix(raw, "postgres://") && !strings.HasPrefix(raw, "postgresql://") {
		return true
	}
	if strings.Contains(conn.Host, "@") {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	if u.User == nil {
		return true
	}
	pw, hasPW := u.User.Password()
	return u.User.Username() == conn.User && (!hasPW || pw == conn.Password)
}
