package devchain

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Latency profiles. The simulated KMS nodes, coprocessors and readiness answer as quickly as a
// profile says:
//
//	profile      KMS nodes (decryptions)   coprocessors (input proofs)   readiness
//	instant      50-300ms                  50-300ms                      at once
//	production   4s, give or take 20%      2s, give or take 20%          2s, give or take 20%
//
// instant is the default, and what the tests run on: a job ends within a second. production has
// the delays of the real components, the nominal times P (4 s for a decryption, 2 s for an input
// proof) and R (2 s for a readiness check) of the Retry-After design, so that the hints, the
// timeouts and the dashboards can be tried on one machine under realistic timings. A component's
// delay set in the Config (KMSDelay, CoprocessorDelay, ReadinessDelay) wins over its profile's,
// in either profile.
//
// Every KMS node and coprocessor draws its own delay for each request, uniformly within Jitter of
// the component's: a decryption completes with the Threshold-th answer, so a little after the
// typical delay (the third of four draws in 3.2-4.8 s averages 4.16 s). The readiness delay runs
// from the first readiness question about a handle (see readiness.go), on the wall clock.

// Profile names a latency profile: ProfileInstant or ProfileProduction.
type Profile string

const (
	// ProfileInstant answers within DefaultResponseDelayMin..Max and has every handle ready at
	// once: today's development chain, the tests' default.
	ProfileInstant Profile = "instant"
	// ProfileProduction answers after delays like the real components'.
	ProfileProduction Profile = "production"
)

// The production profile's delays, and the default jitter.
const (
	ProductionKMSDelay         = 4 * time.Second
	ProductionCoprocessorDelay = 2 * time.Second
	ProductionReadinessDelay   = 2 * time.Second
	DefaultJitter              = 0.2
)

func (p Profile) valid() bool { return p == ProfileInstant || p == ProfileProduction }

// Profiles lists the profiles, for help texts.
func Profiles() []Profile { return []Profile{ProfileInstant, ProfileProduction} }

// kmsDelay is how long a KMS node waits before it answers one decryption.
func (c Config) kmsDelay() time.Duration { return c.answerDelay(c.KMSDelay) }

// coprocessorDelay is how long a coprocessor waits before it answers one input proof.
func (c Config) coprocessorDelay() time.Duration { return c.answerDelay(c.CoprocessorDelay) }

// readinessDelay is how long after its first readiness question a handle becomes ready (0: at
// once).
func (c Config) readinessDelay() time.Duration { return jittered(c.ReadinessDelay, c.Jitter) }

// answerDelay draws one answer's delay: within Jitter of typical, or in [ResponseDelayMin,
// ResponseDelayMax] when the component has no delay of its own.
func (c Config) answerDelay(typical time.Duration) time.Duration {
	if typical > 0 {
		return jittered(typical, c.Jitter)
	}
	lo, hi := c.ResponseDelayMin, c.ResponseDelayMax
	if hi <= lo {
		return lo
	}
	return lo + rand.N(hi-lo+1)
}

// jittered draws uniformly from [d(1-j), d(1+j)].
func jittered(d time.Duration, j float64) time.Duration {
	if d <= 0 {
		return 0
	}
	spread := time.Duration(float64(d) * j)
	if spread <= 0 {
		return d
	}
	return d - spread + rand.N(2*spread+1)
}

// LatencySummary says, for people, how quickly the simulated components answer with c (defaults
// filled in): "KMS nodes 3.2s-4.8s, coprocessors 1.6s-2.4s, readiness 1.6s-2.4s".
func (c Config) LatencySummary() string {
	span := func(typical time.Duration) string {
		lo, hi := c.ResponseDelayMin, c.ResponseDelayMax
		if typical > 0 {
			spread := time.Duration(float64(typical) * c.Jitter)
			lo, hi = typical-spread, typical+spread
		}
		if lo == hi {
			return lo.String()
		}
		return lo.String() + "-" + hi.String()
	}
	readiness := "at once"
	if c.ReadinessDelay > 0 {
		readiness = span(c.ReadinessDelay)
	}
	return fmt.Sprintf("KMS nodes %s, coprocessors %s, readiness %s", span(c.KMSDelay), span(c.CoprocessorDelay), readiness)
}
