package kurrentdb

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/EventStore/EventStore-Client-Go/v4/esdb"

	"relayer/eventstore"
)

// Schemes Open reads. The client reads only esdb and esdb+discover; the KurrentDB names of
// the same connection strings are rewritten to those.
var schemes = map[string]string{
	"esdb":               "esdb",
	"esdb+discover":      "esdb+discover",
	"kurrentdb":          "esdb",
	"kurrentdb+discover": "esdb+discover",
	"kurrent":            "esdb",
	"kurrent+discover":   "esdb+discover",
}

// clientURL rewrites conn's scheme to the one the client reads (esdb or esdb+discover). Its
// errors quote nothing of conn: not even an unknown scheme, which may be a password typed in the
// wrong place.
func clientURL(conn string) (string, error) {
	const want = "esdb://, esdb+discover://, kurrentdb://, kurrentdb+discover://, kurrent:// or kurrent+discover://"
	scheme, rest, ok := strings.Cut(conn, "://")
	if !ok {
		return "", errors.New("the connection string is not a URL: want " + want)
	}
	to, ok := schemes[strings.ToLower(scheme)]
	if !ok {
		return "", errors.New("the connection string's scheme is not one this store reads: want " + want)
	}
	return to + "://" + rest, nil
}

// parseURL turns a connection string into the client's configuration, the secrets it holds, and
// a description of where it points for messages. Its error shows no secret: the client's parse
// errors quote the whole connection string (net/url's do), so they are scrubbed of every form
// the password could take in it, found even when the string does not parse.
func parseURL(conn string) (*esdb.Configuration, secrets, string, error) {
	sec := secretsOf(conn)
	rewritten, err := clientURL(conn)
	if err != nil {
		return nil, sec, "", fmt.Errorf("open event store: %w", err)
	}
	conf, err := esdb.ParseConnectionString(rewritten)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			// net/url quotes the string it could not parse; say only why.
			err = uerr.Err
		}
		return nil, sec, "", sec.scrub(fmt.Errorf("open event store: the connection string cannot be parsed: %w", err))
	}
	if conf.Password != "" {
		sec.add(conf.Password)
	}
	return conf, sec, describe(conf), nil
}

// describe says where a configuration points, for messages: the scheme, the user and the hosts,
// never the password or the settings.
func describe(conf *esdb.Configuration) string {
	var b strings.Builder
	if conf.DnsDiscover {
		b.WriteString("esdb+discover://")
	} else {
		b.WriteString("esdb://")
	}
	if conf.Username != "" {
		b.WriteString(url.User(conf.Username).String())
		b.WriteByte('@')
	}
	if len(conf.GossipSeeds) > 0 {
		hosts := make([]string, len(conf.GossipSeeds))
		for i, s := range conf.GossipSeeds {
			hosts[i] = s.String()
		}
		b.WriteString(strings.Join(hosts, ","))
	} else {
		b.WriteString(conf.Address)
	}
	return b.String()
}

// redacted replaces a secret wherever a message would show it.
const redacted = "[redacted]"

// secrets are the passwords a connection string holds, in every form a message could show them.
type secrets []string

// secretsOf finds the password in a connection string without parsing it as a URL, since the
// strings that fail to parse are the ones whose errors quote them: for every "@" after the
// scheme, the text between the first ":" and that "@" may be the password, as typed and
// unescaped. A candidate that turns out to be no password only hides harmless text.
func secretsOf(conn string) secrets {
	var s secrets
	_, rest, ok := strings.Cut(conn, "://")
	if !ok {
		rest = conn
	}
	for i := range len(rest) {
		if rest[i] != '@' {
			continue
		}
		userinfo := rest[:i]
		if _, pw, ok := strings.Cut(userinfo, ":"); ok {
			s.add(pw)
		}
	}
	return s
}

// add records pw in its plain form and the escaped forms a URL gives it.
func (s *secrets) add(pw string) {
	if pw == "" {
		return
	}
	forms := []string{pw, url.QueryEscape(pw), url.PathEscape(pw), url.UserPassword("", pw).String()[1:]}
	if un, err := url.PathUnescape(pw); err == nil {
		forms = append(forms, un)
	}
	for _, form := range forms {
		if form != "" && !slices.Contains(*s, form) {
			*s = append(*s, form)
		}
	}
}

// scrubString replaces every secret in msg.
func (s secrets) scrubString(msg string) string {
	for _, secret := range s {
		msg = strings.ReplaceAll(msg, secret, redacted)
	}
	return msg
}

// scrub returns err, or, when its message shows a secret, an error whose message has each one
// replaced. The scrubbed error still matches what err matches with errors.Is (ErrClosed,
// context.Canceled, ...), but it does not unwrap: the errors inside would show the secret.
func (s secrets) scrub(err error) error {
	if err == nil || len(s) == 0 {
		return err
	}
	msg := err.Error()
	clean := s.scrubString(msg)
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
// caller's stream names and versions, nothing of the connection.
func (e *scrubbedError) As(target any) bool {
	switch target.(type) {
	case **eventstore.WrongExpectedVersionError, **eventstore.RecordError:
		return errors.As(e.err, target)
	}
	return false
}
