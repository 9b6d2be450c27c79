package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
)

// Nonce self-healing: HealNonces compares the key's nonce sequence with the chain while the
// relayer runs (the workers call it periodically, and at once after the node answered "nonce too
// low", "nonce too high" or "already known"), and corrects what it finds:
//
//   - The chain's pending nonce above every nonce the sequence handed out: another sender used
//     the key. The sequence moves past those nonces (NonceSkipped) before a transaction of ours
//     meets "nonce too low" for them.
//   - Nonces the sequence handed out and this process sent, that the node holds neither mined
//     nor pooled (a provider restarted with an empty pool): their transactions are sent again,
//     the same bytes, so the same hash (NonceResent). A job's transaction is never signed twice
//     here; its job's sender adopts whichever of its transactions is mined.
//   - Nonces below the sequence's next that the node does not hold and that this process knows
//     nothing of (neither handed out now, nor released, nor sent), found so at two checks in a
//     row: they are filled with transfers to self (NonceFilled), as released nonces are.
//
// Only a nonce under the chain's pending nonce can be mined, so nothing here sends a gateway
// request that was not recorded; and the checks read the sequence before the chain and compare
// the chain with the sequence after, so that a nonce handed out or sent meanwhile is never taken
// for another sender's or for a lost one.

// correct queues a correction for TakeNonceCorrections.
func (s *nonceSequence) correct(c NonceCorrection) {
	s.mu.Lock()
	s.corrections = append(s.corrections, c)
	s.mu.Unlock()
}

// TakeNonceCorrections returns the corrections of the key's nonce sequence made since the last
// call, oldest first, and forgets them.
func (a *Adapter) TakeNonceCorrections() []NonceCorrection {
	s := &a.nonces
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.corrections
	s.corrections = nil
	return out
}

// NonceChecks delivers a signal when the node's answer to a transaction calls for a check of the
// key's nonces now (HealNonces), or when CheckNoncesNow asked for one.
func (a *Adapter) NonceChecks() <-chan struct{} { return a.nonceKick }

// CheckNoncesNow asks for a check of the key's nonces now (NonceChecks): the caller knows the node
// may have lost transactions, such as the ones sent while the chain was unreachable. The check
// sends them again in nonce order, so that a later transaction of the key does not wait behind
// the gap they leave.
func (a *Adapter) CheckNoncesNow() { a.kickNonceCheck() }

// SendAgain hands raw, a transaction sent before (a job's recorded bytes), to the node again
// without waiting for its receipt. A node that holds it already or has mined its nonce is no
// failure: it needs nothing more.
func (a *Adapter) SendAgain(ctx context.Context, raw []byte) error {
	if _, err := a.client.sendRaw(ctx, raw, nil); err != nil {
		te := a.classify("send again", err)
		if errors.Is(te, ErrAlreadyKnown) || errors.Is(te, ErrNonceTooLow) {
			return nil
		}
		return te
	}
	return nil
}

func (a *Adapter) kickNonceCheck() {
	select {
	case a.nonceKick <- struct{}{}:
	default:
	}
}

// remember keeps raw as the latest transaction sent with nonce n.
func (a *Adapter) remember(n uint64, raw []byte) {
	a.sentMu.Lock()
	defer a.sentMu.Unlock()
	if a.sentRaw == nil {
		a.sentRaw = map[uint64][]byte{}
	}
	a.sentRaw[n] = raw
}

// forgetSent forgets raw as the transaction sent with nonce n, unless another took its place.
func (a *Adapter) forgetSent(n uint64, raw []byte) {
	a.sentMu.Lock()
	defer a.sentMu.Unlock()
	if bytes.Equal(a.sentRaw[n], raw) {
		delete(a.sentRaw, n)
	}
}

// forgetMined forgets the transactions sent with nonces below mined: the chain has them.
func (a *Adapter) forgetMined(mined uint64) {
	a.sentMu.Lock()
	defer a.sentMu.Unlock()
	for k := range a.sentRaw {
		if k < mined {
			delete(a.sentRaw, k)
		}
	}
}

// sentWith returns the transaction last sent with nonce n (nil when none is kept).
func (a *Adapter) sentWith(n uint64) []byte {
	a.sentMu.Lock()
	defer a.sentMu.Unlock()
	return a.sentRaw[n]
}

// seqSnapshot is the sequence as a check reads it before the chain.
type seqSnapshot struct {
	synced bool
	epoch  uint64
	next   uint64
	// known are the nonces handed out and not broadcast yet, and the released ones.
	known map[uint64]bool
}

func (s *nonceSequence) snapshot() seqSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := seqSnapshot{synced: s.synced, epoch: s.epoch, next: s.next, known: make(map[uint64]bool, len(s.out)+len(s.released))}
	for n := range s.out {
		snap.known[n] = true
	}
	for _, n := range s.released {
		snap.known[n] = true
	}
	return snap
}

// skipTo moves the sequence's next nonce up to pending when it is still below it in epoch (no
// nonce at or above it was handed out since the chain was read): the nonces between were taken by
// another sender, and released nonces below pending are used.
func (s *nonceSequence) skipTo(epoch, pending uint64, reason string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.synced || s.epoch != epoch || pending <= s.next {
		return false
	}
	s.corrections = append(s.corrections, NonceCorrection{Action: NonceSkipped, From: s.next, To: pending, Pending: pending, Reason: reason})
	s.next = pending
	s.released = slices.DeleteFunc(s.released, func(r uint64) bool { return r < pending })
	return true
}

// confirmSuspects records suspects, the unknown nonces a check found in epoch, and returns those
// the previous check found too and that are still unknown: they are released, to be filled.
func (s *nonceSequence) confirmSuspects(epoch uint64, suspects []uint64) []uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	prev := s.suspects
	s.suspects = nil
	if !s.synced || s.epoch != epoch {
		return nil
	}
	var confirmed []uint64
	for _, n := range suspects {
		_, released := slices.BinarySearch(s.released, n)
		switch {
		case s.out[n] != nil || released || n >= s.next:
		case prev[n] == epoch:
			confirmed = append(confirmed, n)
			i, _ := slices.BinarySearch(s.released, n)
			s.released = slices.Insert(s.released, i, n)
		default:
			if s.suspects == nil {
				s.suspects = map[uint64]uint64{}
			}
			s.suspects[n] = epoch
		}
	}
	return confirmed
}

// HealNonces checks the key's nonce sequence against the chain once and corrects it (see the
// comment at the top of this file). It returns every correction made since the last call,
// including the sequence's own (NonceReseeded, NonceFilled). A failed read of the chain is
// returned, with the corrections made before it.
func (a *Adapter) HealNonces(ctx context.Context) ([]NonceCorrection, error) {
	if a.signer == nil {
		return nil, nil
	}
	snap := a.nonces.snapshot()
	if !snap.synced {
		return a.TakeNonceCorrections(), nil // the next Prepare reads the chain
	}
	addr := a.signer.Address()
	mined, err := a.client.NonceAt(ctx, addr, nil)
	if err != nil {
		return a.TakeNonceCorrections(), a.classify("read the mined nonce", err)
	}
	pending, err := a.client.PendingNonceAt(ctx, addr)
	if err != nil {
		return a.TakeNonceCorrections(), a.classify("read the pending nonce", err)
	}
	floor := max(mined, pending)
	a.forgetMined(mined)
	if a.nonces.skipTo(snap.epoch, floor, fmt.Sprintf("the chain holds transactions of the key up to nonce %d, above every nonce the sequence handed out: another sender used the key", floor-1)) {
		a.log.Warn("another sender used the key: the nonce sequence moves past its nonces", "address", addr, "pending", floor, "from", snap.next)
	}
	var resent, suspects []uint64
	for n := floor; n < snap.next; n++ {
		if snap.known[n] {
			continue
		}
		raw := a.sentWith(n)
		if raw == nil {
			suspects = append(suspects, n)
			continue
		}
		if _, err := a.client.sendRaw(ctx, raw, nil); err != nil {
			te := a.classify("send again", err)
			if !errors.Is(te, ErrAlreadyKnown) && !errors.Is(te, ErrNonceTooLow) {
				a.log.Warn("cannot send again a transaction the node lost", "address", addr, "nonce", n, "err", te)
			}
			continue
		}
		resent = append(resent, n)
	}
	if len(resent) > 0 {
		a.log.Warn("the node had lost transactions of the key; sent them again", "address", addr, "nonces", resent, "pending", floor)
		a.nonces.correct(NonceCorrection{Action: NonceResent, Nonces: resent, Pending: floor,
			Reason: fmt.Sprintf("the node held none of these transactions (pending nonce %d): they were sent again, the same bytes", floor)})
	}
	if fill := a.nonces.confirmSuspects(snap.epoch, suspects); len(fill) > 0 {
		a.log.Warn("nonces nothing of the key's holds; filling them", "address", addr, "nonces", fill, "pending", floor)
		a.scheduleGapFill()
	}
	return a.TakeNonceCorrections(), nil
}
