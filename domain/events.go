package domain

import "time"

// Event is one fact in a request's stream. Every event names its job and the time it happened
// (the time of the command that decided it), so read models fold the same history into the same
// state whenever they are rebuilt.
type Event interface {
	EventType() string
	Header() EventHeader
}

// EventHeader is embedded in every event.
type EventHeader struct {
	JobID JobID     `json:"jobId"`
	At    time.Time `json:"at"`
}

// Header returns the header; it makes every event that embeds EventHeader an Event's header.
func (h EventHeader) Header() EventHeader { return h }

// Failure and timeout labels, as the API reports them.
const (
	LabelNotAllowedOnHostACL    = "not_allowed_on_host_acl"
	LabelReadinessCheckFailed   = "readiness_check_failed"
	LabelReadinessCheckTimedOut = "readiness_check_timed_out"
	LabelResponseTimedOut       = "response_timed_out"
	LabelTransactionReverted    = "transaction_reverted"
	LabelTransactionFailed      = "transaction_failed"
	LabelTxInFlightTimedOut     = "tx_in_flight_timed_out"
	LabelProtocolPaused         = "protocol_paused"
	LabelProofRejected          = "proof_rejected"
	LabelInternalServerError    = "internal_server_error"
	// LabelInsufficientBalance: the relayer's signing key cannot pay for the transaction; an
	// operator must fund it (the reference relayer's label and status, 503).
	LabelInsufficientBalance = "insufficient_balance"
	// LabelGatewayNotReachable: the job's transaction could not be prepared before its
	// processing deadline because the gateway chain kept failing (unreachable, overloaded, rate
	// limited); nothing was sent, so submitting again is safe (the reference's label, 503).
	LabelGatewayNotReachable = "gateway_not_reachable"
	// LabelCancelled: an operator cancelled the job before its transaction was sent.
	LabelCancelled = "cancelled"
	// LabelSignerUnavailable: the relayer's signer (a key service such as AWS KMS) could not sign
	// the job's transaction before its processing deadline; nothing was sent, so submitting again
	// is safe (503).
	LabelSignerUnavailable = "signer_unavailable"
	// LabelHostACLFailed: the host chain's ACL could not answer the readiness check's question
	// (a call that fails for good, not a passing outage, which is asked again); nothing was
	// sent (the reference's label, 500).
	LabelHostACLFailed = "host_acl_failed"
)

// JobLabels lists every label a failed or timed-out job may carry.
func JobLabels() []string {
	return []string{LabelNotAllowedOnHostACL, LabelReadinessCheckFailed, LabelReadinessCheckTimedOut, LabelResponseTimedOut,
		LabelTransactionReverted, LabelTransactionFailed, LabelTxInFlightTimedOut, LabelProtocolPaused, LabelProofRejected,
		LabelInternalServerError, LabelInsufficientBalance, LabelGatewayNotReachable, LabelCancelled, LabelSignerUnavailable,
		LabelHostACLFailed}
}

// RequestAccepted starts a stream: the request was valid and is now queued (decrypts) or
// processing (input proofs).
type RequestAccepted struct {
	EventHeader
	Kind        Kind    `json:"kind"`
	Status      Status  `json:"status"`
	ContentHash string  `json:"contentHash"`
	Request     Request `json:"request"`
	// RetryOf names the ended job an operator's retry created this one from; absent for a
	// submission.
	RetryOf *RetryOf `json:"retryOf,omitempty"`
}

// RetryOf links a job created by an operator's retry to the ended job it retries: the job, who
// retried it (the admin token's identity, never the token) and why.
type RetryOf struct {
	JobID  JobID  `json:"jobId"`
	Who    string `json:"who"`
	Reason string `json:"reason"`
}

// ReadinessCheckStarted records that a readiness worker picked the job up; the job leaves the
// readiness queue. It does not change the status. After a restart it may be recorded again.
type ReadinessCheckStarted struct {
	EventHeader
}

// ReadinessPassed: every ACL and gateway readiness check passed (queued -> processing).
type ReadinessPassed struct {
	EventHeader
}

// ReadinessTimedOut: readiness was not reached in time (queued -> timed_out).
type ReadinessTimedOut struct {
	EventHeader
}

// ReadinessFailed: ACL denied or readiness failed for good (queued -> failure).
type ReadinessFailed struct {
	EventHeader
	Label   string `json:"label"`
	Message string `json:"message"`
}

// TransactionSigned records the signed gateway transaction before it is broadcast
// (processing -> tx_in_flight), so that recovery re-sends the same bytes and never a second
// request.
type TransactionSigned struct {
	EventHeader
	From   string `json:"from"`
	Nonce  uint64 `json:"nonce"`
	TxHash string `json:"txHash"`
	// RawTx is the signed transaction, 0x-prefixed hex.
	RawTx string `json:"rawTx"`
	// StartedAt is when the transaction's start was granted by the kind's rate (D), before it was
	// prepared: the rate holds over these times. At is when it was signed. Zero in events recorded
	// before the two were told apart (At was then the start).
	StartedAt time.Time `json:"startedAt,omitzero"`
}

// TransactionReplaced records a replacement of the job's transaction in flight, signed and
// recorded before it is broadcast: the same nonce, call and gas limit with higher fees, because
// the transaction before it was not mined in time (a fee bump). Any of the job's transactions of
// that nonce may be the one mined, never two of them (they share the nonce), so the job still has
// at most one gateway request on chain, and the receipt of any of them is the job's. It does
// not change the status.
type TransactionReplaced struct {
	EventHeader
	// Replaces is the hash of the transaction replaced: the job's latest before this one.
	Replaces string `json:"replaces"`
	TxHash   string `json:"txHash"`
	// RawTx is the signed replacement, 0x-prefixed hex.
	RawTx string `json:"rawTx"`
	// GasFeeCap and GasTipCap are the replacement's fees per gas, in wei (decimal).
	GasFeeCap string `json:"gasFeeCap"`
	GasTipCap string `json:"gasTipCap"`
	// Cancel marks a no-op: a transfer of nothing from the key to itself, which carries out the
	// operator's cancel (CancelRequested). If it is the transaction mined, nothing reached the
	// gateway and the job ends cancelled (JobCancelled).
	Cancel bool `json:"cancel,omitempty"`
}

// RetryScheduled records that a step of the job failed for a reason that passes (the node
// unreachable or overloaded, rate limited) and is tried again at NextAt, on the long-tail
// schedule: the job waits, it is not failed. The job's Retry-After follows NextAt. It does not
// change the status.
type RetryScheduled struct {
	EventHeader
	// Step is what is tried again: "readiness" (a queued decrypt's readiness check) or
	// "prepare" (building and signing the transaction).
	Step string `json:"step"`
	// Attempt counts the retries of the step so far, this one included (1 for the first).
	Attempt int    `json:"attempt"`
	Reason  string `json:"reason"`
	// Label is what the job fails with if its processing deadline comes before the step
	// succeeds (protocol_paused, gateway_not_reachable).
	Label string `json:"label,omitempty"`
	// NextAt is when the step is tried again, at the latest (sooner when the chain is seen
	// again after an outage).
	NextAt time.Time `json:"nextAt"`
}

// TransactionReset: recovery found the recorded transaction is not on chain and never will be
// (tx_in_flight -> processing).
type TransactionReset struct {
	EventHeader
	TxHash string `json:"txHash"`
	Reason string `json:"reason"`
}

// ReceiptRecorded: the transaction was mined with the gateway's request id
// (tx_in_flight -> receipt_received).
type ReceiptRecorded struct {
	EventHeader
	TxHash           string `json:"txHash"`
	BlockNumber      uint64 `json:"blockNumber"`
	GatewayRequestID string `json:"gatewayRequestId"`
}

// TransactionFailed: the transaction failed for good (processing or tx_in_flight -> failure).
type TransactionFailed struct {
	EventHeader
	TxHash  string `json:"txHash,omitempty"`
	Label   string `json:"label"`
	Message string `json:"message"`
}

// ShareReceived records one KMS node's share of a user decrypt (no status change).
type ShareReceived struct {
	EventHeader
	Share Share `json:"share"`
}

// RequestCompleted: the response (or the share threshold) arrived
// (receipt_received -> completed).
type RequestCompleted struct {
	EventHeader
	Result Result `json:"result"`
}

// ProofRejected: the coprocessors rejected the input proof (receipt_received -> failure; the
// API reports it as accepted:false).
type ProofRejected struct {
	EventHeader
	ExtraData string `json:"extraData"`
}

// ResponseTimedOut: no response within the response timeout (receipt_received -> timed_out).
type ResponseTimedOut struct {
	EventHeader
	// Shares is how many user decrypt shares had arrived.
	Shares int `json:"shares"`
}

// RequestFailed: an internal error that cannot be retried (any non-terminal -> failure).
type RequestFailed struct {
	EventHeader
	Label   string `json:"label"`
	Message string `json:"message"`
}

// JobCancelled: an operator cancelled the job before its transaction was sent (queued or
// processing -> failure, with the label cancelled). Who is the operator's identity (derived
// from the token, never the token), Reason what they gave, From the status the job was
// cancelled in; Message is what the polling client reads (the reason included).
type JobCancelled struct {
	EventHeader
	Label   string `json:"label"`
	Message string `json:"message"`
	Who     string `json:"who"`
	Reason  string `json:"reason"`
	From    Status `json:"from"`
	// NoOpTxHash is, for a job cancelled in tx_in_flight, the cancel's no-op that was mined
	// (empty when the nonce went to none of the job's transactions).
	NoOpTxHash string `json:"noOpTxHash,omitempty"`
}

// CancelRequested: an operator asked to cancel a job whose transaction is in flight (TxHash,
// the latest when asked). It changes no status: the engine signs a no-op at the transaction's
// nonce, records it (TransactionReplaced with Cancel) and sends it; if the no-op is mined the job
// ends cancelled (JobCancelled), if the job's transaction is mined first the job goes on as
// usual, and its history shows both.
type CancelRequested struct {
	EventHeader
	Who    string `json:"who"`
	Reason string `json:"reason"`
	TxHash string `json:"txHash"`
}

// RetryRequested: an operator made a queued or processing job that waited on a backoff due now
// (From, the status; WasDueAt, when it was due). It changes no status; the engine takes the job up.
type RetryRequested struct {
	EventHeader
	Who      string    `json:"who"`
	Reason   string    `json:"reason"`
	From     Status    `json:"from"`
	WasDueAt time.Time `json:"wasDueAt"`
}

// JobRetried: an operator retried this ended job (failure or timed_out) as a new job, NewJobID,
// whose RequestAccepted names this one. It changes no status: the one event a terminal job
// accepts, once, so that its history links to the new job.
type JobRetried struct {
	EventHeader
	NewJobID JobID  `json:"newJobId"`
	Who      string `json:"who"`
	Reason   string `json:"reason"`
}

func (CancelRequested) EventType() string { return "CancelRequested" }
func (RetryRequested) EventType() string  { return "RetryRequested" }
func (JobRetried) EventType() string      { return "JobRetried" }

func (JobCancelled) EventType() string          { return "JobCancelled" }
func (RequestAccepted) EventType() string       { return "RequestAccepted" }
func (ReadinessCheckStarted) EventType() string { return "ReadinessCheckStarted" }
func (ReadinessPassed) EventType() string       { return "ReadinessPassed" }
func (ReadinessTimedOut) EventType() string     { return "ReadinessTimedOut" }
func (ReadinessFailed) EventType() string       { return "ReadinessFailed" }
func (TransactionSigned) EventType() string     { return "TransactionSigned" }
func (TransactionReset) EventType() string      { return "TransactionReset" }
func (TransactionReplaced) EventType() string   { return "TransactionReplaced" }
func (RetryScheduled) EventType() string        { return "RetryScheduled" }
func (ReceiptRecorded) EventType() string       { return "ReceiptRecorded" }
func (TransactionFailed) EventType() string     { return "TransactionFailed" }
func (ShareReceived) EventType() string         { return "ShareReceived" }
func (RequestCompleted) EventType() string      { return "RequestCompleted" }
func (ProofRejected) EventType() string         { return "ProofRejected" }
func (ResponseTimedOut) EventType() string      { return "ResponseTimedOut" }
func (RequestFailed) EventType() string         { return "RequestFailed" }

// EventPrototypes returns one zero value of every event type, for registering them with a codec.
func EventPrototypes() []Event {
	return []Event{
		RequestAccepted{}, ReadinessCheckStarted{}, ReadinessPassed{}, ReadinessTimedOut{},
		ReadinessFailed{}, TransactionSigned{}, TransactionReset{}, ReceiptRecorded{},
		TransactionFailed{}, ShareReceived{}, RequestCompleted{}, ProofRejected{},
		ResponseTimedOut{}, RequestFailed{}, TransactionReplaced{}, RetryScheduled{}, JobCancelled{},
		CancelRequested{}, RetryRequested{}, JobRetried{},
	}
}

// LabelOf is the label an event ends its job with (see the Label constants), and "" for events
// that do not end a job in failure or a timeout.
func LabelOf(e Event) string {
	switch e := e.(type) {
	case ReadinessFailed:
		return e.Label
	case TransactionFailed:
		return e.Label
	case RequestFailed:
		return e.Label
	case JobCancelled:
		return e.Label
	case ReadinessTimedOut:
		return LabelReadinessCheckTimedOut
	case ResponseTimedOut:
		return LabelResponseTimedOut
	case ProofRejected:
		return LabelProofRejected
	}
	return ""
}

// StatusAfter is the status an event moves its job to, and false for events that do not change
// the status (ReadinessCheckStarted, ShareReceived).
func StatusAfter(e Event) (Status, bool) {
	switch e := e.(type) {
	case RequestAccepted:
		return e.Status, true
	case ReadinessPassed, TransactionReset:
		return Processing, true
	case ReadinessTimedOut, ResponseTimedOut:
		return TimedOut, true
	case ReadinessFailed, TransactionFailed, ProofRejected, RequestFailed, JobCancelled:
		return Failure, true
	case TransactionSigned:
		return TxInFlight, true
	case ReceiptRecorded:
		return ReceiptReceived, true
	case RequestCompleted:
		return Completed, true
	default:
		return Status{}, false
	}
}
