package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"relayer/archive"
	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers/archiver"
)

// retireAll runs the archiver over a store with a clock past every window until no ended job is
// left live, and returns the digest of the read models that followed the store meanwhile.
func retireAll(t *testing.T, dataDir, archiveDir string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	settings, _, err := loadServeConfig(configSources{env: serveEnviron()})
	if err != nil {
		t.Fatal(err)
	}
	store, _, err := openWritable(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	set, err := projections.New(settings.Projections)
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = set.Run(rctx, store) }()
	arch, err := archive.NewDir(archiveDir)
	if err != nil {
		t.Fatal(err)
	}
	policy := domain.DefaultRetention()
	policy.Interval = 10 * time.Millisecond
	policy.Batch = 100
	a, err := archiver.New(archiver.Config{Retention: policy},
		archiver.Deps{Store: store, Projections: set, Archive: arch, Now: func() time.Time { return time.Now().Add(400 * 24 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	adone := make(chan struct{})
	go func() { defer close(adone); _ = a.Run(rctx) }()
	for set.Jobs() > len(set.InStatus(domain.Queued))+len(set.InStatus(domain.Processing)) || set.RetiredJobs() == 0 {
		if ctx.Err() != nil {
			t.Fatalf("the archiver retired %d jobs, %d still held", set.RetiredJobs(), set.Jobs())
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	<-adone
	<-done
	snap, err := set.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(snap))
}

func TestReplayAndRebuildWithTheArchiveReadTheWholeLogAfterRetention(t *testing.T) {
	dataDir, job := demoStore(t, "30")
	before, errOut, code := runCLI(t, "replay", "--data-dir", dataDir, "--all", "--json")
	if code != 0 {
		t.Fatalf("replay: %s", errOut)
	}
	archiveDir := filepath.Join(t.TempDir(), "archive")
	live := retireAll(t, dataDir, archiveDir)

	// The live store alone has lost the retired jobs.
	alone, _, _ := runCLI(t, "replay", "--data-dir", dataDir, "--all", "--json")
	if strings.Count(alone, "RequestAccepted") >= strings.Count(before, "RequestAccepted") {
		t.Fatal("no job left the live store")
	}
	if _, errOut, code := runCLI(t, "replay", "--data-dir", dataDir, "--job", job); code == 0 {
		t.Fatalf("replay of a retired job without the archive succeeded: %s", errOut)
	}
	// With the archive, the whole log as it was, at its positions, then the retention events.
	whole, errOut, code := runCLI(t, "replay", "--data-dir", dataDir, "--all", "--json", "--archive", archiveDir)
	if code != 0 {
		t.Fatalf("replay --archive: exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(whole, before) || !strings.Contains(whole[len(before):], `"JobsRetired"`) {
		t.Fatalf("replay --archive does not start with the log as it was before retention:\n%.2000s\nwant a prefix\n%.2000s", whole, before)
	}
	timeline, errOut, code := runCLI(t, "replay", "--data-dir", dataDir, "--job", job, "--archive", archiveDir)
	if code != 0 || !strings.Contains(timeline, "RequestAccepted") {
		t.Fatalf("replay --job --archive: exit %d: %s\n%s", code, errOut, timeline)
	}
	// rebuild --archive gives the digest of the read models that followed the log live.
	checkRebuilds(t, live, "--data-dir", dataDir, "--archive", archiveDir)
	// And so does the live store alone: the retired jobs' part of the history is carried.
	checkRebuilds(t, live, "--data-dir", dataDir)
}

// rebuild --through a position before the retention stream's last event needs the archive: the
// live store no longer holds what the archiver retired or pruned at or before that position, and
// the history carried for it comes later in the log. Without --archive it is refused, not
// answered with another digest; with it, the digest is the one of the log as it was.
func TestRebuildThroughAPositionBeforeRetentionNeedsTheArchive(t *testing.T) {
	dataDir, _ := demoStore(t, "30")
	out, errOut, code := runCLI(t, "rebuild", "--data-dir", dataDir)
	if code != 0 {
		t.Fatalf("rebuild: %s", errOut)
	}
	m := regexp.MustCompile(`read models at position (\d+)\n`).FindStringSubmatch(out)
	d := snapshotDigest.FindStringSubmatch(out)
	if m == nil || d == nil {
		t.Fatalf("rebuild printed no position or digest:\n%s", out)
	}
	through, want := m[1], d[1]
	archiveDir := filepath.Join(t.TempDir(), "archive")
	retireAll(t, dataDir, archiveDir)

	_, errOut, code = runCLI(t, "rebuild", "--data-dir", dataDir, "--through", through)
	if code != 2 || !strings.Contains(errOut, "--through "+through) || !strings.Contains(errOut, "add --archive") {
		t.Errorf("rebuild --through %s of the live store alone after retention: exit %d, %q; want a refusal that names --archive", through, code, errOut)
	}
	checkRebuilds(t, want, "--data-dir", dataDir, "--through", through, "--archive", archiveDir)
	// The summary counts the retired jobs apart from those held (found by an outside probe:
	// "rebuilt 419 events of 0 jobs" after retention).
	out, errOut, code = runCLI(t, "rebuild", "--data-dir", dataDir)
	if code != 0 || !regexp.MustCompile(`rebuilt \d+ events of \d+ jobs held, [1-9]\d* retired in `).MatchString(out) {
		t.Errorf("rebuild after retention: exit %d, %q\n%s", code, errOut, out)
	}
}

// archiverUnderRead is a store whose ReadAll lets the archiver run once, right after the first
// record: another instance's archiver at work while a rebuild reads the log.
type archiverUnderRead struct {
	eventstore.Store
	run func()
}

func (s archiverUnderRead) ReadAll(ctx context.Context, after eventstore.Position) iter.Seq2[eventstore.Record, error] {
	return func(yield func(eventstore.Record, error) bool) {
		for rec, err := range s.Store.ReadAll(ctx, after) {
			if !yield(rec, err) || err != nil {
				return
			}
			s.run()
			for rec, err := range s.Store.ReadAll(ctx, rec.Position) {
				if !yield(rec, err) || err != nil {
					return
				}
			}
			return
		}
	}
}

// openDemoStore runs demo for jobs jobs and opens its store, closed when the test ends.
func openDemoStore(t *testing.T, jobs string) (string, eventstore.Store) {
	t.Helper()
	dataDir, _ := demoStore(t, jobs)
	loc, err := parseStore("", dataDir)
	if err != nil {
		t.Fatal(err)
	}
	store, err := openExisting(t.Context(), loc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return dataDir, store
}

// A rebuild during which the archiver retired jobs (removing their events, some of them ahead of
// the read) fails and says to run it again, instead of printing read models that are not the
// log's; once the archiver is done, the same rebuild succeeds.
func TestRebuildFailsWhenTheArchiverMovesEventsUnderTheRead(t *testing.T) {
	dataDir, store := openDemoStore(t, "30")
	from, err := liveFrom(t.Context(), store)
	if err != nil || from != 0 {
		t.Fatalf("a log without retention: liveFrom %d, %v", from, err)
	}
	archiveDir := filepath.Join(t.TempDir(), "archive")
	src := archiverUnderRead{Store: store, run: func() { retireAll(t, dataDir, archiveDir) }}
	if _, _, err := rebuildSettled(t.Context(), store, src, projections.Config{}, from); !errors.Is(err, errArchiverMoved) {
		t.Fatalf("a rebuild with the archiver retiring jobs under it: %v; want it told to run again", err)
	}
	if from, err = liveFrom(t.Context(), store); err != nil || from == 0 {
		t.Fatalf("after retention: liveFrom %d, %v", from, err)
	}
	if _, _, err := rebuildSettled(t.Context(), store, store, projections.Config{}, from); err != nil {
		t.Fatalf("the same rebuild once the archiver is done: %v", err)
	}
}

// Read models that catch up while another instance's archiver retires jobs (as a fleet's
// instance does when it starts) read the first event of a retired job's stream, find the rest
// removed, and then its JobsRetired: they drop the job, as those that followed the whole log
// did, instead of stopping on a job retired while it could still change; and they end equal to
// read models rebuilt from the live store after the archiver is done.
func TestReadModelsCatchingUpWhileTheArchiverRetiresJobsAgree(t *testing.T) {
	dataDir, store := openDemoStore(t, "30")
	var first eventstore.Record
	for rec, err := range store.ReadAll(t.Context(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		first = rec
		break
	}
	if _, isJob := domain.JobIDFromStream(first.Stream); !isJob || first.Type != "RequestAccepted" {
		t.Fatalf("the log opens with %s in %s, want a job's acceptance (the job whose rest is removed under the read)", first.Type, first.Stream)
	}
	archiveDir := filepath.Join(t.TempDir(), "archive")
	set, err := projections.New(projections.Config{})
	if err != nil {
		t.Fatal(err)
	}
	src := archiverUnderRead{Store: store, run: func() { retireAll(t, dataDir, archiveDir) }}
	if err := set.CatchUp(t.Context(), src); err != nil {
		t.Fatalf("catching up while the archiver retired jobs: %v", err)
	}
	id, _ := domain.JobIDFromStream(first.Stream)
	if _, held := set.Job(id); held || !set.Retired(id) {
		t.Fatalf("job %s, whose stream was removed under the read: held %v, retired %v", id, held, set.Retired(id))
	}
	from, err := liveFrom(t.Context(), store)
	if err != nil {
		t.Fatal(err)
	}
	rebuilt, _, err := rebuildSettled(t.Context(), store, store, projections.Config{}, from)
	if err != nil {
		t.Fatal(err)
	}
	var got, want bytes.Buffer
	if err := set.WriteSnapshot(&got); err != nil {
		t.Fatal(err)
	}
	if err := rebuilt.WriteSnapshot(&want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("the read models that caught up under the archiver differ from a rebuild of the live store:\n%.600s\n%.600s", got.Bytes(), want.Bytes())
	}
}

// The commands that read an archive do not make the directory --archive names: a mistyped path
// is refused, not read as an empty archive made on the spot.
func TestReadingCommandsRefuseAMissingArchiveDirectory(t *testing.T) {
	dataDir, job := demoStore(t, "3")
	missing := filepath.Join(t.TempDir(), "no-such-archive")
	for _, args := range [][]string{
		{"rebuild", "--data-dir", dataDir, "--archive", missing},
		{"replay", "--data-dir", dataDir, "--all", "--archive", missing},
		{"archive", "verify", "--archive", missing},
		{"archive", "export", "--job", job, "--archive", "file://" + missing},
	} {
		_, errOut, code := runCLI(t, args...)
		if code == 0 || !strings.Contains(errOut, missing+": no such directory") {
			t.Errorf("relayer %s: exit %d, %q; want a refusal naming the directory", strings.Join(args[:2], " "), code, errOut)
		}
		if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("relayer %s made the archive directory (%v)", strings.Join(args[:2], " "), err)
		}
	}
}

// An archive that does not reach the horizon the live store recorded (its last segments lost, an
// older copy, an emptied manifest) or that is another log's is refused by replay --archive,
// rebuild --archive and archive export --data-dir, instead of a log with a hole.
func TestReplayAndRebuildRefuseAnArchiveThatIsNotTheLogsUpToItsRecordedHorizon(t *testing.T) {
	dataDir, job := demoStore(t, "30")
	archiveDir := filepath.Join(t.TempDir(), "archive")
	retireAll(t, dataDir, archiveDir)
	m, err := archive.LoadManifest(t.Context(), mustDir(t, archiveDir))
	if err != nil || len(m.Segments) < 2 {
		t.Fatalf("manifest: %v, %d segments; want two or more", err, len(m.Segments))
	}

	// The last segment lost, the manifest consistent without it: verify cannot tell.
	short := copyArchive(t, archiveDir)
	last := m.Segments[len(m.Segments)-1]
	if err := os.Remove(filepath.Join(short, last.File)); err != nil {
		t.Fatal(err)
	}
	writeManifest(t, short, archive.Manifest{Format: m.Format, Segments: m.Segments[:len(m.Segments)-1]})
	if _, errOut, code := runCLI(t, "archive", "verify", "--archive", short); code != 0 {
		t.Fatalf("verify of the shortened archive: %s", errOut)
	}
	empty := copyArchive(t, archiveDir)
	writeManifest(t, empty, archive.Manifest{Format: m.Format})

	otherData, _ := demoStore(t, "31")
	other := filepath.Join(t.TempDir(), "archive")
	retireAll(t, otherData, other)

	for name, arch := range map[string]string{"shortened": short, "emptied": empty, "another log's": other} {
		for _, args := range [][]string{
			{"replay", "--data-dir", dataDir, "--all", "--json", "--archive", arch},
			{"replay", "--data-dir", dataDir, "--job", job, "--archive", arch},
			{"rebuild", "--data-dir", dataDir, "--archive", arch},
			{"archive", "export", "--job", job, "--archive", arch, "--data-dir", dataDir},
		} {
			_, errOut, code := runCLI(t, args...)
			if code == 0 || !strings.Contains(errOut, "another log's archive") {
				t.Errorf("%s archive: relayer %s: exit %d, %q; want a refusal saying why", name, strings.Join(args[:2], " "), code, errOut)
			}
		}
	}
	// The archive itself still reads.
	if _, errOut, code := runCLI(t, "replay", "--data-dir", dataDir, "--all", "--archive", archiveDir); code != 0 {
		t.Fatalf("replay --archive: %s", errOut)
	}
}

func mustDir(t *testing.T, path string) *archive.Dir {
	t.Helper()
	d, err := archive.NewDir(path)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func copyArchive(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "archive")
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
	return to
}

func writeManifest(t *testing.T, dir string, m archive.Manifest) {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, archive.ManifestName), b, 0o640); err != nil {
		t.Fatal(err)
	}
}

func TestServeArchivesAnEndedJobPastItsWindowAndAnswers404SayingSo(t *testing.T) {
	withEnv(t, "RELAYER_RETENTION_WINDOW_INPUT_PROOF=1s", "RELAYER_RETENTION_INTERVAL=50ms", "RELAYER_RETENTION_BATCH=10")
	dir := filepath.Join(t.TempDir(), "data")
	url, stdout, stderr, stop := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir)
	body := `{"contractChainId":1337,"contractAddress":"0x00000000000000000000000000000000000000c0","userAddress":"0x00000000000000000000000000000000000000a1","ciphertextWithInputVerification":"0a0b0c","extraData":"0x00"}`
	id := accepted(t, "input proof", url+"/v2/input-proof", []byte(body))
	waitArchived(t, url+"/v2/input-proof/"+id, stdout, stderr)
	// The 404 comes with JobsRetired, which is appended before the removal that the counter
	// counts: the counter follows within moments.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, b := httpGet(t, url+"/metrics")
		m := regexp.MustCompile(`(?m)^relayer_retired_jobs_total (\d+)`).FindStringSubmatch(string(b))
		if m != nil && m[1] != "0" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics: relayer_retired_jobs_total %v", m)
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "replay", "--data-dir", dir, "--job", id, "--archive", filepath.Join(dir, "archive"))
	if code != 0 || !strings.Contains(out, "RequestAccepted") {
		t.Fatalf("replay of the archived job: exit %d %s\n%s", code, errOut, out)
	}
	// Without --archive the job is not in the live store, and replay says where it is.
	if out, errOut, code := runCLI(t, "replay", "--data-dir", dir, "--job", id); code == 0 || !strings.Contains(errOut, "add --archive") {
		t.Fatalf("replay of the archived job without --archive: exit %d, want an error pointing to --archive: %s\n%s", code, errOut, out)
	}
}

// serve's archiver writes to an S3-compatible bucket (gofakes3, over HTTP) named by
// retention.archive, with the credentials from the AWS environment variables, never in the URL:
// the jobs past their window leave the live store and answer 404 saying they were archived, and
// `relayer archive verify`, `archive export --job` and `replay --archive` read them from the same
// URL.
func TestServeArchivesToAnS3BucketThatVerifyExportAndReplayRead(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("relayer-archive"); err != nil {
		t.Fatal(err)
	}
	s3 := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(s3.Close)
	const secret = "serve-archive-secret-0b1e"
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDSERVEARCHIVE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	bucket := "s3://relayer-archive/relayer/archive?endpoint=" + s3.URL + "&region=eu-west-1"
	withEnv(t, "RELAYER_RETENTION_ARCHIVE="+bucket, "RELAYER_RETENTION_WINDOW_INPUT_PROOF=1s",
		"RELAYER_RETENTION_INTERVAL=50ms", "RELAYER_RETENTION_BATCH=10")
	dir := filepath.Join(t.TempDir(), "data")
	url, stdout, stderr, stop := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir)

	var ids []string
	for i := range 3 {
		body := fmt.Sprintf(`{"contractChainId":1337,"contractAddress":"0x00000000000000000000000000000000000000c0","userAddress":"0x00000000000000000000000000000000000000a1","ciphertextWithInputVerification":"0a0b0c%02x","extraData":"0x00"}`, i)
		ids = append(ids, accepted(t, "input proof", url+"/v2/input-proof", []byte(body)))
	}
	for _, id := range ids {
		waitArchived(t, url+"/v2/input-proof/"+id, stdout, stderr)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout.String()+stderr.String(), secret) {
		t.Error("serve's output holds the AWS secret key")
	}
	if _, err := os.Stat(filepath.Join(dir, "archive")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("serve made the directory archive beside the store (%v): the bucket was not the archive", err)
	}

	// The archive in the bucket verifies, and holds each job's whole history.
	out, errOut, code := runCLI(t, "archive", "verify", "--archive", bucket)
	if code != 0 || !strings.Contains(out, "is sound") || !strings.Contains(out, "s3://relayer-archive/relayer/archive") {
		t.Fatalf("archive verify of the bucket: exit %d %s%s", code, out, errOut)
	}
	// The same bucket under a prefix nothing was archived to is no archive.
	wrong := strings.Replace(bucket, "/relayer/archive?", "/relayer/archiv?", 1)
	out, errOut, code = runCLI(t, "archive", "verify", "--archive", wrong)
	if code != 1 || strings.Contains(out, "is sound") || !strings.Contains(errOut, "s3://relayer-archive/relayer/archiv/ holds no manifest.json") {
		t.Fatalf("archive verify of a prefix with no archive: exit %d %s%s", code, out, errOut)
	}
	for _, id := range ids {
		timeline, errOut, code := runCLI(t, "archive", "export", "--job", id, "--archive", bucket)
		if code != 0 || !strings.Contains(timeline, "RequestAccepted") || !strings.Contains(timeline, "-> completed") {
			t.Fatalf("archive export --job %s from the bucket: exit %d %s\n%s", id, code, errOut, timeline)
		}
		alone, _, _ := runCLI(t, "archive", "export", "--json", "--job", id, "--archive", bucket)
		// The live store holds nothing more of it.
		both, errOut, code := runCLI(t, "archive", "export", "--json", "--job", id, "--archive", bucket, "--data-dir", dir)
		if code != 0 || both != alone {
			t.Fatalf("archive export --job %s with the live store: exit %d %s\n%s\nwant the archive's\n%s", id, code, errOut, both, alone)
		}
	}
	if out, errOut, code := runCLI(t, "replay", "--all", "--json", "--archive", bucket, "--data-dir", dir); code != 0 || strings.Count(out, `"RequestAccepted"`) != len(ids) {
		t.Fatalf("replay --archive of the bucket: exit %d %s\n%.2000s", code, errOut, out)
	}
}

func TestServeRefusesARetentionPolicyOutOfBoundsNamingTheSetting(t *testing.T) {
	_, _, err := loadServeConfig(configSources{env: []string{"RELAYER_RETENTION_BATCH=0", "RELAYER_RETENTION_WINDOW_PUBLIC_DECRYPT=0s"}})
	if err == nil {
		t.Fatal("a batch of 0 and a window of 0 were accepted")
	}
	for _, want := range []string{"retention.batch", "retention.window.public_decrypt"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("the refusal does not name %s: %v", want, err)
		}
	}
	s, _, err := loadServeConfig(configSources{env: []string{"RELAYER_DATA_DIR=/srv/relayer"}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Retention.Enabled || s.Retention.Window(domain.PublicDecrypt) != 365*24*time.Hour || s.Archive != filepath.Join("/srv/relayer", "archive") {
		t.Fatalf("defaults: %+v, archive %s; want on, the reference's windows, the archive in the data directory", s.Retention, s.Archive)
	}
}

// waitArchived polls a job's status route until it answers 404 saying the job was archived (30 s
// at most; the failure quotes the last answer and serve's output).
func waitArchived(t *testing.T, statusURL string, stdout, stderr fmt.Stringer) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, b := httpGet(t, statusURL)
		if res.StatusCode == http.StatusNotFound && strings.Contains(string(b), "archived") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was not archived within 30 s; last answer %d %s\n%s\n%s", statusURL, res.StatusCode, b, stdout, stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
