// Command relayer is the relayer's one binary. serve runs it: the HTTP API and the workers over
// the event store and the read models, driving the gateway chain (serve.go, stack.go; its
// configuration in serveconfig.go). Beside it are the tools: watch follows the live transitions;
// jobs finds jobs, prints their histories and cancels them; demo writes a simulated log; replay
// prints a job's timeline or the whole log; rebuild replays the log into the read models and
// reports; migrate copies a log to another store, or upgrades in place a store an earlier build
// wrote; archive verifies an archive of the log and prints a job from it; loadgen offers jobs to
// a running relayer and measures what its clients see; devchain runs the development chain on
// its own; and version prints the build.
//
// The command composes the packages' Configs and wires them; it owns no rule of its own. Its
// development chain (devchain, and the chain serve starts in process without a configured one)
// is in devchain_on.go, the only file that imports package devchain: built with -tags
// nodevchain, the binary links no go-ethereum node and refuses both (devchain_off.go).
//
// Every command answers -h and --help with its usage on stdout and exit status 0.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

const usage = `relayer: an event-sourced relayer for confidential-computation requests

Usage:
  relayer serve   [--listen ADDR] [--config FILE] ...      run the HTTP API over the event store
  relayer watch   [--url URL] [--kind K] [--status S] ...  follow the live transitions stream
  relayer jobs    list|show|cancel|retry [--url URL] ...   find jobs, print their histories, cancel or retry them
  relayer demo    [--data-dir DIR] [--jobs N] [--seed S]   write a simulated history of N jobs (all four take --store URL)
  relayer replay  --job ID [--json] [--data-dir DIR]       print one job's events as a timeline
  relayer replay  --all [--json] [--data-dir DIR]          stream the whole log, for audits
  relayer rebuild [--data-dir DIR] [--full]                replay the log into the read models
  relayer migrate --from URL --to URL                      copy a log to another store (resumable)
  relayer migrate --store URL                              upgrade a store an earlier build wrote, in place
  relayer archive verify|export --archive DIR|URL ...      check an archive, print an archived job
  relayer devchain [--http ADDR] [--ws ADDR] ...            run the development chain standalone
  relayer loadgen [--url URL] [--rate R] [--jobs N] ...    offer jobs and measure what three kinds of client see
  relayer version                                          print the build

relayer COMMAND -h (or --help) prints the command's flags; relayer serve -h also lists every
setting of its configuration, with its default and environment variable.

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

// subcommand is one of the words a command takes first (relayer jobs list, ...).
type subcommand struct {
	name string
	run  func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// runSubcommand runs the subcommand of cmd that args[0] names with the rest of args, prints
// usage for help, and refuses anything else with a usage error that names the choices.
func runSubcommand(ctx context.Context, cmd, usage string, subs []subcommand, args []string, stdout, stderr io.Writer) error {
	names := make([]string, len(subs))
	for i, s := range subs {
		names[i] = s.name
	}
	choices := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageErrorf("%s: say %s", cmd, choices)
	}
	for _, s := range subs {
		if args[0] == s.name {
			return s.run(ctx, args[1:], stdout, stderr)
		}
	}
	switch args[0] {
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	if strings.HasPrefix(args[0], "-") {
		return usageErrorf("flag provided but not defined: -%s (give %s first)", strings.TrimLeft(args[0], "-"), choices)
	}
	return usageErrorf("%s: unknown subcommand %q (%s)", cmd, args[0], choices)
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

// errHelpShown says that a command printed its usage because it was asked to (-h, --help): run
// then ends with exit status 0.
var errHelpShown = errors.New("help shown")

// newFlagSet returns a command's flags. Its usage, printed by -h and after a mistake, is usage
// (the command line and what it does) followed by the flags.
func newFlagSet(name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprint(fs.Output(), "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses a command's arguments with fs. -h or --help prints the usage on stdout, then
// what more writes (serve's list of settings: a mistake's usage stays short), and returns
// errHelpShown; a mistake prints the problem and the usage on stderr and returns a usage error
// (exit status 2).
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer, more ...func(io.Writer)) error {
	var out bytes.Buffer
	fs.SetOutput(&out)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		_, _ = stdout.Write(out.Bytes())
		for _, m := range more {
			m(stdout)
		}
		return errHelpShown
	case err != nil:
		_, _ = stderr.Write(out.Bytes())
		return &exitError{code: 2, err: err}
	}
	return nil
}

// parseFlagsOnly is parseFlags for a command that takes flags and nothing else: an argument left
// after them is a usage error that names it.
func parseFlagsOnly(fs *flag.FlagSet, args []string, stdout, stderr io.Writer, more ...func(io.Writer)) error {
	if err := parseFlags(fs, args, stdout, stderr, more...); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// run executes one command line; it is main without the process, so tests can call it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	err := runCommand(ctx, args, stdout, stderr)
	if errors.Is(err, errHelpShown) {
		return nil
	}
	return err
}

func runCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageErrorf("no command given")
	}
	switch args[0] {
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr)
	case "watch":
		return runWatch(ctx, args[1:], stdout, stderr)
	case "jobs":
		return runJobs(ctx, args[1:], stdout, stderr)
	case "demo":
		return runDemo(ctx, args[1:], stdout, stderr)
	case "replay":
		return runReplay(ctx, args[1:], stdout, stderr)
	case "rebuild":
		return runRebuild(ctx, args[1:], stdout, stderr)
	case "migrate":
		return runMigrate(ctx, args[1:], stdout, stderr)
	case "archive":
		return runArchive(ctx, args[1:], stdout, stderr)
	case "devchain":
		return runDevchain(ctx, args[1:], stdout, stderr)
	case "loadgen":
		return runLoadgen(ctx, args[1:], stdout, stderr)
	case "version", "--version":
		return runVersion(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return usageErrorf("unknown command %q", args[0])
	}
}
