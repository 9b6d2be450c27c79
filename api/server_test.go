package api

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"relayer/domain"
)

func TestAPanicInAHandlerBecomes500AndTheServerGoesOn(t *testing.T) {
	env := startJT(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/boom", func(http.ResponseWriter, *http.Request) { panic("kaboom") })
	mux.HandleFunc("/late", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("partial"))
		panic("after the response started")
	})
	ts := httptest.NewServer(withRequestID(env.srv.recoverer(mux)))
	defer ts.Close()
	res := jtDo(t, http.DefaultClient, ts.URL, "GET", "/boom", nil)
	res.want(t, http.StatusInternalServerError, labelInternal)
	if !strings.Contains(env.logs.String(), "kaboom") || !strings.Contains(env.logs.String(), "request_id="+res.Env.RequestID) {
		t.Fatalf("the panic is not logged with its request id:\n%s", env.logs.String())
	}
	// A panic after the response started aborts the connection instead of a wrong answer.
	if r, err := http.Get(ts.URL + "/late"); err == nil {
		_, err = io.ReadAll(r.Body)
		r.Body.Close()
		if err == nil {
			t.Fatal("a response cut by a panic read as complete")
		}
	}
	// The server goes on.
	jtDo(t, http.DefaultClient, ts.URL, "GET", "/boom", nil).want(t, http.StatusInternalServerError, labelInternal)
	env.do("GET", "/v2/input-proof/"+domain.NewJobID().String(), nil).want(t, http.StatusNotFound, labelNotFound)
}

func TestAStreamOutlivesTheServersReadAndWriteTimeouts(t *testing.T) {
	env := startJT(t, func(c *Config) {
		c.HTTP.ReadTimeout = 150 * time.Millisecond
		c.HTTP.WriteTimeout = 150 * time.Millisecond
	})
	mux := http.NewServeMux()
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for i := range 6 {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			fmt.Fprintf(w, "data: %d\n\n", i)
			w.(http.Flusher).Flush()
		}
	})
	srv := env.srv.HTTPServer()
	srv.Handler = env.srv.recoverer(mux)
	ln := jtListen(t)
	go srv.Serve(ln)
	defer srv.Close()
	res, err := http.Get("http://" + ln.Addr().String() + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	n := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") {
			n++
		}
	}
	if n != 6 {
		t.Fatalf("the stream delivered %d of 6 events in 600 ms under 150 ms timeouts (%v)", n, sc.Err())
	}
}

func TestServeAnswersUntilItsContextEndsThenShutsDownGracefully(t *testing.T) {
	env := startJT(t)
	s := serveLoopback(t, env.srv)
	base := s.base
	res := jtDo(t, http.DefaultClient, base, "POST", "/v2/input-proof", jtBody(domain.InputProof, 1))
	res.want(t, http.StatusAccepted, "")
	jtDo(t, http.DefaultClient, base, "GET", "/v2/input-proof/"+res.jobID(t), nil).want(t, http.StatusAccepted, "")
	s.stop()
	s.returned(t, "its context ended")
	if _, err := http.Get(base + "/v2/input-proof/" + res.jobID(t)); err == nil {
		t.Fatal("the server still answers after shutdown")
	}
}

func TestConfigValidateListsEveryProblemAtOnce(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Validation.HostChainIDs = nil
	cfg.MaxBodyBytes = 0
	cfg.AcceptWait = -time.Second
	cfg.QueueCapacity = 0
	cfg.ShedMargin = -1
	cfg.RetryAfter.InputProofTPS = 0
	cfg.RetryAfter.SafetyMargin = 3
	cfg.RateLimit.RollingWindowSeconds = 0
	cfg.HTTP.WriteTimeout = 0
	err := cfg.Validate()
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("Validate: %v", err)
	}
	want := []string{"host_chain_ids", "api.max_body_bytes", "api.accept_wait", "api.queue_capacity", "api.queue_shed_margin",
		"retry_after.input_proof_throttler_tps", "retry_after.retry_after_safety_margin", "rate_limit.rolling_window_seconds", "http.write_timeout"}
	got := map[string]bool{}
	for _, p := range ce.Problems {
		got[p.Field] = true
	}
	for _, f := range want {
		if !got[f] {
			t.Errorf("%s is not listed: %v", f, err)
		}
	}
	if DefaultConfig().Validate() != nil {
		t.Fatal("the default configuration is invalid")
	}
	if _, err := New(context.Background(), cfg, Deps{}); err == nil {
		t.Fatal("New took an invalid configuration")
	}
}

func TestEveryCallHasItsOwnRandomVersion4RequestIDEvenBelowOtherWrappers(t *testing.T) {
	type key struct{}
	seen := map[string]bool{}
	h := withRequestID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := requestID(w)
		u, err := uuid.Parse(id)
		if err != nil || u.Version() != 4 || u.Variant() != uuid.RFC4122 || u.String() != id || seen[id] {
			t.Fatalf("request id %q: not a new random version-4 UUID in canonical form (%v)", id, err)
		}
		seen[id] = true
		if r.Context().Value(key{}) != "outer" {
			t.Fatal("the request's context lost its values")
		}
		// Below the writers other middleware wraps around it (the API's own, and any that
		// unwraps as http.ResponseController expects), the id is the same.
		for _, wrapped := range []http.ResponseWriter{
			&guardedWriter{ResponseWriter: &statusRecorder{ResponseWriter: w}},
			unwrapping{unwrapping{w}},
		} {
			if got := requestID(wrapped); got != id {
				t.Fatalf("below %T the request id is %q, want %q", wrapped, got, id)
			}
		}
	}))
	// More ids than one block of random bytes holds, many times over.
	for range 50 * randBlockSize / 16 {
		r := httptest.NewRequest("GET", "/", nil)
		h.ServeHTTP(httptest.NewRecorder(), r.WithContext(context.WithValue(r.Context(), key{}, "outer")))
	}
	if got := requestID(httptest.NewRecorder()); got != "" {
		t.Errorf("a call outside withRequestID has the request id %q", got)
	}
	if got := requestID(unwrapping{httptest.NewRecorder()}); got != "" {
		t.Errorf("a call outside withRequestID, under a wrapper, has the request id %q", got)
	}
}

// unwrapping is a middleware's ResponseWriter wrapper that unwraps.
type unwrapping struct{ http.ResponseWriter }

func (u unwrapping) Unwrap() http.ResponseWriter { return u.ResponseWriter }
