package api

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	"sync"

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

// call is what the middleware keeps of one HTTP call, in a single allocation: the call's id
// (withRequestID), and room for the ResponseWriter wrappers that withRequestID, instrument and
// recoverer put around the call (callWriter, statusRecorder, guardedWriter), which would
// otherwise cost an allocation each. It travels with the ResponseWriter, not the request's
// context: a context of its own would cost a copy of the request (Request.WithContext).
type call struct {
	id  string
	cw  callWriter
	rec statusRecorder
	g   guardedWriter
	// jobID is the {jobId} path segment of a status poll that route found without the mux
	// (which would have set it as a path value).
	jobID string
}

// callWriter is the ResponseWriter withRequestID hands on: w, and the call it belongs to.
type callWriter struct {
	http.ResponseWriter
	c *call
}

// Unwrap lets http.ResponseController reach the connection's writer, and callOf this one.
func (cw *callWriter) Unwrap() http.ResponseWriter { return cw.ResponseWriter }

// callOf is the call of the HTTP call whose ResponseWriter is w, found below the wrappers that
// unwrap (http.ResponseController's convention); nil outside withRequestID.
func callOf(w http.ResponseWriter) *call {
	for {
		switch x := w.(type) {
		case *callWriter:
			return x.c
		case *guardedWriter:
			w = x.ResponseWriter
		case *statusRecorder:
			w = x.ResponseWriter
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return nil
		}
	}
}

// recorder returns a statusRecorder over w: the call's own when it has one free (c may be nil).
func (c *call) recorder(w http.ResponseWriter) *statusRecorder {
	if c == nil || c.rec.ResponseWriter != nil {
		return &statusRecorder{ResponseWriter: w}
	}
	c.rec.ResponseWriter = w
	return &c.rec
}

// guarded returns a guardedWriter over w: the call's own when it has one free (c may be nil).
func (c *call) guarded(w http.ResponseWriter) *guardedWriter {
	if c == nil || c.g.ResponseWriter != nil {
		return &guardedWriter{ResponseWriter: w}
	}
	c.g.ResponseWriter = w
	return &c.g
}

// withRequestID gives every HTTP call its own request id (a random UUID, see newRequestID),
// readable with requestID from the ResponseWriter it hands on or any wrapper of it that unwraps.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := &call{id: newRequestID()}
		c.cw = callWriter{ResponseWriter: w, c: c}
		next.ServeHTTP(&c.cw, r)
	})
}

// requestID is the id of the HTTP call whose ResponseWriter is w ("" outside withRequestID).
func requestID(w http.ResponseWriter) string {
	if c := callOf(w); c != nil {
		return c.id
	}
	return ""
}

// randBlock is random bytes from crypto/rand, read a block at a time and handed out 16 at a time
// to request ids: one read for every 32 ids instead of one each. A block belongs to one goroutine
// between the pool's Get and Put, and each byte goes to one id only. (Bytes wait in memory until
// they are used, as with uuid.EnableRandPool: fine for request ids, which are no secrets.)
type randBlock struct {
	buf [randBlockSize]byte
	off int // bytes of buf handed out; randBlockSize: none left
}

const randBlockSize = 512

var randBlocks = sync.Pool{New: func() any { return &randBlock{off: randBlockSize} }}

// newRequestID returns a random (version 4) UUID in its canonical text form.
func newRequestID() string {
	b := randBlocks.Get().(*randBlock)
	if b.off == randBlockSize {
		_, _ = rand.Read(b.buf[:]) // never fails (Go >= 1.24)
		b.off = 0
	}
	var u uuid.UUID
	copy(u[:], b.buf[b.off:])
	b.off += len(u)
	randBlocks.Put(b)
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // variant 10 (RFC 9562)
	return u.String()
}

// writeJSON writes v as the JSON body with the given status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// writeEnvelope writes a successful or pending envelope.
func writeEnvelope(w http.ResponseWriter, r *http.Request, code int, status string, result any) {
	writeJSON(w, code, Envelope{Status: status, RequestID: requestID(w), Result: result})
}

// writeError writes a failed envelope with a label (see DESIGN section 7's table), a message and
// optional field-level details.
func writeError(w http.ResponseWriter, r *http.Request, code int, label, message string, details []domain.FieldIssue) {
	writeJSON(w, code, Envelope{Status: statusFailed, RequestID: requestID(w), Error: &ErrorBody{Label: label, Message: message, Details: details}})
}

// pathJobID reads the {jobId} of r's path, or answers 400 validation_failed naming jobId and
// returns false. message is the error's message.
func pathJobID(w http.ResponseWriter, r *http.Request, message string) (domain.JobID, bool) {
	raw := r.PathValue("jobId")
	if raw == "" {
		if c := callOf(w); c != nil {
			raw = c.jobID
		}
	}
	id, err := domain.ParseJobID(raw)
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
