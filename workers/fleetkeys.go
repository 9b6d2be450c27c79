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
	ours := l.addresses()
	codec := keysCodec()
	declared := eventstore.NewFolded(KeysDeclared{})
	for {
		if err := declared.Catch(ctx, l.deps.Store, codec, FleetKeysStream, foldKeys); err != nil {
			return fmt.Errorf("read the fleet's keys: %w", err)
		}
		if slices.Equal(declared.State.Keys, ours) {
			return nil
		}
		if declared.Version != eventstore.NoStream {
			live, moved, err := l.keysLive(ctx, declared.State.Keys, declared.Version)
			if err != nil {
				return err
			}
			if moved {
				continue // another instance declared keys meanwhile: look at them
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

// addresses are this instance's keys' addresses, lower-case hex, in order.
func (l *Leader) addresses() []string {
	out := make([]string, len(l.keys))
	for i, k := range l.keys {
		out[i] = strings.ToLower(k.gw.Address().Hex())
	}
	return out
}

// keysCodec is the codec of FleetKeysStream.
func keysCodec() *eventstore.Codec {
	c := eventstore.NewCodec()
	if err := eventstore.Register[KeysDeclared](c, 1); err != nil {
		panic(fmt.Sprintf("fleet keys codec: %v", err))
	}
	return c
}

func foldKeys(_ KeysDeclared, e eventstore.Typed) KeysDeclared { return e.(KeysDeclared) }

// watchKeys stops this instance (ErrFleetKeysDiffer) once the fleet declares other keys than its
// own, looking every lease duration: an instance started with other keys in the moment between
// this one's check and its declaration declares them once this one's leases are seen idle, and
// only one split of the jobs may run.
func (l *Leader) watchKeys(ctx context.Context) error {
	ours := l.addresses()
	codec := keysCodec()
	declared := eventstore.NewFolded(KeysDeclared{})
	every := cmp.Or(l.cfg.Fleet.LeaseDuration, lease.DefaultDuration)
	for sleepCtx(ctx, every) {
		if err := declared.Catch(ctx, l.deps.Store, codec, FleetKeysStream, foldKeys); err != nil {
			if ctx.Err() == nil {
				componentLog(l.deps.Logger).Warn("read the fleet's keys; trying again", "err", err)
			}
			continue
		}
		if d := declared.State; declared.Version != eventstore.NoStream && !slices.Equal(d.Keys, ours) {
			return fmt.Errorf("%w: %s declared %s at %s, and this instance signs with %s: it stops",
				ErrFleetKeysDiffer, d.Holder, strings.Join(d.Keys, ", "), d.At.Format(time.RFC3339), strings.Join(ours, ", "))
		}
	}
	return nil
}

// keysLive watches the leases of the fleet that signs with keys, and the declarations after
// version, for the longest duration any of those leases was taken for (or this instance's lease
// duration, when longer): a holder renews several times within its own. It names what says that
// an instance runs with those keys (a lease renewed or taken), or is "" when nothing does. When
// another instance declared keys meanwhile, it reports declared: the caller looks again at what
// was declared (instances started together with the same new keys each see the first's
// declaration, then its leases move).
func (l *Leader) keysLive(ctx context.Context, keys []string, version eventstore.Version) (live string, declared bool, err error) {
	lc := l.cfg.Fleet.leaseConfig()
	names := []string{lc.Name}
	if len(keys) > 1 {
		names = names[:0]
		for _, k := range keys {
			names = append(names, SignerLeasePrefix+"-"+k)
		}
	}
	before, longest, err := l.lookAtLeases(ctx, names)
	if err != nil {
		return "", false, err
	}
	wait := max(cmp.Or(lc.Duration, lease.DefaultDuration), longest)
	componentLog(l.deps.Logger).Warn("this instance's signing keys differ from those the fleet last declared; watching their leases before it declares its own",
		"declared", strings.Join(keys, ","), "for", wait)
	if !sleepCtx(ctx, wait) {
		return "", false, ctx.Err()
	}
	now, err := eventstore.LastVersion(ctx, l.deps.Store, FleetKeysStream)
	if err != nil {
		return "", false, fmt.Errorf("read the fleet's keys: %w", err)
	}
	if now != version {
		return "", true, nil
	}
	after, _, err := l.lookAtLeases(ctx, names)
	if err != nil {
		return "", false, err
	}
	for i, b := range before {
		if a := after[i]; a != b && a.holder != "" {
			return fmt.Sprintf("lease %s is held by %s", names[i], a.holder), false, nil
		}
	}
	return "", false, nil
}

// leaseSeen is a lease as keysLive last read it: its holder ("" when free) and how far its term
// and renewal streams went.
type leaseSeen struct {
	holder          string
	terms, renewals eventstore.Version
}

// lookAtLeases reads the leases names, and the longest duration any of them was last taken for.
func (l *Leader) lookAtLeases(ctx context.Context, names []string) ([]leaseSeen, time.Duration, error) {
	codec := lease.NewCodec()
	out := make([]leaseSeen, len(names))
	var longest time.Duration
	for i, name := range names {
		seen := leaseSeen{terms: eventstore.NoStream}
		var epoch uint64
		for rec, err := range l.deps.Store.ReadStream(ctx, lease.Stream(name), 0) {
			if err != nil {
				return nil, 0, fmt.Errorf("read lease %s: %w", name, err)
			}
			e, err := codec.Decode(rec)
			if err != nil {
				return nil, 0, fmt.Errorf("read lease %s: %w", name, err)
			}
			seen.terms = rec.Version
			switch e := e.(type) {
			case lease.Acquired:
				seen.holder, epoch = e.Holder, e.Epoch
				longest = max(longest, e.Duration)
			case lease.Released:
				seen.holder = ""
			}
		}
		if seen.holder != "" {
			v, err := eventstore.LastVersion(ctx, l.deps.Store, lease.RenewalStream(name, epoch))
			if err != nil {
				return nil, 0, fmt.Errorf("read lease %s: %w", name, err)
			}
			seen.renewals = v
		}
		out[i] = seen
	}
	return out, longest, nil
}
