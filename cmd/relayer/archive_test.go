package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"relayer/archive"
	"relayer/projections/projectionstest"
)

// archiveDemo archives the whole log of a demo store into a directory, in segments of 50
// positions, and returns the archive's directory.
func archiveDemo(t *testing.T, dataDir string) string {
	t.Helper()
	ctx := context.Background()
	loc, err := parseStore("", dataDir)
	if err != nil {
		t.Fatal(err)
	}
	es, err := openExisting(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer es.Close()
	log := projectionstest.ReadLog(t, es)
	dir := filepath.Join(t.TempDir(), "archive")
	store, err := archive.NewDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := archive.Open(ctx, store, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(log); i += 50 {
		part := log[i:min(i+50, len(log))]
		if _, err := w.Write(ctx, part[0].Position, part[len(part)-1].Position, part); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestArchiveVerifyAndExportReadWhatTheLiveStoreHeld(t *testing.T) {
	dataDir, job := demoStore(t, "20")
	dir := archiveDemo(t, dataDir)

	out, errOut, code := runCLI(t, "archive", "verify", "--archive", dir)
	if code != 0 || !strings.Contains(out, "is sound") {
		t.Fatalf("archive verify: exit %d, %s%s", code, out, errOut)
	}

	// A job exported from the archive reads as replay prints it from the live store.
	want, _, _ := runCLI(t, "replay", "--data-dir", dataDir, "--job", job, "--json")
	got, errOut, code := runCLI(t, "archive", "export", "--archive", dir, "--job", job, "--json")
	if code != 0 || got != want || got == "" {
		t.Fatalf("archive export --json: exit %d %s\n%s\nwant replay's\n%s", code, errOut, got, want)
	}
	// With the live store too, nothing is printed twice.
	both, errOut, code := runCLI(t, "archive", "export", "--archive", dir, "--job", job, "--json", "--data-dir", dataDir)
	if code != 0 || both != want {
		t.Fatalf("archive export with the live store: exit %d %s\n%s\nwant\n%s", code, errOut, both, want)
	}
	timeline, _, code := runCLI(t, "archive", "export", "--archive", dir, "--job", job)
	if code != 0 || !strings.Contains(timeline, "RequestAccepted") {
		t.Fatalf("archive export's timeline: exit %d\n%s", code, timeline)
	}

	// A damaged segment fails verify with its name.
	names, _ := filepath.Glob(filepath.Join(dir, "segment-*.parquet"))
	b, err := os.ReadFile(names[1])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/3] ^= 0x40
	if err := os.WriteFile(names[1], b, 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runCLI(t, "archive", "verify", "--archive", dir)
	if code != 1 || !strings.Contains(errOut, filepath.Base(names[1])) {
		t.Fatalf("archive verify of a damaged archive: exit %d, %q; want 1 naming %s", code, errOut, filepath.Base(names[1]))
	}

	// A location with no manifest (the data directory named by mistake) is no archive: not
	// "sound, 0 segments".
	out, errOut, code = runCLI(t, "archive", "verify", "--archive", dataDir)
	if code != 1 || strings.Contains(out, "is sound") || !strings.Contains(errOut, "holds no manifest.json: nothing was archived there") {
		t.Fatalf("archive verify of the data directory: exit %d, %q%q; want 1 saying it holds no manifest", code, out, errOut)
	}

	// Credentials in the URL are refused before anything is read, and not repeated.
	_, errOut, code = runCLI(t, "archive", "verify", "--archive", "s3://AKID:topsecret@bucket/p")
	if code != 2 || strings.Contains(errOut, "topsecret") || !strings.Contains(errOut, "credentials in the URL are refused") {
		t.Fatalf("archive verify with credentials in the URL: exit %d, %q", code, errOut)
	}
}
