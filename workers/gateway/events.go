package gateway

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"relayer/domain"
	"relayer/workers/gateway/contracts"
)

// EventType names a response event; the names are the contracts' event names.
type EventType string

// The response events the listener delivers.
const (
	// PublicDecryptionResponse completes a public decrypt (Event.PublicDecryption).
	PublicDecryptionResponse EventType = "PublicDecryptionResponse"
	// UserDecryptionResponse is one KMS node's share of a user decrypt (Event.UserDecryptionShare).
	UserDecryptionResponse EventType = "UserDecryptionResponse"
	// UserDecryptionResponseThresholdReached is emitted once, with the threshold-th share.
	UserDecryptionResponseThresholdReached EventType = "UserDecryptionResponseThresholdReached"
	// VerifyProofResponse accepts an input proof (Event.VerifyProof).
	VerifyProofResponse EventType = "VerifyProofResponse"
	// RejectProofResponse rejects an input proof.
	RejectProofResponse EventType = "RejectProofResponse"
)

// Kind is the request kind an event of this type answers: the kind's Family(), so UserDecrypt
// for the shares of a delegated user decrypt too (the gateway answers both alike, under ids of
// one counter).
func (t EventType) Kind() domain.Kind {
	switch t {
	case PublicDecryptionResponse:
		return domain.PublicDecrypt
	case UserDecryptionResponse, UserDecryptionResponseThresholdReached:
		return domain.UserDecrypt
	case VerifyProofResponse, RejectProofResponse:
		return domain.InputProof
	}
	return domain.Kind{}
}

// Event is one decoded response event. Exactly the payload field of its Type is set
// (ThresholdReached and RejectProof have none). (TxHash, LogIndex), or (BlockHash, LogIndex),
// identifies it for deduplication; after a reorg the same response may come again from another
// block.
type Event struct {
	Type EventType
	// RequestID is the gateway request id (the events' indexed topic 1), as in Receipt.RequestID.
	RequestID *big.Int

	BlockNumber uint64
	BlockHash   common.Hash
	TxHash      common.Hash
	TxIndex     uint
	LogIndex    uint

	PublicDecryption    *PublicDecryptionResult
	UserDecryptionShare *UserDecryptionShare
	VerifyProof         *VerifyProofResult
}

// PublicDecryptionResult is the payload of PublicDecryptionResponse.
type PublicDecryptionResult struct {
	DecryptedResult []byte
	Signatures      [][]byte
	ExtraData       []byte
}

// UserDecryptionShare is the payload of UserDecryptionResponse.
type UserDecryptionShare struct {
	// Index counts the request's shares from 0 in arrival order.
	Index     uint64
	Signer    common.Address
	Share     []byte
	Signature []byte
	ExtraData []byte
}

// VerifyProofResult is the payload of VerifyProofResponse.
type VerifyProofResult struct {
	Handles    [][32]byte
	Signatures [][]byte
	ExtraData  []byte
}

// String is a one-line summary for logs.
func (e Event) String() string {
	return fmt.Sprintf("%s id=%s block=%d tx=%s log=%d", e.Type, e.RequestID, e.BlockNumber, e.TxHash, e.LogIndex)
}

// responseTopics are topic 0 of the response events, for the eth_getLogs filter.
var responseTopics = []common.Hash{
	contracts.TopicPublicDecryptionResponse,
	contracts.TopicUserDecryptionResponse,
	contracts.TopicUserDecryptionResponseThresholdReached,
	contracts.TopicVerifyProofResponse,
	contracts.TopicRejectProofResponse,
}

// eventDecoder decodes the response events of one pair of gateway contracts.
type eventDecoder struct {
	decryptionAt, inputAt common.Address
	dec                   *contracts.Decryption
	iv                    *contracts.InputVerification
}

// decode decodes l, or reports false for a log that is not a response event of our contracts.
func (d *eventDecoder) decode(l *types.Log) (Event, bool, error) {
	if len(l.Topics) < 2 {
		return Event{}, false, nil
	}
	ev := Event{
		RequestID: l.Topics[1].Big(), BlockNumber: l.BlockNumber, BlockHash: l.BlockHash,
		TxHash: l.TxHash, TxIndex: l.TxIndex, LogIndex: l.Index,
	}
	var err error
	switch {
	case l.Address == d.decryptionAt && l.Topics[0] == contracts.TopicPublicDecryptionResponse:
		ev.Type = PublicDecryptionResponse
		var r *contracts.DecryptionPublicDecryptionResponse
		if r, err = d.dec.UnpackPublicDecryptionResponseEvent(l); err == nil {
			ev.PublicDecryption = &PublicDecryptionResult{DecryptedResult: r.DecryptedResult, Signatures: r.Signatures, ExtraData: r.ExtraData}
		}
	case l.Address == d.decryptionAt && l.Topics[0] == contracts.TopicUserDecryptionResponse:
		ev.Type = UserDecryptionResponse
		var r *contracts.DecryptionUserDecryptionResponse
		if r, err = d.dec.UnpackUserDecryptionResponseEvent(l); err == nil {
			ev.UserDecryptionShare = &UserDecryptionShare{Index: r.IndexShare.Uint64(), Signer: r.KmsSigner,
				Share: r.UserDecryptedShare, Signature: r.Signature, ExtraData: r.ExtraData}
		}
	case l.Address == d.decryptionAt && l.Topics[0] == contracts.TopicUserDecryptionResponseThresholdReached:
		ev.Type = UserDecryptionResponseThresholdReached
	case l.Address == d.inputAt && l.Topics[0] == contracts.TopicVerifyProofResponse:
		ev.Type = VerifyProofResponse
		var r *contracts.InputVerificationVerifyProofResponse
		if r, err = d.iv.UnpackVerifyProofResponseEvent(l); err == nil {
			ev.VerifyProof = &VerifyProofResult{Handles: r.CtHandles, Signatures: r.Signatures, ExtraData: r.ExtraData}
		}
	case l.Address == d.inputAt && l.Topics[0] == contracts.TopicRejectProofResponse:
		ev.Type = RejectProofResponse
	default:
		return Event{}, false, nil
	}
	if err != nil {
		return Event{}, false, fmt.Errorf("decode %s in tx %s log %d: %w", ev.Type, l.TxHash, l.Index, err)
	}
	return ev, true, nil
}
