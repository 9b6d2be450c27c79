package api

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
)

// Stream defaults.
const (
	// DefaultHeartbeat is how often an idle /v1/transitions stream sends a comment line, so that
	// proxies and load balancers do not close it and clients notice a dead connection.
	DefaultHeartbeat = 15 * time.Second
	// sseRetry is the reconnection delay the stream suggests to EventSource clients.
	sseRetry = 2 * time.Second
	// sseBuffer is how many messages the log's reader may run ahead of the writer.
	sseBuffer = 256
)

// SSE event names. Each kind of record a stream carries has its own name, so a client that
// listens for "transition" only is not disturbed by poison events (nor by names added later).
const (
	sseEventTransition = "transition"
	// ssePoison is a message a worker gave up on (domain.MessagePoisoned, in the poison stream).
	ssePoison = "poison"
	// sseRateLimit is a rate limit an upstream call met (domain.RateLimitEncountered and its
	// siblings, in the rate-limit stream).
	sseRateLimit = "ratelimit"
	// sseAction is an operator's action on a job that changes no status (a cancel racing a
	// transaction in flight, a retry made due now, an ended job retried as a new one); the
	// actions that do change it (JobCancelled, the new job's RequestAccepted) are transitions.
	sseAction = "action"
	// sseSigner is an event of a signing key's stream (domain.SignerStream): the balance guard's
	// pause and resumption, and the corrections of the key's nonces.
	sseSigner = "signer"
)

// sseMessage is one Server-Sent Event: its id (a global position), its name and its one-line
// JSON data.
type sseMessage struct {
	id    eventstore.Position
	event string
	data  []byte
}

// Transition is the data of a "transition" event of GET /v1/transitions: the wire shape that
// clients (relayer watch among them) decode, and the body of every webhook delivery.
type Transition = projections.Transition

// Poisoned is the data of a "poison" event of GET /v1/transitions: a message a worker's handler
// gave up on for good (domain.MessagePoisoned). The SSE id is the poison record's own global
// position; Position is that of the event the message carried.
type Poisoned struct {
	// JobID is the job whose event was poisoned; omitted when the event was not a request's.
	JobID   string `json:"jobId,omitempty"`
	Topic   string `json:"topic"`
	Handler string `json:"handler"`
	Reason  string `json:"reason"`
	// EventType and Position are the poisoned event's type and global position, when the
	// message carried an event of the log.
	EventType string    `json:"eventType,omitempty"`
	Position  uint64    `json:"position,omitempty"`
	MessageID string    `json:"messageId"`
	At        time.Time `json:"at"`
}

// RateLimit is the data of a "ratelimit" event of GET /v1/transitions: a rate limit one of the
// relayer's upstream calls met (the gateway chain's JSON-RPC node, say), as recorded in the log's
// rate-limit stream: EventType is RateLimitEncountered, RateLimitBackoff, RateLimitRecovered or
// RateLimitGaveUp, Position the record's global position (also the SSE id), and the rest the
// event's own fields (domain.RateLimitCall). It names the upstream by scheme and host only.
type RateLimit struct {
	EventType string `json:"eventType"`
	Position  uint64 `json:"position"`
	domain.RateLimitCall
}

// Action is the data of an "action" event of GET /v1/transitions: an operator's action on a job
// that changes no status (CancelRequested, RetryRequested, JobRetried), with who (the admin
// token's identity, never the token) and why. Status is the job's status, which it stays in.
type Action struct {
	JobID     string    `json:"jobId"`
	Kind      string    `json:"kind"`
	Status    string    `json:"status,omitempty"`
	EventType string    `json:"eventType"`
	Who       string    `json:"who"`
	Reason    string    `json:"reason"`
	At        time.Time `json:"at"`
	Version   int64     `json:"version"`
	Position  uint64    `json:"position"`
	// TxHash is the transaction a cancel races (CancelRequested); NewJobID the job an ended
	// job was retried as (JobRetried).
	TxHash   string `json:"txHash,omitempty"`
	NewJobID string `json:"newJobId,omitempty"`
}

// Signer is the data of a "signer" event of GET /v1/transitions: an event of a signing key's
// stream (SignerPaused, SignerResumed, NonceCorrected), with the key's address, the record's
// global position (also the SSE id), and the event as the log holds it.
type Signer struct {
	Address   string          `json:"address"`
	EventType string          `json:"eventType"`
	Position  uint64          `json:"position"`
	Event     json.RawMessage `json:"event"`
}

// isAction tells the event types of the operator's actions that change no status.
func isAction(eventType string) bool {
	return eventType == "CancelRequested" || eventType == "RetryRequested" || eventType == "JobRetried"
}

// action turns such a record into an action event's data; ok is false when the record cannot be
// decoded or the kind filter drops it.
func (s *Server) action(ctx context.Context, id domain.JobID, rec eventstore.Record, filter transitionFilter, jobs *projections.Transitions) (Action, bool) {
	e, err := projections.DecodeEvent(s.codec, rec)
	if err != nil {
		s.skipUndecodable("an event", rec, err)
		return Action{}, false
	}
	k := jobs.Kind(id)
	if k.IsZero() {
		k = s.kindOf(ctx, id)
	}
	if filter.excludesKind(k) {
		return Action{}, false
	}
	a := Action{JobID: id.String(), Kind: k.String(), EventType: rec.Type, At: e.Header().At, Version: int64(rec.Version), Position: uint64(rec.Position)}
	switch e := e.(type) {
	case domain.CancelRequested:
		a.Who, a.Reason, a.TxHash, a.Status = e.Who, e.Reason, e.TxHash, domain.TxInFlight.String()
	case domain.RetryRequested:
		a.Who, a.Reason, a.Status = e.Who, e.Reason, e.From.String()
	case domain.JobRetried:
		a.Who, a.Reason, a.NewJobID = e.Who, e.Reason, e.NewJobID.String()
	}
	return a, true
}

// transitionFilter selects transitions by the job's kind and the status entered; an empty set
// lets everything through. Poison events pass the status filter (they enter no status) and the
// kind filter unless their job's kind is known and not among kinds; noPoison drops them all.
// Rate-limit events belong to no job and pass both filters; noRateLimit drops them all.
type transitionFilter struct {
	// kinds and statuses are sets of ordinals (bit i for ordinal i); zero means any.
	kinds, statuses                           uint32
	noPoison, noRateLimit, noAction, noSigner bool
}

func (f *transitionFilter) match(k domain.Kind, to domain.Status) bool {
	return (f.kinds == 0 || (!k.IsZero() && f.kinds&(1<<k.Ordinal()) != 0)) &&
		(f.statuses == 0 || (!to.IsZero() && f.statuses&(1<<to.Ordinal()) != 0))
}

// excludesKind reports whether the kind filter drops jobs of kind k; an unknown kind (the zero
// Kind) is never dropped.
func (f *transitionFilter) excludesKind(k domain.Kind) bool {
	return f.kinds != 0 && !k.IsZero() && f.kinds&(1<<k.Ordinal()) == 0
}

func (s *Server) heartbeatFor(r *http.Request) time.Duration {
	if d := tuningOf(r.Context()).heartbeat; d > 0 {
		return d
	}
	return DefaultHeartbeat
}

// transitions answers GET /v1/transitions: a Server-Sent Events stream of every transition (a
// request event that changes the job's status), one "transition" event each, of every poisoned
// message (a record of the poison stream), one "poison" event each, and of every rate limit an
// upstream call met (a record of the rate-limit stream), one "ratelimit" event each, and of every
// operator's action that changes no status (Action), one "action" event each, and of every event
// of a signing key's stream (Signer), one "signer" event each, with the record's global position
// as the SSE id, in the log's order. A stream that starts below the jobs retired to the archive
// (Set.RetiredUpTo) begins with an "archived" event, without an id, whose data {"upTo":
// position} says that the transitions of the jobs retired at or below it are not in the stream.
//
// Query: kind and status filter by the job's kind and by the status entered (comma-separated
// lists, or the parameter repeated); poison=false leaves out the poison events, ratelimit=false
// the rate-limit events, action=false the action events, signer=false the signer events. A poison or action event passes any
// status filter, and the kind filter unless its job's kind is known and not asked for; a
// rate-limit event passes both. An unknown value, an empty item in a list and a parameter the
// stream does not take are refused with 400 validation_failed naming the parameter. The stream starts after a position:
// the Last-Event-ID header (what an EventSource sends when it reconnects), else the after or from
// query parameter (for curl; both mean "after this position", so from=0 replays the whole log),
// else the log's head (live only).
// It follows the store's subscription from there, so a resumed stream has no gap and no
// duplicate. An idle stream sends a ": heartbeat" comment every DefaultHeartbeat. It ends when
// the client goes away, when the server shuts down (the request's context ends) or when the
// store fails.
func (s *Server) transitions(w http.ResponseWriter, r *http.Request) {
	filter, issues := parseTransitionFilter(r)
	after, source, issue := parseResumePosition(r)
	if issue != nil {
		issues = append(issues, *issue)
	}
	if len(issues) > 0 {
		writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, "invalid stream parameters", issues)
		return
	}
	if r.Method == http.MethodHead {
		// A HEAD (the GET route answers it too) gets the stream's headers, not an endless body.
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	head, err := s.store.Head(ctx)
	if err != nil {
		s.log.Error("transitions: read the log's head", "request_id", requestID(w), "err", err)
		writeError(w, r, http.StatusInternalServerError, labelInternal, "the event store cannot be read", nil)
		return
	}
	switch {
	case after == nil:
		after = &head
	case *after > head:
		// A position this log never reached: a client of another store, or a log rebuilt
		// shorter. Waiting for it would wait without saying so.
		writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, "invalid stream parameters", []domain.FieldIssue{{
			Field: source, Issue: fmt.Sprintf("is position %d, beyond the log's head %d: resume from a position this log has", *after, head)}})
		return
	}
	release, wait := s.streams.open(s.limiter.AddressKey(r), s.cfg.Streams)
	if release == nil {
		setRetryAfter(w, int(wait/time.Second))
		writeError(w, r, http.StatusTooManyRequests, labelRateLimited,
			fmt.Sprintf("too many open streams (at most %d, %d per client); try again in %d s", s.cfg.Streams.MaxOpen, s.cfg.Streams.MaxPerClient, int(wait/time.Second)), nil)
		return
	}
	defer release()

	rc := http.NewResponseController(w)
	// A stream lives long: the server's write timeout must not cut it; each write has its own
	// deadline instead, so a client that stops reading gives its stream up.
	writeTimeout := s.cfg.Streams.WriteTimeout
	_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprintf(w, "retry: %d\n\n", sseRetry.Milliseconds()); err != nil {
		return
	}
	if upTo := s.set.RetiredUpTo(); *after < upTo {
		// The live log no longer holds the retired jobs' transitions: say so before the rest,
		// with no id (a client resuming goes on from its own last id).
		if _, err := fmt.Fprintf(w, "event: archived\ndata: {\"upTo\":%d}\n\n", upTo); err != nil {
			return
		}
	}
	if err := rc.Flush(); err != nil {
		return
	}

	msgs := make(chan sseMessage, sseBuffer)
	done := make(chan error, 1)
	go func() { done <- s.followTransitions(ctx, *after, filter, msgs) }()
	defer func() {
		cancel()
		<-done // the reader ends with ctx: no goroutine outlives the handler
	}()

	tick := time.NewTicker(s.heartbeatFor(r))
	defer tick.Stop()
	var buf []byte
	for {
		select {
		case <-ctx.Done():
			return
		case err := <-done:
			// The reader stopped on its own: the store failed (or closed). Send what it read
			// before it stopped; the client resumes after the last id it got.
			done <- err // let the deferred wait see it
			if err != nil && ctx.Err() == nil {
				s.log.Warn("transitions stream ended: the log cannot be read", "request_id", requestID(w), "err", err)
			}
			buf = buf[:0]
			for len(msgs) > 0 {
				buf = appendSSE(buf, <-msgs)
			}
			if len(buf) > 0 && ctx.Err() == nil {
				if _, err := w.Write(buf); err == nil {
					_ = rc.Flush()
				}
			}
			return
		case m := <-msgs:
			buf = appendSSE(buf[:0], m)
			// Write what else is ready in the same flush.
			for more := true; more && len(buf) < 64<<10; {
				select {
				case m := <-msgs:
					buf = appendSSE(buf, m)
				default:
					more = false
				}
			}
			_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
			if _, err := w.Write(buf); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		case <-tick.C:
			_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
			if _, err := w.Write([]byte(": heartbeat\n\n")); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
	}
}

func appendSSE(b []byte, m sseMessage) []byte {
	b = append(b, "id: "...)
	b = strconv.AppendUint(b, uint64(m.id), 10)
	b = append(b, "\nevent: "...)
	b = append(b, m.event...)
	b = append(b, "\ndata: "...)
	b = append(b, m.data...) // one line: encoding/json escapes every newline
	return append(b, "\n\n"...)
}

// followTransitions reads the log after position after and sends the transitions, poison and
// rate-limit events filter lets through to out, until ctx ends (it then returns nil) or the
// store fails.
//
// The kind of a job comes from its RequestAccepted when the stream saw it, else from the
// projections, else from the first event of the job's stream in the store. The stream keeps the
// kind and last status of each job it has seen until the job ends, so it can say which status a
// transition left (From); a job first seen mid-life has no From on that first transition.
func (s *Server) followTransitions(ctx context.Context, after eventstore.Position, filter transitionFilter, out chan<- sseMessage) error {
	jobs := projections.NewTransitions(s.codec, func(ctx context.Context, id domain.JobID, _ eventstore.Version) (domain.Kind, domain.Status, error) {
		return s.kindOf(ctx, id), domain.Status{}, nil
	})
	for rec, err := range s.store.SubscribeAll(ctx, after) {
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if rec.Stream == domain.RateLimitStream {
			if filter.noRateLimit {
				continue
			}
			if msg, ok := s.rateLimited(rec); ok {
				if sent, err := emit(ctx, out, rec.Position, sseRateLimit, msg); !sent {
					return err
				}
			}
			continue
		}
		if rec.Stream == domain.PoisonStream {
			if filter.noPoison {
				continue
			}
			if msg, ok := s.poisoned(ctx, rec, filter, jobs); ok {
				if sent, err := emit(ctx, out, rec.Position, ssePoison, msg); !sent {
					return err
				}
			}
			continue
		}
		if address, isSigner := strings.CutPrefix(rec.Stream, domain.SignerStreamPrefix); isSigner {
			if filter.noSigner {
				continue
			}
			if err := eventstore.CheckData(rec); err != nil {
				return err // the data goes out as it is stored
			}
			msg := Signer{Address: address, EventType: rec.Type, Position: uint64(rec.Position), Event: rec.Data}
			if sent, err := emit(ctx, out, rec.Position, sseSigner, msg); !sent {
				return err
			}
			continue
		}
		if id, isJob := domain.JobIDFromStream(rec.Stream); isJob && isAction(rec.Type) {
			if filter.noAction {
				continue
			}
			if msg, ok := s.action(ctx, id, rec, filter, jobs); ok {
				if sent, err := emit(ctx, out, rec.Position, sseAction, msg); !sent {
					return err
				}
			}
			continue
		}
		// Other system streams (configuration, webhooks, checkpoints) have no transitions.
		msg, ok, err := jobs.Next(ctx, rec)
		if err != nil {
			// The projections stop on such a record; the stream shows what it can read.
			s.skipUndecodable("an event", rec, err)
			continue
		}
		if !ok {
			continue
		}
		k, _ := domain.ParseKind(msg.Kind)
		to, _ := domain.ParseStatus(msg.To)
		if !filter.match(k, to) {
			continue
		}
		if sent, err := emit(ctx, out, rec.Position, sseEventTransition, msg); !sent {
			return err
		}
	}
	return nil
}

// emit sends msg, as JSON, to out as an event of the stream at position pos. It reports false
// when the stream must end: msg could not be encoded (err) or ctx ended (nil).
func emit(ctx context.Context, out chan<- sseMessage, pos eventstore.Position, event string, msg any) (bool, error) {
	data, err := json.Marshal(msg)
	if err != nil {
		return false, err
	}
	select {
	case out <- sseMessage{id: pos, event: event, data: data}:
		return true, nil
	case <-ctx.Done():
		return false, nil
	}
}

// poisoned turns a record of the poison stream into a poison event's data; ok is false when the
// record cannot be decoded or the kind filter drops it. jobs is followTransitions' knowledge of
// the jobs it saw, read only: a poison event changes no status.
func (s *Server) poisoned(ctx context.Context, rec eventstore.Record, filter transitionFilter, jobs *projections.Transitions) (Poisoned, bool) {
	p, ok := decodeAs[domain.MessagePoisoned](s, rec, "a poison record")
	if !ok {
		return Poisoned{}, false
	}
	msg := Poisoned{Topic: p.Topic, Handler: p.Handler, Reason: p.Reason, EventType: p.Type,
		Position: p.Position, MessageID: p.MessageID, At: p.At}
	if id, ok := domain.JobIDFromStream(p.Stream); ok {
		msg.JobID = id.String()
		if filter.kinds != 0 {
			k := jobs.Kind(id)
			if k.IsZero() {
				k = s.kindOf(ctx, id)
			}
			if filter.excludesKind(k) {
				return Poisoned{}, false
			}
		}
	}
	return msg, true
}

// rateLimited turns a record of the rate-limit stream into a ratelimit event's data; ok is false
// when the record cannot be decoded.
func (s *Server) rateLimited(rec eventstore.Record) (RateLimit, bool) {
	e, ok := decodeAs[domain.RateLimitEvent](s, rec, "a rate-limit record")
	if !ok {
		return RateLimit{}, false
	}
	return RateLimit{EventType: e.EventType(), Position: uint64(rec.Position), RateLimitCall: e.Call()}, true
}

// decodeAs decodes rec, a record of a system stream, as a T; ok is false when it does not
// decode or is not a T, and the transitions stream skips it with a warning (what names the
// record in it).
func decodeAs[T any](s *Server, rec eventstore.Record, what string) (T, bool) {
	v, err := s.codec.Decode(rec)
	e, ok := v.(T)
	if err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("a %s record in the %s stream", rec.Type, rec.Stream)
		}
		s.skipUndecodable(what, rec, err)
		var zero T
		return zero, false
	}
	return e, true
}

// skipUndecodable logs that the transitions stream skips rec, which this build cannot decode
// (what names the record: "an event", "a poison record").
func (s *Server) skipUndecodable(what string, rec eventstore.Record, err error) {
	s.log.Warn("transitions: skip "+what+" this build cannot decode",
		"stream", rec.Stream, "version", int64(rec.Version), "position", uint64(rec.Position), "err", err)
}

// kindOf returns the kind of job id: from the projections, or, when they do not hold the job yet,
// from the job's first event in the store. The zero Kind when neither knows it.
func (s *Server) kindOf(ctx context.Context, id domain.JobID) domain.Kind {
	if j, ok := s.set.Job(id); ok {
		return j.Kind
	}
	for rec, err := range s.store.ReadStream(ctx, id.Stream(), 0) {
		if err != nil {
			return domain.Kind{}
		}
		if e, err := projections.DecodeEvent(s.codec, rec); err == nil {
			if a, ok := e.(domain.RequestAccepted); ok {
				return a.Kind
			}
		}
		break
	}
	return domain.Kind{}
}

// transitionParams are the query parameters GET /v1/transitions takes; any other is refused.
var transitionParams = []string{"kind", "status", "poison", "ratelimit", "action", "signer", "after", "from"}

// parseTransitionFilter reads the kind, status, poison, ratelimit, action and signer query
// parameters, and refuses a parameter the stream does not take.
func parseTransitionFilter(r *http.Request) (transitionFilter, []domain.FieldIssue) {
	q := r.URL.Query()
	var f transitionFilter
	issues := unknownParams(q, transitionParams)
	kinds, statuses, more := parseKindsAndStatuses(q)
	issues = append(issues, more...)
	for _, k := range kinds {
		f.kinds |= 1 << k.Ordinal()
	}
	for _, st := range statuses {
		f.statuses |= 1 << st.Ordinal()
	}
	for _, p := range []struct {
		name string
		drop *bool
	}{{"poison", &f.noPoison}, {"ratelimit", &f.noRateLimit}, {"action", &f.noAction}, {"signer", &f.noSigner}} {
		if v := strings.TrimSpace(q.Get(p.name)); v != "" {
			send, err := strconv.ParseBool(v)
			if err != nil {
				issues = append(issues, domain.FieldIssue{Field: p.name, Issue: fmt.Sprintf("must be true or false, got %q", v)})
			}
			*p.drop = !send
		}
	}
	return f, issues
}

// unknownParams names each parameter of q that is not one of known, in name order.
func unknownParams(q url.Values, known []string) []domain.FieldIssue {
	var issues []domain.FieldIssue
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if !slices.Contains(known, name) {
			issues = append(issues, domain.FieldIssue{Field: name, Issue: fmt.Sprintf("is not a parameter of this route (known: %s)", strings.Join(known, ", "))})
		}
	}
	return issues
}

// parseKindsAndStatuses reads the kind and status filters of a query (comma-separated lists, or
// the parameter repeated), naming each unknown value.
func parseKindsAndStatuses(q url.Values) ([]domain.Kind, []domain.Status, []domain.FieldIssue) {
	kinds, issues := parseNamed(q, "kind", domain.ParseKind, domain.Kinds())
	statuses, more := parseNamed(q, "status", domain.ParseStatus, domain.Statuses())
	return kinds, statuses, append(issues, more...)
}

// parseNamed reads the values of the query parameter param (comma-separated lists, or the
// parameter repeated) with parse; each value parse refuses is an issue that lists every known
// value, all, and so is an empty item (kind=, or kind=a,,b), which a client that meant every value
// leaves the parameter out for.
func parseNamed[T fmt.Stringer](q url.Values, param string, parse func(string) (T, error), all []T) ([]T, []domain.FieldIssue) {
	var out []T
	var issues []domain.FieldIssue
	empty := false
	for _, v := range q[param] {
		for item := range strings.SplitSeq(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				empty = true
				continue
			}
			x, err := parse(item)
			if err != nil {
				issues = append(issues, domain.FieldIssue{Field: param, Issue: fmt.Sprintf("unknown %s %q (want one of %s)", param, item, joinNames(all))})
				continue
			}
			out = append(out, x)
		}
	}
	if empty {
		issues = append(issues, domain.FieldIssue{Field: param, Issue: fmt.Sprintf("has an empty item: give %s names separated by commas, or leave %s out for every one", param, param)})
	}
	return out, issues
}

// joinNames joins the names of all, in order, with ", ".
func joinNames[T fmt.Stringer](all []T) string {
	names := make([]string, len(all))
	for i, x := range all {
		names[i] = x.String()
	}
	return strings.Join(names, ", ")
}

// parseResumePosition reads where a stream starts: after the Last-Event-ID header, else the
// after query parameter, else from; nil when none is given. source names where it came from.
func parseResumePosition(r *http.Request) (*eventstore.Position, string, *domain.FieldIssue) {
	for _, src := range []struct{ name, value string }{
		{"Last-Event-ID", r.Header.Get("Last-Event-ID")},
		{"after", r.URL.Query().Get("after")},
		{"from", r.URL.Query().Get("from")},
	} {
		v := strings.TrimSpace(src.value)
		if v == "" {
			continue
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return nil, src.name, &domain.FieldIssue{Field: src.name, Issue: "must be a global position: a whole number, 0 or more"}
		}
		p := eventstore.Position(n)
		return &p, src.name, nil
	}
	return nil, "", nil
}

// streamSlots counts the open streams, in all and per client.
type streamSlots struct {
	mu       sync.Mutex
	total    int
	byClient map[string]int
}

// streamRetry is the Retry-After of a refused stream: streams end when clients go, not on a
// schedule, so this is a polite pause rather than a promise.
const streamRetry = 5 * time.Second

// open takes a slot for client under cfg's caps and returns its release, or nil and how long to
// wait.
func (l *streamSlots) open(client string, cfg StreamsConfig) (func(), time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byClient == nil {
		l.byClient = map[string]int{}
	}
	if l.total >= cfg.MaxOpen || l.byClient[client] >= cfg.MaxPerClient {
		return nil, streamRetry
	}
	l.total++
	l.byClient[client]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.total--
			if l.byClient[client]--; l.byClient[client] <= 0 {
				delete(l.byClient, client)
			}
		})
	}, 0
}
