package gateway

import (
	"context"
	"log/slog"
	"syscall"
	"testing"
	"time"
)

// twoProviders is a pool of two providers without clients: its decisions, not its calls.
func twoProviders(w1, w2 int) (*pool, *provider, *provider) {
	a, b := &provider{endpoint: "https://a.example", weight: w1}, &provider{endpoint: "https://b.example", weight: w2}
	return newPool(slog.New(slog.DiscardHandler), DefaultMaxHeadLag, a, b), a, b
}

func TestPoolDecisions(t *testing.T) {
	t.Parallel()
	refused := syscall.ECONNREFUSED
	timeout := &CallTimeoutError{After: time.Second, Err: context.DeadlineExceeded}

	t.Run("reads are shared by weight among the healthy providers", func(t *testing.T) {
		pl, a, _ := twoProviders(3, 1)
		firstA := 0
		const draws = 4000
		for range draws {
			if pl.order()[0] == a {
				firstA++
			}
		}
		if share := float64(firstA) / draws; share < 0.70 || share > 0.80 {
			t.Errorf("the provider of weight 3 came first in %.1f%% of %d draws, want about 75%%", 100*share, draws)
		}
		if got := pl.order(); len(got) != 2 {
			t.Errorf("order %v: want both providers, the second as fail-over", got)
		}
	})

	t.Run("two failures in a row pause a provider, and a late answer to an older call does not resume it", func(t *testing.T) {
		pl, a, b := twoProviders(1, 1)
		pl.observe(a, time.Now(), refused, false)
		if !pl.healthy(a) {
			t.Fatal("one failure paused the provider")
		}
		if got := pl.order(); got[0] != b {
			t.Errorf("after a failure the other provider is not tried first: %v", got)
		}
		pl.observe(a, time.Now(), refused, false)
		if pl.healthy(a) || !a.paused {
			t.Fatal("two failures in a row did not pause the provider")
		}
		if got := pl.order(); len(got) != 1 || got[0] != b {
			t.Errorf("reads go to %v, want the healthy provider only", got)
		}
		if got := pl.healthyOnes(); len(got) != 1 || got[0] != b {
			t.Errorf("a transaction goes to %v, want the healthy provider only", got)
		}
		pl.observe(a, time.Now().Add(-3*time.Second), nil, false) // a slow call sent before the pause
		if pl.healthy(a) {
			t.Error("a call's answer resumed the paused provider: only its probe does")
		}
		pl.observe(a, time.Now(), nil, true)
		if !pl.healthy(a) {
			t.Error("the probe's answer did not resume the provider")
		}
	})

	t.Run("one probe without an answer pauses a provider, whose probe then backs off while the other serves", func(t *testing.T) {
		pl, a, b := twoProviders(1, 1)
		pl.observe(a, time.Now(), timeout, true)
		if pl.healthy(a) {
			t.Fatal("an unanswered probe did not pause the provider")
		}
		now := time.Now()
		if pl.probeDue(a, now) || !pl.probeDue(a, now.Add(pausedRetry.Nominal(1)+time.Millisecond)) {
			t.Error("the paused provider's probe is not held back by its backoff")
		}
		first := a.retryAt
		pl.observe(a, now, timeout, true)
		if !a.retryAt.After(first) {
			t.Error("a failed retry did not push the next one later")
		}
		// With no provider healthy, every one is probed each time.
		pl.observe(b, now, timeout, true)
		if !pl.probeDue(a, now) || !pl.probeDue(b, now) {
			t.Error("with no healthy provider, a paused one waits for its backoff")
		}
		if got := pl.order(); len(got) != 2 {
			t.Errorf("with no healthy provider reads try %v, want every one", got)
		}
		if pl.anyHealthyBut(nil) {
			t.Error("a provider is counted healthy while both are paused")
		}
	})

	t.Run("a provider more than max_head_lag blocks behind takes no reads until it catches up", func(t *testing.T) {
		pl, a, b := twoProviders(1, 1)
		pl.sawHead(a, 100)
		pl.sawHead(b, 100-DefaultMaxHeadLag)
		if !pl.healthy(b) {
			t.Fatalf("a provider %d blocks behind (the most allowed) is not healthy", DefaultMaxHeadLag)
		}
		pl.sawHead(a, 101)
		pl.sawHead(b, 100-DefaultMaxHeadLag)
		if pl.healthy(b) || b.lag() != DefaultMaxHeadLag+1 {
			t.Fatalf("a provider %d blocks behind: healthy %v, lag %d", DefaultMaxHeadLag+1, pl.healthy(b), b.lag())
		}
		if got := pl.order(); len(got) != 1 || got[0] != a {
			t.Errorf("reads go to %v, want the provider that is not behind", got)
		}
		pl.sawHead(b, 101)
		if !pl.healthy(b) || b.lag() != 0 {
			t.Errorf("caught up: healthy %v, lag %d", pl.healthy(b), b.lag())
		}
	})

	t.Run("a provider whose head is not known yet is not taken for one behind", func(t *testing.T) {
		pl, a, b := twoProviders(1, 1)
		pl.sawHead(a, 1000)
		if !pl.healthy(b) || b.lag() != 0 {
			t.Errorf("a provider that showed no head yet: healthy %v, lag %d", pl.healthy(b), b.lag())
		}
	})
}

// rpcRefusal is a node's JSON-RPC error answer.
type rpcRefusal struct{ msg string }

func (e rpcRefusal) Error() string  { return e.msg }
func (e rpcRefusal) ErrorCode() int { return -32000 }

func TestOfTheProvidersRefusalsOfOneTransactionTheOneThatSaysMostIsKept(t *testing.T) {
	t.Parallel()
	known, tooLow := rpcRefusal{"already known"}, rpcRefusal{"nonce too low: next nonce 8, tx nonce 7"}
	underpriced, refused := rpcRefusal{"replacement transaction underpriced"}, error(syscall.ECONNREFUSED)
	order := []error{known, tooLow, underpriced, refused}
	for i := range order {
		for j := i + 1; j < len(order); j++ {
			if a, b := sendRank(redactor{}, order[i]), sendRank(redactor{}, order[j]); a >= b {
				t.Errorf("%q ranks %d, %q ranks %d: want the first kept", order[i], a, order[j], b)
			}
		}
	}
}
