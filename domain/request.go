package domain

// The request payloads as the relayer keeps them once validated: addresses lowercase with 0x,
// handles lowercase 0x + 64 hex, byte strings lowercase hex without 0x (as the public API takes
// them), extraData as given ("0x00" at least). ParseInputProof, ParsePublicDecrypt and
// ParseUserDecrypt produce them from request bodies.

// InputProofRequest asks the coprocessors to verify a ZK proof of encrypted inputs.
type InputProofRequest struct {
	ContractChainID uint64 `json:"contractChainId"`
	ContractAddress string `json:"contractAddress"`
	UserAddress     string `json:"userAddress"`
	// Ciphertext is ciphertextWithInputVerification: hex, no 0x.
	Ciphertext string `json:"ciphertextWithInputVerification"`
	ExtraData  string `json:"extraData"`
}

// PublicDecryptRequest asks the KMS to decrypt handles publicly.
type PublicDecryptRequest struct {
	CiphertextHandles []string `json:"ciphertextHandles"`
	ExtraData         string   `json:"extraData"`
}

// HandleContractPair is one handle a user asks to decrypt and the contract it belongs to.
type HandleContractPair struct {
	Handle          string `json:"handle"`
	ContractAddress string `json:"contractAddress"`
}

// RequestValidity is the window in which a user decrypt's signature is valid.
type RequestValidity struct {
	StartTimestamp uint64 `json:"startTimestamp,string"`
	DurationDays   uint64 `json:"durationDays,string"`
}

// UserDecryptRequest asks the KMS to re-encrypt handles to a user's public key.
type UserDecryptRequest struct {
	HandleContractPairs []HandleContractPair `json:"handleContractPairs"`
	RequestValidity     RequestValidity      `json:"requestValidity"`
	ContractsChainID    uint64               `json:"contractsChainId"`
	ContractAddresses   []string             `json:"contractAddresses"`
	UserAddress         string               `json:"userAddress"`
	// Signature is the user's EIP-712 signature: 130 hex, no 0x.
	Signature string `json:"signature"`
	// PublicKey is the key the shares are re-encrypted to: hex, no 0x.
	PublicKey string `json:"publicKey"`
	ExtraData string `json:"extraData"`
}

// DelegatedUserDecryptRequest asks the KMS to re-encrypt handles of a delegator to the public key
// of a delegate the delegator authorised on the host ACL (the public SDK's delegatedUserDecrypt:
// the validity window is in flat fields, not in requestValidity).
type DelegatedUserDecryptRequest struct {
	HandleContractPairs []HandleContractPair `json:"handleContractPairs"`
	ContractsChainID    uint64               `json:"contractsChainId"`
	ContractAddresses   []string             `json:"contractAddresses"`
	DelegatorAddress    string               `json:"delegatorAddress"`
	DelegateAddress     string               `json:"delegateAddress"`
	StartTimestamp      uint64               `json:"startTimestamp,string"`
	DurationDays        uint64               `json:"durationDays,string"`
	// Signature is the delegate's EIP-712 signature: 130 hex, no 0x.
	Signature string `json:"signature"`
	// PublicKey is the delegate's key the shares are re-encrypted to: hex, no 0x.
	PublicKey string `json:"publicKey"`
	ExtraData string `json:"extraData"`
}

// Request is exactly one of the four payloads.
type Request struct {
	InputProof           *InputProofRequest           `json:"inputProof,omitempty"`
	PublicDecrypt        *PublicDecryptRequest        `json:"publicDecrypt,omitempty"`
	UserDecrypt          *UserDecryptRequest          `json:"userDecrypt,omitempty"`
	DelegatedUserDecrypt *DelegatedUserDecryptRequest `json:"delegatedUserDecrypt,omitempty"`
}

// Kind is the kind of the payload present, or the zero Kind if not exactly one is.
func (r Request) Kind() Kind {
	n, k := 0, Kind{}
	if r.InputProof != nil {
		n, k = n+1, InputProof
	}
	if r.PublicDecrypt != nil {
		n, k = n+1, PublicDecrypt
	}
	if r.UserDecrypt != nil {
		n, k = n+1, UserDecrypt
	}
	if r.DelegatedUserDecrypt != nil {
		n, k = n+1, DelegatedUserDecrypt
	}
	if n != 1 {
		return Kind{}
	}
	return k
}

// Share is one KMS node's answer to a user decrypt: the payload re-encrypted to the user's key.
type Share struct {
	// Signer identifies the KMS node (its address); shares are counted per distinct signer.
	Signer    string `json:"signer"`
	Payload   string `json:"payload"`
	Signature string `json:"signature"`
	ExtraData string `json:"extraData"`
}

// InputProofResult is the coprocessors' verdict on an input proof.
type InputProofResult struct {
	Accepted   bool     `json:"accepted"`
	Handles    []string `json:"handles"`
	Signatures []string `json:"signatures"`
	ExtraData  string   `json:"extraData"`
}

// PublicDecryptResult is the KMS's public decryption.
type PublicDecryptResult struct {
	DecryptedValue string   `json:"decryptedValue"`
	Signatures     []string `json:"signatures"`
	ExtraData      string   `json:"extraData"`
}

// UserDecryptShare is one share as the API returns it.
type UserDecryptShare struct {
	Payload   string `json:"payload"`
	Signature string `json:"signature"`
	ExtraData string `json:"extraData"`
}

// UserDecryptResult is the threshold of shares a user decrypt completes with.
type UserDecryptResult struct {
	Result []UserDecryptShare `json:"result"`
}

// Result is exactly one of the three kinds' results.
type Result struct {
	InputProof    *InputProofResult    `json:"inputProof,omitempty"`
	PublicDecrypt *PublicDecryptResult `json:"publicDecrypt,omitempty"`
	UserDecrypt   *UserDecryptResult   `json:"userDecrypt,omitempty"`
}

// Kind is the kind of the result present, or the zero Kind if not exactly one is.
func (r Result) Kind() Kind {
	n, k := 0, Kind{}
	if r.InputProof != nil {
		n, k = n+1, InputProof
	}
	if r.PublicDecrypt != nil {
		n, k = n+1, PublicDecrypt
	}
	if r.UserDecrypt != nil {
		n, k = n+1, UserDecrypt
	}
	if n != 1 {
		return Kind{}
	}
	return k
}
