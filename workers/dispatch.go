package workers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
)

// Topics.
const (
	// EventTopicPrefix starts the topic of every event type: "events.<Type>".
	EventTopicPrefix = "events."
	// TopicTransitions carries every event that changes a job's status.
	TopicTransitions = "transitions"
	// TopicPoison carries the messages handlers could not process after all retries.
	TopicPoison = "poison"
)

// Metadata keys of a dispatched message.
const (
	MetaStream        = "stream"
	MetaVersion       = "version"
	MetaPosition      = "position"
	MetaType          = "type"
	MetaSchemaVersion = "schema_version"
	MetaRecordedAt    = "recorded_at"
	// MetaCorrelationID is watermill's correlation key, so its CorrelationID middleware works.
	MetaCorrelationID = "correlation_id"
	// MetaCausationID is the dispatched event's position: what a handler appends was caused
	// by it.
	MetaCausationID = "causation_id"
	// MetaStatus is the status a transition moves its job to (transitions only).
	MetaStatus = "status"
)

// EventTopic is the topic an event type is published to.
func EventTopic(eventType string) string { return EventTopicPrefix + eventType }

var messageNamespace = uuid.MustParse("5d0c7a52-2f4e-4c38-9f4c-6a0f1f0d7e21")

// MessageUUID is the UUID of the message carrying the event at pos: the same on every
// publication of that event, on every topic.
func MessageUUID(pos eventstore.Position) string {
	return uuid.NewSHA1(messageNamespace, []byte(strconv.FormatUint(uint64(pos), 10))).String()
}

// DispatcherConfig configures a Dispatcher.
type DispatcherConfig struct {
	// Name names the consumer; its checkpoint lives in stream "checkpoint-<Name>". Default
	// "dispatcher".
	Name string
	// Checkpoint throttles checkpoint saves.
	Checkpoint CheckpointConfig
	// FlushTimeout bounds the final checkpoint save when the dispatcher stops. Default 5s.
	FlushTimeout time.Duration
}

func (c *DispatcherConfig) setDefaults() {
	c.Name = cmp.Or(c.Name, "dispatcher")
	c.FlushTimeout = cmp.Or(c.FlushTimeout, 5*time.Second)
	c.Checkpoint.setDefaults()
}

// Validate checks the configuration (zero values take defaults).
func (c DispatcherConfig) Validate() error {
	if strings.ContainsAny(c.Name, " \t\n") {
		return fmt.Errorf("dispatcher: name %q contains white space", c.Name)
	}
	if c.FlushTimeout < 0 {
		return fmt.Errorf("dispatcher: flush timeout %s, want 0 (default) or more", c.FlushTimeout)
	}
	return c.Checkpoint.Validate()
}

// Dispatcher follows the event log from its checkpoint and publishes every request event to its
// event topic (and status changes to TopicTransitions). Delivery is at least once: see the
// package doc.
type Dispatcher struct {
	store  eventstore.Store
	pub    message.Publisher
	cfg    DispatcherConfig
	codec  *eventstore.Codec
	logger *slog.Logger
	// keep, when set, says which records are published (the others are passed over).
	keep func(eventstore.Record) bool
	// from is where a consumer that never saved a checkpoint starts (after it).
	from eventstore.Position

	running   atomic.Bool
	published atomic.Uint64
	position  atomic.Uint64
}

// NewDispatcher returns a dispatcher publishing to pub. logger may be nil.
func NewDispatcher(store eventstore.Store, pub message.Publisher, cfg DispatcherConfig, logger *slog.Logger) (*Dispatcher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	if store == nil || pub == nil {
		return nil, errors.New("dispatcher: nil store or publisher")
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Dispatcher{store: store, pub: pub, cfg: cfg, codec: projections.NewCodec(), logger: logger.With("consumer", cfg.Name)}, nil
}

// Published counts the messages published (a transition counts twice).
func (d *Dispatcher) Published() uint64 { return d.published.Load() }

// Position is the position of the last record the dispatcher went past (published or skipped).
func (d *Dispatcher) Position() eventstore.Position { return eventstore.Position(d.position.Load()) }

// Run loads the checkpoint and dispatches until ctx is done, then saves the checkpoint and
// returns nil. It returns an error when the log cannot be read, a publish fails or the
// checkpoint cannot be saved (ErrCheckpointConflict: another instance drives this consumer).
// The transport's subscribers must be running before Run starts (see the package doc).
func (d *Dispatcher) Run(ctx context.Context) (err error) {
	if !d.running.CompareAndSwap(false, true) {
		return errors.New("dispatcher: already running")
	}
	defer d.running.Store(false)

	cp, err := LoadCheckpoint(ctx, d.store, d.cfg.Name, d.cfg.Checkpoint)
	if err != nil {
		return err
	}
	if cp.Saved() == 0 && d.from > 0 {
		// A new consumer of an old log: what came before from was recovered from the
		// projections, not dispatched.
		if err := cp.Advance(ctx, d.from); err != nil {
			return err
		}
		if err := cp.Flush(ctx); err != nil {
			return err
		}
	}
	d.position.Store(uint64(cp.Saved()))
	d.logger.Info("dispatcher starting", "after", cp.Saved())
	defer func() {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.cfg.FlushTimeout)
		defer cancel()
		if ferr := cp.Flush(fctx); ferr != nil {
			err = errors.Join(err, ferr)
		}
		d.logger.Info("dispatcher stopped", "checkpoint", cp.Saved(), "err", err)
	}()

	err = Follow(ctx, d.store, cp.Saved(), cp, d.cfg.Checkpoint.Interval, func(ctx context.Context, r eventstore.Record) (bool, error) {
		if IsCheckpointStream(r.Stream) {
			d.position.Store(uint64(r.Position))
			return false, nil // our own saves (and other consumers'): not progress
		}
		if err := d.dispatch(ctx, r); err != nil {
			return false, err
		}
		d.position.Store(uint64(r.Position))
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("dispatcher %s: %w", d.cfg.Name, err)
	}
	return nil
}

func (d *Dispatcher) dispatch(ctx context.Context, r eventstore.Record) error {
	if !strings.HasPrefix(r.Stream, domain.StreamPrefix) || (d.keep != nil && !d.keep(r)) {
		return nil
	}
	ev, err := projections.DecodeEvent(d.codec, r)
	if err != nil {
		// An event this build cannot read stops the dispatcher rather than being skipped.
		return fmt.Errorf("dispatcher %s: %w", d.cfg.Name, err)
	}
	if err := d.publish(EventTopic(r.Type), r, ""); err != nil {
		return err
	}
	if status, ok := domain.StatusAfter(ev); ok {
		if err := d.publish(TopicTransitions, r, status.String()); err != nil {
			return err
		}
	}
	return nil
}

func (d *Dispatcher) publish(topic string, r eventstore.Record, status string) error {
	msg := NewEventMessage(r)
	if status != "" {
		msg.Metadata.Set(MetaStatus, status)
	}
	if err := d.pub.Publish(topic, msg); err != nil {
		return fmt.Errorf("dispatcher %s: publish %s@%d (position %d) to %s: %w", d.cfg.Name, r.Stream, r.Version, r.Position, topic, err)
	}
	d.published.Add(1)
	return nil
}

// NewEventMessage builds the message carrying record r: UUID from the position, the record's
// data as payload and its coordinates as metadata.
func NewEventMessage(r eventstore.Record) *message.Message {
	msg := message.NewMessage(MessageUUID(r.Position), message.Payload(r.Data))
	msg.Metadata.Set(MetaStream, r.Stream)
	msg.Metadata.Set(MetaVersion, strconv.FormatInt(int64(r.Version), 10))
	msg.Metadata.Set(MetaPosition, MessageMetaPosition(r.Position))
	msg.Metadata.Set(MetaType, r.Type)
	msg.Metadata.Set(MetaSchemaVersion, strconv.Itoa(r.SchemaVersion))
	if !r.Metadata.RecordedAt.IsZero() {
		msg.Metadata.Set(MetaRecordedAt, r.Metadata.RecordedAt.UTC().Format(time.RFC3339Nano))
	}
	corr := r.Metadata.CorrelationID
	corr = cmp.Or(corr, r.Stream)
	msg.Metadata.Set(MetaCorrelationID, corr)
	msg.Metadata.Set(MetaCausationID, MessageMetaPosition(r.Position))
	return msg
}

// RecordFromMessage rebuilds the record a dispatched message carries.
func RecordFromMessage(msg *message.Message) (eventstore.Record, error) {
	md := msg.Metadata
	r := eventstore.Record{Stream: md.Get(MetaStream), Type: md.Get(MetaType), Data: append([]byte(nil), msg.Payload...)}
	if r.Stream == "" || r.Type == "" {
		return r, fmt.Errorf("message %s: no %s or %s metadata", msg.UUID, MetaStream, MetaType)
	}
	v, err := strconv.ParseInt(md.Get(MetaVersion), 10, 64)
	if err != nil {
		return r, fmt.Errorf("message %s: %s metadata: %w", msg.UUID, MetaVersion, err)
	}
	r.Version = eventstore.Version(v)
	p, err := strconv.ParseUint(md.Get(MetaPosition), 10, 64)
	if err != nil {
		return r, fmt.Errorf("message %s: %s metadata: %w", msg.UUID, MetaPosition, err)
	}
	r.Position = eventstore.Position(p)
	sv, err := strconv.Atoi(md.Get(MetaSchemaVersion))
	if err != nil {
		return r, fmt.Errorf("message %s: %s metadata: %w", msg.UUID, MetaSchemaVersion, err)
	}
	r.SchemaVersion = sv
	if s := md.Get(MetaRecordedAt); s != "" {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			r.Metadata.RecordedAt = t
		}
	}
	r.Metadata.CorrelationID = md.Get(MetaCorrelationID)
	return r, nil
}

// MessageMetaPosition formats a position as the MetaPosition and MetaCausationID metadata do.
func MessageMetaPosition(p eventstore.Position) string { return strconv.FormatUint(uint64(p), 10) }
