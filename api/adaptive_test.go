package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"relayer/domain"
	"relayer/projections"
)

// jtNominal turns the adaptive mode off (it is on by default), for the tests that compare the
// hints with the nominal policy.
func jtNominal(c *Config) { c.AdaptiveRetryAfter = false }

// jtMinSamples sets how many samples an observation needs before the adaptive mode trusts it.
func jtMinSamples(n int) func(*Config) {
	return func(c *Config) { c.RetryAfter.AdaptiveMinSamples = n }
}

// slowProofs completes n input proofs, numbered from first, one after another, the response of
// each taking took of the clock (which it advances).
func (e *jtEnv) slowProofs(first, n int, took time.Duration) {
	e.t.Helper()
	for i := first; i < first+n; i++ {
		id := e.accept(domain.InputProof, uint64(i))
		e.exec1(id, e.sign(i), e.receipt(i))
		e.clock.Advance(took)
		e.exec1(id, domain.Complete{At: e.clock.At(0), Result: domain.Result{InputProof: &domain.InputProofResult{
			Accepted: true, Handles: []string{}, Signatures: []string{}, ExtraData: "0x00"}}})
	}
}

// inFlight accepts an input proof and signs its transaction: its hint is ⌈P × (1 + M)⌉, P
// alone, whatever the queues.
func (e *jtEnv) inFlight(n int) domain.JobID {
	e.t.Helper()
	id := e.accept(domain.InputProof, uint64(n))
	e.exec1(id, e.sign(n))
	return id
}

// startProofInFlight starts a server (admin on) whose adaptive mode trusts minSamples samples,
// completes samples input proofs that took 40 s each, and puts one more in flight (inFlight),
// 2 s before the clock's now.
func startProofInFlight(t *testing.T, minSamples, samples int) (*jtEnv, domain.JobID) {
	t.Helper()
	env := startJT(t, jtAdmin, jtMinSamples(minSamples))
	env.slowProofs(10, samples, 40*time.Second)
	id := env.inFlight(99)
	env.clock.Advance(2 * time.Second)
	return env, id
}

// adaptive reads GET /admin/config's adaptive member, with its parameters by name.
func (e *jtEnv) adaptive() (adaptiveView, map[string]adaptationView) {
	e.t.Helper()
	res := e.admin("GET", "")
	res.want(e.t, http.StatusOK, "")
	var list struct {
		Params   []paramView   `json:"params"`
		Version  *int64        `json:"version"`
		Adaptive *adaptiveView `json:"adaptive"`
	}
	if err := json.Unmarshal(res.Env.Result, &list); err != nil || list.Adaptive == nil || len(list.Params) == 0 || list.Version == nil {
		e.t.Fatalf("GET /admin/config: %v: %s", err, res.Body)
	}
	by := map[string]adaptationView{}
	for _, p := range list.Adaptive.Parameters {
		by[p.Name] = p
	}
	return *list.Adaptive, by
}

// metrics scrapes /metrics and parses the text format.
func (e *jtEnv) metrics() map[string]*dto.MetricFamily {
	e.t.Helper()
	res := e.do("GET", "/metrics", nil)
	if res.Code != http.StatusOK {
		e.t.Fatalf("/metrics: %d", res.Code)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(res.Body))
	if err != nil {
		e.t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// hasSample reports whether family name has a sample with exactly the labels given.
func hasSample(fams map[string]*dto.MetricFamily, name string, labels ...string) bool {
	f, ok := fams[name]
	if !ok {
		return false
	}
	for _, m := range f.Metric {
		if len(m.Label) != len(labels)/2 {
			continue
		}
		n := 0
		for i := 0; i+1 < len(labels); i += 2 {
			for _, l := range m.Label {
				if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
					n++
				}
			}
		}
		if n == len(labels)/2 {
			return true
		}
	}
	return false
}

const paramP = "nominal_input_proof_processing_seconds"

// Observed P of 40 s gives 40 s to a job in tx_in_flight; the nominal 2 s gives 2 s (no safety
// margin by default).
const (
	observedHint = 40
	nominalHint  = 2
)

func TestAdaptiveHintsAreOnByDefault(t *testing.T) {
	if !DefaultConfig().AdaptiveRetryAfter {
		t.Fatal("api.DefaultConfig has the adaptive Retry-After off")
	}
	env := startJT(t, jtAdmin)
	if v, _ := env.adaptive(); !v.Enabled || v.MinSamples != 20 || v.StaleAfterSeconds != 600 || v.StageWindow != projections.StageWindow || v.DrainWindowSeconds != 60 {
		t.Fatalf("the adaptive mode as a new server lists it: %+v", v)
	}
}

func TestStaleObservationsGiveWayToTheNominalValuesAndFreshOnesTakeOverAgain(t *testing.T) {
	env, id := startProofInFlight(t, 3, 3)
	if got := env.proofHint(id); got != observedHint {
		t.Fatalf("with 3 fresh samples of 40 s: Retry-After %d, want %d", got, observedHint)
	}

	// Eleven minutes without a completed input proof: past the 10-minute horizon.
	env.clock.Advance(11 * time.Minute)
	if got := env.proofHint(id); got != nominalHint {
		t.Fatalf("with the newest sample 11 min old: Retry-After %d, want the nominal %d", got, nominalHint)
	}
	_, ps := env.adaptive()
	p := ps[paramP]
	if p.InForce != "nominal" || p.Value != 2 || p.Observed == nil || *p.Observed != 40 || p.Samples != 3 ||
		p.LastSampleAgeSec == nil || *p.LastSampleAgeSec != (11*time.Minute+2*time.Second).Seconds() || !strings.Contains(p.Why, "stale") {
		t.Fatalf("%s when stale: %+v", paramP, p)
	}

	// A longer horizon, set at run time, trusts the same observation again.
	env.admin("POST", `{"param":"retry_after_adaptive_stale_after_seconds","value":3600}`).want(t, http.StatusOK, "")
	if got := env.proofHint(id); got != observedHint {
		t.Fatalf("within an hour's horizon: Retry-After %d, want %d", got, observedHint)
	}
	env.admin("POST", `{"param":"retry_after_adaptive_stale_after_seconds","value":600}`).want(t, http.StatusOK, "")

	// New samples make the observation fresh again: three of 20 s join the window, whose median
	// is now 30 s.
	env.slowProofs(20, 3, 20*time.Second)
	env.clock.Advance(2 * time.Second)
	if got := env.proofHint(id); got != 30 {
		t.Fatalf("with fresh samples again: Retry-After %d, want 30", got)
	}
}

func TestTooFewSamplesLeaveTheNominalValueInForce(t *testing.T) {
	env, id := startProofInFlight(t, 5, 4)
	if got := env.proofHint(id); got != nominalHint {
		t.Fatalf("with 4 of 5 samples: Retry-After %d, want the nominal %d", got, nominalHint)
	}
	_, ps := env.adaptive()
	if p := ps[paramP]; p.InForce != "nominal" || p.Samples != 4 || !strings.Contains(p.Why, "4 of the 5 samples needed") {
		t.Fatalf("%s with 4 samples: %+v", paramP, p)
	}
	env.slowProofs(20, 1, 40*time.Second)
	env.clock.Advance(2 * time.Second)
	if got := env.proofHint(id); got != observedHint {
		t.Fatalf("with 5 samples: Retry-After %d, want %d", got, observedHint)
	}
}

func TestTheAdminConfigShowsEachAdaptedParameterNominalAgainstObserved(t *testing.T) {
	env := startJT(t, jtAdmin, jtMinSamples(3))
	env.slowProofs(10, 3, 40*time.Second)
	env.clock.Advance(2 * time.Second)

	v, ps := env.adaptive()
	var names []string
	for _, p := range v.Parameters {
		names = append(names, p.Name)
	}
	want := "input_proof_throttler_tps user_decrypt_throttler_tps public_decrypt_throttler_tps readiness_drain_rate " +
		"nominal_readiness_check_seconds nominal_input_proof_processing_seconds nominal_user_decrypt_processing_seconds " +
		"nominal_public_decrypt_processing_seconds nominal_tx_confirmation_ms"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("adapted parameters %s\nwant %s", got, want)
	}
	p := ps[paramP]
	if p.Unit != "s" || p.Nominal != 2 || p.Observed == nil || *p.Observed != 40 || p.Samples != 3 ||
		p.LastSampleAgeSec == nil || *p.LastSampleAgeSec != 2 || p.InForce != "observed" || p.Value != 40 || p.Why != "" {
		t.Fatalf("%s: %+v", paramP, p)
	}
	// Nothing observed for user decrypts: the nominal 4 s, no observation, no age.
	u := ps["nominal_user_decrypt_processing_seconds"]
	if u.Nominal != 4 || u.Observed != nil || u.Samples != 0 || u.LastSampleAgeSec != nil || u.InForce != "nominal" || u.Value != 4 || u.Why != "no samples" {
		t.Fatalf("user decrypt processing: %+v", u)
	}
	// T: the receipts came at the very time of their transactions; a stage observed to take
	// nothing at all is not something to wait for, and the nominal T stays.
	if tx := ps["nominal_tx_confirmation_ms"]; tx.Unit != "ms" || tx.Nominal != 100 || tx.Observed == nil || *tx.Observed != 0 ||
		tx.Samples != 3 || tx.InForce != "nominal" || !strings.Contains(tx.Why, "not a finite positive value") {
		t.Fatalf("tx confirmation: %+v", tx)
	}

	// With the adaptive mode off, the nominal values rule and the observations are still shown.
	env.admin("POST", `{"param":"retry_after_adaptive","value":false}`).want(t, http.StatusOK, "")
	v, ps = env.adaptive()
	p = ps[paramP]
	if v.Enabled || p.InForce != "nominal" || p.Value != 2 || p.Observed == nil || *p.Observed != 40 || p.Why != "retry_after_adaptive is off" {
		t.Fatalf("with the adaptive mode off: enabled %v, %+v", v.Enabled, p)
	}
	id := env.inFlight(99)
	if got := env.proofHint(id); got != nominalHint {
		t.Fatalf("with the adaptive mode off: Retry-After %d, want the nominal %d", got, nominalHint)
	}
}

func TestTheMetricsShowEachAdaptedParameterNominalObservedAndInForce(t *testing.T) {
	env := startJT(t, jtAdmin, jtMinSamples(3))
	env.slowProofs(10, 3, 40*time.Second)
	env.clock.Advance(2 * time.Second)

	gauge := func(fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
		t.Helper()
		return opValue(opSample(t, fams, name, labels...))
	}
	check := func(fams map[string]*dto.MetricFamily, param string, want map[string]float64) {
		t.Helper()
		for source, v := range want {
			if got := gauge(fams, "relayer_retry_after_parameter", "param", param, "source", source); got != v {
				t.Errorf("relayer_retry_after_parameter{param=%q,source=%q} = %g, want %g", param, source, got, v)
			}
		}
		if _, observed := want["observed"]; !observed && hasSample(fams, "relayer_retry_after_parameter", "param", param, "source", "observed") {
			t.Errorf("%s has an observed value without samples", param)
		}
	}

	fams := env.metrics()
	check(fams, paramP, map[string]float64{"nominal": 2, "observed": 40, "in_force": 40})
	if got := gauge(fams, "relayer_retry_after_observed_in_force", "param", paramP); got != 1 {
		t.Errorf("observed in force %g, want 1", got)
	}
	if got := gauge(fams, "relayer_retry_after_observation_samples", "param", paramP); got != 3 {
		t.Errorf("samples %g, want 3", got)
	}
	if got := gauge(fams, "relayer_retry_after_observation_age_seconds", "param", paramP); got != 2 {
		t.Errorf("age %g s, want 2", got)
	}
	check(fams, "nominal_user_decrypt_processing_seconds", map[string]float64{"nominal": 4, "in_force": 4})
	if hasSample(fams, "relayer_retry_after_observation_age_seconds", "param", "nominal_user_decrypt_processing_seconds") {
		t.Error("an age without samples")
	}
	if got := gauge(fams, "relayer_retry_after_observed_in_force", "param", "nominal_user_decrypt_processing_seconds"); got != 0 {
		t.Errorf("observed in force without samples: %g", got)
	}
	// The readiness queue drains nominally at C = 50 per second.
	check(fams, "readiness_drain_rate", map[string]float64{"nominal": 50, "in_force": 50})

	// Stale: the nominal value is in force again; the observation is still shown, with its age.
	env.clock.Advance(11 * time.Minute)
	fams = env.metrics()
	check(fams, paramP, map[string]float64{"nominal": 2, "observed": 40, "in_force": 2})
	if got := gauge(fams, "relayer_retry_after_observed_in_force", "param", paramP); got != 0 {
		t.Errorf("observed in force when stale: %g", got)
	}
	if got, want := gauge(fams, "relayer_retry_after_observation_age_seconds", "param", paramP), (11*time.Minute + 2*time.Second).Seconds(); got != want {
		t.Errorf("age %g s, want %g", got, want)
	}
	for _, name := range []string{"relayer_retry_after_parameter", "relayer_retry_after_observed_in_force",
		"relayer_retry_after_observation_samples", "relayer_retry_after_observation_age_seconds"} {
		if f := fams[name]; f == nil || f.GetType() != dto.MetricType_GAUGE || f.GetHelp() == "" {
			t.Errorf("%s: %v", name, f)
		}
	}
}
