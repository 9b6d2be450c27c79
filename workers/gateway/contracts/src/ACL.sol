// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TestScenarios} from "./TestScenarios.sol";

/// @title Development host-chain ACL.
/// @notice Answers the questions the relayer and the client SDK ask the host chain before a decryption:
/// everything is allowed, except scenario-01 handles (7e 57 01 ...), which nobody may decrypt.
/// The owner can also deny one (handle, account) pair or one handle's public decryption, for
/// tests that need an ordinary-looking handle to be denied.
///
/// Delegation for user decryption follows the public host ACL: a delegator (msg.sender)
/// authorises a delegate to user-decrypt, until an expiration date, the handles the delegator and
/// one contract may both use (delegateForUserDecryption, revokeDelegationForUserDecryption,
/// getUserDecryptionDelegationExpirationDate, isHandleDelegatedForUserDecryption). The gateway's
/// Decryption asks isHandleDelegatedForUserDecryption for every pair of a delegated request.
/// Unlike the public ACL, a delegation may change more than once per block: the public ACL's
/// AlreadyDelegatedOrRevokedInSameBlock would make an eth_estimateGas at the latest block refuse
/// a change sent right after the previous one was mined.
contract ACL {
    /// @notice The account allowed to deny.
    address public owner;
    /// @notice Explicit denials of (handle, account) pairs.
    mapping(bytes32 => mapping(address => bool)) public deniedFor;
    /// @notice Explicit denials of a handle's public decryption.
    mapping(bytes32 => bool) public publicDecryptionDenied;

    /// @notice A delegation for user decryption, per (delegator, delegate, contract).
    struct Delegation {
        /// Unix seconds; the delegation holds while block.timestamp < expirationDate (0: none).
        uint64 expirationDate;
        /// How many times it was set or revoked (the events' delegationCounter).
        uint64 delegationCounter;
    }

    mapping(address delegator => mapping(address delegate => mapping(address contractAddress => Delegation)))
        private _delegations;

    /// @notice delegator authorised delegate to user-decrypt its handles of contractAddress until
    /// newExpirationDate (the previous expiration was oldExpirationDate, 0 for none).
    event DelegatedForUserDecryption(
        address indexed delegator,
        address indexed delegate,
        address contractAddress,
        uint64 delegationCounter,
        uint64 oldExpirationDate,
        uint64 newExpirationDate
    );
    /// @notice delegator revoked the delegation that expired at oldExpirationDate.
    event RevokedDelegationForUserDecryption(
        address indexed delegator,
        address indexed delegate,
        address contractAddress,
        uint64 delegationCounter,
        uint64 oldExpirationDate
    );

    /// @notice The caller is not the owner.
    error NotOwner(address caller);
    /// @notice A delegator cannot delegate to itself.
    error SenderCannotBeDelegate(address delegate);
    /// @notice A delegator cannot delegate for itself as the contract.
    error SenderCannotBeContractAddress(address contractAddress);
    /// @notice The delegate cannot be the contract.
    error DelegateCannotBeContractAddress(address contractAddress);
    /// @notice The expiration date is not after the current block's timestamp.
    error ExpirationDateInThePast();
    /// @notice The delegation already expires at that date.
    error ExpirationDateAlreadySetToSameValue(
        address delegator,
        address delegate,
        address contractAddress,
        uint64 expirationDate
    );
    /// @notice There is no delegation to revoke.
    error NotDelegatedYet(address delegator, address delegate, address contractAddress);

    constructor() {
        owner = msg.sender;
    }

    /// @notice Whether account may use handle (user decryption asks it for the user and the contract).
    function isAllowed(bytes32 handle, address account) public view returns (bool) {
        return TestScenarios.ofHandle(handle) != TestScenarios.DENIED && !deniedFor[handle][account];
    }

    /// @notice Whether account may use handle persistently: what the client SDK asks before a user
    /// decryption (for the user and for the contract). The same answer as isAllowed.
    function persistAllowed(bytes32 handle, address account) external view returns (bool) {
        return isAllowed(handle, account);
    }

    /// @notice Whether handle may be publicly decrypted.
    function isAllowedForDecryption(bytes32 handle) external view returns (bool) {
        return TestScenarios.ofHandle(handle) != TestScenarios.DENIED && !publicDecryptionDenied[handle];
    }

    /// @notice Authorises delegate to user-decrypt, until expirationDate (Unix seconds, exclusive),
    /// the handles that the caller (the delegator) and contractAddress may both use. Setting it
    /// again changes the expiration date.
    function delegateForUserDecryption(address delegate, address contractAddress, uint64 expirationDate) external {
        Delegation storage d = _delegations[msg.sender][delegate][contractAddress];
        if (delegate == msg.sender) {
            revert SenderCannotBeDelegate(delegate);
        }
        if (contractAddress == msg.sender) {
            revert SenderCannotBeContractAddress(contractAddress);
        }
        if (delegate == contractAddress) {
            revert DelegateCannotBeContractAddress(contractAddress);
        }
        if (expirationDate <= block.timestamp) {
            revert ExpirationDateInThePast();
        }
        uint64 old = d.expirationDate;
        if (old == expirationDate) {
            revert ExpirationDateAlreadySetToSameValue(msg.sender, delegate, contractAddress, old);
        }
        d.expirationDate = expirationDate;
        emit DelegatedForUserDecryption(msg.sender, delegate, contractAddress, d.delegationCounter++, old, expirationDate);
    }

    /// @notice Ends the caller's delegation to delegate for contractAddress.
    function revokeDelegationForUserDecryption(address delegate, address contractAddress) external {
        Delegation storage d = _delegations[msg.sender][delegate][contractAddress];
        uint64 old = d.expirationDate;
        if (old == 0) {
            revert NotDelegatedYet(msg.sender, delegate, contractAddress);
        }
        d.expirationDate = 0;
        emit RevokedDelegationForUserDecryption(msg.sender, delegate, contractAddress, d.delegationCounter++, old);
    }

    /// @notice When delegator's delegation to delegate for contractAddress expires (0: none or
    /// revoked; a past date: expired).
    function getUserDecryptionDelegationExpirationDate(
        address delegator,
        address delegate,
        address contractAddress
    ) external view returns (uint64) {
        return _delegations[delegator][delegate][contractAddress].expirationDate;
    }

    /// @notice Whether delegate may user-decrypt handle for delegator in contractAddress now: the
    /// delegation exists and has not expired, and both the delegator and the contract may use
    /// the handle (so never for a scenario-01 handle or an explicit denial).
    function isHandleDelegatedForUserDecryption(
        address delegator,
        address delegate,
        address contractAddress,
        bytes32 handle
    ) external view returns (bool) {
        return block.timestamp < _delegations[delegator][delegate][contractAddress].expirationDate &&
            isAllowed(handle, delegator) &&
            isAllowed(handle, contractAddress);
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
