package api

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/eventstore/postgres"
	"relayer/eventstore/postgres/pgtest"
	"relayer/projections"
)

// Two instances share one PostgreSQL store, each with its own projections (DESIGN section 11):
// a job accepted by one is found by the other at once, a plain GET and a long-poll alike, and an
// id nobody accepted is still a 404.
func TestAnInstanceFindsAJobAnotherInstanceJustAccepted(t *testing.T) {
	url := pgtest.URL(t, "relayer_api_fleet")
	open := func() (eventstore.Store, error) { return postgres.Open(context.Background(), url, postgres.Config{}) }
	a := startJTWith(t, nil, open)
	b := startJTWith(t, nil, open)
	const jobs = 150
	lagged := 0
	for n := range uint64(jobs) {
		id := a.do("POST", "/v2/public-decrypt", jtBody(domain.PublicDecrypt, n+1)).jobID(t)
		if b.set.Position() < a.set.Position() {
			lagged++ // b's projections had not seen the append when its GET came
		}
		path := "/v2/public-decrypt/" + id
		if n%30 == 1 { // a long-poll holds the full second: the job stays queued (no engine runs here)
			path += "?wait=1"
		}
		res := b.do("GET", path, nil)
		if res.Code == http.StatusNotFound {
			t.Fatalf("invariant: a job another instance acknowledged is found at once; job %d (%s) answered 404 by the other instance", n, path)
		}
		if res.Code != http.StatusAccepted && res.Code != http.StatusOK {
			t.Fatalf("job %d: %d %s", n, res.Code, res.Body)
		}
	}
	t.Logf("%d of %d GETs came before the other instance's projections had the job", lagged, jobs)
	b.do("GET", "/v2/public-decrypt/"+domain.NewJobID().String(), nil).want(t, http.StatusNotFound, labelNotFound)
}

// A runtime change made through one instance's admin API reaches the other while both run: the
// config stream is followed live, not only folded at start.
func TestARuntimeChangeOnOneInstanceReachesTheOther(t *testing.T) {
	url := pgtest.URL(t, "relayer_api_fleet")
	open := func() (eventstore.Store, error) { return postgres.Open(context.Background(), url, postgres.Config{}) }
	a := startJTWith(t, nil, open, jtAdmin)
	b := startJTWith(t, nil, open, jtAdmin)
	if got := b.srv.Tuning().InputProofTPS; got == 7 {
		t.Fatal("the test's value is the default")
	}
	a.admin("POST", `{"param":"input_proof_throttler_tps","value":7}`).want(t, http.StatusOK, "")
	deadline := time.Now().Add(5 * time.Second)
	for b.srv.Tuning().InputProofTPS != 7 {
		if time.Now().After(deadline) {
			t.Fatalf("invariant: a change on one instance reaches the others; after 5 s the other has %v", b.srv.Tuning().InputProofTPS)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if v := jtParams(t, b.admin("GET", "")); v["input_proof_throttler_tps"].Value != float64(7) {
		t.Fatalf("the other instance's /admin/config shows %v", v["input_proof_throttler_tps"].Value)
	}
	// And back the other way, with the version each instance holds in step: a change on b
	// after a's is appended at the next version, not refused or lost.
	b.admin("POST", `{"param":"input_proof_throttler_tps","value":9}`).want(t, http.StatusOK, "")
	deadline = time.Now().Add(5 * time.Second)
	for a.srv.Tuning().InputProofTPS != 9 {
		if time.Now().After(deadline) {
			t.Fatalf("the second change did not reach the first instance: %v", a.srv.Tuning().InputProofTPS)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Two instances change related parameters at once: one lowers queue_capacity, the other sets a
// queue_shed_margin valid only under the old capacity. Whichever wins, the instance whose change
// is refused after folding the other's must put the other's in force: both end with the same
// configuration, the log's.
func TestInstancesChangingTheConfigurationAtOnceEndAlike(t *testing.T) {
	url := pgtest.URL(t, "relayer_api_fleet")
	open := func() (eventstore.Store, error) { return postgres.Open(context.Background(), url, postgres.Config{}) }
	a := startJTWith(t, nil, open, jtAdmin)
	b := startJTWith(t, nil, open, jtAdmin)
	same := func(what string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			ra, rb := a.srv.runtime(), b.srv.runtime()
			if ra.capacity == rb.capacity && ra.margin == rb.margin {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the instances differ 5 s later: capacity %d/%d, margin %d/%d", what, ra.capacity, rb.capacity, ra.margin, rb.margin)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	for round := range 15 {
		a.admin("POST", `{"param":"queue_shed_margin","value":0}`).want(t, http.StatusOK, "")
		a.admin("POST", `{"param":"queue_capacity","value":1000}`).want(t, http.StatusOK, "")
		same("reset")
		var wg sync.WaitGroup
		wg.Go(func() { a.admin("POST", `{"param":"queue_capacity","value":100}`) })
		wg.Go(func() { b.admin("POST", `{"param":"queue_shed_margin","value":500}`) })
		wg.Wait()
		same(fmt.Sprintf("round %d", round))
	}
}

// An instance whose read models lag (they have not shown another instance's change yet) asked
// for the value it last folded reads the config stream before it decides: the value asked is
// recorded over the other instance's, not answered "unchanged" and lost (found by a review).
func TestAnAdminChangeOnALaggingInstanceIsDecidedOnTheStreamAsItIs(t *testing.T) {
	url := pgtest.URL(t, "relayer_api_fleet")
	open := func() (eventstore.Store, error) { return postgres.Open(context.Background(), url, postgres.Config{}) }
	a := startJTWith(t, nil, open, jtAdmin)
	store, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	stale, err := projections.New(projections.Config{}) // never run: it shows no change of a's
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := jtConfig()
	jtAdmin(&cfg)
	b, err := New(ctx, cfg, Deps{Store: store, Projections: stale, Now: a.clock.Now, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	post := func(srv *Server, body string) configChange {
		t.Helper()
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/admin/config", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(jtAuth[0], jtAuth[1])
		srv.Handler().ServeHTTP(rec, req)
		var env struct{ Result configChange }
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &env) != nil {
			t.Fatalf("POST %s: %d %s", body, rec.Code, rec.Body)
		}
		return env.Result
	}
	post(b, `{"param":"user_decrypt_throttler_tps","value":5}`) // b records 5 and folds it
	post(a.srv, `{"param":"user_decrypt_throttler_tps","value":3}`)
	if got := b.Tuning().UserDecryptTPS; got != 5 {
		t.Fatalf("the lagging instance shows %v, want its own 5 (its read models never ran)", got)
	}
	if ch := post(b, `{"param":"user_decrypt_throttler_tps","value":5}`); ch.Unchanged || string(ch.Old) != "3" || string(ch.New) != "5" {
		t.Fatalf("the lagging instance answered %+v, want the change from 3 to 5 recorded", ch)
	}
	events := a.configChanges()
	if last := events[len(events)-1]; last.Param != "user_decrypt_throttler_tps" || string(last.New) != "5" {
		t.Fatalf("the config stream ends with %+v, want user_decrypt_throttler_tps set to 5", last)
	}
}
