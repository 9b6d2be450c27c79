package api

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"

	"relayer/domain"
)

// Admission (DESIGN section 13): before a request that carries a user's signature is appended,
// the relayer checks that the request would not fail on chain for a reason it can see now, so
// that nobody makes it pay for a transaction the gateway or the KMS must refuse:
//
//   - the signature: the EIP-712 typed data the public SDK has the user (or, for a delegated
//     user decrypt, the delegate) sign, recovered and compared with userAddress
//     (delegateAddress). When it recovers to another address and the signer is a contract, the
//     contract is asked (ERC-1271 isValidSignature) through the ChainChecks port;
//   - the validity window, against the chain's time: it must have begun (the gateway reverts a
//     start past its block's time, StartTimestampInFuture, and the transaction is sent at once;
//     StartSkew lets a start that far ahead through, 0 by default) and must not end within
//     endMargin (UserDecryptionRequestExpired: the transaction is mined seconds later).
//
// The pure half (typed data, recovery) is domain.SignedPart and domain.RecoverSigner. A refusal
// is a 400 validation_failed naming the field and the check; a contract wallet that cannot be
// asked (the host chain unreachable) is a 503 gateway_not_reachable with a Retry-After, never a
// guess. Nothing is appended for either, and both are counted in
// relayer_admission_refusals_total.

// ChainChecks is the chain side of admission, which cmd/relayer wires to the gateway adapter.
type ChainChecks interface {
	// ChainTime is the time of the chain that judges a validity window (the gateway chain's
	// latest block, advanced by the time since it was read).
	ChainTime(ctx context.Context) (time.Time, error)
	// WalletSignature asks account on the host chain whether it accepts signature over digest
	// (ERC-1271): hasCode is false for an account without code (the verdict is then
	// meaningless); an error means the chain could not be asked.
	WalletSignature(ctx context.Context, account [20]byte, digest [32]byte, signature []byte) (hasCode, valid bool, err error)
}

// AdmissionConfig is what the admission checks need besides the request.
type AdmissionConfig struct {
	// VerifySignatures checks the user's (or delegate's) signature of every user decrypt and
	// delegated user decrypt before accepting it. It needs DecryptionContract.
	VerifySignatures bool
	// DecryptionContract is the gateway's Decryption contract (0x + 40 hex), the verifying
	// contract of the EIP-712 domain the SDK signs under.
	DecryptionContract string
	// StartSkew is how far past the chain's time a validity window may begin and still be
	// accepted. The gateway refuses a start past the time of the block that holds the
	// transaction, which is sent at once: above 0, such requests may fail on chain (with a
	// revert the relayer does not pay for: the gas estimate finds it).
	StartSkew time.Duration
}

// DefaultStartSkew is AdmissionConfig.StartSkew's default: none.
const DefaultStartSkew = 0

// endMargin is how long before its end a validity window is refused: its transaction would be
// mined after it (a paid revert, UserDecryptionRequestExpired).
const endMargin = time.Minute

// Labels of the checks, as relayer_admission_refusals_total{check} counts them.
const (
	checkSignature       = "signature"
	checkWalletSignature = "wallet_signature"
	checkWalletUnknown   = "wallet_unreachable"
	checkValidityStart   = "validity_start"
	checkValidityEnd     = "validity_end"
)

// admissionTimeout bounds the chain calls of one admission.
const admissionTimeout = 5 * time.Second

// walletRetryAfter is the Retry-After of a 503 for a contract wallet that could not be asked.
const walletRetryAfter = 5

// refusal is why admission turned a request away: the status, label, message and details to
// answer, and the check to count.
type refusal struct {
	status  int
	label   string
	message string
	details []domain.FieldIssue
	check   string
}

// admitSigned runs the admission checks of req (of kind) that need more than its body; nil
// when it may be accepted.
func (s *Server) admitSigned(ctx context.Context, req domain.Request) *refusal {
	if req.UserDecrypt == nil && req.DelegatedUserDecrypt == nil {
		return nil
	}
	now := s.chainTime(ctx)
	if ref := validityRefusal(req, now, s.cfg.Admission.StartSkew); ref != nil {
		return ref
	}
	if !s.cfg.Admission.VerifySignatures {
		return nil
	}
	sr, ok, err := domain.SignedPart(req, s.cfg.Admission.DecryptionContract)
	if err != nil || !ok {
		// The Parse functions made req: its fields decode. Only a kind without a signature
		// lands here, or a bug, which must not let the request through unchecked.
		if err != nil {
			return &refusal{status: http.StatusBadRequest, label: domain.LabelValidationFailed, check: checkSignature,
				message: "Signature is invalid: the signed request could not be rebuilt", details: []domain.FieldIssue{{Field: "signature", Issue: err.Error()}}}
		}
		return nil
	}
	signer, err := domain.RecoverSigner(sr.Digest, sr.Signature)
	if err == nil && signer == sr.Signer {
		return nil
	}
	// Not the signer's key: the signer may be a contract wallet, which decides for itself.
	if s.chain != nil {
		account, _ := hex.DecodeString(sr.Signer[2:])
		cctx, cancel := context.WithTimeout(ctx, admissionTimeout)
		hasCode, valid, cerr := s.chain.WalletSignature(cctx, [20]byte(account), sr.Digest, sr.Signature)
		cancel()
		switch {
		case cerr != nil:
			s.log.Warn("admission: a contract wallet could not be asked about a signature", "signer", sr.Signer, "err", cerr)
			return &refusal{status: http.StatusServiceUnavailable, label: labelGatewayNotReachable, check: checkWalletUnknown,
				message: fmt.Sprintf("the host chain could not be asked whether %s %s accepts the signature; retry after %d s", sr.SignerField, sr.Signer, walletRetryAfter)}
		case hasCode && valid:
			return nil
		case hasCode:
			return &refusal{status: http.StatusBadRequest, label: domain.LabelValidationFailed, check: checkWalletSignature,
				message: "Signature is invalid",
				details: []domain.FieldIssue{{Field: "signature", Issue: fmt.Sprintf(
					"the contract wallet at %s %s does not accept it (ERC-1271 isValidSignature over the EIP-712 digest 0x%x)", sr.SignerField, sr.Signer, sr.Digest)}}}
		}
	}
	issue := fmt.Sprintf("is not %s's signature of this request: it recovers to %s (EIP-712, domain Decryption of %s on chain %d, digest 0x%x)",
		sr.SignerField, signer, s.cfg.Admission.DecryptionContract, signedChainID(req), sr.Digest)
	if err != nil {
		issue = fmt.Sprintf("is not a signature of this request: %v", err)
	}
	return &refusal{status: http.StatusBadRequest, label: domain.LabelValidationFailed, check: checkSignature,
		message: "Signature is invalid", details: []domain.FieldIssue{{Field: "signature", Issue: issue}}}
}

// chainTime is the chain's time when it can be read, else the server's clock (a chain that
// cannot be read must not turn away every user decrypt; the gateway has the last word).
func (s *Server) chainTime(ctx context.Context) time.Time {
	if s.chain == nil {
		return s.now()
	}
	cctx, cancel := context.WithTimeout(ctx, admissionTimeout)
	t, err := s.chain.ChainTime(cctx)
	cancel()
	if err != nil {
		s.log.Debug("admission: the chain's time is unknown; using the server's clock", "err", err)
		return s.now()
	}
	return t
}

// signedChainID is the host chain a signed request names (the EIP-712 domain's chainId).
func signedChainID(req domain.Request) uint64 {
	switch {
	case req.UserDecrypt != nil:
		return req.UserDecrypt.ContractsChainID
	case req.DelegatedUserDecrypt != nil:
		return req.DelegatedUserDecrypt.ContractsChainID
	}
	return 0
}

// validityRefusal checks a user decrypt's validity window against now, as the gateway will
// (UserDecryptionRequestExpired, StartTimestampInFuture): a window that has not begun (beyond
// skew) or has ended would only buy a reverted transaction and a failed job. The domain checks
// the window's form.
func validityRefusal(req domain.Request, now time.Time, skew time.Duration) *refusal {
	var start, days uint64
	var startField, daysField string
	switch {
	case req.UserDecrypt != nil:
		start, days = req.UserDecrypt.RequestValidity.StartTimestamp, req.UserDecrypt.RequestValidity.DurationDays
		startField, daysField = "requestValidity.startTimestamp", "requestValidity.durationDays"
	case req.DelegatedUserDecrypt != nil:
		start, days = req.DelegatedUserDecrypt.StartTimestamp, req.DelegatedUserDecrypt.DurationDays
		startField, daysField = "startTimestamp", "durationDays"
	default:
		return nil
	}
	const message = "the request's validity window does not hold now: the gateway would refuse it"
	t := uint64(max(now.Unix(), 0))
	switch end := start + days*86400; {
	case start > t+uint64(max(skew, 0)/time.Second):
		return &refusal{status: http.StatusBadRequest, label: domain.LabelValidationFailed, check: checkValidityStart, message: message,
			details: []domain.FieldIssue{{Field: startField, Issue: fmt.Sprintf("is %d, in the future (the chain's time is %d): the window must have begun", start, t)}}}
	case end < t+uint64(endMargin/time.Second):
		return &refusal{status: http.StatusBadRequest, label: domain.LabelValidationFailed, check: checkValidityEnd, message: message,
			details: []domain.FieldIssue{{Field: daysField, Issue: fmt.Sprintf(
				"makes the window end at %d, past or within %s of the chain's time %d (the transaction would be mined after it): sign a new request", end, endMargin, t)}}}
	}
	return nil
}

// problems reports an admission config that cannot work, as Config.Validate reports them.
func (c AdmissionConfig) problems() []Problem {
	var ps []Problem
	if c.StartSkew < 0 || c.StartSkew > time.Hour {
		ps = append(ps, Problem{Field: "admission.start_skew", Issue: fmt.Sprintf("must be a duration from 0s to 1h, got %s", c.StartSkew)})
	}
	if !c.VerifySignatures {
		return ps
	}
	a := c.DecryptionContract
	if _, err := hex.DecodeString(strings.TrimPrefix(a, "0x")); len(a) != 42 || a[:2] != "0x" || err != nil {
		ps = append(ps, Problem{Field: "admission.decryption_contract", Issue: fmt.Sprintf(
			"must be the gateway's Decryption contract (0x + 40 hex digits) to check signatures, got %q", a)})
	}
	return ps
}
