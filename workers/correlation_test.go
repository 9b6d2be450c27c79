package workers

import (
	"context"
	"fmt"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers/gateway/contracts"
)

// Every event the engine appends to a job carries the correlation id its acceptance was recorded
// with (the client's X-Correlation-ID), whatever worker appended it: a client's id follows its
// job through the log.
func TestEveryEventOfAJobCarriesItsAcceptancesCorrelationID(t *testing.T) {
	env := startEngine(t, engineOpts{})
	ctx := context.Background()
	corrs := map[domain.JobID]string{}
	for i, k := range domain.Kinds() {
		id := domain.NewJobID()
		corr := fmt.Sprintf("client-trace-%d", i)
		req := env.request(k, contracts.ScenarioNone)
		if _, err := env.exec.Execute(ctx, id, domain.Accept{At: domain.At{At: time.Now()}, JobID: id, Request: req, ContentHash: id.String()},
			eventstore.Metadata{CorrelationID: corr}); err != nil {
			t.Fatal(err)
		}
		corrs[id] = corr
	}
	for id, corr := range corrs {
		s := env.waitTerminal(id, time.Minute)
		if s.Status != domain.Completed {
			t.Fatalf("%s job %s: %s %q", s.Kind, id, s.Status, s.Label)
		}
		if s.CorrelationID != corr {
			t.Errorf("job %s: loaded state's CorrelationID %q, want %q", id, s.CorrelationID, corr)
		}
		n := 0
		for rec, err := range env.store.ReadStream(ctx, id.Stream(), 0) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			if rec.Metadata.CorrelationID != corr {
				t.Errorf("job %s: %s (version %d) has correlation id %q, want the acceptance's %q", id, rec.Type, rec.Version, rec.Metadata.CorrelationID, corr)
			}
		}
		if n < 3 {
			t.Errorf("job %s: %d events, want the workers' too", id, n)
		}
	}
}

// A timeout is caused by the job's last event (whose deadline passed), named by its position,
// never by a word naming the worker.
func TestATimeoutIsCausedByTheJobsLastEvent(t *testing.T) {
	env := startEngine(t, engineOpts{pcfg: projections.Config{ResponseTimeout: time.Second}})
	id := env.accept(env.request(domain.UserDecrypt, contracts.ScenarioNoResponse))
	if s := env.waitTerminal(id, time.Minute); s.Status != domain.TimedOut {
		t.Fatalf("job %s: %s %q, want timed_out", id, s.Status, s.Label)
	}
	var recs []eventstore.Record
	for rec, err := range env.store.ReadStream(context.Background(), id.Stream(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	wantEventCausations(t, recs, recs[0].Position)
}
