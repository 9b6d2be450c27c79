package contracts

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
)

// Scenario is what a development test handle (or input-proof ciphertext) asks the development
// gateway, host ACL and the devchain's simulators to do; see TestScenarios.sol. A handle carries
// scenario XX when its first bytes are 7e 57 XX; an input-proof ciphertext when its first bytes
// are 7e 57 XX. Every other handle is ScenarioNone and succeeds.
type Scenario uint8

const (
	// ScenarioNone: an ordinary handle; everything succeeds.
	ScenarioNone Scenario = 0x00
	// ScenarioDenied (01): the host ACL denies the handle (isAllowed, isAllowedForDecryption and
	// isHandleDelegatedForUserDecryption are false), the readiness views are false and
	// decryption requests revert with PublicDecryptNotAllowed / UserDecryptNotAllowed (delegated
	// ones too); an input proof is rejected by the coprocessors.
	ScenarioDenied Scenario = 0x01
	// ScenarioNeverReady (02): the readiness views stay false; the KMS nodes never answer a
	// request that carries the handle anyway.
	ScenarioNeverReady Scenario = 0x02
	// ScenarioNoResponse (03): ready, and the request succeeds, but no KMS node (or coprocessor)
	// ever answers it.
	ScenarioNoResponse Scenario = 0x03
	// ScenarioReadyAfterDelay (04): ready ReadyDelay of chain time after the chain first saw the
	// handle (Decryption.handleFirstSeen); see the package devchain documentation for how a
	// handle gets seen.
	ScenarioReadyAfterDelay Scenario = 0x04
	// ScenarioRevert (05): the gateway request reverts with TestScenarioRevert().
	ScenarioRevert Scenario = 0x05
)

// ReadyDelay is how long, in chain time (block timestamps), a scenario-04 handle stays not ready
// after it was first seen. It equals Decryption.READY_DELAY.
const ReadyDelay = 5 * time.Second

// DevHostChainID is the host chain id of the development chain (1337), which development handles
// carry big-endian in bytes 22..29.
const DevHostChainID uint64 = 1337

// ScenarioOfHandle returns the scenario handle carries.
func ScenarioOfHandle(handle [32]byte) Scenario {
	return scenarioOf(handle[:])
}

// ScenarioOfCiphertext returns the scenario an input-proof ciphertext carries.
func ScenarioOfCiphertext(ciphertext []byte) Scenario {
	return scenarioOf(ciphertext)
}

func scenarioOf(b []byte) Scenario {
	if len(b) < 3 || b[0] != 0x7e || b[1] != 0x57 {
		return ScenarioNone
	}
	if s := Scenario(b[2]); s >= ScenarioDenied && s <= ScenarioRevert {
		return s
	}
	return ScenarioNone
}

// String names the scenario, e.g. "02 never ready".
func (s Scenario) String() string {
	switch s {
	case ScenarioNone:
		return "none"
	case ScenarioDenied:
		return "01 denied"
	case ScenarioNeverReady:
		return "02 never ready"
	case ScenarioNoResponse:
		return "03 no response"
	case ScenarioReadyAfterDelay:
		return "04 ready after 5s"
	case ScenarioRevert:
		return "05 revert"
	default:
		return fmt.Sprintf("scenario(%#02x)", uint8(s))
	}
}

// Layout of a ciphertext handle, as the public protocol has it: bytes 0..20 a hash, byte 21 the
// index of the handle in its input, bytes 22..29 the host chain id (big-endian uint64), byte 30
// the FHE type, byte 31 the handle version.
const (
	handleIndexByte   = 21
	handleChainIDByte = 22
	handleTypeByte    = 30
	handleVersionByte = 31
	// FheTypeUint64 is the FHE type byte of an encrypted uint64 (euint64).
	FheTypeUint64 byte = 5
)

// NewHandle lays out a handle: the first 21 bytes of hash, then index, chainID, fheType and
// version 0.
func NewHandle(hash [32]byte, index uint8, chainID uint64, fheType byte) [32]byte {
	var h [32]byte
	copy(h[:handleIndexByte], hash[:handleIndexByte])
	h[handleIndexByte] = index
	binary.BigEndian.PutUint64(h[handleChainIDByte:handleTypeByte], chainID)
	h[handleTypeByte] = fheType
	h[handleVersionByte] = 0
	return h
}

// HandleChainID returns the host chain id a handle carries in bytes 22..29.
func HandleChainID(handle [32]byte) uint64 {
	return binary.BigEndian.Uint64(handle[handleChainIDByte:handleTypeByte])
}

// TestHandle returns a development handle for scenario s (7e 57 XX in its first bytes; none for
// ScenarioNone), host chain id 1337 and type euint64, made unique by seed: the same (s, seed)
// always gives the same handle.
func TestHandle(s Scenario, seed string) [32]byte {
	h := NewHandle(crypto.Keccak256Hash([]byte("relayer/test-handle/"+seed)), 0, DevHostChainID, FheTypeUint64)
	if s != ScenarioNone {
		h[0], h[1], h[2] = 0x7e, 0x57, byte(s)
	} else if h[0] == 0x7e && h[1] == 0x57 {
		h[0] = 0 // an ordinary handle must not look like a test handle by chance
	}
	return h
}

// TestCiphertext returns a development input-proof ciphertext for scenario s (7e 57 XX first;
// none for ScenarioNone), made unique by seed, size bytes long (at least 3).
func TestCiphertext(s Scenario, seed string, size int) []byte {
	size = max(size, 3)
	out := make([]byte, 0, size+32)
	for block := 0; len(out) < size; block++ {
		out = append(out, crypto.Keccak256([]byte(fmt.Sprintf("relayer/test-ciphertext/%s/%d", seed, block)))...)
	}
	out = out[:size]
	if s != ScenarioNone {
		out[0], out[1], out[2] = 0x7e, 0x57, byte(s)
	} else if out[0] == 0x7e && out[1] == 0x57 {
		out[0] = 0
	}
	return out
}
