package projections

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore/sqlite"
)

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// registered is how many jobs the registry holds an entry for.
func registered(s *Set) int {
	s.watchers.mu.Lock()
	defer s.watchers.mu.Unlock()
	if n := int(s.watchers.jobs.Load()); n != len(s.watchers.m) {
		panic(fmt.Sprintf("the registry's count %d is not its size %d", n, len(s.watchers.m)))
	}
	return len(s.watchers.m)
}

func TestAWatchIsWokenByItsJobsNextStatusChangeAndByNothingElse(t *testing.T) {
	h := newHarness(t, Config{})
	a := h.accept(domain.PublicDecrypt, 0)
	b := h.accept(domain.PublicDecrypt, 0)
	ch, stop := h.s.Watch(a)
	defer stop()

	h.do(a, domain.StartReadiness{At: h.at(time.Second)}) // a moves between queues, its status stays
	if closed(ch) {
		t.Fatal("an event that changes no status woke the watcher")
	}
	h.toTx(b, 2*time.Second)
	if closed(ch) {
		t.Fatal("another job's status change woke the watcher")
	}
	h.do(a, domain.PassReadiness{At: h.at(3 * time.Second)})
	if !closed(ch) {
		t.Fatal("the job's status changed (queued to processing) and the watcher was not woken")
	}
	if got, _ := h.s.Job(a); got.Status != domain.Processing {
		t.Fatalf("status %s when woken, want processing", got.Status)
	}
	if registered(h.s) != 0 {
		t.Fatal("a fired job stays in the registry")
	}
}

func TestTheEndOfAJobWakesItsWatchers(t *testing.T) {
	h := newHarness(t, Config{})
	id := h.accept(domain.UserDecrypt, 0)
	ch, stop := h.s.Watch(id)
	defer stop()
	h.do(id, domain.TimeOutReadiness{At: h.at(time.Minute)})
	if !closed(ch) {
		t.Fatal("the job timed out and the watcher was not woken")
	}
}

func TestAWatchOfAJobNotAcceptedYetIsWokenByItsAcceptance(t *testing.T) {
	h := newHarness(t, Config{})
	id := domain.NewJobID()
	ch, stop := h.s.Watch(id)
	defer stop()
	req := domain.Request{PublicDecrypt: &domain.PublicDecryptRequest{CiphertextHandles: []string{"0x03"}, ExtraData: "0x00"}}
	h.accept(domain.PublicDecrypt, 0) // another job
	if closed(ch) {
		t.Fatal("another job's acceptance woke the watcher")
	}
	h.do(id, domain.Accept{At: h.at(0), JobID: id, Request: req, ContentHash: "ab"})
	if !closed(ch) {
		t.Fatal("the job's acceptance did not wake its watcher")
	}
}

func TestStopReleasesTheRegistrationOnceWhetherOrNotTheChannelClosed(t *testing.T) {
	h := newHarness(t, Config{})
	id := h.accept(domain.PublicDecrypt, 0)

	ch1, stop1 := h.s.Watch(id)
	ch2, stop2 := h.s.Watch(id)
	if ch1 != ch2 {
		t.Fatal("two watchers of one job got two channels")
	}
	if h.s.Watchers() != 2 || registered(h.s) != 1 {
		t.Fatalf("%d watchers of %d jobs, want 2 of 1", h.s.Watchers(), registered(h.s))
	}
	stop1()
	stop1() // a second call does nothing
	if h.s.Watchers() != 1 || registered(h.s) != 1 {
		t.Fatalf("after one stop: %d watchers of %d jobs, want 1 of 1", h.s.Watchers(), registered(h.s))
	}
	stop2()
	if h.s.Watchers() != 0 || registered(h.s) != 0 {
		t.Fatalf("after both stops: %d watchers of %d jobs, want none", h.s.Watchers(), registered(h.s))
	}
	if closed(ch1) {
		t.Fatal("stop closed the channel")
	}

	// Stopped after the change, and after a new watcher of the same job: the new one stays.
	old, stopOld := h.s.Watch(id)
	h.do(id, domain.PassReadiness{At: h.at(time.Second)})
	if !closed(old) {
		t.Fatal("not woken")
	}
	fresh, stopFresh := h.s.Watch(id)
	if closed(fresh) {
		t.Fatal("a watch registered after the change is closed already: it must wait for the next one")
	}
	stopOld()
	if h.s.Watchers() != 1 || registered(h.s) != 1 {
		t.Fatalf("stopping the fired watcher removed the new one: %d watchers of %d jobs", h.s.Watchers(), registered(h.s))
	}
	h.do(id, domain.SignTransaction{At: h.at(2 * time.Second), From: "0xa1", Nonce: 1, TxHash: "0x01", RawTx: "0x02"})
	if !closed(fresh) {
		t.Fatal("the new watcher was not woken by the next change")
	}
	stopFresh()
	if h.s.Watchers() != 0 || registered(h.s) != 0 {
		t.Fatalf("%d watchers of %d jobs left, want none", h.s.Watchers(), registered(h.s))
	}
}

// Watchers come and go while events are applied; run with -race. Every watcher registered before
// its job's change, and reading the job after registering, either sees the change or is woken.
func TestAWatcherRegisteredBeforeItsReadNeverMissesAChange(t *testing.T) {
	h := newHarness(t, Config{})
	const jobs = 200
	ids := make([]domain.JobID, jobs)
	for i := range ids {
		ids[i] = h.accept(domain.PublicDecrypt, 0)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for {
				select {
				case <-done:
					return
				default:
				}
				id := ids[r.IntN(jobs)]
				ch, stop := h.s.Watch(id)
				j, _ := h.s.Job(id)
				if j.Status == domain.Queued {
					select {
					case <-ch:
					case <-time.After(5 * time.Second):
						t.Errorf("job %s: a watcher that read it queued was not woken by its change", id)
					}
				}
				stop()
			}
		})
	}
	for i, id := range ids {
		h.do(id, domain.PassReadiness{At: h.at(time.Duration(i) * time.Millisecond)})
		if i%20 == 0 {
			time.Sleep(time.Millisecond) // let the watchers catch up with some of the jobs
		}
	}
	close(done)
	wg.Wait()
	if h.s.Watchers() != 0 || registered(h.s) != 0 {
		t.Fatalf("%d watchers of %d jobs left after every stop", h.s.Watchers(), registered(h.s))
	}
}

// BenchmarkApplyWatched is BenchmarkReplay's decode+apply with the registry in use: with nobody
// watching (the apply path's baseline), and with 10,000 watchers of jobs that are not in the log,
// so every status change looks its job up in the registry and finds nothing.
//
//	go test -run '^$' -bench ApplyWatched -count 6 ./projections/
func BenchmarkApplyWatched(b *testing.B) {
	path := replayLog(b)
	store, err := sqlite.Open(path, sqlite.Config{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	recs := readAll(b, store)
	store.Close()
	for _, watchers := range []int{0, 10_000} {
		b.Run(fmt.Sprintf("watchers=%d", watchers), func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				s, err := New(Config{})
				if err != nil {
					b.Fatal(err)
				}
				stops := make([]func(), watchers)
				for i := range stops {
					_, stops[i] = s.Watch(domain.NewJobID())
				}
				decodeApply(b, s, recs)
				for _, stop := range stops {
					stop()
				}
			}
			b.ReportMetric(float64(len(recs))*float64(b.N)/time.Since(start).Seconds(), "events/s")
		})
	}
}

// BenchmarkWatchMemory reports the registry's heap per watcher: 10,000 watchers of 10,000 jobs.
func BenchmarkWatchMemory(b *testing.B) {
	const n = 10_000
	ids := make([]domain.JobID, n)
	for i := range ids {
		ids[i] = domain.NewJobID()
	}
	stops := make([]func(), n)
	for b.Loop() {
		s, err := New(Config{})
		if err != nil {
			b.Fatal(err)
		}
		before := heapInUse()
		for i, id := range ids {
			_, stops[i] = s.Watch(id)
		}
		after := heapInUse()
		b.ReportMetric(float64(after-before)/n, "B/watcher")
		for _, stop := range stops {
			stop()
		}
		clear(stops)
		runtime.KeepAlive(s)
	}
}
