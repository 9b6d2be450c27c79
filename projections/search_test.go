package projections

import (
	"slices"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

func TestTheProjectionsDecoderReadsARequestsPartiesAsTheCodecDoes(t *testing.T) {
	id := "0b8ad7a4-2f0e-4c4f-9d7e-5a1d3c0e9f11"
	a1, a2, c1, c2 := "0x"+repeat("a1", 20), "0x"+repeat("b2", 20), "0x"+repeat("c3", 20), "0x"+repeat("d4", 20)
	accepted := func(kind, request string) string {
		return `{"jobId":"` + id + `","kind":"` + kind + `","status":"queued","contentHash":"ab","request":` + request + `}`
	}
	for _, c := range []struct{ name, data, users, contracts string }{
		{"an input proof", accepted("input-proof", `{"inputProof":{"contractChainId":1,"contractAddress":"`+c1+`","userAddress":"`+a1+`","ciphertextWithInputVerification":"aa","extraData":"0x00"}}`), a1, c1},
		{"a user decrypt", accepted("user-decrypt", `{"userDecrypt":{"handleContractPairs":[{"handle":"0x01","contractAddress":"`+c1+`"}],"contractAddresses":["`+c1+`","`+c2+`"],"userAddress":"`+a1+`"}}`), a1, c1 + "," + c2},
		{"a delegated user decrypt, delegate first", accepted("delegated-user-decrypt", `{"delegatedUserDecrypt":{"delegateAddress":"`+a2+`","contractAddresses":["`+c2+`"],"delegatorAddress":"`+a1+`"}}`), a1 + "," + a2, c2},
		{"a unified user decrypt: the user, then each delegator once; each handle's contract once", accepted("user-decrypt", `{"unifiedUserDecrypt":{"handles":[`+
			`{"ctHandle":"0x01","contractAddress":"`+c1+`","ownerAddress":"`+a1+`"},{"ctHandle":"0x02","contractAddress":"`+c2+`","ownerAddress":"`+a2+`"},`+
			`{"ctHandle":"0x03","contractAddress":"`+c1+`","ownerAddress":"`+a2+`"}],"userAddress":"`+a1+`","allowedContracts":["`+c2+`"]}}`), a1 + "," + a2, c1 + "," + c2},
		{"a public decrypt has none", accepted("public-decrypt", `{"publicDecrypt":{"ciphertextHandles":["0x01"],"extraData":"0x00"}}`), "", ""},
		{"the last duplicate wins", accepted("input-proof", `{"inputProof":{"userAddress":"`+a2+`","userAddress":"`+a1+`","contractAddress":"`+c1+`"}}`), a1, c1},
		{"keys in another case go to the codec", accepted("input-proof", `{"InputProof":{"UserAddress":"`+a1+`","contractADDRESS":"`+c1+`"}}`), a1, c1},
		{"an escaped address", accepted("input-proof", `{"inputProof":{"userAddress":"\u0030x`+a1[2:]+`","contractAddress":"`+c1+`"}}`), a1, c1},
		{"an empty list of contracts", accepted("user-decrypt", `{"userDecrypt":{"contractAddresses":[],"userAddress":"`+a1+`"}}`), a1, ""},
		{"a null list goes to the codec", accepted("user-decrypt", `{"userDecrypt":{"contractAddresses":null,"userAddress":"`+a1+`"}}`), a1, ""},
		{"two payloads go to the codec", accepted("input-proof", `{"inputProof":{"userAddress":"`+a1+`"},"publicDecrypt":{"ciphertextHandles":[]}}`), a1, ""},
		{"a null request", accepted("input-proof", `null`), "", ""},
		{"a repeated request goes to the codec, which merges the payloads", `{"jobId":"` + id + `","kind":"input-proof","status":"processing","contentHash":"ab","request":{"inputProof":{"userAddress":"` + a1 + `","contractAddress":"` + c1 + `"}},"request":{"inputProof":{"contractAddress":"` + c2 + `"}}}`, a1, c2},
		{"unknown members are skipped", accepted("input-proof", `{"x":[1,{"userAddress":"`+a2+`"}],"inputProof":{"y":{"userAddress":"`+a2+`"},"userAddress":"`+a1+`"}}`), a1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := eventstore.Record{Stream: "request-" + id, Type: "RequestAccepted", SchemaVersion: 1, Data: []byte(c.data)}
			got, want := decodeBoth(t, &rec)
			if !sameFact(got, want) {
				t.Fatalf("projections users %q contracts %q\ncodec users %q contracts %q", got.users, got.contracts, want.users, want.contracts)
			}
			if string(got.users) != c.users || string(got.contracts) != c.contracts {
				t.Fatalf("users %q contracts %q, want %q and %q", got.users, got.contracts, c.users, c.contracts)
			}
		})
	}
}

func repeat(s string, n int) string {
	b := make([]byte, 0, len(s)*n)
	for range n {
		b = append(b, s...)
	}
	return string(b)
}

// searchOracle is what a search must find, computed from the events themselves.
type searchOracle struct {
	order    []domain.JobID // in order of acceptance
	requests map[domain.JobID]domain.Request
	hashes   map[domain.JobID]string
	accepted map[domain.JobID]time.Time
}

func oracleOf(tb testing.TB, recs []eventstore.Record) searchOracle {
	o := searchOracle{requests: map[domain.JobID]domain.Request{}, hashes: map[domain.JobID]string{}, accepted: map[domain.JobID]time.Time{}}
	codec := NewCodec()
	for _, rec := range recs {
		if rec.Type != "RequestAccepted" {
			continue
		}
		e, err := DecodeEvent(codec, rec)
		if err != nil {
			tb.Fatal(err)
		}
		a := e.(domain.RequestAccepted)
		o.order = append(o.order, a.JobID)
		o.requests[a.JobID], o.hashes[a.JobID], o.accepted[a.JobID] = a.Request, a.ContentHash, a.At
	}
	return o
}

// want lists, newest first, the jobs of s that q selects, judged from the requests and the
// jobs' views one by one.
func (o searchOracle) want(s *Set, q Query) []domain.JobID {
	var out []domain.JobID
	for _, id := range slices.Backward(o.order) {
		j, _ := s.Job(id)
		r := o.requests[id]
		var users, contracts []string
		switch {
		case r.InputProof != nil:
			users, contracts = []string{r.InputProof.UserAddress}, []string{r.InputProof.ContractAddress}
		case r.UserDecrypt != nil:
			users, contracts = []string{r.UserDecrypt.UserAddress}, r.UserDecrypt.ContractAddresses
		}
		created := o.accepted[id] // from the acceptance itself: a reset moves the entry into processing
		var updated time.Time
		for _, t := range j.Entered {
			if t.After(updated) {
				updated = t
			}
		}
		switch {
		case len(q.Kinds) > 0 && !slices.Contains(q.Kinds, j.Kind), len(q.Statuses) > 0 && !slices.Contains(q.Statuses, j.Status),
			q.Label != "" && j.Label != q.Label, q.ContentHash != "" && o.hashes[id] != q.ContentHash,
			q.User != "" && !slices.Contains(users, q.User), q.Contract != "" && !slices.Contains(contracts, q.Contract),
			!q.CreatedFrom.IsZero() && created.Before(q.CreatedFrom), !q.CreatedTo.IsZero() && !created.Before(q.CreatedTo),
			!q.UpdatedFrom.IsZero() && updated.Before(q.UpdatedFrom), !q.UpdatedTo.IsZero() && !updated.Before(q.UpdatedTo):
			continue
		}
		out = append(out, id)
	}
	return out
}

// pages runs q page after page of limit jobs and returns every job found, in order.
func pages(tb testing.TB, s *Set, q Query, limit int) []domain.JobID {
	q.Limit = limit
	var out []domain.JobID
	for range 100_000 {
		p := s.Search(q)
		if len(p.Jobs) > limit {
			tb.Fatalf("a page of %d jobs, limit %d", len(p.Jobs), limit)
		}
		for _, f := range p.Jobs {
			out = append(out, f.ID)
		}
		if p.Next == 0 {
			return out
		}
		q.Before = p.Next
	}
	tb.Fatal("the pages never end")
	return nil
}

func TestSearchFindsExactlyTheJobsEachFilterSelectsPageAfterPageAndTheSameAfterARebuild(t *testing.T) {
	recs := sampleRecords(t, 21, 3000)
	live, rebuilt := foldRecords(t, recs, nil), foldRecords(t, recs, nil)
	o := oracleOf(t, recs)
	if len(o.order) < 3000 {
		t.Fatalf("%d jobs accepted", len(o.order))
	}
	// Pick filter values that occur: a user and contract of a user decrypt, a content hash shared
	// by several jobs, a label, and times from the middle of the history.
	var user, contract, label, hash string
	counts := map[string]int{}
	for _, id := range o.order {
		counts[o.hashes[id]]++
		if r := o.requests[id]; r.UserDecrypt != nil && user == "" {
			user, contract = r.UserDecrypt.UserAddress, r.UserDecrypt.ContractAddresses[0]
		}
		if j, _ := live.Job(id); j.Label != "" && label == "" {
			label = j.Label
		}
	}
	for h, n := range counts {
		if n > 1 {
			hash = h
			break
		}
	}
	mid, _ := live.Job(o.order[len(o.order)/2])
	late, _ := live.Job(o.order[3*len(o.order)/4])
	midAt, lateAt := o.accepted[mid.ID], o.accepted[late.ID]
	if user == "" || label == "" || hash == "" || !midAt.Before(lateAt) {
		t.Fatalf("the history lacks a filter value: user %q label %q hash %q, times %v %v", user, label, hash, midAt, lateAt)
	}
	for _, c := range []struct {
		name string
		q    Query
	}{
		{"everything", Query{}},
		{"a kind", Query{Kinds: []domain.Kind{domain.UserDecrypt}}},
		{"two statuses", Query{Statuses: []domain.Status{domain.Failure, domain.TimedOut}}},
		{"a label", Query{Label: label}},
		{"a user", Query{User: user}},
		{"a contract", Query{Contract: contract}},
		{"a content hash", Query{ContentHash: hash}},
		{"a creation window", Query{CreatedFrom: midAt, CreatedTo: lateAt}},
		{"updated since", Query{UpdatedFrom: lateAt}},
		{"a kind, a status and a window", Query{Kinds: []domain.Kind{domain.InputProof}, Statuses: []domain.Status{domain.Completed}, CreatedTo: lateAt}},
		{"nobody", Query{User: "0x" + repeat("ee", 20)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := o.want(live, c.q)
			if got := pages(t, live, c.q, 7); !slices.Equal(got, want) {
				t.Fatalf("found %d jobs, want %d (first %v, want %v)", len(got), len(want), first(got), first(want))
			}
			if got := pages(t, rebuilt, c.q, 500); !slices.Equal(got, want) {
				t.Fatalf("after a rebuild: found %d jobs, want %d", len(got), len(want))
			}
			if c.name != "nobody" && len(want) == 0 {
				t.Fatal("the filter selects nothing: the test would prove little")
			}
		})
	}
	// A found job carries its parties.
	p := live.Search(Query{User: user, Limit: 1})
	if len(p.Jobs) != 1 || !slices.Contains(p.Jobs[0].Users, user) || !slices.Contains(p.Jobs[0].Contracts, contract) {
		t.Fatalf("found %+v", p.Jobs)
	}
}

func first(ids []domain.JobID) []domain.JobID { return ids[:min(3, len(ids))] }
