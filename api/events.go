package api

import (
	"encoding/json"
	"net/http"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
)

// JobEvents is the result of GET /v1/jobs/{jobId}/events.
type JobEvents struct {
	JobID string `json:"jobId"`
	// Kind and Status are the job's kind and its status after the last event, as the history
	// folds (omitted when the history does not start with an acceptance, which the store's
	// guards make impossible for a valid log).
	Kind   string     `json:"kind,omitempty"`
	Status string     `json:"status,omitempty"`
	Events []JobEvent `json:"events"`
}

// JobEvent is one event of a job's history, as the log holds it.
type JobEvent struct {
	Type          string `json:"type"`
	Version       int64  `json:"version"`
	Position      uint64 `json:"position"`
	SchemaVersion int    `json:"schemaVersion"`
	// RecordedAt is when the store committed the event; At is the event's own time (the time of
	// the command that decided it), omitted when the event cannot be decoded.
	RecordedAt    time.Time  `json:"recordedAt"`
	At            *time.Time `json:"at,omitempty"`
	CorrelationID string     `json:"correlationId,omitempty"`
	CausationID   string     `json:"causationId,omitempty"`
	// StatusAfter is the job's status after the event, when the event changes it.
	StatusAfter string `json:"statusAfter,omitempty"`
	// Data is the event's data exactly as stored (under SchemaVersion).
	Data json.RawMessage `json:"data"`
}

// jobEvents answers GET /v1/jobs/{jobId}/events: the job's whole history, read from its stream in
// the store (this is the audit view: it shows what the log holds, not what the projections made
// of it). 400 validation_failed for a malformed id, 404 not_found for a job the log does not hold.
func (s *Server) jobEvents(w http.ResponseWriter, r *http.Request) {
	id, ok := pathJobID(w, r, "the job id is not a UUID")
	if !ok {
		return
	}
	res := JobEvents{JobID: id.String(), Events: []JobEvent{}}
	corr := "" // the job's, from its first event
	for rec, err := range s.store.ReadStream(r.Context(), id.Stream(), 0) {
		if err == nil {
			err = eventstore.CheckData(rec) // the data goes out as it is stored
		}
		if err != nil {
			if r.Context().Err() != nil {
				return // the client went away
			}
			s.log.Error("read a job's stream", "job_id", id.String(), "correlation_id", corr, "request_id", requestID(w), "err", err)
			writeError(w, r, http.StatusInternalServerError, labelInternal, "the job's history could not be read", nil)
			return
		}
		if len(res.Events) == 0 {
			corr = rec.Metadata.CorrelationID
		}
		entry := JobEvent{
			Type:          rec.Type,
			Version:       int64(rec.Version),
			Position:      uint64(rec.Position),
			SchemaVersion: rec.SchemaVersion,
			RecordedAt:    rec.Metadata.RecordedAt,
			CorrelationID: rec.Metadata.CorrelationID,
			CausationID:   rec.Metadata.CausationID,
			Data:          rec.Data,
		}
		if len(entry.Data) == 0 {
			entry.Data = json.RawMessage("null")
		}
		if e, err := projections.DecodeEvent(s.codec, rec); err != nil {
			// The audit view shows every record, even one this build cannot read: that is when
			// an operator needs to see it.
			s.log.Warn("job history holds an event this build cannot decode",
				"job_id", id.String(), "correlation_id", corr, "type", rec.Type, "version", int64(rec.Version), "err", err)
		} else {
			at := e.Header().At
			entry.At = &at
			if a, ok := e.(domain.RequestAccepted); ok {
				res.Kind = a.Kind.String()
			}
			if to, ok := domain.StatusAfter(e); ok {
				entry.StatusAfter = to.String()
				res.Status = entry.StatusAfter
			}
		}
		res.Events = append(res.Events, entry)
	}
	if len(res.Events) == 0 {
		writeError(w, r, http.StatusNotFound, labelNotFound, s.notFoundJob("no job "+id.String(), id), nil)
		return
	}
	writeEnvelope(w, r, http.StatusOK, statusSucceeded, res)
}
