//go:build cgo

package domain

import "github.com/ethereum/go-ethereum/crypto/secp256k1"

// recoverPubkey is libsecp256k1's recovery (through go-ethereum's binding; cgo builds only):
// the uncompressed public key whose key signed digest with r || s = rs and recovery id v.
func recoverPubkey(digest [32]byte, rs []byte, v byte) ([]byte, error) {
	var sig [65]byte
	copy(sig[:], rs)
	sig[64] = v
	return secp256k1.RecoverPubkey(digest[:], sig[:])
}
