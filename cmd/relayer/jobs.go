package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"relayer/api"
)

const jobsUsage = `Usage: relayer jobs list [--url URL] [filters] [--limit N] [--all] [--json]
       relayer jobs show [--url URL] [--json] JOB_ID
       relayer jobs cancel [--url URL] --reason WHY [--json] JOB_ID
       relayer jobs cancel [--url URL] --reason WHY [filters] [--dry-run] [--limit N] [--json]
       relayer jobs retry [--url URL] --reason WHY [--json] JOB_ID
       relayer jobs retry [--url URL] --reason WHY [filters] [--dry-run] [--limit N] [--json]

Finds jobs, prints their histories, cancels and retries them, over a relayer's HTTP API.

list prints the jobs the filters select, newest first, one page (--limit, default 50) or, with
--all, every page. show prints one job's history, event by event. Both read the audit endpoints
(GET /v1/jobs, GET /v1/jobs/{jobId}/events) with the operator token from RELAYER_OPERATOR_TOKEN
(never a flag: other users see a process's arguments), or else the admin token from
RELAYER_ADMIN_TOKEN, where the relayer's audit endpoints are closed. --json prints one JSON object a line: each job for list, the whole history for show.

cancel ends jobs whose transaction was not sent (queued or processing) in failure with the label
cancelled, recording who (the admin token's identity) and why. A job in tx_in_flight (named by
id, or with --status tx_in_flight) gets a no-op at its transaction's nonce, recorded before it is
sent: if the no-op is mined the job ends cancelled, if its transaction is mined first the job
completes as usual.

retry makes a queued or processing job that waits on a backoff (the chain or its signer kept
failing) due now, and retries a job that ended in failure or timed_out as a new job from its
request (the next job of its content, which later identical submissions join), linked both ways
in the two histories. Completed jobs are not retried.

Both act on one job by id, or on every job the filters select (list's filters), a page at a time
until none is left; --dry-run counts them and shows a sample first. An interrupted bulk run is
resumed by running it again. --json prints the API's answer, one JSON object a call. They need
the admin token, from RELAYER_ADMIN_TOKEN.
`

// runJobs runs `relayer jobs list|show|cancel|retry`.
func runJobs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runSubcommand(ctx, "jobs", jobsUsage, []subcommand{
		{"list", runJobsList},
		{"show", runJobsShow},
		{"cancel", runJobsCancel},
		{"retry", runJobsRetry},
	}, args, stdout, stderr)
}

// jobsClient reads a relayer's audit endpoints.
type jobsClient struct {
	base string
	// token reads the audit endpoints; tokenEnv names the variable it came from, for errors.
	token, tokenEnv string
	http            *http.Client
}

func newJobsClient(raw string) (*jobsClient, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usageErrorf("jobs: --url %q is not an http(s) URL", raw)
	}
	// The audit endpoints take the admin token too: an operator who has only that one reads with it.
	token, env := os.Getenv("RELAYER_OPERATOR_TOKEN"), "RELAYER_OPERATOR_TOKEN"
	if token == "" && os.Getenv("RELAYER_ADMIN_TOKEN") != "" {
		token, env = os.Getenv("RELAYER_ADMIN_TOKEN"), "RELAYER_ADMIN_TOKEN"
	}
	return &jobsClient{base: strings.TrimRight(u.String(), "/"), token: token, tokenEnv: env,
		http: &http.Client{Timeout: 30 * time.Second}}, nil
}

// get reads path into result (the envelope's result), or returns the API's error in words.
func (c *jobsClient) get(ctx context.Context, path string, result any) error {
	return c.do(ctx, http.MethodGet, path, nil, c.token, c.tokenEnv, result)
}

// apiRequest is a request to the relayer's HTTP API: body (JSON, or nil) with its content type,
// and token, when given, as the bearer token.
func apiRequest(ctx context.Context, method, url string, body []byte, token string) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req, nil
}

// do sends body (JSON, or nil) to path with token, and reads the envelope's result into result.
func (c *jobsClient) do(ctx context.Context, method, path string, body any, token, tokenEnv string, result any) error {
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			return err
		}
	}
	req, err := apiRequest(ctx, method, c.base+path, b, token)
	if err != nil {
		return err
	}
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	defer res.Body.Close()
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *api.ErrorBody  `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 64<<20)).Decode(&env); err != nil {
		return fmt.Errorf("jobs: %s answered %d with a body that is not the API's JSON: %v", c.base, res.StatusCode, err)
	}
	if res.StatusCode/100 != 2 { // 200, and 201/202 for a retry's new job or a cancel in flight
		if env.Error == nil {
			return fmt.Errorf("jobs: %s answered %d", c.base, res.StatusCode)
		}
		msg := fmt.Sprintf("jobs: %d %s: %s", res.StatusCode, env.Error.Label, env.Error.Message)
		// A refused filter is the command line's mistake: named by its flag, exit code 2.
		code, flags := 1, 0
		for _, d := range env.Error.Details {
			if flag := flagOfParam(d.Field); flag != "" && res.StatusCode == http.StatusBadRequest {
				msg += fmt.Sprintf("; %s (%s) %s", flag, d.Field, d.Issue)
				flags++
				continue
			}
			msg += fmt.Sprintf("; %s %s", d.Field, d.Issue)
		}
		if flags > 0 && flags == len(env.Error.Details) {
			code = 2
		}
		if res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden {
			msg += " (set " + tokenEnv + " to the relayer's token)"
		}
		return &exitError{code: code, err: fmt.Errorf("%s", msg)}
	}
	return json.Unmarshal(env.Result, result)
}

func runJobsList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("jobs list", jobsUsage)
	base := fs.String("url", "http://127.0.0.1:8080", "base URL of the relayer's HTTP API")
	filters := filterFlags(fs)
	limit := fs.Int("limit", 50, "jobs a page (1 to 500)")
	all := fs.Bool("all", false, "follow every page, not only the first")
	asJSON := fs.Bool("json", false, "print one JSON object a job")
	if err := parseFlagsOnly(fs, args, stdout, stderr); err != nil {
		return err
	}
	c, err := newJobsClient(*base)
	if err != nil {
		return err
	}
	q := filterQuery(filters)
	q.Set("limit", fmt.Sprint(*limit))
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	if !*asJSON {
		fmt.Fprintln(tw, "JOB\tKIND\tSTATUS\tLABEL\tCREATED\tUPDATED\tUSERS")
	}
	enc := json.NewEncoder(stdout)
	n := 0
	for {
		var page api.JobSearch
		if err := c.get(ctx, "/v1/jobs?"+q.Encode(), &page); err != nil {
			return err
		}
		for _, j := range page.Jobs {
			n++
			if *asJSON {
				if err := enc.Encode(j); err != nil {
					return err
				}
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.JobID, j.Kind, j.Status, dash(j.Label),
				j.CreatedAt.Format(time.RFC3339), j.UpdatedAt.Format(time.RFC3339), dash(strings.Join(j.UserAddresses, ",")))
		}
		if page.Next == "" || !*all {
			if !*asJSON {
				if err := tw.Flush(); err != nil {
					return err
				}
				if page.Next != "" {
					fmt.Fprintf(stderr, "%s; more with --all, or add --limit\n", countJobs(n))
				}
			}
			return nil
		}
		q.Set("cursor", page.Next)
	}
}

// filterFlags defines the search filters' flags on fs, by query parameter.
func filterFlags(fs *flag.FlagSet) map[string]*string {
	filters := map[string]*string{}
	for _, f := range jobFilters {
		filters[f.param] = fs.String(f.flag, "", f.help)
	}
	return filters
}

// flagOfParam is the flag that sets query parameter (or body member) param ("" for none).
func flagOfParam(param string) string {
	if param == "limit" || param == "reason" {
		return "--" + param
	}
	for _, f := range jobFilters {
		if f.param == param {
			return "--" + f.flag
		}
	}
	return ""
}

// jobFilters are the search filters' flags and the query parameters they set.
var jobFilters = []struct{ flag, param, help string }{
	{"kind", "kind", "only these kinds (comma-separated: input-proof, user-decrypt, public-decrypt, delegated-user-decrypt)"},
	{"status", "status", "only jobs now in these statuses (comma-separated)"},
	{"label", "label", "only failed or timed-out jobs with this label"},
	{"user", "userAddress", "only jobs of this user (or delegator, or delegate) address"},
	{"contract", "contractAddress", "only jobs about this contract address"},
	{"content-hash", "contentHash", "only jobs of this content hash"},
	{"created-after", "createdAfter", "only jobs accepted at or after this time (RFC 3339)"},
	{"created-before", "createdBefore", "only jobs accepted before this time (RFC 3339)"},
	{"updated-after", "updatedAfter", "only jobs whose status last changed at or after this time (RFC 3339)"},
	{"updated-before", "updatedBefore", "only jobs whose status last changed before this time (RFC 3339)"},
}

// filterQuery is the query of the filters given.
func filterQuery(filters map[string]*string) url.Values {
	q := url.Values{}
	for param, v := range filters {
		if *v != "" {
			q.Set(param, *v)
		}
	}
	return q
}

func runJobsShow(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("jobs show", jobsUsage)
	base := fs.String("url", "http://127.0.0.1:8080", "base URL of the relayer's HTTP API")
	asJSON := fs.Bool("json", false, "print the history as the API's JSON")
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("jobs show: give one job id")
	}
	c, err := newJobsClient(*base)
	if err != nil {
		return err
	}
	var raw json.RawMessage
	if err := c.get(ctx, "/v1/jobs/"+url.PathEscape(fs.Arg(0))+"/events", &raw); err != nil {
		return err
	}
	if *asJSON {
		_, err := fmt.Fprintf(stdout, "%s\n", raw) // as the API gave it, every field
		return err
	}
	var h api.JobEvents
	if err := json.Unmarshal(raw, &h); err != nil {
		return fmt.Errorf("jobs show: the relayer's answer is not a job's history: %w", err)
	}
	fmt.Fprintf(stdout, "job %s (%s), %s after %d events\n", h.JobID, h.Kind, h.Status, len(h.Events))
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tAT\tEVENT\tSTATUS\tPOSITION")
	for _, e := range h.Events {
		at := e.RecordedAt
		if e.At != nil {
			at = *e.At
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\n", e.Version, at.UTC().Format("2006-01-02T15:04:05.000Z"), e.Type, dash(e.StatusAfter), e.Position)
	}
	return tw.Flush()
}

// jobsAction is what `jobs cancel` and `jobs retry` tell apart.
type jobsAction struct {
	name, done string // "cancel", "cancelled"
	// every is the status filter that names every job the action applies to.
	every string
}

var (
	cancelAction = jobsAction{name: "cancel", done: "cancelled", every: "--status queued,processing,tx_in_flight"}
	retryAction  = jobsAction{name: "retry", done: "retried", every: "--status queued,processing,failure,timed_out"}
)

// actionResult reads the answer of either action (api.CancelResult or api.RetryResult).
type actionResult struct {
	Cancelled  []api.CancelledJob `json:"cancelled,omitempty"`
	Cancelling []api.CancelledJob `json:"cancelling,omitempty"`
	Retried    []api.RetriedJob   `json:"retried,omitempty"`
	Skipped    []api.SkippedJob   `json:"skipped"`
	Next       string             `json:"next,omitempty"`
	Matched    *int               `json:"matched,omitempty"`
	Sample     []api.FoundJob     `json:"sample,omitempty"`
}

// acted is how many jobs a page acted on.
func (r actionResult) acted() int { return len(r.Cancelled) + len(r.Cancelling) + len(r.Retried) }

// print writes what a page did, a line a job.
func (r actionResult) print(w io.Writer) {
	for _, j := range r.Cancelled {
		fmt.Fprintf(w, "cancelled %s (%s, was %s)\n", j.JobID, j.Kind, j.From)
	}
	for _, j := range r.Cancelling {
		fmt.Fprintf(w, "cancelling %s (%s, %s): a no-op races its transaction at its nonce; whichever is mined decides\n", j.JobID, j.Kind, j.From)
	}
	for _, j := range r.Retried {
		if j.NewJobID != "" {
			fmt.Fprintf(w, "retried %s (%s, was %s) as the new job %s\n", j.JobID, j.Kind, j.From, j.NewJobID)
		} else {
			fmt.Fprintf(w, "retried %s (%s, %s): due now\n", j.JobID, j.Kind, j.From)
		}
	}
}

func runJobsCancel(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runJobsAction(ctx, cancelAction, args, stdout, stderr)
}

func runJobsRetry(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runJobsAction(ctx, retryAction, args, stdout, stderr)
}

// runJobsAction runs `relayer jobs cancel|retry`: on one job by id, or on the jobs the filters
// select, a page at a time (POST /v1/jobs/{jobId}/<action>, POST /v1/jobs/<action>).
func runJobsAction(ctx context.Context, a jobsAction, args []string, stdout, stderr io.Writer) error {
	cmd := "jobs " + a.name
	fs := newFlagSet(cmd, jobsUsage)
	base := fs.String("url", "http://127.0.0.1:8080", "base URL of the relayer's HTTP API")
	reason := fs.String("reason", "", "why (required; recorded with who asked)")
	filters := filterFlags(fs)
	limit := fs.Int("limit", 50, "jobs a call (1 to 500)")
	dry := fs.Bool("dry-run", false, "count the jobs the filters select and show a sample; change nothing")
	asJSON := fs.Bool("json", false, "print the API's answer, one JSON object a call")
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	if *reason == "" {
		return usageErrorf("%s: --reason is required", cmd)
	}
	c, err := newJobsClient(*base)
	if err != nil {
		return err
	}
	admin := os.Getenv("RELAYER_ADMIN_TOKEN")
	enc := json.NewEncoder(stdout)
	call := func(path string, body map[string]any) (actionResult, error) {
		var res actionResult
		if err := c.do(ctx, http.MethodPost, path, body, admin, "RELAYER_ADMIN_TOKEN", &res); err != nil {
			return res, err
		}
		if *asJSON {
			return res, enc.Encode(res)
		}
		return res, nil
	}
	q := filterQuery(filters)
	switch {
	case fs.NArg() > 1:
		return usageErrorf("%s: give one job id, or filters", cmd)
	case fs.NArg() == 1:
		if len(q) > 0 {
			return usageErrorf("%s: give a job id or filters, not both", cmd)
		}
		if *dry {
			return usageErrorf("%s: --dry-run counts the jobs filters select; for one job, relayer jobs show %s tells where it is", cmd, fs.Arg(0))
		}
		res, err := call("/v1/jobs/"+url.PathEscape(fs.Arg(0))+"/"+a.name, map[string]any{"reason": *reason})
		if err == nil && !*asJSON {
			res.print(stdout)
		}
		return err
	case len(q) == 0:
		return usageErrorf("%s: give a job id, or at least one filter (--kind, --status, --user, ...): every job takes saying so (%s)", cmd, a.every)
	}
	q.Set("limit", fmt.Sprint(*limit))
	if *dry {
		res, err := call("/v1/jobs/"+a.name+"?"+q.Encode(), map[string]any{"reason": *reason, "dryRun": true})
		if err != nil || *asJSON {
			return err
		}
		n := 0
		if res.Matched != nil {
			n = *res.Matched
		}
		fmt.Fprintf(stdout, "%s would be %s; a sample:\n", countJobs(n), a.done)
		for _, j := range res.Sample {
			fmt.Fprintf(stdout, "  %s  %s  %s  %s\n", j.JobID, j.Kind, j.Status, j.CreatedAt.Format(time.RFC3339))
		}
		return nil
	}
	acted, skipped := 0, 0
	for {
		res, err := call("/v1/jobs/"+a.name+"?"+q.Encode(), map[string]any{"reason": *reason})
		if err != nil {
			var ee *exitError
			if acted == 0 && errors.As(err, &ee) && ee.code == 2 {
				return err // the command line's mistake: nothing to go on with
			}
			fmt.Fprintf(stderr, "%s %s before the error; run the same command again to go on\n", countJobs(acted), a.done)
			return err
		}
		acted += res.acted()
		skipped += len(res.Skipped)
		if !*asJSON {
			res.print(stdout)
		}
		for _, j := range res.Skipped {
			fmt.Fprintf(stderr, "skipped %s: %s\n", j.JobID, j.Reason)
		}
		if res.Next == "" {
			break
		}
		// The cursor only moves down through the jobs accepted before the first call: the run
		// ends however many matching jobs arrive meanwhile.
		q.Set("cursor", res.Next)
	}
	if !*asJSON {
		fmt.Fprintf(stdout, "%s %s, %d skipped\n", countJobs(acted), a.done, skipped)
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// countJobs is "1 job" or "n jobs".
func countJobs(n int) string {
	if n == 1 {
		return "1 job"
	}
	return fmt.Sprintf("%d jobs", n)
}
