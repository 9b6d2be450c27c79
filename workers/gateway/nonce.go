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
	seeded    bool // synced at least once: a later seed that moves next is a correction
	keepAbove bool // the next seed must not go below next
	next      uint64
	epoch     uint64
	released  []uint64 // ascending
	// out holds the hand-outs neither released nor broadcast yet, by nonce.
	out map[uint64]*handout
	// corrections are the sequence's corrections not yet taken (TakeNonceCorrections).
	corrections []NonceCorrection
	// suspects are the nonces the last check found neither held by the node nor known to this
	// process, with the epoch it found them in (see Adapter.HealNonces).
	suspects map[uint64]uint64
}

// NonceCorrection is one correction of the key's nonce sequence, for the log (the workers record
// each as a domain.NonceCorrected).
type NonceCorrection struct {
	// Action is what was done: NonceReseeded, NonceSkipped, NonceResent or NonceFilled.
	Action string
	// From and To are the sequence's next nonce before and after (reseeded, skipped).
	From, To uint64
	// Nonces are the nonces resent or filled.
	Nonces []uint64
	// Pending is the chain's pending nonce for the key when the correction was decided.
	Pending uint64
	Reason  string
}

// The corrections' actions.
const (
	// NonceReseeded: the sequence read the chain's pending nonce again after the node answered
	// "nonce too low" (another transaction took a nonce) or "nonce too high".
	NonceReseeded = "reseeded"
	// NonceSkipped: a check found the chain's pending nonce above every nonce the sequence
	// handed out: another sender used the key, and the sequence moved past its nonces.
	NonceSkipped = "skipped"
	// NonceResent: a check found nonces this process sent that the node no longer holds (a
	// provider that lost its pool) and sent their transactions again, the same bytes.
	NonceResent = "resent"
	// NonceFilled: nonces no transaction will use were filled with transfers to self.
	NonceFilled = "filled"
)

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
		if s.seeded && n != s.next {
			s.corrections = append(s.corrections, NonceCorrection{Action: NonceReseeded, From: s.next, To: n, Pending: chain,
				Reason: "the node refused a nonce of the sequence; its next nonce was read from the chain again"})
		}
		s.next, s.synced, s.seeded, s.keepAbove = n, true, true, false
		s.epoch++
	}
	var h *handout
	if len(s.released) > 0 {
		h = &handout{nonce: s.released[0], epoch: s.epoch}
		s.released = s.released[1:]
	} else {
		h = &handout{nonce: s.next, epoch: s.epoch}
		s.next++
	}
	if s.out == nil {
		s.out = map[uint64]*handout{}
	}
	s.out[h.nonce] = h
	return h, nil
}

// settle marks h done (released or broadcast); s.mu is held.
func (s *nonceSequence) settle(h *handout) {
	h.done = true
	if s.out[h.nonce] == h {
		delete(s.out, h.nonce)
	}
}

// release gives h's nonce back; it reports whether a gap below later nonces was left.
func (s *nonceSequence) release(h *handout) (gap bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h.done || !s.synced || h.epoch != s.epoch || h.nonce >= s.next {
		if !h.done && s.out[h.nonce] == h {
			delete(s.out, h.nonce) // never broadcast: not outstanding any more
		}
		return false
	}
	s.settle(h)
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
	s.settle(h)
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
	s.released, s.synced, s.keepAbove, s.seeded = nil, false, false, false
	s.suspects = nil
	s.epoch++
	s.mu.Unlock()
	a.sentMu.Lock()
	a.sentRaw = nil
	a.sentMu.Unlock()
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
	var filled []uint64
	defer func() {
		if len(filled) > 0 {
			a.nonces.correct(NonceCorrection{Action: NonceFilled, Nonces: filled,
				Reason: "nonces that no transaction of the key's jobs will use were filled with transfers to self, so that later ones are not held up"})
		}
	}()
	for i, n := range nonces {
		if !a.nonces.current(epoch) {
			return // the sequence was dropped or resynced: these nonces are not this process's to fill
		}
		tx, err := a.sign(ctx, types.NewTx(&types.DynamicFeeTx{
			ChainID: a.chainID, Nonce: n, GasTipCap: tip, GasFeeCap: feeCap, Gas: gapFillGas, To: &self, Value: new(big.Int),
		}))
		if err != nil {
			a.log.Warn("cannot sign a nonce gap's filling", "nonce", n, "err", err)
			a.giveBack(nonces[i:], epoch)
			return
		}
		raw, err := tx.MarshalBinary()
		if err != nil {
			a.giveBack(nonces[i:], epoch)
			return
		}
		a.remember(n, raw)
		if _, err := a.client.sendRaw(ctx, raw, nil); err != nil {
			te := a.classify("fill nonce gap", err)
			if errors.Is(te, ErrNonceTooLow) || errors.Is(te, ErrAlreadyKnown) {
				continue // the nonce is used already: no gap
			}
			if errors.Is(te, ErrUnderpriced) {
				a.forgetFees() // the next filling or transaction reads them again
			}
			a.log.Warn("cannot fill a nonce gap", "nonce", n, "err", te)
			a.giveBack(nonces[i:], epoch)
			return
		}
		a.log.Info("filled a released nonce with a transfer to self", "nonce", n, "tx", tx.Hash())
		filled = append(filled, n)
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
	s.next, s.synced, s.seeded, s.keepAbove = top, true, true, false
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
