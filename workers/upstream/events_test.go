package upstream

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"syscall"
	"testing"
)

func TestAnUpstreamIsNamedByItsSchemeAndHostOnly(t *testing.T) {
	cases := map[string]string{
		"https://user:s3cret@Mainnet.Infura.io/v3/0123456789abcdef?apikey=k#frag": "https://mainnet.infura.io",
		"https://eth-mainnet.g.alchemy.com/v2/ALCHEMYKEY":                         "https://eth-mainnet.g.alchemy.com",
		"http://127.0.0.1:8545": "http://127.0.0.1:8545",
		"http://[::1]:8545/":    "http://[::1]:8545",
	}
	for raw, want := range cases {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := SourceName(u); got != want {
			t.Errorf("SourceName(%s) = %q, want %q", raw, got, want)
		}
	}
	if SourceName(nil) != "" {
		t.Error("SourceName(nil) must be empty")
	}
}

func TestSecretsAreScrubbedFromErrorsWhichStillUnwrap(t *testing.T) {
	u, _ := url.Parse("https://alice:hunter2pass@node.example/v3/PROJECTKEY123?apikey=QUERYKEY456")
	inner := &url.Error{Op: "Post", URL: u.String(), Err: syscall.ECONNREFUSED}
	err := scrubError(inner, u)
	msg := err.Error()
	for _, secret := range []string{"alice", "hunter2pass", "PROJECTKEY123", "QUERYKEY456"} {
		if strings.Contains(msg, secret) {
			t.Errorf("%q leaks %q", msg, secret)
		}
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Error("the scrubbed error must still unwrap to the cause")
	}
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Error("the scrubbed error must still unwrap to the url.Error")
	}
	plain := errors.New("dial tcp 10.0.0.1:443: connect: connection refused")
	if scrubError(plain, u) != plain {
		t.Error("an error without secrets must be returned as is")
	}
}

func TestSinkFuncAndNopSinkAreSinks(t *testing.T) {
	var got []EventType
	var s Sink = SinkFunc(func(_ context.Context, e Event) { got = append(got, e.Type) })
	s.Record(context.Background(), Event{Type: RateLimitRecovered})
	NopSink{}.Record(context.Background(), Event{Type: RateLimitRecovered})
	if len(got) != 1 || got[0] != RateLimitRecovered {
		t.Fatalf("got %v", got)
	}
}
