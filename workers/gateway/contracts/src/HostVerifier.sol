// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EIP5267} from "./EIP5267.sol";

/// @title What the host-chain verifier contracts share: a signer set, a threshold, and the
/// EIP-712 domain of the gateway contract whose signatures they stand for.
/// @notice A client SDK reads the host chain to learn whose signatures to accept, how many, and
/// under which domain: eip712Domain() here reports the GATEWAY contract's domain (its chain id
/// and address), not this contract's, because that is where the signers sign. The signers are
/// listed in the gateway's registration order (the order matters to user decryption).
abstract contract HostVerifier is EIP5267 {
    /// @notice The EIP-712 domain name: "InputVerification" or "Decryption".
    string public domainName;
    /// @notice The gateway chain's id: the chainId of the domain.
    uint256 public immutable gatewayChainId;
    /// @notice The gateway contract the signatures are for: the domain's verifyingContract.
    address public immutable gatewayContract;

    uint256 internal immutable _threshold;

    address[] internal _signers;

    error EmptySigners();
    error DuplicateSigner(address signer);
    error InvalidThreshold(uint256 threshold, uint256 signers);
    error NullVerifyingContract();

    constructor(
        string memory domainName_,
        address[] memory signers_,
        uint256 threshold_,
        uint256 gatewayChainId_,
        address verifyingContract_
    ) {
        if (signers_.length == 0) {
            revert EmptySigners();
        }
        // The SDK reads the threshold as a uint8.
        if (threshold_ == 0 || threshold_ > signers_.length || threshold_ > type(uint8).max) {
            revert InvalidThreshold(threshold_, signers_.length);
        }
        if (verifyingContract_ == address(0)) {
            revert NullVerifyingContract();
        }
        for (uint256 i = 0; i < signers_.length; i++) {
            for (uint256 j = 0; j < i; j++) {
                if (signers_[j] == signers_[i]) {
                    revert DuplicateSigner(signers_[i]);
                }
            }
        }
        domainName = domainName_;
        _signers = signers_;
        _threshold = threshold_;
        gatewayChainId = gatewayChainId_;
        gatewayContract = verifyingContract_;
    }

    /// @notice How many distinct signers a signed answer needs.
    function getThreshold() external view returns (uint256) {
        return _threshold;
    }

    /// @dev The gateway contract's domain, not this contract's (see the contract notice).
    function _eip712Domain() internal view override returns (string memory, uint256, address) {
        return (domainName, gatewayChainId, gatewayContract);
    }
}
