package workers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"relayer/eventstore"
)

// CheckpointStreamPrefix starts the name of every checkpoint stream: "checkpoint-<consumer>".
const CheckpointStreamPrefix = "checkpoint-"

// ErrCheckpointConflict reports that a checkpoint stream moved under this instance: another
// instance drives the same consumer. It wraps eventstore.ErrWrongExpectedVersion too.
var ErrCheckpointConflict = errors.New("checkpoint conflict: another instance drives this consumer")

// CheckpointAdvanced records that a consumer has processed the log up to Position (inclusive).
// StuckSince, when set, is when the consumer began failing to process what comes after Position
// (see Checkpoint.MarkStuck); absent in the saves of a consumer that is not stuck, and in every
// save of the builds before it.
type CheckpointAdvanced struct {
	Position   eventstore.Position `json:"position"`
	At         time.Time           `json:"at"`
	StuckSince time.Time           `json:"stuckSince,omitzero"`
}

// EventType names the event in the store.
func (CheckpointAdvanced) EventType() string { return "CheckpointAdvanced" }

// NewCheckpointCodec returns the codec of the checkpoint streams. Checkpoint events live outside
// the request streams, which projections skip, so they never reach the projections' codec.
func NewCheckpointCodec() *eventstore.Codec {
	c := eventstore.NewCodec()
	if err := eventstore.Register[CheckpointAdvanced](c, 1); err != nil {
		panic(fmt.Sprintf("checkpoint codec: %v", err))
	}
	if err := eventstore.Register[BlockCursorSaved](c, 1); err != nil {
		panic(fmt.Sprintf("checkpoint codec: %v", err))
	}
	return c
}

// CheckpointStream is the stream holding the checkpoints of consumer name.
func CheckpointStream(name string) string { return CheckpointStreamPrefix + name }

// IsCheckpointStream tells whether stream holds checkpoints.
func IsCheckpointStream(stream string) bool { return strings.HasPrefix(stream, CheckpointStreamPrefix) }

// CheckpointConfig throttles checkpoint writes.
type CheckpointConfig struct {
	// Every saves after this many advances since the last save. Default 100.
	Every int
	// Interval saves when progress is pending and this long has passed since the last save.
	// Default 1s.
	Interval time.Duration
}

func (c *CheckpointConfig) setDefaults() {
	c.Every = cmp.Or(c.Every, 100)
	c.Interval = cmp.Or(c.Interval, time.Second)
}

// Validate checks the configuration (zero values take defaults).
func (c CheckpointConfig) Validate() error {
	if c.Every < 0 {
		return fmt.Errorf("checkpoint: every %d, want 0 (default) or more", c.Every)
	}
	if c.Interval < 0 {
		return fmt.Errorf("checkpoint: interval %s, want 0 (default) or more", c.Interval)
	}
	return nil
}

// Checkpoint is the durable position of one named consumer, kept in the event store as the last
// CheckpointAdvanced event of stream "checkpoint-<name>". It is not safe for concurrent use: one
// goroutine (the consumer) owns it. Saves append with the expected version, so two instances
// driving the same consumer are detected (ErrCheckpointConflict) instead of interleaving.
type Checkpoint struct {
	store eventstore.Store
	codec *eventstore.Codec
	name  string
	cfg   CheckpointConfig
	now   func() time.Time

	saved   eventstore.Folded[eventstore.Position] // the last saved position, and its version
	pending eventstore.Position                    // last advanced position
	// stuck is the consumer's stuck mark (see SetStuck), which every save records; savedStuck
	// the mark as the last save recorded it.
	stuck, savedStuck time.Time
	advances          int // advances since the last save
	lastSave          time.Time
	saves             int
	// While the store is full (eventstore.ErrStorageFull), due saves wait until deferredUntil,
	// backing off; deferrals counts the saves deferred in a row.
	deferredUntil time.Time
	deferrals     int
}

// LoadCheckpoint reads consumer name's checkpoint (position 0 when it never saved one).
func LoadCheckpoint(ctx context.Context, store eventstore.Store, name string, cfg CheckpointConfig) (*Checkpoint, error) {
	if name == "" {
		return nil, errors.New("checkpoint: empty consumer name")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	c := &Checkpoint{store: store, codec: NewCheckpointCodec(), name: name, cfg: cfg, now: time.Now}
	last, v, err := eventstore.Last(ctx, store, c.codec, CheckpointStream(name))
	if err != nil {
		return nil, fmt.Errorf("load checkpoint %s: %w", name, err)
	}
	c.saved = eventstore.Folded[eventstore.Position]{Version: v}
	if last != nil {
		c.saved.State = foldCheckpoint(0, last)
		if a, ok := last.(CheckpointAdvanced); ok {
			c.stuck, c.savedStuck = a.StuckSince, a.StuckSince
		}
	}
	c.pending = c.saved.State
	c.lastSave = c.now()
	return c, nil
}

// Name is the consumer's name.
func (c *Checkpoint) Name() string { return c.name }

// Saved is the last saved position: a consumer restarted now resumes after it.
func (c *Checkpoint) Saved() eventstore.Position { return c.saved.State }

// Pending is the last position passed to Advance (equal to Saved when nothing is pending).
func (c *Checkpoint) Pending() eventstore.Position { return c.pending }

// Saves counts the checkpoint events this instance appended.
func (c *Checkpoint) Saves() int { return c.saves }

// Advance records that the consumer processed everything up to pos and saves when Every
// advances or Interval have accumulated. Positions at or before the pending one are ignored. A
// save that the store refuses because it is full is deferred, not failed (see flushDue).
func (c *Checkpoint) Advance(ctx context.Context, pos eventstore.Position) error {
	if pos <= c.pending {
		return nil
	}
	c.pending = pos
	c.advances++
	return c.flushDue(ctx)
}

// Due tells whether pending progress should be saved now: not while a save deferred by a full
// store waits out its backoff.
func (c *Checkpoint) Due() bool {
	if !c.dirty() || c.now().Before(c.deferredUntil) {
		return false
	}
	return c.advances >= c.cfg.Every || c.now().Sub(c.lastSave) >= c.cfg.Interval
}

// flushDue saves when a save is due. A store that is full defers the save rather than failing
// the consumer: its progress is only not yet durable (a restart would hand it the records since
// the last save again, which consumers of the log take at least once anyway), and the save is
// tried again after a backoff that doubles from a second to maxDeferral.
func (c *Checkpoint) flushDue(ctx context.Context) error {
	if !c.Due() {
		return nil
	}
	err := c.Flush(ctx)
	if errors.Is(err, eventstore.ErrStorageFull) {
		c.deferredUntil = c.now().Add(min(time.Second<<min(c.deferrals, 5), maxDeferral))
		c.deferrals++
		return nil
	}
	return err
}

// maxDeferral is the longest wait between two saves that a full store refused.
const maxDeferral = 30 * time.Second

// Deferrals counts the due saves a full store has refused in a row (0 once one succeeds).
func (c *Checkpoint) Deferrals() int { return c.deferrals }

// StuckSince is the consumer's stuck mark: when it began failing to process what comes after its
// position, zero when it is not stuck (see SetStuck). A consumer restarted, or taken over by
// another instance, reads here how long it had been stuck.
func (c *Checkpoint) StuckSince() time.Time { return c.stuck }

// StuckSaved tells whether the stuck mark is saved as it is.
func (c *Checkpoint) StuckSaved() bool { return c.stuck.Equal(c.savedStuck) }

// SetStuck sets the stuck mark: the consumer has been failing to process what comes after its
// position since since (zero: it no longer is). The next save records it (Flush, or a due one).
func (c *Checkpoint) SetStuck(since time.Time) { c.stuck = since }

// MarkStuck sets the stuck mark and saves it at once with the pending position. A save that
// fails leaves the mark set, for the next save to record.
func (c *Checkpoint) MarkStuck(ctx context.Context, since time.Time) error {
	c.SetStuck(since)
	return c.Flush(ctx)
}

// dirty tells whether something is not saved yet: a position past the saved one, or a stuck mark
// other than the saved one.
func (c *Checkpoint) dirty() bool {
	return c.pending > c.saved.State || !c.stuck.Equal(c.savedStuck)
}

// Flush saves the pending position and the stuck mark if either is not saved yet.
func (c *Checkpoint) Flush(ctx context.Context) error {
	if !c.dirty() {
		return nil
	}
	return c.save(ctx)
}

// save appends the pending position with the stuck mark.
func (c *Checkpoint) save(ctx context.Context) error {
	at, stuck := c.now(), c.stuck
	// No retry: a checkpoint stream that moved under this instance means another instance drives
	// the same consumer, which deciding again cannot mend.
	_, err := eventstore.Update(ctx, c.store, c.codec, CheckpointStream(c.name), &c.saved, foldCheckpoint,
		func(eventstore.Position) ([]eventstore.Typed, error) {
			return []eventstore.Typed{CheckpointAdvanced{Position: c.pending, At: at.UTC(), StuckSince: stuck.UTC()}}, nil
		}, eventstore.Metadata{}, nil, 0)
	if err != nil {
		if errors.Is(err, eventstore.ErrWrongExpectedVersion) {
			return fmt.Errorf("save checkpoint %s at %d: %w: %w", c.name, c.pending, ErrCheckpointConflict, err)
		}
		return fmt.Errorf("save checkpoint %s at %d: %w", c.name, c.pending, err)
	}
	c.advances = 0
	c.lastSave, c.savedStuck = at, stuck
	c.saves++
	c.deferrals, c.deferredUntil = 0, time.Time{}
	return nil
}

// foldCheckpoint is a checkpoint stream's state: the last position saved.
func foldCheckpoint(p eventstore.Position, e eventstore.Typed) eventstore.Position {
	if a, ok := e.(CheckpointAdvanced); ok {
		return a.Position
	}
	return p
}

// Follow reads the log after from and hands each record to handle, in order, until ctx ends or
// the subscription closes (nil; also when handle fails because ctx ended) or something fails. Every record handle reports as handled
// advances c (a record it passes over, such as a checkpoint's own save, does not: every save
// would make the next one due), and c is flushed whenever it is due, checked every interval (a
// full store defers the save: see Checkpoint.Advance). The
// caller flushes c once more when Follow returns. A failure of the log is wrapped as "follow the
// log".
func Follow(ctx context.Context, store eventstore.Store, from eventstore.Position, c *Checkpoint, interval time.Duration,
	handle func(context.Context, eventstore.Record) (handled bool, err error)) error {
	subCtx, stop := context.WithCancel(ctx)
	defer stop()
	type recordOrErr struct {
		r   eventstore.Record
		err error
	}
	records := make(chan recordOrErr)
	go func() {
		defer close(records)
		for r, err := range store.SubscribeAll(subCtx, from) {
			select {
			case records <- recordOrErr{r, err}:
			case <-subCtx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			if err := c.flushDue(ctx); err != nil {
				return err
			}
		case re, ok := <-records:
			if !ok {
				return nil
			}
			if re.err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("follow the log: %w", re.err)
			}
			handled, err := handle(ctx, re.r)
			if err != nil {
				if ctx.Err() != nil {
					return nil // stopping is no failure
				}
				return err
			}
			if handled {
				if err := c.Advance(ctx, re.r.Position); err != nil {
					return err
				}
			}
		}
	}
}
