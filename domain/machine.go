package domain

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Command asks for a change to one request. Every command carries the time it is decided at.
type Command interface {
	CommandName() string
	Time() time.Time
}

// At is embedded in every command: the time the command is decided at.
type At struct{ At time.Time }

// Time returns the command's time.
func (a At) Time() time.Time { return a.At }

// Accept starts a request: the payload was validated and the content hash computed.
type Accept struct {
	At
	JobID       JobID
	Request     Request
	ContentHash string
	// RetryOf, when set, is the ended job an operator's retry creates this one from.
	RetryOf *RetryOf
}

// StartReadiness records that a readiness worker picked a decrypt up.
type StartReadiness struct{ At }

// PassReadiness moves a decrypt that passed every readiness check to processing.
type PassReadiness struct{ At }

// TimeOutReadiness ends a decrypt whose readiness was not reached in time.
type TimeOutReadiness struct{ At }

// FailReadiness ends a decrypt whose ACL check denied it or whose readiness failed for good.
type FailReadiness struct {
	At
	Label, Message string
}

// SignTransaction records the signed transaction about to be broadcast.
type SignTransaction struct {
	At
	From   string
	Nonce  uint64
	TxHash string
	RawTx  string
	// StartedAt is when the rate granted the start (TransactionSigned.StartedAt); may be zero.
	StartedAt time.Time
}

// ReplaceTransaction records a replacement of the job's latest transaction (Replaces): the same
// nonce with higher fees, signed and not yet broadcast (see TransactionReplaced). Cancel marks a
// no-op (a transfer of nothing from the key to itself) that carries out a cancel the operator
// asked for (CancelRequested); only a job with such a request may have one, and once a cancel is
// asked every replacement is a no-op.
type ReplaceTransaction struct {
	At
	Replaces             string
	TxHash               string
	RawTx                string
	GasFeeCap, GasTipCap string
	Cancel               bool
}

// ScheduleRetry records that a queued or processing job's Step failed for a passing reason and
// is tried again at NextAt (see RetryScheduled).
type ScheduleRetry struct {
	At
	Step    string
	Attempt int
	Reason  string
	NextAt  time.Time
	// Label is the failure the job ends with if its processing deadline comes first.
	Label string
}

// ExpireProcessing ends a processing job whose transaction could not be prepared before its
// processing deadline: nothing was signed, so nothing can be on chain (processing -> failure).
type ExpireProcessing struct {
	At
	Label, Message string
}

// ResetTransaction sends a tx_in_flight job back to processing: its recorded transaction is
// known not to be on chain and never will be.
type ResetTransaction struct {
	At
	Reason string
}

// RecordReceipt records the mined transaction and the gateway's request id.
type RecordReceipt struct {
	At
	TxHash           string
	BlockNumber      uint64
	GatewayRequestID string
}

// FailTransaction ends a job whose transaction failed for good.
type FailTransaction struct {
	At
	Label, Message string
}

// RecordShare records one KMS share of a user decrypt; the share that reaches Threshold
// distinct signers also completes the job.
type RecordShare struct {
	At
	Share     Share
	Threshold int
}

// Complete ends an input proof (accepted) or a public decrypt with its result.
type Complete struct {
	At
	Result Result
}

// RejectProof ends an input proof the coprocessors rejected.
type RejectProof struct {
	At
	ExtraData string
}

// TimeOutResponse ends a job whose response did not arrive in time.
type TimeOutResponse struct{ At }

// Cancel is an operator's cancellation of a job whose transaction was not mined. A queued or
// processing job ends in failure with the label cancelled (JobCancelled). A tx_in_flight job gets
// a cancel request (CancelRequested) that the engine carries out with a no-op at its
// transaction's nonce: ConfirmCancel ends it if the no-op is mined, its receipt lets it go on if
// its own transaction is. Who and Reason are required. Only, when set, narrows the statuses the
// cancel applies to (a bulk cancel's filter, decided on the job's state in the log, not on a
// read model that may lag it).
type Cancel struct {
	At
	Who, Reason string
	Only        []Status
}

// MaxCancelReason bounds Cancel.Reason and Retry.Reason, in bytes.
const MaxCancelReason = 500

// ConfirmCancel ends a tx_in_flight job whose cancel's no-op was the transaction mined at its
// nonce (TxHash, in BlockNumber): nothing reached the gateway, and the job ends in failure with
// the label cancelled, attributed to the cancel's request.
type ConfirmCancel struct {
	At
	TxHash      string
	BlockNumber uint64
}

// Retry is an operator's retry of a job (Who and Reason required). A queued or processing job
// that waits on a backoff (RetryScheduled with a time still to come) is made due now
// (RetryRequested; the engine takes it up). A job that ended in failure or timed_out is never
// reopened: Decide refuses with ErrEnded, and the caller creates the next job of its content
// (Accept with RetryOf) and links it with LinkRetry. A completed job, or one whose transaction
// is sent, has nothing to retry.
type Retry struct {
	At
	Who, Reason string
}

// LinkRetry records, on a job that ended in failure or timed_out, the new job an operator's
// retry created from its request (NewJob, whose RequestAccepted names this job). It changes no
// status: an annotation, the one event a terminal job accepts, once.
type LinkRetry struct {
	At
	Who, Reason string
	NewJob      JobID
}

// Fail ends a job on an internal error that cannot be retried.
type Fail struct {
	At
	Label, Message string
}

func (Accept) CommandName() string             { return "accept" }
func (StartReadiness) CommandName() string     { return "start readiness" }
func (PassReadiness) CommandName() string      { return "pass readiness" }
func (TimeOutReadiness) CommandName() string   { return "time out readiness" }
func (FailReadiness) CommandName() string      { return "fail readiness" }
func (SignTransaction) CommandName() string    { return "sign transaction" }
func (ResetTransaction) CommandName() string   { return "reset transaction" }
func (ReplaceTransaction) CommandName() string { return "replace transaction" }
func (ScheduleRetry) CommandName() string      { return "schedule retry" }
func (ExpireProcessing) CommandName() string   { return "expire processing" }
func (RecordReceipt) CommandName() string      { return "record receipt" }
func (FailTransaction) CommandName() string    { return "fail transaction" }
func (RecordShare) CommandName() string        { return "record share" }
func (Complete) CommandName() string           { return "complete" }
func (RejectProof) CommandName() string        { return "reject proof" }
func (TimeOutResponse) CommandName() string    { return "time out response" }
func (Fail) CommandName() string               { return "fail" }
func (Cancel) CommandName() string             { return "cancel" }
func (ConfirmCancel) CommandName() string      { return "confirm cancel" }
func (Retry) CommandName() string              { return "retry" }
func (LinkRetry) CommandName() string          { return "link retry" }

// State is a request as its events leave it. The zero State is a stream with no events.
type State struct {
	JobID       JobID
	Kind        Kind
	Status      Status
	ContentHash string
	Request     Request
	// Events is how many events the stream holds; the stream's version is Events-1.
	Events int
	// EnteredAt is when the job entered its current status.
	EnteredAt time.Time
	// Retries is how many retries of a step were scheduled in the current status
	// (RetryScheduled.Attempt of the latest), and RetryAt when the latest is due.
	Retries          int
	RetryAt          time.Time
	RetryLabel       string
	ReadinessStarted bool
	From             string
	Nonce            uint64
	TxHash           string
	RawTx            string
	// Replaced are the transactions of the same nonce that the latest (TxHash, RawTx) replaced,
	// oldest first: any of them may still be the one mined.
	Replaced         []SentTx
	GatewayRequestID string
	Shares           []Share
	Result           *Result
	Label            string
	Message          string
	// Cancelling is the operator's cancel of a tx_in_flight job (CancelRequested), while its
	// no-op races the job's transaction; CancelTx is the no-op's hash once one is recorded.
	Cancelling *CancelRequested
	CancelTx   string
	noOps      []string
	// RetryOf is the ended job this one was created from by a retry; RetriedAs the job a retry
	// created from this one (JobRetried).
	RetryOf   *RetryOf
	RetriedAs JobID
	// CorrelationID is the correlation id the job's acceptance was recorded with (the client's
	// X-Correlation-ID, or its request's id): not an event's field but the log's metadata, set
	// by whoever folds the stream from the log (projections.Executor), so that every later event
	// of the job and every log line about it carries it. The domain never reads it.
	CorrelationID string
}

// SentTx is one signed transaction of a job: its hash and its raw bytes (0x-prefixed hex).
type SentTx struct {
	TxHash, RawTx string
}

// Sent returns the job's transactions of its current nonce, the latest first: the one it sends
// now, then the ones it replaced, newest first. Empty when no transaction is in flight.
func (s State) Sent() []SentTx {
	if s.TxHash == "" {
		return nil
	}
	out := make([]SentTx, 0, 1+len(s.Replaced))
	out = append(out, SentTx{s.TxHash, s.RawTx})
	for i := len(s.Replaced) - 1; i >= 0; i-- {
		out = append(out, s.Replaced[i])
	}
	return out
}

// sent tells whether hash is one of the job's transactions of its current nonce.
func (s State) sent(hash string) bool {
	for _, t := range s.Sent() {
		if t.TxHash == hash {
			return true
		}
	}
	return false
}

var (
	// ErrIllegalTransition reports a command the job's status does not allow. A terminal job
	// rejects every command with an error that matches both this and ErrTerminal.
	ErrIllegalTransition = errors.New("illegal transition")
	// ErrTerminal reports a command on a job that has reached a terminal status.
	ErrTerminal = errors.New("job is terminal")
	// ErrNoRequest reports a command on a stream that holds no request.
	ErrNoRequest = errors.New("no such request")
	// ErrAlreadyAccepted reports Accept on a stream that already holds a request.
	ErrAlreadyAccepted = errors.New("request already accepted")
	// ErrWrongKind reports a command that does not apply to the job's kind.
	ErrWrongKind = errors.New("command does not apply to this request kind")
	// ErrDuplicateShare reports a share from a signer whose share is already recorded.
	ErrDuplicateShare = errors.New("duplicate share")
	// ErrInvalidCommand reports a command missing what it must carry.
	ErrInvalidCommand = errors.New("invalid command")
	// ErrAlreadySent: the job's transaction was sent: a cancel can no longer stop it once its
	// receipt is recorded, and a retry has nothing to retry while it is on its way.
	ErrAlreadySent = errors.New("the job's transaction was already sent")
	// ErrCancelPending: a cancel of the job's transaction in flight is already under way.
	ErrCancelPending = errors.New("a cancel of the job is already under way")
	// ErrNotWaiting: a retry of a queued or processing job that waits on no backoff.
	ErrNotWaiting = errors.New("the job waits on no backoff")
	// ErrEnded: a retry of a job that ended in failure or timed_out, which is never reopened:
	// the retry is a new job (Accept with RetryOf, then LinkRetry).
	ErrEnded = errors.New("the job has ended; a retry creates a new job")
	// ErrCompleted: a retry of a completed job.
	ErrCompleted = errors.New("the job completed")
	// ErrAlreadyRetried: a retry of an ended job that a retry already created a new job from.
	ErrAlreadyRetried = errors.New("the job was already retried")
)

// TransitionError says which command met which status.
type TransitionError struct {
	Command string
	Kind    Kind
	Status  Status
}

func (e *TransitionError) Error() string {
	if e.Status.Terminal() {
		return fmt.Sprintf("%s: %s job is terminal (%s)", e.Command, e.Kind, e.Status)
	}
	return fmt.Sprintf("%s: not allowed for a %s job in %s", e.Command, e.Kind, e.Status)
}

func (e *TransitionError) Is(target error) bool {
	return target == ErrIllegalTransition || (target == ErrTerminal && e.Status.Terminal())
}

// transitions is DESIGN section 3's table: for each kind, the statuses each status may move to.
var transitions = map[Kind]map[Status][]Status{
	PublicDecrypt: decryptTransitions,
	UserDecrypt:   decryptTransitions,
	// A delegated user decrypt goes the way of every decrypt.
	DelegatedUserDecrypt: decryptTransitions,
	InputProof: {
		Processing:      {TxInFlight, Failure},
		TxInFlight:      {Processing, ReceiptReceived, Failure},
		ReceiptReceived: {Completed, TimedOut, Failure},
	},
}

var decryptTransitions = map[Status][]Status{
	Queued:          {Processing, TimedOut, Failure},
	Processing:      {TxInFlight, Failure},
	TxInFlight:      {Processing, ReceiptReceived, Failure},
	ReceiptReceived: {Completed, TimedOut, Failure},
}

// CanTransition reports whether a job of kind k may move from one status to another.
func CanTransition(k Kind, from, to Status) bool {
	return slices.Contains(transitions[k][from], to)
}

// Decide returns the events a command produces on a job in state s, or a typed error and no
// events. It never changes s.
func Decide(s State, c Command) ([]Event, error) {
	if a, ok := c.(Accept); ok {
		return decideAccept(s, a)
	}
	if s.Status.IsZero() {
		return nil, fmt.Errorf("%s: %w", c.CommandName(), ErrNoRequest)
	}
	h := EventHeader{JobID: s.JobID, At: c.Time()}
	illegal := func() ([]Event, error) {
		return nil, &TransitionError{Command: c.CommandName(), Kind: s.Kind, Status: s.Status}
	}
	// move checks the transition table and returns the single event e.
	move := func(to Status, e Event) ([]Event, error) {
		if !CanTransition(s.Kind, s.Status, to) {
			return illegal()
		}
		return []Event{e}, nil
	}
	switch c := c.(type) {
	case Retry:
		return decideRetry(s, h, c)
	case LinkRetry:
		if c.Who == "" || c.NewJob.IsZero() || c.NewJob == s.JobID {
			return nil, fmt.Errorf("%s: %w: who and another job are required", c.CommandName(), ErrInvalidCommand)
		}
		if s.Status != Failure && s.Status != TimedOut {
			return illegal()
		}
		if !s.RetriedAs.IsZero() {
			return nil, fmt.Errorf("%s: %w as %s", c.CommandName(), ErrAlreadyRetried, s.RetriedAs)
		}
		return []Event{JobRetried{h, c.NewJob, c.Who, c.Reason}}, nil
	}
	if s.Status.Terminal() {
		return illegal()
	}
	// queuedReadiness checks a readiness command: the job's kind has a readiness stage, and the
	// job is queued.
	queuedReadiness := func() error {
		if !s.Kind.NeedsReadiness() {
			return fmt.Errorf("%s on %s: %w", c.CommandName(), s.Kind, ErrWrongKind)
		}
		if s.Status != Queued {
			_, err := illegal()
			return err
		}
		return nil
	}

	switch c := c.(type) {
	case StartReadiness:
		if err := queuedReadiness(); err != nil {
			return nil, err
		}
		return []Event{ReadinessCheckStarted{h}}, nil
	case PassReadiness:
		if err := queuedReadiness(); err != nil {
			return nil, err
		}
		return move(Processing, ReadinessPassed{h})
	case TimeOutReadiness:
		if err := queuedReadiness(); err != nil {
			return nil, err
		}
		return move(TimedOut, ReadinessTimedOut{h})
	case FailReadiness:
		if err := queuedReadiness(); err != nil {
			return nil, err
		}
		if c.Label == "" {
			return nil, fmt.Errorf("%s: %w: no label", c.CommandName(), ErrInvalidCommand)
		}
		return move(Failure, ReadinessFailed{h, c.Label, c.Message})
	case SignTransaction:
		if c.TxHash == "" || c.RawTx == "" || c.From == "" {
			return nil, fmt.Errorf("%s: %w: tx hash, raw transaction and sender are required", c.CommandName(), ErrInvalidCommand)
		}
		if s.Status != Processing {
			return illegal()
		}
		return move(TxInFlight, TransactionSigned{h, c.From, c.Nonce, c.TxHash, c.RawTx, c.StartedAt})
	case ReplaceTransaction:
		if c.TxHash == "" || c.RawTx == "" || c.Replaces == "" {
			return nil, fmt.Errorf("%s: %w: tx hash, raw transaction and the replaced hash are required", c.CommandName(), ErrInvalidCommand)
		}
		if s.Status != TxInFlight {
			return illegal()
		}
		if c.Replaces != s.TxHash {
			return nil, fmt.Errorf("%s: %w: replaces %s, but the job's latest transaction is %s", c.CommandName(), ErrInvalidCommand, c.Replaces, s.TxHash)
		}
		if s.sent(c.TxHash) {
			return nil, fmt.Errorf("%s: %w: %s is already one of the job's transactions", c.CommandName(), ErrInvalidCommand, c.TxHash)
		}
		if c.Cancel && s.Cancelling == nil {
			return nil, fmt.Errorf("%s: %w: a no-op replacement needs a cancel request", c.CommandName(), ErrInvalidCommand)
		}
		if !c.Cancel && s.Cancelling != nil {
			// Once a cancel is asked, only its no-op replaces the job's transaction: a fee bump
			// of the gateway request would race the cancel it was asked to lose to.
			return nil, fmt.Errorf("%s: %w: a cancel of the job is under way; only its no-op may replace the transaction", c.CommandName(), ErrInvalidCommand)
		}
		return []Event{TransactionReplaced{h, c.Replaces, c.TxHash, c.RawTx, c.GasFeeCap, c.GasTipCap, c.Cancel}}, nil
	case ScheduleRetry:
		if c.Step == "" || c.Attempt < 1 || c.NextAt.IsZero() {
			return nil, fmt.Errorf("%s: %w: a step, an attempt of at least 1 and the next attempt's time are required", c.CommandName(), ErrInvalidCommand)
		}
		if s.Status != Processing && s.Status != Queued {
			return illegal()
		}
		return []Event{RetryScheduled{h, c.Step, c.Attempt, c.Reason, c.Label, c.NextAt}}, nil
	case ExpireProcessing:
		if c.Label == "" {
			return nil, fmt.Errorf("%s: %w: no label", c.CommandName(), ErrInvalidCommand)
		}
		if s.Status != Processing {
			return illegal()
		}
		return move(Failure, TransactionFailed{h, "", c.Label, c.Message})
	case ResetTransaction:
		if s.Status != TxInFlight {
			return illegal()
		}
		if s.Cancelling != nil {
			// None of the job's transactions can be mined: nothing reached the gateway, and the
			// operator asked for the job to end.
			return move(Failure, s.cancelled(h, "", "its transaction can never be mined ("+c.Reason+")"))
		}
		return move(Processing, TransactionReset{h, s.TxHash, c.Reason})
	case RecordReceipt:
		if c.GatewayRequestID == "" || c.TxHash == "" {
			return nil, fmt.Errorf("%s: %w: tx hash and gateway request id are required", c.CommandName(), ErrInvalidCommand)
		}
		if s.Status != TxInFlight {
			return illegal()
		}
		if !s.sent(c.TxHash) {
			return nil, fmt.Errorf("%s: %w: receipt for %s, job recorded %s", c.CommandName(), ErrInvalidCommand, c.TxHash, s.TxHash)
		}
		if s.isNoOp(c.TxHash) {
			return nil, fmt.Errorf("%s: %w: %s is a cancel's no-op, not a gateway request (ConfirmCancel records it)", c.CommandName(), ErrInvalidCommand, c.TxHash)
		}
		return move(ReceiptReceived, ReceiptRecorded{h, c.TxHash, c.BlockNumber, c.GatewayRequestID})
	case FailTransaction:
		if c.Label == "" {
			return nil, fmt.Errorf("%s: %w: no label", c.CommandName(), ErrInvalidCommand)
		}
		if s.Status != Processing && s.Status != TxInFlight {
			return illegal()
		}
		return move(Failure, TransactionFailed{h, s.TxHash, c.Label, c.Message})
	case RecordShare:
		if !s.Kind.CollectsShares() {
			return nil, fmt.Errorf("%s on %s: %w", c.CommandName(), s.Kind, ErrWrongKind)
		}
		if c.Threshold < 1 || c.Share.Signer == "" {
			return nil, fmt.Errorf("%s: %w: a signer and a threshold of at least 1 are required", c.CommandName(), ErrInvalidCommand)
		}
		if s.Status != ReceiptReceived {
			return illegal()
		}
		for _, have := range s.Shares {
			if have.Signer == c.Share.Signer {
				return nil, fmt.Errorf("%s from %s: %w", c.CommandName(), c.Share.Signer, ErrDuplicateShare)
			}
		}
		events := []Event{ShareReceived{h, c.Share}}
		if len(s.Shares)+1 >= c.Threshold {
			shares := make([]UserDecryptShare, 0, len(s.Shares)+1)
			for _, sh := range append(slices.Clip(s.Shares), c.Share) {
				shares = append(shares, UserDecryptShare{Payload: sh.Payload, Signature: sh.Signature, ExtraData: sh.ExtraData})
			}
			events = append(events, RequestCompleted{h, Result{UserDecrypt: &UserDecryptResult{Result: shares}}})
		}
		return events, nil
	case Complete:
		if s.Kind.CollectsShares() {
			return nil, fmt.Errorf("%s on %s (shares complete it): %w", c.CommandName(), s.Kind, ErrWrongKind)
		}
		if c.Result.Kind() != s.Kind {
			return nil, fmt.Errorf("%s: %w: a %s result for a %s job", c.CommandName(), ErrInvalidCommand, c.Result.Kind(), s.Kind)
		}
		if c.Result.InputProof != nil && !c.Result.InputProof.Accepted {
			return nil, fmt.Errorf("%s: %w: a rejected proof is recorded with RejectProof", c.CommandName(), ErrInvalidCommand)
		}
		if s.Status != ReceiptReceived {
			return illegal()
		}
		return move(Completed, RequestCompleted{h, c.Result})
	case RejectProof:
		if s.Kind != InputProof {
			return nil, fmt.Errorf("%s on %s: %w", c.CommandName(), s.Kind, ErrWrongKind)
		}
		if s.Status != ReceiptReceived {
			return illegal()
		}
		return move(Failure, ProofRejected{h, c.ExtraData})
	case TimeOutResponse:
		if s.Status != ReceiptReceived {
			return illegal()
		}
		return move(TimedOut, ResponseTimedOut{h, len(s.Shares)})
	case Cancel:
		if c.Who == "" || strings.TrimSpace(c.Reason) == "" || len(c.Reason) > MaxCancelReason {
			return nil, fmt.Errorf("%s: %w: who and a reason of 1 to %d bytes are required", c.CommandName(), ErrInvalidCommand, MaxCancelReason)
		}
		if len(c.Only) > 0 && !slices.Contains(c.Only, s.Status) {
			return illegal()
		}
		switch {
		case s.Status == ReceiptReceived:
			te := &TransitionError{Command: c.CommandName(), Kind: s.Kind, Status: s.Status}
			return nil, fmt.Errorf("%w: %w", te, ErrAlreadySent)
		case s.Status == TxInFlight && s.Cancelling != nil:
			return nil, fmt.Errorf("%s: %w (asked by %s)", c.CommandName(), ErrCancelPending, s.Cancelling.Who)
		case s.Status == TxInFlight:
			// The transaction is on its way: the engine races it with a no-op at its nonce, and
			// whichever is mined decides (ConfirmCancel, or the receipt as usual).
			return []Event{CancelRequested{h, c.Who, c.Reason, s.TxHash}}, nil
		}
		return move(Failure, JobCancelled{h, LabelCancelled, "cancelled by the relayer's operator: " + c.Reason, c.Who, c.Reason, s.Status, ""})
	case ConfirmCancel:
		if c.TxHash == "" {
			return nil, fmt.Errorf("%s: %w: the no-op's hash is required", c.CommandName(), ErrInvalidCommand)
		}
		if s.Status != TxInFlight {
			return illegal()
		}
		if s.Cancelling == nil || !s.isNoOp(c.TxHash) {
			return nil, fmt.Errorf("%s: %w: %s is not a no-op of the job's cancel", c.CommandName(), ErrInvalidCommand, c.TxHash)
		}
		return move(Failure, s.cancelled(h, c.TxHash, fmt.Sprintf("its no-op %s was mined in block %d", c.TxHash, c.BlockNumber)))
	case Fail:
		if c.Label == "" {
			return nil, fmt.Errorf("%s: %w: no label", c.CommandName(), ErrInvalidCommand)
		}
		return move(Failure, RequestFailed{h, c.Label, c.Message})
	default:
		return nil, fmt.Errorf("%T: %w: unknown command", c, ErrInvalidCommand)
	}
}

// decideRetry decides an operator's retry on any status (see Retry).
func decideRetry(s State, h EventHeader, c Retry) ([]Event, error) {
	if c.Who == "" || strings.TrimSpace(c.Reason) == "" || len(c.Reason) > MaxCancelReason {
		return nil, fmt.Errorf("%s: %w: who and a reason of 1 to %d bytes are required", c.CommandName(), ErrInvalidCommand, MaxCancelReason)
	}
	te := &TransitionError{Command: c.CommandName(), Kind: s.Kind, Status: s.Status}
	switch s.Status {
	case Queued, Processing:
		if !s.RetryAt.After(c.At.At) {
			return nil, fmt.Errorf("%w: %w", te, ErrNotWaiting)
		}
		return []Event{RetryRequested{h, c.Who, c.Reason, s.Status, s.RetryAt}}, nil
	case TxInFlight, ReceiptReceived:
		return nil, fmt.Errorf("%w: %w", te, ErrAlreadySent)
	case Completed:
		return nil, fmt.Errorf("%w: %w", te, ErrCompleted)
	case Failure, TimedOut:
		if !s.RetriedAs.IsZero() {
			return nil, fmt.Errorf("%w: %w as %s", te, ErrAlreadyRetried, s.RetriedAs)
		}
		return nil, fmt.Errorf("%w: %w", te, ErrEnded)
	}
	return nil, te
}

// cancelled is the JobCancelled that ends a tx_in_flight job whose cancel won (noOp: the no-op
// mined, "" when no transaction of the nonce is the job's); why says how it is known.
func (s State) cancelled(h EventHeader, noOp, why string) JobCancelled {
	c := s.Cancelling
	return JobCancelled{h, LabelCancelled, "cancelled by the relayer's operator: " + c.Reason + "; " + why + ", so nothing reached the gateway",
		c.Who, c.Reason, TxInFlight, noOp}
}

// isNoOp tells whether hash is one of the cancel's no-ops.
func (s State) isNoOp(hash string) bool {
	return slices.Contains(s.noOps, hash)
}

func decideAccept(s State, c Accept) ([]Event, error) {
	if !s.Status.IsZero() {
		return nil, fmt.Errorf("%s %s: %w", c.CommandName(), s.JobID, ErrAlreadyAccepted)
	}
	k := c.Request.Kind()
	switch {
	case c.JobID.IsZero():
		return nil, fmt.Errorf("%s: %w: no job id", c.CommandName(), ErrInvalidCommand)
	case k.IsZero():
		return nil, fmt.Errorf("%s: %w: the request must hold exactly one payload", c.CommandName(), ErrInvalidCommand)
	case c.ContentHash == "":
		return nil, fmt.Errorf("%s: %w: no content hash", c.CommandName(), ErrInvalidCommand)
	}
	if c.RetryOf != nil && (c.RetryOf.JobID.IsZero() || c.RetryOf.JobID == c.JobID || c.RetryOf.Who == "") {
		return nil, fmt.Errorf("%s: %w: a retry names another job and who retried it", c.CommandName(), ErrInvalidCommand)
	}
	return []Event{RequestAccepted{
		EventHeader: EventHeader{JobID: c.JobID, At: c.At.At},
		Kind:        k,
		Status:      k.InitialStatus(),
		ContentHash: c.ContentHash,
		Request:     c.Request,
		RetryOf:     c.RetryOf,
	}}, nil
}

// Evolve returns the state after event e. It trusts e: Decide is where rules are checked.
func Evolve(s State, e Event) State {
	s.Events++
	if to, ok := StatusAfter(e); ok && to != s.Status {
		s.Status = to
		s.EnteredAt = e.Header().At
		s.Retries, s.RetryAt, s.RetryLabel = 0, time.Time{}, ""
	}
	switch e := e.(type) {
	case RequestAccepted:
		s.JobID, s.Kind, s.ContentHash, s.Request = e.JobID, e.Kind, e.ContentHash, e.Request
		s.Status, s.EnteredAt = e.Status, e.At
		s.RetryOf = e.RetryOf
	case ReadinessCheckStarted:
		s.ReadinessStarted = true
	case ReadinessFailed:
		s.Message = e.Message
	case TransactionSigned:
		s.From, s.Nonce, s.TxHash, s.RawTx, s.Replaced = e.From, e.Nonce, e.TxHash, e.RawTx, nil
	case RetryScheduled:
		s.Retries, s.RetryAt, s.RetryLabel = e.Attempt, e.NextAt, e.Label
	case TransactionReplaced:
		s.Replaced = append(slices.Clip(s.Replaced), SentTx{s.TxHash, s.RawTx})
		s.TxHash, s.RawTx = e.TxHash, e.RawTx
		if e.Cancel {
			s.CancelTx = e.TxHash
			s.noOps = append(slices.Clip(s.noOps), e.TxHash)
		}
	case CancelRequested:
		c := e
		s.Cancelling = &c
	case RetryRequested:
		s.RetryAt = e.At
	case JobRetried:
		s.RetriedAs = e.NewJobID
	case TransactionReset:
		s.TxHash, s.RawTx, s.Replaced = "", "", nil
	case ReceiptRecorded:
		s.GatewayRequestID = e.GatewayRequestID
	case TransactionFailed:
		s.Message = e.Message
	case ShareReceived:
		s.Shares = append(slices.Clip(s.Shares), e.Share)
	case RequestCompleted:
		r := e.Result
		s.Result = &r
	case ProofRejected:
		s.Result = &Result{InputProof: &InputProofResult{Accepted: false, Handles: []string{}, Signatures: []string{}, ExtraData: e.ExtraData}}
	case RequestFailed:
		s.Message = e.Message
	case JobCancelled:
		s.Message = e.Message
	}
	if label := LabelOf(e); label != "" {
		s.Label = label
	}
	return s
}

// Fold evolves the zero State through events.
func Fold(events []Event) State {
	var s State
	for _, e := range events {
		s = Evolve(s, e)
	}
	return s
}
