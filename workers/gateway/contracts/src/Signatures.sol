// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @dev The address whose key made the 65-byte [r || s || v] secp256k1 signature of digest
/// (v is 27/28, or 0/1 as go-ethereum's crypto.Sign makes it), or address(0) when the
/// signature is malformed or malleable (s in the upper half of the curve order, which
/// OpenZeppelin's ECDSA refuses). The one signature check of the gateway contracts and the
/// development wallet.
function recoverSigner(bytes32 digest, bytes calldata signature) pure returns (address) {
    if (signature.length != 65) {
        return address(0);
    }
    bytes32 r;
    bytes32 s;
    uint8 v;
    assembly {
        r := calldataload(signature.offset)
        s := calldataload(add(signature.offset, 32))
        v := byte(0, calldataload(add(signature.offset, 64)))
    }
    if (v < 27) {
        v += 27;
    }
    if (v != 27 && v != 28) {
        return address(0);
    }
    if (uint256(s) > 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0) {
        return address(0);
    }
    return ecrecover(digest, v, r, s);
}
