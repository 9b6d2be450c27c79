package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"relayer/domain"
	"relayer/eventstore/postgres/pgtest"
	"relayer/workers/gateway/contracts"
)

func TestStoreURLsAreParsedAndNeverShowAPassword(t *testing.T) {
	for _, c := range []struct {
		raw, dataDir string
		scheme, path string
		shown        string
	}{
		{"", "d", "sqlite", filepath.Join("d", "relayer.db"), filepath.Join("d", "relayer.db")},
		{"sqlite:./x/y.db", "d", "sqlite", "./x/y.db", "./x/y.db"},
		{"sqlite:///abs/y.db", "d", "sqlite", "/abs/y.db", "/abs/y.db"},
		{"postgres://u:pw-5ecret@db.example:5432/relayer?sslmode=require&password=pw-5ecret", "d", "postgres", "", "postgres://u@db.example:5432/relayer"},
		{"postgres://u@db/relayer?search_path=fleet_a&password=pw-5ecret", "d", "postgres", "", "postgres://u@db/relayer?search_path=fleet_a"},
		{"postgresql://u@db/relayer", "d", "postgres", "", "postgresql://u@db/relayer"},
		{"kurrentdb://u:pw-5ecret@db1:2113,db2:2113?tls=false", "d", "kurrentdb", "", "kurrentdb://u@db1:2113,db2:2113"},
		{"esdb://db:2113", "d", "kurrentdb", "", "esdb://db:2113"},
	} {
		l, err := parseStore(c.raw, c.dataDir)
		if err != nil {
			t.Fatalf("%q: %v", c.raw, err)
		}
		if l.scheme != c.scheme || l.path != c.path || l.String() != c.shown {
			t.Fatalf("%q: %s %q shown as %q; want %s %q shown as %q", c.raw, l.scheme, l.path, l.String(), c.scheme, c.path, c.shown)
		}
	}
	for _, raw := range []string{"mysql://u:pw-5ecret@h/db", "pw-5ecret", "sqlite:", "postgres://u:pw-5ecret@h:port/db"} {
		_, err := parseStore(raw, "d")
		if err == nil {
			t.Fatalf("%q was accepted", raw)
		}
		if strings.Contains(err.Error(), "pw-5ecret") {
			t.Fatalf("the error for %q shows the password: %v", raw, err)
		}
	}
	if _, err := parseStore("mysql://h/db", "d"); err == nil || !strings.Contains(err.Error(), `unknown store scheme "mysql"`) {
		t.Fatalf("an unknown scheme: %v", err)
	}
}

// pgStore is a store URL in a fresh schema of the machine's PostgreSQL, dropped when the test
// ends (pgtest.URL).
func pgStore(t *testing.T) string { return pgtest.URL(t, "relayer_cmd") }

// serve, demo, replay and rebuild on a PostgreSQL store: one serve at a time (the second exits
// at once naming the first, which goes on), jobs end to end, and the offline commands read what
// serve wrote; `rebuild` gives serve's digest.
func TestServeAndTheLogCommandsWorkOnAPostgreSQLStore(t *testing.T) {
	withEnv(t)
	store := pgStore(t)
	// The data directory holds what a PostgreSQL store does not: the archive, the snapshots.
	dir := filepath.Join(t.TempDir(), "data")
	url, stdout, stderr, stop := startServe(t, "--listen", "127.0.0.1:0", "--store", store, "--data-dir", dir)
	if !strings.Contains(stdout.String(), "event store: postgres://postgres@127.0.0.1:5432/test") {
		t.Fatalf("the banner does not name the PostgreSQL store:\n%s", stdout)
	}

	var out, errOut syncBuffer
	err := run(context.Background(), []string{"serve", "--listen", "127.0.0.1:0", "--store", store, "--data-dir", filepath.Join(t.TempDir(), "other")}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "in use by relayer serve, pid") {
		t.Fatalf("a second serve on the same PostgreSQL store: %v", err)
	}

	body := crashBody(domain.PublicDecrypt, contracts.ScenarioNone, t.Name())
	code, b := post(t, url+"/v2/public-decrypt", body)
	if code != http.StatusAccepted {
		t.Fatalf("POST: %d %s", code, b)
	}
	jobID := regexp.MustCompile(`"jobId":"([0-9a-f-]{36})"`).FindStringSubmatch(b)[1]
	jobResult(t, "the job", url+"/v2/public-decrypt/"+jobID, stderr)
	if err := stop(); err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr)
	}
	live := servedDigest(t, stdout)

	withEnv(t)
	checkRebuilds(t, live, "--store", store)
	timeline, errText, code2 := runCLI(t, "replay", "--store", store, "--job", jobID)
	if code2 != 0 || !strings.Contains(timeline, "RequestCompleted") {
		t.Fatalf("replay on PostgreSQL: %d %s\n%s", code2, errText, timeline)
	}
	// The store URL from the environment, as for every command.
	withEnv(t, envStore+"="+store)
	if _, errText, code2 := runCLI(t, "replay", "--job", jobID); code2 != 0 {
		t.Fatalf("replay with RELAYER_STORE: %d %s", code2, errText)
	}
}

// A store reached through a symbolic link is the same store: a second serve through the link is
// refused like one through the real path (a probe found the link's way in, and the two serves
// then killed one another over their checkpoints).
func TestASecondServeThroughASymlinkIsRefused(t *testing.T) {
	withEnv(t)
	dir := t.TempDir()
	startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir)
	other := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, "relayer.db"), filepath.Join(other, "relayer.db")); err != nil {
		t.Fatal(err)
	}
	var out, errOut syncBuffer
	err := run(context.Background(), []string{"serve", "--listen", "127.0.0.1:0", "--store", "sqlite:" + filepath.Join(other, "relayer.db")}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "in use by relayer serve, pid") {
		t.Fatalf("a second serve through a symlink: %v", err)
	}
	if _, err := parseStore("sqlite:file:"+filepath.Join(dir, "relayer.db"), ""); err == nil || !strings.Contains(err.Error(), "URI form") {
		t.Fatalf("sqlite:file:...: %v", err)
	}
}

// migrate copies a log nobody writes: a serve running on the source is named, and nothing is copied.
func TestMigrateRefusesASourceThatServeIsWriting(t *testing.T) {
	withEnv(t)
	dir := t.TempDir()
	startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir)
	target := "sqlite:" + filepath.Join(t.TempDir(), "copy.db")
	_, errText, code := runCLI(t, "migrate", "--from", "sqlite:"+filepath.Join(dir, "relayer.db"), "--to", target)
	if code != 1 || !strings.Contains(errText, "in use by relayer serve") || !strings.Contains(errText, "stop the serve") {
		t.Fatalf("migrate from a live store: %d %s", code, errText)
	}
}
