// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title An EIP-712 domain reported as EIP-5267 describes it, for the contracts that report one.
/// @notice The domain has fields 0x0f (name, version "1", chainId, verifyingContract), no salt
/// and no extensions; each contract says which name, chain and verifying contract it stands for.
abstract contract EIP5267 {
    /// @notice The EIP-712 domain (EIP-5267): fields 0x0f (name, version, chainId, verifyingContract).
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        (name, chainId, verifyingContract) = _eip712Domain();
        return (hex"0f", name, "1", chainId, verifyingContract, bytes32(0), new uint256[](0));
    }

    /// @dev The domain's name, chain id and verifying contract.
    function _eip712Domain() internal view virtual returns (string memory name, uint256 chainId, address verifyingContract);
}
