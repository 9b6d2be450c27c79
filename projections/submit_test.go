package projections_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/projections/projectionstest"
)

// startSubmitter runs a Set over a new SQLite store (projectionstest.New) and returns a Submitter
// on both, its clock at now.
func startSubmitter(t *testing.T, now time.Time) *projections.Submitter {
	t.Helper()
	h := projectionstest.New(t, projections.Config{})
	return &projections.Submitter{Executor: h.Exec, Set: h.Set, AcceptWait: 5 * time.Second, Now: func() time.Time { return now }}
}

func TestSubmitAcceptsOnceJoinsAnIdenticalRequestAndStartsTheNextGenerationAfterAFailure(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	sub := startSubmitter(t, now)
	ctx := context.Background()
	req := domain.Request{PublicDecrypt: &domain.PublicDecryptRequest{CiphertextHandles: []string{"0x03"}, ExtraData: "0x00"}}
	hash := domain.ContentHash(req)
	cmd := projections.SubmitCommand{Request: req, Metadata: eventstore.Metadata{CorrelationID: "test"}}

	first, err := sub.Submit(ctx, cmd)
	if err != nil || !first.Created || first.JobID != domain.JobIDFor(hash, 0) || first.Lag != nil {
		t.Fatalf("first submission: %+v, %v; want generation 0 created and shown", first, err)
	}
	if _, ok := sub.Set.Job(first.JobID); !ok {
		t.Fatal("the read models do not show the job Submit returned")
	}
	again, err := sub.Submit(ctx, cmd)
	if err != nil || again.Created || again.JobID != first.JobID {
		t.Fatalf("identical submission: %+v, %v; want it joined to %s", again, err, first.JobID)
	}
	out, err := sub.Executor.Execute(ctx, first.JobID, domain.FailReadiness{At: domain.At{At: now}, Label: domain.LabelNotAllowedOnHostACL, Message: "denied"}, cmd.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.Set.WaitFor(ctx, out.Position); err != nil {
		t.Fatal(err)
	}
	next, err := sub.Submit(ctx, cmd)
	if err != nil || !next.Created || next.JobID != domain.JobIDFor(hash, 1) {
		t.Fatalf("submission after a failure: %+v, %v; want generation 1 created", next, err)
	}
}

func TestSubmitShedsANewJobWhenItsQueueIsFullAndAppendsNothing(t *testing.T) {
	sub := startSubmitter(t, time.Unix(1_800_000_000, 0))
	ctx := context.Background()
	for i, ct := range []string{"aa", "bb"} {
		req := domain.Request{InputProof: &domain.InputProofRequest{ContractChainID: 1337, ContractAddress: "0x01", UserAddress: "0x02", Ciphertext: ct, ExtraData: "0x00"}}
		res, err := sub.Submit(ctx, projections.SubmitCommand{Request: req, ShedAt: 1})
		var shed *projections.ShedError
		switch {
		case i == 0 && (err != nil || !res.Created):
			t.Fatalf("into an empty queue: %+v, %v", res, err)
		case i == 1 && (!errors.As(err, &shed) || shed.Queue != projections.TxQueue || shed.Length != 1):
			t.Fatalf("into a queue of one with ShedAt 1: %+v, %v; want a *ShedError for the TX queue", res, err)
		}
	}
	if n := sub.Set.Jobs(); n != 1 {
		t.Fatalf("the read models show %d jobs, want the one accepted", n)
	}
}

func TestSubmitRefusesAUserDecryptWhoseValidityWindowEndedWithNothingAppended(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	sub := startSubmitter(t, now)
	req := domain.Request{UserDecrypt: &domain.UserDecryptRequest{UserAddress: "0x04", ExtraData: "0x00",
		RequestValidity: domain.RequestValidity{StartTimestamp: uint64(now.Add(-48 * time.Hour).Unix()), DurationDays: 1}}}
	_, err := sub.Submit(context.Background(), projections.SubmitCommand{Request: req})
	var ae *projections.AdmissionError
	if !errors.As(err, &ae) || ae.Check != projections.CheckValidityEnd || ae.RetryAfter != 0 {
		t.Fatalf("got %v, want an *AdmissionError of check %s", err, projections.CheckValidityEnd)
	}
	head, err := sub.Executor.Store.Head(context.Background())
	if err != nil || head != 0 {
		t.Fatalf("the log's head is %d (%v) after a refusal, want nothing appended", head, err)
	}
}

func TestContentBackoffDoublesFromASecondUpToItsCap(t *testing.T) {
	for _, c := range []struct {
		failed uint32
		want   time.Duration
	}{
		{0, 0},
		{projections.FreeGenerations - 1, 0},
		{projections.FreeGenerations, time.Second},
		{projections.FreeGenerations + 3, 8 * time.Second},
		{projections.MaxGenerations - 1, projections.MaxContentBackoff},
	} {
		if got := projections.ContentBackoff(c.failed); got != c.want {
			t.Errorf("after %d failures: %s, want %s", c.failed, got, c.want)
		}
	}
}
