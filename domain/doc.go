// Package domain holds what a relayer request is and how it may change: the request kinds, the
// seven statuses, the events of the lifecycle, the commands that produce them, and the pure
// functions Decide (state + command -> events or a typed error) and Evolve (state + event ->
// state). It also validates the four request payloads and computes the content hash that makes
// submissions idempotent.
//
// The package is pure: no I/O, no clock (every command carries its time), no imports of the rest
// of the project. Workers and handlers load a stream, Evolve it into a State, Decide, and append
// the result with the stream's expected version.
package domain
