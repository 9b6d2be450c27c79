package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"time"

	"relayer/archive"
	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
)

// throughStore is a store whose log ends at position last, for rebuild --through.
type throughStore struct {
	eventstore.Store
	last eventstore.Position
}

func (s throughStore) ReadAll(ctx context.Context, after eventstore.Position) iter.Seq2[eventstore.Record, error] {
	return func(yield func(eventstore.Record, error) bool) {
		for r, err := range s.Store.ReadAll(ctx, after) {
			if err == nil && r.Position > s.last {
				return
			}
			if !yield(r, err) || err != nil {
				return
			}
		}
	}
}

const rebuildUsage = `Usage: relayer rebuild [--data-dir DIR | --store URL] [--config FILE] [--full] [--through POSITION] [--archive DIR|URL]

Replays the log into new read models and reports the events, jobs, time taken and the read
models' digest, which equals the one serve printed when it stopped at the same position. Once
retention has moved jobs to the archive, the live store alone still rebuilds to that digest: the
history the retired jobs added (transitions, stage durations, events applied) is carried in the
retention stream, for any position from the retention stream's last event on; an earlier
--through POSITION needs --archive. --archive replays the whole log instead, the archived events
included.
`

// liveFrom is the first position whose read models the live store alone rebuilds exactly: the
// position of the retention stream's last event (0 without one). The archiver records a segment
// (with the read models' history as of its end) before it prunes the segment's superseded
// housekeeping events, and retires jobs before it removes their streams; read models folded
// through an earlier position would miss what left the live store without taking over its
// history, which only comes later in the log.
func liveFrom(ctx context.Context, store eventstore.Store) (eventstore.Position, error) {
	var last eventstore.Position
	for rec, err := range store.ReadStream(ctx, domain.RetentionStream, 0) {
		if err != nil {
			return 0, fmt.Errorf("read %s: %w", domain.RetentionStream, err)
		}
		last = rec.Position
	}
	return last, nil
}

// errArchiverMoved is rebuildSettled's answer when the archiver changed the live store while the
// rebuild read it.
var errArchiverMoved = errors.New("the archiver recorded a segment or retired jobs while this rebuild read the log, " +
	"so events may have left the live store under the read; run it again")

// rebuildSettled folds src into new read models, and fails when the retention stream of live
// moved past from (its last event's position when the caller checked) meanwhile: another
// instance's archiver then removed or pruned events the read may not have reached yet, and read
// models folded without them are not the log's (or a removal under the read made them
// inconsistent). The archiver appends to the retention stream before it removes anything.
func rebuildSettled(ctx context.Context, live, src eventstore.Store, cfg projections.Config, from eventstore.Position) (*projections.Set, projections.RebuildReport, error) {
	set, rep, err := projections.Rebuild(ctx, src, cfg)
	again, lerr := liveFrom(ctx, live)
	switch {
	case lerr != nil:
		return nil, rep, errors.Join(err, lerr)
	case again != from:
		return nil, rep, fmt.Errorf("%w (the retention stream's last event moved from position %d to %d)", errArchiverMoved, uint64(from), uint64(again))
	case err != nil:
		return nil, rep, err
	}
	return set, rep, nil
}

func runRebuild(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("rebuild", rebuildUsage)
	dataDir, storeURL := storeFlags(fs)
	full := fs.Bool("full", false, "decode every field of every event with the full codec (slower; for audits)")
	configFile := fs.String("config", "", "the YAML configuration `FILE` serve runs with (env RELAYER_CONFIG): its timeouts set the deadlines, so the rebuilt read models equal serve's")
	through := fs.Uint64("through", 0, "rebuild the read models as they were at this global `POSITION` (the one a serve printed with its digest); 0 for the whole log")
	archiveURL := fs.String("archive", "", "read the archive at this directory or s3://bucket/prefix `URL` (retention.archive) before the live store: the whole log")
	if err := parseFlagsOnly(fs, args, stdout, stderr); err != nil {
		return err
	}
	env := serveEnviron()
	file := *configFile
	if file == "" {
		file = lookupEnv(env, envPrefix+"CONFIG")
	}
	settings, _, err := loadServeConfig(configSources{file: file, env: env})
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("rebuild: %w", err)}
	}
	pcfg := settings.Projections
	pcfg.FullDecode = *full

	// The store is --store, else --data-dir's, else the configuration's (its store setting,
	// RELAYER_STORE, or relayer.db in its data_dir): the log serve runs on.
	loc := settings.Store
	dataDirGiven := false
	fs.Visit(func(f *flag.Flag) { dataDirGiven = dataDirGiven || f.Name == "data-dir" })
	if *storeURL != "" || dataDirGiven || file == "" {
		if loc, err = locate(fs, *storeURL, *dataDir); err != nil {
			return usageErrorf("rebuild: --store: %v", err)
		}
	}
	store, err := openExisting(ctx, loc)
	if err != nil {
		return err
	}
	defer store.Close()
	path := loc.String()

	var src eventstore.Store = store
	if *archiveURL != "" {
		arch, err := archive.OpenExistingURL(ctx, *archiveURL)
		if err != nil {
			return usageErrorf("rebuild: --archive: %v", err)
		}
		src = archive.Joined{Store: store, Archive: arch}
		path += " and the archive " + arch.String()
	}
	from, err := liveFrom(ctx, store)
	if err != nil {
		return fmt.Errorf("rebuild from %s: %w", path, err)
	}
	if *through > 0 {
		head, err := store.Head(ctx)
		if err != nil {
			return fmt.Errorf("rebuild from %s: %w", path, err)
		}
		if eventstore.Position(*through) > head {
			return usageErrorf("rebuild: --through %d is beyond the log's head, position %d", *through, uint64(head))
		}
		if *archiveURL == "" && eventstore.Position(*through) < from {
			return usageErrorf("rebuild: --through %d: the live store alone rebuilds the read models as they were at position %d or later, "+
				"the retention stream's last event (the archiver removed retired jobs or pruned housekeeping events at or before it, "+
				"and their part of the history is carried there); add --archive to rebuild an earlier position", *through, uint64(from))
		}
		src = throughStore{Store: src, last: eventstore.Position(*through)}
	}
	set, rep, err := rebuildSettled(ctx, store, src, pcfg, from)
	if err != nil {
		return fmt.Errorf("rebuild from %s: %w", path, err)
	}
	snap, err := set.Snapshot()
	if err != nil {
		return fmt.Errorf("rebuild: snapshot: %w", err)
	}
	// The events count the log's whole history as the read models hold it: with retired jobs, the
	// part the archive holds comes with the history carried in the live store, and the retired
	// jobs are counted apart from the jobs held.
	retired := ""
	if n := set.RetiredJobs(); n > 0 {
		retired = fmt.Sprintf(" held, %d retired", n)
	}
	fmt.Fprintf(stdout, "rebuilt %d events of %d jobs%s in %s (%.0f events/s) from %s; read models at position %d\n",
		rep.Events, rep.Jobs, retired, rep.Elapsed.Round(time.Microsecond), rep.EventsPerSecond, path, rep.Position)
	fmt.Fprintf(stdout, "snapshot sha256 %x (%d bytes): the same log always rebuilds to the same digest\n\n", sha256.Sum256(snap), len(snap))

	counts := set.Counts()
	fmt.Fprintf(stdout, "  %-18s", "status")
	for _, k := range domain.Kinds() {
		fmt.Fprintf(stdout, " %22s", k)
	}
	fmt.Fprintln(stdout)
	for _, st := range domain.Statuses() {
		fmt.Fprintf(stdout, "  %-18s", st)
		for _, k := range domain.Kinds() {
			fmt.Fprintf(stdout, " %22d", counts.Of(k, st))
		}
		fmt.Fprintln(stdout)
	}
	q := set.QueueLengths()
	fmt.Fprintf(stdout, "\n  queues: readiness %d, readiness in progress %d, transaction %d\n", q.Readiness, q.ReadinessInProgress, q.Tx)
	return nil
}
