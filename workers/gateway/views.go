package gateway

import (
	"context"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"relayer/domain"
)

// The read-only views the readiness worker polls. They read the latest block; errors are
// *TxError (ErrTransport is retryable, ErrInvalidRequest is not).

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

func (a *Adapter) callBool(ctx context.Context, on *ethclient.Client, method string, to common.Address, data []byte,
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
