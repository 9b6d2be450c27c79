package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"relayer/domain"
)

// jtBodyWith is jtBody(k, n) with member name set to v.
func jtBodyWith(tb testing.TB, k domain.Kind, n uint64, name string, v any) []byte {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(jtBody(k, n), &m); err != nil {
		tb.Fatal(err)
	}
	m[name] = v
	b, err := json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestAnExtraDataOutsideTheReferenceFormatIsRefusedNamingTheFieldAndChangesNothing(t *testing.T) {
	env := startJT(t)
	ctx := "07" + strings.Repeat("11", 31)
	bad := map[string]string{
		"an empty string":            "",
		"the version byte alone":     "0x01",
		"an untagged contextId":      "0x01" + strings.Repeat("11", 32),
		"an untagged epochId":        "0x02" + ctx + strings.Repeat("11", 32),
		"an unknown version":         "0x03",
		"a legacy byte with more":    "0x0000",
		"a contextId with a trailer": "0x01" + ctx + "00",
	}
	n := uint64(100)
	for _, k := range domain.Kinds() {
		for name, extra := range bad {
			n++
			head := env.head()
			r := env.do(http.MethodPost, "/v2/"+k.String(), jtBodyWith(t, k, n, "extraData", extra))
			r.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
			if d := r.Env.Error.Details; len(d) != 1 || d[0].Field != "extraData" {
				t.Fatalf("%s, %s: want one detail naming extraData: %s", k, name, r.Body)
			}
			if env.head() != head {
				t.Fatalf("%s, %s: a refused request moved the log's head", k, name)
			}
		}
	}
	// The tagged versions are a decryption's; an input proof's extraData is 0x00 only.
	v2 := "0x02" + ctx + "08" + strings.Repeat("22", 31)
	for _, k := range []domain.Kind{domain.PublicDecrypt, domain.UserDecrypt, domain.DelegatedUserDecrypt} {
		n++
		env.do(http.MethodPost, "/v2/"+k.String(), jtBodyWith(t, k, n, "extraData", v2)).want(t, http.StatusAccepted, "")
	}
	n++
	r := env.do(http.MethodPost, "/v2/input-proof", jtBodyWith(t, domain.InputProof, n, "extraData", v2))
	r.want(t, http.StatusBadRequest, domain.LabelValidationFailed)
	if d := r.Env.Error.Details; len(d) != 1 || d[0].Field != "extraData" || !strings.Contains(d[0].Issue, `"0x00"`) {
		t.Fatalf("an input proof with a decryption's extraData: %s", r.Body)
	}
}

func TestAnInputProofsChainIDInEveryFormTheReferenceAllowsNamesTheSameJob(t *testing.T) {
	env := startJT(t)
	var first string
	for _, id := range []any{1337, "1337", "0x539", "0x0539", "01337", "0X539"} {
		r := env.do(http.MethodPost, "/v2/input-proof", jtBodyWith(t, domain.InputProof, 7, "contractChainId", id))
		r.want(t, http.StatusAccepted, "")
		var res struct {
			JobID string `json:"jobId"`
		}
		if err := json.Unmarshal(r.Env.Result, &res); err != nil {
			t.Fatal(err)
		}
		if first == "" {
			first = res.JobID
		} else if res.JobID != first {
			t.Fatalf("chain id %v named job %s, %v named %s: one request written two ways must be one job", id, res.JobID, 1337, first)
		}
	}
}
