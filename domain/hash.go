package domain

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
)

// contentHashVersion opens every content hash preimage. Changing the encoding below means
// changing this tag (and the golden values in hash_test.go): content hashes already recorded in
// RequestAccepted events keep their meaning, new ones simply differ. The tag is per kind: user
// decrypts moved to v2 when their signature and validity window joined the hash; the other
// kinds' encoding, and so their recorded hashes, are still v1's.
const (
	contentHashVersion            = "relayer-content-hash/v1"
	contentHashVersionUserDecrypt = "relayer-content-hash/v2"
	// unifiedHashName stands where a kind's name does for a unified user decrypt, whose kind is
	// a v2 user decrypt's: the two representations never share a preimage.
	unifiedHashName = "user-decrypt/" + AttestationEIP712UnifiedV1
)

// ContentHash identifies a request by what it asks for, so that a resubmission of the same
// request can be recognised: the lowercase hex SHA-256 of a canonical encoding of the fields that
// define it.
//
//   - input proof: contractChainId, contractAddress, userAddress, ciphertextWithInputVerification,
//     extraData.
//   - public decrypt: ciphertextHandles (in order), extraData.
//   - user decrypt (v2): handleContractPairs (in order), contractsChainId, contractAddresses (in
//     order), userAddress, publicKey, extraData, signature, startTimestamp, durationDays:
//     everything the gateway request carries, so that a request joins only a job that would do
//     exactly what it asks. A request with a forged signature, submitted first, gets its own job
//     and fails alone; the user's genuine request is never tied to it. (v1 left the signature and
//     the window out, which let a forged copy capture a genuine request's job.)
//   - delegated user decrypt: handleContractPairs (in order), contractsChainId,
//     contractAddresses (in order), delegatorAddress, delegateAddress, startTimestamp,
//     durationDays, signature, publicKey, extraData: everything the gateway request carries, so
//     that a request joins only a job that would do exactly what it asks (a forged signature
//     cannot capture a genuine request's job).
//   - unified user decrypt (v3): handles (in order, each handle, contractAddress,
//     ownerAddress), userAddress, allowedContracts (in order), startTimestamp, durationSeconds,
//     publicKey, extraData, signature: everything the gateway request carries. Its preimage
//     names "user-decrypt/eip712-unified-user-decrypt-v1" where the others name their kind.
//
// The encoding is unambiguous: the version tag, then the kind's name, then each field in the
// order above, each written as an 8-byte big-endian length followed by its bytes. Strings are
// written as they are (the normalized text of the Parse functions), integers as 8 big-endian
// bytes, lists as a field holding their length followed by their entries.
//
// ContentHash does not normalize: it expects r as the Parse functions return it, so that, for
// example, an address written in any case hashes the same. It returns "" if r does not hold
// exactly one payload.
func ContentHash(r Request) string {
	h := sha256.New()
	if !writeContentPreimage(h, r) {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeContentPreimage writes the encoding ContentHash hashes; false if r has no single kind.
func writeContentPreimage(w io.Writer, r Request) bool {
	k := r.Kind()
	if k.IsZero() {
		return false
	}
	e := preimageWriter{w: w}
	if k == UserDecrypt {
		e.str(contentHashVersionUserDecrypt)
	} else {
		e.str(contentHashVersion)
	}
	if u := r.UnifiedUserDecrypt; u != nil {
		e.str(unifiedHashName)
		e.u64(uint64(len(u.Handles)))
		for _, h := range u.Handles {
			e.str(h.Handle)
			e.str(h.ContractAddress)
			e.str(h.OwnerAddress)
		}
		e.str(u.UserAddress)
		e.u64(uint64(len(u.AllowedContracts)))
		for _, a := range u.AllowedContracts {
			e.str(a)
		}
		e.u64(u.StartTimestamp)
		e.u64(u.DurationSeconds)
		e.str(u.PublicKey)
		e.str(u.ExtraData)
		e.str(u.Signature)
		return true
	}
	e.str(k.String())
	switch k {
	case InputProof:
		ip := r.InputProof
		e.u64(ip.ContractChainID)
		e.str(ip.ContractAddress)
		e.str(ip.UserAddress)
		e.str(ip.Ciphertext)
		e.str(ip.ExtraData)
	case PublicDecrypt:
		pd := r.PublicDecrypt
		e.u64(uint64(len(pd.CiphertextHandles)))
		for _, h := range pd.CiphertextHandles {
			e.str(h)
		}
		e.str(pd.ExtraData)
	case UserDecrypt:
		ud := r.UserDecrypt
		e.pairs(ud.HandleContractPairs, ud.ContractsChainID, ud.ContractAddresses)
		e.str(ud.UserAddress)
		e.str(ud.PublicKey)
		e.str(ud.ExtraData)
		e.str(ud.Signature)
		e.u64(ud.RequestValidity.StartTimestamp)
		e.u64(ud.RequestValidity.DurationDays)
	case DelegatedUserDecrypt:
		// Everything the gateway request carries, the signature and the validity window
		// included: a request joins only a job that would do exactly what it asks.
		dd := r.DelegatedUserDecrypt
		e.pairs(dd.HandleContractPairs, dd.ContractsChainID, dd.ContractAddresses)
		e.str(dd.DelegatorAddress)
		e.str(dd.DelegateAddress)
		e.u64(dd.StartTimestamp)
		e.u64(dd.DurationDays)
		e.str(dd.Signature)
		e.str(dd.PublicKey)
		e.str(dd.ExtraData)
	}
	return true
}

// preimageWriter writes length-prefixed fields. Writes to a hash never fail.
type preimageWriter struct {
	w   io.Writer
	buf [8]byte
}

func (e *preimageWriter) length(n int) {
	binary.BigEndian.PutUint64(e.buf[:], uint64(n))
	e.w.Write(e.buf[:])
}

func (e *preimageWriter) str(s string) {
	e.length(len(s))
	io.WriteString(e.w, s)
}

// pairs writes a user decrypt's handleContractPairs (in order), contractsChainId and
// contractAddresses (in order).
func (e *preimageWriter) pairs(pairs []HandleContractPair, chainID uint64, contracts []string) {
	e.u64(uint64(len(pairs)))
	for _, pair := range pairs {
		e.str(pair.Handle)
		e.str(pair.ContractAddress)
	}
	e.u64(chainID)
	e.u64(uint64(len(contracts)))
	for _, a := range contracts {
		e.str(a)
	}
}

func (e *preimageWriter) u64(v uint64) {
	e.length(8)
	binary.BigEndian.PutUint64(e.buf[:], v)
	e.w.Write(e.buf[:])
}
