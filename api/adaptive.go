package api

import (
	"math"
	"time"

	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/projections"
)

// observedConfig is the adaptive mode's configuration: the runtime Retry-After parameters with
// the observed drain rates and stage durations in place of the nominal ones where the
// observations are trusted (retryafter.Adaptations says when). It is rebuilt at most once per
// adaptiveRefresh (and whenever the runtime configuration changes), so a status poll costs one
// atomic load, not a walk over the stats.
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
	o := &observedConfig{base: rc, at: now, cfg: retryafter.Adaptive(rc.retry, s.observations(rc, now))}
	s.observed.Store(o)
	return &o.cfg
}

// adaptations lists, for every parameter the adaptive mode may replace, the nominal value, the
// observation and the value in force now, for GET /admin/config and /metrics. With the
// adaptive mode off, the nominal value is in force everywhere, and the observations are still
// shown, so that an operator can see whether the configuration matches what the relayer does
// before turning it on.
func (s *Server) adaptations(rc *runtimeConfig) []retryafter.Adaptation {
	as := retryafter.Adaptations(rc.retry, s.observations(rc, s.now()))
	if !rc.adaptive {
		for i := range as {
			if as[i].InForce == retryafter.SourceObserved {
				as[i].InForce = retryafter.SourceNominal
				as[i].Why = paramAdaptive + " is off"
			}
		}
	}
	return as
}

// observations gathers the stats projection's drain rates and stage durations in the form the
// adaptive policy takes, with the age of each one's newest sample as of now. A drain rate's
// samples are the departures it counts (over the drain window less what chain outages took of
// it); a duration's are the
// recent window's samples (projections.StageWindow per kind, the median over them), leaving out
// a kind whose newest sample is already past rc's staleness horizon unless all of them are.
func (s *Server) observations(rc *runtimeConfig, now time.Time) retryafter.Observed {
	age := func(last time.Time) time.Duration {
		if last.IsZero() {
			return 0 // no sample: the zero count says so
		}
		return now.Sub(last)
	}
	rate := func(q projections.Queue, kinds ...domain.Kind) retryafter.Rate {
		var r float64
		var n int
		var last time.Time
		for _, k := range kinds {
			kr, kn := s.set.Drain(q, k)
			r, n = r+kr, n+kn
			if t := s.set.LastDrain(q, k); t.After(last) {
				last = t
			}
		}
		return retryafter.Rate{PerSecond: r, Samples: n, Age: age(last)}
	}
	since := now.Add(-time.Duration(rc.retry.AdaptiveStaleAfterSeconds) * time.Second)
	sample := func(st projections.Stage, kinds ...domain.Kind) retryafter.Sample {
		w := s.set.RecentStage(st, since, kinds...)
		if w.Samples == 0 && !w.LastAt.IsZero() {
			// Every kind's window is stale: take them all, so that what was observed is still
			// shown (and refused for its age).
			w = s.set.RecentStage(st, time.Time{}, kinds...)
		}
		return retryafter.Sample{Typical: w.Median, Samples: w.Samples, Age: age(w.LastAt)}
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

// adaptationView is one adapted parameter as GET /admin/config shows it: the configured value,
// the observed one (null without samples), how many samples back it, how old the newest is
// (null without samples), and which value Retry-After uses now and, when it is the nominal one,
// why.
type adaptationView struct {
	Name             string   `json:"name"`
	Unit             string   `json:"unit"`
	Nominal          float64  `json:"nominal"`
	Observed         *float64 `json:"observed"`
	Samples          int      `json:"samples"`
	LastSampleAgeSec *float64 `json:"lastSampleAgeSeconds"`
	InForce          string   `json:"inForce"`
	Value            float64  `json:"value"`
	Why              string   `json:"why,omitempty"`
}

// adaptiveView is the adaptive mode as GET /admin/config shows it: whether it is on, its trust
// rules, the windows its observations come from, and every parameter it may replace.
type adaptiveView struct {
	Enabled           bool `json:"enabled"`
	MinSamples        int  `json:"minSamples"`
	StaleAfterSeconds int  `json:"staleAfterSeconds"`
	// StageWindow is how many of the latest durations per kind and stage the medians are over.
	StageWindow int `json:"stageWindow"`
	// DrainWindowSeconds is the window the drain rates are measured over.
	DrainWindowSeconds float64          `json:"drainWindowSeconds"`
	Parameters         []adaptationView `json:"parameters"`
}

func (s *Server) adaptiveView(rc *runtimeConfig) adaptiveView {
	as := s.adaptations(rc)
	v := adaptiveView{
		Enabled:            rc.adaptive,
		MinSamples:         rc.retry.AdaptiveMinSamples,
		StaleAfterSeconds:  rc.retry.AdaptiveStaleAfterSeconds,
		StageWindow:        projections.StageWindow,
		DrainWindowSeconds: s.set.Config().DrainWindow.Seconds(),
		Parameters:         make([]adaptationView, len(as)),
	}
	for i, a := range as {
		p := adaptationView{Name: a.Param, Unit: a.Unit, Nominal: a.Nominal, Samples: a.Samples, InForce: a.InForce.String(), Value: a.Value(), Why: a.Why}
		if a.Samples > 0 {
			obs, age := a.Observed, math.Round(a.Age.Seconds()*1000)/1000
			p.Observed, p.LastSampleAgeSec = &obs, &age
		}
		v.Parameters[i] = p
	}
	return v
}
