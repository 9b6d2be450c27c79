package gateway

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// derSignature is r and s as KMS answers them: SEQUENCE { r INTEGER, s INTEGER }.
func derSignature(t *testing.T, r, s *big.Int) []byte {
	t.Helper()
	der, err := asn1.Marshal(struct{ R, S *big.Int }{r, s})
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func randomDigest(t *testing.T) common.Hash {
	t.Helper()
	var h common.Hash
	if _, err := rand.Read(h[:]); err != nil {
		t.Fatal(err)
	}
	return h
}

// ECDSA accepts (r, s) and (r, N-s) alike; Ethereum takes the low one only (EIP-2). Either form
// from KMS must come out as the very signature crypto.Sign makes, V included.
func TestAKMSSignatureWithAHighOrALowSBecomesTheEthereumSignatureOfTheKey(t *testing.T) {
	t.Parallel()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	addr := crypto.PubkeyToAddress(key.PublicKey)
	vs := map[byte]int{}
	for range 100 {
		digest := randomDigest(t)
		want, err := crypto.Sign(digest[:], key)
		if err != nil {
			t.Fatal(err)
		}
		r, s := new(big.Int).SetBytes(want[:32]), new(big.Int).SetBytes(want[32:64])
		if s.Cmp(secp256k1HalfN) > 0 {
			t.Fatalf("crypto.Sign made a high s")
		}
		high := new(big.Int).Sub(secp256k1N, s)
		for name, der := range map[string][]byte{"low s": derSignature(t, r, s), "high s": derSignature(t, r, high)} {
			got, err := ethereumSignature(der, digest, addr)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if common.Bytes2Hex(got) != common.Bytes2Hex(want) {
				t.Fatalf("%s: got %x, want crypto.Sign's %x", name, got, want)
			}
		}
		vs[want[64]]++
	}
	if vs[0] == 0 || vs[1] == 0 {
		t.Errorf("the digests exercised only one recovery id: %v", vs)
	}
}

func TestAKMSSignatureThatIsNotTheKeysOrNotDERIsRefused(t *testing.T) {
	t.Parallel()
	key, _ := crypto.GenerateKey()
	other, _ := crypto.GenerateKey()
	addr := crypto.PubkeyToAddress(key.PublicKey)
	digest := randomDigest(t)
	sig, err := crypto.Sign(digest[:], other)
	if err != nil {
		t.Fatal(err)
	}
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:64])
	good := derSignature(t, r, s)
	for name, der := range map[string][]byte{
		"another key's":  good,
		"empty":          nil,
		"not DER":        []byte("not a signature"),
		"trailing bytes": append(append([]byte(nil), good...), 0),
		"r zero":         derSignature(t, new(big.Int), s),
		"s zero":         derSignature(t, r, new(big.Int)),
		"s the order":    derSignature(t, r, secp256k1N),
		"r negative":     derSignature(t, new(big.Int).Neg(r), s),
	} {
		if got, err := ethereumSignature(der, digest, addr); err == nil {
			t.Errorf("%s: accepted as %x", name, got)
		}
	}
	// The right key, another digest: no V recovers the key.
	own, _ := crypto.Sign(digest[:], key)
	if _, err := ethereumSignature(derSignature(t, new(big.Int).SetBytes(own[:32]), new(big.Int).SetBytes(own[32:64])), randomDigest(t), addr); err == nil ||
		!strings.Contains(err.Error(), addr.Hex()) {
		t.Errorf("a signature of another digest: %v", err)
	}
}

// spki is a DER SubjectPublicKeyInfo of an EC key on curve, as KMS's GetPublicKey answers it.
func spki(t *testing.T, curve asn1.ObjectIdentifier, point []byte) []byte {
	t.Helper()
	params, err := asn1.Marshal(curve)
	if err != nil {
		t.Fatal(err)
	}
	der, err := asn1.Marshal(struct {
		Algorithm pkix.AlgorithmIdentifier
		PublicKey asn1.BitString
	}{pkix.AlgorithmIdentifier{Algorithm: oidECPublicKey, Parameters: asn1.RawValue{FullBytes: params}}, asn1.BitString{Bytes: point, BitLength: 8 * len(point)}})
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func TestAKMSPublicKeyIsReadAsASecp256k1PointAndAnyOtherKeyIsRefused(t *testing.T) {
	t.Parallel()
	key, _ := crypto.GenerateKey()
	pub, err := parseKMSPublicKey(spki(t, oidSecp256k1, crypto.FromECDSAPub(&key.PublicKey)))
	if err != nil {
		t.Fatal(err)
	}
	if crypto.PubkeyToAddress(*pub) != crypto.PubkeyToAddress(key.PublicKey) {
		t.Fatal("the address of the parsed key is not the key's")
	}

	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p256DER, err := x509.MarshalPKIXPublicKey(&p256.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	compressed := crypto.CompressPubkey(&key.PublicKey)
	offCurve := crypto.FromECDSAPub(&key.PublicKey)
	offCurve[64] ^= 1
	for name, c := range map[string]struct {
		der  []byte
		want string
	}{
		"a P-256 key":             {p256DER, "not secp256k1"},
		"a compressed point":      {spki(t, oidSecp256k1, compressed), "not an uncompressed secp256k1 point"},
		"a point off the curve":   {spki(t, oidSecp256k1, offCurve), "not an uncompressed secp256k1 point"},
		"not DER":                 {[]byte{0x30, 0x03, 0x01}, "not a DER SubjectPublicKeyInfo"},
		"another algorithm (RSA)": {rsaSPKI(t), "not an elliptic curve key"},
	} {
		if _, err := parseKMSPublicKey(c.der); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
}

func rsaSPKI(t *testing.T) []byte {
	t.Helper()
	der, err := asn1.Marshal(struct {
		Algorithm pkix.AlgorithmIdentifier
		PublicKey asn1.BitString
	}{pkix.AlgorithmIdentifier{Algorithm: asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 1}, Parameters: asn1.NullRawValue}, asn1.BitString{Bytes: []byte{1, 2, 3}, BitLength: 24}})
	if err != nil {
		t.Fatal(err)
	}
	return der
}
