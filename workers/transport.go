package workers

import (
	"cmp"
	"fmt"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"
)

// Transport kinds.
const (
	TransportGoChannel = "gochannel"
	TransportNATS      = "nats"
)

// TransportConfig chooses what carries messages between the dispatcher and the handlers.
type TransportConfig struct {
	// Kind is "gochannel" (default: in process, one instance) or "nats" (NATS JetStream: the
	// work of several instances is shared; see NATSConfig for what changes).
	Kind string
	// GoChannel configures the in-process transport.
	GoChannel GoChannelConfig
	// NATS configures the NATS JetStream transport. It is validated (and takes its defaults)
	// whatever the kind, so that a mistake shows before it is switched on.
	NATS NATSConfig
}

// GoChannelConfig configures the in-process GoChannel transport. It is never persistent:
// messages published to a topic nobody subscribes to are dropped (see the package doc).
type GoChannelConfig struct {
	// OutputBuffer is each subscriber's channel buffer. Default 256.
	OutputBuffer int64
	// FireAndForget makes Publish return without waiting for the subscribers' acks. By
	// default (false) Publish blocks until every subscriber acked, so the dispatcher's
	// checkpoint never runs ahead of the handlers.
	FireAndForget bool
}

func (c *TransportConfig) setDefaults() {
	c.Kind = cmp.Or(c.Kind, TransportGoChannel)
	c.GoChannel.OutputBuffer = cmp.Or(c.GoChannel.OutputBuffer, 256)
	c.NATS.setDefaults()
}

// Validate checks the configuration (zero values take defaults).
func (c TransportConfig) Validate() error {
	switch c.Kind {
	case "", TransportGoChannel, TransportNATS:
	default:
		return fmt.Errorf("transport %q: unknown kind, want %q or %q", c.Kind, TransportGoChannel, TransportNATS)
	}
	if c.GoChannel.OutputBuffer < 0 {
		return fmt.Errorf("transport: gochannel output buffer %d, want 0 (default) or more", c.GoChannel.OutputBuffer)
	}
	return c.NATS.Validate()
}

// Transport is a publisher and a subscriber on the same medium. On GoChannel every Subscribe
// gets every message of its topic; on NATS the subscribers of a topic are one consumer group
// across instances, each message going to one of them, so a Transport refuses a second
// subscription to a topic it already subscribes to (it would take some of the first one's
// messages).
type Transport struct {
	Kind       string
	Publisher  message.Publisher
	Subscriber message.Subscriber
	close      func() error
}

// NewTransport builds the transport cfg names. logger may be nil. A NATS transport connects at
// once and creates (or updates) its stream: an unreachable server, or one without JetStream, is
// an error here rather than at the first publish.
func NewTransport(cfg TransportConfig, logger watermill.LoggerAdapter) (*Transport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	switch cfg.Kind {
	case TransportGoChannel:
		gc := gochannel.NewGoChannel(gochannel.Config{
			OutputChannelBuffer:            cfg.GoChannel.OutputBuffer,
			Persistent:                     false,
			BlockPublishUntilSubscriberAck: !cfg.GoChannel.FireAndForget,
		}, logger)
		return &Transport{Kind: cfg.Kind, Publisher: gc, Subscriber: gc, close: gc.Close}, nil
	case TransportNATS:
		return newNATSTransport(cfg.NATS, logger)
	default: // Validate refused it
		return nil, fmt.Errorf("transport %q: unknown kind", cfg.Kind)
	}
}

// Close closes the transport; blocked publishes return. With NATS, the messages handed to a
// handler and not acked yet are delivered again (to another instance) after the ack wait.
func (t *Transport) Close() error { return t.close() }
