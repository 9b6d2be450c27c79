package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"relayer/eventstore"
	"relayer/eventstore/postgres/pgtest"
	"relayer/eventstore/sqlite"
	"relayer/workers"
	"relayer/workers/lease"
)

// runCLI runs one command line and returns its output and exit code (0 on success).
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, &out, &errOut)
	if err != nil {
		code = 1
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
		}
		errOut.WriteString(err.Error())
	}
	return out.String(), errOut.String(), code
}

var jobInOutput = regexp.MustCompile(`--job ([0-9a-f-]{36})`)

// demoStore writes a small demo history and returns its data directory and first job id.
func demoStore(t *testing.T, jobs string) (dir, job string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "data")
	out, errOut, code := runCLI(t, "demo", "--data-dir", dir, "--jobs", jobs, "--workers", "8")
	if code != 0 {
		t.Fatalf("demo failed (%d): %s", code, errOut)
	}
	m := jobInOutput.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("demo output names no job:\n%s", out)
	}
	return dir, m[1]
}

func TestReplayPrintsAJobsTimelineFromItsFirstEventToItsTerminalOne(t *testing.T) {
	dir, job := demoStore(t, "40")
	out, errOut, code := runCLI(t, "replay", "--data-dir", dir, "--job", job)
	if code != 0 {
		t.Fatalf("replay failed (%d): %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "job "+job) {
		t.Fatalf("timeline does not start with the job: %q", lines[0])
	}
	if !strings.Contains(lines[1], "v0") || !strings.Contains(lines[1], "RequestAccepted") {
		t.Fatalf("first event line is not the acceptance: %q", lines[1])
	}
	last := lines[len(lines)-1]
	if !regexp.MustCompile(`-> (completed|failure|timed_out)`).MatchString(last) {
		t.Fatalf("the timeline does not end in a terminal status: %q", last)
	}
}

func TestReplayJSONGivesOneObjectPerEventInVersionOrder(t *testing.T) {
	dir, job := demoStore(t, "20")
	out, _, code := runCLI(t, "replay", "--data-dir", dir, "--job", job, "--json")
	if code != 0 {
		t.Fatal("replay --json failed")
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i, line := range lines {
		var rec jsonRecord
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %d is not JSON: %v", i, err)
		}
		if rec.Stream != "request-"+job || rec.Version != int64(i) || rec.Type == "" || len(rec.Data) == 0 || rec.Position == 0 {
			t.Fatalf("line %d = %+v", i, rec)
		}
	}
}

func TestReplayAllStreamsTheWholeLogInGlobalOrder(t *testing.T) {
	dir, _ := demoStore(t, "30")
	out, _, code := runCLI(t, "replay", "--data-dir", dir, "--all", "--json")
	if code != 0 {
		t.Fatal("replay --all failed")
	}
	var last uint64
	accepted := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var rec jsonRecord
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Position <= last {
			t.Fatalf("position %d after %d", rec.Position, last)
		}
		last = rec.Position
		if rec.Type == "RequestAccepted" {
			accepted++
		}
	}
	if accepted != 30 {
		t.Fatalf("the log holds %d accepted requests, want 30", accepted)
	}
}

func TestAMissingJobIsReportedWithExitCode1(t *testing.T) {
	dir, _ := demoStore(t, "5")
	_, errOut, code := runCLI(t, "replay", "--data-dir", dir, "--job", "0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11")
	if code != 1 || !strings.Contains(errOut, "job 0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11 not found") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}

func TestAMissingStoreIsReportedWithExitCode1AndCreatesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nothing-here")
	for _, args := range [][]string{
		{"replay", "--data-dir", dir, "--all"},
		{"replay", "--data-dir", dir, "--job", "0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11"},
		{"rebuild", "--data-dir", dir},
	} {
		_, errOut, code := runCLI(t, args...)
		if code != 1 || !strings.Contains(errOut, "no event store at") {
			t.Fatalf("%v: code %d, stderr %q", args, code, errOut)
		}
	}
	if _, _, code := runCLI(t, "replay", "--data-dir", dir, "--all"); code != 1 {
		t.Fatal("the failed replay created a store")
	}
}

func TestUsageMistakesExitWith2(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"replay"},
		{"replay", "--all", "--job", "0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11"},
		{"replay", "--job", "not-a-uuid"},
		{"demo", "--jobs", "0"},
		{"rebuild", "extra"},
	} {
		if _, errOut, code := runCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errOut)
		}
	}
}

func TestRebuildReportsEventsJobsAndTime(t *testing.T) {
	dir, _ := demoStore(t, "50")
	out, errOut, code := runCLI(t, "rebuild", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("rebuild failed (%d): %s", code, errOut)
	}
	m := regexp.MustCompile(`rebuilt (\d+) events of (\d+) jobs in `).FindStringSubmatch(out)
	if m == nil || m[2] != "50" {
		t.Fatalf("rebuild output:\n%s", out)
	}
}

// replay --all in text mode used to stop at the first checkpoint event (BlockCursorSaved,
// CheckpointAdvanced), which every store serve writes holds.
func TestReplayAllInTextReadsTheWorkersCheckpointStreams(t *testing.T) {
	dir, _ := demoStore(t, "5")
	store, _, err := openWritable(dir)
	if err != nil {
		t.Fatal(err)
	}
	codec := workers.NewCheckpointCodec()
	for _, c := range []struct {
		stream string
		ev     eventstore.Typed
	}{
		{workers.CheckpointStream(workers.ResponsesCursorConsumer), workers.BlockCursorSaved{Block: 42, At: time.Now().UTC()}},
		{workers.CheckpointStream("dispatcher"), workers.CheckpointAdvanced{Position: 3, At: time.Now().UTC()}},
	} {
		ev, err := codec.Encode(c.ev, eventstore.Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.Append(context.Background(), c.stream, eventstore.NoStream, ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "replay", "--data-dir", dir, "--all")
	if code != 0 {
		t.Fatalf("replay --all (text) failed: %s", errOut)
	}
	for _, want := range []string{"BlockCursorSaved", `"block":42`, "CheckpointAdvanced", "RequestAccepted"} {
		if !strings.Contains(out, want) {
			t.Errorf("replay --all lacks %s:\n%s", want, out)
		}
	}
}

// The store checks an event's data when it is appended and not again on reads: replay, which
// prints the data as it is stored (--json) or decodes it, stops at data damaged since, naming
// the event, in either form.
func TestReplayStopsAtDataDamagedSinceItsAppendNamingTheEvent(t *testing.T) {
	dir, job := demoStore(t, "10")
	path := filepath.Join(dir, "relayer.db")
	store, err := sqlite.Open(path, sqlite.Config{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var first eventstore.Position
	for rec, err := range store.ReadStream(context.Background(), "request-"+job, 0) {
		if err != nil {
			t.Fatal(err)
		}
		first = rec.Position
		break
	}
	store.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE events SET data = CAST('{"jobId":' AS BLOB) WHERE position = ?`, int64(first)); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--json"}, {}} {
		_, errOut, code := runCLI(t, append([]string{"replay", "--data-dir", dir, "--job", job}, args...)...)
		if code == 0 || !strings.Contains(errOut, "corrupt record") || !strings.Contains(errOut, "request-"+job+"@0") {
			t.Fatalf("replay %v: exit %d, %s; want a failure naming request-%s@0 as a corrupt record", args, code, errOut, job)
		}
	}
}

// A PostgreSQL schema that holds no store (a mistyped search_path) is refused by the commands that
// only read, with exit code 1, and is not created (found by an outside probe: rebuild and replay
// created it and read it as an empty log, with exit code 0).
func TestAMissingPostgreSQLStoreIsReportedWithExitCode1AndCreatesNothing(t *testing.T) {
	url := pgtest.URL(t, "relayer_cli_missing")
	for _, args := range [][]string{
		{"replay", "--store", url, "--all"},
		{"rebuild", "--store", url},
		{"archive", "export", "--archive", t.TempDir(), "--store", url, "--job", "0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11"},
		{"migrate", "--store", url}, // an upgrade in place (found by a review)
	} {
		_, errOut, code := runCLI(t, args...)
		if code != 1 || !strings.Contains(errOut, "no event store in this schema") {
			t.Errorf("%v: code %d, stderr %q", args[:2], code, errOut)
		}
	}
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(t.Context(), `SELECT to_regnamespace($1) IS NOT NULL`, u.Query().Get("search_path")).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Fatal("a command that only reads created the schema")
	}
}

// A --data-dir given beside --store or RELAYER_STORE is refused, naming both: it lost to them
// silently (found by an outside probe: an operator with RELAYER_STORE exported for serve, running
// rebuild --data-dir ./backup, rebuilt the live store).
func TestADataDirBesideAStoreIsRefused(t *testing.T) {
	dir, _ := demoStore(t, "5")
	other := "sqlite:" + filepath.Join(t.TempDir(), "relayer.db")
	for _, args := range [][]string{
		{"rebuild", "--data-dir", dir, "--store", other},
		{"replay", "--data-dir", dir, "--store", other, "--all"},
	} {
		_, errOut, code := runCLI(t, args...)
		if code != 2 || !strings.Contains(errOut, "--data-dir and --store both name the store") {
			t.Errorf("%v: code %d, stderr %q", args, code, errOut)
		}
	}
	t.Setenv("RELAYER_STORE", other)
	_, errOut, code := runCLI(t, "rebuild", "--data-dir", dir)
	if code != 2 || !strings.Contains(errOut, "--data-dir and RELAYER_STORE both name the store") {
		t.Errorf("rebuild --data-dir with RELAYER_STORE set: code %d, stderr %q", code, errOut)
	}
	t.Setenv("RELAYER_STORE", "sqlite:"+filepath.Join(dir, "relayer.db"))
	if _, errOut, code := runCLI(t, "rebuild"); code != 0 {
		t.Errorf("rebuild with RELAYER_STORE alone: code %d, stderr %q", code, errOut)
	}
}

// rebuild --through a position beyond the log's head is refused (found by an outside probe: it
// printed the digest at the head, with exit code 0, as if the position were there).
func TestRebuildThroughAPositionBeyondTheHeadIsRefused(t *testing.T) {
	dir, _ := demoStore(t, "5")
	store, err := sqlite.Open(filepath.Join(dir, "relayer.db"), sqlite.Config{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	head, err := store.Head(context.Background())
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "rebuild", "--data-dir", dir, "--through", fmt.Sprint(uint64(head)+1))
	if code != 2 || !strings.Contains(errOut, fmt.Sprintf("beyond the log's head, position %d", head)) {
		t.Fatalf("--through head+1: code %d, stderr %q", code, errOut)
	}
	if _, errOut, code := runCLI(t, "rebuild", "--data-dir", dir, "--through", fmt.Sprint(uint64(head))); code != 0 {
		t.Fatalf("--through the head: code %d, stderr %q", code, errOut)
	}
}

// A store that cannot be opened is named once in the error (found by an outside probe: "open
// event store X: open event store X: ...").
func TestAStoreThatCannotBeOpenedIsNamedOnce(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "relayer.db"), []byte("not a database, but long enough to be read as one's header"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"rebuild", "--data-dir", dir}, {"demo", "--data-dir", dir, "--jobs", "1"}} {
		_, errOut, code := runCLI(t, args...)
		if code == 0 || strings.Count(errOut, "open event store") != 1 {
			t.Errorf("%v: code %d, stderr %q; want one \"open event store\"", args, code, errOut)
		}
	}
}

// replay --all prints the events of housekeeping streams whose codec is another part's (a lease's
// terms, the fleet's keys) as stored, rather than stop at the first (found by a review: a fleet's
// store could not be replayed as text).
func TestReplayAllPrintsTheLeaseAndFleetKeysEvents(t *testing.T) {
	dir, _ := demoStore(t, "3")
	store, _, err := openWritable(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		stream string
		codec  *eventstore.Codec
		event  eventstore.Typed
	}{
		{lease.Stream(workers.EngineLease), lease.NewCodec(), lease.Acquired{Holder: "a", Epoch: 1, Duration: time.Second, At: time.Now().UTC()}},
		{workers.FleetKeysStream, nil, workers.KeysDeclared{Keys: []string{"0x01"}, Holder: "a", At: time.Now().UTC()}},
	} {
		codec := e.codec
		if codec == nil {
			codec = eventstore.NewCodec()
			if err := eventstore.Register[workers.KeysDeclared](codec, 1); err != nil {
				t.Fatal(err)
			}
		}
		ev, err := codec.Encode(e.event, eventstore.Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.Append(context.Background(), e.stream, eventstore.Any, ev); err != nil {
			t.Fatal(err)
		}
	}
	store.Close()
	out, errOut, code := runCLI(t, "replay", "--data-dir", dir, "--all")
	if code != 0 || !strings.Contains(out, "LeaseAcquired") || !strings.Contains(out, "FleetKeysDeclared") || !strings.Contains(out, "RequestAccepted") {
		t.Fatalf("replay --all: code %d, stderr %q\n%s", code, errOut, out)
	}
}
