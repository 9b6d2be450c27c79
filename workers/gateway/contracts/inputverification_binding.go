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
	ABI: "[{\"inputs\":[{\"internalType\":\"address[]\",\"name\":\"coprocessors_\",\"type\":\"address[]\"},{\"internalType\":\"contractIHandleRegistry\",\"name\":\"handleRegistry_\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"zkProofId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"coprocessor\",\"type\":\"address\"}],\"name\":\"CoprocessorAlreadyResponded\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"coprocessor\",\"type\":\"address\"}],\"name\":\"DuplicateCoprocessor\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyCiphertext\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyCoprocessors\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyCtHandles\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EnforcedPause\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ExpectedPause\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"zkProofId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"coprocessor\",\"type\":\"address\"}],\"name\":\"InvalidCoprocessorSignature\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotCoprocessor\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotOwner\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"TestScenarioRevert\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"requestId\",\"type\":\"uint256\"}],\"name\":\"UnknownRequest\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"Paused\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"zkProofId\",\"type\":\"uint256\"}],\"name\":\"RejectProofResponse\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"Unpaused\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"zkProofId\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"contractChainId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"userAddress\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"ciphertextWithZKProof\",\"type\":\"bytes\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"VerifyProofRequest\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"zkProofId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"},{\"indexed\":false,\"internalType\":\"bytes[]\",\"name\":\"signatures\",\"type\":\"bytes[]\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"VerifyProofResponse\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"CIPHERTEXT_VERIFICATION_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"EIP712_DOMAIN_TYPEHASH\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"coprocessors\",\"outputs\":[{\"internalType\":\"address[]\",\"name\":\"\",\"type\":\"address[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"eip712Domain\",\"outputs\":[{\"internalType\":\"bytes1\",\"name\":\"fields\",\"type\":\"bytes1\"},{\"internalType\":\"string\",\"name\":\"name\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"version\",\"type\":\"string\"},{\"internalType\":\"uint256\",\"name\":\"chainId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"verifyingContract\",\"type\":\"address\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"},{\"internalType\":\"uint256[]\",\"name\":\"extensions\",\"type\":\"uint256[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"handleRegistry\",\"outputs\":[{\"internalType\":\"contractIHandleRegistry\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"isCoprocessor\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"name\":\"isProofDecided\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"majority\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"pause\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"paused\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"zkProofId\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"rejectProofResponse\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"unpause\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"},{\"internalType\":\"address\",\"name\":\"userAddress\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"contractChainId\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"verifyProofDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"contractChainId\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"contractAddress\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"userAddress\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"ciphertextWithZKProof\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"verifyProofRequest\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"zkProofId\",\"type\":\"uint256\"},{\"internalType\":\"bytes32[]\",\"name\":\"ctHandles\",\"type\":\"bytes32[]\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"internalType\":\"bytes\",\"name\":\"extraData\",\"type\":\"bytes\"}],\"name\":\"verifyProofResponse\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"zkProofCounter\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "InputVerification",
	Bin: "0x60a060405234801561000f575f5ffd5b50604051611b86380380611b8683398101604081905261002e91610214565b5f80546001600160a01b031916331781558251900361006057604051638af082ef60e01b815260040160405180910390fd5b5f5b82518110156101475760025f848381518110610080576100806102f0565b6020908102919091018101516001600160a01b031682528101919091526040015f205460ff16156100f7578281815181106100bd576100bd6102f0565b6020026020010151604051630fe5178d60e31b81526004016100ee91906001600160a01b0391909116815260200190565b60405180910390fd5b600160025f85848151811061010e5761010e6102f0565b6020908102919091018101516001600160a01b031682528101919091526040015f20805460ff1916911515919091179055600101610062565b50815161015b90600490602085019061016e565b506001600160a01b031660805250610304565b828054828255905f5260205f209081019282156101c1579160200282015b828111156101c157825182546001600160a01b0319166001600160a01b0390911617825560209092019160019091019061018c565b506101cd9291506101d1565b5090565b5b808211156101cd575f81556001016101d2565b634e487b7160e01b5f52604160045260245ffd5b80516001600160a01b038116811461020f575f5ffd5b919050565b5f5f60408385031215610225575f5ffd5b82516001600160401b0381111561023a575f5ffd5b8301601f8101851361024a575f5ffd5b80516001600160401b03811115610263576102636101e5565b604051600582901b90603f8201601f191681016001600160401b0381118282101715610291576102916101e5565b6040529182526020818401810192908101888411156102ae575f5ffd5b6020850194505b838510156102d4576102c6856101f9565b8152602094850194016102b5565b5094506102e792505050602084016101f9565b90509250929050565b634e487b7160e01b5f52603260045260245ffd5b60805161185c61032a5f395f81816101c2015281816104ff0152610543015261185c5ff3fe608060405234801561000f575f5ffd5b5060043610610106575f3560e01c806372ee58571161009e578063a70049961161006e578063a700499614610258578063b6e54bdf1461026b578063b8c272d714610273578063c7977be714610288578063ef911605146102af575f5ffd5b806372ee5857146101fc5780638456cb591461022357806384b0196e1461022b5780638da5cb5b14610246575f5ffd5b80634ba5184b116100d95780634ba5184b1461017157806351d3e3ec146101935780635c975abb146101aa5780635ebbd692146101bd575f5ffd5b80631495fc371461010a57806331bedea314610141578063338007fc146101565780633f4ba83a14610169575b5f5ffd5b61012c610118366004610ecc565b60026020525f908152604090205460ff1681565b60405190151581526020015b60405180910390f35b61015461014f366004610f29565b6102c2565b005b610154610164366004610fff565b6105f6565b6101546106b7565b61012c61017f366004611046565b60036020525f908152604090205460ff1681565b61019c60015481565b604051908152602001610138565b5f5461012c90600160a01b900460ff1681565b6101e47f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b039091168152602001610138565b61019c7f7572bd9d6960146795387efc75c1f9d948f0c5aa786c2bb453b4b150e49801b481565b61015461074e565b6102336107e6565b604051610138979695949392919061108b565b5f546101e4906001600160a01b031681565b610154610266366004611121565b610834565b61019c6109e9565b61027b610a0a565b6040516101389190611199565b61019c7f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f81565b61019c6102bd366004611293565b610a6a565b335f9081526002602052604090205460ff166102f8576040516377d3e2ab60e01b81523360048201526024015b60405180910390fd5b61030187610b03565b5f859003610322576040516305bcea8760e31b815260040160405180910390fd5b5f8781526006602090815260408083208151898402818101850190935289815290939261040f928b918b9182918501908490808284375f920191909152505050506002840154600185015485546003870180546001600160a01b03948516949093169261038e9061138e565b80601f01602080910402602001604051908101604052809291908181526020018280546103ba9061138e565b80156104055780601f106103dc57610100808354040283529160200191610405565b820191905f5260205f20905b8154815290600101906020018083116103e857829003601f168201915b5050505050610a6a565b90503361041d828888610b9c565b6001600160a01b03161461044d57604051637500c6ff60e11b8152600481018a90523360248201526044016102ef565b5f8981526003602052604090205460ff161561046a5750506105ed565b5f60085f8b81526020019081526020015f205f8a8a6040516020016104909291906113c6565b60408051601f19818403018152918152815160209283012083528282019390935291015f908120805460018101825581835292909120909250016104d5878983611438565b506104de6109e9565b8154036105e9575f8a8152600360205260409020805460ff191660011790557f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316156105a8576040516342aa2a8f60e11b81526001600160a01b037f00000000000000000000000000000000000000000000000000000000000000001690638554551e9061057a908c908c90600401611521565b5f604051808303815f87803b158015610591575f5ffd5b505af11580156105a3573d5f5f3e3d5ffd5b505050505b897f5090995d414993a1917ab372c76f84e20233278e6c876bdebba9bda8ef9eb4298a8a8489896040516105e0959493929190611564565b60405180910390a25b5050505b50505050505050565b335f9081526002602052604090205460ff16610627576040516377d3e2ab60e01b81523360048201526024016102ef565b61063083610b03565b5f8381526003602052604090205460ff166106b25761064d6109e9565b5f848152600960205260408120805490919061066890611674565b9182905550036106b2575f83815260036020526040808220805460ff191660011790555184917fe465e141fa8abd95ab7e0855543307f8506ab0170ef664420fb71ab7de0183de91a25b505050565b5f546001600160a01b031633146106e35760405163245aecd360e01b81523360048201526024016102ef565b5f54600160a01b900460ff1661070c57604051638dfc202b60e01b815260040160405180910390fd5b5f805460ff60a01b191690556040513381527f5db9ee0a495bf2e6ff9c91a7834c1ba4fdd244a5e8aa4e537bd38aeae4b073aa906020015b60405180910390a1565b5f546001600160a01b0316331461077a5760405163245aecd360e01b81523360048201526024016102ef565b5f54600160a01b900460ff16156107a45760405163d93c066560e01b815260040160405180910390fd5b5f805460ff60a01b1916600160a01b1790556040513381527f62e78cea01bee320cd4e420270b5ea74000d11b0c9f74754ebdbfc544b05a25890602001610744565b5f6060805f5f5f60606107f7610c93565b604080515f808252606082018352600160208301908152603160f81b93830193909352600f60f81b9d959c50919a50929850909650945092509050565b5f54600160a01b900460ff161561085e5760405163d93c066560e01b815260040160405180910390fd5b5f83900361087f57604051631b7c19af60e31b815260040160405180910390fd5b600561088b8585610cd0565b60ff16036108ac57604051632970eadf60e21b815260040160405180910390fd5b5f60015f81546108bb90611674565b91829055505f81815260056020908152604091829020805460ff1916600117905581516080810183528b81526001600160a01b03808c16828401528a16818401528251601f870183900483028101830190935285835292935060608301919086908690819084018382808284375f9201829052509390945250508381526006602090815260409182902084518155908401516001820180546001600160a01b03199081166001600160a01b03938416179091559285015160028301805490941691161790915560608301519091506003820190610998908261168c565b5090505087817f4ae54f6a6e900d806ffa5bb46ed91459523d2f6ac9b5d62404feab887686d0058989898989896040516109d796959493929190611746565b60405180910390a35050505050505050565b6004545f906109fa90600290611792565b610a059060016117b1565b905090565b60606004805480602002602001604051908101604052809291908181526020018280548015610a6057602002820191905f5260205f20905b81546001600160a01b03168152600190910190602001808311610a42575b5050505050905090565b5f610af97f7572bd9d6960146795387efc75c1f9d948f0c5aa786c2bb453b4b150e49801b4610a9888610d78565b8787878780519060200120604051602001610ae59695949392919095865260208601949094526001600160a01b03928316604086015291166060840152608083015260a082015260c00190565b604051602081830303815290604052610da7565b9695505050505050565b5f8181526005602052604090205460ff16610b3457604051631f79bbe760e01b8152600481018290526024016102ef565b5f81815260076020908152604080832033845290915290205460ff1615610b7757604051634445259560e11b8152600481018290523360248201526044016102ef565b5f9081526007602090815260408083203384529091529020805460ff19166001179055565b5f60418214610bac57505f610c8c565b8235602084013560408501355f1a601b811015610bd157610bce601b826117c4565b90505b8060ff16601b14158015610be957508060ff16601c14155b15610bf9575f9350505050610c8c565b7f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0821115610c2c575f9350505050610c8c565b604080515f81526020810180835289905260ff831691810191909152606081018490526080810183905260019060a0016020604051602081039080840390855afa158015610c7c573d5f5f3e3d5ffd5b5050506020604051035193505050505b9392505050565b60605f5f610cc560408051808201909152601181527024b7383aba2b32b934b334b1b0ba34b7b760791b602082015290565b934693503092509050565b5f6003821080610d09575082825f818110610ced57610ced6117dd565b9050013560f81c60f81b6001600160f81b031916607e60f81b14155b80610d3e575082826001818110610d2257610d226117dd565b9050013560f81c60f81b6001600160f81b031916605760f81b14155b15610d4a57505f610d72565b610d6f83836002818110610d6057610d606117dd565b919091013560f81c9050610e8a565b90505b92915050565b5f81604051602001610d8a91906117f1565b604051602081830303815290604052805190602001209050919050565b5f5f5f5f610db3610c93565b8251602093840120604080517f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f81870152808201929092527fc89efdaa54c0f20c7adf612882df0950f5a951637e0307cdcb4c672f298b8bc6606083015260808201939093526001600160a01b039190911660a0808301919091528251808303909101815260c08201835280519084012088519884019890982061190160f01b60e083015260e282019890985261010280820198909852815180820390980188526101220190528551950194909420949350505050565b5f600160ff831610801590610ea35750600560ff831611155b610ead575f610d72565b5090565b80356001600160a01b0381168114610ec7575f5ffd5b919050565b5f60208284031215610edc575f5ffd5b610d6f82610eb1565b5f5f83601f840112610ef5575f5ffd5b5081356001600160401b03811115610f0b575f5ffd5b602083019150836020828501011115610f22575f5ffd5b9250929050565b5f5f5f5f5f5f5f6080888a031215610f3f575f5ffd5b8735965060208801356001600160401b03811115610f5b575f5ffd5b8801601f81018a13610f6b575f5ffd5b80356001600160401b03811115610f80575f5ffd5b8a60208260051b8401011115610f94575f5ffd5b6020919091019650945060408801356001600160401b03811115610fb6575f5ffd5b610fc28a828b01610ee5565b90955093505060608801356001600160401b03811115610fe0575f5ffd5b610fec8a828b01610ee5565b989b979a50959850939692959293505050565b5f5f5f60408486031215611011575f5ffd5b8335925060208401356001600160401b0381111561102d575f5ffd5b61103986828701610ee5565b9497909650939450505050565b5f60208284031215611056575f5ffd5b5035919050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b60ff60f81b8816815260e060208201525f6110a960e083018961105d565b82810360408401526110bb818961105d565b606084018890526001600160a01b038716608085015260a0840186905283810360c0850152845180825260208087019350909101905f5b818110156111105783518352602093840193909201916001016110f2565b50909b9a5050505050505050505050565b5f5f5f5f5f5f5f60a0888a031215611137575f5ffd5b8735965061114760208901610eb1565b955061115560408901610eb1565b945060608801356001600160401b0381111561116f575f5ffd5b61117b8a828b01610ee5565b90955093505060808801356001600160401b03811115610fe0575f5ffd5b602080825282518282018190525f918401906040840190835b818110156111d95783516001600160a01b03168352602093840193909201916001016111b2565b509095945050505050565b634e487b7160e01b5f52604160045260245ffd5b604051601f8201601f191681016001600160401b0381118282101715611220576112206111e4565b604052919050565b5f82601f830112611237575f5ffd5b81356001600160401b03811115611250576112506111e4565b611263601f8201601f19166020016111f8565b818152846020838601011115611277575f5ffd5b816020850160208301375f918101602001919091529392505050565b5f5f5f5f5f60a086880312156112a7575f5ffd5b85356001600160401b038111156112bc575f5ffd5b8601601f810188136112cc575f5ffd5b80356001600160401b038111156112e5576112e56111e4565b8060051b6112f5602082016111f8565b9182526020818401810192908101908b841115611310575f5ffd5b6020850194505b83851015611332578435825260209485019490910190611317565b809950505050505061134660208701610eb1565b935061135460408701610eb1565b92506060860135915060808601356001600160401b03811115611375575f5ffd5b61138188828901611228565b9150509295509295909350565b600181811c908216806113a257607f821691505b6020821081036113c057634e487b7160e01b5f52602260045260245ffd5b50919050565b5f6001600160fb1b038311156113da575f5ffd5b8260051b80858437919091019392505050565b601f8211156106b257805f5260205f20601f840160051c810160208510156114125750805b601f840160051c820191505b81811015611431575f815560010161141e565b5050505050565b6001600160401b0383111561144f5761144f6111e4565b6114638361145d835461138e565b836113ed565b5f601f841160018114611494575f851561147d5750838201355b5f19600387901b1c1916600186901b178355611431565b5f83815260208120601f198716915b828110156114c357868501358255602094850194600190920191016114a3565b50868210156114df575f1960f88860031b161c19848701351681555b505060018560011b0183555050505050565b8183525f6001600160fb1b03831115611508575f5ffd5b8260051b80836020870137939093016020019392505050565b602081525f6115346020830184866114f1565b949350505050565b81835281816020850137505f828201602090810191909152601f909101601f19169091010190565b606081525f6115776060830187896114f1565b828103602084015280865480835260208301915060208160051b840101885f5260205f205f5b8381101561163c57601f198684030185525f82546115ba8161138e565b8086526001821680156115d457600181146115f057611624565b60ff1983166020880152602082151560051b8801019350611624565b855f5260205f205f5b8381101561161b5781546020828b0101526001820191506020810190506115f9565b88016020019450505b5050506020959095019492506001918201910161159d565b5050858103604087015261165181888a61153c565b9b9a5050505050505050505050565b634e487b7160e01b5f52601160045260245ffd5b5f6001820161168557611685611660565b5060010190565b81516001600160401b038111156116a5576116a56111e4565b6116b9816116b3845461138e565b846113ed565b6020601f8211600181146116eb575f83156116d45750848201515b5f19600385901b1c1916600184901b178455611431565b5f84815260208120601f198516915b8281101561171a57878501518255602094850194600190920191016116fa565b508482101561173757868401515f19600387901b60f8161c191681555b50505050600190811b01905550565b6001600160a01b038781168252861660208201526080604082018190525f90611772908301868861153c565b828103606084015261178581858761153c565b9998505050505050505050565b5f826117ac57634e487b7160e01b5f52601260045260245ffd5b500490565b80820180821115610d7257610d72611660565b60ff8181168382160190811115610d7257610d72611660565b634e487b7160e01b5f52603260045260245ffd5b81515f90829060208501835b8281101561181b5781518452602093840193909101906001016117fd565b50919594505050505056fea26469706673582212207e4de4d17d7cfba390d28a3d26b9de800748aa5dc3dbb25492d6e1026ea5304564736f6c634300081e0033",
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

// PackCIPHERTEXTVERIFICATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x72ee5857.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function CIPHERTEXT_VERIFICATION_TYPEHASH() view returns(bytes32)
func (inputVerification *InputVerification) PackCIPHERTEXTVERIFICATIONTYPEHASH() []byte {
	enc, err := inputVerification.abi.Pack("CIPHERTEXT_VERIFICATION_TYPEHASH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCIPHERTEXTVERIFICATIONTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x72ee5857.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function CIPHERTEXT_VERIFICATION_TYPEHASH() view returns(bytes32)
func (inputVerification *InputVerification) TryPackCIPHERTEXTVERIFICATIONTYPEHASH() ([]byte, error) {
	return inputVerification.abi.Pack("CIPHERTEXT_VERIFICATION_TYPEHASH")
}

// UnpackCIPHERTEXTVERIFICATIONTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x72ee5857.
//
// Solidity: function CIPHERTEXT_VERIFICATION_TYPEHASH() view returns(bytes32)
func (inputVerification *InputVerification) UnpackCIPHERTEXTVERIFICATIONTYPEHASH(data []byte) ([32]byte, error) {
	out, err := inputVerification.abi.Unpack("CIPHERTEXT_VERIFICATION_TYPEHASH", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackEIP712DOMAINTYPEHASH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc7977be7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function EIP712_DOMAIN_TYPEHASH() view returns(bytes32)
func (inputVerification *InputVerification) PackEIP712DOMAINTYPEHASH() []byte {
	enc, err := inputVerification.abi.Pack("EIP712_DOMAIN_TYPEHASH")
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
func (inputVerification *InputVerification) TryPackEIP712DOMAINTYPEHASH() ([]byte, error) {
	return inputVerification.abi.Pack("EIP712_DOMAIN_TYPEHASH")
}

// UnpackEIP712DOMAINTYPEHASH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xc7977be7.
//
// Solidity: function EIP712_DOMAIN_TYPEHASH() view returns(bytes32)
func (inputVerification *InputVerification) UnpackEIP712DOMAINTYPEHASH(data []byte) ([32]byte, error) {
	out, err := inputVerification.abi.Unpack("EIP712_DOMAIN_TYPEHASH", data)
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

// PackInputVerificationEip712Domain is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84b0196e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (inputVerification *InputVerification) PackInputVerificationEip712Domain() []byte {
	enc, err := inputVerification.abi.Pack("eip712Domain")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackInputVerificationEip712Domain is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84b0196e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (inputVerification *InputVerification) TryPackInputVerificationEip712Domain() ([]byte, error) {
	return inputVerification.abi.Pack("eip712Domain")
}

// InputVerificationEip712DomainOutput serves as a container for the return parameters of contract
// method InputVerificationEip712Domain.
type InputVerificationEip712DomainOutput struct {
	Fields            [1]byte
	Name              string
	Version           string
	ChainId           *big.Int
	VerifyingContract common.Address
	Salt              [32]byte
	Extensions        []*big.Int
}

// UnpackInputVerificationEip712Domain is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x84b0196e.
//
// Solidity: function eip712Domain() view returns(bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)
func (inputVerification *InputVerification) UnpackInputVerificationEip712Domain(data []byte) (InputVerificationEip712DomainOutput, error) {
	out, err := inputVerification.abi.Unpack("eip712Domain", data)
	outstruct := new(InputVerificationEip712DomainOutput)
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
// the contract method with ID 0xef911605.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function verifyProofDigest(bytes32[] ctHandles, address userAddress, address contractAddress, uint256 contractChainId, bytes extraData) view returns(bytes32)
func (inputVerification *InputVerification) PackVerifyProofDigest(ctHandles [][32]byte, userAddress common.Address, contractAddress common.Address, contractChainId *big.Int, extraData []byte) []byte {
	enc, err := inputVerification.abi.Pack("verifyProofDigest", ctHandles, userAddress, contractAddress, contractChainId, extraData)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackVerifyProofDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xef911605.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function verifyProofDigest(bytes32[] ctHandles, address userAddress, address contractAddress, uint256 contractChainId, bytes extraData) view returns(bytes32)
func (inputVerification *InputVerification) TryPackVerifyProofDigest(ctHandles [][32]byte, userAddress common.Address, contractAddress common.Address, contractChainId *big.Int, extraData []byte) ([]byte, error) {
	return inputVerification.abi.Pack("verifyProofDigest", ctHandles, userAddress, contractAddress, contractChainId, extraData)
}

// UnpackVerifyProofDigest is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xef911605.
//
// Solidity: function verifyProofDigest(bytes32[] ctHandles, address userAddress, address contractAddress, uint256 contractChainId, bytes extraData) view returns(bytes32)
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
