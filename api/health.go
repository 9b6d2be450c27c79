package api

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"runtime"
	"runtime/debug"
	"time"

	"relayer/eventstore"
)

// DefaultMaxProjectionLag is how far, in global positions, the projections may trail the log's
// head before /healthz reports the relayer degraded (503): status queries would answer from a
// stale picture.
const DefaultMaxProjectionLag = 10_000

// Health statuses, overall and per dependency.
const (
	healthOK       = "ok"
	healthDegraded = "degraded"
	healthDown     = "down"
)

// healthReport is the body of GET /healthz.
type healthReport struct {
	// Status is ok (200), degraded (503: the projections trail the log by more than maxLag) or
	// down (503: the store cannot be read, or the chain cannot be reached).
	Status      string            `json:"status"`
	Store       storeHealth       `json:"store"`
	Projections projectionsHealth `json:"projections"`
	// Chain is the gateway chain as a dependency; omitted without a ChainHealthSource.
	Chain *chainReport `json:"chain,omitempty"`
	// Signers is present while the balance guard has a signing key paused; down (503) when
	// every key is.
	Signers *signersReport `json:"signers,omitempty"`
	// Fleet is this instance of a fleet and the leases it holds; omitted alone on a log. It
	// changes no status: a lease another instance holds is the fleet at work.
	Fleet *FleetReport `json:"fleet,omitempty"`
	Time  time.Time    `json:"time"`
	// Dependencies is the reference relayer's summary of the same checks (its HealthResponse):
	// each dependency's name and "ok" or "fail" (degraded counts as fail: it turns the answer
	// into a 503).
	Dependencies map[string]string `json:"dependencies"`
}

// dependencyState is a dependency's status as the reference's health summary writes it.
func dependencyState(status string) string {
	if status == healthOK {
		return "ok"
	}
	return "fail"
}

// FleetSource tells /healthz about this instance of a fleet (several instances on one log).
type FleetSource interface {
	Fleet() FleetHealth
}

// FleetHealth is an instance of a fleet as it sees itself: its name in the leases, and each lease
// it takes part in (its signing keys', the webhooks', the archiver's), with the epoch of the
// term it holds (0: another instance holds the lease, or none does).
type FleetHealth struct {
	Instance string
	Leases   []LeaseHealth
}

// LeaseHealth is one lease an instance takes part in.
type LeaseHealth struct {
	Name  string
	Epoch uint64
}

// FleetReport is /healthz's fleet member: the instance's name, the leases it holds, the others.
type FleetReport struct {
	Instance string `json:"instance"`
	// Holds are the leases this instance holds now, with their terms' epochs; Waits the others
	// it would take if they fell free.
	Holds []HeldLease `json:"holds"`
	Waits []string    `json:"waits"`
}

// HeldLease is a lease an instance holds, with its term's epoch.
type HeldLease struct {
	Name  string `json:"name"`
	Epoch uint64 `json:"epoch"`
}

func (s *Server) fleetReport() *FleetReport {
	if s.fleet == nil {
		return nil
	}
	f := s.fleet.Fleet()
	rep := &FleetReport{Instance: f.Instance, Holds: []HeldLease{}, Waits: []string{}}
	for _, l := range f.Leases {
		if l.Epoch != 0 {
			rep.Holds = append(rep.Holds, HeldLease{Name: l.Name, Epoch: l.Epoch})
		} else {
			rep.Waits = append(rep.Waits, l.Name)
		}
	}
	return rep
}

// ChainHealth is what the relayer knows of reaching the gateway chain's node.
type ChainHealth struct {
	// Reachable is false during an outage (the node refuses, or does not answer).
	Reachable bool
	// Since is when the current outage started; zero when reachable.
	Since time.Time
	// LastSuccess is when the node last answered a call; zero before the first.
	LastSuccess time.Time
	// Head is the latest block number seen, HeadAge how long ago it was first seen (HeadKnown
	// false: none yet).
	Head      uint64
	HeadAge   time.Duration
	HeadKnown bool
	// Providers is each of the chain's RPC providers, in the order configured (chain.providers).
	Providers []ProviderHealth
}

// ProviderHealth is what the relayer knows of one of the gateway chain's RPC providers.
type ProviderHealth struct {
	// Label is its 1-based place in the list; Endpoint its scheme and host only (the rest of a
	// provider's URL may carry an API key).
	Label, Endpoint string
	Weight          int
	// Healthy: it takes reads and transactions. Paused: it failed and waits for its probe.
	Healthy, Paused bool
	// Head is the latest block it showed, HeadLag how far that was behind the best head seen.
	Head, HeadLag uint64
}

// ChainHealthSource is implemented by a Deps.Chain that can tell whether the chain is
// reachable (cmd/relayer's, on the gateway adapter): /healthz then reports the chain, and is
// down (503) while it cannot be reached. It must answer from memory, at once.
type ChainHealthSource interface {
	ChainHealth() ChainHealth
}

type chainReport struct {
	// Status is ok or down.
	Status string `json:"status"`
	// Head is the latest block number seen, and HeadAgeSeconds how long ago it was first seen.
	Head           *uint64  `json:"head,omitempty"`
	HeadAgeSeconds *float64 `json:"headAgeSeconds,omitempty"`
	// LastSuccess is when the node last answered.
	LastSuccess *time.Time `json:"lastSuccess,omitempty"`
	// OutageSince is when the current outage started (down only).
	OutageSince *time.Time `json:"outageSince,omitempty"`
	// Providers are the chain's RPC providers; the chain is down only when none is healthy.
	Providers []providerReport `json:"providers,omitempty"`
}

type providerReport struct {
	Provider string `json:"provider"`
	Endpoint string `json:"endpoint"`
	Weight   int    `json:"weight"`
	// Status is ok, paused (it failed; its probe brings it back) or lagging (its head trails the
	// best one by more than chain.max_head_lag).
	Status  string `json:"status"`
	Head    uint64 `json:"head"`
	HeadLag uint64 `json:"headLag"`
}

// chainReport reads the chain's health from Deps.Chain, when it can tell; nil otherwise.
func (s *Server) chainReport() *chainReport {
	src, ok := s.chain.(ChainHealthSource)
	if !ok {
		return nil
	}
	h := src.ChainHealth()
	rep := &chainReport{Status: healthOK}
	if !h.Reachable {
		rep.Status = healthDown
		since := h.Since.UTC()
		rep.OutageSince = &since
	}
	if h.HeadKnown {
		head, age := h.Head, h.HeadAge.Seconds()
		rep.Head, rep.HeadAgeSeconds = &head, &age
	}
	if !h.LastSuccess.IsZero() {
		last := h.LastSuccess.UTC()
		rep.LastSuccess = &last
	}
	for _, p := range h.Providers {
		st := healthOK
		switch {
		case p.Paused:
			st = "paused"
		case !p.Healthy:
			st = "lagging"
		}
		rep.Providers = append(rep.Providers, providerReport{Provider: p.Label, Endpoint: p.Endpoint, Weight: p.Weight,
			Status: st, Head: p.Head, HeadLag: p.HeadLag})
	}
	return rep
}

type storeHealth struct {
	// Status is ok or down.
	Status string `json:"status"`
	// Head is the position of the log's last event (omitted when the store is down).
	Head *uint64 `json:"head,omitempty"`
	// LatencyMs is how long the store took to answer (or to fail).
	LatencyMs float64 `json:"latencyMs"`
	// Error says why the store is down, in general terms (the details are in the logs).
	Error string `json:"error,omitempty"`
}

type projectionsHealth struct {
	// Status is ok, degraded (lagging beyond MaxLag) or unknown (the head cannot be read).
	Status   string `json:"status"`
	Position uint64 `json:"position"`
	// Lag is head - position (omitted when the head is unknown).
	Lag    *uint64 `json:"lag,omitempty"`
	MaxLag uint64  `json:"maxLag"`
}

func (s *Server) maxLagFor(r *http.Request) uint64 {
	if t := tuningOf(r.Context()); t.maxLagSet {
		return t.maxLag
	}
	return DefaultMaxProjectionLag
}

// healthz answers GET /healthz: whether the store answers for its head within a second, how far
// the projections trail it, with a ChainHealthSource whether the gateway chain can be reached,
// and whether the balance guard left a signing key able to send. 200 when all are fine, 503
// otherwise; the body says which.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	rep := healthReport{Status: healthOK, Time: s.now().UTC()}
	rep.Projections.MaxLag = s.maxLagFor(r)
	// The position before the head, as for the metrics: the lag is never understated.
	pos := s.set.Position()
	rep.Projections.Position = uint64(pos)

	ctx, cancel := context.WithTimeout(r.Context(), headTimeout)
	defer cancel()
	start := time.Now()
	head, err := s.store.Head(ctx)
	rep.Store.LatencyMs = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		rep.Status, rep.Store.Status, rep.Projections.Status = healthDown, healthDown, "unknown"
		switch {
		case errors.Is(err, eventstore.ErrClosed):
			rep.Store.Error = "the event store is closed"
		case errors.Is(err, context.DeadlineExceeded):
			rep.Store.Error = "the event store did not answer in " + headTimeout.String()
		default:
			rep.Store.Error = "the event store cannot be read"
		}
		if r.Context().Err() == nil {
			s.log.Warn("health check: the event store cannot be read", "request_id", requestID(w), "err", err)
		}
	} else {
		h, l := uint64(head), lag(head, pos)
		rep.Store.Status, rep.Store.Head = healthOK, &h
		rep.Projections.Lag = &l
		rep.Projections.Status = healthOK
		if l > rep.Projections.MaxLag {
			rep.Status, rep.Projections.Status = healthDegraded, healthDegraded
		}
	}
	if rep.Chain = s.chainReport(); rep.Chain != nil && rep.Chain.Status == healthDown {
		rep.Status = healthDown
	}
	if rep.Signers = s.signersReport(); rep.Signers != nil && rep.Signers.Status == healthDown {
		rep.Status = healthDown
	}
	rep.Fleet = s.fleetReport()
	rep.Dependencies = map[string]string{
		"store":       dependencyState(rep.Store.Status),
		"projections": dependencyState(rep.Projections.Status),
	}
	if rep.Chain != nil {
		rep.Dependencies["chain"] = dependencyState(rep.Chain.Status)
	}
	if rep.Signers != nil {
		rep.Dependencies["signers"] = dependencyState(rep.Signers.Status)
	}
	w.Header().Set("Cache-Control", "no-store")
	code := http.StatusOK
	if rep.Status != healthOK {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, rep)
}

// liveness answers GET /liveness: 200 {"status":"alive"} whenever the process serves HTTP. It
// checks nothing else, so an orchestrator restarts the process only when it is truly stuck.
func (s *Server) liveness(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]string{"status": "alive"})
}

// versionName is /version's name.
const versionName = "relayer"

// versionInfo is the body of GET /version: the reference relayer's VersionResponse (name,
// version, build), and more of the build's facts.
type versionInfo struct {
	// Name is the service's name.
	Name string `json:"name"`
	// Version is the main module's version ("(devel)" for a build from a work tree).
	Version string `json:"version"`
	// Build is the VCS revision and whether the tree was modified, as the reference writes it
	// ("<revision>-clean", "<revision>-dirty"; "unknown" parts when the build recorded none).
	Build  string `json:"build"`
	Module string `json:"module,omitempty"`
	// Revision, RevisionTime and Modified are the VCS state the binary was built from, when the
	// build recorded it (go build -buildvcs).
	Revision     string `json:"revision,omitempty"`
	RevisionTime string `json:"revisionTime,omitempty"`
	Modified     *bool  `json:"modified,omitempty"`
	GoVersion    string `json:"goVersion"`
}

// buildVersion reads the build information the Go toolchain embeds in the binary.
func buildVersion() versionInfo {
	v := versionInfo{Name: versionName, Version: "unknown", GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		v.Build = buildLabel(v.Revision, v.Modified)
		return v
	}
	v.Module, v.GoVersion = bi.Main.Path, bi.GoVersion
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, st := range bi.Settings {
		switch st.Key {
		case "vcs.revision":
			v.Revision = st.Value
		case "vcs.time":
			v.RevisionTime = st.Value
		case "vcs.modified":
			m := st.Value == "true"
			v.Modified = &m
		}
	}
	v.Build = buildLabel(v.Revision, v.Modified)
	return v
}

// buildLabel is /version's build: revision-clean or revision-dirty.
func buildLabel(revision string, modified *bool) string {
	revision = cmp.Or(revision, "unknown")
	switch {
	case modified == nil:
		return revision + "-unknown"
	case *modified:
		return revision + "-dirty"
	}
	return revision + "-clean"
}

// version answers GET /version with the build's version, VCS revision and Go version.
func (s *Server) version(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, buildVersion())
}
