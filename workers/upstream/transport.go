package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Transport is an http.RoundTripper that retries what Classify says is retryable, waiting as
// the server asks (Retry-After, RateLimit, X-RateLimit-*) or with jittered exponential backoff,
// within its Config's bounds, and reports rate limits to its Sink. It is made for JSON-RPC over
// HTTP (see the package comment for why re-sending those POSTs is safe): a 200 response whose
// JSON-RPC error is a rate limit (-32005 and the like) is retried too.
//
// What the caller gets back:
//   - a success, or a failure that is not retryable (501, 400, ...): the response as the server
//     sent it, body intact (a body read to look for JSON-RPC errors is replaced by an identical
//     reader);
//   - retries used up, or a server wait beyond the budget: the last response, body intact, so the
//     caller sees the 429 or 503 it would have seen without Transport;
//   - a transport failure on the last attempt, or the context ending: a nil response and an
//     *Error that unwraps to the cause (and to the context's error).
//
// The request body is replayed from GetBody when the request has it; otherwise it is read into
// memory once (up to Config.MaxReplayBody; a larger body is sent once, without retries). The
// request is never modified: each attempt sends a clone. Errors never contain the URL's userinfo,
// path or query.
type Transport struct {
	base    http.RoundTripper
	retrier *Retrier
	name    string
}

// NewTransport wraps base (nil: http.DefaultTransport). cfg is validated; zero fields take their
// defaults.
func NewTransport(base http.RoundTripper, cfg Config, opts ...Option) (*Transport, error) {
	r, err := NewRetrier(cfg, opts...)
	if err != nil {
		return nil, err
	}
	if base == nil {
		base = http.DefaultTransport
	}
	return &Transport{base: base, retrier: r, name: r.opts.name}, nil
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	source := t.name
	if source == "" {
		source = SourceName(req.URL)
	}
	body, err := newReplayableBody(req, t.retrier.cfg.MaxReplayBody)
	if err != nil {
		return nil, &Error{Source: source, Class: Permanent, Reason: ReasonNotRetryable,
			Err: scrubError(fmt.Errorf("reading the request body: %w", err), req.URL)}
	}
	if !body.replayable {
		// Too big to buffer and no GetBody: one attempt, as if Transport were not there.
		out := req.Clone(ctx)
		out.Body = body.first
		resp, err := t.base.RoundTrip(out)
		if err != nil {
			return nil, scrubError(err, req.URL)
		}
		return resp, nil
	}
	defer body.closeUnsent()

	var last *http.Response
	err = t.retrier.Do(ctx, source, func(ctx context.Context, n int) Outcome {
		if last != nil {
			discard(last)
			last = nil
		}
		out := req.Clone(ctx)
		rc, err := body.forAttempt(n)
		if err != nil {
			return Outcome{Class: Permanent, Err: scrubError(fmt.Errorf("replaying the request body: %w", err), req.URL)}
		}
		out.Body = rc
		if rc != nil && rc != http.NoBody {
			out.GetBody = body.getBody // lets the base transport replay it too
		}
		resp, err := t.base.RoundTrip(out)
		if err != nil {
			return Outcome{Class: Classify(0, nil, err), Err: scrubError(err, req.URL)}
		}
		info := ParseRateLimit(resp.Header, t.retrier.opts.clock.Now())
		rpcErr, readErr := inspect(resp, t.retrier.cfg.MaxInspectBody)
		if readErr != nil {
			// The body broke off: what was read is useless to the caller, try again.
			resp.Body.Close()
			return Outcome{Class: Classify(0, nil, readErr), StatusCode: resp.StatusCode,
				Err: scrubError(fmt.Errorf("reading the response body: %w", readErr), req.URL)}
		}
		last = resp
		o := Outcome{Class: Classify(resp.StatusCode, rpcErr, nil), Info: info, StatusCode: resp.StatusCode}
		if rpcErr != nil {
			o.RPCCode = rpcErr.Code
		}
		if o.Class != OK {
			o.Err = &statusError{code: resp.StatusCode, rpc: rpcErr}
		}
		return o
	})
	if err == nil {
		return last, nil
	}
	var e *Error
	if errors.As(err, &e) && e.Reason != ReasonCanceled && last != nil {
		return last, nil
	}
	if last != nil {
		discard(last)
	}
	return nil, err
}

// statusError describes an answer that was a failure.
type statusError struct {
	code int
	rpc  *RPCError
}

func (e *statusError) Error() string {
	s := fmt.Sprintf("HTTP %d %s", e.code, http.StatusText(e.code))
	if e.rpc != nil {
		s += fmt.Sprintf(", JSON-RPC error %d", e.rpc.Code)
	}
	return s
}

func discard(resp *http.Response) {
	if resp.Body != nil {
		_, _ = io.CopyN(io.Discard, resp.Body, 64<<10) // lets the connection be reused
		resp.Body.Close()
	}
}

// replayableBody hands each attempt its own copy of the request body.
type replayableBody struct {
	first      io.ReadCloser // the body for attempt 1
	getBody    func() (io.ReadCloser, error)
	replayable bool
	sent       bool // first was handed to the base transport, which closes it
}

func newReplayableBody(req *http.Request, max int64) (*replayableBody, error) {
	b := &replayableBody{first: req.Body, replayable: true}
	switch {
	case req.Body == nil || req.Body == http.NoBody:
		b.getBody = func() (io.ReadCloser, error) { return req.Body, nil }
		b.sent = true // nothing to close
	case req.GetBody != nil:
		b.getBody = req.GetBody
	default:
		buf, err := io.ReadAll(io.LimitReader(req.Body, max+1))
		if err != nil {
			req.Body.Close()
			return nil, err
		}
		if int64(len(buf)) > max {
			b.first = readCloser{io.MultiReader(bytes.NewReader(buf), req.Body), req.Body}
			b.replayable = false
			return b, nil
		}
		req.Body.Close()
		b.first = io.NopCloser(bytes.NewReader(buf))
		b.getBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf)), nil }
		b.sent = true // the original is closed already
	}
	return b, nil
}

func (b *replayableBody) forAttempt(n int) (io.ReadCloser, error) {
	if n == 1 {
		b.sent = true
		return b.first, nil
	}
	return b.getBody()
}

// closeUnsent closes the caller's body when no attempt was made (the context ended first):
// a RoundTripper must always close the request body.
func (b *replayableBody) closeUnsent() {
	if !b.sent && b.first != nil {
		b.first.Close()
	}
}

type readCloser struct {
	io.Reader
	io.Closer
}

// inspect looks for a JSON-RPC rate-limit error in a 2xx or 4xx response other than 429 (the
// others are decided by their status), so that a limit sent with 200 (or 400) is recognised.
// It reads a body of at most max bytes and replaces it with an identical one; a larger body is
// handed back unread beyond what was read. Only a rate-limit error is returned: other JSON-RPC
// errors are the caller's answer. readErr is an error while reading the body.
func inspect(resp *http.Response, max int64) (rpcErr *RPCError, readErr error) {
	ok2xx := resp.StatusCode >= 200 && resp.StatusCode < 300
	ok4xx := resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests
	if !ok2xx && !ok4xx {
		return nil, nil
	}
	if resp.Body == nil || resp.Body == http.NoBody || resp.ContentLength > max {
		return nil, nil
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" && !strings.Contains(strings.ToLower(ct), "json") {
		return nil, nil
	}
	orig := resp.Body
	buf, err := io.ReadAll(io.LimitReader(orig, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(buf)) > max {
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(buf), orig), orig}
		return nil, nil
	}
	orig.Close()
	resp.Body = io.NopCloser(bytes.NewReader(buf))
	return findRateLimitError(buf), nil
}

// findRateLimitError returns the first rate-limit error in a JSON-RPC response or batch of
// responses, or nil.
func findRateLimitError(body []byte) *RPCError {
	if !bytes.Contains(body, []byte(`"error"`)) {
		return nil
	}
	type response struct {
		Error *RPCError `json:"error"`
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 {
		return nil
	}
	switch trimmed[0] {
	case '{':
		var r response
		if json.Unmarshal(trimmed, &r) == nil && r.Error.IsRateLimit() {
			return r.Error
		}
	case '[':
		var batch []json.RawMessage
		if json.Unmarshal(trimmed, &batch) != nil {
			return nil
		}
		for _, raw := range batch {
			var r response
			if json.Unmarshal(raw, &r) == nil && r.Error.IsRateLimit() {
				return r.Error
			}
		}
	}
	return nil
}
