package eventstore

import (
	"context"
	"errors"
	"fmt"
)

// Folded is a stream's state as far as it has been read: the fold of its events up to Version
// (NoStream before the first). Small streams that change by "load, decide, append with the
// expected version" (a lease, a checkpoint, a block cursor, the runtime configuration) keep one
// and go through Update; the request streams do the same through projections.Executor.
type Folded[S any] struct {
	State   S
	Version Version
}

// NewFolded is the state of a stream nothing has been read of.
func NewFolded[S any](zero S) Folded[S] { return Folded[S]{State: zero, Version: NoStream} }

// Catch reads stream's events after f.Version and folds them into f.
func (f *Folded[S]) Catch(ctx context.Context, store Store, codec *Codec, stream string, fold func(S, Typed) S) error {
	for r, err := range store.ReadStream(ctx, stream, f.Version+1) {
		if err != nil {
			return fmt.Errorf("read %s: %w", stream, err)
		}
		v, err := codec.Decode(r)
		if err != nil {
			return fmt.Errorf("read %s: %w", stream, err)
		}
		f.State, f.Version = fold(f.State, v), r.Version
	}
	return nil
}

// Update is the one update path of a small stream: decide on f's state, append what decide
// returns expecting f.Version (under guard when it is not nil), and fold it in. When another
// writer appended first, f catches up and decide runs again, at most retries times; the
// version conflict is returned after that. decide returning no events appends nothing. The
// position is that of the last appended event (0 when nothing was appended).
func Update[S any](ctx context.Context, store Store, codec *Codec, stream string, f *Folded[S], fold func(S, Typed) S,
	decide func(S) ([]Typed, error), md Metadata, guard *Guard, retries int) (Position, error) {
	for attempt := 0; ; attempt++ {
		evs, err := decide(f.State)
		if err != nil || len(evs) == 0 {
			return 0, err
		}
		stored := make([]Event, len(evs))
		for i, e := range evs {
			if stored[i], err = codec.Encode(e, md); err != nil {
				return 0, err
			}
		}
		var pos Position
		if guard != nil {
			ga, ok := store.(GuardedAppender)
			if !ok {
				return 0, fmt.Errorf("append to %s: the store does not offer guarded appends", stream)
			}
			pos, err = ga.AppendGuarded(ctx, *guard, stream, f.Version, stored...)
		} else {
			pos, err = store.Append(ctx, stream, f.Version, stored...)
		}
		if err == nil {
			for _, e := range evs {
				f.State = fold(f.State, e)
			}
			f.Version += Version(len(evs))
			return pos, nil
		}
		if !errors.Is(err, ErrWrongExpectedVersion) || attempt >= retries {
			return 0, err
		}
		if err := f.Catch(ctx, store, codec, stream, fold); err != nil {
			return 0, err
		}
	}
}

// StreamVersioner is what a store may offer besides Store: a stream's current version (NoStream
// when it has no events) in one query.
type StreamVersioner interface {
	StreamVersion(ctx context.Context, stream string) (Version, error)
}

// LastVersion finds the version of stream's last event (NoStream when it has none): in one query
// where the store offers StreamVersioner, else in a logarithmic number of reads, for a stream that
// only grows and need not be read whole.
func LastVersion(ctx context.Context, store Store, stream string) (Version, error) {
	if sv, ok := store.(StreamVersioner); ok {
		return sv.StreamVersion(ctx, stream)
	}
	has := func(v Version) (bool, error) {
		for _, err := range store.ReadStream(ctx, stream, v) {
			return err == nil, err
		}
		return false, nil
	}
	ok, err := has(0)
	if err != nil || !ok {
		return NoStream, err
	}
	lo, hi := Version(0), Version(1) // lo exists; find a hi that does not
	for {
		ok, err := has(hi)
		if err != nil {
			return NoStream, err
		}
		if !ok {
			break
		}
		lo, hi = hi, hi*2
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, err := has(mid)
		if err != nil {
			return NoStream, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// Last reads the last event of stream, for a stream whose last event holds its whole state (a
// checkpoint, a block cursor): nil and NoStream when it has none. It takes a logarithmic number
// of short reads (LastVersion), however many events the stream holds.
func Last(ctx context.Context, store Store, codec *Codec, stream string) (Typed, Version, error) {
	v, err := LastVersion(ctx, store, stream)
	if err != nil || v == NoStream {
		return nil, NoStream, err
	}
	for r, err := range store.ReadStream(ctx, stream, v) {
		if err != nil {
			return nil, NoStream, fmt.Errorf("read %s: %w", stream, err)
		}
		e, err := codec.Decode(r)
		if err != nil {
			return nil, NoStream, fmt.Errorf("read %s: %w", stream, err)
		}
		return e, r.Version, nil
	}
	return nil, NoStream, fmt.Errorf("read %s: its last event at version %d is gone", stream, v)
}
