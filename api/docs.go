package api

import (
	_ "embed"
	"html/template"
	"net/http"
)

// The OpenAPI 3.1 document of the whole API. The canonical file is api/openapi.yaml, beside this
// package, because go:embed only reaches files under the package's directory; docs/openapi.yaml
// is a copy for readers of the repository, kept byte-identical by go generate and checked by
// TestTheDocsCopyOfTheOpenAPIDocumentIsIdenticalToTheServedOne.
//
//go:generate cp openapi.yaml ../docs/openapi.yaml
//go:embed openapi.yaml
var openAPIDocument []byte

// openAPIDocument answers GET /docs/openapi.yaml with the embedded document.
func (s *Server) openAPIDocument(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(openAPIDocument)
}

var docsTemplate = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Relayer API</title>
<style>body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}
code{font-size:.95em}td{padding:.15rem .75rem .15rem 0;vertical-align:top}</style></head>
<body>
<h1>Relayer API</h1>
<p>The OpenAPI 3.1 document: <a href="/docs/openapi.yaml">/docs/openapi.yaml</a>
(load it in any OpenAPI viewer).</p>
<h2>Endpoints</h2>
<table>
{{range .}}<tr><td><code>{{.Method}}</code></td><td><code>{{.Pattern}}</code></td><td>{{.Name}}</td></tr>
{{end}}</table>
</body>
</html>
`))

// docsPage answers GET /docs: a short HTML page that links to the OpenAPI document and lists
// every route the server registers.
func (s *Server) docsPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := docsTemplate.Execute(w, s.Routes()); err != nil {
		s.log.Warn("render /docs", "request_id", requestID(w), "err", err)
	}
}
