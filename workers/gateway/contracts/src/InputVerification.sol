// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {GatewayBase} from "./GatewayBase.sol";
import {recoverSigner} from "./Signatures.sol";
import {TestScenarios} from "./TestScenarios.sol";

/// @notice The part of Decryption that InputVerification calls when a proof is accepted.
interface IHandleRegistry {
    function registerHandles(bytes32[] calldata ctHandles) external;
}

/// @title Development gateway InputVerification contract.
/// @notice A minimal contract with the public gateway's interface for input-proof verification.
/// Registered coprocessors answer a VerifyProofRequest; a majority (more than half of them)
/// decides: when a majority has sent verifyProofResponse with the same handles,
/// VerifyProofResponse is emitted once with their signatures; when a majority has sent
/// rejectProofResponse, RejectProofResponse is emitted once. Answers after the decision are
/// accepted and change nothing. zkProofIds are a plain counter from 1.
///
/// A coprocessor signature is the secp256k1 signature, by the responding coprocessor's own key,
/// of the EIP-712 typed data CiphertextVerification(bytes32[] ctHandles, address userAddress,
/// address contractAddress, uint256 contractChainId, bytes extraData) under the domain
/// {name "InputVerification", version "1", this chain, this contract} (verifyProofDigest): the
/// handles are the response's, the rest is the request's, extraData included, so that a client
/// SDK checks the signatures with what it sent.
contract InputVerification is GatewayBase {
    /// @notice What a proof request said, kept for the signatures of its answers.
    struct ProofRequest {
        uint256 contractChainId;
        address contractAddress;
        address userAddress;
        bytes extraData;
    }

    bytes32 public constant CIPHERTEXT_VERIFICATION_TYPEHASH = keccak256(
        "CiphertextVerification(bytes32[] ctHandles,address userAddress,address contractAddress,uint256 contractChainId,bytes extraData)"
    );

    /// @notice The last zkProofId issued (0 before the first).
    uint256 public zkProofCounter;
    /// @notice Where accepted handles are registered (the Decryption contract), or address(0).
    IHandleRegistry public immutable handleRegistry;
    /// @notice Whether an address is a registered coprocessor.
    mapping(address => bool) public isCoprocessor;
    /// @notice Whether a proof request has been decided (verified or rejected).
    mapping(uint256 => bool) public isProofDecided;

    address[] private _coprocessors;
    mapping(uint256 => bool) private _requested;
    mapping(uint256 => ProofRequest) private _proofRequests;
    mapping(uint256 => mapping(address => bool)) private _responded;
    mapping(uint256 => mapping(bytes32 => bytes[])) private _verifySignatures;
    mapping(uint256 => uint256) private _rejections;

    /// @notice An input proof was submitted for verification.
    event VerifyProofRequest(
        uint256 indexed zkProofId,
        uint256 indexed contractChainId,
        address contractAddress,
        address userAddress,
        bytes ciphertextWithZKProof,
        bytes extraData
    );
    /// @notice A majority of coprocessors verified the proof; ctHandles are the input's handles.
    event VerifyProofResponse(uint256 indexed zkProofId, bytes32[] ctHandles, bytes[] signatures, bytes extraData);
    /// @notice A majority of coprocessors rejected the proof.
    event RejectProofResponse(uint256 indexed zkProofId);

    error EmptyCoprocessors();
    error DuplicateCoprocessor(address coprocessor);
    error NotCoprocessor(address caller);
    error CoprocessorAlreadyResponded(uint256 zkProofId, address coprocessor);
    error InvalidCoprocessorSignature(uint256 zkProofId, address coprocessor);
    error EmptyCiphertext();
    error EmptyCtHandles();

    modifier onlyCoprocessor() {
        if (!isCoprocessor[msg.sender]) {
            revert NotCoprocessor(msg.sender);
        }
        _;
    }

    constructor(address[] memory coprocessors_, IHandleRegistry handleRegistry_) {
        if (coprocessors_.length == 0) {
            revert EmptyCoprocessors();
        }
        for (uint256 i = 0; i < coprocessors_.length; i++) {
            if (isCoprocessor[coprocessors_[i]]) {
                revert DuplicateCoprocessor(coprocessors_[i]);
            }
            isCoprocessor[coprocessors_[i]] = true;
        }
        _coprocessors = coprocessors_;
        handleRegistry = handleRegistry_;
    }

    /// @notice Submits an input ciphertext with its zero-knowledge proof; emits VerifyProofRequest.
    function verifyProofRequest(
        uint256 contractChainId,
        address contractAddress,
        address userAddress,
        bytes calldata ciphertextWithZKProof,
        bytes calldata extraData
    ) external whenNotPaused {
        if (ciphertextWithZKProof.length == 0) {
            revert EmptyCiphertext();
        }
        if (TestScenarios.ofCiphertext(ciphertextWithZKProof) == TestScenarios.GATEWAY_REVERT) {
            revert TestScenarioRevert();
        }
        uint256 id = ++zkProofCounter;
        _requested[id] = true;
        _proofRequests[id] = ProofRequest(contractChainId, contractAddress, userAddress, extraData);
        emit VerifyProofRequest(id, contractChainId, contractAddress, userAddress, ciphertextWithZKProof, extraData);
    }

    /// @notice A coprocessor's acceptance of a proof, with the handles it computed. signature is
    /// over the request's user, contract, contract chain and extraData (see the contract notice);
    /// extraData is the response's own, carried to VerifyProofResponse.
    function verifyProofResponse(
        uint256 zkProofId,
        bytes32[] calldata ctHandles,
        bytes calldata signature,
        bytes calldata extraData
    ) external onlyCoprocessor {
        _checkResponse(zkProofId);
        if (ctHandles.length == 0) {
            revert EmptyCtHandles();
        }
        ProofRequest storage req = _proofRequests[zkProofId];
        bytes32 digest =
            verifyProofDigest(ctHandles, req.userAddress, req.contractAddress, req.contractChainId, req.extraData);
        if (recoverSigner(digest, signature) != msg.sender) {
            revert InvalidCoprocessorSignature(zkProofId, msg.sender);
        }
        if (isProofDecided[zkProofId]) {
            return;
        }
        bytes[] storage sigs = _verifySignatures[zkProofId][keccak256(abi.encodePacked(ctHandles))];
        sigs.push(signature);
        if (sigs.length == majority()) {
            isProofDecided[zkProofId] = true;
            if (address(handleRegistry) != address(0)) {
                handleRegistry.registerHandles(ctHandles);
            }
            emit VerifyProofResponse(zkProofId, ctHandles, sigs, extraData);
        }
    }

    /// @notice A coprocessor's rejection of a proof.
    function rejectProofResponse(uint256 zkProofId, bytes calldata extraData) external onlyCoprocessor {
        extraData;
        _checkResponse(zkProofId);
        if (isProofDecided[zkProofId]) {
            return;
        }
        if (++_rejections[zkProofId] == majority()) {
            isProofDecided[zkProofId] = true;
            emit RejectProofResponse(zkProofId);
        }
    }

    /// @notice How many agreeing coprocessors decide a proof: more than half of them.
    function majority() public view returns (uint256) {
        return _coprocessors.length / 2 + 1;
    }

    /// @notice The registered coprocessors, in registration order.
    function coprocessors() external view returns (address[] memory) {
        return _coprocessors;
    }

    /// @notice What a coprocessor signs to accept a proof: the EIP-712 digest of
    /// CiphertextVerification(ctHandles, userAddress, contractAddress, contractChainId, extraData)
    /// under this contract's domain.
    function verifyProofDigest(
        bytes32[] memory ctHandles,
        address userAddress,
        address contractAddress,
        uint256 contractChainId,
        bytes memory extraData
    ) public view returns (bytes32) {
        return _hashTypedData(
            abi.encode(
                CIPHERTEXT_VERIFICATION_TYPEHASH,
                _hashHandles(ctHandles),
                userAddress,
                contractAddress,
                contractChainId,
                keccak256(extraData)
            )
        );
    }

    function _eip712Name() internal pure override returns (string memory) {
        return "InputVerification";
    }

    function _checkResponse(uint256 zkProofId) private {
        if (!_requested[zkProofId]) {
            revert UnknownRequest(zkProofId);
        }
        if (_responded[zkProofId][msg.sender]) {
            revert CoprocessorAlreadyResponded(zkProofId, msg.sender);
        }
        _responded[zkProofId][msg.sender] = true;
    }
}
