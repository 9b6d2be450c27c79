package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"relayer/archive"
	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers"
)

const archiveUsage = `Usage: relayer archive verify --archive DIR|URL
       relayer archive export --archive DIR|URL --job ID [--json] [--data-dir DIR | --store URL]

verify checks an archive's manifest against every segment (size, SHA-256, record and job
counts, positions in order without overlap or hole) and names the first segment that fails;
a location without a manifest is refused, not called sound.
export prints one job's history from the archive, followed by what of it the live store still
holds when --data-dir or --store is given, as replay prints it. Both only read.

The archive is a directory, or s3://bucket/prefix?endpoint=URL&region=R for an S3-compatible
bucket, with credentials from the standard AWS chain (AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY, AWS_PROFILE, an instance role), never in the URL.
`

func runArchive(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runSubcommand(ctx, "archive", archiveUsage, []subcommand{
		{"verify", runArchiveVerify},
		{"export", runArchiveExport},
	}, args, stdout, stderr)
}

func archiveFlag(fs *flag.FlagSet) *string {
	return fs.String("archive", "", "the archive: a directory, or s3://bucket/prefix?endpoint=URL&region=R")
}

func runArchiveVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("archive verify", archiveUsage)
	loc := archiveFlag(fs)
	if err := parseFlagsOnly(fs, args, stdout, stderr); err != nil {
		return err
	}
	if *loc == "" {
		return usageErrorf("archive verify: --archive is required")
	}
	store, err := archive.OpenExistingURL(ctx, *loc)
	if err != nil {
		return usageErrorf("archive verify: %v", err)
	}
	// An archive the archiver opened holds a manifest from its first segment on; a location
	// without one (a data directory named by mistake, a wrong S3 prefix) is no archive to call
	// sound.
	if _, err := store.Get(ctx, archive.ManifestName); errors.Is(err, archive.ErrNotFound) {
		return fmt.Errorf("archive verify: %s holds no %s: nothing was archived there", store, archive.ManifestName)
	}
	sum, err := archive.Verify(ctx, store)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "archive %s is sound: %d segments, positions %d..%d, %d events, %d bytes\n",
		store, sum.Segments, sum.First, sum.Last, sum.Events, sum.Bytes)
	return nil
}

func runArchiveExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("archive export", archiveUsage)
	loc := archiveFlag(fs)
	job := fs.String("job", "", "the job `ID` whose events to print")
	asJSON := fs.Bool("json", false, "print one JSON object per event (JSON lines)")
	dataDir, storeURL := storeFlags(fs)
	if err := parseFlagsOnly(fs, args, stdout, stderr); err != nil {
		return err
	}
	if *loc == "" || *job == "" {
		return usageErrorf("archive export: --archive and --job are required")
	}
	id, err := domain.ParseJobID(*job)
	if err != nil {
		return usageErrorf("archive export: --job: %v", err)
	}
	store, err := archive.OpenExistingURL(ctx, *loc)
	if err != nil {
		return usageErrorf("archive export: %v", err)
	}
	live := false
	fs.Visit(func(f *flag.Flag) { live = live || f.Name == "data-dir" || f.Name == "store" })

	var es eventstore.Store
	var where string
	if live {
		l, err := locate(fs, *storeURL, *dataDir)
		if err != nil {
			return usageErrorf("archive export: --store: %v", err)
		}
		if es, err = openExisting(ctx, l); err != nil {
			return err
		}
		defer es.Close()
		where = l.String()
		// The archive must be the one this live store was archived to, up to where it says.
		if err := archive.CheckRecorded(ctx, store, es); err != nil {
			return fmt.Errorf("archive export %s: %w", where, err)
		}
	}

	out := bufio.NewWriter(stdout)
	defer out.Flush()
	p := &timelinePrinter{w: out, json: *asJSON, codec: projections.NewCodec(), checkpoints: workers.NewCheckpointCodec()}
	next := eventstore.Version(0)
	for rec, err := range archive.ExportJob(ctx, store, id) {
		if err != nil {
			return err
		}
		if err := p.print(rec); err != nil {
			return err
		}
		next = rec.Version + 1
	}
	if live {
		// The live store holds what was not archived yet: the stream from where the archive
		// ends (a job is archived whole, so usually nothing, or everything).
		for rec, err := range es.ReadStream(ctx, id.Stream(), next) {
			if err != nil {
				return fmt.Errorf("archive export %s: %w", where, err)
			}
			if err := p.print(rec); err != nil {
				return err
			}
		}
	}
	if p.n == 0 {
		return fmt.Errorf("job %s not found in archive %s", id, store)
	}
	return nil
}
