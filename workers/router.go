package workers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers/upstream"
)

// RouterConfig configures the handlers' router.
type RouterConfig struct {
	// MaxRetries is how many times a failed handler is retried before its message goes to the
	// poison topic. Default 5; -1 means no retry.
	MaxRetries int
	// InitialInterval is the nominal wait before the first retry. Default 100ms.
	InitialInterval time.Duration
	// Multiplier scales the nominal wait after each retry. Default 2.
	Multiplier float64
	// MaxInterval caps the nominal wait between retries. Default 5s. Each wait is drawn at
	// random between half the nominal one and all of it (upstream.Backoff, EqualJitter), so that
	// the messages one failure hit (the log unreadable for a moment) are not all retried at the
	// same instant, yet a message is poisoned only after a failure that outlasted at least half
	// the nominal waits: with the defaults, 5 retries over 1.55s to 3.1s.
	MaxInterval time.Duration
	// CloseTimeout is how long Close waits for handlers in progress. Default 10s.
	CloseTimeout time.Duration
}

func (c *RouterConfig) setDefaults() {
	switch c.MaxRetries {
	case 0:
		c.MaxRetries = 5
	case -1:
		c.MaxRetries = 0
	}
	c.InitialInterval = cmp.Or(c.InitialInterval, 100*time.Millisecond)
	c.Multiplier = cmp.Or(c.Multiplier, 2)
	c.MaxInterval = cmp.Or(c.MaxInterval, 5*time.Second)
	c.CloseTimeout = cmp.Or(c.CloseTimeout, 10*time.Second)
}

// Validate checks the configuration (zero values take defaults).
func (c RouterConfig) Validate() error {
	switch {
	case c.MaxRetries < -1:
		return fmt.Errorf("router: max retries %d, want -1 (none), 0 (default) or more", c.MaxRetries)
	case c.InitialInterval < 0:
		return fmt.Errorf("router: initial interval %s is negative", c.InitialInterval)
	case c.Multiplier != 0 && c.Multiplier < 1:
		return fmt.Errorf("router: multiplier %g, want 1 or more", c.Multiplier)
	case c.MaxInterval < 0:
		return fmt.Errorf("router: max interval %s is negative", c.MaxInterval)
	case c.MaxInterval > 0 && c.InitialInterval > c.MaxInterval:
		return fmt.Errorf("router: initial interval %s exceeds max interval %s", c.InitialInterval, c.MaxInterval)
	case c.CloseTimeout < 0:
		return fmt.Errorf("router: close timeout %s is negative", c.CloseTimeout)
	}
	return nil
}

// EventHandler handles one dispatched domain event. msg carries the metadata (MetaCausationID
// is what the handler's appends are caused by); ctx is the message's context. Returning an
// error retries the message; after the retries it goes to the poison topic. Wrap an error with
// Permanent to skip the retries.
type EventHandler func(ctx context.Context, msg *message.Message, event domain.Event) error

// PermanentError marks a failure that retrying cannot fix.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return "permanent: " + e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent marks err as not worth retrying: its message goes straight to the poison topic.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// Router runs event handlers on a watermill router with, from the outside in: correlation ids,
// the poison queue (after the retries are exhausted), retries with jittered exponential backoff
// (retrying), and panic recovery (a panic is an error like any other, so it is retried and then
// poisoned).
type Router struct {
	*message.Router
	transport *Transport
	codec     *eventstore.Codec
	logger    *slog.Logger
	poisoned  atomic.Uint64
	// onPoison, when set, is told of every poisoned message after it was published.
	onPoison func(*message.Message)
}

// NewRouter builds the router on transport t. logger may be nil.
func NewRouter(cfg RouterConfig, t *Transport, logger *slog.Logger) (*Router, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	if t == nil {
		return nil, errors.New("router: nil transport")
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	wlog := quietLogger(logger)
	mr, err := message.NewRouter(message.RouterConfig{CloseTimeout: cfg.CloseTimeout}, wlog)
	if err != nil {
		return nil, err
	}
	r := &Router{Router: mr, transport: t, codec: projections.NewCodec(), logger: logger}
	poison, err := middleware.PoisonQueue(poisonCounter{pub: t.Publisher, r: r}, TopicPoison)
	if err != nil {
		return nil, err
	}
	mr.AddMiddleware(middleware.CorrelationID, poison, retrying(cfg, logger), middleware.Recoverer)
	return r, nil
}

// retrying calls a handler again after an error, cfg.MaxRetries times at most, waiting
// upstream.Backoff{InitialInterval, MaxInterval, Multiplier, EqualJitter} between tries, unless
// the error is a *PermanentError. Each try gets the message's original context (a failed try may
// have cancelled the one it was given). When that context ends during a wait, the context's error
// is returned. cfg has its defaults.
func retrying(cfg RouterConfig, log *slog.Logger) message.HandlerMiddleware {
	b := upstream.Backoff{Base: cfg.InitialInterval, Max: cfg.MaxInterval, Multiplier: cfg.Multiplier, Jitter: upstream.EqualJitter}
	return func(h message.HandlerFunc) message.HandlerFunc {
		return func(msg *message.Message) ([]*message.Message, error) {
			ctx := msg.Context()
			for n := 1; ; n++ {
				msg.SetContext(ctx)
				out, err := h(msg)
				var perm *PermanentError
				if err == nil || n > cfg.MaxRetries || errors.As(err, &perm) {
					return out, err
				}
				wait := b.Delay(n, nil)
				log.Warn("handler failed; retrying", "handler", message.HandlerNameFromCtx(ctx), "uuid", msg.UUID,
					"retry", n, "of", cfg.MaxRetries, "in", wait, "err", err)
				if !sleepCtx(ctx, wait) {
					return out, context.Cause(ctx)
				}
			}
		}
	}
}

// Poisoned counts the messages published to the poison topic, for metrics.
func (r *Router) Poisoned() uint64 { return r.poisoned.Load() }

// AddHandler subscribes h to topic under a unique name. The message's payload and metadata are
// decoded into the domain event with the projections' codec; a message that cannot be decoded
// goes to the poison topic without retries. Add handlers before Run (or call RunHandlers).
func (r *Router) AddHandler(name, topic string, h EventHandler) *message.Handler {
	return r.AddConsumerHandler(name, topic, r.transport.Subscriber, func(msg *message.Message) error {
		ev, err := DecodeMessage(r.codec, msg)
		if err != nil {
			return Permanent(err)
		}
		return h(msg.Context(), msg, ev)
	})
}

// DecodeMessage turns a dispatched message back into its domain event with codec c (built by
// projections.NewCodec).
func DecodeMessage(c *eventstore.Codec, msg *message.Message) (domain.Event, error) {
	rec, err := RecordFromMessage(msg)
	if err != nil {
		return nil, err
	}
	return projections.DecodeEvent(c, rec)
}

// poisonCounter is the poison topic's publisher: it counts what it published and tells
// the router's onPoison.
type poisonCounter struct {
	pub message.Publisher
	r   *Router
}

func (p poisonCounter) Publish(topic string, msgs ...*message.Message) error {
	if err := p.pub.Publish(topic, msgs...); err != nil {
		return err
	}
	for _, m := range msgs {
		p.r.logger.Warn("message poisoned", "uuid", m.UUID, "stream", m.Metadata.Get(MetaStream),
			"position", m.Metadata.Get(MetaPosition), "type", m.Metadata.Get(MetaType),
			"handler", m.Metadata.Get(middleware.PoisonedHandlerKey), "reason", m.Metadata.Get(middleware.ReasonForPoisonedKey))
	}
	p.r.poisoned.Add(uint64(len(msgs)))
	if p.r.onPoison != nil {
		for _, m := range msgs {
			p.r.onPoison(m)
		}
	}
	return nil
}

func (p poisonCounter) Close() error { return nil }
