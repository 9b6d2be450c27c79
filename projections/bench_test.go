package projections

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/eventstore/sqlite"
)

// Run with: go test -run '^$' -bench . -benchmem -count=3 ./projections/
//
// BenchmarkReplay rebuilds all four read models from a SQLite log of realistic mixed histories
// (replayJobs jobs, about 6 events each) and reports events/s. Its sub-benchmarks are the
// baselines that make the number mean something: read-only is the store alone (ReadAll with
// nothing done with the records), full-decode is the rebuild with the codec's full decoding
// instead of the projections' decoder, and decode+apply (and decode+apply-codec) is the
// projections' own work on records already in memory, on one goroutine.
//
// BenchmarkPositionLookup measures a job's own queue position (Locate) at a million jobs, most
// of them in the TX queue. BenchmarkMemory builds the projections for a million jobs and
// reports the heap they hold per job (B/job).

const (
	replayJobs = 100_000
	// replayFormat names the generator's output; bump it when the generator changes, so a stale
	// cached log is not reused.
	replayFormat = 2
)

// replayLog returns the path of a SQLite log holding the replay history, creating it on first
// use. It is cached in the system's temporary directory across runs (building it takes a while
// and is not what is measured), under a name that says the store's file format; it is written
// under a temporary name and renamed when complete, so an interrupted run never leaves a
// partial log behind under the real name.
func replayLog(b *testing.B) string {
	b.Helper()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("relayer-projections-replay-v%d-format%d-%d.db", replayFormat, sqlite.FormatVersion, replayJobs))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	start := time.Now()
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	store, err := sqlite.Open(tmp, sqlite.Config{})
	if err != nil {
		b.Fatal(err)
	}
	appends := generate(1, genOptions{jobs: replayJobs, active: 2000, unfinished: 0.02, sameHash: 0.01})
	if err := appendConcurrently(context.Background(), store, appends, 64, nil); err != nil {
		b.Fatal(err)
	}
	if err := store.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	b.Logf("built %s in %s", path, time.Since(start).Round(time.Millisecond))
	return path
}

func BenchmarkReplay(b *testing.B) {
	path := replayLog(b)
	store, err := sqlite.Open(path, sqlite.Config{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()

	b.Run("projections", func(b *testing.B) { benchRebuild(b, store, Config{}) })
	b.Run("full-decode", func(b *testing.B) { benchRebuild(b, store, Config{FullDecode: true}) })
	// decode+apply is the projections' own work, without the store: the log's records are read
	// into memory first, then decoded and applied one by one on one goroutine, with the
	// projections' decoder and (decode+apply-codec) with the codec's full decoding.
	recs := readAll(b, store)
	for _, full := range []bool{false, true} {
		name := "decode+apply"
		if full {
			name += "-codec"
		}
		b.Run(name, func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				s, err := New(Config{FullDecode: full})
				if err != nil {
					b.Fatal(err)
				}
				decodeApply(b, s, recs)
			}
			b.ReportMetric(float64(len(recs))*float64(b.N)/time.Since(start).Seconds(), "events/s")
		})
	}
	recs = nil
	// raw-scan is the floor of reading the same rows: one plain query through database/sql
	// over the whole events table in position order, every column scanned without conversion
	// (sql.RawBytes), nothing kept; replay's target is at least half its rate.
	b.Run("raw-scan", func(b *testing.B) {
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		var events int
		start := time.Now()
		for b.Loop() {
			events = rawScan(b, db)
		}
		b.ReportMetric(float64(events)*float64(b.N)/time.Since(start).Seconds(), "events/s")
	})
	b.Run("read-only", func(b *testing.B) {
		var events int
		start := time.Now()
		for b.Loop() {
			events = 0
			for _, err := range store.ReadAll(ctx, 0) {
				if err != nil {
					b.Fatal(err)
				}
				events++
			}
		}
		b.ReportMetric(float64(events)*float64(b.N)/time.Since(start).Seconds(), "events/s")
	})
}

// rawScan reads every row of the events table with one query and returns how many it read.
func rawScan(b *testing.B, db *sql.DB) int {
	rows, err := db.Query(`SELECT position, stream, version, type, schema_version, data, correlation_id, causation_id, recorded_at FROM events ORDER BY position`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var cols [9]sql.RawBytes
	dest := make([]any, len(cols))
	for i := range cols {
		dest[i] = &cols[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}

func benchRebuild(b *testing.B, store eventstore.Store, cfg Config) {
	var events uint64
	var elapsed time.Duration
	for b.Loop() {
		_, rep, err := Rebuild(context.Background(), store, cfg)
		if err != nil {
			b.Fatal(err)
		}
		events += rep.Events
		elapsed += rep.Elapsed
	}
	b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
}

// bigSet builds a Set of n input proofs straight from facts (no store, no JSON: only the read
// models are measured): all accepted into the TX queue, then a random tenth signed, so the queue
// has holes.
func bigSet(tb testing.TB, n int) (*Set, []domain.JobID) {
	tb.Helper()
	s, err := New(Config{})
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	ids := make([]domain.JobID, n)
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	var pos eventstore.Position
	hash := make([]byte, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range ids {
		g := generator{rng: rng}
		ids[i] = g.jobID()
		for k := range hash {
			hash[k] = hexDigits[rng.IntN(16)]
		}
		pos++
		rec := eventstore.Record{Stream: ids[i].Stream(), Position: pos}
		f := fact{typ: evRequestAccepted, job: ids[i], at: base + int64(i)*int64(time.Millisecond),
			kind: domain.InputProof, status: domain.Processing, contentHash: hash}
		if err := s.apply(&rec, &f); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range ids {
		if rng.IntN(10) != 0 {
			continue
		}
		pos++
		rec := eventstore.Record{Stream: ids[i].Stream(), Version: 1, Position: pos}
		f := fact{typ: evTransactionSigned, job: ids[i], at: base + int64(n+i)*int64(time.Millisecond), txHash: hash}
		if err := s.apply(&rec, &f); err != nil {
			tb.Fatal(err)
		}
	}
	return s, ids
}

func BenchmarkPositionLookup(b *testing.B) {
	const n = 1_000_000
	s, ids := bigSet(b, n)
	rng := rand.New(rand.NewPCG(1, 2))
	probe := make([]domain.JobID, 4096)
	for i := range probe {
		probe[i] = ids[rng.IntN(n)]
	}
	b.Logf("TX queue: %d of %d jobs", s.QueueLengths().Tx, n)
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if _, ok := s.Locate(probe[i&4095]); !ok {
			b.Fatal("job not found")
		}
		i++
	}
}

// heapInUse returns the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func BenchmarkMemory(b *testing.B) {
	const n = 1_000_000
	for b.Loop() {
		perJob, s := measureMemory(b, n)
		b.ReportMetric(perJob, "B/job")
		var text int
		for i := range s.jobs.n {
			text += len(s.jobs.at(i).text())
		}
		b.Logf("%.0f B/job: job record %d B (content hash included), packed text %.0f B on average (an ended job's held in shared blocks, exactly), index and queues the rest; %d jobs in queues, %d deadlines",
			perJob, unsafe.Sizeof(job{}), float64(text)/float64(n),
			s.queues[ReadinessQueue].len()+s.queues[ReadinessInProgress].len()+s.queues[TxQueue].len(), len(s.timers.items))
	}
}

// BenchmarkRetiredMemory retires a million jobs, in the archiver's batches of 2000 ids, and
// reports the heap the retired set holds per retired job (B/retired) and the cost of looking
// up an id that was never retired (ns/op). Its baseline, map, is the map of ids the set replaced.
func BenchmarkRetiredMemory(b *testing.B) {
	const n, batch = 1_000_000, 2000
	probe := make([]domain.JobID, 4096)
	b.Run("runs", func(b *testing.B) {
		g := generator{rng: rand.New(rand.NewPCG(9, 9))}
		ids := make([]domain.JobID, batch)
		before := heapInUse()
		var r retiredIDs
		for range n / batch {
			for i := range ids {
				ids[i] = g.jobID()
			}
			r.add(ids)
		}
		held := heapInUse() - before
		for i := range probe {
			probe[i] = g.jobID()
		}
		i := 0
		for b.Loop() {
			if r.contains(probe[i&4095]) {
				b.Fatal("a never-seen id is retired")
			}
			i++
		}
		b.ReportMetric(float64(held)/n, "B/retired")
		b.Logf("%d retired ids in %d runs", r.len(), len(r.runs))
	})
	b.Run("map", func(b *testing.B) {
		g := generator{rng: rand.New(rand.NewPCG(9, 9))}
		before := heapInUse()
		m := map[domain.JobID]struct{}{}
		for range n {
			m[g.jobID()] = struct{}{}
		}
		held := heapInUse() - before
		i := 0
		for b.Loop() {
			if _, ok := m[probe[i&4095]]; ok {
				b.Fatal("a never-seen id is retired")
			}
			i++
		}
		b.ReportMetric(float64(held)/n, "B/retired")
	})
}

// measureMemory builds the projections for n jobs of realistic mixed histories (the replay
// benchmark's mix, most jobs finished, a few percent in every queue and status) and returns the
// heap they hold per job. Events go through the projections' decoder and apply one by one as
// they are generated, so nothing but the projections stays on the heap.
func measureMemory(tb testing.TB, n int) (float64, *Set) {
	tb.Helper()
	g := newGenerator(3, genOptions{jobs: n, active: 2000, unfinished: 0.02, sameHash: 0.01})
	before := heapInUse()
	s, err := New(Config{})
	if err != nil {
		tb.Fatal(err)
	}
	eachRecord(tb, g, func(rec eventstore.Record) {
		var f fact
		if err := s.dec.decode(&rec, &f); err != nil {
			tb.Fatal(err)
		}
		if err := s.apply(&rec, &f); err != nil {
			tb.Fatal(err)
		}
	})
	g = nil
	after := heapInUse()
	runtime.KeepAlive(s)
	return float64(after-before) / float64(n), s
}

// BenchmarkDecode compares, per event type, the projections' decoder with the codec's full
// decoding (the baseline), on events of the replay benchmark's mix.
func BenchmarkDecode(b *testing.B) {
	codec := NewCodec()
	byType := map[string]eventstore.Record{}
	var order []string
	eachRecord(b, newGenerator(5, genOptions{jobs: 300, active: 50}), func(rec eventstore.Record) {
		if _, seen := byType[rec.Type]; !seen {
			order = append(order, rec.Type)
			byType[rec.Type] = rec
		}
	})
	for _, full := range []bool{false, true} {
		name := "projections"
		if full {
			name = "codec"
		}
		d := newDecoder(codec, full)
		for _, typ := range order {
			rec := byType[typ]
			b.Run(name+"/"+typ, func(b *testing.B) {
				b.SetBytes(int64(len(rec.Data)))
				var f fact
				for b.Loop() {
					if err := d.decode(&rec, &f); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
