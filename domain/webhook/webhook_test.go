package webhook

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"strings"
	"testing"
	"time"

	"relayer/domain"
)

func TestTheSignatureIsTheStandardWebhooksOneOnTheSpecificationsExample(t *testing.T) {
	// The example of the Standard Webhooks specification (and of its reference libraries).
	key, err := SecretKey("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	got := Sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("signature %s, want %s", got, want)
	}
}

func TestADeliveryDuringARotationCarriesOneSignaturePerSecretSeparatedBySpaces(t *testing.T) {
	a, b := []byte("first key"), []byte("second key")
	at := time.Unix(1700000000, 0)
	h := SignatureHeader([][]byte{a, b}, "id", at, []byte("{}"))
	parts := strings.Split(h, " ")
	if len(parts) != 2 || parts[0] != Sign(a, "id", at, []byte("{}")) || parts[1] != Sign(b, "id", at, []byte("{}")) {
		t.Fatalf("header %q", h)
	}
}

func TestANewSecretIsWhsecAndThirtyTwoRandomBytes(t *testing.T) {
	s, err := NewSecret(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s, SecretPrefix) {
		t.Fatalf("secret %q does not start with whsec_", s)
	}
	k, err := SecretKey(s)
	if err != nil || len(k) != 32 {
		t.Fatalf("secret's key: %d bytes, %v", len(k), err)
	}
	if s2, _ := NewSecret(rand.Reader); s2 == s {
		t.Fatal("two secrets drawn alike")
	}
}

func testKey(t *testing.T, fill byte) Key {
	t.Helper()
	k, err := ParseKey(strings.Repeat(fmt.Sprintf("%02x", fill), 32))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestASealedSecretOpensUnderItsKeyForItsEndpointOnly(t *testing.T) {
	k := testKey(t, 7)
	sealed, err := Seal(k, "ep-1", "whsec_c2VjcmV0", rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sealed), "c2VjcmV0") {
		t.Fatalf("the sealed secret %q shows the secret", sealed)
	}
	if got, err := Open(k, "ep-1", sealed); err != nil || got != "whsec_c2VjcmV0" {
		t.Fatalf("open: %q, %v", got, err)
	}
	if _, err := Open(testKey(t, 8), "ep-1", sealed); !errors.Is(err, ErrWrongKey) {
		t.Errorf("open under another key: %v, want ErrWrongKey", err)
	}
	if _, err := Open(k, "ep-2", sealed); err == nil {
		t.Error("a secret sealed for one endpoint opened for another")
	}
	tampered := []byte(sealed)
	tampered[len(tampered)-3] ^= 1
	if _, err := Open(k, "ep-1", Sealed(tampered)); err == nil {
		t.Error("a tampered sealed secret opened")
	}
	if _, err := Open(Key{}, "ep-1", sealed); err == nil {
		t.Error("opened without a key")
	}
}

func TestTheSealingKeyNeverPrintsItself(t *testing.T) {
	k := testKey(t, 0xab)
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("key", "key", k)
	for _, out := range []string{fmt.Sprint(k), fmt.Sprintf("%+v %#v %v", k, k, &k), logged.String()} {
		if strings.Contains(strings.ToLower(out), "abab") || strings.Contains(out, "171") {
			t.Errorf("the key's bytes show in %q", out)
		}
		if !strings.Contains(out, k.ID()) {
			t.Errorf("%q does not name the key by its id", out)
		}
	}
}

func TestASealingKeyIsThirtyTwoBytesInHexOrBase64(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("0f", 32),
		"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", // openssl rand -base64 32
		"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
	} {
		if _, err := ParseKey(s); err != nil {
			t.Errorf("ParseKey(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "short", strings.Repeat("0f", 31), strings.Repeat("zz", 32)} {
		if _, err := ParseKey(s); err == nil {
			t.Errorf("ParseKey(%q) accepted", s)
		} else if s != "" && strings.Contains(err.Error(), s) {
			t.Errorf("the problem %q repeats the key", err)
		}
	}
}

func TestEveryEventHasItsOwnIdTheSameEachTime(t *testing.T) {
	a := EventID("request-x", 1)
	if a != EventID("request-x", 1) {
		t.Fatal("the id of one event changed")
	}
	for _, other := range []string{EventID("request-x", 2), EventID("request-y", 1), EventID("request-x1", 1)} {
		if other == a {
			t.Fatalf("two events share the id %s", a)
		}
	}
}

func TestOnlyPublicAddressesAreAllowed(t *testing.T) {
	for addr, want := range map[string]bool{
		"93.184.216.34": true, "2606:2800:220:1:248:1893:25c8:1946": true, "8.8.8.8": true,
		"127.0.0.1": false, "::1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "fe80::1": false, "fc00::1": false, "224.0.0.1": false, "ff02::1": false,
		"0.0.0.0": false, "::": false, "100.64.0.1": false, "::ffff:127.0.0.1": false, "::ffff:10.0.0.1": false,
		"255.255.255.255": false, "198.18.0.1": false, "64:ff9b::a00:1": false, "::ffff:0:7f00:1": false, "::ffff:0:a9fe:a9fe": false, "2002:a00:1::": false,
		// Found registered by an outside probe: IPv4-compatible IPv6, site-local, discard-only,
		// Teredo, and the documentation ranges.
		"::127.0.0.1": false, "::10.0.0.1": false, "fec0::1": false, "100::1": false, "2001::1": false,
		"2001:0:4136:e378:8000:63bf:3fff:fdd2": false, "2001:db8::1": false, "192.0.2.1": false,
		"198.51.100.7": false, "203.0.113.9": false, "192.88.99.1": false,
		// Public ranges near them stay allowed.
		"2001:4860:4860::8888": true, "2001:200::1": true, "192.0.3.1": true, "203.0.114.1": true,
	} {
		if got := AddressAllowed(netip.MustParseAddr(addr)); got != want {
			t.Errorf("AddressAllowed(%s) = %v, want %v", addr, got, want)
		}
	}
}

func TestAnEndpointURLIsAbsoluteHTTPOrHTTPSAndProblemsNeverRepeatIt(t *testing.T) {
	for _, ok := range []string{"https://hooks.example.com/relayer", "http://203.0.113.7:8080/x?token=abc"} {
		if _, err := ParseURL(ok); err != nil {
			t.Errorf("ParseURL(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"ftp://example.com/", "/relative", "https://", "https://user:pa55word@example.com/#frag", "not a url at all", "https://" + strings.Repeat("a", MaxURLBytes)} {
		_, err := ParseURL(bad)
		if err == nil {
			t.Errorf("ParseURL(%q) accepted", bad)
			continue
		}
		if strings.Contains(err.Error(), "pa55word") {
			t.Errorf("the problem %q repeats the URL", err)
		}
	}
}

func TestAFilterLetsThroughWhatItNamesAndEverythingWhenEmpty(t *testing.T) {
	f, issues := ParseFilter([]string{"user-decrypt", "user-decrypt"}, []string{"completed", "failure"}, nil)
	if len(issues) > 0 {
		t.Fatal(issues)
	}
	if len(f.Kinds) != 1 {
		t.Errorf("duplicates kept: %v", f.Kinds)
	}
	cases := []struct {
		k    domain.Kind
		to   domain.Status
		typ  string
		want bool
	}{
		{domain.UserDecrypt, domain.Completed, "RequestCompleted", true},
		{domain.UserDecrypt, domain.Failure, "ReadinessFailed", true},
		{domain.UserDecrypt, domain.Processing, "ReadinessPassed", false},
		{domain.InputProof, domain.Completed, "RequestCompleted", false},
		{domain.Kind{}, domain.Completed, "RequestCompleted", false},
	}
	for _, c := range cases {
		if got := f.Match(c.k, c.to, c.typ); got != c.want {
			t.Errorf("Match(%s, %s, %s) = %v, want %v", c.k, c.to, c.typ, got, c.want)
		}
	}
	if !(Filter{}).Match(domain.Kind{}, domain.Queued, "RequestAccepted") {
		t.Error("an empty filter refused a transition")
	}
	byType, _ := ParseFilter(nil, nil, []string{"TransactionSigned"})
	if byType.Match(domain.InputProof, domain.Completed, "RequestCompleted") || !byType.Match(domain.InputProof, domain.TxInFlight, "TransactionSigned") {
		t.Error("the event type filter does not select by type")
	}
}

func TestAFilterNamingUnknownKindsStatusesOrNonTransitionEventsListsEachProblem(t *testing.T) {
	_, issues := ParseFilter([]string{"input-proof", "teleport"}, []string{"lost"}, []string{"ShareReceived", "RequestCompleted", "Nope"})
	var fields []string
	for _, i := range issues {
		fields = append(fields, i.Field)
	}
	if got := strings.Join(fields, " "); got != "filter.kinds[1] filter.statuses[0] filter.eventTypes[0] filter.eventTypes[2]" {
		t.Fatalf("issues for %s: %v", got, issues)
	}
}

// fold applies events to a registry as the stream's readers do.
func fold(r Registry, evs ...Event) Registry {
	for _, e := range evs {
		r = r.Apply(e)
	}
	return r
}

func registered(t *testing.T, r Registry, id string, at time.Time) (Registry, Registered) {
	t.Helper()
	ev, err := r.Register(Register{ID: id, URL: "https://hooks.example.com/" + id, Secret: Sealed("v1.x." + id), Who: "admin-1", At: at, MaxEndpoints: 3})
	if err != nil {
		t.Fatal(err)
	}
	return fold(r, ev), ev
}

func TestARotatedOutSecretSignsUntilItsOverlapEndsThenOnlyTheNewOne(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	r, _ := registered(t, NewRegistry(), "a", t0)
	rot, err := r.Rotate(Rotate{ID: "a", Secret: "v1.x.new", Overlap: time.Hour, Who: "admin-1", At: t0.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	r = fold(r, rot)
	e, _ := r.Get("a")
	if got := e.Signing(t0.Add(30 * time.Minute)); len(got) != 2 || got[0] != "v1.x.a" || got[1] != "v1.x.new" {
		t.Errorf("signing within the overlap: %v, want the old and the new secret", got)
	}
	if got := e.Signing(t0.Add(2 * time.Hour)); len(got) != 1 || got[0] != "v1.x.new" {
		t.Errorf("signing after the overlap: %v, want the new secret alone", got)
	}
	// A rotation without overlap (a leaked secret) ends every earlier secret at once, the one
	// still in its overlap included.
	leak, _ := r.Rotate(Rotate{ID: "a", Secret: "v1.x.leak", Overlap: 0, Who: "admin-1", At: t0.Add(2 * time.Minute)})
	leaked, _ := fold(r, leak).Get("a")
	if s := leaked.Signing(t0.Add(3 * time.Minute)); len(s) != 1 || s[0] != "v1.x.leak" {
		t.Errorf("after a rotation without overlap: %v, want the newest secret alone", s)
	}
	// A second rotation after the first overlap drops the first secret from the state.
	rot2, _ := r.Rotate(Rotate{ID: "a", Secret: "v1.x.newer", Overlap: 0, Who: "admin-1", At: t0.Add(3 * time.Hour)})
	r = fold(r, rot2)
	e, _ = r.Get("a")
	if len(e.Secrets) != 1 || e.Secrets[0].Sealed != "v1.x.newer" {
		t.Errorf("after a rotation without overlap: %v, want the newest secret alone", e.Secrets)
	}
}

func TestAnEndpointIsDisabledEnabledAndDeletedOnlyFromTheStatesThatAllowIt(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	r, _ := registered(t, NewRegistry(), "a", t0)
	if _, err := r.Enable("a", "admin-1", t0); !errors.Is(err, ErrState) {
		t.Errorf("enabling an active endpoint: %v, want ErrState", err)
	}
	if _, err := r.Enable("zz", "admin-1", t0); !errors.Is(err, ErrNotFound) {
		t.Errorf("enabling an unknown endpoint: %v, want ErrNotFound", err)
	}
	d, err := r.Disable(Disable{ID: "a", Reason: "maintenance", Who: "admin-1", At: t0.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	r = fold(r, d)
	if e, _ := r.Get("a"); e.State != StateDisabled || e.Reason != "maintenance" {
		t.Fatalf("after Disabled: %+v", e)
	}
	if _, err := r.Disable(Disable{ID: "a", Who: "admin-1", At: t0}); !errors.Is(err, ErrState) {
		t.Errorf("disabling a disabled endpoint: %v, want ErrState", err)
	}
	en, err := r.Enable("a", "admin-1", t0.Add(2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	r = fold(r, en)
	del, err := r.Delete("a", "admin-1", t0.Add(3*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	r = fold(r, del)
	if _, err := r.Rotate(Rotate{ID: "a", Secret: "v1.x.y", At: t0}); !errors.Is(err, ErrState) {
		t.Errorf("rotating a deleted endpoint: %v, want ErrState", err)
	}
	if _, err := r.Delete("a", "admin-1", t0); !errors.Is(err, ErrState) {
		t.Errorf("deleting a deleted endpoint: %v, want ErrState", err)
	}
	if len(r.Endpoints(false)) != 0 || len(r.Endpoints(true)) != 1 {
		t.Errorf("a deleted endpoint is listed with deleted ones only")
	}
	if r.Version() != 3 {
		t.Errorf("version %d after four events, want 3", r.Version())
	}
}

func TestTheRelayerDoesNotDisableAnEndpointEnabledAfterItsFailuresBegan(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	r, _ := registered(t, NewRegistry(), "a", t0)
	d, _ := r.Disable(Disable{ID: "a", Reason: "off", Who: "admin-1", At: t0.Add(time.Minute)})
	en, _ := r.Apply(d).Enable("a", "admin-1", t0.Add(time.Hour))
	r = fold(r, d, en)
	if _, err := r.Disable(Disable{ID: "a", Reason: "failing", FailingSince: t0.Add(30 * time.Minute), At: t0.Add(2 * time.Hour)}); !errors.Is(err, ErrStale) {
		t.Errorf("a streak older than the enable: %v, want ErrStale", err)
	}
	if _, err := r.Disable(Disable{ID: "a", Reason: "failing", FailingSince: t0.Add(61 * time.Minute), At: t0.Add(2 * time.Hour)}); err != nil {
		t.Errorf("a streak after the enable: %v", err)
	}
}

func TestRegistrationsAreBoundedAndCheckedFieldByField(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	r := NewRegistry()
	for _, id := range []string{"a", "b", "c"} {
		r, _ = registered(t, r, id, t0)
	}
	if _, err := r.Register(Register{ID: "d", URL: "https://x.example/", Secret: "v1.x.d", At: t0, MaxEndpoints: 3}); !errors.Is(err, ErrTooMany) {
		t.Errorf("a fourth endpoint of three allowed: %v, want ErrTooMany", err)
	}
	_, err := r.Register(Register{ID: "e", URL: "gopher://x/", Description: strings.Repeat("é", MaxDescriptionRunes+1), Secret: "v1.x.e", At: t0})
	var ie *InvalidError
	if !errors.As(err, &ie) || len(ie.Issues) != 2 {
		t.Fatalf("a bad URL and description: %v, want both listed", err)
	}
}

func TestTheConfigurationTakesDefaultsAndNamesEachProblemWithoutTheKey(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Fatalf("the zero configuration: %v", err)
	}
	if (Config{}).Enabled() || !(Config{}).Key().IsZero() {
		t.Error("webhooks on without a key")
	}
	d := Config{}.WithDefaults()
	if d.Timeout != DefaultTimeout || d.DisableAfter != DefaultDisableAfter || d.RetryCap != DefaultRetryCap || d.MaxEndpoints != DefaultMaxEndpoints {
		t.Errorf("defaults: %+v", d)
	}
	err := Config{SecretKey: "hunter2-not-a-key", Timeout: time.Hour, MaxEndpoints: -1}.Validate()
	var ce *ConfigError
	if !errors.As(err, &ce) || len(ce.Problems) != 3 {
		t.Fatalf("problems: %v", err)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the problem repeats the key: %v", err)
	}
	good := Config{SecretKey: strings.Repeat("ab", 32)}
	if err := good.Validate(); err != nil || good.Key().IsZero() {
		t.Errorf("a good key: %v", err)
	}
}
