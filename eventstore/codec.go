package eventstore

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// Typed is what a codec encodes: a value that names its event type. The eventstore never needs
// to know more of the domain's events than this.
type Typed interface {
	EventType() string
}

// Upcaster rewrites the JSON data of one schema version into the next one (version n to n+1).
type Upcaster func(data json.RawMessage) (json.RawMessage, error)

// Codec maps Go event types to stored events (type name, schema version, JSON data) and back,
// upcasting data written under older schema versions. Register every type before use; a Codec
// is then safe for concurrent reads.
type Codec struct {
	byName map[string]*codecEntry
	byType map[reflect.Type]*codecEntry
}

type codecEntry struct {
	name      string
	version   int
	decode    func(json.RawMessage) (Typed, error)
	upcasters map[int]Upcaster // from version -> upcaster to version+1
}

// NewCodec returns an empty codec.
func NewCodec() *Codec {
	return &Codec{byName: map[string]*codecEntry{}, byType: map[reflect.Type]*codecEntry{}}
}

// Register adds event type T, written under schemaVersion (1 or more). Data stored under older
// versions is readable once an upcaster exists for each step (see Upcast).
func Register[T Typed](c *Codec, schemaVersion int) error {
	var zero T
	name := zero.EventType()
	if name == "" {
		return fmt.Errorf("register %T: empty event type", zero)
	}
	if schemaVersion < 1 {
		return fmt.Errorf("register %s: schema version %d, want 1 or more", name, schemaVersion)
	}
	if _, dup := c.byName[name]; dup {
		return fmt.Errorf("register %s: event type already registered", name)
	}
	e := &codecEntry{
		name:    name,
		version: schemaVersion,
		decode: func(data json.RawMessage) (Typed, error) {
			var v T
			if err := json.Unmarshal(data, &v); err != nil {
				return nil, err
			}
			return v, nil
		},
		upcasters: map[int]Upcaster{},
	}
	c.byName[name] = e
	c.byType[reflect.TypeFor[T]()] = e
	return nil
}

// Upcast registers the step that turns data of eventType written under schema version from into
// version from+1.
func (c *Codec) Upcast(eventType string, from int, up Upcaster) error {
	e, ok := c.byName[eventType]
	if !ok {
		return fmt.Errorf("upcast %s: %w", eventType, ErrUnknownEventType)
	}
	if from < 1 || from >= e.version {
		return fmt.Errorf("upcast %s from version %d: current version is %d", eventType, from, e.version)
	}
	e.upcasters[from] = up
	return nil
}

// Encode turns a registered event into an Event ready to append, with the given metadata.
func (c *Codec) Encode(v Typed, md Metadata) (Event, error) {
	e, ok := c.byType[reflect.TypeOf(v)]
	if !ok {
		return Event{}, fmt.Errorf("encode %T: %w", v, ErrUnknownEventType)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return Event{}, fmt.Errorf("encode %s: %w", e.name, err)
	}
	return Event{Type: e.name, SchemaVersion: e.version, Data: data, Metadata: md}, nil
}

// Decode turns a stored record back into its Go event, upcasting old schema versions first. Every
// failure is a *RecordError naming the stream, version and position, wrapping
// ErrUnknownEventType, ErrUnknownSchemaVersion or ErrCorruptRecord.
func (c *Codec) Decode(r Record) (Typed, error) {
	fail := func(err error) (Typed, error) {
		return nil, &RecordError{Stream: r.Stream, Version: r.Version, Position: r.Position, Err: err}
	}
	e, ok := c.byName[r.Type]
	if !ok {
		return fail(fmt.Errorf("%w %q", ErrUnknownEventType, r.Type))
	}
	data := r.Data
	if r.SchemaVersion != e.version {
		if r.SchemaVersion < 1 || r.SchemaVersion > e.version {
			return fail(fmt.Errorf("%w: %s schema version %d (this build reads up to %d)", ErrUnknownSchemaVersion, r.Type, r.SchemaVersion, e.version))
		}
		for v := r.SchemaVersion; v < e.version; v++ {
			up, ok := e.upcasters[v]
			if !ok {
				return fail(fmt.Errorf("%w: %s has no upcaster from schema version %d", ErrUnknownSchemaVersion, r.Type, v))
			}
			next, err := up(data)
			if err != nil {
				return fail(fmt.Errorf("%w: upcast %s from schema version %d: %v", ErrCorruptRecord, r.Type, v, err))
			}
			data = next
		}
	}
	v, err := e.decode(data)
	if err != nil {
		return fail(fmt.Errorf("%w: decode %s: %v", ErrCorruptRecord, r.Type, err))
	}
	return v, nil
}

// Types lists the registered event type names.
func (c *Codec) Types() []string {
	names := make([]string, 0, len(c.byName))
	for n := range c.byName {
		names = append(names, n)
	}
	return names
}
