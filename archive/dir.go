package archive

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// tempSuffix ends the name of a file a directory store is still writing. A file so named that
// outlives its Put belongs to a writer that was killed; Writer's Open removes it.
const tempSuffix = ".tmp"

// Dir is a Store in a local directory.
type Dir struct {
	path string
}

// NewDir opens the directory path as a store, making it when it is missing.
func NewDir(path string) (*Dir, error) {
	if path == "" {
		return nil, errors.New("archive directory: empty path")
	}
	if err := os.MkdirAll(path, 0o750); err != nil {
		return nil, fmt.Errorf("archive directory: %w", err)
	}
	return &Dir{path: path}, nil
}

func (d *Dir) String() string { return d.path }

func (d *Dir) file(name string) (string, error) {
	if name == "" || name != filepath.Base(name) || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", fmt.Errorf("archive file name %q: want a plain name", name)
	}
	return filepath.Join(d.path, name), nil
}

// Get reads the file name.
func (d *Dir) Get(_ context.Context, name string) ([]byte, error) {
	p, err := d.file(name)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", p, ErrNotFound)
	}
	return b, err
}

// Put writes data to name+".tmp", fsyncs it, renames it to name and fsyncs the directory, so
// that name holds the old content or the new, whole, across a crash.
func (d *Dir) Put(_ context.Context, name string, data []byte) (err error) {
	p, err := d.file(name)
	if err != nil {
		return err
	}
	tmp := p + tempSuffix
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, p); err != nil {
		return err
	}
	return syncDir(d.path)
}

// Delete removes the file name and fsyncs the directory.
func (d *Dir) Delete(_ context.Context, name string) error {
	p, err := d.file(name)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return syncDir(d.path)
}

// List returns the regular files of the directory, temporary ones included.
func (d *Dir) List(_ context.Context) ([]string, error) {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

func syncDir(path string) error {
	dir, err := os.Open(path)
	if err != nil {
		return err
	}
	defer dir.Close()
	return dir.Sync()
}
