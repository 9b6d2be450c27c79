// Package devnet is what every development chain has in common, known without running one: its
// chain id, the development keys derived from public seeds, and the addresses its contracts are
// deployed at. A client of a development chain in another process (relayer loadgen, a relayer
// whose chain is `relayer devchain`) needs these and nothing of the node, so this package
// imports none of it: the build of the relayer without the development chain (-tags nodevchain)
// links it, and never package devchain. Package devchain uses these and gives them the same
// names (devchain.ChainID is devnet.ChainID).
//
// DEVELOPMENT ONLY: every key here is public by construction; never use one, or an address
// derived from one, anywhere but a development chain.
package devnet

import (
	"crypto/ecdsa"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// ChainID is the development chain's id; it is also the host chain id development handles carry.
const ChainID = 1337

// Development keys are derived from fixed seeds, so every run of the development chain has the
// same addresses: key = keccak256("relayer/devchain/<role>/<index>").
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

// Wallets is how many development ERC-1271 wallets every development chain deploys.
const Wallets = 2

// DevKey returns the development key of role number index (from 0). It panics on a seed that is
// not a valid secp256k1 key, which none of the fixed seeds is.
func DevKey(role string, index int) *ecdsa.PrivateKey {
	seed := crypto.Keccak256([]byte(fmt.Sprintf("relayer/devchain/%s/%d", role, index)))
	key, err := crypto.ToECDSA(seed)
	if err != nil {
		panic(fmt.Sprintf("devnet: seed of %s/%d is not a key: %v", role, index, err))
	}
	return key
}

// RelayerDevKey is the relayer's development signing key number index: what a relayer outside
// the process uses to send to a `relayer devchain` chain. DEVELOPMENT ONLY: the key is public.
func RelayerDevKey(index int) *ecdsa.PrivateKey { return DevKey(RoleRelayer, index) }

// UserDevKey is the development user key number index (0..UserKeys-1 are funded): an end user's
// account for tests, e.g. a delegator. DEVELOPMENT ONLY.
func UserDevKey(index int) *ecdsa.PrivateKey { return DevKey(RoleUser, index) }

// walletOwnerBase is the first user key that owns a development wallet.
const walletOwnerBase = 14

// WalletOwnerKey is the key whose signatures the development wallet i (at WalletAddress(i))
// accepts through ERC-1271: UserDevKey(14+i), for i 0 or 1. It panics for another i.
// DEVELOPMENT ONLY.
func WalletOwnerKey(i int) *ecdsa.PrivateKey {
	checkWallet("WalletOwnerKey", i)
	return UserDevKey(walletOwnerBase + i)
}

// DecryptionNonce and FirstWalletNonce are the deployer's nonces of the deployments of
// Decryption and of the first development wallet: a development chain deploys, from
// DevKey(RoleDeployer, 0), ACL, Decryption, InputVerification, InputVerifier, KMSVerifier, then
// the Wallets wallets, in this order (package devchain checks that it did).
const (
	DecryptionNonce  = 1
	FirstWalletNonce = 5
)

// DecryptionAddress is where every development chain deploys Decryption: the deployer key's
// contract address at nonce 1. It is the verifying contract of the EIP-712 data a user signs for
// a user decryption, known without a running chain (to a client of a chain another process
// runs, say).
func DecryptionAddress() common.Address {
	return crypto.CreateAddress(deployer(), DecryptionNonce)
}

// WalletAddress is where every development chain deploys its wallet i (owned by
// WalletOwnerKey(i)): the deployer key's contract address at nonce 5+i. It panics for an i other
// than 0 or 1.
func WalletAddress(i int) common.Address {
	checkWallet("WalletAddress", i)
	return crypto.CreateAddress(deployer(), FirstWalletNonce+uint64(i))
}

func deployer() common.Address { return crypto.PubkeyToAddress(DevKey(RoleDeployer, 0).PublicKey) }

func checkWallet(fn string, i int) {
	if i < 0 || i >= Wallets {
		panic(fmt.Sprintf("devnet: %s(%d): the development wallets are 0..%d", fn, i, Wallets-1))
	}
}
