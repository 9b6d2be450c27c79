package projections

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/eventstore/sqlite"
)

// openStore opens a new SQLite event store in a test's temporary directory.
func openStore(tb testing.TB) *sqlite.Store {
	tb.Helper()
	s, err := sqlite.Open(filepath.Join(tb.TempDir(), "events.db"), sqlite.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

// waitForHead waits until s has applied every event store holds now, and returns the head it
// waited for.
func waitForHead(tb testing.TB, ctx context.Context, store eventstore.Store, s *Set) eventstore.Position {
	tb.Helper()
	head, err := store.Head(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.WaitFor(ctx, head); err != nil {
		tb.Fatal(err)
	}
	return head
}

// foldRecords folds recs, skipping the streams in skip, into a new Set (Config{}) through Apply,
// the events of request streams decoded by the codec.
func foldRecords(t *testing.T, recs []eventstore.Record, skip map[string]bool) *Set {
	t.Helper()
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	codec := NewCodec()
	for _, rec := range recs {
		if skip[rec.Stream] {
			continue
		}
		var e domain.Event
		if isRequestStream(rec.Stream) {
			if e, err = DecodeEvent(codec, rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Apply(rec, e); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// encodeAll encodes an append's events.
func encodeAll(codec *eventstore.Codec, a genAppend) ([]eventstore.Event, error) {
	out := make([]eventstore.Event, len(a.events))
	for i, e := range a.events {
		ev, err := codec.Encode(e, eventstore.Metadata{CorrelationID: "test-" + a.job.String(), RecordedAt: e.Header().At})
		if err != nil {
			return nil, err
		}
		out[i] = ev
	}
	return out, nil
}

// appendConcurrently appends the history to store from workers goroutines. A job's appends all
// go through the same goroutine, in order, with their expected versions; the jobs interleave as
// the goroutines and the store's group commit order them. after, when not nil, is called with
// every append and the position it returned.
func appendConcurrently(ctx context.Context, store eventstore.Store, appends []genAppend, workers int, after func(genAppend, eventstore.Position) error) error {
	codec := NewCodec()
	queues := make([][]genAppend, workers)
	owner := map[domain.JobID]int{}
	for _, a := range appends {
		w, ok := owner[a.job]
		if !ok {
			w = len(owner) % workers
			owner[a.job] = w
		}
		queues[w] = append(queues[w], a)
	}
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for _, q := range queues {
		wg.Go(func() {
			for _, a := range q {
				events, err := encodeAll(codec, a)
				if err == nil {
					var pos eventstore.Position
					pos, err = store.Append(ctx, a.stream, a.expected, events...)
					if err == nil && after != nil {
						err = after(a, pos)
					}
				}
				if err != nil {
					errs <- fmt.Errorf("append to %s: %w", a.stream, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return errors.Join(func() (all []error) {
		for err := range errs {
			all = append(all, err)
		}
		return
	}()...)
}

// generate returns a whole history.
func generate(seed uint64, opts genOptions) []genAppend {
	g := newGenerator(seed, opts)
	var out []genAppend
	for {
		a, ok := g.next()
		if !ok {
			return out
		}
		out = append(out, a)
	}
}

// eachRecord encodes the history g generates and calls each with its records in order, as a
// store would hold them (positions from 1), keeping none.
func eachRecord(tb testing.TB, g *generator, each func(rec eventstore.Record)) {
	tb.Helper()
	codec := NewCodec()
	var pos eventstore.Position
	for {
		a, ok := g.next()
		if !ok {
			return
		}
		events, err := encodeAll(codec, a)
		if err != nil {
			tb.Fatal(err)
		}
		for i, ev := range events {
			pos++
			each(eventstore.Record{Stream: a.stream, Version: a.expected + 1 + eventstore.Version(i), Position: pos,
				Type: ev.Type, SchemaVersion: ev.SchemaVersion, Data: ev.Data})
		}
	}
}

// decodeApply decodes and applies recs to s one by one under its lock, as Run does once the
// records are read.
func decodeApply(tb testing.TB, s *Set, recs []eventstore.Record) {
	tb.Helper()
	var f fact
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range recs {
		if err := s.dec.decode(&recs[i], &f); err != nil {
			tb.Fatal(err)
		}
		if err := s.apply(&recs[i], &f); err != nil {
			tb.Fatal(err)
		}
	}
}

// readAll returns every record of the store, in global order.
func readAll(tb testing.TB, store eventstore.Store) []eventstore.Record {
	tb.Helper()
	var recs []eventstore.Record
	for rec, err := range store.ReadAll(context.Background(), 0) {
		if err != nil {
			tb.Fatal(err)
		}
		recs = append(recs, rec)
	}
	return recs
}

func snapshot(tb testing.TB, s *Set) []byte {
	tb.Helper()
	b, err := s.Snapshot()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// sameSnapshots fails the test with the first difference between two snapshots, and keeps both
// in the test's output directory for a look.
func sameSnapshots(tb testing.TB, what string, want, got []byte) {
	tb.Helper()
	if bytes.Equal(want, got) {
		return
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	lo := max(0, i-200)
	dir := tb.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "want.json"), want, 0o644)
	_ = os.WriteFile(filepath.Join(dir, "got.json"), got, 0o644)
	tb.Fatalf("%s: snapshots differ at byte %d of %d/%d:\nwant ...%s\ngot  ...%s", what, i, len(want), len(got),
		want[lo:min(len(want), i+200)], got[lo:min(len(got), i+200)])
}

// harness builds hand-made histories: it decides commands on its own copy of each job's state,
// encodes the events as the store would hold them and applies them to a Set through Apply.
type harness struct {
	t      *testing.T
	s      *Set
	codec  *eventstore.Codec
	pos    eventstore.Position
	states map[domain.JobID]domain.State
	base   time.Time
	hashes int
	// log is every record applied, in order.
	log []eventstore.Record
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, s: s, codec: NewCodec(), states: map[domain.JobID]domain.State{},
		base: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

// at is the harness's time base plus d.
func (h *harness) at(d time.Duration) domain.At { return domain.At{At: h.base.Add(d)} }

// records decides cmd for job id and returns the records the events would be stored as, without
// applying them.
func (h *harness) records(id domain.JobID, cmd domain.Command) ([]eventstore.Record, []domain.Event) {
	h.t.Helper()
	st := h.states[id]
	events, err := domain.Decide(st, cmd)
	if err != nil {
		h.t.Fatalf("decide %s on %s: %v", cmd.CommandName(), id, err)
	}
	recs := make([]eventstore.Record, len(events))
	for i, e := range events {
		ev, err := h.codec.Encode(e, eventstore.Metadata{})
		if err != nil {
			h.t.Fatal(err)
		}
		h.pos++
		recs[i] = eventstore.Record{Stream: id.Stream(), Version: eventstore.Version(st.Events), Position: h.pos,
			Type: ev.Type, SchemaVersion: ev.SchemaVersion, Data: ev.Data}
		st = domain.Evolve(st, e)
	}
	h.states[id] = st
	return recs, events
}

// applySystem encodes e as the next record of stream, a stream of no job, and applies it as Run
// does (with no decoded event); a record that applied joins the log.
func (h *harness) applySystem(stream string, e eventstore.Typed) error {
	h.t.Helper()
	ev, err := h.codec.Encode(e, eventstore.Metadata{})
	if err != nil {
		h.t.Fatal(err)
	}
	h.pos++
	rec := eventstore.Record{Stream: stream, Position: h.pos, Type: ev.Type, SchemaVersion: ev.SchemaVersion, Data: ev.Data}
	if err := h.s.Apply(rec, nil); err != nil {
		return err
	}
	h.log = append(h.log, rec)
	return nil
}

// do decides cmd for job id and applies its events.
func (h *harness) do(id domain.JobID, cmd domain.Command) {
	h.t.Helper()
	recs, _ := h.records(id, cmd)
	for _, rec := range recs {
		e, err := DecodeEvent(h.codec, rec)
		if err != nil {
			h.t.Fatal(err)
		}
		if err := h.s.Apply(rec, e); err != nil {
			h.t.Fatalf("apply %s: %v", rec.Type, err)
		}
		h.log = append(h.log, rec)
	}
}

// accept accepts a new job of kind k at time d, with a content hash of its own unless hash is
// given.
func (h *harness) accept(k domain.Kind, d time.Duration, hash ...string) domain.JobID {
	h.t.Helper()
	id := domain.NewJobID()
	h.hashes++
	ch := fmt.Sprintf("%064x", h.hashes)
	if len(hash) > 0 {
		ch = hash[0]
	}
	var req domain.Request
	switch k {
	case domain.InputProof:
		req.InputProof = &domain.InputProofRequest{ContractChainID: 1337, ContractAddress: "0x01", UserAddress: "0x02", Ciphertext: "aa", ExtraData: "0x00"}
	case domain.PublicDecrypt:
		req.PublicDecrypt = &domain.PublicDecryptRequest{CiphertextHandles: []string{"0x03"}, ExtraData: "0x00"}
	default:
		req.UserDecrypt = &domain.UserDecryptRequest{UserAddress: "0x04", ExtraData: "0x00"}
	}
	h.do(id, domain.Accept{At: h.at(d), JobID: id, Request: req, ContentHash: ch})
	return id
}

// toTx drives a decrypt from queued to processing through a readiness check.
func (h *harness) toTx(id domain.JobID, d time.Duration) {
	h.t.Helper()
	h.do(id, domain.StartReadiness{At: h.at(d)})
	h.do(id, domain.PassReadiness{At: h.at(d + time.Second)})
}

func (h *harness) sign(id domain.JobID, d time.Duration) {
	h.t.Helper()
	h.do(id, domain.SignTransaction{At: h.at(d), From: "0xa1", Nonce: 1, TxHash: fmt.Sprintf("0x%064x", h.pos+1), RawTx: "0xf86c"})
}

func (h *harness) receipt(id domain.JobID, d time.Duration) {
	h.t.Helper()
	h.do(id, domain.RecordReceipt{At: h.at(d), TxHash: h.states[id].TxHash, BlockNumber: 7, GatewayRequestID: "42"})
}

func (h *harness) location(id domain.JobID) Location {
	h.t.Helper()
	loc, ok := h.s.Locate(id)
	if !ok {
		h.t.Fatalf("job %s not found", id)
	}
	return loc
}
