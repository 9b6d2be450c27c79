package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"relayer/eventstore"
	"relayer/eventstore/internal/columns"
	"relayer/eventstore/internal/groupcommit"
	"relayer/eventstore/internal/groupcommit/committest"
	"relayer/eventstore/storetest"
	"relayer/internal/syncbuf"
)

// envURL names the database the tests use; defaultURL is the one they try without it.
const (
	envURL     = "RELAYER_TEST_POSTGRES_URL"
	defaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
)

// startHint says how to give the tests a database.
const startHint = `start one with
	docker run --rm -d -p 5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust -e POSTGRES_DB=test postgres:17
or point ` + envURL + ` at a database the tests may create schemas in`

func testURL() string {
	if u := os.Getenv(envURL); u != "" {
		return u
	}
	return defaultURL
}

// reachable connects to the test database once per test binary.
var reachable = sync.OnceValue(func() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, testURL())
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return conn.Ping(ctx)
})

// requireDB skips the test when PostgreSQL is not reachable, or fails it under CI=true, where
// a skipped backend would pass unseen.
func requireDB(t testing.TB) {
	t.Helper()
	err := reachable()
	if err == nil {
		return
	}
	if cfg, perr := pgx.ParseConfig(testURL()); perr == nil {
		err = secretsOf(cfg).Scrub(err)
	}
	msg := fmt.Sprintf("PostgreSQL at %s is not reachable (%v);\n%s", redactedURL(testURL()), err, startHint)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// newSchema returns the name of a schema no other test uses, dropped when the test ends.
func newSchema(t testing.TB) string {
	t.Helper()
	requireDB(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "storetest_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, testURL())
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return schema
}

// withSchema returns the test database's URL naming schema in its search_path.
func withSchema(conn, schema string) string {
	u, err := url.Parse(conn)
	if err != nil || u.Scheme == "" {
		return conn + " search_path=" + schema // a keyword/value connection string
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// opener reaches stores in fresh schemas of the test database, with the default config.
func opener() storetest.Opener {
	return storetest.Opener{
		New: func(t testing.TB) string { return withSchema(testURL(), newSchema(t)) },
		Open: func(loc string) (eventstore.Store, error) {
			return Open(context.Background(), loc, Config{})
		},
		OpenWithCommitDelay: func(loc string, delay func()) (eventstore.Store, error) {
			return open(context.Background(), loc, Config{}, hooks{beforeCommit: delay})
		},
	}
}

func TestMain(m *testing.M) {
	storetest.HelperProcess(opener())
	os.Exit(m.Run())
}

func TestConformance(t *testing.T) {
	requireDB(t)
	storetest.Run(t, opener(), storetest.Features{CrossProcessDurability: true, SharedLocation: true})
}

// TestConformanceSmallPagesAndBatches runs the suite again with tiny pages and batches, so that
// paging and batch boundaries fall everywhere.
func TestConformanceSmallPagesAndBatches(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	requireDB(t)
	small := storetest.Opener{
		New: opener().New,
		Open: func(loc string) (eventstore.Store, error) {
			return Open(context.Background(), loc, Config{PageSize: 7, MaxBatch: 3, MaxReaders: 2, PollInterval: 50 * time.Millisecond})
		},
	}
	storetest.Run(t, small, storetest.Features{SharedLocation: true})
}

func newStore(t *testing.T, cfg Config) (*Store, string) {
	t.Helper()
	loc := withSchema(testURL(), newSchema(t))
	s, err := Open(t.Context(), loc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, loc
}

// rawConn connects to the test database with a plain connection, to look at or damage a store
// as another program could.
func rawConn(t *testing.T) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), testURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func exec(t *testing.T, conn *pgx.Conn, query string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(t.Context(), query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Fatalf("the zero Config is valid: %v", err)
	}
	bad := []struct {
		field string
		cfg   Config
	}{
		{"Schema", Config{Schema: strings.Repeat("s", 64)}},
		{"Schema", Config{Schema: "a\x00b"}},
		{"MaxBatch", Config{MaxBatch: -1}},
		{"MaxBatch", Config{MaxBatch: 1 << 20}},
		{"MaxReaders", Config{MaxReaders: -1}},
		{"PageSize", Config{PageSize: -5}},
		{"PollInterval", Config{PollInterval: -time.Millisecond}},
	}
	for _, b := range bad {
		err := b.cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), b.field) {
			t.Errorf("Validate(%+v) must name %s; got %v", b.cfg, b.field, err)
		}
		if _, err := Open(t.Context(), defaultURL, b.cfg); err == nil {
			t.Errorf("Open with %+v must fail", b.cfg)
		}
	}
	cfg := Config{}
	cfg.setDefaults("")
	if cfg.Schema != DefaultSchema || cfg.MaxBatch != DefaultMaxBatch || cfg.MaxReaders != DefaultMaxReaders ||
		cfg.PageSize != DefaultPageSize || cfg.PollInterval != DefaultPollInterval || cfg.Logger == nil {
		t.Fatalf("setDefaults fills every zero field: %+v", cfg)
	}
}

func TestSchemaComesFromConfigThenSearchPath(t *testing.T) {
	cases := []struct{ config, searchPath, want string }{
		{"", "", DefaultSchema},
		{"", "relayer", "relayer"},
		{"", "Relayer", "relayer"},
		{"", `"Mixed Case"`, "Mixed Case"},
		{"", "a,b", DefaultSchema},
		{"", "$user", DefaultSchema},
		{"mine", "relayer", "mine"},
	}
	for _, c := range cases {
		cfg := Config{Schema: c.config}
		cfg.setDefaults(c.searchPath)
		if cfg.Schema != c.want {
			t.Errorf("Schema %q with search_path %q gives schema %q, want %q", c.config, c.searchPath, cfg.Schema, c.want)
		}
	}
}

func TestTwoStoresInOneProcessKeepTheirSchemasApart(t *testing.T) {
	ctx := t.Context()
	a, _ := newStore(t, Config{})
	b, _ := newStore(t, Config{})
	if _, err := a.Append(ctx, "s", eventstore.NoStream, committest.Event(0), committest.Event(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Append(ctx, "s", eventstore.NoStream, committest.Event(0)); err != nil {
		t.Fatalf("a stream of another schema does not exist here: %v", err)
	}
	if ha, hb := mustHead(t, a), mustHead(t, b); ha != 2 || hb != 1 {
		t.Fatalf("each store has its own log: heads %d and %d, want 2 and 1", ha, hb)
	}
}

func mustHead(t *testing.T, s *Store) eventstore.Position {
	t.Helper()
	h, err := s.Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestOpeningAtOnceMigratesOnce(t *testing.T) {
	loc := withSchema(testURL(), newSchema(t))
	const stores = 6
	errs := make(chan error, stores)
	opened := make(chan *Store, stores)
	var wg sync.WaitGroup
	for range stores {
		wg.Go(func() {
			s, err := Open(t.Context(), loc, Config{})
			if err != nil {
				errs <- err
				return
			}
			opened <- s
		})
	}
	wg.Wait()
	close(errs)
	close(opened)
	for s := range opened {
		defer s.Close()
	}
	for err := range errs {
		t.Fatalf("stores opening a new schema at once all succeed: %v", err)
	}
	var steps int
	conn := rawConn(t)
	schema := schemaFromSearchPath(mustParse(t, loc).Query().Get("search_path"))
	if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM `+pgx.Identifier{schema, "store_migrations"}.Sanitize()).Scan(&steps); err != nil || steps != len(migrations(schema)) {
		t.Fatalf("each migration step is recorded once; got %d rows (%v), want %d", steps, err, len(migrations(schema)))
	}
}

func mustParse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Existing (the commands that only read) refuses a schema that holds no store and creates
// nothing: a mistyped schema was created, and read as an empty log (found by an outside probe).
func TestExistingRefusesASchemaWithoutAStoreAndCreatesNothing(t *testing.T) {
	schema := newSchema(t)
	loc := withSchema(testURL(), schema)
	exists := func() bool {
		var ok bool
		if err := rawConn(t).QueryRow(t.Context(), `SELECT to_regnamespace($1) IS NOT NULL`, pgx.Identifier{schema}.Sanitize()).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if _, err := Open(t.Context(), loc, Config{Existing: true}); !errors.Is(err, ErrNoStore) || !strings.Contains(err.Error(), schema) {
		t.Fatalf("Open with Existing on a missing schema: %v, want ErrNoStore naming the schema", err)
	}
	if exists() {
		t.Fatal("Open with Existing created the schema")
	}
	exec(t, rawConn(t), `CREATE SCHEMA `+pgx.Identifier{schema}.Sanitize())
	if _, err := Open(t.Context(), loc, Config{Existing: true}); !errors.Is(err, ErrNoStore) {
		t.Fatalf("Open with Existing on an empty schema: %v, want ErrNoStore", err)
	}
	s, err := Open(t.Context(), loc, Config{}) // creates the store
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(t.Context(), loc, Config{Existing: true})
	if err != nil {
		t.Fatalf("Open with Existing on a store: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestNewerFormatIsRefused(t *testing.T) {
	s, loc := newStore(t, Config{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	exec(t, rawConn(t), `INSERT INTO `+pgx.Identifier{s.Schema(), "store_migrations"}.Sanitize()+` (version) VALUES (99)`)
	_, err := Open(t.Context(), loc, Config{})
	if err == nil || !strings.Contains(err.Error(), "format version 99 is newer") || !strings.Contains(err.Error(), s.Schema()) {
		t.Fatalf("Open refuses a newer format, naming the schema; got %v", err)
	}
}

func TestTimesAreUTCAndNanosecondExact(t *testing.T) {
	ctx := t.Context()
	s, _ := newStore(t, Config{})
	given := time.Date(2031, 5, 6, 7, 8, 9, 123456789, time.FixedZone("X", -7*3600))
	e := committest.Event(0)
	e.Metadata = eventstore.Metadata{RecordedAt: given, CorrelationID: "corr ✓", CausationID: "cause"}
	before := time.Now()
	if _, err := s.Append(ctx, "s", eventstore.NoStream, e, committest.Event(1)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for r, err := range s.ReadStream(ctx, "s", 0) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if r.Metadata.RecordedAt.Location() != time.UTC {
			t.Fatalf("recorded-at comes back in UTC; got %s", r.Metadata.RecordedAt.Location())
		}
		switch r.Version {
		case 0:
			if !r.Metadata.RecordedAt.Equal(given) || r.Metadata.CorrelationID != "corr ✓" || r.Metadata.CausationID != "cause" {
				t.Fatalf("metadata comes back exactly, recorded-at to the nanosecond; got %+v, want %+v", r.Metadata, e.Metadata)
			}
		case 1:
			// The server's clock sets it: allow for it not being this process's clock.
			if at := r.Metadata.RecordedAt; at.Before(before.Add(-5*time.Second)) || at.After(time.Now().Add(5*time.Second)) {
				t.Fatalf("a zero recorded-at is set at commit; got %s", at)
			}
			if r.Metadata.CorrelationID != "" || r.Metadata.CausationID != "" {
				t.Fatalf("empty ids come back empty; got %+v", r.Metadata)
			}
		}
	}
	if n != 2 {
		t.Fatalf("want 2 events, got %d", n)
	}
	e.Metadata.RecordedAt = time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := s.Append(ctx, "s", 1, e); !errors.Is(err, eventstore.ErrInvalidEvent) {
		t.Fatalf("a recorded-at this store cannot keep is an invalid event; got %v", err)
	}
}

func TestDataIsKeptByteForByte(t *testing.T) {
	ctx := t.Context()
	s, _ := newStore(t, Config{})
	data := `{ "b" : 1,   "a":[1,2 ,3], "a":"duplicate key", "u":"\u00e9\ud83d\ude00" }`
	if _, err := s.Append(ctx, "s", eventstore.NoStream, eventstore.Event{Type: "e", SchemaVersion: 1, Data: []byte(data)}); err != nil {
		t.Fatal(err)
	}
	for r, err := range s.ReadAll(ctx, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if string(r.Data) != data {
			t.Fatalf("data comes back as given, spaces, key order and escapes included; got %s", r.Data)
		}
	}
}

func TestTextPostgreSQLCannotHoldIsAnInvalidEvent(t *testing.T) {
	ctx := t.Context()
	s, _ := newStore(t, Config{})
	bad := []struct {
		name   string
		stream string
		event  eventstore.Event
	}{
		{"NUL in the stream name", "a\x00b", committest.Event(0)},
		{"stream name not UTF-8", "bad\xffutf8", committest.Event(0)},
		{"NUL in the type", "s", eventstore.Event{Type: "e\x00", SchemaVersion: 1, Data: []byte(`{}`)}},
		{"data not UTF-8", "s", eventstore.Event{Type: "e", SchemaVersion: 1, Data: []byte("\"\xff\"")}},
		{"NUL in a correlation id", "s", eventstore.Event{Type: "e", SchemaVersion: 1, Data: []byte(`{}`), Metadata: eventstore.Metadata{CorrelationID: "\x00"}}},
		{"schema version beyond an integer", "s", eventstore.Event{Type: "e", SchemaVersion: 1 << 40, Data: []byte(`{}`)}},
	}
	for _, b := range bad {
		if _, err := s.Append(ctx, b.stream, eventstore.Any, b.event); !errors.Is(err, eventstore.ErrInvalidEvent) {
			t.Errorf("an append with %s is an invalid event; got %v", b.name, err)
		}
	}
	if h := mustHead(t, s); h != 0 {
		t.Fatalf("rejected appends write nothing; head is %d", h)
	}
}

func TestAppendsAreDurableEvenWhenTheDatabaseSaysOtherwise(t *testing.T) {
	// A role whose sessions default to synchronous_commit=off would make acknowledged appends
	// losable in a crash of the server; the writer turns it back on for its own session.
	u := mustParse(t, withSchema(testURL(), newSchema(t)))
	q := u.Query()
	q.Set("synchronous_commit", "off")
	u.RawQuery = q.Encode()
	s, err := Open(t.Context(), u.String(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var setting string
	if err := s.w.conn.QueryRow(t.Context(), `SHOW synchronous_commit`).Scan(&setting); err != nil || setting != "on" {
		t.Fatalf("the write session commits synchronously; synchronous_commit is %q (%v)", setting, err)
	}
}

// batchWriter opens a store whose writer goroutine is not running, so that a test can hand the
// writer batches.
func batchWriter(t *testing.T) (*writer, *Store) {
	t.Helper()
	s, _ := newStore(t, Config{})
	// A second writer on the store's schema, with a connection of its own; the store's writer
	// stays idle.
	w, err := openWriter(t.Context(), s.w.connCfg, s.Schema(), true, s.sql, DefaultMaxBatch, func() {}, nil, hooks{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.stop() })
	return w, s
}

func TestBatchChecksEachAppendAgainstItsOwnVersion(t *testing.T) {
	w, _ := batchWriter(t)
	committest.EachAppendAgainstItsOwnVersion(t, w.commit)
}

func TestOneFailingInsertDoesNotFailTheBatch(t *testing.T) {
	w, s := batchWriter(t)
	conn := rawConn(t)
	events := pgx.Identifier{s.Schema(), "events"}.Sanitize()
	fn := pgx.Identifier{s.Schema(), "poison"}.Sanitize()
	exec(t, conn, `CREATE FUNCTION `+fn+`() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.stream = 'poison' THEN RAISE EXCEPTION 'poisoned'; END IF;
			RETURN NEW;
		END $$`)
	exec(t, conn, `CREATE TRIGGER poison BEFORE INSERT ON `+events+` FOR EACH ROW EXECUTE FUNCTION `+fn+`()`)
	committest.OneFailingAppend(t, w.commit, func() (n, maxPos int64, err error) {
		err = conn.QueryRow(t.Context(), `SELECT count(*), max(position) FROM `+events).Scan(&n, &maxPos)
		return n, maxPos, err
	})
}

func TestAVersionTakenBehindTheLocksBackIsAVersionConflict(t *testing.T) {
	w, s := batchWriter(t)
	ctx := t.Context()
	// Another program inserts s@0 without the append lock and commits only once the writer's
	// insert of s@0 waits for it on the unique index.
	foreign, err := rawConn(t).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer foreign.Rollback(context.Background())
	if _, err := foreign.Exec(ctx, `INSERT INTO `+pgx.Identifier{s.Schema(), "events"}.Sanitize()+` (`+columns.List+`) VALUES (100, 's', 0, 'e', 1, '{}', NULL, NULL, 0)`); err != nil {
		t.Fatal(err)
	}
	r := committest.Request("s", eventstore.NoStream, committest.Event(0))
	go w.commit([]*groupcommit.Req{r})
	time.Sleep(200 * time.Millisecond)
	if err := foreign.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	<-r.Done()
	var wev *eventstore.WrongExpectedVersionError
	if !errors.As(r.Err, &wev) || wev.Stream != "s" || wev.Expected != eventstore.NoStream || wev.Actual != 0 {
		t.Fatalf("an append whose version another writer took is a version conflict naming the actual version; got %v", r.Err)
	}
}

func TestWriterReconnectsAfterItsConnectionDies(t *testing.T) {
	ctx := t.Context()
	s, _ := newStore(t, Config{})
	if _, err := s.Append(ctx, "s", eventstore.NoStream, committest.Event(0)); err != nil {
		t.Fatal(err)
	}
	// Kill the writer's session from outside, as a server restart or a network cut would.
	exec(t, rawConn(t), `SELECT pg_terminate_backend($1)`, s.w.conn.PgConn().PID())
	time.Sleep(50 * time.Millisecond)
	if _, err := s.Append(ctx, "s", 0, committest.Event(1)); err != nil {
		t.Fatalf("the first append after the write connection died succeeds on a new one; got %v", err)
	}
	if h := mustHead(t, s); h != 2 {
		t.Fatalf("want head 2, got %d", h)
	}
}

func TestSubscriberIsWokenByOtherStoresCommits(t *testing.T) {
	ctx := t.Context()
	// a polls once an hour: only a notification can wake its subscriber in time.
	a, loc := newStore(t, Config{PollInterval: time.Hour})
	b, err := Open(ctx, loc, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	subCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	got := make(chan eventstore.Record)
	go func() {
		for r, err := range a.SubscribeAll(subCtx, 0) {
			if err != nil {
				return
			}
			got <- r
		}
	}()
	for v := range eventstore.Version(3) {
		time.Sleep(20 * time.Millisecond) // let the subscriber wait
		if _, err := b.Append(ctx, "s", v-1, committest.Event(int(v))); err != nil {
			t.Fatal(err)
		}
		select {
		case r := <-got:
			if r.Version != v {
				t.Fatalf("want s@%d, got %s@%d", v, r.Stream, r.Version)
			}
		case <-subCtx.Done():
			t.Fatal("a subscriber sees another store's append through LISTEN/NOTIFY, without polling")
		}
	}
}

// syncBuffer is a bytes.Buffer that a logger may write to while a test reads it.
type syncBuffer = syncbuf.Buffer

func TestListenerReconnectsAndWakesSubscribers(t *testing.T) {
	ctx := t.Context()
	// A password in the URL (the test database trusts its clients and ignores it) must not
	// reach the log.
	const password = "l0g-s3cret"
	u := mustParse(t, withSchema(testURL(), newSchema(t)))
	u.User = url.UserPassword(u.User.Username(), password)
	var logs syncBuffer
	s, err := Open(ctx, u.String(), Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Skipf("the test database does not accept a password it ignores: %v", err)
	}
	defer s.Close()
	wakes := make(chan struct{}, 100)
	l := newListener(s.w.connCfg, s.w.channel, s)
	l.retry = 20 * time.Millisecond
	l.wake = func() { wakes <- struct{}{} }
	if err := l.start(ctx); err != nil {
		t.Fatal(err)
	}
	defer l.stop()
	awaitWake := func(why string) {
		t.Helper()
		select {
		case <-wakes:
		case <-time.After(10 * time.Second):
			t.Fatalf("the listener wakes subscribers %s", why)
		}
	}
	if _, err := s.Append(ctx, "s", eventstore.NoStream, committest.Event(0)); err != nil {
		t.Fatal(err)
	}
	awaitWake("on a commit")

	// Cut the listening connection, as a server restart or a network cut would.
	exec(t, rawConn(t), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1`, `LISTEN `+pgx.Identifier{s.w.channel}.Sanitize())
	awaitWake("when the connection is lost")
	awaitWake("once listening again")
	for len(wakes) > 0 {
		<-wakes // notifications that came in meanwhile
	}
	if _, err := s.Append(ctx, "s", 0, committest.Event(1)); err != nil {
		t.Fatal(err)
	}
	awaitWake("on a commit after reconnecting")
	if got := logs.String(); !strings.Contains(got, "lost the connection that listens") || !strings.Contains(got, "listening for appends from other processes again") {
		t.Fatalf("the listener logs losing and regaining its connection; the log holds:\n%s", got)
	}
	l.stop()
	s.Close()
	if got := logs.String(); strings.Contains(got, password) {
		t.Fatalf("the log shows the password:\n%s", got)
	}
}

func TestThePasswordNeverShows(t *testing.T) {
	requireDB(t)
	const password = "s3cr3t-Pa55word"
	ctx := t.Context()
	u := mustParse(t, testURL())
	u.User = url.UserPassword("no_such_user_for_relayer_tests", password)
	wrongUser := u.String()
	u.User = url.UserPassword("postgres", password)
	u.Host = "127.0.0.1:1" // nothing listens there
	nowhere := u.String()
	for what, conn := range map[string]string{
		"an unknown user":                        wrongUser,
		"an unreachable server":                  nowhere,
		"an unparsable URL":                      "postgres://postgres:" + password + "@127.0.0.1:5432/test?sslmode=nonsense&connect_timeout=x",
		"a keyword/value string that fails":      "host=127.0.0.1 port=1 user=postgres password=" + password + " dbname=test",
		"a URL with the password as a parameter": "postgres://127.0.0.1:1/test?user=postgres&password=" + password,
	} {
		_, err := Open(ctx, conn, Config{})
		if err == nil {
			t.Fatalf("Open with %s must fail", what)
		}
		if strings.Contains(err.Error(), password) || strings.Contains(fmt.Sprintf("%+v", err), password) {
			t.Errorf("the error of Open with %s shows the password: %v", what, err)
		}
		t.Logf("%s: %v", what, err)
	}

	// Errors from a store that is open: a password the server accepts (trust) shows in no error
	// either.
	u = mustParse(t, withSchema(testURL(), newSchema(t)))
	u.User = url.UserPassword(u.User.Username(), password)
	s, err := Open(ctx, u.String(), Config{})
	if err != nil {
		if strings.Contains(err.Error(), password) {
			t.Fatalf("the error shows the password: %v", err)
		}
		t.Skipf("the test database does not accept a password it ignores: %v", err)
	}
	defer s.Close()
	leak := fmt.Errorf("query failed for postgres://postgres:%s@host: %w", password, context.Canceled)
	scrubbed := s.secrets.Scrub(leak)
	if strings.Contains(scrubbed.Error(), password) || !errors.Is(scrubbed, context.Canceled) {
		t.Fatalf("a driver error that shows the password is scrubbed and still matches what it wraps; got %v", scrubbed)
	}
	conflict := s.secrets.Scrub(fmt.Errorf("append: %w", &eventstore.WrongExpectedVersionError{Stream: "named-" + password, Expected: 0, Actual: 1}))
	var wev *eventstore.WrongExpectedVersionError
	if strings.Contains(conflict.Error(), password) || !errors.As(conflict, &wev) || !errors.Is(conflict, eventstore.ErrWrongExpectedVersion) {
		t.Fatalf("a version conflict whose message shows the password is scrubbed and still a version conflict; got %v", conflict)
	}
	if strings.Contains(s.where, password) {
		t.Fatalf("the store's description shows the password: %s", s.where)
	}
}

func TestRedactedURL(t *testing.T) {
	cases := map[string]string{
		"postgres://u:pw@h:5432/db?password=pw&sslmode=disable": "postgres://u@h:5432/db",
		"postgresql://h/db":       "postgresql://h/db",
		"host=h password=pw":      "(connection string withheld)",
		"postgres://u:p%40w@h/db": "postgres://u@h/db",
	}
	for in, want := range cases {
		if got := redactedURL(in); got != want {
			t.Errorf("redactedURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// PostgreSQL's disk_full (SQLSTATE 53100) reaches the caller as eventstore.ErrStorageFull, which
// the relayer answers with 503 and waits out; other errors do not.
func TestADiskFullErrorIsErrStorageFull(t *testing.T) {
	for code, want := range map[string]bool{diskFull: true, uniqueViolation: false, "53200": false} {
		err := storageFull(fmt.Errorf("commit: %w", &pgconn.PgError{Code: code, Severity: "ERROR", Message: "could not extend file"}))
		if got := errors.Is(err, eventstore.ErrStorageFull); got != want {
			t.Errorf("SQLSTATE %s: ErrStorageFull %v, want %v (%v)", code, got, want, err)
		}
	}
}
