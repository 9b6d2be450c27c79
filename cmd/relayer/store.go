package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

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
