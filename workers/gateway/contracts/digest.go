package contracts

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// What KMS nodes and coprocessors sign is EIP-712 typed data, as the public client SDK
// verifies it: keccak256("\x19\x01" || domainSeparator || hashStruct(message)), the domain being
// {name, version "1", chainId, verifyingContract} of the gateway contract that checks it.

// Domain names of the gateway contracts, and the version they share.
const (
	DecryptionDomainName        = "Decryption"
	InputVerificationDomainName = "InputVerification"
	DomainVersion               = "1"
)

// The EIP-712 type hashes: the domain's, then the messages' (the contracts' *_TYPEHASH constants).
var (
	EIP712DomainTypeHash                    = crypto.Keccak256Hash([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"))
	CiphertextVerificationTypeHash          = crypto.Keccak256Hash([]byte("CiphertextVerification(bytes32[] ctHandles,address userAddress,address contractAddress,uint256 contractChainId,bytes extraData)"))
	PublicDecryptVerificationTypeHash       = crypto.Keccak256Hash([]byte("PublicDecryptVerification(bytes32[] ctHandles,bytes decryptedResult,bytes extraData)"))
	UserDecryptResponseVerificationTypeHash = crypto.Keccak256Hash([]byte("UserDecryptResponseVerification(bytes publicKey,bytes32[] ctHandles,bytes userDecryptedShare,bytes extraData)"))
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

// Domain is an EIP-712 domain of a gateway contract: {Name, version "1", ChainID,
// VerifyingContract}.
type Domain struct {
	Name              string
	ChainID           *big.Int
	VerifyingContract common.Address
}

// DecryptionDomain is the domain of the Decryption contract at decryption on chain chainID.
func DecryptionDomain(chainID *big.Int, decryption common.Address) Domain {
	return Domain{Name: DecryptionDomainName, ChainID: chainID, VerifyingContract: decryption}
}

// InputVerificationDomain is the domain of the InputVerification contract at inputVerification
// on chain chainID.
func InputVerificationDomain(chainID *big.Int, inputVerification common.Address) Domain {
	return Domain{Name: InputVerificationDomainName, ChainID: chainID, VerifyingContract: inputVerification}
}

// Separator is the EIP-712 domain separator, hashStruct(EIP712Domain).
func (d Domain) Separator() common.Hash {
	return crypto.Keccak256Hash(
		EIP712DomainTypeHash[:],
		crypto.Keccak256([]byte(d.Name)),
		crypto.Keccak256([]byte(DomainVersion)),
		word(d.ChainID),
		common.LeftPadBytes(d.VerifyingContract[:], 32),
	)
}

// Digest is what is signed for a message whose hashStruct is structHash under d:
// keccak256("\x19\x01" || d.Separator() || structHash).
func (d Domain) Digest(structHash common.Hash) common.Hash {
	sep := d.Separator()
	return crypto.Keccak256Hash([]byte{0x19, 0x01}, sep[:], structHash[:])
}

// VerifyProofDigest is what a coprocessor signs to accept an input proof with handles
// (InputVerification.verifyProofDigest): the EIP-712 digest of CiphertextVerification(ctHandles,
// userAddress, contractAddress, contractChainId, extraData) under the InputVerification domain.
// user, contract, contractChainID and extraData are the proof request's: the client SDK checks
// the signatures with the extraData it sent.
func VerifyProofDigest(chainID *big.Int, inputVerification common.Address, handles [][32]byte,
	user, contract common.Address, contractChainID *big.Int, extraData []byte) common.Hash {
	return InputVerificationDomain(chainID, inputVerification).Digest(crypto.Keccak256Hash(
		CiphertextVerificationTypeHash[:],
		hashHandles(handles),
		common.LeftPadBytes(user[:], 32),
		common.LeftPadBytes(contract[:], 32),
		word(contractChainID),
		crypto.Keccak256(extraData),
	))
}

// PublicDecryptionDigest is what a KMS signer signs to answer a public decryption of handles
// (the request's, in order) with result (Decryption.publicDecryptionDigest): the EIP-712 digest of
// PublicDecryptVerification(ctHandles, decryptedResult, extraData) under the Decryption domain.
// extraData is the response's; the client SDK verifies with an empty one.
func PublicDecryptionDigest(chainID *big.Int, decryption common.Address, handles [][32]byte, result, extraData []byte) common.Hash {
	return DecryptionDomain(chainID, decryption).Digest(crypto.Keccak256Hash(
		PublicDecryptVerificationTypeHash[:],
		hashHandles(handles),
		crypto.Keccak256(result),
		crypto.Keccak256(extraData),
	))
}

// UserDecryptionDigest is what a KMS signer signs to send share for a user decryption of
// handles under publicKey (the request's) (Decryption.userDecryptionDigest): the EIP-712 digest
// of UserDecryptResponseVerification(publicKey, ctHandles, userDecryptedShare, extraData) under
// the Decryption domain. extraData is the response's.
func UserDecryptionDigest(chainID *big.Int, decryption common.Address, publicKey []byte, handles [][32]byte, share, extraData []byte) common.Hash {
	return DecryptionDomain(chainID, decryption).Digest(crypto.Keccak256Hash(
		UserDecryptResponseVerificationTypeHash[:],
		crypto.Keccak256(publicKey),
		hashHandles(handles),
		crypto.Keccak256(share),
		crypto.Keccak256(extraData),
	))
}

// hashHandles is the EIP-712 encoding of a bytes32[]: keccak256 of the elements, concatenated.
func hashHandles(handles [][32]byte) []byte {
	packed := make([]byte, 0, 32*len(handles))
	for _, h := range handles {
		packed = append(packed, h[:]...)
	}
	return crypto.Keccak256(packed)
}

// word is the 32-byte big-endian encoding of a uint256 (nil is 0).
func word(n *big.Int) []byte {
	if n == nil {
		return make([]byte, 32)
	}
	return common.LeftPadBytes(n.Bytes(), 32)
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
