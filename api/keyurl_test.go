package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
)

const (
	ktKeyID = "0x0400000000000000000000000000000000000000000000000000000000000003"
	ktCRSID = "0x0500000000000000000000000000000000000000000000000000000000000004"
)

func ktServed(c *Config) {
	c.Keys = KeysConfig{
		PublicKeyID: ktKeyID, PublicKeyURLs: []string{"/keys/pk.bin", "https://keys.example.org/pk"},
		CRSID: ktCRSID, CRSURLs: []string{"/keys/crs.bin"},
		Files: map[string][]byte{"pk.bin": []byte("public key bytes"), "crs.bin": []byte("crs bytes")},
	}
}

func TestKeyURLAnswersTheSDKsCamelCaseShapeWithTheRelayersOwnFilesMadeAbsolute(t *testing.T) {
	e := startJT(t, ktServed)
	r := e.do(http.MethodGet, "/v2/keyurl", nil)
	if r.Code != http.StatusOK {
		t.Fatalf("GET /v2/keyurl: %d %s", r.Code, r.Body)
	}
	var got struct {
		Status   string `json:"status"`
		Response struct {
			FheKeyInfo []struct {
				FhePublicKey struct {
					DataID string   `json:"dataId"`
					URLs   []string `json:"urls"`
				} `json:"fhePublicKey"`
			} `json:"fheKeyInfo"`
			CRS map[string]struct {
				DataID string   `json:"dataId"`
				URLs   []string `json:"urls"`
			} `json:"crs"`
		} `json:"response"`
	}
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != "succeeded" || len(got.Response.FheKeyInfo) != 1 {
		t.Fatalf("body %s", r.Body)
	}
	pk := got.Response.FheKeyInfo[0].FhePublicKey
	if pk.DataID != ktKeyID || len(pk.URLs) != 2 || pk.URLs[0] != e.ts.URL+"/keys/pk.bin" || pk.URLs[1] != "https://keys.example.org/pk" {
		t.Errorf("public key = %+v, want the id and %s/keys/pk.bin then the external URL", pk, e.ts.URL)
	}
	crs, ok := got.Response.CRS["2048"]
	if !ok || crs.DataID != ktCRSID || len(crs.URLs) != 1 || crs.URLs[0] != e.ts.URL+"/keys/crs.bin" {
		t.Errorf("crs = %+v, want 2048 with the id and %s/keys/crs.bin", got.Response.CRS, e.ts.URL)
	}

	// What the SDK downloads next: the bytes, as they are.
	file := e.do(http.MethodGet, "/keys/pk.bin", nil)
	if file.Code != http.StatusOK || string(file.Body) != "public key bytes" || file.Header.Get("Content-Type") != "application/octet-stream" {
		t.Errorf("GET /keys/pk.bin: %d %q %s", file.Code, file.Body, file.Header.Get("Content-Type"))
	}
	if r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("keyurl Cache-Control %q: an answer made for one host must not be cached for another", r.Header.Get("Cache-Control"))
	}
	etag := file.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag on a key file")
	}
	if again := e.do(http.MethodGet, "/keys/pk.bin", nil, "If-None-Match", etag); again.Code != http.StatusNotModified || len(again.Body) != 0 {
		t.Errorf("GET with If-None-Match of the current ETag: %d with %d bytes, want 304 and nothing", again.Code, len(again.Body))
	}
	if part := e.do(http.MethodGet, "/keys/pk.bin", nil, "Range", "bytes=0-5"); part.Code != http.StatusPartialContent || string(part.Body) != "public" {
		t.Errorf("GET with a range: %d %q, want 206 \"public\"", part.Code, part.Body)
	}
	if r := e.do(http.MethodGet, "/keys/other.bin", nil); r.Code != http.StatusNotFound || r.Env.Error == nil || r.Env.Error.Label != "not_found" {
		t.Errorf("GET /keys/other.bin: %d %s, want 404 not_found", r.Code, r.Body)
	}
}

func TestKeyURLV1AnswersInSnakeCaseForOlderSDKs(t *testing.T) {
	e := startJT(t, ktServed)
	r := e.do(http.MethodGet, "/v1/keyurl", nil)
	if r.Code != http.StatusOK {
		t.Fatalf("GET /v1/keyurl: %d %s", r.Code, r.Body)
	}
	for _, want := range []string{`"fhe_key_info":[{"fhe_public_key":{"data_id":"` + ktKeyID + `"`, `"crs":{"2048":{"data_id":"` + ktCRSID + `"`} {
		if !strings.Contains(string(r.Body), want) {
			t.Errorf("body %s lacks %s", r.Body, want)
		}
	}
	if strings.Contains(string(r.Body), "dataId") {
		t.Errorf("v1 body %s has camelCase names", r.Body)
	}
}

func TestKeyURLWithoutKeyMaterialIsAnInternalErrorThatSaysWhatToConfigure(t *testing.T) {
	e := startJT(t)
	r := e.do(http.MethodGet, "/v2/keyurl", nil)
	r.want(t, http.StatusInternalServerError, "internal_server_error")
	if !strings.Contains(r.Env.Error.Message, "keys.public_key") {
		t.Errorf("message %q does not name the setting", r.Env.Error.Message)
	}
}

func TestInvalidKeySettingsAreRefusedWithEveryProblemNamed(t *testing.T) {
	c := DefaultConfig()
	c.Keys = KeysConfig{
		PublicKeyID: "0x04", PublicKeyURLs: []string{"ftp://keys.example.org/pk", "/keys/missing.bin"},
		CRSID: ktCRSID,
		Files: map[string][]byte{"../escape": nil},
	}
	err := c.Validate()
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("Validate = %v, want a *ConfigError", err)
	}
	want := []string{"keys.public_key.data_id", "keys.public_key.urls[0]", "keys.public_key.urls[1]", "keys.crs_2048.urls", "keys.files"}
	for _, field := range want {
		found := false
		for _, p := range ce.Problems {
			found = found || p.Field == field
		}
		if !found {
			t.Errorf("no problem for %s in %v", field, ce.Problems)
		}
	}
}
