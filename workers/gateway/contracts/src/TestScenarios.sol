// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title Test-handle scenarios of the development chain.
/// @notice Like test card numbers: a ciphertext handle whose first bytes are 7e 57 XX (or an
/// input-proof ciphertext whose first bytes are 7e 57 XX) makes the development gateway, host ACL
/// and the devchain's simulated KMS nodes and coprocessors behave in a fixed way:
///   01 ACL denied (host ACL views false, readiness false, requests revert) / proof rejected,
///   02 never ready (readiness views false forever; simulators never answer),
///   03 no response (ready, the request succeeds, simulators never answer),
///   04 ready only READY_DELAY seconds of chain time after the chain first saw the handle,
///   05 the gateway request reverts with TestScenarioRevert().
/// Any other handle (including 7e 57 followed by another byte) behaves normally.
library TestScenarios {
    uint8 internal constant NONE = 0x00;
    uint8 internal constant DENIED = 0x01;
    uint8 internal constant NEVER_READY = 0x02;
    uint8 internal constant NO_RESPONSE = 0x03;
    uint8 internal constant READY_AFTER_DELAY = 0x04;
    uint8 internal constant GATEWAY_REVERT = 0x05;

    /// @notice Seconds of chain time a scenario-04 handle stays not ready after it was first seen.
    uint256 internal constant READY_DELAY = 5;

    /// @notice The scenario a handle carries, NONE for ordinary handles.
    function ofHandle(bytes32 handle) internal pure returns (uint8) {
        if (handle[0] != 0x7e || handle[1] != 0x57) {
            return NONE;
        }
        return _known(uint8(handle[2]));
    }

    /// @notice The scenario an input-proof ciphertext carries, NONE for ordinary ciphertexts.
    function ofCiphertext(bytes calldata ciphertext) internal pure returns (uint8) {
        if (ciphertext.length < 3 || ciphertext[0] != 0x7e || ciphertext[1] != 0x57) {
            return NONE;
        }
        return _known(uint8(ciphertext[2]));
    }

    function _known(uint8 s) private pure returns (uint8) {
        return (s >= DENIED && s <= GATEWAY_REVERT) ? s : NONE;
    }
}
