package domain

import (
	"encoding/json"
	"time"
)

// Events outside the request streams share the log (and its codec) with request events but are
// not part of any job's lifecycle, so they are not Events: the projections of jobs skip them.

// ConfigStream is the stream of runtime configuration changes.
const ConfigStream = "config"

// ConfigChanged records one runtime parameter change made through the admin API: who made it and
// the value before and after (as JSON). Who is an identity, never a credential.
type ConfigChanged struct {
	Param string          `json:"param"`
	Old   json.RawMessage `json:"old"`
	New   json.RawMessage `json:"new"`
	Who   string          `json:"who"`
	At    time.Time       `json:"at"`
}

func (ConfigChanged) EventType() string { return "ConfigChanged" }

// PoisonStream is the stream of poisoned messages: messages a worker's handler gave up on for
// good (malformed, or failing on every retry), set aside so they stop blocking the topic.
const PoisonStream = "poison"

// MessagePoisoned records one poisoned message: the topic and handler that gave up on it, why,
// and, when the message carried an event of the log, that event's stream, type and global
// position. Reason is an error text for operators; it must never hold a secret.
type MessagePoisoned struct {
	Topic   string `json:"topic"`
	Handler string `json:"handler"`
	Reason  string `json:"reason"`
	// Stream, Type and Position are the poisoned event's stream (a request stream for a job's
	// event), type and global position (not this record's). Type is encoded as "eventType"; the
	// field cannot be named EventType, the method every event of the log has.
	Stream    string    `json:"stream,omitempty"`
	Type      string    `json:"eventType,omitempty"`
	Position  uint64    `json:"position,omitempty"`
	MessageID string    `json:"messageId"`
	At        time.Time `json:"at"`
}

func (MessagePoisoned) EventType() string { return "MessagePoisoned" }

// ChainStream is the stream of the gateway chain's outages as the relayer saw them.
const ChainStream = "chain"

// ChainOutageStarted records that the relayer could not reach the gateway chain from Since (its
// first failed call or probe) on. Until the matching ChainOutageEnded, the jobs' deadlines stand
// still: a job is never timed out for a wait the relayer could not see the end of.
type ChainOutageStarted struct {
	Since time.Time `json:"since"`
	// Reason is the failure that began it, for operators; never a secret (URLs are redacted).
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}

func (ChainOutageStarted) EventType() string { return "ChainOutageStarted" }

// ChainOutageEnded records that the chain answered again at Until, ending the outage that began
// at Since: every deadline pending then moves later by the part of the outage the job waited
// through.
type ChainOutageEnded struct {
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
	At    time.Time `json:"at"`
}

func (ChainOutageEnded) EventType() string { return "ChainOutageEnded" }
