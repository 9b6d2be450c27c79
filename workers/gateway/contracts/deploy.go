package contracts

import (
	"crypto/ecdsa"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Deployment is where the gateway's five contracts stand: Decryption and InputVerification on
// the gateway chain, ACL, InputVerifier and KMSVerifier on the host chain.
type Deployment struct {
	Decryption        common.Address
	InputVerification common.Address
	ACL               common.Address
	// InputVerifier (host) lists the coprocessor signers and the gateway's majority, and reports
	// InputVerification's EIP-712 domain.
	InputVerifier common.Address
	// KMSVerifier (host) lists the KMS signers and the Decryption threshold, and reports
	// Decryption's EIP-712 domain.
	KMSVerifier common.Address
}

// Signers are whom a deployment's contracts take answers from.
type Signers struct {
	// KMS are the KMS nodes' signers, in registration order; Threshold of them answer a
	// decryption.
	KMS       []common.Address
	Threshold int
	// Coprocessors are the coprocessors' signers, in registration order; InputVerification
	// decides by a majority of them, and InputVerifier reports Majority.
	Coprocessors []common.Address
	Majority     int
}

// SignerAddresses are the addresses of keys, in their order.
func SignerAddresses(keys []*ecdsa.PrivateKey) []common.Address {
	out := make([]common.Address, len(keys))
	for i, k := range keys {
		out[i] = crypto.PubkeyToAddress(k.PublicKey)
	}
	return out
}

// DeployFunc deploys the contract name, of bytecode bin (hex) with the constructor arguments
// input, and returns its address once it is deployed.
type DeployFunc func(name, bin string, input []byte) (common.Address, error)

// Deploy deploys ACL, Decryption, InputVerification, InputVerifier and KMSVerifier, in that
// order, with deploy: Decryption checks delegated user decryptions against the ACL,
// InputVerification knows Decryption, and the host verifiers list s's signers and report the
// gateway's EIP-712 domains, on the gateway chain gatewayChainID. It stops at deploy's first
// error and returns it.
func Deploy(deploy DeployFunc, s Signers, gatewayChainID *big.Int) (Deployment, error) {
	var d Deployment
	var err error
	if d.ACL, err = deploy("ACL", ACLMetaData.Bin, nil); err != nil {
		return d, err
	}
	if d.Decryption, err = deploy("Decryption", DecryptionMetaData.Bin,
		NewDecryption().PackConstructor(s.KMS, big.NewInt(int64(s.Threshold)), d.ACL)); err != nil {
		return d, err
	}
	if d.InputVerification, err = deploy("InputVerification", InputVerificationMetaData.Bin,
		NewInputVerification().PackConstructor(s.Coprocessors, d.Decryption)); err != nil {
		return d, err
	}
	if d.InputVerifier, err = deploy("InputVerifier", InputVerifierMetaData.Bin,
		NewInputVerifier().PackConstructor(s.Coprocessors, big.NewInt(int64(s.Majority)), gatewayChainID, d.InputVerification)); err != nil {
		return d, err
	}
	if d.KMSVerifier, err = deploy("KMSVerifier", KMSVerifierMetaData.Bin,
		NewKMSVerifier().PackConstructor(s.KMS, big.NewInt(int64(s.Threshold)), gatewayChainID, d.Decryption)); err != nil {
		return d, err
	}
	return d, nil
}

// Bound is a deployment's contracts as a client calls them: each one's binding, and its
// instance at the contract's address.
type Bound struct {
	Decryption        *Decryption
	InputVerification *InputVerification
	ACL               *ACL
	InputVerifier     *InputVerifier
	KMSVerifier       *KMSVerifier

	DecryptionAt        *bind.BoundContract
	InputVerificationAt *bind.BoundContract
	ACLAt               *bind.BoundContract
	InputVerifierAt     *bind.BoundContract
	KMSVerifierAt       *bind.BoundContract
}

// Bind binds the contracts of d on backend.
func Bind(backend bind.ContractBackend, d Deployment) Bound {
	b := Bound{Decryption: NewDecryption(), InputVerification: NewInputVerification(), ACL: NewACL(),
		InputVerifier: NewInputVerifier(), KMSVerifier: NewKMSVerifier()}
	b.DecryptionAt = b.Decryption.Instance(backend, d.Decryption)
	b.InputVerificationAt = b.InputVerification.Instance(backend, d.InputVerification)
	b.ACLAt = b.ACL.Instance(backend, d.ACL)
	b.InputVerifierAt = b.InputVerifier.Instance(backend, d.InputVerifier)
	b.KMSVerifierAt = b.KMSVerifier.Instance(backend, d.KMSVerifier)
	return b
}
