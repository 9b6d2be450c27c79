// Package kmssim makes what a simulated KMS node posts to answer a user decryption, in the
// format the public client SDK (@zama-fhe/relayer-sdk 0.4.3, through its KMS wasm, node-tkms
// 0.12.8) verifies and opens, so that its userDecrypt and delegatedUserDecrypt return the
// values.
//
// A node answers a gateway UserDecryptionRequest with userDecryptionResponse(decryptionId,
// userDecryptedShare, signature, extraData). Respond computes the three:
//
//   - userDecryptedShare is the bincode of the KMS's UserDecryptionResponsePayload {
//     verification_key, digest, signcrypted_ciphertexts, party_id, degree }. The relayer returns
//     it, hex-encoded, as the share's payload.
//   - signature is the node's EIP-712 signature of UserDecryptResponseVerification(publicKey,
//     ctHandles, userDecryptedShare, extraData) under the Decryption domain.
//   - extraData is empty, because the SDK checks the signature with an empty extraData.
//
// digest links the response to the request: it is the EIP-712 hash of UserDecryptionLinker(
// publicKey, handles, userAddress). Each handle's signcrypted ciphertext encrypts, to the user's
// ML-KEM-512 key, the node's signed message bincode{plaintext: TypedPlaintext{bytes, fhe_type},
// link}.
//
// The committee's layout decides what the message holds:
//
//   - A single node (centralized KMS) signcrypts the cleartext itself: its little-endian bytes,
//     as many as the handle's type needs.
//   - A committee of n = 3t+1 nodes (the SDK takes t = (n-1)/3 from the number of KMSVerifier
//     signers) answers like the threshold KMS in its default mode. Each node signcrypts its Shamir
//     share, over the Galois ring GR(2^128, 4), of the value cut into 2-bit blocks, four blocks to
//     a ring element. A block m is encoded as m·2^123, with message, carry and padding bits as the
//     KMS parameters have them. The SDK reconstructs from any 2t+1 of these shares.
//
// This is simulation, not a KMS. The real nodes compute their shares by threshold decryption of
// the FHE ciphertext, without any of them knowing the value. The simulated nodes are handed the
// value (the development chain's Plaintext) and each one computes its own share of one sharing
// that all of them derive alike from the request and the committee's seed. Nothing is decrypted
// and nothing is kept from the nodes. What is real is everything the SDK checks: the signcryption
// to the user's key, both signatures by the keys KMSVerifier lists, the link to the request, and
// a sharing the SDK's own reconstruction opens.
package kmssim

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha3"
	"errors"
	"fmt"
	"io"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"relayer/workers/gateway/contracts"
)

// Request is what the nodes answer: a user decryption request as the gateway's
// UserDecryptionRequest event has it, on the gateway chain, with the cleartexts.
type Request struct {
	// ChainID and Decryption are the gateway chain and its Decryption contract: the EIP-712
	// domain.
	ChainID    *big.Int
	Decryption common.Address
	// UserAddress is the event's userAddress: the user, or the delegate for a delegated request.
	UserAddress common.Address
	// PublicKey is the event's publicKey: the user's ML-KEM-512 key as the SDK serializes it.
	PublicKey []byte
	// Handles are the event's ctHandles, in order. Byte 30 of each is its FHE type: ebool 0,
	// euint8 2, euint16 3, euint32 4, euint64 5, euint128 6, eaddress 7 and euint256 8.
	Handles [][32]byte
	// Plaintexts are the handles' cleartexts, 32 bytes each, big-endian, in handle order. Bits
	// above the handle's type width are ignored.
	Plaintexts [][32]byte
}

// Committee is the simulated KMS: how many nodes there are, and what they share.
type Committee struct {
	// Nodes is the number of KMS nodes: KMSVerifier's signers, in order, node i (from 0) being
	// signer i. It must be 1 (centralized) or 3t+1 (threshold t).
	Nodes int
	// Seed, a secret the nodes share, goes into their sharings; without it, a sharing is
	// derived from the request alone.
	Seed []byte
}

// Degree is the degree of the committee's sharings, its threshold t = (Nodes-1)/3, as the SDK
// computes it from the number of signers. Decrypting needs 2t+1 shares.
func (c Committee) Degree() (int, error) {
	if c.Nodes < 1 || c.Nodes%3 != 1 {
		return 0, fmt.Errorf("%w: %d nodes, want 1 or 3t+1 (the SDK reads the degree as (nodes-1)/3 and accepts party ids up to 3t+1)", ErrCommittee, c.Nodes)
	}
	return (c.Nodes - 1) / 3, nil
}

// SharesNeeded is how many nodes' responses the SDK needs to decrypt: 2t+1.
func (c Committee) SharesNeeded() (int, error) {
	t, err := c.Degree()
	return 2*t + 1, err
}

// Response is what a node posts: userDecryptionResponse(decryptionId, Share, Signature,
// ExtraData).
type Response struct {
	Share     []byte
	Signature []byte
	// ExtraData is empty: the SDK checks Signature with an empty extraData.
	ExtraData []byte
}

// Errors of Respond.
var (
	ErrCommittee = errors.New("kmssim: unsupported committee")
	ErrRequest   = errors.New("kmssim: bad request")
	ErrType      = errors.New("kmssim: unsupported FHE type")
)

// Respond is the response of node index (from 0, its position among KMSVerifier's signers),
// signing with key, to req in committee c. It draws the signcryption's randomness from rnd
// (crypto/rand when nil). The sharing does not depend on rnd, so the nodes' shares agree.
func Respond(rnd io.Reader, req Request, c Committee, index int, key *ecdsa.PrivateKey) (Response, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	degree, err := c.Degree()
	if err != nil {
		return Response{}, err
	}
	if index < 0 || index >= c.Nodes {
		return Response{}, fmt.Errorf("%w: node %d of %d", ErrCommittee, index, c.Nodes)
	}
	if key == nil {
		return Response{}, fmt.Errorf("%w: no signing key", ErrCommittee)
	}
	if len(req.Handles) == 0 || len(req.Plaintexts) != len(req.Handles) || req.ChainID == nil {
		return Response{}, fmt.Errorf("%w: %d handles, %d plaintexts (want as many, at least 1), chain id %v",
			ErrRequest, len(req.Handles), len(req.Plaintexts), req.ChainID)
	}
	types := make([]byte, len(req.Handles))
	for i, h := range req.Handles {
		types[i] = h[30]
		if _, ok := typeBits[types[i]]; !ok {
			return Response{}, fmt.Errorf("%w: %d (handle %d)", ErrType, types[i], i)
		}
	}
	ek, err := encapsulationKey(req.PublicKey)
	if err != nil {
		return Response{}, err
	}
	link := Link(req)
	party := index + 1
	var coefs *coefficients
	if c.Nodes > 1 {
		coefs = newCoefficients(c.Seed, req)
	}

	var p encoder
	p.bytes(verificationKey(key))
	p.bytes(link)
	p.u64(uint64(len(req.Handles)))
	for i, h := range req.Handles {
		var plaintext []byte
		if c.Nodes == 1 {
			plaintext = cleartextBytes(req.Plaintexts[i], types[i])
		} else {
			plaintext = shareBytes(req.Plaintexts[i], types[i], degree, party, coefs)
		}
		var msg encoder
		msg.bytes(plaintext)
		msg.i32(int32(types[i]))
		msg.bytes(link)
		ct, err := signcrypt(rnd, msg.b, ek, req.UserAddress, key)
		if err != nil {
			return Response{}, err
		}
		p.i32(int32(types[i]))
		p.bytes(ct)
		p.bytes(h[:])
		p.u32(1) // packing factor: one block per 2-bit message
	}
	p.u32(uint32(party))
	p.u32(uint32(degree))

	sig, err := contracts.SignDigest(key, contracts.UserDecryptionDigest(req.ChainID, req.Decryption, req.PublicKey, req.Handles, p.b, nil))
	if err != nil {
		return Response{}, err
	}
	return Response{Share: p.b, Signature: sig, ExtraData: []byte{}}, nil
}

// UserDecryptionLinkerTypeHash is the EIP-712 type hash of the KMS's request-response link.
var UserDecryptionLinkerTypeHash = crypto.Keccak256Hash([]byte("UserDecryptionLinker(bytes publicKey,bytes32[] handles,address userAddress)"))

// Link is the digest that ties a response to req, as the SDK recomputes it: the EIP-712 hash of
// UserDecryptionLinker(publicKey, handles, userAddress) under the Decryption domain.
func Link(req Request) []byte {
	packed := make([]byte, 0, 32*len(req.Handles))
	for _, h := range req.Handles {
		packed = append(packed, h[:]...)
	}
	d := contracts.DecryptionDomain(req.ChainID, req.Decryption).Digest(crypto.Keccak256Hash(
		UserDecryptionLinkerTypeHash[:],
		crypto.Keccak256(req.PublicKey),
		crypto.Keccak256(packed),
		common.LeftPadBytes(req.UserAddress[:], 32),
	))
	return d[:]
}

// typeBits is the width of each supported FHE type's cleartext, by type id.
var typeBits = map[byte]int{0: 1, 2: 8, 3: 16, 4: 32, 5: 64, 6: 128, 7: 160, 8: 256}

// bit returns bit k (0 = least significant) of the big-endian value v.
func bit(v [32]byte, k int) byte {
	return v[31-k/8] >> (k % 8) & 1
}

// cleartextBytes is what a centralized KMS signcrypts: the value's little-endian bytes, as many
// as the type needs.
func cleartextBytes(v [32]byte, fheType byte) []byte {
	bits := typeBits[fheType]
	out := make([]byte, (bits+7)/8)
	for k := 0; k < bits; k++ {
		out[k/8] |= bit(v, k) << (k % 8)
	}
	return out
}

// Encoding of the threshold KMS's default parameters: 2 message bits and 2 carry bits per
// block, and a padding bit, so that a block m sits at m·2^(128-5).
const (
	blockBits     = 2
	blockShift    = 128 - (2 + 2 + 1)
	blocksPerElem = 4
)

// secrets are the ring elements that carry v: its 2-bit blocks from the least significant,
// four to an element, block m as m·2^123.
func secrets(v [32]byte, fheType byte) []gr {
	blocks := (typeBits[fheType] + blockBits - 1) / blockBits
	out := make([]gr, (blocks+blocksPerElem-1)/blocksPerElem)
	for b := 0; b < blocks; b++ {
		m := uint64(bit(v, 2*b))
		if 2*b+1 < typeBits[fheType] {
			m |= uint64(bit(v, 2*b+1)) << 1
		}
		out[b/blocksPerElem][b%blocksPerElem] = z128{lo: m}.shl(blockShift)
	}
	return out
}

// shareBytes is what a threshold KMS node signcrypts for one value: bincode(Vec<ResiduePolyF4
// <Z128>>), party's shares of the value's ring elements (each 4 coefficients, u128
// little-endian), under sharing polynomials of the given degree whose other coefficients come
// from coefs.
func shareBytes(v [32]byte, fheType byte, degree, party int, coefs *coefficients) []byte {
	elems := secrets(v, fheType)
	x := partyPoint(party)
	var e encoder
	e.u64(uint64(len(elems)))
	poly := make([]gr, degree+1)
	for _, s := range elems {
		poly[0] = s
		for d := 1; d <= degree; d++ {
			poly[d] = coefs.next()
		}
		for _, c := range evalAt(poly, x) {
			e.z128(c)
		}
	}
	return e.b
}

// coefficients is the stream of random sharing coefficients for one request: SHAKE256 of the
// committee's seed and the request. Every node reads it in the same order (handles in order,
// then each handle's ring elements, then the degrees), so all nodes share the same polynomials.
type coefficients struct{ xof *sha3.SHAKE }

func newCoefficients(seed []byte, req Request) *coefficients {
	var e encoder
	e.raw([]byte("relayer/devchain/kmssim/sharing"))
	e.bytes(seed)
	e.raw(common.LeftPadBytes(req.ChainID.Bytes(), 32))
	e.raw(req.Decryption[:])
	e.raw(req.UserAddress[:])
	e.bytes(req.PublicKey)
	e.u64(uint64(len(req.Handles)))
	for i, h := range req.Handles {
		e.raw(h[:])
		e.raw(req.Plaintexts[i][:])
	}
	xof := sha3.NewSHAKE256()
	xof.Write(e.b)
	return &coefficients{xof: xof}
}

func (c *coefficients) next() gr {
	var buf [64]byte
	c.xof.Read(buf[:])
	var g gr
	for i := range g {
		d := decoder{b: buf[16*i : 16*i+16]}
		g[i] = z128{lo: d.u64(), hi: d.u64()}
	}
	return g
}
