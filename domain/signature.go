package domain

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
)

// This file holds the pure half of admission: the EIP-712 typed data a user (or a delegate)
// signs for a user decryption, exactly as the public client SDK builds it, and the recovery of
// the address that signed it. What needs a chain (a contract wallet's ERC-1271 verdict, the
// chain's time) is the caller's.
//
// The typed data, as the SDK's KmsEIP712 class builds it:
//
//	domain  {name "Decryption", version "1", chainId: the host chain (contractsChainId),
//	         verifyingContract: the gateway's Decryption contract}
//	UserDecryptRequestVerification(bytes publicKey,address[] contractAddresses,
//	    uint256 startTimestamp,uint256 durationDays,bytes extraData)
//	DelegatedUserDecryptRequestVerification(bytes publicKey,address[] contractAddresses,
//	    address delegatorAddress,uint256 startTimestamp,uint256 durationDays,bytes extraData)
//
// The unified request (POST /v3/user-decrypt) is signed under the same domain, its chainId being
// the host chain of its handles, as
//
//	UserDecryptRequestVerification(address userAddress,bytes publicKey,address[] allowedContracts,
//	    uint256 startTimestamp,uint256 durationSeconds,bytes extraData)
//
// (the same primary type name with other members: the type hash tells them apart).
//
// The digest signed is keccak256("\x19\x01" || domainSeparator || hashStruct(message)).

var (
	eip712DomainTypeHash = keccak256([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"))
	userDecryptTypeHash  = keccak256([]byte("UserDecryptRequestVerification(bytes publicKey,address[] contractAddresses,uint256 startTimestamp,uint256 durationDays,bytes extraData)"))
	delegatedTypeHash    = keccak256([]byte("DelegatedUserDecryptRequestVerification(bytes publicKey,address[] contractAddresses,address delegatorAddress,uint256 startTimestamp,uint256 durationDays,bytes extraData)"))
	unifiedTypeHash      = keccak256([]byte("UserDecryptRequestVerification(address userAddress,bytes publicKey,address[] allowedContracts,uint256 startTimestamp,uint256 durationSeconds,bytes extraData)"))
	decryptionNameHash   = keccak256([]byte("Decryption"))
	domainVersionHash    = keccak256([]byte("1"))
)

// SignedRequest is what admission checks of a request that carries a user's signature: the
// EIP-712 digest that was signed, the signature, and who must have signed it.
type SignedRequest struct {
	// Digest is the EIP-712 digest of the request's typed data.
	Digest [32]byte
	// Signature is the 65-byte signature (r || s || v) as the request carries it.
	Signature []byte
	// Signer is the address that must have signed: userAddress, or delegateAddress for a
	// delegated user decryption (lowercase, 0x).
	Signer string
	// SignerField is the field that names the signer ("userAddress", "delegateAddress",
	// "attestedPayload.userAddress").
	SignerField string
	// ChainID is the host chain, the domain's chainId.
	ChainID uint64
}

// SignedPart returns what the user signed in r, under the Decryption contract at decryption
// (an address, 0x + 40 hex, any case); ok is false for the kinds that carry no user signature
// (input proofs and public decrypts). r must be as the Parse functions return it.
func SignedPart(r Request, decryption string) (sr SignedRequest, ok bool, err error) {
	verifying, err := addressBytes(decryption)
	if err != nil {
		return SignedRequest{}, false, fmt.Errorf("decryption contract: %w", err)
	}
	var (
		typeHash    [32]byte
		chainID     uint64
		contracts   []string
		delegator   string
		start, days uint64
		sig, pk     string
		extra       string
	)
	switch {
	case r.UnifiedUserDecrypt != nil:
		return unifiedSignedPart(*r.UnifiedUserDecrypt, verifying)
	case r.UserDecrypt != nil:
		u := r.UserDecrypt
		typeHash, chainID, contracts = userDecryptTypeHash, u.ContractsChainID, u.ContractAddresses
		start, days = u.RequestValidity.StartTimestamp, u.RequestValidity.DurationDays
		sig, pk, extra = u.Signature, u.PublicKey, u.ExtraData
		sr.Signer, sr.SignerField = u.UserAddress, "userAddress"
	case r.DelegatedUserDecrypt != nil:
		d := r.DelegatedUserDecrypt
		typeHash, chainID, contracts = delegatedTypeHash, d.ContractsChainID, d.ContractAddresses
		delegator = d.DelegatorAddress
		start, days = d.StartTimestamp, d.DurationDays
		sig, pk, extra = d.Signature, d.PublicKey, d.ExtraData
		sr.Signer, sr.SignerField = d.DelegateAddress, "delegateAddress"
	default:
		return SignedRequest{}, false, nil
	}
	pkBytes, extraBytes, err := decodeSignedHex(&sr, pk, extra, sig)
	if err != nil {
		return SignedRequest{}, false, err
	}

	// hashStruct(message): the type hash, then each member as one 32-byte word.
	words := make([]byte, 0, 7*32)
	words = append(words, typeHash[:]...)
	h := keccak256(pkBytes)
	words = append(words, h[:]...)
	if h, err = hashAddresses("contractAddresses", contracts); err != nil {
		return SignedRequest{}, false, err
	}
	words = append(words, h[:]...)
	if delegator != "" {
		a, err := addressBytes(delegator)
		if err != nil {
			return SignedRequest{}, false, fmt.Errorf("delegatorAddress: %w", err)
		}
		words = appendAddress(words, a)
	}
	words = appendUint256(words, start)
	words = appendUint256(words, days)
	h = keccak256(extraBytes)
	words = append(words, h[:]...)
	sr.ChainID = chainID
	sr.Digest = typedDataDigest(chainID, verifying, keccak256(words))
	return sr, true, nil
}

// unifiedSignedPart is SignedPart of a unified user decrypt.
func unifiedSignedPart(u UnifiedUserDecryptRequest, verifying [20]byte) (SignedRequest, bool, error) {
	sr := SignedRequest{Signer: u.UserAddress, SignerField: "attestedPayload.userAddress", ChainID: u.ChainID()}
	user, err := addressBytes(u.UserAddress)
	if err != nil {
		return SignedRequest{}, false, fmt.Errorf("userAddress: %w", err)
	}
	pk, extra, err := decodeSignedHex(&sr, u.PublicKey, u.ExtraData, u.Signature)
	if err != nil {
		return SignedRequest{}, false, err
	}
	words := make([]byte, 0, 7*32)
	words = append(words, unifiedTypeHash[:]...)
	words = appendAddress(words, user)
	h := keccak256(pk)
	words = append(words, h[:]...)
	if h, err = hashAddresses("allowedContracts", u.AllowedContracts); err != nil {
		return SignedRequest{}, false, err
	}
	words = append(words, h[:]...)
	words = appendUint256(words, u.StartTimestamp)
	words = appendUint256(words, u.DurationSeconds)
	h = keccak256(extra)
	words = append(words, h[:]...)
	sr.Digest = typedDataDigest(sr.ChainID, verifying, keccak256(words))
	return sr, true, nil
}

// decodeSignedHex decodes the hex members of a user decrypt that its signature covers or is: the
// public key and the extra data (0x-prefixed or not) it returns, and the signature it sets in sr.
// An error names the first member, in that order, that is not hex.
func decodeSignedHex(sr *SignedRequest, publicKey, extraData, signature string) (pk, extra []byte, err error) {
	if pk, err = hex.DecodeString(publicKey); err != nil {
		return nil, nil, fmt.Errorf("publicKey: %w", err)
	}
	if extra, err = hex.DecodeString(strings.TrimPrefix(extraData, "0x")); err != nil {
		return nil, nil, fmt.Errorf("extraData: %w", err)
	}
	if sr.Signature, err = hex.DecodeString(signature); err != nil {
		return nil, nil, fmt.Errorf("signature: %w", err)
	}
	return pk, extra, nil
}

// hashAddresses is the EIP-712 word of an address[] member: the keccak256 of its addresses, each
// as a 32-byte word. An error names the entry (field[i]) that is not an address.
func hashAddresses(field string, addrs []string) ([32]byte, error) {
	list := make([]byte, 0, 32*len(addrs))
	for i, c := range addrs {
		a, err := addressBytes(c)
		if err != nil {
			return [32]byte{}, fmt.Errorf("%s[%d]: %w", field, i, err)
		}
		list = appendAddress(list, a)
	}
	return keccak256(list), nil
}

// appendAddress appends a as one 32-byte word (left-padded with zeros), as EIP-712 and the ABI
// encode an address.
func appendAddress(b []byte, a [20]byte) []byte {
	b = append(b, make([]byte, 12)...)
	return append(b, a[:]...)
}

// typedDataDigest is the EIP-712 digest of a message with hash structHash under the Decryption
// domain of host chain chainID and the contract verifying.
func typedDataDigest(chainID uint64, verifying [20]byte, structHash [32]byte) [32]byte {
	sep := make([]byte, 0, 5*32)
	sep = append(sep, eip712DomainTypeHash[:]...)
	sep = append(sep, decryptionNameHash[:]...)
	sep = append(sep, domainVersionHash[:]...)
	sep = appendUint256(sep, chainID)
	sep = appendAddress(sep, verifying)
	domainSeparator := keccak256(sep)

	var pre [2 + 32 + 32]byte
	pre[0], pre[1] = 0x19, 0x01
	copy(pre[2:], domainSeparator[:])
	copy(pre[34:], structHash[:])
	return keccak256(pre[:])
}

// ErrBadSignature is wrapped by the errors of RecoverSigner: the bytes are not a signature any
// key made over the digest (wrong length, a value out of range, the malleable high-s twin of a
// signature, or no key recovers).
var ErrBadSignature = errors.New("not a valid secp256k1 signature")

// RecoverSigner returns the address (lowercase, 0x) whose key made signature over digest. The
// signature is r || s || v, 65 bytes, v being 27 or 28 (0 or 1 accepted too, as ethers does).
// A signature whose s is in the upper half of the curve order is refused, as OpenZeppelin's
// ECDSA (and so the gateway) refuses it: each signature has exactly one accepted form.
func RecoverSigner(digest [32]byte, signature []byte) (string, error) {
	if len(signature) != 65 {
		return "", fmt.Errorf("%w: %d bytes, want 65 (r, s, v)", ErrBadSignature, len(signature))
	}
	v := signature[64]
	if v >= 27 {
		v -= 27
	}
	if v > 1 {
		return "", fmt.Errorf("%w: v is %d, want 27 or 28", ErrBadSignature, signature[64])
	}
	var s secp256k1.ModNScalar
	if overflow := s.SetByteSlice(signature[32:64]); overflow || s.IsOverHalfOrder() {
		return "", fmt.Errorf("%w: s is not in the lower half of the curve order", ErrBadSignature)
	}
	raw, err := recoverPubkey(digest, signature[:64], v)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadSignature, err)
	}
	h := keccak256(raw[1:])
	return "0x" + hex.EncodeToString(h[12:]), nil
}

// recoverPubkeyPure is the recovery in Go (decred's secp256k1): the uncompressed public key
// (0x04 || X || Y) whose key signed digest with r || s = rs and recovery id v (0 or 1). Builds
// with cgo use libsecp256k1 instead, about four times faster (signature_cgo.go); the tests check
// that both agree.
func recoverPubkeyPure(digest [32]byte, rs []byte, v byte) ([]byte, error) {
	var compact [65]byte
	compact[0] = 27 + v // a recovery code for an uncompressed key, then r and s
	copy(compact[1:], rs)
	pub, _, err := ecdsa.RecoverCompact(compact[:], digest[:])
	if err != nil {
		return nil, err
	}
	return pub.SerializeUncompressed(), nil
}

// addressBytes decodes an address, 0x + 40 hex digits in any case.
func addressBytes(s string) ([20]byte, error) {
	var a [20]byte
	if len(s) != 42 || !strings.HasPrefix(s, "0x") {
		return a, fmt.Errorf("%q is not an address (0x + 40 hex digits)", s)
	}
	if _, err := hex.Decode(a[:], []byte(s[2:])); err != nil {
		return a, fmt.Errorf("%q is not an address: %w", s, err)
	}
	return a, nil
}

// appendUint256 appends v as a 32-byte big-endian word.
func appendUint256(b []byte, v uint64) []byte {
	b = append(b, make([]byte, 24)...)
	return binary.BigEndian.AppendUint64(b, v)
}
