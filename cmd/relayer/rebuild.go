package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"time"

	"relayer/domain"
	"relayer/projections"
)

func runRebuild(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("rebuild", stderr)
	dataDir := dataDirFlag(fs)
	full := fs.Bool("full", false, "decode every field of every event with the full codec (slower; for audits)")
	if err := fs.Parse(args); err != nil {
		return &exitError{code: 2, err: err}
	}
	if fs.NArg() > 0 {
		return usageErrorf("rebuild: unexpected argument %q", fs.Arg(0))
	}
	store, path, err := openExisting(*dataDir)
	if err != nil {
		return err
	}
	defer store.Close()

	set, rep, err := projections.Rebuild(ctx, store, projections.Config{FullDecode: *full})
	if err != nil {
		return fmt.Errorf("rebuild from %s: %w", path, err)
	}
	snap, err := set.Snapshot()
	if err != nil {
		return fmt.Errorf("rebuild: snapshot: %w", err)
	}
	fmt.Fprintf(stdout, "rebuilt %d events of %d jobs in %s (%.0f events/s) from %s; read models at position %d\n",
		rep.Events, rep.Jobs, rep.Elapsed.Round(time.Microsecond), rep.EventsPerSecond, path, rep.Position)
	fmt.Fprintf(stdout, "snapshot sha256 %x (%d bytes): the same log always rebuilds to the same digest\n\n", sha256.Sum256(snap), len(snap))

	counts := set.Counts()
	fmt.Fprintf(stdout, "  %-18s", "status")
	for _, k := range domain.Kinds() {
		fmt.Fprintf(stdout, " %15s", k)
	}
	fmt.Fprintln(stdout)
	for _, st := range domain.Statuses() {
		fmt.Fprintf(stdout, "  %-18s", st)
		for _, k := range domain.Kinds() {
			fmt.Fprintf(stdout, " %15d", counts.Of(k, st))
		}
		fmt.Fprintln(stdout)
	}
	q := set.QueueLengths()
	fmt.Fprintf(stdout, "\n  queues: readiness %d, readiness in progress %d, transaction %d\n", q.Readiness, q.ReadinessInProgress, q.Tx)
	return nil
}
