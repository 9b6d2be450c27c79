package devchain

import (
	"crypto/ecdsa"
	"fmt"

	"github.com/ethereum/go-ethereum/crypto"
)

// Development keys are derived from fixed seeds, so every run of the development chain has the
// same addresses: key = keccak256("relayer/devchain/<role>/<index>"). They are public by
// construction; never use them, or an address derived from them, anywhere but a development
// chain.
const (
	RoleDeployer    = "deployer"
	RoleRelayer     = "relayer"
	RoleKMS         = "kms"
	RoleCoprocessor = "coprocessor"
	// RoleUser keys stand for end users in tests: a delegator that sends its own ACL
	// transactions, say. UserKeys of them are funded.
	RoleUser = "user"
)

// UserKeys is how many user keys (UserDevKey(0..UserKeys-1)) every development chain funds.
const UserKeys = 16

// DevKey returns the development key of role number index (from 0). It panics on a seed that is
// not a valid secp256k1 key, which none of the fixed seeds is.
func DevKey(role string, index int) *ecdsa.PrivateKey {
	seed := crypto.Keccak256([]byte(fmt.Sprintf("relayer/devchain/%s/%d", role, index)))
	key, err := crypto.ToECDSA(seed)
	if err != nil {
		panic(fmt.Sprintf("devchain: seed of %s/%d is not a key: %v", role, index, err))
	}
	return key
}

// RelayerDevKey is the relayer's development signing key number index: what a relayer outside
// the process uses to send to a `relayer devchain` chain. DEVELOPMENT ONLY: the key is public.
func RelayerDevKey(index int) *ecdsa.PrivateKey { return DevKey(RoleRelayer, index) }

// UserDevKey is the development user key number index (0..UserKeys-1 are funded): an end user's
// account for tests, e.g. a delegator (Chain.DelegateForUserDecryption). DEVELOPMENT ONLY.
func UserDevKey(index int) *ecdsa.PrivateKey { return DevKey(RoleUser, index) }

// walletOwnerBase is the first user key that owns a development wallet (Addresses.Wallets).
const walletOwnerBase = 14

// WalletOwnerKey is the key whose signatures the development wallet Addresses.Wallets[i]
// accepts through ERC-1271: UserDevKey(14+i), for i 0 or 1. It panics for another i.
// DEVELOPMENT ONLY.
func WalletOwnerKey(i int) *ecdsa.PrivateKey {
	if i < 0 || i >= len(Addresses{}.Wallets) {
		panic(fmt.Sprintf("devchain: WalletOwnerKey(%d): the development wallets are 0..%d", i, len(Addresses{}.Wallets)-1))
	}
	return UserDevKey(walletOwnerBase + i)
}

func devKeys(role string, n int) []*ecdsa.PrivateKey {
	keys := make([]*ecdsa.PrivateKey, n)
	for i := range keys {
		keys[i] = DevKey(role, i)
	}
	return keys
}
