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

// ACLMetaData contains all meta data concerning the ACL contract.
var ACLMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotOwner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"deniedFor\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"isAllowed\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"}],\"name\":\"isAllowedForDecryption\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"name\":\"publicDecryptionDenied\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"bool\",\"name\":\"denied\",\"type\":\"bool\"}],\"name\":\"setDenied\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"bool\",\"name\":\"denied\",\"type\":\"bool\"}],\"name\":\"setPublicDecryptionDenied\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "ACL",
	Bin: "0x6080604052348015600e575f5ffd5b505f80546001600160a01b031916331790556103ec8061002d5f395ff3fe608060405234801561000f575f5ffd5b506004361061007a575f3560e01c806389db0c901161005857806389db0c90146100e85780638da5cb5b146100fb5780639a5c321614610125578063c0d0294314610147575f5ffd5b80632ed81a691461007e578063663f84e11461009357806382027b6d146100d5575b5f5ffd5b61009161008c366004610305565b61015a565b005b6100c06100a1366004610345565b600160209081525f928352604080842090915290825290205460ff1681565b60405190151581526020015b60405180910390f35b6100c06100e3366004610345565b6101aa565b6100916100f6366004610366565b6101f0565b5f5461010d906001600160a01b031681565b6040516001600160a01b0390911681526020016100cc565b6100c061013336600461039f565b60026020525f908152604090205460ff1681565b6100c061015536600461039f565b610250565b5f546001600160a01b0316331461018b5760405163245aecd360e01b81523360048201526024015b60405180910390fd5b5f91825260026020526040909120805460ff1916911515919091179055565b5f60016101b684610281565b60ff16141580156101e957505f8381526001602090815260408083206001600160a01b038616845290915290205460ff16155b9392505050565b5f546001600160a01b0316331461021c5760405163245aecd360e01b8152336004820152602401610182565b5f9283526001602090815260408085206001600160a01b039490941685529290529120805460ff1916911515919091179055565b5f600161025c83610281565b60ff161415801561027b57505f8281526002602052604090205460ff16155b92915050565b5f603f60f91b6001600160f81b031983831a60f81b161415806102b95750605760f81b6001600160f81b0319600184901a60f81b1614155b156102c557505f919050565b61027b600283901a5f600182108015906102e35750600560ff831611155b6102ed575f61027b565b5090565b80358015158114610300575f5ffd5b919050565b5f5f60408385031215610316575f5ffd5b82359150610326602084016102f1565b90509250929050565b80356001600160a01b0381168114610300575f5ffd5b5f5f60408385031215610356575f5ffd5b823591506103266020840161032f565b5f5f5f60608486031215610378575f5ffd5b833592506103886020850161032f565b9150610396604085016102f1565b90509250925092565b5f602082840312156103af575f5ffd5b503591905056fea264697066735822122083677f48330697edb35906424c0c912f860b846d1e065ed35c4b10f7f478537764736f6c634300081e0033",
}

// ACL is an auto generated Go binding around an Ethereum contract.
type ACL struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *ACL) GetABI() abi.ABI {
	return c.abi
}

// NewACL creates a new instance of ACL.
func NewACL() *ACL {
	parsed, err := ACLMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &ACL{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *ACL) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackDeniedFor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x663f84e1.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function deniedFor(bytes32 , address ) view returns(bool)
func (aCL *ACL) PackDeniedFor(arg0 [32]byte, arg1 common.Address) []byte {
	enc, err := aCL.abi.Pack("deniedFor", arg0, arg1)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDeniedFor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x663f84e1.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function deniedFor(bytes32 , address ) view returns(bool)
func (aCL *ACL) TryPackDeniedFor(arg0 [32]byte, arg1 common.Address) ([]byte, error) {
	return aCL.abi.Pack("deniedFor", arg0, arg1)
}

// UnpackDeniedFor is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x663f84e1.
//
// Solidity: function deniedFor(bytes32 , address ) view returns(bool)
func (aCL *ACL) UnpackDeniedFor(data []byte) (bool, error) {
	out, err := aCL.abi.Unpack("deniedFor", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackIsAllowed is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x82027b6d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isAllowed(bytes32 handle, address account) view returns(bool)
func (aCL *ACL) PackIsAllowed(handle [32]byte, account common.Address) []byte {
	enc, err := aCL.abi.Pack("isAllowed", handle, account)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsAllowed is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x82027b6d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isAllowed(bytes32 handle, address account) view returns(bool)
func (aCL *ACL) TryPackIsAllowed(handle [32]byte, account common.Address) ([]byte, error) {
	return aCL.abi.Pack("isAllowed", handle, account)
}

// UnpackIsAllowed is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x82027b6d.
//
// Solidity: function isAllowed(bytes32 handle, address account) view returns(bool)
func (aCL *ACL) UnpackIsAllowed(data []byte) (bool, error) {
	out, err := aCL.abi.Unpack("isAllowed", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackIsAllowedForDecryption is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc0d02943.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isAllowedForDecryption(bytes32 handle) view returns(bool)
func (aCL *ACL) PackIsAllowedForDecryption(handle [32]byte) []byte {
	enc, err := aCL.abi.Pack("isAllowedForDecryption", handle)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsAllowedForDecryption is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc0d02943.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isAllowedForDecryption(bytes32 handle) view returns(bool)
func (aCL *ACL) TryPackIsAllowedForDecryption(handle [32]byte) ([]byte, error) {
	return aCL.abi.Pack("isAllowedForDecryption", handle)
}

// UnpackIsAllowedForDecryption is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xc0d02943.
//
// Solidity: function isAllowedForDecryption(bytes32 handle) view returns(bool)
func (aCL *ACL) UnpackIsAllowedForDecryption(data []byte) (bool, error) {
	out, err := aCL.abi.Unpack("isAllowedForDecryption", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owner() view returns(address)
func (aCL *ACL) PackOwner() []byte {
	enc, err := aCL.abi.Pack("owner")
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
func (aCL *ACL) TryPackOwner() ([]byte, error) {
	return aCL.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (aCL *ACL) UnpackOwner(data []byte) (common.Address, error) {
	out, err := aCL.abi.Unpack("owner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackPublicDecryptionDenied is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9a5c3216.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function publicDecryptionDenied(bytes32 ) view returns(bool)
func (aCL *ACL) PackPublicDecryptionDenied(arg0 [32]byte) []byte {
	enc, err := aCL.abi.Pack("publicDecryptionDenied", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPublicDecryptionDenied is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9a5c3216.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function publicDecryptionDenied(bytes32 ) view returns(bool)
func (aCL *ACL) TryPackPublicDecryptionDenied(arg0 [32]byte) ([]byte, error) {
	return aCL.abi.Pack("publicDecryptionDenied", arg0)
}

// UnpackPublicDecryptionDenied is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9a5c3216.
//
// Solidity: function publicDecryptionDenied(bytes32 ) view returns(bool)
func (aCL *ACL) UnpackPublicDecryptionDenied(data []byte) (bool, error) {
	out, err := aCL.abi.Unpack("publicDecryptionDenied", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackSetDenied is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x89db0c90.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setDenied(bytes32 handle, address account, bool denied) returns()
func (aCL *ACL) PackSetDenied(handle [32]byte, account common.Address, denied bool) []byte {
	enc, err := aCL.abi.Pack("setDenied", handle, account, denied)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetDenied is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x89db0c90.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setDenied(bytes32 handle, address account, bool denied) returns()
func (aCL *ACL) TryPackSetDenied(handle [32]byte, account common.Address, denied bool) ([]byte, error) {
	return aCL.abi.Pack("setDenied", handle, account, denied)
}

// PackSetPublicDecryptionDenied is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2ed81a69.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setPublicDecryptionDenied(bytes32 handle, bool denied) returns()
func (aCL *ACL) PackSetPublicDecryptionDenied(handle [32]byte, denied bool) []byte {
	enc, err := aCL.abi.Pack("setPublicDecryptionDenied", handle, denied)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetPublicDecryptionDenied is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2ed81a69.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setPublicDecryptionDenied(bytes32 handle, bool denied) returns()
func (aCL *ACL) TryPackSetPublicDecryptionDenied(handle [32]byte, denied bool) ([]byte, error) {
	return aCL.abi.Pack("setPublicDecryptionDenied", handle, denied)
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (aCL *ACL) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], aCL.abi.Errors["NotOwner"].ID.Bytes()[:4]) {
		return aCL.UnpackNotOwnerError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// ACLNotOwner represents a NotOwner error raised by the ACL contract.
type ACLNotOwner struct {
	Caller common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotOwner(address caller)
func ACLNotOwnerErrorID() common.Hash {
	return common.HexToHash("0x245aecd3fabbd17d6c3c92dc7f0ab916ea8cbf6fc1862c8b56893090ac3fff4c")
}

// UnpackNotOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotOwner(address caller)
func (aCL *ACL) UnpackNotOwnerError(raw []byte) (*ACLNotOwner, error) {
	out := new(ACLNotOwner)
	if err := aCL.abi.UnpackIntoInterface(out, "NotOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}
