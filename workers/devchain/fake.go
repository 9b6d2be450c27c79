package devchain

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"relayer/workers/gateway/contracts"
)

// What the simulated KMS nodes and coprocessors answer is fake but deterministic, so that tests
// can assert it.

// Plaintext is the cleartext the simulated KMS "decrypts" handle to:
// keccak256("relayer/devchain/plaintext" || handle), cut to the width of the handle's FHE type
// (byte 30: ebool 0 gives 0 or 1, euint8 2 the low 8 bits, ..., eaddress 7 the low 160 bits,
// euint256 8 and unknown types all 256), so that a client decoding it by type (the public SDK's
// publicDecrypt) reads a value of that type.
func Plaintext(handle [32]byte) [32]byte {
	p := crypto.Keccak256Hash([]byte("relayer/devchain/plaintext"), handle[:])
	bits, known := plaintextBits[handle[30]]
	if !known {
		return p
	}
	keep := max(bits/8, 1)
	for i := 0; i < 32-keep; i++ {
		p[i] = 0
	}
	if bits == 1 {
		p[31] &= 1
	}
	return p
}

// plaintextBits is the width of each FHE type's cleartext, by type id.
var plaintextBits = map[byte]int{0: 1, 2: 8, 3: 16, 4: 32, 5: 64, 6: 128, 7: 160, 8: 256}

// PublicDecryptionResult is the decryptedResult every KMS node posts for a public decryption of
// handles: their Plaintexts, 32 bytes each, in request order (the ABI encoding of a tuple of
// uint256 cleartexts).
func PublicDecryptionResult(handles [][32]byte) []byte {
	out := make([]byte, 0, 32*len(handles))
	for _, h := range handles {
		p := Plaintext(h)
		out = append(out, p[:]...)
	}
	return out
}

// UserDecryptionShare is the share KMS node kmsIndex (from 0) posts for a user decryption of
// handles under publicKey: for each handle in request order, 32 bytes
// keccak256("relayer/devchain/share" || keccak256(publicKey) || handle || uint8(kmsIndex)).
// Shares of different nodes differ.
func UserDecryptionShare(handles [][32]byte, publicKey []byte, kmsIndex int) []byte {
	pk := crypto.Keccak256(publicKey)
	out := make([]byte, 0, 32*len(handles))
	for _, h := range handles {
		out = append(out, crypto.Keccak256([]byte("relayer/devchain/share"), pk, h[:], []byte{byte(kmsIndex)})...)
	}
	return out
}

// maxInputHandles bounds how many handles one input proof yields.
const maxInputHandles = 8

// InputHandles are the handles the simulated coprocessors compute for an input proof. For an
// input the public SDK encrypted (a tfhe-rs ProvenCompactCiphertextList), they are the handles the
// protocol derives from it with the host chain's ACL address acl (SDKInputHandles), which the SDK
// recomputes and checks. Any other ciphertext gets one handle per 32 bytes (at least 1, at most
// 8), each laid out as the protocol has it (hash, index, contractChainID in bytes 22..29, type
// euint64, version 0); when it carries a scenario (7e 57 XX first), so do its handles, so a client
// that decrypts the handles of an input it submitted meets the same scenario.
func InputHandles(acl common.Address, contractChainID *big.Int, contractAddress, userAddress common.Address, ciphertext []byte) [][32]byte {
	if contractChainID.IsUint64() {
		if handles, ok := SDKInputHandles(ciphertext, acl, contractChainID.Uint64()); ok {
			return handles
		}
	}
	n := min(max(len(ciphertext)/32, 1), maxInputHandles)
	hash := crypto.Keccak256Hash([]byte("relayer/devchain/input"), ciphertext,
		common.LeftPadBytes(contractChainID.Bytes(), 32), contractAddress[:], userAddress[:])
	scenario := contracts.ScenarioOfCiphertext(ciphertext)
	handles := make([][32]byte, n)
	for i := range handles {
		h := contracts.NewHandle(hash, uint8(i), contractChainID.Uint64(), contracts.FheTypeUint64)
		if scenario != contracts.ScenarioNone {
			h[0], h[1], h[2] = 0x7e, 0x57, byte(scenario)
		} else if h[0] == 0x7e && h[1] == 0x57 {
			h[0] = 0
		}
		handles[i] = h
	}
	return handles
}
