package domain

import (
	"encoding/json"
	"strings"
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

// RateLimitStream is the stream of the rate limits the relayer met calling its upstreams (the
// gateway chain's JSON-RPC node, its host chain's), as each instance's own calls saw them.
const RateLimitStream = "ratelimit"

// RateLimitCall is what a rate-limit event says of one upstream call at one point of it: the
// four events (RateLimitEncountered, RateLimitBackoff, RateLimitRecovered, RateLimitGaveUp)
// carry it, each filling what applies to it. It never holds a secret: Source is a scheme and
// host (never a URL's userinfo, path or query, where RPC providers put API keys), and no
// header, body or error text is copied into it. Durations are whole milliseconds.
type RateLimitCall struct {
	// Source names the upstream: scheme and host, "https://rpc.example.com".
	Source string `json:"source"`
	// Instance names the relayer instance whose call it was, in a fleet (where several share the
	// log); absent for a relayer alone on its log.
	Instance string `json:"instance,omitempty"`
	// Attempt is, for RateLimitEncountered, the attempt that was refused; for RateLimitBackoff,
	// the attempt that failed (the next is Attempt+1); for RateLimitRecovered and
	// RateLimitGaveUp, the number of attempts made.
	Attempt int `json:"attempt"`
	// Class is the class of the attempt's outcome (rate_limited, server_error, transport_error,
	// permanent, canceled; ok for RateLimitRecovered): a call once limited may fail otherwise later.
	Class string `json:"class"`
	// Status is the attempt's HTTP status (absent when there was no response); RPCCode the
	// JSON-RPC error code, when the limit came as a JSON-RPC error.
	Status  int   `json:"status,omitempty"`
	RPCCode int64 `json:"rpcCode,omitempty"`
	// WaitMs is, for RateLimitEncountered, the wait the server asked for; for RateLimitBackoff,
	// the wait about to be slept; for RateLimitGaveUp, the wait the call would have needed.
	// WaitFrom is the header family a server's wait came from (Retry-After, RateLimit,
	// "RateLimit-Limit/Remaining/Reset", X-RateLimit); absent when the wait is the relayer's
	// own backoff.
	WaitMs   int64  `json:"waitMs,omitempty"`
	WaitFrom string `json:"waitFrom,omitempty"`
	// What the response said of the quota: Header is the family Limit, Remaining, Reset,
	// WindowMs and Policy came from (absent with all of them when it said nothing); Limit and
	// Remaining are absent when not stated.
	Header    string    `json:"header,omitempty"`
	Policy    string    `json:"policy,omitempty"`
	Limit     *int64    `json:"limit,omitempty"`
	Remaining *int64    `json:"remaining,omitempty"`
	Reset     time.Time `json:"reset,omitzero"`
	WindowMs  int64     `json:"windowMs,omitempty"`
	// TotalBackoffMs is the sum of the call's waits so far (a RateLimitBackoff's own included);
	// ElapsedMs the time since its first attempt started.
	TotalBackoffMs int64 `json:"totalBackoffMs"`
	ElapsedMs      int64 `json:"elapsedMs"`
	// Reason is why the call gave up (RateLimitGaveUp only): "attempts exhausted", "time budget
	// exhausted", "context deadline before the next attempt", "not retryable", "canceled".
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}

// Call returns the event's RateLimitCall (see RateLimitEvent).
func (c RateLimitCall) Call() RateLimitCall { return c }

// RateLimitEvent is one of the four events of the rate-limit stream.
type RateLimitEvent interface {
	EventType() string
	Call() RateLimitCall
}

// RateLimitEncountered records an attempt an upstream refused with a rate limit (HTTP 429 or a
// JSON-RPC limit error), once per refused attempt.
type RateLimitEncountered struct{ RateLimitCall }

// RateLimitBackoff records a wait before the next attempt of a call that has been rate limited
// (whatever failure preceded this wait).
type RateLimitBackoff struct{ RateLimitCall }

// RateLimitRecovered records that a call that had been rate limited succeeded.
type RateLimitRecovered struct{ RateLimitCall }

// RateLimitGaveUp records that a call that had been rate limited stopped without success.
type RateLimitGaveUp struct{ RateLimitCall }

func (RateLimitEncountered) EventType() string { return "RateLimitEncountered" }
func (RateLimitBackoff) EventType() string     { return "RateLimitBackoff" }
func (RateLimitRecovered) EventType() string   { return "RateLimitRecovered" }
func (RateLimitGaveUp) EventType() string      { return "RateLimitGaveUp" }

// SignerStreamPrefix starts the stream of a signing key's balance guard: "signer-<address>", the
// key's address in lower-case hex. It holds SignerPaused and SignerResumed, each appended with
// the stream's expected version, and the corrections of the key's nonces (NonceCorrected), so that the instances of a fleet record one pause and one
// resumption of each key however many of them saw the balance cross the floor.
const SignerStreamPrefix = "signer-"

// SignerStream is the balance guard's stream of the key whose address is address (any case).
func SignerStream(address string) string { return SignerStreamPrefix + strings.ToLower(address) }

// SignerPaused records that a signing key's balance fell below the floor: the key takes no new
// transaction (its jobs wait, none fails for it before its processing deadline; the
// transactions already sent go on) until SignerResumed. Amounts are decimal wei.
type SignerPaused struct {
	Address    string    `json:"address"`
	BalanceWei string    `json:"balanceWei"`
	FloorWei   string    `json:"floorWei"`
	Reason     string    `json:"reason"`
	At         time.Time `json:"at"`
}

func (SignerPaused) EventType() string { return "SignerPaused" }

// SignerResumed records that a paused key's balance came back above the floor with its margin
// (ResumeWei): it takes transactions again. PausedSince is its SignerPaused's At.
type SignerResumed struct {
	Address     string    `json:"address"`
	BalanceWei  string    `json:"balanceWei"`
	ResumeWei   string    `json:"resumeWei"`
	PausedSince time.Time `json:"pausedSince"`
	At          time.Time `json:"at"`
}

func (SignerResumed) EventType() string { return "SignerResumed" }

// NonceCorrected records a correction of a signing key's nonce sequence made while the relayer
// ran: Action is "reseeded" (the node refused a nonce and the sequence read the chain's again),
// "skipped" (another sender used the key: the sequence moved past its nonces), "resent" (the
// node had lost transactions of the key: the same bytes were sent again) or "filled" (nonces no
// transaction will use were filled with transfers to self). From and To are the sequence's next
// nonce before and after (reseeded, skipped); Nonces the nonces resent or filled; Pending the
// chain's pending nonce for the key when it was decided (0 when not read).
type NonceCorrected struct {
	Address string    `json:"address"`
	Action  string    `json:"action"`
	From    uint64    `json:"from,omitempty"`
	To      uint64    `json:"to,omitempty"`
	Nonces  []uint64  `json:"nonces,omitempty"`
	Pending uint64    `json:"pending,omitempty"`
	Reason  string    `json:"reason"`
	At      time.Time `json:"at"`
}

func (NonceCorrected) EventType() string { return "NonceCorrected" }
