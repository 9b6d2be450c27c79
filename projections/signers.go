package projections

import (
	"cmp"
	"encoding/json"
	"slices"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

// SignerState is a signing key as its balance guard's stream (domain.SignerStream) has it: whether
// the key is paused, since when, and the balance and floor its last event recorded.
type SignerState struct {
	Address string
	Paused  bool
	// Since is when the key was paused (Paused), or resumed.
	Since time.Time
	// BalanceWei and FloorWei are what the last event recorded (decimal wei): the balance below
	// the floor at the pause, the balance above the resumption margin (FloorWei is then that
	// margin) at the resumption.
	BalanceWei, FloorWei string
}

// applySigner applies an event of a signer stream; s.mu is held.
func (s *Set) applySigner(rec *eventstore.Record) error {
	var st SignerState
	switch rec.Type {
	case "SignerPaused":
		var e domain.SignerPaused
		if err := json.Unmarshal(rec.Data, &e); err != nil {
			return err
		}
		st = SignerState{Address: e.Address, Paused: true, Since: e.At.UTC(), BalanceWei: e.BalanceWei, FloorWei: e.FloorWei}
	case "SignerResumed":
		var e domain.SignerResumed
		if err := json.Unmarshal(rec.Data, &e); err != nil {
			return err
		}
		st = SignerState{Address: e.Address, Since: e.At.UTC(), BalanceWei: e.BalanceWei, FloorWei: e.ResumeWei}
	default:
		return nil
	}
	if s.signers == nil {
		s.signers = map[string]SignerState{}
	}
	s.signers[rec.Stream] = st
	n := 0
	for _, st := range s.signers {
		if st.Paused {
			n++
		}
	}
	s.pausedSigners.Store(int32(n))
	return nil
}

// AnySignerPaused tells at once (no lock) whether the log has any key paused now.
func (s *Set) AnySignerPaused() bool { return s.pausedSigners.Load() > 0 }

// Signers are the signing keys the balance guard ever paused, as the log has them now, by
// address; a key never paused is not among them.
func (s *Set) Signers() []SignerState {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]SignerState, 0, len(s.signers))
	for _, st := range s.signers {
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b SignerState) int { return cmp.Compare(a.Address, b.Address) })
	return out
}

// PausedSigners are the keys paused now, by address.
func (s *Set) PausedSigners() []SignerState {
	out := s.Signers()
	return slices.DeleteFunc(out, func(st SignerState) bool { return !st.Paused })
}
