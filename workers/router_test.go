package workers

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections/projectionstest"
)

var fastRetries = RouterConfig{MaxRetries: 3, InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond, CloseTimeout: 5 * time.Second}

// pipeline is a store, transport, running router (handlers added by register), a poison
// collector and a running dispatcher.
func pipeline(t *testing.T, register func(*Router)) (eventstore.Store, *Router, *collector) {
	t.Helper()
	s := projectionstest.OpenStore(t)
	tr := newTransport(t)
	r := startRouter(t, tr, fastRetries, register)
	poison := collect(t, tr, TopicPoison)
	d, err := NewDispatcher(s, tr.Publisher, DispatcherConfig{}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	runDispatcher(t, d)
	return s, r, poison
}

func TestAHandlerThatPanicsIsRecoveredAndRetried(t *testing.T) {
	var calls, handled atomic.Int32
	s, r, poison := pipeline(t, func(r *Router) {
		r.AddHandler("panicky", EventTopic("ReadinessPassed"), func(ctx context.Context, msg *message.Message, ev domain.Event) error {
			if calls.Add(1) == 1 {
				panic("boom")
			}
			handled.Add(1)
			return nil
		})
	})
	j := domain.NewJobID()
	appendEvents(t, s, j, eventstore.NoStream, "", domain.ReadinessPassed{EventHeader: hdr(j)})
	eventually(t, func() bool { return handled.Load() == 1 }, "the handler to succeed after its panic")
	if calls.Load() != 2 || r.Poisoned() != 0 || len(poison.snapshot()) != 0 {
		t.Fatalf("%d calls, %d poisoned; want 2 calls and nothing poisoned", calls.Load(), r.Poisoned())
	}
}

func TestAHandlerThatFailsTwiceThenSucceedsIsRetried(t *testing.T) {
	var calls, handled atomic.Int32
	s, r, _ := pipeline(t, func(r *Router) {
		r.AddHandler("flaky", EventTopic("ReadinessPassed"), func(ctx context.Context, msg *message.Message, ev domain.Event) error {
			if calls.Add(1) <= 2 {
				return errors.New("not yet")
			}
			handled.Add(1)
			return nil
		})
	})
	j := domain.NewJobID()
	appendEvents(t, s, j, eventstore.NoStream, "", domain.ReadinessPassed{EventHeader: hdr(j)})
	eventually(t, func() bool { return handled.Load() == 1 }, "the handler to succeed on its third try")
	if calls.Load() != 3 || r.Poisoned() != 0 {
		t.Fatalf("%d calls, %d poisoned; want 3 calls and nothing poisoned", calls.Load(), r.Poisoned())
	}
}

func TestAHandlerThatAlwaysFailsEndsInThePoisonTopicWithItsMetadata(t *testing.T) {
	var calls atomic.Int32
	s, r, poison := pipeline(t, func(r *Router) {
		r.AddHandler("doomed", EventTopic("ReadinessFailed"), func(ctx context.Context, msg *message.Message, ev domain.Event) error {
			calls.Add(1)
			return errors.New("chain unreachable")
		})
	})
	j := domain.NewJobID()
	pos := appendEvents(t, s, j, eventstore.NoStream, "corr-1", domain.ReadinessFailed{EventHeader: hdr(j), Label: domain.LabelReadinessCheckFailed})
	got := poison.waitFor(t, 1)
	eventually(t, func() bool { return r.Poisoned() == 1 }, "the poisoned counter to count the message")
	if calls.Load() != int32(fastRetries.MaxRetries+1) {
		t.Errorf("%d calls, want %d (first try and every retry)", calls.Load(), fastRetries.MaxRetries+1)
	}
	m := got[0]
	for k, want := range map[string]string{
		MetaStream: j.Stream(), MetaVersion: "0", MetaType: "ReadinessFailed", MetaCorrelationID: "corr-1",
		MetaCausationID: itoa(pos), MetaPosition: itoa(pos),
		middleware.PoisonedHandlerKey: "doomed", middleware.PoisonedTopicKey: EventTopic("ReadinessFailed"),
	} {
		if g := m.Metadata.Get(k); g != want {
			t.Errorf("poisoned metadata %s = %q, want %q", k, g, want)
		}
	}
	if !strings.Contains(m.Metadata.Get(middleware.ReasonForPoisonedKey), "chain unreachable") {
		t.Errorf("poison reason %q does not say why", m.Metadata.Get(middleware.ReasonForPoisonedKey))
	}
	if m.UUID != MessageUUID(pos) {
		t.Errorf("poisoned message uuid %s, want %s", m.UUID, MessageUUID(pos))
	}
}

func TestAPermanentErrorGoesToThePoisonTopicWithoutRetries(t *testing.T) {
	var calls atomic.Int32
	s, r, poison := pipeline(t, func(r *Router) {
		r.AddHandler("hopeless", EventTopic("ReadinessPassed"), func(ctx context.Context, msg *message.Message, ev domain.Event) error {
			calls.Add(1)
			return Permanent(errors.New("invalid"))
		})
	})
	j := domain.NewJobID()
	appendEvents(t, s, j, eventstore.NoStream, "", domain.ReadinessPassed{EventHeader: hdr(j)})
	poison.waitFor(t, 1)
	eventually(t, func() bool { return r.Poisoned() == 1 }, "the poisoned counter")
	if calls.Load() != 1 {
		t.Fatalf("%d calls, want 1", calls.Load())
	}
}

func TestAFailingHandlerIsRetriedMaxRetriesTimesWithinTheBackoffsBudget(t *testing.T) {
	cfg := RouterConfig{MaxRetries: 3, InitialInterval: 20 * time.Millisecond, MaxInterval: 40 * time.Millisecond}
	cfg.setDefaults()
	var calls []time.Time
	h := retrying(cfg, testLogger(t))(func(msg *message.Message) ([]*message.Message, error) {
		calls = append(calls, time.Now())
		return nil, errors.New("the log is unreadable")
	})
	_, err := h(message.NewMessage("m", nil))
	if err == nil || err.Error() != "the log is unreadable" {
		t.Fatalf("err = %v, want the handler's last error", err)
	}
	if len(calls) != cfg.MaxRetries+1 {
		t.Fatalf("%d calls, want %d", len(calls), cfg.MaxRetries+1)
	}
	// Nominal waits 20, 40, 40ms; each drawn between half of it and all of it.
	for i, nominal := range []time.Duration{20, 40, 40} {
		nominal *= time.Millisecond
		if gap := calls[i+1].Sub(calls[i]); gap < nominal/2 || gap > nominal+time.Second {
			t.Errorf("wait %d was %v, want between %v and about %v", i+1, gap, nominal/2, nominal)
		}
	}
}

func TestAMessageWhoseContextEndsWhileItWaitsForARetryIsNotRetried(t *testing.T) {
	cfg := RouterConfig{MaxRetries: 3, InitialInterval: time.Hour, MaxInterval: time.Hour}
	cfg.setDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	h := retrying(cfg, testLogger(t))(func(msg *message.Message) ([]*message.Message, error) {
		calls.Add(1)
		cancel()
		return nil, errors.New("failed")
	})
	msg := message.NewMessage("m", nil)
	msg.SetContext(ctx)
	done := make(chan error, 1)
	go func() { _, err := h(msg); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the retry went on waiting after the message's context ended")
	}
	if calls.Load() != 1 {
		t.Fatalf("%d calls, want 1", calls.Load())
	}
}

func TestEveryTryOfAHandlerGetsTheMessagesOriginalContext(t *testing.T) {
	cfg := RouterConfig{MaxRetries: 2, InitialInterval: time.Millisecond, MaxInterval: time.Millisecond}
	cfg.setDefaults()
	type key struct{}
	var seen []any
	h := retrying(cfg, testLogger(t))(func(msg *message.Message) ([]*message.Message, error) {
		seen = append(seen, msg.Context().Value(key{}))
		// A try that replaces the message's context (and cancels it) must not spoil the next.
		ctx, cancel := context.WithCancel(context.WithValue(msg.Context(), key{}, "spoiled"))
		cancel()
		msg.SetContext(ctx)
		return nil, errors.New("failed")
	})
	msg := message.NewMessage("m", nil)
	msg.SetContext(context.WithValue(context.Background(), key{}, "original"))
	if _, err := h(msg); err == nil {
		t.Fatal("no error")
	}
	if len(seen) != 3 || seen[0] != "original" || seen[1] != "original" || seen[2] != "original" {
		t.Fatalf("the tries saw %v, want the original context three times", seen)
	}
}

func TestHandlersGetTheTypedDomainEvent(t *testing.T) {
	got := make(chan domain.Event, 4)
	s, _, _ := pipeline(t, func(r *Router) {
		r.AddHandler("typed", TopicTransitions, func(ctx context.Context, msg *message.Message, ev domain.Event) error {
			got <- ev
			return nil
		})
	})
	j := domain.NewJobID()
	appendEvents(t, s, j, eventstore.NoStream, "",
		domain.ReadinessCheckStarted{EventHeader: hdr(j)},
		domain.ReadinessFailed{EventHeader: hdr(j), Label: domain.LabelNotAllowedOnHostACL, Message: "denied"})
	select {
	case ev := <-got:
		f, ok := ev.(domain.ReadinessFailed)
		if !ok {
			t.Fatalf("handler got %T, want domain.ReadinessFailed (the only transition)", ev)
		}
		if f.JobID != j || f.Label != domain.LabelNotAllowedOnHostACL || f.Message != "denied" || !f.At.Equal(hdr(j).At) {
			t.Fatalf("decoded %+v", f)
		}
	case <-time.After(waitLimit):
		t.Fatal("the handler got nothing")
	}
}

func TestTheRouterConfigAndTransportSwitchRejectNonsense(t *testing.T) {
	for _, cfg := range []RouterConfig{{MaxRetries: -2}, {Multiplier: 0.5}, {InitialInterval: time.Second, MaxInterval: time.Millisecond}, {CloseTimeout: -1}} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("%+v: valid, want an error", cfg)
		}
	}
	if err := (TransportConfig{Kind: TransportNATS, NATS: NATSConfig{AckWait: -time.Second}}).Validate(); err == nil || !strings.Contains(err.Error(), "nats.ack_wait") {
		t.Errorf("a negative NATS ack wait: %v, want an error naming nats.ack_wait", err)
	}
	if err := (TransportConfig{Kind: "carrier-pigeon"}).Validate(); err == nil {
		t.Error("an unknown transport is valid")
	}
}

func itoa(p eventstore.Position) string { return MessageMetaPosition(p) }
