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
	queues := storeCostHistory(b)
	transitions := 0
	for _, q := range queues {
		transitions += len(q)
	}
	b.Logf("%d jobs, %d transitions, %d events", storeCostJobs, transitions, countEvents(queues))
	for _, design := range []struct {
		name  string
		write func(b *testing.B, dir string, queues [][]encodedAppend)
	}{
		{"event-store", writeEventStore},
		{"status-table", func(b *testing.B, dir string, q [][]encodedAppend) { writeStatusTable(b, dir, q, false, false) }},
		{"status-table-grouped", func(b *testing.B, dir string, q [][]encodedAppend) { writeStatusTable(b, dir, q, true, false) }},
		{"status-table-grouped-indexed", func(b *testing.B, dir string, q [][]encodedAppend) { writeStatusTable(b, dir, q, true, true) }},
	} {
		b.Run(design.name, func(b *testing.B) {
			var wall, cpu time.Duration
			var written int64
			n := 0
			for b.Loop() {
				dir := b.TempDir()
				cpu0, w0 := processCPU(b), writtenBytes(b)
				start := time.Now()
				design.write(b, dir, queues)
				wall += time.Since(start)
				cpu += processCPU(b) - cpu0
				written += writtenBytes(b) - w0
				n += transitions
			}
			b.ReportMetric(float64(n)/wall.Seconds(), "transitions/s")
			b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu-µs/transition")
			b.ReportMetric(float64(written)/float64(n), "bytes-written/transition")
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

func storeCostHistory(b *testing.B) [][]encodedAppend {
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
	return queues
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
	// One writer: it takes what is waiting, up to 64 statements, runs them in one transaction
	// and answers each once it committed.
	db.SetMaxOpenConns(1)
	type req struct {
		a    *encodedAppend
		done chan error
	}
	reqs := make(chan req, len(queues))
	var wg sync.WaitGroup
	wg.Go(func() {
		for r := range reqs {
			batch := []req{r}
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
			tx, err := db.BeginTx(ctx, nil)
			if err == nil {
				for _, r := range batch {
					if err = exec(ctx, tx, r.a); err != nil {
						_ = tx.Rollback()
						break
					}
				}
				if err == nil {
					err = tx.Commit()
				}
			}
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
