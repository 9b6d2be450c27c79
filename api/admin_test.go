package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"relayer/domain"
	"relayer/domain/retryafter"
	"relayer/projections"
)

const jtToken = "s3cret-admin-token-for-tests-0123456789"

func jtAdmin(c *Config) { c.AdminToken = jtToken }

// jtAuth is the request header that carries jtToken: the admin's (jtAdmin), or the operator's
// where a test makes jtToken the operator token.
var jtAuth = []string{"Authorization", "Bearer " + jtToken}

func (e *jtEnv) admin(method string, body string) jtResponse {
	e.t.Helper()
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	return e.do(method, "/admin/config", b, jtAuth...)
}

// configChanges reads the config stream's changes, oldest first.
func (e *jtEnv) configChanges() []domain.ConfigChanged {
	e.t.Helper()
	var out []domain.ConfigChanged
	for rec, err := range e.store.ReadStream(context.Background(), domain.ConfigStream, 0) {
		if err != nil {
			e.t.Fatal(err)
		}
		v, err := projections.NewCodec().Decode(rec)
		if err != nil {
			e.t.Fatal(err)
		}
		out = append(out, v.(domain.ConfigChanged))
	}
	return out
}

// jtParams reads GET /admin/config's parameters by name.
func jtParams(t *testing.T, res jtResponse) map[string]paramView {
	t.Helper()
	var list struct {
		Params  []paramView `json:"params"`
		Version int64       `json:"version"`
	}
	if err := json.Unmarshal(res.Env.Result, &list); err != nil {
		t.Fatalf("%v: %s", err, res.Body)
	}
	out := map[string]paramView{}
	for _, p := range list.Params {
		out[p.Name] = p
	}
	return out
}

func TestTheAdminAPIIsOffWithoutAToken(t *testing.T) {
	env := startJT(t)
	env.do("GET", "/admin/config", nil).want(t, http.StatusForbidden, labelForbidden)
	env.do("POST", "/admin/config", []byte(`{"param":"input_proof_throttler_tps","value":5}`), "Authorization", "Bearer x").want(t, http.StatusForbidden, labelForbidden)
}

func TestTheAdminAPIRefusesAMissingOrWrongTokenAndTakesTheRightOne(t *testing.T) {
	env := startJT(t, jtAdmin)
	env.do("GET", "/admin/config", nil).want(t, http.StatusUnauthorized, labelUnauthorized)
	res := env.do("GET", "/admin/config", nil, "Authorization", "Bearer wrong")
	res.want(t, http.StatusUnauthorized, labelUnauthorized)
	if !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("WWW-Authenticate %q", res.Header.Get("WWW-Authenticate"))
	}
	env.do("GET", "/admin/config", nil, "Authorization", "Basic "+jtToken).want(t, http.StatusUnauthorized, labelUnauthorized)
	env.do("GET", "/admin/config", nil, "Authorization", "Bearer "+jtToken+"x").want(t, http.StatusUnauthorized, labelUnauthorized)
	env.admin("GET", "").want(t, http.StatusOK, "")
	if strings.Contains(env.logs.String(), jtToken) {
		t.Fatal("the token appears in the log")
	}
}

func TestTheAdminAPIListsEveryRuntimeParameterWithItsValueAndConstraint(t *testing.T) {
	env := startJT(t, jtAdmin)
	ps := jtParams(t, env.admin("GET", ""))
	want := []string{paramReceiptBackoff, paramAdaptive, paramCapacity, paramShedMargin}
	for _, p := range retryafter.DefaultConfig().Params() {
		want = append(want, p.Name)
	}
	for _, p := range env.cfg.RateLimit.Params() {
		want = append(want, rateLimitPrefix+p.Name)
	}
	for _, p := range domain.DefaultRetention().Params() {
		want = append(want, p.Name)
	}
	for _, name := range want {
		p, ok := ps[name]
		if !ok {
			t.Fatalf("%s is not listed", name)
		}
		if p.Constraint == "" || p.Value == nil {
			t.Fatalf("%s: %+v", name, p)
		}
	}
	if v := ps["input_proof_throttler_tps"].Value; v != 10.0 {
		t.Fatalf("input_proof_throttler_tps %v", v)
	}
	if v := ps[paramAdaptive].Value; v != true {
		t.Fatalf("adaptive %v, want true (on by default)", v)
	}
	if v := ps["retry_after_adaptive_stale_after_seconds"].Value; v != float64(retryafter.DefaultStaleAfterSeconds) {
		t.Fatalf("retry_after_adaptive_stale_after_seconds %v", v)
	}
	if len(ps) != len(want) {
		t.Fatalf("%d parameters listed, want %d", len(ps), len(want))
	}
}

func TestARetentionChangeIsRecordedInTheConfigStreamAndARefusedOneIsNot(t *testing.T) {
	env := startJT(t, jtAdmin)
	ps := jtParams(t, env.admin("GET", ""))
	if v := ps["retention.window.public-decrypt"].Value; v != float64(365*24*3600) {
		t.Fatalf("retention.window.public-decrypt %v, want the reference's 365 days", v)
	}
	if v := ps["retention.enabled"].Value; v != true {
		t.Fatalf("retention.enabled %v, want on by default", v)
	}
	env.admin("POST", `{"param":"retention.window.input-proof","value":0}`).want(t, http.StatusBadRequest, domain.LabelValidationFailed)
	env.admin("POST", `{"param":"retention.window.no-such-kind","value":60}`).want(t, http.StatusBadRequest, domain.LabelValidationFailed)
	env.admin("POST", `{"param":"retention.window.input-proof","value":3600}`).want(t, http.StatusOK, "")
	env.admin("POST", `{"param":"retention.enabled","value":false}`).want(t, http.StatusOK, "")
	changes := env.configChanges()
	if len(changes) != 2 || changes[0].Param != "retention.window.input-proof" || string(changes[0].Old) != "604800" ||
		string(changes[0].New) != "3600" || changes[1].Param != "retention.enabled" || string(changes[1].New) != "false" {
		t.Fatalf("config stream: %+v", changes)
	}
	ps = jtParams(t, env.admin("GET", ""))
	if ps["retention.window.input-proof"].Value != 3600.0 || ps["retention.enabled"].Value != false {
		t.Fatalf("after the changes: %+v %+v", ps["retention.window.input-proof"], ps["retention.enabled"])
	}
}

// A retention window or interval below zero or past its bound is refused naming the parameter and
// its bounds in seconds (not "must be a number", which it is), and nothing changes.
func TestARetentionValueOutOfBoundsIsRefusedSayingTheBounds(t *testing.T) {
	env := startJT(t, jtAdmin)
	before := jtParams(t, env.admin("GET", ""))
	for _, c := range []struct{ param, value, bounds string }{
		{"retention.window.input-proof", "-5", "1 to 3153600000"},
		{"retention.window.public-decrypt", "3153600001", "1 to 3153600000"},
		{"retention.window.user-decrypt", "1e300", "1 to 3153600000"},
		{"retention.interval", "-1", "0.01 to 86400"},
		{"retention.window.input-proof", `"10"`, "1 to 3153600000"},
	} {
		r := env.admin("POST", `{"param":"`+c.param+`","value":`+c.value+`}`)
		r.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
		if d := r.Env.Error.Details; len(d) != 1 || d[0].Field != c.param || !strings.Contains(d[0].Issue, c.bounds) {
			t.Errorf("%s = %s: refused with %+v, want the parameter named with its bounds %s", c.param, c.value, d, c.bounds)
		}
	}
	after := jtParams(t, env.admin("GET", ""))
	for name, p := range before {
		if !reflect.DeepEqual(after[name].Value, p.Value) {
			t.Errorf("%s went from %v to %v through refused changes", name, p.Value, after[name].Value)
		}
	}
}

func TestAnAdminChangeIsRecordedWithWhoOldAndNewAppliedAtOnceAndSurvivesARestart(t *testing.T) {
	env := startJT(t, jtAdmin)
	for i := range 40 {
		env.accept(domain.InputProof, uint64(i))
	}
	id := env.accept(domain.InputProof, 999) // TX position 40
	before := env.proofHint(id)

	res := env.admin("POST", `{"param":"input_proof_throttler_tps","value":0.5}`)
	res.want(t, http.StatusOK, "")
	var ch configChange
	if err := json.Unmarshal(res.Env.Result, &ch); err != nil {
		t.Fatal(err)
	}
	if ch.Param != "input_proof_throttler_tps" || string(ch.Old) != "10" || string(ch.New) != "0.5" || ch.Who == "" || strings.Contains(ch.Who, jtToken) {
		t.Fatalf("change %+v", ch)
	}
	after := env.proofHint(id)
	// The adaptive mode is on (the default), but nothing has left the TX queue yet: with no
	// observation the nominal D is in force, and the change shows at once.
	want := retryafter.Compute(env.srv.runtime().retry, retryafter.Input{Kind: retryafter.InputProof, Status: retryafter.Processing, Stage: retryafter.StageTxQueue, Position: 40, TxQueueLen: 41})
	if after != want.Seconds || after <= before {
		t.Fatalf("Retry-After %d after the change (before %d), want %d", after, before, want.Seconds)
	}

	// The change is in the log, as the config stream's ConfigChanged.
	events := env.configChanges()
	if len(events) != 1 || events[0].Param != "input_proof_throttler_tps" || string(events[0].Old) != "10" || string(events[0].New) != "0.5" || events[0].Who != ch.Who {
		t.Fatalf("config stream: %+v", events)
	}

	// More kinds of change: the backoff table, the adaptive switch (on by default) and its
	// staleness horizon, load shedding, a rate limit.
	env.admin("POST", `{"param":"receipt_backoff","value":[{"elapsed_ms":0,"retry_seconds":2},{"elapsed_ms":30000,"retry_seconds":20}]}`).want(t, http.StatusOK, "")
	env.admin("POST", `{"param":"retry_after_adaptive","value":false}`).want(t, http.StatusOK, "")
	env.admin("POST", `{"param":"retry_after_adaptive_stale_after_seconds","value":120}`).want(t, http.StatusOK, "")
	env.admin("POST", `{"param":"queue_capacity","value":5000}`).want(t, http.StatusOK, "")
	env.admin("POST", `{"param":"nominal_tx_confirmation_ms","value":250}`).want(t, http.StatusOK, "")
	env.admin("POST", `{"param":"rate_limit.write.rolling_limit","value":7}`).want(t, http.StatusOK, "")
	if got := env.srv.limiter.Config().Limits(0).RollingLimit; got != 7 {
		t.Fatalf("the limiter's write rolling limit is %d, want 7", got)
	}

	env.restart()
	rt := env.srv.runtime()
	if rt.retry.InputProofTPS != 0.5 || rt.adaptive || rt.retry.AdaptiveStaleAfterSeconds != 120 || rt.capacity != 5000 || rt.retry.TxConfirmationMs != 250 ||
		len(rt.retry.ReceiptBackoff) != 2 || rt.retry.ReceiptBackoff[1].RetrySeconds != 20 {
		t.Fatalf("after a restart the runtime configuration is %+v", rt)
	}
	if got := env.srv.limiter.Config().Limits(0).RollingLimit; got != 7 {
		t.Fatalf("after a restart the limiter's write rolling limit is %d, want 7", got)
	}
	ps := jtParams(t, env.admin("GET", ""))
	if ps["input_proof_throttler_tps"].Value != 0.5 || ps[paramCapacity].Value != 5000.0 {
		t.Fatalf("listed after a restart: %+v %+v", ps["input_proof_throttler_tps"], ps[paramCapacity])
	}
}

func TestTheAdminAPIRefusesInvalidChangesListingEveryProblem(t *testing.T) {
	env := startJT(t, jtAdmin)
	cases := []struct {
		name, body, label string
		fields            []string
	}{
		{"out of range", `{"param":"input_proof_throttler_tps","value":0}`, domain.LabelValidationFailed, []string{"input_proof_throttler_tps"}},
		{"not a number", `{"param":"retry_after_safety_margin","value":"high"}`, domain.LabelValidationFailed, []string{"retry_after_safety_margin"}},
		{"min above max", `{"param":"retry_after_min_seconds","value":400}`, domain.LabelValidationFailed, []string{"retry_after_min_seconds"}},
		{"unknown parameter", `{"param":"warp_speed","value":9}`, domain.LabelValidationFailed, []string{"param"}},
		{"unknown fields", `{"param":"input_proof_throttler_tps","value":5,"who":"me","force":true}`, domain.LabelValidationFailed, []string{"force", "who"}},
		{"missing value", `{"param":"input_proof_throttler_tps"}`, domain.LabelMissingFields, []string{"value"}},
		{"missing both", `{}`, domain.LabelMissingFields, []string{"param", "value"}},
		{"not JSON", `{"param":`, domain.LabelMalformedJSON, nil},
		{"a bad backoff table", `{"param":"receipt_backoff","value":[{"elapsed_ms":5,"retry_seconds":0},{"elapsed_ms":1,"retry_seconds":4}]}`,
			domain.LabelValidationFailed, []string{"receipt_backoff[0].elapsed_ms", "receipt_backoff[0].retry_seconds", "receipt_backoff[1].elapsed_ms"}},
		{"a backoff table of the wrong shape", `{"param":"receipt_backoff","value":{"elapsed_ms":0}}`, domain.LabelValidationFailed, []string{"receipt_backoff"}},
		{"a margin at the capacity", `{"param":"queue_shed_margin","value":100000}`, domain.LabelValidationFailed, []string{"queue_shed_margin"}},
		{"adaptive not a boolean", `{"param":"retry_after_adaptive","value":"yes"}`, domain.LabelValidationFailed, []string{"retry_after_adaptive"}},
		{"a staleness horizon of nothing", `{"param":"retry_after_adaptive_stale_after_seconds","value":0}`, domain.LabelValidationFailed, []string{"retry_after_adaptive_stale_after_seconds"}},
		{"a staleness horizon of a fraction", `{"param":"retry_after_adaptive_stale_after_seconds","value":1.5}`, domain.LabelValidationFailed, []string{"retry_after_adaptive_stale_after_seconds"}},
		{"a negative rate limit", `{"param":"rate_limit.rolling_limit","value":-3}`, domain.LabelValidationFailed, []string{"rate_limit.rolling_limit"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := env.admin("POST", c.body)
			res.want(t, http.StatusBadRequest, c.label)
			var got []string
			for _, d := range res.Env.Error.Details {
				got = append(got, d.Field)
				if d.Issue == "" {
					t.Fatalf("an empty issue: %s", res.Body)
				}
			}
			for _, f := range c.fields {
				found := false
				for _, g := range got {
					found = found || g == f
				}
				if !found {
					t.Fatalf("details %v do not name %s: %s", got, f, res.Body)
				}
			}
		})
	}
	if n := env.countEvents("ConfigChanged"); n != 0 {
		t.Fatalf("refused changes appended %d events", n)
	}
	if rt := env.srv.runtime(); rt.retry.InputProofTPS != 10 || rt.retry.MinSeconds != 1 {
		t.Fatalf("a refused change was applied: %+v", rt.retry)
	}
}

func TestAnAdminChangeOnAStaleInstanceFoldsTheOtherInstancesChangesFirst(t *testing.T) {
	env := startJT(t, jtAdmin)
	// A second instance over the same store.
	other, err := New(context.Background(), env.cfg, Deps{Store: env.store, Projections: env.set, Now: env.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	env.admin("POST", `{"param":"user_decrypt_throttler_tps","value":3}`).want(t, http.StatusOK, "")
	// other has not seen the change: its append expects the stream to be empty, conflicts,
	// folds the change and appends after it.
	ts := httptest.NewServer(other.Handler())
	defer ts.Close()
	res := jtDo(t, http.DefaultClient, ts.URL, "POST", "/admin/config", []byte(`{"param":"public_decrypt_throttler_tps","value":4}`), jtAuth...)
	res.want(t, http.StatusOK, "")
	rt := other.runtime()
	if rt.retry.UserDecryptTPS != 3 || rt.retry.PublicDecryptTPS != 4 {
		t.Fatalf("stale instance's runtime: %+v", rt.retry)
	}
	if n := env.countEvents("ConfigChanged"); n != 2 {
		t.Fatalf("%d changes recorded, want 2", n)
	}
}

func TestAnAdminChangeToTheValueInForceRecordsNothing(t *testing.T) {
	env := startJT(t, jtAdmin)
	first := env.admin("POST", `{"param":"input_proof_throttler_tps","value":0.5}`)
	first.want(t, http.StatusOK, "")
	var recorded configChange
	if err := json.Unmarshal(first.Env.Result, &recorded); err != nil || recorded.Unchanged {
		t.Fatalf("%v: %s", err, first.Body)
	}
	for _, body := range []string{
		`{"param":"input_proof_throttler_tps","value":0.5}`,
		`{"param":"input_proof_throttler_tps","value":5e-1}`, // the same number, written otherwise
	} {
		res := env.admin("POST", body)
		res.want(t, http.StatusOK, "")
		var ch configChange
		if err := json.Unmarshal(res.Env.Result, &ch); err != nil {
			t.Fatal(err)
		}
		if !ch.Unchanged || string(ch.Old) != string(ch.New) || ch.Version != recorded.Version {
			t.Fatalf("%s: %s, want unchanged at version %d", body, res.Body, recorded.Version)
		}
	}
	if events := env.configChanges(); len(events) != 1 {
		t.Fatalf("config stream: %+v, want the first change alone", events)
	}
	// A value in force only from the start settings (the default here) is recorded the first
	// time, so that it reaches a fleet's other instances, whose settings may differ.
	env.admin("POST", `{"param":"retry_after_adaptive","value":true}`).want(t, http.StatusOK, "")
	res := env.admin("POST", `{"param":"retry_after_adaptive","value":true}`)
	res.want(t, http.StatusOK, "")
	if !strings.Contains(string(res.Body), `"unchanged":true`) {
		t.Fatalf("the same value again: %s, want unchanged", res.Body)
	}
	// A real change after them is recorded, and says nothing of being unchanged.
	res = env.admin("POST", `{"param":"input_proof_throttler_tps","value":2}`)
	res.want(t, http.StatusOK, "")
	if strings.Contains(string(res.Body), "unchanged") {
		t.Fatalf("a change answered %s", res.Body)
	}
	events := env.configChanges()
	if len(events) != 3 || events[1].Param != paramAdaptive || string(events[2].Old) != "0.5" || string(events[2].New) != "2" {
		t.Fatalf("config stream: %+v", events)
	}
}
