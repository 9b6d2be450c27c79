package gateway

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"relayer/workers/gateway/contracts"
	"relayer/workers/upstream"
)

// The outcomes a caller tells apart with errors.Is. Every error the adapter returns for a
// transaction or a call is a *TxError whose Kind is one of them.
var (
	// ErrNoSigner: the adapter was built without a signer; it cannot Prepare.
	ErrNoSigner = errors.New("no signer configured")
	// ErrInvalidRequest: the request cannot be encoded (a malformed handle, address or hex
	// string). Not retryable.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrReverted: the contract refused the call (at gas estimation, before anything was
	// signed, or on chain with a status-0 receipt). TxError.Revert names the custom error when
	// it could be decoded. Not retryable. A paused contract is ErrPaused instead.
	ErrReverted = errors.New("reverted")
	// ErrPaused: the gateway contract is paused (custom error EnforcedPause()); the relayer
	// reports protocol_paused. It does not match ErrReverted.
	ErrPaused = errors.New("gateway paused")
	// ErrAlreadyKnown: the node already has this very transaction in its pool. Broadcast handles
	// it by waiting for the receipt; it surfaces only from lower-level classification.
	ErrAlreadyKnown = errors.New("transaction already known")
	// ErrNonceTooLow: the nonce was used by ANOTHER transaction of the same key (Broadcast has
	// checked that this transaction was not the one mined). The recorded transaction will never
	// be mined; the caller may go back to preparing a new one. The adapter re-reads its nonce
	// sequence from the chain.
	ErrNonceTooLow = errors.New("nonce too low: used by another transaction")
	// ErrNonceTooHigh: the node refused a nonce above the account's next one (a gap). The
	// adapter re-reads its nonce sequence from the chain; the transaction was not accepted.
	ErrNonceTooHigh = errors.New("nonce too high")
	// ErrUnderpriced: the node refused the fees (underpriced, replacement underpriced, fee cap
	// below the base fee). Retryable later with the same bytes, or re-prepared.
	ErrUnderpriced = errors.New("transaction underpriced")
	// ErrInsufficientFunds: the signer cannot pay for gas. Retryable once funded.
	ErrInsufficientFunds = errors.New("insufficient funds")
	// ErrFeeCapExceeded: the base fee is above Config.MaxFeePerGas; nothing was signed.
	// Retryable when fees come down.
	ErrFeeCapExceeded = errors.New("base fee above the configured fee cap")
	// ErrRejected: the node or the adapter's limits refused for a reason not listed above (a JSON-RPC
	// error that is not a limit, an HTTP 4xx, a gas limit above MaxGasLimit). Not retryable as is.
	ErrRejected = errors.New("rejected")
	// ErrSigner: the signer could not sign (its key service, such as AWS KMS, failed, throttled
	// or answered a signature that is not its key's). Nothing was signed or sent. Retryable.
	ErrSigner = errors.New("signer failed")
	// ErrTransport: the node could not be reached or kept failing (connection errors, 5xx, rate
	// limits after the upstream retries, no answer within Config.CallTimeout). Retryable; the
	// same bytes may be broadcast again.
	ErrTransport = errors.New("transport error")
	// ErrCanceled: the caller's context ended. The transaction may still be mined: look it up
	// with ReceiptByHash or broadcast the same bytes again.
	ErrCanceled = errors.New("canceled")
	// ErrReceiptTimeout: the transaction was sent but no receipt came within
	// Config.ReceiptTimeout. It may still be mined; retry as for ErrCanceled.
	ErrReceiptTimeout = errors.New("no receipt within the receipt timeout")
	// ErrStalled: the transaction was sent but is still not mined after Config.BumpAfterBlocks
	// new blocks (its fees are likely too low for the chain now): replace it with Replacement.
	// It may still be mined; retry as for ErrCanceled.
	ErrStalled = errors.New("not mined after the blocks allowed; replace it with higher fees")
	// ErrTxNotFound: ReceiptByHash found neither a receipt nor the transaction in the pool
	// (including a node that is still indexing transactions).
	ErrTxNotFound = errors.New("transaction not found")
	// ErrTxPending: ReceiptByHash found the transaction in the pool, not yet mined.
	ErrTxPending = errors.New("transaction pending in the pool")
	// ErrNoRequestID: a successful receipt carries no request event of the expected contract;
	// this transaction was not a gateway request.
	ErrNoRequestID = errors.New("no gateway request event in the receipt")
)

// TxError is a classified failure. errors.Is(err, ErrX) tests its Kind; errors.As gives the
// details. Its message never contains a key or an RPC URL's path, query or userinfo.
type TxError struct {
	// Kind is one of the Err* sentinels of this package.
	Kind error
	// Op is what failed: "estimate gas", "broadcast", "wait for receipt", "call isAllowed", ...
	Op string
	// TxHash is the transaction's hash when one was signed.
	TxHash common.Hash
	// Revert is the decoded custom error of a revert (ErrReverted, ErrPaused), when known.
	Revert *contracts.RevertError
	// Receipt is the status-0 receipt of a transaction that reverted on chain.
	Receipt *types.Receipt
	// RPCCode is the node's JSON-RPC error code, when it answered with one.
	RPCCode int
	// Err is the cause, scrubbed of URL secrets.
	Err error
}

func (e *TxError) Error() string {
	var b strings.Builder
	b.WriteString("gateway: ")
	b.WriteString(e.Op)
	if e.TxHash != (common.Hash{}) {
		b.WriteString(" tx ")
		b.WriteString(e.TxHash.Hex())
	}
	b.WriteString(": ")
	b.WriteString(e.Kind.Error())
	if e.Revert != nil {
		b.WriteString(": ")
		b.WriteString(e.RevertName())
		b.WriteString(revertArgs(e.Revert))
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func revertArgs(r *contracts.RevertError) string {
	parts := make([]string, len(r.Args))
	for i, a := range r.Args {
		switch v := a.(type) {
		case [32]byte:
			parts[i] = "0x" + hex.EncodeToString(v[:])
		default:
			parts[i] = fmt.Sprint(v)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Is matches the Kind.
func (e *TxError) Is(target error) bool { return target == e.Kind }

// Unwrap returns the cause.
func (e *TxError) Unwrap() error { return e.Err }

// RevertName is the custom error's name ("EnforcedPause", "TestScenarioRevert", ...), the
// 4-byte selector in hex when the error is not one of the gateway's, or "" when unknown.
func (e *TxError) RevertName() string {
	if e.Revert == nil {
		return ""
	}
	return e.Revert.Name
}

// Retryable reports whether trying again later (with the same bytes, or preparing again for
// ErrFeeCapExceeded) can succeed.
func (e *TxError) Retryable() bool { return retryableKind(e.Kind) }

func retryableKind(k error) bool {
	switch k {
	case ErrTransport, ErrUnderpriced, ErrInsufficientFunds, ErrFeeCapExceeded, ErrReceiptTimeout,
		ErrCanceled, ErrTxPending, ErrAlreadyKnown, ErrStalled, ErrSigner:
		return true
	}
	return false
}

// Retryable reports whether err is a *TxError that may succeed when tried again.
func Retryable(err error) bool {
	var te *TxError
	return errors.As(err, &te) && te.Retryable()
}

// internal outcomes of classification, never returned to callers.
var (
	errMethodNotFound = errors.New("method not found")
	errSyncTimeout    = errors.New("eth_sendRawTransactionSync timed out before the receipt")
)

// JSON-RPC codes the classification uses.
const (
	codeRevert             = 3 // go-ethereum: execution reverted, data is the revert data
	codeMethodNotFound     = -32601
	codeTxSyncTimeout      = 4 // go-ethereum: the transaction is in the pool, the wait ended
	codeNonceTooLow        = -38010
	codeNonceTooHigh       = -38011
	codeBaseFeeTooLow      = -38012
	codeInsufficientFunds  = -38014
	codeClientLimitReached = -38026
)

// classify turns err into a *TxError for op. The cause is scrubbed of URL secrets first.
func (a *Adapter) classify(op string, err error) *TxError { return classifyErr(a.redact, op, err) }

// classifyErr is classify for callers that are not sending: the send-only outcomes become
// public kinds (a missing method is a refusal, a sync-send timeout a transport failure).
func classifyErr(r redactor, op string, err error) *TxError {
	te := classifySend(r, op, err)
	switch te.Kind {
	case errMethodNotFound:
		te.Kind = ErrRejected
	case errSyncTimeout:
		te.Kind = ErrTransport
	}
	return te
}

// classifySend classifies the answer to a send, keeping the outcomes only Broadcast acts on
// (errMethodNotFound, errSyncTimeout).
func classifySend(r redactor, op string, err error) *TxError {
	var already *TxError
	if errors.As(err, &already) {
		return already
	}
	err = r.scrub(err)
	te := &TxError{Op: op, Err: err}
	var rpcErr rpc.Error
	if errors.As(err, &rpcErr) {
		te.RPCCode = rpcErr.ErrorCode()
	}
	te.Kind = kindOf(err, te)
	return te
}

func kindOf(err error, te *TxError) error {
	var timeout *CallTimeoutError
	if errors.As(err, &timeout) {
		return ErrTransport // the node's silence, not the caller's cancellation
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return ErrCanceled
	}
	// Lowercase, and "NONCE_TOO_LOW" (Besu) reads as "nonce too low".
	msg := strings.ReplaceAll(strings.ToLower(err.Error()), "_", " ")
	var rpcErr rpc.Error
	isRPC := errors.As(err, &rpcErr)
	code := 0
	if isRPC {
		code = rpcErr.ErrorCode()
	}
	if isRPC && code == codeTxSyncTimeout {
		// Its data is the transaction hash, not revert data.
		return errSyncTimeout
	}
	if code == codeRevert || strings.Contains(msg, "revert") {
		if re, ok := contracts.DecodeRevert(err); ok {
			te.Revert = re
			if re.Name == "EnforcedPause" {
				return ErrPaused
			}
			return ErrReverted
		}
		if data, ok := contracts.RevertData(err); ok {
			// Not one of the gateway's errors: name it by its selector.
			te.Revert = &contracts.RevertError{Name: "0x" + hex.EncodeToString(data[:4]), Data: data}
			return ErrReverted
		}
	}
	switch {
	case isRPC && (code == codeMethodNotFound ||
		strings.Contains(msg, "method") && (strings.Contains(msg, "not found") || strings.Contains(msg, "does not exist") ||
			strings.Contains(msg, "not supported") || strings.Contains(msg, "unsupported") || strings.Contains(msg, "not available"))):
		return errMethodNotFound
	case isRPC && code == codeTxSyncTimeout:
		return errSyncTimeout
	case strings.Contains(msg, "execution reverted"):
		return ErrReverted
	case code == codeNonceTooLow || strings.Contains(msg, "nonce too low") || strings.Contains(msg, "nonce is too low") ||
		strings.Contains(msg, "oldnonce"):
		return ErrNonceTooLow
	case code == codeNonceTooHigh || strings.Contains(msg, "nonce too high") || strings.Contains(msg, "nonce is too high"):
		return ErrNonceTooHigh
	case strings.Contains(msg, "already known") || strings.Contains(msg, "known transaction") ||
		strings.Contains(msg, "alreadyknown") || strings.Contains(msg, "already imported") ||
		strings.Contains(msg, "already exists"):
		return ErrAlreadyKnown
	case code == codeBaseFeeTooLow || strings.Contains(msg, "underpriced") || strings.Contains(msg, "fee too low") ||
		strings.Contains(msg, "less than block base fee") || strings.Contains(msg, "feetoolow"):
		return ErrUnderpriced
	case code == codeInsufficientFunds || strings.Contains(msg, "insufficient funds") || strings.Contains(msg, "exceeds balance"):
		return ErrInsufficientFunds
	case isRPC && (code == codeClientLimitReached || (&upstream.RPCError{Code: int64(code), Message: rpcErr.Error()}).IsRateLimit()):
		return ErrTransport
	case isRPC:
		return ErrRejected
	}
	var httpErr rpc.HTTPError
	if errors.As(err, &httpErr) {
		switch c := httpErr.StatusCode; {
		case c == http.StatusTooManyRequests, c == http.StatusRequestTimeout, c >= 500 && c != http.StatusNotImplemented:
			return ErrTransport
		default:
			return ErrRejected
		}
	}
	return ErrTransport
}

// redactor removes the secrets of the configured RPC URLs from error messages: go-ethereum's
// HTTP client returns *url.Error, whose message is the whole URL with its path and query, where
// providers put API keys.
type redactor struct {
	secrets []string
}

func newRedactor(urls ...string) redactor {
	var r redactor
	for _, raw := range urls {
		if raw == "" {
			continue
		}
		r.secrets = append(r.secrets, urlSecrets(raw)...)
	}
	return r
}

// urlSecrets lists the parts of raw that may be secret, raw itself first.
func urlSecrets(raw string) []string {
	out := []string{raw}
	if u, err := url.Parse(raw); err == nil {
		out = append(out, upstream.URLSecrets(u)...)
	}
	return out
}

// scrub returns err with every configured URL secret, and the URL of any *url.Error in its
// chain, replaced by "[redacted]". A *url.Error is cut out of the chain (what it wraps stays
// reachable for errors.Is/As), so nobody can print its URL later.
func (r redactor) scrub(err error) error {
	if err == nil {
		return nil
	}
	secrets := r.secrets
	inner, cut := err, false
	var ue *url.Error
	if errors.As(err, &ue) {
		secrets = append(append([]string(nil), secrets...), urlSecrets(ue.URL)...)
		if ue.Err != nil {
			inner, cut = ue.Err, true
		}
	}
	msg := err.Error()
	out := upstream.Redact(msg, secrets)
	if out == msg && !cut {
		return err
	}
	return upstream.Redacted(out, inner)
}
