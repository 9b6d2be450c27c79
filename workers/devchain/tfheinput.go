package devchain

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// What a coprocessor computes for an input the public SDK encrypted. The SDK builds a tfhe-rs
// ProvenCompactCiphertextList (safe_serialize output), computes the handles of its values itself
// and accepts the relayer's answer only when the coprocessors signed exactly those handles. The
// simulated coprocessors therefore read the list's value kinds from the serialized list (they do
// not verify the zero-knowledge proof: that takes the tfhe library and half a minute per proof)
// and derive the handles the way the protocol's coprocessors do (and the SDK's
// FhevmHandle.fromZKProof):
//
//	blobHash = keccak256("ZK-w_rct" || ciphertext)
//	hash21   = keccak256("ZK-w_hdl" || blobHash || uint8(index) || acl || uint256(chainId))[:21]
//	handle   = hash21 || uint8(index) || uint64(chainId) || fheTypeId || version 0

// provenListType is the type name tfhe-rs writes in the safe_serialize header of the SDK's list.
var provenListType = []byte("high_level_api::ProvenCompactCiphertextList")

// The tail of a serialized ProvenCompactCiphertextList: the value kinds (a u64 count, then per
// value a u32 version tag, a u32 kind and, for integers, a u64 block count), then the list's tag
// (a u64 length and its bytes) and a u32. Each block holds 2 bits with the SDK's parameters.
const (
	kindInteger       = 0
	kindSignedInteger = 1
	kindBoolean       = 2
	bitsPerBlock      = 2
	maxInputValues    = 256
	listTrailerBytes  = 4
)

// fheTypeOfBits maps a value's bit width to its FHE type id (ebool 0, euint8 2, ..., eaddress 7,
// euint256 8), as the SDK does.
var fheTypeOfBits = map[int]byte{2: 0, 8: 2, 16: 3, 32: 4, 64: 5, 128: 6, 160: 7, 256: 8}

// errNotProvenList: the ciphertext is not a tfhe-rs ProvenCompactCiphertextList.
var errNotProvenList = errors.New("not a tfhe-rs ProvenCompactCiphertextList")

// InputFheTypes returns the FHE type id of each value in a ciphertext the public SDK built, in
// order, or an error when ciphertext is not such a list or its value kinds cannot be read.
func InputFheTypes(ciphertext []byte) ([]byte, error) {
	head := ciphertext[:min(len(ciphertext), 256)]
	if !bytes.Contains(head, provenListType) {
		return nil, errNotProvenList
	}
	// The kinds are the last variable-length field before the tag: find the one offset from which
	// count, kinds, tag and trailer end exactly at the end of the data.
	lo := max(0, len(ciphertext)-(8+maxInputValues*16+8+64+listTrailerBytes))
	for off := len(ciphertext) - (8 + 8 + 8 + listTrailerBytes); off >= lo; off-- {
		if types, ok := readKinds(ciphertext, off); ok {
			return types, nil
		}
	}
	return nil, fmt.Errorf("%w: no value kinds found at its end", errNotProvenList)
}

// readKinds reads the kinds starting at off and reports whether they, the tag and the trailer
// cover the data exactly.
func readKinds(b []byte, off int) ([]byte, bool) {
	u32 := func() (uint32, bool) {
		if off+4 > len(b) {
			return 0, false
		}
		v := binary.LittleEndian.Uint32(b[off:])
		off += 4
		return v, true
	}
	u64 := func() (uint64, bool) {
		if off+8 > len(b) {
			return 0, false
		}
		v := binary.LittleEndian.Uint64(b[off:])
		off += 8
		return v, true
	}
	n, ok := u64()
	if !ok || n == 0 || n > maxInputValues {
		return nil, false
	}
	types := make([]byte, 0, n)
	for range n {
		version, ok := u32()
		if !ok || version > 8 {
			return nil, false
		}
		kind, ok := u32()
		if !ok {
			return nil, false
		}
		bits := 0
		switch kind {
		case kindBoolean:
			bits = 2
		case kindInteger, kindSignedInteger:
			blocks, ok := u64()
			if !ok || blocks == 0 || blocks > 128 {
				return nil, false
			}
			bits = int(blocks) * bitsPerBlock
		default:
			return nil, false
		}
		t, known := fheTypeOfBits[bits]
		if !known || kind == kindSignedInteger || (t == 0) != (kind == kindBoolean) {
			return nil, false // only a boolean is an ebool; no SDK input holds signed integers
		}
		types = append(types, t)
	}
	tagLen, ok := u64()
	if !ok || tagLen > 64 || off+int(tagLen)+listTrailerBytes != len(b) {
		return nil, false
	}
	return types, true
}

// SDKInputHandles are the handles of the values of an input the public SDK encrypted for host
// chain chainID, whose ACL contract is acl; ok is false when ciphertext is not such an input.
func SDKInputHandles(ciphertext []byte, acl common.Address, chainID uint64) ([][32]byte, bool) {
	types, err := InputFheTypes(ciphertext)
	if err != nil {
		return nil, false
	}
	blob := crypto.Keccak256([]byte("ZK-w_rct"), ciphertext)
	var chain [32]byte
	binary.BigEndian.PutUint64(chain[24:], chainID)
	handles := make([][32]byte, len(types))
	for i, t := range types {
		hash := crypto.Keccak256([]byte("ZK-w_hdl"), blob, []byte{byte(i)}, acl[:], chain[:])
		h := &handles[i]
		copy(h[:21], hash[:21])
		h[21] = byte(i)
		binary.BigEndian.PutUint64(h[22:30], chainID)
		h[30] = t
		h[31] = 0
	}
	return handles, true
}
