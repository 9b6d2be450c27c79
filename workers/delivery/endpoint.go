package delivery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"relayer/domain"
	"relayer/domain/webhook"
	"relayer/eventstore"
	"relayer/projections"
	"relayer/workers"
	"relayer/workers/upstream"
)

// endpointRef is the endpoint as a follower sees it now: the manager replaces it when the
// endpoint changes (a rotation), the follower reads it at each attempt.
type endpointRef struct {
	p atomic.Pointer[webhook.Endpoint]
}

func newEndpointRef(e *webhook.Endpoint) *endpointRef {
	r := &endpointRef{}
	r.p.Store(e)
	return r
}

func (r *endpointRef) get() *webhook.Endpoint  { return r.p.Load() }
func (r *endpointRef) set(e *webhook.Endpoint) { r.p.Store(e) }

// errDisabled ends a follower whose endpoint it disabled.
var errDisabled = errors.New("the endpoint was disabled")

// followerRetry is the wait before a follower that failed (the log unreadable, its checkpoint
// not saved) starts again.
var followerRetry = upstream.Backoff{Base: time.Second, Max: 30 * time.Second}

// follow runs an endpoint's follower until ctx ends or it disabled the endpoint, starting it
// again after a failure.
func (s *Service) follow(ctx context.Context, store eventstore.Store, f *follower) {
	failures := 0
	for {
		err := s.followOnce(ctx, store, f)
		switch {
		case ctx.Err() != nil, errors.Is(err, errDisabled):
			return
		case err == nil:
			failures = 0
			continue
		}
		failures++
		wait := followerRetry.Delay(failures, nil)
		s.log.Warn("webhook follower stopped; starting it again", "webhook", f.ep.get().ID, "err", err, "retry_in", wait.String())
		if !sleep(ctx, wait) {
			return
		}
	}
}

// followOnce loads the endpoint's checkpoint and delivers from there until ctx ends (nil) or
// something fails; it saves the checkpoint before it returns.
func (s *Service) followOnce(ctx context.Context, store eventstore.Store, f *follower) (err error) {
	ep := f.ep.get()
	cp, err := workers.LoadCheckpoint(ctx, store, CheckpointPrefix+ep.ID, s.cfg.Checkpoint)
	if err != nil {
		return err
	}
	start := max(cp.Saved(), eventstore.Position(ep.After))
	f.stats.position.Store(uint64(start))
	// A failure streak that a run before this one saved (before a restart, or on another
	// instance) goes on, unless the endpoint was enabled after it began: that one is over. A
	// streak this process already counts and could not save yet is saved with the checkpoint.
	if since := cp.StuckSince(); !since.IsZero() && since.Before(ep.ActiveSince) {
		cp.SetStuck(time.Time{})
	} else if !since.IsZero() {
		f.stats.failingSince.CompareAndSwap(0, since.UnixNano())
	}
	if mem := f.stats.failingSince.Load(); mem != 0 && cp.StuckSince().IsZero() {
		cp.SetStuck(time.Unix(0, mem))
	}
	defer func() {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if ferr := cp.Flush(fctx); ferr != nil && ctx.Err() == nil {
			err = errors.Join(err, ferr)
		}
	}()
	jobs := projections.NewTransitions(s.codec, projections.HistoryBefore(store, s.codec))

	return workers.Follow(ctx, store, start, cp, time.Second, func(ctx context.Context, rec eventstore.Record) (bool, error) {
		f.stats.position.Store(uint64(rec.Position))
		if _, isJob := domain.JobIDFromStream(rec.Stream); !isJob {
			// Checkpoints (this follower's own saves among them), leases, configuration:
			// passed over without counting as progress, or every save would make the next one
			// due.
			return false, nil
		}
		tr, ok, err := jobs.Next(ctx, rec)
		if err != nil {
			return false, err
		}
		if ok && matches(f.ep.get().Filter, tr) {
			if err := s.deliver(ctx, store, cp, f, rec, tr); err != nil {
				return false, err
			}
		}
		return true, nil
	})
}

func matches(filter webhook.Filter, tr projections.Transition) bool {
	k, _ := domain.ParseKind(tr.Kind)
	to, _ := domain.ParseStatus(tr.To)
	return filter.Match(k, to, tr.EventType)
}

// outcome is what one attempt came to.
type outcome struct {
	status int
	// wait is what the receiver asked for (Retry-After), 0 when it did not.
	wait time.Duration
	// err says why the attempt failed (nil when it succeeded); it holds no URL beyond its
	// scheme and host, and no secret.
	err error
}

// deliver delivers one transition, trying again on the long-tail schedule until it succeeds
// (nil), ctx ends (ctx's error), or the endpoint has failed for disable_after and is disabled
// (errDisabled).
func (s *Service) deliver(ctx context.Context, store eventstore.Store, cp *workers.Checkpoint, f *follower, rec eventstore.Record, tr projections.Transition) error {
	body, err := json.Marshal(tr)
	if err != nil {
		return err
	}
	id := webhook.EventID(rec.Stream, int64(rec.Version))
	f.stats.pendingSince.Store(rec.Metadata.RecordedAt.UnixNano())
	defer f.stats.pendingSince.Store(0)
	for attempt := 1; ; attempt++ {
		ep := f.ep.get()
		o := s.attempt(ctx, ep, id, body)
		if o.err == nil {
			f.stats.delivered.Add(1)
			if since := f.stats.failingSince.Swap(0); since != 0 {
				s.log.Info("webhook endpoint delivers again", "webhook", ep.ID, "failed_for", s.now().Sub(time.Unix(0, since)).Round(time.Millisecond).String())
				// The streak's end is saved at once, or a restart would take it up again; a full
				// store defers the save (the mark stays set for the next one), as it defers
				// every checkpoint save.
				if err := cp.MarkStuck(ctx, time.Time{}); err != nil && !errors.Is(err, eventstore.ErrStorageFull) {
					return err
				}
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		f.stats.failed.Add(1)
		now := s.now()
		since := time.Unix(0, f.stats.failingSince.Load())
		if f.stats.failingSince.CompareAndSwap(0, now.UnixNano()) {
			since = now
		}
		if !cp.StuckSince().Equal(since) || !cp.StuckSaved() {
			// What was delivered before this transition is saved before the waits begin, with
			// the streak's start, so that a restart or another instance takes the streak up
			// where it is instead of beginning one anew. A save that fails is tried again at
			// the next failure.
			if err := cp.MarkStuck(ctx, since); err != nil && !errors.Is(err, eventstore.ErrStorageFull) {
				return err
			}
		}
		failing := now.Sub(since)
		if failing >= s.cfg.Webhooks.DisableAfter {
			err := s.disable(ctx, store, ep, since, o)
			if errors.Is(err, errDisabled) {
				// Disabled: no streak runs while nothing is delivered (the failing-seconds
				// gauge grew for as long as the endpoint stayed disabled).
				f.stats.failingSince.Store(0)
			}
			if !errors.Is(err, webhook.ErrStale) {
				return err
			}
			// An operator enabled the endpoint after this streak began: a new one begins now.
			f.stats.failingSince.Store(now.UnixNano())
			since, failing = now, 0
			if err := cp.MarkStuck(ctx, now); err != nil && !errors.Is(err, eventstore.ErrStorageFull) {
				return err
			}
		}
		wait := s.sched.Next(attempt, nil)
		if o.wait > wait {
			wait = min(o.wait, s.cfg.Webhooks.RetryCap)
		}
		wait = max(min(wait, since.Add(s.cfg.Webhooks.DisableAfter).Sub(now)), time.Millisecond)
		level := s.log.Debug
		if attempt == 1 || attempt%10 == 0 {
			level = s.log.Warn
		}
		level("webhook delivery failed; trying again", "webhook", ep.ID, "job_id", tr.JobID, "correlation_id", rec.Metadata.CorrelationID, "position", tr.Position,
			"attempt", attempt, "err", o.err, "retry_in", wait.String(), "failing_for", failing.Round(time.Millisecond).String())
		if !sleep(ctx, wait) {
			return ctx.Err()
		}
	}
}

// attempt makes one delivery: POST body to the endpoint, signed with every secret that signs now.
func (s *Service) attempt(ctx context.Context, ep *webhook.Endpoint, id string, body []byte) outcome {
	u, err := url.Parse(ep.URL)
	if err != nil {
		return outcome{err: errors.New("the endpoint's URL does not parse")}
	}
	at := s.now()
	var keys [][]byte
	for _, sealed := range ep.Signing(at) {
		secret, err := webhook.Open(s.key, ep.ID, sealed)
		if err == nil {
			var k []byte
			if k, err = webhook.SecretKey(secret); err == nil {
				keys = append(keys, k)
				continue
			}
		}
		return outcome{err: fmt.Errorf("cannot sign: %w", err)}
	}
	if len(keys) == 0 {
		return outcome{err: errors.New("cannot sign: the endpoint has no secret")}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		return outcome{err: errors.New("the endpoint's URL makes no request")}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "relayer-webhooks/1")
	req.Header.Set(webhook.HeaderID, id)
	req.Header.Set(webhook.HeaderTimestamp, strconv.FormatInt(at.Unix(), 10))
	req.Header.Set(webhook.HeaderSignature, webhook.SignatureHeader(keys, id, at, body))
	res, err := s.client.Do(req)
	if err != nil {
		return outcome{err: scrub(err, u)}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, maxAnswerBytes))
	_ = res.Body.Close()
	o := outcome{status: res.StatusCode}
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		return o
	}
	o.err = fmt.Errorf("%s answered %d", upstream.SourceName(u), res.StatusCode)
	if d, _, ok := upstream.ParseRateLimit(res.Header, at).Wait(at); ok && (res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusServiceUnavailable) {
		o.wait = d
	}
	return o
}

// scrub is err without any part of u that may be a secret (its userinfo, path, query).
func scrub(err error, u *url.URL) error {
	msg := upstream.Redact(err.Error(), upstream.URLSecrets(u))
	if errors.Is(err, ErrRefusedAddress) {
		return fmt.Errorf("%s: %w", upstream.SourceName(u), ErrRefusedAddress)
	}
	return errors.New(msg)
}

// disable records that the endpoint failed from since for longer than disable_after, and stops
// its follower (errDisabled). If it is not active any more, nothing is recorded and the follower
// stops all the same (the manager starts it again if need be); if an operator enabled it after
// since, nothing is recorded and webhook.ErrStale says so.
func (s *Service) disable(ctx context.Context, store eventstore.Store, ep *webhook.Endpoint, since time.Time, last outcome) error {
	reason := fmt.Sprintf("deliveries failed for %s (webhooks.disable_after %s); the last: %v",
		s.now().Sub(since).Round(time.Second), s.cfg.Webhooks.DisableAfter, last.err)
	reg := eventstore.NewFolded(webhook.NewRegistry())
	if err := reg.Catch(ctx, store, s.codec, webhook.Stream, foldRegistry); err != nil {
		return err
	}
	_, err := eventstore.Update(ctx, store, s.codec, webhook.Stream, &reg, foldRegistry, func(r webhook.Registry) ([]eventstore.Typed, error) {
		d, err := r.Disable(webhook.Disable{ID: ep.ID, Reason: reason, FailingSince: since, At: s.now()})
		if err != nil {
			return nil, err
		}
		return []eventstore.Typed{d}, nil
	}, eventstore.Metadata{}, nil, 3)
	switch {
	case errors.Is(err, webhook.ErrStale):
		return err
	case errors.Is(err, webhook.ErrState), errors.Is(err, webhook.ErrNotFound):
		return errDisabled
	case err != nil:
		return fmt.Errorf("disable webhook %s: %w", ep.ID, err)
	}
	s.log.Error("webhook endpoint disabled: its deliveries kept failing", "webhook", ep.ID, "failing_since", since.UTC().Format(time.RFC3339), "reason", reason)
	return errDisabled
}
