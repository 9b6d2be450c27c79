package gateway

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"relayer/workers/gateway/contracts"
)

// The chain's side of the checks made before a user decrypt is accepted: the gateway chain's
// time, against which the request's validity window is judged, and an ERC-1271 contract
// wallet's verdict on the user's EIP-712 signature.

const (
	// headerMaxAge is how long ChainTime and the fees answer from the header read last (ChainTime
	// advancing its time by the wall clock), and the fees from the tip suggested last, before
	// they read them again. Within a second the base fee moves by a block or a few at most, and
	// a transaction's fee cap (twice the base fee plus the tip) has room for several.
	headerMaxAge = time.Second
	// walletCallGas caps the gas of an isValidSignature call: checking one ECDSA signature
	// takes a few thousand gas, and a wallet is not given a node's whole call budget.
	walletCallGas = 250_000
)

// erc1271MagicValue is what ERC-1271 isValidSignature returns for a valid signature:
// bytes4(keccak256("isValidSignature(bytes32,bytes)")).
var erc1271MagicValue = [4]byte{0x16, 0x26, 0xba, 0x7e}

// erc1271 encodes isValidSignature(bytes32,bytes) and decodes its bytes4. The method is the
// standard ERC-1271 one, with the same selector in every wallet, so the development wallet's
// binding encodes the call to any of them.
var erc1271 = contracts.NewDevWallet()

// ChainTime is the gateway chain's current time as its latest block says: the latest header's
// timestamp plus the wall-clock time elapsed since that header was read. The header is read
// again at most once per second (the one fees reads too); until then ChainTime makes no call,
// and concurrent callers that find it stale share one read. Errors are *TxError (ErrTransport
// and ErrCanceled are retryable).
//
// Block timestamps are whole seconds, and the next block's may be later than the wall clock
// (a chain that seals more than one block a second runs ahead of it): compare a validity
// window with a second's margin.
func (a *Adapter) ChainTime(ctx context.Context) (time.Time, error) {
	h, age, err := a.latestHeader(ctx)
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(int64(h.Time), 0).Add(age), nil
}

// latestHeader is the latest header as read at most headerMaxAge ago, and its age. Errors are
// *TxError.
func (a *Adapter) latestHeader(ctx context.Context) (*types.Header, time.Duration, error) {
	h, age, err := a.head.get(ctx, headerMaxAge, func(ctx context.Context) (*types.Header, error) {
		return a.client.HeaderByNumber(ctx, nil)
	})
	if err != nil {
		return nil, 0, a.classify("read the latest header", err)
	}
	return h, age, nil
}

// WalletSignature asks the host chain whether account, when it is a contract, accepts
// signature for digest (ERC-1271 isValidSignature(digest, signature), at the latest block, with
// at most 250,000 gas).
//
//   - No code at account: (false, false, nil); the caller checks the signature itself
//     (ecrecover).
//   - Code: valid is whether the call returned the magic value 0x1626ba7e as an ABI-encoded
//     bytes4 (its first 4 bytes, in a return of at least one 32-byte word).
//     Any other return, a revert and running out of the gas cap are the wallet's refusal:
//     (true, false, nil). A revert with data is a definitive answer; a revert with EMPTY data
//     is ambiguous (the wallet refused with a bare revert, or the contract has no
//     isValidSignature and no fallback) and is a refusal too.
//   - The node could not be asked: err, a *TxError (ErrTransport, ErrCanceled: retryable;
//     ErrRejected: the node refused the call for another reason, such as an invalid opcode in
//     the wallet on a node that reports it apart from reverts).
//
// An account with code is judged by its code alone: an EIP-7702 delegated account, whose own
// key may also sign, has code; a caller that accepts that key checks ecrecover itself.
func (a *Adapter) WalletSignature(ctx context.Context, account common.Address, digest [32]byte, signature []byte) (hasCode, valid bool, err error) {
	code, err := a.host.CodeAt(ctx, account, nil)
	if err != nil {
		return false, false, a.classify("read the code of the signer", err)
	}
	if len(code) == 0 {
		return false, false, nil
	}
	const op = "call isValidSignature"
	out, err := a.host.CallContract(ctx, ethereum.CallMsg{
		To:   &account,
		Gas:  walletCallGas,
		Data: erc1271.PackIsValidSignature(digest, signature),
	}, nil)
	if err != nil {
		if te := a.classify(op, err); !walletRefused(te) {
			return true, false, te
		}
		return true, false, nil
	}
	got, err := erc1271.UnpackIsValidSignature(out)
	return true, err == nil && got == erc1271MagicValue, nil
}

// walletRefused reports whether the failed isValidSignature call was the wallet's own answer
// (a revert, with data or not, EnforcedPause() included, or exhausting walletCallGas) rather
// than a failure to ask.
func walletRefused(te *TxError) bool {
	if errors.Is(te, ErrReverted) || errors.Is(te, ErrPaused) {
		return true
	}
	return errors.Is(te, ErrRejected) && te.Err != nil && strings.Contains(strings.ToLower(te.Err.Error()), "out of gas")
}
