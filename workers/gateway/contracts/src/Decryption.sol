// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {GatewayBase} from "./GatewayBase.sol";
import {recoverSigner} from "./Signatures.sol";
import {TestScenarios} from "./TestScenarios.sol";

/// @notice What Decryption asks the host ACL about a delegated user decryption.
interface IDelegationACL {
    function isHandleDelegatedForUserDecryption(
        address delegator,
        address delegate,
        address contractAddress,
        bytes32 handle
    ) external view returns (bool);
}

/// @title Development gateway Decryption contract.
/// @notice A minimal contract with the public gateway's interface for what the relayer uses:
/// public, user and delegated user decryption requests, readiness views, and responses from
/// registered KMS signers. Request ids are counters with the request kind in the top byte
/// (1 = public, 2 = user, delegated or not), so the two kinds never share an id.
///
/// Public decryption: every KMS signer sends publicDecryptionResponse with the same result and
/// its own signature; when `threshold` distinct signers signed the same message (result and
/// extraData), PublicDecryptionResponse is emitted once, carrying their signatures.
/// User decryption: every KMS signer sends its own share; each share emits
/// UserDecryptionResponse, and UserDecryptionResponseThresholdReached is emitted once, with the
/// `threshold`-th share.
/// Delegated user decryption (delegatedUserDecryptionRequest): a delegate decrypts handles of a
/// delegator who authorised it on the host ACL (acl(); this chain is also the host chain). It is
/// a user decryption for the gateway: an id from the same counter, the same
/// UserDecryptionRequest event (with the delegate as userAddress: the shares are for the
/// delegate's key) and the same responses.
/// Unified user decryption (the overload userDecryptionRequest(HandleEntry[], ...), the public
/// gateway's unified EIP-712 path): direct and delegated handles in one request, each entry
/// naming the handle's owner (the user, or a delegator who delegated it to the user on the host
/// ACL). It is a user decryption too (same counter, same responses) but is announced with the
/// unified UserDecryptionRequest(decryptionId, HandleEntry[] handles, UserDecryptionRequestPayload
/// payload) event, which carries what the user signed and the signature for the KMS to verify.
///
/// A KMS signature is the secp256k1 signature, by the responding signer's own key, of EIP-712
/// typed data under the domain {name "Decryption", version "1", this chain, this contract}
/// (publicDecryptionDigest / userDecryptionDigest):
///   PublicDecryptVerification(bytes32[] ctHandles, bytes decryptedResult, bytes extraData)
///   UserDecryptResponseVerification(bytes publicKey, bytes32[] ctHandles, bytes userDecryptedShare, bytes extraData)
/// with the request's handles (and public key), the response's result or share and extraData.
contract Decryption is GatewayBase {
    /// @notice A handle to decrypt and the contract that is allowed to decrypt it.
    struct CtHandleContractPair {
        bytes32 ctHandle;
        address contractAddress;
    }

    /// @notice When a user decryption request becomes valid (Unix seconds) and for how many days.
    struct RequestValidity {
        uint256 startTimestamp;
        uint256 durationDays;
    }

    /// @notice The host chain and the contracts a user decryption is made for.
    struct ContractsInfo {
        uint256 chainId;
        address[] addresses;
    }

    /// @notice Who owns the handles of a delegated user decryption, and who decrypts them.
    struct DelegationAccounts {
        address delegatorAddress;
        address delegateAddress;
    }

    /// @notice A handle of a unified user decryption, the contract it belongs to, and the address
    /// it is allowed for: the user for direct access, else a delegator.
    struct HandleEntry {
        bytes32 handle;
        address contractAddress;
        address ownerAddress;
    }

    /// @notice When a unified user decryption request becomes valid (Unix seconds) and for how
    /// many seconds.
    struct RequestValiditySeconds {
        uint256 startTimestamp;
        uint256 durationSeconds;
    }

    /// @notice What the user signed in a unified user decryption, and the signature (opaque to
    /// this contract; the KMS verifies it).
    struct UserDecryptionRequestPayload {
        address userAddress;
        bytes publicKey;
        address[] allowedContracts;
        RequestValiditySeconds requestValidity;
        bytes extraData;
        bytes signature;
    }

    /// @notice Public decryption ids are PUBLIC_DECRYPT_COUNTER_BASE + n, n = 1, 2, ...
    uint256 public constant PUBLIC_DECRYPT_COUNTER_BASE = uint256(1) << 248;
    /// @notice User decryption ids are USER_DECRYPT_COUNTER_BASE + n, n = 1, 2, ...
    uint256 public constant USER_DECRYPT_COUNTER_BASE = uint256(2) << 248;
    /// @notice The longest validity a user decryption request may ask for.
    uint256 public constant MAX_USER_DECRYPT_DURATION_DAYS = 365;
    /// @notice The longest validity a unified user decryption request may ask for.
    uint256 public constant MAX_USER_DECRYPT_DURATION_SECONDS = MAX_USER_DECRYPT_DURATION_DAYS * 1 days;
    /// @notice The most allowedContracts a unified user decryption request may list.
    uint256 public constant MAX_USER_DECRYPT_CONTRACT_ADDRESSES = 10;
    /// @notice Seconds of chain time a scenario-04 handle stays not ready after it was first seen.
    uint256 public constant READY_DELAY = TestScenarios.READY_DELAY;

    /// @notice What a user decryption request said, kept for the signatures of its shares.
    struct UserRequest {
        bytes publicKey;
        bytes32[] ctHandles;
    }

    bytes32 public constant PUBLIC_DECRYPT_VERIFICATION_TYPEHASH =
        keccak256("PublicDecryptVerification(bytes32[] ctHandles,bytes decryptedResult,bytes extraData)");
    bytes32 public constant USER_DECRYPT_RESPONSE_VERIFICATION_TYPEHASH = keccak256(
        "UserDecryptResponseVerification(bytes publicKey,bytes32[] ctHandles,bytes userDecryptedShare,bytes extraData)"
    );

    /// @notice The last public decryption id issued (PUBLIC_DECRYPT_COUNTER_BASE before the first).
    uint256 public publicDecryptionCounter = PUBLIC_DECRYPT_COUNTER_BASE;
    /// @notice The last user decryption id issued (USER_DECRYPT_COUNTER_BASE before the first).
    uint256 public userDecryptionCounter = USER_DECRYPT_COUNTER_BASE;
    /// @notice How many distinct KMS signers complete a decryption.
    uint256 public immutable threshold;
    /// @notice The host ACL that delegated user decryptions are checked against.
    address public immutable acl;
    /// @notice Whether an address is a registered KMS signer.
    mapping(address => bool) public isKmsSigner;
    /// @notice Whether a decryption id has reached its threshold.
    mapping(uint256 => bool) public isDecryptionDone;
    /// @notice Chain time at which a scenario-04 handle was first seen (0: never).
    mapping(bytes32 => uint256) public handleFirstSeen;
    /// @notice How many shares a user decryption has received.
    mapping(uint256 => uint256) public userDecryptionShareCount;

    address[] private _kmsSigners;
    mapping(uint256 => bool) private _requested;
    mapping(uint256 => mapping(address => bool)) private _responded;
    mapping(uint256 => bytes32[]) private _publicHandles;
    mapping(uint256 => UserRequest) private _userRequests;
    /// Signatures of a public decryption, grouped by the digest they sign.
    mapping(uint256 => mapping(bytes32 => bytes[])) private _publicSignatures;

    /// @notice A public decryption was requested.
    event PublicDecryptionRequest(uint256 indexed decryptionId, bytes32[] ctHandles, bytes extraData);
    /// @notice `threshold` KMS signers signed decryptedResult with extraData; signatures are theirs, in arrival order.
    event PublicDecryptionResponse(
        uint256 indexed decryptionId,
        bytes decryptedResult,
        bytes[] signatures,
        bytes extraData
    );
    /// @notice A user decryption was requested.
    event UserDecryptionRequest(
        uint256 indexed decryptionId,
        bytes32[] ctHandles,
        address userAddress,
        bytes publicKey,
        bytes extraData
    );
    /// @notice A unified user decryption was requested.
    event UserDecryptionRequest(
        uint256 indexed decryptionId,
        HandleEntry[] handles,
        UserDecryptionRequestPayload payload
    );
    /// @notice One KMS signer's share; indexShare counts shares from 0 in arrival order.
    event UserDecryptionResponse(
        uint256 indexed decryptionId,
        uint256 indexShare,
        address kmsSigner,
        bytes userDecryptedShare,
        bytes signature,
        bytes extraData
    );
    /// @notice Emitted once, with the threshold-th share of a user decryption.
    event UserDecryptionResponseThresholdReached(uint256 indexed decryptionId);
    /// @notice A scenario-04 handle was seen for the first time.
    event HandleRegistered(bytes32 indexed ctHandle, uint256 firstSeen);

    error EmptyKmsSigners();
    error InvalidThreshold(uint256 threshold, uint256 kmsSigners);
    error DuplicateKmsSigner(address signer);
    error NotKmsSigner(address caller);
    error KmsNodeAlreadySigned(uint256 decryptionId, address signer);
    error InvalidKmsSignature(uint256 decryptionId, address signer);
    error EmptyCtHandles();
    error EmptyCtHandleContractPairs();
    error EmptyContractAddresses();
    error PublicDecryptNotAllowed(bytes32 ctHandle);
    error UserDecryptNotAllowed(bytes32 ctHandle, address account);
    error ContractNotInContractAddresses(address contractAddress);
    error UserAddressInContractAddresses(address userAddress);
    error InvalidNullDurationDays();
    error MaxDurationDaysExceeded(uint256 maxValue, uint256 actualValue);
    error StartTimestampInFuture(uint256 currentTimestamp, uint256 startTimestamp);
    error UserDecryptionRequestExpired(uint256 currentTimestamp, uint256 expiredAt);
    error NullAclAddress();
    error EmptyHandles();
    error ContractAddressesMaxLengthExceeded(uint256 maxLength, uint256 actualLength);
    error InvalidNullDurationSeconds();
    error MaxDurationSecondsExceeded(uint256 maxValue, uint256 actualValue);
    error UserDecryptionRequestExpiredSeconds(uint256 currentTimestamp, RequestValiditySeconds requestValidity);
    /// @notice delegator has not authorised delegate (or no longer does) to user-decrypt ctHandle
    /// in contractAddress on the host ACL.
    error UserDecryptNotDelegated(address delegator, address delegate, address contractAddress, bytes32 ctHandle);

    modifier onlyKmsSigner() {
        if (!isKmsSigner[msg.sender]) {
            revert NotKmsSigner(msg.sender);
        }
        _;
    }

    constructor(address[] memory kmsSigners_, uint256 threshold_, address acl_) {
        if (acl_ == address(0)) {
            revert NullAclAddress();
        }
        if (kmsSigners_.length == 0) {
            revert EmptyKmsSigners();
        }
        if (threshold_ == 0 || threshold_ > kmsSigners_.length) {
            revert InvalidThreshold(threshold_, kmsSigners_.length);
        }
        for (uint256 i = 0; i < kmsSigners_.length; i++) {
            if (isKmsSigner[kmsSigners_[i]]) {
                revert DuplicateKmsSigner(kmsSigners_[i]);
            }
            isKmsSigner[kmsSigners_[i]] = true;
        }
        _kmsSigners = kmsSigners_;
        threshold = threshold_;
        acl = acl_;
    }

    // ---------------------------------------------------------------- requests

    /// @notice Requests the public decryption of ctHandles; emits PublicDecryptionRequest.
    function publicDecryptionRequest(bytes32[] calldata ctHandles, bytes calldata extraData) external whenNotPaused {
        if (ctHandles.length == 0) {
            revert EmptyCtHandles();
        }
        for (uint256 i = 0; i < ctHandles.length; i++) {
            uint8 s = TestScenarios.ofHandle(ctHandles[i]);
            if (s == TestScenarios.GATEWAY_REVERT) {
                revert TestScenarioRevert();
            }
            if (s == TestScenarios.DENIED) {
                revert PublicDecryptNotAllowed(ctHandles[i]);
            }
            _see(ctHandles[i], s);
        }
        uint256 id = ++publicDecryptionCounter;
        _requested[id] = true;
        _publicHandles[id] = ctHandles;
        emit PublicDecryptionRequest(id, ctHandles, extraData);
    }

    /// @notice Requests the decryption of handles for userAddress, re-encrypted under publicKey;
    /// emits UserDecryptionRequest. The user's signature is recorded by the caller's transaction
    /// but not verified by this development contract.
    function userDecryptionRequest(
        CtHandleContractPair[] calldata ctHandleContractPairs,
        RequestValidity calldata requestValidity,
        ContractsInfo calldata contractsInfo,
        address userAddress,
        bytes calldata publicKey,
        bytes calldata signature,
        bytes calldata extraData
    ) external whenNotPaused {
        signature; // accepted as is: signature checks belong to the relayer and the KMS here
        _checkValidity(requestValidity);
        bytes32[] memory ctHandles = _checkPairs(ctHandleContractPairs, contractsInfo.addresses, userAddress);
        uint256 id = _newUserRequest(publicKey, ctHandles);
        emit UserDecryptionRequest(id, ctHandles, userAddress, publicKey, extraData);
    }

    /// @notice Requests the decryption of handles of delegationAccounts.delegatorAddress for its
    /// delegate, re-encrypted under publicKey (the delegate's key); emits UserDecryptionRequest
    /// with the delegate as userAddress. The checks are userDecryptionRequest's, the delegator
    /// standing for the user, and every pair must be delegated on the host ACL
    /// (UserDecryptNotDelegated). The delegate's signature is not verified here.
    function delegatedUserDecryptionRequest(
        CtHandleContractPair[] calldata ctHandleContractPairs,
        RequestValidity calldata requestValidity,
        DelegationAccounts calldata delegationAccounts,
        ContractsInfo calldata contractsInfo,
        bytes calldata publicKey,
        bytes calldata signature,
        bytes calldata extraData
    ) external whenNotPaused {
        signature; // accepted as is: signature checks belong to the relayer and the KMS here
        _checkValidity(requestValidity);
        address delegator = delegationAccounts.delegatorAddress;
        address delegate = delegationAccounts.delegateAddress;
        bytes32[] memory ctHandles = _checkPairs(ctHandleContractPairs, contractsInfo.addresses, delegator);
        for (uint256 i = 0; i < ctHandleContractPairs.length; i++) {
            CtHandleContractPair calldata p = ctHandleContractPairs[i];
            if (!IDelegationACL(acl).isHandleDelegatedForUserDecryption(delegator, delegate, p.contractAddress, p.ctHandle)) {
                revert UserDecryptNotDelegated(delegator, delegate, p.contractAddress, p.ctHandle);
            }
        }
        uint256 id = _newUserRequest(publicKey, ctHandles);
        emit UserDecryptionRequest(id, ctHandles, delegate, publicKey, extraData);
    }

    /// @notice Requests a unified user decryption of handles for userAddress, re-encrypted under
    /// publicKey; emits the unified UserDecryptionRequest. An entry whose owner is not the user
    /// must be delegated to the user on the host ACL (UserDecryptNotDelegated). An empty
    /// allowedContracts allows any contract. The signature is not verified here: the relayer
    /// and the KMS verify it.
    function userDecryptionRequest(
        HandleEntry[] calldata handles,
        address userAddress,
        bytes calldata publicKey,
        address[] calldata allowedContracts,
        RequestValiditySeconds calldata requestValidity,
        bytes calldata signature,
        bytes calldata extraData
    ) external whenNotPaused {
        if (handles.length == 0) {
            revert EmptyHandles();
        }
        if (allowedContracts.length > MAX_USER_DECRYPT_CONTRACT_ADDRESSES) {
            revert ContractAddressesMaxLengthExceeded(MAX_USER_DECRYPT_CONTRACT_ADDRESSES, allowedContracts.length);
        }
        _checkValiditySeconds(requestValidity);
        // One memory struct keeps the emit within the stack's reach.
        UserDecryptionRequestPayload memory payload;
        payload.userAddress = userAddress;
        payload.publicKey = publicKey;
        payload.allowedContracts = allowedContracts;
        payload.requestValidity = requestValidity;
        payload.extraData = extraData;
        payload.signature = signature;
        _unifiedUserDecryptionRequest(handles, payload);
    }

    /// @notice Records the chain time at which scenario-04 handles were first seen; other handles
    /// are ignored. Open to anyone: this is a development helper (the devchain calls it through
    /// InputVerification when a proof is accepted, and tests call it to "create" a handle).
    function registerHandles(bytes32[] calldata ctHandles) external {
        for (uint256 i = 0; i < ctHandles.length; i++) {
            _see(ctHandles[i], TestScenarios.ofHandle(ctHandles[i]));
        }
    }

    // --------------------------------------------------------------- responses

    /// @notice A KMS signer's answer to a public decryption; see the contract notice.
    function publicDecryptionResponse(
        uint256 decryptionId,
        bytes calldata decryptedResult,
        bytes calldata signature,
        bytes calldata extraData
    ) external onlyKmsSigner {
        _checkResponse(decryptionId, PUBLIC_DECRYPT_COUNTER_BASE);
        bytes32 digest = publicDecryptionDigest(_publicHandles[decryptionId], decryptedResult, extraData);
        if (recoverSigner(digest, signature) != msg.sender) {
            revert InvalidKmsSignature(decryptionId, msg.sender);
        }
        if (isDecryptionDone[decryptionId]) {
            return; // a late answer: accepted, nothing more to do
        }
        bytes[] storage sigs = _publicSignatures[decryptionId][digest];
        sigs.push(signature);
        if (sigs.length == threshold) {
            isDecryptionDone[decryptionId] = true;
            emit PublicDecryptionResponse(decryptionId, decryptedResult, sigs, extraData);
        }
    }

    /// @notice A KMS signer's share of a user decryption; see the contract notice.
    function userDecryptionResponse(
        uint256 decryptionId,
        bytes calldata userDecryptedShare,
        bytes calldata signature,
        bytes calldata extraData
    ) external onlyKmsSigner {
        _checkResponse(decryptionId, USER_DECRYPT_COUNTER_BASE);
        UserRequest storage req = _userRequests[decryptionId];
        bytes32 digest = userDecryptionDigest(req.publicKey, req.ctHandles, userDecryptedShare, extraData);
        if (recoverSigner(digest, signature) != msg.sender) {
            revert InvalidKmsSignature(decryptionId, msg.sender);
        }
        uint256 index = userDecryptionShareCount[decryptionId]++;
        emit UserDecryptionResponse(decryptionId, index, msg.sender, userDecryptedShare, signature, extraData);
        if (index + 1 == threshold) {
            isDecryptionDone[decryptionId] = true;
            emit UserDecryptionResponseThresholdReached(decryptionId);
        }
    }

    // ------------------------------------------------------------------- views

    /// @notice Whether every handle can be publicly decrypted now (false for an empty list).
    function isPublicDecryptionReady(bytes32[] calldata ctHandles, bytes calldata extraData) external view returns (bool) {
        extraData;
        if (ctHandles.length == 0) {
            return false;
        }
        for (uint256 i = 0; i < ctHandles.length; i++) {
            if (!_ready(ctHandles[i])) {
                return false;
            }
        }
        return true;
    }

    /// @notice Whether every handle can be decrypted for userAddress now (false for an empty list).
    function isUserDecryptionReady(
        address userAddress,
        CtHandleContractPair[] calldata ctHandleContractPairs,
        bytes calldata extraData
    ) external view returns (bool) {
        userAddress;
        extraData;
        return _pairsReady(ctHandleContractPairs);
    }

    /// @notice Whether every handle can be decrypted for the delegation's delegate now (false for
    /// an empty list): the same answer as isUserDecryptionReady. The protocol gateway's signature
    /// ((address,address),(bytes32,address)[],bytes), so the relayer asks a real gateway the same.
    function isDelegatedUserDecryptionReady(
        DelegationAccounts calldata delegationAccounts,
        CtHandleContractPair[] calldata ctHandleContractPairs,
        bytes calldata extraData
    ) external view returns (bool) {
        delegationAccounts;
        extraData;
        return _pairsReady(ctHandleContractPairs);
    }

    /// @notice The registered KMS signers, in registration order.
    function kmsSigners() external view returns (address[] memory) {
        return _kmsSigners;
    }

    /// @notice What a KMS signer signs to answer a public decryption of ctHandles: the EIP-712
    /// digest of PublicDecryptVerification(ctHandles, decryptedResult, extraData) under this
    /// contract's domain.
    function publicDecryptionDigest(
        bytes32[] memory ctHandles,
        bytes memory decryptedResult,
        bytes memory extraData
    ) public view returns (bytes32) {
        return _hashTypedData(
            abi.encode(
                PUBLIC_DECRYPT_VERIFICATION_TYPEHASH,
                _hashHandles(ctHandles),
                keccak256(decryptedResult),
                keccak256(extraData)
            )
        );
    }

    /// @notice What a KMS signer signs to answer a user decryption of ctHandles under publicKey
    /// with its share: the EIP-712 digest of UserDecryptResponseVerification(publicKey,
    /// ctHandles, userDecryptedShare, extraData) under this contract's domain.
    function userDecryptionDigest(
        bytes memory publicKey,
        bytes32[] memory ctHandles,
        bytes memory userDecryptedShare,
        bytes memory extraData
    ) public view returns (bytes32) {
        return _hashTypedData(
            abi.encode(
                USER_DECRYPT_RESPONSE_VERIFICATION_TYPEHASH,
                keccak256(publicKey),
                _hashHandles(ctHandles),
                keccak256(userDecryptedShare),
                keccak256(extraData)
            )
        );
    }

    // ---------------------------------------------------------------- internal

    function _eip712Name() internal pure override returns (string memory) {
        return "Decryption";
    }

    function _checkValidity(RequestValidity calldata v) private view {
        if (v.durationDays == 0) {
            revert InvalidNullDurationDays();
        }
        if (v.durationDays > MAX_USER_DECRYPT_DURATION_DAYS) {
            revert MaxDurationDaysExceeded(MAX_USER_DECRYPT_DURATION_DAYS, v.durationDays);
        }
        if (v.startTimestamp > block.timestamp) {
            revert StartTimestampInFuture(block.timestamp, v.startTimestamp);
        }
        uint256 expiredAt = v.startTimestamp + v.durationDays * 1 days;
        if (expiredAt < block.timestamp) {
            revert UserDecryptionRequestExpired(block.timestamp, expiredAt);
        }
    }

    function _checkValiditySeconds(RequestValiditySeconds calldata v) private view {
        if (v.durationSeconds == 0) {
            revert InvalidNullDurationSeconds();
        }
        if (v.durationSeconds > MAX_USER_DECRYPT_DURATION_SECONDS) {
            revert MaxDurationSecondsExceeded(MAX_USER_DECRYPT_DURATION_SECONDS, v.durationSeconds);
        }
        if (v.startTimestamp > block.timestamp) {
            revert StartTimestampInFuture(block.timestamp, v.startTimestamp);
        }
        if (v.startTimestamp + v.durationSeconds < block.timestamp) {
            revert UserDecryptionRequestExpiredSeconds(block.timestamp, v);
        }
    }

    function _unifiedUserDecryptionRequest(
        HandleEntry[] calldata handles,
        UserDecryptionRequestPayload memory payload
    ) private {
        bytes32[] memory ctHandles = new bytes32[](handles.length);
        for (uint256 i = 0; i < handles.length; i++) {
            HandleEntry calldata e = handles[i];
            uint8 s = TestScenarios.ofHandle(e.handle);
            if (s == TestScenarios.GATEWAY_REVERT) {
                revert TestScenarioRevert();
            }
            if (s == TestScenarios.DENIED) {
                revert UserDecryptNotAllowed(e.handle, e.ownerAddress);
            }
            if (
                e.ownerAddress != payload.userAddress &&
                !IDelegationACL(acl).isHandleDelegatedForUserDecryption(
                    e.ownerAddress,
                    payload.userAddress,
                    e.contractAddress,
                    e.handle
                )
            ) {
                revert UserDecryptNotDelegated(e.ownerAddress, payload.userAddress, e.contractAddress, e.handle);
            }
            _see(e.handle, s);
            ctHandles[i] = e.handle;
        }
        uint256 id = _newUserRequest(payload.publicKey, ctHandles);
        emit UserDecryptionRequest(id, handles, payload);
    }

    /// @dev Issues the next user decryption id and records its request: the public key the
    /// shares are for and the handles; the caller announces it.
    function _newUserRequest(bytes memory publicKey, bytes32[] memory ctHandles) private returns (uint256 id) {
        id = ++userDecryptionCounter;
        _requested[id] = true;
        _userRequests[id] = UserRequest(publicKey, ctHandles);
    }

    function _checkPairs(
        CtHandleContractPair[] calldata pairs,
        address[] calldata contracts,
        address userAddress
    ) private returns (bytes32[] memory ctHandles) {
        if (pairs.length == 0) {
            revert EmptyCtHandleContractPairs();
        }
        if (contracts.length == 0) {
            revert EmptyContractAddresses();
        }
        if (_contains(contracts, userAddress)) {
            revert UserAddressInContractAddresses(userAddress);
        }
        ctHandles = new bytes32[](pairs.length);
        for (uint256 i = 0; i < pairs.length; i++) {
            bytes32 h = pairs[i].ctHandle;
            if (!_contains(contracts, pairs[i].contractAddress)) {
                revert ContractNotInContractAddresses(pairs[i].contractAddress);
            }
            uint8 s = TestScenarios.ofHandle(h);
            if (s == TestScenarios.GATEWAY_REVERT) {
                revert TestScenarioRevert();
            }
            if (s == TestScenarios.DENIED) {
                revert UserDecryptNotAllowed(h, userAddress);
            }
            _see(h, s);
            ctHandles[i] = h;
        }
    }

    function _checkResponse(uint256 decryptionId, uint256 kindBase) private {
        if (!_requested[decryptionId] || (decryptionId >> 248) != (kindBase >> 248)) {
            revert UnknownRequest(decryptionId);
        }
        if (_responded[decryptionId][msg.sender]) {
            revert KmsNodeAlreadySigned(decryptionId, msg.sender);
        }
        _responded[decryptionId][msg.sender] = true;
    }

    function _see(bytes32 h, uint8 scenario) private {
        if (scenario == TestScenarios.READY_AFTER_DELAY && handleFirstSeen[h] == 0) {
            handleFirstSeen[h] = block.timestamp;
            emit HandleRegistered(h, block.timestamp);
        }
    }

    function _pairsReady(CtHandleContractPair[] calldata pairs) private view returns (bool) {
        if (pairs.length == 0) {
            return false;
        }
        for (uint256 i = 0; i < pairs.length; i++) {
            if (!_ready(pairs[i].ctHandle)) {
                return false;
            }
        }
        return true;
    }

    function _ready(bytes32 h) private view returns (bool) {
        uint8 s = TestScenarios.ofHandle(h);
        if (s == TestScenarios.DENIED || s == TestScenarios.NEVER_READY) {
            return false;
        }
        if (s == TestScenarios.READY_AFTER_DELAY) {
            uint256 seen = handleFirstSeen[h];
            return seen != 0 && block.timestamp >= seen + TestScenarios.READY_DELAY;
        }
        return true;
    }

    function _contains(address[] calldata list, address a) private pure returns (bool) {
        for (uint256 i = 0; i < list.length; i++) {
            if (list[i] == a) {
                return true;
            }
        }
        return false;
    }
}
