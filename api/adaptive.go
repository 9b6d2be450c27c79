package api

import (
	"math"
	"time"

	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/projections"
)

// observedConfig is the adaptive mode's configuration: the runtime Retry-After parameters with
// the observed drain rates and stage durations in place of the nominal ones. It is rebuilt at
// most once per adaptiveRefresh (and whenever the runtime configuration changes), so a status
// poll costs one atomic load, not a walk over the stats.
type observedConfig struct {
	base *runtimeConfig
	at   time.Time
	cfg  retryafter.Config
}

// adaptiveRefresh is how long an observedConfig serves before it is rebuilt.
const adaptiveRefresh = time.Second

// adaptiveConfig returns the adaptive configuration for rc, rebuilding it when stale.
func (s *Server) adaptiveConfig(rc *runtimeConfig) *retryafter.Config {
	now := s.now()
	if o := s.observed.Load(); o != nil && o.base == rc && now.Sub(o.at) < adaptiveRefresh && !now.Before(o.at) {
		return &o.cfg
	}
	o := &observedConfig{base: rc, at: now, cfg: retryafter.Adaptive(rc.retry, s.observations())}
	s.observed.Store(o)
	return &o.cfg
}

// observations gathers the stats projection's drain rates and stage durations in the form the
// adaptive policy takes. A drain rate's samples are the departures it counts (rate times the
// drain window); a duration's are the stages observed.
func (s *Server) observations() retryafter.Observed {
	window := s.set.Config().DrainWindow.Seconds()
	rate := func(q projections.Queue, kinds ...domain.Kind) retryafter.Rate {
		var r float64
		for _, k := range kinds {
			r += s.set.DrainRate(q, k)
		}
		return retryafter.Rate{PerSecond: r, Samples: int(math.Round(r * window))}
	}
	sample := func(st projections.Stage, kinds ...domain.Kind) retryafter.Sample {
		var n uint64
		var sum float64
		for _, k := range kinds {
			ss := s.set.StageStats(k, st)
			n += ss.Count
			sum += float64(ss.Count) * float64(ss.EWMA)
		}
		if n == 0 {
			return retryafter.Sample{}
		}
		return retryafter.Sample{Typical: time.Duration(sum / float64(n)), Samples: int(min(n, math.MaxInt32))}
	}
	// A kind's observations cover its whole family: delegated user decrypts leave the user
	// decrypts' queue at their rate, so both count in the user decrypts' drain and processing.
	kind := func(family domain.Kind) retryafter.KindObserved {
		var ks []domain.Kind
		for _, k := range domain.Kinds() {
			if k.Family() == family {
				ks = append(ks, k)
			}
		}
		return retryafter.KindObserved{TxDrain: rate(projections.TxQueue, ks...), Processing: sample(projections.StageResponse, ks...)}
	}
	return retryafter.Observed{
		InputProof:     kind(domain.InputProof),
		UserDecrypt:    kind(domain.UserDecrypt),
		PublicDecrypt:  kind(domain.PublicDecrypt),
		ReadinessDrain: rate(projections.ReadinessQueue, domain.Kind{}),
		ReadinessCheck: sample(projections.StageReadinessCheck, domain.UserDecrypt, domain.PublicDecrypt, domain.DelegatedUserDecrypt),
		TxConfirmation: sample(projections.StageTxConfirm, domain.Kinds()...),
	}
}
