package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"relayer/api/ratelimit"
	"relayer/domain"
	"relayer/eventstore"
)

// Labels of the admin API's refusals.
const (
	labelForbidden    = "forbidden"
	labelUnauthorized = "unauthorized"
)

// maxAdminBody bounds a POST /admin/config body.
const maxAdminBody = 64 << 10

// adminRoutes are the runtime configuration endpoints, behind the bearer token.
func (s *Server) adminRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Pattern: "/admin/config", Name: "list runtime parameters", handler: s.admin(s.getConfig)},
		{Method: http.MethodPost, Pattern: "/admin/config", Name: "change a runtime parameter", handler: s.admin(s.postConfig)},
		{Method: http.MethodGet, Pattern: "/admin/config/changes", Name: "runtime parameter changes", handler: s.admin(s.configChanges)},
	}
}

// maxConfigChanges is how many changes GET /admin/config/changes lists at most: the newest.
const maxConfigChanges = 200

// configChanges answers GET /admin/config/changes: the newest changes of the runtime parameters,
// newest first, each as POST /admin/config recorded it (who, old, new, when, its version in the
// config stream), read from the log.
func (s *Server) configChanges(w http.ResponseWriter, r *http.Request) {
	var changes []configChange
	for rec, err := range s.store.ReadStream(r.Context(), domain.ConfigStream, 0) {
		if err != nil {
			if r.Context().Err() != nil {
				return
			}
			s.internalError(w, r, "read the config stream", err)
			return
		}
		e, err := s.codec.Decode(rec)
		if err != nil {
			s.internalError(w, r, "decode a config change", err)
			return
		}
		c, ok := e.(domain.ConfigChanged)
		if !ok {
			continue
		}
		changes = append(changes, configChange{ConfigChanged: c, Version: int64(rec.Version)})
		if len(changes) > 2*maxConfigChanges {
			changes = append(changes[:0], changes[len(changes)-maxConfigChanges:]...)
		}
	}
	if len(changes) > maxConfigChanges {
		changes = changes[len(changes)-maxConfigChanges:]
	}
	slices.Reverse(changes)
	writeEnvelope(w, r, http.StatusOK, statusSucceeded, struct {
		Changes []configChange `json:"changes"`
	}{Changes: append([]configChange{}, changes...)})
}

// admin puts h behind the admin token: 403 forbidden when the admin API is off (no token
// configured), 401 unauthorized without the right "Authorization: Bearer <token>". The token is
// compared by its SHA-256 in constant time, and never logged.
func (s *Server) admin(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.adminOn {
			writeError(w, r, http.StatusForbidden, labelForbidden, "the admin API is off: no admin token is configured", nil)
			return
		}
		if s.bearerGate(w, r, "admin", s.adminDigest) {
			h(w, r)
		}
	}
}

// operator puts h (an audit endpoint) behind the operator token, or the admin token, unless the
// audit endpoints are open (AuditOpen): 403 forbidden when neither token is configured, 401
// without a right one. Refusals are logged and slow their client down as the admin's do.
func (s *Server) operator(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.AuditOpen {
			h(w, r)
			return
		}
		var digests [][sha256.Size]byte
		if s.operatorOn {
			digests = append(digests, s.operatorDigest)
		}
		if s.adminOn {
			digests = append(digests, s.adminDigest)
		}
		if len(digests) == 0 {
			writeError(w, r, http.StatusForbidden, labelForbidden,
				"the audit endpoints are closed: configure an operator token (operator_token), or api.audit_open for a development stack", nil)
			return
		}
		if s.bearerGate(w, r, "operator", digests...) {
			h(w, r)
		}
	}
}

// bearerGate reports whether r carries "Authorization: Bearer <token>" with a token whose
// SHA-256 is one of digests (compared in constant time). Otherwise it has answered: 429 while the
// client is blocked for refused requests, else 401 naming the realm; the refusal is counted and
// logged, never the token. A valid token always gets through, even from a blocked address: the
// block slows guessing down (which 32-byte tokens make hopeless anyway), and must not let whoever
// shares the operator's address (a NAT, a proxy) lock the operator out.
func (s *Server) bearerGate(w http.ResponseWriter, r *http.Request, realm string, digests ...[sha256.Size]byte) bool {
	client := s.limiter.AddressKey(r)
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	given := sha256.Sum256([]byte(strings.TrimSpace(token)))
	match := 0
	for _, d := range digests {
		match |= subtle.ConstantTimeCompare(given[:], d[:])
	}
	if strings.EqualFold(scheme, "Bearer") && match == 1 {
		s.adminFails.succeed(client)
		return true
	}
	if s.refusedTooOften(w, r, &s.adminFails, client) {
		return false
	}
	if wait := s.noteRefusal(w, r, &s.adminFails, client, realm+": refused a request without a valid "+realm+" token"); wait > 0 {
		writeRefusedTooOften(w, r, wait)
		return false
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="relayer `+realm+`"`)
	writeError(w, r, http.StatusUnauthorized, labelUnauthorized, "a valid "+realm+" token is required (Authorization: Bearer <token>)", nil)
	return false
}

// refusedTooOften answers 429 rate_limited with Retry-After while client is blocked for its
// refused requests (tokens, API keys), and reports whether it did.
func (s *Server) refusedTooOften(w http.ResponseWriter, r *http.Request, fails *refusals, client string) bool {
	wait := fails.blocked(client, s.now())
	if wait <= 0 {
		return false
	}
	writeRefusedTooOften(w, r, wait)
	return true
}

// writeRefusedTooOften answers 429 rate_limited with Retry-After for a client blocked for wait.
func writeRefusedTooOften(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	sec := int(math.Ceil(wait.Seconds()))
	setRetryAfter(w, sec)
	// The inbound limiter's 429 shape (retryAfterMs beside the error), as on every route.
	writeJSON(w, http.StatusTooManyRequests, ratelimit.DeniedBody{
		Status: statusFailed, RequestID: requestID(w), RetryAfterMs: sec * 1000,
		Error: ratelimit.DeniedError{Label: labelRateLimited,
			Message: fmt.Sprintf("too many refused requests from this client; try again in %d s", sec)},
	})
}

// noteRefusal counts a refused request of client and logs it: who, where, how often; never the
// credential. It returns the block the refusal starts (0: none): the request is then answered as
// the blocked ones after it are, 429 with that Retry-After (writeRefusedTooOften), from this
// value rather than from a second look, which a success from the same address could have
// cleared meanwhile.
func (s *Server) noteRefusal(w http.ResponseWriter, r *http.Request, fails *refusals, client, msg string) time.Duration {
	n, wait := fails.fail(client, s.now())
	s.log.Warn(msg, "client", client, "method", r.Method, "path", r.URL.Path, "failures", n, "blocked_for", wait, "request_id", requestID(w))
	return wait
}

// configList is GET /admin/config's result.
type configList struct {
	Params []paramView `json:"params"`
	// Version is the config stream's version this server has applied (-1: no change yet).
	Version int64 `json:"version"`
	// Adaptive shows, for each parameter the adaptive mode may replace, the nominal value
	// against the observed one and which is in force.
	Adaptive adaptiveView `json:"adaptive"`
}

func (s *Server) getConfig(w http.ResponseWriter, r *http.Request) {
	s.adminMu.Lock()
	ver := s.config.Version
	s.adminMu.Unlock()
	rc := s.runtime()
	writeEnvelope(w, r, http.StatusOK, statusSucceeded, configList{Params: rc.params(), Version: int64(ver), Adaptive: s.adaptiveView(rc)})
}

// configChange is POST /admin/config's result: the change as recorded (its fields inline), and
// the config stream's version after it. Unchanged says that the value asked was already in force
// and recorded in the config stream: nothing was recorded, and who and at are then the request's.
type configChange struct {
	domain.ConfigChanged
	Version   int64 `json:"version"`
	Unchanged bool  `json:"unchanged,omitempty"`
}

// postConfig changes one runtime parameter: {"param": name, "value": v}. v is a number for the
// Retry-After, load-shedding and rate-limit parameters, true/false for retry_after_adaptive, and
// an array of {"elapsed_ms","retry_seconds"} for receipt_backoff. The change is validated,
// appended to the config stream as ConfigChanged (with the stream's expected version; on a
// conflict the server folds the changes it missed and decides again), and then applied at once. A
// value already in force and recorded is answered as it is, and nothing is recorded.
func (s *Server) postConfig(w http.ResponseWriter, r *http.Request) {
	name, value, ok := s.readChange(w, r)
	if !ok {
		return
	}
	// The append and the fold go on if the client hangs up or the server starts shutting down:
	// a change is recorded and applied whole, or not at all.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), writeTimeout)
	defer cancel()
	s.adminMu.Lock()
	defer s.adminMu.Unlock()
	// The changes this instance has not folded yet (another instance's) first: whether the value
	// asked is already in force is decided on the stream as it is, since deciding that appends
	// nothing that a stale version would make conflict.
	if err := s.foldConfig(ctx); err != nil {
		s.internalError(w, r, "read the config stream", err)
		return
	}
	var change domain.ConfigChanged
	// On a conflict (another instance changed the configuration) Update folds the changes this
	// instance missed and decides again.
	pos, err := eventstore.Update(ctx, s.store, s.codec, domain.ConfigStream, &s.config, s.foldChange,
		func(cur *runtimeConfig) ([]eventstore.Typed, error) {
			_, old, nw, err := cur.with(name, value)
			if err != nil {
				return nil, err
			}
			change = domain.ConfigChanged{Param: name, Old: old, New: nw, Who: s.adminWho, At: s.now().UTC()}
			if bytes.Equal(old, nw) && cur.recorded[name] == string(nw) {
				// In force and recorded: every instance of a fleet has it. A value in force
				// only from this instance's own start settings is recorded, so that it
				// reaches the others.
				return nil, nil
			}
			return []eventstore.Typed{change}, nil
		}, eventstore.Metadata{CorrelationID: requestID(w), CausationID: requestID(w)}, nil, 5)
	// Whatever became of this change, the changes folded while deciding it (another instance's)
	// are in force from now.
	s.installFolded()
	var pe *paramError
	switch {
	case errors.As(err, &pe):
		msg := fmt.Sprintf("invalid value for %s", name)
		if pe.unknown {
			msg = fmt.Sprintf("unknown parameter %s", name)
		}
		writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, msg, pe.issues)
		return
	case err != nil:
		s.internalError(w, r, "record the config change", err)
		return
	}
	unchanged := pos == 0
	if unchanged {
		s.log.Info("runtime parameter already in force, nothing recorded", "request_id", requestID(w), "param", name,
			"value", string(change.New), "who", s.adminWho)
	} else {
		s.log.Info("runtime parameter changed", "request_id", requestID(w), "param", name,
			"old", string(change.Old), "new", string(change.New), "who", s.adminWho)
	}
	writeEnvelope(w, r, http.StatusOK, statusSucceeded, configChange{ConfigChanged: change, Version: int64(s.config.Version), Unchanged: unchanged})
}

// readAdminBytes reads an admin request's body, at most maxAdminBody bytes; it answers 413 for a
// larger one and 400 for one that cannot be read.
func readAdminBytes(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAdminBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, r, http.StatusRequestEntityTooLarge, labelTooLarge, fmt.Sprintf("the request body exceeds %d bytes", maxAdminBody), nil)
		} else {
			writeError(w, r, http.StatusBadRequest, domain.LabelMalformedJSON, "the request body could not be read", nil)
		}
		return nil, false
	}
	return body, true
}

// readChange reads {"param": "...", "value": ...}, refusing malformed JSON, missing members and
// unknown ones (every unknown member is listed).
func (s *Server) readChange(w http.ResponseWriter, r *http.Request) (string, json.RawMessage, bool) {
	if !requireJSON(w, r) {
		return "", nil, false
	}
	body, ok := readAdminBytes(w, r)
	if !ok {
		return "", nil, false
	}
	var members map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&members); err != nil || members == nil || dec.More() {
		writeError(w, r, http.StatusBadRequest, domain.LabelMalformedJSON, `the body must be one JSON object: {"param": "<name>", "value": <value>}`, nil)
		return "", nil, false
	}
	if key, dup := duplicateMember(body); dup {
		writeError(w, r, http.StatusBadRequest, domain.LabelMalformedJSON, fmt.Sprintf("the member %q appears twice", key),
			[]domain.FieldIssue{{Field: key, Issue: "appears more than once"}})
		return "", nil, false
	}
	var missing, unknown []domain.FieldIssue
	for _, k := range []string{"param", "value"} {
		if v, ok := members[k]; !ok || string(bytes.TrimSpace(v)) == "null" {
			missing = append(missing, domain.FieldIssue{Field: k, Issue: "is required"})
		}
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		if k != "param" && k != "value" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		unknown = append(unknown, domain.FieldIssue{Field: k, Issue: `unknown field (the body takes "param" and "value")`})
	}
	if len(missing) > 0 {
		writeError(w, r, http.StatusBadRequest, domain.LabelMissingFields, "missing fields", missing)
		return "", nil, false
	}
	var name string
	if err := json.Unmarshal(members["param"], &name); err != nil || name == "" {
		unknown = append([]domain.FieldIssue{{Field: "param", Issue: "must be a parameter's name (a non-empty string)"}}, unknown...)
	}
	if len(unknown) > 0 {
		writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, "invalid request", unknown)
		return "", nil, false
	}
	return name, members["value"], true
}

// install makes next the runtime configuration in force.
func (s *Server) install(next *runtimeConfig) {
	prev := s.rt.Swap(next)
	if s.limiter != nil && (prev == nil || !sameRate(prev, next)) {
		if err := s.limiter.SetConfig(next.rate); err != nil {
			// Cannot happen: with() validated the whole rate-limit configuration.
			s.log.Error("rate limiter refused a validated configuration", "err", err)
		}
	}
}

func sameRate(a, b *runtimeConfig) bool {
	x, _ := json.Marshal(a.rate)
	y, _ := json.Marshal(b.rate)
	return bytes.Equal(x, y)
}

// restoreConfig folds the whole config stream at start: the changes made through the admin API
// before a restart apply again, on top of the configuration the server was started with.
func (s *Server) restoreConfig(ctx context.Context) error {
	s.adminMu.Lock()
	defer s.adminMu.Unlock()
	return s.foldConfig(ctx)
}

// followConfig applies the changes other instances sharing the log make to the runtime
// configuration while this one runs (DESIGN section 11): changes is signalled whenever the
// projections pass an event of the config stream, this instance's own included (which then folds
// nothing, being at that version already). It runs until ctx ends.
func (s *Server) followConfig(ctx context.Context, changes <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-changes:
		}
		s.adminMu.Lock()
		err := s.foldConfig(ctx)
		s.adminMu.Unlock()
		if err != nil && ctx.Err() == nil {
			// The next change, or the next admin call, folds it again.
			s.log.Warn("follow the runtime configuration changed by another instance", "err", err)
		}
	}
}

// foldConfig applies the config stream's changes this instance has not folded yet, and installs
// the result. s.adminMu is held.
func (s *Server) foldConfig(ctx context.Context) error {
	from := s.config.Version
	err := s.config.Catch(ctx, s.store, s.codec, domain.ConfigStream, s.foldChange)
	if s.installFolded() { // what was folded before a failure too
		s.log.Info("runtime configuration folded from the config stream", "changes", int64(s.config.Version-from), "version", int64(s.config.Version))
	}
	return err
}

// installFolded puts the configuration as folded from the config stream in force, if it is not
// already; it reports whether it did. s.adminMu is held.
func (s *Server) installFolded() bool {
	if s.config.State == s.runtime() {
		return false
	}
	s.install(s.config.State)
	return true
}

// foldChange applies one recorded change to cur. A change that does not apply any more (a
// parameter renamed, or a value the configuration the server was started with makes invalid) is
// logged and skipped.
func (s *Server) foldChange(cur *runtimeConfig, e eventstore.Typed) *runtimeConfig {
	ch, ok := e.(domain.ConfigChanged)
	if !ok {
		s.log.Warn("skipping an unexpected event in the config stream", "type", e.EventType())
		return cur
	}
	next, _, nw, err := cur.with(ch.Param, ch.New)
	if err != nil {
		s.log.Warn("skipping a recorded configuration change that no longer applies", "param", ch.Param, "value", string(ch.New), "err", err)
		return cur
	}
	next.recorded = maps.Clone(cur.recorded)
	if next.recorded == nil {
		next.recorded = map[string]string{}
	}
	next.recorded[ch.Param] = string(nw)
	return next
}

// duplicateMember returns the path of a member that appears twice in one object anywhere in
// body, a JSON value already known to be well formed ("value[0].retry_seconds"): encoding/json
// keeps the last silently, which would let a reviewer read one value in the body and the relayer
// apply another.
func duplicateMember(body []byte) (string, bool) {
	path, dup, _ := duplicateIn(json.NewDecoder(bytes.NewReader(body)), "")
	return path, dup
}

// duplicateIn reads the next value of dec, at path, and returns the path of its first repeated
// member.
func duplicateIn(dec *json.Decoder, path string) (string, bool, error) {
	t, err := dec.Token()
	if err != nil {
		return "", false, err
	}
	switch t {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return "", false, err
			}
			key, _ := t.(string)
			at := key
			if path != "" {
				at = path + "." + key
			}
			// encoding/json matches a struct's fields whatever the case: "A" and "a" are the same
			// member to it.
			folded := strings.ToLower(key)
			if seen[folded] {
				return at, true, nil
			}
			seen[folded] = true
			if at, dup, err := duplicateIn(dec, at); dup || err != nil {
				return at, dup, err
			}
		}
		_, err = dec.Token() // }
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if at, dup, err := duplicateIn(dec, fmt.Sprintf("%s[%d]", path, i)); dup || err != nil {
				return at, dup, err
			}
		}
		_, err = dec.Token() // ]
	}
	return "", false, err
}

// Refused credentials (admin and operator tokens, API keys) slow their client down: after
// adminFreeFailures in a row, each further one blocks the client for twice as long as the one
// before (1 s, 2 s, 4 s, ... up to adminMaxBlock), so that guessing takes forever while a
// mistyped token costs a second. A success clears the client's count; an entry idle for
// adminForget is dropped. A client is its address as the rate limits see it
// (ratelimit.Limiter.AddressKey: X-Forwarded-For read only from trusted_proxies, IPv6 by /64).
const (
	adminFreeFailures = 5
	adminMaxBlock     = 5 * time.Minute
	adminForget       = 15 * time.Minute
	adminMaxClients   = 10_000
)

// refusals counts the refused credentials of each client.
type refusals struct {
	mu      sync.Mutex
	clients map[string]*refusingClient
}

type refusingClient struct {
	fails int
	until time.Time // blocked until
	last  time.Time
}

// blocked returns how long client must still wait.
func (a *refusals) blocked(client string, now time.Time) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if c := a.clients[client]; c != nil && now.Before(c.until) {
		return c.until.Sub(now)
	}
	return 0
}

// fail counts a refused request of client and returns its count and the block it starts.
func (a *refusals) fail(client string, now time.Time) (int, time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.clients == nil {
		a.clients = map[string]*refusingClient{}
	}
	c := a.clients[client]
	if c == nil {
		if len(a.clients) >= adminMaxClients {
			for k, v := range a.clients {
				if now.Sub(v.last) > adminForget || len(a.clients) >= adminMaxClients {
					delete(a.clients, k)
				}
			}
		}
		c = &refusingClient{}
		a.clients[client] = c
	}
	if now.Sub(c.last) > adminForget {
		c.fails = 0
	}
	c.fails++
	c.last = now
	var block time.Duration
	if over := c.fails - adminFreeFailures; over > 0 {
		block = adminMaxBlock
		if over <= 20 {
			block = min(time.Second<<(over-1), adminMaxBlock)
		}
		c.until = now.Add(block)
	}
	return c.fails, block
}

func (a *refusals) succeed(client string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.clients, client)
}
