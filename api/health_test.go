package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"relayer/domain"
	"relayer/projections/projectionstest"
)

// opHealth is GET /healthz's body as the tests read it.
type opHealth struct {
	Status string `json:"status"`
	Store  struct {
		Status string  `json:"status"`
		Head   *uint64 `json:"head"`
		Error  string  `json:"error"`
	} `json:"store"`
	Projections struct {
		Status   string  `json:"status"`
		Position uint64  `json:"position"`
		Lag      *uint64 `json:"lag"`
		MaxLag   uint64  `json:"maxLag"`
	} `json:"projections"`
	Dependencies map[string]string `json:"dependencies"`
}

func opGetHealth(t *testing.T, h http.Handler, tuning opsTuning) (int, opHealth) {
	t.Helper()
	req := httptest.NewRequestWithContext(context.WithValue(t.Context(), opsTuningKey{}, tuning), http.MethodGet, "/healthz", nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var got opHealth
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, rec.Body)
	}
	return rec.Code, got
}

func TestHealthIsOKWhenTheStoreAnswersAndTheProjectionsAreCaughtUp(t *testing.T) {
	env := startOps(t, opsTuning{})
	env.lifecycle(domain.InputProof, 1)
	code, got, body := opGetJSON[opHealth](env, "/healthz")
	head := uint64(env.head())
	if code != http.StatusOK || got.Status != "ok" || got.Store.Status != "ok" || got.Store.Head == nil || *got.Store.Head != head ||
		got.Projections.Status != "ok" || got.Projections.Position != head || got.Projections.Lag == nil || *got.Projections.Lag != 0 ||
		got.Projections.MaxLag != DefaultMaxProjectionLag {
		t.Fatalf("%d %s", code, body)
	}
	// The reference relayer's HealthResponse: each dependency ok or fail.
	if len(got.Dependencies) != 2 || got.Dependencies["store"] != "ok" || got.Dependencies["projections"] != "ok" {
		t.Fatalf("dependencies: %s", body)
	}
}

func TestHealthIsDegradedWith503WhenTheProjectionsTrailTheLogBeyondTheThreshold(t *testing.T) {
	env := startOps(t, opsTuning{})
	for n := range 3 {
		env.lifecycle(domain.PublicDecrypt, n)
	}
	// A server whose projections never followed the log (opServer gives it new ones, which do not
	// run): they trail it by the whole log.
	srv := opServer(t, Deps{Store: env.store})
	head := uint64(env.head())

	code, got := opGetHealth(t, srv.Handler(), opsTuning{maxLag: head - 1, maxLagSet: true})
	if code != http.StatusServiceUnavailable || got.Status != "degraded" || got.Store.Status != "ok" ||
		got.Projections.Status != "degraded" || got.Projections.Lag == nil || *got.Projections.Lag != head ||
		got.Dependencies["store"] != "ok" || got.Dependencies["projections"] != "fail" {
		t.Fatalf("%d %+v", code, got)
	}
	// At the threshold itself it is still fine.
	if code, got := opGetHealth(t, srv.Handler(), opsTuning{maxLag: head, maxLagSet: true}); code != http.StatusOK || got.Status != "ok" {
		t.Fatalf("%d %+v", code, got)
	}
}

func TestHealthIsDownWith503WhenTheStoreIsClosed(t *testing.T) {
	store := projectionstest.OpenStore(t)
	srv := opServer(t, Deps{Store: store})
	if code, got := opGetHealth(t, srv.Handler(), opsTuning{}); code != http.StatusOK || got.Status != "ok" {
		t.Fatalf("before closing: %d %+v", code, got)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	code, got := opGetHealth(t, srv.Handler(), opsTuning{})
	if code != http.StatusServiceUnavailable || got.Status != "down" || got.Store.Status != "down" || got.Store.Head != nil ||
		got.Store.Error == "" || got.Projections.Status != "unknown" || got.Projections.Lag != nil ||
		got.Dependencies["store"] != "fail" || got.Dependencies["projections"] != "fail" {
		t.Fatalf("%d %+v", code, got)
	}
	opWantLive(t, srv.Handler(), "with a closed store") // liveness does not depend on the store
}

// opWantLive checks that h answers GET /liveness with 200; when says in what state.
func opWantLive(t *testing.T, h http.Handler, when string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/liveness", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("liveness %s: %d", when, rec.Code)
	}
}

func TestLivenessAlwaysAnswersAlive(t *testing.T) {
	env := startOps(t, opsTuning{})
	code, h, body := env.get("/liveness")
	var got map[string]string
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if code != http.StatusOK || h.Get("Content-Type") != "application/json" || len(got) != 1 || got["status"] != "alive" {
		t.Fatalf("%d %s", code, body)
	}
}

func TestVersionReportsTheBuildAndGoVersion(t *testing.T) {
	env := startOps(t, opsTuning{})
	code, got, body := opGetJSON[versionInfo](env, "/version")
	if code != http.StatusOK || got.Version == "" || got.GoVersion != runtime.Version() || got.Module != "relayer" {
		t.Fatalf("%d %s", code, body)
	}
	// The reference relayer's VersionResponse: name, version and build are all there.
	if got.Name != "relayer" || got.Build == "" {
		t.Fatalf("name and build: %s", body)
	}
}

func TestVersionBuildSaysTheRevisionAndWhetherTheTreeWasModified(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		rev  string
		mod  *bool
		want string
	}{
		{"a1b2c3d4", &no, "a1b2c3d4-clean"},
		{"a1b2c3d4", &yes, "a1b2c3d4-dirty"},
		{"a1b2c3d4", nil, "a1b2c3d4-unknown"},
		{"", nil, "unknown-unknown"},
	} {
		if got := buildLabel(c.rev, c.mod); got != c.want {
			t.Errorf("buildLabel(%q, %v) = %q, want %q", c.rev, c.mod, got, c.want)
		}
	}
}
