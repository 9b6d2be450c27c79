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
	Bin: "0x60a0604052348015600e575f5ffd5b50604051610379380380610379833981016040819052602b91603b565b6001600160a01b03166080526066565b5f60208284031215604a575f5ffd5b81516001600160a01b0381168114605f575f5ffd5b9392505050565b6080516102f66100835f395f8181606e015260ca01526102f65ff3fe608060405234801561000f575f5ffd5b5060043610610034575f3560e01c80631626ba7e146100385780638da5cb5b14610069575b5f5ffd5b61004b61004636600461021e565b6100a8565b6040516001600160e01b031990911681526020015b60405180910390f35b6100907f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b039091168152602001610060565b5f5f6100b5858585610128565b90506001600160a01b03811615806100ff57507f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316816001600160a01b031614155b1561011557506001600160e01b03199050610121565b50630b135d3f60e11b90505b9392505050565b5f6041821461013857505f610121565b8235602084013560408501355f1a601b81101561015d5761015a601b82610295565b90505b8060ff16601b1415801561017557508060ff16601c14155b15610185575f9350505050610121565b7f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a08211156101b8575f9350505050610121565b604080515f81526020810180835289905260ff831691810191909152606081018490526080810183905260019060a0016020604051602081039080840390855afa158015610208573d5f5f3e3d5ffd5b5050604051601f19015198975050505050505050565b5f5f5f60408486031215610230575f5ffd5b83359250602084013567ffffffffffffffff81111561024d575f5ffd5b8401601f8101861361025d575f5ffd5b803567ffffffffffffffff811115610273575f5ffd5b866020828401011115610284575f5ffd5b939660209190910195509293505050565b60ff81811683821601908111156102ba57634e487b7160e01b5f52601160045260245ffd5b9291505056fea264697066735822122017a4552835e3ae26f5ed7bc1de536ebb8e16eb1c092865f1783ed103439110e264736f6c634300081e0033",
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
