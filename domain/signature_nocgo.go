//go:build !cgo

package domain

// recoverPubkey is the pure-Go recovery when cgo is off.
func recoverPubkey(digest [32]byte, rs []byte, v byte) ([]byte, error) {
	return recoverPubkeyPure(digest, rs, v)
}
