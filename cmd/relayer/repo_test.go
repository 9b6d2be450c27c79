package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxTrackedFile is the largest file the repository holds on purpose (the development CRS is
// 4.5 MB): anything larger is build output or data committed by mistake.
const maxTrackedFile = 8 << 20

// The repository holds sources, not what building them makes: no executable, no file larger than
// maxTrackedFile (a binary built in cmd/relayer was committed once, 111 MB).
func TestTheRepositoryTracksNoBuildOutput(t *testing.T) {
	root := filepath.Join("..", "..")
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) < 100 {
		t.Fatalf("git ls-files lists %d files: not this repository", len(files))
	}
	for _, name := range files {
		path := filepath.Join(root, name)
		info, err := os.Lstat(path)
		if err != nil || !info.Mode().IsRegular() {
			continue // removed in the working tree, or a link
		}
		if info.Size() > maxTrackedFile {
			t.Errorf("%s is tracked and holds %d bytes (at most %d): build output or data committed by mistake", name, info.Size(), maxTrackedFile)
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 4)
		n, _ := f.Read(head)
		f.Close()
		if bytes.Equal(head[:n], []byte("\x7fELF")) {
			t.Errorf("%s is a tracked executable: build output committed by mistake", name)
		}
	}
}
