package webhook

import "time"

// Stream is the stream of webhook endpoint registrations and their changes.
const Stream = "webhooks"

// Event is one event of the webhooks stream.
type Event interface {
	EventType() string
	// Endpoint is the id of the endpoint the event is about.
	Endpoint() string
}

// Registered records a new endpoint: where deliveries go, which transitions it hears about and
// the secret they are signed with (sealed). Deliveries start after the log position After: the
// log's head when it was registered (the transitions from then on).
type Registered struct {
	ID          string `json:"id"`
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
	Filter      Filter `json:"filter"`
	Secret      Sealed `json:"sealedSecret"`
	After       uint64 `json:"after"`
	// Who is the identity of the operator (an admin identity, never a credential).
	Who string    `json:"who"`
	At  time.Time `json:"at"`
}

// SecretRotated records a new signing secret (sealed). The secret it replaces still signs every
// delivery until PreviousValidUntil (a delivery then carries both signatures), so that a receiver
// can switch without losing one; so do older ones still in their own overlap, but never past
// PreviousValidUntil: a rotation without overlap (a leaked secret) ends them all at once.
type SecretRotated struct {
	ID                 string    `json:"id"`
	Secret             Sealed    `json:"sealedSecret"`
	PreviousValidUntil time.Time `json:"previousValidUntil"`
	Who                string    `json:"who"`
	At                 time.Time `json:"at"`
}

// Disabled records that deliveries to an endpoint stop: an operator asked (Who is theirs), or the
// endpoint kept failing from FailingSince for longer than webhooks.disable_after (Who is empty:
// the relayer decided). Reason is for operators; it never holds a secret or a URL's credentials.
// The endpoint's checkpoint stays where it was: enabled again, it resumes there.
type Disabled struct {
	ID           string    `json:"id"`
	Reason       string    `json:"reason"`
	Who          string    `json:"who,omitempty"`
	FailingSince time.Time `json:"failingSince,omitzero"`
	At           time.Time `json:"at"`
}

// Enabled records that a disabled endpoint delivers again, from where it stopped.
type Enabled struct {
	ID  string    `json:"id"`
	Who string    `json:"who"`
	At  time.Time `json:"at"`
}

// Deleted records that an endpoint is gone for good: nothing more is delivered to it, and it
// accepts no further change.
type Deleted struct {
	ID  string    `json:"id"`
	Who string    `json:"who"`
	At  time.Time `json:"at"`
}

func (Registered) EventType() string    { return "WebhookRegistered" }
func (SecretRotated) EventType() string { return "WebhookSecretRotated" }
func (Disabled) EventType() string      { return "WebhookDisabled" }
func (Enabled) EventType() string       { return "WebhookEnabled" }
func (Deleted) EventType() string       { return "WebhookDeleted" }

func (e Registered) Endpoint() string    { return e.ID }
func (e SecretRotated) Endpoint() string { return e.ID }
func (e Disabled) Endpoint() string      { return e.ID }
func (e Enabled) Endpoint() string       { return e.ID }
func (e Deleted) Endpoint() string       { return e.ID }

// EventPrototypes returns one zero value of every event of the stream, for registering them
// with a codec.
func EventPrototypes() []Event {
	return []Event{Registered{}, SecretRotated{}, Disabled{}, Enabled{}, Deleted{}}
}
