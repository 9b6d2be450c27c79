package projections

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

// retireCarrying applies a JobsRetired naming ids, then a HistoryCarried of the history taken as
// of asOf, as the archiver records one with its next segment.
func (h *harness) retireCarrying(asOf eventstore.Position, history json.RawMessage, ids ...domain.JobID) {
	h.t.Helper()
	for _, e := range []eventstore.Typed{
		h.retired(asOf, ids),
		domain.HistoryCarried{AsOf: uint64(asOf), History: history, At: h.base},
	} {
		if err := h.applySystem(domain.RetentionStream, e); err != nil {
			h.t.Fatal(err)
		}
	}
}

func TestReadModelsFoldedFromTheLiveStoreAloneTakeOverTheRetiredJobsHistory(t *testing.T) {
	h := newHarness(t, Config{})
	kinds := []domain.Kind{domain.InputProof, domain.PublicDecrypt}
	at := time.Duration(0)
	// Jobs that complete (stage samples, drains, transitions), with a chain outage among them.
	for i := range 40 {
		if i == 20 {
			h.outage(domain.ChainOutageStarted{Since: h.base.Add(at + time.Second), At: h.base.Add(at + time.Second)})
			h.outage(domain.ChainOutageEnded{Since: h.base.Add(at + time.Second), Until: h.base.Add(at + 5*time.Second), At: h.base.Add(at + 5*time.Second)})
		}
		h.respond(kinds[i%2], at, time.Duration(1+i%7)*300*time.Millisecond)
		at += 700 * time.Millisecond
	}
	var completed []domain.JobID
	for _, rec := range h.log {
		if rec.Type == "RequestCompleted" {
			id, _ := domain.JobIDFromStream(rec.Stream)
			completed = append(completed, id)
		}
	}
	open := h.accept(domain.PublicDecrypt, at)
	h.toTx(open, at+time.Second)

	// The archiver reads the history, then more events come before its append.
	asOf, history, err := h.s.History()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		h.respond(kinds[i%2], at+time.Duration(i)*time.Second, 2*time.Second)
	}
	retired := completed[:30]
	h.retireCarrying(asOf, history, retired...)
	// And more after it.
	for i := range 5 {
		h.respond(kinds[i%2], at+time.Duration(10+i)*time.Second, time.Second)
	}

	gone := map[string]bool{}
	for _, id := range retired {
		gone[id.Stream()] = true
	}
	running := snapshot(t, h.s)
	sameSnapshots(t, "the whole log folded again", running, snapshot(t, foldRecords(t, h.log, nil)))
	alone := foldRecords(t, h.log, gone)
	sameSnapshots(t, "the live store alone (the retired jobs' events removed)", running, snapshot(t, alone))
	if alone.Events() != h.s.Events() || alone.StageStats(domain.InputProof, StageResponse).Count != h.s.StageStats(domain.InputProof, StageResponse).Count {
		t.Fatalf("the live store alone: %d events, %d input-proof responses; running: %d, %d", alone.Events(),
			alone.StageStats(domain.InputProof, StageResponse).Count, h.s.Events(), h.s.StageStats(domain.InputProof, StageResponse).Count)
	}

	// Without the history carried, the live store alone would have forgotten the retired jobs'
	// part: the test measures something.
	var noHistory []eventstore.Record
	for _, rec := range h.log {
		if rec.Type != "HistoryCarried" {
			noHistory = append(noHistory, rec)
		}
	}
	if bytes.Equal(snapshot(t, foldRecords(t, noHistory, gone)), running) {
		t.Fatal("the live store alone agrees with the running read models even without the history carried")
	}
}

func TestAHistoryCarriedThatDoesNotReadIsRefused(t *testing.T) {
	h := newHarness(t, Config{})
	h.respond(domain.InputProof, 0, time.Second)
	before := snapshot(t, h.s)
	for _, bad := range []string{`{"asOf":1,"history":{"position":2}}`, `{"asOf":99,"history":{"position":99}}`, `{"asOf":1,"history":"x"}`} {
		h.pos++
		err := h.s.Apply(eventstore.Record{Stream: domain.RetentionStream, Position: h.pos, Type: "HistoryCarried", SchemaVersion: 1, Data: json.RawMessage(bad)}, nil)
		if err == nil {
			t.Fatalf("history %s applied", bad)
		}
	}
	sameSnapshots(t, "after refused histories", before, snapshot(t, h.s))
}
