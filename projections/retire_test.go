package projections

import (
	"errors"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

// retire applies a JobsRetired naming ids, as the archiver records it.
func (h *harness) retire(ids ...domain.JobID) error {
	h.t.Helper()
	ev, err := h.codec.Encode(domain.JobsRetired{UpTo: uint64(h.pos), Jobs: ids, At: h.base}, eventstore.Metadata{})
	if err != nil {
		h.t.Fatal(err)
	}
	h.pos++
	rec := eventstore.Record{Stream: domain.RetentionStream, Position: h.pos, Type: ev.Type, SchemaVersion: ev.SchemaVersion, Data: ev.Data}
	return h.s.Apply(rec, nil)
}

func TestARetiredJobLeavesTheReadModelsAndItsIdIsRemembered(t *testing.T) {
	h := newHarness(t, Config{})
	ended := h.accept(domain.InputProof, 0)
	h.do(ended, domain.Fail{At: h.at(time.Second), Label: "internal_error"})
	open := h.accept(domain.InputProof, 2*time.Second)
	if err := h.retire(ended); err != nil {
		t.Fatal(err)
	}
	if _, held := h.s.Job(ended); held || !h.s.Retired(ended) {
		t.Fatalf("retired job: held %v, retired %v", held, h.s.Retired(ended))
	}
	if h.s.Jobs() != 1 || h.s.Counts().Of(domain.InputProof, domain.Failure) != 0 || h.s.Counts().Of(domain.InputProof, domain.Processing) != 1 {
		t.Fatalf("after the retirement: %d jobs, counts %v", h.s.Jobs(), h.s.Counts())
	}
	if p := h.s.Search(Query{}); len(p.Jobs) != 1 || p.Jobs[0].Job.ID != open {
		t.Fatalf("search finds %+v, want only the open job", p.Jobs)
	}
	// An annotation the ended job took while it was retired is passed over.
	h.do(ended, domain.LinkRetry{At: h.at(3 * time.Second), Who: "admin", Reason: "test", NewJob: domain.NewJobID()})
	if _, held := h.s.Job(ended); held {
		t.Fatal("an event of a retired job brought it back")
	}
}

func TestAJobThatCanStillChangeIsNeverRetired(t *testing.T) {
	h := newHarness(t, Config{})
	open := h.accept(domain.PublicDecrypt, 0)
	before := snapshot(t, h.s)
	err := h.retire(open)
	if !errors.Is(err, ErrInconsistent) {
		t.Fatalf("retiring a queued job: %v, want ErrInconsistent", err)
	}
	if _, held := h.s.Job(open); !held || h.s.Retired(open) {
		t.Fatal("the refused retirement changed the read models")
	}
	sameSnapshots(t, "after a refused retirement", before, snapshot(t, h.s))
}

func TestRetirableListsEndedJobsPastTheirWindowBelowTheHorizon(t *testing.T) {
	h := newHarness(t, Config{})
	proof := h.accept(domain.InputProof, 0)
	h.do(proof, domain.Fail{At: h.at(time.Second), Label: "internal_error"})
	public := h.accept(domain.PublicDecrypt, 0)
	h.do(public, domain.Fail{At: h.at(time.Second), Label: "internal_error"})
	h.accept(domain.InputProof, 0) // still processing
	windows := func(k domain.Kind) time.Duration {
		if k == domain.PublicDecrypt {
			return 10 * time.Hour
		}
		return time.Hour
	}
	got := h.s.Retirable(windows, h.base.Add(2*time.Hour), h.pos, 10)
	if len(got) != 1 || got[0].ID != proof || got[0].Status != domain.Failure {
		t.Fatalf("retirable %+v, want the failed input proof only", got)
	}
	if got := h.s.Retirable(windows, h.base.Add(2*time.Hour), got[0].Position-1, 10); len(got) != 0 {
		t.Fatalf("retirable below its last event: %+v", got)
	}
}
