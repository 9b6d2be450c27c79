package gateway

import (
	"context"
	"errors"
	"log/slog"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/rpc"
)

type rpcAnswer struct{}

func (rpcAnswer) Error() string  { return "execution reverted" }
func (rpcAnswer) ErrorCode() int { return 3 }

func TestTheTrackerCountsOnlyFailuresToReachTheNode(t *testing.T) {
	t.Parallel()
	refused := syscall.ECONNREFUSED
	timeout := &CallTimeoutError{After: time.Second, Err: context.DeadlineExceeded}
	for _, tc := range []struct {
		name     string
		outcomes []error
		decisive bool
		down     bool
	}{
		{"one refusal is not an outage", []error{refused}, false, false},
		{"two refusals in a row are", []error{refused, refused}, false, true},
		{"a success between two refusals resets the count", []error{refused, nil, refused}, false, false},
		{"a revert is an answer", []error{refused, rpcAnswer{}, refused}, false, false},
		{"not found is an answer", []error{refused, ethereum.NotFound, refused}, false, false},
		{"a 429 is an answer", []error{refused, rpc.HTTPError{StatusCode: 429}, refused}, false, false},
		{"a 502 is not", []error{rpc.HTTPError{StatusCode: 502}, refused}, false, true},
		{"one call timeout is not an outage", []error{timeout}, false, false},
		{"one probe timeout is", []error{timeout}, true, true},
	} {
		tr := newTracker(slog.New(slog.DiscardHandler))
		for _, err := range tc.outcomes {
			tr.observe(time.Now(), err, tc.decisive)
		}
		if h := tr.snapshot(); h.Reachable == tc.down {
			t.Errorf("%s: reachable %v, want %v", tc.name, h.Reachable, !tc.down)
		}
	}
}

func TestAnOutageStartsAtItsFirstFailureAndEndsAtTheNextAnswerOnceEach(t *testing.T) {
	t.Parallel()
	tr := newTracker(slog.New(slog.DiscardHandler))
	var got []OutageChange
	cancel := tr.subscribe(func(c OutageChange) { got = append(got, c) })
	defer cancel()
	sent := time.Now().Add(-2 * time.Second)
	tr.observe(sent, &CallTimeoutError{After: 2 * time.Second, Err: context.DeadlineExceeded}, true)
	tr.observe(time.Now(), syscall.ECONNREFUSED, false) // still down: nothing new
	tr.observe(time.Now(), nil, false)
	tr.observe(time.Now(), nil, false)
	if len(got) != 2 || !got[0].Down || !got[0].At.Equal(sent) || !got[0].Since.Equal(sent) ||
		got[1].Down || !got[1].Since.Equal(sent) || got[1].Duration() < 2*time.Second {
		t.Fatalf("changes %+v; want a start at the unanswered call's sending, then one end", got)
	}
	if h := tr.snapshot(); !h.Reachable || !h.Since.IsZero() || h.Outages != 1 || h.LastSuccess.Before(got[1].At) {
		t.Fatalf("health after the outage %+v", h)
	}
}

func TestAReceiptWaitEndsAtTheNextHeadOrAtItsLongestWait(t *testing.T) {
	t.Parallel()
	tr := newTracker(slog.New(slog.DiscardHandler))
	tr.sawHead(10)
	ctx := t.Context()

	start := time.Now()
	go func() {
		time.Sleep(200 * time.Millisecond)
		tr.sawHead(11)
	}()
	if err := tr.waitHead(ctx, 10, 10*time.Millisecond, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 150*time.Millisecond || took > 5*time.Second {
		t.Fatalf("waited %v for a head that came after 200ms", took)
	}

	start = time.Now()
	if err := tr.waitHead(ctx, 11, 10*time.Millisecond, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 250*time.Millisecond {
		t.Fatalf("without a new head the wait ended after %v, before its longest wait of 300ms", took)
	}

	// A head already past the one polled at: only the shortest wait.
	start = time.Now()
	if err := tr.waitHead(ctx, 5, 10*time.Millisecond, 10*time.Second); err != nil || time.Since(start) > 2*time.Second {
		t.Fatalf("a head already past: %v after %v", err, time.Since(start))
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := tr.waitHead(cctx, 11, 0, time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("an ended context: %v", err)
	}
}

// A probe that times out while other calls get answers says the node is slow, not away: it
// counts as one failure, not as an outage on its own.
func TestAProbeTimeoutWhileOtherCallsAreAnsweredIsNoOutage(t *testing.T) {
	t.Parallel()
	timeout := &CallTimeoutError{After: 2 * time.Second, Err: context.DeadlineExceeded}
	tr := newTracker(slog.New(slog.DiscardHandler))
	sent := time.Now().Add(-2 * time.Second)
	tr.observe(time.Now(), nil, false) // answered after the probe was sent
	tr.observe(sent, timeout, true)
	if h := tr.snapshot(); !h.Reachable {
		t.Fatal("a slow probe among answered calls started an outage")
	}
	// A second failure in a row is an outage as usual.
	tr.observe(time.Now(), syscall.ECONNREFUSED, false)
	if h := tr.snapshot(); h.Reachable {
		t.Fatal("a probe timeout and a refusal in a row are not an outage")
	}
	// With no answer since it was sent, one probe timeout is enough.
	tr = newTracker(slog.New(slog.DiscardHandler))
	tr.observe(time.Now(), nil, false)
	time.Sleep(10 * time.Millisecond)
	tr.observe(time.Now(), timeout, true) // sent after the last answer
	if h := tr.snapshot(); h.Reachable {
		t.Fatal("an unanswered probe with nothing answered meanwhile started no outage")
	}
}
