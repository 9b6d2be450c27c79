package workers

import (
	"context"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/workers/gateway"
)

// watchNonces heals the key's nonce sequence while the engine runs (gateway.Adapter.HealNonces):
// every Config.NonceCheckInterval, and at once (at most once a second) when the node's answer to
// a transaction calls for it. Each correction is recorded in the key's stream
// (domain.SignerStream) as a NonceCorrected, appended with the stream's expected version, and
// counted in relayer_nonce_corrections_total. A correction the log could not take is tried again
// at the next check; a failed read of the chain is the outage tracker's, and changes nothing.
func (e *Engine) watchNonces(ctx context.Context) error {
	addr := e.gw.Address().Hex()
	stream := domain.SignerStream(addr)
	folded := eventstore.NewFolded(signerState{})
	var unrecorded []gateway.NonceCorrection
	everyOrWoken(ctx, e.cfg.NonceCheckInterval, e.gw.NonceChecks(), func(ctx context.Context) {
		fixes, err := e.gw.HealNonces(ctx)
		if err != nil && ctx.Err() == nil {
			e.logChain("nonces: check the key's nonces against the chain", "address", addr, "err", err)
		}
		if unrecorded = append(unrecorded, fixes...); len(unrecorded) > 0 {
			if err := e.recordNonceFixes(ctx, stream, addr, &folded, unrecorded); err != nil {
				if ctx.Err() == nil {
					e.log.Warn("nonces: record the key's nonce corrections; trying again at the next check", "address", addr, "err", err)
				}
			} else {
				unrecorded = nil
			}
		}
	})
	return nil
}

// recordNonceFixes appends fixes to the key's stream, as NonceCorrected events, at once.
func (e *Engine) recordNonceFixes(ctx context.Context, stream, addr string, folded *eventstore.Folded[signerState], fixes []gateway.NonceCorrection) error {
	if err := folded.Catch(ctx, e.store, e.exec.Codec, stream, foldSigner); err != nil {
		return err
	}
	now := e.now().UTC()
	evs := make([]eventstore.Typed, len(fixes))
	for i, f := range fixes {
		evs[i] = domain.NonceCorrected{Address: addr, Action: f.Action, From: f.From, To: f.To, Nonces: f.Nonces, Pending: f.Pending, Reason: f.Reason, At: now}
	}
	_, err := eventstore.Update(ctx, e.store, e.exec.Codec, stream, folded, foldSigner,
		func(signerState) ([]eventstore.Typed, error) { return evs, nil }, eventstore.Metadata{}, nil, 5)
	if err != nil {
		return err
	}
	for _, f := range fixes {
		e.metrics.nonceFix.WithLabelValues(f.Action).Inc()
		e.log.Info("nonces: recorded a correction of the key's nonce sequence", "address", addr, "action", f.Action,
			"from", f.From, "to", f.To, "nonces", f.Nonces, "pending", f.Pending, "reason", f.Reason)
	}
	return nil
}
