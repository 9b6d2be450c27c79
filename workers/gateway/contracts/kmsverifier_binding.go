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

// KMSVerifierMetaData contains all meta data concerning the KMSVerifier contract.
var KMSVerifierMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address[]\",\"name\":\"kmsSigners_\",\"type\":\"address[]\"},{\"internalType\":\"uint256\",\"name\":\"threshold_\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"gatewayChainId_\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"decryption_\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"signer\",\"type\":\"address\"}],\"name\":\"DuplicateSigner\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptySigners\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"threshold\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"signers\",\"type\":\"uint256\"}],\"name\":\"InvalidThreshold\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NullVerifyingContract\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"domainName\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"eip712Domain\",\"outputs\":[{\"internalType\":\"bytes1\",\"name\":\"fields\",\"type\":\"bytes1\"},{\"internalType\":\"string\",\"name\":\"name\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"version\",\"type\":\"string\"},{\"internalType\":\"uint256\",\"name\":\"chainId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"verifyingContract\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"},{\"internalType\":\"uint256[]\",\"name\":\"extensions\",\"type\":\"uint256[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"gatewayChainId\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"gatewayContract\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getKmsSigners\",\"outputs\":[{\"internalType\":\"address[]\",\"name\":\"\",\"type\":\"address[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getThreshold\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "KMSVerifier",
	Bin: "0x60e060405234801561000f575f5ffd5b506040516109ef3803806109ef83398101604081905261002e91610285565b6040518060400160405280600a8152602001692232b1b93cb83a34b7b760b11b8152508484848483515f03610076576040516387635cfb60e01b815260040160405180910390fd5b8215806100835750835183115b8061008e575060ff83115b156100c2578351604051637b7a98f160e01b81526100b9918591600401918252602082015260400190565b60405180910390fd5b6001600160a01b0381166100e957604051635772b7ad60e11b815260040160405180910390fd5b5f5b845181101561019d575f5b818110156101945785828151811061011057610110610375565b60200260200101516001600160a01b031686828151811061013357610133610375565b60200260200101516001600160a01b03160361018c5785828151811061015b5761015b610375565b6020026020010151604051637010e27960e11b81526004016100b991906001600160a01b0391909116815260200190565b6001016100f6565b506001016100eb565b505f6101a9868261040d565b5083516101bd9060019060208701906101df565b5060c0929092526080526001600160a01b031660a052506104c7945050505050565b828054828255905f5260205f20908101928215610232579160200282015b8281111561023257825182546001600160a01b0319166001600160a01b039091161782556020909201916001909101906101fd565b5061023e929150610242565b5090565b5b8082111561023e575f8155600101610243565b634e487b7160e01b5f52604160045260245ffd5b80516001600160a01b0381168114610280575f5ffd5b919050565b5f5f5f5f60808587031215610298575f5ffd5b84516001600160401b038111156102ad575f5ffd5b8501601f810187136102bd575f5ffd5b80516001600160401b038111156102d6576102d6610256565b604051600582901b90603f8201601f191681016001600160401b038111828210171561030457610304610256565b60405291825260208184018101929081018a841115610321575f5ffd5b6020850194505b83851015610347576103398561026a565b815260209485019401610328565b50602089015160408a01519198509650945061036a92505060608701905061026a565b905092959194509250565b634e487b7160e01b5f52603260045260245ffd5b600181811c9082168061039d57607f821691505b6020821081036103bb57634e487b7160e01b5f52602260045260245ffd5b50919050565b601f82111561040857805f5260205f20601f840160051c810160208510156103e65750805b601f840160051c820191505b81811015610405575f81556001016103f2565b50505b505050565b81516001600160401b0381111561042657610426610256565b61043a816104348454610389565b846103c1565b6020601f82116001811461046c575f83156104555750848201515b5f19600385901b1c1916600184901b178455610405565b5f84815260208120601f198516915b8281101561049b578785015182556020948501946001909201910161047b565b50848210156104b857868401515f19600387901b60f8161c191681555b50505050600190811b01905550565b60805160a05160c0516104f26104fd5f395f60e401525f818161010d01526102a801525f81816068015261028701526104f25ff3fe608060405234801561000f575f5ffd5b506004361061005f575f3560e01c8062c7d4db146100635780637eaac8f21461009d57806384b0196e146100b2578063895d7386146100cd578063e75235b8146100e2578063eb0cde1d14610108575b5f5ffd5b61008a7f000000000000000000000000000000000000000000000000000000000000000081565b6040519081526020015b60405180910390f35b6100a5610147565b604051610094919061035c565b6100ba6101a7565b60405161009497969594939291906103d5565b6100d56101f5565b604051610094919061046b565b7f000000000000000000000000000000000000000000000000000000000000000061008a565b61012f7f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b039091168152602001610094565b6060600180548060200260200160405190810160405280929190818152602001828054801561019d57602002820191905f5260205f20905b81546001600160a01b0316815260019091019060200180831161017f575b5050505050905090565b5f6060805f5f5f60606101b8610280565b604080515f808252606082018352600160208301908152603160f81b93830193909352600f60f81b9d959c50919a50929850909650945092509050565b5f805461020190610484565b80601f016020809104026020016040519081016040528092919081815260200182805461022d90610484565b80156102785780601f1061024f57610100808354040283529160200191610278565b820191905f5260205f20905b81548152906001019060200180831161025b57829003601f168201915b505050505081565b60605f5f5f7f00000000000000000000000000000000000000000000000000000000000000007f00000000000000000000000000000000000000000000000000000000000000008280546102d390610484565b80601f01602080910402602001604051908101604052809291908181526020018280546102ff90610484565b801561034a5780601f106103215761010080835404028352916020019161034a565b820191905f5260205f20905b81548152906001019060200180831161032d57829003601f168201915b50505050509250925092509250909192565b602080825282518282018190525f918401906040840190835b8181101561039c5783516001600160a01b0316835260209384019390920191600101610375565b509095945050505050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b60ff60f81b8816815260e060208201525f6103f360e08301896103a7565b828103604084015261040581896103a7565b606084018890526001600160a01b038716608085015260a0840186905283810360c0850152845180825260208087019350909101905f5b8181101561045a57835183526020938401939092019160010161043c565b50909b9a5050505050505050505050565b602081525f61047d60208301846103a7565b9392505050565b600181811c9082168061049857607f821691505b6020821081036104b657634e487b7160e01b5f52602260045260245ffd5b5091905056fea2646970667358221220dd1ff6527464a4e2c0a1d4aa23cfbb32f8e38d9193eb6e0fc76ec845d043ef9364736f6c634300081e0033",
}

// KMSVerifier is an auto generated Go binding around an Ethereum contract.
type KMSVerifier struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *KMSVerifier) GetABI() abi.ABI {
	return c.abi
}

// NewKMSVerifier creates a new instance of KMSVerifier.
func NewKMSVerifier() *KMSVerifier {
	parsed, err := KMSVerifierMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &KMSVerifier{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *KMSVerifier) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address[] kmsSigners_, uint256 threshold_, uint256 gatewayChainId_, address decryption_) returns()
func (kMSVerifier *KMSVerifier) PackConstructor(kmsSigners_ []common.Address, threshold_ *big.Int, gatewayChainId_ *big.Int, decryption_ common.Address) []byte {
	enc, err := kMSVerifier.abi.Pack("", kmsSigners_, threshold_, gatewayChainId_, decryption_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackDomainName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x895d7386.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function domainName() view returns(string)
func (kMSVerifier *KMSVerifier) PackDomainName() []byte {
	enc, err := kMSVerifier.abi.Pack("domainName")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDomainName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x895d7386.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function domainName() view returns(string)
func (kMSVerifier *KMSVerifier) TryPackDomainName() ([]byte, error) {
	return kMSVerifier.abi.Pack("domainName")
}

// UnpackDomainName is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x895d7386.
//
// Solidity: function domainName() view returns(string)
func (kMSVerifier *KMSVerifier) UnpackDomainName(data []byte) (string, error) {
	out, err := kMSVerifier.abi.Unpack("domainName", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackKMSVerifierEip712Domain is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84b0196e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (kMSVerifier *KMSVerifier) PackKMSVerifierEip712Domain() []byte {
	enc, err := kMSVerifier.abi.Pack("eip712Domain")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackKMSVerifierEip712Domain is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84b0196e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (kMSVerifier *KMSVerifier) TryPackKMSVerifierEip712Domain() ([]byte, error) {
	return kMSVerifier.abi.Pack("eip712Domain")
}

// KMSVerifierEip712DomainOutput serves as a container for the return parameters of contract
// method KMSVerifierEip712Domain.
type KMSVerifierEip712DomainOutput struct {
	Fields            [1]byte
	Name              string
	Version           string
	ChainId           *big.Int
	VerifyingContract common.Address
	Salt              [32]byte
	Extensions        []*big.Int
}

// UnpackKMSVerifierEip712Domain is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x84b0196e.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (kMSVerifier *KMSVerifier) UnpackKMSVerifierEip712Domain(data []byte) (KMSVerifierEip712DomainOutput, error) {
	out, err := kMSVerifier.abi.Unpack("eip712Domain", data)
	outstruct := new(KMSVerifierEip712DomainOutput)
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

// PackGatewayChainId is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x00c7d4db.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function gatewayChainId() view returns(uint256)
func (kMSVerifier *KMSVerifier) PackGatewayChainId() []byte {
	enc, err := kMSVerifier.abi.Pack("gatewayChainId")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGatewayChainId is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x00c7d4db.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function gatewayChainId() view returns(uint256)
func (kMSVerifier *KMSVerifier) TryPackGatewayChainId() ([]byte, error) {
	return kMSVerifier.abi.Pack("gatewayChainId")
}

// UnpackGatewayChainId is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x00c7d4db.
//
// Solidity: function gatewayChainId() view returns(uint256)
func (kMSVerifier *KMSVerifier) UnpackGatewayChainId(data []byte) (*big.Int, error) {
	out, err := kMSVerifier.abi.Unpack("gatewayChainId", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackGatewayContract is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xeb0cde1d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function gatewayContract() view returns(address)
func (kMSVerifier *KMSVerifier) PackGatewayContract() []byte {
	enc, err := kMSVerifier.abi.Pack("gatewayContract")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGatewayContract is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xeb0cde1d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function gatewayContract() view returns(address)
func (kMSVerifier *KMSVerifier) TryPackGatewayContract() ([]byte, error) {
	return kMSVerifier.abi.Pack("gatewayContract")
}

// UnpackGatewayContract is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xeb0cde1d.
//
// Solidity: function gatewayContract() view returns(address)
func (kMSVerifier *KMSVerifier) UnpackGatewayContract(data []byte) (common.Address, error) {
	out, err := kMSVerifier.abi.Unpack("gatewayContract", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackGetKmsSigners is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7eaac8f2.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getKmsSigners() view returns(address[])
func (kMSVerifier *KMSVerifier) PackGetKmsSigners() []byte {
	enc, err := kMSVerifier.abi.Pack("getKmsSigners")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetKmsSigners is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7eaac8f2.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getKmsSigners() view returns(address[])
func (kMSVerifier *KMSVerifier) TryPackGetKmsSigners() ([]byte, error) {
	return kMSVerifier.abi.Pack("getKmsSigners")
}

// UnpackGetKmsSigners is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7eaac8f2.
//
// Solidity: function getKmsSigners() view returns(address[])
func (kMSVerifier *KMSVerifier) UnpackGetKmsSigners(data []byte) ([]common.Address, error) {
	out, err := kMSVerifier.abi.Unpack("getKmsSigners", data)
	if err != nil {
		return *new([]common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new([]common.Address)).(*[]common.Address)
	return out0, nil
}

// PackGetThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe75235b8.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getThreshold() view returns(uint256)
func (kMSVerifier *KMSVerifier) PackGetThreshold() []byte {
	enc, err := kMSVerifier.abi.Pack("getThreshold")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetThreshold is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe75235b8.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getThreshold() view returns(uint256)
func (kMSVerifier *KMSVerifier) TryPackGetThreshold() ([]byte, error) {
	return kMSVerifier.abi.Pack("getThreshold")
}

// UnpackGetThreshold is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe75235b8.
//
// Solidity: function getThreshold() view returns(uint256)
func (kMSVerifier *KMSVerifier) UnpackGetThreshold(data []byte) (*big.Int, error) {
	out, err := kMSVerifier.abi.Unpack("getThreshold", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (kMSVerifier *KMSVerifier) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], kMSVerifier.abi.Errors["DuplicateSigner"].ID.Bytes()[:4]) {
		return kMSVerifier.UnpackDuplicateSignerError(raw[4:])
	}
	if bytes.Equal(raw[:4], kMSVerifier.abi.Errors["EmptySigners"].ID.Bytes()[:4]) {
		return kMSVerifier.UnpackEmptySignersError(raw[4:])
	}
	if bytes.Equal(raw[:4], kMSVerifier.abi.Errors["InvalidThreshold"].ID.Bytes()[:4]) {
		return kMSVerifier.UnpackInvalidThresholdError(raw[4:])
	}
	if bytes.Equal(raw[:4], kMSVerifier.abi.Errors["NullVerifyingContract"].ID.Bytes()[:4]) {
		return kMSVerifier.UnpackNullVerifyingContractError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// KMSVerifierDuplicateSigner represents a DuplicateSigner error raised by the KMSVerifier contract.
type KMSVerifierDuplicateSigner struct {
	Signer common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DuplicateSigner(address signer)
func KMSVerifierDuplicateSignerErrorID() common.Hash {
	return common.HexToHash("0xe021c4f2415a9d8c855bf74014e55359de4df1d596d9a3336e25c64ca04465d6")
}

// UnpackDuplicateSignerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DuplicateSigner(address signer)
func (kMSVerifier *KMSVerifier) UnpackDuplicateSignerError(raw []byte) (*KMSVerifierDuplicateSigner, error) {
	out := new(KMSVerifierDuplicateSigner)
	if err := kMSVerifier.abi.UnpackIntoInterface(out, "DuplicateSigner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// KMSVerifierEmptySigners represents a EmptySigners error raised by the KMSVerifier contract.
type KMSVerifierEmptySigners struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptySigners()
func KMSVerifierEmptySignersErrorID() common.Hash {
	return common.HexToHash("0x87635cfb056bf02bbe15983b23d8594dfe00321421d1aafa7e0a258addec7cca")
}

// UnpackEmptySignersError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptySigners()
func (kMSVerifier *KMSVerifier) UnpackEmptySignersError(raw []byte) (*KMSVerifierEmptySigners, error) {
	out := new(KMSVerifierEmptySigners)
	if err := kMSVerifier.abi.UnpackIntoInterface(out, "EmptySigners", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// KMSVerifierInvalidThreshold represents a InvalidThreshold error raised by the KMSVerifier contract.
type KMSVerifierInvalidThreshold struct {
	Threshold *big.Int
	Signers   *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidThreshold(uint256 threshold, uint256 signers)
func KMSVerifierInvalidThresholdErrorID() common.Hash {
	return common.HexToHash("0x7b7a98f144b22ac349117faf884147efe6b9d8f459322b9ed0cb76310884f093")
}

// UnpackInvalidThresholdError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidThreshold(uint256 threshold, uint256 signers)
func (kMSVerifier *KMSVerifier) UnpackInvalidThresholdError(raw []byte) (*KMSVerifierInvalidThreshold, error) {
	out := new(KMSVerifierInvalidThreshold)
	if err := kMSVerifier.abi.UnpackIntoInterface(out, "InvalidThreshold", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// KMSVerifierNullVerifyingContract represents a NullVerifyingContract error raised by the KMSVerifier contract.
type KMSVerifierNullVerifyingContract struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NullVerifyingContract()
func KMSVerifierNullVerifyingContractErrorID() common.Hash {
	return common.HexToHash("0xaee56f5a8f462be57d8c3dbf54d22c017fc8ff194a275b814534476544ac02b1")
}

// UnpackNullVerifyingContractError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NullVerifyingContract()
func (kMSVerifier *KMSVerifier) UnpackNullVerifyingContractError(raw []byte) (*KMSVerifierNullVerifyingContract, error) {
	out := new(KMSVerifierNullVerifyingContract)
	if err := kMSVerifier.abi.UnpackIntoInterface(out, "NullVerifyingContract", raw); err != nil {
		return nil, err
	}
	return out, nil
}
