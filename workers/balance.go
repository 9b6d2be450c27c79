package workers

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/workers/gateway"
)

// balanceGuard follows the balance of the engine's signing key and pauses the key before it runs
// out: below the floor (Config.BalanceFloorWei) it records SignerPaused in the key's stream
// (domain.SignerStream) and the tx worker starts no new transaction with it (its jobs wait, parked
// with the label insufficient_balance, and fail with it only at their processing deadline; the
// transactions already sent go on); back above the floor plus a tenth, it records SignerResumed
// and the parked jobs go back to their queues at once. The tenth keeps a key whose balance
// hovers at the floor from pausing and resuming at every receipt.
//
// Whether the key is paused is the stream's word, not this process's: an engine that starts (a
// restart, a fleet's new lease holder) reads it before it sends anything, and every event is
// appended with the stream's expected version, so that a fleet records one pause and one
// resumption however many of its instances saw the balance cross.
type balanceGuard struct {
	e      *Engine
	addr   string
	stream string
	// floor is the configured floor; nil: the automatic one (reserve).
	floor    *big.Int
	interval time.Duration
	wake     chan struct{}

	paused atomic.Bool
	// checking serializes the checks (the loop's, checkNow's); folded is under it.
	checking sync.Mutex
	folded   eventstore.Folded[signerState]

	mu      sync.Mutex
	balance *big.Int // the last balance read; nil before the first
	// floorUsed is the floor the last check held the balance to; nil while none is known.
	floorUsed *big.Int
	// reserves are the reserves (gas limit × max fee per gas) of the key's last transactions, a
	// ring of reserveWindow.
	reserves weiRing
}

// reserveWindow is how many of the key's last transactions the automatic floor looks at.
const reserveWindow = 32

// signerState is a signer stream's fold: whether the key is paused, since when, and the floor
// its pause recorded.
type signerState struct {
	paused bool
	since  time.Time
	floor  *big.Int
}

func foldSigner(s signerState, e eventstore.Typed) signerState {
	switch x := e.(type) {
	case domain.SignerPaused:
		floor, _ := new(big.Int).SetString(x.FloorWei, 10)
		return signerState{paused: true, since: x.At, floor: floor}
	case domain.SignerResumed:
		return signerState{}
	}
	return s
}

func newBalanceGuard(e *Engine) *balanceGuard {
	floor, _ := e.cfg.balanceFloor() // Validate checked it
	addr := e.gw.Address().Hex()
	return &balanceGuard{e: e, addr: addr, stream: domain.SignerStream(addr), floor: floor, interval: e.cfg.BalanceInterval,
		wake: make(chan struct{}, 1), folded: eventstore.NewFolded(signerState{})}
}

// isPaused tells whether the key takes no new transaction.
func (g *balanceGuard) isPaused() bool { return g.paused.Load() }

// poke asks for a read of the balance now (a receipt was recorded, the node refused a
// transaction for funds).
func (g *balanceGuard) poke() {
	select {
	case g.wake <- struct{}{}:
	default:
	}
}

// observe takes note of a transaction prepared with the key, for the automatic floor.
func (g *balanceGuard) observe(p *gateway.Prepared) {
	if p == nil || p.GasFeeCap == nil {
		return
	}
	r := new(big.Int).Mul(new(big.Int).SetUint64(p.GasLimit), p.GasFeeCap)
	g.mu.Lock()
	g.reserves.add(r, reserveWindow)
	g.mu.Unlock()
}

// floorNow is the floor in force: the configured one, or BalanceFloorJobs times the costliest
// recent reserve (nil before the key's first transaction: no floor yet).
func (g *balanceGuard) floorNow() *big.Int {
	if g.floor != nil {
		return g.floor
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var most *big.Int
	for _, r := range g.reserves.wei {
		if most == nil || r.Cmp(most) > 0 {
			most = r
		}
	}
	if most == nil {
		return nil
	}
	return new(big.Int).Mul(most, big.NewInt(BalanceFloorJobs))
}

// resumeAt is the balance a paused key must reach again: the floor plus a tenth.
func resumeAt(floor *big.Int) *big.Int {
	return new(big.Int).Add(floor, new(big.Int).Quo(floor, big.NewInt(10)))
}

// lastBalance is the balance last read, nil before the first read.
func (g *balanceGuard) lastBalance() *big.Int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.balance
}

// lastFloor is the floor the last check held the balance to, nil while none is known.
func (g *balanceGuard) lastFloor() *big.Int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.floorUsed
}

// load reads the key's stream: a key the log has paused stays paused from the engine's start.
func (g *balanceGuard) load(ctx context.Context) error {
	g.checking.Lock()
	defer g.checking.Unlock()
	if err := g.folded.Catch(ctx, g.e.store, g.e.exec.Codec, g.stream, foldSigner); err != nil {
		return fmt.Errorf("balance guard: %w", err)
	}
	g.paused.Store(g.folded.State.paused)
	return nil
}

// run reads the balance every interval, and when poked (at most once a second), and records
// the key's pauses and resumptions, until ctx ends.
func (g *balanceGuard) run(ctx context.Context) error {
	everyOrWoken(ctx, g.interval, g.wake, g.check)
	return nil
}

// everyOrWoken calls check at once, then every interval, or sooner when wake delivers, but at
// most once a second, until ctx ends.
func everyOrWoken(ctx context.Context, interval time.Duration, wake <-chan struct{}, check func(context.Context)) {
	gap := min(interval, time.Second)
	for {
		check(ctx)
		if !sleepCtx(ctx, gap) {
			return
		}
		t := time.NewTimer(interval - gap)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// checkNow checks the balance at once and tells whether the key is paused.
func (g *balanceGuard) checkNow(ctx context.Context) bool {
	g.check(ctx)
	return g.isPaused()
}

// check reads the balance once and records what it says of the key. A failed read changes
// nothing (the node's trouble is the outage tracker's); a failed append is tried at the next
// check.
func (g *balanceGuard) check(ctx context.Context) {
	g.checking.Lock()
	defer g.checking.Unlock()
	bal, err := g.e.gw.Balance(ctx)
	if err != nil {
		if ctx.Err() == nil {
			g.e.logChain("balance guard: read the key's balance", "address", g.addr, "err", err)
		}
		return
	}
	g.mu.Lock()
	g.balance = bal
	g.mu.Unlock()
	was := g.paused.Load()
	err = g.folded.Catch(ctx, g.e.store, g.e.exec.Codec, g.stream, foldSigner)
	floor := g.floorNow()
	switch {
	case floor != nil:
	case g.folded.State.paused && g.folded.State.floor != nil:
		// The automatic floor is not known yet in this process (no transaction since it
		// started): the key stays paused until it clears the floor its pause recorded.
		floor = g.folded.State.floor
	}
	g.mu.Lock()
	g.floorUsed = floor
	g.mu.Unlock()
	if floor == nil {
		floor = new(big.Int) // no floor known yet: never below it
	}
	resume := resumeAt(floor)
	if err == nil {
		_, err = eventstore.Update(ctx, g.e.store, g.e.exec.Codec, g.stream, &g.folded, foldSigner,
			func(s signerState) ([]eventstore.Typed, error) {
				now := g.e.now().UTC()
				switch {
				case !s.paused && bal.Cmp(floor) < 0:
					return []eventstore.Typed{domain.SignerPaused{Address: g.addr, BalanceWei: bal.String(), FloorWei: floor.String(),
						Reason: fmt.Sprintf("the key's balance %s wei is below the floor %s wei", bal, floor), At: now}}, nil
				case s.paused && bal.Cmp(resume) >= 0:
					return []eventstore.Typed{domain.SignerResumed{Address: g.addr, BalanceWei: bal.String(), ResumeWei: resume.String(),
						PausedSince: s.since.UTC(), At: now}}, nil
				}
				return nil, nil
			}, eventstore.Metadata{}, nil, 5)
	}
	if err != nil {
		if ctx.Err() == nil {
			g.e.log.Warn("balance guard: record the key's state; trying again at the next check", "address", g.addr, "err", err)
		}
		return
	}
	now := g.folded.State.paused
	g.paused.Store(now)
	switch {
	case now && !was:
		g.e.log.Warn("balance guard: the signing key's balance is below the floor; it takes no new transaction until it is topped up",
			"address", g.addr, "balance_wei", bal, "floor_wei", floor, "resume_wei", resume)
	case !now && was:
		g.e.log.Info("balance guard: the signing key was topped up; it takes transactions again", "address", g.addr, "balance_wei", bal)
		g.e.tx.unpark()
	}
}

// pausedError is why a job of a paused key waits.
func (g *balanceGuard) pausedError() error {
	floor, bal := g.lastFloor(), g.lastBalance()
	return &SignerPausedError{Address: g.addr, Balance: bal, Floor: floor}
}

// SignerPausedError is the wait of a job whose signing key the balance guard paused.
type SignerPausedError struct {
	Address        string
	Balance, Floor *big.Int // nil when unknown
}

func (e *SignerPausedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the signing key %s is paused: its balance", e.Address)
	if e.Balance != nil {
		fmt.Fprintf(&b, " %s wei", e.Balance)
	}
	b.WriteString(" is below the floor")
	if e.Floor != nil {
		fmt.Fprintf(&b, " %s wei", e.Floor)
	}
	b.WriteString("; the job waits until the key is topped up")
	return b.String()
}

// isSignerPaused tells a paused key's wait.
func isSignerPaused(err error) bool {
	var pe *SignerPausedError
	return errors.As(err, &pe)
}
