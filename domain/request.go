package domain

// The request payloads as the relayer keeps them once validated: addresses lowercase with 0x,
// handles lowercase 0x + 64 hex, byte strings lowercase hex without 0x (as the public API takes
// them), extraData as given ("0x00" at least). ParseInputProof, ParsePublicDecrypt,
// ParseUserDecrypt, ParseDelegatedUserDecrypt and ParseUnifiedUserDecrypt produce them from
// request bodies.

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

// HandleEntry is one handle of a unified user decrypt: the handle, the contract it belongs to,
// and the address it is allowed for (the request's user for direct access, else a delegator
// who delegated it to the user on the host ACL).
type HandleEntry struct {
	Handle          string `json:"ctHandle"`
	ContractAddress string `json:"contractAddress"`
	OwnerAddress    string `json:"ownerAddress"`
}

// UnifiedUserDecryptRequest is a user decrypt in the unified EIP-712 form (POST
// /v3/user-decrypt, attestation type eip712-unified-user-decrypt-v1): direct and delegated
// handles in one request, the validity window in seconds, and a signature that an externally
// owned account makes or a contract wallet accepts (ERC-1271; empty for some wallets). It is a
// user decrypt job like the v2 shape; only the gateway call differs (the unified
// userDecryptionRequest). The host chain is the one every handle names.
type UnifiedUserDecryptRequest struct {
	Handles          []HandleEntry `json:"handles"`
	UserAddress      string        `json:"userAddress"`
	AllowedContracts []string      `json:"allowedContracts"`
	StartTimestamp   uint64        `json:"startTimestamp,string"`
	DurationSeconds  uint64        `json:"durationSeconds,string"`
	// PublicKey is the key the shares are re-encrypted to: hex, no 0x.
	PublicKey string `json:"publicKey"`
	ExtraData string `json:"extraData"`
	// Signature is hex without 0x, empty when the user's contract wallet accepts none.
	Signature string `json:"signature"`
}

// ChainID is the host chain of the request's handles (all share it).
func (u *UnifiedUserDecryptRequest) ChainID() uint64 {
	if len(u.Handles) == 0 {
		return 0
	}
	h, err := ParseHandle(u.Handles[0].Handle)
	if err != nil {
		return 0
	}
	return HostChainID(h)
}

// Request is exactly one of the payloads. A user decrypt comes in two representations, the v2
// one (UserDecrypt) and the unified one (UnifiedUserDecrypt); both are of kind UserDecrypt.
type Request struct {
	InputProof           *InputProofRequest           `json:"inputProof,omitempty"`
	PublicDecrypt        *PublicDecryptRequest        `json:"publicDecrypt,omitempty"`
	UserDecrypt          *UserDecryptRequest          `json:"userDecrypt,omitempty"`
	DelegatedUserDecrypt *DelegatedUserDecryptRequest `json:"delegatedUserDecrypt,omitempty"`
	UnifiedUserDecrypt   *UnifiedUserDecryptRequest   `json:"unifiedUserDecrypt,omitempty"`
}

// Kind is the kind of the payload present, or the zero Kind if not exactly one is.
func (r Request) Kind() Kind {
	return onlyKind(
		kindIf{r.InputProof != nil, InputProof},
		kindIf{r.PublicDecrypt != nil, PublicDecrypt},
		kindIf{r.UserDecrypt != nil, UserDecrypt},
		kindIf{r.DelegatedUserDecrypt != nil, DelegatedUserDecrypt},
		kindIf{r.UnifiedUserDecrypt != nil, UserDecrypt},
	)
}

// kindIf is a payload's kind, if the payload is present.
type kindIf struct {
	present bool
	kind    Kind
}

// onlyKind is the kind of the one payload present, or the zero Kind if not exactly one is.
func onlyKind(payloads ...kindIf) Kind {
	n, k := 0, Kind{}
	for _, p := range payloads {
		if p.present {
			n, k = n+1, p.kind
		}
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
	return onlyKind(
		kindIf{r.InputProof != nil, InputProof},
		kindIf{r.PublicDecrypt != nil, PublicDecrypt},
		kindIf{r.UserDecrypt != nil, UserDecrypt},
	)
}

// WithEOASignature returns r with a unified user decrypt's signature written as the gateway's
// ECDSA takes it, for a signature admission recovered to the user's own key (an externally owned
// account's, 65 bytes): v as 27 or 28 rather than 0 or 1 (how some wallets write it). The same
// signature then has one form, and one content hash. A contract wallet's signature is its own to
// read and is never passed here. Other requests are returned as they are.
func (r Request) WithEOASignature() Request {
	u := r.UnifiedUserDecrypt
	if u == nil || len(u.Signature) != 130 {
		return r
	}
	var v string
	switch u.Signature[128:] {
	case "00":
		v = "1b"
	case "01":
		v = "1c"
	default:
		return r
	}
	c := *u
	c.Signature = u.Signature[:128] + v
	r.UnifiedUserDecrypt = &c
	return r
}
