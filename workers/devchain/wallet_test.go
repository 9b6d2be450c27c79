package devchain_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"relayer/workers/devchain"
	"relayer/workers/devchain/devchaintest"
	"relayer/workers/gateway/contracts"
)

// The contracts' addresses as they were before the wallets were added: configurations and the
// public SDK's settings name them, so deploying something new must not move them.
func TestAddingTheWalletsMovedNoEarlierContract(t *testing.T) {
	t.Parallel()
	a := shared.Addresses()
	for _, tc := range []struct {
		name      string
		got, want common.Address
	}{
		{"Decryption", a.Decryption, common.HexToAddress("0x7978B7077F80E7e76599957B10C9b124D66685a1")},
		{"InputVerification", a.InputVerification, common.HexToAddress("0x63b4d5b0BE9f9293A6cA3B334c35Aa50CaD0da31")},
		{"ACL", a.ACL, common.HexToAddress("0x4cd8FF6d4BFF60eeC125Ea77eeDD3b5F55b40f29")},
		{"InputVerifier", a.InputVerifier, common.HexToAddress("0x00A2Fc1C4BeF363c82D1A0C59cA22762299971E1")},
		{"KMSVerifier", a.KMSVerifier, common.HexToAddress("0xc5D6812196c48D43b004f0661D71a0c11a24e033")},
	} {
		if tc.got != tc.want {
			t.Errorf("%s is at %s, was at %s", tc.name, tc.got, tc.want)
		}
	}
}

// secp256k1N is the order of the secp256k1 curve.
var secp256k1N, _ = new(big.Int).SetString("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", 16)

func TestEachWalletAcceptsExactlyItsOwnersLowSSignatureOfTheHash(t *testing.T) {
	t.Parallel()
	c, ctx := shared, testContext(t)
	w := contracts.NewDevWallet()
	magic, invalid := [4]byte{0x16, 0x26, 0xba, 0x7e}, [4]byte{0xff, 0xff, 0xff, 0xff}
	digest := crypto.Keccak256Hash([]byte("devchain wallet test"))

	for i, at := range c.Addresses().Wallets {
		owner := crypto.PubkeyToAddress(devchain.WalletOwnerKey(i).PublicKey)
		if want := crypto.PubkeyToAddress(devchain.UserDevKey(14 + i).PublicKey); owner != want {
			t.Fatalf("WalletOwnerKey(%d) is %s, want UserDevKey(%d) %s", i, owner, 14+i, want)
		}
		if at != devchain.WalletAddress(i) {
			t.Fatalf("Wallets[%d] is at %s, WalletAddress(%d) says %s", i, at, i, devchain.WalletAddress(i))
		}
		bound := w.Instance(c.Client(), at)
		if got := call(t, ctx, bound, w.PackOwner(), w.UnpackOwner); got != owner {
			t.Fatalf("Wallets[%d].owner() = %s, want %s", i, got, owner)
		}

		own := devchaintest.WalletSignature(t, i, digest)
		other := devchaintest.WalletSignature(t, 1-i, digest)
		v01 := append([]byte(nil), own...)
		v01[64] -= 27
		// The same signature with s mirrored into the upper half (and v flipped) recovers the
		// same key: only the s check refuses it.
		highS := append([]byte(nil), own...)
		s := new(big.Int).Sub(secp256k1N, new(big.Int).SetBytes(own[32:64]))
		s.FillBytes(highS[32:64])
		highS[64] = 27 + 28 - own[64]
		if got, err := crypto.SigToPub(digest[:], append(append([]byte(nil), highS[:64]...), highS[64]-27)); err != nil ||
			crypto.PubkeyToAddress(*got) != owner {
			t.Fatalf("the high-s signature does not recover the owner (%v): the test is wrong", err)
		}
		otherDigest := crypto.Keccak256Hash([]byte("another message"))

		for _, tc := range []struct {
			name   string
			digest [32]byte
			sig    []byte
			want   [4]byte
		}{
			{"the owner's signature, v 27/28", digest, own, magic},
			{"the owner's signature, v 0/1", digest, v01, magic},
			{"the other wallet owner's signature", digest, other, invalid},
			{"the owner's signature of another hash", otherDigest, own, invalid},
			{"64 bytes (no v)", digest, own[:64], invalid},
			{"66 bytes", digest, append(append([]byte(nil), own...), 0), invalid},
			{"no signature", digest, nil, invalid},
			{"s in the upper half of the curve order", digest, highS, invalid},
			{"v 29", digest, append(append([]byte(nil), own[:64]...), 29), invalid},
			{"zeros", digest, make([]byte, 65), invalid},
		} {
			got := call(t, ctx, bound, w.PackIsValidSignature(tc.digest, tc.sig), w.UnpackIsValidSignature)
			if got != tc.want {
				t.Errorf("Wallets[%d].isValidSignature, %s = %x, want %x", i, tc.name, got, tc.want)
			}
		}
	}
}

func TestWalletOwnerKeyAndWalletAddressPanicForAWalletThatDoesNotExist(t *testing.T) {
	t.Parallel()
	for _, i := range []int{-1, 2} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("WalletOwnerKey(%d) did not panic", i)
				}
			}()
			devchain.WalletOwnerKey(i)
		}()
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("WalletAddress(%d) did not panic", i)
				}
			}()
			devchain.WalletAddress(i)
		}()
	}
}
