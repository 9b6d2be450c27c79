package devchain

import (
	"crypto/ecdsa"

	"github.com/ethereum/go-ethereum/common"

	"relayer/workers/devchain/devnet"
)

// The development chain's id, keys and deployment addresses are package devnet's, which a client
// of a chain in another process imports without the node; these are their names here.

// ChainID is the development chain's id; it is also the host chain id development handles carry.
const ChainID = devnet.ChainID

// Development keys are derived from fixed seeds, so every run of the development chain has the
// same addresses: key = keccak256("relayer/devchain/<role>/<index>"). They are public by
// construction; never use them, or an address derived from them, anywhere but a development
// chain.
const (
	RoleDeployer    = devnet.RoleDeployer
	RoleRelayer     = devnet.RoleRelayer
	RoleKMS         = devnet.RoleKMS
	RoleCoprocessor = devnet.RoleCoprocessor
	// RoleUser keys stand for end users in tests: a delegator that sends its own ACL
	// transactions, say. UserKeys of them are funded.
	RoleUser = devnet.RoleUser
)

// UserKeys is how many user keys (UserDevKey(0..UserKeys-1)) every development chain funds.
const UserKeys = devnet.UserKeys

// DevKey returns the development key of role number index (from 0): devnet.DevKey.
func DevKey(role string, index int) *ecdsa.PrivateKey { return devnet.DevKey(role, index) }

// RelayerDevKey is the relayer's development signing key number index: what a relayer outside
// the process uses to send to a `relayer devchain` chain. DEVELOPMENT ONLY: the key is public.
func RelayerDevKey(index int) *ecdsa.PrivateKey { return devnet.RelayerDevKey(index) }

// UserDevKey is the development user key number index (0..UserKeys-1 are funded): an end user's
// account for tests, e.g. a delegator (Chain.DelegateForUserDecryption). DEVELOPMENT ONLY.
func UserDevKey(index int) *ecdsa.PrivateKey { return devnet.UserDevKey(index) }

// WalletOwnerKey is the key whose signatures the development wallet Addresses.Wallets[i]
// accepts through ERC-1271: UserDevKey(14+i), for i 0 or 1. It panics for another i.
// DEVELOPMENT ONLY.
func WalletOwnerKey(i int) *ecdsa.PrivateKey { return devnet.WalletOwnerKey(i) }

// DecryptionAddress is where every development chain deploys Decryption (Addresses.Decryption):
// the deployer key's contract address at nonce 1. It is the verifying contract of the EIP-712
// data a user signs for a user decryption, known without a running chain (to a client of a chain
// another process runs, say).
func DecryptionAddress() common.Address { return devnet.DecryptionAddress() }

// WalletAddress is where every development chain deploys its wallet i (Addresses.Wallets[i],
// owned by WalletOwnerKey(i)): the deployer key's contract address at nonce 5+i. It is known
// without a running chain, e.g. to a client of a chain another process runs. It panics for an i
// other than 0 or 1.
func WalletAddress(i int) common.Address { return devnet.WalletAddress(i) }

func devKeys(role string, n int) []*ecdsa.PrivateKey {
	keys := make([]*ecdsa.PrivateKey, n)
	for i := range keys {
		keys[i] = DevKey(role, i)
	}
	return keys
}
