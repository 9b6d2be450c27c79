package storetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"relayer/eventstore"
)

// The environment of a child process the suite starts.
const (
	envHelper   = "EVENTSTORE_STORETEST_HELPER"   // which helper to run
	envLocation = "EVENTSTORE_STORETEST_LOCATION" // the store location, from Opener.New
)

const helperAppendUntilKilled = "append-until-killed"

// Sizes of the crash test: the child's appending goroutines, the acknowledgements after which
// the parent kills it, and how long the child may live if nobody kills it.
const (
	crashWriters  = 16
	crashAcks     = 500
	childLifetime = 2 * time.Minute
)

func durabilityCases() []testCase {
	return []testCase{
		{name: "acknowledged appends survive the appending process being killed", run: testKilledWriter, serial: true},
	}
}

// HelperProcess runs the child side of the suite's cross-process cases when the suite started
// this process for that, and returns at once otherwise. A backend that promises
// Features.CrossProcessDurability must call it first thing in its TestMain (the case of
// Features.SharedLocation that runs several processes needs it too):
//
//	func TestMain(m *testing.M) {
//		storetest.HelperProcess(opener)
//		os.Exit(m.Run())
//	}
//
// In a child it never returns: it exits the process.
func HelperProcess(open Opener) {
	switch os.Getenv(envHelper) {
	case "":
		return
	case helperAppendUntilKilled:
		if err := appendUntilKilled(open, os.Getenv(envLocation)); err != nil {
			fmt.Fprintf(os.Stderr, "storetest helper: %v\n", err)
			os.Exit(1)
		}
		os.Exit(0)
	case helperAppendConcurrently:
		if err := appendConcurrently(open, os.Getenv(envLocation), os.Getenv(envProcess)); err != nil {
			fmt.Fprintf(os.Stderr, "storetest helper: %v\n", err)
			os.Exit(1)
		}
		os.Exit(0)
	default:
		fmt.Fprintf(os.Stderr, "storetest helper: unknown helper %q\n", os.Getenv(envHelper))
		os.Exit(2)
	}
}

// crashStream names the stream of one of the child's writers.
func crashStream(writer int) string { return fmt.Sprintf("durable-%02d", writer) }

// crashData is the data of the event at version v of stream, so that the parent can check every
// event it finds without being told its data.
func crashData(stream string, v eventstore.Version) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"stream":%q,"version":%d,"pad":"%s"}`, stream, v, strings.Repeat("x", int(v%7)*10)))
}

// appendUntilKilled is the child: crashWriters goroutines append to their own streams, one to
// three events at a time, and print one line per acknowledged append,
//
//	ack STREAM FIRST-VERSION LAST-VERSION LAST-POSITION
//
// with a single write each, straight to stdout (unbuffered), only after Append returned.
func appendUntilKilled(open Opener, location string) error {
	if location == "" {
		return errors.New("no store location in " + envLocation)
	}
	st, err := open.Open(location)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), childLifetime)
	defer cancel()
	// The parent kills the child: an append that fails once ctx ended, or a line the parent is
	// no longer there to read, only ends its writer.
	return ackAppends(ctx, st, crashWriters, crashStream, true, func(g, k int, v eventstore.Version) []eventstore.Event {
		if ctx.Err() != nil {
			return nil
		}
		stream := crashStream(g)
		evs := make([]eventstore.Event, 1+k%3)
		for i := range evs {
			evs[i] = eventstore.Event{Type: "durable", SchemaVersion: 1, Data: crashData(stream, v+1+eventstore.Version(i))}
		}
		return evs
	})
}

// ackAppends runs writers goroutines, each appending to its own stream(g) the events next gives
// for its append k at version v until next gives none, and printing an ackFormat line, with a
// single write straight to stdout, for each acknowledged append. A failed append or write ends
// the child with its error; when quiet, an append that fails once ctx ended, or a write that
// fails, only ends its writer. It closes st.
func ackAppends(ctx context.Context, st eventstore.Store, writers int, stream func(g int) string, quiet bool, next func(g, k int, v eventstore.Version) []eventstore.Event) error {
	var out sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for g := range writers {
		wg.Go(func() {
			stream := stream(g)
			v := eventstore.NoStream
			for k := 0; ; k++ {
				evs := next(g, k, v)
				if evs == nil {
					return
				}
				n := len(evs)
				pos, err := st.Append(ctx, stream, v, evs...)
				if err != nil {
					if !quiet || ctx.Err() == nil {
						errs <- fmt.Errorf("append to %s expecting %s: %w", stream, v, err)
					}
					return
				}
				line := fmt.Sprintf(ackFormat, stream, v+1, v+eventstore.Version(n), pos)
				v += eventstore.Version(n)
				out.Lock()
				_, err = os.Stdout.WriteString(line)
				out.Unlock()
				if err != nil {
					if !quiet {
						errs <- err
					}
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return errors.Join(<-errs, st.Close())
}

// ackFormat is the line a child prints for each acknowledged append: stream, first and last
// version, last position.
const ackFormat = "ack %s %d %d %d\n"

// ackLine is one parsed acknowledgement from the child.
type ackLine struct {
	stream      string
	first, last eventstore.Version
	pos         eventstore.Position
}

func parseAck(line string) (ackLine, error) {
	f := strings.Fields(line)
	if len(f) != 5 || f[0] != "ack" {
		return ackLine{}, fmt.Errorf("malformed acknowledgement %q", line)
	}
	first, err1 := strconv.ParseInt(f[2], 10, 64)
	last, err2 := strconv.ParseInt(f[3], 10, 64)
	pos, err3 := strconv.ParseUint(f[4], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return ackLine{}, fmt.Errorf("malformed acknowledgement %q: %w", line, err)
	}
	return ackLine{f[1], eventstore.Version(first), eventstore.Version(last), eventstore.Position(pos)}, nil
}

func testKilledWriter(t *testing.T, s *suite) {
	if !s.features.CrossProcessDurability {
		t.Skip("the backend does not promise CrossProcessDurability")
	}
	loc := s.open.New(t)

	// -test.run=^$ makes sure that a binary without HelperProcess in its TestMain runs
	// nothing, rather than this suite again.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envHelper+"="+helperAppendUntilKilled, envLocation+"="+loc)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start child: %v", err)
	}
	var once sync.Once
	kill := func() { once.Do(func() { _ = cmd.Process.Kill() }) } // SIGKILL on Unix
	defer kill()
	timer := time.AfterFunc(s.features.Timeout, kill)
	defer timer.Stop()

	var acks []ackLine
	r := bufio.NewReader(stdout)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			// EOF, with perhaps a partial line the kill cut short: that was no acknowledgement.
			if !errors.Is(err, io.EOF) {
				t.Errorf("read child output: %v", err)
			}
			break
		}
		a, err := parseAck(line)
		if err != nil {
			t.Fatal(err)
		}
		acks = append(acks, a)
		if len(acks) == crashAcks {
			kill()
			// Keep reading: lines already written were acknowledged too.
		}
	}
	waitErr := cmd.Wait()
	if len(acks) < crashAcks {
		t.Fatalf("the child acknowledged %d appends of %d before it ended (%v); is storetest.HelperProcess called in TestMain? stderr:\n%s",
			len(acks), crashAcks, waitErr, stderr.String())
	}
	if ps := cmd.ProcessState; ps == nil || ps.Success() {
		t.Fatalf("the child was to be killed, but it exited by itself (%v); stderr:\n%s", waitErr, stderr.String())
	}

	ctx := s.ctx(t)
	st := s.reopen(t, loc)
	lastAcked := map[string]eventstore.Version{}
	for _, a := range acks {
		lastAcked[a.stream] = max(lastAcked[a.stream], a.last)
	}
	stored := map[string][]eventstore.Record{}
	for g := range crashWriters {
		stream := crashStream(g)
		recs := collect(t, "read "+stream, st.ReadStream(ctx, stream, 0))
		checkStream(t, recs, stream, 0)
		for _, r := range recs {
			if !sameJSON(r.Data, crashData(stream, r.Version)) {
				t.Fatalf("invariant: an event survives a crash unchanged; %s@%d holds %s, want %s", stream, r.Version, r.Data, crashData(stream, r.Version))
			}
		}
		if want, ok := lastAcked[stream]; ok && eventstore.Version(len(recs))-1 < want {
			t.Fatalf("invariant: every acknowledged append survives a crash; %s was acknowledged up to version %d, the reopened store has %d events",
				stream, want, len(recs))
		}
		stored[stream] = recs
	}
	for _, a := range acks {
		r := stored[a.stream][a.last]
		if r.Position != a.pos {
			t.Fatalf("invariant: an acknowledged event keeps its position across a crash; %s@%d was acknowledged at %d, is at %d", a.stream, a.last, a.pos, r.Position)
		}
	}
	t.Logf("%d appends acknowledged before SIGKILL, all %d found after reopening", len(acks), len(acks))
}
