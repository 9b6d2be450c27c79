package storetest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"relayer/eventstore"
)

const (
	helperAppendConcurrently = "append-concurrently"
	envProcess               = "EVENTSTORE_STORETEST_PROCESS" // the child's number, for its stream names
)

// Sizes of the case of processes appending under a subscriber: the appending processes, the
// goroutines appending in each, the appends each goroutine makes (one to three events each),
// and the longest pause between two appends of a goroutine and inside an append transaction
// (Opener.OpenWithCommitDelay); each pause is random, up to that.
const (
	appendProcesses = 4
	processWriters  = 6
	processAppends  = 25
	processMaxPause = 2 * time.Millisecond
)

// processStream names the stream of one goroutine of one appending process.
func processStream(process, writer int) string {
	return fmt.Sprintf("process-%d-writer-%d", process, writer)
}

// processEvents is how many events a goroutine appends in its append k.
func processEvents(writer, k int) int { return 1 + (writer+k)%3 }

func randomPause() { time.Sleep(rand.N(processMaxPause)) }

// appendConcurrently is the child of testProcessesUnderSubscriber: processWriters goroutines
// append processAppends times each to their own streams, pausing at random between appends,
// through a store whose commits pause at random too when the backend offers the hook. It
// prints one line per acknowledged append,
//
//	ack STREAM FIRST-VERSION LAST-VERSION LAST-POSITION
//
// and exits once every append is acknowledged and the store is closed.
func appendConcurrently(open Opener, location, process string) error {
	if location == "" {
		return errors.New("no store location in " + envLocation)
	}
	p, err := strconv.Atoi(process)
	if err != nil {
		return fmt.Errorf("no process number in %s: %w", envProcess, err)
	}
	var st eventstore.Store
	if open.OpenWithCommitDelay != nil {
		st, err = open.OpenWithCommitDelay(location, randomPause)
	} else {
		st, err = open.Open(location)
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), childLifetime)
	defer cancel()
	return ackAppends(ctx, st, processWriters, func(g int) string { return processStream(p, g) }, false, func(g, k int, v eventstore.Version) []eventstore.Event {
		if k == processAppends {
			return nil
		}
		randomPause()
		return events("e", int(v)+1, processEvents(g, k))
	})
}

// followed is what followAll saw.
type followed struct {
	recs []eventstore.Record
	err  error
}

// followAll subscribes to st after a position and collects what the subscription yields until
// it has want records, it yields an error or ctx ends.
func followAll(ctx context.Context, st eventstore.Store, after eventstore.Position, want int) <-chan followed {
	n := 0
	return followUntil(ctx, st, after, func(eventstore.Record) bool { n++; return n == want })
}

// followUntil subscribes to st after a position and collects what the subscription yields until
// last says a record was the last one wanted, the subscription yields an error or ctx ends. It
// keeps up with the log as it grows: nothing it is given waits for a reader.
func followUntil(ctx context.Context, st eventstore.Store, after eventstore.Position, last func(eventstore.Record) bool) <-chan followed {
	got := make(chan followed, 1)
	go func() {
		var out followed
		defer func() { got <- out }()
		for r, err := range st.SubscribeAll(ctx, after) {
			if err != nil {
				out.err = err
				return
			}
			out.recs = append(out.recs, r)
			if last(r) {
				return
			}
		}
	}()
	return got
}

// testProcessesUnderSubscriber is the lost event of event stores whose positions are taken
// before commit (a sequence, an auto-increment): a transaction that takes a position, then
// commits after one that took a later position, shows its event below where a subscriber has
// already read. Several processes append at once, pausing at random between appends and,
// when the backend offers the hook, inside their append transactions, while a subscriber in
// this process follows from 0. The subscriber must see exactly what ReadAll shows afterwards:
// no event skipped, none repeated, in the same order.
func testProcessesUnderSubscriber(t *testing.T, s *suite) {
	if !s.features.SharedLocation {
		t.Skip("the backend does not promise SharedLocation")
	}
	if !s.features.CrossProcessDurability {
		t.Skip("the case starts processes through HelperProcess, which a backend wires when it promises CrossProcessDurability")
	}
	ctx := s.ctx(t)
	loc := s.open.New(t)
	st := s.reopen(t, loc)
	total := 0
	for g := range processWriters {
		for k := range processAppends {
			total += appendProcesses * processEvents(g, k)
		}
	}
	// The subscriber stops at an event this process appends once the others are done: if it
	// skipped some of theirs, it says so at once instead of waiting for them until the timeout.
	const endStream = "end-of-test"
	sub := followUntil(ctx, st, 0, func(r eventstore.Record) bool { return r.Stream == endStream })

	type child struct {
		cmd            *exec.Cmd
		stdout, stderr bytes.Buffer
	}
	children := make([]*child, appendProcesses)
	for p := range children {
		c := &child{cmd: exec.Command(os.Args[0], "-test.run=^$")}
		c.cmd.Env = append(os.Environ(), envHelper+"="+helperAppendConcurrently, envLocation+"="+loc, envProcess+"="+strconv.Itoa(p))
		c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
		if err := c.cmd.Start(); err != nil {
			t.Fatalf("start appending process %d: %v", p, err)
		}
		timer := time.AfterFunc(s.features.Timeout, func() { _ = c.cmd.Process.Kill() })
		defer timer.Stop()
		children[p] = c
	}
	var acks []ackLine
	for p, c := range children {
		if err := c.cmd.Wait(); err != nil {
			t.Fatalf("appending process %d failed (%v); is storetest.HelperProcess called in TestMain? stderr:\n%s", p, err, c.stderr.String())
		}
		lines := bufio.NewScanner(&c.stdout)
		for lines.Scan() {
			a, err := parseAck(lines.Text() + "\n")
			if err != nil {
				t.Fatal(err)
			}
			acks = append(acks, a)
		}
	}
	if want := appendProcesses * processWriters * processAppends; len(acks) != want {
		t.Fatalf("the appending processes acknowledged %d appends, want %d", len(acks), want)
	}

	mustAppend(t, ctx, st, endStream, eventstore.NoStream, event("end", 0))
	total++

	res := <-sub
	all := collect(t, "read all", st.ReadAll(ctx, 0))
	if res.err != nil {
		t.Fatalf("invariant: a subscriber sees every event that processes appending at once commit; it saw %d of %d, then %v", len(res.recs), total, res.err)
	}
	seen := map[eventstore.Position]int{}
	for _, r := range res.recs {
		seen[r.Position]++
	}
	var skipped []eventstore.Position
	for _, r := range all {
		if seen[r.Position] == 0 {
			skipped = append(skipped, r.Position)
		}
	}
	if len(skipped) > 0 {
		t.Fatalf("invariant: a subscriber never skips an event, however late its transaction commits; it skipped %d of %d, at positions %v",
			len(skipped), total, skipped[:min(len(skipped), 20)])
	}
	checkSubscription(t, res.recs, total)
	byPos := map[eventstore.Position]eventstore.Record{}
	for _, r := range res.recs {
		byPos[r.Position] = r
	}
	for _, a := range acks {
		if r, ok := byPos[a.pos]; !ok || r.Stream != a.stream || r.Version != a.last {
			t.Fatalf("invariant: the subscriber sees each acknowledged event at the position its append returned; %s@%d at %d, the subscriber has %s@%d there",
				a.stream, a.last, a.pos, r.Stream, r.Version)
		}
	}
	if len(all) != len(res.recs) {
		t.Fatalf("invariant: a subscription yields what ReadAll yields; %d against %d", len(res.recs), len(all))
	}
	for i := range all {
		if a, r := all[i], res.recs[i]; a.Position != r.Position || a.Stream != r.Stream || a.Version != r.Version {
			t.Fatalf("invariant: a subscription yields what ReadAll yields, in the same order; record %d is %s@%d at %d in the subscription, %s@%d at %d in ReadAll",
				i, r.Stream, r.Version, r.Position, a.Stream, a.Version, a.Position)
		}
	}
	pauses := "no pauses inside the transactions (the backend offers no hook)"
	if s.open.OpenWithCommitDelay != nil {
		pauses = "random pauses inside the transactions"
	}
	t.Logf("%d processes appended %d events in %d appends, with %s; the subscriber saw each once, in ReadAll's order",
		appendProcesses, total-1, len(acks), pauses)
}
