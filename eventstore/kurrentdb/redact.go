package kurrentdb

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/EventStore/EventStore-Client-Go/v4/esdb"

	"relayer/eventstore/internal/redact"
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
		return nil, sec, "", sec.Scrub(fmt.Errorf("open event store: the connection string cannot be parsed: %w", err))
	}
	if conf.Password != "" {
		addSecret(&sec, conf.Password)
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

// secrets are the passwords a connection string holds, in every form a message could show them.
type secrets = redact.Secrets

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
			addSecret(&s, pw)
		}
	}
	return s
}

// addSecret records pw in its plain form, the escaped forms a URL gives it and, when it reads
// as escaped, its unescaped form.
func addSecret(s *secrets, pw string) {
	if pw == "" {
		return
	}
	s.Add(pw)
	if un, err := url.PathUnescape(pw); err == nil {
		s.AddForms(un)
	}
}
