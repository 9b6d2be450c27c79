// Package nodetest is what the tests that run Node.js share: finding node, the repository root
// and the pinned npm packages, and skipping without them, or failing in CI (CI set), where every
// test must run. Only tests import it.
package nodetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Unavailable skips tb for why, or fails it when CI is set.
func Unavailable(tb testing.TB, why string) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatalf("%s (CI is set: install Node.js, then `npm ci` at the repository root; `make test` does)", why)
	}
	tb.Skipf("%s; install Node.js and run `npm ci` at the repository root to run this test", why)
}

// Node returns the node binary, or skips (fails in CI) without one.
func Node(tb testing.TB) string {
	tb.Helper()
	bin, err := exec.LookPath("node")
	if err != nil {
		Unavailable(tb, "node is not installed")
	}
	return bin
}

// Root returns the repository's root: the nearest directory above the test's that holds both
// go.mod and package.json.
func Root(tb testing.TB) string {
	tb.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if fileExists(filepath.Join(dir, "package.json")) && fileExists(filepath.Join(dir, "go.mod")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no directory with go.mod and package.json above the test")
		}
		dir = parent
	}
}

// SDK returns node and the repository root, with the public SDK installed in its node_modules,
// or skips (fails in CI).
func SDK(tb testing.TB) (node, root string) {
	tb.Helper()
	node, root = Node(tb), Root(tb)
	if !fileExists(filepath.Join(root, "node_modules", "@zama-fhe", "relayer-sdk", "package.json")) {
		Unavailable(tb, "node_modules/@zama-fhe/relayer-sdk is missing")
	}
	return node, root
}

// Package returns node and the repository root, with the npm package name (pinned in
// package.json) installed in the root's node_modules, or skips (fails in CI).
func Package(tb testing.TB, name string) (node, root string) {
	tb.Helper()
	node, root = Node(tb), Root(tb)
	if !fileExists(filepath.Join(root, "node_modules", filepath.FromSlash(name), "package.json")) {
		Unavailable(tb, "node_modules/"+name+" is missing")
	}
	return node, root
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Chromium is where the tests find the browser: $CHROMIUM, else Debian's /usr/bin/chromium.
func Chromium() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// Browser returns node, the repository root and the Chromium binary, with playwright-core in
// the root's node_modules, or skips (fails in CI): the browser tests drive Debian's chromium
// package through playwright-core (`make test` installs both).
func Browser(tb testing.TB) (node, root, chromium string) {
	tb.Helper()
	node, root = Node(tb), Root(tb)
	if !fileExists(filepath.Join(root, "node_modules", "playwright-core", "package.json")) {
		Unavailable(tb, "node_modules/playwright-core is missing")
	}
	chromium = Chromium()
	if !fileExists(chromium) {
		Unavailable(tb, chromium+" is missing (apt-get install chromium; `make test` does)")
	}
	return node, root, chromium
}
