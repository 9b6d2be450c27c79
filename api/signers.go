package api

import (
	"strings"
	"time"

	"relayer/domain/retryafter"
	"relayer/projections"
)

// SigningKeysSource is implemented by a Deps.Chain that knows the relayer's signing keys
// (cmd/relayer's): the keys the balance guard paused, as the log has them, are then counted
// against all of them, in /healthz and in the Retry-After hints. Without it, the keys the log
// names are taken to be all of them.
type SigningKeysSource interface {
	// SigningKeys are the addresses of the keys that send the relayer's transactions.
	SigningKeys() []string
}

// signerCapacity is what the balance guard leaves of the relayer's sending: how many keys there
// are, the ones paused among them, and since when every one is paused (zero unless all are).
type signerCapacity struct {
	keys   int
	paused []projections.SignerState
	// allSince is when the last of the keys was paused, when every key is.
	allSince time.Time
}

func (c signerCapacity) sending() int { return c.keys - len(c.paused) }

// signers reads the paused keys from the projections. The common case, no key paused, costs one
// atomic load.
func (s *Server) signers() signerCapacity {
	if !s.set.AnySignerPaused() {
		return signerCapacity{}
	}
	var c signerCapacity
	all := s.set.Signers()
	if src, ok := s.chain.(SigningKeysSource); ok {
		keys := src.SigningKeys()
		c.keys = len(keys)
		for _, st := range all {
			for _, k := range keys {
				if st.Paused && strings.EqualFold(st.Address, k) {
					c.paused = append(c.paused, st)
				}
			}
		}
	} else {
		c.keys = len(all)
		for _, st := range all {
			if st.Paused {
				c.paused = append(c.paused, st)
			}
		}
	}
	if len(c.paused) > 0 && c.sending() <= 0 {
		for _, st := range c.paused {
			if st.Since.After(c.allSince) {
				c.allSince = st.Since
			}
		}
	}
	return c
}

// withSigners is cfg as the keys that can send make it: the per-kind D is split over the keys
// (every key's engine starts its share), so with some keys paused the relayer starts only the
// sending keys' part of it. With every key paused nothing is sent: the wait is then taken as an
// outage that began when the last key was paused (see retryafter.Compute: as long again as it
// has lasted), returned as the outage's length; the hints stay honest, growing with the pause,
// rather than promise a rate that is not there.
func (s *Server) withSigners(cfg *retryafter.Config) (*retryafter.Config, time.Duration) {
	c := s.signers()
	if len(c.paused) == 0 || c.keys == 0 {
		return cfg, 0
	}
	if c.sending() <= 0 {
		return cfg, max(s.now().Sub(c.allSince), time.Second)
	}
	share := float64(c.sending()) / float64(c.keys)
	scaled := *cfg
	scaled.InputProofTPS *= share
	scaled.UserDecryptTPS *= share
	scaled.PublicDecryptTPS *= share
	return &scaled, 0
}

// signersReport is /healthz's signers member, present while the balance guard has a key paused.
type signersReport struct {
	// Status is ok while some key can send, down when every key is paused (nothing is sent:
	// the accepted jobs wait, none is lost).
	Status string `json:"status"`
	// Keys is how many signing keys the relayer has; Sending how many of them can send.
	Keys    int `json:"keys"`
	Sending int `json:"sending"`
	// Paused are the paused keys, with the balance and floor their pause recorded.
	Paused []pausedSigner `json:"paused"`
	// Reason says why nothing is sent (down only).
	Reason string `json:"reason,omitempty"`
}

type pausedSigner struct {
	Address    string    `json:"address"`
	BalanceWei string    `json:"balanceWei"`
	FloorWei   string    `json:"floorWei"`
	Since      time.Time `json:"since"`
}

// signersReport is nil while no key is paused.
func (s *Server) signersReport() *signersReport {
	c := s.signers()
	if len(c.paused) == 0 {
		return nil
	}
	rep := &signersReport{Status: healthOK, Keys: c.keys, Sending: max(c.sending(), 0)}
	var names []string
	for _, st := range c.paused {
		rep.Paused = append(rep.Paused, pausedSigner{Address: st.Address, BalanceWei: st.BalanceWei, FloorWei: st.FloorWei, Since: st.Since})
		names = append(names, st.Address+" ("+st.BalanceWei+" wei, floor "+st.FloorWei+" wei)")
	}
	if rep.Sending == 0 {
		rep.Status = healthDown
		rep.Reason = "every signing key is paused by the balance guard, its balance below the floor: " + strings.Join(names, ", ") +
			"; no transaction is sent until a key is topped up (the accepted requests wait)"
	}
	return rep
}
