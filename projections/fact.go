package projections

import (
	"encoding/json"
	"fmt"

	"relayer/domain"
	"relayer/eventstore"
)

// eventType numbers the domain's event types for the projections.
type eventType uint8

const (
	evNone eventType = iota // a record the projections skip (not a request stream)
	evRequestAccepted
	evReadinessCheckStarted
	evReadinessPassed
	evReadinessTimedOut
	evReadinessFailed
	evTransactionSigned
	evTransactionReset
	evReceiptRecorded
	evTransactionFailed
	evShareReceived
	evRequestCompleted
	evProofRejected
	evResponseTimedOut
	evRequestFailed
	evTransactionReplaced
	evRetryScheduled
	evJobCancelled
	evCancelRequested
	evRetryRequested
	evJobRetried
	numEventTypes
)

var eventTypeNames = [numEventTypes]string{
	"", "RequestAccepted", "ReadinessCheckStarted", "ReadinessPassed", "ReadinessTimedOut",
	"ReadinessFailed", "TransactionSigned", "TransactionReset", "ReceiptRecorded",
	"TransactionFailed", "ShareReceived", "RequestCompleted", "ProofRejected",
	"ResponseTimedOut", "RequestFailed", "TransactionReplaced", "RetryScheduled",
	"JobCancelled", "CancelRequested", "RetryRequested", "JobRetried",
}

func eventTypeOf(name string) eventType {
	for t := evRequestAccepted; t < numEventTypes; t++ {
		if eventTypeNames[t] == name {
			return t
		}
	}
	return evNone
}

// statusAfter mirrors domain.StatusAfter per event type (a test holds them equal); the zero
// Status means the event does not change the status. RequestAccepted's status is in the event.
var statusAfter = [numEventTypes]domain.Status{
	evReadinessPassed:   domain.Processing,
	evReadinessTimedOut: domain.TimedOut,
	evReadinessFailed:   domain.Failure,
	evTransactionSigned: domain.TxInFlight,
	evTransactionReset:  domain.Processing,
	evReceiptRecorded:   domain.ReceiptReceived,
	evTransactionFailed: domain.Failure,
	evRequestCompleted:  domain.Completed,
	evProofRejected:     domain.Failure,
	evResponseTimedOut:  domain.TimedOut,
	evRequestFailed:     domain.Failure,
	evJobCancelled:      domain.Failure,
}

// fact is what the projections take from one event: its type and the few fields the read
// models keep. The byte slices may point into the record's data, so a fact lives no longer than
// its record.
type fact struct {
	typ eventType
	job domain.JobID
	at  int64 // unix nanoseconds; 0 for the zero time
	// RequestAccepted
	kind        domain.Kind
	status      domain.Status
	contentHash []byte
	// RequestAccepted: the request's parties (see parties.go), and whether the fast decoder met
	// a request member already
	users, contracts []byte
	sawRequest       bool
	// TransactionSigned, TransactionReplaced, ReceiptRecorded, TransactionFailed
	txHash []byte
	// ReceiptRecorded
	gatewayRequestID []byte
	// ReadinessFailed, TransactionFailed, RequestFailed
	label, message []byte
	// RequestCompleted: the result's JSON as stored; ProofRejected: extraData
	result    []byte
	extraData []byte
	// RetryScheduled: when the step is tried again (unix nanoseconds)
	nextAt int64
}

// factOf returns the fact of event e, which is rec decoded.
//
// A completed job's result is kept as the JSON stored in rec (see resultJSON), so that it is
// the same bytes whichever decoder read the record.
func (d *decoder) factOf(rec *eventstore.Record, e domain.Event) (fact, error) {
	h := e.Header()
	f := fact{typ: eventTypeOf(e.EventType()), job: h.JobID, at: unixNanos(h)}
	switch e := e.(type) {
	case domain.RequestAccepted:
		f.kind, f.status, f.contentHash = e.Kind, e.Status, []byte(e.ContentHash)
		f.users, f.contracts = requestParties(e.Request)
	case domain.ReadinessFailed:
		f.label, f.message = []byte(e.Label), []byte(e.Message)
	case domain.TransactionSigned:
		f.txHash = []byte(e.TxHash)
	case domain.TransactionReplaced:
		f.txHash = []byte(e.TxHash)
	case domain.RetryScheduled:
		f.nextAt = unixNanos(domain.EventHeader{At: e.NextAt})
	case domain.ReceiptRecorded:
		f.txHash, f.gatewayRequestID = []byte(e.TxHash), []byte(e.GatewayRequestID)
	case domain.TransactionFailed:
		f.txHash, f.label, f.message = []byte(e.TxHash), []byte(e.Label), []byte(e.Message)
	case domain.RequestCompleted:
		r, err := d.resultJSON(rec, e)
		if err != nil {
			return fact{}, err
		}
		f.result = r
	case domain.ProofRejected:
		f.extraData = []byte(e.ExtraData)
	case domain.RequestFailed:
		f.label, f.message = []byte(e.Label), []byte(e.Message)
	case domain.JobCancelled:
		f.label, f.message = []byte(e.Label), []byte(e.Message)
	}
	if f.typ == evNone {
		return fact{}, &eventstore.RecordError{Stream: rec.Stream, Version: rec.Version, Position: rec.Position,
			Err: fmt.Errorf("%w: the projections do not know %s", eventstore.ErrUnknownEventType, e.EventType())}
	}
	return f, nil
}

// resultJSON returns the result of a completion as it is stored in rec when decodeFast can read
// rec, and as encoding/json writes e.Result otherwise (an old schema version, escaped keys).
// Either way the choice depends on rec alone, not on which decoder read it, so every reader of
// the same log keeps the same bytes.
func (d *decoder) resultJSON(rec *eventstore.Record, e domain.RequestCompleted) ([]byte, error) {
	if d.layoutKnown[evRequestCompleted] && rec.SchemaVersion == fastSchemaVersion {
		var f fact
		if err := decodeFast(rec, evRequestCompleted, &f); err == nil {
			return f.result, nil
		}
	}
	b, err := json.Marshal(e.Result)
	if err != nil {
		return nil, &eventstore.RecordError{Stream: rec.Stream, Version: rec.Version, Position: rec.Position,
			Err: fmt.Errorf("%w: encode result: %v", eventstore.ErrCorruptRecord, err)}
	}
	return b, nil
}

func unixNanos(h domain.EventHeader) int64 {
	if h.At.IsZero() {
		return 0
	}
	return h.At.UnixNano()
}
