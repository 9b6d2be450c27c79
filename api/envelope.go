package api

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"

	"relayer/domain"
)

// Envelope is the body of every response, as the public relayer's v2 API has it.
type Envelope struct {
	// Status is "queued" (202, still pending), "succeeded" or "failed".
	Status    string     `json:"status"`
	RequestID string     `json:"requestId"`
	Result    any        `json:"result,omitempty"`
	Error     *ErrorBody `json:"error,omitempty"`
}

// ErrorBody is the envelope's error: a stable label, a message for people, and per-field issues.
type ErrorBody struct {
	Label   string              `json:"label"`
	Message string              `json:"message"`
	Details []domain.FieldIssue `json:"details,omitempty"`
}

const (
	statusQueued    = "queued"
	statusSucceeded = "succeeded"
	statusFailed    = "failed"
)

type requestIDKey struct{}

// withRequestID gives every HTTP call its own request id (a UUID), readable with requestID.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := uuid.NewString()
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}

// requestID is the id of the HTTP call r belongs to.
func requestID(r *http.Request) string {
	if id, ok := r.Context().Value(requestIDKey{}).(string); ok {
		return id
	}
	return ""
}

// writeJSON writes v as the JSON body with the given status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// writeEnvelope writes a successful or pending envelope.
func writeEnvelope(w http.ResponseWriter, r *http.Request, code int, status string, result any) {
	writeJSON(w, code, Envelope{Status: status, RequestID: requestID(r), Result: result})
}

// writeError writes a failed envelope with a label (see DESIGN section 7's table), a message and
// optional field-level details.
func writeError(w http.ResponseWriter, r *http.Request, code int, label, message string, details []domain.FieldIssue) {
	writeJSON(w, code, Envelope{Status: statusFailed, RequestID: requestID(r), Error: &ErrorBody{Label: label, Message: message, Details: details}})
}

// pathJobID reads the {jobId} of r's path, or answers 400 validation_failed naming jobId and
// returns false. message is the error's message.
func pathJobID(w http.ResponseWriter, r *http.Request, message string) (domain.JobID, bool) {
	id, err := domain.ParseJobID(r.PathValue("jobId"))
	if err != nil {
		writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, message,
			[]domain.FieldIssue{{Field: "jobId", Issue: "must be a UUID like 0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11"}})
		return id, false
	}
	return id, true
}

// notCaughtUp answers 503 not_caught_up: a search cursor names jobs this instance has not
// applied yet (projections.Page.Behind).
func notCaughtUp(w http.ResponseWriter, r *http.Request) {
	setRetryAfter(w, 1)
	writeError(w, r, http.StatusServiceUnavailable, labelNotCaughtUp, "the cursor comes from an instance that has seen more jobs than this one yet; retry in a second", nil)
}
