package projections

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/eventstore/sqlite"
)

// BenchmarkStoreCost is the realistic write workload, and the design the reference relayer uses
// measured beside it in the same run (run it with -benchtime 1x: one op is the whole history):
//
//   - the history: storeCostJobs jobs from the history generator, as the engine writes them (the
//     domain's real encoded events, job ids derived from content hashes, so that stream names
//     are random; one append per command, each waiting for its durable acknowledgement), written
//     by 64 goroutines, each job's appends in order from one goroutine;
//   - event-store: our SQLite store, as serve opens it;
//   - status-table: a jobs table with a status column on the same driver and pragmas (WAL,
//     synchronous FULL): an INSERT for the acceptance and an UPDATE ... WHERE id = ? AND
//     status = ? per later command, carrying the same payload; each statement its own
//     transaction from 64 connections (the reference's way);
//   - status-table-grouped: the same statements from the same 64 goroutines, committed by one
//     writer up to 64 per transaction (what our store's writer does for appends);
//   - status-table-grouped-indexed: the same with the index on status its queue queries need.
//
// Each reports transitions/s (appends: one command's events, one status change), the process's
// CPU per transition and the bytes it wrote per transition (write_bytes of /proc/self/io: what
// reached the block layer, WAL and checkpoints included).
func BenchmarkStoreCost(b *testing.B) {
	queues, transitions := storeCostHistory(b)
	b.Logf("%d jobs, %d transitions, %d events", storeCostJobs, transitions, countEvents(queues))
	runStoreCost(b, queues, transitions, storeCostDesigns(writeEventStore, writeStatusTable), storeCostTarget{
		cpuMetric: "cpu-µs/transition", bytesMetric: "bytes-written/transition",
		// A new directory; the bytes this process caused to be written to storage meanwhile.
		open: func(b *testing.B) (string, func() int64) {
			dir := b.TempDir()
			w0 := writtenBytes(b)
			return dir, func() int64 { return writtenBytes(b) - w0 }
		},
	})
}

// storeCostDesign is one way to write the history into a target: a directory (SQLite) or a
// database URL (PostgreSQL).
type storeCostDesign struct {
	name  string
	write func(b *testing.B, target string, queues [][]encodedAppend)
}

// storeCostDesigns are the designs a store cost benchmark compares: eventStore, and statusTable
// plain, grouped, and grouped with the index on status.
func storeCostDesigns(eventStore func(b *testing.B, target string, queues [][]encodedAppend),
	statusTable func(b *testing.B, target string, queues [][]encodedAppend, grouped, indexed bool)) []storeCostDesign {
	table := func(grouped, indexed bool) func(*testing.B, string, [][]encodedAppend) {
		return func(b *testing.B, target string, q [][]encodedAppend) { statusTable(b, target, q, grouped, indexed) }
	}
	return []storeCostDesign{
		{"event-store", eventStore},
		{"status-table", table(false, false)},
		{"status-table-grouped", table(true, false)},
		{"status-table-grouped-indexed", table(true, true)},
	}
}

// storeCostTarget is where a store cost benchmark writes: open makes a new target and returns it
// with a function that tells the bytes written to storage since; cpuMetric and bytesMetric name
// what the benchmark reports per transition.
type storeCostTarget struct {
	open                   func(b *testing.B) (target string, written func() int64)
	cpuMetric, bytesMetric string
}

// runStoreCost runs each design as a sub-benchmark, writing the whole history (queues, of
// transitions appends) into a new target per iteration, and reports transitions/s, this
// process's CPU per transition and the bytes written per transition.
func runStoreCost(b *testing.B, queues [][]encodedAppend, transitions int, designs []storeCostDesign, to storeCostTarget) {
	for _, design := range designs {
		b.Run(design.name, func(b *testing.B) {
			var wall, cpu time.Duration
			var written int64
			n := 0
			for b.Loop() {
				target, writtenSince := to.open(b)
				cpu0 := processCPU(b)
				start := time.Now()
				design.write(b, target, queues)
				wall += time.Since(start)
				cpu += processCPU(b) - cpu0
				written += writtenSince()
				n += transitions
			}
			b.ReportMetric(float64(n)/wall.Seconds(), "transitions/s")
			b.ReportMetric(float64(cpu.Microseconds())/float64(n), to.cpuMetric)
			b.ReportMetric(float64(written)/float64(n), to.bytesMetric)
		})
	}
}

// storeCostJobs is the history's size: enough that the jobs table and the events index outgrow
// SQLite's page cache, as a live relayer's do.
const storeCostJobs = 20_000

// encodedAppend is a genAppend with its events encoded, and the job's status before and after.
type encodedAppend struct {
	job            domain.JobID
	stream         string
	expected       eventstore.Version
	events         []eventstore.Event
	payload        []byte // the last event's data: what a status table keeps of the command
	before, status string
}

// storeCostHistory is the history the store cost benchmarks write, split among 64 writers, and
// how many appends (transitions) it has.
func storeCostHistory(b *testing.B) ([][]encodedAppend, int) {
	b.Helper()
	codec := NewCodec()
	status := map[domain.JobID]string{}
	var out []encodedAppend
	for _, a := range generate(11, genOptions{jobs: storeCostJobs, active: 256}) {
		evs, err := encodeAll(codec, a)
		if err != nil {
			b.Fatal(err)
		}
		before := status[a.job]
		after := before
		for _, e := range a.events {
			if st, ok := domain.StatusAfter(e); ok {
				after = st.String()
			}
		}
		status[a.job] = after
		out = append(out, encodedAppend{job: a.job, stream: a.stream, expected: a.expected, events: evs,
			payload: evs[len(evs)-1].Data, before: before, status: after})
	}
	// 64 writers; a job's appends all on one of them, in order.
	queues := make([][]encodedAppend, 64)
	owner := map[domain.JobID]int{}
	for _, a := range out {
		w, ok := owner[a.job]
		if !ok {
			w = len(owner) % len(queues)
			owner[a.job] = w
		}
		queues[w] = append(queues[w], a)
	}
	return queues, len(out)
}

func countEvents(queues [][]encodedAppend) (n int) {
	for _, q := range queues {
		for _, a := range q {
			n += len(a.events)
		}
	}
	return n
}

func writeEventStore(b *testing.B, dir string, queues [][]encodedAppend) {
	store, err := sqlite.Open(filepath.Join(dir, "events.db"), sqlite.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	run(b, queues, func(a *encodedAppend) error {
		_, err := store.Append(ctx, a.stream, a.expected, a.events...)
		return err
	})
}

// writeStatusTable writes the history as status changes of a jobs table: each statement its own
// transaction, or (grouped) committed by one writer up to 64 at a time.
func writeStatusTable(b *testing.B, dir string, queues [][]encodedAppend, grouped, indexed bool) {
	path := filepath.Join(dir, "jobs.db")
	// Transactions begin IMMEDIATE, so that a writer waits (busy_timeout) for the write lock
	// instead of failing when a read turns into a write under another writer's commit.
	dsn := "file:" + path + "?_pragma=busy_timeout(120000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	schema := `CREATE TABLE jobs (id TEXT PRIMARY KEY, status TEXT NOT NULL, detail BLOB NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`
	if _, err := db.ExecContext(ctx, schema); err != nil {
		b.Fatal(err)
	}
	if indexed {
		if _, err := db.ExecContext(ctx, `CREATE INDEX jobs_status ON jobs (status, updated_at)`); err != nil {
			b.Fatal(err)
		}
	}
	const (
		insert = `INSERT INTO jobs (id, status, detail, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`
		update = `UPDATE jobs SET status = ?, detail = ?, updated_at = ? WHERE id = ? AND status = ?`
	)
	exec := func(ctx context.Context, x interface {
		ExecContext(context.Context, string, ...any) (sql.Result, error)
	}, a *encodedAppend) error {
		now := time.Now().UnixNano()
		if a.expected == eventstore.NoStream {
			_, err := x.ExecContext(ctx, insert, a.job.String(), a.status, a.payload, now, now)
			return err
		}
		res, err := x.ExecContext(ctx, update, a.status, a.payload, now, a.job.String(), a.before)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return fmt.Errorf("update %s from %s: %d rows (%v)", a.job, a.before, n, err)
		}
		return nil
	}
	if !grouped {
		db.SetMaxOpenConns(len(queues))
		run(b, queues, func(a *encodedAppend) error {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return fmt.Errorf("begin: %w", err)
			}
			if err := exec(ctx, tx, a); err != nil {
				_ = tx.Rollback()
				return fmt.Errorf("exec: %w", err)
			}
			if err := tx.Commit(); err != nil {
				return fmt.Errorf("commit: %w", err)
			}
			return nil
		})
		return
	}
	// One writer, one transaction a batch.
	db.SetMaxOpenConns(1)
	runGrouped(b, queues, func(batch []*encodedAppend) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		for _, a := range batch {
			if err := exec(ctx, tx, a); err != nil {
				_ = tx.Rollback()
				return err
			}
		}
		return tx.Commit()
	})
}

// runGrouped writes every queue from its own goroutine (run) through one writer: it takes what
// is waiting, up to 64 appends, commits them with commit, and answers each with commit's error
// once it returned.
func runGrouped(b *testing.B, queues [][]encodedAppend, commit func(batch []*encodedAppend) error) {
	type req struct {
		a    *encodedAppend
		done chan error
	}
	reqs := make(chan req, len(queues))
	var wg sync.WaitGroup
	wg.Go(func() {
		var batch []req
		var appends []*encodedAppend
		for r := range reqs {
			batch = append(batch[:0], r)
		gather:
			for len(batch) < 64 {
				select {
				case r, ok := <-reqs:
					if !ok {
						break gather
					}
					batch = append(batch, r)
				default:
					break gather
				}
			}
			appends = appends[:0]
			for _, r := range batch {
				appends = append(appends, r.a)
			}
			err := commit(appends)
			for _, r := range batch {
				r.done <- err
			}
		}
	})
	defer wg.Wait()
	defer close(reqs)
	run(b, queues, func(a *encodedAppend) error {
		done := make(chan error, 1)
		reqs <- req{a, done}
		return <-done
	})
}

// run writes every queue from its own goroutine, each append waiting for write to return.
func run(b *testing.B, queues [][]encodedAppend, write func(*encodedAppend) error) {
	errs := make(chan error, len(queues))
	var wg sync.WaitGroup
	for _, q := range queues {
		wg.Go(func() {
			for i := range q {
				if err := write(&q[i]); err != nil {
					errs <- fmt.Errorf("%s: %w", q[i].stream, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := errors.Join(func() (all []error) {
		for err := range errs {
			all = append(all, err)
		}
		return
	}()...); err != nil {
		b.Fatal(err)
	}
}

// processCPU is the CPU time (user and system) the process has used so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// writtenBytes is write_bytes of /proc/self/io: the bytes this process caused to be written to
// storage so far.
func writtenBytes(b *testing.B) int64 {
	f, err := os.Open("/proc/self/io")
	if err != nil {
		b.Skipf("bytes written are read from /proc/self/io: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "write_bytes: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("/proc/self/io has no write_bytes")
	return 0
}
