package contracts

import (
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

// Event topics (topic 0) of the gateway events the relayer follows, for eth_getLogs filters.
// Every one of them has the request id as its indexed topic 1.
var (
	TopicPublicDecryptionRequest                = eventID(NewDecryption().GetABI().Events, DecryptionPublicDecryptionRequestEventName)
	TopicPublicDecryptionResponse               = eventID(NewDecryption().GetABI().Events, DecryptionPublicDecryptionResponseEventName)
	TopicUserDecryptionRequest                  = eventID(NewDecryption().GetABI().Events, DecryptionUserDecryptionRequestEventName)
	TopicUnifiedUserDecryptionRequest           = eventID(NewDecryption().GetABI().Events, DecryptionUnifiedUserDecryptionRequestEventName)
	TopicUserDecryptionResponse                 = eventID(NewDecryption().GetABI().Events, DecryptionUserDecryptionResponseEventName)
	TopicUserDecryptionResponseThresholdReached = eventID(NewDecryption().GetABI().Events, DecryptionUserDecryptionResponseThresholdReachedEventName)
	TopicHandleRegistered                       = eventID(NewDecryption().GetABI().Events, DecryptionHandleRegisteredEventName)
	TopicVerifyProofRequest                     = eventID(NewInputVerification().GetABI().Events, InputVerificationVerifyProofRequestEventName)
	TopicVerifyProofResponse                    = eventID(NewInputVerification().GetABI().Events, InputVerificationVerifyProofResponseEventName)
	TopicRejectProofResponse                    = eventID(NewInputVerification().GetABI().Events, InputVerificationRejectProofResponseEventName)
)

func eventID(events map[string]abi.Event, name string) common.Hash {
	e, ok := events[name]
	if !ok {
		panic("contracts: no event " + name)
	}
	return e.ID
}
