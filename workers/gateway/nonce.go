package gateway

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

// The nonce sequence of the adapter's one key.
//
//   - Seeding: the first Prepare reads the chain's pending nonce (eth_getTransactionCount at
//     "pending": mined plus pooled transactions) under the sequence's mutex; later nonces are
//     handed out from memory, one per Prepare, under the same mutex. Gas estimation happens
//     before, so a request that reverts at estimation never takes a nonce.
//   - Gaps: a nonce that will not be sent (Release) goes back to a set that the next Prepare
//     takes from first, lowest first; the latest nonce handed out is simply taken back. When no
//     Prepare reuses a released nonce within GapFillDelay, the adapter sends a zero-value
//     transfer to itself with it, so that the key's later transactions are not held up.
//   - Resync: "nonce too low" for a transaction that was NOT mined means another sender used
//     the key; the next Prepare re-reads the pending nonce and never goes below what it handed
//     out already (released nonces are kept). "nonce too high" (and ResetNonce) re-read it and
//     take it as is, dropping released nonces: the chain is the truth.
//   - Epochs: each (re)seed starts an epoch; a Release from an older epoch is ignored, and so is
//     a Release of a nonce already released or broadcast (each hand-out is a *handout, marked
//     done once).
//
// Several processes must not drive one key at once (DESIGN section 11: one instance per key under
// a lease); if they do, the resync rules keep each of them progressing, with "nonce too low"
// failures where they collide.
type nonceSequence struct {
	mu        sync.Mutex
	synced    bool
	keepAbove bool // the next seed must not go below next
	next      uint64
	epoch     uint64
	released  []uint64 // ascending
}

// handout is one nonce handed out by the sequence.
type handout struct {
	nonce uint64
	epoch uint64
	done  bool // released or broadcast; guarded by the sequence's mutex
}

func (s *nonceSequence) take(ctx context.Context, read func(context.Context) (uint64, error)) (*handout, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.synced {
		chain, err := read(ctx)
		if err != nil {
			return nil, err
		}
		n := chain
		if s.keepAbove {
			// Released nonces below the chain's are used by now; the others may still be gaps.
			s.released = slices.DeleteFunc(s.released, func(r uint64) bool { return r < chain })
			n = max(chain, s.next)
		} else {
			s.released = nil
		}
		s.next, s.synced, s.keepAbove = n, true, false
		s.epoch++
	}
	if len(s.released) > 0 {
		n := s.released[0]
		s.released = s.released[1:]
		return &handout{nonce: n, epoch: s.epoch}, nil
	}
	h := &handout{nonce: s.next, epoch: s.epoch}
	s.next++
	return h, nil
}

// release gives h's nonce back; it reports whether a gap below later nonces was left.
func (s *nonceSequence) release(h *handout) (gap bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h.done || !s.synced || h.epoch != s.epoch || h.nonce >= s.next {
		return false
	}
	h.done = true
	if h.nonce == s.next-1 {
		s.next--
		for len(s.released) > 0 && s.released[len(s.released)-1] == s.next-1 {
			s.released = s.released[:len(s.released)-1]
			s.next--
		}
		return false
	}
	if i, found := slices.BinarySearch(s.released, h.nonce); !found {
		s.released = slices.Insert(s.released, i, h.nonce)
	}
	return true
}

// sent marks h as broadcast: a later Release of it is a mistake and is ignored.
func (s *nonceSequence) sent(h *handout) {
	if h == nil {
		return
	}
	s.mu.Lock()
	h.done = true
	s.mu.Unlock()
}

// invalidate makes the next take re-read the chain's pending nonce; keepAbove keeps the sequence
// from going back below the nonces it handed out (another sender used the key).
func (s *nonceSequence) invalidate(keepAbove bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.synced {
		s.keepAbove = keepAbove
	} else {
		s.keepAbove = s.keepAbove && keepAbove
	}
	s.synced = false
}

// takeReleased removes and returns the released nonces with the current epoch.
func (s *nonceSequence) takeReleased() ([]uint64, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.released
	s.released = nil
	return out, s.epoch
}

// giveBack puts nonces back into the released set when epoch is still the current one; it
// reports whether it did.
func (s *nonceSequence) giveBack(nonces []uint64, epoch uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.synced || s.epoch != epoch {
		return false
	}
	for _, n := range nonces {
		if i, found := slices.BinarySearch(s.released, n); !found && n < s.next {
			s.released = slices.Insert(s.released, i, n)
		}
	}
	return true
}

// ResetNonce makes the next Prepare re-read the key's nonce from the chain's pending state, e.g.
// after another process sent with the key. Released nonces are forgotten.
func (a *Adapter) ResetNonce() { a.nonces.invalidate(false) }

// DropNonces forgets the key's nonce sequence and its released nonces, and cancels the gap fill
// waiting to start, for a process that stops driving the key (the engine lease was lost): it must
// send nothing more with the key, and whoever drives it next adopts the nonces the log recorded.
// A gap fill under way stops before its next send. The next Prepare reads the chain again.
func (a *Adapter) DropNonces() {
	a.gapMu.Lock()
	if a.gapTimer != nil {
		a.gapTimer.Stop()
		a.gapTimer = nil
	}
	a.gapMu.Unlock()
	s := &a.nonces
	s.mu.Lock()
	s.released, s.synced, s.keepAbove = nil, false, false
	s.epoch++
	s.mu.Unlock()
}

// current tells whether epoch is still the nonce sequence's.
func (s *nonceSequence) current(epoch uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.epoch == epoch
}

func (a *Adapter) scheduleGapFill() {
	a.gapMu.Lock()
	defer a.gapMu.Unlock()
	if a.runCtx.Err() != nil || a.gapTimer != nil {
		return
	}
	a.gapTimer = time.AfterFunc(a.cfg.GapFillDelay, func() {
		a.gapMu.Lock()
		a.gapTimer = nil
		a.gapMu.Unlock()
		a.fillGaps()
	})
}

// gapFillGas is the gas of a plain transfer.
const gapFillGas = 21_000

// fillGaps sends, for every released nonce no Prepare took, a zero-value transfer to the
// signer's own address. It is not a gateway request: no job can get a second one from it.
func (a *Adapter) fillGaps() {
	nonces, epoch := a.nonces.takeReleased()
	if len(nonces) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(a.runCtx, time.Minute)
	defer cancel()
	tip, feeCap, err := a.fees(ctx)
	if err != nil {
		a.log.Warn("cannot fill nonce gaps", "nonces", nonces, "err", err)
		a.giveBack(nonces, epoch)
		return
	}
	self := a.signer.Address()
	for i, n := range nonces {
		if !a.nonces.current(epoch) {
			return // the sequence was dropped or resynced: these nonces are not this process's to fill
		}
		tx, err := a.signer.sign(types.NewTx(&types.DynamicFeeTx{
			ChainID: a.chainID, Nonce: n, GasTipCap: tip, GasFeeCap: feeCap, Gas: gapFillGas, To: &self, Value: new(big.Int),
		}), a.chainID)
		if err == nil {
			err = a.client.SendTransaction(ctx, tx)
		}
		if err != nil {
			te := a.classify("fill nonce gap", err)
			if errors.Is(te, ErrNonceTooLow) || errors.Is(te, ErrAlreadyKnown) {
				continue // the nonce is used already: no gap
			}
			a.log.Warn("cannot fill a nonce gap", "nonce", n, "err", te)
			a.giveBack(nonces[i:], epoch)
			return
		}
		a.log.Info("filled a released nonce with a transfer to self", "nonce", n, "tx", tx.Hash())
	}
}

// giveBack returns nonces a gap fill could not use to the released set, when their epoch is
// still current, and tries again later.
func (a *Adapter) giveBack(nonces []uint64, epoch uint64) {
	if a.nonces.giveBack(nonces, epoch) {
		a.scheduleGapFill()
	}
}

// maxAdoptGap bounds the gaps AdoptNonces opens: recorded nonces further above the chain's
// pending nonce are not adopted (a new development chain under an old log, say): their
// transactions then meet "nonce too low" or fill in as the key's nonces advance.
const maxAdoptGap = 1024

// AdoptNonces seeds the key's nonce sequence at start with the nonces of transactions that were
// signed and recorded before a restart (recovery sends those same bytes again): the sequence
// never hands them out to a new transaction. Without it the sequence would start at the chain's
// pending nonce, which stops below a nonce that was taken but never sent (a crash between
// Prepare and its record): new transactions would then take the recorded ones' nonces, and
// those jobs would have to be sent again. The nonces between the pending nonce and the highest
// adopted one that no recorded transaction holds are gaps: the next Prepares take them first,
// or they are filled after GapFillDelay. Call it before any Prepare.
func (a *Adapter) AdoptNonces(ctx context.Context, nonces []uint64) error {
	if len(nonces) == 0 {
		return nil
	}
	if a.signer == nil {
		return &TxError{Kind: ErrNoSigner, Op: "adopt nonces"}
	}
	pending, err := a.pendingNonce(ctx)
	if err != nil {
		return a.classify("read the pending nonce", err)
	}
	held := map[uint64]bool{}
	top := pending
	for _, n := range nonces {
		if n >= pending && n < pending+maxAdoptGap {
			held[n] = true
			top = max(top, n+1)
		}
	}
	s := &a.nonces
	s.mu.Lock()
	s.next, s.synced, s.keepAbove = top, true, false
	s.epoch++
	s.released = s.released[:0]
	for n := pending; n < top; n++ {
		if !held[n] {
			s.released = append(s.released, n)
		}
	}
	gaps := len(s.released)
	s.mu.Unlock()
	if gaps > 0 {
		a.log.Info("nonce sequence seeded above recorded transactions", "pending", pending, "next", top, "gaps", gaps)
		a.scheduleGapFill()
	}
	return nil
}
