package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"relayer/eventstore"
)

// Two stores on one file (two processes' writers) append, in single appends, batches and
// racing creations of shared streams, while one of them removes short-lived streams; fast,
// slow, late and mid-tail subscribers of both follow the log. Each must yield every position
// of the file after its start, in order, once, each record as the file holds it (or, for a
// stream removed meanwhile, as it was committed).
func TestSubscriptionsOfTwoWritersOnOneFileYieldTheFileInOrder(t *testing.T) {
	cfgA := Config{PollInterval: 30 * time.Millisecond, MaxBatch: 64}
	a, path := newStore(t, cfgA)
	b, err := Open(path, Config{PollInterval: 30 * time.Millisecond, MaxBatch: 64})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	type subRes struct {
		name string
		recs []eventstore.Record
		err  error
	}
	var subsWG sync.WaitGroup
	var results []*subRes
	var resMu sync.Mutex
	stopAt := atomic.Int64{}
	stopAt.Store(1 << 62)
	startSub := func(st *Store, name string, after eventstore.Position, slow time.Duration) {
		res := &subRes{name: name}
		resMu.Lock()
		results = append(results, res)
		resMu.Unlock()
		subsWG.Add(1)
		go func() {
			defer subsWG.Done()
			sctx, c := context.WithTimeout(t.Context(), 60*time.Second)
			defer c()
			last := after
			for r, err := range st.SubscribeAll(sctx, after) {
				if err != nil {
					res.err = err
					return
				}
				if r.Position <= last {
					res.err = fmt.Errorf("position %d after %d", r.Position, last)
					return
				}
				last = r.Position
				res.recs = append(res.recs, r)
				if int64(r.Position) >= stopAt.Load() {
					return
				}
				if slow > 0 && rand.Intn(50) == 0 {
					time.Sleep(slow)
				}
			}
		}()
	}
	startSub(a, "a-fast", 0, 0)
	startSub(a, "a-slow", 0, 3*time.Millisecond)
	startSub(b, "b-fast", 0, 0)

	var wg sync.WaitGroup
	var removed sync.Map
	writer := func(st *Store, prefix string, n int) {
		defer wg.Done()
		for i := range n {
			if ctx.Err() != nil {
				return
			}
			switch rand.Intn(6) {
			case 0:
				// A shared new stream: both writers race to create it (the loser's guess fails).
				name := fmt.Sprintf("shared-%d", i/3)
				_, _ = st.Append(ctx, name, eventstore.NoStream, eventstore.Event{Type: "s", SchemaVersion: 1, Data: json.RawMessage(`{"w":"` + prefix + `"}`)})
			case 1:
				var apps []eventstore.StreamAppend
				for k := range 1 + rand.Intn(40) {
					apps = append(apps, eventstore.StreamAppend{Stream: fmt.Sprintf("%s-b%d", prefix, k%5), Expected: eventstore.Any,
						Events: []eventstore.Event{{Type: "b", SchemaVersion: 2, Data: json.RawMessage(`[1,2]`), Metadata: eventstore.Metadata{CorrelationID: "c", RecordedAt: time.Unix(int64(i), 5).In(time.FixedZone("Z", 7200))}}}})
				}
				st.AppendBatch(ctx, apps)
			default:
				evs := make([]eventstore.Event, 1+rand.Intn(3))
				for k := range evs {
					evs[k] = eventstore.Event{Type: "e", SchemaVersion: 1, Data: json.RawMessage(fmt.Sprintf(`{"i":%d,"pad":"%s"}`, i, strings.Repeat("x", rand.Intn(200))))}
				}
				if _, err := st.Append(ctx, fmt.Sprintf("%s-%d", prefix, i%17), eventstore.Any, evs...); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}
	for range 4 {
		wg.Add(2)
		go writer(a, "A", 600)
		go writer(b, "B", 600)
	}
	// Short-lived streams of a, removed now and then.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 20 {
			name := fmt.Sprintf("tmp-%d", i)
			if _, err := a.Append(ctx, name, eventstore.NoStream, ev(i)); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(5 * time.Millisecond)
			h, _ := a.Head(ctx)
			out, err := a.RemoveStreams(ctx, []string{name}, h)
			if err != nil {
				t.Error(err)
				return
			}
			for _, s := range out.Streams {
				removed.Store(s, true)
			}
		}
	}()
	time.Sleep(100 * time.Millisecond)
	startSub(a, "a-late", 100, 0)
	wg.Wait()
	head, err := a.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stopAt.Store(int64(head))
	// A late subscriber starting inside the tail.
	startSub(a, "a-inside", head-50, 0)
	// One more append from each, so that waiting subscribers wake up and see stopAt.
	for _, st := range []*Store{a, b} {
		if _, err := st.Append(ctx, "final", eventstore.Any, ev(1)); err != nil {
			t.Fatal(err)
		}
	}
	subsWG.Wait()
	var file []eventstore.Record
	for r, err := range a.ReadAll(ctx, 0) {
		if err != nil {
			t.Fatal(err)
		}
		file = append(file, r)
	}
	byPos := map[eventstore.Position]eventstore.Record{}
	for _, r := range file {
		byPos[r.Position] = r
	}
	t.Logf("head %d, file %d events", head, len(file))
	for _, res := range results {
		if res.err != nil {
			t.Errorf("%s: %v", res.name, res.err)
			continue
		}
		var after eventstore.Position
		if len(res.recs) > 0 {
			after = res.recs[0].Position - 1
		}
		got := map[eventstore.Position]bool{}
		for _, r := range res.recs {
			got[r.Position] = true
			f, ok := byPos[r.Position]
			if !ok {
				if _, rem := removed.Load(r.Stream); !rem {
					t.Errorf("%s: yielded %d (%s) not in the file", res.name, r.Position, r.Stream)
				}
				continue
			}
			if !reflect.DeepEqual(f, r) {
				t.Errorf("%s: %d differs:\n%#v\n%#v", res.name, r.Position, r, f)
			}
		}
		missing := 0
		for _, f := range file {
			if f.Position > after && f.Position <= head && !got[f.Position] {
				if missing < 5 {
					t.Errorf("%s: missed %d", res.name, f.Position)
				}
				missing++
			}
		}
		t.Logf("%s: %d records, missing %d", res.name, len(res.recs), missing)
	}
}
