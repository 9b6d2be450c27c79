package gateway

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"relayer/domain"
	"relayer/workers/gateway/contracts"
	"relayer/workers/upstream"
)

// Receipt is a mined, successful gateway request.
type Receipt struct {
	// Kind is the request kind of the receipt's request event: UserDecrypt for a delegated user
	// decrypt too, which the gateway announces with the same UserDecryptionRequest event and
	// answers under the same ids. It is therefore the Family() of the job's kind (and of
	// Prepared.Kind); compare it with that, not with the kind itself.
	Kind domain.Kind
	// RequestID is the gateway's id of the request (decryptionId, zkProofId): the indexed topic
	// 1 of its request event, which every response event carries too.
	RequestID *big.Int
	TxHash    common.Hash
	// BlockNumber and BlockHash say where it was mined.
	BlockNumber uint64
	BlockHash   common.Hash
	GasUsed     uint64
	// Raw is the node's receipt.
	Raw *types.Receipt
	// NoOp says the transaction mined is a cancel's no-op (a transfer of nothing from the key to
	// itself): no gateway request was made, and RequestID and Kind are unset.
	NoOp bool
}

// Broadcast sends p's bytes (to every healthy provider: node.sendRaw) and waits for the receipt: with eth_sendRawTransactionSync when the
// node has it (a "method not found" answer is remembered, once for the adapter), otherwise with
// eth_sendRawTransaction and a receipt poll per new head (see waitReceipt), for at most
// Config.ReceiptTimeout.
//
// It is idempotent: sending the same bytes again, after a crash or a lost answer, never makes a
// second transaction. "already known" (the transaction is in the pool) waits for its receipt;
// "nonce too low" looks the transaction up by hash: mined means success, not mined means another
// transaction took the nonce (ErrNonceTooLow).
//
// A status-0 receipt is replayed with eth_call at its block to name the revert (ErrPaused for
// EnforcedPause, else ErrReverted); the *TxError carries the receipt.
func (a *Adapter) Broadcast(ctx context.Context, p *Prepared) (*Receipt, error) {
	if p == nil || p.tx == nil {
		return nil, &TxError{Kind: ErrInvalidRequest, Op: "broadcast",
			Err: errors.New("not a Prepared from Prepare or DecodePrepared")}
	}
	parent := ctx
	ctx, cancel := context.WithTimeoutCause(ctx, a.cfg.ReceiptTimeout, ErrReceiptTimeout)
	defer cancel()
	rec, err := a.send(ctx, p)
	if err != nil {
		return nil, a.timeoutKind(parent, ctx, err)
	}
	return a.outcome(ctx, p.tx, p.From, rec)
}

// timeoutKind turns a cancellation by the receipt timeout (not by the caller) into ErrReceiptTimeout.
func (a *Adapter) timeoutKind(parent, ctx context.Context, err error) error {
	var te *TxError
	if errors.As(err, &te) && te.Kind == ErrCanceled && parent.Err() == nil && errors.Is(context.Cause(ctx), ErrReceiptTimeout) {
		te.Kind = ErrReceiptTimeout
	}
	return err
}

// send hands p to the node and waits for its receipt. With eth_sendRawTransactionSync the node
// waits for the receipt itself, holding one of the sends (Adapter.sends) for as long; when every
// one is held, p does not wait for one to free: it goes with eth_sendRawTransaction, and its
// receipt is polled. A transaction is mined only after its key's earlier ones, so the sends
// held may all be waiting for p: under load, 32 later transactions held every send for the
// node's whole wait (5 s) while the one they waited for queued behind them.
func (a *Adapter) send(ctx context.Context, p *Prepared) (*types.Receipt, error) {
	if a.signer != nil && p.From == a.signer.Address() {
		// The key's own only: a fleet's engine also sends the recorded bytes of another key's
		// jobs, whose nonces are not this key's (HealNonces sends the kept ones again).
		a.remember(p.Nonce, p.Raw)
	}
	if a.syncSend.Load() != syncUnsupported {
		select {
		case a.sends <- struct{}{}:
			rec, sent, err := a.sendSync(ctx, p)
			if sent {
				return rec, err
			}
		default:
		}
	}
	select {
	case a.handovers <- struct{}{}:
	case <-ctx.Done():
		return nil, &TxError{Kind: ErrCanceled, Op: "broadcast", TxHash: p.Hash, Err: ctx.Err()}
	}
	_, err := a.client.sendRaw(ctx, p.Raw, nil)
	<-a.handovers
	if err != nil {
		te := classifySend(a.redact, "broadcast", err)
		te.TxHash = p.Hash
		return a.afterSendError(ctx, p, te)
	}
	a.nonces.sent(p.h)
	return a.waitReceipt(ctx, p)
}

// sendSync sends p with eth_sendRawTransactionSync, holding the send it was given until the
// node answers. sent is false when the node has no such method: p was not sent, and the send
// is given back.
func (a *Adapter) sendSync(ctx context.Context, p *Prepared) (rec *types.Receipt, sent bool, err error) {
	held := true
	release := func() {
		if held {
			held = false
			<-a.sends
		}
	}
	defer release()
	// The node's wait (milliseconds, EIP-7966) ends before the call's deadline, so that a
	// transaction still in the pool comes back as the node's "sync timeout" (then polled)
	// rather than as our timeout (ErrTransport). A node that reads the parameter otherwise is
	// still bounded by the deadline.
	wait := a.cfg.CallTimeout / 2
	rec, err = a.client.sendRaw(ctx, p.Raw, &wait)
	if err == nil {
		a.syncSend.Store(syncSupported)
		a.nonces.sent(p.h)
		return rec, true, nil
	}
	te := classifySend(a.redact, "broadcast", err)
	te.TxHash = p.Hash
	if te.Kind != errMethodNotFound {
		release() // what follows waits for blocks, not for the node's answer to the send
		rec, err = a.afterSendError(ctx, p, te)
		return rec, true, err
	}
	if a.syncSend.Swap(syncUnsupported) != syncUnsupported {
		a.log.Info("the node has no eth_sendRawTransactionSync; sending with eth_sendRawTransaction and polling receipts")
	}
	return nil, false, nil
}

// afterSendError decides what a refused or failed send means for this very transaction. Once
// the node has the transaction (in its pool or mined), p's nonce can no longer be released.
func (a *Adapter) afterSendError(ctx context.Context, p *Prepared, te *TxError) (*types.Receipt, error) {
	if te.Kind == ErrUnderpriced && a.nonceMined(ctx, p) {
		// The node's pool may still hold a transaction that was just mined with this nonce
		// and answer "replacement underpriced" for a moment: the nonce is used up all the same.
		te.Kind = ErrNonceTooLow
	}
	switch te.Kind {
	case errSyncTimeout, ErrAlreadyKnown:
		// In the pool: the same transaction, not a second one. Wait for it.
		a.nonces.sent(p.h)
		if te.Kind == ErrAlreadyKnown {
			a.kickNonceCheck()
		}
		return a.waitReceipt(ctx, p)
	case ErrNonceTooLow:
		rec, err := a.minedReceipt(ctx, p.Hash)
		if err == nil && rec == nil {
			// "Not mined" sends the job back for a new transaction, so it must be true: behind
			// a load-balanced provider the nonce can come from a backend that has the block
			// and the receipt from one that does not yet. Ask again once, a poll later.
			if err = sleep(ctx, a.cfg.PollInterval); err != nil {
				return nil, &TxError{Kind: ErrCanceled, Op: "look up receipt", TxHash: p.Hash, Err: err}
			}
			rec, err = a.minedReceipt(ctx, p.Hash)
		}
		if err != nil {
			return nil, err
		}
		a.nonces.sent(p.h)
		if rec != nil {
			return rec, nil // ours was mined: a re-broadcast of a transaction that made it
		}
		a.nonces.invalidate(true)
		a.kickNonceCheck()
		return nil, te
	case ErrNonceTooHigh:
		a.nonces.invalidate(false)
		a.kickNonceCheck()
		return nil, te
	case ErrUnderpriced:
		a.forgetFees()
	case errMethodNotFound:
		te.Kind = ErrRejected // eth_sendRawTransaction itself is missing
	}
	return nil, te
}

// nonceMined tells whether the chain's latest block has p's sender past p's nonce.
func (a *Adapter) nonceMined(ctx context.Context, p *Prepared) bool {
	n, err := a.client.NonceAt(ctx, p.From, nil)
	return err == nil && n > p.Nonce
}

// minedReceipt returns the receipt of hash, or nil when it is not mined. A node still indexing
// transactions is asked again until it answers or ctx ends.
func (a *Adapter) minedReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	wait := a.cfg.ReceiptPollMin
	for {
		rec, err := a.client.TransactionReceipt(ctx, hash)
		switch {
		case err == nil:
			return rec, nil
		case errors.Is(err, ethereum.NotFound):
			return nil, nil
		case !isIndexingInProgress(err):
			te := a.classify("look up receipt", err)
			te.TxHash = hash
			return nil, te
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, &TxError{Kind: ErrCanceled, Op: "look up receipt", TxHash: hash, Err: err}
		}
		wait = min(2*wait, a.cfg.PollInterval)
	}
}

// waitReceipt polls for hash's receipt until it exists or ctx ends. A receipt can only appear
// with a new block, so after a miss it waits for the next head the adapter sees (the health
// probe reads it every second, the listener at every poll), at least ReceiptPollMin doubling up
// to PollInterval and at most receiptRecheck PollIntervals: N transactions waiting make N polls
// per block, not N per poll interval, and none while the chain stands still or cannot be
// reached. Transport errors are waited out too: the transaction is in the pool.
//
// With Config.BumpAfterBlocks set, a transaction still not mined once that many new heads were
// seen is ErrStalled if the chain has left its fees behind or the node does not hold it (stalled):
// the caller replaces it (Replacement). One in the node's pool whose fees still meet the chain's
// waits on: it is behind its key's earlier transactions or a full pool, and a replacement would
// not be mined sooner. (Under a backlog, every transaction of a key that had waited a few blocks
// was replaced, in bursts, for higher fees and nothing else.)
func (a *Adapter) waitReceipt(ctx context.Context, p *Prepared) (*types.Receipt, error) {
	hash := p.Hash
	wait := a.cfg.ReceiptPollMin
	first := a.health.snapshot().Head
	for {
		head := a.health.snapshot().Head
		first = cmp.Or(first, head) // no head seen yet when the wait began
		if a.cfg.BumpAfterBlocks > 0 && first > 0 && head >= first+uint64(a.cfg.BumpAfterBlocks) {
			rec, err := a.client.TransactionReceipt(ctx, hash)
			if err == nil {
				return rec, nil
			}
			if why := a.stalled(ctx, p); why != nil {
				return nil, &TxError{Kind: ErrStalled, Op: "wait for receipt", TxHash: hash,
					Err: fmt.Errorf("not mined in %d blocks (%d to %d): %w", head-first, first, head, why)}
			}
			first = head // in the pool at the chain's fees: count the blocks again from here
		}
		rec, err := a.client.TransactionReceipt(ctx, hash)
		if err == nil {
			return rec, nil
		}
		if !errors.Is(err, ethereum.NotFound) && !isIndexingInProgress(err) {
			te := a.classify("wait for receipt", err)
			te.TxHash = hash
			if te.Kind != ErrTransport {
				return nil, te
			}
			a.log.Debug("receipt poll failed; polling on", "tx", hash, "err", te)
		}
		if err := a.health.waitHead(ctx, head, wait, max(wait, receiptRecheck*a.cfg.PollInterval)); err != nil {
			return nil, &TxError{Kind: ErrCanceled, Op: "wait for receipt", TxHash: hash, Err: err}
		}
		wait = min(2*wait, a.cfg.PollInterval)
	}
}

// stalled says why p, not mined after the blocks allowed, should be replaced, or nil when it
// should wait on: the chain has left its fees behind (outbid), or the node does not hold it in
// its pool (another transaction holds its nonce there, say, so a replacement dearer than that
// one is what can move it). A lookup that fails counts as stalled, as every transaction that
// waited did before.
func (a *Adapter) stalled(ctx context.Context, p *Prepared) error {
	if why := a.outbid(ctx, p); why != nil {
		return why
	}
	_, _, err := a.client.TransactionByHash(ctx, p.Hash)
	switch {
	case errors.Is(err, ethereum.NotFound):
		return errors.New("the node does not hold it")
	case err != nil:
		return fmt.Errorf("the node's pool cannot be read for it: %w", err)
	}
	return nil // in the pool, or mined meanwhile (the next poll finds its receipt)
}

// outbid says how the chain has left p's fees behind, or nil when they still meet it: its fee
// cap at or above the base fee, and the tip it would pay at that base fee at least nine tenths
// of the node's suggestion (a replacement must raise it by a tenth anyway). The base fee and the
// suggestion are the ones read for signing, at most a second old. When they cannot be read, p
// counts as outbid, as every transaction that waited did before.
func (a *Adapter) outbid(ctx context.Context, p *Prepared) error {
	baseFee, suggested, err := a.market(ctx)
	if err != nil {
		return fmt.Errorf("the chain's fees cannot be read: %v", err)
	}
	if p.GasFeeCap.Cmp(baseFee) < 0 {
		return fmt.Errorf("fee cap %s wei under the base fee %s wei", p.GasFeeCap, baseFee)
	}
	effective := new(big.Int).Sub(p.GasFeeCap, baseFee)
	if p.GasTipCap.Cmp(effective) < 0 {
		effective.Set(p.GasTipCap)
	}
	if new(big.Int).Mul(effective, big.NewInt(10)).Cmp(new(big.Int).Mul(suggested, big.NewInt(9))) < 0 {
		return fmt.Errorf("tip %s wei under nine tenths of the suggested %s wei", effective, suggested)
	}
	return nil
}

// receiptRecheck is how many PollIntervals a receipt waits at most without a new head.
const receiptRecheck = 10

// sleep waits d or until ctx is done (upstream's wall clock, which the retries use too).
func sleep(ctx context.Context, d time.Duration) error { return upstream.RealClock().Sleep(ctx, d) }

// isIndexingInProgress is go-ethereum's answer to a receipt lookup while it still indexes
// transactions (right after start): "not known yet".
func isIndexingInProgress(err error) bool {
	return err != nil && strings.Contains(strings.ToLower(err.Error()), "transaction indexing is in progress")
}

// outcome turns a receipt into a Receipt, or a classified revert for status 0.
func (a *Adapter) outcome(ctx context.Context, tx *types.Transaction, from common.Address, rec *types.Receipt) (*Receipt, error) {
	if rec.Status != types.ReceiptStatusSuccessful {
		return nil, a.revertOf(ctx, tx, from, rec)
	}
	r := &Receipt{TxHash: rec.TxHash, GasUsed: rec.GasUsed, BlockHash: rec.BlockHash, Raw: rec}
	if rec.BlockNumber != nil {
		r.BlockNumber = rec.BlockNumber.Uint64()
	}
	if tx != nil && isNoOp(tx, from) {
		r.NoOp = true
		return r, nil
	}
	for _, l := range rec.Logs {
		if len(l.Topics) < 2 {
			continue
		}
		switch {
		case l.Address == a.cfg.Contracts.Decryption && l.Topics[0] == contracts.TopicPublicDecryptionRequest:
			r.Kind = domain.PublicDecrypt
		case l.Address == a.cfg.Contracts.Decryption &&
			(l.Topics[0] == contracts.TopicUserDecryptionRequest || l.Topics[0] == contracts.TopicUnifiedUserDecryptionRequest):
			r.Kind = domain.UserDecrypt // delegated, unified or neither: the responses are keyed by the family
		case l.Address == a.cfg.Contracts.InputVerification && l.Topics[0] == contracts.TopicVerifyProofRequest:
			r.Kind = domain.InputProof
		default:
			continue
		}
		r.RequestID = l.Topics[1].Big()
		return r, nil
	}
	return nil, &TxError{Kind: ErrNoRequestID, Op: "read receipt", TxHash: rec.TxHash, Receipt: rec}
}

// revertOf names the revert of a status-0 receipt by replaying the call with eth_call on the
// state before its block, then after it (a cause mined earlier in the same block shows only
// there). Without a revert reason it is ErrReverted with no name (out of gas when all gas was
// used).
func (a *Adapter) revertOf(ctx context.Context, tx *types.Transaction, from common.Address, rec *types.Receipt) error {
	te := &TxError{Kind: ErrReverted, Op: "transaction", TxHash: rec.TxHash, Receipt: rec}
	if tx == nil || rec.BlockNumber == nil {
		return te
	}
	msg := ethereum.CallMsg{From: from, To: tx.To(), Gas: tx.Gas(), Data: tx.Data(), Value: tx.Value()}
	blocks := []*big.Int{rec.BlockNumber}
	if rec.BlockNumber.Sign() > 0 {
		blocks = []*big.Int{new(big.Int).Sub(rec.BlockNumber, big.NewInt(1)), rec.BlockNumber}
	}
	for _, b := range blocks {
		_, err := a.client.CallContract(ctx, msg, b)
		if err == nil {
			continue
		}
		c := a.classify("replay", err)
		if c.Kind == ErrReverted || c.Kind == ErrPaused {
			te.Kind, te.Revert = c.Kind, c.Revert
			return te
		}
	}
	if rec.GasUsed >= tx.Gas() {
		te.Err = errors.New("out of gas (all gas used, no revert reason on replay)")
	} else {
		te.Err = errors.New("no revert reason on replay")
	}
	return te
}

// ReceiptByHash looks a transaction up for recovery: its Receipt when mined and successful;
// a *TxError with ErrTxPending while it waits in the pool, ErrTxNotFound when the node knows
// nothing of it (also while the node is still indexing transactions), or ErrReverted / ErrPaused
// with the receipt when it was mined and reverted.
func (a *Adapter) ReceiptByHash(ctx context.Context, hash common.Hash) (*Receipt, error) {
	rec, err := a.client.TransactionReceipt(ctx, hash)
	if err != nil && !errors.Is(err, ethereum.NotFound) && !isIndexingInProgress(err) {
		te := a.classify("look up receipt", err)
		te.TxHash = hash
		return nil, te
	}
	tx, pending, txErr := a.client.TransactionByHash(ctx, hash)
	if rec == nil {
		switch {
		case txErr == nil && pending:
			return nil, &TxError{Kind: ErrTxPending, Op: "look up receipt", TxHash: hash}
		case txErr == nil, errors.Is(txErr, ethereum.NotFound), isIndexingInProgress(txErr):
			return nil, &TxError{Kind: ErrTxNotFound, Op: "look up receipt", TxHash: hash, Err: a.redact.scrub(err)}
		default:
			te := a.classify("look up transaction", txErr)
			te.TxHash = hash
			return nil, te
		}
	}
	var from common.Address
	if txErr == nil {
		if f, err := types.Sender(types.LatestSignerForChainID(a.chainID), tx); err == nil {
			from = f
		}
	} else {
		tx = nil
	}
	return a.outcome(ctx, tx, from, rec)
}
