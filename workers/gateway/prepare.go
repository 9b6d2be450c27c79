package gateway

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"relayer/domain"
	"relayer/workers/gateway/contracts"
)

// Prepared is a signed gateway request that has not been broadcast yet: what the caller records
// (in the tx_in_flight event) before calling Broadcast, so that a crash at any point re-sends
// these very bytes, never a second transaction for the job.
//
// Every Prepared must end in exactly one of: Broadcast (any number of times, with the same
// bytes), or Release when the caller is certain the bytes will never be sent (e.g. recording them
// failed). A Prepared that is neither leaves a nonce gap that holds up the key's later
// transactions until Release or a nonce resync.
type Prepared struct {
	// Kind is the request kind the transaction carries.
	Kind domain.Kind
	// Raw is the signed transaction, EIP-2718 encoded (what eth_sendRawTransaction takes).
	Raw []byte
	// Hash is the transaction hash.
	Hash common.Hash
	// Nonce is the transaction's nonce.
	Nonce uint64
	// From is the signer's address.
	From common.Address
	// To is the gateway contract called.
	To common.Address
	// GasLimit, GasFeeCap and GasTipCap are the transaction's gas parameters.
	GasLimit  uint64
	GasFeeCap *big.Int
	GasTipCap *big.Int

	// NoOp marks a cancel's no-op (CancelReplacement): a transfer of nothing from the key to
	// itself, no gateway request; Kind is zero.
	NoOp bool

	tx *types.Transaction
	h  *handout // the nonce sequence's record of this nonce; nil after DecodePrepared
}

// Transaction is the decoded signed transaction.
func (p *Prepared) Transaction() *types.Transaction { return p.tx }

// Prepare encodes req (exactly one payload), estimates its gas (a revert there, e.g.
// EnforcedPause or TestScenarioRevert, is returned classified BEFORE anything is signed and no
// nonce is used), takes the next nonce of the key's sequence and signs an EIP-1559 transaction.
// Nothing is sent.
func (a *Adapter) Prepare(ctx context.Context, req domain.Request) (*Prepared, error) {
	if a.signer == nil {
		return nil, &TxError{Kind: ErrNoSigner, Op: "prepare"}
	}
	kind := req.Kind()
	to, data, err := a.calldata(req)
	if err != nil {
		return nil, &TxError{Kind: ErrInvalidRequest, Op: "prepare", Err: err}
	}
	gas, err := a.client.EstimateGas(ctx, ethereum.CallMsg{From: a.signer.Address(), To: &to, Data: data})
	if err != nil {
		return nil, a.classify("estimate gas", err)
	}
	limit := gas + gas*uint64(a.cfg.GasMarginPercent)/100
	if limit > a.cfg.MaxGasLimit {
		return nil, &TxError{Kind: ErrRejected, Op: "prepare",
			Err: fmt.Errorf("gas limit %d (estimate %d + %d%%) is above MaxGasLimit %d", limit, gas, a.cfg.GasMarginPercent, a.cfg.MaxGasLimit)}
	}
	tip, feeCap, err := a.fees(ctx)
	if err != nil {
		return nil, err
	}
	h, err := a.nonces.take(ctx, a.pendingNonce)
	if err != nil {
		return nil, a.classify("read the pending nonce", err)
	}
	nonce := h.nonce
	signed, err := a.sign(ctx, types.NewTx(&types.DynamicFeeTx{
		ChainID: a.chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: limit, To: &to, Data: data,
	}))
	if err != nil {
		a.release(h)
		return nil, err
	}
	raw, err := signed.MarshalBinary()
	if err != nil {
		a.release(h)
		return nil, &TxError{Kind: ErrRejected, Op: "encode", Err: err}
	}
	return &Prepared{
		Kind: kind, Raw: raw, Hash: signed.Hash(), Nonce: nonce, From: a.signer.Address(), To: to,
		GasLimit: limit, GasFeeCap: feeCap, GasTipCap: tip, tx: signed, h: h,
	}, nil
}

// Replacement signs a replacement of p, a transaction sent and not mined (ErrStalled): the same
// nonce, call and gas limit, with both fees raised by at least Config.FeeBumpPercent over p's and
// to at least what Prepare would pick now, within MaxFeePerGas and MaxPriorityFeePerGas. Nothing
// is sent; the caller records the replacement (its bytes, like the first transaction's) before
// it broadcasts it. Whichever of the two is mined, the other never can be: they share the nonce.
//
// MaxPriorityFeePerGas bounds the tip Prepare picks, not a replacement's: a node takes a
// replacement only with both fees raised, and a first tip at that cap would leave none.
// ErrFeeCapExceeded when MaxFeePerGas leaves no room for the raise: p waits as it is. A
// replacement holds no nonce of its own: Release does nothing for it (p's nonce stays taken).
func (a *Adapter) Replacement(ctx context.Context, p *Prepared) (*Prepared, error) {
	if a.signer == nil {
		return nil, &TxError{Kind: ErrNoSigner, Op: "replace"}
	}
	if p == nil || p.tx == nil {
		return nil, &TxError{Kind: ErrInvalidRequest, Op: "replace", Err: errors.New("not a Prepared from Prepare or DecodePrepared")}
	}
	if p.From != a.signer.Address() {
		return nil, &TxError{Kind: ErrInvalidRequest, Op: "replace", TxHash: p.Hash,
			Err: fmt.Errorf("the transaction is from %s, the adapter signs as %s", p.From, a.signer.Address())}
	}
	tip, feeCap, err := a.fees(ctx)
	if err != nil && !errors.Is(err, ErrFeeCapExceeded) {
		return nil, err
	}
	bump := func(v *big.Int) *big.Int {
		// ⌈v × (100 + pct) / 100⌉, so that rounding never leaves it under the node's minimum.
		n := new(big.Int).Mul(v, big.NewInt(int64(100+a.cfg.FeeBumpPercent)))
		return n.Add(n, big.NewInt(99)).Div(n, big.NewInt(100))
	}
	newTip, newCap := bump(p.GasTipCap), bump(p.GasFeeCap)
	if tip != nil && tip.Cmp(newTip) > 0 {
		newTip = tip
	}
	if feeCap != nil && feeCap.Cmp(newCap) > 0 {
		newCap = feeCap
	}
	if maxFee := new(big.Int).SetUint64(a.cfg.MaxFeePerGas); newCap.Cmp(maxFee) > 0 || newTip.Cmp(newCap) > 0 {
		return nil, &TxError{Kind: ErrFeeCapExceeded, Op: "replace", TxHash: p.Hash,
			Err: fmt.Errorf("a replacement needs max fee %s and tip %s wei; MaxFeePerGas is %s wei", newCap, newTip, maxFee)}
	}
	return a.signReplacement(ctx, p, newCap, newTip, p.NoOp)
}

// CancelReplacement signs a no-op replacement of p, a job's transaction sent and not known to be
// mined, to carry out an operator's cancel: a transfer of nothing from the key to itself (no
// data, the gas of a plain transfer) at p's nonce, with fees raised as Replacement raises them, so
// that a node takes it in p's place. Whichever of the two is mined, the other never can be; if
// the no-op is, no gateway request was made. Nothing is sent: the caller records it first.
// ErrFeeCapExceeded when MaxFeePerGas leaves no room for the raise.
func (a *Adapter) CancelReplacement(ctx context.Context, p *Prepared) (*Prepared, error) {
	if p == nil || p.tx == nil || a.signer == nil || p.From != a.signer.Address() {
		return nil, &TxError{Kind: ErrInvalidRequest, Op: "cancel", Err: errors.New("not a transaction of this adapter's key from Prepare or DecodePrepared")}
	}
	r, err := a.Replacement(ctx, p)
	if err != nil {
		return nil, err
	}
	return a.signReplacement(ctx, p, r.GasFeeCap, r.GasTipCap, true)
}

// signReplacement signs p again at its nonce with fees feeCap and tip: the same call, or a
// no-op (a transfer of nothing to the key itself) when noOp.
func (a *Adapter) signReplacement(ctx context.Context, p *Prepared, feeCap, tip *big.Int, noOp bool) (*Prepared, error) {
	to, gas, data, value := p.To, p.GasLimit, p.tx.Data(), p.tx.Value()
	if noOp {
		to, gas, data, value = p.From, gapFillGas, nil, new(big.Int)
	}
	signed, err := a.sign(ctx, types.NewTx(&types.DynamicFeeTx{
		ChainID: a.chainID, Nonce: p.Nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &to, Data: data, Value: value,
	}))
	if err != nil {
		return nil, err
	}
	raw, err := signed.MarshalBinary()
	if err != nil {
		return nil, &TxError{Kind: ErrRejected, Op: "encode", Err: err}
	}
	kind := p.Kind
	if noOp {
		kind = domain.Kind{}
	}
	return &Prepared{
		Kind: kind, Raw: raw, Hash: signed.Hash(), Nonce: p.Nonce, From: p.From, To: to,
		GasLimit: gas, GasFeeCap: feeCap, GasTipCap: tip, NoOp: noOp, tx: signed,
	}, nil
}

// isNoOp tells a cancel's no-op: a transfer of nothing from from to itself, with no data.
func isNoOp(tx *types.Transaction, from common.Address) bool {
	return tx.To() != nil && *tx.To() == from && len(tx.Data()) == 0 && tx.Value().Sign() == 0
}

// sign signs tx with the adapter's key, within Config.CallTimeout (a key service such as KMS is
// asked over the network). A failure is ErrSigner (retryable: nothing was signed), or ErrCanceled
// when ctx ended.
func (a *Adapter) sign(ctx context.Context, tx *types.Transaction) (*types.Transaction, error) {
	sctx, cancel := context.WithTimeout(ctx, a.cfg.CallTimeout)
	defer cancel()
	signed, err := signTx(sctx, a.signer, tx, a.chainID)
	if err != nil {
		kind := ErrSigner
		if ctx.Err() != nil {
			kind = ErrCanceled
		}
		return nil, &TxError{Kind: kind, Op: "sign", Err: err}
	}
	return signed, nil
}

func (a *Adapter) pendingNonce(ctx context.Context) (uint64, error) {
	return a.client.PendingNonceAt(ctx, a.signer.Address())
}

// fees picks the tip (the node's suggestion, capped) and the fee cap (twice the base fee plus
// the tip, capped), refusing when the base fee alone is above the cap. The base fee and the
// suggestion are at most headerMaxAge old: one read of each serves every transaction signed
// within it.
func (a *Adapter) fees(ctx context.Context) (tip, feeCap *big.Int, err error) {
	baseFee, suggested, err := a.market(ctx)
	if err != nil {
		return nil, nil, err
	}
	tip = new(big.Int).Set(suggested)
	maxFee := new(big.Int).SetUint64(a.cfg.MaxFeePerGas)
	if maxTip := new(big.Int).SetUint64(a.cfg.MaxPriorityFeePerGas); tip.Cmp(maxTip) > 0 {
		tip = maxTip
	}
	if baseFee.Cmp(maxFee) >= 0 {
		return nil, nil, &TxError{Kind: ErrFeeCapExceeded, Op: "fees",
			Err: fmt.Errorf("base fee %s wei, MaxFeePerGas %s wei", baseFee, maxFee)}
	}
	feeCap = new(big.Int).Add(new(big.Int).Mul(baseFee, big.NewInt(2)), tip)
	if feeCap.Cmp(maxFee) > 0 {
		feeCap = maxFee
	}
	if tip.Cmp(feeCap) > 0 {
		tip = new(big.Int).Set(feeCap)
	}
	return tip, feeCap, nil
}

// market is the chain's base fee and the node's tip suggestion, each at most headerMaxAge old
// (shared with every caller within it): what fees signs with and what outbid compares with.
func (a *Adapter) market(ctx context.Context) (baseFee, suggestedTip *big.Int, err error) {
	head, _, err := a.latestHeader(ctx)
	if err != nil {
		return nil, nil, err
	}
	if head.BaseFee == nil {
		return nil, nil, &TxError{Kind: ErrRejected, Op: "fees", Err: errors.New("the chain has no base fee (EIP-1559 is not active)")}
	}
	suggested, _, err := a.tip.get(ctx, headerMaxAge, a.client.SuggestGasTipCap)
	if err != nil {
		return nil, nil, a.classify("suggest a tip", err)
	}
	return head.BaseFee, suggested, nil
}

// forgetFees drops the base fee and the tip read up to a second ago (fees), after a node refused
// a transaction for its fees: the next transaction reads them again.
func (a *Adapter) forgetFees() {
	a.head.forget()
	a.tip.forget()
}

// calldata encodes req for its gateway contract.
func (a *Adapter) calldata(req domain.Request) (common.Address, []byte, error) {
	switch req.Kind() {
	case domain.PublicDecrypt:
		handles, extra, err := publicDecryptArgs(*req.PublicDecrypt)
		if err != nil {
			return common.Address{}, nil, err
		}
		data, err := a.decryption.TryPackPublicDecryptionRequest(handles, extra)
		return a.cfg.Contracts.Decryption, data, err
	case domain.UserDecrypt:
		if req.UnifiedUserDecrypt != nil {
			u, err := unifiedUserDecryptArgs(*req.UnifiedUserDecrypt)
			if err != nil {
				return common.Address{}, nil, err
			}
			data, err := a.decryption.TryPackUnifiedUserDecryptionRequest(u.handles, u.user, u.publicKey, u.allowed, u.validity, u.signature, u.extra)
			return a.cfg.Contracts.Decryption, data, err
		}
		u, err := userDecryptArgs(*req.UserDecrypt)
		if err != nil {
			return common.Address{}, nil, err
		}
		data, err := a.decryption.TryPackUserDecryptionRequest(u.pairs, u.validity, u.contracts, u.user, u.publicKey, u.signature, u.extra)
		return a.cfg.Contracts.Decryption, data, err
	case domain.DelegatedUserDecrypt:
		d, err := delegatedUserDecryptArgs(*req.DelegatedUserDecrypt)
		if err != nil {
			return common.Address{}, nil, err
		}
		data, err := a.decryption.TryPackDelegatedUserDecryptionRequest(d.pairs, d.validity, d.accounts, d.contracts, d.publicKey, d.signature, d.extra)
		return a.cfg.Contracts.Decryption, data, err
	case domain.InputProof:
		r := *req.InputProof
		var errs []error
		contract := address("contractAddress", r.ContractAddress, &errs)
		user := address("userAddress", r.UserAddress, &errs)
		ct := hexBytes("ciphertextWithInputVerification", r.Ciphertext, &errs)
		extra := hexBytes("extraData", r.ExtraData, &errs)
		if len(errs) > 0 {
			return common.Address{}, nil, errors.Join(errs...)
		}
		data, err := a.inputVerification.TryPackVerifyProofRequest(new(big.Int).SetUint64(r.ContractChainID), contract, user, ct, extra)
		return a.cfg.Contracts.InputVerification, data, err
	default:
		return common.Address{}, nil, errors.New("the request must hold exactly one of inputProof, publicDecrypt, userDecrypt, delegatedUserDecrypt, unifiedUserDecrypt")
	}
}

func publicDecryptArgs(r domain.PublicDecryptRequest) ([][32]byte, []byte, error) {
	var errs []error
	handles := make([][32]byte, len(r.CiphertextHandles))
	for i, h := range r.CiphertextHandles {
		handles[i] = handle(fmt.Sprintf("ciphertextHandles[%d]", i), h, &errs)
	}
	extra := hexBytes("extraData", r.ExtraData, &errs)
	return handles, extra, errors.Join(errs...)
}

type userDecryptCall struct {
	pairs     []contracts.DecryptionCtHandleContractPair
	validity  contracts.DecryptionRequestValidity
	contracts contracts.DecryptionContractsInfo
	user      common.Address
	publicKey []byte
	signature []byte
	extra     []byte
}

func userDecryptArgs(r domain.UserDecryptRequest) (userDecryptCall, error) {
	var errs []error
	u := userDecryptCall{
		pairs:     handleContractPairs(r.HandleContractPairs, &errs),
		validity:  requestValidity(r.RequestValidity.StartTimestamp, r.RequestValidity.DurationDays),
		contracts: contractsInfo(r.ContractsChainID, r.ContractAddresses, &errs),
	}
	u.user = address("userAddress", r.UserAddress, &errs)
	u.publicKey = hexBytes("publicKey", r.PublicKey, &errs)
	u.signature = hexBytes("signature", r.Signature, &errs)
	u.extra = hexBytes("extraData", r.ExtraData, &errs)
	return u, errors.Join(errs...)
}

type unifiedUserDecryptCall struct {
	handles   []contracts.DecryptionHandleEntry
	user      common.Address
	publicKey []byte
	allowed   []common.Address
	validity  contracts.DecryptionRequestValiditySeconds
	signature []byte
	extra     []byte
}

// unifiedUserDecryptArgs converts a unified user decrypt for the unified userDecryptionRequest.
func unifiedUserDecryptArgs(r domain.UnifiedUserDecryptRequest) (unifiedUserDecryptCall, error) {
	var errs []error
	u := unifiedUserDecryptCall{
		handles: make([]contracts.DecryptionHandleEntry, len(r.Handles)),
		allowed: make([]common.Address, len(r.AllowedContracts)),
		validity: contracts.DecryptionRequestValiditySeconds{
			StartTimestamp:  new(big.Int).SetUint64(r.StartTimestamp),
			DurationSeconds: new(big.Int).SetUint64(r.DurationSeconds),
		},
	}
	for i, h := range r.Handles {
		u.handles[i] = contracts.DecryptionHandleEntry{
			Handle:          handle(fmt.Sprintf("handles[%d].ctHandle", i), h.Handle, &errs),
			ContractAddress: address(fmt.Sprintf("handles[%d].contractAddress", i), h.ContractAddress, &errs),
			OwnerAddress:    address(fmt.Sprintf("handles[%d].ownerAddress", i), h.OwnerAddress, &errs),
		}
	}
	for i, c := range r.AllowedContracts {
		u.allowed[i] = address(fmt.Sprintf("allowedContracts[%d]", i), c, &errs)
	}
	u.user = address("userAddress", r.UserAddress, &errs)
	u.publicKey = hexBytes("publicKey", r.PublicKey, &errs)
	u.signature = hexBytes("signature", r.Signature, &errs)
	u.extra = hexBytes("extraData", r.ExtraData, &errs)
	return u, errors.Join(errs...)
}

// unifiedPairs are a unified user decrypt's handles with their contracts, as the readiness view
// takes them (the gateway asks only whether each handle's ciphertext is there).
func unifiedPairs(r domain.UnifiedUserDecryptRequest) ([]contracts.DecryptionCtHandleContractPair, error) {
	u, err := unifiedUserDecryptArgs(r)
	pairs := make([]contracts.DecryptionCtHandleContractPair, len(u.handles))
	for i, h := range u.handles {
		pairs[i] = contracts.DecryptionCtHandleContractPair{CtHandle: h.Handle, ContractAddress: h.ContractAddress}
	}
	return pairs, err
}

// userDecryptPairs converts the pairs alone (for the readiness view).
func userDecryptPairs(r domain.UserDecryptRequest) ([]contracts.DecryptionCtHandleContractPair, common.Address, []byte, error) {
	u, err := userDecryptArgs(r)
	return u.pairs, u.user, u.extra, err
}

type delegatedUserDecryptCall struct {
	pairs     []contracts.DecryptionCtHandleContractPair
	validity  contracts.DecryptionRequestValidity
	accounts  contracts.DecryptionDelegationAccounts
	contracts contracts.DecryptionContractsInfo
	publicKey []byte
	signature []byte
	extra     []byte
}

// delegatedUserDecryptArgs converts a delegated user decrypt as userDecryptArgs does a user
// decrypt; its flat StartTimestamp and DurationDays become the call's requestValidity.
func delegatedUserDecryptArgs(r domain.DelegatedUserDecryptRequest) (delegatedUserDecryptCall, error) {
	var errs []error
	d := delegatedUserDecryptCall{
		pairs:     handleContractPairs(r.HandleContractPairs, &errs),
		validity:  requestValidity(r.StartTimestamp, r.DurationDays),
		contracts: contractsInfo(r.ContractsChainID, r.ContractAddresses, &errs),
		accounts: contracts.DecryptionDelegationAccounts{
			DelegatorAddress: address("delegatorAddress", r.DelegatorAddress, &errs),
			DelegateAddress:  address("delegateAddress", r.DelegateAddress, &errs),
		},
	}
	d.publicKey = hexBytes("publicKey", r.PublicKey, &errs)
	d.signature = hexBytes("signature", r.Signature, &errs)
	d.extra = hexBytes("extraData", r.ExtraData, &errs)
	return d, errors.Join(errs...)
}

func handleContractPairs(in []domain.HandleContractPair, errs *[]error) []contracts.DecryptionCtHandleContractPair {
	out := make([]contracts.DecryptionCtHandleContractPair, len(in))
	for i, p := range in {
		out[i] = contracts.DecryptionCtHandleContractPair{
			CtHandle:        handle(fmt.Sprintf("handleContractPairs[%d].handle", i), p.Handle, errs),
			ContractAddress: address(fmt.Sprintf("handleContractPairs[%d].contractAddress", i), p.ContractAddress, errs),
		}
	}
	return out
}

func requestValidity(start, days uint64) contracts.DecryptionRequestValidity {
	return contracts.DecryptionRequestValidity{
		StartTimestamp: new(big.Int).SetUint64(start),
		DurationDays:   new(big.Int).SetUint64(days),
	}
}

func contractsInfo(chainID uint64, addrs []string, errs *[]error) contracts.DecryptionContractsInfo {
	info := contracts.DecryptionContractsInfo{
		ChainId:   new(big.Int).SetUint64(chainID),
		Addresses: make([]common.Address, len(addrs)),
	}
	for i, c := range addrs {
		info.Addresses[i] = address(fmt.Sprintf("contractAddresses[%d]", i), c, errs)
	}
	return info
}

func handle(field, s string, errs *[]error) [32]byte {
	h, err := domain.ParseHandle(s)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s: %w", field, err))
	}
	return h
}

func address(field, s string, errs *[]error) common.Address {
	if !common.IsHexAddress(s) {
		*errs = append(*errs, fmt.Errorf("%s is not an address", field))
		return common.Address{}
	}
	return common.HexToAddress(s)
}

// hexBytes decodes hex with or without 0x ("" and "0x" are empty).
func hexBytes(field, s string, errs *[]error) []byte {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	b, err := hex.DecodeString(s)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s is not hex", field))
	}
	return b
}

// DecodePrepared rebuilds a Prepared from the raw bytes the caller recorded (crash recovery):
// Broadcast of the result re-sends exactly those bytes. The kind comes from the called contract
// and function; Release ignores a decoded Prepared (its nonce belongs to no live sequence).
func (a *Adapter) DecodePrepared(raw []byte) (*Prepared, error) {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return nil, fmt.Errorf("gateway: decode the recorded transaction: %w", err)
	}
	if tx.ChainId().Cmp(a.chainID) != 0 {
		return nil, fmt.Errorf("gateway: the recorded transaction is for chain %s, not %s", tx.ChainId(), a.chainID)
	}
	from, err := types.Sender(types.LatestSignerForChainID(a.chainID), tx)
	if err != nil {
		return nil, fmt.Errorf("gateway: recover the recorded transaction's sender: %w", err)
	}
	if tx.To() == nil {
		return nil, errors.New("gateway: the recorded transaction creates a contract; it is not a gateway request")
	}
	if isNoOp(tx, from) {
		return &Prepared{
			Raw: append([]byte(nil), raw...), Hash: tx.Hash(), Nonce: tx.Nonce(), From: from, To: *tx.To(),
			GasLimit: tx.Gas(), GasFeeCap: tx.GasFeeCap(), GasTipCap: tx.GasTipCap(), NoOp: true, tx: tx,
		}, nil
	}
	kind, ok := a.kindOfCall(*tx.To(), tx.Data())
	if !ok {
		return nil, fmt.Errorf("gateway: the recorded transaction to %s is not a gateway request", tx.To())
	}
	return &Prepared{
		Kind: kind, Raw: append([]byte(nil), raw...), Hash: tx.Hash(), Nonce: tx.Nonce(), From: from, To: *tx.To(),
		GasLimit: tx.Gas(), GasFeeCap: tx.GasFeeCap(), GasTipCap: tx.GasTipCap(), tx: tx,
	}, nil
}

// kindOfCall tells the request kind of a call from its contract and function selector: a
// delegatedUserDecryptionRequest is a DelegatedUserDecrypt, although its receipt's request
// event is a user decryption's (see Receipt.Kind); either overload of userDecryptionRequest is
// a UserDecrypt.
func (a *Adapter) kindOfCall(to common.Address, data []byte) (domain.Kind, bool) {
	if len(data) < 4 {
		return domain.Kind{}, false
	}
	sel := string(data[:4])
	decABI, ivABI := a.decryption.GetABI(), a.inputVerification.GetABI()
	switch {
	case to == a.cfg.Contracts.Decryption && sel == string(decABI.Methods["publicDecryptionRequest"].ID):
		return domain.PublicDecrypt, true
	case to == a.cfg.Contracts.Decryption &&
		// The ABI names the two overloads userDecryptionRequest and userDecryptionRequest0.
		(sel == string(decABI.Methods["userDecryptionRequest"].ID) || sel == string(decABI.Methods["userDecryptionRequest0"].ID)):
		return domain.UserDecrypt, true
	case to == a.cfg.Contracts.Decryption && sel == string(decABI.Methods["delegatedUserDecryptionRequest"].ID):
		return domain.DelegatedUserDecrypt, true
	case to == a.cfg.Contracts.InputVerification && sel == string(ivABI.Methods["verifyProofRequest"].ID):
		return domain.InputProof, true
	}
	return domain.Kind{}, false
}

// Release gives back the nonce of a Prepared that will never be broadcast: recording it failed,
// or the caller gives up on bytes the node refused (ErrUnderpriced, ErrInsufficientFunds,
// ErrRejected). Never release after ErrTransport, ErrCanceled or ErrReceiptTimeout: the node may
// have the transaction. The next Prepare reuses the nonce; if none comes
// within Config.GapFillDelay while later nonces are out, the adapter fills it with a zero-value
// transfer to itself (never a gateway request), so they are not held up. Release does nothing
// for a Prepared already released or broadcast, one from before a nonce resync, or one from
// DecodePrepared.
func (a *Adapter) Release(p *Prepared) {
	if p != nil && p.h != nil {
		// The nonce check (HealNonces) never sends the released bytes again: between a gap
		// fill's taking of the nonce and its filling's send, the nonce is known to nobody.
		a.forgetSent(p.Nonce, p.Raw)
		a.release(p.h)
	}
}

func (a *Adapter) release(h *handout) {
	if a.nonces.release(h) {
		a.scheduleGapFill()
	}
}
