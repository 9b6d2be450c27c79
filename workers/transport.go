package workers

import (
	"errors"
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

// ErrTransportNotBuilt reports a transport kind that is planned but not implemented yet.
var ErrTransportNotBuilt = errors.New("transport not built yet")

// TransportConfig chooses what carries messages between the dispatcher and the handlers.
type TransportConfig struct {
	// Kind is "gochannel" (default: in process) or "nats" (NATS JetStream, for several
	// instances; not built yet).
	Kind string
	// GoChannel configures the in-process transport.
	GoChannel GoChannelConfig
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
	if c.Kind == "" {
		c.Kind = TransportGoChannel
	}
	if c.GoChannel.OutputBuffer == 0 {
		c.GoChannel.OutputBuffer = 256
	}
}

// Validate checks the configuration (zero values take defaults).
func (c TransportConfig) Validate() error {
	switch c.Kind {
	case "", TransportGoChannel:
	case TransportNATS:
		return fmt.Errorf("transport %q: %w (use %q)", c.Kind, ErrTransportNotBuilt, TransportGoChannel)
	default:
		return fmt.Errorf("transport %q: unknown kind, want %q or %q", c.Kind, TransportGoChannel, TransportNATS)
	}
	if c.GoChannel.OutputBuffer < 0 {
		return fmt.Errorf("transport: gochannel output buffer %d, want 0 (default) or more", c.GoChannel.OutputBuffer)
	}
	return nil
}

// Transport is a publisher and a subscriber on the same medium.
type Transport struct {
	Kind       string
	Publisher  message.Publisher
	Subscriber message.Subscriber
	close      func() error
}

// NewTransport builds the transport cfg names. logger may be nil.
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
	default:
		return nil, fmt.Errorf("transport %q: %w", cfg.Kind, ErrTransportNotBuilt)
	}
}

// Close closes the transport; blocked publishes return.
func (t *Transport) Close() error { return t.close() }
