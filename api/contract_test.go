package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Our OpenAPI document (api/openapi.yaml) is the contract the API tests hold the server to:
// every JSON answer the test servers of this package give (startJT, startOps) is validated
// against it, its status code included, and a test fails when one does not match. A change of
// the wire contract is a change of the document, and moves its info.version.

// contract is our document, loaded once, with a router over its paths.
var contract struct {
	once   sync.Once
	router routers.Router
	err    error
}

func contractRouter() (routers.Router, error) {
	contract.once.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromData(openAPIDocument)
		if err != nil {
			contract.err = fmt.Errorf("load api/openapi.yaml: %w", err)
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			contract.err = fmt.Errorf("api/openapi.yaml is not a valid OpenAPI document: %w", err)
			return
		}
		// The test servers listen on loopback ports, not on the document's server URL.
		doc.Servers = openapi3.Servers{{URL: "/"}}
		contract.router, contract.err = gorillamux.NewRouter(doc)
	})
	return contract.router, contract.err
}

// contractChecked wraps h so that each JSON answer it gives is validated against our OpenAPI
// document; a mismatch is reported as an error of tb. Streams (text/event-stream) and
// non-JSON bodies are passed through unchecked. Benchmarks are not checked.
func contractChecked(tb testing.TB, h http.Handler) http.Handler {
	if _, bench := tb.(*testing.B); bench {
		return h
	}
	router, err := contractRouter()
	if err != nil {
		tb.Fatal(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &capturingWriter{ResponseWriter: w}
		h.ServeHTTP(cw, r)
		if err := checkAnswer(router, r, cw.status(), w.Header(), cw.body.Bytes()); err != nil {
			tb.Errorf("%s %s answered %d, which api/openapi.yaml does not allow: %v\nbody: %s",
				r.Method, r.URL.RequestURI(), cw.status(), err, truncate(cw.body.Bytes(), 600))
		}
		if mt, _, _ := mime.ParseMediaType(w.Header().Get("Content-Type")); mt == "application/json" {
			if err := checkReferenceAnswer(r, cw.status(), cw.body.Bytes()); err != nil {
				tb.Errorf("%s %s answered %d, which a client of the reference relayer's contract (%s) would not expect: %v\nbody: %s",
					r.Method, r.URL.RequestURI(), cw.status(), referenceVersion, err, truncate(cw.body.Bytes(), 600))
			}
		}
	})
}

// checkAnswer validates one answer to r against the document's route for it: the status must be
// documented for the route and the body must match the schema given for it. Answers that are
// not JSON (streams, pages, metrics, key files) and routes that are not in the document (the
// catch-all 404 and 405) are not checked.
func checkAnswer(router routers.Router, r *http.Request, code int, header http.Header, body []byte) error {
	mt, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	if mt != "application/json" {
		return nil
	}
	route, params, err := router.FindRoute(r)
	if err != nil {
		if errors.Is(err, routers.ErrPathNotFound) || errors.Is(err, routers.ErrMethodNotAllowed) {
			return nil
		}
		return fmt.Errorf("find route: %w", err)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: r, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		},
		Status:  code,
		Header:  header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	return openapi3filter.ValidateResponse(r.Context(), in)
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

// capturingWriter writes through to the client and keeps a copy of what it wrote; it flushes and
// hijacks like the writer it wraps, so streams and long polls behave as they do unwrapped.
type capturingWriter struct {
	http.ResponseWriter
	code int
	body bytes.Buffer
}

func (c *capturingWriter) WriteHeader(code int) {
	if c.code == 0 {
		c.code = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *capturingWriter) Write(b []byte) (int, error) {
	if c.code == 0 {
		c.code = http.StatusOK
	}
	if !strings.HasPrefix(c.Header().Get("Content-Type"), "text/event-stream") {
		c.body.Write(b)
	}
	return c.ResponseWriter.Write(b)
}

func (c *capturingWriter) status() int {
	if c.code == 0 {
		return http.StatusOK
	}
	return c.code
}

func (c *capturingWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *capturingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(c.ResponseWriter).Hijack()
}

func (c *capturingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// --- The reference relayer's contract ---------------------------------------------------------

// The reference relayer publishes its API as an OpenAPI document (version referenceVersion).
// referenceOps is what a client written against it relies on, route by route, as facts we keep
// here (the document itself is not in this repository): the statuses it documents, and for
// each the members its body always has ("result.jobId"; "[]" is every element of an array);
// for a submission, the members its request body requires. TestOurDocumentKeepsTheReferenceContract
// checks our document against them, every answer of the test servers on these routes is checked
// against them (contractChecked), and TestTheReferenceTableMatchesTheReferenceDocument checks
// them against the reference's document where a copy is at hand.
const referenceVersion = "0.14.0"

type referenceOp struct {
	method, path string // path with our parameter name ({jobId})
	request      []string
	statuses     map[int][]string
}

var (
	refSubmitted = []string{"status", "requestId", "result", "result.jobId"}
	refRefused   = []string{"status", "error", "error.label", "error.message"}
	refQueued    = []string{"status", "requestId"}
	refFailed    = []string{"status", "requestId", "error", "error.label", "error.message"}
)

func refSubmit(path string, request ...string) referenceOp {
	return referenceOp{method: http.MethodPost, path: path, request: request, statuses: map[int][]string{
		202: refSubmitted, 400: refRefused, 429: refRefused, 500: refRefused}}
}

func refPoll(path string, result ...string) referenceOp {
	return referenceOp{method: http.MethodGet, path: path + "/{jobId}", statuses: map[int][]string{
		200: append([]string{"status", "requestId", "result"}, result...),
		202: refQueued, 400: refFailed, 404: refFailed, 500: refFailed, 503: refFailed}}
}

var referenceOps = []referenceOp{
	{method: http.MethodGet, path: "/v2/keyurl", statuses: map[int][]string{
		200: {"status", "response", "response.fheKeyInfo", "response.fheKeyInfo[].fhePublicKey", "response.fheKeyInfo[].fhePublicKey.dataId",
			"response.fheKeyInfo[].fhePublicKey.urls", "response.crs"},
		500: refRefused}},
	refSubmit("/v2/input-proof", "contractChainId", "contractAddress", "userAddress", "ciphertextWithInputVerification", "extraData"),
	refPoll("/v2/input-proof", "result.accepted", "result.extraData"),
	refSubmit("/v2/user-decrypt", "handleContractPairs", "requestValidity", "contractsChainId", "contractAddresses", "userAddress", "signature", "publicKey", "extraData"),
	refPoll("/v2/user-decrypt", "result.result", "result.result[].payload", "result.result[].signature", "result.result[].extraData"),
	refSubmit("/v2/delegated-user-decrypt", "handleContractPairs", "contractsChainId", "contractAddresses", "delegatorAddress", "delegateAddress",
		"startTimestamp", "durationDays", "signature", "publicKey", "extraData"),
	refPoll("/v2/delegated-user-decrypt", "result.result", "result.result[].payload", "result.result[].signature", "result.result[].extraData"),
	refSubmit("/v2/public-decrypt", "ciphertextHandles", "extraData"),
	refPoll("/v2/public-decrypt", "result.decryptedValue", "result.signatures", "result.extraData"),
	refSubmit("/v3/user-decrypt", "attestationType", "attestedPayload", "signature"),
	refPoll("/v3/user-decrypt", "result.result", "result.result[].payload", "result.result[].signature", "result.result[].extraData"),
	{method: http.MethodGet, path: "/liveness", statuses: map[int][]string{200: {"status"}}},
	{method: http.MethodGet, path: "/healthz", statuses: map[int][]string{200: {"status"}, 503: {"status"}}},
	{method: http.MethodGet, path: "/version", statuses: map[int][]string{200: {"name", "version", "build"}}},
}

// referenceLabels are the error labels the reference's document lists (V2ErrorLabel).
var referenceLabels = []string{
	"malformed_json", "missing_fields", "validation_failed", "request_error", "not_allowed_on_host_acl",
	"host_chain_id_not_supported", "not_found", "rate_limited", "internal_server_error", "host_acl_failed",
	"protocol_paused", "insufficient_balance", "insufficient_allowance", "gateway_not_reachable",
	"readiness_check_timed_out", "response_timed_out",
}

// addedLabels are the labels we may give on the reference's routes besides its own, each for a
// case the reference has no answer for (the README's table says which).
var addedLabels = []string{
	"unauthorized",           // an X-API-Key that names no issued key
	"request_too_large",      // 413
	"unsupported_media_type", // 415: a body not declared application/json
	"cancelled",              // 409: an operator cancelled the job
	"signer_unavailable",     // 503: the relayer's signing key service could not sign
	"method_not_allowed",     // 405
	"storage_full",           // 503: the relayer's disk is full, nothing was recorded
}

// notYetServed are the reference's routes we do not serve yet, and why (none now: the test keeps
// the mechanism for the reference's next routes).
var notYetServed = map[string]string{}

// referenceOpFor is the reference's operation that answers r, if any.
func referenceOpFor(r *http.Request) (referenceOp, bool) {
	for _, op := range referenceOps {
		if op.method != r.Method {
			continue
		}
		if prefix, ok := strings.CutSuffix(op.path, "/{jobId}"); ok {
			rest, found := strings.CutPrefix(r.URL.Path, prefix+"/")
			if found && rest != "" && !strings.Contains(rest, "/") {
				return op, true
			}
			continue
		}
		if r.URL.Path == op.path {
			return op, true
		}
	}
	return referenceOp{}, false
}

// checkReferenceAnswer checks an answer on one of the reference's routes with a status the
// reference documents: the members its body always has are there, and an error's label is the
// reference's or one of addedLabels.
func checkReferenceAnswer(r *http.Request, code int, body []byte) error {
	op, ok := referenceOpFor(r)
	if !ok {
		return nil
	}
	members, documented := op.statuses[code]
	if !documented {
		return nil // a status the reference does not give: one of ours, in our document
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	for _, m := range members {
		if !hasMember(v, m) {
			return fmt.Errorf("the reference's %s %s answers %d with %q, which this body lacks", op.method, op.path, code, m)
		}
	}
	if obj, ok := v.(map[string]any); ok {
		if e, ok := obj["error"].(map[string]any); ok {
			label, _ := e["label"].(string)
			if !slices.Contains(referenceLabels, label) && !slices.Contains(addedLabels, label) {
				return fmt.Errorf("label %q is neither the reference's nor one of those we add", label)
			}
		}
	}
	return nil
}

// hasMember reports whether v has the member at path ("a.b", "a[].b": every element of a).
func hasMember(v any, path string) bool {
	if path == "" {
		return v != nil
	}
	head, rest, _ := strings.Cut(path, ".")
	name, each := strings.CutSuffix(head, "[]")
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	next, ok := obj[name]
	if !ok || next == nil {
		return false
	}
	if !each {
		return hasMember(next, rest)
	}
	list, ok := next.([]any)
	if !ok {
		return false
	}
	for _, el := range list {
		if !hasMember(el, rest) {
			return false
		}
	}
	return true
}

// requiredMembers are the members every instance of s has, as paths ("result.jobId"): its
// required properties and theirs, through allOf (all of them) and oneOf/anyOf (those every
// alternative has).
func requiredMembers(s *openapi3.Schema, prefix string, depth int) map[string]bool {
	out := map[string]bool{}
	if s == nil || depth > 6 {
		return out
	}
	for _, name := range s.Required {
		p := prefix + name
		out[p] = true
		if ps := s.Properties[name]; ps != nil {
			child := ps.Value
			sub := p + "."
			if child != nil && child.Type.Is("array") && child.Items != nil {
				child, sub = child.Items.Value, p+"[]."
			}
			for m := range requiredMembers(child, sub, depth+1) {
				out[m] = true
			}
		}
	}
	for _, a := range s.AllOf {
		for m := range requiredMembers(a.Value, prefix, depth+1) {
			out[m] = true
		}
	}
	for _, alts := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
		if len(alts) == 0 {
			continue
		}
		common := requiredMembers(alts[0].Value, prefix, depth+1)
		for _, a := range alts[1:] {
			other := requiredMembers(a.Value, prefix, depth+1)
			for m := range common {
				if !other[m] {
					delete(common, m)
				}
			}
		}
		for m := range common {
			out[m] = true
		}
	}
	return out
}

// schemaProperties are the property names of s, through allOf.
func schemaProperties(s *openapi3.Schema) map[string]bool {
	out := map[string]bool{}
	if s == nil {
		return out
	}
	for name := range s.Properties {
		out[name] = true
	}
	for _, a := range s.AllOf {
		for name := range schemaProperties(a.Value) {
			out[name] = true
		}
	}
	return out
}

func loadOurDocument(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(openAPIDocument)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestOurDocumentKeepsTheReferenceContract(t *testing.T) {
	doc := loadOurDocument(t)
	for _, ref := range referenceOps {
		name := ref.method + " " + ref.path
		item := doc.Paths.Value(ref.path)
		var op *openapi3.Operation
		if item != nil {
			op = item.GetOperation(ref.method)
		}
		if why, later := notYetServed[name]; later {
			if op != nil {
				t.Errorf("%s is in our document now: take it off notYetServed", name)
			}
			t.Logf("not served yet: %s (%s)", name, why)
			continue
		}
		if op == nil {
			t.Errorf("%s: the reference serves it, our document does not", name)
			continue
		}
		if len(ref.request) > 0 {
			s := op.RequestBody.Value.Content.Get("application/json").Schema.Value
			props := schemaProperties(s)
			for _, f := range ref.request {
				if !props[f] {
					t.Errorf("%s: the reference's request has %q, ours does not take it", name, f)
				}
			}
			for _, f := range s.Required {
				if !slices.Contains(ref.request, f) {
					t.Errorf("%s: our request requires %q, which the reference's does not", name, f)
				}
			}
		}
		for code, members := range ref.statuses {
			resp := op.Responses.Status(code)
			if resp == nil {
				t.Errorf("%s: the reference answers %d, our document does not", name, code)
				continue
			}
			mt := resp.Value.Content.Get("application/json")
			if mt == nil || mt.Schema == nil {
				t.Errorf("%s %d: our document gives no JSON schema", name, code)
				continue
			}
			have := requiredMembers(mt.Schema.Value, "", 0)
			for _, m := range members {
				if !have[m] {
					t.Errorf("%s %d: the reference's body always has %q, our schema does not require it", name, code, m)
				}
			}
		}
	}
	// Every label the reference lists is one of ours (those we never give are documented as such).
	var ours []string
	for _, v := range doc.Components.Schemas["ErrorBody"].Value.Properties["label"].Value.Enum {
		ours = append(ours, v.(string))
	}
	for _, l := range referenceLabels {
		if !slices.Contains(ours, l) {
			t.Errorf("label %s of the reference is not in our ErrorBody's labels", l)
		}
	}
	for _, l := range addedLabels {
		if !slices.Contains(ours, l) {
			t.Errorf("added label %s is not in our ErrorBody's labels", l)
		}
	}
	// info.version names the reference's version we match.
	if !strings.Contains(doc.Info.Version, "reference "+referenceVersion) {
		t.Errorf("info.version %q does not say which reference version it matches (%s)", doc.Info.Version, referenceVersion)
	}
}

// referenceDocumentPath is where a copy of the reference's document may be, beside the
// repository (../shared/reference from its root; RELAYER_REFERENCE_OPENAPI overrides it).
const referenceDocumentPath = "../../shared/reference/relayer-openapi-0.14.0.yml"

func TestTheReferenceTableMatchesTheReferenceDocument(t *testing.T) {
	path := referenceDocumentPath
	if p := os.Getenv("RELAYER_REFERENCE_OPENAPI"); p != "" {
		path = p
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("no copy of the reference's document at %s (set RELAYER_REFERENCE_OPENAPI)", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Info.Version != referenceVersion {
		t.Fatalf("the reference's document is version %s, the table is of %s", doc.Info.Version, referenceVersion)
	}
	seen := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		ours := strings.ReplaceAll(path, "{job_id}", "{jobId}")
		for method, op := range item.Operations() {
			name := method + " " + ours
			seen[name] = true
			var ref *referenceOp
			for i := range referenceOps {
				if referenceOps[i].method == method && referenceOps[i].path == ours {
					ref = &referenceOps[i]
				}
			}
			if ref == nil {
				t.Errorf("%s is in the reference's document, not in referenceOps", name)
				continue
			}
			if op.RequestBody != nil {
				req := op.RequestBody.Value.Content.Get("application/json").Schema.Value.Required
				if !slices.Equal(slices.Sorted(slices.Values(req)), slices.Sorted(slices.Values(ref.request))) {
					t.Errorf("%s: the reference requires %v in a request, the table says %v", name, req, ref.request)
				}
			}
			for code, resp := range op.Responses.Map() {
				n, _ := strconv.Atoi(code)
				members, ok := ref.statuses[n]
				if !ok {
					t.Errorf("%s: the reference answers %s, the table does not say so", name, code)
					continue
				}
				have := requiredMembers(resp.Value.Content.Get("application/json").Schema.Value, "", 0)
				for _, m := range members {
					if !have[m] {
						t.Errorf("%s %s: the table says the body always has %q; the reference's schema does not require it", name, code, m)
					}
				}
			}
			if len(op.Responses.Map()) != len(ref.statuses) {
				t.Errorf("%s: the reference answers %d statuses, the table lists %d", name, len(op.Responses.Map()), len(ref.statuses))
			}
		}
	}
	for _, op := range referenceOps {
		if !seen[op.method+" "+op.path] {
			t.Errorf("%s %s is in referenceOps, not in the reference's document", op.method, op.path)
		}
	}
	var labels []string
	for _, v := range doc.Components.Schemas["V2ErrorLabel"].Value.Enum {
		labels = append(labels, v.(string))
	}
	if !slices.Equal(slices.Sorted(slices.Values(labels)), slices.Sorted(slices.Values(referenceLabels))) {
		t.Errorf("the reference's labels are %v, the table says %v", labels, referenceLabels)
	}
}

func TestTheContractCheckRefusesAnswersOutsideTheDocuments(t *testing.T) {
	router, err := contractRouter()
	if err != nil {
		t.Fatal(err)
	}
	jsonHeader := http.Header{"Content-Type": {"application/json"}}
	job := "/v2/public-decrypt/3d1228d5-00ab-5089-a0db-839d4af091f6"
	for _, c := range []struct {
		name, method, path string
		code               int
		body               string
	}{
		{"a status the route does not document", http.MethodGet, "/v2/keyurl", http.StatusTeapot, `{"status":"failed","requestId":"3d1228d5-00ab-5089-a0db-839d4af091f6","error":{"label":"not_found","message":"x"}}`},
		{"a version without its build", http.MethodGet, "/version", 200, `{"name":"relayer","version":"1","goVersion":"go1"}`},
		{"an unknown label", http.MethodGet, job, 404, `{"status":"failed","requestId":"3d1228d5-00ab-5089-a0db-839d4af091f6","error":{"label":"bogus","message":"x"}}`},
		{"a result without its decrypted value", http.MethodGet, job, 200, `{"status":"succeeded","requestId":"3d1228d5-00ab-5089-a0db-839d4af091f6","result":{"signatures":[],"extraData":"0x00"}}`},
	} {
		r := httptest.NewRequest(c.method, c.path, nil)
		if err := checkAnswer(router, r, c.code, jsonHeader, []byte(c.body)); err == nil {
			t.Errorf("%s: our document's check let it through", c.name)
		}
	}
	for _, c := range []struct {
		name, method, path string
		code               int
		body               string
	}{
		{"a submission's 202 without its job id", http.MethodPost, "/v2/input-proof", 202, `{"status":"queued","requestId":"x","result":{}}`},
		{"a label of neither contract", http.MethodGet, job, 500, `{"status":"failed","requestId":"x","error":{"label":"bogus","message":"x"}}`},
		{"a health answer without status", http.MethodGet, "/healthz", 503, `{"dependencies":{}}`},
	} {
		r := httptest.NewRequest(c.method, c.path, nil)
		if err := checkReferenceAnswer(r, c.code, []byte(c.body)); err == nil {
			t.Errorf("%s: the reference's check let it through", c.name)
		}
	}
}
