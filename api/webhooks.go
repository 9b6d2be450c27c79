package api

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/google/uuid"

	"relayer/domain"
	"relayer/domain/webhook"
	"relayer/eventstore"
)

// The webhook endpoints of the admin API (README "Webhooks"): each change is an event of the
// webhooks stream (package domain/webhook), decided on the stream as folded and appended with its
// expected version, so that two instances sharing a log, or two operators, cannot interleave. A
// signing secret is shown once, in the answer that created it; the log keeps it sealed, and
// nothing else shows it (GET answers, logs, errors).

// labelConflict is the label of a change the endpoint's state does not allow.
const labelConflict = "conflict"

// webhookResolveTimeout bounds the look-up of an endpoint's host at registration.
const webhookResolveTimeout = 5 * time.Second

func (s *Server) webhookRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Pattern: "/admin/webhooks", Name: "list webhook endpoints", handler: s.admin(s.listWebhooks)},
		{Method: http.MethodPost, Pattern: "/admin/webhooks", Name: "register a webhook endpoint", handler: s.admin(s.registerWebhook)},
		{Method: http.MethodGet, Pattern: "/admin/webhooks/{id}", Name: "a webhook endpoint", handler: s.admin(s.getWebhook)},
		{Method: http.MethodDelete, Pattern: "/admin/webhooks/{id}", Name: "delete a webhook endpoint", handler: s.admin(s.deleteWebhook)},
		{Method: http.MethodPost, Pattern: "/admin/webhooks/{id}/rotate", Name: "rotate a webhook endpoint's secret", handler: s.admin(s.rotateWebhook)},
		{Method: http.MethodPost, Pattern: "/admin/webhooks/{id}/disable", Name: "disable a webhook endpoint", handler: s.admin(s.disableWebhook)},
		{Method: http.MethodPost, Pattern: "/admin/webhooks/{id}/enable", Name: "enable a webhook endpoint", handler: s.admin(s.enableWebhook)},
	}
}

// webhookFilter is a filter on the wire: names, every list present (empty: any).
type webhookFilter struct {
	Kinds      []string `json:"kinds"`
	Statuses   []string `json:"statuses"`
	EventTypes []string `json:"eventTypes"`
}

// webhookView is an endpoint as the admin API shows it: never a secret, and its URL without a
// password.
type webhookView struct {
	ID          string        `json:"id"`
	URL         string        `json:"url"`
	Description string        `json:"description,omitempty"`
	Filter      webhookFilter `json:"filter"`
	// State is active, disabled or deleted; Reason why it is not active, Changed* who made it so
	// and when (for a disable by the relayer after failures, ChangedBy is empty).
	State     string    `json:"state"`
	Reason    string    `json:"reason,omitempty"`
	ChangedBy string    `json:"changedBy,omitempty"`
	ChangedAt time.Time `json:"changedAt,omitzero"`
	CreatedBy string    `json:"createdBy"`
	CreatedAt time.Time `json:"createdAt"`
	RotatedAt time.Time `json:"rotatedAt,omitzero"`
	// Secrets is how many secrets sign a delivery now (two during a rotation's overlap), and
	// PreviousSecretValidUntil when the rotated-out one stops.
	Secrets                  int       `json:"secrets"`
	PreviousSecretValidUntil time.Time `json:"previousSecretValidUntil,omitzero"`
	// After is the log position deliveries started after.
	After uint64 `json:"after"`
	// Version is the webhooks stream's version of the endpoint's last change.
	Version int64 `json:"version"`
}

// webhookCreated is the answer of a registration or a rotation: the endpoint and its new secret,
// shown this once.
type webhookCreated struct {
	Webhook webhookView `json:"webhook"`
	Secret  string      `json:"secret"`
}

func (s *Server) webhookView(e *webhook.Endpoint) webhookView {
	v := webhookView{ID: e.ID, URL: redactedURL(e.URL), Description: e.Description, State: e.State.String(), Reason: e.Reason,
		ChangedBy: e.ChangedBy, ChangedAt: e.ChangedAt, CreatedBy: e.CreatedBy, CreatedAt: e.CreatedAt, RotatedAt: e.RotatedAt,
		After: e.After, Version: e.Version,
		Filter: webhookFilter{Kinds: []string{}, Statuses: []string{}, EventTypes: append([]string{}, e.Filter.EventTypes...)}}
	for _, k := range e.Filter.Kinds {
		v.Filter.Kinds = append(v.Filter.Kinds, k.String())
	}
	for _, st := range e.Filter.Statuses {
		v.Filter.Statuses = append(v.Filter.Statuses, st.String())
	}
	now := s.now()
	for _, sec := range e.Secrets {
		if sec.ValidUntil.IsZero() || now.Before(sec.ValidUntil) {
			v.Secrets++
		}
		if !sec.ValidUntil.IsZero() && now.Before(sec.ValidUntil) && sec.ValidUntil.After(v.PreviousSecretValidUntil) {
			v.PreviousSecretValidUntil = sec.ValidUntil
		}
	}
	return v
}

// redactedURL is u with its password, if any, replaced by "xxxxx".
func redactedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Redacted()
}

func foldWebhooks(r webhook.Registry, e eventstore.Typed) webhook.Registry { return r.Apply(e) }

// catchWebhooks folds the webhooks stream's new events; s.hooksMu is held.
func (s *Server) catchWebhooks(ctx context.Context) error {
	return s.hooks.Catch(ctx, s.store, s.codec, webhook.Stream, foldWebhooks)
}

// listWebhooks answers GET /admin/webhooks: every endpoint in the order registered (the deleted
// ones with ?deleted=true), and the stream's version.
func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request) {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	if err := s.catchWebhooks(r.Context()); err != nil {
		s.internalError(w, r, "read the webhooks stream", err)
		return
	}
	views := []webhookView{}
	for _, e := range s.hooks.State.Endpoints(r.URL.Query().Get("deleted") == "true") {
		views = append(views, s.webhookView(e))
	}
	writeEnvelope(w, r, http.StatusOK, statusSucceeded, struct {
		Webhooks []webhookView `json:"webhooks"`
		Enabled  bool          `json:"enabled"`
		Version  int64         `json:"version"`
	}{Webhooks: views, Enabled: s.cfg.Webhooks.Enabled(), Version: int64(s.hooks.Version)})
}

func (s *Server) getWebhook(w http.ResponseWriter, r *http.Request) {
	id, ok := pathWebhookID(w, r)
	if !ok {
		return
	}
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	if err := s.catchWebhooks(r.Context()); err != nil {
		s.internalError(w, r, "read the webhooks stream", err)
		return
	}
	e, ok := s.hooks.State.Get(id)
	if !ok {
		writeError(w, r, http.StatusNotFound, labelNotFound, "no such webhook endpoint", nil)
		return
	}
	writeEnvelope(w, r, http.StatusOK, statusSucceeded, s.webhookView(e))
}

// pathWebhookID reads the {id} of a webhook route: a UUID in the 36-character form registration
// gives (uuid.Parse also takes the braced, urn:uuid: and 32-digit forms, which are refused),
// returned in lower case (so an id written in capitals finds its endpoint). Otherwise it answers
// 400 naming id and reports false.
func pathWebhookID(w http.ResponseWriter, r *http.Request) (string, bool) {
	raw := r.PathValue("id")
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != len(id.String()) {
		writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, "invalid webhook id",
			[]domain.FieldIssue{{Field: "id", Issue: "must be a webhook id: a UUID like 0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11"}})
		return "", false
	}
	return id.String(), true
}

// webhooksOn answers 403 and reports false when webhooks are off (no webhooks.secret_key): a
// secret could not be sealed, nor a delivery signed.
func (s *Server) webhooksOn(w http.ResponseWriter, r *http.Request) bool {
	if s.cfg.Webhooks.Enabled() {
		return true
	}
	writeError(w, r, http.StatusForbidden, labelForbidden, "webhooks are off: no webhooks.secret_key is configured (RELAYER_WEBHOOKS_SECRET_KEY; openssl rand -hex 32 makes one)", nil)
	return false
}

// registerBody is POST /admin/webhooks's body.
type registerBody struct {
	URL         *string       `json:"url"`
	Description string        `json:"description"`
	Filter      webhookFilter `json:"filter"`
}

// registerWebhook answers POST /admin/webhooks: {"url", "description", "filter": {"kinds",
// "statuses", "eventTypes"}}. The URL must be http or https and, unless webhooks.allow_private,
// its host must resolve to public addresses only. The answer (201) holds the endpoint and its
// signing secret, which is never shown again.
func (s *Server) registerWebhook(w http.ResponseWriter, r *http.Request) {
	if !s.webhooksOn(w, r) {
		return
	}
	var body registerBody
	if !s.readAdminBody(w, r, &body, false) {
		return
	}
	if body.URL == nil || strings.TrimSpace(*body.URL) == "" {
		writeError(w, r, http.StatusBadRequest, domain.LabelMissingFields, "missing fields", []domain.FieldIssue{{Field: "url", Issue: "is required"}})
		return
	}
	filter, issues := webhook.ParseFilter(body.Filter.Kinds, body.Filter.Statuses, body.Filter.EventTypes)
	u, err := webhook.ParseURL(*body.URL)
	if err != nil {
		issues = append([]domain.FieldIssue{{Field: "url", Issue: err.Error()}}, issues...)
	} else if issue := s.checkWebhookHost(r.Context(), u); issue != "" {
		issues = append([]domain.FieldIssue{{Field: "url", Issue: issue}}, issues...)
	}
	if len(issues) > 0 {
		writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, "invalid webhook endpoint", issues)
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), writeTimeout)
	defer cancel()
	head, err := s.store.Head(ctx)
	if err != nil {
		s.internalError(w, r, "read the log's head", err)
		return
	}
	id := uuid.NewString()
	secret, sealed, ok := s.newWebhookSecret(w, r, id)
	if !ok {
		return
	}
	e, ok := s.changeWebhooks(ctx, w, r, func(reg webhook.Registry) (webhook.Event, error) {
		return reg.Register(webhook.Register{ID: id, URL: *body.URL, Description: body.Description, Filter: filter, Secret: sealed,
			After: uint64(head), Who: s.adminWho, At: s.now(), MaxEndpoints: s.cfg.Webhooks.WithDefaults().MaxEndpoints})
	})
	if !ok {
		return
	}
	s.log.Info("webhook endpoint registered", "request_id", requestID(w), "webhook", id, "host", u.Host, "who", s.adminWho, "after", uint64(head))
	writeEnvelope(w, r, http.StatusCreated, statusSucceeded, webhookCreated{Webhook: s.webhookView(e), Secret: secret})
}

// checkWebhookHost says what is wrong with u's host ("" when nothing): unless
// webhooks.allow_private, it must resolve, and to public addresses only. The delivery worker
// checks every connection's address again (a name may resolve elsewhere later).
func (s *Server) checkWebhookHost(ctx context.Context, u *url.URL) string {
	if s.cfg.Webhooks.AllowPrivate {
		return ""
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		ctx, cancel := context.WithTimeout(ctx, webhookResolveTimeout)
		defer cancel()
		addrs, err = s.lookupHost(ctx, host)
		if err != nil || len(addrs) == 0 {
			return fmt.Sprintf("its host %s does not resolve", host)
		}
	}
	for _, a := range addrs {
		if !webhook.AddressAllowed(a) {
			return fmt.Sprintf("its host %s is %s, a loopback, private, link-local or other non-public address: refused unless webhooks.allow_private is set", host, a.Unmap())
		}
	}
	return ""
}

// rotateBody is POST /admin/webhooks/{id}/rotate's optional body.
type rotateBody struct {
	// OverlapSeconds is a number, checked to be a whole one in range: 1e3 is a thousand, and
	// 1e12 is out of range rather than malformed.
	OverlapSeconds *float64 `json:"overlapSeconds"`
}

// rotateWebhook answers POST /admin/webhooks/{id}/rotate (optional body {"overlapSeconds": n}):
// a new secret, shown this once; the current one signs too until the overlap ends
// (webhooks.rotation_overlap unless given), so a delivery in the meantime carries both
// signatures.
func (s *Server) rotateWebhook(w http.ResponseWriter, r *http.Request) {
	if !s.webhooksOn(w, r) {
		return
	}
	id, ok := pathWebhookID(w, r)
	if !ok {
		return
	}
	var body rotateBody
	if !s.readAdminBody(w, r, &body, true) {
		return
	}
	overlap := s.cfg.Webhooks.WithDefaults().RotationOverlap
	if v := body.OverlapSeconds; v != nil {
		most := float64(webhook.MaxRotationOverlap / time.Second)
		if *v < 0 || *v > most || *v != math.Trunc(*v) {
			writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, "invalid rotation", []domain.FieldIssue{{Field: "overlapSeconds",
				Issue: fmt.Sprintf("must be a whole number of seconds from 0 to %.0f, got %v", most, *v)}})
			return
		}
		overlap = time.Duration(*v) * time.Second
	}
	secret, sealed, ok := s.newWebhookSecret(w, r, id)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), writeTimeout)
	defer cancel()
	e, ok := s.changeWebhooks(ctx, w, r, func(reg webhook.Registry) (webhook.Event, error) {
		return reg.Rotate(webhook.Rotate{ID: id, Secret: sealed, Overlap: overlap, Who: s.adminWho, At: s.now()})
	})
	if !ok {
		return
	}
	s.log.Info("webhook secret rotated", "request_id", requestID(w), "webhook", id, "overlap", overlap, "who", s.adminWho)
	writeEnvelope(w, r, http.StatusOK, statusSucceeded, webhookCreated{Webhook: s.webhookView(e), Secret: secret})
}

// disableBody is POST /admin/webhooks/{id}/disable's optional body.
type disableBody struct {
	Reason string `json:"reason"`
}

// disableWebhook answers POST /admin/webhooks/{id}/disable (optional body {"reason": "..."}):
// deliveries stop where they are; enabled again, the endpoint resumes there.
func (s *Server) disableWebhook(w http.ResponseWriter, r *http.Request) {
	var body disableBody
	if !s.readAdminBody(w, r, &body, true) {
		return
	}
	reason := strings.TrimSpace(body.Reason)
	reason = cmp.Or(reason, "disabled by an operator")
	if len(reason) > webhook.MaxDescriptionRunes {
		writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, "invalid disable", []domain.FieldIssue{{Field: "reason",
			Issue: fmt.Sprintf("must be at most %d bytes", webhook.MaxDescriptionRunes)}})
		return
	}
	s.simpleWebhookChange(w, r, "webhook endpoint disabled", func(reg webhook.Registry, id string) (webhook.Event, error) {
		return reg.Disable(webhook.Disable{ID: id, Reason: reason, Who: s.adminWho, At: s.now()})
	})
}

// enableWebhook answers POST /admin/webhooks/{id}/enable: a disabled endpoint delivers again,
// from where it stopped (every transition since, none skipped).
func (s *Server) enableWebhook(w http.ResponseWriter, r *http.Request) {
	if !s.webhooksOn(w, r) {
		return
	}
	if !s.readAdminBody(w, r, &struct{}{}, true) {
		return
	}
	s.simpleWebhookChange(w, r, "webhook endpoint enabled", func(reg webhook.Registry, id string) (webhook.Event, error) {
		return reg.Enable(id, s.adminWho, s.now())
	})
}

// deleteWebhook answers DELETE /admin/webhooks/{id}: the endpoint is gone for good.
func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request) {
	s.simpleWebhookChange(w, r, "webhook endpoint deleted", func(reg webhook.Registry, id string) (webhook.Event, error) {
		return reg.Delete(id, s.adminWho, s.now())
	})
}

func (s *Server) simpleWebhookChange(w http.ResponseWriter, r *http.Request, what string, decide func(webhook.Registry, string) (webhook.Event, error)) {
	id, ok := pathWebhookID(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), writeTimeout)
	defer cancel()
	e, ok := s.changeWebhooks(ctx, w, r, func(reg webhook.Registry) (webhook.Event, error) { return decide(reg, id) })
	if !ok {
		return
	}
	s.log.Info(what, "request_id", requestID(w), "webhook", id, "who", s.adminWho)
	writeEnvelope(w, r, http.StatusOK, statusSucceeded, s.webhookView(e))
}

// changeWebhooks decides on the webhooks stream as folded and appends the event with the stream's
// expected version (on a conflict it folds what it missed and decides again), then returns the
// endpoint as changed. Otherwise it has answered and returns false.
func (s *Server) changeWebhooks(ctx context.Context, w http.ResponseWriter, r *http.Request, decide func(webhook.Registry) (webhook.Event, error)) (*webhook.Endpoint, bool) {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	var id string
	err := s.catchWebhooks(ctx)
	if err == nil {
		_, err = eventstore.Update(ctx, s.store, s.codec, webhook.Stream, &s.hooks, foldWebhooks,
			func(reg webhook.Registry) ([]eventstore.Typed, error) {
				ev, err := decide(reg)
				if err != nil {
					return nil, err
				}
				id = ev.Endpoint()
				return []eventstore.Typed{ev}, nil
			}, eventstore.Metadata{CorrelationID: requestID(w), CausationID: requestID(w)}, nil, 5)
	}
	var ie *webhook.InvalidError
	switch {
	case err == nil:
	case errors.As(err, &ie):
		writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, "invalid webhook endpoint", ie.Issues)
		return nil, false
	case errors.Is(err, webhook.ErrNotFound):
		writeError(w, r, http.StatusNotFound, labelNotFound, "no such webhook endpoint", nil)
		return nil, false
	case errors.Is(err, webhook.ErrState), errors.Is(err, webhook.ErrTooMany):
		writeError(w, r, http.StatusConflict, labelConflict, err.Error(), nil)
		return nil, false
	default:
		s.internalError(w, r, "record the webhook change", err)
		return nil, false
	}
	e, _ := s.hooks.State.Get(id)
	return e, true
}

// readAdminBody reads a JSON object into dst, refusing unknown and duplicate members. With
// optional, an empty body (no Content-Type needed) leaves dst as it is.
func (s *Server) readAdminBody(w http.ResponseWriter, r *http.Request, dst any, optional bool) bool {
	body, ok := readAdminBytes(w, r)
	if !ok {
		return false
	}
	if optional && len(bytes.TrimSpace(body)) == 0 {
		return true
	}
	if !requireJSON(w, r) {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil || dec.More() {
		msg := "the body must be one JSON object"
		var details []domain.FieldIssue
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field != "":
			// A member of the wrong type: name it and what it must be.
			issue := fmt.Sprintf("must be %s, got %s", jsonTypeName(te.Type), te.Value)
			msg, details = te.Field+" "+issue, []domain.FieldIssue{{Field: te.Field, Issue: issue}}
		case err != nil && strings.HasPrefix(err.Error(), "json: unknown field"):
			msg = "the body has an " + strings.TrimPrefix(err.Error(), "json: ")
		}
		writeError(w, r, http.StatusBadRequest, domain.LabelMalformedJSON, msg, details)
		return false
	}
	if key, dup := duplicateMember(body); dup {
		writeError(w, r, http.StatusBadRequest, domain.LabelMalformedJSON, fmt.Sprintf("the member %q appears twice", key),
			[]domain.FieldIssue{{Field: key, Issue: "appears more than once"}})
		return false
	}
	return true
}

// jsonTypeName says what a JSON value of Go type t is.
func jsonTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// lookupHostDefault resolves host with the system's resolver.
func lookupHostDefault(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// newWebhookSecret makes a signing secret for endpoint id and seals it for the log, or answers
// 500 and returns false.
func (s *Server) newWebhookSecret(w http.ResponseWriter, r *http.Request, id string) (string, webhook.Sealed, bool) {
	secret, err := webhook.NewSecret(rand.Reader)
	var sealed webhook.Sealed
	if err == nil {
		sealed, err = webhook.Seal(s.cfg.Webhooks.Key(), id, secret, rand.Reader)
	}
	if err != nil {
		s.internalError(w, r, "make a signing secret", err)
		return "", "", false
	}
	return secret, sealed, true
}
