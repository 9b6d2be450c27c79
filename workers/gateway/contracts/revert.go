package contracts

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/rpc"
)

// RevertError is a contract revert decoded against the development contracts' ABIs: a custom error
// such as EnforcedPause() or TestScenarioRevert(), or Solidity's Error(string) / Panic(uint256).
type RevertError struct {
	// Name is the error's name, e.g. "EnforcedPause", "NotKmsSigner", "Error", "Panic".
	Name string
	// Args are the decoded arguments in declaration order.
	Args []any
	// Data is the raw revert data (4-byte selector and ABI-encoded arguments).
	Data []byte
}

func (e *RevertError) Error() string {
	if len(e.Args) == 0 {
		return "execution reverted: " + e.Name + "()"
	}
	parts := make([]string, len(e.Args))
	for i, a := range e.Args {
		parts[i] = fmt.Sprint(a)
	}
	return "execution reverted: " + e.Name + "(" + strings.Join(parts, ", ") + ")"
}

// RevertData extracts the revert data a JSON-RPC node attached to err (eth_call and
// eth_estimateGas of a reverting call answer with it as the error's data, a 0x-hex string).
func RevertData(err error) ([]byte, bool) {
	var de rpc.DataError
	if !errors.As(err, &de) {
		return nil, false
	}
	s, ok := de.ErrorData().(string)
	if !ok {
		return nil, false
	}
	b, decodeErr := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if decodeErr != nil || len(b) < 4 {
		return nil, false
	}
	return b, true
}

// DecodeRevert decodes the revert carried by err (see RevertData), or returns false when err
// carries none or it is not one of the gateway contracts' errors.
func DecodeRevert(err error) (*RevertError, bool) {
	if err == nil {
		return nil, false
	}
	var re *RevertError
	if errors.As(err, &re) {
		return re, true
	}
	data, ok := RevertData(err)
	if !ok {
		return nil, false
	}
	return DecodeRevertData(data)
}

// DecodeRevertData decodes raw revert data against the gateway contracts' errors.
func DecodeRevertData(data []byte) (*RevertError, bool) {
	if len(data) < 4 {
		return nil, false
	}
	var sel [4]byte
	copy(sel[:], data[:4])
	e, ok := knownErrors()[sel]
	if !ok {
		return nil, false
	}
	args, err := e.Inputs.Unpack(data[4:])
	if err != nil {
		return nil, false
	}
	return &RevertError{Name: e.Name, Args: args, Data: data}, true
}

var knownErrors = sync.OnceValue(func() map[[4]byte]abi.Error {
	out := make(map[[4]byte]abi.Error)
	add := func(e abi.Error) {
		var sel [4]byte
		copy(sel[:], e.ID[:4])
		out[sel] = e
	}
	for _, a := range []abi.ABI{NewACL().GetABI(), NewDecryption().GetABI(), NewInputVerification().GetABI(),
		NewInputVerifier().GetABI(), NewKMSVerifier().GetABI()} {
		for _, e := range a.Errors {
			add(e)
		}
	}
	str, _ := abi.NewType("string", "", nil)
	u256, _ := abi.NewType("uint256", "", nil)
	add(abi.NewError("Error", abi.Arguments{{Name: "message", Type: str}}))
	add(abi.NewError("Panic", abi.Arguments{{Name: "code", Type: u256}}))
	return out
})
