package api

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"relayer/domain"
)

// search reads GET /v1/jobs with query, which must answer 200.
func (e *jtEnv) search(query string) JobSearch {
	e.t.Helper()
	r := e.do(http.MethodGet, "/v1/jobs"+query, nil)
	r.want(e.t, http.StatusOK, "")
	return jtResult[JobSearch](e.t, r)
}

func TestJobSearchFiltersByKindUserAndContractNewestFirstPageByPage(t *testing.T) {
	env := startJT(t)
	var proofs, delegated []string
	for n := range uint64(5) {
		r := env.do(http.MethodPost, "/v2/input-proof", jtBody(domain.InputProof, n))
		r.want(t, http.StatusAccepted, "")
		proofs = append(proofs, r.jobID(t))
		r = env.do(http.MethodPost, "/v2/delegated-user-decrypt", jtBody(domain.DelegatedUserDecrypt, n))
		r.want(t, http.StatusAccepted, "")
		delegated = append(delegated, r.jobID(t))
	}
	slices.Reverse(proofs)
	slices.Reverse(delegated)

	// Input proofs, two a page, newest first.
	var got []string
	cursor := ""
	for range 10 {
		res := env.search("?kind=input-proof&limit=2" + cursor)
		for _, j := range res.Jobs {
			if j.Kind != "input-proof" || j.Status != "processing" || j.ContentHash == "" || j.CreatedAt.IsZero() {
				t.Errorf("found %+v", j)
			}
			got = append(got, j.JobID)
		}
		if res.Next == "" {
			break
		}
		cursor = "&cursor=" + res.Next
	}
	if !slices.Equal(got, proofs) {
		t.Fatalf("input proofs found %v, want %v", got, proofs)
	}

	// The delegate is a user of the delegated decrypts only; the contract is everyone's.
	res := env.search("?userAddress=0x" + strings.ToUpper(jtAddr(3)[2:]))
	if ids := foundIDs(res); !slices.Equal(ids, delegated) {
		t.Fatalf("by delegate found %v, want %v", ids, delegated)
	}
	if j := res.Jobs[0]; !slices.Equal(j.UserAddresses, []string{jtAddr(2), jtAddr(3)}) || !slices.Equal(j.ContractAddresses, []string{jtAddr(1)}) {
		t.Errorf("a delegated decrypt's parties: users %v contracts %v", j.UserAddresses, j.ContractAddresses)
	}
	if res := env.search("?contractAddress=" + jtAddr(1) + "&limit=500"); len(res.Jobs) != 10 || res.Next != "" {
		t.Errorf("by contract found %d jobs (next %q), want all 10", len(res.Jobs), res.Next)
	}
	if res := env.search("?status=completed,failure"); len(res.Jobs) != 0 {
		t.Errorf("no job has ended, found %d", len(res.Jobs))
	}
}

func foundIDs(res JobSearch) []string {
	var ids []string
	for _, j := range res.Jobs {
		ids = append(ids, j.JobID)
	}
	return ids
}

func TestJobSearchRefusesUnknownFiltersAndBadValuesNamingEach(t *testing.T) {
	env := startJT(t)
	for _, c := range []struct{ query, field string }{
		{"?kin=input-proof", "kin"},
		{"?kind=proof", "kind"},
		{"?kind=input-proof,", "kind"},
		{"?status=done", "status"},
		{"?label=cancelled_by_moon", "label"},
		{"?userAddress=0x12", "userAddress"},
		{"?contractAddress=" + jtAddr(1) + "zz", "contractAddress"},
		{"?contentHash=abc", "contentHash"},
		{"?createdAfter=yesterday", "createdAfter"},
		{"?createdAfter=2300-01-01T00:00:00Z", "createdAfter"},
		{"?updatedBefore=1600-01-01T00:00:00Z", "updatedBefore"},
		{"?limit=0", "limit"},
		{"?limit=501", "limit"},
		{"?cursor=-4", "cursor"},
		{"?createdAfter=2026-11-26T10:00:00Z&createdBefore=2026-11-26T09:00:00Z", "createdBefore"},
		{"?updatedAfter=2026-11-26T10:00:00Z&updatedBefore=2026-11-26T10:00:00Z", "updatedBefore"},
		{"?label=proof_rejected&label=transaction_failed", "label"},
	} {
		r := env.do(http.MethodGet, "/v1/jobs"+c.query, nil)
		r.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
		if len(r.Env.Error.Details) == 0 || r.Env.Error.Details[0].Field != c.field {
			t.Errorf("%s: details %+v, want the field %s named", c.query, r.Env.Error.Details, c.field)
		}
	}
	env.do(http.MethodGet, "/v1/jobs?label=proof_rejected&createdAfter=2026-11-26T00:00:00Z", nil).want(t, http.StatusOK, "")
	// A cursor beyond every job in the log was given by no instance: a 400 naming it, not a 503
	// to retry forever (nor an empty page), for a search and for the bulk actions' dry runs.
	r := env.do(http.MethodGet, "/v1/jobs?cursor=1000", nil)
	r.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
	if len(r.Env.Error.Details) == 0 || r.Env.Error.Details[0].Field != "cursor" {
		t.Errorf("a cursor past the log: details %+v, want cursor named", r.Env.Error.Details)
	}

	closed := startJT(t, func(c *Config) { c.AuditOpen = false; c.OperatorToken = jtToken })
	closed.do(http.MethodGet, "/v1/jobs", nil).want(t, http.StatusUnauthorized, "unauthorized")
	closed.do(http.MethodGet, "/v1/jobs", nil, jtAuth...).want(t, http.StatusOK, "")
}
