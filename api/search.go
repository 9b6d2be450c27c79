package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"relayer/domain"
	"relayer/projections"
)

// GET /v1/jobs: job search for operators (an audit endpoint), newest first, from the
// projections' job search (projections.Set.Search). A page holds at most limit jobs and, when
// there may be more, the cursor of the next page.

// labelNotCaughtUp: this instance has not applied the jobs a cursor names yet (503).
const labelNotCaughtUp = "not_caught_up"

const (
	defaultSearchLimit = 50
	maxSearchLimit     = 500
)

// searchParams are the query parameters GET /v1/jobs takes; any other is refused.
var searchParams = []string{"kind", "status", "label", "userAddress", "contractAddress", "contentHash",
	"createdAfter", "createdBefore", "updatedAfter", "updatedBefore", "limit", "cursor"}

var (
	addressPattern     = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
	contentHashPattern = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)
)

// JobSearch is GET /v1/jobs's result.
type JobSearch struct {
	Jobs []FoundJob `json:"jobs"`
	// Next is the cursor of the next page; absent when every job was read.
	Next string `json:"next,omitempty"`
	// Scanned is how many jobs this page read (at most projections.MaxScan).
	Scanned int `json:"scanned"`
}

// FoundJob is one job of a search.
type FoundJob struct {
	JobID             string    `json:"jobId"`
	Kind              string    `json:"kind"`
	Status            string    `json:"status"`
	Label             string    `json:"label,omitempty"`
	Message           string    `json:"message,omitempty"`
	ContentHash       string    `json:"contentHash"`
	TxHash            string    `json:"txHash,omitempty"`
	GatewayRequestID  string    `json:"gatewayRequestId,omitempty"`
	UserAddresses     []string  `json:"userAddresses"`
	ContractAddresses []string  `json:"contractAddresses"`
	CreatedAt         time.Time `json:"createdAt"`
	UpdatedAt         time.Time `json:"updatedAt"`
	Version           int64     `json:"version"`
}

func (s *Server) searchJobs(w http.ResponseWriter, r *http.Request) {
	q, issues := parseSearch(r.URL.Query())
	if len(issues) > 0 {
		writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, "invalid search parameters", issues)
		return
	}
	p, ok := s.searchPage(w, r, q)
	if !ok {
		return
	}
	res := JobSearch{Jobs: make([]FoundJob, 0, len(p.Jobs)), Scanned: p.Scanned}
	for _, f := range p.Jobs {
		res.Jobs = append(res.Jobs, foundJob(f))
	}
	if p.Next > 0 {
		res.Next = strconv.FormatInt(int64(p.Next), 10)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeEnvelope(w, r, http.StatusOK, statusSucceeded, res)
}

// searchPage is the page q selects, or false once it answered why there is none. A cursor naming
// jobs this instance has not applied comes from an instance ahead of it: the read models are
// given a second to reach the log's head, and 503 not_caught_up answers if they do not. A cursor
// naming jobs past everything in the log was given by no instance: 400 naming cursor.
func (s *Server) searchPage(w http.ResponseWriter, r *http.Request, q projections.Query) (projections.Page, bool) {
	p := s.set.Search(q)
	if !p.Behind {
		return p, true
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Second)
	defer cancel()
	head, err := s.store.Head(ctx)
	if err == nil {
		err = s.set.WaitFor(ctx, head)
	}
	if err != nil {
		notCaughtUp(w, r)
		return p, false
	}
	if p = s.set.Search(q); p.Behind {
		writeError(w, r, http.StatusBadRequest, domain.LabelValidationFailed, "invalid search parameters", []domain.FieldIssue{{
			Field: "cursor", Issue: "names jobs beyond every job in the log: it is not a cursor this endpoint gave"}})
		return p, false
	}
	return p, true
}

// parseSearch reads GET /v1/jobs's query: comma-separated lists (or the parameter repeated) for
// kind and status, one value for the others. Every problem is reported, naming its parameter.
func parseSearch(v url.Values) (projections.Query, []domain.FieldIssue) {
	q := projections.Query{Limit: defaultSearchLimit}
	issues := unknownParams(v, searchParams)
	bad := func(field, format string, args ...any) {
		issues = append(issues, domain.FieldIssue{Field: field, Issue: fmt.Sprintf(format, args...)})
	}
	one := func(name string) string {
		if vals := v[name]; len(vals) > 1 {
			bad(name, "is given %d times; give it once", len(vals))
		}
		return v.Get(name)
	}
	var kindIssues []domain.FieldIssue
	q.Kinds, q.Statuses, kindIssues = parseKindsAndStatuses(v)
	issues = append(issues, kindIssues...)
	if l := one("label"); l != "" {
		if !slices.Contains(domain.JobLabels(), l) {
			bad("label", "%q is not a job label (known: %s)", l, strings.Join(domain.JobLabels(), ", "))
		}
		q.Label = l
	}
	for _, a := range []struct {
		name string
		dst  *string
	}{{"userAddress", &q.User}, {"contractAddress", &q.Contract}} {
		if s := one(a.name); s != "" {
			if !addressPattern.MatchString(s) {
				bad(a.name, "must be an address: 0x and 40 hex digits")
			}
			*a.dst = strings.ToLower(s)
		}
	}
	if h := one("contentHash"); h != "" {
		if !contentHashPattern.MatchString(h) {
			bad("contentHash", "must be a content hash: 64 hex digits")
		}
		q.ContentHash = strings.ToLower(h)
	}
	for _, t := range []struct {
		name string
		dst  *time.Time
	}{{"createdAfter", &q.CreatedFrom}, {"createdBefore", &q.CreatedTo}, {"updatedAfter", &q.UpdatedFrom}, {"updatedBefore", &q.UpdatedTo}} {
		if s := one(t.name); s != "" {
			at, err := time.Parse(time.RFC3339Nano, s)
			switch {
			case err != nil:
				bad(t.name, "must be a time in RFC 3339, like 2026-11-26T17:00:00Z")
			case at.Year() < 1970 || at.Year() > 2200:
				bad(t.name, "must be a time between the years 1970 and 2200")
			}
			*t.dst = at
		}
	}
	for _, r := range []struct {
		from, to   string
		after, bef time.Time
	}{{"createdAfter", "createdBefore", q.CreatedFrom, q.CreatedTo}, {"updatedAfter", "updatedBefore", q.UpdatedFrom, q.UpdatedTo}} {
		if !r.after.IsZero() && !r.bef.IsZero() && !r.bef.After(r.after) {
			bad(r.to, "must be after %s: no time is in the range given", r.from)
		}
	}
	if s := one("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxSearchLimit {
			bad("limit", "must be a whole number from 1 to %d", maxSearchLimit)
		}
		q.Limit = n
	}
	if s := one("cursor"); s != "" {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil || n < 1 {
			bad("cursor", "is not a cursor this endpoint gave (the next member of a page)")
		}
		q.Before = int32(n)
	}
	return q, issues
}

// foundJob is f as the API shows it.
func foundJob(f projections.Found) FoundJob {
	return FoundJob{
		JobID: f.ID.String(), Kind: f.Kind.String(), Status: f.Status.String(), Label: f.Label, Message: f.Message,
		ContentHash: f.ContentHash, TxHash: f.TxHash, GatewayRequestID: f.GatewayRequestID,
		UserAddresses: f.Users, ContractAddresses: f.Contracts,
		CreatedAt: f.CreatedAt.UTC(), UpdatedAt: f.UpdatedAt.UTC(), Version: int64(f.Version),
	}
}
