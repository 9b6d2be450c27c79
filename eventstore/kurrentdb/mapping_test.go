package kurrentdb

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/EventStore/EventStore-Client-Go/v4/esdb"

	"relayer/eventstore"
)

func TestPositionsAreCommitPositionsPlusOne(t *testing.T) {
	cases := []struct {
		commit uint64
		pos    eventstore.Position
	}{
		{0, 1}, // an event at the very start of the log is not "before everything"
		{1, 2},
		{126, 127},
		{1 << 40, 1<<40 + 1},
		{math.MaxInt64 - 1, math.MaxInt64},
	}
	for _, c := range cases {
		pos, ok := positionOf(c.commit)
		if !ok || pos != c.pos {
			t.Errorf("commit position %d maps to Position %d (%v), want %d", c.commit, pos, ok, c.pos)
		}
		if back := serverPositionOf(pos); back != (esdb.Position{Commit: c.commit, Prepare: c.commit}) {
			t.Errorf("Position %d maps back to %+v, want commit and prepare %d", pos, back, c.commit)
		}
	}
	for _, commit := range []uint64{noPosition, math.MaxInt64, 1 << 63} {
		if pos, ok := positionOf(commit); ok {
			t.Errorf("commit position %d is not one the server reports for a real event; it mapped to %d", commit, pos)
		}
	}
	// Order is kept, and 0 stays below every event.
	prev := eventstore.Position(0)
	for _, commit := range []uint64{0, 1, 2, 1000, 1001} {
		pos, _ := positionOf(commit)
		if pos <= prev {
			t.Fatalf("positions keep commit order: %d maps to %d after %d", commit, pos, prev)
		}
		prev = pos
	}
}

func TestServerPositionsOrderByCommitThenPrepare(t *testing.T) {
	cases := []struct {
		a, b esdb.Position
		want bool
	}{
		{esdb.Position{Commit: 1, Prepare: 1}, esdb.Position{Commit: 2, Prepare: 2}, true},
		{esdb.Position{Commit: 2, Prepare: 2}, esdb.Position{Commit: 1, Prepare: 1}, false},
		{esdb.Position{Commit: 5, Prepare: 5}, esdb.Position{Commit: 5, Prepare: 5}, false},
		{esdb.Position{Commit: 5, Prepare: 3}, esdb.Position{Commit: 5, Prepare: 4}, true},
		{esdb.Position{Commit: 4, Prepare: 9}, esdb.Position{Commit: 5, Prepare: 0}, true},
	}
	for _, c := range cases {
		if got := before(c.a, c.b); got != c.want {
			t.Errorf("before(%+v, %+v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestExpectedVersionsMapToTheClientsRevisions(t *testing.T) {
	cases := []struct {
		v    eventstore.Version
		want esdb.ExpectedRevision
	}{
		{eventstore.NoStream, esdb.NoStream{}},
		{eventstore.Any, esdb.Any{}},
		{0, esdb.StreamRevision{Value: 0}},
		{7, esdb.StreamRevision{Value: 7}},
		{math.MaxInt64, esdb.StreamRevision{Value: math.MaxInt64}},
	}
	for _, c := range cases {
		if got := expectedRevision(c.v); !reflect.DeepEqual(got, c.want) {
			t.Errorf("expected version %s maps to %#v, want %#v", c.v, got, c.want)
		}
	}
}

// clientConflictFormat is the format of the message inside the client's wrong-expected-version
// error, copied from client.go of EventStore-Client-Go v4.2.0. The tests against the fake server
// check it against the client's own error.
const clientConflictFormat = "wrong expected version: expecting '%s' but got '%s'"

func TestTheActualVersionIsReadFromTheClientsConflictMessage(t *testing.T) {
	cases := []struct {
		expected, current string
		want              eventstore.Version
		known             bool
	}{
		{"no_stream", "0", 0, true},
		{"no_stream", "41", 41, true},
		{"3", "no_stream", eventstore.NoStream, true},
		{"0", "2", 2, true},
		{"any", "9223372036854775807", math.MaxInt64, true},
		{"stream_exists", "no_stream", eventstore.NoStream, true},
		{"1", "-1", 0, false},                   // not a revision
		{"1", "18446744073709551615", 0, false}, // beyond a Version
		{"1", "", 0, false},
	}
	for _, c := range cases {
		msg := fmt.Sprintf(clientConflictFormat, c.expected, c.current)
		got, known := actualVersion(msg)
		if known != c.known || (known && got != c.want) {
			t.Errorf("actualVersion(%q) = %s, %v; want %s, %v", msg, got, known, c.want, c.known)
		}
	}
	for _, msg := range []string{"", "wrong expected version", "conflict: expecting '1' but got '2'", "wrong expected version: expecting '1' but got '2' (retry)"} {
		if _, known := actualVersion(msg); known {
			t.Errorf("actualVersion(%q) claims to know the actual version", msg)
		}
	}
}

func TestOnlyTheClientsWrongExpectedVersionErrorIsAConflict(t *testing.T) {
	for _, err := range []error{
		nil,
		errors.New("wrong expected version: expecting '1' but got '2'"),                   // the message alone is no conflict
		fmt.Errorf("append: %w", errors.New(fmt.Sprintf(clientConflictFormat, "1", "2"))), // nor wrapped
		&eventstore.WrongExpectedVersionError{Stream: "s", Expected: 1, Actual: 2},
	} {
		if is, _, _ := conflict(err); is {
			t.Errorf("conflict(%v) is true; only the client's *esdb.Error with ErrorCodeWrongExpectedVersion is one", err)
		}
	}
	// esdb.FromError is the one constructor the client exports; it makes ErrorCodeUnknown errors.
	unknown, _ := esdb.FromError(errors.New(fmt.Sprintf(clientConflictFormat, "1", "2")))
	if is, _, _ := conflict(unknown); is {
		t.Errorf("an *esdb.Error of another code is no conflict")
	}
}

func TestMetadataRoundTripsThroughTheUserMetadataJSON(t *testing.T) {
	given := time.Date(2024, 2, 29, 13, 14, 15, 123456789, time.FixedZone("UTC+2", 2*3600))
	created := time.Date(2025, 1, 2, 3, 4, 5, 600, time.UTC)
	cases := []struct {
		name string
		e    eventstore.Event
		json string
		want eventstore.Metadata
	}{
		{
			name: "all set",
			e:    eventstore.Event{SchemaVersion: 3, Metadata: eventstore.Metadata{CorrelationID: "corr-1", CausationID: "cmd-7", RecordedAt: given}},
			json: `{"$correlationId":"corr-1","$causationId":"cmd-7","schemaVersion":3,"recordedAt":"2024-02-29T11:14:15.123456789Z"}`,
			want: eventstore.Metadata{CorrelationID: "corr-1", CausationID: "cmd-7", RecordedAt: given},
		},
		{
			name: "nothing set: the server's created time is the recorded-at",
			e:    eventstore.Event{SchemaVersion: 1},
			json: `{"schemaVersion":1}`,
			want: eventstore.Metadata{RecordedAt: created},
		},
		{
			name: "a correlation id only, with characters JSON escapes",
			e:    eventstore.Event{SchemaVersion: 2, Metadata: eventstore.Metadata{CorrelationID: `"quoted" <tag> ✓`}},
			json: `{"$correlationId":"\"quoted\" \u003ctag\u003e ✓","schemaVersion":2}`,
			want: eventstore.Metadata{CorrelationID: `"quoted" <tag> ✓`, RecordedAt: created},
		},
	}
	for _, c := range cases {
		raw, err := encodeMetadata(c.e)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if string(raw) != c.json {
			t.Errorf("%s: user metadata is %s, want %s", c.name, raw, c.json)
		}
		sv, md, err := decodeMetadata(raw, created)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if sv != c.e.SchemaVersion || md.CorrelationID != c.want.CorrelationID || md.CausationID != c.want.CausationID || !md.RecordedAt.Equal(c.want.RecordedAt) {
			t.Errorf("%s: read back schema version %d and %+v, want %d and %+v", c.name, sv, md, c.e.SchemaVersion, c.want)
		}
	}
	// The keys KurrentDB itself reads are the $-prefixed ones.
	raw, _ := encodeMetadata(eventstore.Event{SchemaVersion: 1, Metadata: eventstore.Metadata{CorrelationID: "c", CausationID: "d"}})
	var keys map[string]any
	_ = json.Unmarshal(raw, &keys)
	if keys["$correlationId"] != "c" || keys["$causationId"] != "d" {
		t.Fatalf("the ids go under $correlationId and $causationId: %s", raw)
	}
}

func TestMetadataThatIsNotTheStoresIsReported(t *testing.T) {
	for _, raw := range []string{``, `null`, `[]`, `{}`, `{"schemaVersion":0}`, `{"schemaVersion":"1"}`, `{"schemaVersion":1,"recordedAt":"yesterday"}`} {
		if _, _, err := decodeMetadata([]byte(raw), time.Now()); err == nil {
			t.Errorf("user metadata %q reads back without error", raw)
		}
	}
	// Keys of others are ignored.
	if sv, _, err := decodeMetadata([]byte(`{"schemaVersion":4,"$correlationId":"c","tenant":"x"}`), time.Now()); err != nil || sv != 4 {
		t.Errorf("metadata with other keys: %d, %v", sv, err)
	}
}

func TestEventsKurrentDBWouldTakeForItsOwnAreInvalid(t *testing.T) {
	ok := eventstore.Event{Type: "e", SchemaVersion: 1, Data: []byte(`{}`)}
	with := func(f func(*eventstore.Event)) []eventstore.Event {
		e := ok
		f(&e)
		return []eventstore.Event{ok, e}
	}
	bad := map[string]struct {
		stream string
		events []eventstore.Event
	}{
		"a system stream":            {"$stream", []eventstore.Event{ok}},
		"a stream that is not UTF-8": {"s\xff", []eventstore.Event{ok}},
		"a system event type":        {"s", with(func(e *eventstore.Event) { e.Type = "$metadata" })},
		"a type that is not UTF-8":   {"s", with(func(e *eventstore.Event) { e.Type = "e\xfe" })},
		"an id that is not UTF-8":    {"s", with(func(e *eventstore.Event) { e.Metadata.CausationID = "\xc3" })},
		"a recorded-at in year 0":    {"s", with(func(e *eventstore.Event) { e.Metadata.RecordedAt = time.Date(0, 12, 31, 0, 0, 0, 0, time.UTC) })},
		"a recorded-at in 10000":     {"s", with(func(e *eventstore.Event) { e.Metadata.RecordedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) })},
	}
	for name, b := range bad {
		if err := validateEvents(b.stream, b.events); !errors.Is(err, eventstore.ErrInvalidEvent) {
			t.Errorf("%s: want ErrInvalidEvent, got %v", name, err)
		}
	}
	good := with(func(e *eventstore.Event) {
		e.Type = "payment.captured$v2"
		e.Metadata.RecordedAt = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
	})
	if err := validateEvents("orders/1$x ✓", good); err != nil {
		t.Errorf("a $ inside a name is no system name: %v", err)
	}
}

func TestTheStreamPrefixIsAddedStrippedAndFiltered(t *testing.T) {
	n := names{prefix: "tenant-a/"}
	if got := n.full("order-1"); got != "tenant-a/order-1" {
		t.Errorf("full(order-1) = %q", got)
	}
	if got, ok := n.local("tenant-a/order-1"); !ok || got != "order-1" {
		t.Errorf("local(tenant-a/order-1) = %q, %v", got, ok)
	}
	if _, ok := n.local("tenant-b/order-1"); ok {
		t.Errorf("a stream of another prefix is not the store's")
	}
	ours := []struct {
		stream, typ string
		want        bool
	}{
		{"tenant-a/order-1", "created", true},
		{"tenant-a/", "created", true},
		{"tenant-b/order-1", "created", false},
		{"tenant-a", "created", false},
		{"tenant-a/order-1", "$streamDeleted", false}, // a tombstone in the store's own stream
		{"$stats-127.0.0.1:2113", "$statsCollected", false},
		{"$$tenant-a/order-1", "$metadata", false},
	}
	for _, c := range ours {
		if got := n.ours(c.stream, c.typ); got != c.want {
			t.Errorf("ours(%q, %q) = %v, want %v", c.stream, c.typ, got, c.want)
		}
	}
	if f := n.filter(); f.Type != esdb.StreamFilterType || !reflect.DeepEqual(f.Prefixes, []string{"tenant-a/"}) || f.Regex != "" {
		t.Errorf("with a prefix, subscriptions filter on it by stream name on the server: %+v", f)
	}

	all := names{}
	if got := all.full("order-1"); got != "order-1" {
		t.Errorf("without a prefix, names are the server's: %q", got)
	}
	for _, c := range []struct {
		stream, typ string
		want        bool
	}{
		{"order-1", "created", true},
		{"$stats-x", "$statsCollected", false},
		{"$ce-order", "$>", false},
		{"$settings", "update-default-acl", false}, // a system stream, whatever its event types
		{"order-1", "$streamDeleted", false},
	} {
		if got := all.ours(c.stream, c.typ); got != c.want {
			t.Errorf("without a prefix, ours(%q, %q) = %v, want %v", c.stream, c.typ, got, c.want)
		}
	}
	if f := all.filter(); !reflect.DeepEqual(f, esdb.ExcludeSystemEventsFilter()) {
		t.Errorf("without a prefix, subscriptions use the client's system-event filter: %+v", f)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Fatalf("the zero Config is valid: %v", err)
	}
	if err := (Config{StreamPrefix: "staging/", PageSize: 1, RetryInterval: time.Nanosecond}).Validate(); err != nil {
		t.Fatalf("a small valid Config: %v", err)
	}
	bad := []struct {
		field string
		cfg   Config
	}{
		{"StreamPrefix", Config{StreamPrefix: "$all/"}},
		{"StreamPrefix", Config{StreamPrefix: "a\xffb"}},
		{"StreamPrefix", Config{StreamPrefix: strings.Repeat("p", maxPrefix+1)}},
		{"PageSize", Config{PageSize: -1}},
		{"PageSize", Config{PageSize: maxPageSize + 1}},
		{"RetryInterval", Config{RetryInterval: -time.Millisecond}},
	}
	for _, b := range bad {
		err := b.cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), b.field) {
			t.Errorf("Validate(%+v) must name %s; got %v", b.cfg, b.field, err)
		}
		if _, err := Open(t.Context(), "esdb://127.0.0.1:1?tls=false", b.cfg); err == nil || !strings.Contains(err.Error(), b.field) {
			t.Errorf("Open with %+v must fail naming %s before it connects; got %v", b.cfg, b.field, err)
		}
	}
	cfg := Config{}
	cfg.setDefaults()
	if cfg.PageSize != DefaultPageSize || cfg.RetryInterval != DefaultRetryInterval || cfg.Logger == nil || cfg.StreamPrefix != "" {
		t.Fatalf("setDefaults fills every zero field but the prefix: %+v", cfg)
	}
}

func TestKurrentDBSchemesBecomeTheClients(t *testing.T) {
	cases := map[string]string{
		"esdb://localhost:2113?tls=false":               "esdb://localhost:2113?tls=false",
		"esdb+discover://cluster.dns:2113":              "esdb+discover://cluster.dns:2113",
		"kurrentdb://admin:changeit@localhost:2113":     "esdb://admin:changeit@localhost:2113",
		"kurrentdb+discover://cluster.dns:2113":         "esdb+discover://cluster.dns:2113",
		"kurrent://localhost:2113,localhost:2114":       "esdb://localhost:2113,localhost:2114",
		"kurrent+discover://cluster.dns":                "esdb+discover://cluster.dns",
		"KurrentDB://localhost":                         "esdb://localhost",
		"ESDB://localhost":                              "esdb://localhost",
		"kurrentdb://u:p@ss@h:1?tlsVerifyCert=false&x=": "esdb://u:p@ss@h:1?tlsVerifyCert=false&x=",
	}
	for in, want := range cases {
		got, err := clientURL(in)
		if err != nil || got != want {
			t.Errorf("clientURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"localhost:2113", "postgres://h/db", "https://h", "s3cret@h"} {
		if _, err := clientURL(in); err == nil {
			t.Errorf("clientURL(%q) must fail", in)
		}
	}
	// A configuration parsed through the rewrite is the client's.
	conf, _, where, err := parseURL("kurrentdb://admin:changeit@node1:2113,node2:2113?tls=false")
	if err != nil {
		t.Fatal(err)
	}
	if len(conf.GossipSeeds) != 2 || !conf.DisableTLS || conf.Username != "admin" || conf.Password != "changeit" {
		t.Fatalf("parsed %+v", conf)
	}
	if where != "esdb://admin@node1:2113,node2:2113" {
		t.Fatalf("the store names its server as %q", where)
	}
}

func TestThePasswordIsScrubbedFromParseErrors(t *testing.T) {
	const pw = "s3cr3t-Pa55"
	for what, conn := range map[string]string{
		"a bad port":                   "kurrentdb://admin:" + pw + "@localhost:notaport",
		"a path the client refuses":    "esdb://admin:" + pw + "@localhost:2113/path",
		"an unescaped @ in it":         "esdb://admin:" + pw + "@x@localhost:2113:99",
		"an escaped password":          "esdb://admin:" + strings.ReplaceAll(pw, "-", "%2D") + "@host:bad",
		"a scheme that is not one":     "https://admin:" + pw + "@localhost:2113",
		"the password as the scheme":   pw + "://localhost",
		"a setting the client refuses": "esdb://admin:" + pw + "@localhost:2113?tls=maybe",
		"gossip seeds, one bad":        "esdb://admin:" + pw + "@h1:2113,h2:x",
	} {
		_, _, _, err := parseURL(conn)
		if err == nil {
			t.Errorf("%s: parseURL(%q) must fail", what, conn)
			continue
		}
		if strings.Contains(err.Error(), pw) || strings.Contains(fmt.Sprintf("%+v", err), pw) {
			t.Errorf("%s: the error shows the password: %v", what, err)
		}
		t.Logf("%s: %v", what, err)
	}
}

func TestSecretsCoverThePasswordsForms(t *testing.T) {
	s := secretsOf("esdb://admin:p%40ss w/rd@host:2113")
	for _, form := range []string{"p%40ss w/rd", "p@ss w/rd"} {
		if got := s.ScrubString("auth failed for " + form + "!"); strings.Contains(got, form) {
			t.Errorf("the form %q survives scrubbing: %q", form, got)
		}
	}
	if len(secretsOf("esdb://localhost:2113?tls=false")) != 0 {
		t.Errorf("a connection string without credentials has no secrets")
	}
	err := s.Scrub(fmt.Errorf("read: %w", &eventstore.WrongExpectedVersionError{Stream: "p@ss w/rd", Expected: 1, Actual: 2}))
	var wev *eventstore.WrongExpectedVersionError
	if strings.Contains(err.Error(), "p@ss w/rd") || !errors.As(err, &wev) || !errors.Is(err, eventstore.ErrWrongExpectedVersion) {
		t.Errorf("a scrubbed conflict is still a conflict and shows no secret: %v", err)
	}
}
