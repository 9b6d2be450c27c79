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

// DevWalletMetaData contains all meta data concerning the DevWallet contract.
var DevWalletMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner_\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"hash\",\"type\":\"bytes32\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"isValidSignature\",\"outputs\":[{\"internalType\":\"bytes4\",\"name\":\"\",\"type\":\"bytes4\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "DevWallet",
	Bin: "0x60a0604052348015600e575f5ffd5b50604051610384380380610384833981016040819052602b91603b565b6001600160a01b03166080526066565b5f60208284031215604a575f5ffd5b81516001600160a01b0381168114605f575f5ffd5b9392505050565b6080516103006100845f395f8181606e01526101c301526103005ff3fe608060405234801561000f575f5ffd5b5060043610610034575f3560e01c80631626ba7e146100385780638da5cb5b14610069575b5f5ffd5b61004b610046366004610228565b6100a8565b6040516001600160e01b031990911681526020015b60405180910390f35b6100907f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b039091168152602001610060565b5f604182146100c057506001600160e01b0319610221565b8235602084013560408501355f1a601b8110156100e5576100e2601b8261029f565b90505b8060ff16601b141580156100fd57508060ff16601c14155b1561011657506001600160e01b03199250610221915050565b7f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a082111561015257506001600160e01b03199250610221915050565b604080515f808252602082018084528a905260ff841692820192909252606081018590526080810184905260019060a0016020604051602081039080840390855afa1580156101a3573d5f5f3e3d5ffd5b5050604051601f1901519150506001600160a01b03811615806101f857507f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316816001600160a01b031614155b1561021257506001600160e01b0319935061022192505050565b50630b135d3f60e11b93505050505b9392505050565b5f5f5f6040848603121561023a575f5ffd5b83359250602084013567ffffffffffffffff811115610257575f5ffd5b8401601f81018613610267575f5ffd5b803567ffffffffffffffff81111561027d575f5ffd5b86602082840101111561028e575f5ffd5b939660209190910195509293505050565b60ff81811683821601908111156102c457634e487b7160e01b5f52601160045260245ffd5b9291505056fea2646970667358221220100195c953f58cb2630c68db5206cc3dd0895ff3e197c159da66c710d4e5726964736f6c634300081e0033",
}

// DevWallet is an auto generated Go binding around an Ethereum contract.
type DevWallet struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *DevWallet) GetABI() abi.ABI {
	return c.abi
}

// NewDevWallet creates a new instance of DevWallet.
func NewDevWallet() *DevWallet {
	parsed, err := DevWalletMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &DevWallet{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *DevWallet) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address owner_) returns()
func (devWallet *DevWallet) PackConstructor(owner_ common.Address) []byte {
	enc, err := devWallet.abi.Pack("", owner_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackIsValidSignature is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1626ba7e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (devWallet *DevWallet) PackIsValidSignature(hash [32]byte, signature []byte) []byte {
	enc, err := devWallet.abi.Pack("isValidSignature", hash, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsValidSignature is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1626ba7e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (devWallet *DevWallet) TryPackIsValidSignature(hash [32]byte, signature []byte) ([]byte, error) {
	return devWallet.abi.Pack("isValidSignature", hash, signature)
}

// UnpackIsValidSignature is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1626ba7e.
//
// Solidity: function isValidSignature(bytes32 hash, bytes signature) view returns(bytes4)
func (devWallet *DevWallet) UnpackIsValidSignature(data []byte) ([4]byte, error) {
	out, err := devWallet.abi.Unpack("isValidSignature", data)
	if err != nil {
		return *new([4]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([4]byte)).(*[4]byte)
	return out0, nil
}

// PackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owner() view returns(address)
func (devWallet *DevWallet) PackOwner() []byte {
	enc, err := devWallet.abi.Pack("owner")
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
func (devWallet *DevWallet) TryPackOwner() ([]byte, error) {
	return devWallet.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (devWallet *DevWallet) UnpackOwner(data []byte) (common.Address, error) {
	out, err := devWallet.abi.Unpack("owner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}
