package workers

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/workers/gateway/contracts"
)

// The NATS transport's tests run against the machine's NATS server with JetStream
// (nats-server -js, at natsTestURL). Each uses a prefix of its own, so a stream of its own,
// and deletes it at the end.

const (
	natsTestURL = "nats://127.0.0.1:4222"
	// natsTestAckWait is the tests' ack wait: how long a redelivery takes.
	natsTestAckWait = 2 * time.Second
)

// requireNATS skips the test when no NATS server with JetStream answers at natsTestURL, or
// fails it under CI (CI=true), where the server must be there.
func requireNATS(t testing.TB) {
	t.Helper()
	nc, err := nats.Connect(natsTestURL, nats.Timeout(2*time.Second))
	if err == nil {
		var js nats.JetStreamContext
		if js, err = nc.JetStream(); err == nil {
			_, err = js.AccountInfo()
		}
		nc.Close()
	}
	if err != nil {
		msg := fmt.Sprintf("no NATS server with JetStream at %s (%v); start one with: nats-server -js", natsTestURL, err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// natsTestConfig is a NATS transport configuration with a prefix of its own, whose stream is
// deleted when the test ends (after the transports built on it are closed).
func natsTestConfig(t testing.TB) TransportConfig {
	t.Helper()
	requireNATS(t)
	prefix := "relayertest-" + uuid.NewString()[:8]
	t.Cleanup(func() { deleteNATSStream(t, prefix) })
	return TransportConfig{Kind: TransportNATS, NATS: NATSConfig{
		URL: natsTestURL, Prefix: prefix, AckWait: natsTestAckWait, RedeliveryDelay: 100 * time.Millisecond,
	}}
}

func deleteNATSStream(t testing.TB, stream string) {
	nc, err := nats.Connect(natsTestURL)
	if err != nil {
		t.Errorf("delete stream %s: %v", stream, err)
		return
	}
	defer nc.Close()
	js, err := nc.JetStream()
	if err == nil {
		err = js.DeleteStream(stream)
	}
	if err != nil && !errors.Is(err, nats.ErrStreamNotFound) {
		t.Errorf("delete stream %s: %v", stream, err)
	}
}

func newNATSTestTransport(t testing.TB, cfg TransportConfig) *Transport {
	t.Helper()
	tr, err := NewTransport(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	return tr
}

// natsMessages subscribes to topic on tr until the test ends; the messages are neither acked
// nor nacked.
func natsMessages(t testing.TB, tr *Transport, topic string) <-chan *message.Message {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch, err := tr.Subscriber.Subscribe(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func publishN(t testing.TB, tr *Transport, topic string, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		m := message.NewMessage(uuid.NewString(), []byte(fmt.Sprintf(`{"n":%d}`, i)))
		if err := tr.Publisher.Publish(topic, m); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.UUID)
	}
	return ids
}

func receive(t testing.TB, ch <-chan *message.Message, within time.Duration, what string) *message.Message {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the subscription ended", what)
		}
		return m
	case <-time.After(within):
		t.Fatalf("%s: nothing within %s", what, within)
		return nil
	}
}

func receiveNothing(t testing.TB, ch <-chan *message.Message, during time.Duration, what string) {
	t.Helper()
	select {
	case m := <-ch:
		t.Fatalf("%s: got message %s (%s)", what, m.UUID, m.Payload)
	case <-time.After(during):
	}
}

func TestNATSConfigDefaultsAndRejectsNonsenseNamingTheSetting(t *testing.T) {
	var zero TransportConfig
	if err := zero.Validate(); err != nil {
		t.Fatalf("zero config: %v", err)
	}
	zero.setDefaults()
	want := NATSConfig{URL: DefaultNATSURL, Prefix: DefaultNATSPrefix, AckWait: DefaultNATSAckWait, RedeliveryDelay: DefaultNATSRedeliveryDelay,
		MaxDeliver: DefaultNATSMaxDeliver, MaxAckPending: DefaultNATSMaxAckPending, MaxAge: DefaultNATSMaxAge, Replicas: 1}
	if zero.Kind != TransportGoChannel || zero.NATS != want {
		t.Fatalf("defaults %+v, want gochannel and %+v", zero, want)
	}
	for _, ok := range []NATSConfig{
		{URL: "nats://a:4222, tls://b:4222,ws://c,wss://d:443/"}, {URL: "nats://user:pw@host:4222"}, {MaxDeliver: -1}, {Prefix: "relayer_2-b"}, {Replicas: 3},
	} {
		if err := (TransportConfig{Kind: TransportNATS, NATS: ok}).Validate(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
	for _, c := range []struct {
		cfg     NATSConfig
		setting string
	}{
		{NATSConfig{URL: "http://127.0.0.1:4222"}, "nats.url"},
		{NATSConfig{URL: "nats://"}, "nats.url"},
		{NATSConfig{URL: "nats://host:4222,"}, "nats.url"},
		{NATSConfig{URL: "nats://host:70000"}, "nats.url"},
		{NATSConfig{URL: "nats://host:4222/path"}, "nats.url"},
		{NATSConfig{URL: "127.0.0.1:4222"}, "nats.url"},
		{NATSConfig{Prefix: "a.b"}, "nats.prefix"},
		{NATSConfig{Prefix: "with space"}, "nats.prefix"},
		{NATSConfig{Prefix: strings.Repeat("p", 33)}, "nats.prefix"},
		{NATSConfig{AckWait: -time.Second}, "nats.ack_wait"},
		{NATSConfig{RedeliveryDelay: -time.Second}, "nats.redelivery_delay"},
		{NATSConfig{MaxDeliver: 1}, "nats.max_deliver"},
		{NATSConfig{MaxDeliver: -2}, "nats.max_deliver"},
		{NATSConfig{MaxAckPending: -1}, "nats.max_ack_pending"},
		{NATSConfig{MaxAge: -time.Hour}, "nats.max_age"},
		{NATSConfig{Replicas: 6}, "nats.replicas"},
	} {
		err := TransportConfig{NATS: c.cfg}.Validate()
		if err == nil || !strings.Contains(err.Error(), c.setting) {
			t.Errorf("%+v: %v, want an error naming %s", c.cfg, err, c.setting)
		}
	}
	err := TransportConfig{NATS: NATSConfig{AckWait: -1, MaxAge: -1}}.Validate()
	if err == nil || !strings.Contains(err.Error(), "nats.ack_wait") || !strings.Contains(err.Error(), "nats.max_age") {
		t.Errorf("two problems: %v, want both named", err)
	}
}

func TestNATSConsumerNamesAreValidAndNeverShared(t *testing.T) {
	topics := []string{EventTopic("RequestAccepted"), TopicTransitions, TopicPoison, TopicGatewayResponses,
		"a.b", "a_b", "a-b", "a.-b", "a-.b", "a._b", "a_.b", "a/b", "a:b", "a-u", "a-2f"}
	seen := map[string]string{}
	for _, topic := range topics {
		name := natsConsumerName(topic)
		if strings.ContainsAny(name, ". */\\>") || name == "" {
			t.Errorf("topic %q: consumer name %q is not a valid JetStream name", topic, name)
		}
		if other, ok := seen[name]; ok {
			t.Errorf("topics %q and %q share the consumer %q", other, topic, name)
		}
		seen[name] = topic
	}
	if got := natsConsumerName(EventTopic("RequestAccepted")); got != "events_RequestAccepted" {
		t.Errorf("consumer of events.RequestAccepted is %q, want the readable events_RequestAccepted", got)
	}
}

func TestNATSTransportCarriesADispatchedMessageUnchanged(t *testing.T) {
	tr := newNATSTestTransport(t, natsTestConfig(t))
	ch := natsMessages(t, tr, EventTopic("RequestAccepted"))
	rec := eventstore.Record{
		Stream: "request-abc", Version: 3, Position: 42, Type: "RequestAccepted", SchemaVersion: 2,
		Data:     []byte(`{"job_id":"abc","n":1}`),
		Metadata: eventstore.Metadata{CorrelationID: "request-abc", RecordedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)},
	}
	sent := NewEventMessage(rec)
	sent.Metadata.Set(MetaStatus, "queued")
	if err := tr.Publisher.Publish(EventTopic("RequestAccepted"), sent); err != nil {
		t.Fatal(err)
	}
	got := receive(t, ch, 10*time.Second, "the dispatched message")
	got.Ack()
	if got.UUID != sent.UUID || string(got.Payload) != string(sent.Payload) || !maps.Equal(got.Metadata, sent.Metadata) {
		t.Fatalf("received %s %s %v, sent %s %s %v", got.UUID, got.Payload, got.Metadata, sent.UUID, sent.Payload, sent.Metadata)
	}
	back, err := RecordFromMessage(got)
	if err != nil {
		t.Fatal(err)
	}
	if back.Stream != rec.Stream || back.Version != rec.Version || back.Position != rec.Position || back.Type != rec.Type ||
		back.SchemaVersion != rec.SchemaVersion || string(back.Data) != string(rec.Data) ||
		back.Metadata.CorrelationID != rec.Metadata.CorrelationID || !back.Metadata.RecordedAt.Equal(rec.Metadata.RecordedAt) {
		t.Fatalf("record %+v, want %+v", back, rec)
	}
}

func TestNATSTransportGivesEachMessageToOneMemberOfTheTopicsGroup(t *testing.T) {
	cfg := natsTestConfig(t)
	const topic, n = "transitions", 40
	type delivery struct{ member, id string }
	deliveries := make(chan delivery, 4*n)
	for _, member := range []string{"a", "b"} {
		tr := newNATSTestTransport(t, cfg) // an instance of its own: its own connection
		ch := natsMessages(t, tr, topic)
		go func() {
			for m := range ch {
				deliveries <- delivery{member, m.UUID}
				m.Ack()
			}
		}()
	}
	ids := publishN(t, newNATSTestTransport(t, cfg), topic, n)
	got := map[string][]string{}
	perMember := map[string]int{}
	deadline := time.After(20 * time.Second)
	for len(got) < n {
		select {
		case d := <-deliveries:
			got[d.id] = append(got[d.id], d.member)
			perMember[d.member]++
		case <-deadline:
			t.Fatalf("%d of %d messages delivered", len(got), n)
		}
	}
	// Anything delivered twice would show within an ack wait.
	late := time.After(natsTestAckWait + time.Second)
	for waiting := true; waiting; {
		select {
		case d := <-deliveries:
			got[d.id] = append(got[d.id], d.member)
		case <-late:
			waiting = false
		}
	}
	for _, id := range ids {
		if len(got[id]) != 1 {
			t.Errorf("message %s delivered to %v, want exactly one member", id, got[id])
		}
	}
	t.Logf("deliveries per member: %v", perMember)
}

func TestNATSTransportRedeliversAMessageWhoseHandlerFailedAndNotOneItAcked(t *testing.T) {
	tr := newNATSTestTransport(t, natsTestConfig(t))
	r, err := message.NewRouter(message.RouterConfig{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	calls := map[string]int{}
	handled := make(chan string, 10)
	r.AddConsumerHandler("flaky", "events.RequestAccepted", tr.Subscriber, func(m *message.Message) error {
		mu.Lock()
		calls[m.UUID]++
		first := calls[m.UUID] == 1
		mu.Unlock()
		handled <- m.UUID
		if first {
			return errors.New("fails the first time")
		}
		return nil
	})
	done := make(chan error, 1)
	go func() { done <- r.Run(context.Background()) }()
	t.Cleanup(func() { _ = r.Close(); <-done })
	<-r.Running()

	id := publishN(t, tr, "events.RequestAccepted", 1)[0]
	for i := range 2 {
		select {
		case got := <-handled:
			if got != id {
				t.Fatalf("handled %s, want %s", got, id)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("delivery %d of the message did not come", i+1)
		}
	}
	select {
	case <-handled:
		t.Fatal("the message came a third time, though its second handling succeeded (and was acked)")
	case <-time.After(natsTestAckWait + time.Second):
	}
}

func TestNATSTransportRedeliversToTheGroupWhatAClosedSubscriberHeldUnacked(t *testing.T) {
	cfg := natsTestConfig(t)
	const topic = "events.ReadinessPassed"
	first, err := NewTransport(cfg, nil) // creates the topic's consumer
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	held := natsMessages(t, first, topic)
	pub := newNATSTestTransport(t, cfg)
	id := publishN(t, pub, topic, 1)[0]
	if m := receive(t, held, 10*time.Second, "the first member"); m.UUID != id {
		t.Fatalf("got %s, want %s", m.UUID, id)
	}
	second := newNATSTestTransport(t, cfg)
	survivor := natsMessages(t, second, topic)
	if err := first.Close(); err != nil { // a graceful stop with the message in hand
		t.Fatal(err)
	}
	m := receive(t, survivor, natsTestAckWait+10*time.Second, "the message the closed member held")
	if m.UUID != id {
		t.Fatalf("got %s, want %s", m.UUID, id)
	}
	m.Ack()
	// The member that created the group's consumer is gone; the group goes on.
	next := publishN(t, pub, topic, 1)[0]
	if m := receive(t, survivor, 10*time.Second, "a message published after the first member left"); m.UUID != next {
		t.Fatalf("got %s, want %s", m.UUID, next)
	} else {
		m.Ack()
	}
}

// The helper process of TestNATSTransportRedeliversToTheSurvivorWhatAKilledProcessHeld: it
// subscribes, prints "subscribed", then "got <uuid>" for each message, which it never acks,
// and waits to be killed.
const (
	envNATSHelper       = "RELAYER_WORKERS_NATS_HELPER"
	envNATSHelperPrefix = "RELAYER_WORKERS_NATS_HELPER_PREFIX"
	envNATSHelperTopic  = "RELAYER_WORKERS_NATS_HELPER_TOPIC"
)

func TestNATSHelperProcess(t *testing.T) {
	if os.Getenv(envNATSHelper) != "subscribe-and-hang" {
		return // not the helper: nothing to test here
	}
	fail := func(err error) {
		fmt.Fprintf(os.Stderr, "nats helper: %v\n", err)
		os.Exit(1)
	}
	time.AfterFunc(time.Minute, func() { fail(errors.New("not killed within a minute")) })
	tr, err := NewTransport(TransportConfig{Kind: TransportNATS, NATS: NATSConfig{
		URL: natsTestURL, Prefix: os.Getenv(envNATSHelperPrefix), AckWait: natsTestAckWait,
	}}, nil)
	if err != nil {
		fail(err)
	}
	ch, err := tr.Subscriber.Subscribe(context.Background(), os.Getenv(envNATSHelperTopic))
	if err != nil {
		fail(err)
	}
	fmt.Println("subscribed")
	for m := range ch {
		fmt.Printf("got %s\n", m.UUID) // and handle it forever
	}
	fail(errors.New("the subscription ended"))
}

func TestNATSTransportRedeliversToTheSurvivorWhatAKilledProcessHeld(t *testing.T) {
	cfg := natsTestConfig(t)
	const topic = "events.TransactionReset"
	cmd := exec.Command(os.Args[0], "-test.run=^TestNATSHelperProcess$")
	cmd.Env = append(os.Environ(), envNATSHelper+"=subscribe-and-hang", envNATSHelperPrefix+"="+cfg.NATS.Prefix, envNATSHelperTopic+"="+topic)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	kill := func() { once.Do(func() { _ = cmd.Process.Kill() }) } // SIGKILL
	defer kill()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func(what string) string {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the helper process ended before %s; stderr:\n%s", what, stderr.String())
			}
			return l
		case <-time.After(30 * time.Second):
			t.Fatalf("the helper process did not report %s; stderr:\n%s", what, stderr.String())
		}
		return ""
	}
	if l := next("its subscription"); l != "subscribed" {
		t.Fatalf("helper said %q, want subscribed", l)
	}

	// The helper is the group's only member: the message goes to it.
	tr := newNATSTestTransport(t, cfg)
	id := publishN(t, tr, topic, 1)[0]
	if l := next("the message"); l != "got "+id {
		t.Fatalf("helper said %q, want got %s", l, id)
	}
	survivor := natsMessages(t, tr, topic)
	kill() // mid-handling: no ack, no nack, no goodbye
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the helper was to die of SIGKILL, it ended with %v; stderr:\n%s", err, stderr.String())
	}
	m := receive(t, survivor, natsTestAckWait+10*time.Second, "the message the killed process held")
	if m.UUID != id {
		t.Fatalf("the survivor got %s, want %s", m.UUID, id)
	}
	m.Ack()
}

func TestNATSTransportsWithDifferentPrefixesNeverSeeEachOthersMessages(t *testing.T) {
	const topic = TopicTransitions
	one, two := newNATSTestTransport(t, natsTestConfig(t)), newNATSTestTransport(t, natsTestConfig(t))
	chOne, chTwo := natsMessages(t, one, topic), natsMessages(t, two, topic)
	idOne, idTwo := publishN(t, one, topic, 1)[0], publishN(t, two, topic, 1)[0]
	if m := receive(t, chOne, 10*time.Second, "the first relayer's message"); m.UUID != idOne {
		t.Fatalf("the first relayer got %s, want its own %s", m.UUID, idOne)
	} else {
		m.Ack()
	}
	if m := receive(t, chTwo, 10*time.Second, "the second relayer's message"); m.UUID != idTwo {
		t.Fatalf("the second relayer got %s, want its own %s", m.UUID, idTwo)
	} else {
		m.Ack()
	}
	receiveNothing(t, chOne, 500*time.Millisecond, "the first relayer after its own message")
	receiveNothing(t, chTwo, 10*time.Millisecond, "the second relayer after its own message")
}

func TestNATSTransportRefusesASecondSubscriberOfATopicInOneInstance(t *testing.T) {
	tr := newNATSTestTransport(t, natsTestConfig(t))
	natsMessages(t, tr, TopicTransitions)
	if _, err := tr.Subscriber.Subscribe(context.Background(), TopicTransitions); err == nil || !strings.Contains(err.Error(), "already has a subscriber") {
		t.Fatalf("second subscription: %v, want it refused", err)
	}
	for _, bad := range []string{"", "events.*", "a..b", "with space"} {
		if err := tr.Publisher.Publish(bad, message.NewMessage("x", nil)); err == nil {
			t.Errorf("publish to %q: no error", bad)
		}
	}
}

func TestNATSTransportNeverShowsTheURLsPasswordOrToken(t *testing.T) {
	const password, token = "s3cr3t-Pa55", "t0ken-s3cr3t"
	check := func(what string, err error, wantHost string) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
		if msg := err.Error(); strings.Contains(msg, password) || strings.Contains(msg, token) {
			t.Errorf("%s: the error shows a secret: %s", what, msg)
		} else if wantHost != "" && !strings.Contains(msg, wantHost) {
			t.Errorf("%s: the error does not say where it connected: %s", what, msg)
		} else {
			t.Logf("%s: %s", what, msg)
		}
	}
	// Refused by validation.
	for _, u := range []string{
		"nats://relayer:" + password + "@127.0.0.1:notaport", "nats://relayer:" + password + "@127.0.0.1:4222/path",
		"http://relayer:" + password + "@127.0.0.1:4222", "nats://relayer:" + password + "@127.0.0.1:4222,nats://" + token + "@:x",
		"nats://" + token + "@127.0.0.1:99999", "nats ://relayer:" + password + "@host",
	} {
		_, err := NewTransport(TransportConfig{Kind: TransportNATS, NATS: NATSConfig{URL: u}}, nil)
		check("invalid URL", err, "")
	}
	// Nobody listening.
	free := freePort(t)
	for _, u := range []string{"nats://relayer:" + password + "@" + free, "nats://" + token + "@" + free} {
		_, err := NewTransport(TransportConfig{Kind: TransportNATS, NATS: NATSConfig{URL: u}}, nil)
		check("no server", err, free)
	}
	// A server that refuses the password.
	addr := startNATSServerWithPassword(t, "relayer", "the-right-one")
	_, err := NewTransport(TransportConfig{Kind: TransportNATS, NATS: NATSConfig{URL: "nats://relayer:" + password + "@" + addr}}, nil)
	check("wrong password", err, addr)
	_, err = NewTransport(TransportConfig{Kind: TransportNATS, NATS: NATSConfig{URL: "nats://" + token + "@" + addr}}, nil)
	check("wrong token", err, addr)
}

func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// startNATSServerWithPassword runs nats-server (without JetStream) on a free loopback port for
// the test, accepting user and password only, and returns its host:port.
func startNATSServerWithPassword(t testing.TB, user, password string) string {
	t.Helper()
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("nats-server is not installed")
		}
		t.Skip("nats-server is not installed")
	}
	addr := freePort(t)
	host, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "-a", host, "-p", port, "--user", user, "--pass", password)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			_ = c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("nats-server on %s did not start: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The engine runs on NATS: every kind completes, its events went through the server's stream
// (each topic's consumer acked what it was delivered), and the responses' block cursor was saved.
func TestTheEngineRunsOnNATS(t *testing.T) {
	tcfg := natsTestConfig(t)
	env := startEngine(t, engineOpts{cfg: Config{Transport: tcfg}})
	for _, k := range domain.Kinds() {
		id := env.accept(env.request(k, contracts.ScenarioNone))
		if s := env.waitTerminal(id, 30*time.Second); s.Status != domain.Completed {
			t.Errorf("%s on NATS: %s %s %s, want completed", k, s.Status, s.Label, s.Message)
		}
	}
	// (The gateway's responses go from the listener to their handler in process: both are the
	// engine's, and the block cursor must not pass a batch its handler has not kept.)
	for _, topic := range []string{EventTopic("RequestAccepted"), EventTopic("ReadinessPassed"), EventTopic("ReceiptRecorded"), TopicTransitions} {
		// The last message's ack may still be on its way when the last job ends: wait for it.
		info := natsConsumerInfo(t, tcfg.NATS.Prefix, topic)
		for end := time.Now().Add(5 * time.Second); info.NumAckPending != 0 && time.Now().Before(end); {
			time.Sleep(20 * time.Millisecond)
			info = natsConsumerInfo(t, tcfg.NATS.Prefix, topic)
		}
		if info.Delivered.Consumer == 0 || info.NumAckPending != 0 {
			t.Errorf("topic %s on NATS: %d delivered, %d not acked; want some, all acked", topic, info.Delivered.Consumer, info.NumAckPending)
		}
	}
	if _, ok := savedGatewayCursor(t, env.store); !ok {
		t.Error("no gateway cursor saved")
	}
}

func natsConsumerInfo(t testing.TB, prefix, topic string) *nats.ConsumerInfo {
	t.Helper()
	nc, err := nats.Connect(natsTestURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := nc.JetStream()
	if err != nil {
		t.Fatal(err)
	}
	info, err := js.ConsumerInfo(prefix, natsConsumerName(topic))
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func TestNATSTransportBringsAnExistingStreamAndConsumerToItsConfiguration(t *testing.T) {
	cfg := natsTestConfig(t)
	const topic = "events.RequestAccepted"
	first := newNATSTestTransport(t, cfg)
	natsMessages(t, first, topic)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	cfg.NATS.AckWait, cfg.NATS.MaxDeliver, cfg.NATS.MaxAckPending, cfg.NATS.MaxAge = 3*time.Second, 4, 16, time.Hour
	again := newNATSTestTransport(t, cfg)
	natsMessages(t, again, topic)
	info := natsConsumerInfo(t, cfg.NATS.Prefix, topic)
	if c := info.Config; c.AckWait != 3*time.Second || c.MaxDeliver != 4 || c.MaxAckPending != 16 {
		t.Errorf("consumer after a restart with new settings: ack wait %s, max deliver %d, max ack pending %d; want 3s, 4, 16", c.AckWait, c.MaxDeliver, c.MaxAckPending)
	}
	nc, err := nats.Connect(natsTestURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := nc.JetStream()
	si, err := js.StreamInfo(cfg.NATS.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	if si.Config.MaxAge != time.Hour || si.Config.Retention != nats.InterestPolicy || si.Config.Storage != nats.FileStorage {
		t.Errorf("stream: max age %s, %s retention, %s storage; want 1h, interest, file", si.Config.MaxAge, si.Config.Retention, si.Config.Storage)
	}
}

func TestNATSTransportRefusesAStreamThatWouldNotKeepItsPromises(t *testing.T) {
	cfg := natsTestConfig(t)
	nc, err := nats.Connect(natsTestURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := nc.JetStream()
	if _, err := js.AddStream(&nats.StreamConfig{Name: cfg.NATS.Prefix, Subjects: []string{cfg.NATS.Prefix + ".>"}, Storage: nats.MemoryStorage}); err != nil {
		t.Fatal(err)
	}
	if _, err := NewTransport(cfg, nil); err == nil || !strings.Contains(err.Error(), "retention") || !strings.Contains(err.Error(), "nats.prefix") {
		t.Fatalf("on a memory stream with limits retention: %v, want it refused", err)
	}
}
