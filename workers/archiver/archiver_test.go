package archiver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"relayer/archive"
	"relayer/domain"
	"relayer/eventstore"
	"relayer/eventstore/sqlite"
	"relayer/projections"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"relayer/projections/projectionstest"
)

// jobsFlag sets how many jobs the retention tests make: a few thousand by default; make test runs
// the first of them again with 100k (-archiver.jobs=100000), the scale issue 22 asks for.
var jobsFlag = flag.Int("archiver.jobs", 3000, "jobs the archiver tests make")

// base is when the tests' jobs start; the archiver's clock runs from there.
var base = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fixture is a live store with jobs, the projections following it, an archive directory and a
// clock the test moves.
type fixture struct {
	t     *testing.T
	store *sqlite.Store
	path  string
	set   *projections.Set
	arch  *archive.Dir
	mu    sync.Mutex
	now   time.Time
	// jobs by kind, and which of them ended
	ended, open []domain.JobID
}

func (f *fixture) clock() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fixture) setClock(t time.Time) {
	f.mu.Lock()
	f.now = t
	f.mu.Unlock()
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "relayer.db")
	store, err := sqlite.Open(path, sqlite.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	set, err := projections.New(projections.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = set.Run(ctx, store) }()
	t.Cleanup(func() { cancel(); <-done })
	arch, err := archive.NewDir(filepath.Join(dir, "archive"))
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, store: store, path: path, set: set, arch: arch, now: base}
}

// makeJobs accepts n jobs, one a millisecond from base, of the three kinds in turn: input
// proofs and user decrypts (window 1h in policy) and public decrypts (10h). Four in five fail a
// second after their acceptance (terminal); the others stay queued or processing.
func (f *fixture) makeJobs(n int) {
	t := f.t
	ctx := t.Context()
	exec := &projections.Executor{Store: f.store, Codec: projections.NewCodec()}
	var wg sync.WaitGroup
	var mu sync.Mutex
	// As many writers as the relayer's clients would be: the store commits their appends in
	// groups, so 100k jobs do not wait on 180k fsyncs.
	const writers = 64
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := w; i < n; i += writers {
				at := base.Add(time.Duration(i) * time.Millisecond)
				req := request(i)
				hash := domain.ContentHash(req)
				id := domain.JobIDFor(hash, 0)
				if _, err := exec.Execute(ctx, id, domain.Accept{At: domain.At{At: at}, JobID: id, Request: req, ContentHash: hash}, eventstore.Metadata{}); err != nil {
					errs <- err
					return
				}
				ended := i%5 != 4
				if ended {
					if _, err := exec.Execute(ctx, id, domain.Fail{At: domain.At{At: at.Add(time.Second)}, Label: "internal_error", Message: "test"}, eventstore.Metadata{}); err != nil {
						errs <- err
						return
					}
				}
				mu.Lock()
				if ended {
					f.ended = append(f.ended, id)
				} else {
					f.open = append(f.open, id)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	f.caughtUp()
}

func request(i int) domain.Request {
	handle := fmt.Sprintf("%064x", i+1)
	switch i % 3 {
	case 0:
		return domain.Request{InputProof: &domain.InputProofRequest{ContractChainID: 1, ContractAddress: "0x" + handle[:40],
			UserAddress: "0x" + handle[24:], Ciphertext: handle, ExtraData: "00"}}
	case 1:
		return domain.Request{PublicDecrypt: &domain.PublicDecryptRequest{CiphertextHandles: []string{"0x" + handle}, ExtraData: "00"}}
	default:
		return domain.Request{UserDecrypt: &domain.UserDecryptRequest{HandleContractPairs: []domain.HandleContractPair{{Handle: "0x" + handle, ContractAddress: "0x" + handle[:40]}},
			UserAddress: "0x" + handle[24:], PublicKey: handle, Signature: handle, ContractsChainID: 1, ContractAddresses: []string{"0x" + handle[:40]}, ExtraData: "00"}}
	}
}

// caughtUp waits until the projections have applied the whole store.
func (f *fixture) caughtUp() {
	f.t.Helper()
	head, err := f.store.Head(f.t.Context())
	if err != nil {
		f.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(f.t.Context(), 30*time.Second)
	defer cancel()
	if err := f.set.WaitFor(ctx, head); err != nil {
		f.t.Fatal(err)
	}
}

func policy() domain.Retention {
	r := domain.DefaultRetention()
	r.Batch = 500
	r.Interval = 10 * time.Millisecond
	for _, k := range domain.Kinds() {
		r.Windows[k.Ordinal()] = time.Hour
	}
	r.Windows[domain.PublicDecrypt.Ordinal()] = 10 * time.Hour
	return r
}

func (f *fixture) archiver(p domain.Retention) *Archiver {
	f.t.Helper()
	a, err := New(Config{Retention: p}, Deps{Store: f.store, Projections: f.set, Archive: f.arch, Now: f.clock})
	if err != nil {
		f.t.Fatal(err)
	}
	return a
}

// drain runs passes of a fresh worker until it has nothing left to do, or a pass fails.
func drain(ctx context.Context, a *Archiver) error {
	w, err := a.open(ctx, a.store)
	if err != nil {
		return err
	}
	for {
		busy, err := w.pass(ctx)
		if err != nil || !busy {
			return err
		}
	}
}

// digest is the snapshot of a Set rebuilt from the archive and the live store together.
func (f *fixture) joinedSnapshot() []byte {
	f.t.Helper()
	set, _, err := projections.Rebuild(f.t.Context(), archive.Joined{Store: f.store, Archive: f.arch}, projections.Config{})
	if err != nil {
		f.t.Fatal(err)
	}
	snap, err := set.Snapshot()
	if err != nil {
		f.t.Fatal(err)
	}
	return snap
}

func liveSnapshot(t *testing.T, set *projections.Set) []byte {
	t.Helper()
	snap, err := set.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// wholeLog reads the joined log and checks it is the log as it was before any removal: the same
// records, at the same positions, once each, then what came after.
func (f *fixture) checkWholeLog(before []eventstore.Record) {
	f.t.Helper()
	var got []eventstore.Record
	for r, err := range (archive.Joined{Store: f.store, Archive: f.arch}).ReadAll(f.t.Context(), 0) {
		if err != nil {
			f.t.Fatal(err)
		}
		if n := len(got); n > 0 && r.Position <= got[n-1].Position {
			f.t.Fatalf("the joined log goes from position %d to %d", got[n-1].Position, r.Position)
		}
		got = append(got, r)
	}
	if len(got) < len(before) {
		f.t.Fatalf("the joined log has %d records, the log before archiving had %d", len(got), len(before))
	}
	for i, want := range before {
		g := got[i]
		if g.Position != want.Position || g.Stream != want.Stream || g.Version != want.Version || !bytes.Equal(g.Data, want.Data) {
			f.t.Fatalf("record %d of the joined log is %s@%d at %d, want %s@%d at %d", i, g.Stream, g.Version, g.Position,
				want.Stream, want.Version, want.Position)
		}
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

func TestEndedJobsPastTheirWindowLeaveTheLiveStoreAndTheWholeLogStillReplays(t *testing.T) {
	f := newFixture(t)
	f.makeJobs(*jobsFlag)
	before := projectionstest.ReadLog(t, f.store)
	sizeBefore := fileSize(t, f.path)

	// Two hours on: input proofs and user decrypts that ended are past their window (1h),
	// public decrypts (10h) are not.
	f.setClock(base.Add(2 * time.Hour))
	a := f.archiver(policy())
	if err := drain(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	f.caughtUp()

	public := 0
	lives := liveStreams(t, f.store)
	for i, id := range f.ended {
		j, held := f.set.Job(id)
		live := lives[id.Stream()]
		if i < 100 {
			// The stream reads agree with the log's (the loop reads the log once: at 100k
			// jobs, a read per job would be most of the test).
			if n := streamLen(t, f.store, id); n != live {
				t.Fatalf("job %s: %d events read by stream, %d in the log", id, n, live)
			}
		}
		if held && j.Kind == domain.PublicDecrypt {
			public++
			if live == 0 {
				t.Fatalf("public decrypt %s, inside its window, left the live store", id)
			}
			continue
		}
		if held || live != 0 || !f.set.Retired(id) {
			t.Fatalf("ended job %s past its window: held %v, %d events live, retired %v; want it gone and retired", id, held, live, f.set.Retired(id))
		}
	}
	for _, id := range f.open {
		if _, held := f.set.Job(id); !held || lives[id.Stream()] == 0 || f.set.Retired(id) {
			t.Fatalf("job %s has not ended and must stay", id)
		}
	}
	if n := f.checkEveryRetirementCarried(); n == 0 {
		t.Fatal("no JobsRetired in the log")
	}
	if public == 0 || f.set.RetiredJobs() == 0 {
		t.Fatalf("%d public decrypts kept, %d jobs retired: the test retired nothing or everything", public, f.set.RetiredJobs())
	}
	f.checkWholeLog(before)
	// The joined log rebuilds to exactly the read models that followed it live.
	if live, joined := liveSnapshot(t, f.set), f.joinedSnapshot(); !bytes.Equal(live, joined) {
		t.Fatalf("read models rebuilt from the archive and the live store (%d bytes) differ from the live ones (%d bytes)", len(joined), len(live))
	}
	if _, err := archive.Verify(t.Context(), f.arch); err != nil {
		t.Fatal(err)
	}

	// Ten more hours: the public decrypts go too, and the store is smaller than before.
	f.setClock(base.Add(12 * time.Hour))
	if err := drain(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	f.caughtUp()
	lives = liveStreams(t, f.store)
	for _, id := range f.ended {
		if lives[id.Stream()] != 0 {
			t.Fatalf("ended job %s is still live past every window", id)
		}
	}
	f.checkWholeLog(before)
	if live, joined := liveSnapshot(t, f.set), f.joinedSnapshot(); !bytes.Equal(live, joined) {
		t.Fatal("after the second round, the joined log rebuilds to other read models than the live ones")
	}
	// The read models of the live store alone hold the same jobs.
	alone, _, err := projections.Rebuild(t.Context(), f.store, projections.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if alone.Jobs() != f.set.Jobs() || alone.Counts() != f.set.Counts() {
		t.Fatalf("rebuilt from the live store alone: %d jobs, %v; live: %d jobs, %v", alone.Jobs(), alone.Counts(), f.set.Jobs(), f.set.Counts())
	}
	// And the same history (transitions entered, events applied): the same digest.
	if got, want := liveSnapshot(t, alone), liveSnapshot(t, f.set); !bytes.Equal(got, want) {
		t.Fatalf("read models rebuilt from the live store alone (%d bytes, %d events) differ from the live ones (%d bytes, %d events)",
			len(got), alone.Events(), len(want), f.set.Events())
	}
	if after := fileSize(t, f.path); after >= sizeBefore {
		t.Fatalf("the live store is %d bytes after retiring %d of %d jobs, %d before", after, len(f.ended), *jobsFlag, sizeBefore)
	} else {
		t.Logf("%d jobs, %d retired: live store %d bytes before, %d after", *jobsFlag, f.set.RetiredJobs(), sizeBefore, after)
	}
}

// liveStreams counts the live store's events by stream, in one read of the log.
func liveStreams(t *testing.T, store eventstore.Store) map[string]int {
	t.Helper()
	n := map[string]int{}
	for r, err := range store.ReadAll(t.Context(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		n[r.Stream]++
	}
	return n
}

func streamLen(t *testing.T, store eventstore.Store, id domain.JobID) int {
	t.Helper()
	n := 0
	for _, err := range store.ReadStream(t.Context(), id.Stream(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

var errCrash = errors.New("crash")

// checkEveryRetirementCarried checks that the whole log (archive and live store) has a
// HistoryCarried after each JobsRetired, before the next one, as of a position past it; and
// reports how many retirements there were.
func (f *fixture) checkEveryRetirementCarried() int {
	f.t.Helper()
	retired, open := 0, eventstore.Position(0)
	for r, err := range (archive.Joined{Store: f.store, Archive: f.arch}).ReadAll(f.t.Context(), 0) {
		if err != nil {
			f.t.Fatal(err)
		}
		if r.Stream != domain.RetentionStream {
			continue
		}
		switch r.Type {
		case "JobsRetired":
			if open != 0 {
				f.t.Fatalf("the JobsRetired at %d has no HistoryCarried after it before the next, at %d", open, r.Position)
			}
			retired, open = retired+1, r.Position
		case "HistoryCarried":
			v, err := projections.NewCodec().Decode(r)
			if err != nil {
				f.t.Fatal(err)
			}
			if open != 0 && eventstore.Position(v.(domain.HistoryCarried).AsOf) >= open {
				open = 0
			}
		}
	}
	if open != 0 {
		f.t.Fatalf("the last JobsRetired, at %d, has no HistoryCarried after it", open)
	}
	return retired
}

func TestAnArchiverKilledBetweenSegmentAndRecordResumesWithoutLossOrDuplicate(t *testing.T) {
	f := newFixture(t)
	f.makeJobs(*jobsFlag / 3)
	before := projectionstest.ReadLog(t, f.store)
	f.setClock(base.Add(20 * time.Hour))

	// Killed twice: once right after a segment's commit, once right after a JobsRetired, each
	// before the next step could happen.
	a := f.archiver(policy())
	segments := 0
	a.faults.afterSegment = func() error {
		segments++
		if segments == 2 {
			return errCrash
		}
		return nil
	}
	if err := drain(t.Context(), a); !errors.Is(err, errCrash) {
		t.Fatalf("first run: %v, want the crash after the second segment", err)
	}
	m, err := archive.LoadManifest(t.Context(), f.arch)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Segments) != 2 {
		t.Fatalf("%d segments committed before the crash, want 2", len(m.Segments))
	}
	// Only what the first, recorded segment holds may have left the live store: nothing of the
	// second, which was committed but not recorded.
	live := map[eventstore.Position]bool{}
	for _, r := range projectionstest.ReadLog(t, f.store) {
		live[r.Position] = true
	}
	for _, r := range before {
		if !live[r.Position] && r.Position > m.Segments[0].Last {
			t.Fatalf("%s@%d at %d was removed, above the recorded horizon %d", r.Stream, r.Version, r.Position, m.Segments[0].Last)
		}
	}

	f.caughtUp()
	retiredBefore := map[domain.JobID]bool{}
	for _, id := range f.ended {
		retiredBefore[id] = f.set.Retired(id)
	}
	b := f.archiver(policy())
	b.faults.afterRetired = func() error { return errCrash }
	if err := drain(t.Context(), b); !errors.Is(err, errCrash) {
		t.Fatalf("second run: %v, want the crash after the first retirement", err)
	}
	f.caughtUp()
	// Retired in the read models, not yet removed: the jobs the second run retired are still live.
	newly := 0
	for _, id := range f.ended {
		if f.set.Retired(id) && !retiredBefore[id] {
			newly++
			if streamLen(t, f.store, id) == 0 {
				t.Fatalf("job %s was removed though the run crashed before removing", id)
			}
		}
	}
	if newly == 0 {
		t.Fatal("the second run retired nothing before its crash")
	}

	c := f.archiver(policy())
	if err := drain(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	f.caughtUp()
	for _, id := range f.ended {
		if !f.set.Retired(id) || streamLen(t, f.store, id) != 0 {
			t.Fatalf("ended job %s past every window: retired %v, %d events live", id, f.set.Retired(id), streamLen(t, f.store, id))
		}
	}
	m, err = archive.LoadManifest(t.Context(), f.arch)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(m.Segments); i++ {
		if m.Segments[i].First != m.Segments[i-1].Last+1 {
			t.Fatalf("segments %s and %s do not follow each other", m.Segments[i-1], m.Segments[i])
		}
	}
	// Every recorded ArchiveAdvanced names a segment of the manifest, once. The superseded ones
	// left the live store once archived: the whole log (archive and live store) holds them all.
	seen := map[string]bool{}
	for r, err := range (archive.Joined{Store: f.store, Archive: f.arch}).ReadAll(t.Context(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Stream != domain.RetentionStream || r.Type != "ArchiveAdvanced" {
			continue
		}
		v, err := projections.NewCodec().Decode(r)
		if err != nil {
			t.Fatal(err)
		}
		file := v.(domain.ArchiveAdvanced).File
		if seen[file] {
			t.Fatalf("segment %s recorded twice", file)
		}
		seen[file] = true
	}
	if len(seen) != len(m.Segments) {
		t.Fatalf("%d segments recorded, %d in the manifest", len(seen), len(m.Segments))
	}
	f.checkWholeLog(before)
	if live, joined := liveSnapshot(t, f.set), f.joinedSnapshot(); !bytes.Equal(live, joined) {
		t.Fatal("after the crashes, the joined log rebuilds to other read models than the live ones")
	}
	// The run that redid the interrupted removal carried the history after it too.
	f.checkEveryRetirementCarried()
}

func TestAnArchiverCancelledMidBatchResumes(t *testing.T) {
	f := newFixture(t)
	f.makeJobs(*jobsFlag / 3)
	before := projectionstest.ReadLog(t, f.store)
	f.setClock(base.Add(20 * time.Hour))
	// Cancel the run at several points of its work, each time starting a new archiver, until
	// one finishes.
	for delay := time.Millisecond; ; delay *= 2 {
		ctx, cancel := context.WithTimeout(t.Context(), delay)
		err := drain(ctx, f.archiver(policy()))
		cancel()
		if err == nil {
			break
		}
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			t.Fatalf("run cancelled after %s: %v", delay, err)
		}
	}
	f.caughtUp()
	for _, id := range f.ended {
		if streamLen(t, f.store, id) != 0 {
			t.Fatalf("ended job %s is still live", id)
		}
	}
	f.checkWholeLog(before)
	if _, err := archive.Verify(t.Context(), f.arch); err != nil {
		t.Fatal(err)
	}
}

func TestTheArchiverFollowsRetentionChangesMadeThroughTheConfigStream(t *testing.T) {
	f := newFixture(t)
	f.makeJobs(30)
	f.setClock(base.Add(2 * time.Hour))
	p := policy()
	p.Enabled = false
	a := f.archiver(p)
	if err := drain(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	if m, _ := archive.LoadManifest(t.Context(), f.arch); len(m.Segments) != 0 || f.set.RetiredJobs() != 0 {
		t.Fatal("a disabled archiver archived or retired")
	}
	codec := projections.NewCodec()
	ev, err := codec.Encode(domain.ConfigChanged{Param: "retention.enabled", Old: []byte("false"), New: []byte("true"), Who: "test", At: base}, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Append(t.Context(), domain.ConfigStream, eventstore.NoStream, ev); err != nil {
		t.Fatal(err)
	}
	if err := drain(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	f.caughtUp()
	if !a.Policy().Enabled || f.set.RetiredJobs() == 0 {
		t.Fatalf("after retention.enabled=true: policy enabled %v, %d retired", a.Policy().Enabled, f.set.RetiredJobs())
	}
}

// anotherLog is a log of its own (an event of its own first, so that no position holds what
// another fixture's holds) with n jobs, 20 hours on, given archive arch: another log's.
func anotherLog(t *testing.T, n int, arch *archive.Dir) *fixture {
	t.Helper()
	f := newFixture(t)
	ev, err := projections.NewCodec().Encode(domain.ConfigChanged{Param: "retention.batch", Old: []byte("500"), New: []byte("500"), Who: "test", At: base}, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Append(t.Context(), domain.ConfigStream, eventstore.NoStream, ev); err != nil {
		t.Fatal(err)
	}
	f.makeJobs(n)
	f.arch = arch
	f.setClock(base.Add(20 * time.Hour))
	return f
}

func TestAnArchiveOfAnotherLogIsRefusedAndNothingIsRemoved(t *testing.T) {
	first := newFixture(t)
	first.makeJobs(60)
	first.setClock(base.Add(20 * time.Hour))
	if err := drain(t.Context(), first.archiver(policy())); err != nil {
		t.Fatal(err)
	}

	other := anotherLog(t, 90, first.arch)
	before := projectionstest.ReadLog(t, other.store)
	err := drain(t.Context(), other.archiver(policy()))
	if err == nil || !strings.Contains(err.Error(), "another log") {
		t.Fatalf("an archiver over another log's archive: %v, want a refusal", err)
	}
	if after := projectionstest.ReadLog(t, other.store); len(after) != len(before) {
		t.Fatalf("%d records live after the refusal, %d before", len(after), len(before))
	}
}

// TestADamagedArchiveStopsRemovals damages an archive the archiver wrote (a byte of a segment
// flipped, a segment file removed, a segment's SHA-256 edited in the manifest) and lets more jobs
// pass their window: an archiver opening it, and for damage it can see without reading the
// segments, one already running over it, refuses to remove anything from the live store until
// the archive is put back.
func TestADamagedArchiveStopsRemovals(t *testing.T) {
	segmentFile := func(t *testing.T, f *fixture) string {
		m, err := archive.LoadManifest(t.Context(), f.arch)
		if err != nil || len(m.Segments) == 0 {
			t.Fatalf("manifest: %v, %d segments; want some", err, len(m.Segments))
		}
		return filepath.Join(f.arch.String(), m.Segments[0].File)
	}
	damages := []struct {
		name string
		// seen: a running archiver sees it before its next removal (a flipped byte needs a
		// verification, which opening does).
		seen   bool
		damage func(t *testing.T, f *fixture)
	}{
		{"a byte of a segment flipped", false, func(t *testing.T, f *fixture) {
			p := segmentFile(t, f)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 0xff
			if err := os.WriteFile(p, b, 0o640); err != nil {
				t.Fatal(err)
			}
		}},
		{"a segment removed", true, func(t *testing.T, f *fixture) {
			if err := os.Remove(segmentFile(t, f)); err != nil {
				t.Fatal(err)
			}
		}},
		{"a segment's SHA-256 edited in the manifest", true, func(t *testing.T, f *fixture) {
			p := filepath.Join(f.arch.String(), archive.ManifestName)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var m archive.Manifest
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			s := []byte(m.Segments[0].SHA256)
			if s[0] == '0' {
				s[0] = '1'
			} else {
				s[0] = '0'
			}
			m.Segments[0].SHA256 = string(s)
			if b, err = json.Marshal(m); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o640); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, d := range damages {
		for _, running := range []bool{false, true} {
			if running && !d.seen {
				continue
			}
			name := d.name + ", archiver opening it"
			if running {
				name = d.name + ", archiver running"
			}
			t.Run(name, func(t *testing.T) {
				f := newFixture(t)
				f.makeJobs(60)
				f.setClock(base.Add(2 * time.Hour))
				a := f.archiver(policy())
				w, err := a.open(t.Context(), a.store)
				if err != nil {
					t.Fatal(err)
				}
				for busy := true; busy; {
					if busy, err = w.pass(t.Context()); err != nil {
						t.Fatal(err)
					}
				}
				f.caughtUp()
				good := copyDir(t, f.arch.String())
				d.damage(t, f)

				// Public decrypts that ended are now past their window (10h) too.
				f.setClock(base.Add(20 * time.Hour))
				before := liveStreams(t, f.store)
				if running {
					_, err = w.pass(t.Context())
					if err == nil {
						t.Fatal("a pass over the damaged archive succeeded, want a refusal")
					}
				} else {
					// A new process's archiver.
					fresh := f.archiver(policy())
					err = drain(t.Context(), fresh)
					if err == nil {
						t.Fatal("opening the damaged archive succeeded, want a refusal")
					}
					if got, want := gauge(t, fresh.m.horizon), gauge(t, a.m.horizon); got != want || got == 0 {
						t.Errorf("relayer_archive_horizon_position %v while the archive is refused, want the recorded horizon %v", got, want)
					}
					if lag := gauge(t, fresh.m.lag); lag == 0 {
						t.Error("relayer_archive_lag_events 0 while the archive is refused, want the events past the recorded horizon")
					}
				}
				t.Logf("refused: %v", err)
				if !strings.Contains(err.Error(), "refusing to remove anything") {
					t.Errorf("the refusal %q does not say nothing is removed", err)
				}
				after := liveStreams(t, f.store)
				for s, n := range before {
					if after[s] != n {
						t.Fatalf("stream %s: %d events live after the refusal, %d before", s, after[s], n)
					}
				}

				// Put back, the archive is used again: the public decrypts leave.
				restoreDir(t, good, f.arch.String())
				if err := drain(t.Context(), a); err != nil {
					t.Fatalf("the archive put back: %v", err)
				}
				if after := liveStreams(t, f.store); len(after) >= len(before) {
					t.Fatalf("%d streams live once the archive was put back, %d before: want the public decrypts gone", len(after), len(before))
				}
			})
		}
	}
}

// copyDir reads every file of dir; restoreDir makes dir hold exactly those files again.
func copyDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func restoreDir(t *testing.T, files map[string][]byte, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := files[e.Name()]; !ok {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o640); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAnotherLogsArchiveIsLeftAsItIs points an archiver at an archive another log's archiver is
// writing, with a segment file written and not yet committed to the manifest: it refuses the
// archive before touching it, and the other writer's file is still there.
func TestAnotherLogsArchiveIsLeftAsItIs(t *testing.T) {
	first := newFixture(t)
	first.makeJobs(60)
	first.setClock(base.Add(20 * time.Hour))
	if err := drain(t.Context(), first.archiver(policy())); err != nil {
		t.Fatal(err)
	}
	// What the first log's archiver has written and is about to commit.
	pending := filepath.Join(first.arch.String(), "segment-00000000000000900001-00000000000000900002.parquet")
	if err := os.WriteFile(pending, []byte("not yet committed"), 0o640); err != nil {
		t.Fatal(err)
	}

	other := anotherLog(t, 30, first.arch)
	if err := drain(t.Context(), other.archiver(policy())); err == nil || !strings.Contains(err.Error(), "another log") {
		t.Fatalf("an archiver over another log's archive: %v, want a refusal", err)
	}
	if _, err := os.Stat(pending); err != nil {
		t.Fatalf("the other log's uncommitted segment: %v; want it left where it was", err)
	}
}

func gauge(t *testing.T, g prometheus.Gauge) float64 {
	t.Helper()
	var m dto.Metric
	if err := g.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetGauge().GetValue()
}

// An archiver killed after recording its last retirement, before removing the streams,
// removes them when it resumes and carries the read models' history after the retirement then,
// though nothing is left to archive or retire.
func TestAnArchiverKilledAfterItsLastRetirementCarriesTheHistoryWhenItResumes(t *testing.T) {
	f := newFixture(t)
	f.makeJobs(40)
	f.setClock(base.Add(2 * time.Hour))
	p := policy()
	p.Batch = domain.MaxRetentionBatch // one segment and one retirement take everything
	b := f.archiver(p)
	b.faults.afterRetired = func() error { return errCrash }
	if err := drain(t.Context(), b); !errors.Is(err, errCrash) {
		t.Fatalf("first run: %v, want the crash after the retirement", err)
	}
	if err := drain(t.Context(), f.archiver(p)); err != nil {
		t.Fatal(err)
	}
	f.caughtUp()
	if n := f.checkEveryRetirementCarried(); n != 1 {
		t.Fatalf("%d retirements, want the one the first run recorded", n)
	}
	for _, id := range f.ended {
		if j, held := f.set.Job(id); (!held || j.Kind != domain.PublicDecrypt) && streamLen(t, f.store, id) != 0 {
			t.Fatalf("ended job %s still live after the resumed run", id)
		}
	}
}

// A change of the retention settings wakes the running archiver: retention turned on takes effect
// at once, not after the interval in force (an hour here; found by an outside probe, who waited a
// minute for a new interval). Off, the archive is not even opened: an unreadable one counts no
// failure, so no alert fires for retention nobody asked for.
func TestARunningArchiverTakesARetentionChangeAtOnce(t *testing.T) {
	f := newFixture(t)
	f.makeJobs(30)
	f.setClock(base.Add(2 * time.Hour))
	// An archive that fails its verification: a manifest that is not JSON.
	if err := os.WriteFile(filepath.Join(f.arch.String(), "manifest.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := policy()
	p.Enabled = false
	p.Interval = time.Hour
	a := f.archiver(p)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	defer func() { cancel(); <-done }()
	time.Sleep(300 * time.Millisecond)
	var m dto.Metric
	if err := a.m.failures.Write(&m); err != nil {
		t.Fatal(err)
	}
	if n := m.GetCounter().GetValue(); n != 0 {
		t.Fatalf("%v failures counted with retention off", n)
	}

	// A sound archive, and retention turned on through the configuration stream.
	if err := os.Remove(filepath.Join(f.arch.String(), "manifest.json")); err != nil {
		t.Fatal(err)
	}
	ev, err := projections.NewCodec().Encode(domain.ConfigChanged{Param: "retention.enabled", Old: []byte("false"), New: []byte("true"), Who: "test", At: base}, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Append(t.Context(), domain.ConfigStream, eventstore.NoStream, ev); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for f.set.RetiredJobs() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no job retired within 20 s of retention turned on, with an hour's interval in force")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
