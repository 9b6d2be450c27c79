package postgres

import (
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"

	"relayer/eventstore/internal/redact"
)

// secrets are the passwords the store connects with, in the forms a message could show them:
// as given, and escaped as in a URL. Whatever supplied them (the URL, PGPASSWORD, a password
// file), none may reach an error the store returns or a line it logs.
type secrets = redact.Secrets

func secretsOf(conn *pgx.ConnConfig) secrets {
	var s secrets
	s.Add(conn.Password)
	return s
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
