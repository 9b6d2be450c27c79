package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"

	"relayer/api"
	"relayer/domain/retryafter"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers"
	"relayer/workers/devchain"
	"relayer/workers/gateway"
	"relayer/workers/upstream"
)

// chainSide is the gateway chain serve drives: the in-process development chain with its
// funded relayer key, or an external chain dialled from the configuration.
type chainSide struct {
	dev *devchain.Chain // nil for an external chain
	gw  *gateway.Adapter
	// keys are a fleet's adapters of chain.extra_signers, each on gw's connections.
	keys    []*gateway.Adapter
	summary string
}

func (c *chainSide) Close() {
	for _, k := range c.keys {
		k.Close()
	}
	if c.gw != nil {
		c.gw.Close()
	}
	if c.dev != nil {
		_ = c.dev.Close()
	}
}

// startChain starts the development chain (settings.Chain nil) or dials the external one, whose
// JSON-RPC calls report the rate limits they meet to limits.
func startChain(ctx context.Context, s serveSettings, limits upstream.Sink, log *slog.Logger) (*chainSide, error) {
	if s.Chain != nil {
		gw, err := gateway.Dial(ctx, *s.Chain, log, gateway.WithUpstream(upstream.WithSink(limits)))
		if err != nil {
			return nil, fmt.Errorf("gateway chain: %w", err)
		}
		c := &chainSide{gw: gw, summary: fmt.Sprintf("external, chain id %d, relayer %s", s.Chain.ChainID, gw.Address().Hex())}
		for i, sc := range s.ExtraSigners {
			signer, err := gateway.LoadSigner(sc)
			if err != nil {
				c.Close()
				return nil, fmt.Errorf("chain.extra_signers[%d]: %w", i, err)
			}
			k := gw.WithKey(signer)
			c.keys = append(c.keys, k)
			c.summary += ", " + k.Address().Hex()
		}
		return c, nil
	}
	dcfg := s.DevChainConfig
	dcfg.HTTPAddr = s.DevChainRPC
	dev, err := devchain.Start(ctx, dcfg, log) // the chain names its component itself
	if err != nil {
		return nil, fmt.Errorf("development chain: %w", err)
	}
	a := dev.Addresses()
	gw, err := gateway.New(ctx, dev.Client(), gateway.Config{
		ChainID:      dev.ChainID().Uint64(),
		Contracts:    gateway.Contracts{Decryption: a.Decryption, InputVerification: a.InputVerification, ACL: a.ACL},
		PollInterval: 200 * time.Millisecond, ReceiptPollMin: 10 * time.Millisecond, GapFillDelay: time.Second,
	}, log, gateway.WithSigner(gateway.NewSigner(dev.RelayerKey())))
	if err != nil {
		_ = dev.Close()
		return nil, fmt.Errorf("development chain: %w", err)
	}
	summary := fmt.Sprintf("in-process development chain %d (KMS threshold %d of %d, relayer %s; DEVELOPMENT KEYS)",
		dev.ChainID(), dev.Threshold(), dev.Config().KMSNodes, gw.Address().Hex())
	summary += fmt.Sprintf("\n  development chain latency profile: %s (%s)", dev.Config().Profile, dev.Config().LatencySummary())
	if rpc := dev.HTTPEndpoint(); rpc != "" {
		summary += "\n  development chain JSON-RPC: " + rpc
	}
	summary += fmt.Sprintf("\n  contracts: gateway Decryption %s, InputVerification %s; host ACL %s, InputVerifier %s, KMSVerifier %s",
		a.Decryption.Hex(), a.InputVerification.Hex(), a.ACL.Hex(), a.InputVerifier.Hex(), a.KMSVerifier.Hex())
	summary += fmt.Sprintf("\n  ERC-1271 development wallets: %s (owner user key 14), %s (owner user key 15)", a.Wallets[0].Hex(), a.Wallets[1].Hex())
	return &chainSide{dev: dev, gw: gw, summary: summary}, nil
}

// relayer is the running relayer: the API and the workers over one store and one set of
// projections.
type relayer struct {
	srv    *api.Server
	engine workerRunner
	chain  *chainSide
}

// workerRunner is what serve runs the workers through: the engine itself (workers.Engine), or, in a
// fleet, the leader that runs it while this instance holds the engine lease (workers.Leader).
type workerRunner interface {
	Run(ctx context.Context) error
	Ready() <-chan struct{}
	Collectors() []prometheus.Collector
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
		wcfg.UserDecryptThreshold = chain.dev.Threshold()
	}
	var srv *api.Server
	deps := workers.Deps{
		Store: store, Projections: set, Gateway: chain.gw, Logger: log.With("component", "workers"),
		Tuning: func() retryafter.Config { return srv.Tuning() },
	}
	var engine workerRunner
	if wcfg.Fleet.Enabled {
		if len(chain.keys) > 0 {
			deps.Keys = append([]*gateway.Adapter{chain.gw}, chain.keys...)
		}
		engine, err = workers.NewLeader(wcfg, deps)
	} else {
		engine, err = workers.New(wcfg, deps)
	}
	if err != nil {
		chain.Close()
		return nil, err
	}
	apiCfg := s.API
	if chain.dev != nil {
		apiCfg.Admission.DecryptionContract = chain.dev.Addresses().Decryption.Hex()
	}
	srv, err = api.New(ctx, apiCfg, api.Deps{Store: store, Projections: set, Logger: log,
		Collectors: slices.Concat(engine.Collectors(), chain.gw.Collectors(), limits.Collectors()),
		Chain:      chainChecks{chain.gw}})
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

// chainChecks is the admission's chain port (api.ChainChecks) on the gateway adapter.
type chainChecks struct{ gw *gateway.Adapter }

func (c chainChecks) ChainTime(ctx context.Context) (time.Time, error) { return c.gw.ChainTime(ctx) }

func (c chainChecks) WalletSignature(ctx context.Context, account [20]byte, digest [32]byte, signature []byte) (bool, bool, error) {
	return c.gw.WalletSignature(ctx, common.Address(account), digest, signature)
}

// ChainHealth is /healthz's view of the gateway chain (api.ChainHealthSource).
func (c chainChecks) ChainHealth() api.ChainHealth {
	h := c.gw.Health()
	return api.ChainHealth{Reachable: h.Reachable, Since: h.Since, LastSuccess: h.LastSuccess,
		Head: h.Head, HeadAge: h.HeadAge(time.Now()), HeadKnown: !h.HeadAt.IsZero()}
}
