package api

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// opOpenAPI is the part of the OpenAPI document the tests read.
type opOpenAPI struct {
	OpenAPI string                    `yaml:"openapi"`
	Paths   map[string]map[string]any `yaml:"paths"`
}

// opOperations are the keys of a path item that are operations (the others are summary,
// parameters, ...).
var opOperations = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

func opParseOpenAPI(t *testing.T, b []byte) opOpenAPI {
	t.Helper()
	var doc opOpenAPI
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("the OpenAPI document is not YAML: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		t.Fatalf("openapi: %q, want 3.1.x", doc.OpenAPI)
	}
	return doc
}

// opDocPath turns a net/http pattern path into an OpenAPI path: "{name...}" is "{name}", and
// "{$}" (exact match) is dropped.
func opDocPath(pattern string) string {
	p := strings.ReplaceAll(pattern, "...}", "}")
	return strings.TrimSuffix(p, "{$}")
}

func TestTheOpenAPIDocumentDescribesExactlyTheRoutesTheServerServes(t *testing.T) {
	env := startOps(t, opsTuning{})
	doc := opParseOpenAPI(t, openAPIDocument)

	served := map[string]bool{}
	for _, r := range env.srv.Routes() {
		op := strings.ToLower(r.Method) + " " + opDocPath(r.Pattern)
		if served[op] {
			t.Errorf("route %s %s is registered twice", r.Method, r.Pattern)
		}
		served[op] = true
	}
	documented := map[string]bool{}
	for path, item := range doc.Paths {
		for key := range item {
			if slices.Contains(opOperations, key) {
				documented[key+" "+path] = true
			}
		}
	}
	var missing, extra []string
	for op := range served {
		if !documented[op] {
			missing = append(missing, op)
		}
	}
	for op := range documented {
		if !served[op] {
			extra = append(extra, op)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing) > 0 {
		t.Errorf("routes the server serves that api/openapi.yaml does not describe:\n  %s", strings.Join(missing, "\n  "))
	}
	if len(extra) > 0 {
		t.Errorf("operations api/openapi.yaml describes that the server does not serve:\n  %s", strings.Join(extra, "\n  "))
	}
	if len(served) < 10 {
		t.Fatalf("only %d routes: the test does not see the server's routes", len(served))
	}
}

func TestEveryReferenceInTheOpenAPIDocumentResolves(t *testing.T) {
	var doc map[string]any
	if err := yaml.Unmarshal(openAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, v any)
	n := 0
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k == "$ref" {
					ref, _ := x.(string)
					n++
					if err := opResolve(doc, ref); err != nil {
						t.Errorf("%s: $ref %q: %v", path, ref, err)
					}
					continue
				}
				walk(path+"/"+k, x)
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), x)
			}
		}
	}
	walk("", doc)
	if n == 0 {
		t.Fatal("no references found")
	}
}

func opResolve(doc map[string]any, ref string) error {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return fmt.Errorf("not a local reference")
	}
	var cur any = doc
	for _, part := range strings.Split(rest, "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is not an object", part)
		}
		if cur, ok = m[part]; !ok {
			return fmt.Errorf("no %s", part)
		}
	}
	return nil
}

func TestTheDocsCopyOfTheOpenAPIDocumentIsIdenticalToTheServedOne(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, openAPIDocument) {
		t.Fatal("docs/openapi.yaml differs from api/openapi.yaml (the canonical one): run go generate ./api")
	}
}

func TestTheDocsEndpointsServeThePageAndTheDocument(t *testing.T) {
	env := startOps(t, opsTuning{})

	code, h, body := env.get("/docs/openapi.yaml")
	if code != http.StatusOK || h.Get("Content-Type") != "application/yaml" || !bytes.Equal(body, openAPIDocument) {
		t.Fatalf("/docs/openapi.yaml: %d %s (%d bytes)", code, h.Get("Content-Type"), len(body))
	}
	opParseOpenAPI(t, body)

	code, h, body = env.get("/docs")
	if code != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Fatalf("/docs: %d %s", code, h.Get("Content-Type"))
	}
	page := string(body)
	if !strings.Contains(page, `href="/docs/openapi.yaml"`) {
		t.Fatalf("/docs does not link to the document:\n%s", page)
	}
	for _, r := range env.srv.Routes() {
		if !strings.Contains(page, "<code>"+r.Pattern+"</code>") {
			t.Errorf("/docs does not list %s %s", r.Method, r.Pattern)
		}
	}
}
