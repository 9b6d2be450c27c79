package retryafter

import "fmt"

// Kind is the request kind, as far as the Retry-After policy cares: input proofs have one queue,
// decrypts two. It is closed: the zero Kind is "no kind" and no other value can be made outside
// this package. Names match relayer/domain's Kind.String.
type Kind struct{ k uint8 }

var (
	InputProof    = Kind{1}
	UserDecrypt   = Kind{2}
	PublicDecrypt = Kind{3}
)

var kindNames = [...]string{"", "input-proof", "user-decrypt", "public-decrypt"}

// Kinds lists every kind.
func Kinds() []Kind { return []Kind{InputProof, UserDecrypt, PublicDecrypt} }

// ParseKind reads a kind's name ("input-proof", "user-decrypt", "public-decrypt").
func ParseKind(s string) (Kind, error) {
	for i := 1; i < len(kindNames); i++ {
		if kindNames[i] == s {
			return Kind{uint8(i)}, nil
		}
	}
	return Kind{}, fmt.Errorf("unknown request kind %q (want input-proof, user-decrypt or public-decrypt)", s)
}

func (k Kind) String() string {
	if k.k != 0 && int(k.k) < len(kindNames) {
		return kindNames[k.k]
	}
	return "unknown"
}

// IsZero reports whether k is the zero Kind.
func (k Kind) IsZero() bool { return k.k == 0 }

// Decrypt reports whether the kind goes through the readiness queue (the two-queue formulas).
func (k Kind) Decrypt() bool { return k == UserDecrypt || k == PublicDecrypt }

// Status is where a job is in its lifecycle. Closed like Kind; names match relayer/domain.
type Status struct{ s uint8 }

var (
	Queued          = Status{1}
	Processing      = Status{2}
	TxInFlight      = Status{3}
	ReceiptReceived = Status{4}
	Completed       = Status{5}
	TimedOut        = Status{6}
	Failure         = Status{7}
)

var statusNames = [...]string{"", "queued", "processing", "tx_in_flight", "receipt_received", "completed", "timed_out", "failure"}

// Statuses lists every status in lifecycle order.
func Statuses() []Status {
	return []Status{Queued, Processing, TxInFlight, ReceiptReceived, Completed, TimedOut, Failure}
}

// ParseStatus reads a status's name ("queued", "tx_in_flight", ...).
func ParseStatus(s string) (Status, error) {
	for i := 1; i < len(statusNames); i++ {
		if statusNames[i] == s {
			return Status{uint8(i)}, nil
		}
	}
	return Status{}, fmt.Errorf("unknown status %q", s)
}

func (s Status) String() string {
	if s.s != 0 && int(s.s) < len(statusNames) {
		return statusNames[s.s]
	}
	return "none"
}

// IsZero reports whether s is the zero Status.
func (s Status) IsZero() bool { return s.s == 0 }

// Terminal reports whether the job is over (completed, timed_out, failure): nothing to poll for.
func (s Status) Terminal() bool { return s == Completed || s == TimedOut || s == Failure }

// Stage says where a decrypt is inside its status, which picks the row of the seed's two-queue
// table. The zero Stage, StageAuto, lets Compute pick from the status: a queued decrypt is taken
// to be in the readiness queue, a processing one in the TX queue. Input proofs ignore Stage (they
// have one queue).
type Stage struct{ s uint8 }

var (
	// StageAuto: derive the stage from the status (see Stage).
	StageAuto = Stage{0}
	// StageReadinessQueue: a queued decrypt waiting for a readiness worker; Position is its place
	// in the readiness queue. Formula: p/C + Q/D + P + T.
	StageReadinessQueue = Stage{1}
	// StageReadinessInProgress: a queued decrypt whose readiness check is running. The seed has no
	// row for it; it gets the "out of readiness, not in TX" row, R + Q/D + P + T, because what is
	// left is at most one readiness check, the whole TX queue, processing and confirmation.
	StageReadinessInProgress = Stage{2}
	// StageAwaitingTxQueue: a processing decrypt that left readiness but is not (yet) seen in the
	// TX queue. Formula, as the seed has it: R + Q/D + P + T.
	StageAwaitingTxQueue = Stage{3}
	// StageTxQueue: a processing decrypt in the TX queue; Position is its place there.
	// Formula: p/D + P + T.
	StageTxQueue = Stage{4}
)

var stageNames = [...]string{"auto", "readiness_queue", "readiness_in_progress", "awaiting_tx_queue", "tx_queue"}

// Stages lists every stage, StageAuto first.
func Stages() []Stage {
	return []Stage{StageAuto, StageReadinessQueue, StageReadinessInProgress, StageAwaitingTxQueue, StageTxQueue}
}

// ParseStage reads a stage's name ("auto", "readiness_queue", ...).
func ParseStage(s string) (Stage, error) {
	for i := range stageNames {
		if stageNames[i] == s {
			return Stage{uint8(i)}, nil
		}
	}
	return Stage{}, fmt.Errorf("unknown stage %q", s)
}

func (s Stage) String() string {
	if int(s.s) < len(stageNames) {
		return stageNames[s.s]
	}
	return "unknown"
}
