package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"relayer/eventstore"
	"relayer/eventstore/sqlite/sqlitetest"
	"relayer/projections"
	"relayer/projections/projectionstest"
)

var migrateDigests = regexp.MustCompile(`source read models: snapshot sha256 ([0-9a-f]{64})\n  target read models: snapshot sha256 ([0-9a-f]{64})`)

// A log moves from SQLite to PostgreSQL and back with its streams, versions, events and
// metadata in the same global order: the read models of both ends have the same digest, a
// second run copies nothing, and `rebuild` on the target gives the source's digest.
func TestMigrateCopiesALogBetweenStoresAndBack(t *testing.T) {
	withEnv(t)
	dir := t.TempDir()
	if _, errText, code := runCLI(t, "demo", "--data-dir", dir, "--jobs", "300"); code != 0 {
		t.Fatalf("demo: %s", errText)
	}
	src := "sqlite:" + filepath.Join(dir, "relayer.db")
	pg := pgStore(t)
	out, errText, code := runCLI(t, "migrate", "--from", src, "--to", pg)
	m := migrateDigests.FindStringSubmatch(out)
	if code != 0 || m == nil || m[1] != m[2] || !strings.Contains(out, "0 were there already") {
		t.Fatalf("migrate to PostgreSQL: %d %s\n%s", code, errText, out)
	}
	out, errText, code = runCLI(t, "migrate", "--from", src, "--to", pg)
	if code != 0 || !strings.Contains(out, "relayer migrate: 0 events copied") {
		t.Fatalf("a second migrate: %d %s\n%s", code, errText, out)
	}
	back := "sqlite:" + filepath.Join(t.TempDir(), "back.db")
	out, errText, code = runCLI(t, "migrate", "--from", pg, "--to", back)
	m2 := migrateDigests.FindStringSubmatch(out)
	if code != 0 || m2 == nil || m2[2] != m[1] {
		t.Fatalf("migrate back to SQLite: %d %s\n%s", code, errText, out)
	}
}

// An interrupted migrate leaves a beginning of the log in the target: the next run checks it
// event for event and copies the rest. A target holding anything else is refused.
func TestMigrateResumesAndRefusesATargetThatIsNotACopy(t *testing.T) {
	withEnv(t)
	dir := t.TempDir()
	if _, errText, code := runCLI(t, "demo", "--data-dir", dir, "--jobs", "50"); code != 0 {
		t.Fatalf("demo: %s", errText)
	}
	srcLoc, _ := parseStore("sqlite:"+filepath.Join(dir, "relayer.db"), "")
	ctx := context.Background()
	source, err := openExisting(ctx, srcLoc)
	if err != nil {
		t.Fatal(err)
	}
	recs := projectionstest.ReadLog(t, source)
	source.Close()

	// What an interrupted run leaves: the first 100 events.
	pg := pgStore(t)
	dstLoc, _ := parseStore(pg, "")
	target, release, _, err := openWriter(ctx, dstLoc, "test", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs[:100] {
		if _, err := target.Append(ctx, r.Stream, r.Version-1, eventstore.Event{Type: r.Type, SchemaVersion: r.SchemaVersion, Data: r.Data, Metadata: r.Metadata}); err != nil {
			t.Fatal(err)
		}
	}
	target.Close()
	release()
	out, errText, code := runCLI(t, "migrate", "--from", "sqlite:"+filepath.Join(dir, "relayer.db"), "--to", pg)
	m := migrateDigests.FindStringSubmatch(out)
	if code != 0 || m == nil || m[1] != m[2] || !strings.Contains(out, "100 were there already") {
		t.Fatalf("resume: %d %s\n%s", code, errText, out)
	}

	// A target with another log is not overwritten.
	other := t.TempDir()
	if _, errText, code := runCLI(t, "demo", "--data-dir", other, "--jobs", "5", "--seed", "9"); code != 0 {
		t.Fatalf("demo: %s", errText)
	}
	_, errText, code = runCLI(t, "migrate", "--from", "sqlite:"+filepath.Join(dir, "relayer.db"), "--to", "sqlite:"+filepath.Join(other, "relayer.db"))
	if code != 1 || !strings.Contains(errText, "is not a copy of the source's beginning") {
		t.Fatalf("a target with another log: %d %s", code, errText)
	}
	// Mistakes in the call.
	for _, args := range [][]string{{"migrate"}, {"migrate", "--from", "sqlite:a.db"}, {"migrate", "--from", "ftp://x", "--to", "sqlite:b.db"}, {"migrate", "--from", "sqlite:a.db", "--to", "sqlite:a.db"}} {
		if _, _, code := runCLI(t, args...); code != 2 {
			t.Fatalf("%v: exit %d, want 2", args, code)
		}
	}
}

// A SQLite file an earlier build wrote is refused by the other commands, with the way out in
// the error; `migrate --store` upgrades it in place, and the log reads back equal, event for
// event, position for position, with the same read models.
func TestMigrateUpgradesAnOldSQLiteFileInPlace(t *testing.T) {
	withEnv(t)
	ctx := context.Background()
	dir := t.TempDir()
	if _, errText, code := runCLI(t, "demo", "--data-dir", dir, "--jobs", "100"); code != 0 {
		t.Fatalf("demo: %s", errText)
	}
	loc, _ := parseStore("sqlite:"+filepath.Join(dir, "relayer.db"), "")
	source, err := openExisting(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	recs := projectionstest.ReadLog(t, source)
	if len(recs) < 100 {
		t.Fatalf("the demo wrote %d events, want a log of 100 jobs", len(recs))
	}
	want, err := digestOf(ctx, source, projections.Config{})
	if err != nil {
		t.Fatal(err)
	}
	source.Close()

	oldDir := t.TempDir()
	oldPath := filepath.Join(oldDir, "relayer.db")
	if err := sqlitetest.WriteFormat1(ctx, oldPath, recs); err != nil {
		t.Fatal(err)
	}
	_, errText, code := runCLI(t, "rebuild", "--data-dir", oldDir)
	if code == 0 || !strings.Contains(errText, "format version 1 is older than this build reads") || !strings.Contains(errText, "relayer migrate --store sqlite:") {
		t.Fatalf("rebuild of an old file is refused, saying how to upgrade it: %d %s", code, errText)
	}
	out, errText, code := runCLI(t, "migrate", "--store", "sqlite:"+oldPath)
	if code != 0 || !strings.Contains(out, "upgraded from format 1 to 2") {
		t.Fatalf("migrate --store: %d %s\n%s", code, errText, out)
	}
	upgraded, err := openExisting(ctx, storeLocation{scheme: "sqlite", path: oldPath})
	if err != nil {
		t.Fatal(err)
	}
	defer upgraded.Close()
	n := 0
	for r, err := range upgraded.ReadAll(ctx, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if n >= len(recs) || !sameEvent(r, recs[n]) || r.Position != recs[n].Position {
			t.Fatalf("event %d after the upgrade: %+v", n, r)
		}
		n++
	}
	if n != len(recs) {
		t.Fatalf("%d events after the upgrade, want %d", n, len(recs))
	}
	if got, err := digestOf(ctx, upgraded, projections.Config{}); err != nil || got != want {
		t.Fatalf("the upgraded log rebuilds other read models: %x, %v; want %x", got, err, want)
	}
	out, errText, code = runCLI(t, "migrate", "--data-dir", oldDir)
	if code != 0 || !strings.Contains(out, "at format 2 already") {
		t.Fatalf("a second migrate --data-dir: %d %s\n%s", code, errText, out)
	}
	if _, _, code := runCLI(t, "migrate", "--store", "sqlite:"+oldPath, "--to", "sqlite:"+filepath.Join(t.TempDir(), "x.db")); code != 2 {
		t.Fatalf("--store with --to: exit %d, want 2", code)
	}
}

// `migrate --store` on a PostgreSQL store: the schema upgrades itself when opened, so there is
// nothing more to do than open it.
func TestMigrateStoreOnPostgresOpensTheSchema(t *testing.T) {
	withEnv(t)
	pg := pgStore(t)
	if _, errText, code := runCLI(t, "demo", "--store", pg, "--jobs", "1"); code != 0 {
		t.Fatalf("demo: %d %s", code, errText)
	}
	out, errText, code := runCLI(t, "migrate", "--store", pg)
	if code != 0 || !strings.Contains(out, "is at the format this build reads") {
		t.Fatalf("migrate --store on PostgreSQL: %d %s\n%s", code, errText, out)
	}
}

// --from and --to naming one SQLite file by two paths are the same store, said so (found by an
// outside probe: the writer lock refused it, naming this very process as the one writing it).
func TestMigrateRefusesOneFileByTwoPathsAsTheSameStore(t *testing.T) {
	dir, _ := demoStore(t, "3")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{
		"sqlite:" + filepath.Join(dir, "..", filepath.Base(dir), "relayer.db"),
		"sqlite:" + filepath.Join(link, "relayer.db"),
	} {
		_, errOut, code := runCLI(t, "migrate", "--from", "sqlite:"+filepath.Join(dir, "relayer.db"), "--to", to)
		if code != 2 || !strings.Contains(errOut, "--from and --to are the same store") {
			t.Errorf("--to %s: code %d, stderr %q", to, code, errOut)
		}
	}
}

// migrate prints the digest relayer rebuild prints for the same log: both rebuild with serve's
// settings (found by an outside probe: migrate rebuilt with empty settings, and its digest
// matched nothing an operator could compare it with).
func TestMigratePrintsTheDigestRebuildPrints(t *testing.T) {
	dir, _ := demoStore(t, "3")
	to := filepath.Join(t.TempDir(), "copy")
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "migrate", "--from", "sqlite:"+filepath.Join(dir, "relayer.db"), "--to", "sqlite:"+filepath.Join(to, "relayer.db"))
	m := migrateDigests.FindStringSubmatch(out)
	if code != 0 || m == nil || m[1] != m[2] {
		t.Fatalf("migrate: code %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, "rebuild", "--data-dir", to)
	if code != 0 || !strings.Contains(out, "snapshot sha256 "+m[1]) {
		t.Fatalf("rebuild of the copy: code %d, want the digest %s migrate printed\n%s%s", code, m[1], out, errOut)
	}
}
