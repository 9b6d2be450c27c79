// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package contracts

import (
	"bytes"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = bytes.Equal
	_ = errors.New
	_ = big.NewInt
	_ = common.Big1
	_ = types.BloomLookup
	_ = abi.ConvertType
)

// DecryptionContractsInfo is an auto generated low-level Go binding around an user-defined struct.
type DecryptionContractsInfo struct {
	ChainId   *big.Int
	Addresses []common.Address
}

// DecryptionCtHandleContractPair is an auto generated low-level Go binding around an user-defined struct.
type DecryptionCtHandleContractPair struct {
	CtHandle        [32]byte
	ContractAddress common.Address
}

// DecryptionDelegationAccounts is an auto generated low-level Go binding around an user-defined struct.
type DecryptionDelegationAccounts struct {
	DelegatorAddress common.Address
	DelegateAddress  common.Address
}

// DecryptionHandleEntry is an auto generated low-level Go binding around an user-defined struct.
type DecryptionHandleEntry struct {
	Handle          [32]byte
	ContractAddress common.Address
	OwnerAddress    common.Address
}

// DecryptionRequestValidity is an auto generated low-level Go binding around an user-defined struct.
type DecryptionRequestValidity struct {
	StartTimestamp *big.Int
	DurationDays   *big.Int
}

// DecryptionRequestValiditySeconds is an auto generated low-level Go binding around an user-defined struct.
type DecryptionRequestValiditySeconds struct {
	StartTimestamp  *big.Int
	DurationSeconds *big.Int
}

// DecryptionUserDecryptionRequestPayload is an auto generated low-level Go binding around an user-defined struct.
type DecryptionUserDecryptionRequestPayload struct {
	UserAddress      common.Address
	PublicKey        []byte
	AllowedContracts []common.Address
	RequestValidity  DecryptionRequestValiditySeconds
	ExtraData        []byte
	Signature        []byte
}

// DecryptionMetaData contains all meta data concerning the Decryption contract.
var DecryptionMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address[]\",\"name\":\"kmsSigners_\",\"type\":\"address[]\"},{\"internalType\":\"uint256\",\"name\":\"threshold_\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"acl_\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"maxLength\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"actualLength\",\"type\":\"uint256\"}],\"name\":\"ContractAddressesMaxLengthExceeded\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"}],\"name\":\"ContractNotInContractAddresses\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"signer\",\"type\":\"address\"}],\"name\":\"DuplicateKmsSigner\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyContractAddresses\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyCtHandleContractPairs\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyCtHandles\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyHandles\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyKmsSigners\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EnforcedPause\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ExpectedPause\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"signer\",\"type\":\"address\"}],\"name\":\"InvalidKmsSignature\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidNullDurationDays\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidNullDurationSeconds\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"threshold\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"kmsSigners\",\"type\":\"uint256\"}],\"name\":\"InvalidThreshold\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"signer\",\"type\":\"address\"}],\"name\":\"KmsNodeAlreadySigned\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"maxValue\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"actualValue\",\"type\":\"uint256\"}],\"name\":\"MaxDurationDaysExceeded\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"maxValue\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"actualValue\",\"type\":\"uint256\"}],\"name\":\"MaxDurationSecondsExceeded\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotKmsSigner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotOwner\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NullAclAddress\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"ctHandle\",\"type\":\"bytes32\"}],\"name\":\"PublicDecryptNotAllowed\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"currentTimestamp\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"startTimestamp\",\"type\":\"uint256\"}],\"name\":\"StartTimestampInFuture\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"TestScenarioRevert\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"requestId\",\"type\":\"uint256\"}],\"name\":\"UnknownRequest\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"userAddress\",\"type\":\"address\"}],\"name\":\"UserAddressInContractAddresses\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"ctHandle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"UserDecryptNotAllowed\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"delegator\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"delegate\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"ctHandle\",\"type\":\"bytes32\"}],\"name\":\"UserDecryptNotDelegated\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"currentTimestamp\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"expiredAt\",\"type\":\"uint256\"}],\"name\":\"UserDecryptionRequestExpired\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"currentTimestamp\",\"type\":\"uint256\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"startTimestamp\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"durationSeconds\",\"type\":\"uint256\"}],\"internalType\":\"structDecryption.RequestValiditySeconds\",\"name\":\"requestValidity\",\"type\":\"tuple\"}],\"name\":\"UserDecryptionRequestExpiredSeconds\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"ctHandle\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"firstSeen\",\"type\":\"uint256\"}],\"name\":\"HandleRegistered\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"Paused\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"PublicDecryptionRequest\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"decryptedResult\",\"type\":\"bytes\"},{\"indexed\":false,\"internalType\":\"bytes[]\",\"name\":\"signatures\",\"type\":\"bytes[]\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"PublicDecryptionResponse\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"Unpaused\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"userAddress\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"publicKey\",\"type\":\"bytes\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"UserDecryptionRequest\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"components\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"ownerAddress\",\"type\":\"address\"}],\"indexed\":false,\"internalType\":\"structDecryption.HandleEntry[]\",\"name\":\"handles\",\"type\":\"tuple[]\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"userAddress\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"publicKey\",\"type\":\"bytes\"},{\"internalType\":\"address[]\",\"name\":\"allowedContracts\",\"type\":\"address[]\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"startTimestamp\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"durationSeconds\",\"type\":\"uint256\"}],\"internalType\":\"structDecryption.RequestValiditySeconds\",\"name\":\"requestValidity\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"indexed\":false,\"internalType\":\"structDecryption.UserDecryptionRequestPayload\",\"name\":\"payload\",\"type\":\"tuple\"}],\"name\":\"UserDecryptionRequest\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"indexShare\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"kmsSigner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"userDecryptedShare\",\"type\":\"bytes\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"UserDecryptionResponse\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"}],\"name\":\"UserDecryptionResponseThresholdReached\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"EIP712_DOMAIN_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_USER_DECRYPT_CONTRACT_ADDRESSES\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_USER_DECRYPT_DURATION_DAYS\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_USER_DECRYPT_DURATION_SECONDS\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"PUBLIC_DECRYPT_COUNTER_BASE\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"PUBLIC_DECRYPT_VERIFICATION_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"READY_DELAY\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"USER_DECRYPT_COUNTER_BASE\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"USER_DECRYPT_RESPONSE_VERIFICATION_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"acl\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"bytes32\",\"name\":\"ctHandle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"}],\"internalType\":\"structDecryption.CtHandleContractPair[]\",\"name\":\"ctHandleContractPairs\",\"type\":\"tuple[]\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"startTimestamp\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"durationDays\",\"type\":\"uint256\"}],\"internalType\":\"structDecryption.RequestValidity\",\"name\":\"requestValidity\",\"type\":\"tuple\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"delegatorAddress\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"delegateAddress\",\"type\":\"address\"}],\"internalType\":\"structDecryption.DelegationAccounts\",\"name\":\"delegationAccounts\",\"type\":\"tuple\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"chainId\",\"type\":\"uint256\"},{\"internalType\":\"address[]\",\"name\":\"addresses\",\"type\":\"address[]\"}],\"internalType\":\"structDecryption.ContractsInfo\",\"name\":\"contractsInfo\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"publicKey\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"delegatedUserDecryptionRequest\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"eip712Domain\",\"outputs\":[{\"internalType\":\"bytes1\",\"name\":\"fields\",\"type\":\"bytes1\"},{\"internalType\":\"string\",\"name\":\"name\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"version\",\"type\":\"string\"},{\"internalType\":\"uint256\",\"name\":\"chainId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"verifyingContract\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"},{\"internalType\":\"uint256[]\",\"name\":\"extensions\",\"type\":\"uint256[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"name\":\"handleFirstSeen\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"name\":\"isDecryptionDone\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"delegatorAddress\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"delegateAddress\",\"type\":\"address\"}],\"internalType\":\"structDecryption.DelegationAccounts\",\"name\":\"delegationAccounts\",\"type\":\"tuple\"},{\"components\":[{\"internalType\":\"bytes32\",\"name\":\"ctHandle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"}],\"internalType\":\"structDecryption.CtHandleContractPair[]\",\"name\":\"ctHandleContractPairs\",\"type\":\"tuple[]\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"isDelegatedUserDecryptionReady\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"isKmsSigner\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"isPublicDecryptionReady\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"userAddress\",\"type\":\"address\"},{\"components\":[{\"internalType\":\"bytes32\",\"name\":\"ctHandle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"}],\"internalType\":\"structDecryption.CtHandleContractPair[]\",\"name\":\"ctHandleContractPairs\",\"type\":\"tuple[]\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"isUserDecryptionReady\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"kmsSigners\",\"outputs\":[{\"internalType\":\"address[]\",\"name\":\"\",\"type\":\"address[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"pause\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"paused\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"publicDecryptionCounter\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"},{\"internalType\":\"bytes\",\"name\":\"decryptedResult\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"publicDecryptionDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"publicDecryptionRequest\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"decryptedResult\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"publicDecryptionResponse\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"}],\"name\":\"registerHandles\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"threshold\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"unpause\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"userDecryptionCounter\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes\",\"name\":\"publicKey\",\"type\":\"bytes\"},{\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"},{\"internalType\":\"bytes\",\"name\":\"userDecryptedShare\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"userDecryptionDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"ownerAddress\",\"type\":\"address\"}],\"internalType\":\"structDecryption.HandleEntry[]\",\"name\":\"handles\",\"type\":\"tuple[]\"},{\"internalType\":\"address\",\"name\":\"userAddress\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"publicKey\",\"type\":\"bytes\"},{\"internalType\":\"address[]\",\"name\":\"allowedContracts\",\"type\":\"address[]\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"startTimestamp\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"durationSeconds\",\"type\":\"uint256\"}],\"internalType\":\"structDecryption.RequestValiditySeconds\",\"name\":\"requestValidity\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"userDecryptionRequest\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"bytes32\",\"name\":\"ctHandle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"}],\"internalType\":\"structDecryption.CtHandleContractPair[]\",\"name\":\"ctHandleContractPairs\",\"type\":\"tuple[]\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"startTimestamp\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"durationDays\",\"type\":\"uint256\"}],\"internalType\":\"structDecryption.RequestValidity\",\"name\":\"requestValidity\",\"type\":\"tuple\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"chainId\",\"type\":\"uint256\"},{\"internalType\":\"address[]\",\"name\":\"addresses\",\"type\":\"address[]\"}],\"internalType\":\"structDecryption.ContractsInfo\",\"name\":\"contractsInfo\",\"type\":\"tuple\"},{\"internalType\":\"address\",\"name\":\"userAddress\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"publicKey\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"userDecryptionRequest\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"userDecryptedShare\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"userDecryptionResponse\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"name\":\"userDecryptionShareCount\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "Decryption",
	Bin: "0x60c0604052600160f81b600155600160f91b60025534801561001f575f5ffd5b5060405161359e38038061359e83398101604081905261003e91610289565b5f80546001600160a01b031916331790556001600160a01b0381166100765760405163af8817b960e01b815260040160405180910390fd5b82515f0361009757604051634c49db0360e11b815260040160405180910390fd5b8115806100a45750825182115b156100d8578251604051637b7a98f160e01b81526100cf918491600401918252602082015260400190565b60405180910390fd5b5f5b83518110156101b65760035f8583815181106100f8576100f861036f565b6020908102919091018101516001600160a01b031682528101919091526040015f205460ff1615610166578381815181106101355761013561036f565b602002602001015160405163e234ee8560e01b81526004016100cf91906001600160a01b0391909116815260200190565b600160035f86848151811061017d5761017d61036f565b6020908102919091018101516001600160a01b031682528101919091526040015f20805460ff19169115159190911790556001016100da565b5082516101ca9060079060208601906101e3565b506080919091526001600160a01b031660a05250610383565b828054828255905f5260205f20908101928215610236579160200282015b8281111561023657825182546001600160a01b0319166001600160a01b03909116178255602090920191600190910190610201565b50610242929150610246565b5090565b5b80821115610242575f8155600101610247565b634e487b7160e01b5f52604160045260245ffd5b80516001600160a01b0381168114610284575f5ffd5b919050565b5f5f5f6060848603121561029b575f5ffd5b83516001600160401b038111156102b0575f5ffd5b8401601f810186136102c0575f5ffd5b80516001600160401b038111156102d9576102d961025a565b604051600582901b90603f8201601f191681016001600160401b03811182821017156103075761030761025a565b604052918252602081840181019290810189841115610324575f5ffd5b6020850194505b8385101561034a5761033c8561026e565b81526020948501940161032b565b506020880151909650945061036692505060408601905061026e565b90509250925092565b634e487b7160e01b5f52603260045260245ffd5b60805160a0516131de6103c05f395f81816104b401528181610cdd0152611db801525f81816102c1015281816107610152610a6501526131de5ff3fe608060405234801561000f575f5ffd5b5060043610610208575f3560e01c80638554551e1161011f578063c7977be7116100a9578063e58f0dee11610079578063e58f0dee146104d6578063edaceb72146104e9578063f1b57adb146104f1578063fbb8325914610504578063fffb2aa914610512575f5ffd5b8063c7977be71461046d578063cbc72e2114610494578063d8998f451461049c578063de287359146104af575f5ffd5b8063a37633f2116100ef578063a37633f214610402578063aa0a4cd014610429578063ae8ff18a1461043e578063b48f811d14610447578063b4de2c371461045a575f5ffd5b80638554551e1461039f5780638da5cb5b146103b2578063999800e5146103dc5780639fad5a2f146103ef575f5ffd5b806342cde4e8116101a05780636f8913bc116101705780636f8913bc146103375780637e0aea321461034a578063821ea527146103555780638456cb591461037c57806384b0196e14610384575f5ffd5b806342cde4e8146102bc5780634a7c21f6146102e357806358f5b8ab146103025780635c975abb14610324575f5ffd5b8063203d0114116101db578063203d0114146102505780632167d538146102825780633f4ba83a146102a15780634014c4cd146102a9575f5ffd5b8063046f9eb31461020c578063047a7350146102215780631b533ea21461023d5780631d10aacc14610245575b5f5ffd5b61021f61021a3660046120e2565b61051b565b005b61022a60015481565b6040519081526020015b60405180910390f35b61022a600a81565b61022a600160f91b81565b61027261025e3660046121a2565b60036020525f908152604090205460ff1681565b6040519015158152602001610234565b61022a6102903660046121bb565b60056020525f908152604090205481565b61021f6107dc565b6102726102b7366004612212565b610873565b61022a7f000000000000000000000000000000000000000000000000000000000000000081565b61022a6102f13660046121bb565b60066020525f908152604090205481565b6102726103103660046121bb565b60046020525f908152604090205460ff1681565b5f5461027290600160a01b900460ff1681565b61021f6103453660046120e2565b6108d0565b61022a600160f81b81565b61022a7f89bac15e5ba205584832145601e359431e80fb9fb331ba5a22058132d525c79481565b61021f610af1565b61038c610b89565b60405161023497969594939291906122aa565b61021f6103ad366004612340565b610bd7565b5f546103c4906001600160a01b031681565b6040516001600160a01b039091168152602001610234565b6102726103ea3660046123d4565b610c30565b61021f6103fd366004612453565b610c45565b61022a7f2c4b1a55fe4090104eb889f0e48d4cf11c7cc4b95cf47117b9f0008cbcc10f5f81565b610431610e59565b60405161023491906125b1565b61022a61016d81565b61022a6104553660046126e7565b610eb9565b61021f6104683660046127dc565b610f4b565b61022a7f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f81565b61022a6110ec565b61021f6104aa366004612212565b6110fe565b6103c47f000000000000000000000000000000000000000000000000000000000000000081565b61022a6104e43660046128fe565b611286565b61022a600581565b61021f6104ff366004612989565b6112f4565b6102726103ea366004612a7c565b61022a60025481565b335f9081526003602052604090205460ff166105515760405163153e377b60e11b81523360048201526024015b60405180910390fd5b61055f87600160f91b6113d6565b5f878152600b6020526040812080549091906106bb90839061058090612add565b80601f01602080910402602001604051908101604052809291908181526020018280546105ac90612add565b80156105f75780601f106105ce576101008083540402835291602001916105f7565b820191905f5260205f20905b8154815290600101906020018083116105da57829003601f168201915b50505050508360010180548060200260200160405190810160405280929190818152602001828054801561064857602002820191905f5260205f20905b815481526020019060010190808311610634575b50505050508a8a8080601f0160208091040260200160405190810160405280939291908181526020018383808284375f9201919091525050604080516020601f8c018190048102820181019092528a815292508a91508990819084018382808284375f92019190915250610eb992505050565b9050336106c9828888611485565b6001600160a01b0316146106f957604051634d67134d60e11b8152600481018a9052336024820152604401610548565b5f8981526006602052604081208054908261071383612b23565b919050559050897f07aa93857a606c0a349c5abf18c475db61c6e8d1ffcc5358ce3f065da7004c3382338c8c8c8c8c8c604051610757989796959493929190612b63565b60405180910390a27f000000000000000000000000000000000000000000000000000000000000000061078b826001612bc4565b036107d0575f8a815260046020526040808220805460ff19166001179055518b917fe89752be0ecdb68b2a6eb5ef1a891039e0e92ae3c8a62274c5881e48eea1ed2591a25b50505050505050505050565b5f546001600160a01b031633146108085760405163245aecd360e01b8152336004820152602401610548565b5f54600160a01b900460ff1661083157604051638dfc202b60e01b815260040160405180910390fd5b5f805460ff60a01b191690556040513381527f5db9ee0a495bf2e6ff9c91a7834c1ba4fdd244a5e8aa4e537bd38aeae4b073aa906020015b60405180910390a1565b5f83810361088257505f6108c8565b5f5b848110156108c2576108ad8686838181106108a1576108a1612bd7565b9050602002013561157b565b6108ba575f9150506108c8565b600101610884565b50600190505b949350505050565b335f9081526003602052604090205460ff166109015760405163153e377b60e11b8152336004820152602401610548565b61090f87600160f81b6113d6565b5f878152600a6020908152604080832080548251818502810185019093528083526109d49383018282801561096157602002820191905f5260205f20905b81548152602001906001019080831161094d575b505050505088888080601f0160208091040260200160405190810160405280939291908181526020018383808284375f9201919091525050604080516020601f8a0181900481028201810190925288815292508891508790819084018382808284375f9201919091525061128692505050565b9050336109e2828787611485565b6001600160a01b031614610a1257604051634d67134d60e11b815260048101899052336024820152604401610548565b5f8881526004602052604090205460ff1615610a2e5750610ae8565b5f888152600c602090815260408083208484528252822080546001810182558184529190922001610a60868883612c36565b5080547f00000000000000000000000000000000000000000000000000000000000000009003610ae5575f8981526004602052604090819020805460ff191660011790555189907fd7e58a367a0a6c298e76ad5d240004e327aa1423cbe4bd7ff85d4c715ef8d15f90610adc908b908b9086908a908a90612cef565b60405180910390a25b50505b50505050505050565b5f546001600160a01b03163314610b1d5760405163245aecd360e01b8152336004820152602401610548565b5f54600160a01b900460ff1615610b475760405163d93c066560e01b815260040160405180910390fd5b5f805460ff60a01b1916600160a01b1790556040513381527f62e78cea01bee320cd4e420270b5ea74000d11b0c9f74754ebdbfc544b05a25890602001610869565b5f6060805f5f5f6060610b9a6115ed565b604080515f808252606082018352600160208301908152603160f81b93830193909352600f60f81b9d959c50919a50929850909650945092509050565b5f5b81811015610c2b57610c23838383818110610bf657610bf6612bd7565b90506020020135610c1e858585818110610c1257610c12612bd7565b90506020020135611623565b611679565b600101610bd9565b505050565b5f610c3b85856116ef565b9695505050505050565b5f54600160a01b900460ff1615610c6f5760405163d93c066560e01b815260040160405180910390fd5b610c788961174a565b5f610c8660208a018a6121a2565b90505f610c9960408b0160208c016121a2565b90505f610cb48e8e610cae60208e018e612ddc565b87611817565b90505f5b8d811015610dc257368f8f83818110610cd357610cd3612bd7565b90506040020190507f00000000000000000000000000000000000000000000000000000000000000006001600160a01b031663d09c0dee8686846020016020810190610d1f91906121a2565b6040516001600160e01b031960e086901b168152610d4593929190873590600401612e21565b602060405180830381865afa158015610d60573d5f5f3e3d5ffd5b505050506040513d601f19601f82011682018060405250810190610d849190612e4b565b610db9578484610d9a60408401602085016121a2565b604051630cf2d62360e11b815261054893929190853590600401612e21565b50600101610cb8565b505f610e048a8a8080601f0160208091040260200160405190810160405280939291908181526020018383808284375f92019190915250869250611a25915050565b9050807fc71e32c80f3109c673a9adfcded0b3b2093212ab284084a0e03a281dee2bdd5f83858d8d8b8b604051610e4096959493929190612e6a565b60405180910390a2505050505050505050505050505050565b60606007805480602002602001604051908101604052809291908181526020018280548015610eaf57602002820191905f5260205f20905b81546001600160a01b03168152600190910190602001808311610e91575b5050505050905090565b5f610f427f2c4b1a55fe4090104eb889f0e48d4cf11c7cc4b95cf47117b9f0008cbcc10f5f8680519060200120610eef87611aa5565b8651602080890191909120875188830120604051610f2e9695949301948552602085019390935260408401919091526060830152608082015260a00190565b604051602081830303815290604052611ad4565b95945050505050565b5f54600160a01b900460ff1615610f755760405163d93c066560e01b815260040160405180910390fd5b5f8b9003610f965760405163240e930960e01b815260040160405180910390fd5b600a861115610fc25760405163af1f049560e01b8152600a600482015260248101879052604401610548565b610fcb85611bb7565b610fd3611fb5565b6001600160a01b038b168152604080516020601f8c018190048102820181019092528a8152908b908b90819084018382808284375f92019190915250505050602080830191909152604080518983028181018401909252898152918a918a918291908501908490808284375f92019190915250505050604082015261105d36879003870187612eea565b6060820152604080516020601f85018190048102820181019092528381529084908490819084018382808284375f920191909152505050506080820152604080516020601f87018190048102820181019092528581529086908690819084018382808284375f9201919091525050505060a08201526110dd8d8d83611c9b565b50505050505050505050505050565b6110fb61016d62015180612f38565b81565b5f54600160a01b900460ff16156111285760405163d93c066560e01b815260040160405180910390fd5b5f839003611149576040516305bcea8760e31b815260040160405180910390fd5b5f5b838110156111fb575f611169868684818110610c1257610c12612bd7565b905060041960ff82160161119057604051632970eadf60e21b815260040160405180910390fd5b5f1960ff8216016111d0578585838181106111ad576111ad612bd7565b90506020020135604051634331a85d60e01b815260040161054891815260200190565b6111f28686848181106111e5576111e5612bd7565b9050602002013582611679565b5060010161114b565b505f60015f815461120b90612b23565b91829055505f818152600860209081526040808320805460ff19166001179055600a909152902090915061124090868661200c565b50807f9bb088a53f1fe13ec84fa0a1d7b578b589e193268baaccc5e23f7ab785aa3dae868686866040516112779493929190612f4f565b60405180910390a25050505050565b5f6112ea7f89bac15e5ba205584832145601e359431e80fb9fb331ba5a22058132d525c7946112b486611aa5565b8551602080880191909120865187830120604051610f2e9594930193845260208401929092526040830152606082015260800190565b90505b9392505050565b5f54600160a01b900460ff161561131e5760405163d93c066560e01b815260040160405180910390fd5b6113278961174a565b5f6113408c8c61133a60208d018d612ddc565b8c611817565b90505f61138388888080601f0160208091040260200160405190810160405280939291908181526020018383808284375f92019190915250869250611a25915050565b9050807fc71e32c80f3109c673a9adfcded0b3b2093212ab284084a0e03a281dee2bdd5f838b8b8b89896040516113bf96959493929190612e6a565b60405180910390a250505050505050505050505050565b5f8281526008602052604090205460ff1615806113fb575060f881901c60f883901c14155b1561141c57604051631f79bbe760e01b815260048101839052602401610548565b5f82815260096020908152604080832033845290915290205460ff161561145f576040516399ec48d960e01b815260048101839052336024820152604401610548565b505f9081526009602090815260408083203384529091529020805460ff19166001179055565b5f6041821461149557505f6112ed565b8235602084013560408501355f1a601b8110156114ba576114b7601b82612f9f565b90505b8060ff16601b141580156114d257508060ff16601c14155b156114e2575f93505050506112ed565b7f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0821115611515575f93505050506112ed565b604080515f81526020810180835289905260ff831691810191909152606081018490526080810183905260019060a0016020604051602081039080840390855afa158015611565573d5f5f3e3d5ffd5b5050604051601f19015198975050505050505050565b5f5f61158683611623565b905060ff81166001148061159d575060ff81166002145b156115aa57505f92915050565b60031960ff8216016115e4575f8381526005602052604090205480158015906108c857506115d9600582612bc4565b421015949350505050565b50600192915050565b60605f5f61161860408051808201909152600a8152692232b1b93cb83a34b7b760b11b602082015290565b934693503092509050565b5f603f60f91b6001600160f81b031983831a60f81b1614158061165b5750605760f81b6001600160f81b0319600184901a60f81b1614155b1561166757505f919050565b6116738260021a611f28565b92915050565b60ff8116600414801561169757505f82815260056020526040902054155b156116eb575f82815260056020526040908190204290819055905183917f5a417e21b2a7601833268047860e8f5157e6baf315d8cf4b15acba683f040b72916116e291815260200190565b60405180910390a25b5050565b5f8181036116fe57505f611673565b5f5b828110156117405761172b84848381811061171d5761171d612bd7565b9050604002015f013561157b565b611738575f915050611673565b600101611700565b5060019392505050565b80602001355f0361176e5760405163de2859c160e01b815260040160405180910390fd5b61016d816020013511156117a357604051633295186360e01b815261016d600482015260208201356024820152604401610548565b42813511156117ce5760405163f24c088760e01b815242600482015281356024820152604401610548565b5f6117e0602083013562015180612f38565b6117eb908335612bc4565b9050428110156116eb57604051630af885bb60e41b815242600482015260248101829052604401610548565b60605f85900361183a5760405163a6a6cb2160e01b815260040160405180910390fd5b5f83900361185b576040516357cfa21760e01b815260040160405180910390fd5b611866848484611f4f565b1561188f5760405163f69e902560e01b81526001600160a01b0383166004820152602401610548565b846001600160401b038111156118a7576118a76125c3565b6040519080825280602002602001820160405280156118d0578160200160208202803683370190505b5090505f5b85811015611a1b575f8787838181106118f0576118f0612bd7565b9050604002015f0135905061192f86868a8a8681811061191257611912612bd7565b905060400201602001602081019061192a91906121a2565b611f4f565b6119825787878381811061194557611945612bd7565b905060400201602001602081019061195d91906121a2565b60405163f156888b60e01b81526001600160a01b039091166004820152602401610548565b5f61198c82611623565b905060041960ff8216016119b357604051632970eadf60e21b815260040160405180910390fd5b5f1960ff8216016119e957604051632dd2761160e11b8152600481018390526001600160a01b0386166024820152604401610548565b6119f38282611679565b81848481518110611a0657611a06612bd7565b602090810291909101015250506001016118d5565b5095945050505050565b5f60025f8154611a3490612b23565b91829055505f818152600860209081526040808320805460ff1916600117905580518082018252878152808301879052848452600b909252909120815192935090918190611a829082612fb8565b506020828101518051611a9b9260018501920190612051565b5090505092915050565b5f81604051602001611ab79190613072565b604051602081830303815290604052805190602001209050919050565b5f5f5f5f611ae06115ed565b8251602093840120604080517f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f81870152808201929092527fc89efdaa54c0f20c7adf612882df0950f5a951637e0307cdcb4c672f298b8bc6606083015260808201939093526001600160a01b039190911660a0808301919091528251808303909101815260c08201835280519084012088519884019890982061190160f01b60e083015260e282019890985261010280820198909852815180820390980188526101220190528551950194909420949350505050565b80602001355f03611bdb57604051631229e23760e21b815260040160405180910390fd5b611bea61016d62015180612f38565b81602001351115611c2b57611c0461016d62015180612f38565b604051635729758960e11b8152600481019190915260208201356024820152604401610548565b4281351115611c565760405163f24c088760e01b815242600482015281356024820152604401610548565b42611c6660208301358335612bc4565b1015611c98576040516333c7e7e760e11b81524260048201528135602482015260208201356044820152606401610548565b50565b5f826001600160401b03811115611cb457611cb46125c3565b604051908082528060200260200182016040528015611cdd578160200160208202803683370190505b5090505f5b83811015611ee25736858583818110611cfd57611cfd612bd7565b90506060020190505f611d12825f0135611623565b905060041960ff821601611d3957604051632970eadf60e21b815260040160405180910390fd5b5f1960ff821601611d81578135611d5660608401604085016121a2565b604051632dd2761160e11b815260048101929092526001600160a01b03166024820152604401610548565b84516001600160a01b0316611d9c60608401604085016121a2565b6001600160a01b031614158015611e6657506001600160a01b037f00000000000000000000000000000000000000000000000000000000000000001663d09c0dee611ded60608501604086016121a2565b8751611dff60408701602088016121a2565b6040516001600160e01b031960e086901b168152611e2593929190883590600401612e21565b602060405180830381865afa158015611e40573d5f5f3e3d5ffd5b505050506040513d601f19601f82011682018060405250810190611e649190612e4b565b155b15611eac57611e7b60608301604084016121a2565b8551611e8d60408501602086016121a2565b604051630cf2d62360e11b815261054893929190863590600401612e21565b611eb7823582611679565b815f0135848481518110611ecd57611ecd612bd7565b60209081029190910101525050600101611ce2565b505f611ef2836020015183611a25565b9050807f8ed4fab8b1d050676cd7d7d9fa448d5d22113375fab8ad4dc690e54593c527bf86868660405161127793929190613131565b5f600160ff831610801590611f415750600560ff831611155b611f4b575f611673565b5090565b5f805b83811015611fab57826001600160a01b0316858583818110611f7657611f76612bd7565b9050602002016020810190611f8b91906121a2565b6001600160a01b031603611fa35760019150506112ed565b600101611f52565b505f949350505050565b6040518060c001604052805f6001600160a01b031681526020016060815260200160608152602001611ff860405180604001604052805f81526020015f81525090565b815260200160608152602001606081525090565b828054828255905f5260205f20908101928215612045579160200282015b8281111561204557823582559160200191906001019061202a565b50611f4b92915061208a565b828054828255905f5260205f20908101928215612045579160200282015b8281111561204557825182559160200191906001019061206f565b5b80821115611f4b575f815560010161208b565b5f5f83601f8401126120ae575f5ffd5b5081356001600160401b038111156120c4575f5ffd5b6020830191508360208285010111156120db575f5ffd5b9250929050565b5f5f5f5f5f5f5f6080888a0312156120f8575f5ffd5b8735965060208801356001600160401b03811115612114575f5ffd5b6121208a828b0161209e565b90975095505060408801356001600160401b0381111561213e575f5ffd5b61214a8a828b0161209e565b90955093505060608801356001600160401b03811115612168575f5ffd5b6121748a828b0161209e565b989b979a50959850939692959293505050565b80356001600160a01b038116811461219d575f5ffd5b919050565b5f602082840312156121b2575f5ffd5b6112ed82612187565b5f602082840312156121cb575f5ffd5b5035919050565b5f5f83601f8401126121e2575f5ffd5b5081356001600160401b038111156121f8575f5ffd5b6020830191508360208260051b85010111156120db575f5ffd5b5f5f5f5f60408587031215612225575f5ffd5b84356001600160401b0381111561223a575f5ffd5b612246878288016121d2565b90955093505060208501356001600160401b03811115612264575f5ffd5b6122708782880161209e565b95989497509550505050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b60ff60f81b8816815260e060208201525f6122c860e083018961227c565b82810360408401526122da818961227c565b606084018890526001600160a01b038716608085015260a0840186905283810360c0850152845180825260208087019350909101905f5b8181101561232f578351835260209384019390920191600101612311565b50909b9a5050505050505050505050565b5f5f60208385031215612351575f5ffd5b82356001600160401b03811115612366575f5ffd5b612372858286016121d2565b90969095509350505050565b5f6040828403121561238e575f5ffd5b50919050565b5f5f83601f8401126123a4575f5ffd5b5081356001600160401b038111156123ba575f5ffd5b6020830191508360208260061b85010111156120db575f5ffd5b5f5f5f5f5f608086880312156123e8575f5ffd5b6123f2878761237e565b945060408601356001600160401b0381111561240c575f5ffd5b61241888828901612394565b90955093505060608601356001600160401b03811115612436575f5ffd5b6124428882890161209e565b969995985093965092949392505050565b5f5f5f5f5f5f5f5f5f5f5f6101208c8e03121561246e575f5ffd5b8b356001600160401b03811115612483575f5ffd5b61248f8e828f01612394565b909c509a506124a390508d60208e0161237e565b98506124b28d60608e0161237e565b975060a08c01356001600160401b038111156124cc575f5ffd5b6124d88e828f0161237e565b97505060c08c01356001600160401b038111156124f3575f5ffd5b6124ff8e828f0161209e565b90975095505060e08c01356001600160401b0381111561251d575f5ffd5b6125298e828f0161209e565b9095509350506101008c01356001600160401b03811115612548575f5ffd5b6125548e828f0161209e565b915080935050809150509295989b509295989b9093969950565b5f8151808452602084019350602083015f5b828110156125a75781516001600160a01b0316865260209586019590910190600101612580565b5093949350505050565b602081525f6112ed602083018461256e565b634e487b7160e01b5f52604160045260245ffd5b604051601f8201601f191681016001600160401b03811182821017156125ff576125ff6125c3565b604052919050565b5f82601f830112612616575f5ffd5b81356001600160401b0381111561262f5761262f6125c3565b612642601f8201601f19166020016125d7565b818152846020838601011115612656575f5ffd5b816020850160208301375f918101602001919091529392505050565b5f82601f830112612681575f5ffd5b81356001600160401b0381111561269a5761269a6125c3565b8060051b6126aa602082016125d7565b918252602081850181019290810190868411156126c5575f5ffd5b6020860192505b83831015610c3b5782358252602092830192909101906126cc565b5f5f5f5f608085870312156126fa575f5ffd5b84356001600160401b0381111561270f575f5ffd5b61271b87828801612607565b94505060208501356001600160401b03811115612736575f5ffd5b61274287828801612672565b93505060408501356001600160401b0381111561275d575f5ffd5b61276987828801612607565b92505060608501356001600160401b03811115612784575f5ffd5b61279087828801612607565b91505092959194509250565b5f5f83601f8401126127ac575f5ffd5b5081356001600160401b038111156127c2575f5ffd5b6020830191508360206060830285010111156120db575f5ffd5b5f5f5f5f5f5f5f5f5f5f5f5f6101008d8f0312156127f8575f5ffd5b6001600160401b038d35111561280c575f5ffd5b6128198e8e358f0161279c565b909c509a5061282a60208e01612187565b99506001600160401b0360408e01351115612843575f5ffd5b6128538e60408f01358f0161209e565b90995097506001600160401b0360608e0135111561286f575f5ffd5b61287f8e60608f01358f016121d2565b90975095506128918e60808f0161237e565b94506001600160401b0360c08e013511156128aa575f5ffd5b6128ba8e60c08f01358f0161209e565b90945092506001600160401b0360e08e013511156128d6575f5ffd5b6128e68e60e08f01358f0161209e565b81935080925050509295989b509295989b509295989b565b5f5f5f60608486031215612910575f5ffd5b83356001600160401b03811115612925575f5ffd5b61293186828701612672565b93505060208401356001600160401b0381111561294c575f5ffd5b61295886828701612607565b92505060408401356001600160401b03811115612973575f5ffd5b61297f86828701612607565b9150509250925092565b5f5f5f5f5f5f5f5f5f5f5f6101008c8e0312156129a4575f5ffd5b8b356001600160401b038111156129b9575f5ffd5b6129c58e828f01612394565b909c509a506129d990508d60208e0161237e565b985060608c01356001600160401b038111156129f3575f5ffd5b6129ff8e828f0161237e565b985050612a0e60808d01612187565b965060a08c01356001600160401b03811115612a28575f5ffd5b612a348e828f0161209e565b90975095505060c08c01356001600160401b03811115612a52575f5ffd5b612a5e8e828f0161209e565b90955093505060e08c01356001600160401b03811115612548575f5ffd5b5f5f5f5f5f60608688031215612a90575f5ffd5b612a9986612187565b945060208601356001600160401b03811115612ab3575f5ffd5b612abf88828901612394565b90955093505060408601356001600160401b03811115612436575f5ffd5b600181811c90821680612af157607f821691505b60208210810361238e57634e487b7160e01b5f52602260045260245ffd5b634e487b7160e01b5f52601160045260245ffd5b5f60018201612b3457612b34612b0f565b5060010190565b81835281816020850137505f828201602090810191909152601f909101601f19169091010190565b8881526001600160a01b038816602082015260a0604082018190525f90612b8d908301888a612b3b565b8281036060840152612ba0818789612b3b565b90508281036080840152612bb5818587612b3b565b9b9a5050505050505050505050565b8082018082111561167357611673612b0f565b634e487b7160e01b5f52603260045260245ffd5b601f821115610c2b57805f5260205f20601f840160051c81016020851015612c105750805b601f840160051c820191505b81811015612c2f575f8155600101612c1c565b5050505050565b6001600160401b03831115612c4d57612c4d6125c3565b612c6183612c5b8354612add565b83612beb565b5f601f841160018114612c92575f8515612c7b5750838201355b5f19600387901b1c1916600186901b178355612c2f565b5f83815260208120601f198716915b82811015612cc15786850135825560209485019460019092019101612ca1565b5086821015612cdd575f1960f88860031b161c19848701351681555b505060018560011b0183555050505050565b606081525f612d02606083018789612b3b565b828103602084015280865480835260208301915060208160051b840101885f5260205f205f5b83811015612dc757601f198684030185525f8254612d4581612add565b808652600182168015612d5f5760018114612d7b57612daf565b60ff1983166020880152602082151560051b8801019350612daf565b855f5260205f205f5b83811015612da65781546020828b010152600182019150602081019050612d84565b88016020019450505b50505060209590950194925060019182019101612d28565b50508581036040870152612bb581888a612b3b565b5f5f8335601e19843603018112612df1575f5ffd5b8301803591506001600160401b03821115612e0a575f5ffd5b6020019150600581901b36038213156120db575f5ffd5b6001600160a01b039485168152928416602084015292166040820152606081019190915260800190565b5f60208284031215612e5b575f5ffd5b815180151581146112ed575f5ffd5b608080825287519082018190525f90602089019060a0840190835b81811015612ea3578351835260209384019390920191600101612e85565b50506001600160a01b03891660208501528381036040850152612ec781888a612b3b565b9150508281036060840152612edd818587612b3b565b9998505050505050505050565b5f6040828403128015612efb575f5ffd5b50604080519081016001600160401b0381118282101715612f1e57612f1e6125c3565b604052823581526020928301359281019290925250919050565b808202811582820484141761167357611673612b0f565b604080825281018490525f6001600160fb1b03851115612f6d575f5ffd5b8460051b80876060850137820182810360609081016020850152612f949082018587612b3b565b979650505050505050565b60ff818116838216019081111561167357611673612b0f565b81516001600160401b03811115612fd157612fd16125c3565b612fe581612fdf8454612add565b84612beb565b6020601f821160018114613017575f83156130005750848201515b5f19600385901b1c1916600184901b178455612c2f565b5f84815260208120601f198516915b828110156130465787850151825560209485019460019092019101613026565b508482101561306357868401515f19600387901b60f8161c191681555b50505050600190811b01905550565b81515f90829060208501835b8281101561309c57815184526020938401939091019060010161307e565b509195945050505050565b60018060a01b0381511682525f602082015160e060208501526130cd60e085018261227c565b9050604083015184820360408601526130e6828261256e565b9150506060830151805160608601526020810151608086015250608083015184820360a0860152613117828261227c565b91505060a083015184820360c0860152610f42828261227c565b604080825281018390525f8460608301825b8681101561319557823582526001600160a01b0361316360208501612187565b1660208301526001600160a01b0361317d60408501612187565b16604083015260609283019290910190600101613143565b508381036020850152612f9481866130a756fea264697066735822122074756bdf45bd6b97640fef0c3a67af9f1204890ae96888eadb6c9b8116374d8564736f6c634300081e0033",
}

// Decryption is an auto generated Go binding around an Ethereum contract.
type Decryption struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *Decryption) GetABI() abi.ABI {
	return c.abi
}

// NewDecryption creates a new instance of Decryption.
func NewDecryption() *Decryption {
	parsed, err := DecryptionMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &Decryption{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *Decryption) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address[] kmsSigners_, uint256 threshold_, address acl_) returns()
func (decryption *Decryption) PackConstructor(kmsSigners_ []common.Address, threshold_ *big.Int, acl_ common.Address) []byte {
	enc, err := decryption.abi.Pack("", kmsSigners_, threshold_, acl_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackEIP712DOMAINTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc7977be7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function EIP712_DOMAIN_TYPEHASH() view returns(bytes32)
func (decryption *Decryption) PackEIP712DOMAINTYPEHASH() []byte {
	enc, err := decryption.abi.Pack("EIP712_DOMAIN_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackEIP712DOMAINTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc7977be7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function EIP712_DOMAIN_TYPEHASH() view returns(bytes32)
func (decryption *Decryption) TryPackEIP712DOMAINTYPEHASH() ([]byte, error) {
	return decryption.abi.Pack("EIP712_DOMAIN_TYPEHASH")
}

// UnpackEIP712DOMAINTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xc7977be7.
//
// Solidity: function EIP712_DOMAIN_TYPEHASH() view returns(bytes32)
func (decryption *Decryption) UnpackEIP712DOMAINTYPEHASH(data []byte) ([32]byte, error) {
	out, err := decryption.abi.Unpack("EIP712_DOMAIN_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackMAXUSERDECRYPTCONTRACTADDRESSES is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1b533ea2.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_USER_DECRYPT_CONTRACT_ADDRESSES() view returns(uint256)
func (decryption *Decryption) PackMAXUSERDECRYPTCONTRACTADDRESSES() []byte {
	enc, err := decryption.abi.Pack("MAX_USER_DECRYPT_CONTRACT_ADDRESSES")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXUSERDECRYPTCONTRACTADDRESSES is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1b533ea2.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_USER_DECRYPT_CONTRACT_ADDRESSES() view returns(uint256)
func (decryption *Decryption) TryPackMAXUSERDECRYPTCONTRACTADDRESSES() ([]byte, error) {
	return decryption.abi.Pack("MAX_USER_DECRYPT_CONTRACT_ADDRESSES")
}

// UnpackMAXUSERDECRYPTCONTRACTADDRESSES is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1b533ea2.
//
// Solidity: function MAX_USER_DECRYPT_CONTRACT_ADDRESSES() view returns(uint256)
func (decryption *Decryption) UnpackMAXUSERDECRYPTCONTRACTADDRESSES(data []byte) (*big.Int, error) {
	out, err := decryption.abi.Unpack("MAX_USER_DECRYPT_CONTRACT_ADDRESSES", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMAXUSERDECRYPTDURATIONDAYS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xae8ff18a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_USER_DECRYPT_DURATION_DAYS() view returns(uint256)
func (decryption *Decryption) PackMAXUSERDECRYPTDURATIONDAYS() []byte {
	enc, err := decryption.abi.Pack("MAX_USER_DECRYPT_DURATION_DAYS")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXUSERDECRYPTDURATIONDAYS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xae8ff18a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_USER_DECRYPT_DURATION_DAYS() view returns(uint256)
func (decryption *Decryption) TryPackMAXUSERDECRYPTDURATIONDAYS() ([]byte, error) {
	return decryption.abi.Pack("MAX_USER_DECRYPT_DURATION_DAYS")
}

// UnpackMAXUSERDECRYPTDURATIONDAYS is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xae8ff18a.
//
// Solidity: function MAX_USER_DECRYPT_DURATION_DAYS() view returns(uint256)
func (decryption *Decryption) UnpackMAXUSERDECRYPTDURATIONDAYS(data []byte) (*big.Int, error) {
	out, err := decryption.abi.Unpack("MAX_USER_DECRYPT_DURATION_DAYS", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMAXUSERDECRYPTDURATIONSECONDS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcbc72e21.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_USER_DECRYPT_DURATION_SECONDS() view returns(uint256)
func (decryption *Decryption) PackMAXUSERDECRYPTDURATIONSECONDS() []byte {
	enc, err := decryption.abi.Pack("MAX_USER_DECRYPT_DURATION_SECONDS")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXUSERDECRYPTDURATIONSECONDS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcbc72e21.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_USER_DECRYPT_DURATION_SECONDS() view returns(uint256)
func (decryption *Decryption) TryPackMAXUSERDECRYPTDURATIONSECONDS() ([]byte, error) {
	return decryption.abi.Pack("MAX_USER_DECRYPT_DURATION_SECONDS")
}

// UnpackMAXUSERDECRYPTDURATIONSECONDS is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xcbc72e21.
//
// Solidity: function MAX_USER_DECRYPT_DURATION_SECONDS() view returns(uint256)
func (decryption *Decryption) UnpackMAXUSERDECRYPTDURATIONSECONDS(data []byte) (*big.Int, error) {
	out, err := decryption.abi.Unpack("MAX_USER_DECRYPT_DURATION_SECONDS", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackPUBLICDECRYPTCOUNTERBASE is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7e0aea32.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function PUBLIC_DECRYPT_COUNTER_BASE() view returns(uint256)
func (decryption *Decryption) PackPUBLICDECRYPTCOUNTERBASE() []byte {
	enc, err := decryption.abi.Pack("PUBLIC_DECRYPT_COUNTER_BASE")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPUBLICDECRYPTCOUNTERBASE is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7e0aea32.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function PUBLIC_DECRYPT_COUNTER_BASE() view returns(uint256)
func (decryption *Decryption) TryPackPUBLICDECRYPTCOUNTERBASE() ([]byte, error) {
	return decryption.abi.Pack("PUBLIC_DECRYPT_COUNTER_BASE")
}

// UnpackPUBLICDECRYPTCOUNTERBASE is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7e0aea32.
//
// Solidity: function PUBLIC_DECRYPT_COUNTER_BASE() view returns(uint256)
func (decryption *Decryption) UnpackPUBLICDECRYPTCOUNTERBASE(data []byte) (*big.Int, error) {
	out, err := decryption.abi.Unpack("PUBLIC_DECRYPT_COUNTER_BASE", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackPUBLICDECRYPTVERIFICATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x821ea527.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function PUBLIC_DECRYPT_VERIFICATION_TYPEHASH() view returns(bytes32)
func (decryption *Decryption) PackPUBLICDECRYPTVERIFICATIONTYPEHASH() []byte {
	enc, err := decryption.abi.Pack("PUBLIC_DECRYPT_VERIFICATION_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPUBLICDECRYPTVERIFICATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x821ea527.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function PUBLIC_DECRYPT_VERIFICATION_TYPEHASH() view returns(bytes32)
func (decryption *Decryption) TryPackPUBLICDECRYPTVERIFICATIONTYPEHASH() ([]byte, error) {
	return decryption.abi.Pack("PUBLIC_DECRYPT_VERIFICATION_TYPEHASH")
}

// UnpackPUBLICDECRYPTVERIFICATIONTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x821ea527.
//
// Solidity: function PUBLIC_DECRYPT_VERIFICATION_TYPEHASH() view returns(bytes32)
func (decryption *Decryption) UnpackPUBLICDECRYPTVERIFICATIONTYPEHASH(data []byte) ([32]byte, error) {
	out, err := decryption.abi.Unpack("PUBLIC_DECRYPT_VERIFICATION_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackREADYDELAY is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xedaceb72.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function READY_DELAY() view returns(uint256)
func (decryption *Decryption) PackREADYDELAY() []byte {
	enc, err := decryption.abi.Pack("READY_DELAY")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackREADYDELAY is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xedaceb72.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function READY_DELAY() view returns(uint256)
func (decryption *Decryption) TryPackREADYDELAY() ([]byte, error) {
	return decryption.abi.Pack("READY_DELAY")
}

// UnpackREADYDELAY is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xedaceb72.
//
// Solidity: function READY_DELAY() view returns(uint256)
func (decryption *Decryption) UnpackREADYDELAY(data []byte) (*big.Int, error) {
	out, err := decryption.abi.Unpack("READY_DELAY", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackUSERDECRYPTCOUNTERBASE is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1d10aacc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function USER_DECRYPT_COUNTER_BASE() view returns(uint256)
func (decryption *Decryption) PackUSERDECRYPTCOUNTERBASE() []byte {
	enc, err := decryption.abi.Pack("USER_DECRYPT_COUNTER_BASE")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUSERDECRYPTCOUNTERBASE is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1d10aacc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function USER_DECRYPT_COUNTER_BASE() view returns(uint256)
func (decryption *Decryption) TryPackUSERDECRYPTCOUNTERBASE() ([]byte, error) {
	return decryption.abi.Pack("USER_DECRYPT_COUNTER_BASE")
}

// UnpackUSERDECRYPTCOUNTERBASE is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1d10aacc.
//
// Solidity: function USER_DECRYPT_COUNTER_BASE() view returns(uint256)
func (decryption *Decryption) UnpackUSERDECRYPTCOUNTERBASE(data []byte) (*big.Int, error) {
	out, err := decryption.abi.Unpack("USER_DECRYPT_COUNTER_BASE", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackUSERDECRYPTRESPONSEVERIFICATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa37633f2.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function USER_DECRYPT_RESPONSE_VERIFICATION_TYPEHASH() view returns(bytes32)
func (decryption *Decryption) PackUSERDECRYPTRESPONSEVERIFICATIONTYPEHASH() []byte {
	enc, err := decryption.abi.Pack("USER_DECRYPT_RESPONSE_VERIFICATION_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUSERDECRYPTRESPONSEVERIFICATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa37633f2.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function USER_DECRYPT_RESPONSE_VERIFICATION_TYPEHASH() view returns(bytes32)
func (decryption *Decryption) TryPackUSERDECRYPTRESPONSEVERIFICATIONTYPEHASH() ([]byte, error) {
	return decryption.abi.Pack("USER_DECRYPT_RESPONSE_VERIFICATION_TYPEHASH")
}

// UnpackUSERDECRYPTRESPONSEVERIFICATIONTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa37633f2.
//
// Solidity: function USER_DECRYPT_RESPONSE_VERIFICATION_TYPEHASH() view returns(bytes32)
func (decryption *Decryption) UnpackUSERDECRYPTRESPONSEVERIFICATIONTYPEHASH(data []byte) ([32]byte, error) {
	out, err := decryption.abi.Unpack("USER_DECRYPT_RESPONSE_VERIFICATION_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackAcl is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xde287359.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function acl() view returns(address)
func (decryption *Decryption) PackAcl() []byte {
	enc, err := decryption.abi.Pack("acl")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAcl is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xde287359.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function acl() view returns(address)
func (decryption *Decryption) TryPackAcl() ([]byte, error) {
	return decryption.abi.Pack("acl")
}

// UnpackAcl is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xde287359.
//
// Solidity: function acl() view returns(address)
func (decryption *Decryption) UnpackAcl(data []byte) (common.Address, error) {
	out, err := decryption.abi.Unpack("acl", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackDelegatedUserDecryptionRequest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9fad5a2f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function delegatedUserDecryptionRequest((bytes32,address)[] ctHandleContractPairs, (uint256,uint256) requestValidity, (address,address) delegationAccounts, (uint256,address[]) contractsInfo, bytes publicKey, bytes signature, bytes extraData) returns()
func (decryption *Decryption) PackDelegatedUserDecryptionRequest(ctHandleContractPairs []DecryptionCtHandleContractPair, requestValidity DecryptionRequestValidity, delegationAccounts DecryptionDelegationAccounts, contractsInfo DecryptionContractsInfo, publicKey []byte, signature []byte, extraData []byte) []byte {
	enc, err := decryption.abi.Pack("delegatedUserDecryptionRequest", ctHandleContractPairs, requestValidity, delegationAccounts, contractsInfo, publicKey, signature, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDelegatedUserDecryptionRequest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9fad5a2f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function delegatedUserDecryptionRequest((bytes32,address)[] ctHandleContractPairs, (uint256,uint256) requestValidity, (address,address) delegationAccounts, (uint256,address[]) contractsInfo, bytes publicKey, bytes signature, bytes extraData) returns()
func (decryption *Decryption) TryPackDelegatedUserDecryptionRequest(ctHandleContractPairs []DecryptionCtHandleContractPair, requestValidity DecryptionRequestValidity, delegationAccounts DecryptionDelegationAccounts, contractsInfo DecryptionContractsInfo, publicKey []byte, signature []byte, extraData []byte) ([]byte, error) {
	return decryption.abi.Pack("delegatedUserDecryptionRequest", ctHandleContractPairs, requestValidity, delegationAccounts, contractsInfo, publicKey, signature, extraData)
}

// PackDecryptionEip712Domain is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84b0196e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (decryption *Decryption) PackDecryptionEip712Domain() []byte {
	enc, err := decryption.abi.Pack("eip712Domain")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDecryptionEip712Domain is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84b0196e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (decryption *Decryption) TryPackDecryptionEip712Domain() ([]byte, error) {
	return decryption.abi.Pack("eip712Domain")
}

// DecryptionEip712DomainOutput serves as a container for the return parameters of contract
// method DecryptionEip712Domain.
type DecryptionEip712DomainOutput struct {
	Fields            [1]byte
	Name              string
	Version           string
	ChainId           *big.Int
	VerifyingContract common.Address
	Salt              [32]byte
	Extensions        []*big.Int
}

// UnpackDecryptionEip712Domain is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x84b0196e.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (decryption *Decryption) UnpackDecryptionEip712Domain(data []byte) (DecryptionEip712DomainOutput, error) {
	out, err := decryption.abi.Unpack("eip712Domain", data)
	outstruct := new(DecryptionEip712DomainOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Fields = *abi.ConvertType(out[0], new([1]byte)).(*[1]byte)
	outstruct.Name = *abi.ConvertType(out[1], new(string)).(*string)
	outstruct.Version = *abi.ConvertType(out[2], new(string)).(*string)
	outstruct.ChainId = abi.ConvertType(out[3], new(big.Int)).(*big.Int)
	outstruct.VerifyingContract = *abi.ConvertType(out[4], new(common.Address)).(*common.Address)
	outstruct.Salt = *abi.ConvertType(out[5], new([32]byte)).(*[32]byte)
	outstruct.Extensions = *abi.ConvertType(out[6], new([]*big.Int)).(*[]*big.Int)
	return *outstruct, nil
}

// PackHandleFirstSeen is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2167d538.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function handleFirstSeen(bytes32 ) view returns(uint256)
func (decryption *Decryption) PackHandleFirstSeen(arg0 [32]byte) []byte {
	enc, err := decryption.abi.Pack("handleFirstSeen", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackHandleFirstSeen is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2167d538.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function handleFirstSeen(bytes32 ) view returns(uint256)
func (decryption *Decryption) TryPackHandleFirstSeen(arg0 [32]byte) ([]byte, error) {
	return decryption.abi.Pack("handleFirstSeen", arg0)
}

// UnpackHandleFirstSeen is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x2167d538.
//
// Solidity: function handleFirstSeen(bytes32 ) view returns(uint256)
func (decryption *Decryption) UnpackHandleFirstSeen(data []byte) (*big.Int, error) {
	out, err := decryption.abi.Unpack("handleFirstSeen", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackIsDecryptionDone is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x58f5b8ab.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isDecryptionDone(uint256 ) view returns(bool)
func (decryption *Decryption) PackIsDecryptionDone(arg0 *big.Int) []byte {
	enc, err := decryption.abi.Pack("isDecryptionDone", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsDecryptionDone is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x58f5b8ab.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isDecryptionDone(uint256 ) view returns(bool)
func (decryption *Decryption) TryPackIsDecryptionDone(arg0 *big.Int) ([]byte, error) {
	return decryption.abi.Pack("isDecryptionDone", arg0)
}

// UnpackIsDecryptionDone is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x58f5b8ab.
//
// Solidity: function isDecryptionDone(uint256 ) view returns(bool)
func (decryption *Decryption) UnpackIsDecryptionDone(data []byte) (bool, error) {
	out, err := decryption.abi.Unpack("isDecryptionDone", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackIsDelegatedUserDecryptionReady is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x999800e5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isDelegatedUserDecryptionReady((address,address) delegationAccounts, (bytes32,address)[] ctHandleContractPairs, bytes extraData) view returns(bool)
func (decryption *Decryption) PackIsDelegatedUserDecryptionReady(delegationAccounts DecryptionDelegationAccounts, ctHandleContractPairs []DecryptionCtHandleContractPair, extraData []byte) []byte {
	enc, err := decryption.abi.Pack("isDelegatedUserDecryptionReady", delegationAccounts, ctHandleContractPairs, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsDelegatedUserDecryptionReady is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x999800e5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isDelegatedUserDecryptionReady((address,address) delegationAccounts, (bytes32,address)[] ctHandleContractPairs, bytes extraData) view returns(bool)
func (decryption *Decryption) TryPackIsDelegatedUserDecryptionReady(delegationAccounts DecryptionDelegationAccounts, ctHandleContractPairs []DecryptionCtHandleContractPair, extraData []byte) ([]byte, error) {
	return decryption.abi.Pack("isDelegatedUserDecryptionReady", delegationAccounts, ctHandleContractPairs, extraData)
}

// UnpackIsDelegatedUserDecryptionReady is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x999800e5.
//
// Solidity: function isDelegatedUserDecryptionReady((address,address) delegationAccounts, (bytes32,address)[] ctHandleContractPairs, bytes extraData) view returns(bool)
func (decryption *Decryption) UnpackIsDelegatedUserDecryptionReady(data []byte) (bool, error) {
	out, err := decryption.abi.Unpack("isDelegatedUserDecryptionReady", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackIsKmsSigner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x203d0114.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isKmsSigner(address ) view returns(bool)
func (decryption *Decryption) PackIsKmsSigner(arg0 common.Address) []byte {
	enc, err := decryption.abi.Pack("isKmsSigner", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsKmsSigner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x203d0114.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isKmsSigner(address ) view returns(bool)
func (decryption *Decryption) TryPackIsKmsSigner(arg0 common.Address) ([]byte, error) {
	return decryption.abi.Pack("isKmsSigner", arg0)
}

// UnpackIsKmsSigner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x203d0114.
//
// Solidity: function isKmsSigner(address ) view returns(bool)
func (decryption *Decryption) UnpackIsKmsSigner(data []byte) (bool, error) {
	out, err := decryption.abi.Unpack("isKmsSigner", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackIsPublicDecryptionReady is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4014c4cd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isPublicDecryptionReady(bytes32[] ctHandles, bytes extraData) view returns(bool)
func (decryption *Decryption) PackIsPublicDecryptionReady(ctHandles [][32]byte, extraData []byte) []byte {
	enc, err := decryption.abi.Pack("isPublicDecryptionReady", ctHandles, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsPublicDecryptionReady is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4014c4cd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isPublicDecryptionReady(bytes32[] ctHandles, bytes extraData) view returns(bool)
func (decryption *Decryption) TryPackIsPublicDecryptionReady(ctHandles [][32]byte, extraData []byte) ([]byte, error) {
	return decryption.abi.Pack("isPublicDecryptionReady", ctHandles, extraData)
}

// UnpackIsPublicDecryptionReady is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x4014c4cd.
//
// Solidity: function isPublicDecryptionReady(bytes32[] ctHandles, bytes extraData) view returns(bool)
func (decryption *Decryption) UnpackIsPublicDecryptionReady(data []byte) (bool, error) {
	out, err := decryption.abi.Unpack("isPublicDecryptionReady", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackIsUserDecryptionReady is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfbb83259.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isUserDecryptionReady(address userAddress, (bytes32,address)[] ctHandleContractPairs, bytes extraData) view returns(bool)
func (decryption *Decryption) PackIsUserDecryptionReady(userAddress common.Address, ctHandleContractPairs []DecryptionCtHandleContractPair, extraData []byte) []byte {
	enc, err := decryption.abi.Pack("isUserDecryptionReady", userAddress, ctHandleContractPairs, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsUserDecryptionReady is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfbb83259.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isUserDecryptionReady(address userAddress, (bytes32,address)[] ctHandleContractPairs, bytes extraData) view returns(bool)
func (decryption *Decryption) TryPackIsUserDecryptionReady(userAddress common.Address, ctHandleContractPairs []DecryptionCtHandleContractPair, extraData []byte) ([]byte, error) {
	return decryption.abi.Pack("isUserDecryptionReady", userAddress, ctHandleContractPairs, extraData)
}

// UnpackIsUserDecryptionReady is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xfbb83259.
//
// Solidity: function isUserDecryptionReady(address userAddress, (bytes32,address)[] ctHandleContractPairs, bytes extraData) view returns(bool)
func (decryption *Decryption) UnpackIsUserDecryptionReady(data []byte) (bool, error) {
	out, err := decryption.abi.Unpack("isUserDecryptionReady", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackKmsSigners is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xaa0a4cd0.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function kmsSigners() view returns(address[])
func (decryption *Decryption) PackKmsSigners() []byte {
	enc, err := decryption.abi.Pack("kmsSigners")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackKmsSigners is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xaa0a4cd0.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function kmsSigners() view returns(address[])
func (decryption *Decryption) TryPackKmsSigners() ([]byte, error) {
	return decryption.abi.Pack("kmsSigners")
}

// UnpackKmsSigners is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xaa0a4cd0.
//
// Solidity: function kmsSigners() view returns(address[])
func (decryption *Decryption) UnpackKmsSigners(data []byte) ([]common.Address, error) {
	out, err := decryption.abi.Unpack("kmsSigners", data)
	if err != nil {
		return *new([]common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new([]common.Address)).(*[]common.Address)
	return out0, nil
}

// PackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owner() view returns(address)
func (decryption *Decryption) PackOwner() []byte {
	enc, err := decryption.abi.Pack("owner")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function owner() view returns(address)
func (decryption *Decryption) TryPackOwner() ([]byte, error) {
	return decryption.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (decryption *Decryption) UnpackOwner(data []byte) (common.Address, error) {
	out, err := decryption.abi.Unpack("owner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackPause is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8456cb59.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function pause() returns()
func (decryption *Decryption) PackPause() []byte {
	enc, err := decryption.abi.Pack("pause")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPause is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8456cb59.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function pause() returns()
func (decryption *Decryption) TryPackPause() ([]byte, error) {
	return decryption.abi.Pack("pause")
}

// PackPaused is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5c975abb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function paused() view returns(bool)
func (decryption *Decryption) PackPaused() []byte {
	enc, err := decryption.abi.Pack("paused")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPaused is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5c975abb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function paused() view returns(bool)
func (decryption *Decryption) TryPackPaused() ([]byte, error) {
	return decryption.abi.Pack("paused")
}

// UnpackPaused is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x5c975abb.
//
// Solidity: function paused() view returns(bool)
func (decryption *Decryption) UnpackPaused(data []byte) (bool, error) {
	out, err := decryption.abi.Unpack("paused", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackPublicDecryptionCounter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x047a7350.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function publicDecryptionCounter() view returns(uint256)
func (decryption *Decryption) PackPublicDecryptionCounter() []byte {
	enc, err := decryption.abi.Pack("publicDecryptionCounter")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPublicDecryptionCounter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x047a7350.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function publicDecryptionCounter() view returns(uint256)
func (decryption *Decryption) TryPackPublicDecryptionCounter() ([]byte, error) {
	return decryption.abi.Pack("publicDecryptionCounter")
}

// UnpackPublicDecryptionCounter is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x047a7350.
//
// Solidity: function publicDecryptionCounter() view returns(uint256)
func (decryption *Decryption) UnpackPublicDecryptionCounter(data []byte) (*big.Int, error) {
	out, err := decryption.abi.Unpack("publicDecryptionCounter", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackPublicDecryptionDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe58f0dee.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function publicDecryptionDigest(bytes32[] ctHandles, bytes decryptedResult, bytes extraData) view returns(bytes32)
func (decryption *Decryption) PackPublicDecryptionDigest(ctHandles [][32]byte, decryptedResult []byte, extraData []byte) []byte {
	enc, err := decryption.abi.Pack("publicDecryptionDigest", ctHandles, decryptedResult, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPublicDecryptionDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe58f0dee.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function publicDecryptionDigest(bytes32[] ctHandles, bytes decryptedResult, bytes extraData) view returns(bytes32)
func (decryption *Decryption) TryPackPublicDecryptionDigest(ctHandles [][32]byte, decryptedResult []byte, extraData []byte) ([]byte, error) {
	return decryption.abi.Pack("publicDecryptionDigest", ctHandles, decryptedResult, extraData)
}

// UnpackPublicDecryptionDigest is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe58f0dee.
//
// Solidity: function publicDecryptionDigest(bytes32[] ctHandles, bytes decryptedResult, bytes extraData) view returns(bytes32)
func (decryption *Decryption) UnpackPublicDecryptionDigest(data []byte) ([32]byte, error) {
	out, err := decryption.abi.Unpack("publicDecryptionDigest", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackPublicDecryptionRequest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd8998f45.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function publicDecryptionRequest(bytes32[] ctHandles, bytes extraData) returns()
func (decryption *Decryption) PackPublicDecryptionRequest(ctHandles [][32]byte, extraData []byte) []byte {
	enc, err := decryption.abi.Pack("publicDecryptionRequest", ctHandles, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPublicDecryptionRequest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd8998f45.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function publicDecryptionRequest(bytes32[] ctHandles, bytes extraData) returns()
func (decryption *Decryption) TryPackPublicDecryptionRequest(ctHandles [][32]byte, extraData []byte) ([]byte, error) {
	return decryption.abi.Pack("publicDecryptionRequest", ctHandles, extraData)
}

// PackPublicDecryptionResponse is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6f8913bc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function publicDecryptionResponse(uint256 decryptionId, bytes decryptedResult, bytes signature, bytes extraData) returns()
func (decryption *Decryption) PackPublicDecryptionResponse(decryptionId *big.Int, decryptedResult []byte, signature []byte, extraData []byte) []byte {
	enc, err := decryption.abi.Pack("publicDecryptionResponse", decryptionId, decryptedResult, signature, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPublicDecryptionResponse is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6f8913bc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function publicDecryptionResponse(uint256 decryptionId, bytes decryptedResult, bytes signature, bytes extraData) returns()
func (decryption *Decryption) TryPackPublicDecryptionResponse(decryptionId *big.Int, decryptedResult []byte, signature []byte, extraData []byte) ([]byte, error) {
	return decryption.abi.Pack("publicDecryptionResponse", decryptionId, decryptedResult, signature, extraData)
}

// PackRegisterHandles is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8554551e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function registerHandles(bytes32[] ctHandles) returns()
func (decryption *Decryption) PackRegisterHandles(ctHandles [][32]byte) []byte {
	enc, err := decryption.abi.Pack("registerHandles", ctHandles)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRegisterHandles is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8554551e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function registerHandles(bytes32[] ctHandles) returns()
func (decryption *Decryption) TryPackRegisterHandles(ctHandles [][32]byte) ([]byte, error) {
	return decryption.abi.Pack("registerHandles", ctHandles)
}

// PackThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42cde4e8.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function threshold() view returns(uint256)
func (decryption *Decryption) PackThreshold() []byte {
	enc, err := decryption.abi.Pack("threshold")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42cde4e8.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function threshold() view returns(uint256)
func (decryption *Decryption) TryPackThreshold() ([]byte, error) {
	return decryption.abi.Pack("threshold")
}

// UnpackThreshold is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x42cde4e8.
//
// Solidity: function threshold() view returns(uint256)
func (decryption *Decryption) UnpackThreshold(data []byte) (*big.Int, error) {
	out, err := decryption.abi.Unpack("threshold", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackUnpause is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3f4ba83a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function unpause() returns()
func (decryption *Decryption) PackUnpause() []byte {
	enc, err := decryption.abi.Pack("unpause")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUnpause is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3f4ba83a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function unpause() returns()
func (decryption *Decryption) TryPackUnpause() ([]byte, error) {
	return decryption.abi.Pack("unpause")
}

// PackUserDecryptionCounter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfffb2aa9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function userDecryptionCounter() view returns(uint256)
func (decryption *Decryption) PackUserDecryptionCounter() []byte {
	enc, err := decryption.abi.Pack("userDecryptionCounter")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUserDecryptionCounter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfffb2aa9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function userDecryptionCounter() view returns(uint256)
func (decryption *Decryption) TryPackUserDecryptionCounter() ([]byte, error) {
	return decryption.abi.Pack("userDecryptionCounter")
}

// UnpackUserDecryptionCounter is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xfffb2aa9.
//
// Solidity: function userDecryptionCounter() view returns(uint256)
func (decryption *Decryption) UnpackUserDecryptionCounter(data []byte) (*big.Int, error) {
	out, err := decryption.abi.Unpack("userDecryptionCounter", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackUserDecryptionDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb48f811d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function userDecryptionDigest(bytes publicKey, bytes32[] ctHandles, bytes userDecryptedShare, bytes extraData) view returns(bytes32)
func (decryption *Decryption) PackUserDecryptionDigest(publicKey []byte, ctHandles [][32]byte, userDecryptedShare []byte, extraData []byte) []byte {
	enc, err := decryption.abi.Pack("userDecryptionDigest", publicKey, ctHandles, userDecryptedShare, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUserDecryptionDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb48f811d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function userDecryptionDigest(bytes publicKey, bytes32[] ctHandles, bytes userDecryptedShare, bytes extraData) view returns(bytes32)
func (decryption *Decryption) TryPackUserDecryptionDigest(publicKey []byte, ctHandles [][32]byte, userDecryptedShare []byte, extraData []byte) ([]byte, error) {
	return decryption.abi.Pack("userDecryptionDigest", publicKey, ctHandles, userDecryptedShare, extraData)
}

// UnpackUserDecryptionDigest is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xb48f811d.
//
// Solidity: function userDecryptionDigest(bytes publicKey, bytes32[] ctHandles, bytes userDecryptedShare, bytes extraData) view returns(bytes32)
func (decryption *Decryption) UnpackUserDecryptionDigest(data []byte) ([32]byte, error) {
	out, err := decryption.abi.Unpack("userDecryptionDigest", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackUnifiedUserDecryptionRequest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb4de2c37.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function userDecryptionRequest((bytes32,address,address)[] handles, address userAddress, bytes publicKey, address[] allowedContracts, (uint256,uint256) requestValidity, bytes signature, bytes extraData) returns()
func (decryption *Decryption) PackUnifiedUserDecryptionRequest(handles []DecryptionHandleEntry, userAddress common.Address, publicKey []byte, allowedContracts []common.Address, requestValidity DecryptionRequestValiditySeconds, signature []byte, extraData []byte) []byte {
	enc, err := decryption.abi.Pack("userDecryptionRequest", handles, userAddress, publicKey, allowedContracts, requestValidity, signature, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUnifiedUserDecryptionRequest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb4de2c37.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function userDecryptionRequest((bytes32,address,address)[] handles, address userAddress, bytes publicKey, address[] allowedContracts, (uint256,uint256) requestValidity, bytes signature, bytes extraData) returns()
func (decryption *Decryption) TryPackUnifiedUserDecryptionRequest(handles []DecryptionHandleEntry, userAddress common.Address, publicKey []byte, allowedContracts []common.Address, requestValidity DecryptionRequestValiditySeconds, signature []byte, extraData []byte) ([]byte, error) {
	return decryption.abi.Pack("userDecryptionRequest", handles, userAddress, publicKey, allowedContracts, requestValidity, signature, extraData)
}

// PackUserDecryptionRequest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf1b57adb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function userDecryptionRequest((bytes32,address)[] ctHandleContractPairs, (uint256,uint256) requestValidity, (uint256,address[]) contractsInfo, address userAddress, bytes publicKey, bytes signature, bytes extraData) returns()
func (decryption *Decryption) PackUserDecryptionRequest(ctHandleContractPairs []DecryptionCtHandleContractPair, requestValidity DecryptionRequestValidity, contractsInfo DecryptionContractsInfo, userAddress common.Address, publicKey []byte, signature []byte, extraData []byte) []byte {
	enc, err := decryption.abi.Pack("userDecryptionRequest0", ctHandleContractPairs, requestValidity, contractsInfo, userAddress, publicKey, signature, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUserDecryptionRequest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf1b57adb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function userDecryptionRequest((bytes32,address)[] ctHandleContractPairs, (uint256,uint256) requestValidity, (uint256,address[]) contractsInfo, address userAddress, bytes publicKey, bytes signature, bytes extraData) returns()
func (decryption *Decryption) TryPackUserDecryptionRequest(ctHandleContractPairs []DecryptionCtHandleContractPair, requestValidity DecryptionRequestValidity, contractsInfo DecryptionContractsInfo, userAddress common.Address, publicKey []byte, signature []byte, extraData []byte) ([]byte, error) {
	return decryption.abi.Pack("userDecryptionRequest0", ctHandleContractPairs, requestValidity, contractsInfo, userAddress, publicKey, signature, extraData)
}

// PackUserDecryptionResponse is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x046f9eb3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function userDecryptionResponse(uint256 decryptionId, bytes userDecryptedShare, bytes signature, bytes extraData) returns()
func (decryption *Decryption) PackUserDecryptionResponse(decryptionId *big.Int, userDecryptedShare []byte, signature []byte, extraData []byte) []byte {
	enc, err := decryption.abi.Pack("userDecryptionResponse", decryptionId, userDecryptedShare, signature, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUserDecryptionResponse is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x046f9eb3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function userDecryptionResponse(uint256 decryptionId, bytes userDecryptedShare, bytes signature, bytes extraData) returns()
func (decryption *Decryption) TryPackUserDecryptionResponse(decryptionId *big.Int, userDecryptedShare []byte, signature []byte, extraData []byte) ([]byte, error) {
	return decryption.abi.Pack("userDecryptionResponse", decryptionId, userDecryptedShare, signature, extraData)
}

// PackUserDecryptionShareCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4a7c21f6.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function userDecryptionShareCount(uint256 ) view returns(uint256)
func (decryption *Decryption) PackUserDecryptionShareCount(arg0 *big.Int) []byte {
	enc, err := decryption.abi.Pack("userDecryptionShareCount", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUserDecryptionShareCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4a7c21f6.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function userDecryptionShareCount(uint256 ) view returns(uint256)
func (decryption *Decryption) TryPackUserDecryptionShareCount(arg0 *big.Int) ([]byte, error) {
	return decryption.abi.Pack("userDecryptionShareCount", arg0)
}

// UnpackUserDecryptionShareCount is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x4a7c21f6.
//
// Solidity: function userDecryptionShareCount(uint256 ) view returns(uint256)
func (decryption *Decryption) UnpackUserDecryptionShareCount(data []byte) (*big.Int, error) {
	out, err := decryption.abi.Unpack("userDecryptionShareCount", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// DecryptionHandleRegistered represents a HandleRegistered event raised by the Decryption contract.
type DecryptionHandleRegistered struct {
	CtHandle  [32]byte
	FirstSeen *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const DecryptionHandleRegisteredEventName = "HandleRegistered"

// ContractEventName returns the user-defined event name.
func (DecryptionHandleRegistered) ContractEventName() string {
	return DecryptionHandleRegisteredEventName
}

// UnpackHandleRegisteredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event HandleRegistered(bytes32 indexed ctHandle, uint256 firstSeen)
func (decryption *Decryption) UnpackHandleRegisteredEvent(log *types.Log) (*DecryptionHandleRegistered, error) {
	event := "HandleRegistered"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != decryption.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DecryptionHandleRegistered)
	if len(log.Data) > 0 {
		if err := decryption.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range decryption.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// DecryptionPaused represents a Paused event raised by the Decryption contract.
type DecryptionPaused struct {
	Account common.Address
	Raw     *types.Log // Blockchain specific contextual infos
}

const DecryptionPausedEventName = "Paused"

// ContractEventName returns the user-defined event name.
func (DecryptionPaused) ContractEventName() string {
	return DecryptionPausedEventName
}

// UnpackPausedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Paused(address account)
func (decryption *Decryption) UnpackPausedEvent(log *types.Log) (*DecryptionPaused, error) {
	event := "Paused"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != decryption.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DecryptionPaused)
	if len(log.Data) > 0 {
		if err := decryption.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range decryption.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// DecryptionPublicDecryptionRequest represents a PublicDecryptionRequest event raised by the Decryption contract.
type DecryptionPublicDecryptionRequest struct {
	DecryptionId *big.Int
	CtHandles    [][32]byte
	ExtraData    []byte
	Raw          *types.Log // Blockchain specific contextual infos
}

const DecryptionPublicDecryptionRequestEventName = "PublicDecryptionRequest"

// ContractEventName returns the user-defined event name.
func (DecryptionPublicDecryptionRequest) ContractEventName() string {
	return DecryptionPublicDecryptionRequestEventName
}

// UnpackPublicDecryptionRequestEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event PublicDecryptionRequest(uint256 indexed decryptionId, bytes32[] ctHandles, bytes extraData)
func (decryption *Decryption) UnpackPublicDecryptionRequestEvent(log *types.Log) (*DecryptionPublicDecryptionRequest, error) {
	event := "PublicDecryptionRequest"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != decryption.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DecryptionPublicDecryptionRequest)
	if len(log.Data) > 0 {
		if err := decryption.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range decryption.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// DecryptionPublicDecryptionResponse represents a PublicDecryptionResponse event raised by the Decryption contract.
type DecryptionPublicDecryptionResponse struct {
	DecryptionId    *big.Int
	DecryptedResult []byte
	Signatures      [][]byte
	ExtraData       []byte
	Raw             *types.Log // Blockchain specific contextual infos
}

const DecryptionPublicDecryptionResponseEventName = "PublicDecryptionResponse"

// ContractEventName returns the user-defined event name.
func (DecryptionPublicDecryptionResponse) ContractEventName() string {
	return DecryptionPublicDecryptionResponseEventName
}

// UnpackPublicDecryptionResponseEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event PublicDecryptionResponse(uint256 indexed decryptionId, bytes decryptedResult, bytes[] signatures, bytes extraData)
func (decryption *Decryption) UnpackPublicDecryptionResponseEvent(log *types.Log) (*DecryptionPublicDecryptionResponse, error) {
	event := "PublicDecryptionResponse"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != decryption.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DecryptionPublicDecryptionResponse)
	if len(log.Data) > 0 {
		if err := decryption.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range decryption.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// DecryptionUnpaused represents a Unpaused event raised by the Decryption contract.
type DecryptionUnpaused struct {
	Account common.Address
	Raw     *types.Log // Blockchain specific contextual infos
}

const DecryptionUnpausedEventName = "Unpaused"

// ContractEventName returns the user-defined event name.
func (DecryptionUnpaused) ContractEventName() string {
	return DecryptionUnpausedEventName
}

// UnpackUnpausedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Unpaused(address account)
func (decryption *Decryption) UnpackUnpausedEvent(log *types.Log) (*DecryptionUnpaused, error) {
	event := "Unpaused"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != decryption.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DecryptionUnpaused)
	if len(log.Data) > 0 {
		if err := decryption.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range decryption.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// DecryptionUserDecryptionRequest represents a UserDecryptionRequest event raised by the Decryption contract.
type DecryptionUserDecryptionRequest struct {
	DecryptionId *big.Int
	CtHandles    [][32]byte
	UserAddress  common.Address
	PublicKey    []byte
	ExtraData    []byte
	Raw          *types.Log // Blockchain specific contextual infos
}

const DecryptionUserDecryptionRequestEventName = "UserDecryptionRequest"

// ContractEventName returns the user-defined event name.
func (DecryptionUserDecryptionRequest) ContractEventName() string {
	return DecryptionUserDecryptionRequestEventName
}

// UnpackUserDecryptionRequestEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event UserDecryptionRequest(uint256 indexed decryptionId, bytes32[] ctHandles, address userAddress, bytes publicKey, bytes extraData)
func (decryption *Decryption) UnpackUserDecryptionRequestEvent(log *types.Log) (*DecryptionUserDecryptionRequest, error) {
	event := "UserDecryptionRequest"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != decryption.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DecryptionUserDecryptionRequest)
	if len(log.Data) > 0 {
		if err := decryption.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range decryption.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// DecryptionUnifiedUserDecryptionRequest represents a UserDecryptionRequest0 event raised by the Decryption contract.
type DecryptionUnifiedUserDecryptionRequest struct {
	DecryptionId *big.Int
	Handles      []DecryptionHandleEntry
	Payload      DecryptionUserDecryptionRequestPayload
	Raw          *types.Log // Blockchain specific contextual infos
}

const DecryptionUnifiedUserDecryptionRequestEventName = "UserDecryptionRequest0"

// ContractEventName returns the user-defined event name.
func (DecryptionUnifiedUserDecryptionRequest) ContractEventName() string {
	return DecryptionUnifiedUserDecryptionRequestEventName
}

// UnpackUnifiedUserDecryptionRequestEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event UserDecryptionRequest(uint256 indexed decryptionId, (bytes32,address,address)[] handles, (address,bytes,address[],(uint256,uint256),bytes,bytes) payload)
func (decryption *Decryption) UnpackUnifiedUserDecryptionRequestEvent(log *types.Log) (*DecryptionUnifiedUserDecryptionRequest, error) {
	event := "UserDecryptionRequest0"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != decryption.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DecryptionUnifiedUserDecryptionRequest)
	if len(log.Data) > 0 {
		if err := decryption.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range decryption.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// DecryptionUserDecryptionResponse represents a UserDecryptionResponse event raised by the Decryption contract.
type DecryptionUserDecryptionResponse struct {
	DecryptionId       *big.Int
	IndexShare         *big.Int
	KmsSigner          common.Address
	UserDecryptedShare []byte
	Signature          []byte
	ExtraData          []byte
	Raw                *types.Log // Blockchain specific contextual infos
}

const DecryptionUserDecryptionResponseEventName = "UserDecryptionResponse"

// ContractEventName returns the user-defined event name.
func (DecryptionUserDecryptionResponse) ContractEventName() string {
	return DecryptionUserDecryptionResponseEventName
}

// UnpackUserDecryptionResponseEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event UserDecryptionResponse(uint256 indexed decryptionId, uint256 indexShare, address kmsSigner, bytes userDecryptedShare, bytes signature, bytes extraData)
func (decryption *Decryption) UnpackUserDecryptionResponseEvent(log *types.Log) (*DecryptionUserDecryptionResponse, error) {
	event := "UserDecryptionResponse"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != decryption.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DecryptionUserDecryptionResponse)
	if len(log.Data) > 0 {
		if err := decryption.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range decryption.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// DecryptionUserDecryptionResponseThresholdReached represents a UserDecryptionResponseThresholdReached event raised by the Decryption contract.
type DecryptionUserDecryptionResponseThresholdReached struct {
	DecryptionId *big.Int
	Raw          *types.Log // Blockchain specific contextual infos
}

const DecryptionUserDecryptionResponseThresholdReachedEventName = "UserDecryptionResponseThresholdReached"

// ContractEventName returns the user-defined event name.
func (DecryptionUserDecryptionResponseThresholdReached) ContractEventName() string {
	return DecryptionUserDecryptionResponseThresholdReachedEventName
}

// UnpackUserDecryptionResponseThresholdReachedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event UserDecryptionResponseThresholdReached(uint256 indexed decryptionId)
func (decryption *Decryption) UnpackUserDecryptionResponseThresholdReachedEvent(log *types.Log) (*DecryptionUserDecryptionResponseThresholdReached, error) {
	event := "UserDecryptionResponseThresholdReached"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != decryption.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(DecryptionUserDecryptionResponseThresholdReached)
	if len(log.Data) > 0 {
		if err := decryption.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range decryption.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (decryption *Decryption) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], decryption.abi.Errors["ContractAddressesMaxLengthExceeded"].ID.Bytes()[:4]) {
		return decryption.UnpackContractAddressesMaxLengthExceededError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["ContractNotInContractAddresses"].ID.Bytes()[:4]) {
		return decryption.UnpackContractNotInContractAddressesError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["DuplicateKmsSigner"].ID.Bytes()[:4]) {
		return decryption.UnpackDuplicateKmsSignerError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["EmptyContractAddresses"].ID.Bytes()[:4]) {
		return decryption.UnpackEmptyContractAddressesError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["EmptyCtHandleContractPairs"].ID.Bytes()[:4]) {
		return decryption.UnpackEmptyCtHandleContractPairsError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["EmptyCtHandles"].ID.Bytes()[:4]) {
		return decryption.UnpackEmptyCtHandlesError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["EmptyHandles"].ID.Bytes()[:4]) {
		return decryption.UnpackEmptyHandlesError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["EmptyKmsSigners"].ID.Bytes()[:4]) {
		return decryption.UnpackEmptyKmsSignersError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["EnforcedPause"].ID.Bytes()[:4]) {
		return decryption.UnpackEnforcedPauseError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["ExpectedPause"].ID.Bytes()[:4]) {
		return decryption.UnpackExpectedPauseError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["InvalidKmsSignature"].ID.Bytes()[:4]) {
		return decryption.UnpackInvalidKmsSignatureError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["InvalidNullDurationDays"].ID.Bytes()[:4]) {
		return decryption.UnpackInvalidNullDurationDaysError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["InvalidNullDurationSeconds"].ID.Bytes()[:4]) {
		return decryption.UnpackInvalidNullDurationSecondsError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["InvalidThreshold"].ID.Bytes()[:4]) {
		return decryption.UnpackInvalidThresholdError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["KmsNodeAlreadySigned"].ID.Bytes()[:4]) {
		return decryption.UnpackKmsNodeAlreadySignedError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["MaxDurationDaysExceeded"].ID.Bytes()[:4]) {
		return decryption.UnpackMaxDurationDaysExceededError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["MaxDurationSecondsExceeded"].ID.Bytes()[:4]) {
		return decryption.UnpackMaxDurationSecondsExceededError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["NotKmsSigner"].ID.Bytes()[:4]) {
		return decryption.UnpackNotKmsSignerError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["NotOwner"].ID.Bytes()[:4]) {
		return decryption.UnpackNotOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["NullAclAddress"].ID.Bytes()[:4]) {
		return decryption.UnpackNullAclAddressError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["PublicDecryptNotAllowed"].ID.Bytes()[:4]) {
		return decryption.UnpackPublicDecryptNotAllowedError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["StartTimestampInFuture"].ID.Bytes()[:4]) {
		return decryption.UnpackStartTimestampInFutureError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["TestScenarioRevert"].ID.Bytes()[:4]) {
		return decryption.UnpackTestScenarioRevertError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["UnknownRequest"].ID.Bytes()[:4]) {
		return decryption.UnpackUnknownRequestError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["UserAddressInContractAddresses"].ID.Bytes()[:4]) {
		return decryption.UnpackUserAddressInContractAddressesError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["UserDecryptNotAllowed"].ID.Bytes()[:4]) {
		return decryption.UnpackUserDecryptNotAllowedError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["UserDecryptNotDelegated"].ID.Bytes()[:4]) {
		return decryption.UnpackUserDecryptNotDelegatedError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["UserDecryptionRequestExpired"].ID.Bytes()[:4]) {
		return decryption.UnpackUserDecryptionRequestExpiredError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["UserDecryptionRequestExpiredSeconds"].ID.Bytes()[:4]) {
		return decryption.UnpackUserDecryptionRequestExpiredSecondsError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// DecryptionContractAddressesMaxLengthExceeded represents a ContractAddressesMaxLengthExceeded error raised by the Decryption contract.
type DecryptionContractAddressesMaxLengthExceeded struct {
	MaxLength    *big.Int
	ActualLength *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ContractAddressesMaxLengthExceeded(uint256 maxLength, uint256 actualLength)
func DecryptionContractAddressesMaxLengthExceededErrorID() common.Hash {
	return common.HexToHash("0xaf1f0495a7b1473d549d7a84f9028901dd9faa3720c2181f22bd2c2ecaa26dba")
}

// UnpackContractAddressesMaxLengthExceededError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ContractAddressesMaxLengthExceeded(uint256 maxLength, uint256 actualLength)
func (decryption *Decryption) UnpackContractAddressesMaxLengthExceededError(raw []byte) (*DecryptionContractAddressesMaxLengthExceeded, error) {
	out := new(DecryptionContractAddressesMaxLengthExceeded)
	if err := decryption.abi.UnpackIntoInterface(out, "ContractAddressesMaxLengthExceeded", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionContractNotInContractAddresses represents a ContractNotInContractAddresses error raised by the Decryption contract.
type DecryptionContractNotInContractAddresses struct {
	ContractAddress common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ContractNotInContractAddresses(address contractAddress)
func DecryptionContractNotInContractAddressesErrorID() common.Hash {
	return common.HexToHash("0xf156888b066ec0bf1a6dc48b26cc743e25711c4e510f7e46aa2bb6f1c5af9b02")
}

// UnpackContractNotInContractAddressesError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ContractNotInContractAddresses(address contractAddress)
func (decryption *Decryption) UnpackContractNotInContractAddressesError(raw []byte) (*DecryptionContractNotInContractAddresses, error) {
	out := new(DecryptionContractNotInContractAddresses)
	if err := decryption.abi.UnpackIntoInterface(out, "ContractNotInContractAddresses", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionDuplicateKmsSigner represents a DuplicateKmsSigner error raised by the Decryption contract.
type DecryptionDuplicateKmsSigner struct {
	Signer common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DuplicateKmsSigner(address signer)
func DecryptionDuplicateKmsSignerErrorID() common.Hash {
	return common.HexToHash("0xe234ee85ee0f95a6f0f23ae0b7febae9f9982e70f8fcec7515894d4981235d31")
}

// UnpackDuplicateKmsSignerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DuplicateKmsSigner(address signer)
func (decryption *Decryption) UnpackDuplicateKmsSignerError(raw []byte) (*DecryptionDuplicateKmsSigner, error) {
	out := new(DecryptionDuplicateKmsSigner)
	if err := decryption.abi.UnpackIntoInterface(out, "DuplicateKmsSigner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionEmptyContractAddresses represents a EmptyContractAddresses error raised by the Decryption contract.
type DecryptionEmptyContractAddresses struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptyContractAddresses()
func DecryptionEmptyContractAddressesErrorID() common.Hash {
	return common.HexToHash("0x57cfa217e59784b0f0c459bad23c6e2e0b22bf87c305a75aef5ecc64e0d0b53b")
}

// UnpackEmptyContractAddressesError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptyContractAddresses()
func (decryption *Decryption) UnpackEmptyContractAddressesError(raw []byte) (*DecryptionEmptyContractAddresses, error) {
	out := new(DecryptionEmptyContractAddresses)
	if err := decryption.abi.UnpackIntoInterface(out, "EmptyContractAddresses", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionEmptyCtHandleContractPairs represents a EmptyCtHandleContractPairs error raised by the Decryption contract.
type DecryptionEmptyCtHandleContractPairs struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptyCtHandleContractPairs()
func DecryptionEmptyCtHandleContractPairsErrorID() common.Hash {
	return common.HexToHash("0xa6a6cb215f602680a77647a7dfe61a9109485d975f61e60eecd25e6679c3b221")
}

// UnpackEmptyCtHandleContractPairsError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptyCtHandleContractPairs()
func (decryption *Decryption) UnpackEmptyCtHandleContractPairsError(raw []byte) (*DecryptionEmptyCtHandleContractPairs, error) {
	out := new(DecryptionEmptyCtHandleContractPairs)
	if err := decryption.abi.UnpackIntoInterface(out, "EmptyCtHandleContractPairs", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionEmptyCtHandles represents a EmptyCtHandles error raised by the Decryption contract.
type DecryptionEmptyCtHandles struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptyCtHandles()
func DecryptionEmptyCtHandlesErrorID() common.Hash {
	return common.HexToHash("0x2de75438d74b9e9926cfd7a5465b5a0f3e696bda7d0b70786f51f63b35d1ab31")
}

// UnpackEmptyCtHandlesError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptyCtHandles()
func (decryption *Decryption) UnpackEmptyCtHandlesError(raw []byte) (*DecryptionEmptyCtHandles, error) {
	out := new(DecryptionEmptyCtHandles)
	if err := decryption.abi.UnpackIntoInterface(out, "EmptyCtHandles", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionEmptyHandles represents a EmptyHandles error raised by the Decryption contract.
type DecryptionEmptyHandles struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptyHandles()
func DecryptionEmptyHandlesErrorID() common.Hash {
	return common.HexToHash("0x240e9309298541095f13258b55a35382c8a1d7ab504bbc3b7408c6062bee98e2")
}

// UnpackEmptyHandlesError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptyHandles()
func (decryption *Decryption) UnpackEmptyHandlesError(raw []byte) (*DecryptionEmptyHandles, error) {
	out := new(DecryptionEmptyHandles)
	if err := decryption.abi.UnpackIntoInterface(out, "EmptyHandles", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionEmptyKmsSigners represents a EmptyKmsSigners error raised by the Decryption contract.
type DecryptionEmptyKmsSigners struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptyKmsSigners()
func DecryptionEmptyKmsSignersErrorID() common.Hash {
	return common.HexToHash("0x9893b6066ee7356efa2cfd34ac1a869b68a6066414ae03d8eeba71ce5635237a")
}

// UnpackEmptyKmsSignersError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptyKmsSigners()
func (decryption *Decryption) UnpackEmptyKmsSignersError(raw []byte) (*DecryptionEmptyKmsSigners, error) {
	out := new(DecryptionEmptyKmsSigners)
	if err := decryption.abi.UnpackIntoInterface(out, "EmptyKmsSigners", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionEnforcedPause represents a EnforcedPause error raised by the Decryption contract.
type DecryptionEnforcedPause struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EnforcedPause()
func DecryptionEnforcedPauseErrorID() common.Hash {
	return common.HexToHash("0xd93c0665d6c96d04a8f174024fc4ddd66c250604aff22bbec808de86dd3637e3")
}

// UnpackEnforcedPauseError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EnforcedPause()
func (decryption *Decryption) UnpackEnforcedPauseError(raw []byte) (*DecryptionEnforcedPause, error) {
	out := new(DecryptionEnforcedPause)
	if err := decryption.abi.UnpackIntoInterface(out, "EnforcedPause", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionExpectedPause represents a ExpectedPause error raised by the Decryption contract.
type DecryptionExpectedPause struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ExpectedPause()
func DecryptionExpectedPauseErrorID() common.Hash {
	return common.HexToHash("0x8dfc202bcfe9a735b559bee70674422512bc5c30f687046ae8778315fb81da44")
}

// UnpackExpectedPauseError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ExpectedPause()
func (decryption *Decryption) UnpackExpectedPauseError(raw []byte) (*DecryptionExpectedPause, error) {
	out := new(DecryptionExpectedPause)
	if err := decryption.abi.UnpackIntoInterface(out, "ExpectedPause", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionInvalidKmsSignature represents a InvalidKmsSignature error raised by the Decryption contract.
type DecryptionInvalidKmsSignature struct {
	DecryptionId *big.Int
	Signer       common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidKmsSignature(uint256 decryptionId, address signer)
func DecryptionInvalidKmsSignatureErrorID() common.Hash {
	return common.HexToHash("0x9ace269ac6f757c08c18ebef33b7a1f67f9db474bf342441e0f7e7918d43f521")
}

// UnpackInvalidKmsSignatureError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidKmsSignature(uint256 decryptionId, address signer)
func (decryption *Decryption) UnpackInvalidKmsSignatureError(raw []byte) (*DecryptionInvalidKmsSignature, error) {
	out := new(DecryptionInvalidKmsSignature)
	if err := decryption.abi.UnpackIntoInterface(out, "InvalidKmsSignature", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionInvalidNullDurationDays represents a InvalidNullDurationDays error raised by the Decryption contract.
type DecryptionInvalidNullDurationDays struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidNullDurationDays()
func DecryptionInvalidNullDurationDaysErrorID() common.Hash {
	return common.HexToHash("0xde2859c155488ecafadbeea6f0d4404910c76cd32dc11f6946329c5061d41dae")
}

// UnpackInvalidNullDurationDaysError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidNullDurationDays()
func (decryption *Decryption) UnpackInvalidNullDurationDaysError(raw []byte) (*DecryptionInvalidNullDurationDays, error) {
	out := new(DecryptionInvalidNullDurationDays)
	if err := decryption.abi.UnpackIntoInterface(out, "InvalidNullDurationDays", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionInvalidNullDurationSeconds represents a InvalidNullDurationSeconds error raised by the Decryption contract.
type DecryptionInvalidNullDurationSeconds struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidNullDurationSeconds()
func DecryptionInvalidNullDurationSecondsErrorID() common.Hash {
	return common.HexToHash("0x48a788dcbdab96300e0ae98394b9b6573f73a354b78ed6c4570670981672aa6d")
}

// UnpackInvalidNullDurationSecondsError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidNullDurationSeconds()
func (decryption *Decryption) UnpackInvalidNullDurationSecondsError(raw []byte) (*DecryptionInvalidNullDurationSeconds, error) {
	out := new(DecryptionInvalidNullDurationSeconds)
	if err := decryption.abi.UnpackIntoInterface(out, "InvalidNullDurationSeconds", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionInvalidThreshold represents a InvalidThreshold error raised by the Decryption contract.
type DecryptionInvalidThreshold struct {
	Threshold  *big.Int
	KmsSigners *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidThreshold(uint256 threshold, uint256 kmsSigners)
func DecryptionInvalidThresholdErrorID() common.Hash {
	return common.HexToHash("0x7b7a98f144b22ac349117faf884147efe6b9d8f459322b9ed0cb76310884f093")
}

// UnpackInvalidThresholdError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidThreshold(uint256 threshold, uint256 kmsSigners)
func (decryption *Decryption) UnpackInvalidThresholdError(raw []byte) (*DecryptionInvalidThreshold, error) {
	out := new(DecryptionInvalidThreshold)
	if err := decryption.abi.UnpackIntoInterface(out, "InvalidThreshold", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionKmsNodeAlreadySigned represents a KmsNodeAlreadySigned error raised by the Decryption contract.
type DecryptionKmsNodeAlreadySigned struct {
	DecryptionId *big.Int
	Signer       common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error KmsNodeAlreadySigned(uint256 decryptionId, address signer)
func DecryptionKmsNodeAlreadySignedErrorID() common.Hash {
	return common.HexToHash("0x99ec48d932efc3b2b9134709cbb15f57d83348435132d3d5be2c742ed64a4e4c")
}

// UnpackKmsNodeAlreadySignedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error KmsNodeAlreadySigned(uint256 decryptionId, address signer)
func (decryption *Decryption) UnpackKmsNodeAlreadySignedError(raw []byte) (*DecryptionKmsNodeAlreadySigned, error) {
	out := new(DecryptionKmsNodeAlreadySigned)
	if err := decryption.abi.UnpackIntoInterface(out, "KmsNodeAlreadySigned", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionMaxDurationDaysExceeded represents a MaxDurationDaysExceeded error raised by the Decryption contract.
type DecryptionMaxDurationDaysExceeded struct {
	MaxValue    *big.Int
	ActualValue *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error MaxDurationDaysExceeded(uint256 maxValue, uint256 actualValue)
func DecryptionMaxDurationDaysExceededErrorID() common.Hash {
	return common.HexToHash("0x329518630bda4762e452da60d1275cc681a66b46a04c0ef3acc7453557bbe746")
}

// UnpackMaxDurationDaysExceededError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error MaxDurationDaysExceeded(uint256 maxValue, uint256 actualValue)
func (decryption *Decryption) UnpackMaxDurationDaysExceededError(raw []byte) (*DecryptionMaxDurationDaysExceeded, error) {
	out := new(DecryptionMaxDurationDaysExceeded)
	if err := decryption.abi.UnpackIntoInterface(out, "MaxDurationDaysExceeded", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionMaxDurationSecondsExceeded represents a MaxDurationSecondsExceeded error raised by the Decryption contract.
type DecryptionMaxDurationSecondsExceeded struct {
	MaxValue    *big.Int
	ActualValue *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error MaxDurationSecondsExceeded(uint256 maxValue, uint256 actualValue)
func DecryptionMaxDurationSecondsExceededErrorID() common.Hash {
	return common.HexToHash("0xae52eb124199bf4b17590a062a926e0a7b05b44e636a733faf733b0a753d1d6a")
}

// UnpackMaxDurationSecondsExceededError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error MaxDurationSecondsExceeded(uint256 maxValue, uint256 actualValue)
func (decryption *Decryption) UnpackMaxDurationSecondsExceededError(raw []byte) (*DecryptionMaxDurationSecondsExceeded, error) {
	out := new(DecryptionMaxDurationSecondsExceeded)
	if err := decryption.abi.UnpackIntoInterface(out, "MaxDurationSecondsExceeded", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionNotKmsSigner represents a NotKmsSigner error raised by the Decryption contract.
type DecryptionNotKmsSigner struct {
	Caller common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotKmsSigner(address caller)
func DecryptionNotKmsSignerErrorID() common.Hash {
	return common.HexToHash("0x2a7c6ef69c6e5d5845a9f68d62d557231973a416852b923f8db026b5d433c8c1")
}

// UnpackNotKmsSignerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotKmsSigner(address caller)
func (decryption *Decryption) UnpackNotKmsSignerError(raw []byte) (*DecryptionNotKmsSigner, error) {
	out := new(DecryptionNotKmsSigner)
	if err := decryption.abi.UnpackIntoInterface(out, "NotKmsSigner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionNotOwner represents a NotOwner error raised by the Decryption contract.
type DecryptionNotOwner struct {
	Caller common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotOwner(address caller)
func DecryptionNotOwnerErrorID() common.Hash {
	return common.HexToHash("0x245aecd3fabbd17d6c3c92dc7f0ab916ea8cbf6fc1862c8b56893090ac3fff4c")
}

// UnpackNotOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotOwner(address caller)
func (decryption *Decryption) UnpackNotOwnerError(raw []byte) (*DecryptionNotOwner, error) {
	out := new(DecryptionNotOwner)
	if err := decryption.abi.UnpackIntoInterface(out, "NotOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionNullAclAddress represents a NullAclAddress error raised by the Decryption contract.
type DecryptionNullAclAddress struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NullAclAddress()
func DecryptionNullAclAddressErrorID() common.Hash {
	return common.HexToHash("0xaf8817b94105ab9a7f3a4012236b8235b67be58e741d9875ad896ffe34796f23")
}

// UnpackNullAclAddressError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NullAclAddress()
func (decryption *Decryption) UnpackNullAclAddressError(raw []byte) (*DecryptionNullAclAddress, error) {
	out := new(DecryptionNullAclAddress)
	if err := decryption.abi.UnpackIntoInterface(out, "NullAclAddress", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionPublicDecryptNotAllowed represents a PublicDecryptNotAllowed error raised by the Decryption contract.
type DecryptionPublicDecryptNotAllowed struct {
	CtHandle [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error PublicDecryptNotAllowed(bytes32 ctHandle)
func DecryptionPublicDecryptNotAllowedErrorID() common.Hash {
	return common.HexToHash("0x4331a85dc6c385d474291230646ccc781f432f761ebca329e2d32f990ebd0a25")
}

// UnpackPublicDecryptNotAllowedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error PublicDecryptNotAllowed(bytes32 ctHandle)
func (decryption *Decryption) UnpackPublicDecryptNotAllowedError(raw []byte) (*DecryptionPublicDecryptNotAllowed, error) {
	out := new(DecryptionPublicDecryptNotAllowed)
	if err := decryption.abi.UnpackIntoInterface(out, "PublicDecryptNotAllowed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionStartTimestampInFuture represents a StartTimestampInFuture error raised by the Decryption contract.
type DecryptionStartTimestampInFuture struct {
	CurrentTimestamp *big.Int
	StartTimestamp   *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error StartTimestampInFuture(uint256 currentTimestamp, uint256 startTimestamp)
func DecryptionStartTimestampInFutureErrorID() common.Hash {
	return common.HexToHash("0xf24c0887924c6f5193edc13f8b27a89ad2df367fc70f749466e283738b0fc56d")
}

// UnpackStartTimestampInFutureError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error StartTimestampInFuture(uint256 currentTimestamp, uint256 startTimestamp)
func (decryption *Decryption) UnpackStartTimestampInFutureError(raw []byte) (*DecryptionStartTimestampInFuture, error) {
	out := new(DecryptionStartTimestampInFuture)
	if err := decryption.abi.UnpackIntoInterface(out, "StartTimestampInFuture", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionTestScenarioRevert represents a TestScenarioRevert error raised by the Decryption contract.
type DecryptionTestScenarioRevert struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error TestScenarioRevert()
func DecryptionTestScenarioRevertErrorID() common.Hash {
	return common.HexToHash("0xa5c3ab7c895df3ef0ab74eb9c39fe5635e95bfffda19eda25a5fbed9a725eb4e")
}

// UnpackTestScenarioRevertError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error TestScenarioRevert()
func (decryption *Decryption) UnpackTestScenarioRevertError(raw []byte) (*DecryptionTestScenarioRevert, error) {
	out := new(DecryptionTestScenarioRevert)
	if err := decryption.abi.UnpackIntoInterface(out, "TestScenarioRevert", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionUnknownRequest represents a UnknownRequest error raised by the Decryption contract.
type DecryptionUnknownRequest struct {
	RequestId *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error UnknownRequest(uint256 requestId)
func DecryptionUnknownRequestErrorID() common.Hash {
	return common.HexToHash("0x1f79bbe7615659139997ff125b66c4ba38cac7dfa6b433c10ed50c7d053634ff")
}

// UnpackUnknownRequestError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error UnknownRequest(uint256 requestId)
func (decryption *Decryption) UnpackUnknownRequestError(raw []byte) (*DecryptionUnknownRequest, error) {
	out := new(DecryptionUnknownRequest)
	if err := decryption.abi.UnpackIntoInterface(out, "UnknownRequest", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionUserAddressInContractAddresses represents a UserAddressInContractAddresses error raised by the Decryption contract.
type DecryptionUserAddressInContractAddresses struct {
	UserAddress common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error UserAddressInContractAddresses(address userAddress)
func DecryptionUserAddressInContractAddressesErrorID() common.Hash {
	return common.HexToHash("0xf69e9025e97a80c704d2498cbc350a030dbd2b936c45adb41f54f032230d64ab")
}

// UnpackUserAddressInContractAddressesError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error UserAddressInContractAddresses(address userAddress)
func (decryption *Decryption) UnpackUserAddressInContractAddressesError(raw []byte) (*DecryptionUserAddressInContractAddresses, error) {
	out := new(DecryptionUserAddressInContractAddresses)
	if err := decryption.abi.UnpackIntoInterface(out, "UserAddressInContractAddresses", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionUserDecryptNotAllowed represents a UserDecryptNotAllowed error raised by the Decryption contract.
type DecryptionUserDecryptNotAllowed struct {
	CtHandle [32]byte
	Account  common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error UserDecryptNotAllowed(bytes32 ctHandle, address account)
func DecryptionUserDecryptNotAllowedErrorID() common.Hash {
	return common.HexToHash("0x5ba4ec22f8549b87fec26bfda836c46db0e951f031056bfa6afea1f51d5a1678")
}

// UnpackUserDecryptNotAllowedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error UserDecryptNotAllowed(bytes32 ctHandle, address account)
func (decryption *Decryption) UnpackUserDecryptNotAllowedError(raw []byte) (*DecryptionUserDecryptNotAllowed, error) {
	out := new(DecryptionUserDecryptNotAllowed)
	if err := decryption.abi.UnpackIntoInterface(out, "UserDecryptNotAllowed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionUserDecryptNotDelegated represents a UserDecryptNotDelegated error raised by the Decryption contract.
type DecryptionUserDecryptNotDelegated struct {
	Delegator       common.Address
	Delegate        common.Address
	ContractAddress common.Address
	CtHandle        [32]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error UserDecryptNotDelegated(address delegator, address delegate, address contractAddress, bytes32 ctHandle)
func DecryptionUserDecryptNotDelegatedErrorID() common.Hash {
	return common.HexToHash("0x19e5ac469c7ea88faa5ec2c6caadfd37107d3313b319f004f04efae98b42aaf9")
}

// UnpackUserDecryptNotDelegatedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error UserDecryptNotDelegated(address delegator, address delegate, address contractAddress, bytes32 ctHandle)
func (decryption *Decryption) UnpackUserDecryptNotDelegatedError(raw []byte) (*DecryptionUserDecryptNotDelegated, error) {
	out := new(DecryptionUserDecryptNotDelegated)
	if err := decryption.abi.UnpackIntoInterface(out, "UserDecryptNotDelegated", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionUserDecryptionRequestExpired represents a UserDecryptionRequestExpired error raised by the Decryption contract.
type DecryptionUserDecryptionRequestExpired struct {
	CurrentTimestamp *big.Int
	ExpiredAt        *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error UserDecryptionRequestExpired(uint256 currentTimestamp, uint256 expiredAt)
func DecryptionUserDecryptionRequestExpiredErrorID() common.Hash {
	return common.HexToHash("0xaf885bb0a901bb879f62952cb635991d294c99e223b6e80333d8cf83f61885d2")
}

// UnpackUserDecryptionRequestExpiredError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error UserDecryptionRequestExpired(uint256 currentTimestamp, uint256 expiredAt)
func (decryption *Decryption) UnpackUserDecryptionRequestExpiredError(raw []byte) (*DecryptionUserDecryptionRequestExpired, error) {
	out := new(DecryptionUserDecryptionRequestExpired)
	if err := decryption.abi.UnpackIntoInterface(out, "UserDecryptionRequestExpired", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// DecryptionUserDecryptionRequestExpiredSeconds represents a UserDecryptionRequestExpiredSeconds error raised by the Decryption contract.
type DecryptionUserDecryptionRequestExpiredSeconds struct {
	CurrentTimestamp *big.Int
	RequestValidity  DecryptionRequestValiditySeconds
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error UserDecryptionRequestExpiredSeconds(uint256 currentTimestamp, (uint256,uint256) requestValidity)
func DecryptionUserDecryptionRequestExpiredSecondsErrorID() common.Hash {
	return common.HexToHash("0x678fcfce73f2984c41cb263f7bce7f2a7e2215882f2265e80a3dd4702315e0b9")
}

// UnpackUserDecryptionRequestExpiredSecondsError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error UserDecryptionRequestExpiredSeconds(uint256 currentTimestamp, (uint256,uint256) requestValidity)
func (decryption *Decryption) UnpackUserDecryptionRequestExpiredSecondsError(raw []byte) (*DecryptionUserDecryptionRequestExpiredSeconds, error) {
	out := new(DecryptionUserDecryptionRequestExpiredSeconds)
	if err := decryption.abi.UnpackIntoInterface(out, "UserDecryptionRequestExpiredSeconds", raw); err != nil {
		return nil, err
	}
	return out, nil
}
