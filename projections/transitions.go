package projections

import (
	"context"
	"fmt"
	"time"

	"relayer/domain"
	"relayer/eventstore"
)

// Transition is one change of a job's status as the log records it: the wire shape of every
// consumer outside the relayer that hears about transitions, the "transition" events of
// GET /v1/transitions and the bodies of webhook deliveries alike, so that one decoder serves
// both.
type Transition struct {
	JobID string `json:"jobId"`
	Kind  string `json:"kind"`
	// From is the status before the event; omitted for an acceptance (there was none) and, on
	// GET /v1/transitions, when the stream has not seen the job's earlier transitions (it started
	// after them). Webhook deliveries always have it after an acceptance.
	From      string    `json:"from,omitempty"`
	To        string    `json:"to"`
	EventType string    `json:"eventType"`
	At        time.Time `json:"at"`
	// Version is the event's version in the job's stream, Position its global position (also the
	// SSE id).
	Version  int64  `json:"version"`
	Position uint64 `json:"position"`
	// Label says why a job failed or timed out.
	Label string `json:"label,omitempty"`
}

// Before says what a Transitions reader needs of a job it sees first at version v (it started
// reading after the job's acceptance): its kind and the status it was in before v. Either may be
// zero when the resolver cannot tell: the kind is then "unknown" and From is omitted.
type Before func(ctx context.Context, id domain.JobID, v eventstore.Version) (domain.Kind, domain.Status, error)

// transitionTrack is what a Transitions reader knows of a job: its kind and the status it last
// saw it enter.
type transitionTrack struct {
	kind   domain.Kind
	status domain.Status
}

// Transitions turns the request events of the log, read in global order, into transitions. It
// keeps the kind and status of each job it has seen until the job ends. Not safe for concurrent
// use: one reader owns it.
type Transitions struct {
	codec  *eventstore.Codec
	before Before
	jobs   map[domain.JobID]transitionTrack
}

// NewTransitions reads with codec (NewCodec's) and asks before about the jobs it meets mid-life.
func NewTransitions(codec *eventstore.Codec, before Before) *Transitions {
	return &Transitions{codec: codec, before: before, jobs: map[domain.JobID]transitionTrack{}}
}

// Next is the transition rec makes: ok is false for a record of another stream than a request's
// and for an event that changes no status. An event that cannot be decoded is an error (a
// *eventstore.RecordError), as is a failure of the resolver.
func (t *Transitions) Next(ctx context.Context, rec eventstore.Record) (Transition, bool, error) {
	id, isJob := domain.JobIDFromStream(rec.Stream)
	if !isJob {
		return Transition{}, false, nil
	}
	e, err := DecodeEvent(t.codec, rec)
	if err != nil {
		return Transition{}, false, err
	}
	to, changes := domain.StatusAfter(e)
	if !changes {
		return Transition{}, false, nil
	}
	tr, seen := t.jobs[id]
	from := tr.status
	if a, ok := e.(domain.RequestAccepted); ok {
		tr, from = transitionTrack{kind: a.Kind}, domain.Status{}
	} else if !seen && t.before != nil {
		if tr.kind, from, err = t.before(ctx, id, rec.Version); err != nil {
			return Transition{}, false, fmt.Errorf("transition of %s@%d: %w", rec.Stream, rec.Version, err)
		}
	}
	if to.Terminal() {
		delete(t.jobs, id)
	} else {
		tr.status = to
		t.jobs[id] = tr
	}
	msg := Transition{
		JobID:     id.String(),
		Kind:      tr.kind.String(),
		To:        to.String(),
		EventType: rec.Type,
		At:        e.Header().At,
		Version:   int64(rec.Version),
		Position:  uint64(rec.Position),
		Label:     domain.LabelOf(e),
	}
	if !from.IsZero() {
		msg.From = from.String()
	}
	return msg, true, nil
}

// Kind is the kind of job id as far as t has seen it (the zero Kind when it has not, or the job
// ended).
func (t *Transitions) Kind(id domain.JobID) domain.Kind { return t.jobs[id].kind }

// HistoryBefore is the exact Before: it reads the job's stream in store up to v and folds the
// statuses its events entered. It costs one read of the stream per job first seen mid-life.
func HistoryBefore(store eventstore.Store, codec *eventstore.Codec) Before {
	return func(ctx context.Context, id domain.JobID, v eventstore.Version) (domain.Kind, domain.Status, error) {
		var kind domain.Kind
		var status domain.Status
		for rec, err := range store.ReadStream(ctx, id.Stream(), 0) {
			if err != nil {
				return domain.Kind{}, domain.Status{}, err
			}
			if rec.Version >= v {
				break
			}
			e, err := DecodeEvent(codec, rec)
			if err != nil {
				return domain.Kind{}, domain.Status{}, err
			}
			if a, ok := e.(domain.RequestAccepted); ok {
				kind = a.Kind
			}
			if to, ok := domain.StatusAfter(e); ok {
				status = to
			}
		}
		return kind, status, nil
	}
}
