package upstream

import (
	"context"
	"net/url"
	"strings"
	"time"
)

// EventType names a rate-limit event.
type EventType string

// The rate-limit events. A call that is never rate limited produces none of them, even when it is
// retried after a 5xx or a broken connection: they tell operators about throttling.
const (
	// RateLimitEncountered: an attempt was refused with a rate limit (once per refused attempt).
	RateLimitEncountered EventType = "RateLimitEncountered"
	// RateLimitBackoff: the call is about to wait before its next attempt. Every wait of a call
	// that has been rate limited is reported, whatever the failure that preceded it.
	RateLimitBackoff EventType = "RateLimitBackoff"
	// RateLimitRecovered: a call that had been rate limited succeeded.
	RateLimitRecovered EventType = "RateLimitRecovered"
	// RateLimitGaveUp: a call that had been rate limited stopped without success (attempts or time
	// used up, a server wait longer than the budget, a permanent failure, cancellation). Not in
	// the seed; added so that an operator sees how every rate-limited call ended.
	RateLimitGaveUp EventType = "RateLimitGaveUp"
)

// Event is one rate-limit event. It never contains a secret: Source is a scheme and host, and no
// header, body or URL is copied into it.
type Event struct {
	Type EventType
	At   time.Time
	// Source names the upstream: the name given to the Transport or Retrier call, else the
	// request URL's scheme and host (SourceName).
	Source string
	// Attempt is, for Encountered, the attempt that was refused; for Backoff, the attempt that
	// failed (the next is Attempt+1); for Recovered and GaveUp, the number of attempts made.
	Attempt int
	// Class is the class of the failure (Encountered, Backoff, GaveUp); OK for Recovered.
	Class Class
	// StatusCode is the HTTP status of the attempt (0 if there was no response).
	StatusCode int
	// RPCCode is the JSON-RPC error code, when the limit came as a JSON-RPC error.
	RPCCode int64

	// Wait is, for Encountered, the wait the server asked for (when ServerWait); for Backoff,
	// the wait about to be slept; for GaveUp, the wait the call would have needed (0 if none).
	Wait time.Duration
	// ServerWait is true when Wait is the server's (Retry-After, RateLimit or X-RateLimit-Reset)
	// rather than the client's own backoff; WaitFrom is then the header family it came from.
	ServerWait bool
	WaitFrom   string

	// Quota is what the response said about the quota: Limit and Remaining are Unknown when
	// not stated, Reset is zero when not stated.
	Quota

	// TotalBackoff is the sum of the waits of this call so far, including the one a Backoff event
	// announces.
	TotalBackoff time.Duration
	// Elapsed is the time since the call's first attempt started.
	Elapsed time.Duration
	// Reason is why a call gave up (GaveUp only).
	Reason Reason
}

// Sink receives events. Record is called synchronously on the calling goroutine, possibly from
// many goroutines at once, so it must be safe for concurrent use and quick. ctx is the call's
// context: a sink that appends to a store should not let the call's cancellation lose the event
// (context.WithoutCancel).
type Sink interface {
	Record(ctx context.Context, e Event)
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(ctx context.Context, e Event)

// Record calls f.
func (f SinkFunc) Record(ctx context.Context, e Event) { f(ctx, e) }

// NopSink drops every event. It is the default.
type NopSink struct{}

// Record does nothing.
func (NopSink) Record(context.Context, Event) {}

// SourceName names an upstream without its secrets: the scheme and host (with port) of u,
// lowercased. Userinfo, path, query and fragment are dropped: RPC providers carry API keys in
// every one of them (https://user:key@host, /v3/<key>, ?apikey=...).
func SourceName(u *url.URL) string {
	if u == nil {
		return ""
	}
	host := strings.ToLower(u.Host)
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme != "" && host != "":
		return scheme + "://" + host
	case host != "":
		return host
	default:
		return scheme
	}
}

// redactedError carries an error whose message had secrets removed; errors.Is and errors.As
// still see the original.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Redacted returns an error whose message is msg (an error message with secrets removed) and
// which wraps err, so that errors.Is and errors.As still see it.
func Redacted(msg string, err error) error { return &redactedError{msg: msg, err: err} }

// scrubError removes from err's message every part of u that may be a secret (see URLSecrets).
// It returns err itself when its message contains none of them.
func scrubError(err error, u *url.URL) error {
	if err == nil || u == nil {
		return err
	}
	msg := err.Error()
	out := Redact(msg, URLSecrets(u))
	if out == msg {
		return err
	}
	return Redacted(out, err)
}

// URLSecrets lists the parts of u that may be a secret: the whole URL in its usual spellings,
// the userinfo, the path (providers put API keys there), the query and each of its values, and
// the fragment. Parts shorter than two characters are left out.
func URLSecrets(u *url.URL) []string {
	var secrets []string
	add := func(s string) {
		if len(s) >= 2 && s != "/" {
			secrets = append(secrets, s)
		}
	}
	add(u.String())
	add(u.Redacted())
	if u.User != nil {
		add(u.User.String())
		add(u.User.Username())
		if p, ok := u.User.Password(); ok {
			add(p)
		}
	}
	add(u.EscapedPath())
	add(u.Path)
	add(u.RawQuery)
	if q, err := url.ParseQuery(u.RawQuery); err == nil {
		for _, vs := range q {
			for _, v := range vs {
				add(v)
			}
		}
	}
	add(u.Fragment)
	return secrets
}

// Redact returns msg with every occurrence of each secret replaced by "[redacted]", the longest
// first, so that a whole URL is replaced before its parts are looked for.
func Redact(msg string, secrets []string) string {
	remaining := append([]string(nil), secrets...)
	for {
		longest := -1
		for i, s := range remaining {
			if strings.Contains(msg, s) && (longest < 0 || len(s) > len(remaining[longest])) {
				longest = i
			}
		}
		if longest < 0 {
			return msg
		}
		msg = strings.ReplaceAll(msg, remaining[longest], "[redacted]")
		remaining = append(remaining[:longest], remaining[longest+1:]...)
	}
}
