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

// DecryptionRequestValidity is an auto generated low-level Go binding around an user-defined struct.
type DecryptionRequestValidity struct {
	StartTimestamp *big.Int
	DurationDays   *big.Int
}

// DecryptionMetaData contains all meta data concerning the Decryption contract.
var DecryptionMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address[]\",\"name\":\"kmsSigners_\",\"type\":\"address[]\"},{\"internalType\":\"uint256\",\"name\":\"threshold_\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"}],\"name\":\"ContractNotInContractAddresses\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"signer\",\"type\":\"address\"}],\"name\":\"DuplicateKmsSigner\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyContractAddresses\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyCtHandleContractPairs\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyCtHandles\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyKmsSigners\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EnforcedPause\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ExpectedPause\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"signer\",\"type\":\"address\"}],\"name\":\"InvalidKmsSignature\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidNullDurationDays\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"threshold\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"kmsSigners\",\"type\":\"uint256\"}],\"name\":\"InvalidThreshold\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"signer\",\"type\":\"address\"}],\"name\":\"KmsNodeAlreadySigned\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"maxValue\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"actualValue\",\"type\":\"uint256\"}],\"name\":\"MaxDurationDaysExceeded\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotKmsSigner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotOwner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"ctHandle\",\"type\":\"bytes32\"}],\"name\":\"PublicDecryptNotAllowed\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"currentTimestamp\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"startTimestamp\",\"type\":\"uint256\"}],\"name\":\"StartTimestampInFuture\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"TestScenarioRevert\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"requestId\",\"type\":\"uint256\"}],\"name\":\"UnknownRequest\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"userAddress\",\"type\":\"address\"}],\"name\":\"UserAddressInContractAddresses\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"ctHandle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"UserDecryptNotAllowed\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"currentTimestamp\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"expiredAt\",\"type\":\"uint256\"}],\"name\":\"UserDecryptionRequestExpired\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"ctHandle\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"firstSeen\",\"type\":\"uint256\"}],\"name\":\"HandleRegistered\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"Paused\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"PublicDecryptionRequest\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"decryptedResult\",\"type\":\"bytes\"},{\"indexed\":false,\"internalType\":\"bytes[]\",\"name\":\"signatures\",\"type\":\"bytes[]\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"PublicDecryptionResponse\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"Unpaused\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"userAddress\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"publicKey\",\"type\":\"bytes\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"UserDecryptionRequest\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"indexShare\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"kmsSigner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"userDecryptedShare\",\"type\":\"bytes\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"UserDecryptionResponse\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"}],\"name\":\"UserDecryptionResponseThresholdReached\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"MAX_USER_DECRYPT_DURATION_DAYS\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"PUBLIC_DECRYPTION_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"PUBLIC_DECRYPT_COUNTER_BASE\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"READY_DELAY\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"USER_DECRYPTION_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"USER_DECRYPT_COUNTER_BASE\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"name\":\"handleFirstSeen\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"name\":\"isDecryptionDone\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"isKmsSigner\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"isPublicDecryptionReady\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"userAddress\",\"type\":\"address\"},{\"components\":[{\"internalType\":\"bytes32\",\"name\":\"ctHandle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"}],\"internalType\":\"structDecryption.CtHandleContractPair[]\",\"name\":\"ctHandleContractPairs\",\"type\":\"tuple[]\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"isUserDecryptionReady\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"kmsSigners\",\"outputs\":[{\"internalType\":\"address[]\",\"name\":\"\",\"type\":\"address[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"pause\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"paused\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"publicDecryptionCounter\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"decryptedResult\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"publicDecryptionDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"publicDecryptionRequest\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"decryptedResult\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"publicDecryptionResponse\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"}],\"name\":\"registerHandles\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"threshold\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"unpause\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"userDecryptionCounter\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"userDecryptedShare\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"userDecryptionDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"bytes32\",\"name\":\"ctHandle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"}],\"internalType\":\"structDecryption.CtHandleContractPair[]\",\"name\":\"ctHandleContractPairs\",\"type\":\"tuple[]\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"startTimestamp\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"durationDays\",\"type\":\"uint256\"}],\"internalType\":\"structDecryption.RequestValidity\",\"name\":\"requestValidity\",\"type\":\"tuple\"},{\"components\":[{\"internalType\":\"uint256\",\"name\":\"chainId\",\"type\":\"uint256\"},{\"internalType\":\"address[]\",\"name\":\"addresses\",\"type\":\"address[]\"}],\"internalType\":\"structDecryption.ContractsInfo\",\"name\":\"contractsInfo\",\"type\":\"tuple\"},{\"internalType\":\"address\",\"name\":\"userAddress\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"publicKey\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"userDecryptionRequest\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"decryptionId\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"userDecryptedShare\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"userDecryptionResponse\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"name\":\"userDecryptionShareCount\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "Decryption",
	Bin: "0x60a0604052600160f81b600155600160f91b60025534801561001f575f5ffd5b50604051611faa380380611faa83398101604081905261003e91610253565b5f80546001600160a01b031916331781558251900361007057604051634c49db0360e11b815260040160405180910390fd5b80158061007d5750815181115b156100b1578151604051637b7a98f160e01b81526100a8918391600401918252602082015260400190565b60405180910390fd5b5f5b825181101561018f5760035f8483815181106100d1576100d1610327565b6020908102919091018101516001600160a01b031682528101919091526040015f205460ff161561013f5782818151811061010e5761010e610327565b602002602001015160405163e234ee8560e01b81526004016100a891906001600160a01b0391909116815260200190565b600160035f85848151811061015657610156610327565b6020908102919091018101516001600160a01b031682528101919091526040015f20805460ff19169115159190911790556001016100b3565b5081516101a39060079060208501906101ad565b506080525061033b565b828054828255905f5260205f20908101928215610200579160200282015b8281111561020057825182546001600160a01b0319166001600160a01b039091161782556020909201916001909101906101cb565b5061020c929150610210565b5090565b5b8082111561020c575f8155600101610211565b634e487b7160e01b5f52604160045260245ffd5b80516001600160a01b038116811461024e575f5ffd5b919050565b5f5f60408385031215610264575f5ffd5b82516001600160401b03811115610279575f5ffd5b8301601f81018513610289575f5ffd5b80516001600160401b038111156102a2576102a2610224565b604051600582901b90603f8201601f191681016001600160401b03811182821017156102d0576102d0610224565b6040529182526020818401810192908101888411156102ed575f5ffd5b6020850194505b838510156103135761030585610238565b8152602094850194016102f4565b506020969096015195979596505050505050565b634e487b7160e01b5f52603260045260245ffd5b608051611c496103615f395f81816102a0015281816104ff01526107710152611c495ff3fe608060405234801561000f575f5ffd5b50600436106101a1575f3560e01c80636f8913bc116100f3578063b2a4405211610093578063edaceb721161006e578063edaceb72146103d0578063f1b57adb146103d8578063fbb83259146103eb578063fffb2aa9146103fe575f5ffd5b8063b2a4405214610397578063b3048111146103aa578063d8998f45146103bd575f5ffd5b80638554551e116100ce5780638554551e1461033c5780638da5cb5b1461034f578063aa0a4cd014610379578063ae8ff18a1461038e575f5ffd5b80636f8913bc146103165780637e0aea32146103295780638456cb5914610334575f5ffd5b80632167d5381161015e57806342cde4e81161013957806342cde4e81461029b5780634a7c21f6146102c257806358f5b8ab146102e15780635c975abb14610303575f5ffd5b80632167d538146102615780633f4ba83a146102805780634014c4cd14610288575f5ffd5b8063046f9eb3146101a5578063047a7350146101ba5780630a811da4146101d6578063161fdab4146101fd5780631d10aacc14610224578063203d01141461022f575b5f5ffd5b6101b86101b3366004611360565b610407565b005b6101c360015481565b6040519081526020015b60405180910390f35b6101c37f44195979fd9eaac695b156a4f36b43d74382f45c6dede1da7bd3713a1af05e3381565b6101c37f531beb0bc4abf9876f57995b426dd5543ebb6092dfa36dc9b26fa4be3a88c8d781565b6101c3600160f91b81565b61025161023d366004611420565b60036020525f908152604090205460ff1681565b60405190151581526020016101cd565b6101c361026f366004611439565b60056020525f908152604090205481565b6101b8610579565b610251610296366004611490565b610610565b6101c37f000000000000000000000000000000000000000000000000000000000000000081565b6101c36102d0366004611439565b60066020525f908152604090205481565b6102516102ef366004611439565b60046020525f908152604090205460ff1681565b5f5461025190600160a01b900460ff1681565b6101b8610324366004611360565b61066d565b6101c3600160f81b81565b6101b86107fc565b6101b861034a3660046114fa565b610894565b5f54610361906001600160a01b031681565b6040516001600160a01b0390911681526020016101cd565b6103816108ed565b6040516101cd9190611538565b6101c361016d81565b6101c36103a5366004611583565b61094d565b6101c36103b8366004611583565b6109f9565b6101b86103cb366004611490565b610a2e565b6101c3600581565b6101b86103e6366004611650565b610ba2565b6102516103f9366004611769565b610c72565b6101c360025481565b335f9081526003602052604090205460ff1661043d5760405163153e377b60e11b81523360048201526024015b60405180910390fd5b61044b87600160f91b610cd0565b5f610459888888868661094d565b905033610467828787610d7f565b6001600160a01b03161461049757604051634d67134d60e11b815260048101899052336024820152604401610434565b5f888152600660205260408120805490826104b1836117c0565b919050559050887f07aa93857a606c0a349c5abf18c475db61c6e8d1ffcc5358ce3f065da7004c3382338b8b8b8b8b8b6040516104f5989796959493929190611800565b60405180910390a27f0000000000000000000000000000000000000000000000000000000000000000610529826001611861565b0361056e575f89815260046020526040808220805460ff19166001179055518a917fe89752be0ecdb68b2a6eb5ef1a891039e0e92ae3c8a62274c5881e48eea1ed2591a25b505050505050505050565b5f546001600160a01b031633146105a55760405163245aecd360e01b8152336004820152602401610434565b5f54600160a01b900460ff166105ce57604051638dfc202b60e01b815260040160405180910390fd5b5f805460ff60a01b191690556040513381527f5db9ee0a495bf2e6ff9c91a7834c1ba4fdd244a5e8aa4e537bd38aeae4b073aa906020015b60405180910390a1565b5f83810361061f57505f610665565b5f5b8481101561065f5761064a86868381811061063e5761063e611874565b90506020020135610e76565b610657575f915050610665565b600101610621565b50600190505b949350505050565b335f9081526003602052604090205460ff1661069e5760405163153e377b60e11b8152336004820152602401610434565b6106ac87600160f81b610cd0565b5f6106ba88888886866109f9565b9050336106c8828787610d7f565b6001600160a01b0316146106f857604051634d67134d60e11b815260048101899052336024820152604401610434565b5f8881526004602052604090205460ff161561071457506107f3565b5f888152600a602052604080822090518290610733908b908b90611888565b60408051918290039091208252602080830193909352015f9081208054600181018255818352929091209092500161076c868883611928565b5080547f0000000000000000000000000000000000000000000000000000000000000000900361056e575f8981526004602052604090819020805460ff191660011790555189907fd7e58a367a0a6c298e76ad5d240004e327aa1423cbe4bd7ff85d4c715ef8d15f906107e8908b908b9086908a908a906119e1565b60405180910390a250505b50505050505050565b5f546001600160a01b031633146108285760405163245aecd360e01b8152336004820152602401610434565b5f54600160a01b900460ff16156108525760405163d93c066560e01b815260040160405180910390fd5b5f805460ff60a01b1916600160a01b1790556040513381527f62e78cea01bee320cd4e420270b5ea74000d11b0c9f74754ebdbfc544b05a25890602001610606565b5f5b818110156108e8576108e08383838181106108b3576108b3611874565b905060200201356108db8585858181106108cf576108cf611874565b90506020020135610ee8565b610f3e565b600101610896565b505050565b6060600780548060200260200160405190810160405280929190818152602001828054801561094357602002820191905f5260205f20905b81546001600160a01b03168152600190910190602001808311610925575b5050505050905090565b5f7f44195979fd9eaac695b156a4f36b43d74382f45c6dede1da7bd3713a1af05e334630888888604051610982929190611888565b6040518091039020878760405161099a929190611888565b6040805191829003822060208301979097528101949094526001600160a01b039092166060840152608083015260a082015260c081019190915260e0016040516020818303038152906040528051906020012090505b95945050505050565b5f7f531beb0bc4abf9876f57995b426dd5543ebb6092dfa36dc9b26fa4be3a88c8d74630888888604051610982929190611888565b5f54600160a01b900460ff1615610a585760405163d93c066560e01b815260040160405180910390fd5b5f839003610a79576040516305bcea8760e31b815260040160405180910390fd5b5f5b83811015610b2b575f610a998686848181106108cf576108cf611874565b905060041960ff821601610ac057604051632970eadf60e21b815260040160405180910390fd5b5f1960ff821601610b0057858583818110610add57610add611874565b90506020020135604051634331a85d60e01b815260040161043491815260200190565b610b22868684818110610b1557610b15611874565b9050602002013582610f3e565b50600101610a7b565b505f60015f8154610b3b906117c0565b91829055505f8181526008602052604090819020805460ff191660011790555190915081907f9bb088a53f1fe13ec84fa0a1d7b578b589e193268baaccc5e23f7ab785aa3dae90610b93908890889088908890611ace565b60405180910390a25050505050565b5f54600160a01b900460ff1615610bcc5760405163d93c066560e01b815260040160405180910390fd5b610bd589610fb4565b5f610bee8c8c610be860208d018d611b1e565b8c611081565b90505f60025f8154610bff906117c0565b91829055505f8181526008602052604090819020805460ff191660011790555190915081907fc71e32c80f3109c673a9adfcded0b3b2093212ab284084a0e03a281dee2bdd5f90610c5b9085908d908d908d908b908b90611b63565b60405180910390a250505050505050505050505050565b5f838103610c8157505f6109f0565b5f5b84811015610cc357610cae868683818110610ca057610ca0611874565b9050604002015f0135610e76565b610cbb575f9150506109f0565b600101610c83565b5060019695505050505050565b5f8281526008602052604090205460ff161580610cf5575060f881901c60f883901c14155b15610d1657604051631f79bbe760e01b815260048101839052602401610434565b5f82815260096020908152604080832033845290915290205460ff1615610d59576040516399ec48d960e01b815260048101839052336024820152604401610434565b505f9081526009602090815260408083203384529091529020805460ff19166001179055565b5f60418214610d8f57505f610e6f565b8235602084013560408501355f1a601b811015610db457610db1601b82611be3565b90505b8060ff16601b14158015610dcc57508060ff16601c14155b15610ddc575f9350505050610e6f565b7f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0821115610e0f575f9350505050610e6f565b604080515f81526020810180835289905260ff831691810191909152606081018490526080810183905260019060a0016020604051602081039080840390855afa158015610e5f573d5f5f3e3d5ffd5b5050506020604051035193505050505b9392505050565b5f5f610e8183610ee8565b905060ff811660011480610e98575060ff81166002145b15610ea557505f92915050565b60031960ff821601610edf575f8381526005602052604090205480158015906106655750610ed4600582611861565b421015949350505050565b50600192915050565b5f603f60f91b6001600160f81b031983831a60f81b16141580610f205750605760f81b6001600160f81b0319600184901a60f81b1614155b15610f2c57505f919050565b610f388260021a61128f565b92915050565b60ff81166004148015610f5c57505f82815260056020526040902054155b15610fb0575f82815260056020526040908190204290819055905183917f5a417e21b2a7601833268047860e8f5157e6baf315d8cf4b15acba683f040b7291610fa791815260200190565b60405180910390a25b5050565b80602001355f03610fd85760405163de2859c160e01b815260040160405180910390fd5b61016d8160200135111561100d57604051633295186360e01b815261016d600482015260208201356024820152604401610434565b42813511156110385760405163f24c088760e01b815242600482015281356024820152604401610434565b5f61104a602083013562015180611bfc565b611055908335611861565b905042811015610fb057604051630af885bb60e41b815242600482015260248101829052604401610434565b60605f8590036110a45760405163a6a6cb2160e01b815260040160405180910390fd5b5f8390036110c5576040516357cfa21760e01b815260040160405180910390fd5b6110d08484846112b6565b156110f95760405163f69e902560e01b81526001600160a01b0383166004820152602401610434565b846001600160401b0381111561111157611111611897565b60405190808252806020026020018201604052801561113a578160200160208202803683370190505b5090505f5b85811015611285575f87878381811061115a5761115a611874565b9050604002015f0135905061119986868a8a8681811061117c5761117c611874565b90506040020160200160208101906111949190611420565b6112b6565b6111ec578787838181106111af576111af611874565b90506040020160200160208101906111c79190611420565b60405163f156888b60e01b81526001600160a01b039091166004820152602401610434565b5f6111f682610ee8565b905060041960ff82160161121d57604051632970eadf60e21b815260040160405180910390fd5b5f1960ff82160161125357604051632dd2761160e11b8152600481018390526001600160a01b0386166024820152604401610434565b61125d8282610f3e565b8184848151811061127057611270611874565b6020908102919091010152505060010161113f565b5095945050505050565b5f600160ff8316108015906112a85750600560ff831611155b6112b2575f610f38565b5090565b5f805b8381101561131257826001600160a01b03168585838181106112dd576112dd611874565b90506020020160208101906112f29190611420565b6001600160a01b03160361130a576001915050610e6f565b6001016112b9565b505f949350505050565b5f5f83601f84011261132c575f5ffd5b5081356001600160401b03811115611342575f5ffd5b602083019150836020828501011115611359575f5ffd5b9250929050565b5f5f5f5f5f5f5f6080888a031215611376575f5ffd5b8735965060208801356001600160401b03811115611392575f5ffd5b61139e8a828b0161131c565b90975095505060408801356001600160401b038111156113bc575f5ffd5b6113c88a828b0161131c565b90955093505060608801356001600160401b038111156113e6575f5ffd5b6113f28a828b0161131c565b989b979a50959850939692959293505050565b80356001600160a01b038116811461141b575f5ffd5b919050565b5f60208284031215611430575f5ffd5b610e6f82611405565b5f60208284031215611449575f5ffd5b5035919050565b5f5f83601f840112611460575f5ffd5b5081356001600160401b03811115611476575f5ffd5b6020830191508360208260051b8501011115611359575f5ffd5b5f5f5f5f604085870312156114a3575f5ffd5b84356001600160401b038111156114b8575f5ffd5b6114c487828801611450565b90955093505060208501356001600160401b038111156114e2575f5ffd5b6114ee8782880161131c565b95989497509550505050565b5f5f6020838503121561150b575f5ffd5b82356001600160401b03811115611520575f5ffd5b61152c85828601611450565b90969095509350505050565b602080825282518282018190525f918401906040840190835b818110156115785783516001600160a01b0316835260209384019390920191600101611551565b509095945050505050565b5f5f5f5f5f60608688031215611597575f5ffd5b8535945060208601356001600160401b038111156115b3575f5ffd5b6115bf8882890161131c565b90955093505060408601356001600160401b038111156115dd575f5ffd5b6115e98882890161131c565b969995985093965092949392505050565b5f5f83601f84011261160a575f5ffd5b5081356001600160401b03811115611620575f5ffd5b6020830191508360208260061b8501011115611359575f5ffd5b5f6040828403121561164a575f5ffd5b50919050565b5f5f5f5f5f5f5f5f5f5f5f6101008c8e03121561166b575f5ffd5b8b356001600160401b03811115611680575f5ffd5b61168c8e828f016115fa565b909c509a506116a090508d60208e0161163a565b985060608c01356001600160401b038111156116ba575f5ffd5b6116c68e828f0161163a565b9850506116d560808d01611405565b965060a08c01356001600160401b038111156116ef575f5ffd5b6116fb8e828f0161131c565b90975095505060c08c01356001600160401b03811115611719575f5ffd5b6117258e828f0161131c565b90955093505060e08c01356001600160401b03811115611743575f5ffd5b61174f8e828f0161131c565b915080935050809150509295989b509295989b9093969950565b5f5f5f5f5f6060868803121561177d575f5ffd5b61178686611405565b945060208601356001600160401b038111156117a0575f5ffd5b6115bf888289016115fa565b634e487b7160e01b5f52601160045260245ffd5b5f600182016117d1576117d16117ac565b5060010190565b81835281816020850137505f828201602090810191909152601f909101601f19169091010190565b8881526001600160a01b038816602082015260a0604082018190525f9061182a908301888a6117d8565b828103606084015261183d8187896117d8565b905082810360808401526118528185876117d8565b9b9a5050505050505050505050565b80820180821115610f3857610f386117ac565b634e487b7160e01b5f52603260045260245ffd5b818382375f9101908152919050565b634e487b7160e01b5f52604160045260245ffd5b600181811c908216806118bf57607f821691505b60208210810361164a57634e487b7160e01b5f52602260045260245ffd5b601f8211156108e857805f5260205f20601f840160051c810160208510156119025750805b601f840160051c820191505b81811015611921575f815560010161190e565b5050505050565b6001600160401b0383111561193f5761193f611897565b6119538361194d83546118ab565b836118dd565b5f601f841160018114611984575f851561196d5750838201355b5f19600387901b1c1916600186901b178355611921565b5f83815260208120601f198716915b828110156119b35786850135825560209485019460019092019101611993565b50868210156119cf575f1960f88860031b161c19848701351681555b505060018560011b0183555050505050565b606081525f6119f46060830187896117d8565b828103602084015280865480835260208301915060208160051b840101885f5260205f205f5b83811015611ab957601f198684030185525f8254611a37816118ab565b808652600182168015611a515760018114611a6d57611aa1565b60ff1983166020880152602082151560051b8801019350611aa1565b855f5260205f205f5b83811015611a985781546020828b010152600182019150602081019050611a76565b88016020019450505b50505060209590950194925060019182019101611a1a565b5050858103604087015261185281888a6117d8565b604080825281018490525f6001600160fb1b03851115611aec575f5ffd5b8460051b80876060850137820182810360609081016020850152611b1390820185876117d8565b979650505050505050565b5f5f8335601e19843603018112611b33575f5ffd5b8301803591506001600160401b03821115611b4c575f5ffd5b6020019150600581901b3603821315611359575f5ffd5b608080825287519082018190525f90602089019060a0840190835b81811015611b9c578351835260209384019390920191600101611b7e565b50506001600160a01b03891660208501528381036040850152611bc081888a6117d8565b9150508281036060840152611bd68185876117d8565b9998505050505050505050565b60ff8181168382160190811115610f3857610f386117ac565b8082028115828204841417610f3857610f386117ac56fea2646970667358221220a68283a644b8154767ad7345684e50d9c46e84cf6663bc4d1177eda0f3228cd864736f6c634300081e0033",
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
// Solidity: constructor(address[] kmsSigners_, uint256 threshold_) returns()
func (decryption *Decryption) PackConstructor(kmsSigners_ []common.Address, threshold_ *big.Int) []byte {
	enc, err := decryption.abi.Pack("", kmsSigners_, threshold_)
	if err != nil {
		panic(err)
	}
	return enc
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

// PackPUBLICDECRYPTIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x161fdab4.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function PUBLIC_DECRYPTION_TYPEHASH() view returns(bytes32)
func (decryption *Decryption) PackPUBLICDECRYPTIONTYPEHASH() []byte {
	enc, err := decryption.abi.Pack("PUBLIC_DECRYPTION_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPUBLICDECRYPTIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x161fdab4.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function PUBLIC_DECRYPTION_TYPEHASH() view returns(bytes32)
func (decryption *Decryption) TryPackPUBLICDECRYPTIONTYPEHASH() ([]byte, error) {
	return decryption.abi.Pack("PUBLIC_DECRYPTION_TYPEHASH")
}

// UnpackPUBLICDECRYPTIONTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x161fdab4.
//
// Solidity: function PUBLIC_DECRYPTION_TYPEHASH() view returns(bytes32)
func (decryption *Decryption) UnpackPUBLICDECRYPTIONTYPEHASH(data []byte) ([32]byte, error) {
	out, err := decryption.abi.Unpack("PUBLIC_DECRYPTION_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
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

// PackUSERDECRYPTIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0a811da4.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function USER_DECRYPTION_TYPEHASH() view returns(bytes32)
func (decryption *Decryption) PackUSERDECRYPTIONTYPEHASH() []byte {
	enc, err := decryption.abi.Pack("USER_DECRYPTION_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUSERDECRYPTIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0a811da4.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function USER_DECRYPTION_TYPEHASH() view returns(bytes32)
func (decryption *Decryption) TryPackUSERDECRYPTIONTYPEHASH() ([]byte, error) {
	return decryption.abi.Pack("USER_DECRYPTION_TYPEHASH")
}

// UnpackUSERDECRYPTIONTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x0a811da4.
//
// Solidity: function USER_DECRYPTION_TYPEHASH() view returns(bytes32)
func (decryption *Decryption) UnpackUSERDECRYPTIONTYPEHASH(data []byte) ([32]byte, error) {
	out, err := decryption.abi.Unpack("USER_DECRYPTION_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
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
// the contract method with ID 0xb3048111.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function publicDecryptionDigest(uint256 decryptionId, bytes decryptedResult, bytes extraData) view returns(bytes32)
func (decryption *Decryption) PackPublicDecryptionDigest(decryptionId *big.Int, decryptedResult []byte, extraData []byte) []byte {
	enc, err := decryption.abi.Pack("publicDecryptionDigest", decryptionId, decryptedResult, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPublicDecryptionDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb3048111.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function publicDecryptionDigest(uint256 decryptionId, bytes decryptedResult, bytes extraData) view returns(bytes32)
func (decryption *Decryption) TryPackPublicDecryptionDigest(decryptionId *big.Int, decryptedResult []byte, extraData []byte) ([]byte, error) {
	return decryption.abi.Pack("publicDecryptionDigest", decryptionId, decryptedResult, extraData)
}

// UnpackPublicDecryptionDigest is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xb3048111.
//
// Solidity: function publicDecryptionDigest(uint256 decryptionId, bytes decryptedResult, bytes extraData) view returns(bytes32)
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
// the contract method with ID 0xb2a44052.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function userDecryptionDigest(uint256 decryptionId, bytes userDecryptedShare, bytes extraData) view returns(bytes32)
func (decryption *Decryption) PackUserDecryptionDigest(decryptionId *big.Int, userDecryptedShare []byte, extraData []byte) []byte {
	enc, err := decryption.abi.Pack("userDecryptionDigest", decryptionId, userDecryptedShare, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUserDecryptionDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb2a44052.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function userDecryptionDigest(uint256 decryptionId, bytes userDecryptedShare, bytes extraData) view returns(bytes32)
func (decryption *Decryption) TryPackUserDecryptionDigest(decryptionId *big.Int, userDecryptedShare []byte, extraData []byte) ([]byte, error) {
	return decryption.abi.Pack("userDecryptionDigest", decryptionId, userDecryptedShare, extraData)
}

// UnpackUserDecryptionDigest is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xb2a44052.
//
// Solidity: function userDecryptionDigest(uint256 decryptionId, bytes userDecryptedShare, bytes extraData) view returns(bytes32)
func (decryption *Decryption) UnpackUserDecryptionDigest(data []byte) ([32]byte, error) {
	out, err := decryption.abi.Unpack("userDecryptionDigest", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackUserDecryptionRequest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf1b57adb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function userDecryptionRequest((bytes32,address)[] ctHandleContractPairs, (uint256,uint256) requestValidity, (uint256,address[]) contractsInfo, address userAddress, bytes publicKey, bytes signature, bytes extraData) returns()
func (decryption *Decryption) PackUserDecryptionRequest(ctHandleContractPairs []DecryptionCtHandleContractPair, requestValidity DecryptionRequestValidity, contractsInfo DecryptionContractsInfo, userAddress common.Address, publicKey []byte, signature []byte, extraData []byte) []byte {
	enc, err := decryption.abi.Pack("userDecryptionRequest", ctHandleContractPairs, requestValidity, contractsInfo, userAddress, publicKey, signature, extraData)
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
	return decryption.abi.Pack("userDecryptionRequest", ctHandleContractPairs, requestValidity, contractsInfo, userAddress, publicKey, signature, extraData)
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
	if bytes.Equal(raw[:4], decryption.abi.Errors["InvalidThreshold"].ID.Bytes()[:4]) {
		return decryption.UnpackInvalidThresholdError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["KmsNodeAlreadySigned"].ID.Bytes()[:4]) {
		return decryption.UnpackKmsNodeAlreadySignedError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["MaxDurationDaysExceeded"].ID.Bytes()[:4]) {
		return decryption.UnpackMaxDurationDaysExceededError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["NotKmsSigner"].ID.Bytes()[:4]) {
		return decryption.UnpackNotKmsSignerError(raw[4:])
	}
	if bytes.Equal(raw[:4], decryption.abi.Errors["NotOwner"].ID.Bytes()[:4]) {
		return decryption.UnpackNotOwnerError(raw[4:])
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
	if bytes.Equal(raw[:4], decryption.abi.Errors["UserDecryptionRequestExpired"].ID.Bytes()[:4]) {
		return decryption.UnpackUserDecryptionRequestExpiredError(raw[4:])
	}
	return nil, errors.New("Unknown error")
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
