package domain_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// domainLibraries are the packages outside the standard library that the domain may import: the
// cryptography the standard library lacks (legacy Keccak-256, secp256k1 public-key recovery for
// the user's EIP-712 signature) and uuid for job ids. Nothing that does I/O.
var domainLibraries = []string{
	"golang.org/x/crypto/sha3",
	"github.com/google/uuid",
	"github.com/decred/dcrd/dcrec/secp256k1/v4",
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa",
	"github.com/ethereum/go-ethereum/crypto/secp256k1", // libsecp256k1, cgo builds only
}

// The domain is pure (doc.go): it imports the standard library, the libraries domainLibraries
// names, and nothing of the project outside domain/; domain/retryafter imports the standard
// library and domain. Every file is read, whatever its build constraints.
func TestTheDomainImportsOnlyTheStandardLibraryAndTheLibrariesItNames(t *testing.T) {
	for dir, allowed := range map[string]func(path string) bool{
		".": func(path string) bool {
			return isStandard(path) || slices.Contains(domainLibraries, path)
		},
		"retryafter": func(path string) bool { return isStandard(path) || path == "relayer/domain" },
	} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if !allowed(path) {
					t.Errorf("%s imports %s: the domain is pure (the standard library and domainLibraries only)", file, path)
				}
			}
		}
	}
}

// isStandard reports whether path is a standard library package: no dot in its first element,
// and not this module's (whose path, relayer, has none either).
func isStandard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return first != "relayer" && !strings.Contains(first, ".")
}
