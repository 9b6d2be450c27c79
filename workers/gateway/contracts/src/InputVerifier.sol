// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {HostVerifier} from "./HostVerifier.sol";

/// @title Development host-chain InputVerifier.
/// @notice What a client SDK reads before it accepts an input proof: the coprocessor signers
/// (the gateway InputVerification's, in its order), how many must sign (its majority), and the
/// EIP-712 domain they sign under (name "InputVerification", the gateway's chain id and
/// InputVerification address). It verifies nothing itself.
contract InputVerifier is HostVerifier {
    constructor(
        address[] memory coprocessorSigners_,
        uint256 threshold_,
        uint256 gatewayChainId_,
        address inputVerification_
    ) HostVerifier("InputVerification", coprocessorSigners_, threshold_, gatewayChainId_, inputVerification_) {}

    /// @notice The coprocessor signers, in the gateway's registration order.
    function getCoprocessorSigners() external view returns (address[] memory) {
        return _signers;
    }
}
