// Package columns names the columns of a record as the SQL event stores (SQLite, PostgreSQL)
// select them: one list, in one order, and the index of each column in it, so that a store's
// queries and its decoding of their rows cannot disagree.
package columns

// List is the columns of a record, in the order of the indexes below.
const List = `position, stream, version, type, schema_version, data, correlation_id, causation_id, recorded_at`

// The index of each column in List, and Count, how many there are.
const (
	Position = iota
	Stream
	Version
	Type
	SchemaVersion
	Data
	CorrelationID
	CausationID
	RecordedAt
	Count
)
