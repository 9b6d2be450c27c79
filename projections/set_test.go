package projections

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

func TestAnEventAtOrBeforeTheCheckpointIsRefusedAndChangesNothing(t *testing.T) {
	h := newHarness(t, Config{})
	id := h.accept(domain.InputProof, 0)
	recs, events := h.records(id, domain.SignTransaction{At: h.at(time.Second), From: "0xa1", TxHash: "0x01", RawTx: "0x02"})
	if err := h.s.Apply(recs[0], events[0]); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, h.s)

	// The same event again (a duplicate delivery), and an older one.
	for _, rec := range []eventstore.Record{recs[0], {Stream: "other", Position: 1, Type: "X", SchemaVersion: 1, Data: []byte(`{}`)}} {
		err := h.s.Apply(rec, events[0])
		var re *eventstore.RecordError
		if !errors.Is(err, ErrOutOfOrder) || !errors.As(err, &re) || re.Position != rec.Position {
			t.Fatalf("position %d: got %v, want ErrOutOfOrder naming the record", rec.Position, err)
		}
	}
	if !bytes.Equal(before, snapshot(t, h.s)) {
		t.Fatal("a refused event changed the projections")
	}
}

func TestEventsThatDoNotFollowTheirStreamsHistoryAreRefused(t *testing.T) {
	h := newHarness(t, Config{})
	id := h.accept(domain.PublicDecrypt, 0)
	ended := h.accept(domain.PublicDecrypt, 0)
	h.do(ended, domain.TimeOutReadiness{At: h.at(time.Minute)})
	at := h.at(time.Second).At
	stranger := domain.NewJobID()
	for _, c := range []struct {
		name    string
		stream  string
		version eventstore.Version
		event   domain.Event
	}{
		{"a gap in the versions", id.Stream(), 2, domain.ReadinessCheckStarted{EventHeader: domain.EventHeader{JobID: id, At: at}}},
		{"a version seen before", id.Stream(), 0, domain.ReadinessCheckStarted{EventHeader: domain.EventHeader{JobID: id, At: at}}},
		{"an event before the acceptance", stranger.Stream(), 0, domain.ReadinessPassed{EventHeader: domain.EventHeader{JobID: stranger, At: at}}},
		{"an acceptance of a known job", id.Stream(), 1, domain.RequestAccepted{EventHeader: domain.EventHeader{JobID: id, At: at}, Kind: domain.PublicDecrypt, Status: domain.Queued, ContentHash: "aa"}},
		{"an event after the end", ended.Stream(), 2, domain.ReadinessPassed{EventHeader: domain.EventHeader{JobID: ended, At: at}}},
		{"a transition the lifecycle forbids", id.Stream(), 1, domain.ReceiptRecorded{EventHeader: domain.EventHeader{JobID: id, At: at}, TxHash: "0x1", GatewayRequestID: "1"}},
		{"a share before the receipt", id.Stream(), 1, domain.ShareReceived{EventHeader: domain.EventHeader{JobID: id, At: at}}},
		{"an event in another job's stream", id.Stream(), 1, domain.ReadinessPassed{EventHeader: domain.EventHeader{JobID: stranger, At: at}}},
		{"an input proof accepted as queued", stranger.Stream(), 0, domain.RequestAccepted{EventHeader: domain.EventHeader{JobID: stranger, At: at}, Kind: domain.InputProof, Status: domain.Queued, ContentHash: "aa"}},
		{"a stream name without a job id", "request-42", 0, domain.ReadinessPassed{EventHeader: domain.EventHeader{JobID: id, At: at}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, h.s)
			ev, err := h.codec.Encode(c.event, eventstore.Metadata{})
			if err != nil {
				t.Fatal(err)
			}
			rec := eventstore.Record{Stream: c.stream, Version: c.version, Position: h.pos + 1, Type: ev.Type, SchemaVersion: ev.SchemaVersion, Data: ev.Data}
			err = h.s.Apply(rec, c.event)
			var re *eventstore.RecordError
			if !errors.Is(err, ErrInconsistent) || !errors.As(err, &re) || re.Stream != c.stream || re.Version != c.version {
				t.Fatalf("got %v, want ErrInconsistent naming %s@%d", err, c.stream, c.version)
			}
			if !bytes.Equal(before, snapshot(t, h.s)) {
				t.Fatal("a refused event changed the projections")
			}
		})
	}
}

func TestRecordsOfOtherStreamsAreSkippedButAdvanceTheCheckpoint(t *testing.T) {
	h := newHarness(t, Config{})
	h.accept(domain.InputProof, 0)
	before := snapshot(t, h.s)
	rec := eventstore.Record{Stream: "config", Version: 0, Position: 10, Type: "ConfigChanged", SchemaVersion: 1, Data: []byte(`{"param":"x"}`)}
	if err := h.s.Apply(rec, nil); err != nil {
		t.Fatal(err)
	}
	if h.s.Position() != 10 || h.s.Events() != 2 {
		t.Fatalf("checkpoint %d after %d events, want 10 after 2", h.s.Position(), h.s.Events())
	}
	after := snapshot(t, h.s)
	// Only the checkpoint and the event count moved.
	if !bytes.Equal(before[bytes.Index(before, []byte(`"config"`)):], after[bytes.Index(after, []byte(`"config"`)):]) {
		t.Fatal("a skipped record changed a read model")
	}
}

func TestWaitForReturnsOnceThePositionIsApplied(t *testing.T) {
	h := newHarness(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- h.s.WaitFor(ctx, 3) }()
	h.accept(domain.InputProof, 0)
	select {
	case err := <-done:
		t.Fatalf("WaitFor(3) returned %v at position 1", err)
	case <-time.After(20 * time.Millisecond):
	}
	h.accept(domain.InputProof, 0)
	h.accept(domain.InputProof, 0)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := h.s.WaitFor(ctx, 2); err != nil {
		t.Fatalf("an applied position: %v", err)
	}
	short, stop := context.WithTimeout(ctx, 10*time.Millisecond)
	defer stop()
	if err := h.s.WaitFor(short, 4); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("an unreached position: %v, want the context's error", err)
	}
}

func TestConfigTakesDefaultsAndRefusesNonsense(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Config(); c.ReadinessTimeout != 5*time.Minute || c.TxInFlightTimeout != 2*time.Minute ||
		c.ResponseTimeout != 30*time.Minute || c.DrainWindow != time.Minute || c.DurationAlpha != 0.1 {
		t.Fatalf("defaults %+v", c)
	}
	for _, c := range []Config{
		{ReadinessTimeout: -1}, {TxInFlightTimeout: -time.Second}, {ResponseTimeout: -1},
		{DrainWindow: 1500 * time.Millisecond}, {DrainWindow: 2 * time.Hour}, {DurationAlpha: 1.5}, {DurationAlpha: -0.1},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v passed validation", c)
		}
		if _, err := New(c); err == nil {
			t.Errorf("New(%+v) succeeded", c)
		}
	}
}

// TestTheProjectionsHoldLessThanAKibibytePerJob guards the memory budget (DESIGN section 5: at a
// million jobs, at most 1 KiB of heap per job for all projections) on a smaller history;
// BenchmarkMemory measures it at a million.
func TestTheProjectionsHoldLessThanAKibibytePerJob(t *testing.T) {
	n := 20_000
	if testing.Short() {
		n = 5_000
	}
	perJob, s := measureMemory(t, n)
	t.Logf("%.0f B/job over %d jobs", perJob, s.Jobs())
	if perJob > 1024 {
		t.Fatalf("%.0f B/job, want at most 1024", perJob)
	}
}
