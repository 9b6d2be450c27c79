package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"go.yaml.in/yaml/v3"

	"relayer/workers/devchain"
	"relayer/workers/devchain/devchaintest"
)

// The operators' files in deploy/: Prometheus alert rules and a Grafana dashboard over serve's
// /metrics (deploy/README.md says how to load them).
var (
	alertRulesFile = filepath.Join("..", "..", "deploy", "prometheus", "alerts.yml")
	alertTestsFile = filepath.Join("..", "..", "deploy", "prometheus", "alerts_test.yml")
	dashboardFile  = filepath.Join("..", "..", "deploy", "grafana", "relayer.json")
)

// onlyInAFleet are metric families a serve shows only in a fleet (workers.fleet.enabled), which
// the files may name in their prose but not in a query this test checks.
var onlyInAFleet = map[string]bool{
	"relayer_engine_lease_held":           true,
	"relayer_engine_terms_total":          true,
	"relayer_engine_fenced_appends_total": true,
}

// promtool returns the path of Prometheus's promtool. Without it the test skips, except in CI
// (CI=true), where it fails: the alert rules would go unchecked.
func promtool(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		msg := "promtool is not installed (Debian: apt-get install prometheus)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

// runPromtool runs promtool with args; when it fails, the test fails with its output.
func runPromtool(t *testing.T, bin string, args ...string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if err != nil {
		t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		return false
	}
	return true
}

// ruleFile is a Prometheus rule file.
type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Alert       string            `yaml:"alert"`
			Record      string            `yaml:"record"`
			Expr        string            `yaml:"expr"`
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

func readRules(t *testing.T, path string) ruleFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rf ruleFile
	if err := yaml.Unmarshal(b, &rf); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rf
}

// query is one PromQL expression of the files, with where it is, and the prose around it.
type query struct {
	where string
	expr  string
	prose []string // an alert's annotations, a panel's title and description
}

// alertQueries are the alert rules' expressions.
func alertQueries(t *testing.T) []query {
	t.Helper()
	var qs []query
	for _, g := range readRules(t, alertRulesFile).Groups {
		for _, r := range g.Rules {
			qs = append(qs, query{where: "alert " + r.Alert, expr: r.Expr, prose: slices.Collect(maps.Values(r.Annotations))})
		}
	}
	return qs
}

// dashboardQueries are the dashboard's panel queries (rows' panels included) and its template
// variables' queries (label_values(...), which is not PromQL: promtool does not check those).
func dashboardQueries(t *testing.T) (panels, variables []query) {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	type panel struct {
		ID          int     `json:"id"`
		Type        string  `json:"type"`
		Title       string  `json:"title"`
		Description string  `json:"description"`
		Panels      []panel `json:"panels"`
		Targets     []struct {
			RefID string `json:"refId"`
			Expr  string `json:"expr"`
		} `json:"targets"`
	}
	var d struct {
		Panels     []panel `json:"panels"`
		Templating struct {
			List []struct {
				Name       string          `json:"name"`
				Type       string          `json:"type"`
				Query      json.RawMessage `json:"query"`
				Definition string          `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			walk(p.Panels)
			if p.Type != "row" && len(p.Targets) == 0 {
				t.Errorf("dashboard panel %d %q has no query", p.ID, p.Title)
			}
			for i, tg := range p.Targets {
				q := query{where: fmt.Sprintf("panel %d %q, query %s", p.ID, p.Title, tg.RefID), expr: tg.Expr}
				if i == 0 {
					q.prose = []string{p.Title, p.Description}
				}
				panels = append(panels, q)
			}
		}
	}
	walk(d.Panels)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(v.Query, &q); err != nil {
			_ = json.Unmarshal(v.Query, &q.Query) // the older form: a plain string
		}
		variables = append(variables, query{where: "variable " + v.Name, expr: q.Query + " " + v.Definition})
	}
	return panels, variables
}

var (
	// quoted are PromQL's string literals (label values, regular expressions).
	quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`")
	// metricName is a name of the relayer's metrics, not preceded by a part of a longer name.
	metricName = regexp.MustCompile(`(?:^|[^a-zA-Z0-9_:])(relayer_[a-zA-Z0-9_]*)`)
)

// metricNames are the relayer's metric names s uses (in a query, outside its string literals).
func metricNames(s string, outsideQuotes bool) []string {
	if outsideQuotes {
		s = quoted.ReplaceAllString(s, `""`)
	}
	var out []string
	for _, m := range metricName.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// scrapedNames are the sample names of a /metrics answer (a histogram's are name_bucket,
// name_sum and name_count), and its families' names with their types.
func scrapedNames(t *testing.T, body string) (samples map[string]bool, families map[string]string) {
	t.Helper()
	samples, families = map[string]bool{}, map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if f, ok := strings.CutPrefix(line, "# TYPE "); ok {
			if name, typ, ok := strings.Cut(f, " "); ok {
				families[name] = typ
			}
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.IndexAny(line, "{ "); i > 0 {
			samples[line[:i]] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return samples, families
}

func TestTheAlertRulesPassPromtoolsChecksAndTheirOwnTests(t *testing.T) {
	bin := promtool(t)
	runPromtool(t, bin, "check", "rules", alertRulesFile)
	runPromtool(t, bin, "test", "rules", alertTestsFile)

	rules := 0
	for _, g := range readRules(t, alertRulesFile).Groups {
		for _, r := range g.Rules {
			rules++
			if r.Alert == "" {
				t.Errorf("group %s: a rule that is not an alert (%q)", g.Name, r.Record)
			}
			if r.Labels["severity"] == "" {
				t.Errorf("alert %s has no severity label", r.Alert)
			}
			if len(r.Annotations["summary"]) < 20 || len(r.Annotations["description"]) < 80 {
				t.Errorf("alert %s does not say what it is and what to look at: summary %q, description %q",
					r.Alert, r.Annotations["summary"], r.Annotations["description"])
			}
		}
	}
	if rules < 10 {
		t.Errorf("%s holds %d alerts", alertRulesFile, rules)
	}

	// The dashboard's queries are PromQL too: promtool checks them as recording rules, with
	// Grafana's interval variables given a value.
	panels, _ := dashboardQueries(t)
	grafana := strings.NewReplacer("$__rate_interval", "5m", "$__interval", "1m", "$__range", "1h")
	type rule struct {
		Record string `yaml:"record"`
		Expr   string `yaml:"expr"`
	}
	var rs []rule
	for i, q := range panels {
		rs = append(rs, rule{Record: fmt.Sprintf("dashboard:query_%d", i), Expr: grafana.Replace(q.expr)})
	}
	b, err := yaml.Marshal(map[string]any{"groups": []map[string]any{{"name": "dashboard", "rules": rs}}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "dashboard-queries.yml")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if !runPromtool(t, bin, "check", "rules", file) {
		for i, q := range panels {
			t.Logf("dashboard:query_%d is %s", i, q.where)
		}
	}
}

// Every metric the alert rules and the dashboard query, and every one their prose names, is on
// the /metrics of a serve that ran a job against an external chain (the development chain over
// JSON-RPC: the smallest setup with every family, the upstream rate limits' included).
func TestEveryMetricTheAlertsAndTheDashboardNameIsOnServesMetrics(t *testing.T) {
	samples, families := scrapeServeWithAJob(t)
	panels, variables := dashboardQueries(t)
	checkMetricNames(t, samples, families, slices.Concat(alertQueries(t), panels, variables))
}

// checkMetricNames fails the test for every name queries use that the scrape lacks.
func checkMetricNames(t *testing.T, samples map[string]bool, families map[string]string, queries []query) {
	t.Helper()
	used := map[string]bool{}
	for _, q := range queries {
		names := metricNames(q.expr, true)
		if len(names) == 0 {
			t.Errorf("%s: no relayer metric in %q", q.where, q.expr)
		}
		for _, n := range names {
			used[n] = true
			if !samples[n] {
				hint := ""
				if typ := families[n]; typ == "histogram" {
					hint = " (a histogram: query its _bucket, _sum or _count)"
				}
				t.Errorf("%s uses %s, which serve's /metrics does not have%s", q.where, n, hint)
			}
		}
		for _, text := range q.prose {
			for _, n := range metricNames(text, false) {
				if !samples[n] && families[n] == "" && !onlyInAFleet[n] && !isPrefixOf(n, families) {
					t.Errorf("%s names %s in its text, which serve's /metrics does not have", q.where, n)
				}
			}
		}
	}
	if len(used) < 30 {
		t.Errorf("the files use %d metric names: the parsing missed some", len(used))
	}
	t.Logf("the files use %d metric names", len(used))
}

// isPrefixOf reports whether n is the start of families' names written as a pattern in prose
// (relayer_chain_* is read as relayer_chain_).
func isPrefixOf(n string, families map[string]string) bool {
	if !strings.HasSuffix(n, "_") {
		return false
	}
	for f := range families {
		if strings.HasPrefix(f, n) {
			return true
		}
	}
	return false
}

// scrapeServeWithAJob starts the development chain with JSON-RPC on loopback and a serve
// configured with it as an external chain, runs one input proof to its end, and scrapes
// /metrics.
func scrapeServeWithAJob(t *testing.T) (samples map[string]bool, families map[string]string) {
	t.Helper()
	dev := devchaintest.Start(t, devchain.Config{HTTPAddr: "127.0.0.1:0"}, nil)
	a := dev.Addresses()
	cfg := crashConfig(crashChain{httpURL: dev.HTTPEndpoint(), decryption: a.Decryption, inputVerification: a.InputVerification,
		acl: a.ACL, threshold: dev.Threshold()})
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "relayer.yaml")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	withEnv(t)
	t.Setenv(crashKeyEnv, hex.EncodeToString(crypto.FromECDSA(dev.RelayerKey()))) // the signer reads the process's
	url, _, stderr, _ := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data"), "--config", cfgFile)

	job := postInputProof(t, url)
	jobResult(t, "input-proof "+job, url+"/v2/input-proof/"+job, stderr)
	res, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %v\n%s", res.StatusCode, err, stderr)
	}
	return scrapedNames(t, string(body))
}
