package domain

import "golang.org/x/crypto/sha3"

// This file holds the legacy Keccak-256 hash Ethereum uses (the original Keccak submission's
// padding, 0x01, not FIPS 202 SHA3-256's 0x06) and the EIP-55 address checksum built on it. The
// standard library's crypto/sha3 only offers the FIPS variant; golang.org/x/crypto has the
// legacy one.

// keccak256 is Ethereum's Keccak-256 (the original Keccak padding, not FIPS 202's).
func keccak256(data []byte) [32]byte {
	var out [32]byte
	h := sha3.NewLegacyKeccak256()
	h.Write(data)
	h.Sum(out[:0])
	return out
}

// eip55Checksum returns the EIP-55 mixed-case form of an address given as 40 lowercase hex
// digits (no 0x): a letter is upper case when the matching nibble of keccak256 of the lowercase
// digits is 8 or more. The result has the 0x prefix.
func eip55Checksum(lowerHex string) string {
	h := keccak256([]byte(lowerHex))
	out := make([]byte, 2, 2+len(lowerHex))
	out[0], out[1] = '0', 'x'
	for i := 0; i < len(lowerHex); i++ {
		ch := lowerHex[i]
		nibble := h[i/2] >> 4
		if i%2 == 1 {
			nibble = h[i/2] & 0x0f
		}
		if ch >= 'a' && ch <= 'f' && nibble >= 8 {
			ch -= 'a' - 'A'
		}
		out = append(out, ch)
	}
	return string(out)
}
