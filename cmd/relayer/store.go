package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"

	"relayer/eventstore/sqlite"
)

// storeFile is the event store's file name inside the data directory.
const storeFile = "relayer.db"

func dataDirFlag(fs *flag.FlagSet) *string {
	return fs.String("data-dir", "./data", "directory holding the event store (relayer.db)")
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// openExisting opens the store in dataDir for reading, and says clearly when there is none.
func openExisting(dataDir string) (*sqlite.Store, string, error) {
	path := filepath.Join(dataDir, storeFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, path, fmt.Errorf("no event store at %s (run `relayer demo --data-dir %s` to create one)", path, dataDir)
	}
	s, err := sqlite.Open(path, sqlite.Config{ReadOnly: true})
	if err != nil {
		return nil, path, fmt.Errorf("open event store %s: %w", path, err)
	}
	return s, path, nil
}

// openWritable opens (creating if needed) the store in dataDir.
func openWritable(dataDir string) (*sqlite.Store, string, error) {
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, "", fmt.Errorf("create data directory: %w", err)
	}
	path := filepath.Join(dataDir, storeFile)
	s, err := sqlite.Open(path, sqlite.Config{})
	if err != nil {
		return nil, path, fmt.Errorf("open event store %s: %w", path, err)
	}
	return s, path, nil
}

// lockFile is the file whose exclusive lock the one process writing the store holds.
const lockFile = "relayer.lock"

// lockStore takes the exclusive lock of the store in dataDir for a writer described by who, and
// returns its release. The lock is the operating system's (flock): it goes with the process, so a
// writer killed with SIGKILL leaves no stale lock. When another process holds it, the error names
// that process (what it wrote in the lock file) and nothing else is touched.
func lockStore(dataDir, who string) (func(), error) {
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	path := filepath.Join(dataDir, lockFile)
	l := flock.New(path)
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock the event store (%s): %w", path, err)
	}
	if !ok {
		holder, _ := os.ReadFile(path)
		desc := strings.TrimSpace(string(holder))
		if desc == "" {
			desc = "another process"
		}
		return nil, fmt.Errorf("the event store in %s is in use by %s: one process writes a store at a time", dataDir, desc)
	}
	// Who holds it, for the next one to read. (The lock is advisory: writing the file is not
	// hindered by it.)
	_ = os.WriteFile(path, []byte(who+"\n"), 0o644)
	return func() {
		_ = os.Truncate(path, 0)
		_ = l.Unlock()
	}, nil
}
