// Package archiver moves the log past its retention horizon from the live store to an archive,
// as one more consumer of the log, so that the live store stays the size of its horizon while
// audits and rebuilds still read the whole log.
//
// The archive is a complete prefix of the log. The archiver copies every record at positions up
// to a horizon H (all streams, not only the jobs') into archive segments, H advancing a batch at
// a time; and only then removes from the live store the streams of jobs that ended longer ago
// than their kind's window and whose every event lies at or below H. So every removed event is
// in a segment that was written, read back and compared before the removal, and a replay of the
// archive (positions up to H) followed by the live store (above H) is the whole log with its
// original positions.
//
// Its progress is recorded in the retention stream (domain.RetentionStream), each event appended
// with the stream's expected version: ArchiveAdvanced once a segment is committed to the
// archive's manifest (with, in the same append, HistoryCarried: the read models' running
// history, which read models folded from the live store alone take over), JobsRetired before a
// removal. A killed archiver resumes from them:
//
//   - killed after a segment was committed, before its ArchiveAdvanced: the manifest reaches
//     past H, and the archiver records the segment it finds there (it was verified before the
//     manifest named it); a segment written but not committed is removed by archive.Open and
//     written again. No event is lost and none is in two segments.
//   - killed after JobsRetired, before or during the removal: the removal is redone (it is
//     idempotent) before anything else.
//
// A job is retired only if the read models hold it in a terminal status (completed, failure,
// timed_out), its stream's last version in the store is the one the read models hold, and the
// store's removal finds no event of it above H (eventstore.Remover checks it in the removal's
// own transaction). Nothing that can still change leaves the live store.
//
// Nothing leaves the live store either while the archive is not sound: the archiver verifies
// the whole archive (archive.Verify) and checks it is this log's (the segment the log recorded
// last is in its manifest) each time it opens it, at start and after every failed pass, and
// before each removal checks that the manifest is still the one it committed and that its
// segment files are there (archive.Writer.Check). A refusal is a failed pass, tried again after
// the interval.
//
// The archiver never writes a job's stream and never decides a job's fate. One archiver runs
// per log: serve runs it beside the engine, under the lease "archiver" in a fleet.
package archiver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"relayer/archive"
	"relayer/domain"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers/lease"
)

// LeaseName names the lease the archiver runs under in a fleet.
const LeaseName = "archiver"

// Config is the retention policy the archiver starts with; the admin API's changes to the
// retention.* parameters (ConfigChanged in the config stream) apply on top of it while it runs.
type Config struct {
	Retention domain.Retention
}

// Validate checks the policy.
func (c Config) Validate() error {
	if ps := c.Retention.Problems(); len(ps) > 0 {
		parts := make([]string, len(ps))
		for i, p := range ps {
			parts[i] = p.Field + ": " + p.Issue
		}
		return errors.New("archiver: " + strings.Join(parts, "; "))
	}
	return nil
}

// Deps are what the archiver stands on.
type Deps struct {
	// Store is the live event log. It must implement eventstore.Remover for jobs to leave it;
	// without it the archiver only archives.
	Store eventstore.Store
	// Projections must be following Store: they say which jobs ended, and when.
	Projections *projections.Set
	// Archive is where the segments go.
	Archive archive.Store
	// Lease, when set, runs the archiver only while this instance holds the lease it names (a
	// fleet); Name defaults to LeaseName. The store must offer guarded appends.
	Lease *lease.Config
	// Followers, when set, is how far every consumer that must receive every transition (the
	// webhook endpoints not deleted: delivery.Slowest) has surely got, and which one is at it; ok
	// is false when there is none. No job with an event above it is retired, so that none of
	// them loses a transition the live store no longer holds.
	Followers func(ctx context.Context) (pos eventstore.Position, who string, ok bool, err error)
	Logger    *slog.Logger
	// Now is the clock the windows are measured by (time.Now when nil).
	Now func() time.Time
}

// Archiver is the retention worker. Build it with New and Run it.
type Archiver struct {
	base    domain.Retention
	store   eventstore.Store
	remover eventstore.Remover
	pruner  eventstore.Pruner
	set     *projections.Set
	arch    archive.Store
	lease   *lease.Lease
	codec   *eventstore.Codec
	log     *slog.Logger
	now     func() time.Time
	// followers is Deps.Followers.
	followers func(ctx context.Context) (eventstore.Position, string, bool, error)

	// policy is the retention policy in force (base with the admin API's changes); config is
	// the configuration stream as folded into it, by the goroutine of runTerm; changes signals
	// that stream's events, which wake the archiver's wait between passes.
	policy  atomic.Pointer[domain.Retention]
	config  eventstore.Folded[domain.Retention]
	changes <-chan struct{}
	m       metrics

	// faults lets a test stop the archiver at the points a crash matters (see faults).
	faults faults
}

// faults are the points where a test kills the archiver: each, when set, runs there and, when
// it returns an error, the pass stops with it, as a crash would stop it.
type faults struct {
	afterSegment func() error // a segment committed to the manifest, ArchiveAdvanced not yet appended
	afterRetired func() error // JobsRetired appended, the streams not yet removed
	// beforeCarry runs between reading the read models' history and appending it: events
	// appended there come between the history's AsOf and its HistoryCarried.
	beforeCarry func()
}

// New checks cfg and deps and builds the archiver.
func New(cfg Config, deps Deps) (*Archiver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.Store == nil || deps.Projections == nil || deps.Archive == nil {
		return nil, errors.New("archiver: needs a store, projections and an archive")
	}
	a := &Archiver{base: cfg.Retention, store: deps.Store, set: deps.Projections, arch: deps.Archive,
		codec: projections.NewCodec(), log: deps.Logger, now: deps.Now, m: newMetrics(), followers: deps.Followers}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	a.log = a.log.With("component", "archiver")
	if a.now == nil {
		a.now = time.Now
	}
	a.remover, _ = deps.Store.(eventstore.Remover)
	a.pruner, _ = deps.Store.(eventstore.Pruner)
	if a.remover == nil && cfg.Retention.Enabled {
		a.log.Warn("archiver: the store cannot remove streams: the log is archived, but nothing leaves the live store")
	}
	p := cfg.Retention
	a.policy.Store(&p)
	a.config = eventstore.NewFolded(cfg.Retention)
	a.changes = deps.Projections.NotifyStream(domain.ConfigStream)
	l, err := lease.NewOptional(deps.Store, deps.Lease, LeaseName, a.log)
	if err != nil {
		return nil, err
	}
	a.lease = l
	return a, nil
}

// Lease is the lease "archiver" the archiver runs under in a fleet; nil alone on a log.
func (a *Archiver) Lease() *lease.Lease { return a.lease }

// Policy is the retention policy in force.
func (a *Archiver) Policy() domain.Retention { return *a.policy.Load() }

// Run archives and retires until ctx ends, then returns nil. A failure (the archive
// unreachable, the store full) is logged, counted and tried again after the interval; nothing
// is removed while the archive cannot be written.
func (a *Archiver) Run(ctx context.Context) error {
	if a.lease == nil {
		a.runTerm(ctx, a.store)
		return nil
	}
	for {
		term, err := a.lease.Acquire(ctx)
		if err != nil {
			return nil // ctx ended: Acquire waits out every other failure
		}
		a.log.Info("this instance archives the log", "lease", a.lease.Name(), "epoch", term.Epoch)
		tctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Go(func() { a.runTerm(tctx, term.Store()) })
		select {
		case <-term.Lost():
			a.log.Warn("archiving stopped: the lease was lost", "epoch", term.Epoch, "why", term.Err())
		case <-ctx.Done():
		}
		cancel()
		wg.Wait()
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		if err := term.Release(rctx); err != nil {
			a.log.Warn("release the archiver lease", "err", err)
		}
		rcancel()
		if ctx.Err() != nil {
			return nil
		}
	}
}

// runTerm runs passes until ctx ends; store takes the archiver's appends (fenced by the lease's
// term in a fleet).
func (a *Archiver) runTerm(ctx context.Context, store eventstore.Store) {
	var w *worker
	for ctx.Err() == nil {
		if err := a.refresh(ctx); err != nil {
			a.failed(ctx, "read the retention settings", err)
		}
		if w == nil && a.Policy().Enabled {
			// Retention off (from the start, or through the admin API): the archive is not
			// opened, so an unreachable one counts no failure.
			var err error
			if w, err = a.open(ctx, store); err != nil {
				a.failed(ctx, "open the archive", err)
			}
		}
		busy := false
		if w != nil {
			var err error
			if busy, err = w.pass(ctx); err != nil {
				a.failed(ctx, "archive", err)
				w = nil // start over from what the log and the archive say
			}
		}
		if !busy {
			// A change of the retention settings ends the wait: a new interval, or retention
			// turned on, takes effect at once, not after the old interval.
			t := time.NewTimer(a.Policy().Interval)
			select {
			case <-ctx.Done():
			case <-t.C:
			case <-a.changes:
			}
			t.Stop()
		}
	}
}

// refresh folds the configuration stream's changes of the retention settings into the policy in
// force. It runs on runTerm's goroutine only.
func (a *Archiver) refresh(ctx context.Context) error {
	if err := a.config.Catch(ctx, a.store, a.codec, domain.ConfigStream, foldPolicy(a.log)); err != nil {
		return err
	}
	if p := a.config.State; p != *a.policy.Load() {
		a.policy.Store(&p)
	}
	return nil
}

func (a *Archiver) failed(ctx context.Context, what string, err error) {
	if ctx.Err() != nil {
		return
	}
	a.m.failures.Inc()
	a.log.Error("archiver: "+what+" failed; trying again after the interval", "err", err)
}

// state is the retention stream folded: the archived horizon and the last retirement.
type state struct {
	horizon eventstore.Position
	// recorded is the newest ArchiveAdvanced: the segment the archive must end with, or go past.
	recorded domain.ArchiveAdvanced
	// last is the last retirement, when nothing was archived since.
	last *domain.JobsRetired
	// carried is set once a HistoryCarried follows the last retirement (carry).
	carried bool
}

func fold(s state, e eventstore.Typed) state {
	switch e := e.(type) {
	case domain.ArchiveAdvanced:
		s.horizon = eventstore.Position(e.Last)
		s.recorded = e
		s.last = nil
	case domain.JobsRetired:
		s.last, s.carried = &e, false
	case domain.HistoryCarried:
		s.carried = true
	}
	return s
}

// worker is one run of the archiver over an opened archive.
type worker struct {
	a      *Archiver
	store  eventstore.Store
	writer *archive.Writer
	state  eventstore.Folded[state]
	// redo is set until the last recorded retirement has been removed again.
	redo bool
	// heldBy and heldAt are the webhook endpoint that last held retirement back and where, so
	// that the hold is logged when it changes, not every pass.
	heldBy string
	heldAt eventstore.Position
}

// open verifies the archive (every segment against the manifest, as relayer archive verify does),
// loads the retention stream and brings the two into agreement: segments the manifest committed
// past the recorded horizon are recorded; an archive that fails its verification, ends behind the
// recorded horizon or lists another segment where the log recorded one is refused (it was
// damaged, it is not the archive this log was archived to, or it lost segments), and nothing is
// removed.
func (a *Archiver) open(ctx context.Context, store eventstore.Store) (*worker, error) {
	w := &worker{a: a, store: store, state: eventstore.NewFolded(state{}), redo: true}
	if err := w.state.Catch(ctx, a.store, a.codec, domain.RetentionStream, fold); err != nil {
		return nil, err
	}
	// The horizon the log records, and the lag behind it, also while the archive is refused.
	a.m.horizon.Set(float64(w.state.State.horizon))
	if head, err := a.store.Head(ctx); err == nil {
		a.m.lag.Set(float64(head - min(head, w.state.State.horizon)))
	}
	if _, err := archive.Verify(ctx, a.arch); err != nil {
		return nil, fmt.Errorf("%w: refusing to remove anything until the archive is sound", err)
	}
	m, err := archive.LoadManifest(ctx, a.arch)
	if err != nil {
		return nil, err
	}
	// The archive must be this log's before anything in it is touched: the writer's Open below
	// removes the files the manifest does not list, which in another log's archive are its
	// writer's, not a killed run's.
	h := w.state.State.horizon
	switch end := m.Last(); {
	case end < h:
		return nil, fmt.Errorf("the archive %s ends at position %d, but the log records it archived up to %d: refusing to remove anything", a.arch, end, h)
	case h > 0 && !holds(m, w.state.State.recorded):
		r := w.state.State.recorded
		return nil, fmt.Errorf("the archive %s does not list the segment the log recorded at positions %d..%d (%s, SHA-256 %s): "+
			"it is another log's archive, or its manifest was edited; refusing to remove anything", a.arch, r.First, r.Last, r.File, r.SHA256)
	}
	for _, seg := range m.Segments {
		// Nothing above the horizon has left the live store: the segment must hold exactly what
		// the store holds in its range, or it is another log's.
		if seg.Last > h {
			if err := a.sameAsLive(ctx, seg); err != nil {
				return nil, err
			}
		}
	}
	if w.writer, err = archive.Open(ctx, a.arch, a.log); err != nil {
		return nil, err
	}
	for _, seg := range m.Segments {
		if seg.Last <= h {
			continue
		}
		a.log.Warn("archiver: recording a segment a killed run committed but did not record", "file", seg.File,
			"first", uint64(seg.First), "last", uint64(seg.Last))
		if err := w.record(ctx, seg); err != nil {
			return nil, err
		}
	}
	a.m.horizon.Set(float64(w.state.State.horizon))
	return w, nil
}

// holds reports whether manifest m lists the recorded segment r, with its range and SHA-256.
func holds(m archive.Manifest, r domain.ArchiveAdvanced) bool {
	for _, seg := range m.Segments {
		if seg.File == r.File {
			return uint64(seg.First) == r.First && uint64(seg.Last) == r.Last && seg.SHA256 == r.SHA256
		}
	}
	return false
}

// sameAsLive checks that segment seg, above the recorded horizon, holds the live store's records
// of its range, one for one.
func (a *Archiver) sameAsLive(ctx context.Context, seg archive.Segment) error {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next, stop := iter.Pull2(a.store.ReadAll(rctx, seg.First-1))
	defer stop()
	n := 0
	for r, err := range archive.Read(ctx, a.arch, seg.First-1) {
		if err != nil {
			return err
		}
		if r.Position > seg.Last {
			break
		}
		l, err, ok := next()
		if err != nil {
			return err
		}
		if !ok || l.Position != r.Position || l.Stream != r.Stream || l.Version != r.Version || l.Type != r.Type || !bytes.Equal(l.Data, r.Data) {
			return fmt.Errorf("the archive %s holds %s, whose record at position %d is not the live store's: it is another log's archive; refusing to use it",
				a.arch, seg.File, r.Position)
		}
		n++
	}
	if n != seg.Events {
		return fmt.Errorf("the archive %s: %s yields %d records, its manifest says %d", a.arch, seg.File, n, seg.Events)
	}
	return nil
}

// record appends ArchiveAdvanced for a committed segment, with the read models' history as of
// a position at or past the segment's end (HistoryCarried), read as late as can be: every event
// that leaves the live store later, a retired job's or a superseded housekeeping one, is at or
// below the segment's end, so read models folded from the live store alone take over what they
// no longer see from it (projections.Set.History), and replay on it only the few events that
// came between, all of which stay live.
func (w *worker) record(ctx context.Context, seg archive.Segment) error {
	asOf, history, err := w.history(ctx, seg.Last)
	if err != nil {
		return err
	}
	at, err := eventstore.Update(ctx, w.store, w.a.codec, domain.RetentionStream, &w.state, fold,
		func(s state) ([]eventstore.Typed, error) {
			if s.horizon >= seg.Last {
				return nil, nil // another run recorded it
			}
			if seg.First != s.horizon+1 && s.horizon != 0 {
				return nil, fmt.Errorf("segment %s does not follow the recorded horizon %d", seg.File, s.horizon)
			}
			at := w.a.now().UTC()
			return []eventstore.Typed{domain.ArchiveAdvanced{First: uint64(seg.First), Last: uint64(seg.Last), File: seg.File,
				SHA256: seg.SHA256, Events: seg.Events, At: at},
				domain.HistoryCarried{AsOf: uint64(asOf), History: history, At: at}}, nil
		}, eventstore.Metadata{}, nil, 3)
	if err != nil {
		return err
	}
	w.a.m.horizon.Set(float64(w.state.State.horizon))
	return w.carriedHolds(ctx, asOf, at)
}

// history is the read models' running history once they have reached position pos, and the
// position it is as of.
func (w *worker) history(ctx context.Context, pos eventstore.Position) (eventstore.Position, json.RawMessage, error) {
	if err := w.a.set.WaitFor(ctx, pos); err != nil {
		return 0, nil, err
	}
	return w.a.set.History()
}

// pass does one round of work: it redoes an interrupted removal, archives a batch and retires a
// batch. It reports whether there may be more to do at once.
func (w *worker) pass(ctx context.Context) (bool, error) {
	a := w.a
	if err := a.refresh(ctx); err != nil {
		return false, err
	}
	policy := a.Policy()
	if err := w.state.Catch(ctx, a.store, a.codec, domain.RetentionStream, fold); err != nil {
		return false, err
	}
	if head, err := a.store.Head(ctx); err == nil {
		a.m.lag.Set(float64(head - min(head, w.state.State.horizon)))
	}
	for r, err := range a.store.ReadAll(ctx, 0) {
		if err == nil {
			a.m.oldest.Set(float64(r.Position))
		}
		break
	}
	if w.redo {
		if last := w.state.State.last; last != nil {
			if err := w.remove(ctx, last); err != nil {
				return false, err
			}
			if err := w.carry(ctx); err != nil {
				return false, err
			}
		}
		w.redo = false
	}
	if !policy.Enabled {
		return false, nil
	}
	archived, err := w.archiveBatch(ctx, policy)
	if err != nil {
		return false, err
	}
	retired, err := w.retireBatch(ctx, policy)
	if err != nil {
		return false, err
	}
	return archived || retired, nil
}

// archiveBatch writes the next segment: up to Batch records after the horizon, when there are
// that many, or fewer when a job past its window has events beyond the horizon (so that every
// such job can be removed, however quiet the log).
func (w *worker) archiveBatch(ctx context.Context, policy domain.Retention) (bool, error) {
	a := w.a
	h := w.state.State.horizon
	var records []eventstore.Record
	rctx, cancel := context.WithCancel(ctx)
	for r, err := range a.store.ReadAll(rctx, h) {
		if err != nil {
			cancel()
			return false, fmt.Errorf("read the log after %d: %w", h, err)
		}
		records = append(records, r)
		if len(records) == policy.Batch {
			break
		}
	}
	cancel()
	if len(records) == 0 {
		return false, nil
	}
	full := len(records) == policy.Batch
	if !full && !w.retirableBeyond(ctx, policy, h) {
		return false, nil
	}
	start := time.Now()
	seg, err := w.writer.Write(ctx, h+1, records[len(records)-1].Position, records)
	if err != nil {
		return false, err
	}
	if f := a.faults.afterSegment; f != nil {
		if err := f(); err != nil {
			return false, err
		}
	}
	if err := w.record(ctx, seg); err != nil {
		return false, err
	}
	if err := w.prune(ctx, records, seg.Last); err != nil {
		return false, err
	}
	a.m.segments.Inc()
	a.m.archived.Add(float64(len(records)))
	a.log.Info("archiver: segment archived", "file", seg.File, "first", uint64(seg.First), "last", uint64(seg.Last),
		"events", seg.Events, "bytes", seg.Bytes, "took", time.Since(start).Round(time.Millisecond))
	return full, nil
}

// retirableBeyond reports whether a job past its window has its last event after h.
func (w *worker) retirableBeyond(ctx context.Context, policy domain.Retention, h eventstore.Position) bool {
	head, err := w.a.store.Head(ctx)
	if err != nil || w.a.set.WaitFor(ctx, head) != nil {
		return false
	}
	for _, c := range w.a.set.Retirable(policy.Window, w.a.now(), head, math.MaxInt) {
		if c.Position > h {
			return true
		}
	}
	return false
}

// retireBatch retires up to Batch jobs past their windows, wholly at or below the horizon.
func (w *worker) retireBatch(ctx context.Context, policy domain.Retention) (bool, error) {
	a := w.a
	if a.remover == nil {
		return false, nil
	}
	h := w.state.State.horizon
	if h == 0 {
		return false, nil
	}
	// The read models must have seen the log up to the horizon, so that a job's last event as
	// they hold it is its last event up to there.
	if err := a.set.WaitFor(ctx, h); err != nil {
		return false, err
	}
	upTo := h
	held := 0.0
	if a.followers != nil {
		pos, who, ok, err := a.followers(ctx)
		if err != nil {
			return false, err
		}
		if ok && pos < h {
			upTo, held = pos, float64(h-pos)
			if w.heldBy != who || w.heldAt != pos {
				a.log.Info("archiver: retirement held back until a webhook endpoint has received the transitions (delete the endpoint to release it)",
					"webhook", who, "delivered_to", uint64(pos), "horizon", uint64(h))
				w.heldBy, w.heldAt = who, pos
			}
		}
	}
	a.m.held.Set(held)
	candidates := a.set.Retirable(policy.Window, a.now(), upTo, policy.Batch)
	if len(candidates) == 0 {
		return false, nil
	}
	// The archive must still be the one opened: a manifest edited or a segment file removed since
	// is a failed pass, and the next open verifies the whole archive before anything is removed.
	if err := w.writer.Check(ctx); err != nil {
		return false, fmt.Errorf("%w: refusing to remove anything", err)
	}
	ids := make([]domain.JobID, 0, len(candidates))
	versions := make([]uint64, 0, len(candidates))
	for _, c := range candidates {
		// The stream's last event in the store must be the one the read models hold.
		v, err := eventstore.LastVersion(ctx, a.store, c.ID.Stream())
		if err != nil {
			return false, err
		}
		if v != c.Version {
			continue
		}
		ids = append(ids, c.ID)
		versions = append(versions, uint64(v))
	}
	if len(ids) == 0 {
		return false, nil
	}
	ev := domain.JobsRetired{UpTo: uint64(h), Jobs: ids, Versions: versions, At: a.now().UTC()}
	_, err := eventstore.Update(ctx, w.store, a.codec, domain.RetentionStream, &w.state, fold,
		func(s state) ([]eventstore.Typed, error) {
			if s.horizon != h {
				return nil, fmt.Errorf("the retention stream moved under the archiver (horizon %d, expected %d): another archiver runs", s.horizon, h)
			}
			return []eventstore.Typed{ev}, nil
		}, eventstore.Metadata{}, nil, 0)
	if err != nil {
		return false, err
	}
	a.log.Info("archiver: retirement recorded, removing the jobs' streams", "jobs", len(ids), "up_to", uint64(h))
	if f := a.faults.afterRetired; f != nil {
		if err := f(); err != nil {
			return false, err
		}
	}
	if err := w.remove(ctx, &ev); err != nil {
		return false, err
	}
	if err := w.carry(ctx); err != nil {
		return false, err
	}
	return len(candidates) == policy.Batch, nil
}

// carry appends a HistoryCarried after the last retirement, as of a position past it, unless one
// follows it already. Read models that caught up while the retired jobs' streams were removed
// may have held one of them open until its JobsRetired: in a queue, where it made the jobs that
// left the queue meanwhile count as leaving a backlog. What that added to their running history
// is not the log's, and the HistoryCarried written with the segment before the retirement is as
// of a position before it: this one puts it right as soon as it is applied, rather than with the
// next segment, which a quiet log may not write for a long time.
func (w *worker) carry(ctx context.Context) error {
	needed := func(s state) bool { return s.last != nil && !s.carried }
	if !needed(w.state.State) {
		return nil
	}
	asOf, at, err := w.appendHistory(ctx, needed) // not when another run carried it, or archived since
	if err != nil {
		return err
	}
	return w.carriedHolds(ctx, asOf, at)
}

// appendHistory appends a HistoryCarried of the read models' history as of the store's head, if
// needed still holds of the retention stream as folded when it appends. It returns the history's
// position and the event's (0 when nothing was appended).
func (w *worker) appendHistory(ctx context.Context, needed func(state) bool) (asOf, at eventstore.Position, err error) {
	head, err := w.store.Head(ctx)
	if err != nil {
		return 0, 0, err
	}
	asOf, history, err := w.history(ctx, head)
	if err != nil {
		return 0, 0, err
	}
	if f := w.a.faults.beforeCarry; f != nil {
		f()
	}
	at, err = eventstore.Update(ctx, w.store, w.a.codec, domain.RetentionStream, &w.state, fold,
		func(s state) ([]eventstore.Typed, error) {
			if !needed(s) {
				return nil, nil
			}
			return []eventstore.Typed{domain.HistoryCarried{AsOf: uint64(asOf), History: history, At: w.a.now().UTC()}}, nil
		}, eventstore.Metadata{}, nil, 3)
	return asOf, at, err
}

// maxRecarries bounds how many times in a row the archiver carries the history again.
const maxRecarries = 3

// carriedHolds makes sure the HistoryCarried appended at position at, as of asOf, is taken over
// by every Set that applies it (projections.Set.CarriedHistoryHolds): when more history
// operations came between the history's reading and its append than every Set keeps (the log
// ran fast while the append waited), read models folded from the live store alone would keep a
// history short of the log's, so the history is carried again, as of where the read models are
// now, until one holds. Nothing is appended when at is 0 (nothing was carried).
func (w *worker) carriedHolds(ctx context.Context, asOf, at eventstore.Position) error {
	always := func(state) bool { return true }
	for range maxRecarries {
		if at == 0 {
			return nil
		}
		if err := w.a.set.WaitFor(ctx, at); err != nil {
			return err
		}
		if w.a.set.CarriedHistoryHolds(asOf, at) {
			return nil
		}
		w.a.log.Warn("archiver: the history carried lagged the log too far for every instance to take it over; carrying it again",
			"as_of", uint64(asOf), "at", uint64(at))
		var err error
		if asOf, at, err = w.appendHistory(ctx, always); err != nil {
			return err
		}
	}
	return fmt.Errorf("the history carried lagged the log too far %d times in a row", maxRecarries)
}

// remove removes the streams of a recorded retirement (again, after a crash: it is idempotent).
func (w *worker) remove(ctx context.Context, ev *domain.JobsRetired) error {
	if w.a.remover == nil {
		return nil
	}
	streams := make([]string, len(ev.Jobs))
	for i, id := range ev.Jobs {
		streams[i] = id.Stream()
	}
	start := time.Now()
	out, err := w.a.remover.RemoveStreams(ctx, streams, eventstore.Position(ev.UpTo))
	if err != nil {
		return err
	}
	w.a.m.retired.Add(float64(len(out.Streams)))
	w.a.m.removed.Add(float64(out.Events))
	if len(out.Streams) > 0 {
		w.a.log.Info("archiver: jobs retired from the live store", "jobs", len(out.Streams), "named", len(ev.Jobs),
			"events", out.Events, "up_to", ev.UpTo, "took", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// foldPolicy applies the admin API's changes of the retention parameters; a change that no
// longer applies is skipped, as the API skips it.
func foldPolicy(log *slog.Logger) func(domain.Retention, eventstore.Typed) domain.Retention {
	return func(r domain.Retention, e eventstore.Typed) domain.Retention {
		ch, ok := e.(domain.ConfigChanged)
		if !ok || !strings.HasPrefix(ch.Param, domain.RetentionPrefix) {
			return r
		}
		next, _, _, err := r.With(ch.Param, ch.New)
		if err != nil {
			log.Warn("archiver: skipping a recorded retention change that no longer applies", "param", ch.Param, "err", err)
			return r
		}
		return next
	}
}

type metrics struct {
	horizon, lag, oldest, held            prometheus.Gauge
	failures, segments, archived, retired prometheus.Counter
	removed, pruned                       prometheus.Counter
}

func newMetrics() metrics {
	return metrics{
		horizon: prometheus.NewGauge(prometheus.GaugeOpts{Name: "relayer_archive_horizon_position",
			Help: "The archived horizon: every event of the log at or below this position is in the archive."}),
		held: prometheus.NewGauge(prometheus.GaugeOpts{Name: "relayer_retention_held_back_positions",
			Help: "Positions below the archived horizon whose jobs wait to be retired until the slowest webhook endpoint (a disabled one too) has received their transitions; 0 when none waits."}),
		lag: prometheus.NewGauge(prometheus.GaugeOpts{Name: "relayer_archive_lag_events",
			Help: "Positions between the log's head and the archived horizon."}),
		oldest: prometheus.NewGauge(prometheus.GaugeOpts{Name: "relayer_store_oldest_live_position",
			Help: "The position of the oldest event the live store still holds (older ones are in the archive, or never were)."}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{Name: "relayer_archive_failures_total",
			Help: "Archiver passes that failed (archive unreachable, store full, ...); each is tried again after the interval."}),
		segments: prometheus.NewCounter(prometheus.CounterOpts{Name: "relayer_archive_segments_total",
			Help: "Archive segments written, read back and committed by this process."}),
		archived: prometheus.NewCounter(prometheus.CounterOpts{Name: "relayer_archive_events_total",
			Help: "Events copied to the archive by this process."}),
		retired: prometheus.NewCounter(prometheus.CounterOpts{Name: "relayer_retired_jobs_total",
			Help: "Jobs removed from the live store past their retention window by this process."}),
		removed: prometheus.NewCounter(prometheus.CounterOpts{Name: "relayer_retired_events_total",
			Help: "Events removed from the live store with retired jobs by this process."}),
		pruned: prometheus.NewCounter(prometheus.CounterOpts{Name: "relayer_pruned_events_total",
			Help: "Superseded housekeeping events (checkpoints, block cursors, lease renewals, the archiver's own) removed from the live store once archived, by this process."}),
	}
}

// Collectors are the archiver's metrics.
func (a *Archiver) Collectors() []prometheus.Collector {
	return []prometheus.Collector{a.m.horizon, a.m.lag, a.m.oldest, a.m.held, a.m.failures, a.m.segments, a.m.archived, a.m.retired, a.m.removed, a.m.pruned}
}
