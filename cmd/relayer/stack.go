package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"

	"relayer/api"
	"relayer/archive"
	"relayer/domain/retryafter"
	"relayer/domain/webhook"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers"
	"relayer/workers/archiver"
	"relayer/workers/delivery"
	"relayer/workers/gateway"
	"relayer/workers/lease"
	"relayer/workers/upstream"
)

// chainSide is the gateway chain serve drives: the in-process development chain with its
// funded relayer key (startDevChain), or an external chain dialled from the configuration.
type chainSide struct {
	gw *gateway.Adapter
	// keys are a fleet's adapters of chain.extra_signers, each on gw's connections.
	keys    []*gateway.Adapter
	summary string
	// dev is the in-process development chain's part; nil for an external chain.
	dev *devChainSide
}

// devChainSide is what serve takes from the in-process development chain beside its adapter:
// the KMS threshold and the Decryption contract, known once the chain runs, and how to stop it.
type devChainSide struct {
	threshold  int
	decryption common.Address
	stop       func() error
}

func (c *chainSide) Close() {
	for _, k := range c.keys {
		k.Close()
	}
	if c.gw != nil {
		c.gw.Close()
	}
	if c.dev != nil {
		_ = c.dev.stop()
	}
}

// startChain dials the external chain, whose JSON-RPC calls report the rate limits they meet to
// limits, or starts the development chain (settings.Chain nil; startDevChain).
func startChain(ctx context.Context, s serveSettings, limits upstream.Sink, log *slog.Logger) (*chainSide, error) {
	if s.Chain != nil {
		gw, err := gateway.Dial(ctx, *s.Chain, log, gateway.WithUpstream(upstream.WithSink(limits)))
		if err != nil {
			return nil, fmt.Errorf("gateway chain: %w", err)
		}
		c := &chainSide{gw: gw, summary: fmt.Sprintf("external, chain id %d, relayer %s", s.Chain.ChainID, gw.Address().Hex())}
		seen := map[common.Address]string{gw.Address(): "chain.signer"}
		for i, sc := range s.ExtraSigners {
			path := fmt.Sprintf("chain.extra_signers[%d]", i)
			signer, err := gateway.LoadSigner(ctx, sc)
			if err != nil {
				c.Close()
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			// Two adapters of one key would be two nonce sequences for one account (a KMS key
			// named once by its id and once by an alias, say).
			if other, dup := seen[signer.Address()]; dup {
				c.Close()
				return nil, fmt.Errorf("%s: the key of %s is %s's too: each key may be given once", path, signer.Address().Hex(), other)
			}
			seen[signer.Address()] = path
			k := gw.WithKey(signer)
			c.keys = append(c.keys, k)
			c.summary += ", " + k.Address().Hex()
		}
		return c, nil
	}
	return startDevChain(ctx, s, log)
}

// relayer is the running relayer: the API and the workers over one store and one set of
// projections.
type relayer struct {
	srv    *api.Server
	engine workerRunner
	chain  *chainSide
}

// workerRunner is what serve runs the workers through: the engine itself (workers.Engine), or, in a
// fleet, the leader that runs it while this instance holds the engine lease (workers.Leader); with
// the webhook deliveries beside it (withDeliveries).
type workerRunner interface {
	Run(ctx context.Context) error
	Ready() <-chan struct{}
	Collectors() []prometheus.Collector
}

// withDeliveries runs the webhook deliveries and the archiver beside the engine, on their own:
// the engine never waits for them (workers/delivery, workers/archiver). Run returns when the
// engine does, once they have stopped too (each saved its progress).
type withDeliveries struct {
	workerRunner
	hooks *delivery.Service
	arch  *archiver.Archiver
}

func (w withDeliveries) Run(ctx context.Context) error {
	hctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = w.hooks.Run(hctx) }) // each waits out every failure of its own
	wg.Go(func() { _ = w.arch.Run(hctx) })
	err := w.workerRunner.Run(ctx)
	cancel()
	wg.Wait()
	return err
}

func (w withDeliveries) Collectors() []prometheus.Collector {
	return slices.Concat(w.workerRunner.Collectors(), w.hooks.Collectors(), w.arch.Collectors())
}

// newArchiver builds serve's archiver: the retention policy of the configuration (the admin
// API's retention.* changes apply on top while it runs), archiving to s.Archive, under the lease
// "archiver" in a fleet.
func newArchiver(ctx context.Context, s serveSettings, store eventstore.Store, set *projections.Set, log *slog.Logger) (*archiver.Archiver, error) {
	arch, err := archive.OpenURL(ctx, s.Archive)
	if err != nil {
		return nil, fmt.Errorf("retention.archive: %w", err)
	}
	deps := archiver.Deps{Store: store, Projections: set, Archive: arch, Logger: log,
		Followers: func(ctx context.Context) (eventstore.Position, string, bool, error) {
			return delivery.Slowest(ctx, store)
		}}
	if f := s.Workers.Fleet; f.Enabled {
		deps.Lease = &lease.Config{Name: archiver.LeaseName, Holder: f.InstanceName(), Duration: f.LeaseDuration, Renew: f.LeaseRenew}
	}
	return archiver.New(archiver.Config{Retention: s.Retention}, deps)
}

// newDeliveries builds the webhook deliveries of serve: over the store and the projections (which
// signal changes of the webhooks stream and know the log's head), under the lease "webhooks" in a
// fleet.
func newDeliveries(s serveSettings, store eventstore.Store, set *projections.Set, log *slog.Logger) (*delivery.Service, error) {
	deps := delivery.Deps{Store: store, Changes: set.NotifyStream(webhook.Stream), Head: set.Position, Logger: log}
	if f := s.Workers.Fleet; f.Enabled {
		deps.Lease = &lease.Config{Name: delivery.LeaseName, Holder: f.InstanceName(), Duration: f.LeaseDuration, Renew: f.LeaseRenew}
	}
	return delivery.New(delivery.Config{Webhooks: s.API.Webhooks}, deps)
}

// startRelayer builds the API and the workers on a caught-up store and projections and starts
// the workers under ctx (which outlives the server); their failure is sent on errs. The chain's
// calls report their rate limits to limits, whose metrics /metrics serves. It returns early
// when interrupt ends (a signal while the chain is unreachable at start, say): the caller then
// cancels ctx. The caller serves srv, closes chain and runs limits.
func startRelayer(interrupt, ctx context.Context, s serveSettings, store eventstore.Store, set *projections.Set,
	limits *workers.RateLimitRecorder, log *slog.Logger, errs chan<- error) (*relayer, error) {
	chain, err := startChain(interrupt, s, limits, log)
	if err != nil {
		return nil, err
	}
	wcfg := s.Workers
	if chain.dev != nil {
		wcfg.UserDecryptThreshold = chain.dev.threshold
	}
	var srv *api.Server
	deps := workers.Deps{
		Store: store, Projections: set, Gateway: chain.gw, Logger: log, // the engine names its components itself
		Tuning: func() retryafter.Config { return srv.Tuning() },
	}
	var engine workerRunner
	var leader *workers.Leader
	signing := []string{chain.gw.Address().Hex()} // the keys that send, for /healthz and the hints
	if wcfg.Fleet.Enabled {
		if len(chain.keys) > 0 {
			deps.Keys = append([]*gateway.Adapter{chain.gw}, chain.keys...)
			for _, k := range chain.keys {
				signing = append(signing, k.Address().Hex())
			}
		}
		leader, err = workers.NewLeader(wcfg, deps)
		engine = leader
	} else {
		engine, err = workers.New(wcfg, deps)
	}
	if err != nil {
		chain.Close()
		return nil, err
	}
	hooks, err := newDeliveries(s, store, set, log)
	if err != nil {
		chain.Close()
		return nil, err
	}
	arch, err := newArchiver(ctx, s, store, set, log)
	if err != nil {
		chain.Close()
		return nil, err
	}
	engine = withDeliveries{workerRunner: engine, hooks: hooks, arch: arch}
	var fleet api.FleetSource
	if leader != nil {
		fleet = fleetLeases{instance: wcfg.Fleet.InstanceName(), leases: slices.Concat(leader.Leases(), []*lease.Lease{hooks.Lease(), arch.Lease()})}
	}
	apiCfg := s.API
	if chain.dev != nil {
		apiCfg.Admission.DecryptionContract = chain.dev.decryption.Hex()
	}
	srv, err = api.New(ctx, apiCfg, api.Deps{Store: store, Projections: set, Logger: log,
		Collectors: slices.Concat(engine.Collectors(), chain.gw.Collectors(), limits.Collectors()),
		Chain:      chainChecks{gw: chain.gw, keys: signing}, Fleet: fleet})
	if err != nil {
		chain.Close()
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- engine.Run(ctx) }()
	select {
	case <-engine.Ready():
	case err := <-done:
		chain.Close()
		if err == nil {
			err = ctx.Err()
		}
		return nil, fmt.Errorf("workers: %w", err)
	case <-interrupt.Done():
		go func() { errs <- <-done }() // the caller cancels ctx; the engine then returns
		return &relayer{srv: srv, engine: engine, chain: chain}, interrupt.Err()
	}
	go func() {
		err := <-done
		if err == nil && ctx.Err() == nil {
			err = errors.New("workers stopped")
		}
		errs <- err
	}()
	return &relayer{srv: srv, engine: engine, chain: chain}, nil
}

// fleetLeases is /healthz's view of this instance of a fleet (api.FleetSource): the leases it
// takes part in, and which of them it holds now.
type fleetLeases struct {
	instance string
	leases   []*lease.Lease
}

func (f fleetLeases) Fleet() api.FleetHealth {
	out := api.FleetHealth{Instance: f.instance}
	for _, l := range f.leases {
		if l != nil {
			out.Leases = append(out.Leases, api.LeaseHealth{Name: l.Name(), Epoch: l.HeldEpoch()})
		}
	}
	return out
}

// chainChecks is the admission's chain port (projections.ChainChecks, given as api.Deps.Chain)
// on the gateway adapter; it also tells /healthz the chain's health and the signing keys
// (api.SigningKeysSource).
type chainChecks struct {
	gw   *gateway.Adapter
	keys []string
}

// SigningKeys are the addresses of the keys the workers send with (api.SigningKeysSource).
func (c chainChecks) SigningKeys() []string { return c.keys }

func (c chainChecks) ChainTime(ctx context.Context) (time.Time, error) { return c.gw.ChainTime(ctx) }

func (c chainChecks) WalletSignature(ctx context.Context, account [20]byte, digest [32]byte, signature []byte) (bool, bool, error) {
	return c.gw.WalletSignature(ctx, common.Address(account), digest, signature)
}

// ChainHealth is /healthz's view of the gateway chain (api.ChainHealthSource).
func (c chainChecks) ChainHealth() api.ChainHealth {
	h := c.gw.Health()
	out := api.ChainHealth{Reachable: h.Reachable, Since: h.Since, LastSuccess: h.LastSuccess,
		Head: h.Head, HeadAge: h.HeadAge(time.Now()), HeadKnown: !h.HeadAt.IsZero()}
	for _, p := range c.gw.Providers() {
		out.Providers = append(out.Providers, api.ProviderHealth{Label: p.Label, Endpoint: p.Endpoint, Weight: p.Weight,
			Healthy: p.Healthy, Paused: p.Paused, Head: p.Head, HeadLag: p.HeadLag})
	}
	return out
}
