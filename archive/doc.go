// Package archive owns the relayer's archive segments: the events that leave the live store,
// kept as Parquet files of whole eventstore.Records, one file per range of global positions,
// with a manifest (manifest.json) that lists each file's range, event and job counts, size and
// SHA-256. The archive lives in a Store: a local directory (NewDir) or an S3-compatible bucket
// (NewS3); OpenURL picks one from a path or an s3:// URL.
//
// The manifest is the commit point. A Writer puts a segment under its final name (a directory
// writes a temporary file, fsyncs it and renames it; an object store's PUT is atomic), reads it
// back and compares it record by record with what it was given, and only then adds it to the
// manifest. A segment file the manifest does not list was never committed: an archiver killed
// between the two steps leaves one, and the next Open removes it with any temporary file, so that
// writing the same range again resumes without loss or duplicates. Writing a range the manifest
// already holds with the same checksum does nothing; a range that overlaps another, or leaves a
// hole after the last one, is refused.
//
// Verify checks the manifest against every file; Read yields the archived records in global
// order and ExportJob one job's records, for audits and for a replay of archive and live store
// as one log.
//
// The package never removes an event from the live store and never decides what is archived
// (retention is the caller's): it stores what it is given and proves it can give it back. One
// Writer at a time may write to an archive. Credentials never appear in an archive URL: OpenURL
// refuses them, and the S3 store takes them from the standard AWS chain.
package archive
