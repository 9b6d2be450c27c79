package workers

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections/projectionstest"
)

func TestTheDispatcherPublishesEveryRequestEventOnceInOrderPerStreamWithItsMetadata(t *testing.T) {
	s := projectionstest.OpenStore(t)
	tr := newTransport(t)
	a, b := domain.NewJobID(), domain.NewJobID()
	appendEvents(t, s, a, eventstore.NoStream, "corr-a", domain.ReadinessCheckStarted{EventHeader: hdr(a)}, domain.ReadinessPassed{EventHeader: hdr(a)})
	appendEvents(t, s, b, eventstore.NoStream, "", domain.ReadinessCheckStarted{EventHeader: hdr(b)})
	// An event outside the request streams is not dispatched.
	other, err := NewCheckpointCodec().Encode(CheckpointAdvanced{Position: 1}, eventstore.Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(context.Background(), "misc-1", eventstore.NoStream, other); err != nil {
		t.Fatal(err)
	}
	events := collect(t, tr, EventTopic("ReadinessCheckStarted"), EventTopic("ReadinessPassed"), EventTopic("ReadinessFailed"))
	transitions := collect(t, tr, TopicTransitions)

	d, err := NewDispatcher(s, tr.Publisher, DispatcherConfig{}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	runDispatcher(t, d)
	// Live events after catching up are published too.
	appendEvents(t, s, b, 0, "corr-b", domain.ReadinessFailed{EventHeader: hdr(b), Label: domain.LabelReadinessCheckFailed})

	got := events.waitFor(t, 4)
	trs := transitions.waitFor(t, 2)

	var records []eventstore.Record
	for r, err := range s.ReadAll(context.Background(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Stream != "misc-1" {
			records = append(records, r)
		}
	}
	if len(records) != 4 {
		t.Fatalf("store has %d request events, want 4", len(records))
	}
	byPos := map[string]int{}
	lastVersion := map[string]int64{}
	for _, m := range got {
		byPos[m.Metadata.Get(MetaPosition)]++
		v, _ := strconv.ParseInt(m.Metadata.Get(MetaVersion), 10, 64)
		if last, ok := lastVersion[m.Metadata.Get(MetaStream)]; ok && v <= last {
			t.Errorf("stream %s: version %d published after %d", m.Metadata.Get(MetaStream), v, last)
		}
		lastVersion[m.Metadata.Get(MetaStream)] = v
	}
	for _, r := range records {
		pos := strconv.FormatUint(uint64(r.Position), 10)
		if byPos[pos] != 1 {
			t.Errorf("event at position %s published %d times, want once", pos, byPos[pos])
		}
		var m = findByPos(got, pos)
		if m == nil {
			continue
		}
		wantCorr := r.Metadata.CorrelationID
		if wantCorr == "" {
			wantCorr = r.Stream
		}
		for k, want := range map[string]string{
			MetaStream: r.Stream, MetaVersion: strconv.FormatInt(int64(r.Version), 10), MetaType: r.Type,
			MetaSchemaVersion: "1", MetaCorrelationID: wantCorr, MetaCausationID: pos,
		} {
			if g := m.Metadata.Get(k); g != want {
				t.Errorf("position %s: metadata %s = %q, want %q", pos, k, g, want)
			}
		}
		if m.UUID != MessageUUID(r.Position) {
			t.Errorf("position %s: uuid %s, want %s", pos, m.UUID, MessageUUID(r.Position))
		}
		if string(m.Payload) != string(r.Data) {
			t.Errorf("position %s: payload %s, want %s", pos, m.Payload, r.Data)
		}
	}
	if len(trs) != 2 || trs[0].Metadata.Get(MetaType) != "ReadinessPassed" || trs[0].Metadata.Get(MetaStatus) != "processing" ||
		trs[1].Metadata.Get(MetaType) != "ReadinessFailed" || trs[1].Metadata.Get(MetaStatus) != "failure" {
		for _, m := range trs {
			t.Logf("transition %s %s", m.Metadata.Get(MetaType), m.Metadata.Get(MetaStatus))
		}
		t.Fatalf("want the two status changes on %s, in order", TopicTransitions)
	}
	eventually(t, func() bool { return d.Published() == 6 }, "published count to reach 6")
}

func findByPos(msgs []*message.Message, pos string) *message.Message {
	for _, m := range msgs {
		if m.Metadata.Get(MetaPosition) == pos {
			return m
		}
	}
	return nil
}

func TestARestartedDispatcherRepublishesOnlyWhatFollowsItsLastSavedCheckpoint(t *testing.T) {
	base := projectionstest.OpenStore(t)
	s := &crashableStore{Store: base}
	tr := newTransport(t)
	c := collect(t, tr, EventTopic("ReadinessCheckStarted"))
	cfg := DispatcherConfig{Name: "restart", Checkpoint: CheckpointConfig{Every: 3, Interval: 1 << 62}}

	var last eventstore.Position
	for range 7 {
		j := domain.NewJobID()
		last = appendEvents(t, s, j, eventstore.NoStream, "", domain.ReadinessCheckStarted{EventHeader: hdr(j)})
	}
	d1, err := NewDispatcher(s, tr.Publisher, cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	stop1 := runDispatcher(t, d1)
	c.waitFor(t, 7)
	eventually(t, func() bool { return d1.Position() >= last }, "the first dispatcher to pass the last event")
	// The process dies: the final checkpoint save on stop is lost.
	s.crashed.Store(true)
	if err := stop1(); !errors.Is(err, errCrashed) {
		t.Fatalf("first run ended with %v, want the crash", err)
	}
	s.crashed.Store(false)
	cp, err := LoadCheckpoint(context.Background(), s, cfg.Name, cfg.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Saved() == 0 || cp.Saved() >= last {
		t.Fatalf("saved checkpoint %d, want a throttled save between 0 and %d", cp.Saved(), last)
	}
	first := len(c.snapshot())

	d2, err := NewDispatcher(s, tr.Publisher, cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	stop2 := runDispatcher(t, d2)
	eventually(t, func() bool { return d2.Position() >= last }, "the second dispatcher to catch up")
	if err := stop2(); err != nil {
		t.Fatal(err)
	}
	var want []string
	for r, err := range base.ReadAll(context.Background(), cp.Saved()) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Type == "ReadinessCheckStarted" {
			want = append(want, strconv.FormatUint(uint64(r.Position), 10))
		}
	}
	again := c.snapshot()[first:]
	if len(again) != len(want) || len(want) == 0 {
		t.Fatalf("re-published %d events, want the %d after checkpoint %d", len(again), len(want), cp.Saved())
	}
	for i, m := range again {
		if m.Metadata.Get(MetaPosition) != want[i] {
			t.Errorf("re-published #%d is position %s, want %s", i, m.Metadata.Get(MetaPosition), want[i])
		}
		if m.UUID != MessageUUID(eventstore.Position(mustUint(t, want[i]))) {
			t.Errorf("re-published #%d has a new uuid", i)
		}
	}

	// A clean stop saved everything: a third run publishes only new events.
	j := domain.NewJobID()
	newPos := appendEvents(t, s, j, eventstore.NoStream, "", domain.ReadinessCheckStarted{EventHeader: hdr(j)})
	before := len(c.snapshot())
	d3, err := NewDispatcher(s, tr.Publisher, cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	runDispatcher(t, d3)
	got := c.waitFor(t, before+1)
	eventually(t, func() bool { return d3.Position() >= newPos }, "the third dispatcher to catch up")
	got = c.snapshot()[before:]
	if len(got) != 1 || got[0].Metadata.Get(MetaPosition) != strconv.FormatUint(uint64(newPos), 10) {
		t.Fatalf("third run published %d messages, want only the new event", len(got))
	}
}

func mustUint(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestTheDispatcherConfigRejectsNonsense(t *testing.T) {
	for _, cfg := range []DispatcherConfig{
		{Name: "a b"},
		{FlushTimeout: -1},
		{Checkpoint: CheckpointConfig{Every: -1}},
		{Checkpoint: CheckpointConfig{Interval: -1}},
	} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("%+v: valid, want an error", cfg)
		}
	}
	if err := (DispatcherConfig{}).Validate(); err != nil {
		t.Errorf("zero config: %v", err)
	}
}

func TestTwoDispatchersOnOneConsumerEndWithOneOfThemStoppingOnAConflict(t *testing.T) {
	s := projectionstest.OpenStore(t)
	tr := newTransport(t)
	cfg := DispatcherConfig{Name: "twin", Checkpoint: CheckpointConfig{Every: 1}}
	for range 3 {
		j := domain.NewJobID()
		appendEvents(t, s, j, eventstore.NoStream, "", domain.ReadinessCheckStarted{EventHeader: hdr(j)})
	}
	errs := make(chan error, 2)
	for range 2 {
		d, err := NewDispatcher(s, tr.Publisher, cfg, testLogger(t))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		go func() { errs <- d.Run(ctx) }()
	}
	// Each new event makes both twins save; whichever saves second finds the stream moved.
	deadline := time.After(waitLimit)
	for {
		select {
		case err := <-errs:
			if !errors.Is(err, ErrCheckpointConflict) {
				t.Fatalf("a twin stopped with %v, want a checkpoint conflict", err)
			}
			return
		case <-deadline:
			t.Fatal("both twins kept running on one checkpoint")
		default:
			j := domain.NewJobID()
			appendEvents(t, s, j, eventstore.NoStream, "", domain.ReadinessCheckStarted{EventHeader: hdr(j)})
			time.Sleep(time.Millisecond) // pacing the producer, not synchronisation
		}
	}
}
