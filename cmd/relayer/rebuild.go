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
	dataDir, storeURL := storeFlags(fs)
	full := fs.Bool("full", false, "decode every field of every event with the full codec (slower; for audits)")
	configFile := fs.String("config", "", "the configuration file serve runs with (env RELAYER_CONFIG): its timeouts set the deadlines, so the rebuilt read models equal serve's")
	if err := fs.Parse(args); err != nil {
		return &exitError{code: 2, err: err}
	}
	if fs.NArg() > 0 {
		return usageErrorf("rebuild: unexpected argument %q", fs.Arg(0))
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

	loc, err := locate(*storeURL, *dataDir)
	if err != nil {
		return usageErrorf("rebuild: --store: %v", err)
	}
	store, err := openExisting(ctx, loc)
	if err != nil {
		return err
	}
	defer store.Close()
	path := loc.String()

	set, rep, err := projections.Rebuild(ctx, store, pcfg)
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
