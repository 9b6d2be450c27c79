package rpcfault

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// rfc850 is the obsolete RFC 850 form of an HTTP-date. time.RFC850 would print the zone of the
// time ("UTC"), where HTTP wants the literal GMT.
const rfc850 = "Monday, 02-Jan-06 15:04:05 GMT"

// rateLimitQuota is the X-RateLimit-Limit XRateLimitReset states.
const rateLimitQuota = "100"

// codeLimitExceeded is EIP-1474's JSON-RPC "limit exceeded", the code providers use for rate
// limits.
const codeLimitExceeded = -32005

// call is what the proxy reads of one JSON-RPC call.
type call struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// parseCalls reads the calls of a JSON-RPC request or batch. A body that is neither has no calls.
func parseCalls(body []byte) (calls []call, batch bool) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if json.Unmarshal(trimmed, &calls) != nil {
			return nil, true
		}
		return calls, true
	}
	var c call
	if json.Unmarshal(trimmed, &c) != nil {
		return nil, false
	}
	return []call{c}, false
}

// answer writes the answer of a fault the proxy answers itself, without the node. now is when,
// for the waits that are dates.
func (pl plan) answer(w http.ResponseWriter, calls []call, batch bool, now time.Time) {
	h := w.Header()
	wait := ceilSecond(pl.wait)
	seconds := strconv.FormatInt(int64(wait/time.Second), 10)
	// The first whole second at least wait from now: an HTTP-date cannot say less, and a date
	// rounded down could be over before the client reads it.
	reset := ceilTime(now.UTC().Add(wait))
	status := http.StatusTooManyRequests
	switch pl.fault {
	case RetryAfterSeconds:
		h.Set("Retry-After", seconds)
	case RetryAfterIMFFixdate:
		h.Set("Retry-After", reset.Format(http.TimeFormat))
	case RetryAfterRFC850:
		h.Set("Retry-After", reset.Format(rfc850))
	case RetryAfterAsctime:
		h.Set("Retry-After", reset.Format(time.ANSIC))
	case XRateLimitReset:
		h.Set("X-RateLimit-Limit", rateLimitQuota)
		h.Set("X-RateLimit-Remaining", "0")
		h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	case RPCLimit429, RPCLimit200:
		if pl.fault == RPCLimit200 {
			status = http.StatusOK
		}
		h.Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(limitExceeded(calls, batch))
		return
	case BadGateway:
		status = http.StatusBadGateway
	case Unavailable:
		status = http.StatusServiceUnavailable
	case UnavailableRetryAfter:
		status = http.StatusServiceUnavailable
		h.Set("Retry-After", seconds)
	case GatewayTimeout:
		status = http.StatusGatewayTimeout
	}
	http.Error(w, http.StatusText(status), status)
}

// ceilTime rounds t up to a whole second.
func ceilTime(t time.Time) time.Time {
	if down := t.Truncate(time.Second); down.Before(t) {
		return down.Add(time.Second)
	}
	return t
}

// ceilSecond rounds d up to a whole number of seconds.
func ceilSecond(d time.Duration) time.Duration {
	if r := d % time.Second; r != 0 {
		d += time.Second - r
	}
	return d
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcError        `json:"error"`
}

// limitExceeded is a JSON-RPC "limit exceeded" error for each call of the request (a batch of
// them for a batch), with the call's id; a single error with a null id when the body had no
// calls.
func limitExceeded(calls []call, batch bool) []byte {
	one := func(id json.RawMessage) errorResponse {
		return errorResponse{JSONRPC: "2.0", ID: id,
			Error: rpcError{Code: codeLimitExceeded, Message: "limit exceeded"}}
	}
	var v any = one(nil)
	switch {
	case batch && len(calls) > 0:
		all := make([]errorResponse, len(calls))
		for i, c := range calls {
			all[i] = one(c.ID)
		}
		v = all
	case len(calls) == 1:
		v = one(calls[0].ID)
	}
	b, _ := json.Marshal(v) // cannot fail: the ids are valid JSON, read from the request
	return b
}
