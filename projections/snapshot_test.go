package projections

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"relayer/domain"
	"relayer/eventstore"
)

// A snapshot taken while the Set follows a log that another writer appends to comes with its own
// position: SnapshotAt's position is the one inside the snapshot, whatever was applied meanwhile
// (serve prints it beside the digest for `relayer rebuild --through` to reproduce).
func TestSnapshotAtGivesTheSnapshotsOwnPositionWhileTheLogGrows(t *testing.T) {
	x, store := newExecutor(t)
	set, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runErr := make(chan error, 1)
	go func() { runErr <- set.Run(ctx, store) }()

	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			id := domain.NewJobID()
			if _, err := x.Execute(ctx, id, acceptCmd(id), eventstore.Metadata{}); err != nil && ctx.Err() == nil {
				t.Error(err)
				return
			}
		}
	})
	moved := 0
	for range 200 {
		snap, pos, err := set.SnapshotAt()
		if err != nil {
			t.Fatal(err)
		}
		var head struct {
			Position uint64 `json:"position"`
		}
		if err := json.Unmarshal(snap, &head); err != nil {
			t.Fatal(err)
		}
		if head.Position != uint64(pos) {
			t.Fatalf("SnapshotAt gave position %d beside a snapshot at %d", pos, head.Position)
		}
		if set.Position() != pos {
			moved++ // the Set applied more since: Position would have been the wrong one
		}
	}
	close(stop)
	wg.Wait()
	cancel()
	if err := <-runErr; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	t.Logf("the Set had moved past the snapshot by the time it was returned in %d of 200 snapshots", moved)
}
