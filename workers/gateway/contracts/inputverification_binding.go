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

// InputVerificationMetaData contains all meta data concerning the InputVerification contract.
var InputVerificationMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address[]\",\"name\":\"coprocessors_\",\"type\":\"address[]\"},{\"internalType\":\"contractIHandleRegistry\",\"name\":\"handleRegistry_\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"zkProofId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"coprocessor\",\"type\":\"address\"}],\"name\":\"CoprocessorAlreadyResponded\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"coprocessor\",\"type\":\"address\"}],\"name\":\"DuplicateCoprocessor\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyCiphertext\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyCoprocessors\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyCtHandles\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EnforcedPause\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ExpectedPause\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"zkProofId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"coprocessor\",\"type\":\"address\"}],\"name\":\"InvalidCoprocessorSignature\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotCoprocessor\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotOwner\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"TestScenarioRevert\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"requestId\",\"type\":\"uint256\"}],\"name\":\"UnknownRequest\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"Paused\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"zkProofId\",\"type\":\"uint256\"}],\"name\":\"RejectProofResponse\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"Unpaused\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"zkProofId\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"contractChainId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"userAddress\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"ciphertextWithZKProof\",\"type\":\"bytes\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"VerifyProofRequest\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"zkProofId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"},{\"indexed\":false,\"internalType\":\"bytes[]\",\"name\":\"signatures\",\"type\":\"bytes[]\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"VerifyProofResponse\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"VERIFY_PROOF_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"coprocessors\",\"outputs\":[{\"internalType\":\"address[]\",\"name\":\"\",\"type\":\"address[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"handleRegistry\",\"outputs\":[{\"internalType\":\"contractIHandleRegistry\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"isCoprocessor\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"name\":\"isProofDecided\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"majority\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"pause\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"paused\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"zkProofId\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"rejectProofResponse\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"unpause\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"zkProofId\",\"type\":\"uint256\"},{\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"verifyProofDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"contractChainId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"userAddress\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"ciphertextWithZKProof\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"verifyProofRequest\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"zkProofId\",\"type\":\"uint256\"},{\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"verifyProofResponse\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"zkProofCounter\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "InputVerification",
	Bin: "0x60a060405234801561000f575f5ffd5b5060405161156038038061156083398101604081905261002e91610214565b5f80546001600160a01b031916331781558251900361006057604051638af082ef60e01b815260040160405180910390fd5b5f5b82518110156101475760025f848381518110610080576100806102f0565b6020908102919091018101516001600160a01b031682528101919091526040015f205460ff16156100f7578281815181106100bd576100bd6102f0565b6020026020010151604051630fe5178d60e31b81526004016100ee91906001600160a01b0391909116815260200190565b60405180910390fd5b600160025f85848151811061010e5761010e6102f0565b6020908102919091018101516001600160a01b031682528101919091526040015f20805460ff1916911515919091179055600101610062565b50815161015b90600490602085019061016e565b506001600160a01b031660805250610304565b828054828255905f5260205f209081019282156101c1579160200282015b828111156101c157825182546001600160a01b0319166001600160a01b0390911617825560209092019160019091019061018c565b506101cd9291506101d1565b5090565b5b808211156101cd575f81556001016101d2565b634e487b7160e01b5f52604160045260245ffd5b80516001600160a01b038116811461020f575f5ffd5b919050565b5f5f60408385031215610225575f5ffd5b82516001600160401b0381111561023a575f5ffd5b8301601f8101851361024a575f5ffd5b80516001600160401b03811115610263576102636101e5565b604051600582901b90603f8201601f191681016001600160401b0381118282101715610291576102916101e5565b6040529182526020818401810192908101888411156102ae575f5ffd5b6020850194505b838510156102d4576102c6856101f9565b8152602094850194016102b5565b5094506102e792505050602084016101f9565b90509250929050565b634e487b7160e01b5f52603260045260245ffd5b60805161123661032a5f395f81816101bf015281816103bc015261040001526112365ff3fe608060405234801561000f575f5ffd5b50600436106100f0575f3560e01c80635c975abb116100935780638da5cb5b116100635780638da5cb5b14610228578063a70049961461023a578063b6e54bdf1461024d578063b8c272d714610255575f5ffd5b80635c975abb146101a75780635ebbd692146101ba5780638456cb59146101f9578063899fd58114610201575f5ffd5b80633f4ba83a116100ce5780633f4ba83a146101535780634725712d1461015b5780634ba5184b1461017c57806351d3e3ec1461019e575f5ffd5b80631495fc37146100f457806331bedea31461012b578063338007fc14610140575b5f5ffd5b610116610102366004610b4f565b60026020525f908152604090205460ff1681565b60405190151581526020015b60405180910390f35b61013e610139366004610bee565b61026a565b005b61013e61014e366004610c96565b6104b1565b61013e610572565b61016e610169366004610cde565b610609565b604051908152602001610122565b61011661018a366004610d57565b60036020525f908152604090205460ff1681565b61016e60015481565b5f5461011690600160a01b900460ff1681565b6101e17f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b039091168152602001610122565b61013e6106c5565b61016e7f6e9687efd12182e344ec88b496df8eed37b2f28c84a5fee940f19d2244128cc881565b5f546101e1906001600160a01b031681565b61013e610248366004610d6e565b61075d565b61016e610854565b61025d610875565b6040516101229190610de8565b335f9081526002602052604090205460ff166102a0576040516377d3e2ab60e01b81523360048201526024015b60405180910390fd5b6102a9876108d5565b5f8590036102ca576040516305bcea8760e31b815260040160405180910390fd5b336102e26102db8989898787610609565b868661096e565b6001600160a01b03161461031257604051637500c6ff60e11b815260048101889052336024820152604401610297565b5f8781526003602052604090205460ff166104a8575f60075f8981526020019081526020015f205f888860405160200161034d929190610e33565b60408051601f19818403018152918152815160209283012083528282019390935291015f90812080546001810182558183529290912090925001610392858783610ef1565b5061039b610854565b8154036104a6575f888152600360205260409020805460ff191660011790557f00000000000000000000000000000000000000000000000000000000000000006001600160a01b031615610465576040516342aa2a8f60e11b81526001600160a01b037f00000000000000000000000000000000000000000000000000000000000000001690638554551e90610437908a908a90600401610fdb565b5f604051808303815f87803b15801561044e575f5ffd5b505af1158015610460573d5f5f3e3d5ffd5b505050505b877f5090995d414993a1917ab372c76f84e20233278e6c876bdebba9bda8ef9eb429888884878760405161049d95949392919061101e565b60405180910390a25b505b50505050505050565b335f9081526002602052604090205460ff166104e2576040516377d3e2ab60e01b8152336004820152602401610297565b6104eb836108d5565b5f8381526003602052604090205460ff1661056d57610508610854565b5f84815260086020526040812080549091906105239061112e565b91829055500361056d575f83815260036020526040808220805460ff191660011790555184917fe465e141fa8abd95ab7e0855543307f8506ab0170ef664420fb71ab7de0183de91a25b505050565b5f546001600160a01b0316331461059e5760405163245aecd360e01b8152336004820152602401610297565b5f54600160a01b900460ff166105c757604051638dfc202b60e01b815260040160405180910390fd5b5f805460ff60a01b191690556040513381527f5db9ee0a495bf2e6ff9c91a7834c1ba4fdd244a5e8aa4e537bd38aeae4b073aa906020015b60405180910390a1565b5f7f6e9687efd12182e344ec88b496df8eed37b2f28c84a5fee940f19d2244128cc84630888888604051602001610641929190610e33565b604051602081830303815290604052805190602001208787604051610667929190611146565b6040805191829003822060208301979097528101949094526001600160a01b039092166060840152608083015260a082015260c081019190915260e00160405160208183030381529060405280519060200120905095945050505050565b5f546001600160a01b031633146106f15760405163245aecd360e01b8152336004820152602401610297565b5f54600160a01b900460ff161561071b5760405163d93c066560e01b815260040160405180910390fd5b5f805460ff60a01b1916600160a01b1790556040513381527f62e78cea01bee320cd4e420270b5ea74000d11b0c9f74754ebdbfc544b05a258906020016105ff565b5f54600160a01b900460ff16156107875760405163d93c066560e01b815260040160405180910390fd5b5f8390036107a857604051631b7c19af60e31b815260040160405180910390fd5b60056107b48585610a65565b60ff16036107d557604051632970eadf60e21b815260040160405180910390fd5b5f60015f81546107e49061112e565b91829055505f8181526005602052604090819020805460ff1916600117905551909150889082907f4ae54f6a6e900d806ffa5bb46ed91459523d2f6ac9b5d62404feab887686d00590610842908b908b908b908b908b908b90611155565b60405180910390a35050505050505050565b6004545f90610865906002906111a1565b6108709060016111c0565b905090565b606060048054806020026020016040519081016040528092919081815260200182805480156108cb57602002820191905f5260205f20905b81546001600160a01b031681526001909101906020018083116108ad575b5050505050905090565b5f8181526005602052604090205460ff1661090657604051631f79bbe760e01b815260048101829052602401610297565b5f81815260066020908152604080832033845290915290205460ff161561094957604051634445259560e11b815260048101829052336024820152604401610297565b5f9081526006602090815260408083203384529091529020805460ff19166001179055565b5f6041821461097e57505f610a5e565b8235602084013560408501355f1a601b8110156109a3576109a0601b826111d3565b90505b8060ff16601b141580156109bb57508060ff16601c14155b156109cb575f9350505050610a5e565b7f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a08211156109fe575f9350505050610a5e565b604080515f81526020810180835289905260ff831691810191909152606081018490526080810183905260019060a0016020604051602081039080840390855afa158015610a4e573d5f5f3e3d5ffd5b5050506020604051035193505050505b9392505050565b5f6003821080610a9e575082825f818110610a8257610a826111ec565b9050013560f81c60f81b6001600160f81b031916607e60f81b14155b80610ad3575082826001818110610ab757610ab76111ec565b9050013560f81c60f81b6001600160f81b031916605760f81b14155b15610adf57505f610b07565b610b0483836002818110610af557610af56111ec565b919091013560f81c9050610b0d565b90505b92915050565b5f600160ff831610801590610b265750600560ff831611155b610b30575f610b07565b5090565b80356001600160a01b0381168114610b4a575f5ffd5b919050565b5f60208284031215610b5f575f5ffd5b610b0482610b34565b5f5f83601f840112610b78575f5ffd5b50813567ffffffffffffffff811115610b8f575f5ffd5b6020830191508360208260051b8501011115610ba9575f5ffd5b9250929050565b5f5f83601f840112610bc0575f5ffd5b50813567ffffffffffffffff811115610bd7575f5ffd5b602083019150836020828501011115610ba9575f5ffd5b5f5f5f5f5f5f5f6080888a031215610c04575f5ffd5b87359650602088013567ffffffffffffffff811115610c21575f5ffd5b610c2d8a828b01610b68565b909750955050604088013567ffffffffffffffff811115610c4c575f5ffd5b610c588a828b01610bb0565b909550935050606088013567ffffffffffffffff811115610c77575f5ffd5b610c838a828b01610bb0565b989b979a50959850939692959293505050565b5f5f5f60408486031215610ca8575f5ffd5b83359250602084013567ffffffffffffffff811115610cc5575f5ffd5b610cd186828701610bb0565b9497909650939450505050565b5f5f5f5f5f60608688031215610cf2575f5ffd5b85359450602086013567ffffffffffffffff811115610d0f575f5ffd5b610d1b88828901610b68565b909550935050604086013567ffffffffffffffff811115610d3a575f5ffd5b610d4688828901610bb0565b969995985093965092949392505050565b5f60208284031215610d67575f5ffd5b5035919050565b5f5f5f5f5f5f5f60a0888a031215610d84575f5ffd5b87359650610d9460208901610b34565b9550610da260408901610b34565b9450606088013567ffffffffffffffff811115610dbd575f5ffd5b610dc98a828b01610bb0565b909550935050608088013567ffffffffffffffff811115610c77575f5ffd5b602080825282518282018190525f918401906040840190835b81811015610e285783516001600160a01b0316835260209384019390920191600101610e01565b509095945050505050565b5f6001600160fb1b03831115610e47575f5ffd5b8260051b80858437919091019392505050565b634e487b7160e01b5f52604160045260245ffd5b600181811c90821680610e8257607f821691505b602082108103610ea057634e487b7160e01b5f52602260045260245ffd5b50919050565b601f82111561056d57805f5260205f20601f840160051c81016020851015610ecb5750805b601f840160051c820191505b81811015610eea575f8155600101610ed7565b5050505050565b67ffffffffffffffff831115610f0957610f09610e5a565b610f1d83610f178354610e6e565b83610ea6565b5f601f841160018114610f4e575f8515610f375750838201355b5f19600387901b1c1916600186901b178355610eea565b5f83815260208120601f198716915b82811015610f7d5786850135825560209485019460019092019101610f5d565b5086821015610f99575f1960f88860031b161c19848701351681555b505060018560011b0183555050505050565b8183525f6001600160fb1b03831115610fc2575f5ffd5b8260051b80836020870137939093016020019392505050565b602081525f610fee602083018486610fab565b949350505050565b81835281816020850137505f828201602090810191909152601f909101601f19169091010190565b606081525f611031606083018789610fab565b828103602084015280865480835260208301915060208160051b840101885f5260205f205f5b838110156110f657601f198684030185525f825461107481610e6e565b80865260018216801561108e57600181146110aa576110de565b60ff1983166020880152602082151560051b88010193506110de565b855f5260205f205f5b838110156110d55781546020828b0101526001820191506020810190506110b3565b88016020019450505b50505060209590950194925060019182019101611057565b5050858103604087015261110b81888a610ff6565b9b9a5050505050505050505050565b634e487b7160e01b5f52601160045260245ffd5b5f6001820161113f5761113f61111a565b5060010190565b818382375f9101908152919050565b6001600160a01b038781168252861660208201526080604082018190525f906111819083018688610ff6565b8281036060840152611194818587610ff6565b9998505050505050505050565b5f826111bb57634e487b7160e01b5f52601260045260245ffd5b500490565b80820180821115610b0757610b0761111a565b60ff8181168382160190811115610b0757610b0761111a565b634e487b7160e01b5f52603260045260245ffdfea2646970667358221220cb7fc5b88dc524567819371b357d6af257379913aade7a4b055ec6daf2dfa9da64736f6c634300081e0033",
}

// InputVerification is an auto generated Go binding around an Ethereum contract.
type InputVerification struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *InputVerification) GetABI() abi.ABI {
	return c.abi
}

// NewInputVerification creates a new instance of InputVerification.
func NewInputVerification() *InputVerification {
	parsed, err := InputVerificationMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &InputVerification{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *InputVerification) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address[] coprocessors_, address handleRegistry_) returns()
func (inputVerification *InputVerification) PackConstructor(coprocessors_ []common.Address, handleRegistry_ common.Address) []byte {
	enc, err := inputVerification.abi.Pack("", coprocessors_, handleRegistry_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackVERIFYPROOFTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x899fd581.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function VERIFY_PROOF_TYPEHASH() view returns(bytes32)
func (inputVerification *InputVerification) PackVERIFYPROOFTYPEHASH() []byte {
	enc, err := inputVerification.abi.Pack("VERIFY_PROOF_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackVERIFYPROOFTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x899fd581.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function VERIFY_PROOF_TYPEHASH() view returns(bytes32)
func (inputVerification *InputVerification) TryPackVERIFYPROOFTYPEHASH() ([]byte, error) {
	return inputVerification.abi.Pack("VERIFY_PROOF_TYPEHASH")
}

// UnpackVERIFYPROOFTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x899fd581.
//
// Solidity: function VERIFY_PROOF_TYPEHASH() view returns(bytes32)
func (inputVerification *InputVerification) UnpackVERIFYPROOFTYPEHASH(data []byte) ([32]byte, error) {
	out, err := inputVerification.abi.Unpack("VERIFY_PROOF_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackCoprocessors is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb8c272d7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function coprocessors() view returns(address[])
func (inputVerification *InputVerification) PackCoprocessors() []byte {
	enc, err := inputVerification.abi.Pack("coprocessors")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCoprocessors is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb8c272d7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function coprocessors() view returns(address[])
func (inputVerification *InputVerification) TryPackCoprocessors() ([]byte, error) {
	return inputVerification.abi.Pack("coprocessors")
}

// UnpackCoprocessors is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xb8c272d7.
//
// Solidity: function coprocessors() view returns(address[])
func (inputVerification *InputVerification) UnpackCoprocessors(data []byte) ([]common.Address, error) {
	out, err := inputVerification.abi.Unpack("coprocessors", data)
	if err != nil {
		return *new([]common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new([]common.Address)).(*[]common.Address)
	return out0, nil
}

// PackHandleRegistry is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5ebbd692.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function handleRegistry() view returns(address)
func (inputVerification *InputVerification) PackHandleRegistry() []byte {
	enc, err := inputVerification.abi.Pack("handleRegistry")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackHandleRegistry is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5ebbd692.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function handleRegistry() view returns(address)
func (inputVerification *InputVerification) TryPackHandleRegistry() ([]byte, error) {
	return inputVerification.abi.Pack("handleRegistry")
}

// UnpackHandleRegistry is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x5ebbd692.
//
// Solidity: function handleRegistry() view returns(address)
func (inputVerification *InputVerification) UnpackHandleRegistry(data []byte) (common.Address, error) {
	out, err := inputVerification.abi.Unpack("handleRegistry", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackIsCoprocessor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1495fc37.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isCoprocessor(address ) view returns(bool)
func (inputVerification *InputVerification) PackIsCoprocessor(arg0 common.Address) []byte {
	enc, err := inputVerification.abi.Pack("isCoprocessor", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsCoprocessor is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1495fc37.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isCoprocessor(address ) view returns(bool)
func (inputVerification *InputVerification) TryPackIsCoprocessor(arg0 common.Address) ([]byte, error) {
	return inputVerification.abi.Pack("isCoprocessor", arg0)
}

// UnpackIsCoprocessor is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1495fc37.
//
// Solidity: function isCoprocessor(address ) view returns(bool)
func (inputVerification *InputVerification) UnpackIsCoprocessor(data []byte) (bool, error) {
	out, err := inputVerification.abi.Unpack("isCoprocessor", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackIsProofDecided is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4ba5184b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isProofDecided(uint256 ) view returns(bool)
func (inputVerification *InputVerification) PackIsProofDecided(arg0 *big.Int) []byte {
	enc, err := inputVerification.abi.Pack("isProofDecided", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsProofDecided is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4ba5184b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isProofDecided(uint256 ) view returns(bool)
func (inputVerification *InputVerification) TryPackIsProofDecided(arg0 *big.Int) ([]byte, error) {
	return inputVerification.abi.Pack("isProofDecided", arg0)
}

// UnpackIsProofDecided is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x4ba5184b.
//
// Solidity: function isProofDecided(uint256 ) view returns(bool)
func (inputVerification *InputVerification) UnpackIsProofDecided(data []byte) (bool, error) {
	out, err := inputVerification.abi.Unpack("isProofDecided", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackMajority is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb6e54bdf.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function majority() view returns(uint256)
func (inputVerification *InputVerification) PackMajority() []byte {
	enc, err := inputVerification.abi.Pack("majority")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMajority is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb6e54bdf.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function majority() view returns(uint256)
func (inputVerification *InputVerification) TryPackMajority() ([]byte, error) {
	return inputVerification.abi.Pack("majority")
}

// UnpackMajority is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xb6e54bdf.
//
// Solidity: function majority() view returns(uint256)
func (inputVerification *InputVerification) UnpackMajority(data []byte) (*big.Int, error) {
	out, err := inputVerification.abi.Unpack("majority", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owner() view returns(address)
func (inputVerification *InputVerification) PackOwner() []byte {
	enc, err := inputVerification.abi.Pack("owner")
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
func (inputVerification *InputVerification) TryPackOwner() ([]byte, error) {
	return inputVerification.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (inputVerification *InputVerification) UnpackOwner(data []byte) (common.Address, error) {
	out, err := inputVerification.abi.Unpack("owner", data)
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
func (inputVerification *InputVerification) PackPause() []byte {
	enc, err := inputVerification.abi.Pack("pause")
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
func (inputVerification *InputVerification) TryPackPause() ([]byte, error) {
	return inputVerification.abi.Pack("pause")
}

// PackPaused is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5c975abb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function paused() view returns(bool)
func (inputVerification *InputVerification) PackPaused() []byte {
	enc, err := inputVerification.abi.Pack("paused")
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
func (inputVerification *InputVerification) TryPackPaused() ([]byte, error) {
	return inputVerification.abi.Pack("paused")
}

// UnpackPaused is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x5c975abb.
//
// Solidity: function paused() view returns(bool)
func (inputVerification *InputVerification) UnpackPaused(data []byte) (bool, error) {
	out, err := inputVerification.abi.Unpack("paused", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackRejectProofResponse is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x338007fc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function rejectProofResponse(uint256 zkProofId, bytes extraData) returns()
func (inputVerification *InputVerification) PackRejectProofResponse(zkProofId *big.Int, extraData []byte) []byte {
	enc, err := inputVerification.abi.Pack("rejectProofResponse", zkProofId, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRejectProofResponse is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x338007fc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function rejectProofResponse(uint256 zkProofId, bytes extraData) returns()
func (inputVerification *InputVerification) TryPackRejectProofResponse(zkProofId *big.Int, extraData []byte) ([]byte, error) {
	return inputVerification.abi.Pack("rejectProofResponse", zkProofId, extraData)
}

// PackUnpause is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3f4ba83a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function unpause() returns()
func (inputVerification *InputVerification) PackUnpause() []byte {
	enc, err := inputVerification.abi.Pack("unpause")
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
func (inputVerification *InputVerification) TryPackUnpause() ([]byte, error) {
	return inputVerification.abi.Pack("unpause")
}

// PackVerifyProofDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4725712d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function verifyProofDigest(uint256 zkProofId, bytes32[] ctHandles, bytes extraData) view returns(bytes32)
func (inputVerification *InputVerification) PackVerifyProofDigest(zkProofId *big.Int, ctHandles [][32]byte, extraData []byte) []byte {
	enc, err := inputVerification.abi.Pack("verifyProofDigest", zkProofId, ctHandles, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackVerifyProofDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4725712d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function verifyProofDigest(uint256 zkProofId, bytes32[] ctHandles, bytes extraData) view returns(bytes32)
func (inputVerification *InputVerification) TryPackVerifyProofDigest(zkProofId *big.Int, ctHandles [][32]byte, extraData []byte) ([]byte, error) {
	return inputVerification.abi.Pack("verifyProofDigest", zkProofId, ctHandles, extraData)
}

// UnpackVerifyProofDigest is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x4725712d.
//
// Solidity: function verifyProofDigest(uint256 zkProofId, bytes32[] ctHandles, bytes extraData) view returns(bytes32)
func (inputVerification *InputVerification) UnpackVerifyProofDigest(data []byte) ([32]byte, error) {
	out, err := inputVerification.abi.Unpack("verifyProofDigest", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackVerifyProofRequest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa7004996.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function verifyProofRequest(uint256 contractChainId, address contractAddress, address userAddress, bytes ciphertextWithZKProof, bytes extraData) returns()
func (inputVerification *InputVerification) PackVerifyProofRequest(contractChainId *big.Int, contractAddress common.Address, userAddress common.Address, ciphertextWithZKProof []byte, extraData []byte) []byte {
	enc, err := inputVerification.abi.Pack("verifyProofRequest", contractChainId, contractAddress, userAddress, ciphertextWithZKProof, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackVerifyProofRequest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa7004996.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function verifyProofRequest(uint256 contractChainId, address contractAddress, address userAddress, bytes ciphertextWithZKProof, bytes extraData) returns()
func (inputVerification *InputVerification) TryPackVerifyProofRequest(contractChainId *big.Int, contractAddress common.Address, userAddress common.Address, ciphertextWithZKProof []byte, extraData []byte) ([]byte, error) {
	return inputVerification.abi.Pack("verifyProofRequest", contractChainId, contractAddress, userAddress, ciphertextWithZKProof, extraData)
}

// PackVerifyProofResponse is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x31bedea3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function verifyProofResponse(uint256 zkProofId, bytes32[] ctHandles, bytes signature, bytes extraData) returns()
func (inputVerification *InputVerification) PackVerifyProofResponse(zkProofId *big.Int, ctHandles [][32]byte, signature []byte, extraData []byte) []byte {
	enc, err := inputVerification.abi.Pack("verifyProofResponse", zkProofId, ctHandles, signature, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackVerifyProofResponse is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x31bedea3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function verifyProofResponse(uint256 zkProofId, bytes32[] ctHandles, bytes signature, bytes extraData) returns()
func (inputVerification *InputVerification) TryPackVerifyProofResponse(zkProofId *big.Int, ctHandles [][32]byte, signature []byte, extraData []byte) ([]byte, error) {
	return inputVerification.abi.Pack("verifyProofResponse", zkProofId, ctHandles, signature, extraData)
}

// PackZkProofCounter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x51d3e3ec.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function zkProofCounter() view returns(uint256)
func (inputVerification *InputVerification) PackZkProofCounter() []byte {
	enc, err := inputVerification.abi.Pack("zkProofCounter")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackZkProofCounter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x51d3e3ec.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function zkProofCounter() view returns(uint256)
func (inputVerification *InputVerification) TryPackZkProofCounter() ([]byte, error) {
	return inputVerification.abi.Pack("zkProofCounter")
}

// UnpackZkProofCounter is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x51d3e3ec.
//
// Solidity: function zkProofCounter() view returns(uint256)
func (inputVerification *InputVerification) UnpackZkProofCounter(data []byte) (*big.Int, error) {
	out, err := inputVerification.abi.Unpack("zkProofCounter", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// InputVerificationPaused represents a Paused event raised by the InputVerification contract.
type InputVerificationPaused struct {
	Account common.Address
	Raw     *types.Log // Blockchain specific contextual infos
}

const InputVerificationPausedEventName = "Paused"

// ContractEventName returns the user-defined event name.
func (InputVerificationPaused) ContractEventName() string {
	return InputVerificationPausedEventName
}

// UnpackPausedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Paused(address account)
func (inputVerification *InputVerification) UnpackPausedEvent(log *types.Log) (*InputVerificationPaused, error) {
	event := "Paused"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != inputVerification.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(InputVerificationPaused)
	if len(log.Data) > 0 {
		if err := inputVerification.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range inputVerification.abi.Events[event].Inputs {
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

// InputVerificationRejectProofResponse represents a RejectProofResponse event raised by the InputVerification contract.
type InputVerificationRejectProofResponse struct {
	ZkProofId *big.Int
	Raw       *types.Log // Blockchain specific contextual infos
}

const InputVerificationRejectProofResponseEventName = "RejectProofResponse"

// ContractEventName returns the user-defined event name.
func (InputVerificationRejectProofResponse) ContractEventName() string {
	return InputVerificationRejectProofResponseEventName
}

// UnpackRejectProofResponseEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RejectProofResponse(uint256 indexed zkProofId)
func (inputVerification *InputVerification) UnpackRejectProofResponseEvent(log *types.Log) (*InputVerificationRejectProofResponse, error) {
	event := "RejectProofResponse"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != inputVerification.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(InputVerificationRejectProofResponse)
	if len(log.Data) > 0 {
		if err := inputVerification.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range inputVerification.abi.Events[event].Inputs {
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

// InputVerificationUnpaused represents a Unpaused event raised by the InputVerification contract.
type InputVerificationUnpaused struct {
	Account common.Address
	Raw     *types.Log // Blockchain specific contextual infos
}

const InputVerificationUnpausedEventName = "Unpaused"

// ContractEventName returns the user-defined event name.
func (InputVerificationUnpaused) ContractEventName() string {
	return InputVerificationUnpausedEventName
}

// UnpackUnpausedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Unpaused(address account)
func (inputVerification *InputVerification) UnpackUnpausedEvent(log *types.Log) (*InputVerificationUnpaused, error) {
	event := "Unpaused"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != inputVerification.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(InputVerificationUnpaused)
	if len(log.Data) > 0 {
		if err := inputVerification.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range inputVerification.abi.Events[event].Inputs {
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

// InputVerificationVerifyProofRequest represents a VerifyProofRequest event raised by the InputVerification contract.
type InputVerificationVerifyProofRequest struct {
	ZkProofId             *big.Int
	ContractChainId       *big.Int
	ContractAddress       common.Address
	UserAddress           common.Address
	CiphertextWithZKProof []byte
	ExtraData             []byte
	Raw                   *types.Log // Blockchain specific contextual infos
}

const InputVerificationVerifyProofRequestEventName = "VerifyProofRequest"

// ContractEventName returns the user-defined event name.
func (InputVerificationVerifyProofRequest) ContractEventName() string {
	return InputVerificationVerifyProofRequestEventName
}

// UnpackVerifyProofRequestEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event VerifyProofRequest(uint256 indexed zkProofId, uint256 indexed contractChainId, address contractAddress, address userAddress, bytes ciphertextWithZKProof, bytes extraData)
func (inputVerification *InputVerification) UnpackVerifyProofRequestEvent(log *types.Log) (*InputVerificationVerifyProofRequest, error) {
	event := "VerifyProofRequest"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != inputVerification.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(InputVerificationVerifyProofRequest)
	if len(log.Data) > 0 {
		if err := inputVerification.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range inputVerification.abi.Events[event].Inputs {
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

// InputVerificationVerifyProofResponse represents a VerifyProofResponse event raised by the InputVerification contract.
type InputVerificationVerifyProofResponse struct {
	ZkProofId  *big.Int
	CtHandles  [][32]byte
	Signatures [][]byte
	ExtraData  []byte
	Raw        *types.Log // Blockchain specific contextual infos
}

const InputVerificationVerifyProofResponseEventName = "VerifyProofResponse"

// ContractEventName returns the user-defined event name.
func (InputVerificationVerifyProofResponse) ContractEventName() string {
	return InputVerificationVerifyProofResponseEventName
}

// UnpackVerifyProofResponseEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event VerifyProofResponse(uint256 indexed zkProofId, bytes32[] ctHandles, bytes[] signatures, bytes extraData)
func (inputVerification *InputVerification) UnpackVerifyProofResponseEvent(log *types.Log) (*InputVerificationVerifyProofResponse, error) {
	event := "VerifyProofResponse"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != inputVerification.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(InputVerificationVerifyProofResponse)
	if len(log.Data) > 0 {
		if err := inputVerification.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range inputVerification.abi.Events[event].Inputs {
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
func (inputVerification *InputVerification) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], inputVerification.abi.Errors["CoprocessorAlreadyResponded"].ID.Bytes()[:4]) {
		return inputVerification.UnpackCoprocessorAlreadyRespondedError(raw[4:])
	}
	if bytes.Equal(raw[:4], inputVerification.abi.Errors["DuplicateCoprocessor"].ID.Bytes()[:4]) {
		return inputVerification.UnpackDuplicateCoprocessorError(raw[4:])
	}
	if bytes.Equal(raw[:4], inputVerification.abi.Errors["EmptyCiphertext"].ID.Bytes()[:4]) {
		return inputVerification.UnpackEmptyCiphertextError(raw[4:])
	}
	if bytes.Equal(raw[:4], inputVerification.abi.Errors["EmptyCoprocessors"].ID.Bytes()[:4]) {
		return inputVerification.UnpackEmptyCoprocessorsError(raw[4:])
	}
	if bytes.Equal(raw[:4], inputVerification.abi.Errors["EmptyCtHandles"].ID.Bytes()[:4]) {
		return inputVerification.UnpackEmptyCtHandlesError(raw[4:])
	}
	if bytes.Equal(raw[:4], inputVerification.abi.Errors["EnforcedPause"].ID.Bytes()[:4]) {
		return inputVerification.UnpackEnforcedPauseError(raw[4:])
	}
	if bytes.Equal(raw[:4], inputVerification.abi.Errors["ExpectedPause"].ID.Bytes()[:4]) {
		return inputVerification.UnpackExpectedPauseError(raw[4:])
	}
	if bytes.Equal(raw[:4], inputVerification.abi.Errors["InvalidCoprocessorSignature"].ID.Bytes()[:4]) {
		return inputVerification.UnpackInvalidCoprocessorSignatureError(raw[4:])
	}
	if bytes.Equal(raw[:4], inputVerification.abi.Errors["NotCoprocessor"].ID.Bytes()[:4]) {
		return inputVerification.UnpackNotCoprocessorError(raw[4:])
	}
	if bytes.Equal(raw[:4], inputVerification.abi.Errors["NotOwner"].ID.Bytes()[:4]) {
		return inputVerification.UnpackNotOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], inputVerification.abi.Errors["TestScenarioRevert"].ID.Bytes()[:4]) {
		return inputVerification.UnpackTestScenarioRevertError(raw[4:])
	}
	if bytes.Equal(raw[:4], inputVerification.abi.Errors["UnknownRequest"].ID.Bytes()[:4]) {
		return inputVerification.UnpackUnknownRequestError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// InputVerificationCoprocessorAlreadyResponded represents a CoprocessorAlreadyResponded error raised by the InputVerification contract.
type InputVerificationCoprocessorAlreadyResponded struct {
	ZkProofId   *big.Int
	Coprocessor common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error CoprocessorAlreadyResponded(uint256 zkProofId, address coprocessor)
func InputVerificationCoprocessorAlreadyRespondedErrorID() common.Hash {
	return common.HexToHash("0x888a4b2a7a79b49aa465d3fe85462040f02b49a00a88b1d6a4c8f55e0445f858")
}

// UnpackCoprocessorAlreadyRespondedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error CoprocessorAlreadyResponded(uint256 zkProofId, address coprocessor)
func (inputVerification *InputVerification) UnpackCoprocessorAlreadyRespondedError(raw []byte) (*InputVerificationCoprocessorAlreadyResponded, error) {
	out := new(InputVerificationCoprocessorAlreadyResponded)
	if err := inputVerification.abi.UnpackIntoInterface(out, "CoprocessorAlreadyResponded", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// InputVerificationDuplicateCoprocessor represents a DuplicateCoprocessor error raised by the InputVerification contract.
type InputVerificationDuplicateCoprocessor struct {
	Coprocessor common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DuplicateCoprocessor(address coprocessor)
func InputVerificationDuplicateCoprocessorErrorID() common.Hash {
	return common.HexToHash("0x7f28bc68870e0d92dac9a45780e16a6ee470ae2692d8ddd22c64dea1f4b95d82")
}

// UnpackDuplicateCoprocessorError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DuplicateCoprocessor(address coprocessor)
func (inputVerification *InputVerification) UnpackDuplicateCoprocessorError(raw []byte) (*InputVerificationDuplicateCoprocessor, error) {
	out := new(InputVerificationDuplicateCoprocessor)
	if err := inputVerification.abi.UnpackIntoInterface(out, "DuplicateCoprocessor", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// InputVerificationEmptyCiphertext represents a EmptyCiphertext error raised by the InputVerification contract.
type InputVerificationEmptyCiphertext struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptyCiphertext()
func InputVerificationEmptyCiphertextErrorID() common.Hash {
	return common.HexToHash("0xdbe0cd78af56659a52d8244121fb66f83380f1db5494cf1a6989717a6eb61f79")
}

// UnpackEmptyCiphertextError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptyCiphertext()
func (inputVerification *InputVerification) UnpackEmptyCiphertextError(raw []byte) (*InputVerificationEmptyCiphertext, error) {
	out := new(InputVerificationEmptyCiphertext)
	if err := inputVerification.abi.UnpackIntoInterface(out, "EmptyCiphertext", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// InputVerificationEmptyCoprocessors represents a EmptyCoprocessors error raised by the InputVerification contract.
type InputVerificationEmptyCoprocessors struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptyCoprocessors()
func InputVerificationEmptyCoprocessorsErrorID() common.Hash {
	return common.HexToHash("0x8af082eff18ba135d61b919bfaa00c7132520476619e2b05893c65d0953decfd")
}

// UnpackEmptyCoprocessorsError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptyCoprocessors()
func (inputVerification *InputVerification) UnpackEmptyCoprocessorsError(raw []byte) (*InputVerificationEmptyCoprocessors, error) {
	out := new(InputVerificationEmptyCoprocessors)
	if err := inputVerification.abi.UnpackIntoInterface(out, "EmptyCoprocessors", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// InputVerificationEmptyCtHandles represents a EmptyCtHandles error raised by the InputVerification contract.
type InputVerificationEmptyCtHandles struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptyCtHandles()
func InputVerificationEmptyCtHandlesErrorID() common.Hash {
	return common.HexToHash("0x2de75438d74b9e9926cfd7a5465b5a0f3e696bda7d0b70786f51f63b35d1ab31")
}

// UnpackEmptyCtHandlesError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptyCtHandles()
func (inputVerification *InputVerification) UnpackEmptyCtHandlesError(raw []byte) (*InputVerificationEmptyCtHandles, error) {
	out := new(InputVerificationEmptyCtHandles)
	if err := inputVerification.abi.UnpackIntoInterface(out, "EmptyCtHandles", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// InputVerificationEnforcedPause represents a EnforcedPause error raised by the InputVerification contract.
type InputVerificationEnforcedPause struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EnforcedPause()
func InputVerificationEnforcedPauseErrorID() common.Hash {
	return common.HexToHash("0xd93c0665d6c96d04a8f174024fc4ddd66c250604aff22bbec808de86dd3637e3")
}

// UnpackEnforcedPauseError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EnforcedPause()
func (inputVerification *InputVerification) UnpackEnforcedPauseError(raw []byte) (*InputVerificationEnforcedPause, error) {
	out := new(InputVerificationEnforcedPause)
	if err := inputVerification.abi.UnpackIntoInterface(out, "EnforcedPause", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// InputVerificationExpectedPause represents a ExpectedPause error raised by the InputVerification contract.
type InputVerificationExpectedPause struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ExpectedPause()
func InputVerificationExpectedPauseErrorID() common.Hash {
	return common.HexToHash("0x8dfc202bcfe9a735b559bee70674422512bc5c30f687046ae8778315fb81da44")
}

// UnpackExpectedPauseError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ExpectedPause()
func (inputVerification *InputVerification) UnpackExpectedPauseError(raw []byte) (*InputVerificationExpectedPause, error) {
	out := new(InputVerificationExpectedPause)
	if err := inputVerification.abi.UnpackIntoInterface(out, "ExpectedPause", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// InputVerificationInvalidCoprocessorSignature represents a InvalidCoprocessorSignature error raised by the InputVerification contract.
type InputVerificationInvalidCoprocessorSignature struct {
	ZkProofId   *big.Int
	Coprocessor common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidCoprocessorSignature(uint256 zkProofId, address coprocessor)
func InputVerificationInvalidCoprocessorSignatureErrorID() common.Hash {
	return common.HexToHash("0xea018dfe27832a8dcc0cc944910a24b3db594f01cf852684ea64e6feea383717")
}

// UnpackInvalidCoprocessorSignatureError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidCoprocessorSignature(uint256 zkProofId, address coprocessor)
func (inputVerification *InputVerification) UnpackInvalidCoprocessorSignatureError(raw []byte) (*InputVerificationInvalidCoprocessorSignature, error) {
	out := new(InputVerificationInvalidCoprocessorSignature)
	if err := inputVerification.abi.UnpackIntoInterface(out, "InvalidCoprocessorSignature", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// InputVerificationNotCoprocessor represents a NotCoprocessor error raised by the InputVerification contract.
type InputVerificationNotCoprocessor struct {
	Caller common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotCoprocessor(address caller)
func InputVerificationNotCoprocessorErrorID() common.Hash {
	return common.HexToHash("0x77d3e2ab0d55b2b5c78a42c3de0268ee27445f4df4b965d640b4825d5d9662cd")
}

// UnpackNotCoprocessorError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotCoprocessor(address caller)
func (inputVerification *InputVerification) UnpackNotCoprocessorError(raw []byte) (*InputVerificationNotCoprocessor, error) {
	out := new(InputVerificationNotCoprocessor)
	if err := inputVerification.abi.UnpackIntoInterface(out, "NotCoprocessor", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// InputVerificationNotOwner represents a NotOwner error raised by the InputVerification contract.
type InputVerificationNotOwner struct {
	Caller common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotOwner(address caller)
func InputVerificationNotOwnerErrorID() common.Hash {
	return common.HexToHash("0x245aecd3fabbd17d6c3c92dc7f0ab916ea8cbf6fc1862c8b56893090ac3fff4c")
}

// UnpackNotOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotOwner(address caller)
func (inputVerification *InputVerification) UnpackNotOwnerError(raw []byte) (*InputVerificationNotOwner, error) {
	out := new(InputVerificationNotOwner)
	if err := inputVerification.abi.UnpackIntoInterface(out, "NotOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// InputVerificationTestScenarioRevert represents a TestScenarioRevert error raised by the InputVerification contract.
type InputVerificationTestScenarioRevert struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error TestScenarioRevert()
func InputVerificationTestScenarioRevertErrorID() common.Hash {
	return common.HexToHash("0xa5c3ab7c895df3ef0ab74eb9c39fe5635e95bfffda19eda25a5fbed9a725eb4e")
}

// UnpackTestScenarioRevertError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error TestScenarioRevert()
func (inputVerification *InputVerification) UnpackTestScenarioRevertError(raw []byte) (*InputVerificationTestScenarioRevert, error) {
	out := new(InputVerificationTestScenarioRevert)
	if err := inputVerification.abi.UnpackIntoInterface(out, "TestScenarioRevert", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// InputVerificationUnknownRequest represents a UnknownRequest error raised by the InputVerification contract.
type InputVerificationUnknownRequest struct {
	RequestId *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error UnknownRequest(uint256 requestId)
func InputVerificationUnknownRequestErrorID() common.Hash {
	return common.HexToHash("0x1f79bbe7615659139997ff125b66c4ba38cac7dfa6b433c10ed50c7d053634ff")
}

// UnpackUnknownRequestError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error UnknownRequest(uint256 requestId)
func (inputVerification *InputVerification) UnpackUnknownRequestError(raw []byte) (*InputVerificationUnknownRequest, error) {
	out := new(InputVerificationUnknownRequest)
	if err := inputVerification.abi.UnpackIntoInterface(out, "UnknownRequest", raw); err != nil {
		return nil, err
	}
	return out, nil
}
