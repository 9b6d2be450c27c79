package api

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"relayer/domain"
)

// A status poll found without the mux (route) is answered as the mux's route answers it, and a
// path the fast route does not take (another method, an unclean path, a segment that is not a
// UUID's characters, an unknown kind) goes to the mux.
func TestStatusPollsFoundWithoutTheMuxAnswerAsTheMuxWould(t *testing.T) {
	env := startJT(t)
	viaMux := withRequestID(env.srv.instrument(env.srv.recoverer(env.srv.mux)))
	ids := map[domain.Kind]string{}
	for i, k := range allKinds() {
		ids[k] = env.accept(k, uint64(i)).String()
	}
	proof, public := ids[domain.InputProof], ids[domain.PublicDecrypt]
	paths := []string{
		"/v2/input-proof/" + proof,
		"/v2/input-proof/" + strings.ToUpper(proof),
		"/v2/public-decrypt/" + public,
		"/v2/public-decrypt/" + proof, // another kind's job
		"/v3/user-decrypt/" + ids[domain.UserDecrypt],
		"/v2/input-proof/" + domain.NewJobID().String(), // unknown
		"/v2/input-proof/" + strings.Repeat("-", 36),    // a UUID's characters, not a UUID
		"/v2/input-proof/" + proof + "?wait=0",
		"/v2/input-proof/" + proof[:35] + "g", // not a UUID's characters: the mux's
		"/v2/input-proof/" + proof + "/",
		"/v2//input-proof/" + proof,
		"/v2/input-proof/../input-proof/" + proof,
		"/v2/no-such-kind/" + proof,
		"/v2/input-proof/%30" + proof[1:],
	}
	rid := regexp.MustCompile(`"requestId":"[^"]*"`)
	for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPost} {
		for _, p := range paths {
			fast, mux := httptest.NewRecorder(), httptest.NewRecorder()
			env.srv.Handler().ServeHTTP(fast, httptest.NewRequest(method, p, nil))
			viaMux.ServeHTTP(mux, httptest.NewRequest(method, p, nil))
			fb, mb := rid.ReplaceAllString(fast.Body.String(), ""), rid.ReplaceAllString(mux.Body.String(), "")
			if fast.Code != mux.Code || fb != mb || fast.Header().Get("Location") != mux.Header().Get("Location") ||
				fast.Header().Get("Retry-After") != mux.Header().Get("Retry-After") {
				t.Errorf("%s %s: %d %q (Location %q) through route, %d %q (Location %q) through the mux", method, p,
					fast.Code, fb, fast.Header().Get("Location"), mux.Code, mb, mux.Header().Get("Location"))
			}
		}
	}
}
