package ratelimit

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestAHandlerThatReleasesItsSlotEarlyLetsItsClientsNextRequestIn(t *testing.T) {
	l := mustNew(t, cfgWith(1, 0, 10))
	released := make(chan bool, 2)
	proceed := make(chan struct{})
	h := l.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/wait" {
			released <- l.ReleaseSlot(r.WithContext(r.Context())) // a copy is not the request
			released <- l.ReleaseSlot(r)
			if l.ReleaseSlot(r) {
				t.Error("a second release gave back another slot")
			}
			<-proceed
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	done := make(chan int)
	go func() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/wait", nil))
		done <- w.Code
	}()
	if <-released {
		t.Fatal("a copy of the request released its slot")
	}
	if !<-released {
		t.Fatal("the request's slot was not found")
	}
	// The waiting request holds no slot: the client's only one is free.
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/now", nil))
	if w.Code != http.StatusNoContent {
		t.Fatalf("the client's next request got %d while the first waited without its slot", w.Code)
	}
	// Released early, then again as the handler returned: the one slot is free, no more.
	close(proceed)
	if code := <-done; code != http.StatusNoContent {
		t.Fatalf("the waiting request got %d", code)
	}
	key := l.ClientKey(httptest.NewRequest("GET", "/", nil))
	release, d := l.Acquire(key, ClassRead, t0)
	if !d.Allowed || d.Concurrency.InFlight != 1 {
		t.Fatalf("after both requests: allowed %v with %d in flight, want the one slot free", d.Allowed, d.Concurrency.InFlight)
	}
	if _, d := l.Acquire(key, ClassRead, t0); d.Allowed {
		t.Fatal("a second slot was given: the early release freed more than its own")
	}
	release()
}

func TestReleaseSlotOfARequestThatHoldsNoneReleasesNothing(t *testing.T) {
	l := mustNew(t, cfgWith(1, 0, 10))
	// Another request of the same client holds the slot (Acquire's, with no request).
	key := l.ClientKey(httptest.NewRequest("GET", "/", nil))
	release, d := l.Acquire(key, ClassRead, t0)
	if !d.Allowed {
		t.Fatal(d)
	}
	defer release()
	if l.ReleaseSlot(httptest.NewRequest("GET", "/", nil)) {
		t.Fatal("a request the limiter never let through released a slot")
	}
	if _, d := l.Acquire(key, ClassRead, t0); d.Allowed {
		t.Fatal("the slot held was freed by another request's release")
	}
	// Without a concurrency limit no slot is held.
	rolling := mustNew(t, cfgWith(0, 5, 10))
	h := rolling.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rolling.ReleaseSlot(r) {
			t.Error("released a slot under a limiter without a concurrency limit")
		}
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
}
