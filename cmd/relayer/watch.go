package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"relayer/api"
	"relayer/workers/upstream"
)

// Reconnection tuning of `relayer watch` (the first delay is the --retry-delay flag).
const (
	// watchMaxDelay caps the exponential backoff.
	watchMaxDelay = 5 * time.Second
	// watchIdleTimeout is how long a stream may stay silent (no event, no heartbeat) before watch
	// takes the connection for dead and reconnects. The server sends a heartbeat every 15 s.
	watchIdleTimeout = 60 * time.Second
)

// runWatch follows GET /v1/transitions and prints one line per transition, and per rate limit an
// upstream call met, until ctx ends.
const watchUsage = `Usage: relayer watch [--url URL] [--kind K,...] [--status S,...] [--from POSITION] [--json]

Follows the relayer's live transitions stream (GET /v1/transitions) and prints one line per
transition, and per rate limit its chain calls met, reconnecting where it left off. Sends
RELAYER_OPERATOR_TOKEN when it is set.
`

func runWatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("watch", watchUsage)
	base := fs.String("url", "http://127.0.0.1:8080", "base `URL` of the relayer's HTTP API")
	kind := fs.String("kind", "", "only jobs of these kinds (comma-separated): input-proof, user-decrypt, public-decrypt, delegated-user-decrypt")
	status := fs.String("status", "", "only transitions into these statuses (comma-separated)")
	from := fs.String("from", "", "start after this global `POSITION` (default: live only)")
	asJSON := fs.Bool("json", false, "print each event's JSON data line as received")
	rateLimits := fs.Bool("ratelimit", true, "also print the rate limits the relayer's upstream calls met (ratelimit events); --ratelimit=false leaves them out")
	signers := fs.Bool("signer", true, "also print the signing keys' events: pauses for their balance, nonce corrections (signer events); --signer=false leaves them out")
	retryDelay := fs.Duration("retry-delay", time.Second, "first reconnection delay, until the server suggests one (it doubles up to 5s)")
	if err := parseFlagsOnly(fs, args, stdout, stderr); err != nil {
		return err
	}
	if *retryDelay <= 0 || *retryDelay > watchMaxDelay {
		return usageErrorf("watch: --retry-delay must be more than 0 and at most %s, got %s", watchMaxDelay, *retryDelay)
	}
	u, err := url.Parse(*base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageErrorf("watch: --url %s is not an http(s) URL", shownURL(*base))
	}
	w := &watcher{out: stdout, log: stderr, json: *asJSON, client: &http.Client{}, initialDelay: *retryDelay}
	// A relayer whose audit endpoints are closed wants its operator token (never a flag: other
	// users see a process's arguments).
	w.token = os.Getenv("RELAYER_OPERATOR_TOKEN")
	w.endpoint = strings.TrimRight(u.String(), "/") + "/v1/transitions"
	w.health = strings.TrimRight(u.String(), "/") + "/healthz"
	w.base = strings.TrimRight(u.Redacted(), "/")
	q := url.Values{}
	if *kind != "" {
		q.Set("kind", *kind)
	}
	if *status != "" {
		q.Set("status", *status)
	}
	if !*rateLimits {
		q.Set("ratelimit", "false")
	}
	if !*signers {
		q.Set("signer", "false")
	}
	if *from != "" {
		n, err := strconv.ParseUint(strings.TrimSpace(*from), 10, 64)
		if err != nil {
			return usageErrorf("watch: --from %q is not a global position (a whole number, 0 or more)", *from)
		}
		w.start, w.haveStart = n, true
	}
	w.query = q
	return w.run(ctx)
}

// watcher is one `relayer watch`: where it is in the log and how it reconnects.
type watcher struct {
	out, log io.Writer
	json     bool
	client   *http.Client
	token    string // the operator token, when the relayer's audit endpoints are closed
	endpoint string
	health   string
	// base is the --url as the messages show it: without the password of its user part.
	base  string
	query url.Values

	// start is where the first connection starts (--from, or the head when watch started live).
	start     uint64
	haveStart bool
	// last is the id of the last event received; the stream resumes after it.
	last     uint64
	haveLast bool
	// retry is the server's suggested reconnection delay (0 until it sends one), and
	// initialDelay the one used until then.
	retry, initialDelay time.Duration
	// archived is the highest position of an "archived" event noted (0: none), so that a
	// reconnection below it does not note it again.
	archived uint64
}

// refusedError is an answer that reconnecting will not change (4xx).
type refusedError struct {
	code int
	msg  string
}

func (e *refusedError) Error() string { return e.msg }

func (w *watcher) run(ctx context.Context) error {
	attempt := 0
	for {
		if !w.haveStart && !w.haveLast {
			// Live only: pin the head first, so that a connection lost before the first event
			// resumes from there instead of skipping what happened meanwhile.
			if err := w.pinHead(ctx); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				attempt = w.pause(ctx, attempt, fmt.Sprintf("cannot reach %s/healthz (%v)", w.base, err))
				continue
			}
		}
		got, err := w.stream(ctx)
		if ctx.Err() != nil {
			return nil
		}
		var ref *refusedError
		if errors.As(err, &ref) {
			return &exitError{code: 1, err: fmt.Errorf("watch: %s", ref.msg)}
		}
		if got {
			attempt = 0
		}
		reason := "the stream ended"
		if err != nil {
			reason = err.Error()
		}
		if w.haveLast {
			reason += fmt.Sprintf("; resuming after position %d", w.last)
		}
		attempt = w.pause(ctx, attempt, reason)
	}
}

// pause logs why watch reconnects and waits the backoff of attempt; it returns the next attempt.
func (w *watcher) pause(ctx context.Context, attempt int, reason string) int {
	d := w.backoff(attempt)
	fmt.Fprintf(w.log, "watch: %s; retrying in %s\n", reason, d.Round(time.Millisecond))
	_ = upstream.RealClock().Sleep(ctx, d) // cut short when ctx ends, which run checks next
	return attempt + 1
}

// backoff is the delay before reconnection attempt n (0-based): the server's retry hint (else
// initialDelay) doubled each attempt, capped at watchMaxDelay, with jitter down to half (the
// server asked for its hint: full jitter would come back far sooner).
func (w *watcher) backoff(n int) time.Duration {
	base := w.initialDelay
	if w.retry > 0 {
		base = w.retry
	}
	b := upstream.Backoff{Base: min(base, watchMaxDelay), Max: watchMaxDelay, Jitter: upstream.EqualJitter}
	return b.Delay(n+1, nil)
}

// pinHead reads the log's head from /healthz and makes it the start; when the server does not
// say (the store is down), watch starts live.
func (w *watcher) pinHead(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.health, nil)
	if err != nil {
		return err
	}
	res, err := w.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var rep struct {
		Store struct {
			Head *uint64 `json:"head"`
		} `json:"store"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&rep); err == nil && rep.Store.Head != nil {
		w.start, w.haveStart = *rep.Store.Head, true
	}
	return nil
}

// stream opens one connection and prints what it delivers until it ends. got says whether it
// delivered at least one event.
func (w *watcher) stream(ctx context.Context) (got bool, err error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	q := url.Values{}
	for k, v := range w.query {
		q[k] = v
	}
	if !w.haveLast && w.haveStart {
		q.Set("after", strconv.FormatUint(w.start, 10))
	}
	target := w.endpoint
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if w.token != "" {
		req.Header.Set("Authorization", "Bearer "+w.token)
	}
	req.Header.Set("Cache-Control", "no-cache")
	if w.haveLast {
		req.Header.Set("Last-Event-ID", strconv.FormatUint(w.last, 10))
	}
	res, err := w.client.Do(req)
	if err != nil {
		return false, fmt.Errorf("cannot reach %s/v1/transitions (%v)", w.base, unwrapURLError(err))
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		msg := serverMessage(res)
		if res.StatusCode >= 400 && res.StatusCode < 500 {
			return false, &refusedError{code: res.StatusCode, msg: msg}
		}
		return false, errors.New(msg)
	}

	// A silent connection is a dead one: cancel it when nothing arrives for watchIdleTimeout.
	idle := time.AfterFunc(watchIdleTimeout, func() {
		cancel(fmt.Errorf("no data for %s", watchIdleTimeout))
	})
	defer idle.Stop()

	p := sseParser{}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		idle.Reset(watchIdleTimeout)
		ev, ok := p.line(sc.Text())
		if p.retry > 0 {
			w.retry = p.retry
		}
		if !ok {
			continue
		}
		if ev.hasID {
			if w.haveLast && ev.id <= w.last {
				continue // already printed: never twice
			}
		}
		switch ev.event {
		case "transition", "ratelimit", "signer":
			if err := w.print(ev.event, ev.data); err != nil {
				return got, err
			}
			got = true
		case "archived":
			w.noteArchived(ev.data)
		}
		if ev.hasID {
			w.last, w.haveLast = ev.id, true
		}
	}
	if err := context.Cause(ctx); err != nil && ctx.Err() != nil {
		return got, err
	}
	if err := sc.Err(); err != nil {
		return got, fmt.Errorf("the stream broke (%v)", unwrapURLError(err))
	}
	return got, nil
}

// noteArchived tells, on the log, that the stream leaves out the transitions of the jobs retired
// to the archive at or below the "archived" event's upTo, once per upTo.
func (w *watcher) noteArchived(data string) {
	var a struct {
		UpTo uint64 `json:"upTo"`
	}
	if err := json.Unmarshal([]byte(data), &a); err != nil || a.UpTo <= w.archived {
		return
	}
	w.archived = a.UpTo
	fmt.Fprintf(w.log, "note: the transitions of the jobs retired at or below position %d are in the archive, not in this stream (relayer replay --all --archive reads them)\n", a.UpTo)
}

// print writes one event: a transition, a rate limit or a signing key's event.
func (w *watcher) print(event, data string) error {
	if w.json {
		_, err := fmt.Fprintln(w.out, data)
		return err
	}
	switch event {
	case "signer":
		return printLine(w, data, "a signer event", signerLine)
	case "ratelimit":
		return printLine(w, data, "a rate-limit event", rateLimitLine)
	default:
		return printLine(w, data, "a transition", transitionLine)
	}
}

// printLine decodes data as a T and prints it on one line, with line; data that is not JSON is
// skipped, and the log says so, naming it as what.
func printLine[T any](w *watcher, data, what string, line func(T) string) error {
	var v T
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		fmt.Fprintf(w.log, "watch: skip %s that is not JSON: %q\n", what, data)
		return nil
	}
	_, err := fmt.Fprintln(w.out, line(v))
	return err
}

// transitionLine is a transition on one line: its time, position, job, kind, the statuses from
// and to ("-" for none), the event's type and its label when it has one.
func transitionLine(t api.Transition) string {
	from := t.From
	from = cmp.Or(from, "-")
	line := fmt.Sprintf("%s  %d  %s  %s  %s -> %s  %s",
		t.At.UTC().Format("2006-01-02T15:04:05.000Z07:00"), t.Position, t.JobID, t.Kind, from, t.To, t.EventType)
	if t.Label != "" {
		line += "  " + t.Label
	}
	return line
}

// signerLine is a signing key's event on one line: its time and position, as a transition's, then
// "signer", the key, the event's type and its other fields as key=value pairs in name order, e.g.
//
//	2026-05-01T09:00:00.000Z  1241  signer 0x51a0…  NonceCorrected action=skipped from=4 pending=7 reason="another sender used the key" to=7
func signerLine(s api.Signer) string {
	var fields map[string]any
	_ = json.Unmarshal(s.Event, &fields)
	at, _ := fields["at"].(string)
	if t, err := time.Parse(time.RFC3339Nano, at); err == nil {
		at = t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %d  signer %s  %s", at, s.Position, s.Address, s.EventType)
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if k == "at" || k == "address" {
			continue
		}
		v := fmt.Sprint(fields[k])
		if raw, err := json.Marshal(fields[k]); err == nil && !strings.HasPrefix(string(raw), "\"") {
			v = string(raw) // numbers and lists as JSON writes them
		}
		if strings.ContainsAny(v, " \t\"") {
			v = strconv.Quote(v)
		}
		b.WriteString(" " + k + "=" + v)
	}
	return b.String()
}

// rateLimitPhases name the rate-limit events in watch's lines.
var rateLimitPhases = map[string]string{
	"RateLimitEncountered": "encountered",
	"RateLimitBackoff":     "backoff",
	"RateLimitRecovered":   "recovered",
	"RateLimitGaveUp":      "gave-up",
}

// rateLimitLine is a rate-limit event on one line: its time and position, as a transition's, then
// "ratelimit", its phase and what it says as key=value pairs, e.g.
//
//	2026-05-01T09:00:00.000Z  1240  ratelimit encountered source=https://rpc.example.com status=429 retry-after=1s attempt=1
func rateLimitLine(r api.RateLimit) string {
	phase, ok := rateLimitPhases[r.EventType]
	if !ok {
		phase = r.EventType
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %d  ratelimit %s", r.At.UTC().Format("2006-01-02T15:04:05.000Z07:00"), r.Position, phase)
	add := func(k, v string) {
		if strings.ContainsAny(v, " \t\"") {
			v = strconv.Quote(v)
		}
		b.WriteString(" " + k + "=" + v)
	}
	ms := func(n int64) string { return (time.Duration(n) * time.Millisecond).String() }
	add("source", r.Source)
	if r.Instance != "" {
		add("instance", r.Instance)
	}
	if r.Status != 0 {
		add("status", strconv.Itoa(r.Status))
	}
	if r.RPCCode != 0 {
		add("rpc-code", strconv.FormatInt(r.RPCCode, 10))
	}
	if r.Class != "" && r.Class != "rate_limited" && r.Class != "ok" {
		add("class", r.Class)
	}
	switch {
	case r.EventType == "RateLimitEncountered" && r.WaitFrom == upstream.HeaderRetryAfter:
		add("retry-after", ms(r.WaitMs))
	case r.WaitMs > 0 || r.WaitFrom != "":
		add("wait", ms(r.WaitMs))
		if r.WaitFrom != "" {
			add("wait-from", r.WaitFrom)
		}
	}
	if r.EventType == "RateLimitRecovered" || r.EventType == "RateLimitGaveUp" {
		add("attempts", strconv.Itoa(r.Attempt))
	} else {
		add("attempt", strconv.Itoa(r.Attempt))
	}
	if r.Limit != nil {
		add("limit", strconv.FormatInt(*r.Limit, 10))
	}
	if r.Remaining != nil {
		add("remaining", strconv.FormatInt(*r.Remaining, 10))
	}
	if !r.Reset.IsZero() {
		add("reset", r.Reset.UTC().Format(time.RFC3339))
	}
	if r.WindowMs > 0 {
		add("window", ms(r.WindowMs))
	}
	if r.Policy != "" {
		add("policy", r.Policy)
	}
	if r.TotalBackoffMs > 0 {
		add("total-backoff", ms(r.TotalBackoffMs))
	}
	if r.EventType == "RateLimitRecovered" || r.EventType == "RateLimitGaveUp" {
		add("elapsed", ms(r.ElapsedMs))
	}
	if r.Reason != "" {
		add("reason", r.Reason)
	}
	return b.String()
}

// serverMessage describes a non-200 answer, with the error envelope's message when it has one.
func serverMessage(res *http.Response) string {
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	var env api.Envelope
	if err := json.Unmarshal(body, &env); err == nil && env.Error != nil && env.Error.Message != "" {
		var b strings.Builder
		fmt.Fprintf(&b, "the server answered %d: %s", res.StatusCode, env.Error.Message)
		for _, d := range env.Error.Details {
			fmt.Fprintf(&b, "; %s: %s", d.Field, d.Issue)
		}
		return b.String()
	}
	text := strings.TrimSpace(string(bytes.ToValidUTF8(body, nil)))
	if len(text) > 200 {
		text = text[:200] + "..."
	}
	if text == "" {
		return fmt.Sprintf("the server answered %s", res.Status)
	}
	return fmt.Sprintf("the server answered %s: %s", res.Status, text)
}

// redactedURL is raw without the password of its user part; a URL that does not parse is withheld
// whole, as it may hold one.
func redactedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(withheld: it does not parse, and may hold a password)"
	}
	return u.Redacted()
}

// shownURL is redactedURL quoted, for a message.
func shownURL(raw string) string { return strconv.Quote(redactedURL(raw)) }

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// sseEvent is one dispatched Server-Sent Event.
type sseEvent struct {
	id    uint64
	hasID bool
	event string
	data  string
}

// sseParser is a Server-Sent Events line parser (the WHATWG event-stream format, lines already
// split): fields id, event, data (repeated lines joined with \n) and retry; comment lines start
// with a colon; a blank line dispatches the event.
type sseParser struct {
	id      string
	hasID   bool
	event   string
	data    strings.Builder
	hasData bool
	// retry is the last reconnection delay the stream asked for.
	retry time.Duration
}

// line takes one line and returns the event a blank line dispatches.
func (p *sseParser) line(l string) (sseEvent, bool) {
	if l == "" {
		return p.dispatch()
	}
	if strings.HasPrefix(l, ":") {
		return sseEvent{}, false // comment (heartbeat)
	}
	field, value, found := strings.Cut(l, ":")
	if found {
		value = strings.TrimPrefix(value, " ")
	}
	switch field {
	case "id":
		if !strings.ContainsRune(value, 0) {
			p.id, p.hasID = value, true
		}
	case "event":
		p.event = value
	case "data":
		if p.hasData {
			p.data.WriteByte('\n')
		}
		p.data.WriteString(value)
		p.hasData = true
	case "retry":
		if n, err := strconv.ParseUint(value, 10, 32); err == nil {
			p.retry = time.Duration(n) * time.Millisecond
		}
	}
	return sseEvent{}, false
}

func (p *sseParser) dispatch() (sseEvent, bool) {
	defer func() {
		p.event, p.hasData, p.hasID = "", false, false
		p.data.Reset()
	}()
	ev := sseEvent{event: p.event, data: p.data.String()}
	ev.event = cmp.Or(ev.event, "message")
	if p.hasID {
		if n, err := strconv.ParseUint(p.id, 10, 64); err == nil {
			ev.id, ev.hasID = n, true
		}
	}
	if !p.hasData && !ev.hasID {
		return sseEvent{}, false
	}
	return ev, true
}
