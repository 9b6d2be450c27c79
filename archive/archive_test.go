package archive_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"relayer/archive"
	"relayer/domain"
	"relayer/eventstore"
)

// stores is every Store implementation the suite runs against, each made fresh per test.
var stores = []struct {
	name string
	open func(t *testing.T) archive.Store
}{
	{"a directory", func(t *testing.T) archive.Store {
		s, err := archive.OpenURL(context.Background(), filepath.Join(t.TempDir(), "archive"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}},
	{"an S3 bucket over HTTP", func(t *testing.T) archive.Store {
		return newS3(t, "archive/segments")
	}},
}

// newS3 starts an S3-compatible server (gofakes3, in memory, over real HTTP) with a bucket, and
// opens the store through its s3:// URL with credentials from the AWS environment variables,
// as an operator would.
func newS3(t *testing.T, prefix string) archive.Store {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("relayer-archive"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDARCHIVETEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "archive-test-secret")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	s, err := archive.OpenURL(context.Background(), "s3://relayer-archive/"+prefix+"?endpoint="+srv.URL+"&region=eu-west-1")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// forEachStore runs test against every store.
func forEachStore(t *testing.T, test func(t *testing.T, store archive.Store)) {
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) { test(t, s.open(t)) })
	}
}

var eventTypes = []string{"RequestAccepted", "ReadinessCheckStarted", "ReadinessPassed", "TransactionSigned", "ReceiptRecorded"}

// logOf builds a log of jobs request streams of five events each, interleaved as a busy relayer
// interleaves them, with a block cursor event (not a job) every so often, from position 1.
func logOf(jobs int, seed uint64) []eventstore.Record {
	rng := rand.New(rand.NewPCG(seed, 1))
	type job struct {
		stream, corr string
		next         int
		user         bool
	}
	var open []*job
	var log []eventstore.Record
	at := time.Date(2026, 11, 26, 12, 0, 0, 123456789, time.UTC)
	started := 0
	for started < jobs || len(open) > 0 {
		at = at.Add(time.Duration(rng.IntN(5_000_000)) + 1)
		pos := eventstore.Position(len(log) + 1)
		if rng.IntN(20) == 0 {
			log = append(log, eventstore.Record{
				Stream: "gateway-cursor", Version: eventstore.Version(len(log)), Position: pos,
				Type: "BlockCursorAdvanced", SchemaVersion: 1,
				Data:     fmt.Appendf(nil, `{"block":%d}`, 1000+len(log)),
				Metadata: eventstore.Metadata{RecordedAt: at},
			})
			continue
		}
		if started < jobs && (len(open) == 0 || rng.IntN(3) == 0) {
			id := uuid.New()
			open = append(open, &job{stream: domain.StreamPrefix + id.String(), corr: uuid.NewString(), user: rng.IntN(3) == 0})
			started++
		}
		i := rng.IntN(len(open))
		j := open[i]
		causation := ""
		if j.next > 0 {
			causation = fmt.Sprintf("%s@%d", j.stream, j.next-1)
		}
		log = append(log, eventstore.Record{
			Stream: j.stream, Version: eventstore.Version(j.next), Position: pos,
			Type: eventTypes[j.next], SchemaVersion: 1 + j.next%2,
			Data:     payload(rng, j.next, j.user),
			Metadata: eventstore.Metadata{CorrelationID: j.corr, CausationID: causation, RecordedAt: at},
		})
		j.next++
		if j.next == len(eventTypes) {
			open = slices.Delete(open, i, i+1)
		}
	}
	// The cursor stream's versions must be gapless like any stream's.
	v := 0
	for i := range log {
		if log[i].Stream == "gateway-cursor" {
			log[i].Version = eventstore.Version(v)
			v++
		}
	}
	return log
}

// payload is the JSON of a job's event at step: the request (a public decrypt's handles, or a
// user decrypt's with its public key and signature) at acceptance, small facts after, with hex
// as random as the chain's and some text outside ASCII.
func payload(rng *rand.Rand, step int, user bool) []byte {
	hex := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return fmt.Sprintf("0x%x", b)
	}
	switch step {
	case 0:
		if user {
			return fmt.Appendf(nil, `{"kind":"user_decrypt","handles":[{"handle":"%s","contractAddress":"%s"}],"userAddress":"%s","publicKey":"%s","signature":"%s","startTimestamp":"%d","durationDays":"10","extraData":"0x00"}`,
				hex(32), hex(20), hex(20), hex(400), hex(65), 1_790_000_000+rng.IntN(1000))
		}
		return fmt.Appendf(nil, `{"kind":"public_decrypt","handles":["%s","%s"],"extraData":"0x00","note":"café \"quoted\" \u00e9"}`, hex(32), hex(32))
	case 1:
		return fmt.Appendf(nil, `{"worker":"readiness-%d"}`, rng.IntN(4))
	case 2:
		return []byte(`{"ready":true}`)
	case 3:
		return fmt.Appendf(nil, `{"txHash":"%s","nonce":%d,"from":"%s","maxFeePerGas":"%d"}`, hex(32), rng.IntN(1e6), hex(20), 1e9+rng.IntN(1e9))
	default:
		return fmt.Appendf(nil, `{"blockNumber":%d,"gatewayRequestId":"%d","status":"completed"}`, 1e6+rng.IntN(1e6), rng.IntN(1e9))
	}
}

// collect drains a record sequence.
func collect(t *testing.T, seq func(func(eventstore.Record, error) bool)) []eventstore.Record {
	t.Helper()
	var out []eventstore.Record
	for r, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func equalRecords(t *testing.T, what string, got, want []eventstore.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Stream != w.Stream || g.Version != w.Version || g.Position != w.Position || g.Type != w.Type ||
			g.SchemaVersion != w.SchemaVersion || string(g.Data) != string(w.Data) ||
			g.Metadata.CorrelationID != w.Metadata.CorrelationID || g.Metadata.CausationID != w.Metadata.CausationID ||
			!g.Metadata.RecordedAt.Equal(w.Metadata.RecordedAt) {
			t.Fatalf("%s: record %d is\n%+v\nwant\n%+v", what, i, g, w)
		}
	}
}

// writeAll archives log in segments of size positions each, and returns the writer.
func writeAll(t *testing.T, store archive.Store, log []eventstore.Record, size int) *archive.Writer {
	t.Helper()
	ctx := context.Background()
	w, err := archive.Open(ctx, store, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(log); i += size {
		part := log[i:min(i+size, len(log))]
		if _, err := w.Write(ctx, part[0].Position, part[len(part)-1].Position, part); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func jobStreams(log []eventstore.Record) []string {
	var s []string
	for _, r := range log {
		if strings.HasPrefix(r.Stream, domain.StreamPrefix) && !slices.Contains(s, r.Stream) {
			s = append(s, r.Stream)
		}
	}
	return s
}

func TestArchivedSegmentsVerifyAndReadBackInPositionOrder(t *testing.T) {
	forEachStore(t, func(t *testing.T, store archive.Store) {
		ctx := context.Background()
		log := logOf(60, 1)
		w := writeAll(t, store, log, 100)
		m := w.Manifest()
		if want := (len(log) + 99) / 100; len(m.Segments) != want {
			t.Fatalf("%d segments, want %d", len(m.Segments), want)
		}
		events := 0
		for i, s := range m.Segments {
			part := log[i*100 : min((i+1)*100, len(log))]
			if s.First != part[0].Position || s.Last != part[len(part)-1].Position || s.Events != len(part) ||
				s.Jobs != len(jobStreams(part)) || s.Bytes <= 0 || len(s.SHA256) != 64 {
				t.Fatalf("manifest entry %d is %+v: want positions %d..%d, %d events, %d jobs",
					i, s, part[0].Position, part[len(part)-1].Position, len(part), len(jobStreams(part)))
			}
			events += s.Events
		}

		sum, err := archive.Verify(ctx, store)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Segments != len(m.Segments) || sum.Events != len(log) || sum.First != 1 || sum.Last != log[len(log)-1].Position {
			t.Fatalf("Verify says %+v for %d events in %d segments", sum, len(log), len(m.Segments))
		}

		equalRecords(t, "Read after 0", collect(t, archive.Read(ctx, store, 0)), log)
		equalRecords(t, "Read after 150", collect(t, archive.Read(ctx, store, 150)), log[150:])
		equalRecords(t, "Read after the last", collect(t, archive.Read(ctx, store, log[len(log)-1].Position)), nil)

		// A job whose events span segments comes back whole, in version order.
		for _, stream := range jobStreams(log)[20:23] {
			var want []eventstore.Record
			for _, r := range log {
				if r.Stream == stream {
					want = append(want, r)
				}
			}
			id, _ := domain.JobIDFromStream(stream)
			equalRecords(t, "ExportJob "+stream, collect(t, archive.ExportJob(ctx, store, id)), want)
		}

		// A new writer picks the manifest up and continues after it.
		w2, err := archive.Open(ctx, store, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(w2.Manifest().Segments, m.Segments) {
			t.Fatal("a reopened writer does not see the committed manifest")
		}
		more := logOf(1, 2)
		for i := range more {
			more[i].Position += log[len(log)-1].Position
		}
		if _, err := w2.Write(ctx, more[0].Position, more[len(more)-1].Position+10, more); err != nil {
			t.Fatal(err)
		}
		equalRecords(t, "Read after the new segment", collect(t, archive.Read(ctx, store, log[len(log)-1].Position)), more)
	})
}

func TestWritingACommittedRangeAgainDoesNothingAndDifferentContentIsRefused(t *testing.T) {
	forEachStore(t, func(t *testing.T, store archive.Store) {
		ctx := context.Background()
		log := logOf(20, 3)
		w := writeAll(t, store, log, 40)
		before := w.Manifest()
		files, _ := store.List(ctx)

		again, err := w.Write(ctx, log[40].Position, log[79].Position, log[40:80])
		if err != nil {
			t.Fatalf("writing a committed range again: %v", err)
		}
		if again != before.Segments[1] {
			t.Fatalf("writing a committed range again gave %+v, want the committed %+v", again, before.Segments[1])
		}
		changed := slices.Clone(log[40:80])
		changed[3].Data = []byte(`{"tampered":true}`)
		if _, err := w.Write(ctx, log[40].Position, log[79].Position, changed); !errors.Is(err, archive.ErrConflict) {
			t.Fatalf("a committed range with other records: %v, want ErrConflict", err)
		}
		after, _ := store.List(ctx)
		if !slices.Equal(files, after) || !slices.Equal(w.Manifest().Segments, before.Segments) {
			t.Fatal("a repeated write changed the archive")
		}

		// A segment committed by an older build whose Parquet bytes differ (here: Snappy) holds
		// the same records: writing them again is still a repeat, not a conflict.
		older, err := archive.EncodeSegment(log[:40], archive.SnappyCodec)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Put(ctx, before.Segments[0].File, older); err != nil {
			t.Fatal(err)
		}
		m := before
		sum := sha256.Sum256(older)
		m.Segments[0].Bytes, m.Segments[0].SHA256 = int64(len(older)), hex.EncodeToString(sum[:])
		b, _ := json.Marshal(m)
		if err := store.Put(ctx, archive.ManifestName, b); err != nil {
			t.Fatal(err)
		}
		w, err = archive.Open(ctx, store, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := w.Write(ctx, 1, 40, log[:40]); err != nil || got != m.Segments[0] {
			t.Fatalf("repeating a write an older build committed: %+v, %v; want the committed entry", got, err)
		}
	})
}

func TestOverlappingRangesAndHolesAreRefused(t *testing.T) {
	forEachStore(t, func(t *testing.T, store archive.Store) {
		ctx := context.Background()
		log := logOf(20, 4)
		w := writeAll(t, store, log[:60], 30) // positions 1..30, 31..60
		for _, c := range []struct {
			name        string
			first, last eventstore.Position
			records     []eventstore.Record
			want        error
		}{
			{"a range inside a segment", 10, 20, log[9:20], archive.ErrOverlap},
			{"a range across two segments", 25, 40, log[24:40], archive.ErrOverlap},
			{"a range across the last segment's end", 55, 70, log[54:70], archive.ErrOverlap},
			{"a range after a hole", 62, 70, log[61:70], archive.ErrGap},
		} {
			if _, err := w.Write(ctx, c.first, c.last, c.records); !errors.Is(err, c.want) {
				t.Errorf("%s (%d..%d): %v, want %v", c.name, c.first, c.last, err, c.want)
			}
		}
		if _, err := w.Write(ctx, 61, 61, nil); err != nil {
			t.Fatalf("a range of positions with nothing archived: %v", err)
		}
		if _, err := archive.Verify(ctx, store); err != nil {
			t.Fatal(err)
		}
	})
}

// corrupt applies change to one segment's file, as a disk, an operator or an attacker might.
func corrupt(t *testing.T, store archive.Store, file string, change func([]byte) []byte) {
	t.Helper()
	ctx := context.Background()
	b, err := store.Get(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Put(ctx, file, change(b)); err != nil {
		t.Fatal(err)
	}
}

func TestCorruptionIsFoundAndNamesTheSegment(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, store archive.Store, seg archive.Segment)
		want   string
	}{
		{"a flipped byte", func(t *testing.T, store archive.Store, seg archive.Segment) {
			corrupt(t, store, seg.File, func(b []byte) []byte { b[len(b)/2] ^= 0x01; return b })
		}, "SHA-256"},
		{"a truncated file", func(t *testing.T, store archive.Store, seg archive.Segment) {
			corrupt(t, store, seg.File, func(b []byte) []byte { return b[:len(b)-100] })
		}, "bytes, the manifest says"},
		{"a deleted file", func(t *testing.T, store archive.Store, seg archive.Segment) {
			if err := store.Delete(context.Background(), seg.File); err != nil {
				t.Fatal(err)
			}
		}, "not found"},
		{"a manifest whose ranges overlap", func(t *testing.T, store archive.Store, seg archive.Segment) {
			corrupt(t, store, archive.ManifestName, func(b []byte) []byte {
				var m archive.Manifest
				if err := json.Unmarshal(b, &m); err != nil {
					t.Fatal(err)
				}
				m.Segments[1].First -= 5
				m.Segments[1].File = fmt.Sprintf("segment-%020d-%020d.parquet", m.Segments[1].First, m.Segments[1].Last)
				b, _ = json.Marshal(m)
				return b
			})
		}, "overlaps"},
		{"a segment file swapped for another valid one", func(t *testing.T, store archive.Store, seg archive.Segment) {
			ctx := context.Background()
			other, err := store.Get(ctx, fmt.Sprintf("segment-%020d-%020d.parquet", 1, 40)) // the sound first segment
			if err != nil {
				t.Fatal(err)
			}
			if err := store.Put(ctx, seg.File, other); err != nil {
				t.Fatal(err)
			}
		}, "segment-"},
	}
	log := logOf(30, 5)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			forEachStore(t, func(t *testing.T, store archive.Store) {
				ctx := context.Background()
				w := writeAll(t, store, log[:120], 40)
				seg := w.Manifest().Segments[1]
				c.damage(t, store, seg)
				_, err := archive.Verify(ctx, store)
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("Verify after %s: %v, want an error saying %q", c.name, err, c.want)
				}
				if !strings.Contains(err.Error(), "segment-") {
					t.Fatalf("Verify's error does not name a segment: %v", err)
				}
				// Read yields the sound segment before it, then the error, never a damaged record.
				var readErr error
				for r, err := range archive.Read(ctx, store, 0) {
					if err != nil {
						readErr = err
						break
					}
					if r.Position >= seg.First {
						t.Fatalf("Read yielded position %d from the damaged segment", r.Position)
					}
				}
				if readErr == nil {
					t.Fatal("Read over a damaged archive ended without an error")
				}
			})
		})
	}
}

func TestAKilledRunResumesWithoutLossOrDuplicates(t *testing.T) {
	forEachStore(t, func(t *testing.T, store archive.Store) {
		ctx := context.Background()
		log := logOf(40, 6)
		w := writeAll(t, store, log[:100], 50)

		// The kill: segment 101..150 reached the store but not the manifest; the next one,
		// 151..200, was still a temporary file (a directory store's Put in progress).
		uncommitted, err := archive.EncodeSegment(log[100:150], archive.SegmentCodec)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Put(ctx, fmt.Sprintf("segment-%020d-%020d.parquet", 101, 150), uncommitted); err != nil {
			t.Fatal(err)
		}
		if err := store.Put(ctx, fmt.Sprintf("segment-%020d-%020d.parquet.tmp", 151, 200), []byte("PAR1 half")); err != nil {
			t.Fatal(err)
		}
		if d, ok := store.(*archive.Dir); ok { // and a directory's own temporary name, as Put leaves it
			if err := os.WriteFile(filepath.Join(d.String(), archive.ManifestName+".tmp"), []byte("{"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := archive.Verify(ctx, store); err != nil {
			t.Fatalf("uncommitted files made the committed archive fail: %v", err)
		}
		committed := w.Manifest()

		// The archiver starts again and repeats its work from the last committed write on.
		w, err = archive.Open(ctx, store, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(w.Manifest().Segments, committed.Segments) {
			t.Fatal("resuming changed the committed manifest")
		}
		names, _ := store.List(ctx)
		for _, name := range names {
			if strings.HasSuffix(name, ".tmp") || name == fmt.Sprintf("segment-%020d-%020d.parquet", 101, 150) {
				t.Fatalf("resuming left %s in the store", name)
			}
		}
		if _, err := w.Write(ctx, 51, 100, log[50:100]); err != nil {
			t.Fatalf("repeating the last committed write: %v", err)
		}
		for i := 100; i < len(log); i += 50 {
			part := log[i:min(i+50, len(log))]
			if _, err := w.Write(ctx, part[0].Position, part[len(part)-1].Position, part); err != nil {
				t.Fatal(err)
			}
		}
		sum, err := archive.Verify(ctx, store)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Events != len(log) {
			t.Fatalf("after resuming the archive holds %d events, want %d", sum.Events, len(log))
		}
		equalRecords(t, "Read after resuming", collect(t, archive.Read(ctx, store, 0)), log)
		names, _ = store.List(ctx)
		segments := 0
		for _, name := range names {
			if strings.HasPrefix(name, "segment-") {
				segments++
			}
		}
		if segments != len(w.Manifest().Segments) {
			t.Fatalf("%d segment files for %d manifest entries: %v", segments, len(w.Manifest().Segments), names)
		}
	})
}

func TestArchiveURLs(t *testing.T) {
	ctx := context.Background()
	const secret = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"
	for _, c := range []struct {
		name, url, want string
	}{
		{"a user and password", "s3://AKIDEXAMPLE:" + secret + "@bucket/prefix?endpoint=http://127.0.0.1:9000", "credentials in the URL are refused"},
		{"a secret parameter", "s3://bucket/prefix?secret_access_key=" + secret, `parameter "secret_access_key" is not known`},
		{"a signed-URL credential", "s3://bucket/prefix?X-Amz-Credential=" + secret, `parameter "X-Amz-Credential" is not known`},
		{"credentials in the endpoint", "s3://bucket/prefix?endpoint=http://AKID:" + secret + "@127.0.0.1:9000", "credentials in the endpoint are refused"},
		{"an endpoint that is no URL", "s3://bucket/p?endpoint=127.0.0.1:9000", "endpoint must be an http:// or https:// URL"},
		{"no bucket", "s3:///prefix?endpoint=http://127.0.0.1:9000", "Bucket is empty"},
		{"another scheme", "gs://bucket/prefix", `scheme "gs"`},
	} {
		_, err := archive.OpenURL(ctx, c.url)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("%s: the error repeats the secret: %v", c.name, err)
		}
	}
	dir := filepath.Join(t.TempDir(), "a", "b")
	if s, err := archive.OpenURL(ctx, "file://"+dir); err != nil || s.String() != dir {
		t.Fatalf("file:// URL: %v, %v", s, err)
	}
}

// OpenExistingURL, for the commands that only read, opens a directory that exists (as a path or
// a file:// URL) and refuses one that does not, or a file, without making anything; other
// locations are OpenURL's.
func TestOpenExistingURLOpensOnlyADirectoryThatExists(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, loc := range []string{dir, "file://" + dir} {
		if _, err := archive.OpenExistingURL(ctx, loc); err != nil {
			t.Errorf("OpenExistingURL(%q): %v", loc, err)
		}
	}
	missing := filepath.Join(dir, "missing")
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for loc, want := range map[string]string{
		missing:             missing + ": no such directory",
		"file://" + missing: missing + ": no such directory",
		file:                file + ": not a directory",
		"ftp://host/x":      `scheme "ftp"`,
	} {
		if _, err := archive.OpenExistingURL(ctx, loc); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("OpenExistingURL(%q): %v; want an error saying %q", loc, err, want)
		}
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the missing directory was made (%v)", err)
	}
}
