package workers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"relayer/eventstore"
	"relayer/workers/lease"
)

// FleetKeysStream holds the signing keys the instances of a fleet were started with
// (KeysDeclared), the latest last. The jobs are split over the keys by job id, so an instance
// given other keys than the fleet's would drive jobs that no other instance drives, and leave
// jobs that its split gives to no key of its own (found by an outside probe: eleven of ninety jobs
// stayed queued, and every /healthz said ok).
const FleetKeysStream = "fleet-keys"

// KeysDeclared records the signing keys of an instance that started with keys other than the
// latest declared, or when none was: Keys are their addresses, lower-case hex, in order.
type KeysDeclared struct {
	Keys   []string  `json:"keys"`
	Holder string    `json:"holder"`
	At     time.Time `json:"at"`
}

// EventType names the event in the store.
func (KeysDeclared) EventType() string { return "FleetKeysDeclared" }

// ErrFleetKeysDiffer refuses to start an instance whose signing keys are not those of the fleet
// running on the store.
var ErrFleetKeysDiffer = errors.New("the fleet runs with other signing keys")

// checkKeys makes sure this instance splits the jobs over the keys the fleet does. When the keys
// the fleet last declared are this instance's, or none were, it goes on (declaring its own). When
// they differ, it watches the declared keys' leases for a lease's duration: while an instance
// holds one of them and renews it, this instance is refused with ErrFleetKeysDiffer, naming both
// sets; once none is held (the fleet was stopped to change its keys), it declares its own.
func (l *Leader) checkKeys(ctx context.Context) error {
	ours := make([]string, len(l.keys))
	for i, k := range l.keys {
		ours[i] = strings.ToLower(k.gw.Address().Hex())
	}
	codec := eventstore.NewCodec()
	if err := eventstore.Register[KeysDeclared](codec, 1); err != nil {
		return err
	}
	fold := func(_ KeysDeclared, e eventstore.Typed) KeysDeclared { return e.(KeysDeclared) }
	declared := eventstore.NewFolded(KeysDeclared{})
	for {
		if err := declared.Catch(ctx, l.deps.Store, codec, FleetKeysStream, fold); err != nil {
			return fmt.Errorf("read the fleet's keys: %w", err)
		}
		if slices.Equal(declared.State.Keys, ours) {
			return nil
		}
		if declared.Version != eventstore.NoStream {
			live, err := l.keysLive(ctx, declared.State.Keys, declared.Version, codec)
			if err != nil {
				return err
			}
			if live != "" {
				d := declared.State
				return fmt.Errorf("%w: %s (declared by %s at %s; %s), and this instance was given %s: give every instance the same keys (to change them, stop every instance, then start them with the new keys)",
					ErrFleetKeysDiffer, strings.Join(d.Keys, ", "), d.Holder, d.At.Format(time.RFC3339), live, strings.Join(ours, ", "))
			}
		}
		ev, err := codec.Encode(KeysDeclared{Keys: ours, Holder: l.cfg.Fleet.InstanceName(), At: time.Now().UTC()}, eventstore.Metadata{})
		if err != nil {
			return err
		}
		_, err = l.deps.Store.Append(ctx, FleetKeysStream, declared.Version, ev)
		if errors.Is(err, eventstore.ErrWrongExpectedVersion) {
			continue // another instance declared meanwhile: look again
		}
		if err != nil {
			return fmt.Errorf("declare the fleet's keys: %w", err)
		}
		componentLog(l.deps.Logger).Info("fleet keys declared", "keys", strings.Join(ours, ","), "before", strings.Join(declared.State.Keys, ","))
		return nil
	}
}

// keysLive watches, for a lease's duration, the leases of the fleet that signs with keys and the
// declarations after version: it names what moved (a lease renewed or taken, a declaration), or
// is "" when nothing did, so that no instance runs with those keys.
func (l *Leader) keysLive(ctx context.Context, keys []string, version eventstore.Version, codec *eventstore.Codec) (string, error) {
	lc := l.cfg.Fleet.leaseConfig()
	names := []string{lc.Name}
	if len(keys) > 1 {
		names = names[:0]
		for _, k := range keys {
			names = append(names, SignerLeasePrefix+"-"+k)
		}
	}
	type seen struct {
		holder          string
		terms, renewals eventstore.Version
	}
	look := func() ([]seen, error) {
		out := make([]seen, len(names))
		for i, name := range names {
			lc.Name = name
			ls, err := lease.New(l.deps.Store, lc, nil)
			if err != nil {
				return nil, err
			}
			holder, epoch, err := ls.Holder(ctx)
			if err != nil {
				return nil, fmt.Errorf("read lease %s: %w", name, err)
			}
			if out[i].terms, err = eventstore.LastVersion(ctx, l.deps.Store, lease.Stream(name)); err != nil {
				return nil, fmt.Errorf("read lease %s: %w", name, err)
			}
			if out[i].renewals, err = eventstore.LastVersion(ctx, l.deps.Store, lease.RenewalStream(name, epoch)); err != nil {
				return nil, fmt.Errorf("read lease %s: %w", name, err)
			}
			out[i].holder = holder
		}
		return out, nil
	}
	before, err := look()
	if err != nil {
		return "", err
	}
	componentLog(l.deps.Logger).Warn("this instance's signing keys differ from those the fleet last declared; watching their leases before it declares its own",
		"declared", strings.Join(keys, ","), "for", cmp.Or(lc.Duration, lease.DefaultDuration))
	if !sleepCtx(ctx, cmp.Or(lc.Duration, lease.DefaultDuration)) {
		return "", ctx.Err()
	}
	after, err := look()
	if err != nil {
		return "", err
	}
	for i, b := range before {
		if a := after[i]; a != b && a.holder != "" {
			return fmt.Sprintf("lease %s is held by %s", names[i], a.holder), nil
		}
	}
	now, err := eventstore.LastVersion(ctx, l.deps.Store, FleetKeysStream)
	if err != nil {
		return "", fmt.Errorf("read the fleet's keys: %w", err)
	}
	if now != version {
		return "another instance declared its keys meanwhile", nil
	}
	return "", nil
}
