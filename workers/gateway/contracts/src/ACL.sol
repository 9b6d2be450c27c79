// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TestScenarios} from "./TestScenarios.sol";

/// @title Development host-chain ACL.
/// @notice Answers the two questions the relayer asks the host chain before a decryption:
/// everything is allowed, except scenario-01 handles (7e 57 01 ...), which nobody may decrypt.
/// The owner can also deny one (handle, account) pair or one handle's public decryption, for
/// tests that need an ordinary-looking handle to be denied.
contract ACL {
    /// @notice The account allowed to deny.
    address public owner;
    /// @notice Explicit denials of (handle, account) pairs.
    mapping(bytes32 => mapping(address => bool)) public deniedFor;
    /// @notice Explicit denials of a handle's public decryption.
    mapping(bytes32 => bool) public publicDecryptionDenied;

    /// @notice The caller is not the owner.
    error NotOwner(address caller);

    constructor() {
        owner = msg.sender;
    }

    /// @notice Whether account may use handle (user decryption asks it for the user and the contract).
    function isAllowed(bytes32 handle, address account) external view returns (bool) {
        return TestScenarios.ofHandle(handle) != TestScenarios.DENIED && !deniedFor[handle][account];
    }

    /// @notice Whether handle may be publicly decrypted.
    function isAllowedForDecryption(bytes32 handle) external view returns (bool) {
        return TestScenarios.ofHandle(handle) != TestScenarios.DENIED && !publicDecryptionDenied[handle];
    }

    /// @notice Sets or clears the denial of (handle, account).
    function setDenied(bytes32 handle, address account, bool denied) external {
        if (msg.sender != owner) {
            revert NotOwner(msg.sender);
        }
        deniedFor[handle][account] = denied;
    }

    /// @notice Sets or clears the denial of handle's public decryption.
    function setPublicDecryptionDenied(bytes32 handle, bool denied) external {
        if (msg.sender != owner) {
            revert NotOwner(msg.sender);
        }
        publicDecryptionDenied[handle] = denied;
    }
}
