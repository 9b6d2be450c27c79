package api

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"testing"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/eventstore/sqlite"
)

// opEventsEnvelope is GET /v1/jobs/{jobId}/events's answer.
type opEventsEnvelope struct {
	Status    string     `json:"status"`
	RequestID string     `json:"requestId"`
	Result    JobEvents  `json:"result"`
	Error     *ErrorBody `json:"error"`
}

func TestTheEventsEndpointShowsAJobsWholeHistoryAsTheLogHoldsIt(t *testing.T) {
	env := startOps(t, opsTuning{})
	other := env.lifecycle(domain.InputProof, 1) // another job's events must not show
	id := env.lifecycle(domain.PublicDecrypt, 2)

	code, h, body := env.get("/v1/jobs/" + id.String() + "/events")
	if code != http.StatusOK || h.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d (%s): %s", code, h.Get("Content-Type"), body)
	}
	var got opEventsEnvelope
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != "succeeded" || got.RequestID == "" || got.Result.JobID != id.String() ||
		got.Result.Kind != "public-decrypt" || got.Result.Status != "completed" {
		t.Fatalf("envelope %s", body)
	}

	var i int
	for rec, err := range env.store.ReadStream(context.Background(), id.Stream(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(got.Result.Events) {
			t.Fatalf("the answer has %d events, the stream more", len(got.Result.Events))
		}
		ev := got.Result.Events[i]
		if ev.Type != rec.Type || ev.Version != int64(rec.Version) || ev.Position != uint64(rec.Position) ||
			ev.SchemaVersion != rec.SchemaVersion || !ev.RecordedAt.Equal(rec.Metadata.RecordedAt) ||
			ev.CorrelationID != rec.Metadata.CorrelationID || !bytes.Equal(ev.Data, rec.Data) {
			t.Fatalf("event %d = %+v, the log holds %+v", i, ev, rec)
		}
		e, err := opDecode(rec)
		if err != nil {
			t.Fatal(err)
		}
		if ev.At == nil || !ev.At.Equal(e.Header().At) {
			t.Fatalf("event %d at %v, want the event's time %s", i, ev.At, e.Header().At)
		}
		wantStatus := ""
		if st, ok := domain.StatusAfter(e); ok {
			wantStatus = st.String()
		}
		if ev.StatusAfter != wantStatus {
			t.Fatalf("event %d statusAfter %q, want %q", i, ev.StatusAfter, wantStatus)
		}
		i++
	}
	wantTypes := []string{"RequestAccepted", "ReadinessCheckStarted", "ReadinessPassed", "TransactionSigned", "ReceiptRecorded", "RequestCompleted"}
	if i != len(got.Result.Events) || i != len(wantTypes) {
		t.Fatalf("%d events in the answer, %d in the stream, want %d", len(got.Result.Events), i, len(wantTypes))
	}
	for i, typ := range wantTypes {
		if got.Result.Events[i].Type != typ || got.Result.Events[i].Version != int64(i) {
			t.Fatalf("event %d is %s@%d, want %s@%d", i, got.Result.Events[i].Type, got.Result.Events[i].Version, typ, i)
		}
		if i > 0 && got.Result.Events[i].Position <= got.Result.Events[i-1].Position {
			t.Fatalf("positions do not increase: %d then %d", got.Result.Events[i-1].Position, got.Result.Events[i].Position)
		}
	}
	if bytes.Contains(body, []byte(other.String())) {
		t.Fatalf("the history of %s shows job %s", id, other)
	}
}

func TestTheEventsEndpointRefusesAMalformedJobIDWith400NamingTheField(t *testing.T) {
	env := startOps(t, opsTuning{})
	for _, raw := range []string{"not-a-uuid", "0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f1", "0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f1z"} {
		code, got, body := opGetJSON[opEventsEnvelope](env, "/v1/jobs/"+raw+"/events")
		if code != http.StatusBadRequest || got.Status != "failed" || got.Error == nil ||
			got.Error.Label != domain.LabelValidationFailed || len(got.Error.Details) != 1 || got.Error.Details[0].Field != "jobId" {
			t.Fatalf("%s: %d %s", raw, code, body)
		}
	}
}

func TestTheEventsEndpointAnswers404ForAJobTheLogDoesNotHold(t *testing.T) {
	env := startOps(t, opsTuning{})
	env.lifecycle(domain.UserDecrypt, 1)
	code, got, body := opGetJSON[opEventsEnvelope](env, "/v1/jobs/"+domain.NewJobID().String()+"/events")
	if code != http.StatusNotFound || got.Error == nil || got.Error.Label != "not_found" || got.RequestID == "" {
		t.Fatalf("%d %s", code, body)
	}
}

// The store checks an event's data when it is appended and not again on reads; the audit view
// passes the data on as it is stored, so it checks it itself: data damaged in the file since
// is a history that cannot be read (500), never an answer that is not JSON.
func TestTheEventsEndpointAnswers500ForDataDamagedSinceItsAppend(t *testing.T) {
	env := startOps(t, opsTuning{})
	id := env.lifecycle(domain.PublicDecrypt, 1)
	var last eventstore.Position
	for rec, err := range env.store.ReadStream(context.Background(), id.Stream(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		last = rec.Position
	}
	if err := env.set.WaitFor(context.Background(), last); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", env.store.(*sqlite.Store).Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE events SET data = CAST('{"jobId":' AS BLOB) WHERE position = ?`, int64(last)); err != nil {
		t.Fatal(err)
	}
	code, got, body := opGetJSON[opEventsEnvelope](env, "/v1/jobs/"+id.String()+"/events")
	if code != http.StatusInternalServerError || got.Error == nil || got.Error.Label != domain.LabelInternalServerError {
		t.Fatalf("%d %s", code, body)
	}
}
