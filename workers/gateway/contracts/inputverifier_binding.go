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

// InputVerifierMetaData contains all meta data concerning the InputVerifier contract.
var InputVerifierMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address[]\",\"name\":\"coprocessorSigners_\",\"type\":\"address[]\"},{\"internalType\":\"uint256\",\"name\":\"threshold_\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"gatewayChainId_\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"inputVerification_\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"signer\",\"type\":\"address\"}],\"name\":\"DuplicateSigner\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptySigners\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"threshold\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"signers\",\"type\":\"uint256\"}],\"name\":\"InvalidThreshold\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NullVerifyingContract\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"domainName\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"eip712Domain\",\"outputs\":[{\"internalType\":\"bytes1\",\"name\":\"fields\",\"type\":\"bytes1\"},{\"internalType\":\"string\",\"name\":\"name\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"version\",\"type\":\"string\"},{\"internalType\":\"uint256\",\"name\":\"chainId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"verifyingContract\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"},{\"internalType\":\"uint256[]\",\"name\":\"extensions\",\"type\":\"uint256[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"gatewayChainId\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"gatewayContract\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getCoprocessorSigners\",\"outputs\":[{\"internalType\":\"address[]\",\"name\":\"\",\"type\":\"address[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getThreshold\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "InputVerifier",
	Bin: "0x60e060405234801561000f575f5ffd5b506040516109f63803806109f683398101604081905261002e9161028c565b6040518060400160405280601181526020017024b7383aba2b32b934b334b1b0ba34b7b760791b8152508484848483515f0361007d576040516387635cfb60e01b815260040160405180910390fd5b82158061008a5750835183115b80610095575060ff83115b156100c9578351604051637b7a98f160e01b81526100c0918591600401918252602082015260400190565b60405180910390fd5b6001600160a01b0381166100f057604051635772b7ad60e11b815260040160405180910390fd5b5f5b84518110156101a4575f5b8181101561019b578582815181106101175761011761037c565b60200260200101516001600160a01b031686828151811061013a5761013a61037c565b60200260200101516001600160a01b031603610193578582815181106101625761016261037c565b6020026020010151604051637010e27960e11b81526004016100c091906001600160a01b0391909116815260200190565b6001016100fd565b506001016100f2565b505f6101b08682610414565b5083516101c49060019060208701906101e6565b5060c0929092526080526001600160a01b031660a052506104ce945050505050565b828054828255905f5260205f20908101928215610239579160200282015b8281111561023957825182546001600160a01b0319166001600160a01b03909116178255602090920191600190910190610204565b50610245929150610249565b5090565b5b80821115610245575f815560010161024a565b634e487b7160e01b5f52604160045260245ffd5b80516001600160a01b0381168114610287575f5ffd5b919050565b5f5f5f5f6080858703121561029f575f5ffd5b84516001600160401b038111156102b4575f5ffd5b8501601f810187136102c4575f5ffd5b80516001600160401b038111156102dd576102dd61025d565b604051600582901b90603f8201601f191681016001600160401b038111828210171561030b5761030b61025d565b60405291825260208184018101929081018a841115610328575f5ffd5b6020850194505b8385101561034e5761034085610271565b81526020948501940161032f565b50602089015160408a015191985096509450610371925050606087019050610271565b905092959194509250565b634e487b7160e01b5f52603260045260245ffd5b600181811c908216806103a457607f821691505b6020821081036103c257634e487b7160e01b5f52602260045260245ffd5b50919050565b601f82111561040f57805f5260205f20601f840160051c810160208510156103ed5750805b601f840160051c820191505b8181101561040c575f81556001016103f9565b50505b505050565b81516001600160401b0381111561042d5761042d61025d565b6104418161043b8454610390565b846103c8565b6020601f821160018114610473575f831561045c5750848201515b5f19600385901b1c1916600184901b17845561040c565b5f84815260208120601f198516915b828110156104a25787850151825560209485019460019092019101610482565b50848210156104bf57868401515f19600387901b60f8161c191681555b50505050600190811b01905550565b60805160a05160c0516104f26105045f395f60e401525f818161010d01526102a801525f81816068015261028701526104f25ff3fe608060405234801561000f575f5ffd5b506004361061005f575f3560e01c8062c7d4db1461006357806384b0196e1461009d578063895d7386146100b85780639164d0ae146100cd578063e75235b8146100e2578063eb0cde1d14610108575b5f5ffd5b61008a7f000000000000000000000000000000000000000000000000000000000000000081565b6040519081526020015b60405180910390f35b6100a5610147565b604051610094979695949392919061038a565b6100c0610195565b6040516100949190610420565b6100d5610220565b6040516100949190610439565b7f000000000000000000000000000000000000000000000000000000000000000061008a565b61012f7f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b039091168152602001610094565b5f6060805f5f5f6060610158610280565b604080515f808252606082018352600160208301908152603160f81b93830193909352600f60f81b9d959c50919a50929850909650945092509050565b5f80546101a190610484565b80601f01602080910402602001604051908101604052809291908181526020018280546101cd90610484565b80156102185780601f106101ef57610100808354040283529160200191610218565b820191905f5260205f20905b8154815290600101906020018083116101fb57829003601f168201915b505050505081565b6060600180548060200260200160405190810160405280929190818152602001828054801561027657602002820191905f5260205f20905b81546001600160a01b03168152600190910190602001808311610258575b5050505050905090565b60605f5f5f7f00000000000000000000000000000000000000000000000000000000000000007f00000000000000000000000000000000000000000000000000000000000000008280546102d390610484565b80601f01602080910402602001604051908101604052809291908181526020018280546102ff90610484565b801561034a5780601f106103215761010080835404028352916020019161034a565b820191905f5260205f20905b81548152906001019060200180831161032d57829003601f168201915b50505050509250925092509250909192565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b60ff60f81b8816815260e060208201525f6103a860e083018961035c565b82810360408401526103ba818961035c565b606084018890526001600160a01b038716608085015260a0840186905283810360c0850152845180825260208087019350909101905f5b8181101561040f5783518352602093840193909201916001016103f1565b50909b9a5050505050505050505050565b602081525f610432602083018461035c565b9392505050565b602080825282518282018190525f918401906040840190835b818110156104795783516001600160a01b0316835260209384019390920191600101610452565b509095945050505050565b600181811c9082168061049857607f821691505b6020821081036104b657634e487b7160e01b5f52602260045260245ffd5b5091905056fea26469706673582212204075b9a05da3e21e0a7818847b7a7b71db70bdb578713de5fb760733cde33e1464736f6c634300081e0033",
}

// InputVerifier is an auto generated Go binding around an Ethereum contract.
type InputVerifier struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *InputVerifier) GetABI() abi.ABI {
	return c.abi
}

// NewInputVerifier creates a new instance of InputVerifier.
func NewInputVerifier() *InputVerifier {
	parsed, err := InputVerifierMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &InputVerifier{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *InputVerifier) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address[] coprocessorSigners_, uint256 threshold_, uint256 gatewayChainId_, address inputVerification_) returns()
func (inputVerifier *InputVerifier) PackConstructor(coprocessorSigners_ []common.Address, threshold_ *big.Int, gatewayChainId_ *big.Int, inputVerification_ common.Address) []byte {
	enc, err := inputVerifier.abi.Pack("", coprocessorSigners_, threshold_, gatewayChainId_, inputVerification_)
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
func (inputVerifier *InputVerifier) PackDomainName() []byte {
	enc, err := inputVerifier.abi.Pack("domainName")
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
func (inputVerifier *InputVerifier) TryPackDomainName() ([]byte, error) {
	return inputVerifier.abi.Pack("domainName")
}

// UnpackDomainName is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x895d7386.
//
// Solidity: function domainName() view returns(string)
func (inputVerifier *InputVerifier) UnpackDomainName(data []byte) (string, error) {
	out, err := inputVerifier.abi.Unpack("domainName", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackInputVerifierEip712Domain is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84b0196e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (inputVerifier *InputVerifier) PackInputVerifierEip712Domain() []byte {
	enc, err := inputVerifier.abi.Pack("eip712Domain")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackInputVerifierEip712Domain is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84b0196e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (inputVerifier *InputVerifier) TryPackInputVerifierEip712Domain() ([]byte, error) {
	return inputVerifier.abi.Pack("eip712Domain")
}

// InputVerifierEip712DomainOutput serves as a container for the return parameters of contract
// method InputVerifierEip712Domain.
type InputVerifierEip712DomainOutput struct {
	Fields            [1]byte
	Name              string
	Version           string
	ChainId           *big.Int
	VerifyingContract common.Address
	Salt              [32]byte
	Extensions        []*big.Int
}

// UnpackInputVerifierEip712Domain is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x84b0196e.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (inputVerifier *InputVerifier) UnpackInputVerifierEip712Domain(data []byte) (InputVerifierEip712DomainOutput, error) {
	out, err := inputVerifier.abi.Unpack("eip712Domain", data)
	outstruct := new(InputVerifierEip712DomainOutput)
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
func (inputVerifier *InputVerifier) PackGatewayChainId() []byte {
	enc, err := inputVerifier.abi.Pack("gatewayChainId")
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
func (inputVerifier *InputVerifier) TryPackGatewayChainId() ([]byte, error) {
	return inputVerifier.abi.Pack("gatewayChainId")
}

// UnpackGatewayChainId is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x00c7d4db.
//
// Solidity: function gatewayChainId() view returns(uint256)
func (inputVerifier *InputVerifier) UnpackGatewayChainId(data []byte) (*big.Int, error) {
	out, err := inputVerifier.abi.Unpack("gatewayChainId", data)
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
func (inputVerifier *InputVerifier) PackGatewayContract() []byte {
	enc, err := inputVerifier.abi.Pack("gatewayContract")
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
func (inputVerifier *InputVerifier) TryPackGatewayContract() ([]byte, error) {
	return inputVerifier.abi.Pack("gatewayContract")
}

// UnpackGatewayContract is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xeb0cde1d.
//
// Solidity: function gatewayContract() view returns(address)
func (inputVerifier *InputVerifier) UnpackGatewayContract(data []byte) (common.Address, error) {
	out, err := inputVerifier.abi.Unpack("gatewayContract", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackGetCoprocessorSigners is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9164d0ae.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getCoprocessorSigners() view returns(address[])
func (inputVerifier *InputVerifier) PackGetCoprocessorSigners() []byte {
	enc, err := inputVerifier.abi.Pack("getCoprocessorSigners")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetCoprocessorSigners is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9164d0ae.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getCoprocessorSigners() view returns(address[])
func (inputVerifier *InputVerifier) TryPackGetCoprocessorSigners() ([]byte, error) {
	return inputVerifier.abi.Pack("getCoprocessorSigners")
}

// UnpackGetCoprocessorSigners is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9164d0ae.
//
// Solidity: function getCoprocessorSigners() view returns(address[])
func (inputVerifier *InputVerifier) UnpackGetCoprocessorSigners(data []byte) ([]common.Address, error) {
	out, err := inputVerifier.abi.Unpack("getCoprocessorSigners", data)
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
func (inputVerifier *InputVerifier) PackGetThreshold() []byte {
	enc, err := inputVerifier.abi.Pack("getThreshold")
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
func (inputVerifier *InputVerifier) TryPackGetThreshold() ([]byte, error) {
	return inputVerifier.abi.Pack("getThreshold")
}

// UnpackGetThreshold is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe75235b8.
//
// Solidity: function getThreshold() view returns(uint256)
func (inputVerifier *InputVerifier) UnpackGetThreshold(data []byte) (*big.Int, error) {
	out, err := inputVerifier.abi.Unpack("getThreshold", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (inputVerifier *InputVerifier) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], inputVerifier.abi.Errors["DuplicateSigner"].ID.Bytes()[:4]) {
		return inputVerifier.UnpackDuplicateSignerError(raw[4:])
	}
	if bytes.Equal(raw[:4], inputVerifier.abi.Errors["EmptySigners"].ID.Bytes()[:4]) {
		return inputVerifier.UnpackEmptySignersError(raw[4:])
	}
	if bytes.Equal(raw[:4], inputVerifier.abi.Errors["InvalidThreshold"].ID.Bytes()[:4]) {
		return inputVerifier.UnpackInvalidThresholdError(raw[4:])
	}
	if bytes.Equal(raw[:4], inputVerifier.abi.Errors["NullVerifyingContract"].ID.Bytes()[:4]) {
		return inputVerifier.UnpackNullVerifyingContractError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// InputVerifierDuplicateSigner represents a DuplicateSigner error raised by the InputVerifier contract.
type InputVerifierDuplicateSigner struct {
	Signer common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DuplicateSigner(address signer)
func InputVerifierDuplicateSignerErrorID() common.Hash {
	return common.HexToHash("0xe021c4f2415a9d8c855bf74014e55359de4df1d596d9a3336e25c64ca04465d6")
}

// UnpackDuplicateSignerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DuplicateSigner(address signer)
func (inputVerifier *InputVerifier) UnpackDuplicateSignerError(raw []byte) (*InputVerifierDuplicateSigner, error) {
	out := new(InputVerifierDuplicateSigner)
	if err := inputVerifier.abi.UnpackIntoInterface(out, "DuplicateSigner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// InputVerifierEmptySigners represents a EmptySigners error raised by the InputVerifier contract.
type InputVerifierEmptySigners struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptySigners()
func InputVerifierEmptySignersErrorID() common.Hash {
	return common.HexToHash("0x87635cfb056bf02bbe15983b23d8594dfe00321421d1aafa7e0a258addec7cca")
}

// UnpackEmptySignersError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptySigners()
func (inputVerifier *InputVerifier) UnpackEmptySignersError(raw []byte) (*InputVerifierEmptySigners, error) {
	out := new(InputVerifierEmptySigners)
	if err := inputVerifier.abi.UnpackIntoInterface(out, "EmptySigners", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// InputVerifierInvalidThreshold represents a InvalidThreshold error raised by the InputVerifier contract.
type InputVerifierInvalidThreshold struct {
	Threshold *big.Int
	Signers   *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidThreshold(uint256 threshold, uint256 signers)
func InputVerifierInvalidThresholdErrorID() common.Hash {
	return common.HexToHash("0x7b7a98f144b22ac349117faf884147efe6b9d8f459322b9ed0cb76310884f093")
}

// UnpackInvalidThresholdError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidThreshold(uint256 threshold, uint256 signers)
func (inputVerifier *InputVerifier) UnpackInvalidThresholdError(raw []byte) (*InputVerifierInvalidThreshold, error) {
	out := new(InputVerifierInvalidThreshold)
	if err := inputVerifier.abi.UnpackIntoInterface(out, "InvalidThreshold", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// InputVerifierNullVerifyingContract represents a NullVerifyingContract error raised by the InputVerifier contract.
type InputVerifierNullVerifyingContract struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NullVerifyingContract()
func InputVerifierNullVerifyingContractErrorID() common.Hash {
	return common.HexToHash("0xaee56f5a8f462be57d8c3dbf54d22c017fc8ff194a275b814534476544ac02b1")
}

// UnpackNullVerifyingContractError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NullVerifyingContract()
func (inputVerifier *InputVerifier) UnpackNullVerifyingContractError(raw []byte) (*InputVerifierNullVerifyingContract, error) {
	out := new(InputVerifierNullVerifyingContract)
	if err := inputVerifier.abi.UnpackIntoInterface(out, "NullVerifyingContract", raw); err != nil {
		return nil, err
	}
	return out, nil
}
