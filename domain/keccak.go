package domain

import (
	"encoding/binary"
	"math/bits"
)

// This file holds the legacy Keccak-256 hash Ethereum uses (the original Keccak submission's
// padding, 0x01, not FIPS 202 SHA3-256's 0x06) and the EIP-55 address checksum built on it. The
// standard library's crypto/sha3 only offers the FIPS variant, and the domain package imports
// nothing outside the standard library, so the permutation is written out here.

// keccakRate is the sponge's rate in bytes for a 256-bit output: (1600 - 2*256) / 8.
const keccakRate = 136

// keccakRoundConstants are the iota step's constants, and keccakRotations and keccakPi the rho
// step's rotation offsets and the pi step's lane destinations, indexed by lane x+5y. They are
// derived in init from their definitions (FIPS 202, sections 3.2.2 to 3.2.5) rather than typed
// out, so a typo cannot hide in a table; keccak_test.go pins a few entries.
var (
	keccakRoundConstants [24]uint64
	keccakRotations      [25]int
	keccakPi             [25]int
)

func init() {
	// rho: lane (1,0) first, then (x,y) -> (y, 2x+3y mod 5); the t-th lane visited rotates by
	// (t+1)(t+2)/2 mod 64. Lane (0,0) does not rotate.
	x, y := 1, 0
	for t := range 24 {
		keccakRotations[x+5*y] = ((t + 1) * (t + 2) / 2) % 64
		x, y = y, (2*x+3*y)%5
	}
	// pi: the lane at (x,y) moves to (y, 2x+3y mod 5).
	for x := range 5 {
		for y := range 5 {
			keccakPi[x+5*y] = y + 5*((2*x+3*y)%5)
		}
	}
	// iota: bit 2^j-1 of round ir's constant is rc(j+7ir), rc being the output of the LFSR
	// x^8 + x^6 + x^5 + x^4 + 1 started at 1.
	lfsr := uint8(1)
	rc := func() uint64 {
		out := uint64(lfsr & 1)
		carry := lfsr&0x80 != 0
		lfsr <<= 1
		if carry {
			lfsr ^= 0x71
		}
		return out
	}
	for ir := range 24 {
		var c uint64
		for j := range 7 {
			c |= rc() << (1<<j - 1)
		}
		keccakRoundConstants[ir] = c
	}
}

// keccakF1600 applies the 24-round Keccak-f[1600] permutation to the state, lane x+5y at a[x+5y].
func keccakF1600(a *[25]uint64) {
	var c, d [5]uint64
	var b [25]uint64
	for round := range 24 {
		// theta
		for x := range 5 {
			c[x] = a[x] ^ a[x+5] ^ a[x+10] ^ a[x+15] ^ a[x+20]
		}
		for x := range 5 {
			d[x] = c[(x+4)%5] ^ bits.RotateLeft64(c[(x+1)%5], 1)
		}
		for i := range 25 {
			a[i] ^= d[i%5]
		}
		// rho and pi
		for i := range 25 {
			b[keccakPi[i]] = bits.RotateLeft64(a[i], keccakRotations[i])
		}
		// chi
		for y := 0; y < 25; y += 5 {
			for x := range 5 {
				a[y+x] = b[y+x] ^ (^b[y+(x+1)%5] & b[y+(x+2)%5])
			}
		}
		// iota
		a[0] ^= keccakRoundConstants[round]
	}
}

// keccakSponge256 is the Keccak[c=512] sponge with a 256-bit output. suffix is the domain byte
// the padding starts with: 0x01 for legacy Keccak-256, 0x06 for SHA3-256.
func keccakSponge256(data []byte, suffix byte) [32]byte {
	var a [25]uint64
	absorb := func(block []byte) {
		for i := 0; i < keccakRate/8; i++ {
			a[i] ^= binary.LittleEndian.Uint64(block[8*i:])
		}
		keccakF1600(&a)
	}
	for len(data) >= keccakRate {
		absorb(data[:keccakRate])
		data = data[keccakRate:]
	}
	var last [keccakRate]byte
	copy(last[:], data)
	last[len(data)] ^= suffix
	last[keccakRate-1] ^= 0x80
	absorb(last[:])

	var out [32]byte
	for i := range 4 {
		binary.LittleEndian.PutUint64(out[8*i:], a[i])
	}
	return out
}

// keccak256 is Ethereum's Keccak-256.
func keccak256(data []byte) [32]byte { return keccakSponge256(data, 0x01) }

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
