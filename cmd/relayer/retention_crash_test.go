//go:build unix

package main

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"relayer/archive"
	"relayer/domain"
	"relayer/eventstore"
	"relayer/eventstore/sqlite"
	"relayer/projections"
)

// The retention crash test: `relayer serve` with every retention window at one second and
// segments of twenty events, so that its archiver writes a segment and removes a batch of jobs
// several times a second while jobs of every kind arrive; serve is killed with SIGKILL right
// after one of the archiver's steps (a random moment within a few milliseconds of its log line)
// and started again on the same data directory, until it was killed at least eight times and the
// kills found the archiver both archiving and removing (read from what each kill left: an
// uncommitted segment file, a segment committed but not recorded, a retirement recorded whose
// streams are still live). A final run then archives and retires every job, and stops.
//
// Then: the archive verifies (`relayer archive verify`), its manifest's ranges follow each other
// without overlap and no event is in two segments; the ArchiveAdvanced events of the retention
// stream name the manifest's segments, in order, with their checksums; every job a JobsRetired
// named left the live store whole and is in the archive whole, below the horizon recorded before
// its retirement (nothing was removed before its segment was written and read back); archive and
// live store read as one log (`relayer replay --archive`) hold every acknowledged job, terminal;
// and `relayer archive export --job` finds each of them.

const (
	retentionCrashMinKills = 8
	retentionCrashMaxKills = 40
	retentionCrashBudget   = 120 * time.Second
)

// retentionCrashConfig is the retention section of the test's serve: every job leaves the live
// store one second after it ended, twenty events to a segment, twenty jobs to a removal.
const retentionCrashConfig = `retention:
  enabled: true
  window: {input_proof: 1s, user_decrypt: 1s, public_decrypt: 1s, delegated_user_decrypt: 1s}
  batch: 20
  interval: 50ms
`

// archiverStep is a moment a kill aims at: a random moment from min to max after the archiver
// logs line.
type archiverStep struct {
	next, line string
	min, max   time.Duration
}

// archiverSteps are the kills' aims, in turn. Measured on a loaded two-core machine, a kill
// from 1 to 15 ms after a segment's log line found the archiver writing the next segment or
// removing the jobs the segment let go, about two times in three; since the archiver checks the
// archive's manifest and files before each retirement, the retirement comes later after that
// line (a CI run's 20 kills found no removal under way), so the window reaches 30 ms. On a
// fast machine a removal takes a millisecond or two, and 40 kills aimed that way could all miss
// it: every other kill aims at the line the archiver logs once a retirement is recorded, just
// before it removes the streams (about one such kill in three finds the removal under way).
var archiverSteps = []archiverStep{
	{"the retirement or the segment after a segment", `msg="archiver: segment archived"`, time.Millisecond, 30 * time.Millisecond},
	{"the removal of a recorded retirement", removalLine, 0, time.Millisecond},
	{"the ArchiveAdvanced of a committed segment", `msg="archive: segment committed"`, 0, 2 * time.Millisecond},
	{"the removal of a recorded retirement", removalLine, 0, time.Millisecond},
}

const removalLine = `msg="archiver: retirement recorded, removing the jobs' streams"`

// What a kill left behind, read from the data directory before serve starts again.
const (
	hitWrite      = "a segment written, not committed (an uncommitted file in the archive)"
	hitRecord     = "a segment committed, its ArchiveAdvanced not appended"
	hitRemoval    = "a retirement recorded, its streams not yet removed"
	hitBetween    = "between steps (nothing left half done)"
	hitUnreadable = "the store or the archive could not be read"
)

func TestSIGKILLWhileArchivingAndRemovingLosesNoEventAndArchivesNoneTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("retention crash test: builds the binary and runs processes for about a minute")
	}
	began := time.Now()
	dir := t.TempDir()
	bin, env, dc := startCrashRig(t, dir)
	cfgFile := filepath.Join(dir, "relayer.yaml")
	if err := os.WriteFile(cfgFile, []byte(crashConfig(dc)+retentionCrashConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(dir, "data")
	archiveDir := filepath.Join(dataDir, "archive")
	serveArgs := []string{"serve", "--config", cfgFile, "--data-dir", dataDir, "--listen", "127.0.0.1:0"}

	rng := killTimingRNG(t)
	load := &crashLoad{client: &http.Client{Timeout: 10 * time.Second}, codes: map[int]int{}}
	ctx, stopLoad := load.submitters(t, 1, math.MaxInt)

	killStart := time.Now()
	var runs []*crashProc
	hits := map[string]int{}
	for len(runs) < retentionCrashMinKills || hits[hitRemoval] == 0 || hits[hitWrite]+hits[hitRecord] == 0 {
		if len(runs) == retentionCrashMaxKills || time.Since(killStart) > retentionCrashBudget {
			t.Errorf("after %d kills in %s the kills did not find the archiver both archiving and removing: %v",
				len(runs), time.Since(killStart).Round(time.Second), hits)
			break
		}
		p := startCrashProc(t, fmt.Sprintf("serve#%d", len(runs)), bin, env, serveArgs...)
		runs = append(runs, p)
		url := p.await(t, listeningOn, 60*time.Second)[1]
		load.url.Store(&url)
		// A burst of jobs at each start keeps the archiver busy: segments back to back, and
		// removals between them.
		var burst sync.WaitGroup
		burst.Go(func() { load.burst(ctx, 20, 6, math.MaxInt) })
		step := archiverSteps[(len(runs)-1)%len(archiverSteps)]
		// A few of the step's lines go by first, so that serve has run a while.
		awaitLines(t, p, step.line, 1+rng.IntN(4), 20*time.Second)
		time.Sleep(step.min + time.Duration(rng.Int64N(int64(step.max-step.min))))
		load.url.Store(nil)
		p.kill()
		burst.Wait()
		hit := killHit(t, dataDir, archiveDir)
		hits[hit]++
		t.Logf("kill %d, aimed at %s: %s", len(runs), step.next, hit)
	}
	stopLoad()
	acked := load.jobs()
	t.Logf("kill phase: %d kills in %s, %d jobs acknowledged; POST outcomes %v; what the kills left: %v",
		len(runs), time.Since(killStart).Round(time.Millisecond), len(acked), load.outcomes(), hits)

	// The final run archives and retires every job (all ended, past their one-second window).
	final := startCrashProc(t, "serve#final", bin, env, serveArgs...)
	runs = append(runs, final)
	url := final.await(t, listeningOn, 60*time.Second)[1]
	drain := time.Now()
	notArchived := waitAllArchived(t, load.client, url, acked, 60*time.Second)
	t.Logf("final run: %d of %d acknowledged jobs archived %s after serve listened", len(acked)-len(notArchived), len(acked),
		time.Since(drain).Round(time.Millisecond))
	final.stop(t)
	logServeProblems(t, runs)

	ctx = context.Background()
	arch, err := archive.NewDir(archiveDir)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "archive", "verify", "--archive", archiveDir)
	if code != 0 || !strings.Contains(out, "is sound") {
		t.Fatalf("archive verify after the kills: exit %d %s%s", code, out, errOut)
	}
	t.Logf("%s", strings.TrimSpace(out))
	manifest := checkArchiveOnce(t, arch)

	live, err := sqlite.Open(filepath.Join(dataDir, storeFile), sqlite.Config{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	checkRetentionStream(t, live, arch, manifest)

	// One log: archive then live store, every acknowledged job in it, whole and terminal.
	if _, errOut, code := runCLI(t, "replay", "--all", "--json", "--archive", archiveDir, "--data-dir", dataDir); code != 0 {
		t.Fatalf("replay --archive of the whole log: exit %d %s", code, errOut)
	}
	jobs := readLogJobs(t, archive.Joined{Store: live, Archive: arch})
	checkCrashJobs(t, acked, jobs, notArchived)
	exportStart := time.Now()
	for _, j := range acked {
		out, errOut, code := runCLI(t, "archive", "export", "--json", "--job", j.id, "--archive", archiveDir, "--data-dir", dataDir)
		want := -1
		if lj := jobs[j.id]; lj != nil {
			want = len(lj.events)
		}
		if n := strings.Count(out, "\n"); code != 0 || !strings.Contains(out, `"RequestAccepted"`) || n != want {
			t.Errorf("archive export --job %s: exit %d, %d events (the log has %d) %s", j.id, code, n, want, errOut)
		}
	}
	t.Logf("archive export found each of the %d acknowledged jobs in %s; total %s", len(acked),
		time.Since(exportStart).Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
}

// awaitLines waits for the n-th line of p's log holding line since the call.
func awaitLines(t *testing.T, p *crashProc, line string, n int, limit time.Duration) {
	t.Helper()
	off := p.stderr.Len()
	deadline := time.Now().Add(limit)
	for strings.Count(p.stderr.From(off), line) < n {
		if p.exited() {
			t.Fatalf("%s ended (%v) before logging %s %d times:\n%s", p.name, p.err, line, n, p.stderr.String())
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not log %s %d times within %s:\n%s", p.name, line, n, limit, p.stderr.String())
		}
		time.Sleep(time.Millisecond)
	}
}

// killHit reads what a kill left half done in the data directory, and checks that the archive
// never ends before the horizon the log records.
func killHit(t *testing.T, dataDir, archiveDir string) string {
	t.Helper()
	ctx := context.Background()
	arch, err := archive.NewDir(archiveDir)
	if err != nil {
		return hitUnreadable
	}
	m, err := archive.LoadManifest(ctx, arch)
	if err != nil {
		t.Errorf("after a kill: %v", err)
		return hitUnreadable
	}
	names, err := arch.List(ctx)
	if err != nil {
		return hitUnreadable
	}
	store, err := sqlite.Open(filepath.Join(dataDir, storeFile), sqlite.Config{ReadOnly: true})
	if err != nil {
		t.Errorf("after a kill: open the store: %v", err)
		return hitUnreadable
	}
	defer store.Close()
	var horizon eventstore.Position
	var last *domain.JobsRetired
	codec := projections.NewCodec()
	for r, err := range store.ReadStream(ctx, domain.RetentionStream, 0) {
		if err != nil {
			t.Errorf("after a kill: read the retention stream: %v", err)
			return hitUnreadable
		}
		e, err := codec.Decode(r)
		if err != nil {
			t.Errorf("after a kill: %v", err)
			return hitUnreadable
		}
		switch e := e.(type) {
		case domain.ArchiveAdvanced:
			horizon, last = eventstore.Position(e.Last), nil
		case domain.JobsRetired:
			last = &e
		}
	}
	if m.Last() < horizon {
		t.Errorf("after a kill the archive ends at %d, before the recorded horizon %d", m.Last(), horizon)
	}
	for _, name := range names {
		if name != archive.ManifestName && !slices.ContainsFunc(m.Segments, func(s archive.Segment) bool { return s.File == name }) {
			return hitWrite
		}
	}
	if m.Last() > horizon {
		return hitRecord
	}
	if last != nil {
		for _, id := range last.Jobs {
			if v, err := eventstore.LastVersion(ctx, store, id.Stream()); err == nil && v != eventstore.NoStream {
				return hitRemoval
			}
		}
	}
	return hitBetween
}

// waitAllArchived polls the API until every acknowledged job answers 404 saying it was archived,
// or limit passes; it returns where the others were.
func waitAllArchived(t *testing.T, client *http.Client, url string, acked []crashJob, limit time.Duration) map[string]string {
	t.Helper()
	pending := slices.Clone(acked)
	deadline := time.Now().Add(limit)
	for {
		why := map[string]string{}
		var still []crashJob
		for _, j := range pending {
			if _, state := pollJob(client, url, j); state != "archived" {
				still = append(still, j)
				why[j.id] = state
			}
		}
		if pending = still; len(pending) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			t.Errorf("after %s, %d acknowledged jobs were not archived: %v", limit, len(pending), firstFew(why, 5))
			return why
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// checkArchiveOnce checks that the manifest's ranges follow each other without overlap, that no
// file is in the archive besides the manifest's (a reader globbing segment-*.parquet, as DuckDB
// does, would count its events twice), and that no event, by position or by stream and version,
// is in two segments. It returns the manifest.
func checkArchiveOnce(t *testing.T, arch archive.Store) archive.Manifest {
	t.Helper()
	ctx := context.Background()
	m, err := archive.LoadManifest(ctx, arch)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Segments) == 0 {
		t.Fatal("the archive holds no segment")
	}
	for i, s := range m.Segments {
		if i > 0 && s.First != m.Segments[i-1].Last+1 {
			t.Errorf("manifest: %s does not follow %s", s, m.Segments[i-1])
		}
	}
	names, err := arch.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(m.Segments)+1 {
		t.Errorf("the archive holds %d files for %d segments and the manifest: %v", len(names), len(m.Segments), names)
	}
	at := map[eventstore.Position]bool{}
	seen := map[string]eventstore.Position{}
	for r, err := range archive.Read(ctx, arch, 0) {
		if err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("%s@%d", r.Stream, r.Version)
		if p, ok := seen[key]; ok || at[r.Position] {
			t.Errorf("event %s (position %d) is archived twice (also at position %d)", key, r.Position, p)
		}
		at[r.Position], seen[key] = true, r.Position
	}
	t.Logf("archive: %d segments, positions %d..%d, %d events", len(m.Segments), m.Segments[0].First, m.Last(), len(at))
	return m
}

// checkRetentionStream checks the retention stream against the archive: its ArchiveAdvanced
// events name the manifest's segments in order; every JobsRetired follows an ArchiveAdvanced
// reaching its UpTo; and every job it names left the live store and is in the archive whole,
// at or below that UpTo, ended.
func checkRetentionStream(t *testing.T, live eventstore.Store, arch archive.Store, m archive.Manifest) {
	t.Helper()
	ctx := context.Background()
	archived := map[string][]eventstore.Record{}
	for r, err := range archive.Read(ctx, arch, 0) {
		if err != nil {
			t.Fatal(err)
		}
		archived[r.Stream] = append(archived[r.Stream], r)
	}
	// The retention stream as one log: its archived events (the archiver prunes the superseded
	// ArchiveAdvanced from the live store once a segment holds them), then its live ones.
	stream := archived[domain.RetentionStream]
	for r, err := range live.ReadStream(ctx, domain.RetentionStream, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Position > m.Last() {
			stream = append(stream, r)
		}
	}
	codec := projections.NewCodec()
	var advanced, retirements, retired int
	var horizon eventstore.Position
	for _, r := range stream {
		e, err := codec.Decode(r)
		if err != nil {
			t.Fatal(err)
		}
		switch e := e.(type) {
		case domain.ArchiveAdvanced:
			if advanced >= len(m.Segments) {
				t.Errorf("ArchiveAdvanced %s at position %d: the manifest has no such segment", e.File, r.Position)
				continue
			}
			s := m.Segments[advanced]
			if e.File != s.File || e.SHA256 != s.SHA256 || e.First != uint64(s.First) || e.Last != uint64(s.Last) || e.Events != s.Events {
				t.Errorf("ArchiveAdvanced %d (position %d) records %s %s, the manifest's segment %d is %s %s", advanced, r.Position, e.File, e.SHA256, advanced, s.File, s.SHA256)
			}
			advanced++
			horizon = eventstore.Position(e.Last)
		case domain.JobsRetired:
			retirements++
			if eventstore.Position(e.UpTo) > horizon {
				t.Errorf("JobsRetired at position %d retires up to %d, beyond the archived horizon %d", r.Position, e.UpTo, horizon)
			}
			for _, id := range e.Jobs {
				retired++
				if v, err := eventstore.LastVersion(ctx, live, id.Stream()); err != nil || v != eventstore.NoStream {
					t.Errorf("job %s, retired at position %d, is still in the live store (version %d, %v)", id, r.Position, v, err)
				}
				recs := archived[id.Stream()]
				ended := false
				for i, a := range recs {
					if a.Version != eventstore.Version(i) || a.Position > eventstore.Position(e.UpTo) {
						t.Errorf("job %s, retired up to %d: its archived event %d is version %d at position %d", id, e.UpTo, i, a.Version, a.Position)
						break
					}
					if ev, err := projections.DecodeEvent(codec, a); err == nil {
						if s, ok := domain.StatusAfter(ev); ok {
							ended = s.Terminal()
						}
					}
				}
				if !ended {
					t.Errorf("job %s, retired at position %d, is not in the archive whole and ended (%d events)", id, r.Position, len(recs))
				}
			}
		}
	}
	if advanced == 0 || retirements == 0 {
		t.Fatalf("the retention stream records %d segments and %d retirements: the archiver did not run", advanced, retirements)
	}
	t.Logf("retention stream: %d segments recorded (the manifest holds %d), %d retirements of %d jobs", advanced, len(m.Segments), retirements, retired)
}
