// Command relayer is the relayer's one binary. Until the server lands it offers the tools that
// work on the event log (demo: write a simulated log; replay: print a job's timeline or the whole
// log; rebuild: replay everything into the read models and report) and the development chain.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `relayer: an event-sourced relayer for confidential-computation requests

Usage:
  relayer serve   [--listen ADDR] [--config FILE] ...      run the HTTP API over the event store
  relayer watch   [--url URL] [--kind K] [--status S] ...  follow the live transitions stream
  relayer demo    [--data-dir DIR] [--jobs N] [--seed S]   write a simulated history of N jobs (all four take --store URL)
  relayer replay  --job ID [--json] [--data-dir DIR]       print one job's events as a timeline
  relayer replay  --all [--json] [--data-dir DIR]          stream the whole log, for audits
  relayer rebuild [--data-dir DIR] [--full]                replay the log into the read models
  relayer migrate --from URL --to URL                      copy a log to another store (resumable)
  relayer devchain [--http ADDR] [--ws ADDR] ...            run the development chain standalone
  relayer loadgen [--url URL] [--rate R] [--jobs N] ...    offer jobs and measure what three kinds of client see
  relayer version                                          print the build

The event store is the SQLite file relayer.db in --data-dir (default ./data), or the store
--store URL (or RELAYER_STORE) names: sqlite:PATH, postgres://user@host/db?search_path=schema
or kurrentdb://user@host:2113.
`

// exitError carries a process exit code with the message to print.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErrorf is a mistake in how the command was called (exit 2).
func usageErrorf(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "relayer:", err)
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}

// run executes one command line; it is main without the process, so tests can call it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageErrorf("no command given")
	}
	switch args[0] {
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr)
	case "watch":
		return runWatch(ctx, args[1:], stdout, stderr)
	case "demo":
		return runDemo(ctx, args[1:], stdout, stderr)
	case "replay":
		return runReplay(ctx, args[1:], stdout, stderr)
	case "rebuild":
		return runRebuild(ctx, args[1:], stdout, stderr)
	case "migrate":
		return runMigrate(ctx, args[1:], stdout, stderr)
	case "devchain":
		return runDevchain(ctx, args[1:], stdout, stderr)
	case "loadgen":
		return runLoadgen(ctx, args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, versionString())
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return usageErrorf("unknown command %q", args[0])
	}
}
