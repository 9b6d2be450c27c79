package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.yaml.in/yaml/v3"

	"relayer/domain"
	"relayer/domain/webhook"
	"relayer/eventstore"
)

// whKey is the tests' sealing key (webhooks.secret_key).
const whKey = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"

// whOn turns the admin API and webhooks on, private addresses refused.
func whOn(c *Config) {
	c.AdminToken = jtToken
	c.Webhooks = webhook.Config{SecretKey: whKey, MaxEndpoints: 3}
}

func (e *jtEnv) hook(method, path, body string) jtResponse {
	e.t.Helper()
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	return e.do(method, "/admin/webhooks"+path, b, jtAuth...)
}

func whList(t *testing.T, res jtResponse) []webhookView {
	t.Helper()
	var l struct {
		Webhooks []webhookView `json:"webhooks"`
	}
	if err := json.Unmarshal(res.Env.Result, &l); err != nil {
		t.Fatalf("%v: %s", err, res.Body)
	}
	return l.Webhooks
}

const whPublicURL = `https://93.184.216.34/hooks/relayer`

func TestWebhooksAreOffWithoutASealingKeyAndBehindTheAdminToken(t *testing.T) {
	env := startJT(t, jtAdmin)
	env.hook("POST", "", `{"url":"`+whPublicURL+`"}`).want(t, http.StatusForbidden, labelForbidden)
	env.hook("GET", "", "").want(t, http.StatusOK, "")

	on := startJT(t, whOn)
	on.do("GET", "/admin/webhooks", nil).want(t, http.StatusUnauthorized, labelUnauthorized)
	on.do("POST", "/admin/webhooks", []byte(`{"url":"`+whPublicURL+`"}`), "Authorization", "Bearer nope").want(t, http.StatusUnauthorized, labelUnauthorized)
}

func TestARegistrationIsAnEventAndItsSecretIsShownOnceAndNowhereElse(t *testing.T) {
	env := startJT(t, whOn)
	// A URL with credentials is refused: the URL is recorded as given, and the receiver
	// authenticates deliveries by their signature. Nothing is recorded, and the password is
	// nowhere.
	refused := env.hook("POST", "", `{"url":"https://relayer:pa55@93.184.216.34/hooks?x=1"}`)
	refused.want(t, http.StatusBadRequest, "")
	if !strings.Contains(string(refused.Body), `"field":"url"`) || strings.Contains(string(refused.Body), "pa55") {
		t.Errorf("a URL with credentials: %s, want a 400 naming url without the password", refused.Body)
	}
	res := env.hook("POST", "", `{"url":"https://93.184.216.34/hooks?x=1","description":"billing",
		"filter":{"kinds":["user-decrypt"],"statuses":["completed","failure"],"eventTypes":[]}}`)
	res.want(t, http.StatusCreated, "")
	c := jtResult[webhookCreated](t, res)
	if !strings.HasPrefix(c.Secret, webhook.SecretPrefix) {
		t.Fatalf("secret %q", c.Secret)
	}
	v := c.Webhook
	if v.State != "active" || v.Secrets != 1 || v.CreatedBy == "" || strings.Join(v.Filter.Kinds, ",") != "user-decrypt" ||
		strings.Join(v.Filter.Statuses, ",") != "completed,failure" || v.Description != "billing" {
		t.Fatalf("registered %+v", v)
	}
	if v.URL != "https://93.184.216.34/hooks?x=1" {
		t.Errorf("the URL shown is %q: want it whole", v.URL)
	}

	// The secret is nowhere but in that answer: not in the GET answers, the server's log, or the
	// log's records (which keep it sealed).
	secretB64 := strings.TrimPrefix(c.Secret, webhook.SecretPrefix)
	list := env.hook("GET", "", "")
	one := env.hook("GET", "/"+v.ID, "")
	if got := whList(t, list); len(got) != 1 || got[0].ID != v.ID {
		t.Fatalf("listed %s", list.Body)
	}
	var sealed webhook.Sealed
	for rec, err := range env.store.ReadAll(context.Background(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(rec.Data), secretB64) {
			t.Errorf("record %s@%d holds the secret: %s", rec.Stream, rec.Version, rec.Data)
		}
		if rec.Stream == webhook.Stream {
			e, err := env.srv.codec.Decode(rec)
			if err != nil {
				t.Fatal(err)
			}
			reg := e.(webhook.Registered)
			sealed = reg.Secret
			if reg.Who != v.CreatedBy || reg.URL != "https://93.184.216.34/hooks?x=1" {
				t.Errorf("recorded %+v", reg)
			}
		}
	}
	for what, s := range map[string]string{"GET /admin/webhooks": string(list.Body), "GET /admin/webhooks/{id}": string(one.Body), "the server's log": env.logs.String()} {
		if strings.Contains(s, secretB64) {
			t.Errorf("%s shows the secret", what)
		}
	}
	for what, text := range map[string]string{"the server's log": env.logs.String(), "the event log": allData(t, env.store)} {
		if strings.Contains(text, "pa55") {
			t.Errorf("%s shows the refused URL's password", what)
		}
	}
	// What the log holds opens, under the configured key, to the secret that was answered.
	opened, err := webhook.Open(env.cfg.Webhooks.Key(), v.ID, sealed)
	if err != nil || opened != c.Secret {
		t.Fatalf("the sealed secret opens to %d bytes (%v), not the secret answered", len(opened), err)
	}

	// Restarted, the server lists it again, from the log.
	env.restart()
	if got := whList(t, env.hook("GET", "", "")); len(got) != 1 || got[0].ID != v.ID || got[0].Version != 0 {
		t.Fatalf("after a restart: %+v", got)
	}
}

func TestLoopbackPrivateAndLinkLocalEndpointsAreRefusedUnlessAllowed(t *testing.T) {
	env := startJT(t, whOn)
	env.srv.lookupHost = func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "internal.example":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.1.2.3")}, nil
		case "hooks.example":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
		case "localhost":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, &resolveError{}
	}
	for _, u := range []string{"http://127.0.0.1:9/x", "http://[::1]/", "http://10.0.0.7/", "http://169.254.169.254/latest/meta-data",
		"http://localhost:8080/", "https://internal.example/", "http://0.0.0.0/", "https://nowhere.invalid/"} {
		res := env.hook("POST", "", `{"url":"`+u+`"}`)
		res.want(t, http.StatusBadRequest, "validation_failed")
		if len(res.Env.Error.Details) != 1 || res.Env.Error.Details[0].Field != "url" {
			t.Errorf("%s: %s", u, res.Body)
		}
	}
	env.hook("POST", "", `{"url":"https://hooks.example/relayer"}`).want(t, http.StatusCreated, "")

	open := startJT(t, whOn, func(c *Config) { c.Webhooks.AllowPrivate = true })
	open.hook("POST", "", `{"url":"http://127.0.0.1:9/x"}`).want(t, http.StatusCreated, "")
}

// resolveError is a resolver's failure.
type resolveError struct{}

func (*resolveError) Error() string { return "no such host" }

func TestABadRegistrationListsEveryProblem(t *testing.T) {
	env := startJT(t, whOn)
	res := env.hook("POST", "", `{"url":"ftp://93.184.216.34/","filter":{"kinds":["teleport"],"statuses":["lost"],"eventTypes":["ShareReceived"]}}`)
	res.want(t, http.StatusBadRequest, "validation_failed")
	if n := len(res.Env.Error.Details); n != 4 {
		t.Errorf("%d problems listed, want 4: %s", n, res.Body)
	}
	env.hook("POST", "", `{"description":"no url"}`).want(t, http.StatusBadRequest, "missing_fields")
	env.hook("POST", "", `{"url":"`+whPublicURL+`","secret":"whsec_mine"}`).want(t, http.StatusBadRequest, "malformed_json")
	env.hook("POST", "", `{"url":"`+whPublicURL+`","url":"`+whPublicURL+`"}`).want(t, http.StatusBadRequest, "malformed_json")
	env.do("POST", "/admin/webhooks", []byte(`{"url":"`+whPublicURL+`"}`), "Authorization", "Bearer "+jtToken, "Content-Type", "text/plain").
		want(t, http.StatusUnsupportedMediaType, labelUnsupportedMediaType)
	for range 3 {
		env.hook("POST", "", `{"url":"`+whPublicURL+`"}`).want(t, http.StatusCreated, "")
	}
	env.hook("POST", "", `{"url":"`+whPublicURL+`"}`).want(t, http.StatusConflict, labelConflict)
}

func TestARotationAnswersANewSecretAndTheOldOneSignsUntilTheOverlapEnds(t *testing.T) {
	env := startJT(t, whOn)
	first := jtResult[webhookCreated](t, env.hook("POST", "", `{"url":"`+whPublicURL+`"}`))
	id := first.Webhook.ID
	res := env.hook("POST", "/"+id+"/rotate", `{"overlapSeconds":3600}`)
	res.want(t, http.StatusOK, "")
	rot := jtResult[webhookCreated](t, res)
	if rot.Secret == first.Secret || !strings.HasPrefix(rot.Secret, webhook.SecretPrefix) {
		t.Fatalf("rotated secret %q", rot.Secret)
	}
	if rot.Webhook.Secrets != 2 || !rot.Webhook.PreviousSecretValidUntil.Equal(env.clock.Now().Add(time.Hour)) {
		t.Fatalf("during the overlap: %+v", rot.Webhook)
	}
	env.clock.Advance(2 * time.Hour)
	if v := jtResult[webhookView](t, env.hook("GET", "/"+id, "")); v.Secrets != 1 || !v.PreviousSecretValidUntil.IsZero() {
		t.Fatalf("after the overlap: %+v", v)
	}
	// Without a body, the configured overlap (24 h by default); 0 ends the old secret at once.
	if v := jtResult[webhookCreated](t, env.hook("POST", "/"+id+"/rotate", "")).Webhook; v.Secrets != 2 {
		t.Fatalf("rotation with the default overlap: %+v", v)
	}
	if v := jtResult[webhookCreated](t, env.hook("POST", "/"+id+"/rotate", `{"overlapSeconds":0}`)).Webhook; v.Secrets != 1 {
		t.Fatalf("rotation without overlap: %+v", v)
	}
	// Out of range, or not whole, it is refused naming the range (found by an outside probe:
	// 1e12 was answered malformed_json, "must be a whole number").
	for _, v := range []string{"-1", "1e12", "2592001", "1.5"} {
		res := env.hook("POST", "/"+id+"/rotate", `{"overlapSeconds":`+v+`}`)
		res.want(t, http.StatusBadRequest, "validation_failed")
		if d := res.Env.Error.Details; len(d) != 1 || d[0].Field != "overlapSeconds" || !strings.Contains(d[0].Issue, "from 0 to 2592000") {
			t.Errorf("overlapSeconds %s: details %v", v, d)
		}
	}
	if v := jtResult[webhookCreated](t, env.hook("POST", "/"+id+"/rotate", `{"overlapSeconds":6e1}`)).Webhook; v.Secrets != 2 {
		t.Fatalf("rotation with an overlap of 6e1 s: %+v", v)
	}
	// A member of the wrong type is named, with what it must be (found by an outside probe: the
	// answer said only that the body must be one JSON object).
	res = env.hook("POST", "/"+id+"/rotate", `{"overlapSeconds":"1"}`)
	res.want(t, http.StatusBadRequest, "malformed_json")
	if d := res.Env.Error.Details; len(d) != 1 || d[0].Field != "overlapSeconds" || !strings.Contains(d[0].Issue, "must be a number, got string") {
		t.Errorf("overlapSeconds as a string: %q, details %v; want the field named", res.Env.Error.Message, d)
	}
	env.hook("POST", "/nope/rotate", "").want(t, http.StatusBadRequest, domain.LabelValidationFailed)
	env.hook("POST", "/"+uuid.NewString()+"/rotate", "").want(t, http.StatusNotFound, labelNotFound)
}

func TestAnEndpointIsDisabledEnabledAndDeletedOnlyWhereItsStateAllows(t *testing.T) {
	env := startJT(t, whOn)
	id := jtResult[webhookCreated](t, env.hook("POST", "", `{"url":"`+whPublicURL+`"}`)).Webhook.ID
	v := jtResult[webhookView](t, env.hook("POST", "/"+id+"/disable", `{"reason":"receiver migration"}`))
	if v.State != "disabled" || v.Reason != "receiver migration" || v.ChangedBy == "" {
		t.Fatalf("disabled: %+v", v)
	}
	env.hook("POST", "/"+id+"/disable", "").want(t, http.StatusConflict, labelConflict)
	if v := jtResult[webhookView](t, env.hook("POST", "/"+id+"/enable", "")); v.State != "active" || v.Reason != "" {
		t.Fatalf("enabled: %+v", v)
	}
	env.hook("POST", "/"+id+"/enable", "").want(t, http.StatusConflict, labelConflict)
	if v := jtResult[webhookView](t, env.hook("DELETE", "/"+id, "")); v.State != "deleted" {
		t.Fatalf("deleted: %+v", v)
	}
	env.hook("POST", "/"+id+"/enable", "").want(t, http.StatusConflict, labelConflict)
	env.hook("DELETE", "/"+id, "").want(t, http.StatusConflict, labelConflict)
	env.hook("DELETE", "/"+uuid.NewString(), "").want(t, http.StatusNotFound, labelNotFound)
	if got := whList(t, env.hook("GET", "", "")); len(got) != 0 {
		t.Errorf("a deleted endpoint is listed: %+v", got)
	}
	if got := whList(t, env.hook("GET", "?deleted=true", "")); len(got) != 1 {
		t.Errorf("?deleted=true lists %d endpoints, want the deleted one", len(got))
	}
	if v := jtResult[webhookView](t, env.hook("GET", "/"+id, "")); v.State != "deleted" || v.Version != 3 {
		t.Errorf("GET a deleted endpoint: %+v", v)
	}
}

func TestTheOpenAPIDocumentNamesExactlyTheEventTypesAFilterTakes(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas struct {
				WebhookFilter struct {
					Properties struct {
						EventTypes struct {
							Items struct {
								Enum []string `yaml:"enum"`
							} `yaml:"items"`
						} `yaml:"eventTypes"`
					} `yaml:"properties"`
				} `yaml:"WebhookFilter"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(openAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Components.Schemas.WebhookFilter.Properties.EventTypes.Items.Enum
	if want := webhook.TransitionEventTypes(); !slices.Equal(got, want) {
		t.Errorf("WebhookFilter.eventTypes lists %v, want %v", got, want)
	}
}

// allData is the data of every record of store, for a search.
func allData(t *testing.T, store eventstore.Store) string {
	t.Helper()
	var b strings.Builder
	for rec, err := range store.ReadAll(context.Background(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		b.Write(rec.Data)
	}
	return b.String()
}

// TestAWebhookRouteRefusesAMalformedIDNamingIt: an id that is not a UUID gets a 400 naming id on
// every route that takes one (an outside probe found 404s, as for an endpoint that could exist),
// and an id written in capitals finds its endpoint.
func TestAWebhookRouteRefusesAMalformedIDNamingIt(t *testing.T) {
	env := startJT(t, whOn)
	id := jtResult[webhookCreated](t, env.hook("POST", "", `{"url":"`+whPublicURL+`"}`)).Webhook.ID
	for _, bad := range []string{"nope", id + "0", strings.ReplaceAll(id, "-", ""), "%7B" + id + "%7D", "urn:uuid:" + id} {
		for _, c := range []struct{ method, path string }{
			{"GET", "/" + bad}, {"DELETE", "/" + bad}, {"POST", "/" + bad + "/rotate"},
			{"POST", "/" + bad + "/disable"}, {"POST", "/" + bad + "/enable"},
		} {
			res := env.hook(c.method, c.path, "")
			res.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
			if d := res.Env.Error.Details; len(d) != 1 || d[0].Field != "id" {
				t.Errorf("%s %s: details %+v, want id named", c.method, c.path, d)
			}
		}
	}
	if v := jtResult[webhookView](t, env.hook("GET", "/"+strings.ToUpper(id), "")); v.ID != id {
		t.Fatalf("GET by the id in capitals: %+v", v)
	}
	if v := jtResult[webhookView](t, env.hook("POST", "/"+strings.ToUpper(id)+"/disable", "")); v.ID != id || v.State != "disabled" {
		t.Fatalf("disabled by the id in capitals: %+v", v)
	}
}
