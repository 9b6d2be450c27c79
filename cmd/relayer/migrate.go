package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"time"

	"relayer/eventstore"
	"relayer/eventstore/sqlite"
	"relayer/projections"
)

// relayer migrate copies a log from one store to another, keeping every stream, version, event
// (type, schema version, data) and its metadata, in the source's global order. It is how a team
// moves from the embedded SQLite store to a shared database without losing a job.
//
// Resumable: the target must be empty or hold a beginning of the source, event for event (what
// an interrupted migrate leaves); migrate checks that and copies the rest. At the end it
// rebuilds the read models from both stores and prints their digests, which must be equal
// (positions included: both stores number a gapless log the same way).
//
// Both stores' writer locks are taken: a serve running on either is refused (a copy of a log
// that is still growing would be stale when it ends).
//
// relayer migrate --store URL upgrades a store in place instead: a SQLite file an earlier build
// wrote is brought to the format this build reads (sqlite.Upgrade, one transaction), under the
// store's writer lock. Opening an old file any other way fails with an error that says so.

// migrateBatch is how many events migrate hands the target at once.
const migrateBatch = 2048

const migrateUsage = `Usage: relayer migrate --from URL --to URL
       relayer migrate --store URL | --data-dir DIR

With --from and --to: copies a log to another store (sqlite:PATH, postgres://...,
kurrentdb://...), every stream, version, event and its metadata in global order, then checks
that both stores rebuild the same read models. Resumable: run it again after an interruption.

With --store (or --data-dir): upgrades the store to the format this build reads, in place and
in one transaction (a SQLite file an earlier build wrote; a PostgreSQL schema upgrades itself
when opened). No serve may run on the stores either way.
`

func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("migrate", migrateUsage)
	from := fs.String("from", "", "the source store's `URL` (sqlite:PATH, postgres://... or kurrentdb://...)")
	to := fs.String("to", "", "the target store's `URL`; empty, or holding what an interrupted migrate copied")
	dataDir, storeURL := storeFlags(fs)
	if err := parseFlagsOnly(fs, args, stdout, stderr); err != nil {
		return err
	}
	inPlace := false
	fs.Visit(func(f *flag.Flag) { inPlace = inPlace || f.Name == "store" || f.Name == "data-dir" })
	switch {
	case inPlace && (*from != "" || *to != ""):
		return usageErrorf("migrate: give --from and --to to copy a log, or --store (or --data-dir) to upgrade one in place, not both")
	case inPlace:
		loc, err := parseStore(*storeURL, *dataDir)
		if err != nil {
			return usageErrorf("migrate: --store: %v", err)
		}
		return upgradeInPlace(ctx, loc, stdout)
	case *from == "" || *to == "":
		return usageErrorf("migrate: give both --from URL and --to URL (or --store URL to upgrade a store in place)")
	}
	src, err := parseStore(*from, "")
	if err != nil {
		return usageErrorf("migrate: --from: %v", err)
	}
	dst, err := parseStore(*to, "")
	if err != nil {
		return usageErrorf("migrate: --to: %v", err)
	}
	if src == dst || sameSQLiteFile(src, dst) {
		return usageErrorf("migrate: --from and --to are the same store")
	}
	source, err := openExisting(ctx, src)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer source.Close()
	// Nobody writes the source while it is copied: a serve still running on it would make the
	// copy stale the moment it ends.
	unlockSource, err := holdWriterLock(ctx, src, source, fmt.Sprintf("relayer migrate (reading), pid %d", os.Getpid()))
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("migrate: the source: %w (stop the serve writing it first)", err)}
	}
	defer unlockSource()
	target, unlock, lost, err := openWriter(ctx, dst, fmt.Sprintf("relayer migrate, pid %d", os.Getpid()), false)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("migrate: %w", err)}
	}
	defer unlock()
	defer target.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-lost:
			cancel()
		case <-ctx.Done():
		}
	}()

	start := time.Now()
	kept, copied, err := migrate(ctx, source, target, func(n uint64) {
		fmt.Fprintf(stdout, "  %d events copied (%.0f events/s)\n", n, float64(n)/time.Since(start).Seconds())
	})
	elapsed := time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stdout, "relayer migrate: interrupted after copying %d events (%d were there already); run it again to go on\n", copied, kept)
		}
		return fmt.Errorf("migrate: %w", err)
	}
	fmt.Fprintf(stdout, "relayer migrate: %d events copied from %s to %s in %s (%.0f events/s); %d were there already\n",
		copied, src, dst, elapsed.Round(time.Millisecond), float64(copied)/max(elapsed.Seconds(), 1e-9), kept)

	// Both ends' read models must be the same. They are rebuilt with serve's settings (its
	// environment and RELAYER_CONFIG, as relayer rebuild without --config reads them), so that
	// the digests are those rebuild and serve print for the same log.
	pcfg := projections.Config{}
	env := serveEnviron()
	if settings, _, err := loadServeConfig(configSources{file: lookupEnv(env, envPrefix+"CONFIG"), env: env}); err == nil {
		pcfg = settings.Projections
	} else {
		fmt.Fprintf(stdout, "  (serve's configuration does not load, so the read models are rebuilt with the default settings: %v)\n", err)
	}
	a, err := digestOf(ctx, source, pcfg)
	if err != nil {
		return fmt.Errorf("migrate: rebuild from %s: %w", src, err)
	}
	b, err := digestOf(ctx, target, pcfg)
	if err != nil {
		return fmt.Errorf("migrate: rebuild from %s: %w", dst, err)
	}
	fmt.Fprintf(stdout, "  source read models: snapshot sha256 %x\n  target read models: snapshot sha256 %x\n", a, b)
	if a != b {
		return &exitError{code: 1, err: errors.New("migrate: the read models of the two stores differ")}
	}
	fmt.Fprintln(stdout, "  equal: the target holds the source's log")
	return nil
}

// upgradeInPlace brings the store at loc to the format this build reads, under the store's
// writer lock, so that no serve runs on it meanwhile.
func upgradeInPlace(ctx context.Context, loc storeLocation, stdout io.Writer) error {
	if loc.scheme != "sqlite" {
		// A PostgreSQL schema runs its own migration steps when opened; KurrentDB has no
		// format of ours. A schema that holds no store is refused, not created (a mistyped
		// search_path was created and reported at this build's format).
		s, err := openExisting(ctx, loc)
		if err != nil {
			return &exitError{code: 1, err: fmt.Errorf("migrate: %w", err)}
		}
		release, err := holdWriterLock(ctx, loc, s, fmt.Sprintf("relayer migrate, pid %d", os.Getpid()))
		if err != nil {
			s.Close()
			return &exitError{code: 1, err: fmt.Errorf("migrate: %w (stop the serve writing it first)", err)}
		}
		err = s.Close()
		release()
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		fmt.Fprintf(stdout, "relayer migrate: %s is at the format this build reads\n", loc)
		return nil
	}
	dir, err := realDir(loc.path)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	unlock, err := lockStore(dir, fmt.Sprintf("relayer migrate (upgrading), pid %d", os.Getpid()))
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("migrate: %w (stop the serve writing it first)", err)}
	}
	defer unlock()
	start := time.Now()
	from, err := sqlite.Upgrade(ctx, loc.path)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("migrate: %w", err)}
	}
	if from == sqlite.FormatVersion {
		fmt.Fprintf(stdout, "relayer migrate: %s is at format %d already: nothing to do\n", loc, from)
		return nil
	}
	fmt.Fprintf(stdout, "relayer migrate: %s upgraded from format %d to %d in %s\n", loc, from, sqlite.FormatVersion, time.Since(start).Round(time.Millisecond))
	return nil
}

// migrate copies source's log to target after what target holds already, which must be the
// beginning of source's, event for event. It reports the events found in target (kept) and
// those copied; progress is called every so many events copied.
func migrate(ctx context.Context, source, target eventstore.Store, progress func(copied uint64)) (kept, copied uint64, err error) {
	next, stop := iter.Pull2(source.ReadAll(ctx, 0))
	defer stop()

	// What the target holds must be the source's beginning.
	for got, err := range target.ReadAll(ctx, 0) {
		if err != nil {
			return kept, 0, fmt.Errorf("read the target: %w", err)
		}
		want, serr, ok := next()
		if !ok {
			return kept, 0, fmt.Errorf("the target holds more events than the source (%d and more): it is not a copy of it", kept+1)
		}
		if serr != nil {
			return kept, 0, fmt.Errorf("read the source: %w", serr)
		}
		if !sameEvent(want, got) {
			return kept, 0, fmt.Errorf("the target's event %d (%s@%d) is not the source's (%s@%d): the target is not a copy of the source's beginning",
				kept+1, got.Stream, got.Version, want.Stream, want.Version)
		}
		kept++
	}

	batcher, _ := target.(eventstore.BatchAppender)
	var batch []eventstore.StreamAppend
	var pending int
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if batcher != nil {
			_, errs := batcher.AppendBatch(ctx, batch)
			for i, err := range errs {
				if err != nil {
					return fmt.Errorf("append to %s at version %d: %w", batch[i].Stream, batch[i].Expected+1, err)
				}
			}
		} else {
			for _, a := range batch {
				if _, err := target.Append(ctx, a.Stream, a.Expected, a.Events...); err != nil {
					return fmt.Errorf("append to %s at version %d: %w", a.Stream, a.Expected+1, err)
				}
			}
		}
		copied += uint64(pending)
		if progress != nil && copied%(64*migrateBatch) < uint64(pending) {
			progress(copied)
		}
		batch, pending = batch[:0], 0
		return nil
	}
	for {
		rec, err, ok := next()
		if !ok {
			break
		}
		if err != nil {
			return kept, copied, fmt.Errorf("read the source: %w", err)
		}
		ev := eventstore.Event{Type: rec.Type, SchemaVersion: rec.SchemaVersion, Data: rec.Data, Metadata: rec.Metadata}
		if n := len(batch); n > 0 && batch[n-1].Stream == rec.Stream {
			batch[n-1].Events = append(batch[n-1].Events, ev)
		} else {
			batch = append(batch, eventstore.StreamAppend{Stream: rec.Stream, Expected: rec.Version - 1, Events: []eventstore.Event{ev}})
		}
		if pending++; pending >= migrateBatch {
			if err := flush(); err != nil {
				return kept, copied, err
			}
		}
	}
	if err := flush(); err != nil {
		return kept, copied, err
	}
	return kept, copied, ctx.Err()
}

// sameEvent reports whether two records hold the same event of the same stream and version.
func sameEvent(a, b eventstore.Record) bool {
	return a.Stream == b.Stream && a.Version == b.Version && a.Type == b.Type && a.SchemaVersion == b.SchemaVersion &&
		bytes.Equal(a.Data, b.Data) && a.Metadata.CorrelationID == b.Metadata.CorrelationID &&
		a.Metadata.CausationID == b.Metadata.CausationID && a.Metadata.RecordedAt.Equal(b.Metadata.RecordedAt)
}

// digestOf is the SHA-256 of the read models rebuilt from store with cfg.
func digestOf(ctx context.Context, store eventstore.Store, cfg projections.Config) ([32]byte, error) {
	set, _, err := projections.Rebuild(ctx, store, cfg)
	if err != nil {
		return [32]byte{}, err
	}
	snap, err := set.Snapshot()
	if err != nil {
		return [32]byte{}, err
	}
	return sha256.Sum256(snap), nil
}

// sameSQLiteFile reports whether a and b are one SQLite file reached by two paths (d/../d/relayer.db,
// a symbolic link): the same store, which the writer lock alone refused with a message naming this
// very process.
func sameSQLiteFile(a, b storeLocation) bool {
	if a.scheme != "sqlite" || b.scheme != "sqlite" {
		return false
	}
	return realPath(a.path) == realPath(b.path)
}

// realPath is the SQLite file at path as realDir finds its directory, links resolved: two paths
// to one file give the same.
func realPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			return r
		}
	}
	dir, err := realDir(path)
	if err != nil {
		return path
	}
	return filepath.Join(dir, filepath.Base(path))
}
