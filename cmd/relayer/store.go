package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"

	"relayer/eventstore"
	"relayer/eventstore/kurrentdb"
	"relayer/eventstore/postgres"
	"relayer/eventstore/sqlite"
)

// Where a command's event store is: a store URL (--store, RELAYER_STORE, serve's `store`
// setting), or, without one, the SQLite file relayer.db in the data directory (--data-dir):
//
//	sqlite:./data/relayer.db       a SQLite file (sqlite:///abs/path.db works too)
//	postgres://user@host/db?...    a PostgreSQL database (postgresql:// too); the schema is
//	                               the URL's search_path when it names one, else "eventstore"
//	kurrentdb://user@host:2113?... a KurrentDB server or cluster (kurrent://, esdb://,
//	                               esdb+discover:// too), through EventStore-Client-Go
//
// A URL may hold a password: it is never printed, logged or quoted in an error; what the
// commands show is the store's description, without it.

// storeFile is the event store's file name inside the data directory.
const storeFile = "relayer.db"

// envStore is the environment variable of the store URL for every command.
const envStore = envPrefix + "STORE"

// storeLocation is a parsed store URL.
type storeLocation struct {
	scheme string // "sqlite", "postgres" or "kurrentdb"
	path   string // sqlite: the file
	url    string // postgres, kurrentdb: the URL as given (it may hold a password)
}

// parseStore reads a store URL; an empty one is the SQLite file in dataDir.
func parseStore(raw, dataDir string) (storeLocation, error) {
	if raw == "" {
		return storeLocation{scheme: "sqlite", path: filepath.Join(dataDir, storeFile)}, nil
	}
	scheme, rest, ok := strings.Cut(raw, ":")
	if !ok {
		return storeLocation{}, errors.New(`the store URL has no scheme: use sqlite:PATH, postgres://... or kurrentdb://...`)
	}
	switch strings.ToLower(scheme) {
	case "sqlite":
		p := rest
		if strings.HasPrefix(p, "//") { // sqlite:///abs/path.db
			p = strings.TrimPrefix(p, "//")
		}
		if p == "" {
			return storeLocation{}, errors.New("the store URL sqlite: names no file (sqlite:./data/relayer.db)")
		}
		if strings.HasPrefix(p, "file:") {
			// SQLite's own URI form would be read here as a relative path named "file:...".
			return storeLocation{}, errors.New("the store URL sqlite:file:... is SQLite's URI form, not a path: write sqlite:/path/to/relayer.db")
		}
		return storeLocation{scheme: "sqlite", path: p}, nil
	case "postgres", "postgresql":
		if _, err := url.Parse(raw); err != nil {
			return storeLocation{}, fmt.Errorf("the %s store URL cannot be parsed (its text is withheld, as it may hold a password)", scheme)
		}
		return storeLocation{scheme: "postgres", url: raw}, nil
	case "kurrentdb", "kurrent", "esdb", "esdb+discover", "kurrentdb+discover", "kurrent+discover":
		if _, err := url.Parse(raw); err != nil {
			return storeLocation{}, fmt.Errorf("the %s store URL cannot be parsed (its text is withheld, as it may hold a password)", scheme)
		}
		return storeLocation{scheme: "kurrentdb", url: raw}, nil
	default:
		// Only the scheme is quoted: the rest may hold a password.
		return storeLocation{}, fmt.Errorf("unknown store scheme %q: use sqlite:PATH, postgres://... or kurrentdb://...", scheme)
	}
}

// String describes the store without a password.
func (l storeLocation) String() string {
	if l.scheme == "sqlite" {
		return l.path
	}
	u, err := url.Parse(l.url)
	if err != nil {
		return l.scheme + " store"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	q := url.Values{}
	if sp := u.Query().Get("search_path"); sp != "" {
		q.Set("search_path", sp) // the schema: which store of the database it is
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// storeFlags adds --data-dir and --store to a command's flags.
func storeFlags(fs *flag.FlagSet) (dataDir, store *string) {
	dataDir = fs.String("data-dir", "./data", "the event store is the SQLite file `DIR`/relayer.db when --store is not given")
	store = fs.String("store", "", "the event store's `URL` (env "+envStore+"): sqlite:PATH, postgres://... or kurrentdb://...; default: relayer.db in --data-dir")
	return dataDir, store
}

// locate resolves a command's --store (else RELAYER_STORE) and --data-dir (fs's flags). A
// --data-dir given beside --store or RELAYER_STORE is refused: it lost to them silently (an
// operator with RELAYER_STORE exported for serve, running rebuild --data-dir ./backup, rebuilt
// the live store).
func locate(fs *flag.FlagSet, store, dataDir string) (storeLocation, error) {
	dataDirGiven := false
	fs.Visit(func(f *flag.Flag) { dataDirGiven = dataDirGiven || f.Name == "data-dir" })
	from := "--store"
	if store == "" {
		store, from = lookupEnv(serveEnviron(), envStore), envStore
	}
	if dataDirGiven && store != "" {
		return storeLocation{}, fmt.Errorf("--data-dir and %s both name the store: give one", from)
	}
	return parseStore(store, dataDir)
}

// openExisting opens the store at l for reading, and says clearly when a SQLite or PostgreSQL
// store is not there (a mistyped schema is not created, nor read as an empty log).
func openExisting(ctx context.Context, l storeLocation) (eventstore.Store, error) {
	if l.scheme == "kurrentdb" {
		return kurrentdb.Open(ctx, l.url, kurrentdb.Config{})
	}
	if l.scheme == "postgres" {
		s, err := postgres.Open(ctx, l.url, postgres.Config{Existing: true})
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	if _, err := os.Stat(l.path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no event store at %s (run `relayer demo --data-dir %s` to create one)", l.path, filepath.Dir(l.path))
	}
	s, err := sqlite.Open(l.path, sqlite.Config{ReadOnly: true})
	if err != nil {
		return nil, err // its message names the store
	}
	return s, nil
}

// openWriter opens (creating if needed) the store at l for the one process that writes it:
// it takes the store's writer lock first (a file lock beside a SQLite file, a session lock in
// PostgreSQL), describing the holder as who. A store another process writes is refused with
// an error naming that process, and nothing is touched. lost is closed if the lock is lost
// while held (a PostgreSQL session ended); the holder must then stop writing. With fleet, the
// process is one instance of a fleet (workers.FleetConfig) and shares the lock with the others
// (PostgreSQL only: a SQLite file is one process's).
func openWriter(ctx context.Context, l storeLocation, who string, fleet bool) (s eventstore.Store, release func(), lost <-chan struct{}, err error) {
	if fleet && l.scheme != "postgres" {
		return nil, nil, nil, fmt.Errorf("several instances share a PostgreSQL store (store: postgres://...), not a %s one", l.scheme)
	}
	if l.scheme == "kurrentdb" {
		// KurrentDB has no lock a client can hold for its session: one process per store is
		// up to the operator until several instances share a store.
		ks, err := kurrentdb.Open(ctx, l.url, kurrentdb.Config{})
		if err != nil {
			return nil, nil, nil, err
		}
		return ks, func() {}, nil, nil
	}
	if l.scheme == "postgres" {
		ps, err := postgres.Open(ctx, l.url, postgres.Config{})
		if err != nil {
			return nil, nil, nil, err
		}
		lock := ps.LockWriter
		if fleet {
			lock = ps.LockFleet
		}
		unlock, lost, err := lock(ctx, who)
		if err != nil {
			_ = ps.Close()
			if errors.Is(err, postgres.ErrWriterLocked) {
				return nil, nil, nil, fmt.Errorf("%w: a store is written by one process, or by the instances of one fleet (workers.fleet.enabled), at a time", err)
			}
			return nil, nil, nil, err
		}
		return ps, unlock, lost, nil
	}
	dir, err := realDir(l.path)
	if err != nil {
		return nil, nil, nil, err
	}
	unlock, err := lockStore(dir, who)
	if err != nil {
		return nil, nil, nil, err
	}
	ss, err := sqlite.Open(l.path, sqlite.Config{})
	if err != nil {
		unlock()
		return nil, nil, nil, err // its message names the store
	}
	return ss, unlock, nil, nil
}

// holdWriterLock takes the writer lock of the store at l, opened as s, for a process that only
// reads it but must not see it change meanwhile (relayer migrate's source). KurrentDB has none.
func holdWriterLock(ctx context.Context, l storeLocation, s eventstore.Store, who string) (release func(), err error) {
	switch l.scheme {
	case "sqlite":
		dir, err := realDir(l.path)
		if err != nil {
			return nil, err
		}
		return lockStore(dir, who)
	case "postgres":
		ps, ok := s.(*postgres.Store)
		if !ok {
			return func() {}, nil
		}
		unlock, _, err := ps.LockWriter(ctx, who)
		return unlock, err
	}
	return func() {}, nil
}

// openWritable opens (creating if needed) the SQLite store in dataDir, without the writer lock
// (for tests that write a store no process runs on).
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

// realDir is the directory that really holds the SQLite file at path: symbolic links resolved,
// so that a store reached through a link is locked where the store is, as every other path to it
// is. (A hard link in another directory is another path to the same file that nothing here can
// see: do not make one.)
func realDir(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("event store %s: %w", path, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return filepath.Dir(real), nil
	}
	// The file does not exist yet: its directory, resolved as far as it exists.
	dir := filepath.Dir(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real, nil
	}
	return dir, nil
}

// lockFile is the file whose exclusive lock the one process writing a SQLite store holds, in
// the store's directory.
const lockFile = "relayer.lock"

// lockStore takes the exclusive lock of the store in dataDir for a writer described by who, and
// returns its release. The lock is the operating system's (flock): it goes with the process, so a
// writer killed with SIGKILL leaves no stale lock. When another process holds it, the error names
// that process (what it wrote in the lock file) and nothing else is touched.
// storeHolder describes the process that holds the writer lock of the SQLite store at l ("" when
// none does, or the store is not SQLite). It creates nothing: a store without a lock file has no
// holder.
func storeHolder(l storeLocation) string {
	if l.scheme != "sqlite" {
		return ""
	}
	dir, err := realDir(l.path)
	if err != nil {
		return ""
	}
	path := filepath.Join(dir, lockFile)
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	lk := flock.New(path)
	ok, err := lk.TryLock()
	if err != nil {
		return ""
	}
	if ok {
		_ = lk.Unlock()
		return ""
	}
	return lockHolder(path)
}

// lockHolder is who the lock file at path says holds it (the file is written by the holder).
func lockHolder(path string) string {
	holder, _ := os.ReadFile(path)
	return cmp.Or(strings.TrimSpace(string(holder)), "another process")
}

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
		return nil, fmt.Errorf("the event store in %s is in use by %s: one process writes a store at a time", dataDir, lockHolder(path))
	}
	// Who holds it, for the next one to read. (The lock is advisory: writing the file is not
	// hindered by it.)
	_ = os.WriteFile(path, []byte(who+"\n"), 0o644)
	return func() {
		_ = os.Truncate(path, 0)
		_ = l.Unlock()
	}, nil
}
