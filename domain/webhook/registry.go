package webhook

import (
	"errors"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"relayer/domain"
)

// State is where an endpoint is: active (delivered to), disabled, or deleted. It is closed: the
// zero State is no endpoint.
type State struct{ s uint8 }

// The states (the events that lead to them are Registered or Enabled, Disabled and Deleted).
var (
	StateActive   = State{1}
	StateDisabled = State{2}
	StateDeleted  = State{3}
)

var stateNames = [...]string{"", "active", "disabled", "deleted"}

func (s State) String() string {
	if s.s != 0 && int(s.s) < len(stateNames) {
		return stateNames[s.s]
	}
	return "none"
}

// MarshalText writes the state's name.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Secret is one of an endpoint's signing secrets, sealed: the current one (ValidUntil zero) or
// one rotated out, which signs until ValidUntil.
type Secret struct {
	Sealed     Sealed
	Since      time.Time
	ValidUntil time.Time
}

// Endpoint is one registered endpoint as its events left it. The Registry hands out copies an
// event never changes afterwards.
type Endpoint struct {
	ID          string
	URL         string
	Description string
	Filter      Filter
	// After is the log position deliveries start after (the log's head at registration).
	After uint64
	// Secrets are the secrets that may sign, the current one last.
	Secrets   []Secret
	State     State
	CreatedAt time.Time
	CreatedBy string
	// ActiveSince is when the endpoint last started delivering: registered or enabled. A
	// failure streak older than that does not disable it.
	ActiveSince time.Time
	RotatedAt   time.Time
	// Why, by whom and when it was last disabled or deleted (empty while active).
	Reason    string
	ChangedBy string
	ChangedAt time.Time
	// Version is the webhooks stream's version of the endpoint's last event.
	Version int64
}

// Signing is the sealed secrets that sign a delivery made at now: the current one, and those
// rotated out whose overlap has not ended.
func (e *Endpoint) Signing(now time.Time) []Sealed {
	var out []Sealed
	for _, s := range e.Secrets {
		if s.ValidUntil.IsZero() || now.Before(s.ValidUntil) {
			out = append(out, s.Sealed)
		}
	}
	return out
}

// Registry is the fold of the webhooks stream: every endpoint ever registered, by id. It is a
// value with a map inside: one goroutine owns a Registry and folds into it; the Endpoints it
// hands out are never changed by a later event (Apply replaces them), so they may be shared.
type Registry struct {
	byID  map[string]*Endpoint
	order []string
	// version is the stream's version of the last event applied (-1 before any).
	version int64
}

// NewRegistry is the fold of an empty stream.
func NewRegistry() Registry { return Registry{version: -1} }

// Get returns endpoint id (deleted ones too).
func (r Registry) Get(id string) (*Endpoint, bool) {
	e, ok := r.byID[id]
	return e, ok
}

// Endpoints lists the endpoints in the order they were registered, the deleted ones only with
// deleted set.
func (r Registry) Endpoints(deleted bool) []*Endpoint {
	var out []*Endpoint
	for _, id := range r.order {
		if e := r.byID[id]; deleted || e.State != StateDeleted {
			out = append(out, e)
		}
	}
	return out
}

// live counts the endpoints not deleted.
func (r Registry) live() int { return len(r.Endpoints(false)) }

// Apply folds the stream's next event (one of another kind only counts in the version).
func (r Registry) Apply(e interface{ EventType() string }) Registry {
	r.version++
	ev, ok := e.(Event)
	if !ok {
		return r
	}
	if r.byID == nil {
		r.byID = map[string]*Endpoint{}
	}
	if reg, ok := ev.(Registered); ok {
		if _, dup := r.byID[reg.ID]; dup {
			return r // decisions never append it; a log written by hand might
		}
		r.byID[reg.ID] = &Endpoint{ID: reg.ID, URL: reg.URL, Description: reg.Description, Filter: reg.Filter, After: reg.After,
			Secrets: []Secret{{Sealed: reg.Secret, Since: reg.At}}, State: StateActive, CreatedAt: reg.At, CreatedBy: reg.Who,
			ActiveSince: reg.At, Version: r.version}
		r.order = append(r.order, reg.ID)
		return r
	}
	old, ok := r.byID[ev.Endpoint()]
	if !ok {
		return r
	}
	n := *old
	n.Secrets = slices.Clone(old.Secrets)
	n.Version = r.version
	switch ev := ev.(type) {
	case SecretRotated:
		kept := n.Secrets[:0]
		for _, s := range n.Secrets {
			// Every secret before the new one signs until the overlap ends at the latest: a
			// rotation without overlap (a leaked secret) ends them all at once.
			if s.ValidUntil.IsZero() || ev.PreviousValidUntil.Before(s.ValidUntil) {
				s.ValidUntil = ev.PreviousValidUntil
			}
			if ev.At.Before(s.ValidUntil) {
				kept = append(kept, s)
			}
		}
		n.Secrets = append(kept, Secret{Sealed: ev.Secret, Since: ev.At})
		n.RotatedAt = ev.At
	case Disabled:
		n.State, n.Reason, n.ChangedBy, n.ChangedAt = StateDisabled, ev.Reason, ev.Who, ev.At
	case Enabled:
		n.State, n.Reason, n.ChangedBy, n.ChangedAt, n.ActiveSince = StateActive, "", ev.Who, ev.At, ev.At
	case Deleted:
		n.State, n.Reason, n.ChangedBy, n.ChangedAt = StateDeleted, "deleted", ev.Who, ev.At
	}
	r.byID[n.ID] = &n
	return r
}

// Version is the stream's version of the last event applied (-1 before any).
func (r Registry) Version() int64 { return r.version }

// Errors of the decisions.
var (
	// ErrNotFound: no endpoint has the id.
	ErrNotFound = errors.New("no such webhook endpoint")
	// ErrState: the endpoint's state does not allow the change (enabling an active one,
	// changing a deleted one).
	ErrState = errors.New("the webhook endpoint's state does not allow this")
	// ErrStale: an automatic disable decided on a failure streak that an enable has since ended.
	ErrStale = errors.New("the failure streak is older than the endpoint's last enable")
	// ErrTooMany: registering would pass webhooks.max_endpoints.
	ErrTooMany = errors.New("too many webhook endpoints")
)

// InvalidError lists what is wrong with a registration, field by field.
type InvalidError struct{ Issues []domain.FieldIssue }

func (e *InvalidError) Error() string {
	return fmt.Sprintf("invalid webhook endpoint (%d problems)", len(e.Issues))
}

// MaxDescriptionRunes bounds an endpoint's description.
const MaxDescriptionRunes = 256

// Register is the command that registers an endpoint. The URL's host is checked by the caller
// (AddressAllowed, after resolving it); here only its form.
type Register struct {
	ID          string
	URL         string
	Description string
	Filter      Filter
	Secret      Sealed
	After       uint64
	Who         string
	At          time.Time
	// MaxEndpoints is webhooks.max_endpoints.
	MaxEndpoints int
}

// Register decides a registration.
func (r Registry) Register(c Register) (Registered, error) {
	var issues []domain.FieldIssue
	if _, err := ParseURL(c.URL); err != nil {
		issues = append(issues, domain.FieldIssue{Field: "url", Issue: err.Error()})
	}
	if n := utf8.RuneCountInString(c.Description); n > MaxDescriptionRunes || !utf8.ValidString(c.Description) {
		issues = append(issues, domain.FieldIssue{Field: "description", Issue: fmt.Sprintf("must be valid UTF-8 of at most %d characters", MaxDescriptionRunes)})
	}
	if len(issues) > 0 {
		return Registered{}, &InvalidError{Issues: issues}
	}
	switch _, dup := r.byID[c.ID]; {
	case c.ID == "" || c.Secret == "":
		return Registered{}, errors.New("webhook: a registration needs an id and a sealed secret")
	case dup:
		return Registered{}, fmt.Errorf("webhook: endpoint id %s is taken", c.ID)
	case c.MaxEndpoints > 0 && r.live() >= c.MaxEndpoints:
		return Registered{}, fmt.Errorf("%w: %d registered, at most %d (webhooks.max_endpoints)", ErrTooMany, r.live(), c.MaxEndpoints)
	}
	return Registered{ID: c.ID, URL: c.URL, Description: c.Description, Filter: c.Filter, Secret: c.Secret,
		After: c.After, Who: c.Who, At: c.At.UTC()}, nil
}

// changeable returns endpoint id unless it is missing or deleted.
func (r Registry) changeable(id string) (*Endpoint, error) {
	e, ok := r.byID[id]
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	case e.State == StateDeleted:
		return nil, fmt.Errorf("%w: endpoint %s is deleted", ErrState, id)
	}
	return e, nil
}

// Rotate is the command that gives an endpoint a new secret, the current one signing for
// Overlap more.
type Rotate struct {
	ID      string
	Secret  Sealed
	Overlap time.Duration
	Who     string
	At      time.Time
}

// Rotate decides a rotation.
func (r Registry) Rotate(c Rotate) (SecretRotated, error) {
	if _, err := r.changeable(c.ID); err != nil {
		return SecretRotated{}, err
	}
	if c.Overlap < 0 || c.Overlap > MaxRotationOverlap || c.Secret == "" {
		return SecretRotated{}, &InvalidError{Issues: []domain.FieldIssue{{Field: "overlapSeconds",
			Issue: fmt.Sprintf("must be from 0 to %d seconds", int64(MaxRotationOverlap/time.Second))}}}
	}
	return SecretRotated{ID: c.ID, Secret: c.Secret, PreviousValidUntil: c.At.Add(c.Overlap).UTC(), Who: c.Who, At: c.At.UTC()}, nil
}

// Disable is the command that stops deliveries to an endpoint: an operator's (Who set,
// FailingSince zero) or the relayer's after a failure streak that began at FailingSince.
type Disable struct {
	ID           string
	Reason       string
	Who          string
	FailingSince time.Time
	At           time.Time
}

// Disable decides a disable. The relayer's refuses (ErrStale) when the endpoint was enabled
// after its streak began, and (ErrState) when it is not active any more.
func (r Registry) Disable(c Disable) (Disabled, error) {
	e, err := r.changeable(c.ID)
	if err != nil {
		return Disabled{}, err
	}
	if e.State != StateActive {
		return Disabled{}, fmt.Errorf("%w: endpoint %s is %s", ErrState, c.ID, e.State)
	}
	if !c.FailingSince.IsZero() && e.ActiveSince.After(c.FailingSince) {
		return Disabled{}, ErrStale
	}
	return Disabled{ID: c.ID, Reason: c.Reason, Who: c.Who, FailingSince: c.FailingSince.UTC(), At: c.At.UTC()}, nil
}

// Enable decides an enable: only a disabled endpoint may be.
func (r Registry) Enable(id, who string, at time.Time) (Enabled, error) {
	e, err := r.changeable(id)
	if err != nil {
		return Enabled{}, err
	}
	if e.State != StateDisabled {
		return Enabled{}, fmt.Errorf("%w: endpoint %s is %s", ErrState, id, e.State)
	}
	return Enabled{ID: id, Who: who, At: at.UTC()}, nil
}

// Delete decides a deletion.
func (r Registry) Delete(id, who string, at time.Time) (Deleted, error) {
	if _, err := r.changeable(id); err != nil {
		return Deleted{}, err
	}
	return Deleted{ID: id, Who: who, At: at.UTC()}, nil
}
