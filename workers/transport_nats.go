package workers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wmnats "github.com/ThreeDotsLabs/watermill-nats/v2/pkg/nats"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"
)

// NATSConfig configures the NATS JetStream transport (TransportConfig.Kind "nats"), which lets
// several relayer instances share the work.
//
// # Where the messages go
//
// One stream, named Prefix, holds the subjects "<Prefix>.<topic>"; relayers (or test runs)
// with different prefixes on one server never see each other's messages, and the instances of
// one relayer share theirs. The stream is file-stored and keeps a message until every consumer
// of its subject acked it (interest retention), MaxAge at most. Each topic has one durable
// consumer with a deliver group (its name is the topic, "." written "_"), created by the first
// instance that subscribes and never deleted by a subscriber leaving: the subscribers of a
// topic, in every instance, are one consumer group, and each message goes to one of them. As
// with GoChannel, a message published on a topic that no consumer was ever created for is
// dropped: the router subscribes before the dispatcher starts.
//
// # Acks and redelivery
//
// A message is acked (and the ack confirmed by the server) only when the handler returned
// nil: watermill's router acks on success and nacks on error. A nacked message is delivered
// again after RedeliveryDelay; one neither acked nor nacked within AckWait (its handler is
// slow, its process was killed or closed its transport) is delivered again to any member of
// the group, up to MaxDeliver deliveries in all. The router's own retries and poison topic
// come first: a handler error reaches NATS as a nack only when the poison topic could not be
// written.
//
// # What Publish promises, and the dispatcher's checkpoint
//
// GoChannel's Publish returns when every subscriber acked, so the dispatcher's checkpoint never
// covers an event no handler finished with. JetStream's Publish returns when the server stored
// the message (its publish ack; with Replicas above 1, a quorum of replicas), before any handler
// saw it. The guarantee the checkpoint needs still holds: once Publish returned, the message is
// durable and is delivered, and delivered again, until a handler acks it, whichever process
// dies, so no event is lost when the checkpoint moves past it. What changes is that the
// checkpoint, and the dispatcher, run ahead of the handlers: a publisher is no longer slowed to
// the pace of the slowest handler, and what a publisher does after Publish returned may happen
// before the message is handled.
//
// # Order
//
// Each instance takes one message of a topic at a time, in the stream's order. There is no
// order between topics (GoChannel, waiting for each ack, handled the log's events one by one);
// a redelivered message comes after messages published later; with several instances the
// messages of one topic are handled side by side. Handlers must therefore take a message twice
// (a redelivery, or a re-publication after a dispatcher restart), or after messages of later
// events of the same job, as having no effect: the relayer's handlers append with the stream's
// expected version and take a command the job's state no longer allows as done.
//
// # What stays on the server
//
// The stream and its consumers outlive the relayer: a restarted instance finds its topics'
// groups, and the messages no one acked, where it left them. NewTransport and Subscribe bring
// the stream's MaxAge and Replicas and the consumers' AckWait, MaxDeliver and MaxAckPending to
// the configuration. Another Prefix is another stream: nothing moves over from the old one.
type NATSConfig struct {
	// URL is the server, or several separated by commas (a cluster's seeds), each nats://,
	// tls://, ws:// or wss://. It may carry credentials (nats://user:password@host:4222, or a
	// token: nats://token@host:4222); they never appear in an error or a log line. Default
	// nats://127.0.0.1:4222.
	URL string `yaml:"url"`
	// CredentialsFile is a NATS credentials file (a user JWT and its NKey seed), for servers
	// that use decentralized authentication. Optional.
	CredentialsFile string `yaml:"credentials_file"`
	// Prefix names the stream and starts every subject: 1 to 32 letters, digits, '-' or '_'.
	// Instances that share the work share it; anything else on the server uses another one.
	// Default "relayer".
	Prefix string `yaml:"prefix"`
	// AckWait is how long the server waits for a delivered message's ack before it delivers
	// it again. It must exceed the longest a handler takes (with the router's retries) plus
	// the wait of the messages delivered before it (MaxAckPending): the relayer's handlers
	// acknowledge within milliseconds. Default 30s.
	AckWait time.Duration `yaml:"ack_wait"`
	// RedeliveryDelay is how long a nacked message waits before it is delivered again.
	// Default 1s.
	RedeliveryDelay time.Duration `yaml:"redelivery_delay"`
	// MaxDeliver is how many times a message is delivered at most, 2 or more; -1 for no
	// limit. A message that reaches it stays in the stream, undelivered, until MaxAge; the job
	// it concerned is driven again by the workers' recovery at the next start. Default 10.
	MaxDeliver int `yaml:"max_deliver"`
	// MaxAckPending bounds the messages of a topic delivered and not acked yet, over all
	// instances. Default 256.
	MaxAckPending int `yaml:"max_ack_pending"`
	// MaxAge is the longest the stream keeps a message not every consumer acked. Default 24h.
	MaxAge time.Duration `yaml:"max_age"`
	// Replicas is the stream's number of copies in a JetStream cluster, 1 to 5. Default 1.
	Replicas int `yaml:"replicas"`
}

// Defaults of NATSConfig.
const (
	DefaultNATSURL             = "nats://127.0.0.1:4222"
	DefaultNATSPrefix          = "relayer"
	DefaultNATSAckWait         = 30 * time.Second
	DefaultNATSRedeliveryDelay = time.Second
	DefaultNATSMaxDeliver      = 10
	DefaultNATSMaxAckPending   = 256
	DefaultNATSMaxAge          = 24 * time.Hour
)

// natsCloseTimeout bounds how long closing the transport waits for the messages in hand and for
// the connection to drain.
const natsCloseTimeout = 10 * time.Second

func (c *NATSConfig) setDefaults() {
	c.URL = cmp.Or(c.URL, DefaultNATSURL)
	c.Prefix = cmp.Or(c.Prefix, DefaultNATSPrefix)
	c.AckWait = cmp.Or(c.AckWait, DefaultNATSAckWait)
	c.RedeliveryDelay = cmp.Or(c.RedeliveryDelay, DefaultNATSRedeliveryDelay)
	c.MaxDeliver = cmp.Or(c.MaxDeliver, DefaultNATSMaxDeliver)
	c.MaxAckPending = cmp.Or(c.MaxAckPending, DefaultNATSMaxAckPending)
	c.MaxAge = cmp.Or(c.MaxAge, DefaultNATSMaxAge)
	c.Replicas = cmp.Or(c.Replicas, 1)
}

var natsPrefixPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// Validate checks the configuration (zero values take defaults). Each problem names its setting
// ("nats.ack_wait"); none shows the URL's credentials.
func (c NATSConfig) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("transport: "+format, args...)) }
	if c.URL != "" {
		if err := checkNATSURLs(c.URL); err != nil {
			bad("nats.url: %v", err)
		}
	}
	if c.Prefix != "" && !natsPrefixPattern.MatchString(c.Prefix) {
		bad("nats.prefix %q: want 1 to 32 letters, digits, '-' or '_' (it names a stream and a subject token)", c.Prefix)
	}
	if c.AckWait < 0 {
		bad("nats.ack_wait %s is negative", c.AckWait)
	}
	if c.RedeliveryDelay < 0 {
		bad("nats.redelivery_delay %s is negative", c.RedeliveryDelay)
	}
	if c.MaxDeliver < -1 || c.MaxDeliver == 1 {
		bad("nats.max_deliver %d: want 2 or more, -1 (no limit) or 0 (default %d); 1 would never deliver a message again", c.MaxDeliver, DefaultNATSMaxDeliver)
	}
	if c.MaxAckPending < 0 {
		bad("nats.max_ack_pending %d is negative", c.MaxAckPending)
	}
	if c.MaxAge < 0 {
		bad("nats.max_age %s is negative", c.MaxAge)
	}
	if c.Replicas < 0 || c.Replicas > 5 {
		bad("nats.replicas %d: want 1 to 5 (0 for 1)", c.Replicas)
	}
	return errors.Join(errs...)
}

// checkNATSURLs checks a comma-separated list of server URLs without ever quoting one: it may
// hold a password.
func checkNATSURLs(list string) error {
	servers := strings.Split(list, ",")
	for i, s := range servers {
		which := "the server"
		if len(servers) > 1 {
			which = fmt.Sprintf("server %d of %d", i+1, len(servers))
		}
		u, err := url.Parse(strings.TrimSpace(s))
		if err != nil || u.Opaque != "" {
			return fmt.Errorf("%s is not a URL such as nats://host:4222 (its text is withheld, as it may hold a password)", which)
		}
		switch u.Scheme {
		case "nats", "tls", "ws", "wss":
		default:
			return fmt.Errorf("%s has scheme %q, want nats, tls, ws or wss", which, u.Scheme)
		}
		if u.Hostname() == "" {
			return fmt.Errorf("%s (%s) names no host", which, redactURL(u))
		}
		if p := u.Port(); p != "" {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				return fmt.Errorf("%s (%s) has port %q, want 1 to 65535", which, redactURL(u), p)
			}
		}
		if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("%s (%s) has a path, query or fragment; a NATS URL has none", which, redactURL(u))
		}
	}
	return nil
}

// redactURL shows where u points without its credentials.
func redactURL(u *url.URL) string {
	safe := url.URL{Scheme: u.Scheme, Host: u.Host}
	if u.User != nil {
		return safe.Scheme + "://[credentials]@" + safe.Host
	}
	return safe.String()
}

// redactURLs is redactURL over a checked comma-separated list.
func redactURLs(list string) string {
	var out []string
	for _, s := range strings.Split(list, ",") {
		u, err := url.Parse(strings.TrimSpace(s))
		if err != nil {
			out = append(out, "(withheld)")
			continue
		}
		out = append(out, redactURL(u))
	}
	return strings.Join(out, ",")
}

// natsSecrets are the credentials the URLs carry (a password, or a token where the user name
// stands alone), in the forms a message could show them.
type natsSecrets []string

func natsSecretsOf(list string) natsSecrets {
	var s natsSecrets
	add := func(secret string) {
		if secret == "" {
			return
		}
		for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret), url.UserPassword("", secret).String()[1:]} {
			if form != "" && !slices.Contains(s, form) {
				s = append(s, form)
			}
		}
	}
	for _, raw := range strings.Split(list, ",") {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || u.User == nil {
			continue
		}
		if pw, ok := u.User.Password(); ok {
			add(pw)
		} else {
			add(u.User.Username()) // a token
		}
	}
	return s
}

// scrub returns err, or, when its message shows a secret, an error whose message has each one
// replaced; it still matches what err matches with errors.Is, but does not unwrap.
func (s natsSecrets) scrub(err error) error {
	if err == nil || len(s) == 0 {
		return err
	}
	msg := err.Error()
	clean := msg
	for _, secret := range s {
		clean = strings.ReplaceAll(clean, secret, "[redacted]")
	}
	if clean == msg {
		return err
	}
	return &scrubbedNATSError{msg: clean, err: err}
}

type scrubbedNATSError struct {
	msg string
	err error
}

func (e *scrubbedNATSError) Error() string        { return e.msg }
func (e *scrubbedNATSError) Is(target error) bool { return errors.Is(e.err, target) }

// natsTransport is the NATS side of a Transport: one connection, the stream, and watermill-nats'
// publisher and subscriber behind the topic-to-subject mapping.
type natsTransport struct {
	cfg     NATSConfig
	secrets natsSecrets
	nc      *nats.Conn
	js      nats.JetStreamContext
	pub     *wmnats.Publisher
	sub     *wmnats.Subscriber
	logger  watermill.LoggerAdapter

	connClosed chan struct{}
	closing    chan struct{}
	closeOnce  sync.Once
	closeErr   error

	mu     sync.Mutex
	topics map[string]bool // subscribed in this transport
}

// newNATSTransport connects, creates or updates the stream, and builds the publisher and the
// subscriber. cfg is validated.
func newNATSTransport(cfg NATSConfig, logger watermill.LoggerAdapter) (*Transport, error) {
	if logger == nil {
		logger = watermill.NopLogger{}
	}
	t := &natsTransport{
		cfg: cfg, secrets: natsSecretsOf(cfg.URL), logger: logger,
		connClosed: make(chan struct{}), closing: make(chan struct{}), topics: map[string]bool{},
	}
	where := redactURLs(cfg.URL)
	var closedOnce sync.Once
	opts := []nats.Option{
		nats.Name("relayer/" + cfg.Prefix),
		nats.MaxReconnects(-1), // a server restart must not end the relayer's connection for good
		nats.ClosedHandler(func(*nats.Conn) { closedOnce.Do(func() { close(t.connClosed) }) }),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				logger.Error("NATS connection lost; reconnecting", t.secrets.scrub(err), watermill.LogFields{"servers": where})
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			logger.Info("NATS connection back", watermill.LogFields{"server": nc.ConnectedUrlRedacted()})
		}),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			fields := watermill.LogFields{"servers": where}
			if sub != nil {
				fields["subject"] = sub.Subject
			}
			logger.Error("NATS error", t.secrets.scrub(err), fields)
		}),
	}
	if cfg.CredentialsFile != "" {
		opts = append(opts, nats.UserCredentials(cfg.CredentialsFile))
	}
	nc, err := nats.Connect(cfg.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("transport nats: connect to %s: %w", where, t.secrets.scrub(err))
	}
	t.nc = nc
	fail := func(err error) (*Transport, error) {
		nc.Close()
		return nil, fmt.Errorf("transport nats (%s): %w", where, t.secrets.scrub(err))
	}
	if t.js, err = nc.JetStream(); err != nil {
		return fail(err)
	}
	if _, err := t.js.AccountInfo(); err != nil {
		return fail(fmt.Errorf("JetStream: %w (is the server started with JetStream, nats-server -js?)", err))
	}
	if err := t.ensureStream(); err != nil {
		return fail(err)
	}
	js := wmnats.JetStreamConfig{
		// The transport creates the stream and the consumers itself: watermill-nats would name
		// the stream after the topic, and nats.go deletes on unsubscribe a consumer it created.
		AutoProvision: false,
		// ManualAck: without it nats.go acks every message its callback returned from, and
		// watermill-nats' callback returns without an ack or a nack when the transport closes
		// or the ack wait passes, which would ack a message no handler finished.
		SubscribeOptions:  []nats.SubOpt{nats.ManualAck(), nats.BindStream(cfg.Prefix)},
		PublishOptions:    []nats.PubOpt{nats.ExpectStream(cfg.Prefix)},
		AckAsync:          false, // an ack is confirmed by the server before the next message
		DurableCalculator: func(_, subject string) string { return natsConsumerName(t.topicOf(subject)) },
	}
	marshaler := &wmnats.NATSMarshaler{}
	if t.pub, err = wmnats.NewPublisherWithNatsConn(nc, wmnats.PublisherPublishConfig{
		Marshaler: marshaler, SubjectCalculator: wmnats.DefaultSubjectCalculator, JetStream: js,
	}, logger); err != nil {
		return fail(err)
	}
	if t.sub, err = wmnats.NewSubscriberWithNatsConn(nc, wmnats.SubscriberSubscriptionConfig{
		Unmarshaler:      marshaler,
		SubscribersCount: 1,
		AckWaitTimeout:   cfg.AckWait,
		CloseTimeout:     natsCloseTimeout,
		SubscribeTimeout: natsCloseTimeout,
		SubjectCalculator: func(_, subject string) *wmnats.SubjectDetail {
			return &wmnats.SubjectDetail{Primary: subject, QueueGroup: natsConsumerName(t.topicOf(subject))}
		},
		NakDelay:  wmnats.NewStaticDelay(cfg.RedeliveryDelay),
		JetStream: js,
	}, logger); err != nil {
		return fail(err)
	}
	return &Transport{Kind: TransportNATS, Publisher: natsPublisher{t}, Subscriber: natsSubscriber{t}, close: t.close}, nil
}

// subject is topic's subject; topicOf is its inverse.
func (t *natsTransport) subject(topic string) string { return t.cfg.Prefix + "." + topic }
func (t *natsTransport) topicOf(subject string) string {
	return strings.TrimPrefix(subject, t.cfg.Prefix+".")
}

// natsConsumerName is the durable consumer (and deliver group) of topic within its stream:
// the topic with '.' written '_', and '_' and '-' and what a consumer name cannot hold escaped
// after a '-', so that two topics never share a consumer.
func natsConsumerName(topic string) string {
	var b strings.Builder
	for i := 0; i < len(topic); i++ {
		c := topic[i]
		switch {
		case c == '.':
			b.WriteByte('_')
		case c == '-':
			b.WriteString("--")
		case c == '_':
			b.WriteString("-u")
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "-%02x", c)
		}
	}
	return b.String()
}

// checkNATSTopic refuses a topic that is not a NATS subject one can publish to.
func checkNATSTopic(topic string) error {
	if topic == "" {
		return errors.New("transport nats: empty topic")
	}
	if strings.ContainsAny(topic, "*> \t\r\n") || slices.Contains(strings.Split(topic, "."), "") {
		return fmt.Errorf("transport nats: topic %q is not a NATS subject (no wildcards, white space or empty '.'-separated part)", topic)
	}
	return nil
}

// ensureStream creates the stream, or brings an existing one's subjects, age and replicas to
// the configuration. One with another retention or storage is refused: it would not keep the
// promises of NATSConfig.
func (t *natsTransport) ensureStream() error {
	name := t.cfg.Prefix
	want := nats.StreamConfig{
		Name:        name,
		Description: "relayer workers' messages (workers.transport nats)",
		Subjects:    []string{name + ".>"},
		Retention:   nats.InterestPolicy,
		Storage:     nats.FileStorage,
		Discard:     nats.DiscardOld,
		MaxAge:      t.cfg.MaxAge,
		Replicas:    t.cfg.Replicas,
	}
	info, err := t.js.StreamInfo(name)
	if errors.Is(err, nats.ErrStreamNotFound) {
		if _, err = t.js.AddStream(&want); err == nil {
			return nil
		}
		// Another instance may have created it meanwhile.
		var ierr error
		if info, ierr = t.js.StreamInfo(name); ierr != nil {
			return fmt.Errorf("create stream %s: %w", name, err)
		}
	} else if err != nil {
		return fmt.Errorf("stream %s: %w", name, err)
	}
	have := info.Config
	if have.Retention != want.Retention || have.Storage != want.Storage {
		return fmt.Errorf("stream %s exists with %s retention and %s storage, want interest and file: delete it, or choose another nats.prefix", name, have.Retention, have.Storage)
	}
	if slices.Equal(have.Subjects, want.Subjects) && have.MaxAge == want.MaxAge && have.Replicas == want.Replicas {
		return nil
	}
	have.Subjects, have.MaxAge, have.Replicas = want.Subjects, want.MaxAge, want.Replicas
	if _, err := t.js.UpdateStream(&have); err != nil {
		return fmt.Errorf("update stream %s: %w", name, err)
	}
	return nil
}

// ensureConsumer creates topic's durable consumer, or brings an existing one's ack settings to
// the configuration. Created here, not by nats.go's subscribe, it outlives every subscriber.
func (t *natsTransport) ensureConsumer(topic string) error {
	stream, name := t.cfg.Prefix, natsConsumerName(topic)
	want := nats.ConsumerConfig{
		Durable:        name,
		Description:    "relayer workers: " + topic,
		DeliverGroup:   name,
		FilterSubject:  t.subject(topic),
		DeliverPolicy:  nats.DeliverAllPolicy,
		AckPolicy:      nats.AckExplicitPolicy,
		AckWait:        t.cfg.AckWait,
		MaxDeliver:     t.cfg.MaxDeliver,
		MaxAckPending:  t.cfg.MaxAckPending,
		ReplayPolicy:   nats.ReplayInstantPolicy,
		DeliverSubject: t.nc.NewInbox(),
	}
	info, err := t.js.ConsumerInfo(stream, name)
	if errors.Is(err, nats.ErrConsumerNotFound) {
		if _, err = t.js.AddConsumer(stream, &want); err == nil {
			return nil
		}
		var ierr error
		if info, ierr = t.js.ConsumerInfo(stream, name); ierr != nil { // created meanwhile?
			return fmt.Errorf("create consumer %s of stream %s: %w", name, stream, err)
		}
	} else if err != nil {
		return fmt.Errorf("consumer %s of stream %s: %w", name, stream, err)
	}
	have := info.Config
	if have.DeliverGroup != want.DeliverGroup || have.FilterSubject != want.FilterSubject || have.DeliverSubject == "" {
		return fmt.Errorf("consumer %s of stream %s exists with deliver group %q and filter %q, want %q and %q: delete it", name, stream, have.DeliverGroup, have.FilterSubject, want.DeliverGroup, want.FilterSubject)
	}
	if have.AckWait == want.AckWait && have.MaxDeliver == want.MaxDeliver && have.MaxAckPending == want.MaxAckPending {
		return nil
	}
	have.AckWait, have.MaxDeliver, have.MaxAckPending = want.AckWait, want.MaxDeliver, want.MaxAckPending
	if _, err := t.js.UpdateConsumer(stream, &have); err != nil {
		return fmt.Errorf("update consumer %s of stream %s: %w", name, stream, err)
	}
	return nil
}

func (t *natsTransport) close() error {
	t.closeOnce.Do(func() {
		close(t.closing)
		// Stops the subscriptions, lets go of the messages in hand (unacked: they are
		// delivered again) and drains the connection, which then closes.
		t.closeErr = t.sub.Close()
		select {
		case <-t.connClosed:
		case <-time.After(natsCloseTimeout):
		}
		t.nc.Close()
		t.closeErr = t.secrets.scrub(t.closeErr)
	})
	return t.closeErr
}

// natsPublisher publishes topic's messages to its subject; Publish returns once the stream
// stored them.
type natsPublisher struct{ t *natsTransport }

func (p natsPublisher) Publish(topic string, msgs ...*message.Message) error {
	if err := checkNATSTopic(topic); err != nil {
		return err
	}
	if err := p.t.pub.Publish(p.t.subject(topic), msgs...); err != nil {
		return fmt.Errorf("transport nats: publish to %s: %w", topic, p.t.secrets.scrub(err))
	}
	return nil
}

// Close closes the whole transport, as GoChannel's does.
func (p natsPublisher) Close() error { return p.t.close() }

// natsSubscriber joins topic's consumer group.
type natsSubscriber struct{ t *natsTransport }

func (s natsSubscriber) Subscribe(ctx context.Context, topic string) (<-chan *message.Message, error) {
	t := s.t
	if err := checkNATSTopic(topic); err != nil {
		return nil, err
	}
	select {
	case <-t.closing:
		return nil, errors.New("transport nats: closed")
	default:
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.topics[topic] {
		return nil, fmt.Errorf("transport nats: topic %s already has a subscriber here; on NATS the subscribers of a topic share its messages, so a second one would take some of the first one's", topic)
	}
	if err := t.ensureConsumer(topic); err != nil {
		return nil, fmt.Errorf("transport nats: %w", t.secrets.scrub(err))
	}
	ch, err := t.sub.Subscribe(ctx, t.subject(topic))
	if err != nil {
		return nil, fmt.Errorf("transport nats: subscribe to %s: %w", topic, t.secrets.scrub(err))
	}
	t.topics[topic] = true
	go func() {
		select {
		case <-ctx.Done():
		case <-t.closing:
		}
		t.mu.Lock()
		delete(t.topics, topic)
		t.mu.Unlock()
	}()
	return ch, nil
}

// Close closes the whole transport, as GoChannel's does.
func (s natsSubscriber) Close() error { return s.t.close() }
