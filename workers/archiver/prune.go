package archiver

import (
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"relayer/domain"
	"relayer/eventstore"
	"relayer/workers/lease"
)

// The housekeeping streams hold state that only their latest events make: a consumer's
// checkpoint, the gateway's block cursor, a lease term's renewals, the archiver's own horizon
// and the read models' history carried past retired jobs. An idle relayer keeps appending to
// some of them (the block cursor follows the chain's blocks), so once a segment holding their
// events is archived, the archiver prunes the superseded ones from the live store
// (eventstore.Pruner): the live store keeps the latest, and the archive keeps them all, so a
// replay of the archive and the live store still reads the whole log. Their last events stay,
// with their versions, so recovery reads the same checkpoints, cursors and horizon as before.
//
// The retention stream's JobsRetired events are never pruned: they name the retired jobs,
// whose ids must never be given again.

// checkpointPrefix starts the streams of the workers' checkpoints and of the gateway's block
// cursor (workers.CheckpointStreamPrefix: the archiver does not import the workers), each of
// which holds its state in its last event.
const checkpointPrefix = "checkpoint-"

// supersededTypes are the retention stream's event types of which only the latest matters.
var supersededTypes = []string{domain.ArchiveAdvanced{}.EventType(), domain.HistoryCarried{}.EventType()}

// superseded returns the prunes of the housekeeping streams that have events among records (a
// segment just archived): every event but the last of a checkpoint or renewal stream, and of the
// retention stream the events of supersededTypes older than the latest of each in records.
func superseded(records []eventstore.Record) []eventstore.Prune {
	var out []eventstore.Prune
	named := map[string]bool{}
	latest := map[string]eventstore.Version{}
	for _, r := range records {
		switch {
		case strings.HasPrefix(r.Stream, checkpointPrefix) || lease.IsRenewalStream(r.Stream):
			if !named[r.Stream] {
				named[r.Stream] = true
				out = append(out, eventstore.Prune{Stream: r.Stream, Before: math.MaxInt64})
			}
		case r.Stream == domain.RetentionStream && slices.Contains(supersededTypes, r.Type):
			latest[r.Type] = max(latest[r.Type], r.Version)
		}
	}
	for _, typ := range supersededTypes {
		if v, ok := latest[typ]; ok && v > 0 {
			out = append(out, eventstore.Prune{Stream: domain.RetentionStream, Before: v, Types: []string{typ}})
		}
	}
	return out
}

// prune removes from the live store the superseded housekeeping events of records, a segment
// archived and recorded up to upTo. A prune a crash interrupted is made by the next segment's
// (its prunes name every older event of the streams it meets).
func (w *worker) prune(ctx context.Context, records []eventstore.Record, upTo eventstore.Position) error {
	a := w.a
	if a.pruner == nil {
		return nil
	}
	prunes := superseded(records)
	if len(prunes) == 0 {
		return nil
	}
	start := time.Now()
	n, err := a.pruner.PruneStreams(ctx, prunes, upTo)
	if err != nil {
		return err
	}
	a.m.pruned.Add(float64(n))
	if n > 0 {
		a.log.Debug("archiver: superseded housekeeping events pruned from the live store", "streams", len(prunes), "events", n,
			"up_to", uint64(upTo), "took", time.Since(start).Round(time.Millisecond))
	}
	return nil
}
