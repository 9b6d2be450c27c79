// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {HostVerifier} from "./HostVerifier.sol";

/// @title Development host-chain KMSVerifier.
/// @notice What a client SDK reads before it accepts a decryption: the KMS signers (the gateway
/// Decryption's, in its order), how many must sign (its threshold), and the EIP-712 domain they
/// sign under (name "Decryption", the gateway's chain id and Decryption address). It verifies
/// nothing itself.
contract KMSVerifier is HostVerifier {
    constructor(
        address[] memory kmsSigners_,
        uint256 threshold_,
        uint256 gatewayChainId_,
        address decryption_
    ) HostVerifier("Decryption", kmsSigners_, threshold_, gatewayChainId_, decryption_) {}

    /// @notice The KMS signers, in the gateway's registration order.
    function getKmsSigners() external view returns (address[] memory) {
        return _signers;
    }
}
