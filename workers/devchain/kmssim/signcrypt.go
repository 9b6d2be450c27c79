package kmssim

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/sha3"
	"errors"
	"fmt"
	"io"
	"math/big"

	"github.com/cloudflare/circl/kem/mlkem/mlkem512"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Signcryption, as the KMS does it for a user decryption: sign-then-encrypt to the user's
// ML-KEM-512 key.
//
//	signed   = "USER_DEC" || msg || userAddress || H(bincode(encapsulation key))
//	sig      = ECDSA secp256k1 over SHA-256(signed), low-S, r || s
//	sealed   = msg || sig || H(bincode(node's SEC1 compressed public key))
//	cipher   = bincode{nonce [12]u8, kem_ct Vec<u8>, payload_ct Vec<u8>}
//
// where kem_ct encapsulates a shared secret to the user's key, payload_ct is AES-256-GCM (key =
// the shared secret, no associated data) of sealed, and H(x) = SHAKE256("SIGNCRYP" || x), 32
// bytes.

var (
	dsepUserDecryption = []byte("USER_DEC")
	dsepSigncryption   = []byte("SIGNCRYP")
)

// ErrPublicKey is returned for a user public key that is not an ML-KEM-512 key as the SDK
// serializes it.
var ErrPublicKey = errors.New("kmssim: not an ML-KEM-512 public key as the SDK serializes it")

// publicKeyName is the type name the SDK's key serialization carries.
const publicKeyName = "UnifiedPublicEncKey"

// encapsulationKey returns the ML-KEM-512 encapsulation key in publicKey, the user's key as the
// SDK serializes it (tfhe safe serialization of UnifiedPublicEncKey::MlKem512): a header (a
// version string, a u32 versioning mode, a version string, the type name), then the versioned
// value (u32 version 0, u32 variant 0 = ML-KEM-512) and the 800-byte key as a byte string.
func encapsulationKey(publicKey []byte) ([]byte, error) {
	d := decoder{b: publicKey}
	d.bytes()
	d.u32()
	d.bytes()
	name := d.bytes()
	version, variant := d.u32(), d.u32()
	ek := d.bytes()
	switch {
	case d.err != nil:
		return nil, fmt.Errorf("%w: %v", ErrPublicKey, d.err)
	case string(name) != publicKeyName:
		return nil, fmt.Errorf("%w: type %q", ErrPublicKey, name)
	case version != 0 || variant != 0:
		return nil, fmt.Errorf("%w: version %d, variant %d (0 and 0 = ML-KEM-512 wanted)", ErrPublicKey, version, variant)
	case len(ek) != mlkem512.PublicKeySize:
		return nil, fmt.Errorf("%w: key of %d bytes", ErrPublicKey, len(ek))
	case len(d.b) != 0:
		return nil, fmt.Errorf("%w: %d bytes after the key", ErrPublicKey, len(d.b))
	}
	return ek, nil
}

// shakeDigest is SHAKE256(dsep || x), 32 bytes.
func shakeDigest(dsep, x []byte) []byte {
	h := sha3.NewSHAKE256()
	h.Write(dsep)
	h.Write(x)
	out := make([]byte, 32)
	h.Read(out)
	return out
}

// verificationKey is a node's verification key as the KMS serializes it (PublicSigKey): its SEC1
// compressed public key as a byte string.
func verificationKey(key *ecdsa.PrivateKey) []byte {
	var e encoder
	e.bytes(crypto.CompressPubkey(&key.PublicKey))
	return e.b
}

var secp256k1HalfN = new(big.Int).Rsh(crypto.S256().Params().N, 1)

// signPlain signs SHA-256(msg) with key: r || s, s in the lower half.
func signPlain(key *ecdsa.PrivateKey, msg []byte) ([]byte, error) {
	h := sha256.Sum256(msg)
	sig, err := crypto.Sign(h[:], key)
	if err != nil {
		return nil, err
	}
	sig = sig[:64]
	if s := new(big.Int).SetBytes(sig[32:]); s.Cmp(secp256k1HalfN) > 0 {
		s.Sub(crypto.S256().Params().N, s)
		s.FillBytes(sig[32:])
	}
	return sig, nil
}

// signcrypt signcrypts msg from the node with key to the user userAddress whose ML-KEM-512
// encapsulation key is ek, drawing the encapsulation seed and the nonce from rnd.
func signcrypt(rnd io.Reader, msg []byte, ek []byte, userAddress common.Address, key *ecdsa.PrivateKey) ([]byte, error) {
	var ekBin encoder
	ekBin.bytes(ek)
	signed := make([]byte, 0, len(dsepUserDecryption)+len(msg)+20+32)
	signed = append(signed, dsepUserDecryption...)
	signed = append(signed, msg...)
	signed = append(signed, userAddress[:]...)
	signed = append(signed, shakeDigest(dsepSigncryption, ekBin.b)...)
	sig, err := signPlain(key, signed)
	if err != nil {
		return nil, err
	}
	sealed := make([]byte, 0, len(msg)+64+32)
	sealed = append(sealed, msg...)
	sealed = append(sealed, sig...)
	sealed = append(sealed, shakeDigest(dsepSigncryption, verificationKey(key))...)

	var pk mlkem512.PublicKey
	if err := pk.Unpack(ek); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPublicKey, err)
	}
	seed := make([]byte, mlkem512.EncapsulationSeedSize)
	nonce := make([]byte, 12)
	if _, err := io.ReadFull(rnd, seed); err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(rnd, nonce); err != nil {
		return nil, err
	}
	kemCt := make([]byte, mlkem512.CiphertextSize)
	secret := make([]byte, mlkem512.SharedKeySize)
	pk.EncapsulateTo(kemCt, secret, seed)
	block, err := aes.NewCipher(secret)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	var out encoder
	out.raw(nonce)
	out.bytes(kemCt)
	out.bytes(gcm.Seal(nil, nonce, sealed, nil))
	return out.b, nil
}
