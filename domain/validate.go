package domain

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file turns the bodies of the public API's POST requests (v2's four and v3's user decrypt,
// JSON, camelCase) into the normalized payloads of request.go, or into a *ValidationError that
// says everything that is wrong with them.
//
// Labels and their precedence. A body can be wrong in several ways at once; the error carries
// exactly one label, the first that applies in this order:
//
//  1. malformed_json: the body is not JSON, or not a JSON object. Nothing else is checked.
//  2. missing_fields: required fields are absent (or null). Details list every missing field,
//     and only those.
//  3. validation_failed: fields are present but wrong (type, format, range, size, cross-field
//     rules), duplicated, or unknown. Details list every such problem.
//  4. host_chain_id_not_supported: the request is otherwise valid but names a chain (a chain id
//     field, or the chain encoded in a handle) that is not one of the configured host chains.
//
// Details come in the order of the fields in the request's schema (the order of request.go and of
// the API documentation), nested fields and array entries where their parent is, unknown fields
// last within their object. Each field gets at most one issue: the first rule it breaks.

// zeroAddress is the zero address as the Parse functions normalize addresses.
const zeroAddress = "0x0000000000000000000000000000000000000000"

// Validation error labels, as the API reports them.
const (
	LabelMalformedJSON           = "malformed_json"
	LabelMissingFields           = "missing_fields"
	LabelValidationFailed        = "validation_failed"
	LabelHostChainIDNotSupported = "host_chain_id_not_supported"
)

// FieldIssue is one problem with one field. Field is the field's path with its JSON names and
// array indices: "userAddress", "ciphertextHandles[0]", "handleContractPairs[2].handle",
// "requestValidity.durationDays".
type FieldIssue struct {
	Field string `json:"field"`
	Issue string `json:"issue"`
}

// ValidationError reports a request body the relayer refuses. Label is one of the Label*
// constants above; Details has one entry per problem (none for malformed_json).
type ValidationError struct {
	Label   string       `json:"label"`
	Message string       `json:"message"`
	Details []FieldIssue `json:"details,omitempty"`
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString(e.Label)
	b.WriteString(": ")
	b.WriteString(e.Message)
	for i, d := range e.Details {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(d.Field)
		b.WriteString(": ")
		b.WriteString(d.Issue)
	}
	return b.String()
}

// Defaults for the limits of ValidationConfig left at zero.
const (
	// DefaultMaxHandles bounds ciphertextHandles and handleContractPairs: a gateway request of 32
	// handles costs the development gateway about 5M gas (about 135k a handle), within the
	// default gas limit, and the gateway decrypts at most 2,048 bits at once (32 euint64s).
	DefaultMaxHandles = 32
	// DefaultMaxContractAddresses is the gateway's own limit on a user decrypt's contractAddresses
	// (MAX_USER_DECRYPT_CONTRACT_ADDRESSES in the Decryption contract).
	DefaultMaxContractAddresses = 10
	// DefaultMaxCiphertextBytes bounds an input proof's ciphertextWithInputVerification, decoded.
	// The ciphertext is the calldata of the gateway transaction, which nodes refuse beyond
	// 128 KiB (go-ethereum's pool, and the gateway chain's): 120 KiB leaves room for the other
	// arguments, the largest extraData and the transaction's envelope, so that every input proof
	// accepted can be sent. The public SDK's largest input (2048 bits with its proof) is far
	// smaller.
	DefaultMaxCiphertextBytes = 120 << 10
	// DefaultMaxPublicKeyBytes bounds a user decrypt's publicKey, decoded: an ML-KEM-512 key as
	// the SDK serializes it is about 800 bytes. The gateway keeps the key in storage, at some 4k
	// gas a byte on the development gateway: a key of a few kilobytes makes a gateway request
	// beyond the gas limit (refused at gas estimation, after acceptance).
	DefaultMaxPublicKeyBytes = 1 << 10
	// DefaultMaxExtraDataBytes bounds extraData, decoded: the SDK sends one byte (the version);
	// the gateway keeps it in storage, at the public key's cost a byte.
	DefaultMaxExtraDataBytes = 256
	// DefaultMaxDurationDays is the gateway's limit on requestValidity.durationDays
	// (MAX_USER_DECRYPT_DURATION_DAYS in the Decryption contract).
	DefaultMaxDurationDays = 365
)

// ErrInvalidValidationConfig is wrapped by the error of ValidationConfig.Validate, and by the
// (non-*ValidationError) error the Parse functions return when given an invalid config.
var ErrInvalidValidationConfig = errors.New("invalid validation config")

// ValidationConfig is what request validation depends on besides the body. Limits left at zero
// take their Default*; negative limits are invalid.
type ValidationConfig struct {
	// HostChainIDs are the host chains this relayer serves: a request naming any other chain is
	// refused with host_chain_id_not_supported. At least one is required.
	HostChainIDs []uint64
	// MaxHandles bounds the entries of ciphertextHandles and of handleContractPairs.
	MaxHandles int
	// MaxContractAddresses bounds the entries of a user decrypt's contractAddresses.
	MaxContractAddresses int
	// MaxCiphertextBytes bounds ciphertextWithInputVerification (decoded bytes, i.e. half its
	// hex digits).
	MaxCiphertextBytes int
	// MaxPublicKeyBytes bounds a user decrypt's publicKey (decoded bytes).
	MaxPublicKeyBytes int
	// MaxExtraDataBytes bounds extraData (decoded bytes, without the 0x).
	MaxExtraDataBytes int
	// MaxDurationDays bounds requestValidity.durationDays.
	MaxDurationDays uint64
}

// Validate reports a config the Parse functions cannot work with: no host chain, a zero or
// repeated host chain id, or a negative limit. The error is a *ValidationConfigError listing
// every problem by its field; it wraps ErrInvalidValidationConfig.
func (c ValidationConfig) Validate() error {
	var ps []FieldIssue
	add := func(field, issue string) { ps = append(ps, FieldIssue{Field: field, Issue: issue}) }
	if len(c.HostChainIDs) == 0 {
		add("host_chain_ids", "must name at least one host chain")
	}
	seen := make(map[uint64]bool, len(c.HostChainIDs))
	for _, id := range c.HostChainIDs {
		switch {
		case id == 0:
			add("host_chain_ids", "must not contain 0")
		case seen[id]:
			add("host_chain_ids", fmt.Sprintf("lists %d more than once", id))
		}
		seen[id] = true
	}
	for _, l := range []struct {
		name string
		v    int
	}{
		{"max_handles", c.MaxHandles},
		{"max_contract_addresses", c.MaxContractAddresses},
		{"max_ciphertext_bytes", c.MaxCiphertextBytes},
		{"max_public_key_bytes", c.MaxPublicKeyBytes},
		{"max_extra_data_bytes", c.MaxExtraDataBytes},
	} {
		if l.v < 0 {
			add(l.name, "must not be negative (0 means the default)")
		}
	}
	if len(ps) > 0 {
		return &ValidationConfigError{Problems: ps}
	}
	return nil
}

// withDefaults returns c with every zero limit replaced by its default.
func (c ValidationConfig) withDefaults() ValidationConfig {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.MaxHandles, DefaultMaxHandles)
	def(&c.MaxContractAddresses, DefaultMaxContractAddresses)
	def(&c.MaxCiphertextBytes, DefaultMaxCiphertextBytes)
	def(&c.MaxPublicKeyBytes, DefaultMaxPublicKeyBytes)
	def(&c.MaxExtraDataBytes, DefaultMaxExtraDataBytes)
	c.MaxDurationDays = cmp.Or(c.MaxDurationDays, DefaultMaxDurationDays)
	return c
}

// HostChainID is the id of the host chain a handle was created on: the big-endian uint64 in the
// handle's bytes 22 to 29 (0-based, inclusive). Bytes 0-20 are a hash, 21 the index in its
// input, 30 the FHE type and 31 the handle version.
func HostChainID(handle [32]byte) uint64 {
	return binary.BigEndian.Uint64(handle[22:30])
}

// MaxDecryptionBits is the gateway's bound on what one decryption request decrypts, in bits of
// cleartext over all its handles (MAX_DECRYPTION_REQUEST_BITS in the Decryption contract; the
// public SDK checks it too).
const MaxDecryptionBits = 2048

// fheTypeBits is the cleartext size of each FHE type the gateway decrypts, by the type byte of a
// handle (its byte 30): ebool counts 2 bits, eaddress 160; euint4 (1) and types past euint2048
// are not decrypted.
var fheTypeBits = map[byte]int{0: 2, 2: 8, 3: 16, 4: 32, 5: 64, 6: 128, 7: 160, 8: 256, 9: 512, 10: 1024, 11: 2048}

// HandleType is a handle's FHE type byte.
func HandleType(handle [32]byte) byte { return handle[30] }

// decryptBits adds up the cleartext bits of a request's handles, as the gateway does.
type decryptBits struct{ total int }

// add counts the handle at path, or reports that the gateway does not decrypt its type.
func (d *decryptBits) add(p *parser, path string, handle [32]byte) {
	bits, ok := fheTypeBits[HandleType(handle)]
	if !ok {
		p.sink.addInvalid(path, fmt.Sprintf("is of FHE type %d, which the gateway does not decrypt (ebool, euint8 to euint2048 and eaddress)", HandleType(handle)))
		return
	}
	d.total += bits
}

// check reports handles of more than MaxDecryptionBits in all, naming the list at path.
func (d *decryptBits) check(p *parser, path string) {
	if d.total > MaxDecryptionBits {
		p.sink.addInvalid(path, fmt.Sprintf("must decrypt at most %d bits in all (the gateway's limit), has %d: split the request", MaxDecryptionBits, d.total))
	}
}

// ParseHandle reads a handle in the API's form, 0x followed by 64 hex digits of either case.
func ParseHandle(s string) ([32]byte, error) {
	h, _, issue := normalizeHandle(s)
	if issue != "" {
		return [32]byte{}, fmt.Errorf("handle %s", issue)
	}
	return h, nil
}

// Field names of each request body, in schema order.
var (
	inputProofFields    = []string{"contractChainId", "contractAddress", "userAddress", "ciphertextWithInputVerification", "extraData"}
	publicDecryptFields = []string{"ciphertextHandles", "extraData"}
	userDecryptFields   = []string{"handleContractPairs", "requestValidity", "contractsChainId", "contractAddresses", "userAddress", "signature", "publicKey", "extraData"}
	delegatedFields     = []string{"handleContractPairs", "contractsChainId", "contractAddresses", "delegatorAddress", "delegateAddress", "startTimestamp", "durationDays", "signature", "publicKey", "extraData"}
	pairFields          = []string{"handle", "contractAddress"}
	validityFields      = []string{"startTimestamp", "durationDays"}
	// The unified user decrypt (v3): an envelope around the EIP-712 payload the user signed.
	envelopeFields        = []string{"attestationType", "attestedPayload", "signature"}
	unifiedFields         = []string{"version", "type", "handles", "userAddress", "allowedContracts", "requestValidity", "publicKey", "extraData"}
	handleEntryFields     = []string{"ctHandle", "contractAddress", "ownerAddress"}
	validitySecondsFields = []string{"startTimestamp", "durationSeconds"}
)

// The fixed values of a unified user decrypt's envelope and payload, as the reference relayer
// requires them: a later attestation scheme is another attestationType.
const (
	AttestationEIP712UnifiedV1 = "eip712-unified-user-decrypt-v1"
	unifiedPayloadVersion      = "2.0"
	unifiedPayloadType         = "user_decryption"
	// maxWalletSignatureBytes bounds a unified request's signature: a contract wallet's may be
	// longer than 65 bytes (several owners' signatures, say).
	maxWalletSignatureBytes = 8 << 10
)

// ParseInputProof validates an input proof body and returns its normalized payload. Errors are
// *ValidationError, except for an invalid cfg (see ValidationConfig.Validate).
func ParseInputProof(body []byte, cfg ValidationConfig) (InputProofRequest, error) {
	return parse(body, cfg, inputProofFields, func(p *parser, obj *jsonObject) InputProofRequest {
		var out InputProofRequest
		out.ContractChainID = p.hostChainField(obj, "contractChainId")
		out.ContractAddress = member(p, obj, "contractAddress", p.address)
		out.UserAddress = member(p, obj, "userAddress", p.address)
		if raw, ok := p.field(obj, "ciphertextWithInputVerification"); ok {
			out.Ciphertext, _ = p.bareHex("ciphertextWithInputVerification", raw, p.cfg.MaxCiphertextBytes)
		}
		out.ExtraData = member(p, obj, "extraData", p.inputProofExtraData)
		return out
	})
}

// ParsePublicDecrypt validates a public decrypt body and returns its normalized payload. Errors
// are *ValidationError, except for an invalid cfg (see ValidationConfig.Validate).
func ParsePublicDecrypt(body []byte, cfg ValidationConfig) (PublicDecryptRequest, error) {
	return parse(body, cfg, publicDecryptFields, func(p *parser, obj *jsonObject) PublicDecryptRequest {
		var out PublicDecryptRequest
		if elems, ok := p.arrayMember(obj, "ciphertextHandles", p.cfg.MaxHandles); ok {
			var bits decryptBits
			defer bits.check(p, "ciphertextHandles")
			out.CiphertextHandles = make([]string, len(elems))
			first := map[string]int{}
			for i, e := range elems {
				path := indexPath("ciphertextHandles", i)
				if h, b, ok := p.handle(path, e); ok {
					out.CiphertextHandles[i] = h
					p.hostChain(path, HostChainID(b))
					bits.add(p, path, b)
					if j, dup := first[h]; dup {
						p.sink.addInvalid(path, fmt.Sprintf("repeats %s: each handle once", indexPath("ciphertextHandles", j)))
					} else {
						first[h] = i
					}
				}
			}
		}
		out.ExtraData = member(p, obj, "extraData", p.extraData)
		return out
	})
}

// ParseUserDecrypt validates a user decrypt body and returns its normalized payload. Besides each
// field's own rules: every pair's contractAddress must be listed in contractAddresses, and
// userAddress must not be (the gateway refuses both). The signature is checked for form only, and
// the validity window is not compared with any clock. Errors are *ValidationError, except for an
// invalid cfg (see ValidationConfig.Validate).
func ParseUserDecrypt(body []byte, cfg ValidationConfig) (UserDecryptRequest, error) {
	return parse(body, cfg, userDecryptFields, func(p *parser, obj *jsonObject) UserDecryptRequest {
		var out UserDecryptRequest
		pairs, listed := p.pairs(obj)
		out.HandleContractPairs = pairs
		if raw, ok := p.field(obj, "requestValidity"); ok {
			if vobj, ok := p.object("requestValidity", raw, validityFields); ok {
				out.RequestValidity.StartTimestamp, out.RequestValidity.DurationDays = p.validityDays(vobj)
				p.finish(vobj)
			}
		}
		out.ContractsChainID = p.hostChainField(obj, "contractsChainId")
		out.ContractAddresses, _ = p.contractAddresses(obj)
		if raw, ok := p.field(obj, "userAddress"); ok {
			if a, ok := p.address("userAddress", raw); ok {
				out.UserAddress = a
				if slices.Contains(listed, a) {
					p.sink.addInvalid("userAddress", "must not be one of contractAddresses")
				}
			}
		}
		out.Signature, out.PublicKey, out.ExtraData = p.keyFields(obj)
		return out
	})
}

// ParseDelegatedUserDecrypt validates a delegated user decrypt body (the public SDK's
// delegatedUserDecrypt) and returns its normalized payload. The rules are a user decrypt's, with
// the delegator standing where the user stands (not one of contractAddresses), and the delegate
// neither the delegator nor one of contractAddresses. The signature is checked for form only;
// the delegation itself is checked on the host ACL before anything is sent.
func ParseDelegatedUserDecrypt(body []byte, cfg ValidationConfig) (DelegatedUserDecryptRequest, error) {
	return parse(body, cfg, delegatedFields, func(p *parser, obj *jsonObject) DelegatedUserDecryptRequest {
		var out DelegatedUserDecryptRequest
		pairs, listed := p.pairs(obj)
		out.HandleContractPairs = pairs
		out.ContractsChainID = p.hostChainField(obj, "contractsChainId")
		out.ContractAddresses, _ = p.contractAddresses(obj)
		for _, f := range []struct {
			name string
			dst  *string
		}{{"delegatorAddress", &out.DelegatorAddress}, {"delegateAddress", &out.DelegateAddress}} {
			if raw, ok := p.field(obj, f.name); ok {
				if a, ok := p.address(f.name, raw); ok {
					*f.dst = a
					switch {
					case a == zeroAddress:
						p.sink.addInvalid(f.name, "must not be the zero address (nobody holds its key)")
					case slices.Contains(listed, a):
						p.sink.addInvalid(f.name, "must not be one of contractAddresses")
					}
				}
			}
		}
		if out.DelegateAddress != "" && out.DelegateAddress != zeroAddress && out.DelegateAddress == out.DelegatorAddress {
			p.sink.addInvalid("delegateAddress", "must differ from delegatorAddress")
		}
		out.StartTimestamp, out.DurationDays = p.validityDays(obj)
		out.Signature, out.PublicKey, out.ExtraData = p.keyFields(obj)
		return out
	})
}

// ParseUnifiedUserDecrypt validates a unified user decrypt body (POST /v3/user-decrypt: the
// envelope {attestationType, attestedPayload, signature}) and returns its normalized payload.
// Field paths name the envelope's members ("attestedPayload.handles[0].ctHandle"). Besides each
// field's own rules: the handles are all on one configured host chain (the EIP-712 domain names
// one), no entry is repeated, and the validity window is at most the gateway's longest. The
// signature is checked for form only ("" or 0x-hex), and the window is not compared with any
// clock. Errors are *ValidationError, except for an invalid cfg.
func ParseUnifiedUserDecrypt(body []byte, cfg ValidationConfig) (UnifiedUserDecryptRequest, error) {
	return parse(body, cfg, envelopeFields, func(p *parser, env *jsonObject) UnifiedUserDecryptRequest {
		var out UnifiedUserDecryptRequest
		p.fixed(env, "attestationType", AttestationEIP712UnifiedV1)
		if raw, ok := p.field(env, "attestedPayload"); ok {
			if obj, ok := p.object("attestedPayload", raw, unifiedFields); ok {
				p.unifiedPayload(obj, &out)
				p.finish(obj)
			}
		}
		if raw, ok := p.field(env, "signature"); ok {
			out.Signature, _ = p.prefixedHex("signature", raw, true, maxWalletSignatureBytes)
		}
		return out
	})
}

// unifiedPayload reads the members of a unified user decrypt's attestedPayload into out.
func (p *parser) unifiedPayload(obj *jsonObject, out *UnifiedUserDecryptRequest) {
	p.fixed(obj, "version", unifiedPayloadVersion)
	p.fixed(obj, "type", unifiedPayloadType)
	if raw, ok := p.field(obj, "handles"); ok {
		out.Handles = p.handleEntries("attestedPayload.handles", raw)
	}
	if raw, ok := p.field(obj, "userAddress"); ok {
		if a, ok := p.address("attestedPayload.userAddress", raw); ok {
			out.UserAddress = a
			if a == zeroAddress {
				p.sink.addInvalid("attestedPayload.userAddress", "must not be the zero address (nobody holds its key)")
			}
		}
	}
	if raw, ok := p.field(obj, "allowedContracts"); ok {
		out.AllowedContracts = p.allowedContracts("attestedPayload.allowedContracts", raw)
		if slices.Contains(out.AllowedContracts, out.UserAddress) {
			p.sink.addInvalid("attestedPayload.userAddress", "must not be one of allowedContracts")
		}
		if len(out.AllowedContracts) > 0 {
			// A non-empty list is the user's allowlist (empty: any contract), which the KMS
			// enforces: a handle of another contract would buy a request it refuses.
			for i, h := range out.Handles {
				if h.ContractAddress != "" && !slices.Contains(out.AllowedContracts, h.ContractAddress) {
					p.sink.addInvalid(indexPath("attestedPayload.handles", i)+".contractAddress", "must be one of attestedPayload.allowedContracts (the signed allowlist)")
				}
			}
		}
	}
	if raw, ok := p.field(obj, "requestValidity"); ok {
		if vobj, ok := p.object("attestedPayload.requestValidity", raw, validitySecondsFields); ok {
			out.StartTimestamp = member(p, vobj, "startTimestamp", p.startTimestamp)
			if raw, ok := p.field(vobj, "durationSeconds"); ok {
				path := "attestedPayload.requestValidity.durationSeconds"
				if d, ok := p.decimalString(path, raw); ok {
					switch longest := p.cfg.MaxDurationDays * 86400; {
					case d < 1:
						p.sink.addInvalid(path, "must be at least 1")
					case d > longest:
						p.sink.addInvalid(path, fmt.Sprintf("must be at most %d (%d days)", longest, p.cfg.MaxDurationDays))
					default:
						out.DurationSeconds = d
					}
				}
			}
			p.finish(vobj)
		}
	}
	if raw, ok := p.field(obj, "publicKey"); ok {
		out.PublicKey, _ = p.prefixedHex("attestedPayload.publicKey", raw, false, p.cfg.MaxPublicKeyBytes)
	}
	out.ExtraData = member(p, obj, "extraData", p.extraData)
}

// fixed reads a string member of obj that must equal want.
func (p *parser) fixed(obj *jsonObject, name, want string) {
	raw, ok := p.field(obj, name)
	if !ok {
		return
	}
	path := joinPath(obj.path, name)
	if s, ok := p.str(path, raw); ok && s != want {
		p.sink.addInvalid(path, fmt.Sprintf("must be %q", want))
	}
}

// handleEntries reads a unified user decrypt's handles: each entry's handle (on a configured
// host chain, the same for all), contract and owner, no handle twice.
func (p *parser) handleEntries(path string, raw json.RawMessage) []HandleEntry {
	elems, ok := p.array(path, raw, p.cfg.MaxHandles)
	if !ok {
		return nil
	}
	out := make([]HandleEntry, len(elems))
	first := map[string]int{} // by handle: a handle is decrypted once per request
	var chain uint64
	var bits decryptBits
	defer bits.check(p, path)
	for i, e := range elems {
		epath := indexPath(path, i)
		obj, ok := p.object(epath, e, handleEntryFields)
		if !ok {
			continue
		}
		entry := &out[i]
		if raw, ok := p.field(obj, "ctHandle"); ok {
			if h, b, ok := p.handle(epath+".ctHandle", raw); ok {
				entry.Handle = h
				bits.add(p, epath+".ctHandle", b)
				switch c := HostChainID(b); {
				case chain == 0:
					chain = c
					p.hostChain(epath+".ctHandle", c)
				case c != chain:
					p.sink.addInvalid(epath+".ctHandle", fmt.Sprintf("is on host chain %d, the request's first handle on %d: a request decrypts on one host chain", c, chain))
				}
			}
		}
		entry.ContractAddress = member(p, obj, "contractAddress", p.address)
		entry.OwnerAddress = member(p, obj, "ownerAddress", p.address)
		p.finish(obj)
		if entry.Handle == "" || entry.ContractAddress == "" || entry.OwnerAddress == "" {
			continue
		}
		if j, dup := first[entry.Handle]; dup {
			p.sink.addInvalid(epath+".ctHandle", fmt.Sprintf("repeats the handle of %s: each handle once", indexPath(path, j)))
		} else {
			first[entry.Handle] = i
		}
	}
	return out
}

// allowedContracts reads a unified user decrypt's allowedContracts: addresses, possibly none
// (any contract), at most the gateway's limit.
func (p *parser) allowedContracts(path string, raw json.RawMessage) []string {
	if jsonLead(raw) != '[' {
		p.sink.addInvalid(path, "must be an array, not "+jsonType(raw))
		return nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		p.sink.addInvalid(path, "must be an array")
		return nil
	}
	if len(elems) > p.cfg.MaxContractAddresses {
		p.sink.addInvalid(path, fmt.Sprintf("must have at most %d entries (has %d)", p.cfg.MaxContractAddresses, len(elems)))
		return nil
	}
	out := make([]string, 0, len(elems))
	for i, e := range elems {
		if a, ok := p.address(indexPath(path, i), e); ok {
			out = append(out, a)
		}
	}
	return out
}

// prefixedHex reads 0x-prefixed hex of at most max bytes (nothing after 0x, or "", only when
// empty is allowed), returned lowercase without the 0x.
func (p *parser) prefixedHex(path string, raw json.RawMessage, empty bool, max int) (string, bool) {
	return strAs(p, path, raw, func(s string) (string, string) {
		switch {
		case empty && s == "":
			return "", ""
		case !strings.HasPrefix(s, "0x"):
			return "", "must be 0x-prefixed hex"
		case len(s) == 2 && !empty:
			return "", "must hold at least one byte after 0x"
		case !isHexDigits(s[2:]):
			return "", "must contain only hex digits after 0x" + notHexAt(s[2:], 2)
		case len(s)%2 != 0:
			return "", "must have an even number of hex digits"
		case (len(s)-2)/2 > max:
			return "", fmt.Sprintf("must be at most %d bytes (has %d)", max, (len(s)-2)/2)
		}
		return strings.ToLower(s[2:]), ""
	})
}

// listedContracts reads contractAddresses quietly, for the handle pairs, which come before it,
// to be checked against it; its problems are reported in their place, when it is read again.
// ok is false when it has any.
func (p *parser) listedContracts(obj *jsonObject) (listed []string, ok bool) {
	quiet := p.quiet()
	listed, ok = quiet.contractAddresses(obj)
	return listed, ok && quiet.sink.empty()
}

// hostChainField reads the chain id member name, which must be a configured host chain; 0 when
// it is absent or not a chain id.
func (p *parser) hostChainField(obj *jsonObject, name string) uint64 {
	raw, ok := p.field(obj, name)
	if !ok {
		return 0
	}
	v, ok := p.chainID(name, raw)
	if !ok {
		return 0
	}
	p.hostChain(name, v)
	return v
}

// keyFields reads the members that end a user decrypt body, delegated or not: the signature,
// the public key the shares are re-encrypted to, and the extra data.
func (p *parser) keyFields(obj *jsonObject) (signature, publicKey, extraData string) {
	signature = member(p, obj, "signature", p.signature)
	if raw, ok := p.field(obj, "publicKey"); ok {
		publicKey, _ = p.bareHex("publicKey", raw, p.cfg.MaxPublicKeyBytes)
	}
	extraData = member(p, obj, "extraData", p.extraData)
	return signature, publicKey, extraData
}

// pairs reads handleContractPairs: each pair's handle (on a configured host chain) and contract,
// which must be one of contractAddresses when that is valid. It returns the pairs and
// contractAddresses as listed (see listedContracts), for the caller's checks against it.
func (p *parser) pairs(obj *jsonObject) ([]HandleContractPair, []string) {
	listed, listedOK := p.listedContracts(obj)
	elems, ok := p.arrayMember(obj, "handleContractPairs", p.cfg.MaxHandles)
	if !ok {
		return nil, listed
	}
	out := make([]HandleContractPair, len(elems))
	first := map[HandleContractPair]int{}
	var bits decryptBits
	defer bits.check(p, "handleContractPairs")
	defer func() {
		for i, pair := range out {
			if pair.Handle == "" || pair.ContractAddress == "" {
				continue
			}
			if j, dup := first[pair]; dup {
				p.sink.addInvalid(indexPath("handleContractPairs", i), fmt.Sprintf("repeats %s: each pair once", indexPath("handleContractPairs", j)))
			} else {
				first[pair] = i
			}
		}
	}()
	for i, e := range elems {
		path := indexPath("handleContractPairs", i)
		pobj, ok := p.object(path, e, pairFields)
		if !ok {
			continue
		}
		pair := &out[i]
		if raw, ok := p.field(pobj, "handle"); ok {
			if h, b, ok := p.handle(path+".handle", raw); ok {
				pair.Handle = h
				p.hostChain(path+".handle", HostChainID(b))
				bits.add(p, path+".handle", b)
			}
		}
		if raw, ok := p.field(pobj, "contractAddress"); ok {
			if a, ok := p.address(path+".contractAddress", raw); ok {
				pair.ContractAddress = a
				if listedOK && !slices.Contains(listed, a) {
					p.sink.addInvalid(path+".contractAddress", "must be one of contractAddresses")
				}
			}
		}
		p.finish(pobj)
	}
	return out, listed
}

// validityDays reads a validity window in days, the startTimestamp and durationDays members of
// obj (a user decrypt's requestValidity, or a delegated user decrypt's body).
func (p *parser) validityDays(obj *jsonObject) (start, days uint64) {
	start = member(p, obj, "startTimestamp", p.startTimestamp)
	days = member(p, obj, "durationDays", p.durationDays)
	return start, days
}

// maxStartTimestamp is the last second of the year 9999: a later start is no time a request is
// signed at.
const maxStartTimestamp = 253402300799

// startTimestamp reads a validity window's start: Unix seconds as a decimal string, from 1 to the
// end of the year 9999 (0 and 2^64-1 are no real signing time; the clock itself is the KMS's).
func (p *parser) startTimestamp(path string, raw json.RawMessage) (uint64, bool) {
	v, ok := p.decimalString(path, raw)
	switch {
	case !ok:
		return 0, false
	case v == 0:
		p.sink.addInvalid(path, "must be greater than 0 (Unix seconds)")
	case v > maxStartTimestamp:
		p.sink.addInvalid(path, fmt.Sprintf("must be at most %d (the end of the year 9999, in Unix seconds)", uint64(maxStartTimestamp)))
	default:
		return v, true
	}
	return 0, false
}

// durationDays reads a validity window's length in days: a decimal string from 1 to the
// configured maximum.
func (p *parser) durationDays(path string, raw json.RawMessage) (uint64, bool) {
	d, ok := p.decimalString(path, raw)
	if !ok {
		return 0, false
	}
	switch {
	case d < 1:
		p.sink.addInvalid(path, "must be at least 1")
	case d > p.cfg.MaxDurationDays:
		p.sink.addInvalid(path, fmt.Sprintf("must be at most %d", p.cfg.MaxDurationDays))
	default:
		return d, true
	}
	return 0, false
}

// ParseRequest parses a body of kind k into a Request holding that kind's payload. Errors are
// *ValidationError, except for an invalid cfg or the zero Kind (programming errors).
func ParseRequest(k Kind, body []byte, cfg ValidationConfig) (Request, error) {
	var r Request
	var err error
	switch k {
	case InputProof:
		r.InputProof, err = parsed(ParseInputProof(body, cfg))
	case PublicDecrypt:
		r.PublicDecrypt, err = parsed(ParsePublicDecrypt(body, cfg))
	case UserDecrypt:
		r.UserDecrypt, err = parsed(ParseUserDecrypt(body, cfg))
	case DelegatedUserDecrypt:
		r.DelegatedUserDecrypt, err = parsed(ParseDelegatedUserDecrypt(body, cfg))
	default:
		return Request{}, fmt.Errorf("parse request: unknown request kind %v", k)
	}
	if err != nil {
		return Request{}, err
	}
	return r, nil
}

// parsed returns a pointer to the payload a Parse function returned, or its error.
func parsed[T any](payload T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return &payload, nil
}

// issueSink collects the problems of one body, by label.
type issueSink struct {
	missing, invalid, host []FieldIssue
}

func (s *issueSink) missingField(field string) {
	s.missing = append(s.missing, FieldIssue{field, "is required"})
}

func (s *issueSink) addInvalid(field, issue string) {
	s.invalid = append(s.invalid, FieldIssue{field, issue})
}

func (s *issueSink) empty() bool {
	return len(s.missing) == 0 && len(s.invalid) == 0 && len(s.host) == 0
}

// err applies the labels' precedence.
func (s *issueSink) err() error {
	switch {
	case len(s.missing) > 0:
		return &ValidationError{LabelMissingFields,
			fmt.Sprintf("the request is missing %s", countNoun(len(s.missing), "required field")), s.missing}
	case len(s.invalid) > 0:
		return &ValidationError{LabelValidationFailed,
			fmt.Sprintf("the request failed validation with %s", countNoun(len(s.invalid), "problem")), s.invalid}
	case len(s.host) > 0:
		return &ValidationError{LabelHostChainIDNotSupported,
			"the request refers to a host chain this relayer does not serve", s.host}
	}
	return nil
}

func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// parser reads one body under one config.
type parser struct {
	cfg  ValidationConfig // with defaults applied
	sink *issueSink
}

// quiet returns a parser for the same body whose problems are kept apart.
func (p *parser) quiet() *parser { return &parser{cfg: p.cfg, sink: &issueSink{}} }

// parse checks cfg and body as startParse does, then has read make the payload of body's object
// and reports every problem it found (the object's unknown members too) as one
// *ValidationError.
func parse[T any](body []byte, cfg ValidationConfig, fields []string, read func(p *parser, obj *jsonObject) T) (T, error) {
	var zero T
	p, obj, err := startParse(body, cfg, fields)
	if err != nil {
		return zero, err
	}
	out := read(p, obj)
	p.finish(obj)
	if err := p.sink.err(); err != nil {
		return zero, err
	}
	return out, nil
}

// startParse checks cfg and that body is a JSON object with the given fields.
func startParse(body []byte, cfg ValidationConfig, fields []string) (*parser, *jsonObject, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil, &ValidationError{Label: LabelMalformedJSON, Message: "the request body is empty"}
	}
	if !json.Valid(body) {
		msg := "the request body is not valid JSON"
		var se *json.SyntaxError
		if err := json.Unmarshal(body, new(json.RawMessage)); errors.As(err, &se) {
			msg = fmt.Sprintf("%s: %v (at byte %d)", msg, se, se.Offset)
		}
		return nil, nil, &ValidationError{Label: LabelMalformedJSON, Message: msg}
	}
	p := &parser{cfg: cfg.withDefaults(), sink: &issueSink{}}
	raw := json.RawMessage(bytes.TrimSpace(body))
	obj, ok := readObject("", raw, fields)
	if !ok {
		return nil, nil, &ValidationError{Label: LabelMalformedJSON,
			Message: fmt.Sprintf("the request body must be a JSON object, not %s", jsonType(raw))}
	}
	return p, obj, nil
}

// jsonObject is one JSON object of a body: its members in order, the names that appear more
// than once, and the names not in its schema, in the order they first appear.
type jsonObject struct {
	path    string
	fields  []string
	members []jsonMember // the first of each name
	repeats []string
	unknown []string
}

// jsonMember is one member of a JSON object: its name (unescaped) and its value, raw.
type jsonMember struct {
	name  string
	value json.RawMessage
}

// member returns the value of the member name (the first one, when it is repeated).
func (o *jsonObject) member(name string) (json.RawMessage, bool) {
	for i := range o.members {
		if o.members[i].name == name {
			return o.members[i].value, true
		}
	}
	return nil, false
}

// readObject reads raw as an object with the given schema; ok is false if it is not an object.
// raw must be valid JSON: it is walked once, each member's value a slice of raw.
func readObject(path string, raw json.RawMessage, fields []string) (*jsonObject, bool) {
	if len(raw) == 0 || jsonLead(raw) != '{' {
		return nil, false
	}
	obj := &jsonObject{path: path, fields: fields, members: make([]jsonMember, 0, len(fields))}
	i := skipSpace(raw, 0) + 1 // past '{'
	for {
		i = skipSpace(raw, i)
		if raw[i] == '}' {
			return obj, true
		}
		end := skipJSONString(raw, i)
		name, ok := jsonString(raw[i:end])
		if !ok {
			return nil, false
		}
		i = skipSpace(raw, end) + 1 // past ':'
		i = skipSpace(raw, i)
		end = skipJSONValue(raw, i)
		value := raw[i:end:end]
		if _, seen := obj.member(name); seen {
			if !slices.Contains(obj.repeats, name) {
				obj.repeats = append(obj.repeats, name)
			}
		} else {
			obj.members = append(obj.members, jsonMember{name: name, value: value})
			if !slices.Contains(fields, name) {
				obj.unknown = append(obj.unknown, name)
			}
		}
		i = skipSpace(raw, end)
		if raw[i] == ',' {
			i++
		}
	}
}

// jsonString is the text a JSON string (quotes included, valid JSON) holds, unescaped, with each
// byte that is not UTF-8 read as U+FFFD, as encoding/json reads it (which reads the strings that
// have an escape or such a byte).
func jsonString(quoted []byte) (string, bool) {
	if bytes.IndexByte(quoted, '\\') < 0 && utf8.Valid(quoted) {
		return string(quoted[1 : len(quoted)-1]), true
	}
	var name string
	if err := json.Unmarshal(quoted, &name); err != nil {
		return "", false
	}
	return name, true
}

// skipSpace returns the index of the first byte of raw at or after i that is not JSON white
// space (len(raw) when there is none).
func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// skipJSONString returns the index just past the JSON string that starts at raw[i] (its opening
// quote), in valid JSON.
func skipJSONString(raw []byte, i int) int {
	for i++; raw[i] != '"'; i++ {
		if raw[i] == '\\' {
			i++ // the escaped byte: a quote or a backslash does not end the string
		}
	}
	return i + 1
}

// skipJSONValue returns the index just past the JSON value that starts at raw[i], in valid
// JSON: a string, an object or an array (with whatever they nest), or a number or literal.
func skipJSONValue(raw []byte, i int) int {
	switch raw[i] {
	case '"':
		return skipJSONString(raw, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch raw[i] {
			case '"':
				i = skipJSONString(raw, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	default:
		for i < len(raw) && !strings.ContainsRune(",}] \t\n\r", rune(raw[i])) {
			i++
		}
		return i
	}
}

// object reads raw as a JSON object with the given schema, reporting it if it is not one.
func (p *parser) object(path string, raw json.RawMessage, fields []string) (*jsonObject, bool) {
	obj, ok := readObject(path, raw, fields)
	if !ok {
		p.sink.addInvalid(path, fmt.Sprintf("must be an object with fields %s, not %s", strings.Join(fields, " and "), jsonType(raw)))
	}
	return obj, ok
}

// field returns the value of a known field of obj, reporting it missing (absent or null) or
// repeated.
func (p *parser) field(obj *jsonObject, name string) (json.RawMessage, bool) {
	path := joinPath(obj.path, name)
	if slices.Contains(obj.repeats, name) {
		p.sink.addInvalid(path, "appears more than once")
		return nil, false
	}
	raw, ok := obj.member(name)
	if !ok || string(raw) == "null" {
		p.sink.missingField(path)
		return nil, false
	}
	return raw, true
}

// member reads the member name of obj with read, which is given the member's path, and returns
// what read returns: the zero T when the member is missing or repeated (field reports it), and
// whatever read returns for a value it reports invalid.
func member[T any](p *parser, obj *jsonObject, name string, read func(path string, raw json.RawMessage) (T, bool)) T {
	raw, ok := p.field(obj, name)
	if !ok {
		var zero T
		return zero
	}
	v, _ := read(joinPath(obj.path, name), raw)
	return v
}

// finish reports obj's unknown fields; it is called after its known fields are read, so that
// these come last.
func (p *parser) finish(obj *jsonObject) {
	for _, name := range obj.unknown {
		p.sink.addInvalid(joinPath(obj.path, displayName(name)),
			fmt.Sprintf("is not a known field (known fields: %s)", strings.Join(obj.fields, ", ")))
	}
}

// arrayMember reads the member name of obj as array does, reporting it missing as field does.
func (p *parser) arrayMember(obj *jsonObject, name string, max int) ([]json.RawMessage, bool) {
	raw, ok := p.field(obj, name)
	if !ok {
		return nil, false
	}
	return p.array(joinPath(obj.path, name), raw, max)
}

// array reads raw as a non-empty JSON array of at most max entries.
func (p *parser) array(path string, raw json.RawMessage, max int) ([]json.RawMessage, bool) {
	if jsonLead(raw) != '[' {
		p.sink.addInvalid(path, "must be an array, not "+jsonType(raw))
		return nil, false
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		p.sink.addInvalid(path, "must be an array")
		return nil, false
	}
	switch {
	case len(elems) == 0:
		p.sink.addInvalid(path, "must not be empty")
		return nil, false
	case len(elems) > max:
		p.sink.addInvalid(path, fmt.Sprintf("must have at most %d entries (has %d)", max, len(elems)))
		return nil, false
	}
	return elems, true
}

// str reads raw as a JSON string.
func (p *parser) str(path string, raw json.RawMessage) (string, bool) {
	if jsonLead(raw) != '"' {
		p.sink.addInvalid(path, "must be a string, not "+jsonType(raw))
		return "", false
	}
	s, ok := jsonString(bytes.TrimSpace(raw))
	if !ok {
		p.sink.addInvalid(path, "must be a string")
		return "", false
	}
	return s, true
}

// strAs reads the string at path and converts it with conv, which returns the value, or what is
// wrong with s (then recorded at path).
func strAs[T any](p *parser, path string, raw json.RawMessage, conv func(s string) (T, string)) (T, bool) {
	var zero T
	s, ok := p.str(path, raw)
	if !ok {
		return zero, false
	}
	v, issue := conv(s)
	if issue != "" {
		p.sink.addInvalid(path, issue)
		return zero, false
	}
	return v, true
}

// chainID reads a chain id: a JSON number, a decimal string or a 0x-prefixed hex string (the
// public SDK sends "0x539"; the reference's document allows all three), a whole number from 1
// to 2^64-1.
func (p *parser) chainID(path string, raw json.RawMessage) (uint64, bool) {
	var text string
	switch c := jsonLead(raw); {
	case c == '"':
		s, ok := p.str(path, raw)
		if !ok {
			return 0, false
		}
		text = s
	case c == '-' || (c >= '0' && c <= '9'):
		text = string(raw)
	default:
		p.sink.addInvalid(path, "must be a number, a decimal string or a 0x-prefixed hex string, not "+jsonType(raw))
		return 0, false
	}
	// Leading zeros are allowed in a string ("0x00aa36a7", "011155111"), as the reference
	// relayer allows them: the value is what counts, and it is kept as a number.
	var v uint64
	var issue string
	if jsonLead(raw) == '"' && has0x(text) {
		v, issue = parseHexQuantity(trimLeadingZeros(text[2:]))
	} else if jsonLead(raw) == '"' {
		v, issue = parseDecimal(trimLeadingZeros(text))
	} else {
		v, issue = parseDecimal(text)
	}
	if issue == "" && v == 0 {
		issue = "must be greater than 0"
	}
	if issue != "" {
		p.sink.addInvalid(path, issue)
		return 0, false
	}
	return v, true
}

// trimLeadingZeros is s without its leading zeros, "0" if it is all zeros ("" stays "").
func trimLeadingZeros(s string) string {
	t := strings.TrimLeft(s, "0")
	if t == "" && s != "" {
		return "0"
	}
	return t
}

// decimalString reads a uint64 written as a decimal string ("1700000000").
func (p *parser) decimalString(path string, raw json.RawMessage) (uint64, bool) {
	if jsonLead(raw) != '"' {
		p.sink.addInvalid(path, "must be a decimal string such as \"10\", not "+jsonType(raw))
		return 0, false
	}
	return strAs(p, path, raw, parseDecimal)
}

// parseDecimal reads a canonical unsigned decimal integer that fits in 64 bits, or says why s is
// not one.
func parseDecimal(s string) (uint64, string) {
	switch {
	case s == "":
		return 0, "must not be empty"
	case s[0] == '+':
		return 0, "must not have a + sign"
	case s[0] == '-':
		return 0, "must not be negative"
	case strings.ContainsAny(s, ".eE"):
		return 0, "must be a whole number, without a fraction or an exponent"
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, "must contain only decimal digits"
		}
	}
	if len(s) > 1 && s[0] == '0' {
		return 0, "must not have leading zeros"
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, "must fit in 64 bits (at most 18446744073709551615)"
	}
	return v, ""
}

// parseHexQuantity reads the digits of a 0x-prefixed uint64 as the public SDK writes chain ids
// ("0x539": lower or upper case, no leading zeros beyond a lone "0").
func parseHexQuantity(s string) (uint64, string) {
	switch {
	case s == "":
		return 0, "must have hex digits after 0x"
	case len(s) > 1 && s[0] == '0':
		return 0, "must not have leading zeros after 0x"
	}
	if !isHexDigits(s) {
		return 0, "must contain only hex digits after 0x"
	}
	if len(s) > 16 {
		return 0, "must fit in 64 bits (at most 0xffffffffffffffff)"
	}
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		return 0, "must fit in 64 bits (at most 0xffffffffffffffff)"
	}
	return v, ""
}

// hostChain reports chain if it is not a configured host chain. The report only surfaces if the
// request is otherwise valid.
func (p *parser) hostChain(path string, chain uint64) {
	if slices.Contains(p.cfg.HostChainIDs, chain) {
		return
	}
	ids := make([]string, len(p.cfg.HostChainIDs))
	for i, id := range p.cfg.HostChainIDs {
		ids[i] = strconv.FormatUint(id, 10)
	}
	p.sink.host = append(p.sink.host, FieldIssue{path,
		fmt.Sprintf("chain %d is not a configured host chain (configured: %s)", chain, strings.Join(ids, ", "))})
}

// address reads an address and returns it lowercase with 0x.
func (p *parser) address(path string, raw json.RawMessage) (string, bool) {
	return strAs(p, path, raw, normalizeAddress)
}

// normalizeAddress accepts 0x and 40 hex digits, all lowercase, all uppercase, or mixed case
// that is a valid EIP-55 checksum, and returns the lowercase form.
func normalizeAddress(s string) (string, string) {
	if len(s) != 42 || s[0] != '0' || s[1] != 'x' || !isHexDigits(s[2:]) {
		return "", "must be 0x followed by 40 hex digits"
	}
	digits := s[2:]
	lower := strings.ToLower(digits)
	if lower != digits && strings.ToUpper(digits) != digits {
		if eip55Checksum(lower) != s {
			return "", "is mixed-case but not a valid EIP-55 checksum address"
		}
	}
	return "0x" + lower, ""
}

// handle reads a handle and returns it lowercase with 0x, and its bytes.
func (p *parser) handle(path string, raw json.RawMessage) (string, [32]byte, bool) {
	var b [32]byte
	norm, ok := strAs(p, path, raw, func(s string) (string, string) {
		var norm, issue string
		b, norm, issue = normalizeHandle(s)
		return norm, issue
	})
	if !ok {
		return "", [32]byte{}, false
	}
	return norm, b, true
}

func normalizeHandle(s string) ([32]byte, string, string) {
	var b [32]byte
	if len(s) != 66 || s[0] != '0' || s[1] != 'x' || !isHexDigits(s[2:]) {
		return b, "", "must be 0x followed by 64 hex digits"
	}
	norm := "0x" + strings.ToLower(s[2:])
	hex.Decode(b[:], []byte(norm[2:])) // cannot fail: checked above
	return b, norm, ""
}

// bareHex reads non-empty hex without 0x of at most max bytes, returned lowercase.
func (p *parser) bareHex(path string, raw json.RawMessage, max int) (string, bool) {
	return strAs(p, path, raw, func(s string) (string, string) {
		switch {
		case has0x(s):
			return "", "must be hex without a 0x prefix"
		case s == "":
			return "", "must not be empty"
		case !isHexDigits(s):
			return "", "must contain only hex digits" + notHexAt(s, 0)
		case len(s)%2 != 0:
			return "", "must have an even number of hex digits"
		case len(s)/2 > max:
			return "", fmt.Sprintf("must be at most %d bytes (has %d)", max, len(s)/2)
		}
		return strings.ToLower(s), ""
	})
}

// signature reads a user's signature: exactly 130 hex digits (65 bytes), no 0x.
func (p *parser) signature(path string, raw json.RawMessage) (string, bool) {
	return strAs(p, path, raw, func(s string) (string, string) {
		switch {
		case has0x(s):
			return "", "must be 130 hex digits without a 0x prefix"
		case len(s) != 130:
			return "", fmt.Sprintf("must be exactly 130 hex digits (has %d characters)", len(s))
		case !isHexDigits(s):
			return "", "must contain only hex digits"
		}
		s = strings.ToLower(s)
		// v as 0 or 1 (how some wallets write it) is written 27 or 28, the form the gateway's
		// ECDSA accepts: the same signature, which would otherwise revert on chain.
		switch s[128:] {
		case "00":
			s = s[:128] + "1b"
		case "01":
			s = s[:128] + "1c"
		}
		return s, ""
	})
}

// The tagged extraData of a decryption request (the gateway's format, as the reference relayer
// checks it): the legacy "0x00", version 1 (0x01 || contextId, 33 bytes) or version 2 (0x02 ||
// contextId || epochId, 65 bytes). Each version has a fixed size; a contextId's first byte is
// its type tag 0x07, an epochId's 0x08. The ids are otherwise opaque and go to the gateway as
// given. An input proof's extraData is "0x00" only.
const (
	extraDataV1Len = 1 + 32
	extraDataV2Len = 1 + 32 + 32
	contextIDTag   = 0x07
	epochIDTag     = 0x08
)

// extraData reads a decryption request's extraData (see extraDataV1Len), returned lowercase.
func (p *parser) extraData(path string, raw json.RawMessage) (string, bool) {
	return p.extraDataOf(path, raw, false)
}

// inputProofExtraData reads an input proof's extraData: "0x00" only.
func (p *parser) inputProofExtraData(path string, raw json.RawMessage) (string, bool) {
	return p.extraDataOf(path, raw, true)
}

func (p *parser) extraDataOf(path string, raw json.RawMessage, inputProof bool) (string, bool) {
	return strAs(p, path, raw, func(s string) (string, string) {
		var issue string
		switch {
		case !strings.HasPrefix(s, "0x"):
			issue = `must be 0x-prefixed hex, such as "0x00"`
		case len(s) == 2:
			issue = `must hold at least one byte, such as "0x00"`
		case !isHexDigits(s[2:]):
			issue = "must contain only hex digits after 0x" + notHexAt(s[2:], 2)
		case len(s)%2 != 0:
			issue = "must have an even number of hex digits"
		case (len(s)-2)/2 > p.cfg.MaxExtraDataBytes:
			issue = fmt.Sprintf("must be at most %d bytes (has %d)", p.cfg.MaxExtraDataBytes, (len(s)-2)/2)
		case inputProof && s != "0x00":
			issue = `must be "0x00" for an input proof (no other version is defined for it)`
		case !inputProof:
			b, _ := hex.DecodeString(s[2:])
			issue = taggedExtraDataIssue(b)
		}
		if issue != "" {
			return "", issue
		}
		return "0x" + strings.ToLower(s[2:]), ""
	})
}

// taggedExtraDataIssue says what is wrong with a decryption request's extraData b, or "".
func taggedExtraDataIssue(b []byte) string {
	switch b[0] {
	case 0x00:
		if len(b) != 1 {
			return fmt.Sprintf(`version 0x00 is the single byte "0x00" (has %d bytes)`, len(b))
		}
	case 0x01:
		if len(b) != extraDataV1Len {
			return fmt.Sprintf("version 0x01 is 0x01 followed by a 32-byte contextId, %d bytes in all (has %d)", extraDataV1Len, len(b))
		}
		if b[1] != contextIDTag {
			return fmt.Sprintf("the contextId (bytes 1 to 32) must begin with its type tag 0x%02x, not 0x%02x", contextIDTag, b[1])
		}
	case 0x02:
		if len(b) != extraDataV2Len {
			return fmt.Sprintf("version 0x02 is 0x02 followed by a 32-byte contextId and a 32-byte epochId, %d bytes in all (has %d)", extraDataV2Len, len(b))
		}
		if b[1] != contextIDTag {
			return fmt.Sprintf("the contextId (bytes 1 to 32) must begin with its type tag 0x%02x, not 0x%02x", contextIDTag, b[1])
		}
		if b[33] != epochIDTag {
			return fmt.Sprintf("the epochId (bytes 33 to 64) must begin with its type tag 0x%02x, not 0x%02x", epochIDTag, b[33])
		}
	default:
		return fmt.Sprintf(`has version 0x%02x: the versions are 0x00 ("0x00"), 0x01 (contextId) and 0x02 (contextId and epochId)`, b[0])
	}
	return ""
}

// contractAddresses reads a user decrypt's contractAddresses field of obj.
func (p *parser) contractAddresses(obj *jsonObject) ([]string, bool) {
	elems, ok := p.arrayMember(obj, "contractAddresses", p.cfg.MaxContractAddresses)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(elems))
	allOK := true
	for i, e := range elems {
		if a, ok := p.address(indexPath("contractAddresses", i), e); ok {
			out = append(out, a)
		} else {
			allOK = false
		}
	}
	return out, allOK
}

func isHexDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// notHexAt names the first character of s that is not a hex digit, at its offset in the field
// (s starts at offset base): " (\"g\" at offset 5 is not one)".
func notHexAt(s string, base int) string {
	for i, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return fmt.Sprintf(" (%q at offset %d is not one)", c, base+i)
		}
	}
	return ""
}

func has0x(s string) bool { return len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') }

// jsonType names the JSON type of a valid JSON value, for messages.
func jsonType(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch jsonLead(raw) {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// jsonLead is the first byte of a JSON value, 0 if there is none.
func jsonLead(raw json.RawMessage) byte {
	if i := skipSpace(raw, 0); i < len(raw) {
		return raw[i]
	}
	return 0
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

func indexPath(parent string, i int) string { return parent + "[" + strconv.Itoa(i) + "]" }

// displayName is an unknown field's name as a path shows it: as is if it is a plain identifier,
// otherwise quoted, and cut to a readable length.
func displayName(name string) string {
	const maxRunes = 64
	plain := name != ""
	for _, r := range name {
		if !(r == '_' || r == '-' || r == '$' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			plain = false
			break
		}
	}
	if utf8.RuneCountInString(name) > maxRunes {
		n := 0
		for i := range name {
			if n == maxRunes {
				name = name[:i] + "…"
				break
			}
			n++
		}
	}
	if plain {
		return name
	}
	return strconv.Quote(name)
}
