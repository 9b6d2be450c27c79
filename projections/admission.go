package projections

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"relayer/domain"
)

// Admission (DESIGN section 13): before a request that carries a user's signature is appended,
// the submission command checks that the request would not fail on chain for a reason it can see
// now, so that nobody makes the relayer pay for a transaction the gateway or the KMS must refuse:
//
//   - the signature: the EIP-712 typed data the public SDK has the user (or, for a delegated
//     user decrypt, the delegate) sign, recovered and compared with userAddress
//     (delegateAddress); for a unified (v3) request, the unified typed data, compared with
//     attestedPayload.userAddress. When it recovers to another address (or is empty, as a v3
//     request's may be) and the signer is a contract, the contract is asked (ERC-1271
//     isValidSignature) through the ChainChecks port;
//   - the validity window, against the chain's time: it must have begun (the gateway reverts a
//     start past its block's time, StartTimestampInFuture, and the transaction is sent at once;
//     StartSkew lets a start that far ahead through, 0 by default) and must not end within
//     endMargin (UserDecryptionRequestExpired: the transaction is mined seconds later).
//
// The pure half (typed data, recovery) is domain.SignedPart and domain.RecoverSigner. A refusal
// is an *AdmissionError naming the field and the check (the API answers 400 validation_failed);
// a contract wallet that cannot be asked (the host chain unreachable) is one with a RetryAfter
// (the API answers 503 gateway_not_reachable), never a guess. Nothing is appended for either.

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

// Validate reports an admission config that cannot work as a *ConfigError, its fields named
// start_skew and decryption_contract.
func (c AdmissionConfig) Validate() error {
	var ps []Problem
	if c.StartSkew < 0 || c.StartSkew > time.Hour {
		ps = append(ps, Problem{Field: "start_skew", Issue: fmt.Sprintf("must be a duration from 0s to 1h, got %s", c.StartSkew)})
	}
	if c.VerifySignatures {
		a := c.DecryptionContract
		if _, err := hex.DecodeString(strings.TrimPrefix(a, "0x")); len(a) != 42 || a[:2] != "0x" || err != nil {
			ps = append(ps, Problem{Field: "decryption_contract", Issue: fmt.Sprintf(
				"must be the gateway's Decryption contract (0x + 40 hex digits) to check signatures, got %q", a)})
		}
	}
	if len(ps) == 0 {
		return nil
	}
	return &ConfigError{Problems: ps}
}

// endMargin is how long before its end a validity window is refused: its transaction would be
// mined after it (a paid revert, UserDecryptionRequestExpired).
const endMargin = time.Minute

// The checks an AdmissionError names, as the API's relayer_admission_refusals_total{check}
// counts them.
const (
	CheckSignature       = "signature"
	CheckWalletSignature = "wallet_signature"
	CheckWalletUnknown   = "wallet_unreachable"
	CheckValidityStart   = "validity_start"
	CheckValidityEnd     = "validity_end"
)

// admissionTimeout bounds the chain calls of one admission.
const admissionTimeout = 5 * time.Second

// WalletRetryAfter is how long after a contract wallet could not be asked its request may be
// sent again (AdmissionError.RetryAfter).
const WalletRetryAfter = 5 * time.Second

// AdmissionError is why admission turned a request away: the label, message and details to
// answer with, and the check that refused it. Nothing was appended.
type AdmissionError struct {
	Check   string
	Label   string
	Message string
	Details []domain.FieldIssue
	// RetryAfter > 0: the check could not be made (the chain could not be asked), and the same
	// request may pass after it; 0: the request itself is refused.
	RetryAfter time.Duration
}

func (e *AdmissionError) Error() string {
	if len(e.Details) == 0 {
		return "admission: " + e.Check + ": " + e.Message
	}
	return fmt.Sprintf("admission: %s: %s (%s %s)", e.Check, e.Message, e.Details[0].Field, e.Details[0].Issue)
}

// admit runs the admission checks of req that need more than its body: nil when it may be
// accepted, else an *AdmissionError. eoa says the signature was checked as an externally owned
// account's (recovered to the signer's address), not asked of a contract wallet.
func (s *Submitter) admit(ctx context.Context, req domain.Request) (eoa bool, err error) {
	if req.UserDecrypt == nil && req.DelegatedUserDecrypt == nil && req.UnifiedUserDecrypt == nil {
		return false, nil
	}
	now := s.chainTime(ctx)
	if err := validityRefusal(req, now, s.Admission.StartSkew); err != nil {
		return false, err
	}
	if !s.Admission.VerifySignatures {
		return false, nil
	}
	sr, ok, err := domain.SignedPart(req, s.Admission.DecryptionContract)
	if err != nil || !ok {
		// The Parse functions made req: its fields decode. Only a kind without a signature
		// lands here, or a bug, which must not let the request through unchecked.
		if err != nil {
			return false, &AdmissionError{Label: domain.LabelValidationFailed, Check: CheckSignature,
				Message: "Signature is invalid: the signed request could not be rebuilt", Details: []domain.FieldIssue{{Field: "signature", Issue: err.Error()}}}
		}
		return false, nil
	}
	signer, err := domain.RecoverSigner(sr.Digest, sr.Signature)
	if err == nil && signer == sr.Signer {
		return true, nil
	}
	// Not the signer's key: the signer may be a contract wallet, which decides for itself.
	if s.Chain != nil {
		account, _ := hex.DecodeString(sr.Signer[2:])
		cctx, cancel := context.WithTimeout(ctx, admissionTimeout)
		hasCode, valid, cerr := s.Chain.WalletSignature(cctx, [20]byte(account), sr.Digest, sr.Signature)
		cancel()
		switch {
		case cerr != nil:
			s.logger().Warn("admission: a contract wallet could not be asked about a signature", "signer", sr.Signer, "err", cerr)
			return false, &AdmissionError{Label: domain.LabelGatewayNotReachable, Check: CheckWalletUnknown, RetryAfter: WalletRetryAfter,
				Message: fmt.Sprintf("the host chain could not be asked whether %s %s accepts the signature; retry after %d s", sr.SignerField, sr.Signer, int(WalletRetryAfter/time.Second))}
		case hasCode && valid:
			return false, nil
		case hasCode:
			return false, &AdmissionError{Label: domain.LabelValidationFailed, Check: CheckWalletSignature,
				Message: "Signature is invalid",
				Details: []domain.FieldIssue{{Field: "signature", Issue: fmt.Sprintf(
					"the contract wallet at %s %s does not accept it (ERC-1271 isValidSignature over the EIP-712 digest 0x%x)", sr.SignerField, sr.Signer, sr.Digest)}}}
		}
	}
	issue := fmt.Sprintf("is not %s's signature of this request: it recovers to %s (EIP-712, domain Decryption of %s on chain %d, digest 0x%x)",
		sr.SignerField, signer, s.Admission.DecryptionContract, sr.ChainID, sr.Digest)
	if err != nil {
		issue = fmt.Sprintf("is not a signature of this request: %v", err)
	}
	return false, &AdmissionError{Label: domain.LabelValidationFailed, Check: CheckSignature,
		Message: "Signature is invalid", Details: []domain.FieldIssue{{Field: "signature", Issue: issue}}}
}

// chainTime is the chain's time when it can be read, else the submitter's clock (a chain that
// cannot be read must not turn away every user decrypt; the gateway has the last word).
func (s *Submitter) chainTime(ctx context.Context) time.Time {
	if s.Chain == nil {
		return s.now()
	}
	cctx, cancel := context.WithTimeout(ctx, admissionTimeout)
	t, err := s.Chain.ChainTime(cctx)
	cancel()
	if err != nil {
		s.logger().Debug("admission: the chain's time is unknown; using the server's clock", "err", err)
		return s.now()
	}
	return t
}

// validityRefusal checks a user decrypt's validity window against now, as the gateway will
// (UserDecryptionRequestExpired, StartTimestampInFuture): a window that has not begun (beyond
// skew) or has ended would only buy a reverted transaction and a failed job. The domain checks
// the window's form.
func validityRefusal(req domain.Request, now time.Time, skew time.Duration) *AdmissionError {
	var start, seconds uint64
	var startField, durationField string
	switch {
	case req.UserDecrypt != nil:
		start, seconds = req.UserDecrypt.RequestValidity.StartTimestamp, req.UserDecrypt.RequestValidity.DurationDays*86400
		startField, durationField = "requestValidity.startTimestamp", "requestValidity.durationDays"
	case req.DelegatedUserDecrypt != nil:
		start, seconds = req.DelegatedUserDecrypt.StartTimestamp, req.DelegatedUserDecrypt.DurationDays*86400
		startField, durationField = "startTimestamp", "durationDays"
	case req.UnifiedUserDecrypt != nil:
		start, seconds = req.UnifiedUserDecrypt.StartTimestamp, req.UnifiedUserDecrypt.DurationSeconds
		startField, durationField = "attestedPayload.requestValidity.startTimestamp", "attestedPayload.requestValidity.durationSeconds"
	default:
		return nil
	}
	const message = "the request's validity window does not hold now: the gateway would refuse it"
	t := uint64(max(now.Unix(), 0))
	switch end := start + seconds; {
	case start > t+uint64(max(skew, 0)/time.Second):
		return &AdmissionError{Label: domain.LabelValidationFailed, Check: CheckValidityStart, Message: message,
			Details: []domain.FieldIssue{{Field: startField, Issue: fmt.Sprintf("is %d, in the future (the chain's time is %d): the window must have begun", start, t)}}}
	case end < t+uint64(endMargin/time.Second):
		return &AdmissionError{Label: domain.LabelValidationFailed, Check: CheckValidityEnd, Message: message,
			Details: []domain.FieldIssue{{Field: durationField, Issue: fmt.Sprintf(
				"makes the window end at %d, past or within %s of the chain's time %d (the transaction would be mined after it): sign a new request", end, endMargin, t)}}}
	}
	return nil
}
