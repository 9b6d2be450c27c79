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
	"net/http"
	"sort"
	"strings"
	"time"

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
	}
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
		scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		given := sha256.Sum256([]byte(strings.TrimSpace(token)))
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(given[:], s.adminDigest[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="relayer admin"`)
			writeError(w, r, http.StatusUnauthorized, labelUnauthorized, "a valid admin token is required (Authorization: Bearer <token>)", nil)
			return
		}
		h(w, r)
	}
}

// configList is GET /admin/config's result.
type configList struct {
	Params []paramView `json:"params"`
	// Version is the config stream's version this server has applied (-1: no change yet).
	Version int64 `json:"version"`
}

func (s *Server) getConfig(w http.ResponseWriter, r *http.Request) {
	s.adminMu.Lock()
	ver := s.configVersion
	s.adminMu.Unlock()
	writeEnvelope(w, r, http.StatusOK, statusSucceeded, configList{Params: s.runtime().params(), Version: int64(ver)})
}

// configChange is POST /admin/config's result: the change as recorded.
type configChange struct {
	Param   string          `json:"param"`
	Old     json.RawMessage `json:"old"`
	New     json.RawMessage `json:"new"`
	Who     string          `json:"who"`
	At      time.Time       `json:"at"`
	Version int64           `json:"version"`
}

// postConfig changes one runtime parameter: {"param": name, "value": v}. v is a number for the
// Retry-After, load-shedding and rate-limit parameters, true/false for retry_after_adaptive, and
// an array of {"elapsed_ms","retry_seconds"} for receipt_backoff. The change is validated,
// appended to the config stream as ConfigChanged (with the stream's expected version; on a
// conflict the server folds the changes it missed and decides again), and then applied at once.
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
	for attempt := 0; ; attempt++ {
		cur := s.runtime()
		next, old, nw, err := cur.with(name, value)
		if err != nil {
			var pe *paramError
			if errors.As(err, &pe) {
				msg := fmt.Sprintf("invalid value for %s", name)
				if pe.unknown {
					msg = fmt.Sprintf("unknown parameter %s", name)
				}
				writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, msg, pe.issues)
				return
			}
			s.internalError(w, r, "change runtime parameter", err)
			return
		}
		at := s.now().UTC()
		ev, err := s.codec.Encode(domain.ConfigChanged{Param: name, Old: old, New: nw, Who: s.adminWho, At: at},
			eventstore.Metadata{CorrelationID: requestID(r), CausationID: requestID(r)})
		if err != nil {
			s.internalError(w, r, "encode config change", err)
			return
		}
		_, err = s.store.Append(ctx, domain.ConfigStream, s.configVersion, ev)
		if errors.Is(err, eventstore.ErrWrongExpectedVersion) && attempt < 5 {
			// Another instance changed the configuration: fold its changes, then decide again.
			if err := s.foldConfig(ctx); err != nil {
				s.internalError(w, r, "read config stream", err)
				return
			}
			continue
		}
		if err != nil {
			s.internalError(w, r, "append config change", err)
			return
		}
		s.configVersion++
		s.install(next)
		s.log.Info("runtime parameter changed", "request_id", requestID(r), "param", name,
			"old", string(old), "new", string(nw), "who", s.adminWho)
		writeEnvelope(w, r, http.StatusOK, statusSucceeded, configChange{Param: name, Old: old, New: nw, Who: s.adminWho, At: at, Version: int64(s.configVersion)})
		return
	}
}

// readChange reads {"param": "...", "value": ...}, refusing malformed JSON, missing members and
// unknown ones (every unknown member is listed).
func (s *Server) readChange(w http.ResponseWriter, r *http.Request) (string, json.RawMessage, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAdminBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, r, http.StatusRequestEntityTooLarge, labelTooLarge, fmt.Sprintf("the request body exceeds %d bytes", maxAdminBody), nil)
		} else {
			writeError(w, r, http.StatusBadRequest, domain.LabelMalformedJSON, "the request body could not be read", nil)
		}
		return "", nil, false
	}
	var members map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&members); err != nil || members == nil || dec.More() {
		writeError(w, r, http.StatusBadRequest, domain.LabelMalformedJSON, `the body must be one JSON object: {"param": "<name>", "value": <value>}`, nil)
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

// foldConfig applies the config stream's changes after configVersion. A change that does not
// apply any more (a parameter renamed, or a value the configuration the server was started with
// makes invalid) is logged and skipped. s.adminMu is held.
func (s *Server) foldConfig(ctx context.Context) error {
	cur := s.runtime()
	n := 0
	for rec, err := range s.store.ReadStream(ctx, domain.ConfigStream, s.configVersion+1) {
		if err != nil {
			return fmt.Errorf("read %s stream: %w", domain.ConfigStream, err)
		}
		v, err := s.codec.Decode(rec)
		if err != nil {
			return err
		}
		ch, ok := v.(domain.ConfigChanged)
		if !ok {
			return fmt.Errorf("read %s stream: unexpected %s event at version %d", domain.ConfigStream, rec.Type, rec.Version)
		}
		s.configVersion = rec.Version
		next, _, _, err := cur.with(ch.Param, ch.New)
		if err != nil {
			s.log.Warn("skipping a recorded configuration change that no longer applies",
				"param", ch.Param, "value", string(ch.New), "version", int64(rec.Version), "err", err)
			continue
		}
		cur = next
		n++
	}
	if n > 0 {
		s.install(cur)
		s.log.Info("runtime configuration restored from the config stream", "changes", n, "version", int64(s.configVersion))
	}
	return nil
}
