package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers"
	"relayer/workers/lease"
	"relayer/workers/upstream"
)

// serveEnviron is the environment serve reads its RELAYER_* settings from (tests replace it).
var serveEnviron = os.Environ

const serveUsage = `Usage: relayer serve [--listen ADDR] [--data-dir DIR | --store URL] [--config FILE] [--admin-token TOKEN]
                     [--devchain-rpc ADDR]

Runs the relayer until SIGINT or SIGTERM: the HTTP API over the event store and its read models,
and the workers that drive every job to the gateway chain. Without chain.rpc_url it runs the
development chain in process (chain id 1337, development keys and timeouts). relayer serve -h
lists every setting, with its default, environment variable and meaning.
`

// runServe is `relayer serve`: the HTTP API and the workers over the event store (relayer.db in
// --data-dir, or the store a URL names) and the projections, on the gateway chain the
// configuration names or the development chain in process, until ctx ends (SIGINT or SIGTERM).
// It then shuts down gracefully: the server stops accepting and lets requests in flight finish
// (http.shutdown_timeout at most), the workers and the rate-limit recorder stop, serve prints the
// read models' digest (which relayer rebuild reproduces), the projections stop, the store closes.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", serveUsage)
	listen := fs.String("listen", "127.0.0.1:8080", "listen on `ADDR`, a host:port (env RELAYER_LISTEN); 127.0.0.1:0 takes any free port")
	dataDir := fs.String("data-dir", "./data", "the event store is the SQLite file `DIR`/relayer.db when no store URL is given (env RELAYER_DATA_DIR)")
	storeURL := fs.String("store", "", "the event store's `URL` (env RELAYER_STORE): sqlite:PATH, postgres://... or kurrentdb://...; default: relayer.db in --data-dir")
	configFile := fs.String("config", "", "the YAML configuration `FILE` (env RELAYER_CONFIG); relayer serve -h lists its settings")
	adminToken := fs.String("admin-token", "", "the admin API's bearer `TOKEN` (env RELAYER_ADMIN_TOKEN, preferred: a flag is visible to other users); without one the admin API is off")
	devRPC := fs.String("devchain-rpc", "", "serve the development chain's JSON-RPC over HTTP on `ADDR`, a loopback host:port (env RELAYER_DEVCHAIN_RPC_LISTEN), for the public SDK's network setting")
	if err := parseFlagsOnly(fs, args, stdout, stderr, writeSettingsHelp); err != nil {
		return err
	}
	env := serveEnviron()
	flags := map[string]string{}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "listen":
			flags["listen"] = *listen
		case "data-dir":
			flags["data_dir"] = *dataDir
		case "store":
			flags["store"] = *storeURL
		case "admin-token":
			flags["admin_token"] = *adminToken
		case "devchain-rpc":
			flags["devchain.rpc_listen"] = *devRPC
		}
	})
	file := *configFile
	if file == "" {
		file = lookupEnv(env, envPrefix+"CONFIG")
	}
	settings, warnings, err := loadServeConfig(configSources{file: file, env: env, flags: flags})
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("serve: %w", err)}
	}

	opts := &slog.HandlerOptions{Level: settings.LogLevel}
	var handler slog.Handler = slog.NewTextHandler(stderr, opts)
	if settings.LogJSON {
		handler = slog.NewJSONHandler(stderr, opts)
	}
	log := slog.New(handler)
	for _, w := range warnings {
		log.Warn(w)
	}

	// A taken port, and one serve per store, are found before anything starts: the port first,
	// so that a serve refused for it leaves no store behind (it created an empty one).
	ln, err := net.Listen("tcp", settings.Listen)
	if err != nil {
		if holder := storeHolder(settings.Store); holder != "" {
			// Most likely the same serve, started twice: name it, as the store's lock would.
			err = fmt.Errorf("%w; the event store %s is in use by %s too", err, settings.Store, holder)
		}
		return &exitError{code: 1, err: fmt.Errorf("serve: listen on %s: %w", settings.Listen, err)}
	}
	defer ln.Close()
	who := "relayer serve"
	if settings.Workers.Fleet.Enabled {
		who = "relayer serve (fleet)"
	}
	store, unlock, lostLock, err := openWriter(ctx, settings.Store, fmt.Sprintf("%s, pid %d, listening on %s, since %s",
		who, os.Getpid(), settings.Listen, time.Now().UTC().Format(time.RFC3339)), settings.Workers.Fleet.Enabled)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("serve: %w", err)}
	}
	defer unlock()
	defer store.Close()
	path := settings.Store.String()

	set, err := projections.New(settings.Projections)
	if err != nil {
		return err
	}
	// The projections follow the log until the server is down; a record they cannot apply stops
	// the server: it must not answer from read models that stopped. A transient read error only
	// restarts them (see followLog).
	pctx, stopProjections := context.WithCancel(context.Background())
	runErr := make(chan error, 1)
	go func() { runErr <- followLog(pctx, set, store, log) }()
	defer func() {
		stopProjections()
		<-runErr
	}()

	head, err := store.Head(ctx)
	if err != nil {
		return err
	}
	log.Info("catching up the read models", "head", uint64(head))
	if err := set.WaitFor(ctx, head); err != nil {
		if ctx.Err() != nil {
			return nil // interrupted while starting
		}
		return fmt.Errorf("serve: read models: %w", err)
	}
	// The rate limits the chain's JSON-RPC calls meet are recorded in the log (stream ratelimit)
	// by a goroutine of their own, from before the chain is dialled until the workers are down;
	// a call never waits for it (see workers.RateLimitRecorder). In a fleet each instance
	// records what its own calls saw, under its name.
	var instance string
	if settings.Workers.Fleet.Enabled {
		instance = settings.Workers.Fleet.InstanceName()
	}
	var sources []string // the nodes whose calls retry through package upstream
	if c := settings.Chain; c != nil {
		for _, e := range c.Endpoints() {
			sources = append(sources, e.URL)
		}
		if !slices.Contains(sources, c.HostRPCURL) {
			sources = append(sources, c.HostRPCURL)
		}
	}
	limits, err := workers.NewRateLimitRecorder(store, workers.RateLimitRecorderConfig{Instance: instance, Sources: sources}, log.With("component", "ratelimit"))
	if err != nil {
		return err
	}
	lctx, cancelLimits := context.WithCancel(context.WithoutCancel(ctx))
	limitsDone := make(chan error, 1)
	go func() { limitsDone <- limits.Run(lctx) }()
	stopLimits := sync.OnceFunc(func() {
		cancelLimits()
		if err := <-limitsDone; err != nil {
			log.Error("the rate-limit recorder stopped with an error", "err", err)
		}
	})
	defer stopLimits()

	// The workers run until the server is down and the requests in flight are answered.
	wctx, stopWorkers := context.WithCancel(context.WithoutCancel(ctx))
	workErr := make(chan error, 1)
	rel, err := startRelayer(ctx, wctx, settings, store, set, limits, log, workErr)
	if err != nil {
		stopWorkers()
		if rel != nil { // interrupted while the workers started
			<-workErr
			rel.chain.Close()
		}
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("serve: %w", err)
	}
	defer func() {
		stopWorkers()
		if err := <-workErr; err != nil && !errors.Is(err, context.Canceled) {
			log.Error("workers stopped with an error", "err", err)
		}
		rel.chain.Close()
	}()
	srv := rel.srv
	url := "http://" + ln.Addr().String()
	printStarted(stdout, url, path, head, set, srv.AdminEnabled(), settings, rel.chain.summary)
	log.Info("serving", "url", url, "store", path, "admin_api", onOff(srv.AdminEnabled()))

	sctx, stop := context.WithCancel(ctx)
	defer stop()
	var projErr error
	watch := make(chan struct{})
	go func() {
		defer close(watch)
		select {
		case err := <-runErr:
			runErr <- err // for the deferred wait
			if pctx.Err() == nil {
				projErr = fmt.Errorf("projections: %w", err)
				log.Error("projections stopped; shutting down", "err", err)
				stop()
			}
		case err := <-workErr:
			workErr <- err // for the deferred wait
			projErr = fmt.Errorf("workers: %w", err)
			log.Error("workers stopped; shutting down", "err", err)
			stop()
		case <-lostLock:
			// Another process may take the store now: two writers must never run at once.
			projErr = errors.New("the event store's writer lock was lost (its database session ended)")
			log.Error("lost the event store's writer lock; shutting down")
			stop()
		case <-sctx.Done():
		}
	}()
	err = srv.Serve(sctx, ln)
	stop()
	<-watch
	if projErr != nil {
		return fmt.Errorf("serve: stopped: %w", projErr)
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	log.Info("stopped", "url", url)
	// The workers, then the rate-limit recorder (which appends what it holds), stop before the
	// digest is taken, so it covers everything they appended; `relayer rebuild` with the same
	// configuration must print the same one. (A rate limit met after this, by a call the gateway
	// adapter makes of its own until the chain is closed, is counted in the metrics only.)
	stopWorkers()
	if werr := <-workErr; werr != nil && !errors.Is(werr, context.Canceled) {
		log.Error("workers stopped with an error", "err", werr)
	}
	workErr <- nil // for the deferred wait
	stopLimits()
	fmt.Fprintln(stdout, "relayer serve: stopped")
	if head, err := store.Head(context.WithoutCancel(ctx)); err == nil {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		err = set.WaitFor(wctx, head)
		cancel()
		// The read models still follow the log (another instance may append): the position
		// printed is the snapshot's own.
		if snap, pos, serr := set.SnapshotAt(); err == nil && serr == nil {
			fmt.Fprintf(stdout, "read models at position %d: snapshot sha256 %x (relayer rebuild prints the same)\n", uint64(pos), sha256.Sum256(snap))
		}
	}
	return nil
}

func lookupEnv(env []string, name string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// printStarted says what serve started and how to try it. It never prints the admin token.
func printStarted(w io.Writer, url, path string, head eventstore.Position, set *projections.Set, admin bool, s serveSettings, chainSummary string) {
	abs := path
	if s.Store.scheme == "sqlite" {
		if a, err := filepath.Abs(path); err == nil {
			abs = a
		}
	}
	chains := make([]string, len(s.API.Validation.HostChainIDs))
	for i, c := range s.API.Validation.HostChainIDs {
		chains[i] = fmt.Sprint(c)
	}
	fmt.Fprintf(w, "relayer serve: listening on %s\n", url)
	fmt.Fprintf(w, "  event store: %s (log head at position %v; read models caught up: %d jobs)\n", abs, head, set.Jobs())
	fmt.Fprintf(w, "  dashboard: %s/ui\n", url)
	if admin {
		fmt.Fprintf(w, "  admin API: on (Authorization: Bearer <token>)\n")
	} else {
		fmt.Fprintf(w, "  admin API: off (set RELAYER_ADMIN_TOKEN to turn it on)\n")
	}
	switch {
	case s.API.AuditOpen:
		fmt.Fprintf(w, "  audit endpoints (/v1/jobs, /v1/jobs/<jobId>/events, /v1/transitions, /v1/overview): open to anyone (api.audit_open)\n")
	case s.API.OperatorToken != "" || admin:
		fmt.Fprintf(w, "  audit endpoints: operator or admin token (Authorization: Bearer <token>)\n")
	default:
		fmt.Fprintf(w, "  audit endpoints: closed (set RELAYER_OPERATOR_TOKEN, or api.audit_open for development)\n")
	}
	fmt.Fprintf(w, "  gateway chain: %s\n", chainSummary)
	transport := s.Workers.Transport.Kind
	transport = cmp.Or(transport, workers.TransportGoChannel)
	if f := s.Workers.Fleet; f.Enabled {
		d := f.LeaseDuration
		d = cmp.Or(d, lease.DefaultDuration)
		if n := len(s.ExtraSigners) + 1; n > 1 {
			fmt.Fprintf(w, "  workers: the jobs split over %d keys; each key's readiness, tx, responses and timeouts run by whichever instance holds its lease, with its share of C and D (%s; this one holds some, all or none: /metrics relayer_engine_lease_held)\n", n, d)
		} else {
			fmt.Fprintf(w, "  workers: readiness, tx, responses, timeouts, run by whichever instance of the fleet holds the engine lease (%s; this one waits for it or holds it: /metrics relayer_engine_lease_held)\n", d)
		}
	} else {
		fmt.Fprintf(w, "  workers: readiness, tx, responses, timeouts (transport %s)\n", transport)
	}
	if hooks := s.API.Webhooks; hooks.Enabled() {
		private := "refused"
		if hooks.AllowPrivate {
			private = "allowed (webhooks.allow_private)"
		}
		fmt.Fprintf(w, "  webhooks: on (endpoints through POST /admin/webhooks; private addresses %s)\n", private)
	} else {
		fmt.Fprintf(w, "  webhooks: off (set RELAYER_WEBHOOKS_SECRET_KEY to turn them on: openssl rand -hex 32)\n")
	}
	fmt.Fprintf(w, "  timeouts: readiness %s, tx_in_flight %s, response %s, processing %s\n", s.Projections.ReadinessTimeout, s.Projections.TxInFlightTimeout, s.Projections.ResponseTimeout, s.Projections.ProcessingTimeout)
	fmt.Fprintf(w, "  host chains: %s\n\n", strings.Join(chains, ", "))
	chain := s.API.Validation.HostChainIDs[0]
	fmt.Fprintf(w, "Try:\n")
	fmt.Fprintf(w, "  curl -si -X POST %s/v2/input-proof -H 'Content-Type: application/json' \\\n", url)
	fmt.Fprintf(w, "    -d '{\"contractChainId\":%d,\"contractAddress\":\"0x00000000000000000000000000000000000000c0\",\"userAddress\":\"0x00000000000000000000000000000000000000a1\",\"ciphertextWithInputVerification\":\"0a0b0c\",\"extraData\":\"0x00\"}'\n", chain)
	fmt.Fprintf(w, "  curl -si %s/v2/input-proof/<jobId>      # again after Retry-After seconds, until 200\n", url)
	fmt.Fprintf(w, "  curl -s %s/v1/jobs/<jobId>/events        # the job's history\n", url)
	fmt.Fprintf(w, "  curl -sN %s/v1/transitions              # every transition, live (or: relayer watch)\n", url)
	if admin {
		fmt.Fprintf(w, "  curl -s %s/admin/config -H \"Authorization: Bearer $RELAYER_ADMIN_TOKEN\"\n", url)
	}
}

// followLog runs the projections until ctx ends or they meet a record they cannot decode or
// apply (a *eventstore.RecordError) or a closed store. Any other error is a failed read of the
// log (a busy or failing disk, say): Run stops at its checkpoint and is started again after a
// pause that grows with consecutive failures (100ms doubling to 5s, full jitter; see
// docs/RETRIES.md), so one transient error does not stop the server.
func followLog(ctx context.Context, set *projections.Set, store eventstore.Store, log *slog.Logger) error {
	retry := upstream.Backoff{Base: 100 * time.Millisecond, Max: 5 * time.Second}
	failures := 0
	for {
		before := set.Position()
		err := set.Run(ctx, store)
		var re *eventstore.RecordError
		switch {
		case ctx.Err() != nil:
			return err
		case errors.As(err, &re), errors.Is(err, eventstore.ErrClosed):
			return err
		}
		if set.Position() > before {
			failures = 0 // it made progress: the failure is not a streak
		}
		failures++
		pause := retry.Delay(failures, nil)
		log.Warn("projections: reading the log failed; following it again", "err", err, "retry_in", pause.String(), "position", uint64(set.Position()))
		if upstream.RealClock().Sleep(ctx, pause) != nil {
			return ctx.Err()
		}
	}
}
