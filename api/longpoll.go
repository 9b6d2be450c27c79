package api

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"relayer/domain"
	"relayer/projections"
)

// Long polls of GET /v2/{kind}/{jobId} (DESIGN section 7). A client asks to wait with the query
// parameter wait=N or the header Prefer: wait=N (RFC 7240; the query wins when both are given).
// For a pending job the answer is held until the job's status changes (its end included) or the
// wait is over, and is then exactly what a GET without a wait answers at that moment; a job that
// has ended, an unknown job and a refused request are answered at once. The wait granted is
// capped (longPollCap) and said in the answer: Wait-Applied: N for the query, Preference-Applied:
// wait=N for the preference. A request without a wait is answered as before, byte for byte.
//
// A waiting request does no work: the projections wake it (projections.Set.Watch) when its job's
// status changes, so many waiters cost memory (their connections, mostly) and no CPU. While it
// waits it gives its inbound rate limiter slot back (ratelimit.Limiter.ReleaseSlot): waiting
// costs its client none of its concurrency limit, and the request counted once in the rolling
// window when it came, like any poll.

const (
	// maxLongPoll is the longest wait a request may ask for: a query wait beyond it is refused,
	// a preference beyond it is granted this much at most.
	maxLongPoll = 60 * time.Second
	// longPollMargin is kept between the longest wait granted and the HTTP server's write
	// timeout, which runs from the end of the request's headers and would cut the answer. (The
	// read timeout does not bound a GET's handler: net/http lifts the read deadline once the
	// request is read.)
	longPollMargin = 2 * time.Second

	waitParam = "wait"
	// untilParam chooses what ends a wait: "change" (the default: the job's next status change)
	// or "done" (the job's end: its answer exists).
	untilParam = "until"
	// Wait-Applied answers a query wait; Preference-Applied (RFC 7240) a Prefer header's.
	headerWaitApplied       = "Wait-Applied"
	headerPreferenceApplied = "Preference-Applied"
)

// longPollCap is the longest wait granted, in whole seconds: maxLongPoll, and longPollMargin short
// of the HTTP server's write timeout (HTTPConfig.WriteTimeout, as Server.HTTPServer sets it); 0
// when that is too short for any wait.
func (s *Server) longPollCap() time.Duration {
	c := maxLongPoll
	if t := s.cfg.HTTP.WriteTimeout; t > 0 {
		c = min(c, t-longPollMargin)
	}
	return max(c.Truncate(time.Second), 0)
}

// askedWait returns how long a GET waits for its job: 0 when it asks for no wait, else what it
// asks for capped by longPollCap, said in the header Wait-Applied (for the query parameter) or
// Preference-Applied (for the Prefer header). A query wait that is not a whole number of
// seconds from 0 to 60 is answered 400 validation_failed naming wait, and askedWait returns
// false. A Prefer header's wait that does not parse is ignored, as RFC 7240 has it for any
// malformed preference.
func (s *Server) askedWait(w http.ResponseWriter, r *http.Request) (time.Duration, bool) {
	if q := r.URL.RawQuery; q != "" {
		if raw, n := queryWait(q); n > 0 {
			secs, issue := parseQueryWait(raw, n)
			if issue != "" {
				writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, "invalid wait",
					[]domain.FieldIssue{{Field: waitParam, Issue: issue}})
				return 0, false
			}
			d := min(time.Duration(secs)*time.Second, s.longPollCap())
			w.Header()[headerWaitApplied] = []string{strconv.Itoa(int(d / time.Second))}
			return d, true
		}
	}
	if prefs := r.Header["Prefer"]; len(prefs) > 0 {
		if secs, ok := preferredWait(prefs); ok {
			c := s.longPollCap()
			d := c
			if secs < int64(c/time.Second) {
				d = time.Duration(secs) * time.Second
			}
			w.Header()[headerPreferenceApplied] = []string{"wait=" + strconv.Itoa(int(d/time.Second))}
			return d, true
		}
	}
	return 0, true
}

// queryWait returns the raw value of the query's wait parameter (the last one) and how many
// times it is given. Other parameters are not looked at, as before long polls: a query that
// net/url would not parse is no reason to refuse a poll that does not wait.
func queryWait(rawQuery string) (raw string, n int) { return queryParam(rawQuery, waitParam) }

// queryParam returns the raw value of the query's parameter name (the last one) and how many
// times it is given.
func queryParam(rawQuery, name string) (raw string, n int) {
	for rest := rawQuery; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		key, value, _ := strings.Cut(pair, "=")
		if key != name {
			if k, err := url.QueryUnescape(key); err != nil || k != name {
				continue
			}
		}
		raw, n = value, n+1
	}
	return raw, n
}

// askedUntil reads the query's until: false for "change" or none (a wait ends at the job's next
// status change), true for "done" (it ends when the job does). Anything else is answered 400
// validation_failed naming until, and ok is false.
func askedUntil(w http.ResponseWriter, r *http.Request) (done, ok bool) {
	raw, n := queryParam(r.URL.RawQuery, untilParam)
	if n == 0 {
		return false, true
	}
	v, err := url.QueryUnescape(raw)
	switch {
	case n == 1 && err == nil && v == "done":
		return true, true
	case n == 1 && err == nil && v == "change":
		return false, true
	}
	issue := `must be "change" (the job's next status change ends the wait, the default) or "done" (the job's end does)`
	if n > 1 {
		issue = "must be given once"
	}
	writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, "invalid until", []domain.FieldIssue{{Field: untilParam, Issue: issue}})
	return false, false
}

// parseQueryWait reads a query wait given n times: one whole number of seconds from 0 to 60.
func parseQueryWait(raw string, n int) (secs int, issue string) {
	const want = "must be a whole number of seconds from 0 to 60"
	if n > 1 {
		return 0, "must be given once"
	}
	v, err := url.QueryUnescape(raw)
	if err != nil || v == "" || len(v) > 8 {
		return 0, want
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, want
		}
	}
	secs, _ = strconv.Atoi(v) // at most 8 digits
	if secs > int(maxLongPoll/time.Second) {
		return 0, fmt.Sprintf("%s (the longest wait), got %d", want, secs)
	}
	return secs, ""
}

// preferredWait finds the wait preference among Prefer header values (RFC 7240 section 2: a
// comma-separated list of preferences, each a token with an optional "=" value, then
// ";"-separated parameters; names are case-insensitive; only the first occurrence of a
// preference counts). It returns its delta-seconds, saturated at math.MaxInt32, and false when
// there is none or the first is malformed.
func preferredWait(values []string) (int64, bool) {
	for _, v := range values {
		for v != "" {
			var elem string
			elem, v = cutUnquoted(v, ',')
			pref, _ := cutUnquoted(elem, ';') // the preference; its parameters mean nothing here
			name, value, hasValue := strings.Cut(pref, "=")
			if !strings.EqualFold(strings.TrimSpace(name), waitParam) {
				continue
			}
			if !hasValue {
				return 0, false
			}
			value = strings.TrimSpace(value)
			if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
				value = value[1 : len(value)-1] // a word may be a quoted-string
			}
			return deltaSeconds(value)
		}
	}
	return 0, false
}

// deltaSeconds parses delta-seconds (1*DIGIT), saturating at math.MaxInt32 as RFC 9111
// section 1.2.2 allows for values too large to hold.
func deltaSeconds(v string) (int64, bool) {
	if v == "" {
		return 0, false
	}
	var n int64
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n < math.MaxInt32 {
			n = n*10 + int64(c-'0')
		}
	}
	return min(n, math.MaxInt32), true
}

// cutUnquoted cuts s around the first sep outside a quoted-string (with its backslash escapes).
func cutUnquoted(s string, sep byte) (before, after string) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == sep:
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// longPoll answers a GET that asked to wait up to wait (> 0) for job id of kind.
// With untilDone it holds until the job ends instead (until=done): the client's next request is
// for a job that has ended, or the wait ran out.
func (s *Server) longPoll(w http.ResponseWriter, r *http.Request, kind domain.Kind, id domain.JobID, wait time.Duration, untilDone bool) {
	// Watch before reading: a change applied after the read wakes the wait.
	changed, stop := s.set.Watch(id)
	defer func() { stop() }()
	v, found := s.view(r.Context(), id)
	if !found || v.Job.Kind != kind || v.Job.Status.Terminal() {
		s.answerPoll(w, r, kind, id, &v, found)
		return
	}
	first := v.Job

	// Nothing to do until the job changes: the wait takes no slot of the client's. (r is the
	// request as the limiter passed it on: poll sits right under it, see limited.)
	if s.limiter != nil {
		s.limiter.ReleaseSlot(r)
	}
	began := time.Now()
	defer func() { s.noteWaited(w, time.Since(began)) }()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case <-changed:
		case <-timer.C:
			v, found = s.set.View(id)
			s.answerPoll(w, r, kind, id, &v, found)
			return
		case <-r.Context().Done():
			// The server is shutting down (Serve cancels every request's context): the answer
			// is due now. Or the client went away, and the answer goes nowhere. Either way the
			// deferred stop unregisters.
			v, found = s.set.View(id)
			s.answerPoll(w, r, kind, id, &v, found)
			return
		}
		stop()
		changed, stop = s.set.Watch(id)
		v, found = s.set.View(id)
		moved := !found || v.Job.Status != first.Status || !v.Job.Since().Equal(first.Since())
		if moved && (!untilDone || !found || v.Job.Status.Terminal()) {
			s.answerPoll(w, r, kind, id, &v, found)
			return
		}
		if moved {
			first = v.Job // until=done: a step on the way; wait for the next
			continue
		}
		// The change that woke the wait came before the first read, which showed it already:
		// wait for the next one.
	}
}

// answerPoll is the answer of a GET without a wait for job id of kind, from its view v (found:
// the projections hold the job).
func (s *Server) answerPoll(w http.ResponseWriter, r *http.Request, kind domain.Kind, id domain.JobID, v *projections.View, found bool) {
	if !found || v.Job.Kind != kind {
		writeError(w, r, http.StatusNotFound, labelNotFound, s.notFoundJob(fmt.Sprintf("no %s job %s", kind, id), id), nil)
		return
	}
	j := &v.Job
	switch {
	case j.Status == domain.Completed || (j.Status == domain.Failure && j.Label == domain.LabelProofRejected && j.Result != nil):
		s.writeResult(w, r, kind, j)
	case j.Status.Terminal():
		s.writeFailure(w, r, j)
	default:
		s.writePending(w, r, v)
	}
}
