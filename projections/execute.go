package projections

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"relayer/domain"
	"relayer/eventstore"
)

// Executor is the one way a command changes a request: load the job's stream, fold it into a
// State, Decide, and append the events with the stream's expected version. Handlers and workers
// never re-write this sequence inline, so the rule check and the write cannot drift apart.
type Executor struct {
	Store eventstore.Store
	Codec *eventstore.Codec
	// Retries bounds how often a command is re-decided on fresh state after losing a version
	// race (default 3). A re-decision sees the winner's events, so a duplicate command then
	// fails on the rules, not on the version.
	Retries int
}

// Outcome is what an executed command did.
type Outcome struct {
	// State is the job after the command.
	State domain.State
	// Events are the events appended (none when the command was rejected).
	Events []domain.Event
	// Position is the global position of the last appended event.
	Position eventstore.Position
}

// Load reads a job's stream and folds it, with the correlation id of its first event (see
// domain.State.CorrelationID). A job with no events gives the zero State.
func (x *Executor) Load(ctx context.Context, id domain.JobID) (domain.State, error) {
	var s domain.State
	corr := ""
	for rec, err := range x.Store.ReadStream(ctx, id.Stream(), 0) {
		if err != nil {
			return domain.State{}, fmt.Errorf("load %s: %w", id, err)
		}
		e, err := DecodeEvent(x.Codec, rec)
		if err != nil {
			return domain.State{}, fmt.Errorf("load %s: %w", id, err)
		}
		if s.Events == 0 {
			corr = rec.Metadata.CorrelationID
		}
		s = domain.Evolve(s, e)
	}
	s.CorrelationID = corr
	return s, nil
}

// Execute applies cmd to job id. A rule violation returns Decide's typed error and appends
// nothing; a lost version race is retried on fresh state.
func (x *Executor) Execute(ctx context.Context, id domain.JobID, cmd domain.Command, md eventstore.Metadata) (Outcome, error) {
	retries := x.Retries
	if retries <= 0 {
		retries = 3
	}
	if _, ok := cmd.(domain.Accept); ok {
		// A new job's stream is empty: decide on the zero state and append expecting NoStream,
		// without reading. If the stream does exist, that append fails on its version and the
		// loop below decides on the real state (which rejects the Accept).
		out, err := x.decideAndAppend(ctx, id, domain.State{}, cmd, md)
		if !errors.Is(err, eventstore.ErrWrongExpectedVersion) {
			return out, err
		}
	}
	for attempt := 0; ; attempt++ {
		s, err := x.Load(ctx, id)
		if err != nil {
			return Outcome{}, err
		}
		out, err := x.decideAndAppend(ctx, id, s, cmd, md)
		if errors.Is(err, eventstore.ErrWrongExpectedVersion) && attempt < retries {
			continue
		}
		return out, err
	}
}

// ExecuteOn applies cmd to job id deciding first on s, a state of the job the caller already
// holds (from Load or an earlier Outcome), which saves reading the stream. When s is not the
// stream's current state the append fails on its version, and a command s refuses may be one
// the current state allows: in both cases cmd is decided again on the stream as Execute does.
func (x *Executor) ExecuteOn(ctx context.Context, id domain.JobID, s domain.State, cmd domain.Command, md eventstore.Metadata) (Outcome, error) {
	if s.Status.IsZero() {
		return x.Execute(ctx, id, cmd, md)
	}
	out, err := x.decideAndAppend(ctx, id, s, cmd, md)
	if err == nil {
		return out, nil
	}
	var de *decideError
	if errors.Is(err, eventstore.ErrWrongExpectedVersion) || errors.As(err, &de) {
		return x.Execute(ctx, id, cmd, md)
	}
	return out, err
}

// decideError marks a command Decide refused (as opposed to a failed append).
type decideError struct{ err error }

func (e *decideError) Error() string { return e.err.Error() }
func (e *decideError) Unwrap() error { return e.err }

// decideAndAppend decides cmd on s and appends its events with md; an md without a correlation
// id takes the job's (s.CorrelationID), and the first events of a job give it theirs.
func (x *Executor) decideAndAppend(ctx context.Context, id domain.JobID, s domain.State, cmd domain.Command, md eventstore.Metadata) (Outcome, error) {
	md.CorrelationID = cmp.Or(md.CorrelationID, s.CorrelationID)
	if md.CorrelationID == "" {
		md.CorrelationID = id.Stream() // a state folded elsewhere, without the log's metadata
	}
	events, err := domain.Decide(s, cmd)
	if err != nil {
		return Outcome{State: s}, &decideError{fmt.Errorf("%s %s: %w", cmd.CommandName(), id, err)}
	}
	stored := make([]eventstore.Event, len(events))
	for i, e := range events {
		if stored[i], err = x.Codec.Encode(e, md); err != nil {
			return Outcome{State: s}, err
		}
	}
	expected := eventstore.Version(s.Events - 1) // NoStream (-1) for a new stream
	pos, err := x.Store.Append(ctx, id.Stream(), expected, stored...)
	if err != nil {
		return Outcome{State: s}, fmt.Errorf("%s %s: %w", cmd.CommandName(), id, err)
	}
	if s.Events == 0 {
		s.CorrelationID = md.CorrelationID
	}
	for _, e := range events {
		s = domain.Evolve(s, e)
	}
	return Outcome{State: s, Events: events, Position: pos}, nil
}
