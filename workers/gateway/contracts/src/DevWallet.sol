// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {recoverSigner} from "./Signatures.sol";

/// @title Development ERC-1271 contract wallet.
/// @notice DEVELOPMENT ONLY: a smart-contract account with one owner key, so that the relayer's
/// check of a user-decrypt signature by an address with code (ERC-1271 isValidSignature) can be
/// tested on the development chain. It holds nothing and does nothing else.
///
/// isValidSignature(hash, signature) answers the ERC-1271 magic value 0x1626ba7e when signature
/// is the owner's 65-byte secp256k1 signature [r || s || v] of exactly hash (no prefix, no
/// re-hashing), v 27/28 (or 0/1, as go-ethereum's crypto.Sign makes it) and s in the lower half
/// of the curve order (OpenZeppelin's ECDSA refuses the malleable upper half). Anything else,
/// another length included, answers 0xffffffff: it never reverts on a bad signature.
contract DevWallet {
    /// @dev bytes4(keccak256("isValidSignature(bytes32,bytes)")): ERC-1271's "valid" answer.
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;
    /// @dev The answer for any signature that is not the owner's.
    bytes4 internal constant INVALID = 0xffffffff;

    /// @notice The key whose signatures the wallet accepts.
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice ERC-1271: 0x1626ba7e when signature is the owner's signature of hash, 0xffffffff
    /// otherwise.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        address signer = recoverSigner(hash, signature);
        if (signer == address(0) || signer != owner) {
            return INVALID;
        }
        return MAGIC_VALUE;
    }
}
