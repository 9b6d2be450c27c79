package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"

	msqlite "modernc.org/sqlite"

	"relayer/eventstore/internal/columns"
)

// Reading the log through database/sql costs, for every row, a trip through the driver's Next
// and Scan: two or three calls into SQLite per column, each taking the connection's mutex, and
// a Go allocation for every text, blob and large integer. That is most of what a replay spends
// in the store. ReadAll and SubscribeAll avoid it: their page query hands every row of the page
// to pageFunction, an aggregate SQL function written in Go, which gets all nine columns of a row
// in one call (values SQLite already holds, without the per-column API calls) and appends the
// decoded record to the page of the read that runs the query. The query itself then returns a
// single row.
//
// The function is registered on a driver of the store's own (newReadDriver), not on the driver
// modernc.org/sqlite registers for everyone, so no other connection in the process sees it.

// pageFunction is the name of the aggregate. Its first argument is the token of the read whose
// page it fills (see readRegistry); the others are the row's columns, in columns.List's order.
const pageFunction = `relayer_eventstore_page`

// newReadDriver is a driver of one store's own with pageFunction registered on it, looking its
// reads up in reg: nothing of it is shared between stores, or with the process.
func newReadDriver(reg *readRegistry) *msqlite.Driver {
	d := &msqlite.Driver{}
	d.MustRegisterFunction(pageFunction, &msqlite.FunctionImpl{
		NArgs: 1 + columns.Count,
		// Text and blob arguments are views of SQLite's memory, valid during the call only:
		// Step copies what it keeps (see scanner.own), so no value is copied twice.
		VolatileArgs:  true,
		MakeAggregate: func(msqlite.FunctionContext) (msqlite.AggregateFunction, error) { return &pageAggregate{reg: reg}, nil },
	})
	return d
}

// readConnector opens a store's read connections with its own driver.
type readConnector struct {
	dsn string
	d   *msqlite.Driver
}

func (c readConnector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }
func (c readConnector) Driver() driver.Driver                        { return c.d }

// readRegistry maps the tokens that a store's page queries pass to pageFunction to the scanners
// of their reads.
type readRegistry struct {
	mu   sync.Mutex
	next int64
	m    map[int64]*scanner
}

func newReadRegistry() *readRegistry { return &readRegistry{m: map[int64]*scanner{}} }

// register gives sc a token for its page queries; release takes it back.
func (r *readRegistry) register(sc *scanner) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	sc.token = r.next
	r.m[sc.token] = sc
}

func (r *readRegistry) release(sc *scanner) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, sc.token)
}

func (r *readRegistry) lookup(token int64) *scanner {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[token]
}

// errNotPaging reports a call of pageFunction outside a page query of this store.
var errNotPaging = errors.New(pageFunction + ": no page is being read with this token")

// pageAggregate is one evaluation of pageFunction: one page query.
type pageAggregate struct {
	reg *readRegistry
	sc  *scanner
}

// Step takes one row. Rows come in the order of the page query's ORDER BY; Step checks it, so
// that a query plan that did otherwise would fail the read rather than reorder the log.
func (a *pageAggregate) Step(_ *msqlite.FunctionContext, args []driver.Value) error {
	if a.sc == nil {
		token, _ := args[0].(int64)
		sc := a.reg.lookup(token)
		if sc == nil || sc.page == nil {
			return errNotPaging
		}
		a.sc = sc
		// A query that database/sql runs again (on a fresh connection) starts the page again.
		sc.page.Rows = sc.page.Rows[:0]
	}
	sc := a.sc
	for i := range sc.cols {
		sc.cols[i].set(args[1+i])
	}
	sc.own()
	p := sc.page
	r := p.Add()
	r.Err = sc.decode(&r.Rec)
	if n := len(p.Rows); n > 1 && r.Rec.Position <= p.Rows[n-2].Rec.Position {
		return fmt.Errorf("%s: position %d came after %d: rows out of order", pageFunction, r.Rec.Position, p.Rows[n-2].Rec.Position)
	}
	return nil
}

func (a *pageAggregate) WindowInverse(*msqlite.FunctionContext, []driver.Value) error {
	return errors.New(pageFunction + " is not a window function")
}

// WindowValue returns the number of rows the page holds (the query's one result).
func (a *pageAggregate) WindowValue(*msqlite.FunctionContext) (driver.Value, error) {
	if a.sc == nil || a.sc.page == nil {
		return int64(0), nil
	}
	return int64(len(a.sc.page.Rows)), nil
}

func (a *pageAggregate) Final(*msqlite.FunctionContext) {}
