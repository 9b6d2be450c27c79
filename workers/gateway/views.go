package gateway

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"relayer/domain"
)

// The read-only views the readiness worker polls. They read the latest block; errors are
// *TxError (ErrTransport is retryable, ErrInvalidRequest is not).

// Balance is the signing key's balance at the latest block, in wei (ErrNoSigner without a key).
func (a *Adapter) Balance(ctx context.Context) (*big.Int, error) {
	if a.signer == nil {
		return nil, ErrNoSigner
	}
	b, err := a.client.BalanceAt(ctx, a.signer.Address(), nil)
	if err != nil {
		return nil, a.classify("read the key's balance", err)
	}
	return b, nil
}

// IsPublicDecryptionReady asks the gateway whether every handle of req can be publicly decrypted
// now (Decryption.isPublicDecryptionReady).
func (a *Adapter) IsPublicDecryptionReady(ctx context.Context, req domain.PublicDecryptRequest) (bool, error) {
	handles, extra, err := publicDecryptArgs(req)
	if err != nil {
		return false, &TxError{Kind: ErrInvalidRequest, Op: "call isPublicDecryptionReady", Err: err}
	}
	return a.callBool(ctx, a.client, "isPublicDecryptionReady", a.cfg.Contracts.Decryption,
		a.decryption.PackIsPublicDecryptionReady(handles, extra), a.decryption.UnpackIsPublicDecryptionReady)
}

// IsUserDecryptionReady asks the gateway whether every handle of req can be decrypted for its
// user now (Decryption.isUserDecryptionReady).
func (a *Adapter) IsUserDecryptionReady(ctx context.Context, req domain.UserDecryptRequest) (bool, error) {
	pairs, user, extra, err := userDecryptPairs(req)
	if err != nil {
		return false, &TxError{Kind: ErrInvalidRequest, Op: "call isUserDecryptionReady", Err: err}
	}
	return a.callBool(ctx, a.client, "isUserDecryptionReady", a.cfg.Contracts.Decryption,
		a.decryption.PackIsUserDecryptionReady(user, pairs, extra), a.decryption.UnpackIsUserDecryptionReady)
}

// IsUnifiedUserDecryptionReady asks the gateway whether every handle of a unified user decrypt
// can be decrypted now (Decryption.isUserDecryptionReady, with the handles and their contracts).
func (a *Adapter) IsUnifiedUserDecryptionReady(ctx context.Context, req domain.UnifiedUserDecryptRequest) (bool, error) {
	pairs, err := unifiedPairs(req)
	if err != nil {
		return false, &TxError{Kind: ErrInvalidRequest, Op: "call isUserDecryptionReady", Err: err}
	}
	extra := common.FromHex(req.ExtraData)
	return a.callBool(ctx, a.client, "isUserDecryptionReady", a.cfg.Contracts.Decryption,
		a.decryption.PackIsUserDecryptionReady(common.HexToAddress(req.UserAddress), pairs, extra), a.decryption.UnpackIsUserDecryptionReady)
}

// IsDelegatedUserDecryptionReady asks the gateway whether every handle of req can be decrypted
// for its delegate now (Decryption.isDelegatedUserDecryptionReady, with the delegation accounts).
func (a *Adapter) IsDelegatedUserDecryptionReady(ctx context.Context, req domain.DelegatedUserDecryptRequest) (bool, error) {
	d, err := delegatedUserDecryptArgs(req)
	if err != nil {
		return false, &TxError{Kind: ErrInvalidRequest, Op: "call isDelegatedUserDecryptionReady", Err: err}
	}
	return a.callBool(ctx, a.client, "isDelegatedUserDecryptionReady", a.cfg.Contracts.Decryption,
		a.decryption.PackIsDelegatedUserDecryptionReady(d.accounts, d.pairs, d.extra),
		a.decryption.UnpackIsDelegatedUserDecryptionReady)
}

// ACLAllowed asks the host ACL whether account may use handle (ACL.isAllowed); a user decrypt
// needs it for the user and for the contract of each pair.
func (a *Adapter) ACLAllowed(ctx context.Context, handle [32]byte, account common.Address) (bool, error) {
	return a.callBool(ctx, a.host, "isAllowed", a.cfg.Contracts.ACL,
		a.acl.PackIsAllowed(handle, account), a.acl.UnpackIsAllowed)
}

// ACLAllowedForDecryption asks the host ACL whether handle may be publicly decrypted
// (ACL.isAllowedForDecryption).
func (a *Adapter) ACLAllowedForDecryption(ctx context.Context, handle [32]byte) (bool, error) {
	return a.callBool(ctx, a.host, "isAllowedForDecryption", a.cfg.Contracts.ACL,
		a.acl.PackIsAllowedForDecryption(handle), a.acl.UnpackIsAllowedForDecryption)
}

// ACLDelegated asks the host ACL whether delegator has delegated the user decryption of handle
// in contract to delegate, now (ACL.isHandleDelegatedForUserDecryption: the delegation exists and
// has not expired, and both the delegator and the contract may use the handle); a delegated user
// decrypt needs it for each pair, and the gateway refuses the request otherwise
// (UserDecryptNotDelegated).
func (a *Adapter) ACLDelegated(ctx context.Context, delegator, delegate, contract common.Address, handle [32]byte) (bool, error) {
	return a.callBool(ctx, a.host, "isHandleDelegatedForUserDecryption", a.cfg.Contracts.ACL,
		a.acl.PackIsHandleDelegatedForUserDecryption(delegator, delegate, contract, handle),
		a.acl.UnpackIsHandleDelegatedForUserDecryption)
}

func (a *Adapter) callBool(ctx context.Context, on *node, method string, to common.Address, data []byte,
	unpack func([]byte) (bool, error)) (bool, error) {
	out, err := on.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	if err != nil {
		return false, a.classify("call "+method, err)
	}
	ok, err := unpack(out)
	if err != nil {
		return false, &TxError{Kind: ErrRejected, Op: "call " + method, Err: err}
	}
	return ok, nil
}
