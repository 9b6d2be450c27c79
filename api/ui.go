package api

import (
	"bytes"
	"cmp"
	"embed"
	"io/fs"
	"net/http"
	"path"
)

// The operators' dashboard: plain HTML, CSS and JavaScript embedded in the binary (no build
// step, no CDN: it works offline). The page is static; everything it shows it reads in the
// browser from the API with the tokens the operator types in: GET /v1/overview and the
// /v1/transitions stream (operator token), /v1/jobs/{jobId}/events for a job's timeline, and
// /admin/config with /admin/config/changes for tuning (admin token).
//
//go:embed ui
var uiFiles embed.FS

// uiAssets is the ui folder as the root of the served files.
var uiAssets = func() fs.FS {
	sub, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		panic(err)
	}
	return sub
}()

// uiCSP keeps the page to its own scripts, styles and API: nothing inline, nothing fetched from
// elsewhere, no framing.
const uiCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (s *Server) uiRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Pattern: "/ui", Name: "operators' dashboard", handler: s.uiFile},
		{Method: http.MethodGet, Pattern: "/ui/{$}", Name: "operators' dashboard", handler: s.uiFile},
		{Method: http.MethodGet, Pattern: "/ui/{file}", Name: "operators' dashboard assets", handler: s.uiFile},
	}
}

// uiFile serves the dashboard's page (GET /ui or /ui/) and its assets (GET /ui/{file}).
func (s *Server) uiFile(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	name = cmp.Or(name, "index.html")
	b, err := fs.ReadFile(uiAssets, name)
	if err != nil || path.Base(name) != name {
		s.notFound(w, r)
		return
	}
	if name == "index.html" && s.cfg.AuditOpen {
		// The page connects at once when the audit endpoints need no token.
		b = bytes.Replace(b, []byte("<body>"), []byte(`<body data-audit-open="true">`), 1)
	}
	h := w.Header()
	switch path.Ext(name) {
	case ".html":
		h.Set("Content-Type", "text/html; charset=utf-8")
	case ".js":
		h.Set("Content-Type", "text/javascript; charset=utf-8")
	case ".css":
		h.Set("Content-Type", "text/css; charset=utf-8")
	case ".svg":
		h.Set("Content-Type", "image/svg+xml")
	}
	h.Set("Content-Security-Policy", uiCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	_, _ = w.Write(b)
}
