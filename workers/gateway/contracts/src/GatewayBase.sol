// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EIP5267} from "./EIP5267.sol";

/// @title Owner, pause switch and EIP-712 domain shared by the gateway contracts.
/// @notice The owner (the deployer) can pause and unpause. While paused, request functions
/// revert with EnforcedPause(); responses from KMS nodes and coprocessors are still accepted,
/// so requests already on chain can complete.
///
/// What KMS nodes and coprocessors sign is EIP-712 typed data under this contract's domain
/// {name: _eip712Name(), version: "1", chainId: block.chainid, verifyingContract: address(this)},
/// which eip712Domain() (EIP-5267) reports: the domain the client SDK verifies against.
abstract contract GatewayBase is EIP5267 {
    /// @notice keccak256 of the EIP-712 domain type the gateway contracts sign under.
    bytes32 public constant EIP712_DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

    /// @notice The account allowed to pause and unpause.
    address public owner;
    /// @notice True while request functions are disabled.
    bool public paused;

    /// @notice Emitted when the owner pauses the contract.
    event Paused(address account);
    /// @notice Emitted when the owner unpauses the contract.
    event Unpaused(address account);

    /// @notice The caller is not the owner.
    error NotOwner(address caller);
    /// @notice The contract is paused: requests are refused until the owner unpauses it.
    error EnforcedPause();
    /// @notice unpause() was called while the contract is not paused.
    error ExpectedPause();
    /// @notice A development test handle (7e 57 05 ...) asked this request to revert.
    error TestScenarioRevert();
    /// @notice The request id is not one this contract issued (or is of another request kind).
    error UnknownRequest(uint256 requestId);

    constructor() {
        owner = msg.sender;
    }

    modifier onlyOwner() {
        if (msg.sender != owner) {
            revert NotOwner(msg.sender);
        }
        _;
    }

    modifier whenNotPaused() {
        if (paused) {
            revert EnforcedPause();
        }
        _;
    }

    /// @notice Refuses new requests until unpause().
    function pause() external onlyOwner whenNotPaused {
        paused = true;
        emit Paused(msg.sender);
    }

    /// @notice Accepts requests again.
    function unpause() external onlyOwner {
        if (!paused) {
            revert ExpectedPause();
        }
        paused = false;
        emit Unpaused(msg.sender);
    }

    /// @dev This contract's own domain: its name, this chain, this contract.
    function _eip712Domain() internal view override returns (string memory, uint256, address) {
        return (_eip712Name(), block.chainid, address(this));
    }

    /// @dev The EIP-712 domain name: "Decryption" or "InputVerification".
    function _eip712Name() internal pure virtual returns (string memory);

    /// @dev keccak256("\x19\x01" || domainSeparator || keccak256(encodedStruct)): the digest
    /// signers sign of the struct whose EIP-712 encoding (typeHash || encodeData) is encodedStruct.
    function _hashTypedData(bytes memory encodedStruct) internal view returns (bytes32) {
        (string memory name, uint256 chainId, address verifyingContract) = _eip712Domain();
        bytes32 domainSeparator = keccak256(
            abi.encode(EIP712_DOMAIN_TYPEHASH, keccak256(bytes(name)), keccak256("1"), chainId, verifyingContract)
        );
        return keccak256(abi.encodePacked(hex"1901", domainSeparator, keccak256(encodedStruct)));
    }

    /// @dev The EIP-712 encoding of a bytes32[] member: keccak256 of the packed elements.
    function _hashHandles(bytes32[] memory ctHandles) internal pure returns (bytes32) {
        return keccak256(abi.encodePacked(ctHandles));
    }
}
