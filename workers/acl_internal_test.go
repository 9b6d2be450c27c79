package workers

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// firstDenial returns what asking the questions one by one would: the denial of the first
// question answered no, or the error of a question before it. It asks at most aclParallel at
// once, and none after a group that holds a no or an error.
func TestFirstDenialAnswersAsAskingOneByOneWould(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 21))
	var widest int32
	for round := range 400 {
		n := rng.IntN(3 * aclParallel)
		answers := make([]bool, n)
		errs := make([]error, n)
		for i := range n {
			switch rng.IntN(10) {
			case 0:
				errs[i] = fmt.Errorf("question %d: node unreachable", i)
			case 1:
				answers[i] = false
			default:
				answers[i] = true
			}
		}
		var mu sync.Mutex
		asked := map[int]bool{}
		var running, most atomic.Int32
		qs := make([]aclQuestion, n)
		for i := range n {
			qs[i] = aclQuestion{denied: fmt.Sprintf("no to question %d", i), ask: func(context.Context) (bool, error) {
				now := running.Add(1)
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				time.Sleep(200 * time.Microsecond)
				mu.Lock()
				asked[i] = true
				mu.Unlock()
				running.Add(-1)
				return answers[i], errs[i]
			}}
		}
		// What asking one by one returns, and how far it gets.
		wantDenied, wantErr, stop := "", error(nil), n
		for i := range n {
			if errs[i] != nil {
				wantErr, stop = errs[i], i
				break
			}
			if !answers[i] {
				wantDenied, stop = qs[i].denied, i
				break
			}
		}
		denied, err := firstDenial(t.Context(), qs)
		if denied != wantDenied || !errors.Is(err, wantErr) || (err == nil) != (wantErr == nil) {
			t.Fatalf("round %d: firstDenial = %q, %v; one by one: %q, %v", round, denied, err, wantDenied, wantErr)
		}
		widest = max(widest, most.Load())
		if most.Load() > aclParallel {
			t.Fatalf("round %d: %d questions asked at once, at most %d allowed", round, most.Load(), aclParallel)
		}
		for i := range n {
			group := i / aclParallel
			if want := group <= stop/aclParallel; asked[i] != want {
				t.Fatalf("round %d: question %d asked %v; the first no or error is question %d, so want %v", round, i, asked[i], stop, want)
			}
		}
	}
	if widest < 2 {
		t.Fatalf("at most %d question asked at once in any round: the questions were not asked together", widest)
	}
}
