package api

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"relayer/internal/config"
)

// KeysConfig says where clients download the network's public key material: the FHE public key
// and the CRS for 2048 bits, which the public SDK fetches through GET /v2/keyurl before it can
// encrypt anything. In production the URLs point at the key storage of the network (configured);
// on the development stack the relayer serves the development key material itself (Files).
type KeysConfig struct {
	// PublicKeyID and CRSID are the on-chain ids of the key and the CRS (dataId on the wire).
	PublicKeyID string
	CRSID       string
	// PublicKeyURLs and CRSURLs are where the bytes are; the SDK downloads the first of each. A
	// URL that is a path ("/keys/public_key.bin") names one of Files and is answered as an
	// absolute URL on the host the client asked.
	PublicKeyURLs []string
	CRSURLs       []string
	// Files are served under /keys/{name} (application/octet-stream).
	Files map[string][]byte
}

// Configured reports whether GET /v2/keyurl has an answer.
func (k KeysConfig) Configured() bool { return len(k.PublicKeyURLs) > 0 && len(k.CRSURLs) > 0 }

var (
	dataIDPattern  = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)
	keyFilePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
)

const (
	keyFilesPrefix = "/keys/"
	keyFilesMaxAge = 24 * time.Hour
)

// keyFileETags are the entity tags of files: their SHA-256, so that a client's cached copy is
// revalidated by content (If-None-Match) rather than by a date the files do not have.
func keyFileETags(files map[string][]byte) map[string]string {
	tags := make(map[string]string, len(files))
	for name, b := range files {
		tags[name] = fmt.Sprintf(`"%x"`, sha256.Sum256(b))
	}
	return tags
}

// problems lists what is wrong with k, with fields named as in serve's configuration.
func (k KeysConfig) problems() []Problem {
	var ps config.Problems
	if len(k.PublicKeyURLs) == 0 && len(k.CRSURLs) == 0 {
		if k.PublicKeyID != "" || k.CRSID != "" {
			ps.Add("keys", "ids are set without URLs: set keys.public_key.urls and keys.crs_2048.urls too")
		}
		return ps
	}
	for _, f := range []struct {
		name string
		id   string
		urls []string
	}{{"keys.public_key", k.PublicKeyID, k.PublicKeyURLs}, {"keys.crs_2048", k.CRSID, k.CRSURLs}} {
		if !dataIDPattern.MatchString(f.id) {
			ps.Add(f.name+".data_id", "must be 0x and 64 hex digits, got %q", f.id)
		}
		if len(f.urls) == 0 {
			ps.Add(f.name+".urls", "must list at least one URL (both the public key and the CRS are needed)")
		}
		for i, u := range f.urls {
			if issue := keyURLIssue(u, k.Files); issue != "" {
				ps.Add(fmt.Sprintf("%s.urls[%d]", f.name, i), "%s", issue)
			}
		}
	}
	for name := range k.Files {
		if !keyFilePattern.MatchString(name) {
			ps.Add("keys.files", "file name %q must be letters, digits, '.', '_' or '-'", name)
		}
	}
	return ps
}

func keyURLIssue(raw string, files map[string][]byte) string {
	if strings.HasPrefix(raw, "/") {
		name, ok := strings.CutPrefix(raw, keyFilesPrefix)
		if _, served := files[name]; !ok || !served {
			return fmt.Sprintf("the path %q is not one of the files this relayer serves under %s", raw, keyFilesPrefix)
		}
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Sprintf("must be an absolute http(s) URL or a path under %s, got %q", keyFilesPrefix, raw)
	}
	return ""
}

func (s *Server) keyRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Pattern: "/v2/keyurl", Name: "key material URLs", handler: s.limited(s.keyURL(false))},
		{Method: http.MethodGet, Pattern: "/v1/keyurl", Name: "key material URLs (v1, snake_case)", handler: s.limited(s.keyURL(true))},
		{Method: http.MethodGet, Pattern: keyFilesPrefix + "{name}", Name: "key material served by the relayer", handler: s.limited(s.keyFile)},
	}
}

// The answers of GET /v2/keyurl (camelCase) and /v1/keyurl (snake_case), as the public SDK
// asserts them: it reads fheKeyInfo[0].fhePublicKey.urls[0] and crs["2048"].urls[0].
type (
	keyData struct {
		DataID string   `json:"dataId"`
		URLs   []string `json:"urls"`
	}
	fheKeyInfo struct {
		FhePublicKey keyData `json:"fhePublicKey"`
	}
	keyURLResponse struct {
		FheKeyInfo []fheKeyInfo       `json:"fheKeyInfo"`
		CRS        map[string]keyData `json:"crs"`
	}
	keyDataV1 struct {
		DataID string   `json:"data_id"`
		URLs   []string `json:"urls"`
	}
	fheKeyInfoV1 struct {
		FhePublicKey keyDataV1 `json:"fhe_public_key"`
	}
	keyURLResponseV1 struct {
		FheKeyInfo []fheKeyInfoV1       `json:"fhe_key_info"`
		CRS        map[string]keyDataV1 `json:"crs"`
	}
)

func (s *Server) keyURL(v1 bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		k := s.cfg.Keys
		if !k.Configured() {
			writeError(w, r, http.StatusInternalServerError, labelInternal,
				"this relayer has no key material configured (keys.public_key and keys.crs_2048)", nil)
			return
		}
		pk, crs := absoluteURLs(r, k.PublicKeyURLs), absoluteURLs(r, k.CRSURLs)
		var body any = keyURLResponse{
			FheKeyInfo: []fheKeyInfo{{FhePublicKey: keyData{DataID: k.PublicKeyID, URLs: pk}}},
			CRS:        map[string]keyData{"2048": {DataID: k.CRSID, URLs: crs}},
		}
		if v1 {
			body = keyURLResponseV1{
				FheKeyInfo: []fheKeyInfoV1{{FhePublicKey: keyDataV1{DataID: k.PublicKeyID, URLs: pk}}},
				CRS:        map[string]keyDataV1{"2048": {DataID: k.CRSID, URLs: crs}},
			}
		}
		// The answer depends on the host the client asked (the relayer's own files): no cache
		// may hand it to a client that asked another.
		w.Header().Set("Cache-Control", "no-store")
		writeJSON(w, http.StatusOK, struct {
			Status   string `json:"status"`
			Response any    `json:"response"`
		}{"succeeded", body})
	}
}

// absoluteURLs makes the relayer's own paths absolute on the host and scheme the client used.
func absoluteURLs(r *http.Request, urls []string) []string {
	out := slices.Clone(urls)
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	for i, u := range out {
		if strings.HasPrefix(u, "/") {
			out[i] = (&url.URL{Scheme: scheme, Host: r.Host, Path: u}).String()
		}
	}
	return out
}

// keyFile serves one of KeysConfig.Files, with ranges and conditional requests.
func (s *Server) keyFile(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	b, ok := s.cfg.Keys.Files[name]
	if !ok {
		writeError(w, r, http.StatusNotFound, labelNotFound, fmt.Sprintf("no key material named %q", name), nil)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Cache-Control", fmt.Sprintf("public, max-age=%d", int(keyFilesMaxAge/time.Second)))
	w.Header().Set("ETag", s.keyETags[name])
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
}
