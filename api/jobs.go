package api

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"relayer/api/ratelimit"
	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/eventstore"
	"relayer/projections"
)

// Labels the API answers with besides the domain's (domain.Label*).
const (
	labelNotFound    = "not_found"
	labelRateLimited = "rate_limited"
	labelTooLarge    = "request_too_large"
	labelRequest     = "request_error"
	// labelUnsupportedMediaType: a POST whose body is not declared application/json (415).
	labelUnsupportedMediaType = "unsupported_media_type"
	labelInternal             = domain.LabelInternalServerError
	// labelGatewayNotReachable: a check needed the chain, which could not be reached (503).
	labelGatewayNotReachable = domain.LabelGatewayNotReachable
)

// maxCorrelationID bounds an X-Correlation-ID header.
const maxCorrelationID = 128

// jobRoutes are the v2 endpoints, submit and poll each request kind, and the v3 user decrypt:
// the unified EIP-712 envelope, another representation of a user decrypt job (its poll answers
// any user decrypt job, as the v2 one does). All go through the inbound rate limiter.
func (s *Server) jobRoutes() []Route {
	var rs []Route
	for _, k := range []domain.Kind{domain.InputProof, domain.PublicDecrypt, domain.UserDecrypt, domain.DelegatedUserDecrypt} {
		rs = append(rs,
			Route{Method: http.MethodPost, Pattern: "/v2/" + k.String(), Name: "submit " + k.String(), handler: s.limited(s.submit(k))},
			Route{Method: http.MethodGet, Pattern: "/v2/" + k.String() + "/{jobId}", Name: "poll " + k.String(), handler: s.limited(s.poll(k))},
		)
	}
	return append(rs,
		Route{Method: http.MethodPost, Pattern: "/v3/user-decrypt", Name: "submit user-decrypt (unified EIP-712)",
			handler: s.limited(s.submitParsed(domain.UserDecrypt, parseUnified))},
		Route{Method: http.MethodGet, Pattern: "/v3/user-decrypt/{jobId}", Name: "poll user-decrypt (unified EIP-712)",
			handler: s.limited(s.poll(domain.UserDecrypt))},
	)
}

// parseUnified reads a POST /v3/user-decrypt body.
func parseUnified(body []byte, cfg domain.ValidationConfig) (domain.Request, error) {
	u, err := domain.ParseUnifiedUserDecrypt(body, cfg)
	if err != nil {
		return domain.Request{}, err
	}
	return domain.Request{UnifiedUserDecrypt: &u}, nil
}

// limited puts h behind the API-key gate and the inbound rate limiter.
func (s *Server) limited(h http.HandlerFunc) http.HandlerFunc {
	if s.limiter == nil {
		return s.apiKeyGate(h)
	}
	return s.apiKeyGate(s.limiter.Middleware(h).ServeHTTP)
}

// resultKeys are the members of domain.Result's JSON, by kind ordinal, as the prefix of a
// result's JSON: `{"inputProof":`.
var resultKeys [domain.NumKinds]string

func init() {
	resultKeys[domain.InputProof.Ordinal()] = `{"inputProof":`
	resultKeys[domain.PublicDecrypt.Ordinal()] = `{"publicDecrypt":`
	resultKeys[domain.UserDecrypt.Ordinal()] = `{"userDecrypt":`
	// A delegated user decrypt completes with user decrypt shares, in the same shape.
	resultKeys[domain.DelegatedUserDecrypt.Ordinal()] = `{"userDecrypt":`
}

// stageOf maps a projections queue onto the decrypt row of the seed's table.
func stageOf(q projections.Queue) retryafter.Stage {
	switch q {
	case projections.ReadinessQueue:
		return retryafter.StageReadinessQueue
	case projections.ReadinessInProgress:
		return retryafter.StageReadinessInProgress
	case projections.TxQueue:
		return retryafter.StageTxQueue
	}
	return retryafter.StageAuto
}

// estimate is the Retry-After policy's answer for a job of kind k in status st waiting at loc,
// with the TX queue's length txLen and elapsed time in its status, and the chain outage in
// progress, if any, as the log has it.
func (s *Server) estimate(rc *runtimeConfig, k domain.Kind, st domain.Status, loc projections.Location, txLen int, elapsed time.Duration) retryafter.Estimate {
	return s.estimateDeferred(rc, k, st, loc, txLen, elapsed, 0)
}

// estimateDeferred is estimate for a job whose next try of a failed step is deferred by
// deferred (RetryScheduled).
func (s *Server) estimateDeferred(rc *runtimeConfig, k domain.Kind, st domain.Status, loc projections.Location, txLen int, elapsed, deferred time.Duration) retryafter.Estimate {
	cfg := &rc.retry
	if rc.adaptive {
		cfg = s.adaptiveConfig(rc)
	}
	var outage time.Duration
	if since, down := s.set.ChainOutage(); down {
		outage = max(s.now().Sub(since), 0)
	}
	cfg, paused := s.withSigners(cfg)
	outage = max(outage, paused)
	in := retryafter.Input{
		Outage:     outage,
		Deferred:   deferred,
		Kind:       k,
		Status:     st,
		Stage:      stageOf(loc.Queue),
		Position:   int64(loc.Ahead),
		TxQueueLen: int64(txLen),
		Elapsed:    elapsed,
	}
	return retryafter.Compute(*cfg, in)
}

// viewEstimate is estimate for a job as the projections show it, at time now.
func (s *Server) viewEstimate(rc *runtimeConfig, v *projections.View, now time.Time) (retryafter.Estimate, time.Duration) {
	var elapsed time.Duration
	if since := v.Job.Since(); !since.IsZero() {
		elapsed = max(now.Sub(since), 0)
	}
	var deferred time.Duration
	if !v.Job.RetryAt.IsZero() {
		deferred = max(v.Job.RetryAt.Sub(now), 0)
	}
	return s.estimateDeferred(rc, v.Job.Kind, v.Job.Status, v.Location, v.Queues.Tx, elapsed, deferred), elapsed
}

// bufPool holds response buffers for the hand-written JSON of the hot paths.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// jsonContentType is the Content-Type header's value, shared by every response of the hot paths:
// its length equals its capacity, so an Add to the header copies it rather than write into it.
var jsonContentType = []string{"application/json"}

// writeRaw writes body (JSON) with code.
func writeRaw(w http.ResponseWriter, code int, body []byte) {
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// retryAfterValues are the Retry-After header's values for the hints of up to 10 minutes, made
// once (like jsonContentType, each has length = capacity).
var retryAfterValues = func() [][]string {
	v := make([][]string, 601)
	for i := range v {
		v[i] = []string{strconv.Itoa(i)}
	}
	return v
}()

// setRetryAfter sets the Retry-After header (delay-seconds).
func setRetryAfter(w http.ResponseWriter, seconds int) {
	seconds = max(seconds, 0)
	if seconds < len(retryAfterValues) {
		w.Header()["Retry-After"] = retryAfterValues[seconds]
		return
	}
	w.Header()["Retry-After"] = []string{strconv.Itoa(seconds)}
}

// --- POST /v2/{kind} ----------------------------------------------------------------------

// submit answers POST /v2/{kind}: parse, submit through the submission command
// (projections.Submitter: admission, deduplication by content hash, load shedding, acceptance,
// the wait for the projections), and answer 202 with the job id and a Retry-After from the job's
// position, or the command's refusal (submitRefused).
func (s *Server) submit(kind domain.Kind) http.HandlerFunc {
	return s.submitParsed(kind, func(body []byte, cfg domain.ValidationConfig) (domain.Request, error) {
		return domain.ParseRequest(kind, body, cfg)
	})
}

// submitParsed is submit for a body that parse reads into a request of kind.
func (s *Server) submitParsed(kind domain.Kind, parse func([]byte, domain.ValidationConfig) (domain.Request, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rid := requestID(w)
		corr, issue := correlationID(r, rid)
		if issue != "" {
			writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, "invalid X-Correlation-ID header",
				[]domain.FieldIssue{{Field: "X-Correlation-ID", Issue: issue}})
			return
		}
		w.Header()["X-Correlation-Id"] = []string{corr}
		if !requireJSON(w, r) {
			return
		}
		body, ok := s.readBody(w, r)
		if !ok {
			return
		}
		req, err := parse(body, s.cfg.Validation)
		if err != nil {
			var ve *domain.ValidationError
			if errors.As(err, &ve) {
				writeError(w, r, http.StatusBadRequest, ve.Label, ve.Message, ve.Details)
				return
			}
			s.internalError(w, r, "parse request", err)
			return
		}
		rc := s.runtime()
		res, err := s.sub.Submit(r.Context(), projections.SubmitCommand{
			Request: req, Metadata: eventstore.Metadata{CorrelationID: corr, CausationID: rid}, ShedAt: rc.shedAt()})
		if err != nil {
			s.submitRefused(w, r, rc, kind, err)
			return
		}
		if res.Created {
			s.log.Info("job accepted", "request_id", rid, "job_id", res.JobID.String(), "kind", kind.String(), "correlation_id", corr)
		} else if s.log.Enabled(r.Context(), slog.LevelDebug) {
			s.log.Debug("duplicate submission", "request_id", rid, "job_id", res.JobID.String(), "kind", kind.String(), "correlation_id", corr)
		}
		if res.Lag != nil {
			s.log.Warn("projections did not show the accepted job in time; answering anyway",
				"request_id", rid, "job_id", res.JobID.String(), "correlation_id", corr, "position", uint64(res.Position), "err", res.Lag)
		}
		var est retryafter.Estimate
		st := kind.InitialStatus()
		if v, ok := s.set.View(res.JobID); ok {
			est, _ = s.viewEstimate(rc, &v, s.now())
			st = v.Job.Status
		} else {
			// Not visible yet: the position it takes is the end of its first queue.
			q := s.set.QueueLengths()
			loc := projections.Location{Queue: projections.QueueOf(kind)}
			if loc.Queue == projections.ReadinessQueue {
				loc.Ahead, loc.Length = q.Readiness, q.Readiness+1
			} else {
				loc.Ahead, loc.Length = q.Tx, q.Tx+1
			}
			est = s.estimate(rc, kind, st, loc, q.Tx, 0)
		}
		s.metrics.observeRetryAfter(kind, st, est.Seconds)
		setRetryAfter(w, est.Seconds)
		if res.Created {
			s.hints.given(res.JobID, kind, est.Seconds)
		}

		bp := bufPool.Get().(*[]byte)
		b := append((*bp)[:0], `{"status":"queued","requestId":"`...)
		b = append(b, rid...)
		b = append(b, `","result":{"jobId":"`...)
		b = appendJobID(b, res.JobID)
		b = append(b, "\"}}\n"...)
		writeRaw(w, http.StatusAccepted, b)
		*bp = b
		bufPool.Put(bp)
	}
}

// submitRefused answers a submission the submission command refused: an admission check (400
// validation_failed, or 503 gateway_not_reachable with a Retry-After when the chain could not be
// asked), a content that failed too often (400 request_error, or 429 rate_limited while its next
// job waits its backoff), a full queue (429 rate_limited, with the Retry-After of the position
// the job would have taken), or an error that is no refusal (500).
func (s *Server) submitRefused(w http.ResponseWriter, r *http.Request, rc *runtimeConfig, kind domain.Kind, err error) {
	var adm *projections.AdmissionError
	var bo *projections.BackoffError
	var shed *projections.ShedError
	switch {
	case errors.As(err, &adm):
		s.metrics.observeRefusal(kind.String(), adm.Check)
		code := http.StatusBadRequest
		if adm.RetryAfter > 0 {
			code = http.StatusServiceUnavailable
			setRetryAfter(w, int(adm.RetryAfter/time.Second))
		}
		writeError(w, r, code, adm.Label, adm.Message, adm.Details)
	case errors.Is(err, projections.ErrGenerationsExhausted):
		writeError(w, r, http.StatusBadRequest, labelRequest, fmt.Sprintf(
			"this exact request has failed or timed out %d times; it is not accepted again (sign a new request: another validity window makes another request)", projections.MaxGenerations), nil)
	case errors.As(err, &bo):
		sec := int(math.Ceil(bo.Wait.Seconds()))
		s.tooMany(w, r, kind, sec, int(math.Ceil(float64(bo.Wait)/float64(time.Millisecond))), fmt.Sprintf(
			"this exact request failed or timed out %d times after its transaction was sent; its next attempt is accepted in %d s (each such failure doubles the wait, up to %s)",
			bo.Failed, sec, projections.MaxContentBackoff))
	case errors.As(err, &shed):
		loc := projections.Location{Queue: shed.Queue, Ahead: shed.Length, Length: shed.Length + 1}
		sec := s.estimate(rc, kind, kind.InitialStatus(), loc, shed.Queues.Tx, 0).Seconds
		s.tooMany(w, r, kind, sec, sec*1000, fmt.Sprintf("the %s queue is full (%d jobs waiting); retry after %d s", shed.Queue, shed.Length, sec))
	default:
		s.internalError(w, r, "admit submission", err)
	}
}

// tooMany answers 429 rate_limited with Retry-After sec, in the inbound limiter's shape, so
// clients handle both alike: retryAfterMs (ms, the exact wait, of which sec is the ceiling in
// seconds) beside the error.
func (s *Server) tooMany(w http.ResponseWriter, r *http.Request, kind domain.Kind, sec, ms int, message string) {
	s.metrics.observeRateLimited(kind, sec)
	setRetryAfter(w, sec)
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusTooManyRequests, ratelimit.DeniedBody{
		Status: statusFailed, RequestID: requestID(w), RetryAfterMs: ms,
		Error: ratelimit.DeniedError{Label: labelRateLimited, Message: message},
	})
}

// writeTimeout bounds the appends of one request.
const writeTimeout = 10 * time.Second

// correlationID is the X-Correlation-ID header when present (printable ASCII, at most 128
// characters), else the request id; issue says why a header present is refused.
func correlationID(r *http.Request, rid string) (id, issue string) {
	// The header's canonical key: Header.Values would canonicalize "X-Correlation-ID" (an
	// allocation) on every submission.
	vs := r.Header["X-Correlation-Id"]
	if len(vs) == 0 {
		return rid, ""
	}
	if len(vs) > 1 {
		return "", "must be given once"
	}
	v := vs[0]
	switch {
	case v == "":
		return "", "must not be empty"
	case len(v) > maxCorrelationID:
		return "", fmt.Sprintf("must be at most %d characters, got %d", maxCorrelationID, len(v))
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c > 0x7e {
			return "", fmt.Sprintf("must be printable ASCII, found byte 0x%02x at %d", c, i)
		}
	}
	return v, ""
}

// requireJSON answers 415 unsupported_media_type unless the body is declared application/json
// (parameters such as charset allowed). Browsers send text/plain, form and multipart bodies to
// any origin without asking first; a JSON body needs a CORS preflight, so requiring it keeps
// other web pages from making their visitors' browsers submit requests.
//
// The body must also come as it is: a Content-Encoding (gzip, say) other than identity is
// refused with 415 naming that header (RFC 9110: the server does not decode it), rather than
// read as malformed JSON.
func requireJSON(w http.ResponseWriter, r *http.Request) bool {
	for _, ce := range r.Header.Values("Content-Encoding") {
		for enc := range strings.SplitSeq(ce, ",") {
			if enc = strings.TrimSpace(enc); enc != "" && !strings.EqualFold(enc, "identity") {
				writeError(w, r, http.StatusUnsupportedMediaType, labelUnsupportedMediaType,
					fmt.Sprintf("the request body must not be encoded (got Content-Encoding: %s)", enc),
					[]domain.FieldIssue{{Field: "Content-Encoding", Issue: "must be absent or identity"}})
				return false
			}
		}
	}
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if err == nil && mt == "application/json" {
		// JSON is UTF-8 (RFC 8259); a body declared in another charset would be read as
		// something it is not.
		if cs, ok := params["charset"]; !ok || strings.EqualFold(cs, "utf-8") || strings.EqualFold(cs, "utf8") {
			return true
		}
		writeError(w, r, http.StatusUnsupportedMediaType, labelUnsupportedMediaType,
			fmt.Sprintf("the request body must be JSON in UTF-8 (got charset %q)", params["charset"]),
			[]domain.FieldIssue{{Field: "Content-Type", Issue: "charset must be utf-8 when given"}})
		return false
	}
	ct = cmp.Or(ct, "none")
	writeError(w, r, http.StatusUnsupportedMediaType, labelUnsupportedMediaType,
		fmt.Sprintf("the request body must be JSON with Content-Type: application/json (got %s)", ct),
		[]domain.FieldIssue{{Field: "Content-Type", Issue: "must be application/json"}})
	return false
}

// readBody reads a submission's body within MaxBodyBytes, answering 413 beyond it.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	limit := s.cfg.MaxBodyBytes
	tooLarge := func() ([]byte, bool) {
		writeError(w, r, http.StatusRequestEntityTooLarge, labelTooLarge,
			fmt.Sprintf("the request body exceeds %d bytes", limit), nil)
		return nil, false
	}
	if r.ContentLength > limit {
		return tooLarge()
	}
	size := int64(512)
	if r.ContentLength > 0 {
		size = r.ContentLength + 1
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge()
		}
		writeError(w, r, http.StatusBadRequest, domain.LabelMalformedJSON, "the request body could not be read: "+err.Error(), nil)
		return nil, false
	}
	return buf.Bytes(), true
}

// --- GET /v2/{kind}/{jobId} -----------------------------------------------------------------

// poll answers GET /v2/{kind}/{jobId} from the projections alone. Asked to wait (?wait=N or
// Prefer: wait=N, see longpoll.go), it holds a pending job's answer until the job's status
// changes or the wait ends, then answers as it would have without the wait at that moment.
func (s *Server) poll(kind domain.Kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, ok := pathJobID(w, r, "invalid job id")
		if !ok {
			return
		}
		wait, ok := s.askedWait(w, r)
		if !ok {
			return
		}
		if wait > 0 {
			untilDone, ok := askedUntil(w, r)
			if !ok {
				return
			}
			s.longPoll(w, r, kind, id, wait, untilDone)
			return
		}
		v, found := s.view(r.Context(), id)
		s.answerPoll(w, r, kind, id, &v, found)
	}
}

// view is job id's view. A job the projections do not show may have been accepted by another
// instance sharing the store (DESIGN section 11) an instant ago: the view is read again once the
// projections have reached the store's head as it is now, which holds every append acknowledged
// before this request came, waiting at most AcceptWait. With one instance the projections are at
// the head already and nothing waits.
func (s *Server) view(ctx context.Context, id domain.JobID) (projections.View, bool) {
	v, found := s.set.View(id)
	if found {
		return v, true
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.AcceptWait)
	defer cancel()
	head, err := s.store.Head(ctx)
	if err != nil {
		return v, false
	}
	if err := s.set.WaitFor(ctx, head); err != nil {
		s.log.Debug("projections did not reach the store's head in time for an unknown job", "job_id", id.String(), "head", uint64(head), "err", err)
	}
	return s.set.View(id) // again: the projections may have moved since the first look, waiting or not
}

// writePending answers 202 for a job still on its way, with Retry-After and where it is.
func (s *Server) writePending(w http.ResponseWriter, r *http.Request, v *projections.View) {
	rc := s.runtime()
	est, elapsed := s.viewEstimate(rc, v, s.now())
	s.metrics.observeRetryAfter(v.Job.Kind, v.Job.Status, est.Seconds)
	setRetryAfter(w, est.Seconds)

	bp := bufPool.Get().(*[]byte)
	b := append((*bp)[:0], `{"status":"queued","requestId":"`...)
	b = append(b, requestID(w)...)
	b = append(b, `","result":{"jobId":"`...)
	b = appendJobID(b, v.Job.ID)
	b = append(b, `","state":"`...)
	b = append(b, v.Job.Status.String()...)
	b = append(b, `","etaSeconds":`...)
	b = strconv.AppendInt(b, est.EtaSeconds, 10)
	b = append(b, `,"elapsedSeconds":`...)
	b = strconv.AppendInt(b, int64(elapsed/time.Second), 10)
	b = append(b, `,"retryAfterSeconds":`...)
	b = strconv.AppendInt(b, int64(est.Seconds), 10)
	if v.Location.Queue != projections.NotQueued {
		b = append(b, `,"queue":"`...)
		b = append(b, v.Location.Queue.String()...)
		b = append(b, `","queuePosition":`...)
		b = strconv.AppendInt(b, int64(v.Location.Ahead), 10)
		b = append(b, `,"queueLength":`...)
		b = strconv.AppendInt(b, int64(v.Location.Length), 10)
	}
	b = append(b, "}}\n"...)
	writeRaw(w, http.StatusAccepted, b)
	*bp = b
	bufPool.Put(bp)
}

// writeResult answers 200 with the kind's result in the public relayer's shape: the member of
// domain.Result's JSON for the kind ({"inputProof":{...}} gives {accepted, handles, signatures,
// extraData}), as the log holds it.
func (s *Server) writeResult(w http.ResponseWriter, r *http.Request, kind domain.Kind, j *projections.Job) {
	inner, ok := unwrapResult(j.Result, kind)
	if ok && kind == domain.InputProof {
		inner, ok = inputProofWire(inner)
	}
	if !ok {
		s.internalError(w, r, "read result", fmt.Errorf("job %s: result %.64q is not a %s result", j.ID, j.Result, kind))
		return
	}
	bp := bufPool.Get().(*[]byte)
	b := append((*bp)[:0], `{"status":"succeeded","requestId":"`...)
	b = append(b, requestID(w)...)
	b = append(b, `","result":`...)
	b = append(b, inner...)
	b = append(b, "}\n"...)
	writeRaw(w, http.StatusOK, b)
	*bp = b
	bufPool.Put(bp)
}

// inputProofWire returns an input proof's result with every signature 0x-prefixed, as the public
// SDK asserts (Bytes65Hex). Results recorded before the relayer wrote them so lack the prefix;
// those are rewritten here, the rest pass through untouched.
func inputProofWire(inner []byte) ([]byte, bool) {
	if bytes.Contains(inner, []byte(`"signatures":[]`)) || bytes.Contains(inner, []byte(`"signatures":["0x`)) {
		return inner, true
	}
	var res domain.InputProofResult
	if err := json.Unmarshal(inner, &res); err != nil {
		return nil, false
	}
	for i, sig := range res.Signatures {
		if !strings.HasPrefix(sig, "0x") {
			res.Signatures[i] = "0x" + sig
		}
	}
	out, err := json.Marshal(res)
	return out, err == nil
}

// unwrapResult returns the member of a domain.Result's JSON for kind.
func unwrapResult(raw json.RawMessage, kind domain.Kind) ([]byte, bool) {
	b := bytes.TrimSpace(raw)
	prefix := resultKeys[kind.Ordinal()]
	if len(b) > len(prefix)+1 && string(b[:len(prefix)]) == prefix && b[len(b)-1] == '}' {
		inner := bytes.TrimSpace(b[len(prefix) : len(b)-1])
		if len(inner) > 0 && inner[0] == '{' && json.Valid(inner) {
			return inner, true
		}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, false
	}
	inner, ok := m[prefix[2:len(prefix)-2]]
	if !ok || len(m) != 1 {
		return nil, false
	}
	return inner, true
}

// failureStatus maps a failed or timed-out job's label onto the public relayer's status codes.
// Labels it has no code of its own for are 500 internal_server_error, their own label kept in
// error.cause.
func failureStatus(label string) (code int, public string) {
	switch label {
	case domain.LabelNotAllowedOnHostACL:
		return http.StatusBadRequest, label
	case domain.LabelCancelled:
		return http.StatusConflict, label
	case domain.LabelHostACLFailed:
		return http.StatusInternalServerError, label
	case domain.LabelReadinessCheckTimedOut, domain.LabelResponseTimedOut, domain.LabelProtocolPaused, domain.LabelInsufficientBalance,
		domain.LabelGatewayNotReachable, domain.LabelSignerUnavailable:
		return http.StatusServiceUnavailable, label
	}
	return http.StatusInternalServerError, labelInternal
}

var failureMessages = map[string]string{
	domain.LabelNotAllowedOnHostACL:    "a handle is not allowed for decryption on the host chain's ACL",
	domain.LabelReadinessCheckFailed:   "the readiness check failed",
	domain.LabelReadinessCheckTimedOut: "the ciphertexts were not ready for decryption in time; submit the request again",
	domain.LabelResponseTimedOut:       "no response arrived in time; submit the request again",
	domain.LabelTransactionReverted:    "the gateway transaction reverted",
	domain.LabelTransactionFailed:      "the gateway transaction failed",
	domain.LabelTxInFlightTimedOut:     "the gateway transaction was not confirmed in time",
	domain.LabelProtocolPaused:         "the protocol is paused",
	domain.LabelInternalServerError:    "internal error",
	domain.LabelInsufficientBalance:    "the relayer cannot pay for the gateway transaction; contact the operator",
	domain.LabelGatewayNotReachable:    "the gateway chain could not be reached before the request's deadline; nothing was sent, submit the request again",
	domain.LabelCancelled:              "the relayer's operator cancelled the request; nothing was sent",
	domain.LabelSignerUnavailable:      "the relayer's signing key service could not sign before the request's deadline; nothing was sent, submit the request again",
	domain.LabelHostACLFailed:          "the host chain's ACL could not be asked about the request's handles; nothing was sent, submit the request again (contact the operator if it persists)",
}

// failedEnvelope is the envelope of a failed job: the error carries, besides the label, the
// job's own failure label in cause when the public label is the generic internal_server_error.
type failedEnvelope struct {
	Status    string    `json:"status"`
	RequestID string    `json:"requestId"`
	Error     failError `json:"error"`
}

type failError struct {
	ErrorBody
	// Cause is the job's own label (transaction_reverted, ...) where Label is
	// internal_server_error; absent otherwise.
	Cause string `json:"cause,omitempty"`
	JobID string `json:"jobId"`
}

// writeFailure answers a failed or timed-out job.
func (s *Server) writeFailure(w http.ResponseWriter, r *http.Request, j *projections.Job) {
	label := j.Label
	label = cmp.Or(label, labelInternal)
	code, public := failureStatus(label)
	msg := j.Message
	if msg == "" {
		msg = failureMessages[label]
		msg = cmp.Or(msg, "the request failed")
	}
	e := failError{ErrorBody: ErrorBody{Label: public, Message: msg}, JobID: j.ID.String()}
	if public != label {
		e.Cause = label
		e.Message = label + ": " + msg
	}
	writeJSON(w, code, failedEnvelope{Status: statusFailed, RequestID: requestID(w), Error: e})
}

// internalError logs err and answers 500.
func (s *Server) internalError(w http.ResponseWriter, r *http.Request, what string, err error) {
	if errors.Is(err, eventstore.ErrStorageFull) {
		s.storageFull(w, r, what, err)
		return
	}
	s.log.Error(what, "request_id", requestID(w), "method", r.Method, "path", r.URL.Path, "err", err)
	writeError(w, r, http.StatusInternalServerError, labelInternal, "internal error; the request id identifies it in the logs", nil)
}

// labelStorageFull: the event store refused a write because its disk is full. Nothing was
// recorded; the request may be sent again after Retry-After.
const labelStorageFull = "storage_full"

// storageFullRetryAfter is the Retry-After of a request refused because the store is full: the
// time an operator (or an archiver) needs to free space is not known, and a client that comes
// back too early costs one refused write.
const storageFullRetryAfter = 30

// storageFull answers a request whose write the full store refused: 503 with a Retry-After, and
// nothing recorded. Reads, streams and the chain side go on; the next write that finds space
// succeeds. The condition is logged once every storageFullLogEvery, not once per request.
func (s *Server) storageFull(w http.ResponseWriter, r *http.Request, what string, err error) {
	s.metrics.observeStorageFull()
	now := s.now().UnixNano()
	if last := s.fullLogged.Load(); now-last >= int64(storageFullLogEvery) && s.fullLogged.CompareAndSwap(last, now) {
		s.log.Warn("the event store is full: writes are refused with 503 storage_full until space returns",
			"what", what, "request_id", requestID(w), "err", err)
	}
	setRetryAfter(w, storageFullRetryAfter)
	w.Header().Set("Cache-Control", "no-store")
	writeError(w, r, http.StatusServiceUnavailable, labelStorageFull,
		fmt.Sprintf("the relayer's storage is full, so nothing was recorded; retry after %d s", storageFullRetryAfter), nil)
}

// storageFullLogEvery is how often a full store is logged while requests keep finding it full.
const storageFullLogEvery = 10 * time.Second

// appendJobID appends the canonical text of id without an intermediate string.
func appendJobID(b []byte, id domain.JobID) []byte {
	const hexdigits = "0123456789abcdef"
	for i, x := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexdigits[x>>4], hexdigits[x&0xf])
	}
	return b
}

// notFoundJob is the message of a 404 for job id: msg, or, for a job the archiver retired, that
// it was archived (the reference answers 404 not_found for a job its retention deleted; here its
// history is still in the archive: relayer archive export --job).
func (s *Server) notFoundJob(msg string, id domain.JobID) string {
	if s.set.Retired(id) {
		return fmt.Sprintf("job %s ended longer ago than its retention window and was archived: the live store no longer holds it (its history: relayer archive export --job %s)", id, id)
	}
	return msg
}
