package retryafter

import (
	"fmt"

	"relayer/domain"
)

// Kind and Status are the domain's own types: the policy needs a kind's queue structure
// (NeedsReadiness: decrypts have the two-queue formulas) and whether a status is terminal.
type (
	Kind   = domain.Kind
	Status = domain.Status
)

// The kinds and statuses, under the names the policy's callers and tables use.
var (
	InputProof    = domain.InputProof
	UserDecrypt   = domain.UserDecrypt
	PublicDecrypt = domain.PublicDecrypt

	Queued          = domain.Queued
	Processing      = domain.Processing
	TxInFlight      = domain.TxInFlight
	ReceiptReceived = domain.ReceiptReceived
	Completed       = domain.Completed
	TimedOut        = domain.TimedOut
	Failure         = domain.Failure
)

// Stage says where a decrypt is inside its status, which picks the row of the seed's two-queue
// table. The zero Stage, StageAuto, lets Compute pick from the status: a queued decrypt is taken
// to be in the readiness queue, a processing one in the TX queue. Input proofs ignore Stage (they
// have one queue).
type Stage struct{ s uint8 }

var (
	// StageAuto: derive the stage from the status (see Stage).
	StageAuto = Stage{0}
	// StageReadinessQueue: a queued decrypt waiting for a readiness worker; Position is its place
	// in the readiness queue. Formula: p/C + R + Q/D + P + T (the seed's row has no R: the job
	// still has its own readiness check ahead once it leaves the queue).
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
