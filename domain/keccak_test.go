package domain

import (
	"bytes"
	"crypto/sha3"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

func TestKeccak256KnownVectors(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  string
	}{
		{"the empty input hashes to the well-known empty Keccak-256", "",
			"c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"},
		{"abc hashes to its published Keccak-256", "abc",
			"4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"},
		{"the quick brown fox hashes to its published Keccak-256", "The quick brown fox jumps over the lazy dog",
			"4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15"},
		{"the ERC-20 transfer signature hashes to the selector a9059cbb", "transfer(address,uint256)",
			"a9059cbb2ab09eb219583f4a59a5d0623ade346d962bcd4e46b11da047c9049b"},
		{"the ERC-20 Transfer event signature hashes to its topic", "Transfer(address,address,uint256)",
			"ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := keccak256([]byte(tt.input))
			if h := hex.EncodeToString(got[:]); h != tt.want {
				t.Fatalf("keccak256(%q) = %s, want %s", tt.input, h, tt.want)
			}
		})
	}
}

func TestKeccakDiffersFromSHA3(t *testing.T) {
	k := keccak256(nil)
	s := sha3.Sum256(nil)
	if k == s {
		t.Fatal("legacy Keccak-256 and SHA3-256 of the empty input must differ")
	}
}

func TestKeccakLongInputSpansBlocks(t *testing.T) {
	long := bytes.Repeat([]byte("a"), 1000)
	if keccak256(long) == keccak256(long[:999]) {
		t.Fatal("inputs differing in their last byte hash the same")
	}
}

// The vectors of EIP-55 itself.
var eip55Vectors = []string{
	// all caps
	"0x52908400098527886E0F7030069857D2E4169EE7",
	"0x8617E340B3D01FA5F11F306F4090FD50E238070D",
	// all lower
	"0xde709f2102306220921060314715629080e2fb77",
	"0x27b1fdb04752bbc536007a920d24acb045561c26",
	// normal
	"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
	"0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
	"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
	"0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
}

func TestEIP55ChecksumReproducesTheEIPVectors(t *testing.T) {
	for _, addr := range eip55Vectors {
		t.Run(addr, func(t *testing.T) {
			if got := eip55Checksum(strings.ToLower(addr[2:])); got != addr {
				t.Fatalf("checksum of %s = %s", strings.ToLower(addr), got)
			}
		})
	}
}

// BenchmarkKeccak256 hashes a 32-byte word (an EIP-712 field) and an 800-byte input (an ML-KEM-512
// public key, which a user decrypt's signed part hashes: six blocks of the sponge).
func BenchmarkKeccak256(b *testing.B) {
	for _, n := range []int{32, 800} {
		data := bytes.Repeat([]byte{0xab}, n)
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				keccak256(data)
			}
		})
	}
}
