// Package pgtest gives tests and benchmarks outside eventstore/postgres a PostgreSQL store
// location of their own: a fresh schema in the machine's database, dropped when the test ends.
package pgtest

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultURL is the database the tests use without RELAYER_TEST_POSTGRES_URL: the machine's
// PostgreSQL with trust authentication.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// Hint says how to start a PostgreSQL the tests can use.
const Hint = "start one: docker run --rm -d -p 5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust -e POSTGRES_DB=test postgres:17, or set RELAYER_TEST_POSTGRES_URL"

// URL returns a store URL (RELAYER_TEST_POSTGRES_URL, else DefaultURL) whose search_path is a
// new schema named after prefix and random bytes, dropped with everything in it when tb ends.
// Without a reachable database tb skips, or fails when CI=true.
func URL(tb testing.TB, prefix string) string {
	tb.Helper()
	base := os.Getenv("RELAYER_TEST_POSTGRES_URL")
	base = cmp.Or(base, DefaultURL)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		msg := "no PostgreSQL reachable for the tests (" + Hint + ")"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := prefix + "_" + hex.EncodeToString(b)
	tb.Cleanup(func() {
		_, _ = conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
		_ = conn.Close(context.Background())
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
