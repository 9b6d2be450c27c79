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
	ABI: "[{\"inputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"}],\"name\":\"DelegateCannotBeContractAddress\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"delegator\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"delegate\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"expirationDate\",\"type\":\"uint64\"}],\"name\":\"ExpirationDateAlreadySetToSameValue\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ExpirationDateInThePast\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"delegator\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"delegate\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"}],\"name\":\"NotDelegatedYet\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotOwner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"}],\"name\":\"SenderCannotBeContractAddress\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"delegate\",\"type\":\"address\"}],\"name\":\"SenderCannotBeDelegate\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"delegator\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"delegate\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"delegationCounter\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"oldExpirationDate\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"newExpirationDate\",\"type\":\"uint64\"}],\"name\":\"DelegatedForUserDecryption\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"delegator\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"delegate\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"delegationCounter\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"oldExpirationDate\",\"type\":\"uint64\"}],\"name\":\"RevokedDelegationForUserDecryption\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"delegate\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"expirationDate\",\"type\":\"uint64\"}],\"name\":\"delegateForUserDecryption\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"deniedFor\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"delegator\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"delegate\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"}],\"name\":\"getUserDecryptionDelegationExpirationDate\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"isAllowed\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"}],\"name\":\"isAllowedForDecryption\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"delegator\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"delegate\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"}],\"name\":\"isHandleDelegatedForUserDecryption\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"persistAllowed\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"name\":\"publicDecryptionDenied\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"delegate\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"}],\"name\":\"revokeDelegationForUserDecryption\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"bool\",\"name\":\"denied\",\"type\":\"bool\"}],\"name\":\"setDenied\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"handle\",\"type\":\"bytes32\"},{\"internalType\":\"bool\",\"name\":\"denied\",\"type\":\"bool\"}],\"name\":\"setPublicDecryptionDenied\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "ACL",
	Bin: "0x6080604052348015600e575f5ffd5b505f80546001600160a01b031916331790556109d28061002d5f395ff3fe608060405234801561000f575f5ffd5b50600436106100b1575f3560e01c806382027b6d1161006e57806382027b6d146101a857806389db0c90146101bb5780638da5cb5b146101ce5780639a5c3216146101f8578063c0d029431461021a578063d09c0dee1461022d575f5ffd5b806304f61a95146100b55780631e2f86ba146100ca5780632ed81a69146100f25780633f462dbe14610105578063663f84e114610168578063669e631614610195575b5f5ffd5b6100c86100c33660046107c6565b610240565b005b6100dd6100d8366004610815565b610467565b60405190151581526020015b60405180910390f35b6100c861010036600461084e565b610479565b61015061011336600461086f565b6001600160a01b039283165f908152600360209081526040808320948616835293815283822092909416815292529020546001600160401b031690565b6040516001600160401b0390911681526020016100e9565b6100dd610176366004610815565b600160209081525f928352604080842090915290825290205460ff1681565b6100c86101a33660046108af565b6104c4565b6100dd6101b6366004610815565b6105ff565b6100c86101c93660046108d7565b610643565b5f546101e0906001600160a01b031681565b6040516001600160a01b0390911681526020016100e9565b6100dd610206366004610907565b60026020525f908152604090205460ff1681565b6100dd610228366004610907565b6106a3565b6100dd61023b36600461091e565b6106d4565b335f8181526003602090815260408083206001600160a01b0388811680865291845282852090881685529092529091209190036102a0576040516308c36abf60e21b81526001600160a01b03851660048201526024015b60405180910390fd5b336001600160a01b038416036102d457604051630c24836b60e31b81526001600160a01b0384166004820152602401610297565b826001600160a01b0316846001600160a01b031603610311576040516356f8b4ed60e11b81526001600160a01b0384166004820152602401610297565b42826001600160401b03161161033a57604051630aa8af8d60e11b815260040160405180910390fd5b80546001600160401b03908116908316810361039157604051631c24901b60e21b81523360048201526001600160a01b038087166024830152851660448201526001600160401b0382166064820152608401610297565b815467ffffffffffffffff19166001600160401b03848116919091178084556001600160a01b0387169133917f527b025d7ff06689c1ab9d32dfd7881c964cce72ce8ac5b2fe1d3be8cfda5bfc918891600160401b9004168660086103f583610966565b91906101000a8154816001600160401b0302191690836001600160401b03160217905550858860405161045894939291906001600160a01b039490941684526001600160401b039283166020850152908216604084015216606082015260800190565b60405180910390a35050505050565b5f61047283836105ff565b9392505050565b5f546001600160a01b031633146104a55760405163245aecd360e01b8152336004820152602401610297565b5f91825260026020526040909120805460ff1916911515919091179055565b335f9081526003602090815260408083206001600160a01b03868116855290835281842090851684529091528120805490916001600160401b039091169081900361053b5760405163c227e90560e01b81523360048201526001600160a01b03808616602483015284166044820152606401610297565b815467ffffffffffffffff19168083556001600160a01b0385169033907f7aca80b6b7928b9038f186e3d9922a0fc5d52c398fbf144725c142c52a5277e4908690600160401b90046001600160401b031686600861059883610966565b91906101000a8154816001600160401b0302191690836001600160401b03160217905550856040516105f1939291906001600160a01b039390931683526001600160401b03918216602084015216604082015260600190565b60405180910390a350505050565b5f600161060b8461073b565b60ff16141580156104725750505f9182526001602090815260408084206001600160a01b0393909316845291905290205460ff161590565b5f546001600160a01b0316331461066f5760405163245aecd360e01b8152336004820152602401610297565b5f9283526001602090815260408085206001600160a01b039490941685529290529120805460ff1916911515919091179055565b5f60016106af8361073b565b60ff16141580156106ce57505f8281526002602052604090205460ff16155b92915050565b6001600160a01b038085165f908152600360209081526040808320878516845282528083209386168352929052908120546001600160401b031642108015610721575061072182866105ff565b8015610732575061073282846105ff565b95945050505050565b5f603f60f91b6001600160f81b031983831a60f81b161415806107735750605760f81b6001600160f81b0319600184901a60f81b1614155b1561077f57505f919050565b6106ce600283901a5f6001821080159061079d5750600560ff831611155b6107a7575f6106ce565b5090565b80356001600160a01b03811681146107c1575f5ffd5b919050565b5f5f5f606084860312156107d8575f5ffd5b6107e1846107ab565b92506107ef602085016107ab565b915060408401356001600160401b038116811461080a575f5ffd5b809150509250925092565b5f5f60408385031215610826575f5ffd5b82359150610836602084016107ab565b90509250929050565b803580151581146107c1575f5ffd5b5f5f6040838503121561085f575f5ffd5b823591506108366020840161083f565b5f5f5f60608486031215610881575f5ffd5b61088a846107ab565b9250610898602085016107ab565b91506108a6604085016107ab565b90509250925092565b5f5f604083850312156108c0575f5ffd5b6108c9836107ab565b9150610836602084016107ab565b5f5f5f606084860312156108e9575f5ffd5b833592506108f9602085016107ab565b91506108a66040850161083f565b5f60208284031215610917575f5ffd5b5035919050565b5f5f5f5f60808587031215610931575f5ffd5b61093a856107ab565b9350610948602086016107ab565b9250610956604086016107ab565b9396929550929360600135925050565b5f6001600160401b0382166001600160401b03810361099357634e487b7160e01b5f52601160045260245ffd5b6001019291505056fea264697066735822122082a1bc97f7da2d6c421af37a917e1680ce72718fc08049bfe170f4202bba765864736f6c634300081e0033",
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

// PackDelegateForUserDecryption is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x04f61a95.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function delegateForUserDecryption(address delegate, address contractAddress, uint64 expirationDate) returns()
func (aCL *ACL) PackDelegateForUserDecryption(delegate common.Address, contractAddress common.Address, expirationDate uint64) []byte {
	enc, err := aCL.abi.Pack("delegateForUserDecryption", delegate, contractAddress, expirationDate)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDelegateForUserDecryption is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x04f61a95.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function delegateForUserDecryption(address delegate, address contractAddress, uint64 expirationDate) returns()
func (aCL *ACL) TryPackDelegateForUserDecryption(delegate common.Address, contractAddress common.Address, expirationDate uint64) ([]byte, error) {
	return aCL.abi.Pack("delegateForUserDecryption", delegate, contractAddress, expirationDate)
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

// PackGetUserDecryptionDelegationExpirationDate is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3f462dbe.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getUserDecryptionDelegationExpirationDate(address delegator, address delegate, address contractAddress) view returns(uint64)
func (aCL *ACL) PackGetUserDecryptionDelegationExpirationDate(delegator common.Address, delegate common.Address, contractAddress common.Address) []byte {
	enc, err := aCL.abi.Pack("getUserDecryptionDelegationExpirationDate", delegator, delegate, contractAddress)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetUserDecryptionDelegationExpirationDate is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3f462dbe.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getUserDecryptionDelegationExpirationDate(address delegator, address delegate, address contractAddress) view returns(uint64)
func (aCL *ACL) TryPackGetUserDecryptionDelegationExpirationDate(delegator common.Address, delegate common.Address, contractAddress common.Address) ([]byte, error) {
	return aCL.abi.Pack("getUserDecryptionDelegationExpirationDate", delegator, delegate, contractAddress)
}

// UnpackGetUserDecryptionDelegationExpirationDate is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3f462dbe.
//
// Solidity: function getUserDecryptionDelegationExpirationDate(address delegator, address delegate, address contractAddress) view returns(uint64)
func (aCL *ACL) UnpackGetUserDecryptionDelegationExpirationDate(data []byte) (uint64, error) {
	out, err := aCL.abi.Unpack("getUserDecryptionDelegationExpirationDate", data)
	if err != nil {
		return *new(uint64), err
	}
	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)
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

// PackIsHandleDelegatedForUserDecryption is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd09c0dee.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isHandleDelegatedForUserDecryption(address delegator, address delegate, address contractAddress, bytes32 handle) view returns(bool)
func (aCL *ACL) PackIsHandleDelegatedForUserDecryption(delegator common.Address, delegate common.Address, contractAddress common.Address, handle [32]byte) []byte {
	enc, err := aCL.abi.Pack("isHandleDelegatedForUserDecryption", delegator, delegate, contractAddress, handle)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsHandleDelegatedForUserDecryption is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd09c0dee.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isHandleDelegatedForUserDecryption(address delegator, address delegate, address contractAddress, bytes32 handle) view returns(bool)
func (aCL *ACL) TryPackIsHandleDelegatedForUserDecryption(delegator common.Address, delegate common.Address, contractAddress common.Address, handle [32]byte) ([]byte, error) {
	return aCL.abi.Pack("isHandleDelegatedForUserDecryption", delegator, delegate, contractAddress, handle)
}

// UnpackIsHandleDelegatedForUserDecryption is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd09c0dee.
//
// Solidity: function isHandleDelegatedForUserDecryption(address delegator, address delegate, address contractAddress, bytes32 handle) view returns(bool)
func (aCL *ACL) UnpackIsHandleDelegatedForUserDecryption(data []byte) (bool, error) {
	out, err := aCL.abi.Unpack("isHandleDelegatedForUserDecryption", data)
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

// PackPersistAllowed is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1e2f86ba.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function persistAllowed(bytes32 handle, address account) view returns(bool)
func (aCL *ACL) PackPersistAllowed(handle [32]byte, account common.Address) []byte {
	enc, err := aCL.abi.Pack("persistAllowed", handle, account)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPersistAllowed is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1e2f86ba.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function persistAllowed(bytes32 handle, address account) view returns(bool)
func (aCL *ACL) TryPackPersistAllowed(handle [32]byte, account common.Address) ([]byte, error) {
	return aCL.abi.Pack("persistAllowed", handle, account)
}

// UnpackPersistAllowed is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1e2f86ba.
//
// Solidity: function persistAllowed(bytes32 handle, address account) view returns(bool)
func (aCL *ACL) UnpackPersistAllowed(data []byte) (bool, error) {
	out, err := aCL.abi.Unpack("persistAllowed", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
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

// PackRevokeDelegationForUserDecryption is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x669e6316.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function revokeDelegationForUserDecryption(address delegate, address contractAddress) returns()
func (aCL *ACL) PackRevokeDelegationForUserDecryption(delegate common.Address, contractAddress common.Address) []byte {
	enc, err := aCL.abi.Pack("revokeDelegationForUserDecryption", delegate, contractAddress)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRevokeDelegationForUserDecryption is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x669e6316.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function revokeDelegationForUserDecryption(address delegate, address contractAddress) returns()
func (aCL *ACL) TryPackRevokeDelegationForUserDecryption(delegate common.Address, contractAddress common.Address) ([]byte, error) {
	return aCL.abi.Pack("revokeDelegationForUserDecryption", delegate, contractAddress)
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

// ACLDelegatedForUserDecryption represents a DelegatedForUserDecryption event raised by the ACL contract.
type ACLDelegatedForUserDecryption struct {
	Delegator         common.Address
	Delegate          common.Address
	ContractAddress   common.Address
	DelegationCounter uint64
	OldExpirationDate uint64
	NewExpirationDate uint64
	Raw               *types.Log // Blockchain specific contextual infos
}

const ACLDelegatedForUserDecryptionEventName = "DelegatedForUserDecryption"

// ContractEventName returns the user-defined event name.
func (ACLDelegatedForUserDecryption) ContractEventName() string {
	return ACLDelegatedForUserDecryptionEventName
}

// UnpackDelegatedForUserDecryptionEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event DelegatedForUserDecryption(address indexed delegator, address indexed delegate, address contractAddress, uint64 delegationCounter, uint64 oldExpirationDate, uint64 newExpirationDate)
func (aCL *ACL) UnpackDelegatedForUserDecryptionEvent(log *types.Log) (*ACLDelegatedForUserDecryption, error) {
	event := "DelegatedForUserDecryption"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != aCL.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ACLDelegatedForUserDecryption)
	if len(log.Data) > 0 {
		if err := aCL.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range aCL.abi.Events[event].Inputs {
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

// ACLRevokedDelegationForUserDecryption represents a RevokedDelegationForUserDecryption event raised by the ACL contract.
type ACLRevokedDelegationForUserDecryption struct {
	Delegator         common.Address
	Delegate          common.Address
	ContractAddress   common.Address
	DelegationCounter uint64
	OldExpirationDate uint64
	Raw               *types.Log // Blockchain specific contextual infos
}

const ACLRevokedDelegationForUserDecryptionEventName = "RevokedDelegationForUserDecryption"

// ContractEventName returns the user-defined event name.
func (ACLRevokedDelegationForUserDecryption) ContractEventName() string {
	return ACLRevokedDelegationForUserDecryptionEventName
}

// UnpackRevokedDelegationForUserDecryptionEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RevokedDelegationForUserDecryption(address indexed delegator, address indexed delegate, address contractAddress, uint64 delegationCounter, uint64 oldExpirationDate)
func (aCL *ACL) UnpackRevokedDelegationForUserDecryptionEvent(log *types.Log) (*ACLRevokedDelegationForUserDecryption, error) {
	event := "RevokedDelegationForUserDecryption"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != aCL.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ACLRevokedDelegationForUserDecryption)
	if len(log.Data) > 0 {
		if err := aCL.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range aCL.abi.Events[event].Inputs {
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
func (aCL *ACL) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], aCL.abi.Errors["DelegateCannotBeContractAddress"].ID.Bytes()[:4]) {
		return aCL.UnpackDelegateCannotBeContractAddressError(raw[4:])
	}
	if bytes.Equal(raw[:4], aCL.abi.Errors["ExpirationDateAlreadySetToSameValue"].ID.Bytes()[:4]) {
		return aCL.UnpackExpirationDateAlreadySetToSameValueError(raw[4:])
	}
	if bytes.Equal(raw[:4], aCL.abi.Errors["ExpirationDateInThePast"].ID.Bytes()[:4]) {
		return aCL.UnpackExpirationDateInThePastError(raw[4:])
	}
	if bytes.Equal(raw[:4], aCL.abi.Errors["NotDelegatedYet"].ID.Bytes()[:4]) {
		return aCL.UnpackNotDelegatedYetError(raw[4:])
	}
	if bytes.Equal(raw[:4], aCL.abi.Errors["NotOwner"].ID.Bytes()[:4]) {
		return aCL.UnpackNotOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], aCL.abi.Errors["SenderCannotBeContractAddress"].ID.Bytes()[:4]) {
		return aCL.UnpackSenderCannotBeContractAddressError(raw[4:])
	}
	if bytes.Equal(raw[:4], aCL.abi.Errors["SenderCannotBeDelegate"].ID.Bytes()[:4]) {
		return aCL.UnpackSenderCannotBeDelegateError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// ACLDelegateCannotBeContractAddress represents a DelegateCannotBeContractAddress error raised by the ACL contract.
type ACLDelegateCannotBeContractAddress struct {
	ContractAddress common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DelegateCannotBeContractAddress(address contractAddress)
func ACLDelegateCannotBeContractAddressErrorID() common.Hash {
	return common.HexToHash("0xadf169da971a12f75ccead2dbcd48e8448474ee1c7a8c3aa5e1a96868c984ab4")
}

// UnpackDelegateCannotBeContractAddressError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DelegateCannotBeContractAddress(address contractAddress)
func (aCL *ACL) UnpackDelegateCannotBeContractAddressError(raw []byte) (*ACLDelegateCannotBeContractAddress, error) {
	out := new(ACLDelegateCannotBeContractAddress)
	if err := aCL.abi.UnpackIntoInterface(out, "DelegateCannotBeContractAddress", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ACLExpirationDateAlreadySetToSameValue represents a ExpirationDateAlreadySetToSameValue error raised by the ACL contract.
type ACLExpirationDateAlreadySetToSameValue struct {
	Delegator       common.Address
	Delegate        common.Address
	ContractAddress common.Address
	ExpirationDate  uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ExpirationDateAlreadySetToSameValue(address delegator, address delegate, address contractAddress, uint64 expirationDate)
func ACLExpirationDateAlreadySetToSameValueErrorID() common.Hash {
	return common.HexToHash("0x7092406cc5d1319624fa02293fffedd59a7510cbdc1ee1767625cca36a31da01")
}

// UnpackExpirationDateAlreadySetToSameValueError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ExpirationDateAlreadySetToSameValue(address delegator, address delegate, address contractAddress, uint64 expirationDate)
func (aCL *ACL) UnpackExpirationDateAlreadySetToSameValueError(raw []byte) (*ACLExpirationDateAlreadySetToSameValue, error) {
	out := new(ACLExpirationDateAlreadySetToSameValue)
	if err := aCL.abi.UnpackIntoInterface(out, "ExpirationDateAlreadySetToSameValue", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ACLExpirationDateInThePast represents a ExpirationDateInThePast error raised by the ACL contract.
type ACLExpirationDateInThePast struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ExpirationDateInThePast()
func ACLExpirationDateInThePastErrorID() common.Hash {
	return common.HexToHash("0x15515f1aa8c7ee594d44d13a68ab6bd96b283be2c6793b211c422da8fb9b033f")
}

// UnpackExpirationDateInThePastError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ExpirationDateInThePast()
func (aCL *ACL) UnpackExpirationDateInThePastError(raw []byte) (*ACLExpirationDateInThePast, error) {
	out := new(ACLExpirationDateInThePast)
	if err := aCL.abi.UnpackIntoInterface(out, "ExpirationDateInThePast", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ACLNotDelegatedYet represents a NotDelegatedYet error raised by the ACL contract.
type ACLNotDelegatedYet struct {
	Delegator       common.Address
	Delegate        common.Address
	ContractAddress common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotDelegatedYet(address delegator, address delegate, address contractAddress)
func ACLNotDelegatedYetErrorID() common.Hash {
	return common.HexToHash("0xc227e905624601616fe8fc2282eb3b214b08830ff7b06167cfdf5039a7ff1d23")
}

// UnpackNotDelegatedYetError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotDelegatedYet(address delegator, address delegate, address contractAddress)
func (aCL *ACL) UnpackNotDelegatedYetError(raw []byte) (*ACLNotDelegatedYet, error) {
	out := new(ACLNotDelegatedYet)
	if err := aCL.abi.UnpackIntoInterface(out, "NotDelegatedYet", raw); err != nil {
		return nil, err
	}
	return out, nil
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

// ACLSenderCannotBeContractAddress represents a SenderCannotBeContractAddress error raised by the ACL contract.
type ACLSenderCannotBeContractAddress struct {
	ContractAddress common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error SenderCannotBeContractAddress(address contractAddress)
func ACLSenderCannotBeContractAddressErrorID() common.Hash {
	return common.HexToHash("0x61241b586ba3db08d3fbe5c552bd55b8115c307a18f0d179621971996784ec7a")
}

// UnpackSenderCannotBeContractAddressError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error SenderCannotBeContractAddress(address contractAddress)
func (aCL *ACL) UnpackSenderCannotBeContractAddressError(raw []byte) (*ACLSenderCannotBeContractAddress, error) {
	out := new(ACLSenderCannotBeContractAddress)
	if err := aCL.abi.UnpackIntoInterface(out, "SenderCannotBeContractAddress", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ACLSenderCannotBeDelegate represents a SenderCannotBeDelegate error raised by the ACL contract.
type ACLSenderCannotBeDelegate struct {
	Delegate common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error SenderCannotBeDelegate(address delegate)
func ACLSenderCannotBeDelegateErrorID() common.Hash {
	return common.HexToHash("0x230daafc4457ab69ce2ef67026872dc3d023fa7bf21201274fb4f1f6712db3c2")
}

// UnpackSenderCannotBeDelegateError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error SenderCannotBeDelegate(address delegate)
func (aCL *ACL) UnpackSenderCannotBeDelegateError(raw []byte) (*ACLSenderCannotBeDelegate, error) {
	out := new(ACLSenderCannotBeDelegate)
	if err := aCL.abi.UnpackIntoInterface(out, "SenderCannotBeDelegate", raw); err != nil {
		return nil, err
	}
	return out, nil
}
