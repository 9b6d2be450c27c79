package contracts

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// The type hashes the contracts put first in what KMS nodes and coprocessors sign.
var (
	PublicDecryptionTypeHash = crypto.Keccak256Hash([]byte("PublicDecryptionResponse(uint256 decryptionId,bytes decryptedResult,bytes extraData)"))
	UserDecryptionTypeHash   = crypto.Keccak256Hash([]byte("UserDecryptionResponse(uint256 decryptionId,bytes userDecryptedShare,bytes extraData)"))
	VerifyProofTypeHash      = crypto.Keccak256Hash([]byte("VerifyProofResponse(uint256 zkProofId,bytes32[] ctHandles,bytes extraData)"))
)

// Request id layout of the Decryption contract: the kind in the top byte, a counter below.
var (
	PublicDecryptCounterBase = new(big.Int).Lsh(big.NewInt(1), 248)
	UserDecryptCounterBase   = new(big.Int).Lsh(big.NewInt(2), 248)
)

// DecryptionKind tells a public decryption id from a user decryption id.
type DecryptionKind int

const (
	DecryptionKindUnknown DecryptionKind = iota
	DecryptionKindPublic
	DecryptionKindUser
)

// DecryptionKindOf returns the kind a Decryption request id carries in its top byte.
func DecryptionKindOf(id *big.Int) DecryptionKind {
	if id == nil || id.Sign() <= 0 || id.BitLen() > 256 {
		return DecryptionKindUnknown
	}
	switch new(big.Int).Rsh(id, 248).Uint64() {
	case 1:
		return DecryptionKindPublic
	case 2:
		return DecryptionKindUser
	default:
		return DecryptionKindUnknown
	}
}

// PublicDecryptionDigest is what a KMS signer signs to answer public decryption decryptionID
// with result on the Decryption contract at decryption (Decryption.publicDecryptionDigest).
func PublicDecryptionDigest(chainID *big.Int, decryption common.Address, decryptionID *big.Int, result, extraData []byte) common.Hash {
	return typedDigest(PublicDecryptionTypeHash, chainID, decryption, decryptionID, crypto.Keccak256(result), extraData)
}

// UserDecryptionDigest is what a KMS signer signs to send share for user decryption
// decryptionID (Decryption.userDecryptionDigest).
func UserDecryptionDigest(chainID *big.Int, decryption common.Address, decryptionID *big.Int, share, extraData []byte) common.Hash {
	return typedDigest(UserDecryptionTypeHash, chainID, decryption, decryptionID, crypto.Keccak256(share), extraData)
}

// VerifyProofDigest is what a coprocessor signs to accept input proof zkProofID with handles
// (InputVerification.verifyProofDigest).
func VerifyProofDigest(chainID *big.Int, inputVerification common.Address, zkProofID *big.Int, handles [][32]byte, extraData []byte) common.Hash {
	packed := make([]byte, 0, 32*len(handles))
	for _, h := range handles {
		packed = append(packed, h[:]...)
	}
	return typedDigest(VerifyProofTypeHash, chainID, inputVerification, zkProofID, crypto.Keccak256(packed), extraData)
}

// typedDigest is keccak256(abi.encode(typeHash, chainId, contract, id, payloadHash, keccak256(extraData))).
func typedDigest(typeHash common.Hash, chainID *big.Int, contract common.Address, id *big.Int, payloadHash, extraData []byte) common.Hash {
	buf := make([]byte, 0, 6*32)
	buf = append(buf, typeHash[:]...)
	buf = append(buf, common.LeftPadBytes(chainID.Bytes(), 32)...)
	buf = append(buf, common.LeftPadBytes(contract[:], 32)...)
	buf = append(buf, common.LeftPadBytes(id.Bytes(), 32)...)
	buf = append(buf, payloadHash...)
	buf = append(buf, crypto.Keccak256(extraData)...)
	return crypto.Keccak256Hash(buf)
}

// SignDigest signs digest with key as the contracts expect: 65 bytes [r || s || v], v = 27 or 28.
func SignDigest(key *ecdsa.PrivateKey, digest common.Hash) ([]byte, error) {
	sig, err := crypto.Sign(digest[:], key)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return sig, nil
}

// RecoverSigner returns the address whose key made sig (as SignDigest makes it) over digest.
func RecoverSigner(digest common.Hash, sig []byte) (common.Address, error) {
	if len(sig) != crypto.SignatureLength {
		return common.Address{}, fmt.Errorf("signature is %d bytes, want %d", len(sig), crypto.SignatureLength)
	}
	s := make([]byte, len(sig))
	copy(s, sig)
	if s[64] >= 27 {
		s[64] -= 27
	}
	if s[64] > 1 {
		return common.Address{}, errors.New("signature recovery id is not 27 or 28")
	}
	pub, err := crypto.SigToPub(digest[:], s)
	if err != nil {
		return common.Address{}, err
	}
	return crypto.PubkeyToAddress(*pub), nil
}
