package archiver

import (
	"bytes"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"relayer/archive"
	"relayer/domain"
	"relayer/eventstore"
	"relayer/eventstore/sqlite"
	"relayer/projections"
	"relayer/projections/projectionstest"
	"relayer/workers"
)

func TestTheCheckpointPrefixIsTheWorkers(t *testing.T) {
	if checkpointPrefix != workers.CheckpointStreamPrefix {
		t.Fatalf("the archiver prunes streams starting %q, the workers' checkpoints start %q", checkpointPrefix, workers.CheckpointStreamPrefix)
	}
}

// cursor saves block cursors as the gateway's responses worker does: the last event of its
// checkpoint stream, appended with the stream's expected version.
type cursor struct {
	store  eventstore.Store
	codec  *eventstore.Codec
	folded eventstore.Folded[workers.BlockCursorSaved]
}

var cursorStream = workers.CheckpointStream(workers.ResponsesCursorConsumer)

func loadCursor(t *testing.T, store eventstore.Store) *cursor {
	t.Helper()
	c := &cursor{store: store, codec: workers.NewCheckpointCodec()}
	last, v, err := eventstore.Last(t.Context(), store, c.codec, cursorStream)
	if err != nil {
		t.Fatal(err)
	}
	c.folded = eventstore.Folded[workers.BlockCursorSaved]{Version: v}
	if last != nil {
		c.folded.State = last.(workers.BlockCursorSaved)
	}
	return c
}

func (c *cursor) save(t *testing.T, block uint64) {
	t.Helper()
	_, err := eventstore.Update(t.Context(), c.store, c.codec, cursorStream, &c.folded,
		func(_ workers.BlockCursorSaved, e eventstore.Typed) workers.BlockCursorSaved {
			return e.(workers.BlockCursorSaved)
		},
		func(workers.BlockCursorSaved) ([]eventstore.Typed, error) {
			return []eventstore.Typed{workers.BlockCursorSaved{Block: block, Hash: common.BigToHash(new(big.Int).SetUint64(block)), At: base}}, nil
		}, eventstore.Metadata{}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
}

// housekeeping counts the live events of the housekeeping streams: the checkpoints and cursor,
// and the retention stream's by type.
func housekeeping(t *testing.T, store eventstore.Store) (checkpoints int, retention map[string]int) {
	t.Helper()
	retention = map[string]int{}
	for _, r := range projectionstest.ReadLog(t, store) {
		switch {
		case strings.HasPrefix(r.Stream, workers.CheckpointStreamPrefix):
			checkpoints++
		case r.Stream == domain.RetentionStream:
			retention[r.Type]++
		}
	}
	return checkpoints, retention
}

func TestAnIdleRelayersLiveStoreStaysBoundedAndRecoversTheSameState(t *testing.T) {
	f := newFixture(t)
	f.makeJobs(60)
	p := policy()
	p.Batch = 50
	a := f.archiver(p)
	ctx := t.Context()
	dispatcher, err := workers.LoadCheckpoint(ctx, f.store, "dispatcher", workers.CheckpointConfig{Every: 1})
	if err != nil {
		t.Fatal(err)
	}
	cur := loadCursor(t, f.store)

	// Idle: nothing but block cursors and checkpoints, round after round, the archiver running
	// after each; the jobs that ended leave on the way.
	whole := map[eventstore.Position]eventstore.Record{}
	const rounds, saves = 10, 120
	block := uint64(1000)
	for round := range rounds {
		f.setClock(base.Add(time.Duration(round+1) * time.Hour))
		for range saves {
			block++
			cur.save(t, block)
			head, err := f.store.Head(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := dispatcher.Advance(ctx, head); err != nil {
				t.Fatal(err)
			}
		}
		for _, r := range projectionstest.ReadLog(t, f.store) {
			whole[r.Position] = r
		}
		f.caughtUp()
		if err := drain(ctx, a); err != nil {
			t.Fatal(err)
		}
		// Live: what is not archived yet (less than a batch), the latest of each checkpoint
		// stream, and the records of the segments this round archived (one each) and of the
		// last retirement: a bound that does not grow with the rounds.
		checkpoints, retention := housekeeping(t, f.store)
		if bound := p.Batch + 2*saves/p.Batch + 4; checkpoints+retention["ArchiveAdvanced"]+retention["HistoryCarried"] > bound {
			t.Fatalf("round %d: %d checkpoint and cursor events live after %d saves, retention stream %v: more than %d",
				round, checkpoints, 2*saves*(round+1), retention, bound)
		}
	}
	checkpoints, retention := housekeeping(t, f.store)
	t.Logf("after %d cursor and %d checkpoint saves: %d live, retention stream %v", rounds*saves, rounds*saves, checkpoints, retention)
	if f.set.RetiredJobs() == 0 {
		t.Fatal("no job was retired on the way")
	}
	f.caughtUp()
	// The live store alone and the whole log rebuild to the running read models.
	running := liveSnapshot(t, f.set)
	for _, src := range []eventstore.Store{f.store, archive.Joined{Store: f.store, Archive: f.arch}} {
		s, _, err := projections.Rebuild(ctx, src, projections.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if got := liveSnapshot(t, s); !bytes.Equal(got, running) {
			t.Fatalf("rebuilt from %T: %d events, %d bytes; running: %d events, %d bytes", src, s.Events(), len(got), f.set.Events(), len(running))
		}
	}
	wantCheckpoint, wantBlock := dispatcher.Saved(), cur.folded.State.Block

	// A restart: the store opened again recovers the same checkpoint, cursor, horizon and read
	// models, and the stream versions go on.
	if err := f.store.Close(); err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(f.path, sqlite.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	again, err := workers.LoadCheckpoint(ctx, store, "dispatcher", workers.CheckpointConfig{Every: 1})
	if err != nil {
		t.Fatal(err)
	}
	cur2 := loadCursor(t, store)
	if again.Saved() != wantCheckpoint || cur2.folded.State.Block != wantBlock {
		t.Fatalf("after the restart: checkpoint %d, cursor at block %d; before: %d, %d", again.Saved(), cur2.folded.State.Block, wantCheckpoint, wantBlock)
	}
	cur2.save(t, wantBlock+1)
	head, err := store.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := again.Advance(ctx, head); err != nil {
		t.Fatalf("the checkpoint after the restart: %v", err)
	}
	alone, _, err := projections.Rebuild(ctx, store, projections.Config{})
	if err != nil {
		t.Fatal(err)
	}
	joined, _, err := projections.Rebuild(ctx, archive.Joined{Store: store, Archive: f.arch}, projections.Config{})
	if err != nil {
		t.Fatal(err)
	}
	// Two more events (the cursor and the checkpoint) than the running read models saw.
	for _, s := range []*projections.Set{alone, joined} {
		if s.Events() != f.set.Events()+2 || s.Jobs() != f.set.Jobs() || s.Counts() != f.set.Counts() {
			t.Fatalf("rebuilt after the restart: %d events, %d jobs; running: %d events, %d jobs", s.Events(), s.Jobs(), f.set.Events(), f.set.Jobs())
		}
	}
	if a, j := liveSnapshot(t, alone), liveSnapshot(t, joined); !bytes.Equal(a, j) {
		t.Fatal("after the restart, the live store alone and the whole log rebuild to different read models")
	}
	b, err := New(Config{Retention: p}, Deps{Store: store, Projections: alone, Archive: f.arch, Now: f.clock})
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.open(ctx, store)
	if err != nil {
		t.Fatalf("the archiver after the restart: %v", err)
	}
	if m, err := archive.LoadManifest(ctx, f.arch); err != nil || w.state.State.horizon != m.Last() {
		t.Fatalf("the archiver resumes at horizon %d, the archive ends at %d (%v)", w.state.State.horizon, m.Last(), err)
	}

	// The whole log, archive and live store together, is every record ever appended, once, in
	// order, and verifies.
	var last eventstore.Position
	n := 0
	for r, err := range (archive.Joined{Store: store, Archive: f.arch}).ReadAll(ctx, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Position <= last {
			t.Fatalf("the whole log goes from position %d to %d", last, r.Position)
		}
		last = r.Position
		if want, ok := whole[r.Position]; ok {
			n++
			if want.Stream != r.Stream || want.Version != r.Version || !bytes.Equal(want.Data, r.Data) {
				t.Fatalf("position %d holds %s@%d, it held %s@%d", r.Position, r.Stream, r.Version, want.Stream, want.Version)
			}
		}
	}
	if n != len(whole) {
		t.Fatalf("the whole log holds %d of the %d records ever read live", n, len(whole))
	}
	if _, err := archive.Verify(ctx, f.arch); err != nil {
		t.Fatal(err)
	}
}

// A HistoryCarried that the log outran between the history's reading and its append, by more
// history operations than every Set keeps, would not be taken over by read models folded from
// the live store alone: the archiver carries the history again at once, as of where the read
// models are then, and the live store alone still rebuilds to the running read models.
func TestAHistoryCarriedThatTheLogOutranIsCarriedAgain(t *testing.T) {
	f := newFixture(t)
	f.makeJobs(40)
	f.setClock(base.Add(2 * time.Hour))
	a := f.archiver(policy())
	codec := workers.NewCheckpointCodec()
	stream := workers.CheckpointStream("lag-test")
	var first, last eventstore.Position
	a.faults.beforeCarry = func() {
		if last != 0 {
			return
		}
		// 20,000 events, each one history operation of every Set: more than a Set keeps.
		for b := range 20 {
			evs := make([]eventstore.Event, 1000)
			for i := range evs {
				ev, err := codec.Encode(workers.BlockCursorSaved{Block: uint64(b*1000 + i + 1), At: base}, eventstore.Metadata{})
				if err != nil {
					t.Error(err)
					return
				}
				evs[i] = ev
			}
			pos, err := f.store.Append(t.Context(), stream, eventstore.Version(b*1000)-1, evs...)
			if err != nil {
				t.Error(err)
				return
			}
			if first == 0 {
				first = pos - 999
			}
			last = pos
		}
	}
	if err := drain(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	f.caughtUp()
	if last == 0 {
		t.Fatal("no history was carried after a retirement: the lag was never injected")
	}

	// The retention stream: the history carried as of before the injected events is followed at
	// once by one carried again as of after them.
	var retention []eventstore.Record
	for r, err := range (archive.Joined{Store: f.store, Archive: f.arch}).ReadAll(t.Context(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Stream == domain.RetentionStream {
			retention = append(retention, r)
		}
	}
	asOf := func(r eventstore.Record) eventstore.Position {
		v, err := projections.NewCodec().Decode(r)
		if err != nil {
			t.Fatal(err)
		}
		return eventstore.Position(v.(domain.HistoryCarried).AsOf)
	}
	found := false
	for i, r := range retention {
		if r.Type != "HistoryCarried" || r.Position < last || asOf(r) >= first {
			continue
		}
		found = true
		if i+1 == len(retention) || retention[i+1].Type != "HistoryCarried" || asOf(retention[i+1]) < last {
			t.Fatalf("the history carried at %d, as of %d (before the %d events injected at %d-%d), is not followed by one carried again past them",
				r.Position, asOf(r), last-first+1, first, last)
		}
	}
	if !found {
		t.Fatalf("no history carried as of before the injected events (%d-%d) and appended after them", first, last)
	}

	alone, _, err := projections.Rebuild(t.Context(), f.store, projections.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := liveSnapshot(t, alone), liveSnapshot(t, f.set); !bytes.Equal(got, want) {
		t.Fatalf("read models rebuilt from the live store alone (%d events) differ from the running ones (%d events)", alone.Events(), f.set.Events())
	}
}
