package api

import (
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"time"
)

// guardedWriter is the ResponseWriter the recoverer hands down. It remembers whether the response
// has started (a panic after that cannot become a 500), and when a handler starts a stream
// (Content-Type text/event-stream) it lifts the connection's read and write deadlines: the
// server's WriteTimeout bounds ordinary responses, and a stream would otherwise be cut after it.
// (The read deadline no longer matters once a request has been read: net/http clears it.)
type guardedWriter struct {
	http.ResponseWriter
	started bool
}

func (g *guardedWriter) WriteHeader(code int) {
	if !g.started {
		g.started = true
		if code == http.StatusOK && isStream(g.Header().Get("Content-Type")) {
			rc := http.NewResponseController(g.ResponseWriter)
			_ = rc.SetWriteDeadline(time.Time{})
			_ = rc.SetReadDeadline(time.Time{})
		}
	}
	g.ResponseWriter.WriteHeader(code)
}

func (g *guardedWriter) Write(b []byte) (int, error) {
	if !g.started {
		g.WriteHeader(http.StatusOK)
	}
	return g.ResponseWriter.Write(b)
}

// Flush lets handlers that assert http.Flusher flush through the wrapper.
func (g *guardedWriter) Flush() {
	if !g.started {
		g.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(g.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (g *guardedWriter) Unwrap() http.ResponseWriter { return g.ResponseWriter }

func isStream(contentType string) bool {
	return strings.HasPrefix(strings.TrimSpace(strings.ToLower(contentType)), "text/event-stream")
}

// recoverer turns a handler's panic into 500 internal_server_error and logs it with its stack;
// the server goes on. A panic after the response started cannot be answered any more: the
// connection is aborted instead (http.ErrAbortHandler), so the client sees a cut response
// rather than a wrong one. It passes the request on unchanged, so that middleware outside it sees
// the pattern the mux matched (r.Pattern).
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g := callOf(w).guarded(w)
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler { //nolint:errorlint // the sentinel is compared as net/http does
				panic(v)
			}
			s.log.Error("panic serving request",
				"request_id", requestID(w), "method", r.Method, "path", r.URL.Path,
				"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if g.started {
				panic(http.ErrAbortHandler)
			}
			writeError(g, r, http.StatusInternalServerError, labelInternal,
				"internal error; the request id identifies it in the logs", nil)
		}()
		next.ServeHTTP(g, r)
	})
}
